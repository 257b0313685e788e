/* placeholder */
#include "kern/futex_var.h"
#include "kern/kernel.h"
long futex_lock_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    const struct futex_deadline *dl, bool trylock) { (void)lp; (void)uaddr; (void)shared; (void)dl; (void)trylock; return -ENOSYS; }
long futex_unlock_pi(struct lwp *lp, uint64_t uaddr, bool shared) { (void)lp; (void)uaddr; (void)shared; return -ENOSYS; }
long futex_wait_requeue_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    uint32_t val, const struct futex_deadline *dl, uint64_t uaddr2) { (void)lp; (void)uaddr; (void)shared; (void)val; (void)dl; (void)uaddr2; return -ENOSYS; }
long futex_cmp_requeue_pi(struct lwp *lp, uint64_t uaddr, bool shared,
    int nr_wake, int nr_requeue, uint64_t uaddr2, uint32_t cmpval) { (void)lp; (void)uaddr; (void)shared; (void)nr_wake; (void)nr_requeue; (void)uaddr2; (void)cmpval; return -ENOSYS; }
void futex_pi_exit(struct lwp *lp) { (void)lp; }
