/*
 * Path name lookup (vfs_lookup.c).
 *
 * namei walks a kernel path from the process's root (absolute paths) or a
 * start directory, checking search permission on every directory it
 * passes, crossing mount points both ways, and following symbolic links
 * (at most MAXSYMLINKS per lookup: -ELOOP).  Components longer than
 * NAME_MAX or paths longer than PATH_MAX give -ENAMETOOLONG.
 *
 * With NI_PARENT it stops before the last component, as create, remove
 * and rename need: it returns the parent directory, the last name, and
 * the vnode of that name if it exists (with NI_FOLLOW, a symlink there is
 * followed, and if its target does not exist the result is the target's
 * parent and last name, so that O_CREAT through a dangling link creates
 * the target as Linux does).
 */
#ifndef FS_NAMEI_H
#define FS_NAMEI_H

#include <stdbool.h>

#include "fs/vnode.h"

struct ucred;
struct fsproc;

/* ni_flags */
#define NI_FOLLOW	0x0001	/* follow a symlink as last component */
#define NI_PARENT	0x0002	/* stop at the parent (see above) */

/* ni_lasttype */
enum ni_last { NI_LAST_NORM, NI_LAST_DOT, NI_LAST_DOTDOT, NI_LAST_ROOT };

struct nameidata {
	/* In */
	const char *ni_path;	/* kernel string */
	struct vnode *ni_startdir;	/* for relative paths */
	struct vnode *ni_rootdir;	/* the process's root */
	struct ucred *ni_cred;
	int ni_flags;
	/* Out: referenced vnodes the caller vreles (namei_done) */
	struct vnode *ni_dvp;	/* NI_PARENT: the parent */
	struct vnode *ni_vp;	/* the result; NULL if the last is missing */
	enum ni_last ni_lasttype;
	bool ni_trailing;	/* the path ended in '/' */
	char ni_last[NAME_MAX + 1];	/* NI_PARENT: the last component */
};

/*
 * Looks up nd->ni_path.  Returns 0 with ni_vp (and with NI_PARENT ni_dvp,
 * ni_last, ni_lasttype) set, or a negative errno: -ENOENT (a missing
 * component, or an empty path), -ENOTDIR, -EACCES, -ELOOP,
 * -ENAMETOOLONG, -ENOMEM.  Without NI_PARENT a missing last component is
 * -ENOENT; with it, ni_vp is NULL.  Without NI_PARENT a trailing slash
 * requires a directory (-ENOTDIR) and makes the last component followed;
 * with it, the caller applies its own rule (ni_trailing).
 */
int namei(struct nameidata *nd);

/* Releases what namei returned. */
void namei_done(struct nameidata *nd);

/*
 * namei for the *at calls: relative paths start at dirfd (a directory
 * descriptor, or AT_FDCWD for the cwd), from process p's root, as cred.
 * Errors as namei, and -EBADF, -ENOTDIR for a bad dirfd.
 */
int namei_at(struct fsproc *p, struct ucred *cr, int dirfd, const char *path,
    int flags, struct nameidata *nd);

/*
 * The vnode of descriptor fd, referenced: -EBADF if fd is not open,
 * -EINVAL if it is not a file of a file system (a pipe).  An O_PATH
 * descriptor gives its vnode: this is for calls that want a name.
 */
int getvnode(struct fsproc *p, int fd, struct vnode **vpp);

/*
 * getvnode for calls that use the file itself (fchmod, fchown): an O_PATH
 * descriptor counts as not open (-EBADF), as fget has it.
 */
int getvnode_open(struct fsproc *p, int fd, struct vnode **vpp);

/*
 * Search (exec) permission and the others: mode is a mask of R_OK, W_OK,
 * X_OK against vp for cred.  Root passes read and write always and exec
 * if the file is a directory or has any exec bit.  Returns 0, -EACCES, or
 * -EROFS for writing a file, directory or link of a read-only mount.
 */
int vaccess(struct vnode *vp, int mode, const struct ucred *cred);

#endif /* FS_NAMEI_H */
