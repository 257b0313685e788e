/*
 * Pipes and fifos (see pipe.h).
 *
 * Readers sleep on &pi_rsel until data or EOF, writers on &pi_wsel until
 * space or no readers; pollers hear the same events through the
 * selinfos.  A copy to or from user space can fault and sleep, so I/O
 * holds pi_busy, a sleep lock, to keep the ring consistent; it is let go
 * around every wait for data or space.
 */
#include <sys/ioctl.h>

#include "fs/ioctl.h"
#include "fs/pipe.h"
#include "fs/vfs.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "kern/kmem.h"

static struct pipe *
pipe_alloc(void)
{
	struct pipe *pi = kmalloc(sizeof(*pi), KM_ZERO);
	if (pi == NULL)
		return NULL;
	selinfo_init(&pi->pi_rsel);
	selinfo_init(&pi->pi_wsel);
	pi->pi_size = PIPE_SIZE;
	pi->pi_ino = vfs_newino();
	vfs_timestamp(&pi->pi_ctime);
	return pi;
}

static void
pipe_free(struct pipe *pi)
{
	seldrain(&pi->pi_rsel);
	seldrain(&pi->pi_wsel);
	for (int i = 0; i < PIPE_MAX_PAGES; i++)
		if (pi->pi_page[i] != NULL)
			vm_page_free(DMAP_TO_VM_PAGE(pi->pi_page[i]), 0);
	kfree(pi);
}

int
pipe_lock(struct pipe *pi)
{
	while (pi->pi_busy)
		if (tsleep(&pi->pi_busy, PCATCH, "pipelk", 0) == EINTR)
			return -ERESTARTSYS;
	pi->pi_busy = true;
	return 0;
}

void
pipe_unlock(struct pipe *pi)
{
	pi->pi_busy = false;
	wakeup(&pi->pi_busy);
}

int
pipe_wait(struct pipe *pi, const void *chan, const char *wmesg)
{
	pipe_unlock(pi);
	if (tsleep(chan, PCATCH, wmesg, 0) == EINTR)
		return -ERESTARTSYS;
	return pipe_lock(pi);
}

void
pipe_wake_readers(struct pipe *pi)
{
	wakeup(&pi->pi_rsel);
	selwakeup(&pi->pi_rsel);
}

void
pipe_wake_writers(struct pipe *pi)
{
	wakeup(&pi->pi_wsel);
	selwakeup(&pi->pi_wsel);
}

/* The ring's page under position pos, allocated if new; NULL: no memory. */
static char *
ring_page(struct pipe *pi, uint32_t pos)
{
	char **pg = &pi->pi_page[pos / PAGE_SIZE];
	if (*pg == NULL) {
		struct vm_page *m = vm_page_alloc(0, 0);
		if (m == NULL)
			return NULL;
		*pg = VM_PAGE_TO_DMAP(m);
	}
	return *pg;
}

char *
pipe_ring_data(struct pipe *pi, uint32_t off, size_t *n)
{
	uint32_t at = (pi->pi_head + off) % pi->pi_size;
	*n = MIN(*n, MIN(pi->pi_count - off, PAGE_SIZE - at % PAGE_SIZE));
	return pi->pi_page[at / PAGE_SIZE] + at % PAGE_SIZE;
}

char *
pipe_ring_room(struct pipe *pi, size_t *n)
{
	uint32_t at = (pi->pi_head + pi->pi_count) % pi->pi_size;
	*n = MIN(*n, MIN(pi->pi_size - pi->pi_count, PAGE_SIZE - at % PAGE_SIZE));
	char *pg = ring_page(pi, at);
	return pg != NULL ? pg + at % PAGE_SIZE : NULL;
}

void
pipe_consume(struct pipe *pi, size_t n)
{
	pi->pi_head = (uint32_t)((pi->pi_head + n) % pi->pi_size);
	pi->pi_count -= (uint32_t)n;
	if (n > 0)
		pipe_wake_writers(pi);
}

void
pipe_commit(struct pipe *pi, size_t n)
{
	pi->pi_count += (uint32_t)n;
	if (n > 0)
		pipe_wake_readers(pi);
}

/*
 * Moves up to n bytes between the ring at position pos and the uio,
 * page by page.  Allocates pages as they are first written.  Sets *done
 * to the bytes moved; returns 0 or the negative errno that stopped it.
 */
static int
ring_copy(struct pipe *pi, uint32_t pos, size_t n, struct uio *uio,
    size_t *done)
{
	*done = 0;
	while (*done < n) {
		uint32_t at = (pos + *done) % pi->pi_size;
		size_t chunk = MIN(n - *done, PAGE_SIZE - at % PAGE_SIZE);
		char *pg = ring_page(pi, at);
		if (pg == NULL)
			return -ENOMEM;
		uint64_t resid0 = uio->uio_resid;
		int error = uiomove(pg + at % PAGE_SIZE, chunk, uio);
		*done += resid0 - uio->uio_resid;
		if (error < 0)
			return error;
	}
	return 0;
}

/*
 * Appends n bytes of the uio to the ring.  As Linux, which copies the
 * writer's data a page at a time and keeps only whole copies, a piece of
 * up to a page that cannot be copied entire is left out: its bytes are
 * given back to the uio's count, which is all the caller reads of it
 * after an error.  Returns 0 or a negative errno.
 */
static int
ring_append(struct pipe *pi, size_t n, struct uio *uio)
{
	while (n > 0) {
		size_t piece = MIN(n, PAGE_SIZE), done;
		int error = ring_copy(pi, (pi->pi_head + pi->pi_count) % pi->pi_size,
		    piece, uio, &done);
		if (error < 0) {
			uio->uio_resid += done;
			return error;
		}
		pi->pi_count += (uint32_t)piece;
		n -= piece;
	}
	return 0;
}

int
pipe_readu(struct file *fp, struct uio *uio, bool nonblock)
{
	struct pipe *pi = fp->f_data;
	int error = pipe_lock(pi);
	if (error < 0)
		return error;
	for (;;) {
		if (pi->pi_count > 0) {
			size_t n = MIN(pi->pi_count, uio->uio_resid), got;
			error = ring_copy(pi, pi->pi_head, n, uio, &got);
			pi->pi_head = (uint32_t)((pi->pi_head + got) % pi->pi_size);
			pi->pi_count -= (uint32_t)got;
			if (got > 0)
				pipe_wake_writers(pi);
			break;
		}
		if (pi->pi_writers == 0)
			break;		/* end of file */
		if (nonblock) {
			error = -EAGAIN;
			break;
		}
		if ((error = pipe_wait(pi, &pi->pi_rsel, "piperd")) < 0)
			goto out;	/* not holding the lock */
	}
	pipe_unlock(pi);
out:
	return error;
}

static int
pipe_read(struct file *fp, struct uio *uio)
{
	return pipe_readu(fp, uio, (fp->f_flag & O_NONBLOCK) != 0);
}

int
pipe_writeu(struct file *fp, struct uio *uio, bool nonblock)
{
	struct pipe *pi = fp->f_data;
	/* Writes of PIPE_BUF bytes or fewer never interleave with others. */
	bool atomic = uio->uio_resid <= PIPE_BUF;
	int error = pipe_lock(pi);
	if (error < 0)
		return error;
	while (uio->uio_resid > 0) {
		if (pi->pi_readers == 0) {
			error = -EPIPE;
			break;
		}
		size_t space = pi->pi_size - pi->pi_count;
		if (space > 0 && (!atomic || space >= uio->uio_resid)) {
			uint32_t count0 = pi->pi_count;
			error = ring_append(pi, MIN(space, uio->uio_resid), uio);
			if (pi->pi_count != count0)
				pipe_wake_readers(pi);
			if (error < 0)
				break;
			continue;
		}
		if (nonblock) {
			error = -EAGAIN;
			break;
		}
		if ((error = pipe_wait(pi, &pi->pi_wsel, "pipewr")) < 0)
			return error;	/* not holding the lock */
	}
	pipe_unlock(pi);
	return error;
}

static int
pipe_write(struct file *fp, struct uio *uio)
{
	return pipe_writeu(fp, uio, (fp->f_flag & O_NONBLOCK) != 0);
}

static const struct ioctl_cmd pipe_ioctls[] = {
	IOCTL_CMD(FIONREAD, IOCD_OUT, sizeof(int)),
	IOCTL_END,
};

static const struct ioctl_cmd *
pipe_ioctl_cmds(struct file *fp)
{
	(void)fp;
	return pipe_ioctls;
}

/* FIONREAD, the only one: the bytes waiting. */
static int
pipe_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	struct pipe *pi = fp->f_data;
	int n = (int)pi->pi_count;

	(void)cmd;
	memcpy(data, &n, sizeof(n));
	return 0;
}

static int
pipe_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct pipe *pi = fp->f_data;
	int revents = 0;

	if (FREAD(fp)) {
		if (pi->pi_count > 0)
			revents |= POLLIN | POLLRDNORM;
		/* A fifo that never had a writer is not hung up yet. */
		if (pi->pi_writers == 0 && pi->pi_wcount > 0)
			revents |= POLLHUP;
		selrecord(pw, &pi->pi_rsel);
	}
	if (FWRITE(fp)) {
		if (pi->pi_size - pi->pi_count >= PIPE_BUF)
			revents |= POLLOUT | POLLWRNORM;
		if (pi->pi_readers == 0)
			revents |= POLLERR;
		selrecord(pw, &pi->pi_wsel);
	}
	return revents & events;
}

static int
pipe_stat(struct file *fp, struct linux_stat *st)
{
	struct pipe *pi = fp->f_data;

	memset(st, 0, sizeof(*st));
	st->st_dev = pi->pi_dev;
	st->st_ino = pi->pi_ino;
	st->st_nlink = 1;
	st->st_mode = S_IFIFO | 0600;
	st->st_uid = pi->pi_uid;
	st->st_gid = pi->pi_gid;
	st->st_blksize = PAGE_SIZE;
	st->st_atime_sec = st->st_mtime_sec = st->st_ctime_sec =
	    (uint64_t)pi->pi_ctime.tv_sec;
	st->st_atime_nsec = st->st_mtime_nsec = st->st_ctime_nsec =
	    (uint64_t)pi->pi_ctime.tv_nsec;
	return 0;
}

static int64_t
pipe_lseek(struct file *fp, int64_t off, int whence)
{
	(void)fp, (void)off, (void)whence;
	return -ESPIPE;
}

/* One end of pi closes: the other side hears EOF or EPIPE. */
static void
pipe_release(struct pipe *pi, int fflag)
{
	if ((fflag & O_ACCMODE) != O_WRONLY && --pi->pi_readers == 0)
		pipe_wake_writers(pi);
	if ((fflag & O_ACCMODE) != O_RDONLY && --pi->pi_writers == 0)
		pipe_wake_readers(pi);
	if (pi->pi_readers == 0 && pi->pi_writers == 0) {
		if (pi->pi_vnode != NULL)
			pi->pi_vnode->v_fifo = NULL;
		pipe_free(pi);
	}
}

static void
pipe_close(struct file *fp)
{
	pipe_release(fp->f_data, fp->f_flag);
}

static const struct fileops pipe_fileops = {
	.fo_read = pipe_read,
	.fo_write = pipe_write,
	.fo_ioctls = pipe_ioctl_cmds,
	.fo_ioctl = pipe_ioctl,
	.fo_poll = pipe_poll,
	.fo_stat = pipe_stat,
	.fo_lseek = pipe_lseek,
	.fo_close = pipe_close,
};

int
kern_pipe2(struct fsproc *p, struct ucred *cr, int fds[2], int flags)
{
	if (flags & ~(O_CLOEXEC | O_NONBLOCK))
		return -EINVAL;
	struct pipe *pi = pipe_alloc();
	if (pi == NULL)
		return -ENOMEM;
	static dev_t pipefs_dev;
	if (pipefs_dev == 0)
		pipefs_dev = vfs_anondev();
	pi->pi_dev = pipefs_dev;
	pi->pi_uid = cr->cr_uid;
	pi->pi_gid = cr->cr_gid;

	int fl = flags & O_NONBLOCK;
	struct file *rf = falloc(DTYPE_PIPE, O_RDONLY | fl, &pipe_fileops);
	struct file *wf = falloc(DTYPE_PIPE, O_WRONLY | fl, &pipe_fileops);
	if (rf == NULL || wf == NULL) {
		/* Neither end is open yet: free by hand. */
		kfree(rf);
		kfree(wf);
		pipe_free(pi);
		return -ENOMEM;
	}
	rf->f_data = wf->f_data = pi;
	pi->pi_readers = pi->pi_writers = 1;
	pi->pi_rcount = pi->pi_wcount = 1;

	int fdflags = (flags & O_CLOEXEC) ? FD_CLOEXEC : 0;
	int error = fds[0] = fdalloc(p, rf, 0, fdflags);
	if (error >= 0) {
		error = fds[1] = fdalloc(p, wf, 0, fdflags);
		if (error < 0)
			kern_close(p, fds[0]);
	}
	fdrop(rf);
	fdrop(wf);
	return error < 0 ? error : 0;
}

/* The fifo's own vnode supplies stat; closing also drops it. */
static int
fifo_stat(struct file *fp, struct linux_stat *st)
{
	vn_stat(fp->f_vnode, st);
	return 0;
}

static void
fifo_close(struct file *fp)
{
	pipe_release(fp->f_data, fp->f_flag);
	vrele(fp->f_vnode);
}

static const struct fileops fifo_fileops = {
	.fo_read = pipe_read,
	.fo_write = pipe_write,
	.fo_ioctls = pipe_ioctl_cmds,
	.fo_ioctl = pipe_ioctl,
	.fo_poll = pipe_poll,
	.fo_stat = fifo_stat,
	.fo_lseek = pipe_lseek,
	.fo_close = fifo_close,
};

/*
 * Waits until the count of opens of the other side moves past seen;
 * -ERESTARTSYS if a signal comes first.
 */
static int
fifo_wait_partner(uint32_t *count, uint32_t seen)
{
	while (*count == seen)
		if (tsleep(count, PCATCH, "fifoor", 0) == EINTR)
			return -ERESTARTSYS;
	return 0;
}

int
fifo_open(struct vnode *vp, struct file *fp)
{
	struct pipe *pi = vp->v_fifo;
	int acc = fp->f_flag & O_ACCMODE;
	bool nonblock = (fp->f_flag & O_NONBLOCK) != 0;
	int error = 0;

	if (pi == NULL) {
		if (acc == O_WRONLY && nonblock)
			return -ENXIO;	/* no reader can be there */
		if ((pi = pipe_alloc()) == NULL)
			return -ENOMEM;
		pi->pi_vnode = vp;
		vp->v_fifo = pi;
	}
	switch (acc) {
	case O_RDONLY:
		pi->pi_readers++;
		pi->pi_rcount++;
		wakeup(&pi->pi_rcount);
		if (pi->pi_writers == 0 && !nonblock)
			error = fifo_wait_partner(&pi->pi_wcount, pi->pi_wcount);
		break;
	case O_WRONLY:
		if (pi->pi_readers == 0 && nonblock)
			return -ENXIO;
		pi->pi_writers++;
		pi->pi_wcount++;
		wakeup(&pi->pi_wcount);
		if (pi->pi_readers == 0)
			error = fifo_wait_partner(&pi->pi_rcount, pi->pi_rcount);
		break;
	default:
		/* Both ends at once: never waits (Linux's behaviour). */
		pi->pi_readers++;
		pi->pi_writers++;
		pi->pi_rcount++;
		pi->pi_wcount++;
		wakeup(&pi->pi_rcount);
		wakeup(&pi->pi_wcount);
		break;
	}
	if (error < 0) {
		pipe_release(pi, fp->f_flag);
		return error;
	}
	fp->f_type = DTYPE_FIFO;
	fp->f_data = pi;
	fp->f_ops = &fifo_fileops;
	return 0;
}

int
pipe_reopen(struct file *pfp, int fflags, struct file **fpp)
{
	struct pipe *pi = pfp->f_data;
	int acc = fflags & O_ACCMODE;
	struct file *fp = falloc(pfp->f_type, fflags, pfp->f_ops);

	if (fp == NULL)
		return -ENOMEM;
	fp->f_data = pi;
	if (pfp->f_vnode != NULL)
		fp->f_vnode = vref(pfp->f_vnode);	/* a fifo's */
	if (acc != O_WRONLY) {
		pi->pi_readers++;
		pi->pi_rcount++;
		wakeup(&pi->pi_rcount);
	}
	if (acc != O_RDONLY) {
		pi->pi_writers++;
		pi->pi_wcount++;
		wakeup(&pi->pi_wcount);
	}
	*fpp = fp;
	return 0;
}

int
pipe_getsize(struct file *fp)
{
	struct pipe *pi = fp->f_data;
	return (int)pi->pi_size;
}

/*
 * Moves the ring's bytes to new pages from position 0 of a ring of size
 * bytes and frees the old pages.  0, or -ENOMEM with the ring unchanged.
 */
static int
ring_relayout(struct pipe *pi, uint32_t size)
{
	char **np = kmalloc(PIPE_MAX_PAGES * sizeof(*np), KM_ZERO);
	if (np == NULL)
		return -ENOMEM;
	uint32_t npages = (pi->pi_count + PAGE_SIZE - 1) / PAGE_SIZE;
	for (uint32_t i = 0; i < npages; i++) {
		struct vm_page *m = vm_page_alloc(0, 0);
		if (m == NULL) {
			while (i-- > 0)
				vm_page_free(DMAP_TO_VM_PAGE(np[i]), 0);
			kfree(np);
			return -ENOMEM;
		}
		np[i] = VM_PAGE_TO_DMAP(m);
	}
	for (uint32_t done = 0; done < pi->pi_count; ) {
		uint32_t at = (pi->pi_head + done) % pi->pi_size;
		uint32_t chunk = MIN(pi->pi_count - done, MIN(PAGE_SIZE - at % PAGE_SIZE,
		    PAGE_SIZE - done % PAGE_SIZE));
		memcpy(np[done / PAGE_SIZE] + done % PAGE_SIZE,
		    pi->pi_page[at / PAGE_SIZE] + at % PAGE_SIZE, chunk);
		done += chunk;
	}
	for (int i = 0; i < PIPE_MAX_PAGES; i++)
		if (pi->pi_page[i] != NULL)
			vm_page_free(DMAP_TO_VM_PAGE(pi->pi_page[i]), 0);
	memcpy(pi->pi_page, np, sizeof(pi->pi_page));
	kfree(np);
	pi->pi_head = 0;
	pi->pi_size = size;
	return 0;
}

int
pipe_setsize(struct file *fp, uint64_t size)
{
	struct pipe *pi = fp->f_data;
	uint32_t pages = 1;

	if (size > (1ULL << 31))
		return -EINVAL;
	while ((uint64_t)pages * PAGE_SIZE < size)
		pages <<= 1;
	size = (uint64_t)pages * PAGE_SIZE;
	/* Past pipe-max-size Linux asks for CAP_SYS_RESOURCE; nobody has it here. */
	if (size > PIPE_MAX_SIZE)
		return -EPERM;
	int error = pipe_lock(pi);
	if (error < 0)
		return error;
	if (pi->pi_count > size)
		error = -EBUSY;
	else if (size != pi->pi_size)
		error = ring_relayout(pi, (uint32_t)size);
	pipe_unlock(pi);
	if (error == 0)
		pipe_wake_writers(pi);	/* there may be room now */
	return error < 0 ? error : (int)size;
}
