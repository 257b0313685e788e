/*
 * The run queue (kern/kern_runq.c): a woken thread runs before those that
 * used their slices, and groups share the CPU evenly whatever the number
 * of their threads.  One CPU, no tick: threads switch where they yield.
 */
#include "host/cpu.h"
#include "kern/thread.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

static void
run_kernel(void (*body)(void *), void *arg)
{
	vmt_ram();
	REQUIRE(cpu_configure(1, CPU_PLACE_NONE, 0) == 0);
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

/* Keeps the CPU for ns, as a thread running user code for a slice. */
static void
spin(uint64_t ns)
{
	uint64_t t = nanouptime();
	while (nanouptime() - t < ns)
		;
}

#define SPINNERS	4

struct wake {
	int log[64], nlog;	/* who ran: 0..SPINNERS-1, or SPINNERS for the sleeper */
	int woke_at;		/* log index of the wakeup */
	int running;
	char chan;
};

static void
wake_spinner(void *arg)
{
	struct wake *w = arg;
	static int next_id;
	int id = next_id++ % SPINNERS;
	for (int i = 0; i < 5; i++) {
		w->log[w->nlog++] = id;
		spin(200000);
		if (id == 0 && i == 2) {
			w->woke_at = w->nlog - 1;
			wakeup(&w->chan);
		}
		thread_yield();
	}
	if (--w->running == 0)
		wakeup(w);
}

static void
wake_sleeper(void *arg)
{
	struct wake *w = arg;
	tsleep(&w->chan, 0, "sleeper", 0);
	w->log[w->nlog++] = SPINNERS;
	if (--w->running == 0)
		wakeup(w);
}

static void
wake_main(void *arg)
{
	struct wake *w = arg;
	w->running = SPINNERS + 1;
	thread_start(thread_create("sleeper", wake_sleeper, w));
	for (int i = 0; i < SPINNERS; i++)
		thread_start(thread_create("spinner", wake_spinner, w));
	while (w->running > 0)
		tsleep(w, 0, "wake", 0);
	sched_halt();
}

TEST(runq_woken_thread_runs_first)
{
	/* Round robin would run the other three spinners first. */
	static struct wake w;
	memset(&w, 0, sizeof(w));
	run_kernel(wake_main, &w);
	REQUIRE(w.nlog == SPINNERS * 5 + 1);
	CHECK_EQ(w.log[w.woke_at], 0);
	CHECK_EQ(w.log[w.woke_at + 1], SPINNERS);
}

#define SLICES		200

struct share {
	struct sched_group ga, gb;
	int slices[2];		/* slices run by group a's and group b's threads */
	uint64_t ns[2];		/* and the time they ran */
	int total, running;
};

struct sharer {
	struct share *s;
	int group;
};

static void
share_worker(void *arg)
{
	struct sharer *w = arg;
	struct share *s = w->s;
	uint64_t t0 = nanouptime();
	while (s->total < SLICES) {
		s->total++;
		s->slices[w->group]++;
		spin(300000);
		s->ns[w->group] += nanouptime() - t0;
		thread_yield();
		t0 = nanouptime();
	}
	if (--s->running == 0)
		wakeup(s);
}

static void
share_main(void *arg)
{
	struct share *s = arg;
	static struct sharer workers[1 + SPINNERS];
	sched_group_init(&s->ga);
	sched_group_init(&s->gb);
	s->running = 1 + SPINNERS;
	for (int i = 0; i < 1 + SPINNERS; i++) {
		workers[i] = (struct sharer){ s, i == 0 ? 0 : 1 };
		struct thread *td = thread_create("share", share_worker, &workers[i]);
		thread_setgroup(td, i == 0 ? &s->ga : &s->gb);
		thread_start(td);
	}
	while (s->running > 0)
		tsleep(s, 0, "share", 0);
	sched_group_fini(&s->ga);
	sched_group_fini(&s->gb);
	sched_halt();
}

TEST(runq_groups_share_evenly)
{
	/*
	 * One thread against four: half the CPU time, not a fifth.  Time,
	 * not slices: the scheduler charges a slice the wall time it took,
	 * and on a loaded host a slice the host preempted took many times
	 * its 300 us, which shifted the count of slices by a tenth or more.
	 */
	static struct share s;
	memset(&s, 0, sizeof(s));
	run_kernel(share_main, &s);
	CHECK_EQ(s.slices[0] + s.slices[1], SLICES);
	uint64_t total = s.ns[0] + s.ns[1];
	int pct = total != 0 ? (int)(s.ns[0] * 100 / total) : 0;
	printf("group of 1 thread: %d of %d slices, %d%% of the time\n",
	    s.slices[0], SLICES, pct);
	CHECK(pct >= 35 && pct <= 65);
}
