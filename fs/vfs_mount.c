/*
 * The mount table.  A mount covers a directory vnode (v_mountedhere);
 * lookup crosses from the covered vnode to the mount's root going down and
 * back going up through "..".  The mount holds a reference on the vnode it
 * covers and on its own root.
 */
#include "dev/disk.h"
#include "fs/devfs/devfs.h"
#include "fs/namei.h"
#include "fs/ext2/ext2_mount.h"
#include "fs/stat.h"
#include "fs/tmpfs/tmpfs.h"
#include "fs/vfs.h"
#include "kern/ucred.h"
#include "kern/kmem.h"
#include "vm/vm.h"

struct mountlist mountlist = TAILQ_HEAD_INITIALIZER(mountlist);
struct vnode *rootvnode;
static int mount_lastid;		/* the last mnt_id given */

/*
 * The file-system types mount(2) knows: those of fs/, and those of the
 * layers above that register at boot (vfs_register: procfs, which shows
 * processes and sits above the process layer).
 */
#define VFS_MAX		8
static const struct vfsops *vfs_list[VFS_MAX] = {
	&tmpfs_vfsops,
	&devtmpfs_vfsops,
	&devfs_vfsops,
	&ext2_vfsops,
};
static int nvfs = 4;

static uint32_t next_anon_minor = 1;

dev_t
vfs_anondev(void)
{
	/* Anonymous device numbers, as Linux gives tmpfs and pipes (0:N). */
	return linux_makedev(0, next_anon_minor++);
}

int
vfs_register(const struct vfsops *ops)
{
	for (int i = 0; i < nvfs; i++)
		if (vfs_list[i] == ops)
			return 0;
	if (nvfs == VFS_MAX)
		return -ENOSPC;
	vfs_list[nvfs++] = ops;
	return 0;
}

const struct vfsops *
vfs_byname(const char *name)
{
	for (int i = 0; i < nvfs; i++)
		if (strcmp(vfs_list[i]->vfs_name, name) == 0)
			return vfs_list[i];
	return NULL;
}

const struct vfsops *
vfs_byindex(int i)
{
	return i >= 0 && i < nvfs ? vfs_list[i] : NULL;
}

int
vfs_getopt(const char *options, const char *name, char *buf, size_t size)
{
	size_t namelen = strlen(name);

	for (const char *o = options; o != NULL && *o != '\0';) {
		const char *end = strchrnul(o, ',');
		if (strncmp(o, name, namelen) == 0 &&
		    (o[namelen] == '=' || o + namelen == end)) {
			const char *v = o + namelen + (o + namelen < end);
			if ((size_t)(end - v) >= size)
				return -EINVAL;
			memcpy(buf, v, (size_t)(end - v));
			buf[end - v] = '\0';
			return 0;
		}
		o = *end != '\0' ? end + 1 : end;
	}
	return -ENOENT;
}

int
vfs_mount(const struct vfsops *ops, struct vnode *covered,
    const struct mount_args *ma, struct mount **mpp)
{
	if (covered == NULL ? rootvnode != NULL : covered->v_mountedhere != NULL)
		return -EBUSY;
	if (covered != NULL && covered->v_type != VDIR)
		return -ENOTDIR;
	/* The next lookup would make another vnode, not mounted on. */
	if (covered != NULL && !(covered->v_flags & VROOT) &&
	    (covered->v_mount->mnt_op->vfs_flags & VFCF_SYNTHETIC))
		return -EINVAL;

	struct mount *mp = kmalloc(sizeof(*mp), KM_ZERO);
	if (mp == NULL)
		return -ENOMEM;
	const char *source = ma != NULL ? ma->ma_source : ops->vfs_name;
	mp->mnt_source = kmalloc(strlen(source) + 1, 0);
	if (mp->mnt_source == NULL) {
		kfree(mp);
		return -ENOMEM;
	}
	strcpy(mp->mnt_source, source);
	mp->mnt_op = ops;
	mp->mnt_dev = vfs_anondev();
	mp->mnt_id = ++mount_lastid;
	mp->mnt_flags = ma != NULL ? ma->ma_flags : 0;
	TAILQ_INIT(&mp->mnt_vnodes);
	/* A disk is mounted once, and not while a program holds it. */
	mp->mnt_disk = ma != NULL ? ma->ma_disk : NULL;
	int error = mp->mnt_disk != NULL ? disk_claim(mp->mnt_disk, mp) : 0;
	if (error == 0 && (error = ops->vfs_mount(mp, ma)) < 0 &&
	    mp->mnt_disk != NULL)
		disk_unclaim(mp->mnt_disk, mp);
	if (error < 0) {
		kfree(mp->mnt_source);
		kfree(mp);
		return error;
	}
	mp->mnt_root->v_flags |= VROOT;
	if (covered != NULL) {
		mp->mnt_covered = vref(covered);
		covered->v_mountedhere = mp;
	} else {
		rootvnode = vref(mp->mnt_root);
	}
	TAILQ_INSERT_TAIL(&mountlist, mp, mnt_list);
	*mpp = mp;
	return 0;
}

int
vfs_unmount(struct mount *mp)
{
	struct vnode *vp;
	/* The mount's own reference on its root, and rootvnode's. */
	int rootrefs = mp->mnt_covered == NULL ? 2 : 1;

	vmspace_drain();	/* exited processes' mappings of its files */
	TAILQ_FOREACH(vp, &mp->mnt_vnodes, v_mntlist) {
		if (vp->v_mountedhere != NULL)
			return -EBUSY;
		if (vp->v_usecount > (vp == mp->mnt_root ? rootrefs : 0))
			return -EBUSY;
	}
	TAILQ_REMOVE(&mountlist, mp, mnt_list);
	if (mp->mnt_covered != NULL) {
		mp->mnt_covered->v_mountedhere = NULL;
		vrele(mp->mnt_covered);
	} else {
		rootvnode->v_usecount--;
		rootvnode = NULL;
	}
	mp->mnt_op->vfs_unmount(mp);
	if (mp->mnt_disk != NULL)
		disk_unclaim(mp->mnt_disk, mp);
	kfree(mp->mnt_source);
	kfree(mp);
	return 0;
}

void
vfs_unmountall(void)
{
	struct mount *mp;
	while ((mp = TAILQ_LAST(&mountlist, mountlist)) != NULL) {
		int error = vfs_unmount(mp);
		if (error < 0) {
			kprintf("shutdown: cannot unmount %s (%d)\n",
			    mp->mnt_op->vfs_name, error);
			return;
		}
	}
}

int
vfs_mountroot(const char *disk)
{
	struct mount *mp;
	if (disk == NULL) {
		const struct mount_args ma = { .ma_source = "tmpfs" };
		return vfs_mount(&tmpfs_vfsops, NULL, &ma, &mp);
	}
	const struct mount_args ma = { .ma_source = disk,
	    .ma_disk = disk_lookup(disk) };
	if (ma.ma_disk == NULL)
		return -ENXIO;
	int error = vfs_mount(&ext2_vfsops, NULL, &ma, &mp);
	if (error == 0)
		kprintf("root: ext2 on %s\n", disk);
	return error;
}

/*
 * The disk a block-device source names, for a VFCF_REQDEV file system
 * (see struct mount_args).
 */
static int
mount_disk(struct fsproc *p, struct ucred *cr, const char *source,
    struct disk **dkp)
{
	struct nameidata nd;
	int error = namei_at(p, cr, AT_FDCWD, source, NI_FOLLOW, &nd);
	if (error < 0)
		return error;
	if (nd.ni_vp->v_type != VBLK)
		error = -ENOTBLK;
	else if ((*dkp = disk_bydev(nd.ni_vp->v_rdev)) == NULL)
		error = -ENXIO;
	namei_done(&nd);
	return error;
}

int
kern_mount(struct fsproc *p, struct ucred *cr, const char *source,
    const char *path, const char *fstype, int flags, const char *options)
{
	if (!cred_is_root(cr))
		return -EPERM;
	const struct vfsops *ops = vfs_byname(fstype);
	if (ops == NULL)
		return -ENODEV;
	struct mount_args ma = {
		.ma_source = source != NULL ? source : "none",
		.ma_options = options,
		.ma_flags = flags,
	};
	int error;
	if ((ops->vfs_flags & VFCF_REQDEV) &&
	    (error = mount_disk(p, cr, ma.ma_source, &ma.ma_disk)) < 0)
		return error;
	struct nameidata nd;
	if ((error = namei_at(p, cr, AT_FDCWD, path, NI_FOLLOW, &nd)) < 0)
		return error;
	struct mount *mp;
	error = vfs_mount(ops, nd.ni_vp, &ma, &mp);
	namei_done(&nd);
	return error;
}

int
kern_umount(struct fsproc *p, struct ucred *cr, const char *path, int flags)
{
	if (!cred_is_root(cr))
		return -EPERM;
	struct nameidata nd;
	int error = namei_at(p, cr, AT_FDCWD, path,
	    (flags & LINUX_UMOUNT_NOFOLLOW) ? 0 : NI_FOLLOW, &nd);
	if (error < 0)
		return error;
	struct vnode *vp = nd.ni_vp;
	struct mount *mp = vp->v_mount;
	bool isroot = (vp->v_flags & VROOT) != 0;
	/* Our own reference must not count as a user. */
	namei_done(&nd);
	return isroot ? vfs_unmount(mp) : -EINVAL;
}

/* Mounts a file system of type ops on path dir, made if missing. */
static int
mount_boot(struct fsproc *p, struct ucred *cr, const char *dir,
    const struct vfsops *ops, const char *source)
{
	int error = kern_mkdirat(p, cr, AT_FDCWD, dir, 0555);
	if (error < 0 && error != -EEXIST)
		return error;
	struct nameidata nd;
	if ((error = namei_at(p, cr, AT_FDCWD, dir, NI_FOLLOW, &nd)) < 0)
		return error;
	const struct mount_args ma = { .ma_source = source };
	struct mount *mp;
	error = vfs_mount(ops, nd.ni_vp, &ma, &mp);
	namei_done(&nd);
	return error;
}

int
vfs_mountboot(void)
{
	const struct vfsops *procfs = vfs_byname("proc");	/* vfs_register */
	struct fsproc fsp;
	struct ucred *cr;
	int error = -ENOMEM;

	if (procfs == NULL)
		return -ENODEV;
	if ((cr = crget()) == NULL)
		return error;
	if (fsproc_init(&fsp, rootvnode) == 0) {
		error = mount_boot(&fsp, cr, "/proc", procfs, "proc");
		if (error == 0)
			error = mount_boot(&fsp, cr, "/dev", &devtmpfs_vfsops,
			    "devtmpfs");
		/* POSIX shared memory and semaphores (shm_open, sem_open). */
		if (error == 0)
			error = mount_boot(&fsp, cr, "/dev/shm", &tmpfs_vfsops,
			    "tmpfs");
		fsproc_exit(&fsp);
	}
	crfree(cr);
	return error;
}
