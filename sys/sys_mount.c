/*
 * mount(2), umount2(2), statfs(2) and fstatfs(2): arguments copied in
 * and checked here, the work done by the VFS (fs/vfs_mount.c).
 */
#include "fs/vfs.h"
#include "sys/syscall.h"
#include "kern/ucred.h"
#include "kern/kmem.h"

/* mount(2)'s flags (Linux's MS_*). */
#define MS_RDONLY	0x1
#define MS_REMOUNT	0x20
#define MS_BIND		0x1000
#define MS_MOVE		0x2000
#define MS_PROPAGATION	0x1f0000	/* UNBINDABLE, PRIVATE, SLAVE, SHARED */
#define MS_MGC_MSK	0xffff0000UL
#define MS_MGC_VAL	0xc0ed0000UL	/* old callers' magic, ignored */

/* umount2(2)'s flags. */
#define MNT_FORCE	0x1
#define MNT_DETACH	0x2
#define MNT_EXPIRE	0x4

/* Linux's struct statfs on x86-64. */
struct linux_statfs {
	int64_t f_type, f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail, f_files, f_ffree;
	int32_t f_fsid[2];
	int64_t f_namelen, f_frsize, f_flags;
	int64_t f_spare[4];
};

#define ST_RDONLY	0x1
#define ST_VALID	0x20

/* A string argument of at most max bytes, or NULL for a NULL pointer. */
static int
copyin_string(uint64_t uaddr, size_t max, char **sp)
{
	*sp = NULL;
	if (uaddr == 0)
		return 0;
	char *s = kmalloc(max, 0);
	if (s == NULL)
		return -ENOMEM;
	int error = copyinstr(uaddr, s, max, NULL);
	if (error < 0) {
		kfree(s);
		/* Linux takes a page of options, and complains past it. */
		if (error == -ENAMETOOLONG && max == PAGE_SIZE)
			error = -EINVAL;
		return error;
	}
	*sp = s;
	return 0;
}

/* Flags vkernel cannot honour go to the kernel log (-v shows it). */
static void
mount_unsupported(const char *what)
{
	kprintf_ratelimited("mount: %s not supported (EINVAL)\n", what);
}

/*
 * mount(source, target, fstype, flags, data): a new mount of a
 * registered file system (MS_RDONLY, and the flags that only change
 * behaviour vkernel does not have, such as nosuid or noatime, are
 * taken); MS_REMOUNT, MS_BIND, MS_MOVE and propagation changes give
 * EINVAL.  data is the file system's option string.
 */
long
sys_mount(struct lwp *lp, const uint64_t *args)
{
	unsigned long flags = args[3];
	char *source = NULL, *target = NULL, *fstype = NULL, *data = NULL;
	int error;

	if ((flags & MS_MGC_MSK) == MS_MGC_VAL)
		flags &= ~MS_MGC_MSK;
	if ((error = copyin_string(args[0], PATH_MAX, &source)) < 0 ||
	    (error = copyin_string(args[1], PATH_MAX, &target)) < 0 ||
	    (error = copyin_string(args[2], PAGE_SIZE, &fstype)) < 0 ||
	    (error = copyin_string(args[4], PAGE_SIZE, &data)) < 0)
		goto out;
	if (!cred_is_root(lp->lwp_proc->p_ucred)) {
		error = -EPERM;
	} else if (flags & (MS_REMOUNT | MS_BIND | MS_MOVE | MS_PROPAGATION)) {
		mount_unsupported(flags & MS_REMOUNT ? "MS_REMOUNT" :
		    flags & MS_BIND ? "MS_BIND" : flags & MS_MOVE ? "MS_MOVE" :
		    "propagation flags");
		error = -EINVAL;
	} else if (target == NULL) {
		error = -EFAULT;
	} else if (fstype == NULL) {
		error = -EINVAL;
	} else {
		error = kern_mount(&lp->lwp_proc->p_fs, lp->lwp_proc->p_ucred,
		    source, target, fstype, (flags & MS_RDONLY) ? MNT_RDONLY : 0,
		    data);
	}
out:
	kfree(source);
	kfree(target);
	kfree(fstype);
	kfree(data);
	return error;
}

/* umount2(target, flags): MNT_FORCE is taken; MNT_DETACH is EINVAL. */
long
sys_umount2(struct lwp *lp, const uint64_t *args)
{
	int flags = (int)args[1];

	if (flags & ~(MNT_FORCE | MNT_DETACH | MNT_EXPIRE |
	    LINUX_UMOUNT_NOFOLLOW))
		return -EINVAL;
	if (flags & (MNT_DETACH | MNT_EXPIRE)) {
		kprintf_ratelimited("umount2: MNT_DETACH, MNT_EXPIRE not supported "
		    "(EINVAL)\n");
		return -EINVAL;
	}
	int error;
	char *path = copyin_path(args[0], &error);
	if (path == NULL)
		return error;
	error = kern_umount(&lp->lwp_proc->p_fs, lp->lwp_proc->p_ucred, path,
	    flags & LINUX_UMOUNT_NOFOLLOW);
	kfree(path);
	return error;
}

static long
statfs_out(const struct statfs_info *sf, uint64_t ubuf)
{
	struct linux_statfs st = {
		.f_type = (int64_t)sf->f_type,
		.f_bsize = (int64_t)sf->f_bsize,
		.f_blocks = sf->f_blocks,
		.f_bfree = sf->f_bfree,
		.f_bavail = sf->f_bavail,
		.f_files = sf->f_files,
		.f_ffree = sf->f_ffree,
		.f_fsid = { (int32_t)sf->f_fsid, (int32_t)(sf->f_fsid >> 32) },
		.f_namelen = (int64_t)sf->f_namelen,
		.f_frsize = (int64_t)sf->f_bsize,
		.f_flags = ST_VALID | (sf->f_rdonly ? ST_RDONLY : 0),
	};
	return copyout(&st, ubuf, sizeof(st));
}

long
sys_statfs(struct lwp *lp, const uint64_t *args)
{
	struct statfs_info sf;
	int error;
	char *path = copyin_path(args[0], &error);
	if (path == NULL)
		return error;
	error = kern_statfs(&lp->lwp_proc->p_fs, lp->lwp_proc->p_ucred, path,
	    &sf);
	kfree(path);
	return error < 0 ? error : statfs_out(&sf, args[1]);
}

long
sys_fstatfs(struct lwp *lp, const uint64_t *args)
{
	struct statfs_info sf;
	int error = kern_fstatfs(&lp->lwp_proc->p_fs, (int)args[0], &sf);
	return error < 0 ? error : statfs_out(&sf, args[1]);
}
