/*
 * Futexes inside the kernel (proc/futex_*.c, sys/sys_futex*.c): keys,
 * waiters and the hash of wait queues.  See kern/futex.h for what
 * futexes are.  The queues, PI locks and robust lists live in the
 * process layer, which settles them at exit and exec; the system calls
 * (sys/sys_futex*.c) decode their arguments over them.
 *
 * A waiter is a struct futex_waiter on its thread's kernel stack, queued
 * on the bucket of its key.  A waker takes it off the queue, sets its
 * state and wakes its thread; the thread's own sleep channel (fw_chan)
 * is private to it, so a thread never mistakes another's wakeup for its
 * own, and a requeue only moves the waiter to another bucket.  Every
 * sleep may still end without a wake (a timeout, a signal, a spurious
 * wakeup): the waiter then finds itself still queued and decides.
 *
 * Locking: the big kernel lock covers the queues and every waiter; no
 * function here sleeps between reading a futex word and queueing on it,
 * so a waker (who must hold the lock too) cannot slip in between.
 */
#ifndef PROC_FUTEX_VAR_H
#define PROC_FUTEX_VAR_H

#include <linux/futex.h>
#include <stdbool.h>
#include <stdint.h>

#include "kern/queue.h"

struct lwp;
struct vmspace;

enum futex_key_type {
	FK_PRIVATE,	/* FUTEX_PRIVATE_FLAG: (vmspace, address) */
	FK_MM,		/* shared, in private memory: (vmspace, address) */
	FK_OBJECT,	/* shared memory: (vm_object, byte offset) */
};

/*
 * What a futex is.  Linux keeps its private and shared keys apart even
 * for the same word (a FUTEX_WAKE does not wake a FUTEX_WAIT_PRIVATE), so
 * do we: the type is part of the key.
 */
struct futex_key {
	const void *fk_space;	/* the vmspace, or the vm_object */
	uint64_t fk_off;	/* the address, or the offset in the object */
	int fk_type;		/* enum futex_key_type */
};

/* fw_state: where a waiter is. */
enum futex_state {
	FW_QUEUED,		/* on its key's queue */
	FW_WOKEN,		/* woken by a wake or a requeue */
	FW_LOCKED,		/* woken owning the PI lock it waits for */
	FW_GONE,		/* left by itself (timeout, signal) */
};

/* fw_flags */
#define FW_PI		0x01	/* waits for a PI lock (LOCK_PI, requeued) */
#define FW_REQUEUE_PI	0x02	/* WAIT_REQUEUE_PI: to be moved to fw_pikey */

struct futex_waiter {
	TAILQ_ENTRY(futex_waiter) fw_link;	/* on its bucket */
	struct futex_key fw_key;	/* an FK_OBJECT key holds a reference */
	uint32_t fw_bitset;
	int fw_flags;
	int fw_state;			/* enum futex_state */
	struct lwp *fw_lwp;
	const void *fw_chan;		/* what its thread sleeps on */
	/* a PI waiter: its own address of the lock word, and the owner */
	struct vmspace *fw_vm;
	uint64_t fw_uaddr;
	int32_t fw_owner;		/* the tid the kernel hands off from */
	/* WAIT_REQUEUE_PI: the PI futex it is to be requeued to */
	struct futex_key fw_pikey;
	uint64_t fw_piuaddr;
};

/* struct robust_list_head as the guest lays it out */
struct urobust_head {
	uint64_t list;		/* the first entry (the head's own address: none) */
	int64_t futex_offset;	/* from an entry to its lock word */
	uint64_t list_op_pending;
};

/* When a wait ends: an absolute time on a clock. */
struct futex_deadline {
	int fd_clock;		/* CLOCK_MONOTONIC or CLOCK_REALTIME */
	int64_t fd_ns;
};

/*
 * A timespec argument at utime in ns (a far future saturates): 0,
 * -EFAULT, or -EINVAL out of range.
 */
int futex_timespec_in(uint64_t utime, int64_t *ns);

/*
 * The key of the word at uaddr: private (shared false) needs no access
 * to memory; shared faults the page in to find the mapping.  0, -EINVAL
 * (misaligned) or -EFAULT.
 */
int futex_key_get(struct vmspace *vm, uint64_t uaddr, bool shared,
    struct futex_key *key);

static inline bool
futex_key_eq(const struct futex_key *a, const struct futex_key *b)
{
	return a->fk_space == b->fk_space && a->fk_off == b->fk_off &&
	    a->fk_type == b->fk_type;
}

/* A waiter of lp on key, not yet queued, sleeping on chan. */
void futex_waiter_init(struct futex_waiter *w, struct lwp *lp,
    const struct futex_key *key, uint32_t bitset, const void *chan);

/* Queues w on its key (taking a reference to an object key). */
void futex_queue(struct futex_waiter *w);

/* Takes w off its queue with state (FW_WOKEN...) and wakes its thread. */
void futex_wake_waiter(struct futex_waiter *w, int state);

/*
 * The waiter's own exit: off its queue if still there (state FW_GONE),
 * and its key's reference dropped.  May sleep (the last reference to a
 * file's object).
 */
void futex_unqueue(struct futex_waiter *w);

/* Moves a queued w to key (its reference moves with it). */
void futex_requeue_waiter(struct futex_waiter *w, const struct futex_key *key);

/*
 * The first queued waiter on key after prev (NULL: the first), or NULL.
 * Waiters are in arrival order.
 */
struct futex_waiter *futex_next(const struct futex_key *key,
    struct futex_waiter *prev);

/*
 * One sleep of the calling thread on chan, until dl (NULL: none) or a
 * signal: 0 (woken, or maybe spuriously), ETIMEDOUT or EINTR.
 */
int futex_sleep(const void *chan, const struct futex_deadline *dl);

/*
 * Queues w (its own channel) and sleeps until a waker changes its state,
 * dl passes or a signal comes; unqueued again on return.  0 (w->fw_state
 * says what happened), ETIMEDOUT or EINTR.
 */
int futex_queue_sleep(struct futex_waiter *w, const struct futex_deadline *dl);

/*
 * Wakes up to nwake waiters (at least one) on key whose bitset meets
 * bitset.  The count so far, or -EINVAL if a PI waiter is found (as
 * Linux: a plain wake never ends a PI wait).
 */
int futex_wake_key(const struct futex_key *key, int nwake, uint32_t bitset);

/* The number of PI waiters queued, for futex_pi_exit's fast path. */
extern int futex_npi;

/* The first queued PI waiter whose lock owner is tid, or NULL. */
struct futex_waiter *futex_find_pi(int32_t tid);

/* Makes a queued waiter a PI waiter (requeue to a PI futex). */
void futex_make_pi(struct futex_waiter *w);

/* The PI operations (futex_pi.c); each returns 0 or a negative errno. */
long futex_lock_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    const struct futex_deadline *dl, bool trylock);
long futex_unlock_pi(struct lwp *lp, uint64_t uaddr, bool shared);
long futex_wait_requeue_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    uint32_t val, const struct futex_deadline *dl, uint64_t uaddr2);
long futex_cmp_requeue_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    int nr_wake, int nr_requeue, uint64_t uaddr2, uint32_t cmpval);

/*
 * The PI locks lp owns pass to their first waiter, as Linux's
 * exit_pi_state_list; if dying, lp can own none from now on (a LOCK_PI
 * on a word naming it gives ESRCH).
 */
void futex_pi_exit(struct lwp *lp, bool dying);

#endif /* PROC_FUTEX_VAR_H */
