/*
 * futex_waitv(2): one sleep on up to FUTEX_WAITV_MAX futexes at once
 * (Wine's WaitForMultipleObjects); a wake of any of them ends it and the
 * call returns that futex's index.  Errors and restarts are Linux's.
 */
#include <linux/futex.h>
#include <time.h>

#include "proc/futex_var.h"
#include "kern/proc.h"
#include "sys/syscall.h"
#include "kern/kmem.h"
#include "vm/vm.h"
#include "vm/vm_atomic.h"

/* struct futex_waitv */
struct uwaitv {
	uint64_t val;
	uint64_t uaddr;
	uint32_t flags;
	uint32_t reserved;
};

/* Linux's FUTEX2_VALID_MASK: a size, NUMA and MPOL (ignored), private. */
#define FUTEX2_PRIVATE		FUTEX_PRIVATE_FLAG
#define FUTEX2_SIZE_MASK	0x03
#define FUTEX2_SIZE_U32		0x02
#define FUTEX2_VALID		(FUTEX2_SIZE_MASK | 0x04 | 0x08 | FUTEX2_PRIVATE)

/* Reads and checks the vector: 0, -EFAULT or -EINVAL. */
static int
waitv_in(uint64_t uaddr, unsigned n, struct uwaitv *v)
{
	for (unsigned i = 0; i < n; i++) {
		if (copyin(uaddr + i * sizeof(*v), &v[i], sizeof(*v)) < 0)
			return -EFAULT;
		if ((v[i].flags & ~FUTEX2_VALID) || v[i].reserved != 0 ||
		    (v[i].flags & FUTEX2_SIZE_MASK) != FUTEX2_SIZE_U32 ||
		    v[i].val > UINT32_MAX)
			return -EINVAL;
	}
	return 0;
}

/* Unqueues every waiter: the index of the last one woken, or -1. */
static int
unqueue_all(struct futex_waiter *w, unsigned n)
{
	int woken = -1;
	for (unsigned i = 0; i < n; i++) {
		if (w[i].fw_state == FW_WOKEN)
			woken = (int)i;
		futex_unqueue(&w[i]);
	}
	return woken;
}

static bool
any_woken(const struct futex_waiter *w, unsigned n)
{
	for (unsigned i = 0; i < n; i++)
		if (w[i].fw_state != FW_QUEUED)
			return true;
	return false;
}

/*
 * Queues on every futex of v whose word holds its value: 0 with all
 * queued, -EAGAIN (none left queued) if one differs, -EFAULT or -EINVAL
 * for a bad address, or the index of one woken meanwhile (a fault may
 * sleep).
 */
static int
waitv_queue(struct lwp *lp, const struct uwaitv *v, unsigned n,
    struct futex_waiter *w)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct futex_key key;
	uint32_t cur;
	int error;

	for (unsigned i = 0; i < n; i++) {
		error = futex_key_get(vm, v[i].uaddr, !(v[i].flags & FUTEX2_PRIVATE),
		    &key);
		if (error < 0)
			return error;
		futex_waiter_init(&w[i], lp, &key, FUTEX_BITSET_MATCH_ANY, w);
	}
	for (unsigned i = 0; i < n; i++) {
		error = vm_atomic_load32(vm, v[i].uaddr, &cur);
		if (error == 0 && cur == (uint32_t)v[i].val) {
			futex_queue(&w[i]);
			continue;
		}
		int woken = unqueue_all(w, i);
		if (woken >= 0)
			return woken;
		return error < 0 ? error : -EAGAIN;
	}
	return 0;
}

/*
 * futex_waitv(waiters, nr_futexes, flags, timeout, clockid): the timeout
 * is absolute on clockid (CLOCK_MONOTONIC or CLOCK_REALTIME).  Returns
 * the index of a futex woken, -EAGAIN if a word differs, -ETIMEDOUT;
 * a signal restarts it (-ERESTARTSYS).
 */
long
sys_futex_waitv(struct lwp *lp, const uint64_t *args)
{
	uint64_t uv = args[0], utime = args[3];
	unsigned n = (unsigned)args[1];
	int clockid = (int)args[4];
	struct futex_deadline dl, *dlp = NULL;
	long r;

	if ((unsigned)args[2] != 0 || n == 0 || n > FUTEX_WAITV_MAX || uv == 0)
		return -EINVAL;
	if (utime != 0) {
		if (clockid != CLOCK_REALTIME && clockid != CLOCK_MONOTONIC)
			return -EINVAL;
		if ((r = futex_timespec_in(utime, &dl.fd_ns)) < 0)
			return r;
		dl.fd_clock = clockid;
		dlp = &dl;
	}
	struct uwaitv *v = kmalloc(n * sizeof(*v), 0);
	struct futex_waiter *w = kmalloc(n * sizeof(*w), 0);
	if (v == NULL || w == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if ((r = waitv_in(uv, n, v)) < 0)
		goto out;
	if ((r = waitv_queue(lp, v, n, w)) != 0)
		goto out;
	int error;
	do
		error = futex_sleep(w, dlp);
	while (error == 0 && !any_woken(w, n));
	if ((r = unqueue_all(w, n)) < 0)
		r = error == ETIMEDOUT ? -ETIMEDOUT : -ERESTARTSYS;
out:
	kfree(w);
	kfree(v);
	return r;
}
