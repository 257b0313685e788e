/*
 * Futexes: the kernel's half of user-space locks.  A futex is a 32-bit
 * word of a process's memory; threads sleep in the kernel until another
 * wakes them by the word's address.  Private futexes meet within one
 * address space and are keyed by (vmspace, address); shared ones are
 * keyed by what the memory is (the vm_object of a MAP_SHARED mapping and
 * the offset in it), so two processes mapping the same object meet.
 *
 * The rest of the kernel uses futexes only at thread exit: clearing
 * set_tid_address's word wakes its waiters, and the robust list marks
 * the locks a dying thread held.
 *
 * Locking: the big kernel lock.
 */
#ifndef KERN_FUTEX_H
#define KERN_FUTEX_H

#include <stdint.h>

struct lwp;
struct vmspace;

/*
 * Wakes up to nwake threads (at least one, as Linux) waiting on the word
 * at uaddr of vm whose wait bitset meets bitset: private waiters of vm,
 * then shared ones keyed by the mapping's backing object.  Returns how
 * many it woke, -EINVAL for a misaligned address or a waiter of a PI
 * futex, -EFAULT if a shared key cannot be found.  May fault the page in
 * (and so sleep).
 */
int futex_wake(struct vmspace *vm, uint64_t uaddr, int nwake, uint32_t bitset);

/*
 * Walks lp's robust list (set_robust_list) as it exits or execs, as
 * Linux's exit_robust_list: every lock on it that lp still owns gets
 * FUTEX_OWNER_DIED and, if it has waiters, one of them is woken; a PI
 * lock lp owns passes to its first waiter.  The walk is bounded
 * (ROBUST_LIST_LIMIT entries) and stops at a bad pointer.  Forgets the
 * list.  Call it while lp's address space is still its own.
 */
void futex_exit_robust(struct lwp *lp);

/*
 * The same at execve, before the old address space goes: Linux releases
 * the robust list and PI locks of a thread that execs, which lives on.
 */
void futex_exec(struct lwp *lp);

#endif /* KERN_FUTEX_H */
