/*
 * The scheduler on several virtual CPUs (kern/kern_sched.c,
 * kern/kern_runq.c): idle CPUs take queued work while the others run
 * "user code" (the big lock dropped, as during a guest's run), affinity
 * is honoured, and each CPU counts its time by state.
 */
#include <stdatomic.h>

#include "host/cpu.h"
#include "kern/thread.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

/* Runs body(arg) as the first kernel thread on n CPUs until it halts them. */
static void
run_kernel(int ncpu, int hz, void (*body)(void *), void *arg)
{
	vmt_ram();
	REQUIRE(cpu_configure(ncpu, CPU_PLACE_NONE, hz) == 0);
	kernel_lock();
	struct thread *td = thread_create("test", body, arg);
	kernel_unlock();
	REQUIRE(td != NULL);
	sched_init();
	kernel_lock();
	thread_start(td);
	kernel_unlock();
	REQUIRE(cpu_start(sched_cpu_main, NULL) == 0);
	cpu_join();
}

#define NCPU	4

struct gang {
	atomic_int inuser;	/* threads "in user mode" now */
	atomic_int most;	/* the most there were at once */
	int running;
};

/*
 * "User mode" until all NCPU threads are in it at once, or 2 s pass: a
 * CPU left asleep while a thread waits never lets them meet.
 */
static void
gang_user(struct gang *g)
{
	sched_user_enter(nanouptime());
	int n = atomic_fetch_add(&g->inuser, 1) + 1;
	uint64_t t0 = nanouptime();
	for (;;) {
		int most = atomic_load(&g->most);
		if (n > most)
			atomic_compare_exchange_strong(&g->most, &most, n);
		if (atomic_load(&g->most) == NCPU || nanouptime() - t0 > 2000000000ULL)
			break;
		n = atomic_load(&g->inuser);
	}
	atomic_fetch_sub(&g->inuser, 1);
	sched_user_exit(0);
}

static void
gang_worker(void *arg)
{
	struct gang *g = arg;
	gang_user(g);
	if (--g->running == 0)
		wakeup(g);
}

static void
gang_main(void *arg)
{
	struct gang *g = arg;
	g->running = NCPU - 1;
	/* Every other CPU starts and goes idle, with no deadline to wake for. */
	sched_user_enter(nanouptime());
	uint64_t t0 = nanouptime();
	while (nanouptime() - t0 < 50000000)
		;
	sched_user_exit(0);
	/* Woken one after another while this CPU holds the lock. */
	for (int i = 0; i < NCPU - 1; i++)
		thread_start(thread_create("gang", gang_worker, g));
	gang_user(g);
	while (g->running > 0)
		tsleep(g, 0, "gang", 0);
	sched_halt();
}

TEST(smp_idle_cpus_take_queued_work)
{
	/* No tick: only the kicks wake the idle CPUs. */
	static struct gang g;
	memset(&g, 0, sizeof(g));
	run_kernel(NCPU, 0, gang_main, &g);
	CHECK_EQ(atomic_load(&g.most), NCPU);
}

#define PIN_ROUNDS	20

struct pin {
	int ran_on[2][PIN_ROUNDS];	/* the CPU each pinned worker ran on */
	int self_on[2];			/* the main thread, pinned to 1 then 0 */
	int running;
};

struct pinned {
	struct pin *p;
	int id;
};

static void
pin_worker(void *arg)
{
	struct pinned *w = arg;
	for (int i = 0; i < PIN_ROUNDS; i++) {
		w->p->ran_on[w->id][i] = curthread->td_cpu->id;
		sched_user_enter(nanouptime());
		uint64_t t0 = nanouptime();
		while (nanouptime() - t0 < 500000)
			;
		sched_user_exit(0);
		thread_yield();
	}
	if (--w->p->running == 0)
		wakeup(w->p);
}

static void
pin_main(void *arg)
{
	struct pin *p = arg;
	static struct pinned w[2];

	p->running = 2;
	for (int i = 0; i < 2; i++) {
		w[i] = (struct pinned){ p, i };
		struct thread *td = thread_create("pinned", pin_worker, &w[i]);
		thread_setaffinity(td, CPUMASK(1));
		thread_start(td);
	}
	/* A running thread moved away: it leaves at its next chance. */
	thread_setaffinity(curthread, CPUMASK(1));
	thread_yield();
	p->self_on[0] = curthread->td_cpu->id;
	thread_setaffinity(curthread, CPUMASK(0));
	thread_yield();
	p->self_on[1] = curthread->td_cpu->id;
	while (p->running > 0)
		tsleep(p, 0, "pin", 0);
	sched_halt();
}

TEST(smp_affinity_honoured)
{
	static struct pin p;
	memset(&p, 0, sizeof(p));
	run_kernel(2, 100, pin_main, &p);
	int elsewhere = 0;
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < PIN_ROUNDS; j++)
			elsewhere += p.ran_on[i][j] != 1;
	CHECK_EQ(elsewhere, 0);
	CHECK_EQ(p.self_on[0], 1);
	CHECK_EQ(p.self_on[1], 0);
}

struct mover {
	struct thread *td;	/* the worker */
	int before, after;	/* the CPU it ran user code on, and then */
	bool kicked;		/* its user code ended by a kick */
	atomic_int inuser;
	int done;
};

/*
 * "User code" until this CPU is kicked (as the host layer ends a guest's
 * run), then the way back to user mode: interrupts, and the CPU given up
 * if the kernel asked.
 */
static void
mover_worker(void *arg)
{
	struct mover *m = arg;
	struct vcpu *cpu = curthread->td_cpu;
	m->before = cpu->id;
	sched_user_enter(nanouptime());
	atomic_store(&m->inuser, 1);
	uint64_t t0 = nanouptime();
	while (cpu_pending(cpu) == 0 && nanouptime() - t0 < 2000000000ULL)
		;
	m->kicked = cpu_pending(cpu) != 0;
	sched_user_exit(0);
	sched_interrupts();
	if (curthread->td_flags & TDF_NEEDRESCHED)
		thread_yield();
	m->after = curthread->td_cpu->id;
	m->done = 1;
	wakeup(m);
}

static void
mover_main(void *arg)
{
	struct mover *m = arg;
	int here = curthread->td_cpu->id;

	/* The worker runs user code on the other CPU... */
	m->td = thread_create("mover", mover_worker, m);
	thread_setaffinity(m->td, CPUMASK(1 - here));
	thread_start(m->td);
	while (atomic_load(&m->inuser) == 0) {
		sched_user_enter(nanouptime());
		sched_user_exit(0);
	}
	/* ...and is moved here while it does: its CPU is kicked. */
	thread_setaffinity(m->td, CPUMASK(here));
	while (!m->done)
		tsleep(m, 0, "mover", 0);
	sched_halt();
}

TEST(smp_affinity_moves_a_running_thread)
{
	static struct mover m;
	memset(&m, 0, sizeof(m));
	run_kernel(2, 0, mover_main, &m);
	CHECK(m.kicked);
	CHECK(m.before != m.after);
	CHECK(m.before == 0 || m.before == 1);
	CHECK(m.after == 0 || m.after == 1);
}

struct times {
	uint64_t before[CPUSTATES], after[CPUSTATES];
	int cpu;
};

static void
times_main(void *arg)
{
	struct times *t = arg;
	t->cpu = curthread->td_cpu->id;
	sched_cpu_times(t->cpu, t->before);
	/* A 30 ms run of which the host says the guest used 20 ms. */
	sched_user_enter(nanouptime());
	uint64_t t0 = nanouptime();
	while (nanouptime() - t0 < 30000000)
		;
	sched_user_exit(20000000);
	sched_cpu_times(t->cpu, t->after);
	sched_halt();
}

TEST(smp_cpu_times_by_state)
{
	static struct times t;
	memset(&t, 0, sizeof(t));
	run_kernel(2, 100, times_main, &t);
	CHECK_EQ(t.after[CP_USER] - t.before[CP_USER], 20000000);
	CHECK(t.after[CP_STEAL] - t.before[CP_STEAL] >= 10000000);
	CHECK(t.after[CP_SYS] >= t.before[CP_SYS]);
	CHECK_EQ(t.after[CP_IDLE], t.before[CP_IDLE]);	/* this CPU never idled */
}

/*
 * A guest thread's call that wakes another and blocks soon after keeps
 * the woken thread on its own CPU (kern_sched.c, sched_setrunnable): the
 * idle CPU is not kicked while the waker is back in user mode for less
 * than its CPU spins (here: it never sleeps for the guest), so the woken
 * thread runs where the waker blocks.  A waker whose guest runs longer
 * (cpu_sleep: the spin is over) sends the kick, and an idle CPU runs it.
 */
struct owed {
	int ran_on[2];		/* where the woken thread ran, per case */
	int waker_on[2];	/* where the waker woke it */
	int woken[2];
	int fake_lwp;		/* stands for the main thread's guest thread */
	int k;			/* the case the woken thread serves */
};

static void
owed_sleeper(void *arg)
{
	struct owed *o = arg;
	int k = o->k;
	o->ran_on[k] = curthread->td_cpu->id;
	o->woken[k] = 1;
	wakeup(&o->woken[k]);
}

static void
owed_main(void *arg)
{
	struct owed *o = arg;
	/* Every other CPU starts and goes idle, with no deadline to wake for. */
	sched_user_enter(nanouptime());
	uint64_t t0 = nanouptime();
	while (nanouptime() - t0 < 50000000)
		;
	sched_user_exit(0);
	for (int k = 0; k < 2; k++) {
		o->k = k;
		curthread->td_lwp = (struct lwp *)&o->fake_lwp;
		struct thread *td = thread_create("owed", owed_sleeper, o);
		o->waker_on[k] = curthread->td_cpu->id;
		thread_start(td);	/* a wake-up from a guest's call */
		sched_user_enter(nanouptime());
		t0 = nanouptime();
		if (k == 0) {
			while (nanouptime() - t0 < 20000000)	/* 20 ms */
				;
		} else {
			uint32_t never = 0;
			while (nanouptime() - t0 < 20000000)
				cpu_sleep(cpu_self(), &never, 1, 1000000);
		}
		sched_user_exit(0);
		curthread->td_lwp = NULL;
		while (!o->woken[k])
			tsleep(&o->woken[k], 0, "owed", 0);
	}
	sched_halt();
}

TEST(smp_wakeup_stays_with_a_waker_that_blocks)
{
	static struct owed o;
	memset(&o, 0, sizeof(o));
	run_kernel(2, 0, owed_main, &o);
	CHECK_EQ(o.woken[0], 1);
	CHECK_EQ(o.woken[1], 1);
	/* It stayed: the waker blocked first. */
	CHECK_EQ(o.ran_on[0], o.waker_on[0]);
	/* The guest ran on: the idle CPU took it. */
	CHECK(o.ran_on[1] != o.waker_on[1]);
}
