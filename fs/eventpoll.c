/*
 * epoll: sets of registrations with a ready list (see eventpoll.h).
 *
 * Each registration (epitem) owns a pollwaiter whose wake function is
 * ep_wake: the file's poll records it once on the file's wait lists, and
 * every selwakeup of those lists then queues the item on its set's ready
 * list (if it is not there) and wakes the set's waiters and pollers.  A
 * wake-up says only that something changed: epoll_wait polls each ready
 * item again (without recording) and reports what is really ready.  A
 * level-triggered item that reported goes back on the list, to be
 * polled again at the next wait, as in Linux; an edge-triggered one
 * waits for the next wake-up; a one-shot one is disabled until
 * EPOLL_CTL_MOD.
 *
 * Sets nest: a set is itself pollable (readable when an item of it is
 * ready), and its own wait list carries the outer sets' waiters.  Adding
 * a set to another is refused (ELOOP) if it would make a cycle or a
 * chain deeper than Linux's EP_MAX_NESTS.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <sys/epoll.h>

#include "fs/anon_file.h"
#include "fs/eventpoll.h"
#include "fs/poll.h"
#include "kern/kernel.h"
#include "kern/queue.h"
#include "kern/signal.h"
#include "kern/thread.h"
#include "kern/kmem.h"

#define EP_MAX_NESTS	4	/* sets within sets, at most (Linux's) */
/* Bits of an item's events that are not events. */
#define EP_PRIVATE_BITS	(EPOLLWAKEUP | EPOLLONESHOT | EPOLLET | EPOLLEXCLUSIVE)
/* The only events an EPOLLEXCLUSIVE item may ask for. */
#define EP_EXCLUSIVE_OK	(EPOLLIN | EPOLLOUT | EPOLLERR | EPOLLHUP | \
			 EPOLLWAKEUP | EPOLLET | EPOLLEXCLUSIVE)
/* What the first poll of an item asks, to be recorded for every change. */
#define EP_RECORD_ALL	(EPOLLIN | EPOLLPRI | EPOLLOUT | EPOLLRDNORM | \
			 EPOLLRDBAND | EPOLLWRNORM | EPOLLWRBAND | EPOLLRDHUP)
#define EP_HASH_MIN	16
/*
 * Registrations in the whole kernel, at most: Linux bounds them per user
 * (max_user_watches, ENOSPC) so that sets cannot take all memory.
 */
#define EP_MAX_ITEMS	(1 << 18)

static unsigned ep_nitems;

struct epitem {
	struct pollwaiter epi_pw;	/* first: ep_wake finds the item */
	struct eventpoll *epi_ep;
	struct file *epi_file;		/* not referenced: it removes us */
	int epi_fd;
	uint32_t epi_events;		/* EPOLLERR | EPOLLHUP always in */
	uint64_t epi_data;
	bool epi_ready;			/* on ep_ready (or being reported) */
	TAILQ_ENTRY(epitem) epi_rdlink;
	struct epitem *epi_hnext;	/* in the set's hash chain */
	struct epitem *epi_fnext;	/* the file's registrations */
	struct epitem **epi_fprev;
};

TAILQ_HEAD(epitemq, epitem);

struct eventpoll {
	struct selinfo ep_sel;		/* pollers of the set, outer sets */
	struct epitemq ep_ready;
	struct epitem **ep_hash;	/* by (file, fd) */
	unsigned ep_hashsize;		/* a power of 2 */
	unsigned ep_count;
	int ep_waiters;			/* threads in epoll_wait; the channel */
	struct file *ep_file;		/* the set's own file */
};

static const struct anon_fileops eventpoll_ops;

static unsigned
ep_hashfn(const struct eventpoll *ep, const struct file *fp, int fd)
{
	uint64_t h = ((uintptr_t)fp >> 4) * 0x9e3779b97f4a7c15ULL + (unsigned)fd;
	return (unsigned)(h ^ (h >> 29)) & (ep->ep_hashsize - 1);
}

static struct epitem *
ep_find(struct eventpoll *ep, struct file *fp, int fd)
{
	struct epitem *epi = ep->ep_hash[ep_hashfn(ep, fp, fd)];
	while (epi != NULL && (epi->epi_file != fp || epi->epi_fd != fd))
		epi = epi->epi_hnext;
	return epi;
}

/* Doubles the hash table when it holds twice its size; 0 or -ENOMEM. */
static int
ep_hash_grow(struct eventpoll *ep)
{
	if (ep->ep_count < 2 * ep->ep_hashsize)
		return 0;
	unsigned oldsize = ep->ep_hashsize;
	struct epitem **old = ep->ep_hash;
	struct epitem **new = kmalloc(2 * oldsize * sizeof(*new), KM_ZERO);
	if (new == NULL)
		return -ENOMEM;
	ep->ep_hash = new;
	ep->ep_hashsize = 2 * oldsize;
	for (unsigned i = 0; i < oldsize; i++) {
		struct epitem *epi, *next;
		for (epi = old[i]; epi != NULL; epi = next) {
			next = epi->epi_hnext;
			unsigned h = ep_hashfn(ep, epi->epi_file, epi->epi_fd);
			epi->epi_hnext = new[h];
			new[h] = epi;
		}
	}
	kfree(old);
	return 0;
}

/* The events the item asks for now (none once a one-shot fired). */
static uint32_t
ep_wanted(const struct epitem *epi)
{
	return epi->epi_events & ~EP_PRIVATE_BITS;
}

/* The events of the item's file that are ready now. */
static uint32_t
ep_item_poll(struct epitem *epi)
{
	uint32_t want = ep_wanted(epi);
	if (want == 0)
		return 0;
	struct file *fp = epi->epi_file;
	return (uint32_t)fp->f_ops->fo_poll(fp, (int)want, NULL) & want;
}

static void
ep_queue(struct epitem *epi)
{
	if (!epi->epi_ready) {
		epi->epi_ready = true;
		TAILQ_INSERT_TAIL(&epi->epi_ep->ep_ready, epi, epi_rdlink);
	}
}

/* The pollwaiter's wake function: the item's file changed. */
static bool
ep_wake(struct pollwaiter *pw)
{
	struct epitem *epi = (struct epitem *)pw;
	struct eventpoll *ep = epi->epi_ep;

	if (ep_wanted(epi) == 0)
		return false;		/* a disabled one-shot */
	ep_queue(epi);
	bool woke = ep->ep_waiters > 0;
	if (woke)
		wakeup(&ep->ep_waiters);
	selwakeup(&ep->ep_sel);
	return woke;
}

/* Takes epi out of its set and off its file, and frees it. */
static void
ep_remove(struct epitem *epi)
{
	struct eventpoll *ep = epi->epi_ep;

	pollwaiter_done(&epi->epi_pw);
	*epi->epi_fprev = epi->epi_fnext;
	if (epi->epi_fnext != NULL)
		epi->epi_fnext->epi_fprev = epi->epi_fprev;
	struct epitem **pp = &ep->ep_hash[ep_hashfn(ep, epi->epi_file, epi->epi_fd)];
	while (*pp != epi)
		pp = &(*pp)->epi_hnext;
	*pp = epi->epi_hnext;
	if (epi->epi_ready)
		TAILQ_REMOVE(&ep->ep_ready, epi, epi_rdlink);
	ep->ep_count--;
	ep_nitems--;
	kfree(epi);
}

/* The set in fp if fp is an epoll file, else NULL. */
static struct eventpoll *
ep_of(struct file *fp)
{
	return anonfile_data(fp, &eventpoll_ops);
}

/*
 * How deep the sets nest below ep (0: no set in it), or -1 if target is
 * among them.
 */
static int
ep_depth_below(struct eventpoll *ep, struct eventpoll *target, int level)
{
	int depth = 0;

	if (ep == target)
		return -1;
	if (level > EP_MAX_NESTS)
		return level;		/* deep enough to refuse */
	for (unsigned i = 0; i < ep->ep_hashsize; i++)
		for (struct epitem *epi = ep->ep_hash[i]; epi; epi = epi->epi_hnext) {
			struct eventpoll *in = ep_of(epi->epi_file);
			if (in == NULL)
				continue;
			int d = ep_depth_below(in, target, level + 1);
			if (d < 0)
				return -1;
			depth = MAX(depth, d + 1);
		}
	return depth;
}

/* How deep ep is nested in other sets (0: in none). */
static int
ep_depth_above(struct eventpoll *ep, int level)
{
	int depth = 0;

	if (level > EP_MAX_NESTS)
		return level;
	for (struct epitem *epi = ep->ep_file->f_epitems; epi; epi = epi->epi_fnext)
		depth = MAX(depth, ep_depth_above(epi->epi_ep, level + 1) + 1);
	return depth;
}

/*
 * Adding set inner to ep: -ELOOP if ep is in inner (a cycle) or the
 * chain of sets would be longer than EP_MAX_NESTS + 1.
 */
static int
ep_loop_check(struct eventpoll *ep, struct eventpoll *inner)
{
	int below = ep_depth_below(inner, ep, 0);
	if (below < 0 || below + 1 + ep_depth_above(ep, 0) > EP_MAX_NESTS)
		return -ELOOP;
	return 0;
}

static int
ep_insert(struct eventpoll *ep, struct file *fp, int fd, uint32_t events,
    uint64_t data)
{
	int error;
	struct eventpoll *inner = ep_of(fp);

	if (inner != NULL && (error = ep_loop_check(ep, inner)) < 0)
		return error;
	if (ep_nitems >= EP_MAX_ITEMS)
		return -ENOSPC;
	ep->ep_count++;
	if ((error = ep_hash_grow(ep)) < 0) {
		ep->ep_count--;
		return error;
	}
	struct epitem *epi = kmalloc(sizeof(*epi), KM_ZERO);
	if (epi == NULL) {
		ep->ep_count--;
		return -ENOMEM;
	}
	ep_nitems++;
	pollwaiter_init(&epi->epi_pw);
	epi->epi_pw.pw_wakefn = ep_wake;
	epi->epi_pw.pw_exclusive = (events & EPOLLEXCLUSIVE) != 0;
	epi->epi_ep = ep;
	epi->epi_file = fp;
	epi->epi_fd = fd;
	epi->epi_events = events;
	epi->epi_data = data;
	unsigned h = ep_hashfn(ep, fp, fd);
	epi->epi_hnext = ep->ep_hash[h];
	ep->ep_hash[h] = epi;
	epi->epi_fnext = fp->f_epitems;
	if (fp->f_epitems != NULL)
		fp->f_epitems->epi_fprev = &epi->epi_fnext;
	epi->epi_fprev = &fp->f_epitems;
	fp->f_epitems = epi;

	/* Record on every wait list of the file, whatever it asks for. */
	(void)fp->f_ops->fo_poll(fp, EP_RECORD_ALL, &epi->epi_pw);
	if ((error = epi->epi_pw.pw_error) < 0) {
		ep_remove(epi);
		return error;
	}
	if (ep_item_poll(epi) != 0)
		ep_wake(&epi->epi_pw);
	return 0;
}

static void
ep_modify(struct epitem *epi, uint32_t events, uint64_t data)
{
	epi->epi_events = events;
	epi->epi_data = data;
	if (ep_item_poll(epi) != 0)
		ep_wake(&epi->epi_pw);
}

int
kern_epoll_create(struct fsproc *p, int flags)
{
	if (flags & ~EPOLL_CLOEXEC)
		return -EINVAL;
	struct eventpoll *ep = kmalloc(sizeof(*ep), KM_ZERO);
	if (ep == NULL)
		return -ENOMEM;
	ep->ep_hash = kmalloc(EP_HASH_MIN * sizeof(*ep->ep_hash), KM_ZERO);
	struct file *fp = anonfile_alloc(&eventpoll_ops, ep, O_RDWR);
	if (ep->ep_hash == NULL || fp == NULL) {
		kfree(ep->ep_hash);
		kfree(ep);
		return -ENOMEM;
	}
	ep->ep_hashsize = EP_HASH_MIN;
	selinfo_init(&ep->ep_sel);
	TAILQ_INIT(&ep->ep_ready);
	ep->ep_file = fp;
	return anonfile_install(p, fp, (flags & EPOLL_CLOEXEC) ? O_CLOEXEC : 0);
}

int
kern_epoll_ctl(struct fsproc *p, int epfd, int op, int fd,
    const struct linux_epoll_event *ev)
{
	struct file *epf = fget(p, epfd), *fp = NULL;
	struct eventpoll *ep;
	int error;

	if (epf == NULL)
		return -EBADF;
	if ((fp = fget(p, fd)) == NULL) {
		error = -EBADF;
		goto out;
	}
	/* The order of Linux's checks, for the errors it gives. */
	if (!file_pollable(fp)) {
		error = -EPERM;
		goto out;
	}
	if (epf == fp || (ep = ep_of(epf)) == NULL) {
		error = -EINVAL;
		goto out;
	}
	uint32_t events = 0;
	if (op != EPOLL_CTL_DEL) {
		/* Suspend blockers are not kept: EPOLLWAKEUP means nothing. */
		events = (ev->events & ~EPOLLWAKEUP) | EPOLLERR | EPOLLHUP;
		if ((events & EPOLLEXCLUSIVE) && (op == EPOLL_CTL_MOD ||
		    (op == EPOLL_CTL_ADD && (ep_of(fp) != NULL ||
		    (ev->events & ~EP_EXCLUSIVE_OK))))) {
			error = -EINVAL;
			goto out;
		}
	}
	struct epitem *epi = ep_find(ep, fp, fd);
	switch (op) {
	case EPOLL_CTL_ADD:
		error = epi != NULL ? -EEXIST :
		    ep_insert(ep, fp, fd, events, ev->data);
		break;
	case EPOLL_CTL_DEL:
		error = epi != NULL ? 0 : -ENOENT;
		if (epi != NULL)
			ep_remove(epi);
		break;
	case EPOLL_CTL_MOD:
		error = epi == NULL ? -ENOENT :
		    (epi->epi_events & EPOLLEXCLUSIVE) ? -EINVAL : 0;
		if (error == 0)
			ep_modify(epi, events, ev->data);
		break;
	default:
		error = -EINVAL;
	}
out:
	if (fp != NULL)
		fdrop(fp);
	fdrop(epf);
	return error;
}

/*
 * Takes the ready items of ep into evs, at most max: those whose file is
 * still ready.  Level-triggered items go back on the ready list's tail.
 */
static int
ep_collect(struct eventpoll *ep, struct linux_epoll_event *evs, int max)
{
	struct epitemq again = TAILQ_HEAD_INITIALIZER(again);
	struct epitem *epi;
	int n = 0;

	while (n < max && (epi = TAILQ_FIRST(&ep->ep_ready)) != NULL) {
		TAILQ_REMOVE(&ep->ep_ready, epi, epi_rdlink);
		uint32_t revents = ep_item_poll(epi);
		if (revents == 0) {
			epi->epi_ready = false;
			continue;
		}
		evs[n].events = revents;
		evs[n].data = epi->epi_data;
		n++;
		if (epi->epi_events & EPOLLONESHOT)
			epi->epi_events &= EP_PRIVATE_BITS;
		if (epi->epi_events & (EPOLLONESHOT | EPOLLET))
			epi->epi_ready = false;
		else
			TAILQ_INSERT_TAIL(&again, epi, epi_rdlink);
	}
	while ((epi = TAILQ_FIRST(&again)) != NULL) {
		TAILQ_REMOVE(&again, epi, epi_rdlink);
		TAILQ_INSERT_TAIL(&ep->ep_ready, epi, epi_rdlink);
	}
	return n;
}

int
kern_epoll_wait(struct fsproc *p, int epfd, struct linux_epoll_event *evs,
    int max, int64_t timeout_ns)
{
	if (max <= 0 || max > EP_MAX_EVENTS)
		return -EINVAL;
	struct file *fp = fget(p, epfd);
	if (fp == NULL)
		return -EBADF;
	struct eventpoll *ep = ep_of(fp);
	if (ep == NULL) {
		fdrop(fp);
		return -EINVAL;
	}
	/* A timeout of centuries is no timeout (and cannot overflow). */
	uint64_t deadline = 0;
	if (timeout_ns > 0 && timeout_ns < INT64_MAX / 2)
		deadline = nanouptime() + (uint64_t)timeout_ns;
	int n;
	for (;;) {
		n = ep_collect(ep, evs, max);
		if (n > 0 || timeout_ns == 0)
			break;
		uint64_t timo = 0;
		if (deadline != 0) {
			uint64_t now = nanouptime();
			if (now >= deadline)
				break;
			timo = deadline - now;
		}
		/* A signal the wait's mask lets through ends it at once. */
		int error = EINTR;
		if (!thread_signal_pending()) {
			ep->ep_waiters++;
			error = tsleep(&ep->ep_waiters, PCATCH, "epoll", timo);
			ep->ep_waiters--;
		}
		if (error == EINTR) {
			/* As Linux: never restarted, whatever SA_RESTART says. */
			n = -EINTR;
			break;
		}
	}
	fdrop(fp);
	return n;
}

void
eventpoll_release(struct file *fp)
{
	while (fp->f_epitems != NULL)
		ep_remove(fp->f_epitems);
}

/* The set's own poll: readable while one of its ready items is. */
static int
ep_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct eventpoll *ep = fp->f_data;
	struct epitem *epi, *next;

	selrecord(pw, &ep->ep_sel);
	TAILQ_FOREACH_SAFE(epi, &ep->ep_ready, epi_rdlink, next) {
		if (ep_item_poll(epi) != 0)
			return events & (POLLIN | POLLRDNORM);
		/* Not ready after all: off the list until the next change. */
		TAILQ_REMOVE(&ep->ep_ready, epi, epi_rdlink);
		epi->epi_ready = false;
	}
	return 0;
}

static void
ep_close(struct file *fp)
{
	struct eventpoll *ep = fp->f_data;

	for (unsigned i = 0; i < ep->ep_hashsize; i++)
		while (ep->ep_hash[i] != NULL)
			ep_remove(ep->ep_hash[i]);
	seldrain(&ep->ep_sel);
	kfree(ep->ep_hash);
	kfree(ep);
}

static int
ep_noread(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return -EINVAL;
}

static const struct anon_fileops eventpoll_ops = {
	.af_ops = {
		.fo_read = ep_noread,
		.fo_write = ep_noread,
		.fo_poll = ep_poll,
		.fo_stat = anonfile_stat,
		.fo_lseek = anonfile_lseek,
		.fo_close = ep_close,
	},
	.af_name = "[eventpoll]",
};
