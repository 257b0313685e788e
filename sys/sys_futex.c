/*
 * futex(2): wait, wake, requeue and wake-op on futex words (keys,
 * queues and wakes: proc/futex_queue.c; PI locks: proc/futex_pi.c;
 * futex_waitv: sys_futex_waitv.c).  Errors and restarts are Linux's.
 */
#include <time.h>

#include "kern/futex.h"
#include "kern/proc.h"
#include "proc/futex_var.h"
#include "sys/syscall.h"
#include "vm/vm.h"
#include "vm/vm_atomic.h"

static long futex_wait_restart(struct lwp *lp);

/*
 * FUTEX_WAIT(_BITSET): sleeps on uaddr if it holds val, until a wake
 * whose bitset meets ours, dl, or a signal.  As Linux: -EAGAIN if the
 * word differs, -ETIMEDOUT; a signal restarts the call when no handler
 * runs (or one with SA_RESTART and no timeout), else -EINTR; a deadline
 * survives the restart.
 */
static long
futex_wait(struct lwp *lp, uint64_t uaddr, bool shared, uint32_t val,
    const struct futex_deadline *dl, uint32_t bitset)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct futex_waiter w;
	struct futex_key key;
	uint32_t cur;
	int error;

	if (bitset == 0)
		return -EINVAL;
	if ((error = futex_key_get(vm, uaddr, shared, &key)) < 0)
		return error;
	if ((error = vm_atomic_load32(vm, uaddr, &cur)) < 0)
		return error;
	if (cur != val)
		return -EAGAIN;
	futex_waiter_init(&w, lp, &key, bitset, &w);
	error = futex_queue_sleep(&w, dl);
	if (w.fw_state == FW_WOKEN)
		return 0;		/* even if a signal came too, as Linux */
	if (error == ETIMEDOUT)
		return -ETIMEDOUT;
	if (dl == NULL)
		return -ERESTARTSYS;
	lp->lwp_restart = (struct restart_block){ .rb_fn = futex_wait_restart,
	    .rb_clock = dl->fd_clock, .rb_deadline = dl->fd_ns, .rb_uaddr = uaddr,
	    .rb_val = val, .rb_bitset = bitset, .rb_shared = shared };
	return -ERESTART_RESTARTBLOCK;
}

static long
futex_wait_restart(struct lwp *lp)
{
	struct restart_block rb = lp->lwp_restart;
	struct futex_deadline dl = { rb.rb_clock, rb.rb_deadline };
	return futex_wait(lp, rb.rb_uaddr, rb.rb_shared, rb.rb_val, &dl,
	    rb.rb_bitset);
}

/*
 * FUTEX_REQUEUE and FUTEX_CMP_REQUEUE (cmpval not NULL: -EAGAIN unless
 * uaddr holds *cmpval): wakes nr_wake waiters on uaddr and moves up to
 * nr_requeue others to uaddr2.  Returns how many it woke and moved.
 */
static long
futex_requeue(struct lwp *lp, uint64_t uaddr, bool shared, int nr_wake,
    int nr_requeue, uint64_t uaddr2, const uint32_t *cmpval)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct futex_key key1, key2;
	struct futex_waiter *w, *next;
	int error, n = 0;

	if (nr_wake < 0 || nr_requeue < 0)
		return -EINVAL;
	if ((error = futex_key_get(vm, uaddr, shared, &key1)) < 0 ||
	    (error = futex_key_get(vm, uaddr2, shared, &key2)) < 0)
		return error;
	if (cmpval != NULL) {
		uint32_t cur;
		if ((error = vm_atomic_load32(vm, uaddr, &cur)) < 0)
			return error;
		if (cur != *cmpval)
			return -EAGAIN;
	}
	for (w = futex_next(&key1, NULL); w != NULL; w = next) {
		if (n - nr_wake >= nr_requeue)
			break;
		next = futex_next(&key1, w);
		if (w->fw_flags & (FW_PI | FW_REQUEUE_PI))
			return -EINVAL;
		if (++n <= nr_wake)
			futex_wake_waiter(w, FW_WOKEN);
		else
			futex_requeue_waiter(w, &key2);
	}
	return n;
}

/*
 * FUTEX_WAKE_OP: applies the encoded operation to uaddr2, wakes nr_wake
 * waiters on uaddr and, if the word's old value passes the encoded
 * comparison, nr_wake2 on uaddr2.  Returns how many it woke; -ENOSYS for
 * an unknown operation or comparison (the latter after the operation, as
 * Linux).
 */
static long
futex_wake_op(struct lwp *lp, uint64_t uaddr, bool shared, int nr_wake,
    int nr_wake2, uint64_t uaddr2, uint32_t encoded)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct futex_key key1, key2;
	unsigned op = (encoded >> 28) & 7, cmp = (encoded >> 24) & 15;
	int32_t oparg = (int32_t)(encoded << 8) >> 20;	/* 12 bits, signed */
	int32_t cmparg = (int32_t)(encoded << 20) >> 20;
	uint32_t old;
	int error;

	if ((error = futex_key_get(vm, uaddr, shared, &key1)) < 0 ||
	    (error = futex_key_get(vm, uaddr2, shared, &key2)) < 0)
		return error;
	if (encoded & ((uint32_t)FUTEX_OP_OPARG_SHIFT << 28))
		oparg = (int32_t)(1U << (oparg & 31));	/* Linux masks a bad shift */
	if (op > FUTEX_OP_XOR)
		return -ENOSYS;
	if ((error = vm_atomic_op32(vm, uaddr2, (enum vm_atomic_op)op,
	    (uint32_t)oparg, &old)) < 0)
		return error;
	int32_t o = (int32_t)old;
	bool pass;
	switch (cmp) {
	case FUTEX_OP_CMP_EQ: pass = o == cmparg; break;
	case FUTEX_OP_CMP_NE: pass = o != cmparg; break;
	case FUTEX_OP_CMP_LT: pass = o < cmparg; break;
	case FUTEX_OP_CMP_LE: pass = o <= cmparg; break;
	case FUTEX_OP_CMP_GT: pass = o > cmparg; break;
	case FUTEX_OP_CMP_GE: pass = o >= cmparg; break;
	default: return -ENOSYS;
	}
	int n = futex_wake_key(&key1, nr_wake, FUTEX_BITSET_MATCH_ANY);
	if (n < 0 || !pass)
		return n;
	int m = futex_wake_key(&key2, nr_wake2, FUTEX_BITSET_MATCH_ANY);
	return m < 0 ? m : n + m;
}

int
futex_timespec_in(uint64_t utime, int64_t *ns)
{
	struct timespec ts;
	if (copyin(utime, &ts, sizeof(ts)) < 0)
		return -EFAULT;
	if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		return -EINVAL;
	/* Far enough never to come, and room to add "now" to it. */
	*ns = ts.tv_sec > INT64_MAX / 1000000000 - 1 ? INT64_MAX / 2 :
	    ts.tv_sec * 1000000000 + ts.tv_nsec;
	return 0;
}

/* The commands whose fourth argument is a timeout rather than a count. */
static bool
cmd_has_timeout(int cmd)
{
	return cmd == FUTEX_WAIT || cmd == FUTEX_LOCK_PI ||
	    cmd == FUTEX_LOCK_PI2 || cmd == FUTEX_WAIT_BITSET ||
	    cmd == FUTEX_WAIT_REQUEUE_PI;
}

/*
 * The deadline of a futex call from its timespec at utime, as Linux's
 * futex_init_timeout: FUTEX_WAIT's is relative to the monotonic clock,
 * the others' absolute, on the realtime clock for FUTEX_LOCK_PI and with
 * FUTEX_CLOCK_REALTIME, else the monotonic one.  0, -EFAULT or -EINVAL.
 */
static int
futex_deadline_in(uint64_t utime, int op, struct futex_deadline *dl)
{
	int cmd = op & FUTEX_CMD_MASK;
	int64_t ns;
	int error;

	if ((error = futex_timespec_in(utime, &ns)) < 0)
		return error;
	dl->fd_clock = CLOCK_MONOTONIC;
	if (cmd == FUTEX_WAIT) {
		dl->fd_ns = ns > INT64_MAX / 2 ? INT64_MAX / 2 :
		    (int64_t)nanouptime() + ns;
		return 0;
	}
	if (cmd == FUTEX_LOCK_PI || (op & FUTEX_CLOCK_REALTIME))
		dl->fd_clock = CLOCK_REALTIME;
	dl->fd_ns = ns;
	return 0;
}

/*
 * futex(uaddr, op, val, timeout or val2, uaddr2, val3).  Unknown
 * commands, and FUTEX_CLOCK_REALTIME with a command that takes no
 * absolute timeout, are -ENOSYS.
 */
long
sys_futex(struct lwp *lp, const uint64_t *args)
{
	uint64_t uaddr = args[0], utime = args[3], uaddr2 = args[4];
	int op = (int)args[1], cmd = op & FUTEX_CMD_MASK;
	uint32_t val = (uint32_t)args[2], val3 = (uint32_t)args[5];
	int val2 = (int)(uint32_t)utime;	/* a count where not a timeout */
	bool shared = !(op & FUTEX_PRIVATE_FLAG);
	struct futex_deadline dl, *dlp = NULL;
	int error;

	if (utime != 0 && cmd_has_timeout(cmd)) {
		if ((error = futex_deadline_in(utime, op, &dl)) < 0)
			return error;
		dlp = &dl;
	}
	if ((op & FUTEX_CLOCK_REALTIME) && cmd != FUTEX_WAIT_BITSET &&
	    cmd != FUTEX_WAIT_REQUEUE_PI && cmd != FUTEX_LOCK_PI2)
		return -ENOSYS;
	switch (cmd) {
	case FUTEX_WAIT:
		return futex_wait(lp, uaddr, shared, val, dlp, FUTEX_BITSET_MATCH_ANY);
	case FUTEX_WAIT_BITSET:
		return futex_wait(lp, uaddr, shared, val, dlp, val3);
	case FUTEX_WAKE:
		val3 = FUTEX_BITSET_MATCH_ANY;
		/* FALLTHROUGH */
	case FUTEX_WAKE_BITSET: {
		struct futex_key key;
		if (val3 == 0)
			return -EINVAL;
		if ((error = futex_key_get(lp->lwp_proc->p_vmspace, uaddr, shared,
		    &key)) < 0)
			return error;
		return futex_wake_key(&key, (int)val, val3);
	}
	case FUTEX_REQUEUE:
		return futex_requeue(lp, uaddr, shared, (int)val, val2, uaddr2, NULL);
	case FUTEX_CMP_REQUEUE:
		return futex_requeue(lp, uaddr, shared, (int)val, val2, uaddr2, &val3);
	case FUTEX_WAKE_OP:
		return futex_wake_op(lp, uaddr, shared, (int)val, val2, uaddr2, val3);
	case FUTEX_LOCK_PI:
	case FUTEX_LOCK_PI2:
		return futex_lock_pi(lp, uaddr, shared, dlp, false);
	case FUTEX_TRYLOCK_PI:
		return futex_lock_pi(lp, uaddr, shared, NULL, true);
	case FUTEX_UNLOCK_PI:
		return futex_unlock_pi(lp, uaddr, shared);
	case FUTEX_WAIT_REQUEUE_PI:
		return futex_wait_requeue_pi(lp, uaddr, shared, val, dlp, uaddr2);
	case FUTEX_CMP_REQUEUE_PI:
		return futex_cmp_requeue_pi(lp, uaddr, shared, (int)val, val2,
		    uaddr2, val3);
	}
	kprintf_ratelimited("pid %d (%s): futex command %d not supported\n",
	    lp->lwp_proc->p_pid, lp->lwp_proc->p_comm, cmd);
	return -ENOSYS;
}
