/*
 * Robust futex lists: the walk at thread exit (and exec) that marks the
 * locks a dying thread still holds (set_robust_list and get_robust_list:
 * sys/sys_futex_robust.c).  The list
 * lives in user memory (glibc's and musl's robust mutexes): a head with
 * a ring of entries, the offset from an entry to its lock word, and the
 * entry a lock or unlock is under way on.  Bit 0 of an entry's pointer
 * says the lock is a PI one.
 */
#include <stddef.h>

#include "kern/futex.h"
#include "kern/proc.h"
#include "proc/futex_var.h"
#include "vm/vm.h"
#include "vm/vm_atomic.h"

/*
 * The death of lp as the owner of the lock word at uaddr, as Linux's
 * handle_futex_death: if lp owns it, FUTEX_OWNER_DIED replaces its tid
 * (the waiters bit stays) and, for a plain lock with waiters, one is
 * woken (a PI lock passes to its waiter in futex_pi_exit).  pending: the
 * entry was list_op_pending, whose lock may be free already with a
 * waiter to wake.  Returns -1 to stop the walk (an unreadable word).
 */
static int
futex_death(struct lwp *lp, struct vmspace *vm, uint64_t uaddr, bool pi,
    bool pending)
{
	uint32_t uval, cur;

	if ((uaddr & 3) != 0)
		return -1;
	for (;;) {
		if (vm_atomic_load32(vm, uaddr, &uval) < 0)
			return -1;
		if (pending && !pi && uval == 0) {
			(void)futex_wake(vm, uaddr, 1, FUTEX_BITSET_MATCH_ANY);
			return 0;
		}
		if ((uval & FUTEX_TID_MASK) != (uint32_t)lp->lwp_tid)
			return 0;
		uint32_t mval = (uval & FUTEX_WAITERS) | FUTEX_OWNER_DIED;
		if (vm_atomic_cmpxchg32(vm, uaddr, uval, mval, &cur) < 0)
			return -1;
		if (cur == uval)
			break;
	}
	if (!pi && (uval & FUTEX_WAITERS))
		(void)futex_wake(vm, uaddr, 1, FUTEX_BITSET_MATCH_ANY);
	return 0;
}

/* Reads a list pointer: the entry in *entry, its PI bit in *pi. */
static int
fetch_entry(struct vmspace *vm, uint64_t uaddr, uint64_t *entry, bool *pi)
{
	uint64_t v;
	if (vm_copyin(vm, uaddr, &v, sizeof(v)) < 0)
		return -1;
	*entry = v & ~(uint64_t)1;
	*pi = (v & 1) != 0;
	return 0;
}

/* The robust list's walk, then the PI locks' hand-off. */
static void
robust_release(struct lwp *lp, bool dying)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	uint64_t head = lp->lwp_robust_list, entry, next, pending;
	struct urobust_head h;
	bool pi, next_pi, pending_pi;

	lp->lwp_robust_list = 0;
	if (vm != NULL && head != 0 &&
	    vm_copyin(vm, head, &h, sizeof(h)) == 0 &&
	    fetch_entry(vm, head, &entry, &pi) == 0 &&
	    fetch_entry(vm, head + offsetof(struct urobust_head, list_op_pending),
	    &pending, &pending_pi) == 0) {
		/* entry 0 is never the head: an empty list ends at once too */
		for (int limit = ROBUST_LIST_LIMIT; entry != head && limit > 0; limit--) {
			int rc = fetch_entry(vm, entry, &next, &next_pi);
			if (entry != pending &&
			    futex_death(lp, vm, entry + (uint64_t)h.futex_offset, pi,
			    false) < 0)
				break;
			if (rc < 0)
				break;
			entry = next;
			pi = next_pi;
		}
		if (pending != 0)
			(void)futex_death(lp, vm, pending + (uint64_t)h.futex_offset,
			    pending_pi, true);
	}
	futex_pi_exit(lp, dying);
}

void
futex_exit_robust(struct lwp *lp)
{
	robust_release(lp, true);
}

void
futex_exec(struct lwp *lp)
{
	robust_release(lp, false);
}
