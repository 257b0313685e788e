/*
 * Extended attributes: no file system here keeps any, and the calls
 * answer as Linux's do on a file system without them: the name is
 * looked up (ENOENT, ENOTDIR, ELOOP...), the list of names is empty,
 * reading, writing or removing one is -EOPNOTSUPP.  Programs take that
 * to mean "no ACLs, no SELinux labels, nothing to copy" (ls -l, cp -a,
 * tar), where ENOSYS makes ls report an error for every file.
 */
#include "fs/namei.h"
#include "fs/vfs.h"

/* What op gives once its file is found. */
static int
xattr_answer(enum xattr_op op)
{
	return op == XATTR_LIST ? 0 : -EOPNOTSUPP;
}

int
kern_xattr_path(struct fsproc *p, struct ucred *cr, const char *path,
    bool follow, enum xattr_op op)
{
	struct nameidata nd;
	int error = namei_at(p, cr, AT_FDCWD, path, follow ? NI_FOLLOW : 0, &nd);
	if (error < 0)
		return error;
	vrele(nd.ni_vp);
	return xattr_answer(op);
}

int
kern_xattr_fd(struct fsproc *p, int fd, enum xattr_op op)
{
	struct file *fp = fget(p, fd);
	if (fp == NULL)
		return -EBADF;
	fdrop(fp);
	return xattr_answer(op);
}
