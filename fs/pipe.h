/*
 * Pipes and fifos: a ring buffer of PIPE_SIZE bytes in pages allocated
 * as they are first written, with readers and writers that sleep for
 * data and space (pipe.c).  An anonymous pipe comes from pipe2; a fifo's
 * pipe hangs off its vnode (v_fifo) while some open of it exists.
 *
 * Locking: the big kernel lock; reads, writes and fifo opens may sleep,
 * interruptibly (-ERESTARTSYS).
 */
#ifndef FS_PIPE_H
#define FS_PIPE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "fs/poll.h"
#include "kern/kernel.h"

#define PIPE_SIZE	(64 * 1024)	/* capacity, as Linux's default */
#define PIPE_MAX_SIZE	(1024 * 1024)	/* F_SETPIPE_SZ's limit: Linux's pipe-max-size */
#define PIPE_BUF	4096		/* writes up to this are atomic */
#define PIPE_MAX_PAGES	((int)(PIPE_MAX_SIZE / PAGE_SIZE))

struct vnode;
struct file;
struct fsproc;
struct uio;

struct pipe {
	char *pi_page[PIPE_MAX_PAGES];	/* the ring's pages, NULL until used */
	uint32_t pi_size;		/* capacity: a power of two, in pages */
	uint32_t pi_head;		/* where the next read starts */
	uint32_t pi_count;		/* bytes in the ring */
	int pi_readers, pi_writers;	/* open ends */
	uint32_t pi_rcount, pi_wcount;	/* opens ever: fifo partners */
	bool pi_busy;			/* a read or write is copying */
	struct selinfo pi_rsel, pi_wsel;
	struct vnode *pi_vnode;		/* a fifo's vnode, or NULL */
	uint64_t pi_ino;		/* fstat of a pipe2 pipe */
	dev_t pi_dev;
	uid_t pi_uid;
	gid_t pi_gid;
	struct timespec pi_ctime;
};

/*
 * Opens fifo vnode vp for fp (whose f_flag is set): joins or creates the
 * vnode's pipe and waits, unless O_NONBLOCK or O_RDWR, for the other side
 * to open.  Returns 0, -ENXIO (write-only, non-blocking, no reader),
 * -ERESTARTSYS, -ENOMEM.
 */
int fifo_open(struct vnode *vp, struct file *fp);

/*
 * A new open file (*fpp, one reference) on the pipe of pipe end pfp,
 * with access mode and O_NONBLOCK from fflags: opening
 * /proc/PID/fd/N of a pipe, as Linux's fifo_open on the pipe's inode.
 * Unlike a fifo's open it never waits for the other side (the end pfp
 * being open, it usually is there).  0 or -ENOMEM.
 */
int pipe_reopen(struct file *pfp, int fflags, struct file **fpp);

/*
 * F_GETPIPE_SZ and F_SETPIPE_SZ on fp, a pipe or fifo: the capacity, or
 * sets it to size rounded up to a power of two pages and returns that;
 * -EBUSY if it holds more, -EPERM past PIPE_MAX_SIZE, -EINVAL past 2 GiB.
 */
int pipe_getsize(struct file *fp);
int pipe_setsize(struct file *fp, uint64_t size);

/*
 * Reads and writes pipe end fp with uio as read and write do, except
 * that nonblock, not the file's O_NONBLOCK, says whether they wait
 * (vmsplice's SPLICE_F_NONBLOCK).  0 or a negative errno.
 */
int pipe_readu(struct file *fp, struct uio *uio, bool nonblock);
int pipe_writeu(struct file *fp, struct uio *uio, bool nonblock);

/*
 * The ring, for splice and tee (pipe_splice.c), which move bytes into
 * and out of it in place.  pipe_lock takes the pipe's sleep lock (0, or
 * -ERESTARTSYS if a signal came); the rest are called holding it.
 * pipe_ring_data: the bytes at off past the head, a piece within one
 * page, *n cut to its length.  pipe_ring_room: the free space at the
 * tail, the same way, its page allocated if new (NULL: no memory).
 * pipe_consume takes n bytes off the head, pipe_commit adds n filled at
 * the tail; each wakes the other side.
 */
int pipe_lock(struct pipe *pi);
void pipe_unlock(struct pipe *pi);
/*
 * Sleeps on chan with the pipe lock let go: 0 holding it again, or
 * -ERESTARTSYS (a signal came) without it.
 */
int pipe_wait(struct pipe *pi, const void *chan, const char *wmesg);
void pipe_wake_readers(struct pipe *pi);
void pipe_wake_writers(struct pipe *pi);
char *pipe_ring_data(struct pipe *pi, uint32_t off, size_t *n);
char *pipe_ring_room(struct pipe *pi, size_t *n);
void pipe_consume(struct pipe *pi, size_t n);
void pipe_commit(struct pipe *pi, size_t n);

/*
 * splice(2) and tee(2) (pipe_splice.c): fd numbers of fsp, offsets
 * (NULL: the file's own) in and out as Linux's, flags SPLICE_F_*.
 * The bytes moved, 0 at the input's end, or a negative errno (-EPIPE:
 * the caller sends SIGPIPE).
 */
int64_t kern_splice(struct fsproc *fsp, int in, int64_t *offin, int out,
    int64_t *offout, size_t len, unsigned flags);
int64_t kern_tee(struct fsproc *fsp, int in, int out, size_t len,
    unsigned flags);
/* vmsplice(2)'s work: uio into pipe end fd's pipe, or out of it. */
int64_t kern_vmsplice(struct fsproc *fsp, int fd, struct uio *uio,
    unsigned flags);

#endif /* FS_PIPE_H */
