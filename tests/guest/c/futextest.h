/*
 * The futex test programs' calls and error names: fx() is futex(2)
 * returning -errno, err() names the errors they print, so that the
 * output inside vkernel and the native one compare.  Each program is
 * compiled alone: static inline only.
 */
#ifndef GUEST_FUTEXTEST_H
#define GUEST_FUTEXTEST_H

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

static inline long
fx(void *uaddr, int op, uint32_t val, const void *t, void *uaddr2,
    uint32_t val3)
{
	long r = syscall(SYS_futex, uaddr, op, val, t, uaddr2, val3);
	return r < 0 ? -errno : r;
}

/* r's errno name, or r itself as a number (one buffer, reused). */
static inline const char *
err(long r)
{
	static char buf[32];
	switch (r) {
	case -EAGAIN: return "EAGAIN";
	case -ETIMEDOUT: return "ETIMEDOUT";
	case -EINTR: return "EINTR";
	case -EINVAL: return "EINVAL";
	case -EFAULT: return "EFAULT";
	case -ENOSYS: return "ENOSYS";
	case -ENOMEM: return "ENOMEM";
	case -EPERM: return "EPERM";
	case -ESRCH: return "ESRCH";
	case -EDEADLK: return "EDEADLK";
	}
	snprintf(buf, sizeof(buf), "%ld", r);
	return buf;
}

#endif
