/*
 * The fork counters (fork_stat.h).  Each is added to atomically: the
 * CPUs' threads count at once.  A stage is counted with its time in ns;
 * a trap by its kind, for forked children that have not exec'd (role 0)
 * and for every other process (role 1).
 */
#include "host/clock.h"
#include "host/vmspace.h"
#include "kern/kernel.h"
#include "kern/proc.h"
#include "proc/fork_stat.h"

#define FST_NSYSCALLS	512	/* counted by number below this */

static struct {
	uint64_t n[FST_NSTAGES], ns[FST_NSTAGES];
	uint64_t traps[2][FSK_NKINDS], run_ns[2][FSK_NKINDS];
	uint64_t kern_ns[2][FSK_NKINDS];
	uint64_t calls[2][FST_NSYSCALLS];
} fst;

static const char *const stage_names[FST_NSTAGES] = {
	[FST_FORK] = "fork (parent, in fork1)",
	[FST_VMSPACE_FORK] = "  vmspace_fork",
	[FST_FORK_TOUCH] = "  child's first copies",
	[FST_CHILD_START] = "fork to child's first run",
	[FST_ACTIVATE] = "first activation (stub)",
	[FST_FIRST_RUN] = "child's first run to a trap",
	[FST_EXEC] = "execve",
	[FST_EXIT] = "exit1 to zombie",
	[FST_EXIT_VM] = "  vmspace release",
	[FST_WAKE] = "zombie to its reaping",
	[FST_WAIT] = "wait4 that slept",
};

static const char *const kind_names[FSK_NKINDS] = {
	[FSK_SYSCALL] = "syscall", [FSK_PATCHED] = "patched",
	[FSK_READ] = "fault-r", [FSK_WRITE] = "fault-w",
	[FSK_EXEC] = "fault-x", [FSK_INTR] = "intr", [FSK_OTHER] = "other",
};

bool
forkstat_enabled(void)
{
	return vmspace_stats_enabled();
}

uint64_t
forkstat_now(void)
{
	return forkstat_enabled() ? host_nanotime() : 0;
}

static void
add(uint64_t *c, uint64_t v)
{
	__atomic_fetch_add(c, v, __ATOMIC_RELAXED);
}

void
forkstat_stage(enum fst_stage st, uint64_t t0)
{
	if (t0 == 0 || !forkstat_enabled())
		return;
	add(&fst.n[st], 1);
	add(&fst.ns[st], host_nanotime() - t0);
}

int
forkstat_trap(struct lwp *lp, int kind, long nr, uint64_t run_ns)
{
	struct proc *p = lp->lwp_proc;
	int role = !(p->p_flags & P_EXEC) && p != initproc ? 0 : 1;

	add(&fst.traps[role][kind], 1);
	add(&fst.run_ns[role][kind], run_ns);
	if (nr >= 0 && nr < FST_NSYSCALLS)
		add(&fst.calls[role][nr], 1);
	return role;
}

void
forkstat_trap_done(int role, int kind, uint64_t kern_ns)
{
	add(&fst.kern_ns[role][kind], kern_ns);
}

static uint64_t
us10(uint64_t ns, uint64_t n)
{
	return n != 0 ? ns / n / 100 : 0;	/* tenths of a microsecond */
}

void
forkstat_print(void (*pr)(const char *fmt, ...),
    const char *(*sysname)(long nr))
{
	struct vmspace_stats h;
	vmspace_stats_get(&h);
	uint64_t forks = fst.n[FST_FORK];

	pr("forkstat: %lu forks; per stage: count, mean us, total us per fork\n",
	    (unsigned long)forks);
	for (int i = 0; i < FST_NSTAGES; i++) {
		uint64_t m = us10(fst.ns[i], fst.n[i]);
		uint64_t pf = us10(fst.ns[i], forks);
		pr("  %-28s %8lu %6lu.%lu %6lu.%lu\n", stage_names[i],
		    (unsigned long)fst.n[i], (unsigned long)(m / 10),
		    (unsigned long)(m % 10), (unsigned long)(pf / 10),
		    (unsigned long)(pf % 10));
	}
	for (int role = 0; role < 2; role++) {
		pr("forkstat: traps of %s: kind, count per fork, mean us in the "
		    "run, mean us in the kernel\n",
		    role == 0 ? "forked children before exec" : "the others");
		for (int k = 0; k < FSK_NKINDS; k++) {
			uint64_t n = fst.traps[role][k];
			if (n == 0)
				continue;
			uint64_t per = forks ? n * 100 / forks : 0;
			uint64_t r = us10(fst.run_ns[role][k], n);
			uint64_t kn = us10(fst.kern_ns[role][k], n);
			pr("  %-8s %8lu %4lu.%02lu %6lu.%lu %6lu.%lu\n",
			    kind_names[k], (unsigned long)n,
			    (unsigned long)(per / 100), (unsigned long)(per % 100),
			    (unsigned long)(r / 10), (unsigned long)(r % 10),
			    (unsigned long)(kn / 10), (unsigned long)(kn % 10));
		}
		for (long nr = 0; nr < FST_NSYSCALLS; nr++) {
			uint64_t n = fst.calls[role][nr];
			if (n == 0 || (forks && n * 10 < forks))
				continue;	/* under 0.1 per fork */
			const char *name = sysname != NULL ? sysname(nr) : NULL;
			uint64_t per = forks ? n * 100 / forks : 0;
			pr("    call %3ld %-16s %8lu %4lu.%02lu per fork\n", nr,
			    name != NULL ? name : "", (unsigned long)n,
			    (unsigned long)(per / 100), (unsigned long)(per % 100));
		}
	}
	pr("forkstat: host: creates %lu (%lu us each): pool %lu, waited %lu "
	    "(%lu us each), spawned %lu (%lu us each)\n",
	    (unsigned long)h.creates, (unsigned long)us10(h.create_ns, h.creates) / 10,
	    (unsigned long)h.pool_hits, (unsigned long)h.pool_waits,
	    (unsigned long)us10(h.pool_wait_ns, h.pool_waits) / 10,
	    (unsigned long)h.spawns, (unsigned long)us10(h.spawn_ns, h.spawns) / 10);
	pr("forkstat: host: kills %lu (%lu us each, %lu wiped, %lu of them by "
	    "a reaper), destroys %lu "
	    "(%lu us each), recycles %lu (%lu us each, off the path), "
	    "failed %lu, reaps %lu\n",
	    (unsigned long)h.kills, (unsigned long)us10(h.kill_ns, h.kills) / 10,
	    (unsigned long)h.wipes, (unsigned long)h.wipes_reaper,
	    (unsigned long)h.destroys,
	    (unsigned long)us10(h.destroy_ns, h.destroys) / 10,
	    (unsigned long)h.recycles,
	    (unsigned long)us10(h.recycle_ns, h.recycles + h.recycle_fails) / 10,
	    (unsigned long)h.recycle_fails, (unsigned long)h.reaps);
	uint64_t nr = h.recycles + h.recycle_fails;
	pr("forkstat: host: a recycle: thread 0 parks %lu us, the task check "
	    "and wipe %lu us, its reset %lu us\n",
	    (unsigned long)us10(h.recycle_park_ns, nr) / 10,
	    (unsigned long)us10(h.recycle_tasks_ns, nr) / 10,
	    (unsigned long)us10(h.recycle_reset_ns, nr) / 10);
	pr("forkstat: host: stubs served %lu faults alone, returned %lu patched "
	    "calls, %lu mapper ops, %lu sleeps; %lu host faults in recycled "
	    "stubs\n", (unsigned long)h.served, (unsigned long)h.returned,
	    (unsigned long)h.mapops, (unsigned long)h.sleeps,
	    (unsigned long)h.stub_minflt);
}
