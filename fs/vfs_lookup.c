/*
 * Path name lookup: namei (see namei.h).
 *
 * The path being walked sits in one PATH_MAX buffer.  A symbolic link is
 * spliced in place: the rest of the path moves up to make room and the
 * link's target is read in front of it, so following links needs no more
 * memory and the PATH_MAX limit applies to the whole spliced path, as in
 * Linux.
 */
#include <unistd.h>

#include "fs/file.h"
#include "fs/namei.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "kern/kmem.h"

int
vaccess(struct vnode *vp, int mode, const struct ucred *cred)
{
	mode &= R_OK | W_OK | X_OK;
	/* Devices and fifos on a read-only mount stay writable, as Linux. */
	if ((mode & W_OK) && (vp->v_mount->mnt_flags & MNT_RDONLY) &&
	    (vp->v_type == VREG || vp->v_type == VDIR || vp->v_type == VLNK))
		return -EROFS;
	if (cred_is_root(cred)) {
		if ((mode & X_OK) && vp->v_type != VDIR &&
		    (vp->v_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) == 0)
			return -EACCES;
		return 0;
	}
	mode_t bits;
	if (cred->cr_uid == vp->v_uid)
		bits = vp->v_mode >> 6;
	else if (groupmember(vp->v_gid, cred))
		bits = vp->v_mode >> 3;
	else
		bits = vp->v_mode;
	return (mode & ~bits & 7) != 0 ? -EACCES : 0;
}

/*
 * The parent of directory dp, referenced.  ".." of the process root is the
 * root itself; ".." of a mounted file system's root is ".." of the
 * directory it covers; ".." of a removed directory is the one it was
 * removed from (as Linux's dcache), whatever its file system still has.
 */
static int
lookup_dotdot(struct vnode *dp, struct vnode *root, struct vnode **vpp)
{
	for (;;) {
		if (dp == root) {
			*vpp = vref(dp);
			return 0;
		}
		if (dp->v_dotdot != NULL) {
			*vpp = vref(dp->v_dotdot);
			return 0;
		}
		if (!(dp->v_flags & VROOT) || dp->v_mount->mnt_covered == NULL)
			break;
		dp = dp->v_mount->mnt_covered;
	}
	return dp->v_op->vop_lookup(dp, "..", vpp);
}

/* Looks up one component in directory dp; a missing name is -ENOENT. */
static int
lookup_one(struct vnode *dp, const char *name, struct vnode *root,
    struct vnode **vpp)
{
	if (name[0] == '.' && name[1] == '\0') {
		*vpp = vref(dp);
		return 0;
	}
	if (name[0] == '.' && name[1] == '.' && name[2] == '\0')
		return lookup_dotdot(dp, root, vpp);
	int error = dp->v_op->vop_lookup(dp, name, vpp);
	if (error < 0)
		return error;
	/* Down into whatever is mounted here. */
	while ((*vpp)->v_mountedhere != NULL) {
		struct vnode *top = vref((*vpp)->v_mountedhere->mnt_root);
		vrele(*vpp);
		*vpp = top;
	}
	return 0;
}

/*
 * Replaces the walked part of buf (up to rest) with the target of
 * symlink vp, keeping the rest of the path behind it.  Returns the new
 * length of the target part, or a negative errno.
 */
static int
splice_link(struct vnode *vp, char *buf, const char *rest)
{
	size_t restlen = strlen(rest);
	uint64_t tl = vp->v_size;

	if (tl == 0)
		return -ENOENT;
	if (tl >= PATH_MAX || tl + restlen >= PATH_MAX)
		return -ENAMETOOLONG;
	memmove(buf + tl, rest, restlen + 1);

	struct uio uio;
	struct kiovec iov;
	uio_init_kernel(&uio, &iov, buf, tl, 0, UIO_READ);
	int error = vp->v_op->vop_readlink(vp, &uio);
	if (error < 0)
		return error;
	if (uio.uio_resid != 0 || memchr(buf, '\0', tl) != NULL)
		return -EIO;	/* the file system broke its own size */
	return (int)tl;
}

/*
 * The vnode that magic link vp (/proc/PID/fd/N) leads to, referenced, or
 * NULL if vp is an ordinary link or its file has no vnode (a pipe).  As
 * Linux, following such a link jumps to the open file itself rather than
 * reading its text: the text is a path we may not be able to rebuild
 * (a file in a directory other than the cwd), or none at all.
 */
static struct vnode *
magic_link_vnode(struct vnode *vp)
{
	struct file *fp;

	if (vp->v_op->vop_linkfile == NULL || (fp = vp->v_op->vop_linkfile(vp)) == NULL)
		return NULL;
	struct vnode *target = fp->f_vnode != NULL ? vref(fp->f_vnode) : NULL;
	fdrop(fp);
	return target;
}

int
namei(struct nameidata *nd)
{
	size_t len = strnlen(nd->ni_path, PATH_MAX);
	if (len == PATH_MAX)
		return -ENAMETOOLONG;
	if (len == 0)
		return -ENOENT;
	char *buf = kmalloc(PATH_MAX, 0);
	if (buf == NULL)
		return -ENOMEM;
	memcpy(buf, nd->ni_path, len + 1);

	struct vnode *root = nd->ni_rootdir;
	struct vnode *dp = vref(buf[0] == '/' ? root : nd->ni_startdir);
	struct vnode *vp = NULL;
	int nlinks = 0, error = 0;
	char *cp = buf;
	char name[NAME_MAX + 1];

	nd->ni_dvp = nd->ni_vp = NULL;
	for (;;) {
		while (*cp == '/')
			cp++;
		if (*cp == '\0') {
			/* The path was all slashes: it names the root. */
			nd->ni_lasttype = NI_LAST_ROOT;
			nd->ni_last[0] = '\0';
			nd->ni_trailing = false;
			nd->ni_vp = dp;
			if (nd->ni_flags & NI_PARENT)
				nd->ni_dvp = vref(dp);
			goto out;
		}
		const char *end = cp;
		while (*end != '\0' && *end != '/')
			end++;
		size_t nlen = (size_t)(end - cp);
		if (nlen > NAME_MAX) {
			error = -ENAMETOOLONG;
			break;
		}
		memcpy(name, cp, nlen);
		name[nlen] = '\0';
		const char *next = end;
		while (*next == '/')
			next++;
		bool last = *next == '\0';
		bool trailing = last && next != end;

		if (dp->v_type != VDIR) {
			error = -ENOTDIR;
			break;
		}
		if ((error = vaccess(dp, X_OK, nd->ni_cred)) < 0)
			break;
		error = lookup_one(dp, name, root, &vp);
		if (error < 0 && !(error == -ENOENT && last &&
		    (nd->ni_flags & NI_PARENT)))
			break;
		if (error < 0)
			vp = NULL;
		error = 0;

		bool parent = (nd->ni_flags & NI_PARENT) != 0;
		/*
		 * The last component is followed if asked, or for a trailing
		 * slash unless the caller works on the name itself (Linux
		 * never follows the last link of mkdir("link/") or
		 * rmdir("link/")).
		 */
		bool follow = vp != NULL && vp->v_type == VLNK && (!last ||
		    (nd->ni_flags & NI_FOLLOW) || (trailing && !parent));
		struct vnode *jump = follow ? magic_link_vnode(vp) : NULL;
		if (jump != NULL) {
			vrele(vp);
			vp = jump;
		} else if (follow) {
			int tl = ++nlinks > MAXSYMLINKS ? -ELOOP :
			    splice_link(vp, buf, end);
			vrele(vp);
			vp = NULL;
			if (tl < 0) {
				error = tl;
				break;
			}
			if (buf[0] == '/') {
				vrele(dp);
				dp = vref(root);
			}
			cp = buf;
			continue;
		}

		if (last) {
			if (trailing && !parent && vp->v_type != VDIR) {
				vrele(vp);
				error = -ENOTDIR;
				break;
			}
			nd->ni_trailing = trailing;
			nd->ni_vp = vp;
			if (parent) {
				nd->ni_dvp = dp;
				memcpy(nd->ni_last, name, nlen + 1);
				if (strcmp(name, ".") == 0)
					nd->ni_lasttype = NI_LAST_DOT;
				else if (strcmp(name, "..") == 0)
					nd->ni_lasttype = NI_LAST_DOTDOT;
				else
					nd->ni_lasttype = NI_LAST_NORM;
			} else {
				vrele(dp);
			}
			goto out;
		}
		vrele(dp);
		dp = vp;
		vp = NULL;
		cp = (char *)next;
	}
	vrele(dp);
out:
	kfree(buf);
	return error;
}

void
namei_done(struct nameidata *nd)
{
	vrele(nd->ni_vp);
	vrele(nd->ni_dvp);
	nd->ni_vp = nd->ni_dvp = NULL;
}

/* The vnode of fp (fget's or fget_raw's, dropped here): getvnode's errors. */
static int
file_vnode(struct file *fp, struct vnode **vpp)
{
	if (fp == NULL)
		return -EBADF;
	struct vnode *vp = fp->f_vnode;
	if (vp != NULL)
		*vpp = vref(vp);
	fdrop(fp);
	return vp != NULL ? 0 : -EINVAL;
}

int
getvnode(struct fsproc *p, int fd, struct vnode **vpp)
{
	return file_vnode(fget_raw(p, fd), vpp);
}

int
getvnode_open(struct fsproc *p, int fd, struct vnode **vpp)
{
	return file_vnode(fget(p, fd), vpp);
}

int
namei_at(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    int flags, struct nameidata *nd)
{
	struct vnode *start = NULL;
	int error;

	if (path[0] != '/' && dirfd != AT_FDCWD) {
		if ((error = getvnode(p, dirfd, &start)) < 0)
			return error == -EINVAL ? -ENOTDIR : error;
		if (start->v_type != VDIR) {
			vrele(start);
			return -ENOTDIR;
		}
	}
	nd->ni_path = path;
	nd->ni_startdir = start != NULL ? start : p->fp_pwd->pd_cdir;
	nd->ni_rootdir = p->fp_pwd->pd_rdir;
	nd->ni_cred = cr;
	nd->ni_flags = flags;
	error = namei(nd);
	vrele(start);
	return error;
}
