/*
 * The signal mask of the calling host thread, for code that creates host
 * threads it does not write itself (a library's): the vkernel's CPUs take
 * their ticks, kicks and IPIs as host signals, and a thread the kernel
 * does not run must never be picked to receive one.  The creator blocks
 * every signal around the library call that spawns the threads, which
 * inherit the mask, and restores its own afterwards.
 */
#ifndef HOST_SIGMASK_H
#define HOST_SIGMASK_H

#include <signal.h>

struct host_sigmask {
	sigset_t hs_set;
};

/* Blocks every signal in the calling thread; the old mask into *old. */
void host_sigmask_block_all(struct host_sigmask *old);

/* Sets the calling thread's mask back to *old. */
void host_sigmask_restore(const struct host_sigmask *old);

#endif /* HOST_SIGMASK_H */
