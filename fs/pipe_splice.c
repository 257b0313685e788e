/*
 * splice, tee and vmsplice (Linux's fs/splice.c), by copying.
 *
 * A Linux pipe holds references to pages, so splice can hand a file's
 * page cache pages to a pipe and a pipe's pages to a socket without a
 * copy.  vkernel's pipes hold bytes in a ring of their own pages
 * (pipe.c), so splice copies once, straight between the ring and the
 * other file: the ring's pages are kernel memory, and the other file is
 * read into them or written from them through a kernel-space uio.  What
 * the caller sees is Linux's: which ends may be what, the errors, the
 * blocking, and that bytes leave the input only as the output takes
 * them (a pipe's are consumed after the write took them; a file or
 * socket is read only into room the pipe already has).
 *
 * The pipe's sleep lock is held across the move, as Linux's pipe_lock,
 * so the ring cannot change under it; a file's read or write may sleep
 * meanwhile, and a reader or writer of the same pipe waits.  Between two
 * pipes both are locked, the lower address first.
 */
#include <fcntl.h>

#include "fs/file.h"
#include "fs/pipe.h"
#include "fs/vfs.h"
#include "kern/thread.h"
#include "kern/uio.h"

#define SPLICE_FLAGS	(SPLICE_F_MOVE | SPLICE_F_NONBLOCK | SPLICE_F_MORE | \
			 SPLICE_F_GIFT)

static bool
is_pipe(struct file *fp)
{
	return fp->f_type == DTYPE_PIPE || fp->f_type == DTYPE_FIFO;
}

/* The file on the other side of the pipe, and where it is read or written. */
struct splice_end {
	struct fsproc *fsp;
	int fd;
	int64_t *off;		/* NULL: the file's own offset */
};

/* Moves n bytes between buf and the end's file: read or write. */
static int64_t
end_io(struct splice_end *e, char *buf, size_t n, enum uio_rw rw)
{
	struct kiovec iov = { (uint64_t)buf, n };
	struct uio uio = { &iov, 1, 0, n, UIO_SYSSPACE, rw, NULL };
	int64_t r;
	if (e->off == NULL)
		r = rw == UIO_READ ? kern_readv(e->fsp, e->fd, &uio) :
		    kern_writev(e->fsp, e->fd, &uio);
	else
		r = rw == UIO_READ ? kern_preadv(e->fsp, e->fd, &uio, *e->off) :
		    kern_pwritev(e->fsp, e->fd, &uio, *e->off);
	if (r > 0 && e->off != NULL)
		*e->off += r;
	return r;
}

/*
 * Pipe to file: the ring's bytes, from the head, written to the end's
 * file; those written are consumed.  Waits for data (as read) unless
 * nonblock; 0 at the end of file.
 */
static int64_t
splice_from_pipe(struct pipe *pi, struct splice_end *out, size_t len,
    bool nonblock)
{
	int64_t moved = 0;
	int error = pipe_lock(pi);
	if (error < 0)
		return error;
	while (pi->pi_count == 0) {
		if (pi->pi_writers == 0)
			goto out;	/* end of file */
		if (nonblock) {
			error = -EAGAIN;
			goto out;
		}
		if ((error = pipe_wait(pi, &pi->pi_rsel, "splice")) < 0)
			return error;
	}
	while ((size_t)moved < len && pi->pi_count > 0) {
		size_t n = len - (size_t)moved;
		char *p = pipe_ring_data(pi, 0, &n);
		int64_t w = end_io(out, p, n, UIO_WRITE);
		if (w <= 0) {
			error = (int)w;
			break;
		}
		pipe_consume(pi, (size_t)w);
		moved += w;
		if ((size_t)w < n)
			break;
	}
out:
	pipe_unlock(pi);
	return moved > 0 ? moved : error;
}

/*
 * File to pipe: the end's file read into the ring's free space, a piece
 * at a time until len, a short read or a full ring.  Waits for room (as
 * write) unless nonblock; -EPIPE with no reader.
 */
static int64_t
splice_to_pipe(struct pipe *pi, struct splice_end *in, size_t len,
    bool nonblock)
{
	int64_t moved = 0;
	int error = pipe_lock(pi);
	if (error < 0)
		return error;
	for (;;) {
		if (pi->pi_readers == 0) {
			error = -EPIPE;
			goto out;
		}
		if (pi->pi_count < pi->pi_size)
			break;
		if (nonblock) {
			error = -EAGAIN;
			goto out;
		}
		if ((error = pipe_wait(pi, &pi->pi_wsel, "splice")) < 0)
			return error;
	}
	while ((size_t)moved < len && pi->pi_count < pi->pi_size) {
		size_t n = len - (size_t)moved;
		char *p = pipe_ring_room(pi, &n);
		if (p == NULL) {
			error = -ENOMEM;
			break;
		}
		int64_t r = end_io(in, p, n, UIO_READ);
		if (r <= 0) {
			error = (int)r;
			break;
		}
		pipe_commit(pi, (size_t)r);
		moved += r;
		if ((size_t)r < n)
			break;
	}
out:
	pipe_unlock(pi);
	return moved > 0 ? moved : error;
}

/* Both pipes' locks, the lower address first; 0 or -ERESTARTSYS. */
static int
pipe_lock2(struct pipe *a, struct pipe *b)
{
	struct pipe *first = a < b ? a : b, *second = a < b ? b : a;
	int error = pipe_lock(first);
	if (error < 0)
		return error;
	if ((error = pipe_lock(second)) < 0)
		pipe_unlock(first);
	return error;
}

/*
 * Pipe to pipe: splice (consume) or tee (the input keeps its bytes).
 * Waits for the input to have bytes and the output room, as Linux's
 * ipipe_prep and opipe_prep, then moves what both allow up to len.
 */
static int64_t
pipe_to_pipe(struct pipe *ip, struct pipe *op, size_t len, bool nonblock,
    bool consume)
{
	int error = pipe_lock2(ip, op);
	if (error < 0)
		return error;
	for (;;) {
		const void *chan;
		if (ip->pi_count == 0) {
			if (ip->pi_writers == 0) {
				error = 0;	/* end of file */
				goto out;
			}
			chan = &ip->pi_rsel;
		} else if (op->pi_readers == 0) {
			error = -EPIPE;
			goto out;
		} else if (op->pi_count == op->pi_size) {
			chan = &op->pi_wsel;
		} else {
			break;
		}
		if (nonblock) {
			error = -EAGAIN;
			goto out;
		}
		pipe_unlock(op);
		pipe_unlock(ip);
		if (tsleep(chan, PCATCH, "splice", 0) == EINTR)
			return -ERESTARTSYS;
		if ((error = pipe_lock2(ip, op)) < 0)
			return error;
	}
	size_t moved = 0;
	len = MIN(len, MIN(ip->pi_count, op->pi_size - op->pi_count));
	while (moved < len) {
		size_t n = len - moved, m;
		const char *src = pipe_ring_data(ip, (uint32_t)moved, &n);
		m = n;
		char *dst = pipe_ring_room(op, &m);
		if (dst == NULL) {
			error = -ENOMEM;
			break;
		}
		memcpy(dst, src, m);
		pipe_commit(op, m);
		moved += m;
	}
	if (consume)
		pipe_consume(ip, moved);
	if (moved > 0)
		error = (int)moved;	/* at most a ring: 1 MiB */
out:
	pipe_unlock(op);
	pipe_unlock(ip);
	return error;
}

/*
 * Whether an offset may be given for fp (descriptor fd): 0 for one
 * lseek takes, else Linux's errno: EINVAL for a socket (its file takes
 * a position, the socket refuses it), ESPIPE for the rest.
 */
static int
offset_ok(struct fsproc *fsp, int fd, struct file *fp)
{
	if (kern_lseek(fsp, fd, 0, SEEK_CUR) >= 0)
		return 0;
	return fp->f_type == DTYPE_SOCKET ? -EINVAL : -ESPIPE;
}

int64_t
kern_splice(struct fsproc *fsp, int in, int64_t *offin, int out,
    int64_t *offout, size_t len, unsigned flags)
{
	if (flags & ~SPLICE_FLAGS)
		return -EINVAL;
	struct file *ifp = fget(fsp, in), *ofp = fget(fsp, out);
	int64_t r = 0;
	if (ifp == NULL || ofp == NULL || !FREAD(ifp) || !FWRITE(ofp))
		r = -EBADF;
	else if (is_pipe(ifp) && is_pipe(ofp))
		r = offin != NULL || offout != NULL ? -ESPIPE :
		    ifp->f_data == ofp->f_data ? -EINVAL : 0;
	else if (is_pipe(ifp))
		r = offin != NULL ? -ESPIPE : (ofp->f_flag & O_APPEND) ? -EINVAL :
		    offout != NULL ? offset_ok(fsp, out, ofp) : 0;
	else if (is_pipe(ofp))
		r = offout != NULL ? -ESPIPE :
		    offin != NULL ? offset_ok(fsp, in, ifp) : 0;
	else
		r = -EINVAL;
	if (r == 0 && ((offin != NULL && *offin < 0) ||
	    (offout != NULL && *offout < 0)))
		r = -EINVAL;
	len = MIN(len, (size_t)0x7ffff000);
	if (r == 0 && len > 0) {
		/* As Linux's: a pipe end's O_NONBLOCK counts as SPLICE_F_NONBLOCK. */
		bool nonblock = (flags & SPLICE_F_NONBLOCK) ||
		    (is_pipe(ifp) && (ifp->f_flag & O_NONBLOCK)) ||
		    (is_pipe(ofp) && (ofp->f_flag & O_NONBLOCK));
		if (is_pipe(ifp) && is_pipe(ofp))
			r = pipe_to_pipe(ifp->f_data, ofp->f_data, len, nonblock,
			    true);
		else if (is_pipe(ifp))
			r = splice_from_pipe(ifp->f_data,
			    &(struct splice_end){ fsp, out, offout }, len, nonblock);
		else
			r = splice_to_pipe(ofp->f_data,
			    &(struct splice_end){ fsp, in, offin }, len, nonblock);
	}
	if (ifp != NULL)
		fdrop(ifp);
	if (ofp != NULL)
		fdrop(ofp);
	return r;
}

int64_t
kern_tee(struct fsproc *fsp, int in, int out, size_t len, unsigned flags)
{
	if (flags & ~SPLICE_FLAGS)
		return -EINVAL;
	struct file *ifp = fget(fsp, in), *ofp = fget(fsp, out);
	int64_t r = 0;
	if (ifp == NULL || ofp == NULL || !FREAD(ifp) || !FWRITE(ofp))
		r = -EBADF;
	else if (!is_pipe(ifp) || !is_pipe(ofp) || ifp->f_data == ofp->f_data)
		r = -EINVAL;
	else if (len > 0)
		r = pipe_to_pipe(ifp->f_data, ofp->f_data,
		    MIN(len, (size_t)0x7ffff000), (flags & SPLICE_F_NONBLOCK) ||
		    (ifp->f_flag & O_NONBLOCK) || (ofp->f_flag & O_NONBLOCK),
		    false);
	if (ifp != NULL)
		fdrop(ifp);
	if (ofp != NULL)
		fdrop(ofp);
	return r;
}

int64_t
kern_vmsplice(struct fsproc *fsp, int fd, struct uio *uio, unsigned flags)
{
	if (flags & ~SPLICE_FLAGS)
		return -EINVAL;
	struct file *fp = fget(fsp, fd);
	if (fp == NULL)
		return -EBADF;
	uint64_t resid0 = uio->uio_resid;
	bool nonblock = (flags & SPLICE_F_NONBLOCK) != 0;
	int error = -EBADF;
	/* As Linux's: an end open for writing is written, else read. */
	if (is_pipe(fp) && FWRITE(fp)) {
		uio->uio_rw = UIO_WRITE;
		error = pipe_writeu(fp, uio, nonblock);
	} else if (is_pipe(fp) && FREAD(fp)) {
		uio->uio_rw = UIO_READ;
		error = pipe_readu(fp, uio, nonblock);
	}
	fdrop(fp);
	int64_t moved = (int64_t)(resid0 - uio->uio_resid);
	return moved > 0 ? moved : error;
}
