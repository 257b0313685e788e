/*
 * The trap backend's operations table (host/vmspace_backend.h).  The
 * generic layer has checked every argument.
 */
#include <errno.h>

#include "host/clock.h"
#include "host/cpu.h"
#include "host/hostsync.h"
#include "host/trap/trap.h"

void
trap_params_default(struct trap_params *p, const struct vcpu *cpu)
{
	/* A stub goes where the creating CPU's placement says. */
	*p = (struct trap_params){
		.fault_around = 8,
		.stub_core = cpu != NULL ? cpu->stub_core : -1,
		.spin_ns = cpu != NULL ? (int64_t)cpu->spin_ns : 0,
	};
}

static struct vmspace_host *
trap_create(int type, void *data)
{
	struct trap_params p;
	struct vcpu *cpu = cpu_self();

	if (type != VMSPACE_TYPE_DEFAULT) {
		errno = EINVAL;
		return NULL;
	}
	if (data == NULL) {
		trap_params_default(&p, cpu);
		struct vmspace_host *vh = trap_pool_take(&p);
		if (vh != NULL) {
			VMSTAT_ADD(pool_hits, 1);
			return vh;
		}
		uint64_t t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
		vh = trap_spawn(&p);
		VMSTAT_ADD(spawns, 1);
		VMSTAT_ADD(spawn_ns, host_nanotime() - t0);
		return vh;
	}
	p = *(const struct trap_params *)data;
	if (p.fault_around <= 0)
		p.fault_around = 8;
	if (p.fault_around > 64 || (p.fault_around & (p.fault_around - 1))) {
		errno = EINVAL;
		return NULL;
	}
	if (p.spin_ns < 0)
		p.spin_ns = cpu != NULL ? (int64_t)cpu->spin_ns : 0;
	return trap_spawn(&p);
}

/* A wiped stub (trap_exit) is recycled; the generic layer forgot it. */
static void
trap_destroy(struct vmspace_host *vh)
{
	if (trap_recycle_destroyed(vh))
		return;
	trap_stats_log(vh);
	if (vh->wiped)
		trap_recycle_async(vh);
	else
		trap_reap(vh);
}

static int
trap_fpsave(struct vmspace_host *vh, int n, struct vextframe *vf)
{
	struct trap_thread *t = trap_thread_get(vh, n);
	if (t == NULL)
		return -1;
	if (!trap_dead(vh) && __atomic_load_n(&t->parked, __ATOMIC_ACQUIRE) &&
	    trap_utrap_settle(vh, t) < 0) {
		errno = ESRCH;
		return -1;
	}
	if (trap_dead(vh) || !__atomic_load_n(&t->parked, __ATOMIC_ACQUIRE) ||
	    t->fpu == NULL) {
		errno = ESRCH;
		return -1;
	}
	trap_fpu_save(t, vf);
	return 0;
}

static int
trap_map_locked(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	if (vh->ngov == TRAP_MAXGOV) {
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < vh->ngov; i++) {
		if (start < vh->gov[i].end && end > vh->gov[i].start) {
			errno = EEXIST;
			return -1;
		}
	}
	vh->gov[vh->ngov].start = start;
	vh->gov[vh->ngov].end = end;
	vh->ngov++;
	return 0;
}

/* Removes [start, end) from the governed ranges, splitting one if needed. */
static int
trap_unmap_locked(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	for (int i = 0; i < vh->ngov; i++) {
		uint64_t s = vh->gov[i].start, e = vh->gov[i].end;
		if (end <= s || start >= e)
			continue;
		if (start > s && end < e) {
			if (vh->ngov == TRAP_MAXGOV) {
				errno = ENOMEM;
				return -1;
			}
			vh->gov[vh->ngov].start = end;
			vh->gov[vh->ngov].end = e;
			vh->ngov++;
			vh->gov[i].end = start;
		} else if (start > s) {
			vh->gov[i].end = start;
		} else if (end < e) {
			vh->gov[i].start = end;
		} else {
			vh->gov[i--] = vh->gov[--vh->ngov];
		}
	}
	return trap_inval(vh, start, end);
}

static int
trap_setmap_locked(struct vmspace_host *vh, uint64_t root)
{
	/* Every translation came from the old tables. */
	if (vh->root != TRAP_NO_ROOT && vh->root != root &&
	    trap_inval(vh, 0, VM_MAX_USER_ADDRESS) < 0)
		return -1;
	vh->root = root;
	return 0;
}

/*
 * The operations that may meet running threads' fault service take the
 * vmspace's lock (trap.h).
 */
static int
trap_map(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	host_mutex_lock(&vh->lock);
	int r = trap_map_locked(vh, start, end);
	host_mutex_unlock(&vh->lock);
	return r;
}

static int
trap_unmap(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	host_mutex_lock(&vh->lock);
	int r = trap_unmap_locked(vh, start, end);
	host_mutex_unlock(&vh->lock);
	return r;
}

static int
trap_inval_op(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	host_mutex_lock(&vh->lock);
	int r = trap_inval(vh, start, end);
	host_mutex_unlock(&vh->lock);
	return r;
}

static int
trap_prefault_op(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	host_mutex_lock(&vh->lock);
	int r = trap_prefault(vh, start, end);
	host_mutex_unlock(&vh->lock);
	return r;
}

static int
trap_inval_defer_op(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	host_mutex_lock(&vh->lock);
	int r = trap_inval_defer(vh, start, end);
	host_mutex_unlock(&vh->lock);
	return r;
}

static int
trap_settle_op(struct vmspace_host *vh)
{
	host_mutex_lock(&vh->lock);
	int r = trap_settle(vh);
	host_mutex_unlock(&vh->lock);
	return r;
}

static int
trap_setmap(struct vmspace_host *vh, uint64_t root)
{
	host_mutex_lock(&vh->lock);
	int r = trap_setmap_locked(vh, root);
	host_mutex_unlock(&vh->lock);
	return r;
}

/*
 * Exec keeps the stub only with no spare core (latency placement).  Kept,
 * the stub is wiped on exec's path, and that wipe frees host page tables:
 * a TLB shoot-down IPI to every core the stub's threads ever ran on, and
 * in density its recycle ran them on the reapers' core (some 30 us of a
 * 65 us execve here; docs/design.md).  Let go, it is wiped by a reaper off
 * the path, as an exit's is, and the image starts in a pool stub: execve
 * 61 -> 15-22 us, fork+exec+wait 206-222 -> 197-204 us.  With no spare
 * core the wipe would run on a guest's core all the same, and the second
 * recycle each exec then needs made fork+exec+wait 259-277 -> 334-345 us.
 */
static bool
trap_exec_keeps(struct vmspace_host *vh)
{
	(void)vh;
	return !cpu_has_spare();
}

const struct vmspace_ops trap_vmspace_ops = {
	.name = "trap",
	/* thread 0 and its mapper (a recycled stub keeps its thread 0) */
	.host_tasks = 2,
	.thread_tasks = 1,	/* each thread more is a host thread */
	.max_threads = STUB_MAXTHREADS,
	.create = trap_create,
	.destroy = trap_destroy,
	.kill = trap_exit,
	.gone = trap_gone,
	.thread_create = trap_thread_create,
	.thread_destroy = trap_thread_destroy,
	.run = trap_run,
	.fpsave = trap_fpsave,
	.yield = trap_yield,
	.map = trap_map,
	.inval = trap_inval_op,
	.unmap = trap_unmap,
	.setmap = trap_setmap,
	.prefault = trap_prefault_op,
	.inval_defer = trap_inval_defer_op,
	.settle = trap_settle_op,
	.audit = trap_audit,
	.pool = trap_pool,
	.exec_keeps = trap_exec_keeps,
};
