/*
 * Wait lists for polling (see poll.h) and poll itself.
 */
#include "fs/cdev.h"
#include "fs/file.h"
#include "fs/poll.h"
#include "kern/signal.h"
#include "kern/thread.h"
#include "kern/kmem.h"

void
selinfo_init(struct selinfo *si)
{
	TAILQ_INIT(&si->si_entries);
}

void
selrecord(struct pollwaiter *pw, struct selinfo *si)
{
	if (pw == NULL)
		return;
	struct pollentry *pe = kmalloc(sizeof(*pe), 0);
	if (pe == NULL) {
		pw->pw_error = -ENOMEM;
		return;
	}
	pe->pe_si = si;
	pe->pe_pw = pw;
	pe->pe_next = pw->pw_entries;
	pw->pw_entries = pe;
	TAILQ_INSERT_TAIL(&si->si_entries, pe, pe_silink);
}

void
selwakeup(struct selinfo *si)
{
	struct pollentry *pe;
	bool exclusive_woken = false;

	TAILQ_FOREACH(pe, &si->si_entries, pe_silink) {
		struct pollwaiter *pw = pe->pe_pw;
		if (pw->pw_wakefn != NULL) {
			if (pw->pw_exclusive && exclusive_woken)
				continue;
			if (pw->pw_wakefn(pw) && pw->pw_exclusive)
				exclusive_woken = true;
		} else if (!pw->pw_woken) {
			pw->pw_woken = true;
			wakeup(pw);
		}
	}
}

void
seldrain(struct selinfo *si)
{
	struct pollentry *pe;

	selwakeup(si);
	while ((pe = TAILQ_FIRST(&si->si_entries)) != NULL) {
		TAILQ_REMOVE(&si->si_entries, pe, pe_silink);
		pe->pe_si = NULL;
	}
}

void
pollwaiter_init(struct pollwaiter *pw)
{
	pw->pw_entries = NULL;
	pw->pw_woken = false;
	pw->pw_exclusive = false;
	pw->pw_error = 0;
	pw->pw_wakefn = NULL;
}

void
pollwaiter_done(struct pollwaiter *pw)
{
	struct pollentry *pe;

	while ((pe = pw->pw_entries) != NULL) {
		pw->pw_entries = pe->pe_next;
		if (pe->pe_si != NULL)
			TAILQ_REMOVE(&pe->pe_si->si_entries, pe, pe_silink);
		kfree(pe);
	}
}

int
pollwaiter_sleep(struct pollwaiter *pw, uint64_t deadline)
{
	while (!pw->pw_woken) {
		/*
		 * A signal already pending that the wait's mask (ppoll,
		 * pselect6) lets through ends it: nothing would wake it.
		 */
		if (thread_signal_pending())
			return -ERESTARTNOHAND;
		uint64_t timo = 0;
		if (deadline != 0) {
			uint64_t now = nanouptime();
			if (now >= deadline)
				return -ETIMEDOUT;
			timo = deadline - now;
		}
		int error = tsleep(pw, PCATCH, "poll", timo);
		if (error == EINTR)
			return -ERESTARTNOHAND;
		if (error == EWOULDBLOCK)
			return -ETIMEDOUT;
	}
	return 0;
}

bool
file_pollable(struct file *fp)
{
	switch (fp->f_type) {
	case DTYPE_VNODE:
		return false;
	case DTYPE_DEV:
		return cdev_pollable(fp);
	default:
		return true;
	}
}

/* One pass over fds; records pw on each file if it is not NULL. */
static int
poll_scan(struct fsproc *p, struct pollfd *fds, unsigned nfds,
    struct pollwaiter *pw)
{
	int n = 0;

	for (unsigned i = 0; i < nfds; i++) {
		fds[i].revents = 0;
		if (fds[i].fd < 0)
			continue;
		struct file *fp = fget(p, fds[i].fd);
		if (fp == NULL) {
			fds[i].revents = POLLNVAL;
		} else {
			int ev = fds[i].events | POLLERR | POLLHUP;
			int r = fp->f_ops->fo_poll(fp, ev, pw);
			fds[i].revents = (short)(r & ev);
			fdrop(fp);
		}
		if (fds[i].revents != 0)
			n++;
	}
	return n;
}

int
kern_poll(struct fsproc *p, struct pollfd *fds, unsigned nfds,
    int64_t timeout_ns)
{
	if (nfds > p->fp_fd->fd_limit)
		return -EINVAL;
	/* A timeout of centuries is no timeout (and cannot overflow). */
	uint64_t deadline = 0;
	if (timeout_ns > 0 && timeout_ns < INT64_MAX / 2)
		deadline = nanouptime() + (uint64_t)timeout_ns;

	struct pollwaiter pw;
	pollwaiter_init(&pw);
	int n, error = 0;
	/* Record on the first pass only: the records last until the end. */
	bool record = timeout_ns != 0;
	for (;;) {
		pw.pw_woken = false;
		n = poll_scan(p, fds, nfds, record ? &pw : NULL);
		record = false;
		if (n > 0 || timeout_ns == 0)
			break;
		if ((error = pw.pw_error) < 0)
			break;
		error = pollwaiter_sleep(&pw, deadline);
		if (error == -ETIMEDOUT) {
			error = 0;
			break;
		}
		if (error < 0)
			break;
	}
	pollwaiter_done(&pw);
	return error < 0 ? error : n;
}
