/*
 * Futexes and the wait-word protocol shared by the vkernel's virtual CPUs
 * and the trap backend's stubs.
 *
 * A wait word is a 32-bit word on which one party (the owner) waits.
 * Others set WW_POSTED (a request or reply is there) or WW_WAKE (an
 * interrupt for the owner's CPU) with an atomic OR and call host_futex_wake
 * only when they saw WW_SLEEPING in the old value.  The owner sets
 * WW_SLEEPING only by compare-and-swap from a value without WW_POSTED or
 * WW_WAKE, then sleeps with that exact value as the expected one, so a
 * post can never be lost between the check and the sleep.
 *
 * All futex calls are non-private: the words live in memory shared with
 * stub processes, and a non-private wait and wake agree on any memory.
 *
 * Also the host's sleeping mutex, for the kernel's big lock.
 */
#ifndef HOST_HOSTSYNC_H
#define HOST_HOSTSYNC_H

#include <stdbool.h>
#include <stdint.h>
#include <time.h>

#define WW_POSTED	1u
#define WW_SLEEPING	2u
#define WW_WAKE		4u
#define WW_MAPPER	8u	/* stub reply word only: wake the mapper first */
#define WW_YIELD	16u	/* stub reply word only: stop spinning, sleep */
#define WW_POLL		32u	/* with WW_YIELD: give the core away first */

#ifndef STUB_FREESTANDING
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Sleeps while *w == val, at most rel (NULL: forever).  Returns 0 or -errno. */
static inline int
host_futex_wait(uint32_t *w, uint32_t val, const struct timespec *rel)
{
	if (syscall(SYS_futex, w, FUTEX_WAIT, val, rel, NULL, 0) == 0)
		return 0;
	return -errno;
}

/* Wakes up to n waiters on w. */
static inline void
host_futex_wake(uint32_t *w, int n)
{
	syscall(SYS_futex, w, FUTEX_WAKE, n, NULL, NULL, 0);
}

/* Posts bits to a wait word; wakes its owner if it sleeps. */
static inline void
ww_post(uint32_t *w, uint32_t bits)
{
	if (__atomic_fetch_or(w, bits, __ATOMIC_SEQ_CST) & WW_SLEEPING)
		host_futex_wake(w, 1);
}

/*
 * Owner side: sleeps on w unless one of want is set, for at most rel.
 * Returns the word's value after the wait with WW_SLEEPING cleared.
 */
static inline uint32_t
ww_sleep(uint32_t *w, uint32_t want, const struct timespec *rel)
{
	uint32_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
	if ((v & want) == 0 &&
	    __atomic_compare_exchange_n(w, &v, v | WW_SLEEPING, 0,
	    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		host_futex_wait(w, v | WW_SLEEPING, rel);
	return __atomic_and_fetch(w, ~WW_SLEEPING, __ATOMIC_SEQ_CST);
}

/*
 * A host mutex: the waiting host thread sleeps in the host kernel.  Not
 * recursive; lock and unlock from the same host thread.
 */
struct host_mutex {
	pthread_mutex_t hm_mutex;
};
#define HOST_MUTEX_INITIALIZER	{ PTHREAD_MUTEX_INITIALIZER }

static inline void
host_mutex_lock(struct host_mutex *m)
{
	pthread_mutex_lock(&m->hm_mutex);
}

/* Takes m if no one holds it; true if taken. */
static inline bool
host_mutex_trylock(struct host_mutex *m)
{
	return pthread_mutex_trylock(&m->hm_mutex) == 0;
}

static inline void
host_mutex_unlock(struct host_mutex *m)
{
	pthread_mutex_unlock(&m->hm_mutex);
}

static inline void
cpu_relax(void)
{
	__builtin_ia32_pause();
}
#endif /* !STUB_FREESTANDING */

#endif /* HOST_HOSTSYNC_H */
