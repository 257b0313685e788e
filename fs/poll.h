/*
 * Waiting for several objects at once (poll, select, later epoll).
 *
 * A polling thread owns a pollwaiter and sleeps on it, one channel.  Each
 * object it polls (a pipe end, a tty) has a selinfo: a list of the
 * waiters interested in it.  A file's poll operation records the waiter
 * on its selinfos (selrecord); when the object changes, selwakeup marks
 * every recorded waiter woken and wakes its channel.  The records stay
 * until the poll ends (pollwaiter_done), so nothing that happens between
 * the scan and the sleep is missed: the waiter sees pw_woken and scans
 * again instead of sleeping.
 *
 * An object that goes away calls seldrain, which wakes its waiters and
 * detaches their records, so no record points at freed memory.
 *
 * A waiter may instead have a wake function (epoll: fs/eventpoll.c): its
 * records then last as long as it wants, and selwakeup calls the function
 * in place of waking a thread, so an object's change costs its own
 * waiters only.  The function runs from the waking path (a write, a
 * callout): it must not sleep nor remove records.  An exclusive waiter
 * (EPOLLEXCLUSIVE) is called only if no other exclusive waiter of the
 * same object took the wake-up first.
 *
 * Locking: the big kernel lock.
 */
#ifndef FS_POLL_H
#define FS_POLL_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "kern/queue.h"

struct file;
struct fsproc;
struct pollwaiter;

struct pollentry {
	TAILQ_ENTRY(pollentry) pe_silink;	/* on the selinfo */
	struct selinfo *pe_si;		/* NULL once the object is gone */
	struct pollwaiter *pe_pw;
	struct pollentry *pe_next;	/* the waiter's records */
};

struct selinfo {
	TAILQ_HEAD(, pollentry) si_entries;
};

struct pollwaiter {
	struct pollentry *pw_entries;
	bool pw_woken;			/* a recorded object changed */
	bool pw_exclusive;		/* one exclusive waiter woken per change */
	int pw_error;			/* -ENOMEM if a record failed */
	/*
	 * NULL: selwakeup wakes the thread sleeping on the waiter; else
	 * called instead, returning true if it woke someone.
	 */
	bool (*pw_wakefn)(struct pollwaiter *pw);
};

/* An empty selinfo. */
void selinfo_init(struct selinfo *si);

/* Records waiter pw on si (a fo_poll helper); pw may be NULL. */
void selrecord(struct pollwaiter *pw, struct selinfo *si);

/* The object of si changed: wakes the waiters recorded on it. */
void selwakeup(struct selinfo *si);

/* The object of si is going away: wakes and detaches its waiters. */
void seldrain(struct selinfo *si);

/* An empty waiter for the calling thread. */
void pollwaiter_init(struct pollwaiter *pw);

/* Removes every record of pw from its objects. */
void pollwaiter_done(struct pollwaiter *pw);

/*
 * True if fp has a poll of its own that tells readiness (a pipe, a tty,
 * an event file); false for regular files, directories, block devices
 * and the character devices without one, which epoll refuses (EPERM).
 */
bool file_pollable(struct file *fp);

/*
 * Sleeps on pw until an object recorded on it changes, the nanouptime
 * deadline passes (0: no deadline) or a signal arrives.  Returns at once
 * if pw was already woken.  Returns 0, -ETIMEDOUT or -ERESTARTNOHAND.
 */
int pollwaiter_sleep(struct pollwaiter *pw, uint64_t deadline);

/*
 * poll/ppoll on the kernel array fds of nfds entries: fills each revents
 * and returns how many are non-zero, waiting up to timeout_ns for one
 * (negative: no limit; 0: none).  A negative fd is skipped; a closed one
 * reports POLLNVAL.  Returns -EINVAL if nfds is above the descriptor
 * limit, -ERESTARTNOHAND if a signal arrived first, -ENOMEM.
 */
int kern_poll(struct fsproc *p, struct pollfd *fds, unsigned nfds,
    int64_t timeout_ns);

#endif /* FS_POLL_H */
