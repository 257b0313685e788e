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

#endif /* FS_PIPE_H */
