/*
 * Helper threads for block I/O on host files (see blkio.h).
 *
 * One lock per file guards two FIFOs: transfers waiting for a helper,
 * and ended ones waiting for the kernel.  Requests come from libc: this
 * is the host's side of the wall, and the kernel's RAM holds only the
 * data.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "blkio.h"
#include "cpu.h"

#define BLKIO_MAXTHREADS	8
#define BLKIO_CLUSTER		32	/* requests merged into one host call */

struct blkio_req {
	enum blkio_op op;
	void *data;
	size_t len;
	off_t off;
	void *cookie;
	int cpu;
	int error;
	struct blkio_req *next;
};

struct blkio_fifo {
	struct blkio_req *head, **tail;
};

struct blkio {
	int fd;
	pthread_mutex_t lock;
	pthread_cond_t work;		/* todo has requests, or stopping */
	pthread_cond_t ended;		/* done has requests */
	struct blkio_fifo todo, done;
	bool stopping;
	unsigned long hostcalls;
	int nthreads;
	pthread_t threads[BLKIO_MAXTHREADS];
};

int (*blkio_test_hook)(enum blkio_op op, off_t off, size_t len);

static void
fifo_init(struct blkio_fifo *f)
{
	f->head = NULL;
	f->tail = &f->head;
}

static void
fifo_put(struct blkio_fifo *f, struct blkio_req *r)
{
	r->next = NULL;
	*f->tail = r;
	f->tail = &r->next;
}

static struct blkio_req *
fifo_get(struct blkio_fifo *f)
{
	struct blkio_req *r = f->head;
	if (r != NULL && (f->head = r->next) == NULL)
		f->tail = &f->head;
	return r;
}

/* Does r's transfer: 0 or a negative errno. */
static int
blkio_transfer(struct blkio *b, struct blkio_req *r)
{
	int (*hook)(enum blkio_op, off_t, size_t) = blkio_test_hook;
	if (hook != NULL) {
		int e = hook(r->op, r->off, r->len);
		if (e != 0)
			return -e;
	}
	if (r->op == BLKIO_FLUSH)
		return fdatasync(b->fd) < 0 ? -errno : 0;

	/* Partial transfers go on; one that moves nothing is an error. */
	for (size_t done = 0; done < r->len; ) {
		char *p = (char *)r->data + done;
		ssize_t n = r->op == BLKIO_READ ?
		    pread(b->fd, p, r->len - done, r->off + (off_t)done) :
		    pwrite(b->fd, p, r->len - done, r->off + (off_t)done);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			return -EIO;
		done += (size_t)n;
	}
	return 0;
}

/*
 * Takes the requests waiting behind r that continue it (same direction,
 * the next bytes of the file), up to BLKIO_CLUSTER in all, so that a
 * sequential run (read-ahead, a sync's writes) is one host call rather
 * than one per block.  Called with the lock held; returns how many.
 */
static int
blkio_cluster(struct blkio *b, struct blkio_req **rs)
{
	int n = 1;
	struct blkio_req *r;
	if (blkio_test_hook != NULL || rs[0]->op == BLKIO_FLUSH)
		return n;
	while (n < BLKIO_CLUSTER && (r = b->todo.head) != NULL &&
	    r->op == rs[0]->op && r->off == rs[n - 1]->off + (off_t)rs[n - 1]->len)
		rs[n++] = fifo_get(&b->todo);
	return n;
}

/*
 * Does the n continuing transfers of rs with one preadv/pwritev; if that
 * moves less than all (an error, the end of the file), each is done on
 * its own so that each gets its own answer.
 */
static void
blkio_transfer_cluster(struct blkio *b, struct blkio_req **rs, int n)
{
	if (n > 1) {
		struct iovec iov[BLKIO_CLUSTER];
		size_t total = 0;
		for (int i = 0; i < n; i++) {
			iov[i] = (struct iovec){ rs[i]->data, rs[i]->len };
			total += rs[i]->len;
		}
		ssize_t got = rs[0]->op == BLKIO_READ ?
		    preadv(b->fd, iov, n, rs[0]->off) :
		    pwritev(b->fd, iov, n, rs[0]->off);
		if (got == (ssize_t)total) {
			for (int i = 0; i < n; i++)
				rs[i]->error = 0;
			return;
		}
	}
	for (int i = 0; i < n; i++)
		rs[i]->error = blkio_transfer(b, rs[i]);
}

static void *
blkio_helper(void *arg)
{
	struct blkio *b = arg;
	struct blkio_req *rs[BLKIO_CLUSTER];

	pthread_mutex_lock(&b->lock);
	for (;;) {
		if ((rs[0] = fifo_get(&b->todo)) == NULL) {
			if (b->stopping)
				break;
			pthread_cond_wait(&b->work, &b->lock);
			continue;
		}
		int n = blkio_cluster(b, rs);
		b->hostcalls++;
		pthread_mutex_unlock(&b->lock);
		blkio_transfer_cluster(b, rs, n);
		pthread_mutex_lock(&b->lock);
		/* vkd_intr takes every ended transfer: one interrupt does. */
		int cpu = rs[0]->cpu;
		for (int i = 0; i < n; i++)
			fifo_put(&b->done, rs[i]);
		pthread_cond_broadcast(&b->ended);
		pthread_mutex_unlock(&b->lock);
		cpu_post_id(cpu, INTR_DISK);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
}

int
blkio_image_open(const char *path, bool *ro, uint64_t *size, unsigned sector,
    char *why, size_t whylen)
{
	struct stat st;
	int fd = -1;
	if (!*ro) {
		fd = open(path, O_RDWR | O_CLOEXEC);
		/* An image we may not write is a read-only disk. */
		if (fd < 0 && (errno == EACCES || errno == EROFS || errno == EPERM))
			*ro = true;
	}
	if (*ro)
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "%s", strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0)
		snprintf(why, whylen, "%s", strerror(errno));
	else if (!S_ISREG(st.st_mode))
		snprintf(why, whylen, "not a regular file");
	else if (st.st_size == 0 || st.st_size % sector != 0)
		snprintf(why, whylen, "size %lld is not a non-zero "
		    "multiple of %u bytes", (long long)st.st_size, sector);
	else if (flock(fd, (*ro ? LOCK_SH : LOCK_EX) | LOCK_NB) < 0)
		snprintf(why, whylen, "%s", errno == EWOULDBLOCK ?
		    "in use: locked by another vkernel" : strerror(errno));
	else {
		*size = (uint64_t)st.st_size;
		return fd;
	}
	close(fd);
	return -1;
}

void
blkio_image_close(int fd)
{
	close(fd);
}

struct blkio *
blkio_open(int fd, int nthreads)
{
	if (nthreads < 1 || nthreads > BLKIO_MAXTHREADS) {
		errno = EINVAL;
		return NULL;
	}
	struct blkio *b = calloc(1, sizeof(*b));
	if (b == NULL)
		return NULL;
	b->fd = fd;
	pthread_mutex_init(&b->lock, NULL);
	pthread_cond_init(&b->work, NULL);
	pthread_cond_init(&b->ended, NULL);
	fifo_init(&b->todo);
	fifo_init(&b->done);

	/* Helpers take no signals: the CPUs' ticks and kicks are not theirs. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = 0;
	for (; b->nthreads < nthreads; b->nthreads++) {
		e = pthread_create(&b->threads[b->nthreads], NULL, blkio_helper, b);
		if (e != 0)
			break;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		blkio_close(b);
		errno = e;
		return NULL;
	}
	return b;
}

unsigned long
blkio_hostcalls(struct blkio *b)
{
	pthread_mutex_lock(&b->lock);
	unsigned long n = b->hostcalls;
	pthread_mutex_unlock(&b->lock);
	return n;
}

void
blkio_close(struct blkio *b)
{
	pthread_mutex_lock(&b->lock);
	b->stopping = true;
	pthread_cond_broadcast(&b->work);
	pthread_mutex_unlock(&b->lock);
	for (int i = 0; i < b->nthreads; i++)
		pthread_join(b->threads[i], NULL);
	struct blkio_req *r;
	while ((r = fifo_get(&b->done)) != NULL)
		free(r);
	pthread_cond_destroy(&b->ended);
	pthread_cond_destroy(&b->work);
	pthread_mutex_destroy(&b->lock);
	free(b);
}

int
blkio_submit(struct blkio *b, enum blkio_op op, void *data, size_t len,
    off_t off, void *cookie, int cpu)
{
	struct blkio_req *r = malloc(sizeof(*r));
	if (r == NULL)
		return -1;
	*r = (struct blkio_req){ .op = op, .data = data, .len = len,
	    .off = off, .cookie = cookie, .cpu = cpu };
	pthread_mutex_lock(&b->lock);
	fifo_put(&b->todo, r);
	pthread_cond_signal(&b->work);
	pthread_mutex_unlock(&b->lock);
	return 0;
}

bool
blkio_reap(struct blkio *b, enum blkio_op *op, void **cookie, int *error)
{
	pthread_mutex_lock(&b->lock);
	struct blkio_req *r = fifo_get(&b->done);
	pthread_mutex_unlock(&b->lock);
	if (r == NULL)
		return false;
	*op = r->op;
	*cookie = r->cookie;
	*error = r->error;
	free(r);
	return true;
}

void
blkio_wait(struct blkio *b)
{
	pthread_mutex_lock(&b->lock);
	while (b->done.head == NULL)
		pthread_cond_wait(&b->ended, &b->lock);
	pthread_mutex_unlock(&b->lock);
}
