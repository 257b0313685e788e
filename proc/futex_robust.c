/*
 * Robust futex lists: set_robust_list, get_robust_list, and the walk at
 * thread exit that marks the locks a dying thread still holds.  The list
 * lives in user memory (glibc's and musl's robust mutexes): a head with
 * a ring of entries, the offset from an entry to its lock word, and the
 * entry a lock or unlock is under way on.  Bit 0 of an entry's pointer
 * says the lock is a PI one.
 */
#include <sys/prctl.h>

#include "kern/futex.h"
#include "sys/futex_var.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "sys/syscall.h"
#include "vm/vm.h"
#include "vm/vm_atomic.h"

/* struct robust_list_head as the guest lays it out */
struct urobust_head {
	uint64_t list;		/* the first entry (the head's own address: none) */
	int64_t futex_offset;	/* from an entry to its lock word */
	uint64_t list_op_pending;
};

/* set_robust_list(head, len): only Linux's 24-byte head; never checked. */
long
sys_set_robust_list(struct lwp *lp, const uint64_t *args)
{
	if (args[1] != sizeof(struct urobust_head))
		return -EINVAL;
	lp->lwp_robust_list = args[0];
	return 0;
}

/*
 * Whether cur may read p's robust list: as Linux's
 * PTRACE_MODE_READ_REALCREDS, the superuser, or a caller whose real ids
 * are all of a dumpable p's.
 */
static bool
robust_may_read(const struct proc *cur, const struct proc *p)
{
	const struct ucred *c = cur->p_ucred, *t = p->p_ucred;
	if (cur == p || cred_is_root(c))
		return true;
	return !(p->p_flags & P_NOTDUMPABLE) &&
	    c->cr_ruid == t->cr_uid && c->cr_ruid == t->cr_ruid &&
	    c->cr_ruid == t->cr_svuid && c->cr_rgid == t->cr_gid &&
	    c->cr_rgid == t->cr_rgid && c->cr_rgid == t->cr_svgid;
}

/* get_robust_list(tid, head_ptr, len_ptr): 0, -ESRCH, -EPERM, -EFAULT. */
long
sys_get_robust_list(struct lwp *lp, const uint64_t *args)
{
	pid_t tid = (pid_t)args[0];
	struct lwp *t = lp;

	if (tid != 0) {
		if ((t = lwpfind(tid)) == NULL)
			return -ESRCH;
		if (!robust_may_read(lp->lwp_proc, t->lwp_proc))
			return -EPERM;
	}
	uint64_t len = sizeof(struct urobust_head), head = t->lwp_robust_list;
	if (copyout(&len, args[2], sizeof(len)) < 0 ||
	    copyout(&head, args[1], sizeof(head)) < 0)
		return -EFAULT;
	return 0;
}

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
