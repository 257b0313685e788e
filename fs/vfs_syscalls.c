/*
 * System calls on names: open, mknod, mkdir, unlink, rmdir, rename,
 * link, symlink, readlink.  Permission checks and the POSIX rules live
 * here; the file systems' operations only carry them out.
 */
#include "fs/inotify.h"
#include "fs/namei.h"
#include "fs/pipe.h"
#include "fs/vfs.h"
#include "kern/ucred.h"
#include "kern/uio.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE	1
#endif

#define OPEN_FLAGS_KEPT	(O_ACCMODE | O_APPEND | O_NONBLOCK | O_DSYNC | \
	O_SYNC | O_DIRECT | O_NOATIME | O_ASYNC | O_DIRECTORY | O_NOFOLLOW | \
	O_NOCTTY | O_EXCL)
#define LINUX_O_LARGEFILE 0100000	/* glibc's x86-64 O_LARGEFILE is 0 */

/*
 * Owner, group and mode of a new node in dvp: a set-group-ID directory
 * passes its group on (and to subdirectories, the bit too).
 */
static void
new_owner(struct vnode *dvp, struct ucred *cr, enum vtype type, mode_t mode,
    struct vattr *va)
{
	memset(va, 0, sizeof(*va));
	va->va_type = type;
	va->va_mode = mode & 07777;
	va->va_uid = cr->cr_uid;
	va->va_gid = cr->cr_gid;
	if (dvp->v_mode & S_ISGID) {
		va->va_gid = dvp->v_gid;
		if (type == VDIR)
			va->va_mode |= S_ISGID;
	}
}

/*
 * Checks that the last component namei left in nd may be created:
 * -EEXIST if it exists (or is ".", ".." or "/"), -ENOENT for a trailing
 * slash on anything but a directory, -EACCES without write and search
 * permission on the parent.
 */
static int
may_create(struct nameidata *nd, struct ucred *cr, bool isdir)
{
	if (nd->ni_lasttype != NI_LAST_NORM || nd->ni_vp != NULL)
		return -EEXIST;
	if (nd->ni_trailing && !isdir)
		return -ENOENT;
	if (nd->ni_dvp->v_nlink == 0)
		return -ENOENT;		/* a removed directory */
	return vaccess(nd->ni_dvp, W_OK | X_OK, cr);
}

/*
 * May cr remove or rename vp out of directory dvp?  Write and search
 * permission on dvp, and in a sticky directory ownership of vp or dvp.
 */
static int
may_delete(struct vnode *dvp, struct vnode *vp, struct ucred *cr)
{
	int error = vaccess(dvp, W_OK | X_OK, cr);
	if (error < 0)
		return error;
	if ((dvp->v_mode & S_ISVTX) && !cred_is_root(cr) &&
	    cr->cr_uid != vp->v_uid && cr->cr_uid != dvp->v_uid)
		return -EPERM;
	if (vp->v_mountedhere != NULL || (vp->v_flags & VROOT))
		return -EBUSY;
	return 0;
}

/*
 * Opens an existing vnode vp (referenced; consumed) for openat; nd, if
 * not NULL, is the lookup of its parent and name (for inotify).
 */
static int
open_vnode(struct fsproc *p, struct ucred *cr, struct vnode *vp, int flags,
    bool created, const struct nameidata *nd)
{
	int acc = flags & O_ACCMODE;
	int error = 0;

	if (vp->v_type == VLNK)
		error = -ELOOP;		/* O_NOFOLLOW met a link */
	else if ((flags & O_DIRECTORY) && vp->v_type != VDIR)
		error = -ENOTDIR;
	else if (vp->v_type == VDIR && (acc != O_RDONLY || (flags & O_TRUNC) ||
	    (flags & O_CREAT)))
		error = -EISDIR;
	else if (!created) {
		int want = (acc != O_WRONLY ? R_OK : 0) |
		    (acc != O_RDONLY || (flags & O_TRUNC) ? W_OK : 0);
		error = vaccess(vp, want, cr);
	}
	if (error == 0 && (flags & O_TRUNC) && vp->v_type == VREG && !created) {
		struct vattr va = { .va_mask = VA_SIZE | VA_MTIME };
		vfs_timestamp(&va.va_mtime);
		error = vp->v_op->vop_setattr(vp, &va);
		if (error == 0)
			inotify_vnode(vp, IN_MODIFY);
	}
	if (error < 0) {
		vrele(vp);
		return error;
	}

	struct file *fp;
	/* F_GETFL shows O_DIRECTORY and O_NOFOLLOW, as Linux keeps them. */
	int fflags = (flags & OPEN_FLAGS_KEPT) | LINUX_O_LARGEFILE;
	if ((error = vn_open(vp, fflags, &fp)) < 0)
		return error;
	inotify_open(fp, nd != NULL ? nd->ni_dvp : NULL,
	    nd != NULL ? nd->ni_last : NULL);
	int fd = fdalloc(p, fp, 0, (flags & O_CLOEXEC) ? FD_CLOEXEC : 0);
	fdrop(fp);
	return fd;
}

/*
 * open_vnode for an open without O_CREAT: once inotify is used, the
 * path's parent and name are looked up too, so that a watched directory
 * hears of the file by name (as Linux's dentry tells it).
 */
static int
open_vnode_path(struct fsproc *p, struct ucred *cr, struct vnode *vp,
    int flags, int dirfd, const char *path)
{
	struct nameidata pnd;

	if (!inotify_used ||
	    namei_at(p, cr, dirfd, path, NI_PARENT, &pnd) < 0)
		return open_vnode(p, cr, vp, flags, false, NULL);
	bool named = pnd.ni_vp == vp && pnd.ni_lasttype == NI_LAST_NORM;
	int error = open_vnode(p, cr, vp, flags, false, named ? &pnd : NULL);
	namei_done(&pnd);
	return error;
}

/*
 * Opening a magic link (/proc/PID/fd/N) of a pipe reopens the pipe, as
 * on Linux, where the link leads to the pipe's inode rather than to a
 * path.  A descriptor, or -ENOENT when vp is some other link (follow
 * its text).
 */
static int
open_magic_link(struct fsproc *p, struct vnode *vp, int flags)
{
	struct file *lfp, *fp;
	int error;

	if (vp->v_op->vop_linkfile == NULL ||
	    (lfp = vp->v_op->vop_linkfile(vp)) == NULL)
		return -ENOENT;
	if (lfp->f_type != DTYPE_PIPE) {
		fdrop(lfp);
		return -ENOENT;
	}
	int fflags = (flags & (O_ACCMODE | O_NONBLOCK)) | LINUX_O_LARGEFILE;
	error = pipe_reopen(lfp, fflags, &fp);
	fdrop(lfp);
	if (error < 0)
		return error;
	int fd = fdalloc(p, fp, 0, (flags & O_CLOEXEC) ? FD_CLOEXEC : 0);
	fdrop(fp);
	return fd;
}

/*
 * openat with O_PATH: every flag but O_DIRECTORY, O_NOFOLLOW and
 * O_CLOEXEC is ignored (O_CREAT too), as in Linux; only the search
 * permission of the path's directories is checked.
 */
static int
open_path(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    int flags)
{
	struct nameidata nd;
	struct file *fp;
	int error;

	error = namei_at(p, cr, dirfd, path, (flags & O_NOFOLLOW) ? 0 : NI_FOLLOW,
	    &nd);
	if (error < 0)
		return error;
	if ((error = vn_open_path(nd.ni_vp, flags, &fp)) < 0)
		return error;
	int fd = fdalloc(p, fp, 0, (flags & O_CLOEXEC) ? FD_CLOEXEC : 0);
	fdrop(fp);
	return fd;
}

int
kern_openat(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    int flags, mode_t mode)
{
	struct nameidata nd;
	int error;

	if (flags & O_PATH)
		return open_path(p, cr, dirfd, path, flags);
	if ((flags & O_TMPFILE) == O_TMPFILE)
		return -EOPNOTSUPP;
	if ((flags & O_ACCMODE) == O_ACCMODE)
		return -EINVAL;

	if (!(flags & O_CREAT)) {
		/* The last link is looked at before it is followed. */
		if ((error = namei_at(p, cr, dirfd, path, 0, &nd)) < 0)
			return error;
		struct vnode *vp = nd.ni_vp;
		if (vp->v_type != VLNK || (flags & O_NOFOLLOW))
			return open_vnode_path(p, cr, vp, flags, dirfd, path);
		error = open_magic_link(p, vp, flags);
		vrele(vp);
		if (error != -ENOENT)
			return error;
		error = namei_at(p, cr, dirfd, path, NI_FOLLOW, &nd);
		if (error < 0)
			return error;
		return open_vnode_path(p, cr, nd.ni_vp, flags, dirfd, path);
	}

	/*
	 * O_EXCL: a link in the last place is never followed (EEXIST).
	 * Otherwise it is looked at first: a magic link reopens its pipe
	 * (bash's "> >(cmd)" opens /dev/fd/63 with O_CREAT).
	 */
	if ((error = namei_at(p, cr, dirfd, path, NI_PARENT, &nd)) < 0)
		return error;
	if (!(flags & (O_EXCL | O_NOFOLLOW)) && nd.ni_vp != NULL &&
	    nd.ni_vp->v_type == VLNK) {
		error = open_magic_link(p, nd.ni_vp, flags);
		namei_done(&nd);
		if (error != -ENOENT)
			return error;
		error = namei_at(p, cr, dirfd, path, NI_PARENT | NI_FOLLOW, &nd);
		if (error < 0)
			return error;
	}
	if (nd.ni_lasttype != NI_LAST_NORM || nd.ni_trailing) {
		error = -EISDIR;
	} else if (nd.ni_vp != NULL) {
		if (flags & O_EXCL) {
			error = -EEXIST;
		} else {
			struct vnode *vp = vref(nd.ni_vp);
			error = open_vnode(p, cr, vp, flags, false, &nd);
			namei_done(&nd);
			return error;
		}
	} else if (nd.ni_dvp->v_nlink == 0) {
		error = -ENOENT;	/* a removed directory */
	} else if ((error = vaccess(nd.ni_dvp, W_OK | X_OK, cr)) == 0) {
		struct vattr va;
		struct vnode *vp;
		new_owner(nd.ni_dvp, cr, VREG, mode & ~p->fp_pwd->pd_umask, &va);
		error = nd.ni_dvp->v_op->vop_create(nd.ni_dvp, nd.ni_last, &va,
		    &vp);
		if (error == 0) {
			inotify_create(nd.ni_dvp, nd.ni_last, vp);
			error = open_vnode(p, cr, vp, flags, true, &nd);
			namei_done(&nd);
			return error;
		}
	}
	namei_done(&nd);
	return error;
}

int
kern_mknodat(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    mode_t mode, dev_t dev)
{
	enum vtype type = (mode & S_IFMT) == 0 ? VREG : ifmt_to_vtype(mode);
	struct nameidata nd;
	int error;

	switch (type) {
	case VREG:
	case VFIFO:
	case VSOCK:
		break;
	case VCHR:
	case VBLK:
		if (!cred_is_root(cr))
			return -EPERM;
		break;
	case VDIR:
		return -EPERM;
	default:
		return -EINVAL;
	}
	if ((error = namei_at(p, cr, dirfd, path, NI_PARENT, &nd)) < 0)
		return error;
	if ((error = may_create(&nd, cr, false)) == 0) {
		struct vattr va;
		struct vnode *vp;
		new_owner(nd.ni_dvp, cr, type, mode & ~p->fp_pwd->pd_umask, &va);
		if (type == VCHR || type == VBLK)
			va.va_rdev = dev;
		error = nd.ni_dvp->v_op->vop_create(nd.ni_dvp, nd.ni_last, &va,
		    &vp);
		if (error == 0) {
			inotify_create(nd.ni_dvp, nd.ni_last, vp);
			vrele(vp);
		}
	}
	namei_done(&nd);
	return error;
}

int
kern_mkdirat(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    mode_t mode)
{
	struct nameidata nd;
	int error;

	if ((error = namei_at(p, cr, dirfd, path, NI_PARENT, &nd)) < 0)
		return error;
	if ((error = may_create(&nd, cr, true)) == 0) {
		struct vattr va;
		struct vnode *vp;
		new_owner(nd.ni_dvp, cr, VDIR, mode & 01777 & ~p->fp_pwd->pd_umask, &va);
		error = nd.ni_dvp->v_op->vop_mkdir(nd.ni_dvp, nd.ni_last, &va,
		    &vp);
		if (error == 0) {
			inotify_create(nd.ni_dvp, nd.ni_last, vp);
			vrele(vp);
		}
	}
	namei_done(&nd);
	return error;
}

/*
 * Directory vp has left dvp for good (rmdir, or a rename over it) but
 * may still be someone's working directory: as Linux's dentry keeps its
 * parent, it keeps a reference to dvp, its ".." until the last user of
 * vp lets go (vrele); the file system's own ".." entry may be gone.
 */
static void
dir_removed(struct vnode *vp, struct vnode *dvp)
{
	if (vp->v_dotdot == NULL && vp->v_nlink == 0)
		vp->v_dotdot = vref(dvp);
}

/* rmdir: Linux's answers for ".", ".." and "/" first. */
static int
do_rmdir(struct nameidata *nd, struct ucred *cr)
{
	switch (nd->ni_lasttype) {
	case NI_LAST_DOT:
		return -EINVAL;
	case NI_LAST_DOTDOT:
		return -ENOTEMPTY;
	case NI_LAST_ROOT:
		return -EBUSY;
	default:
		break;
	}
	struct vnode *vp = nd->ni_vp;
	if (vp == NULL)
		return -ENOENT;
	if (vp->v_type != VDIR)
		return -ENOTDIR;
	int error = may_delete(nd->ni_dvp, vp, cr);
	if (error < 0)
		return error;
	error = nd->ni_dvp->v_op->vop_rmdir(nd->ni_dvp, nd->ni_last, vp);
	if (error == 0) {
		dir_removed(vp, nd->ni_dvp);
		inotify_delete(nd->ni_dvp, nd->ni_last, vp);
	}
	return error;
}

static int
do_unlink(struct nameidata *nd, struct ucred *cr)
{
	struct vnode *vp = nd->ni_vp;

	if (nd->ni_lasttype != NI_LAST_NORM)
		return -EISDIR;
	if (vp == NULL)
		return -ENOENT;
	if (vp->v_type == VDIR)
		return -EISDIR;
	if (nd->ni_trailing)
		return -ENOTDIR;
	int error = may_delete(nd->ni_dvp, vp, cr);
	if (error < 0)
		return error;
	error = nd->ni_dvp->v_op->vop_unlink(nd->ni_dvp, nd->ni_last, vp);
	if (error == 0)
		inotify_delete(nd->ni_dvp, nd->ni_last, vp);
	return error;
}

int
kern_unlinkat(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    int flags)
{
	struct nameidata nd;
	int error;

	if (flags & ~AT_REMOVEDIR)
		return -EINVAL;
	if ((error = namei_at(p, cr, dirfd, path, NI_PARENT, &nd)) < 0)
		return error;
	error = (flags & AT_REMOVEDIR) ? do_rmdir(&nd, cr) : do_unlink(&nd, cr);
	namei_done(&nd);
	return error;
}

/*
 * True if directory vp is dp or one of dp's ancestors on dp's file
 * system, for rename's "not into itself" rule.  A damaged disk can make
 * ".." go round in circles: -ELOOP after as many steps as a path has.
 */
static int
is_ancestor(struct vnode *vp, struct vnode *dp, bool *res)
{
	struct vnode *cur = vref(dp);

	*res = false;
	for (int steps = 0;; steps++) {
		if (steps == PATH_MAX / 2) {
			vrele(cur);
			return -ELOOP;
		}
		if (cur == vp) {
			*res = true;
			break;
		}
		if (cur->v_flags & VROOT)
			break;
		struct vnode *up;
		int error = cur->v_op->vop_lookup(cur, "..", &up);
		vrele(cur);
		if (error < 0)
			return error;
		cur = up;
	}
	vrele(cur);
	return 0;
}

/* rename once both names are looked up; Linux's order of checks. */
static int
do_rename(struct nameidata *from, struct nameidata *to, struct ucred *cr,
    unsigned flags)
{
	struct vnode *fdvp = from->ni_dvp, *tdvp = to->ni_dvp;
	struct vnode *fvp = from->ni_vp, *tvp = to->ni_vp;
	int error;

	if (fdvp->v_mount != tdvp->v_mount)
		return -EXDEV;
	if (from->ni_lasttype != NI_LAST_NORM)
		return -EBUSY;
	if (to->ni_lasttype != NI_LAST_NORM)
		return (flags & RENAME_NOREPLACE) ? -EEXIST : -EBUSY;
	if (fvp == NULL)
		return -ENOENT;
	if ((flags & RENAME_NOREPLACE) && tvp != NULL)
		return -EEXIST;
	if (fvp->v_type != VDIR && (from->ni_trailing || to->ni_trailing))
		return -ENOTDIR;
	if ((error = may_delete(fdvp, fvp, cr)) < 0)
		return error;
	if (tvp != NULL) {
		if ((error = may_delete(tdvp, tvp, cr)) < 0)
			return error;
	} else if (tdvp->v_nlink == 0) {
		return -ENOENT;		/* a removed directory */
	} else if ((error = vaccess(tdvp, W_OK | X_OK, cr)) < 0) {
		return error;
	}
	/* Hard links to one file, or a name onto itself: nothing to do. */
	if (fvp == tvp)
		return 0;
	if (fvp->v_type == VDIR) {
		if (tvp != NULL && tvp->v_type != VDIR)
			return -ENOTDIR;
		bool loop;
		if ((error = is_ancestor(fvp, tdvp, &loop)) < 0)
			return error;
		if (loop)
			return -EINVAL;
		/* Its ".." changes: that needs write permission on it. */
		if (fdvp != tdvp && (error = vaccess(fvp, W_OK, cr)) < 0)
			return error;
	} else if (tvp != NULL && tvp->v_type == VDIR) {
		return -EISDIR;
	}
	if (tvp != NULL && tvp->v_type == VDIR) {
		/* Renaming over an ancestor of the source: not empty. */
		bool above;
		if ((error = is_ancestor(tvp, fdvp, &above)) < 0)
			return error;
		if (above)
			return -ENOTEMPTY;
	}
	error = fdvp->v_op->vop_rename(fdvp, from->ni_last, fvp, tdvp,
	    to->ni_last, tvp);
	if (error == 0 && tvp != NULL && tvp->v_type == VDIR)
		dir_removed(tvp, tdvp);
	if (error == 0)
		inotify_rename(fdvp, from->ni_last, tdvp, to->ni_last, fvp, tvp);
	return error;
}

int
kern_renameat2(struct fsproc *p, struct ucred *cr, int olddirfd,
    const char *oldpath, int newdirfd, const char *newpath, unsigned flags)
{
	struct nameidata from, to;
	int error;

	if (flags & ~RENAME_NOREPLACE)
		return -EINVAL;
	if ((error = namei_at(p, cr, olddirfd, oldpath, NI_PARENT, &from)) < 0)
		return error;
	if ((error = namei_at(p, cr, newdirfd, newpath, NI_PARENT, &to)) < 0) {
		namei_done(&from);
		return error;
	}
	error = do_rename(&from, &to, cr, flags);
	namei_done(&to);
	namei_done(&from);
	return error;
}

int
kern_linkat(struct fsproc *p, struct ucred *cr, int olddirfd,
    const char *oldpath, int newdirfd, const char *newpath, int flags)
{
	struct nameidata nd;
	struct vnode *vp;
	int error;

	if (flags & ~(AT_SYMLINK_FOLLOW | AT_EMPTY_PATH))
		return -EINVAL;
	if ((flags & AT_EMPTY_PATH) && oldpath[0] == '\0') {
		/* Linux wants CAP_DAC_READ_SEARCH for this. */
		if (!cred_is_root(cr))
			return -ENOENT;
		if ((error = getvnode(p, olddirfd, &vp)) < 0)
			return error;
	} else {
		error = namei_at(p, cr, olddirfd, oldpath,
		    (flags & AT_SYMLINK_FOLLOW) ? NI_FOLLOW : 0, &nd);
		if (error < 0)
			return error;
		vp = nd.ni_vp;
	}
	if (vp->v_type == VDIR) {
		vrele(vp);
		return -EPERM;
	}
	if ((error = namei_at(p, cr, newdirfd, newpath, NI_PARENT, &nd)) < 0) {
		vrele(vp);
		return error;
	}
	if ((error = may_create(&nd, cr, false)) == 0) {
		if (nd.ni_dvp->v_mount != vp->v_mount)
			error = -EXDEV;
		else if (vp->v_nlink == 0)
			error = -ENOENT;	/* an unlinked open file */
		else
			error = nd.ni_dvp->v_op->vop_link(nd.ni_dvp, nd.ni_last,
			    vp);
		if (error == 0) {
			inotify_vnode(vp, IN_ATTRIB);	/* its link count */
			inotify_create(nd.ni_dvp, nd.ni_last, vp);
		}
	}
	namei_done(&nd);
	vrele(vp);
	return error;
}

int
kern_symlinkat(struct fsproc *p, struct ucred *cr, const char *target,
    int newdirfd, const char *linkpath)
{
	struct nameidata nd;
	int error;

	size_t tl = strnlen(target, PATH_MAX);
	if (tl == 0)
		return -ENOENT;
	if (tl == PATH_MAX)
		return -ENAMETOOLONG;
	if ((error = namei_at(p, cr, newdirfd, linkpath, NI_PARENT, &nd)) < 0)
		return error;
	if ((error = may_create(&nd, cr, false)) == 0) {
		struct vattr va;
		struct vnode *vp;
		new_owner(nd.ni_dvp, cr, VLNK, 0777, &va);
		error = nd.ni_dvp->v_op->vop_symlink(nd.ni_dvp, nd.ni_last, &va,
		    target, &vp);
		if (error == 0) {
			inotify_create(nd.ni_dvp, nd.ni_last, vp);
			vrele(vp);
		}
	}
	namei_done(&nd);
	return error;
}

int
kern_readlinkat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, char *buf, size_t bufsiz)
{
	struct nameidata nd;
	int error;

	if (bufsiz == 0 || bufsiz > INT32_MAX)
		return -EINVAL;
	if ((error = namei_at(p, cr, dirfd, path, 0, &nd)) < 0)
		return error;
	struct vnode *vp = nd.ni_vp;
	if (vp->v_type != VLNK) {
		error = -EINVAL;
	} else {
		struct uio uio;
		struct kiovec iov;
		uio_init_kernel(&uio, &iov, buf, bufsiz, 0, UIO_READ);
		error = vp->v_op->vop_readlink(vp, &uio);
		if (error == 0) {
			error = (int)(bufsiz - uio.uio_resid);
			vfs_timestamp(&vp->v_atime);
		}
	}
	namei_done(&nd);
	return error;
}
