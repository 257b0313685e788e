/*
 * Directories and a process's place among them: getdents64, chdir,
 * fchdir, chroot, getcwd (and the path of any vnode), umask.
 */
#include "fs/namei.h"
#include "fs/vfs.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "kern/kmem.h"

int64_t
kern_getdents64(struct fsproc *p, int fd, struct uio *uio)
{
	struct file *fp = fget(p, fd);
	if (fp == NULL)
		return -EBADF;
	struct vnode *vp = fp->f_vnode;
	int64_t ret;
	if (fp->f_type != DTYPE_VNODE || vp->v_type != VDIR) {
		ret = -ENOTDIR;
	} else if (vp->v_nlink == 0) {
		ret = 0;	/* removed: not even "." and "..", as Linux */
	} else {
		uint64_t resid0 = uio->uio_resid;
		uio->uio_rw = UIO_READ;
		uio->uio_offset = fp->f_offset;
		ret = vp->v_op->vop_readdir(vp, uio);
		fp->f_offset = uio->uio_offset;
		if (ret == 0)
			ret = (int64_t)(resid0 - uio->uio_resid);
	}
	fdrop(fp);
	return ret;
}

/* Replaces *slot (cwd or root) by directory vp, consuming the reference. */
static int
set_dir(struct vnode **slot, struct vnode *vp, struct ucred *cr)
{
	int error = vp->v_type != VDIR ? -ENOTDIR : vaccess(vp, X_OK, cr);
	if (error < 0) {
		vrele(vp);
		return error;
	}
	vrele(*slot);
	*slot = vp;
	return 0;
}

int
kern_chdir(struct fsproc *p, struct ucred *cr, const char *path)
{
	struct nameidata nd;
	int error = namei_at(p, cr, AT_FDCWD, path, NI_FOLLOW, &nd);
	if (error < 0)
		return error;
	return set_dir(&p->fp_pwd->pd_cdir, nd.ni_vp, cr);
}

int
kern_fchdir(struct fsproc *p, struct ucred *cr, int fd)
{
	struct vnode *vp;
	int error = getvnode(p, fd, &vp);
	if (error < 0)
		return error == -EINVAL ? -ENOTDIR : error;
	return set_dir(&p->fp_pwd->pd_cdir, vp, cr);
}

int
kern_chroot(struct fsproc *p, struct ucred *cr, const char *path)
{
	struct nameidata nd;
	int error = namei_at(p, cr, AT_FDCWD, path, NI_FOLLOW, &nd);
	if (error < 0)
		return error;
	if (!cred_is_root(cr)) {
		vrele(nd.ni_vp);
		return -EPERM;
	}
	return set_dir(&p->fp_pwd->pd_rdir, nd.ni_vp, cr);
}

/*
 * Finds the name of vp in directory dvp by its inode number (inode
 * numbers are unique machine-wide) and copies it to name.
 */
static int
name_in_dir(struct vnode *dvp, struct vnode *vp, char *name)
{
	char *buf = kmalloc(PAGE_SIZE, 0);
	if (buf == NULL)
		return -ENOMEM;
	int64_t cookie = 0;
	int error = -ENOENT;
	for (;;) {
		struct uio uio;
		struct kiovec iov;
		uio_init_kernel(&uio, &iov, buf, PAGE_SIZE, cookie, UIO_READ);
		int e = dvp->v_op->vop_readdir(dvp, &uio);
		size_t len = PAGE_SIZE - uio.uio_resid;
		if (e < 0 || len == 0) {
			if (e < 0)
				error = e;
			break;
		}
		cookie = uio.uio_offset;
		for (size_t off = 0; off < len;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			if (d->d_ino == vp->v_ino && strcmp(d->d_name, ".") != 0 &&
			    strcmp(d->d_name, "..") != 0) {
				strcpy(name, d->d_name);
				error = 0;
				goto out;
			}
			off += d->d_reclen;
		}
	}
out:
	kfree(buf);
	return error;
}

/* Puts "/name" in front of the path growing down to path + *pos. */
static int
path_prepend(char *path, size_t *pos, const char *name)
{
	size_t len = strlen(name);
	if (len + 1 > *pos)
		return -ENAMETOOLONG;
	*pos -= len;
	memcpy(path + *pos, name, len);
	path[--*pos] = '/';
	return 0;
}

/*
 * A non-directory has no ".." to climb: look for it in hint, then at the
 * top of its own file system (devfs nodes, files at a mount's root).
 * Returns the directory it was found in, referenced, with its name
 * prepended; NULL with *error otherwise.
 */
static struct vnode *
file_parent(struct vnode *vp, struct vnode *hint, char *path, size_t *pos,
    int *error)
{
	char name[NAME_MAX + 1];
	struct vnode *dirs[2] = { hint, vp->v_mount->mnt_root };

	for (int i = 0; i < 2; i++) {
		struct vnode *dvp = dirs[i];
		if (dvp == NULL || dvp->v_type != VDIR || dvp->v_mount != vp->v_mount)
			continue;
		if (name_in_dir(dvp, vp, name) == 0) {
			*error = path_prepend(path, pos, name);
			return *error == 0 ? vref(dvp) : NULL;
		}
	}
	*error = -ENOENT;
	return NULL;
}

int
vn_fullpath(struct vnode *rdir, struct vnode *vp, struct vnode *hint,
    char *buf, size_t size)
{
	char *path = kmalloc(PATH_MAX, 0);
	if (path == NULL)
		return -ENOMEM;
	char name[NAME_MAX + 1];
	size_t pos = PATH_MAX - 1;	/* the path grows down from the end */
	int error = 0;

	path[pos] = '\0';
	if (vp->v_type != VDIR)
		vp = file_parent(vp, hint, path, &pos, &error);
	else
		vp = vref(vp);
	if (vp != NULL && vp->v_nlink == 0)
		error = -ENOENT;	/* removed while we were in it */
	while (error == 0 && vp != rdir) {
		if (vp->v_flags & VROOT) {
			struct vnode *covered = vp->v_mount->mnt_covered;
			if (covered == NULL)
				break;	/* outside our root: stop at "/" */
			vrele(vp);
			vp = vref(covered);
			continue;
		}
		struct vnode *dvp;
		if ((error = vp->v_op->vop_lookup(vp, "..", &dvp)) < 0)
			break;
		if ((error = name_in_dir(dvp, vp, name)) == 0)
			error = path_prepend(path, &pos, name);
		vrele(vp);
		vp = dvp;
	}
	vrele(vp);
	if (error == 0) {
		if (path[pos] == '\0')
			path[--pos] = '/';
		size_t len = PATH_MAX - pos;	/* with the NUL */
		if (len > size)
			error = -ERANGE;
		else {
			memcpy(buf, path + pos, len);
			error = (int)len;
		}
	}
	kfree(path);
	return error;
}

int
kern_getcwd(struct fsproc *p, char *buf, size_t size)
{
	return vn_fullpath(p->fp_pwd->pd_rdir, p->fp_pwd->pd_cdir, NULL, buf, size);
}

mode_t
kern_umask(struct fsproc *p, mode_t mask)
{
	mode_t old = p->fp_pwd->pd_umask;
	p->fp_pwd->pd_umask = mask & 0777;
	return old;
}
