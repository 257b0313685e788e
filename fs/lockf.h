/*
 * Advisory file locks on any vnode (vfs_lock.c): fcntl's record locks,
 * owned by a process's descriptor table (POSIX) or by an open file (OFD),
 * which share one space of byte ranges; and flock's whole-file locks,
 * owned by an open file, a space of their own.  As Linux: POSIX locks go
 * when their process closes any descriptor of the file (or exits), OFD
 * and flock locks when their open file is closed for good.
 */
#ifndef FS_LOCKF_H
#define FS_LOCKF_H

#include <fcntl.h>
#include <stdint.h>
#include <sys/types.h>

struct file;
struct filedesc;
struct vnode;

/*
 * fcntl F_GETLK, F_SETLK, F_SETLKW and their F_OFD_* forms on fp (which
 * the caller holds) with the user's struct flock in *fl, for the process
 * pid with descriptor table fdp.  F_GETLK rewrites *fl.  Returns 0,
 * -EAGAIN (a conflict, F_SETLK), -EDEADLK (F_SETLKW would wait for
 * itself), -ERESTARTSYS (a signal ended the wait), -EBADF (a lock the
 * file's access mode does not allow), -EINVAL, -EOVERFLOW, -ENOLCK.
 */
int vfs_advlock(struct file *fp, struct filedesc *fdp, pid_t pid, int cmd,
    struct flock *fl);

/* flock(fd, op) on fp: 0, -EWOULDBLOCK, -ERESTARTSYS, -EINVAL, -ENOLCK. */
int vfs_flock(struct file *fp, int op);

/* A process closed a descriptor of vp: its POSIX locks on vp go. */
void vfs_lock_close(struct vnode *vp, struct filedesc *fdp);

/* fp is being freed: its OFD and flock locks on vp go. */
void vfs_lock_release(struct vnode *vp, struct file *fp);

#endif /* FS_LOCKF_H */
