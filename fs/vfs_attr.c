/*
 * System calls on attributes: stat, statx, access, chmod, chown,
 * utimensat, truncate, statfs.
 */
#include "fs/inotify.h"
#include "fs/namei.h"
#include "fs/vfs.h"
#include "kern/ucred.h"

/*
 * The vnode that an *at call with AT_EMPTY_PATH and AT_SYMLINK_NOFOLLOW
 * names, referenced.  A file without a vnode (a pipe) gives -EINVAL here;
 * stat handles those itself.
 */
static int
at_vnode(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    int flags, struct vnode **vpp)
{
	if (path == NULL || (path[0] == '\0' && (flags & AT_EMPTY_PATH))) {
		if (dirfd == AT_FDCWD) {
			*vpp = vref(p->fp_pwd->pd_cdir);
			return 0;
		}
		return getvnode(p, dirfd, vpp);
	}
	struct nameidata nd;
	int error = namei_at(p, cr, dirfd, path,
	    (flags & AT_SYMLINK_NOFOLLOW) ? 0 : NI_FOLLOW, &nd);
	if (error == 0)
		*vpp = nd.ni_vp;
	return error;
}

int
kern_fstat(struct fsproc *p, int fd, struct linux_stat *st)
{
	struct file *fp = fget_raw(p, fd);
	if (fp == NULL)
		return -EBADF;
	int error = fp->f_ops->fo_stat(fp, st);
	fdrop(fp);
	return error;
}

/*
 * The open file that magic link vp (/proc/PID/fd/N) stands for,
 * referenced: Linux follows such a link to the file itself, not to its
 * text (a pipe's "pipe:[12]" names nothing).  NULL if vp is not one.
 */
static struct file *
magic_link_file(struct vnode *vp)
{
	if (vp->v_type != VLNK || vp->v_op->vop_linkfile == NULL)
		return NULL;
	return vp->v_op->vop_linkfile(vp);
}

/*
 * at_vnode for the stat calls: the last link is looked at before it is
 * followed, so that a magic link gives its open file in *fpp
 * (referenced, *vpp NULL); otherwise *vpp as at_vnode and *fpp NULL.
 */
static int
stat_lookup(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    int flags, struct vnode **vpp, struct file **fpp)
{
	*fpp = NULL;
	int error = at_vnode(p, cr, dirfd, path, flags | AT_SYMLINK_NOFOLLOW, vpp);
	if (error < 0 || (flags & AT_SYMLINK_NOFOLLOW) || (*vpp)->v_type != VLNK)
		return error;
	*fpp = magic_link_file(*vpp);
	vrele(*vpp);
	*vpp = NULL;
	if (*fpp != NULL)
		return 0;
	return at_vnode(p, cr, dirfd, path, flags, vpp);
}

int
kern_fstatat(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    struct linux_stat *st, int flags)
{
	struct vnode *vp;
	struct file *fp;
	int error;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT))
		return -EINVAL;
	if (path[0] == '\0' && (flags & AT_EMPTY_PATH) && dirfd != AT_FDCWD)
		return kern_fstat(p, dirfd, st);
	if ((error = stat_lookup(p, cr, dirfd, path, flags, &vp, &fp)) < 0)
		return error;
	if (fp != NULL) {
		error = fp->f_ops->fo_stat(fp, st);
		fdrop(fp);
		return error;
	}
	vn_stat(vp, st);
	vrele(vp);
	return 0;
}

/* statx of an open file: its vnode's, or built from its stat (a pipe). */
static int
statx_file(struct file *fp, struct linux_statx *stx)
{
	struct linux_stat st;

	if (fp->f_vnode != NULL) {
		vn_statx(fp->f_vnode, stx);
		return 0;
	}
	int error = fp->f_ops->fo_stat(fp, &st);
	if (error < 0)
		return error;
	memset(stx, 0, sizeof(*stx));
	stx->stx_mask = STATX_BASIC_STATS;
	stx->stx_blksize = (uint32_t)st.st_blksize;
	stx->stx_nlink = (uint32_t)st.st_nlink;
	stx->stx_uid = st.st_uid;
	stx->stx_gid = st.st_gid;
	stx->stx_mode = (uint16_t)st.st_mode;
	stx->stx_ino = st.st_ino;
	stx->stx_atime.tv_sec = (int64_t)st.st_atime_sec;
	stx->stx_atime.tv_nsec = (uint32_t)st.st_atime_nsec;
	stx->stx_mtime.tv_sec = (int64_t)st.st_mtime_sec;
	stx->stx_mtime.tv_nsec = (uint32_t)st.st_mtime_nsec;
	stx->stx_ctime.tv_sec = (int64_t)st.st_ctime_sec;
	stx->stx_ctime.tv_nsec = (uint32_t)st.st_ctime_nsec;
	stx->stx_dev_major = linux_major(st.st_dev);
	stx->stx_dev_minor = linux_minor(st.st_dev);
	return 0;
}

int
kern_statx(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    int flags, unsigned mask, struct linux_statx *stx)
{
	struct vnode *vp;
	struct file *fp;
	int error;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH | AT_NO_AUTOMOUNT |
	    AT_STATX_SYNC_TYPE))
		return -EINVAL;
	if ((flags & AT_STATX_SYNC_TYPE) == AT_STATX_SYNC_TYPE ||
	    (mask & STATX__RESERVED))
		return -EINVAL;
	if (path[0] == '\0' && (flags & AT_EMPTY_PATH) && dirfd != AT_FDCWD) {
		if ((fp = fget_raw(p, dirfd)) == NULL)
			return -EBADF;
	} else if ((error = stat_lookup(p, cr, dirfd, path, flags, &vp, &fp)) < 0) {
		return error;
	}
	if (fp != NULL) {
		error = statx_file(fp, stx);
		fdrop(fp);
		return error;
	}
	vn_statx(vp, stx);
	vrele(vp);
	return 0;
}

int
kern_faccessat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, int mode, int flags)
{
	struct vnode *vp;
	int error;

	if (mode & ~(R_OK | W_OK | X_OK))
		return -EINVAL;
	if (flags & ~(AT_EACCESS | AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	/* access(2) asks about the real ids, for set-user-ID programs. */
	struct ucred real = *cr;
	if (!(flags & AT_EACCESS)) {
		real.cr_uid = cr->cr_ruid;
		real.cr_gid = cr->cr_rgid;
	}
	if ((error = at_vnode(p, &real, dirfd, path, flags, &vp)) < 0)
		return error;
	if (mode != F_OK)
		error = vaccess(vp, mode, &real);
	vrele(vp);
	return error;
}

/* Owner or root: who may change a file's mode and times. */
static bool
owner_or_root(struct vnode *vp, struct ucred *cr)
{
	return cred_is_root(cr) || cr->cr_uid == vp->v_uid;
}

/* vop_setattr, and inotify's event (IN_ATTRIB, IN_MODIFY) if it worked. */
static int
setattr_notify(struct vnode *vp, struct vattr *va, uint32_t event)
{
	int error = vp->v_op->vop_setattr(vp, va);
	if (error == 0)
		inotify_vnode(vp, event);
	return error;
}

static int
do_chmod(struct vnode *vp, struct ucred *cr, mode_t mode)
{
	if (!owner_or_root(vp, cr))
		return -EPERM;
	mode &= 07777;
	/* Only members of the file's group may make it set-group-ID. */
	if (!cred_is_root(cr) && vp->v_type != VDIR && !groupmember(vp->v_gid, cr))
		mode &= ~S_ISGID;
	struct vattr va = { .va_mask = VA_MODE, .va_mode = mode };
	return setattr_notify(vp, &va, IN_ATTRIB);
}

int
kern_fchmodat(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    mode_t mode, int flags)
{
	struct vnode *vp;
	int error;

	if (flags & ~AT_SYMLINK_NOFOLLOW)
		return -EINVAL;
	if ((error = at_vnode(p, cr, dirfd, path, flags, &vp)) < 0)
		return error;
	error = vp->v_type == VLNK ? -EOPNOTSUPP : do_chmod(vp, cr, mode);
	if (error == 0)
		inotify_parent(p, cr, dirfd, path, vp, IN_ATTRIB);
	vrele(vp);
	return error;
}

int
kern_fchmod(struct fsproc *p, struct ucred *cr, int fd, mode_t mode)
{
	struct vnode *vp;
	int error = getvnode_open(p, fd, &vp);
	if (error < 0)
		return error;
	error = do_chmod(vp, cr, mode);
	vrele(vp);
	return error;
}

static int
do_chown(struct vnode *vp, struct ucred *cr, uid_t uid, gid_t gid)
{
	struct vattr va = { 0 };

	if (uid != (uid_t)-1) {
		if (!cred_is_root(cr) && uid != vp->v_uid)
			return -EPERM;
		va.va_mask |= VA_UID;
		va.va_uid = uid;
	}
	if (gid != (gid_t)-1) {
		if (!cred_is_root(cr) && (cr->cr_uid != vp->v_uid ||
		    !groupmember(gid, cr)))
			return -EPERM;
		va.va_mask |= VA_GID;
		va.va_gid = gid;
	}
	/*
	 * A new owner must not inherit set-ID powers: clear set-user-ID,
	 * and set-group-ID when it means that (group exec is on).
	 */
	if (va.va_mask != 0 && vp->v_type != VDIR && vp->v_type != VLNK) {
		mode_t m = vp->v_mode & ~S_ISUID;
		if (m & S_IXGRP)
			m &= ~S_ISGID;
		if (m != vp->v_mode) {
			va.va_mask |= VA_MODE;
			va.va_mode = m;
		}
	}
	return setattr_notify(vp, &va, IN_ATTRIB);
}

int
kern_fchownat(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    uid_t uid, gid_t gid, int flags)
{
	struct vnode *vp;
	int error;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if ((error = at_vnode(p, cr, dirfd, path, flags, &vp)) < 0)
		return error;
	error = do_chown(vp, cr, uid, gid);
	if (error == 0)
		inotify_parent(p, cr, dirfd, path, vp, IN_ATTRIB);
	vrele(vp);
	return error;
}

int
kern_fchown(struct fsproc *p, struct ucred *cr, int fd, uid_t uid, gid_t gid)
{
	struct vnode *vp;
	int error = getvnode_open(p, fd, &vp);
	if (error < 0)
		return error;
	error = do_chown(vp, cr, uid, gid);
	vrele(vp);
	return error;
}

static bool
valid_nsec(long nsec)
{
	return (nsec >= 0 && nsec < 1000000000) || nsec == UTIME_NOW ||
	    nsec == UTIME_OMIT;
}

int
kern_utimensat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, const struct timespec *times, int flags)
{
	struct vnode *vp;
	int error;

	if (flags & ~(AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if (times != NULL && (!valid_nsec(times[0].tv_nsec) ||
	    !valid_nsec(times[1].tv_nsec)))
		return -EINVAL;
	if ((error = at_vnode(p, cr, dirfd, path, flags, &vp)) < 0)
		return error;

	struct timespec now;
	vfs_timestamp(&now);
	struct vattr va = { 0 };
	bool explicit = false;
	for (int i = 0; i < 2; i++) {
		long nsec = times != NULL ? times[i].tv_nsec : UTIME_NOW;
		if (nsec == UTIME_OMIT)
			continue;
		struct timespec t = nsec == UTIME_NOW ? now : times[i];
		explicit |= nsec != UTIME_NOW;
		if (i == 0) {
			va.va_mask |= VA_ATIME;
			va.va_atime = t;
		} else {
			va.va_mask |= VA_MTIME;
			va.va_mtime = t;
		}
	}
	/*
	 * Setting both to now needs write permission or ownership; any
	 * explicit time needs ownership.
	 */
	if (va.va_mask == 0)
		error = 0;
	else if (owner_or_root(vp, cr))
		error = setattr_notify(vp, &va, IN_ATTRIB);
	else if (explicit)
		error = -EPERM;
	else if ((error = vaccess(vp, W_OK, cr)) == 0)
		error = setattr_notify(vp, &va, IN_ATTRIB);
	if (error == 0 && va.va_mask != 0 && path != NULL)
		inotify_parent(p, cr, dirfd, path, vp, IN_ATTRIB);
	vrele(vp);
	return error;
}

/* Truncates vp to length, for truncate and ftruncate by p. */
static int
do_truncate(struct fsproc *p, struct vnode *vp, int64_t length)
{
	if (length < 0)
		return -EINVAL;
	if (vp->v_type == VDIR)
		return -EISDIR;
	if (vp->v_type != VREG)
		return -EINVAL;
	if ((uint64_t)length > p->fp_fsize)
		return -EXFSZ;
	struct vattr va = { .va_mask = VA_SIZE | VA_MTIME,
	    .va_size = (uint64_t)length };
	vfs_timestamp(&va.va_mtime);
	return setattr_notify(vp, &va, IN_MODIFY);
}

int
kern_truncate(struct fsproc *p, struct ucred *cr, const char *path,
    int64_t length)
{
	struct nameidata nd;
	int error;

	if (length < 0)
		return -EINVAL;
	if ((error = namei_at(p, cr, AT_FDCWD, path, NI_FOLLOW, &nd)) < 0)
		return error;
	struct vnode *vp = nd.ni_vp;
	if (vp->v_type == VDIR)
		error = -EISDIR;
	else if ((error = vaccess(vp, W_OK, cr)) == 0)
		error = do_truncate(p, vp, length);
	if (error == 0)
		inotify_parent(p, cr, AT_FDCWD, path, vp, IN_MODIFY);
	namei_done(&nd);
	return error;
}

int
kern_ftruncate(struct fsproc *p, int fd, int64_t length)
{
	struct file *fp = fget(p, fd);
	if (fp == NULL)
		return -EBADF;
	int error = -EINVAL;
	if (fp->f_type == DTYPE_VNODE && FWRITE(fp) &&
	    fp->f_vnode->v_type == VREG)
		error = do_truncate(p, fp->f_vnode, length);
	fdrop(fp);
	return error;
}

int
kern_fallocate(struct fsproc *p, int fd, int mode, int64_t off, int64_t len)
{
	enum { KEEP_SIZE = 0x01, PUNCH_HOLE = 0x02, ALL_MODES = 0x7f };

	if (off < 0 || len <= 0)
		return -EINVAL;
	if ((mode & ~ALL_MODES) || (mode & (PUNCH_HOLE | KEEP_SIZE)) == PUNCH_HOLE)
		return -EOPNOTSUPP;
	struct file *fp = fget(p, fd);
	if (fp == NULL)
		return -EBADF;
	struct vnode *vp = fp->f_vnode;
	int error;
	if (!FWRITE(fp))
		error = -EBADF;
	else if (fp->f_type == DTYPE_PIPE || (vp != NULL && vp->v_type == VFIFO))
		error = -ESPIPE;
	else if (vp != NULL && vp->v_type == VDIR)
		error = -EISDIR;
	else if (fp->f_type != DTYPE_VNODE || vp->v_type != VREG)
		error = -ENODEV;
	else if (off + len < off)
		error = -EFBIG;
	else if (mode & PUNCH_HOLE)
		error = (mode & ~(PUNCH_HOLE | KEEP_SIZE)) ||
		    vp->v_op->vop_punch == NULL ? -EOPNOTSUPP :
		    vp->v_op->vop_punch(vp, (uint64_t)off, (uint64_t)len);
	else if (vp->v_op->vop_allocate == NULL || (mode & ~KEEP_SIZE))
		error = -EOPNOTSUPP;
	else if (!(mode & KEEP_SIZE) && (uint64_t)(off + len) > p->fp_fsize &&
	    (uint64_t)(off + len) > vp->v_size)
		error = -EXFSZ;
	else
		error = vp->v_op->vop_allocate(vp, (uint64_t)off, (uint64_t)len,
		    (mode & KEEP_SIZE) != 0);
	fdrop(fp);
	return error;
}

static void
mount_statfs(struct mount *mp, struct statfs_info *sf)
{
	mp->mnt_op->vfs_statfs(mp, sf);
	sf->f_fsid = mp->mnt_dev;
	sf->f_rdonly = (mp->mnt_flags & MNT_RDONLY) != 0;
}

int
kern_statfs(struct fsproc *p, struct ucred *cr, const char *path,
    struct statfs_info *sf)
{
	struct nameidata nd;
	int error = namei_at(p, cr, AT_FDCWD, path, NI_FOLLOW, &nd);
	if (error < 0)
		return error;
	mount_statfs(nd.ni_vp->v_mount, sf);
	namei_done(&nd);
	return 0;
}

int
kern_fstatfs(struct fsproc *p, int fd, struct statfs_info *sf)
{
	struct vnode *vp;
	int error = getvnode(p, fd, &vp);
	if (error < 0)
		return error;
	mount_statfs(vp->v_mount, sf);
	vrele(vp);
	return 0;
}
