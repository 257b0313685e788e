/*
 * Helper threads for block I/O on host files (see blkio.h).
 *
 * One lock per file guards two FIFOs: transfers waiting for a helper,
 * and ended ones waiting for the kernel.  Requests come from libc: this
 * is the host's side of the wall, and the kernel's RAM holds only the
 * data.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "blkio.h"
#include "cpu.h"

#define BLKIO_MAXTHREADS	8

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

static void *
blkio_helper(void *arg)
{
	struct blkio *b = arg;

	pthread_mutex_lock(&b->lock);
	for (;;) {
		struct blkio_req *r = fifo_get(&b->todo);
		if (r == NULL) {
			if (b->stopping)
				break;
			pthread_cond_wait(&b->work, &b->lock);
			continue;
		}
		pthread_mutex_unlock(&b->lock);
		r->error = blkio_transfer(b, r);
		pthread_mutex_lock(&b->lock);
		int cpu = r->cpu;
		fifo_put(&b->done, r);
		pthread_cond_broadcast(&b->ended);
		pthread_mutex_unlock(&b->lock);
		cpu_post_id(cpu, INTR_DISK);
		pthread_mutex_lock(&b->lock);
	}
	pthread_mutex_unlock(&b->lock);
	return NULL;
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
