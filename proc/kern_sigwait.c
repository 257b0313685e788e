/*
 * rt_sigtimedwait's wait (sigwaitinfo, sigtimedwait): a thread takes a
 * signal of a set without a handler running.
 */
#include "kern/kernel.h"
#include "kern/signal.h"

long
kern_sigtimedwait(struct lwp *lp, ksigset_t set, int64_t timeout_ns,
    siginfo_t *info)
{
	int sig, error = 0;

	set &= ~SIG_CANTMASK;
	if ((sig = sigdequeue(lp, set, info)) != 0)
		return sig;
	if (timeout_ns == 0)
		return -EAGAIN;
	/*
	 * The signals waited for are unblocked while it waits, so that one
	 * sent to the process may pick this thread; lwp_realmask keeps them
	 * from being dropped as ignored meanwhile.
	 */
	uint64_t deadline = timeout_ns > 0 ? nanouptime() + (uint64_t)timeout_ns : 0;
	lp->lwp_realmask = lp->lwp_sigmask;
	lp->lwp_sigmask &= ~set;
	while (!issignal_pending(lp)) {
		uint64_t timo = 0, now = nanouptime();
		if (deadline != 0) {
			if (now >= deadline) {
				error = EWOULDBLOCK;
				break;
			}
			timo = deadline - now;
		}
		error = tsleep(&lp->lwp_realmask, PCATCH, "sigwait", timo);
		if (error == EWOULDBLOCK)
			break;
	}
	lp->lwp_sigmask = lp->lwp_realmask;
	lp->lwp_realmask = 0;
	if ((sig = sigdequeue(lp, set, info)) != 0)
		return sig;
	return error == EWOULDBLOCK ? -EAGAIN : -EINTR;
}

