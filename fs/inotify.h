/*
 * inotify (inotify.c): watches on vnodes, and the VFS's hooks that
 * report what happens to them.
 *
 * A watch holds its vnode and a mask of the events wanted.  The VFS
 * calls the hooks below after each change it makes; each is one test of
 * a counter while no watch exists anywhere, so they cost nothing when
 * inotify is not in use.  A directory's watch hears about its entries
 * (create, delete, rename, attributes: with the entry's name) and, as in
 * Linux, about what happens to the files opened through it (open,
 * modify, close), named as they were opened: once inotify has been used
 * (an instance was made), each file opened by a path keeps its directory
 * and name (struct inotify_fileref).  A rename after the open is not
 * followed, and files opened before inotify's first use are known to
 * their own watches only.
 *
 * Locking: the big kernel lock.
 */
#ifndef FS_INOTIFY_H
#define FS_INOTIFY_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/inotify.h>

struct file;
struct fsproc;
struct ucred;
struct vnode;

extern int inotify_nwatches;	/* watches in the whole system */
extern bool inotify_used;	/* an instance was ever made */

/*
 * inotify_init1(flags): IN_NONBLOCK, IN_CLOEXEC; -EMFILE at the kernel's
 * limit of instances.
 */
int kern_inotify_init(struct fsproc *p, int flags);

/*
 * inotify_add_watch(fd, path, mask): the watch descriptor, or -EBADF,
 * -EINVAL (not an inotify file, no event in mask, IN_MASK_ADD with
 * IN_MASK_CREATE), -ENOENT, -EACCES (path not readable), -ENOTDIR
 * (IN_ONLYDIR), -EEXIST (IN_MASK_CREATE on a watched file), -ENOSPC
 * (the kernel's limit of watches).
 */
int kern_inotify_add_watch(struct fsproc *p, struct ucred *cr, int fd,
    const char *path, uint32_t mask);

/* inotify_rm_watch(fd, wd): 0, -EBADF, -EINVAL (no such watch). */
int kern_inotify_rm_watch(struct fsproc *p, int fd, int wd);

/*
 * The hooks, named for the change.  dvp/name: the directory entry;
 * vp: its vnode.
 */
void inotify_create1(struct vnode *dvp, const char *name, struct vnode *vp);
void inotify_delete1(struct vnode *dvp, const char *name, struct vnode *vp);
void inotify_rename1(struct vnode *fdvp, const char *fname,
    struct vnode *tdvp, const char *tname, struct vnode *vp,
    struct vnode *replaced);
/* vp's data (IN_MODIFY) or attributes (IN_ATTRIB) changed. */
void inotify_vnode1(struct vnode *vp, uint32_t mask);
/*
 * vp, found at path from dirfd, changed (IN_ATTRIB, IN_MODIFY): its
 * directory hears of it by name (the path's parent is looked up again).
 */
void inotify_parent1(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, struct vnode *vp, uint32_t mask);
/* fp, a vnode file, was opened (through dvp/name if not NULL). */
void inotify_open1(struct file *fp, struct vnode *dvp, const char *name);
/* fp was read (IN_ACCESS), written (IN_MODIFY), or closed. */
void inotify_file1(struct file *fp, uint32_t mask);
void inotify_close1(struct file *fp);

#define INOTIFY_HOOK(call)	do {					\
	if (inotify_nwatches > 0)					\
		call;							\
} while (0)
#define inotify_create(dvp, name, vp)					\
	INOTIFY_HOOK(inotify_create1(dvp, name, vp))
#define inotify_delete(dvp, name, vp)					\
	INOTIFY_HOOK(inotify_delete1(dvp, name, vp))
#define inotify_rename(fdvp, fname, tdvp, tname, vp, replaced)		\
	INOTIFY_HOOK(inotify_rename1(fdvp, fname, tdvp, tname, vp, replaced))
#define inotify_vnode(vp, mask)	INOTIFY_HOOK(inotify_vnode1(vp, mask))
#define inotify_parent(p, cr, dirfd, path, vp, mask)			\
	INOTIFY_HOOK(inotify_parent1(p, cr, dirfd, path, vp, mask))
#define inotify_open(fp, dvp, name)	do {				\
	if (inotify_used)						\
		inotify_open1(fp, dvp, name);				\
} while (0)
#define inotify_file(fp, mask)	INOTIFY_HOOK(inotify_file1(fp, mask))
/* A file's record outlives the watches: its close always looks. */
#define inotify_close(fp)	do {					\
	if (inotify_nwatches > 0 || (fp)->f_inotify != NULL)		\
		inotify_close1(fp);					\
} while (0)

#endif /* FS_INOTIFY_H */
