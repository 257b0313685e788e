/*
 * PI futexes: LOCK_PI, TRYLOCK_PI, UNLOCK_PI, and the requeue of a
 * condition variable's waiters onto a PI mutex (WAIT_REQUEUE_PI,
 * CMP_REQUEUE_PI).  The lock word holds the owner's tid, FUTEX_WAITERS
 * while threads wait in the kernel (so the owner's unlock comes here),
 * and FUTEX_OWNER_DIED after an owner died holding it.
 *
 * Linux keeps a pi_state per contended lock, with an rt_mutex that
 * lends the owner its waiters' priority.  Every thread here has the same
 * priority, so nothing is lent; what is left is the protocol: waiters
 * queue in arrival order, each knowing the owner (fw_owner), and the
 * kernel hands the lock straight to the first of them by writing its
 * tid into the word, on UNLOCK_PI or when the owner exits.
 *
 * A guest thread on another CPU may change the word while we work on it
 * under the big lock; every compare-and-exchange loop gives up after
 * FUTEX_RETRIES and restarts the call, so no guest can hold the kernel.
 */
#include "kern/futex.h"
#include "kern/proc.h"
#include "proc/futex_var.h"
#include "vm/vm.h"
#include "vm/vm_atomic.h"

#define FUTEX_RETRIES	64

/*
 * Whether tid names a live thread that can own a PI lock (Linux's
 * attach_to_pi_owner): not one that has exited or is exiting.
 */
static bool
owner_alive(int32_t tid)
{
	struct lwp *lp = lwpfind(tid);
	return lp != NULL && lp->lwp_proc->p_state != PRS_ZOMBIE &&
	    !(lp->lwp_flags & LWP_FUTEXDEAD);
}

/* Every waiter on key now waits for tid's unlock. */
static void
set_owner(const struct futex_key *key, int32_t tid)
{
	for (struct futex_waiter *w = futex_next(key, NULL); w != NULL;
	    w = futex_next(key, w))
		w->fw_owner = tid;
}

/*
 * The atomic part of taking the PI lock at uaddr for tid, as Linux's
 * futex_lock_pi_atomic: 1 if tid now owns it, 0 if it is held by a live
 * owner (*owner) and FUTEX_WAITERS is set, or -EDEADLK (tid owns it),
 * -ESRCH (the owner is gone), -EINVAL (plain waiters on key), -EFAULT,
 * -ERESTARTNOINTR (the word kept changing).  set_waiters: the new owner
 * gets FUTEX_WAITERS too (more waiters are coming).
 */
static int
lock_pi_atomic(struct vmspace *vm, uint64_t uaddr, const struct futex_key *key,
    int32_t tid, bool set_waiters, int32_t *owner)
{
	uint32_t uval, cur;
	int error;

	for (int i = 0; i < FUTEX_RETRIES; i++) {
		if ((error = vm_atomic_load32(vm, uaddr, &uval)) < 0)
			return error;
		int32_t o = (int32_t)(uval & FUTEX_TID_MASK);
		if (o == tid)
			return -EDEADLK;
		struct futex_waiter *top = futex_next(key, NULL);
		if (top != NULL && !(top->fw_flags & FW_PI))
			return -EINVAL;
		if (o == 0) {
			/* Free, or its owner died: ours, OWNER_DIED kept. */
			uint32_t nval = (uval & FUTEX_OWNER_DIED) | (uint32_t)tid;
			if (top != NULL || set_waiters)
				nval |= FUTEX_WAITERS;
			if ((error = vm_atomic_cmpxchg32(vm, uaddr, uval, nval, &cur)) < 0)
				return error;
			if (cur != uval)
				continue;
			set_owner(key, tid);
			return 1;
		}
		if (!(uval & FUTEX_WAITERS)) {
			if ((error = vm_atomic_cmpxchg32(vm, uaddr, uval,
			    uval | FUTEX_WAITERS, &cur)) < 0)
				return error;
			if (cur != uval)
				continue;
		}
		if (!owner_alive(o))
			return -ESRCH;
		*owner = o;
		return 0;
	}
	return -ERESTARTNOINTR;
}

long
futex_lock_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    const struct futex_deadline *dl, bool trylock)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct futex_waiter w;
	struct futex_key key;
	int32_t owner;
	int error;

	if ((error = futex_key_get(vm, uaddr, shared, &key)) < 0)
		return error;
	error = lock_pi_atomic(vm, uaddr, &key, lp->lwp_tid, false, &owner);
	if (error != 0)
		return error > 0 ? 0 : error;
	if (trylock)
		return -EAGAIN;
	futex_waiter_init(&w, lp, &key, FUTEX_BITSET_MATCH_ANY, &w);
	w.fw_flags = FW_PI;
	w.fw_vm = vm;
	w.fw_uaddr = uaddr;
	w.fw_owner = owner;
	error = futex_queue_sleep(&w, dl);
	if (w.fw_state == FW_LOCKED)
		return 0;
	/* As Linux, a signal restarts the call (after its handler). */
	return error == ETIMEDOUT ? -ETIMEDOUT : -ERESTARTNOINTR;
}

/*
 * Gives the lock on key to its first waiter top: the word becomes top's
 * tid with FUTEX_WAITERS (and extra bits), from any value but a changing
 * one.  Returns 0, -EFAULT, or -EAGAIN if the word was not expect.
 */
static int
hand_off(struct vmspace *vm, uint64_t uaddr, uint32_t expect,
    struct futex_waiter *top, uint32_t extra)
{
	int32_t tid = top->fw_lwp->lwp_tid;
	uint32_t cur, nval = FUTEX_WAITERS | extra | (uint32_t)tid;
	int error = vm_atomic_cmpxchg32(vm, uaddr, expect, nval, &cur);
	if (error < 0)
		return error;
	if (cur != expect)
		return -EAGAIN;
	futex_wake_waiter(top, FW_LOCKED);
	set_owner(&top->fw_key, tid);
	return 0;
}

long
futex_unlock_pi(struct lwp *lp, uint64_t uaddr, bool shared)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct futex_key key;
	uint32_t uval, cur;
	int error;

	if ((error = futex_key_get(vm, uaddr, shared, &key)) < 0)
		return error;
	for (int i = 0; i < FUTEX_RETRIES; i++) {
		if ((error = vm_atomic_load32(vm, uaddr, &uval)) < 0)
			return error;
		if ((int32_t)(uval & FUTEX_TID_MASK) != lp->lwp_tid)
			return -EPERM;
		struct futex_waiter *top = futex_next(&key, NULL);
		if (top != NULL) {
			if (!(top->fw_flags & FW_PI))
				return -EINVAL;
			error = hand_off(vm, uaddr, uval, top, 0);
			if (error != -EAGAIN)
				return error;
			continue;
		}
		/* No waiters: free, neither FUTEX_WAITERS nor OWNER_DIED kept. */
		if ((error = vm_atomic_cmpxchg32(vm, uaddr, uval, 0, &cur)) < 0)
			return error;
		return cur == uval ? 0 : -EAGAIN;
	}
	return -ERESTARTNOINTR;
}

long
futex_wait_requeue_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    uint32_t val, const struct futex_deadline *dl, uint64_t uaddr2)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct futex_key key, key2;
	struct futex_waiter w;
	uint32_t cur;
	int error;

	if (uaddr == uaddr2)
		return -EINVAL;
	if ((error = futex_key_get(vm, uaddr, shared, &key)) < 0 ||
	    (error = futex_key_get(vm, uaddr2, shared, &key2)) < 0)
		return error;
	if (futex_key_eq(&key, &key2))
		return -EINVAL;
	if ((error = vm_atomic_load32(vm, uaddr, &cur)) < 0)
		return error;
	if (cur != val)
		return -EAGAIN;
	futex_waiter_init(&w, lp, &key, FUTEX_BITSET_MATCH_ANY, &w);
	w.fw_flags = FW_REQUEUE_PI;
	w.fw_vm = vm;
	w.fw_pikey = key2;
	w.fw_piuaddr = uaddr2;
	error = futex_queue_sleep(&w, dl);
	if (w.fw_state == FW_LOCKED)
		return 0;
	if (error == ETIMEDOUT)
		return -ETIMEDOUT;
	/*
	 * A signal: before the requeue the call restarts; after it, the
	 * condition has been signalled and a restart would only see the
	 * word changed, so Linux says EAGAIN at once.
	 */
	return (w.fw_flags & FW_PI) ? -EAGAIN : -ERESTARTNOINTR;
}

long
futex_cmp_requeue_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    int nr_wake, int nr_requeue, uint64_t uaddr2, uint32_t cmpval)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct futex_key key, key2;
	struct futex_waiter *w, *next;
	int32_t owner = 0;
	uint32_t cur;
	int error, n = 0;

	if (nr_wake < 0 || nr_requeue < 0 || uaddr == uaddr2 || nr_wake != 1)
		return -EINVAL;
	if ((error = futex_key_get(vm, uaddr, shared, &key)) < 0 ||
	    (error = futex_key_get(vm, uaddr2, shared, &key2)) < 0)
		return error;
	if (futex_key_eq(&key, &key2))
		return -EINVAL;
	if ((error = vm_atomic_load32(vm, uaddr, &cur)) < 0)
		return error;
	if (cur != cmpval)
		return -EAGAIN;

	/* The first waiter takes the lock if it is free, as Linux's proxy lock. */
	w = futex_next(&key, NULL);
	if (w != NULL) {
		if (!(w->fw_flags & FW_REQUEUE_PI) || !futex_key_eq(&w->fw_pikey, &key2))
			return -EINVAL;
		error = lock_pi_atomic(vm, uaddr2, &key2, w->fw_lwp->lwp_tid,
		    nr_requeue > 0, &owner);
		if (error < 0)
			return error;
		if (error == 1) {
			futex_wake_waiter(w, FW_LOCKED);
			owner = w->fw_lwp->lwp_tid;
			n++;
		}
	}
	/* The others wait on the lock now. */
	for (w = futex_next(&key, NULL); w != NULL && n - nr_wake < nr_requeue;
	    w = next) {
		next = futex_next(&key, w);
		if (!(w->fw_flags & FW_REQUEUE_PI) || !futex_key_eq(&w->fw_pikey, &key2))
			return -EINVAL;
		w->fw_uaddr = w->fw_piuaddr;
		w->fw_owner = owner;
		futex_make_pi(w);
		futex_requeue_waiter(w, &key2);
		n++;
	}
	return n;
}

void
futex_pi_exit(struct lwp *lp, bool dying)
{
	struct futex_waiter *w;
	uint32_t uval;

	if (dying)
		lp->lwp_flags |= LWP_FUTEXDEAD;
	/*
	 * Each lock lp owned with waiters passes to its first one, marked
	 * FUTEX_OWNER_DIED as Linux marks it.  The word is written whatever
	 * it holds (a robust list may have cleared its tid already); one
	 * that cannot be read or keeps changing is given up on, and the
	 * waiter gets the lock in the kernel's eyes all the same.
	 */
	while ((w = futex_find_pi(lp->lwp_tid)) != NULL) {
		struct futex_waiter *top = futex_next(&w->fw_key, NULL);
		if (!(top->fw_flags & FW_PI))
			top = w;	/* plain waiters mixed in by a confused guest */
		int error = -EAGAIN;
		for (int i = 0; i < FUTEX_RETRIES && error == -EAGAIN; i++) {
			if (vm_atomic_load32(top->fw_vm, top->fw_uaddr, &uval) < 0)
				break;
			error = hand_off(top->fw_vm, top->fw_uaddr, uval, top,
			    FUTEX_OWNER_DIED);
		}
		if (error != 0) {
			futex_wake_waiter(top, FW_LOCKED);
			set_owner(&top->fw_key, top->fw_lwp->lwp_tid);
		}
	}
}
