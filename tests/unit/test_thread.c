/*
 * Kernel threads, the scheduler, sleep and wakeup, on real virtual CPUs.
 */
#include <pthread.h>
#include <stdatomic.h>

#include "host/cpu.h"
#include "kern/thread.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"
#include "kern/kmem.h"
#include "kern/vm_page.h"

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

struct pingpong {
	int turn, rounds, done;
	int log[64], nlog;
};

static void
pinger(void *arg)
{
	struct pingpong *p = arg;
	for (int i = 0; i < p->rounds; i++) {
		while (p->turn != 0)
			tsleep(&p->turn, 0, "ping", 0);
		p->turn = 1;
		wakeup(&p->turn);
	}
	p->done++;
	wakeup(&p->done);
}

static void
ponger(void *arg)
{
	struct pingpong *p = arg;
	for (int i = 0; i < p->rounds; i++) {
		while (p->turn != 1)
			tsleep(&p->turn, 0, "pong", 0);
		p->turn = 0;
		wakeup(&p->turn);
	}
	p->done++;
	wakeup(&p->done);
}

static void
pingpong_main(void *arg)
{
	struct pingpong *p = arg;
	thread_start(thread_create("ping", pinger, p));
	thread_start(thread_create("pong", ponger, p));
	while (p->done < 2)
		tsleep(&p->done, 0, "wait", 0);
	sched_halt();
}

TEST(thread_sleep_wakeup_pingpong)
{
	static struct pingpong p;
	memset(&p, 0, sizeof(p));
	p.rounds = 10000;
	run_kernel(1, 100, pingpong_main, &p);
	CHECK_EQ(p.done, 2);
	CHECK_EQ(p.turn, 0);
}

TEST(thread_pingpong_two_cpus)
{
	static struct pingpong p;
	memset(&p, 0, sizeof(p));
	p.rounds = 2000;
	run_kernel(2, 100, pingpong_main, &p);
	CHECK_EQ(p.done, 2);
}

struct timeo {
	int error;
	uint64_t slept;
};

static void
timeout_main(void *arg)
{
	struct timeo *t = arg;
	uint64_t t0 = nanouptime();
	t->error = tsleep(t, 0, "timeo", 30000000);	/* 30 ms */
	t->slept = nanouptime() - t0;
	sched_halt();
}

TEST(thread_tsleep_timeout)
{
	static struct timeo t;
	run_kernel(1, 100, timeout_main, &t);
	CHECK_EQ(t.error, EWOULDBLOCK);
	CHECK(t.slept >= 30000000);
	CHECK(t.slept < 2000000000);		/* generous: CI machines stall */
}

TEST(thread_tsleep_timeout_no_tick)
{
	/* Without a tick the idle CPU still wakes for the deadline. */
	static struct timeo t;
	run_kernel(1, 0, timeout_main, &t);
	CHECK_EQ(t.error, EWOULDBLOCK);
	CHECK(t.slept >= 30000000);
}

struct rr {
	int log[30], nlog;
	int running;
};

static void
rr_worker(void *arg)
{
	struct rr *r = arg;
	static int next_id;
	int id = next_id++ % 3;
	for (int i = 0; i < 10; i++) {
		r->log[r->nlog++] = id;
		thread_yield();
	}
	if (--r->running == 0)
		wakeup(r);
}

static void
rr_main(void *arg)
{
	struct rr *r = arg;
	r->running = 3;
	for (int i = 0; i < 3; i++)
		thread_start(thread_create("rr", rr_worker, r));
	while (r->running > 0)
		tsleep(r, 0, "rr", 0);
	sched_halt();
}

TEST(thread_yield_round_robin)
{
	static struct rr r;
	memset(&r, 0, sizeof(r));
	run_kernel(1, 0, rr_main, &r);
	REQUIRE(r.nlog == 30);
	for (int i = 0; i < 30; i++)
		CHECK_EQ(r.log[i], r.log[i % 3]);
	CHECK(r.log[0] != r.log[1] && r.log[1] != r.log[2] && r.log[0] != r.log[2]);
}

struct one {
	int woken, sleepers, error[3];
	char chan;		/* what the sleepers sleep on, alone */
};

static void
one_sleeper(void *arg)
{
	struct one *o = arg;
	o->sleepers++;
	wakeup(&o->sleepers);
	tsleep(&o->chan, 0, "one", 0);
	o->woken++;
	wakeup(&o->woken);
}

static void
one_main(void *arg)
{
	struct one *o = arg;
	for (int i = 0; i < 3; i++)
		thread_start(thread_create("one", one_sleeper, o));
	while (o->sleepers < 3)
		tsleep(&o->sleepers, 0, "start", 0);
	/* Everyone else is asleep now; exactly one wakes per wakeup_one. */
	wakeup_one(&o->chan);
	while (o->woken < 1)
		tsleep(&o->woken, 0, "w1", 0);
	tsleep(&o->error, 0, "settle", 20000000);
	o->error[0] = o->woken;
	wakeup(&o->chan);
	while (o->woken < 3)
		tsleep(&o->woken, 0, "w3", 0);
	sched_halt();
}

TEST(thread_wakeup_one)
{
	static struct one o;
	memset(&o, 0, sizeof(o));
	run_kernel(1, 100, one_main, &o);
	CHECK_EQ(o.error[0], 1);
	CHECK_EQ(o.woken, 3);
}

struct intr {
	struct thread *sleeper;
	int error, asleep;
};

static void
intr_sleeper(void *arg)
{
	struct intr *in = arg;
	in->asleep = 1;
	wakeup(&in->asleep);
	in->error = tsleep(in, PCATCH, "intr", 0);
	in->asleep = 2;
	wakeup(&in->asleep);
}

static void
intr_main(void *arg)
{
	struct intr *in = arg;
	in->sleeper = thread_create("sleeper", intr_sleeper, in);
	thread_start(in->sleeper);
	while (in->asleep != 1)
		tsleep(&in->asleep, 0, "a1", 0);
	thread_interrupt(in->sleeper);
	while (in->asleep != 2)
		tsleep(&in->asleep, 0, "a2", 0);
	sched_halt();
}

TEST(thread_interrupt_pcatch)
{
	static struct intr in;
	memset(&in, 0, sizeof(in));
	run_kernel(1, 0, intr_main, &in);
	CHECK_EQ(in.error, EINTR);
}

static int exited;

static void
short_lived(void *arg)
{
	(void)arg;
	exited++;
}

static void
exit_main(void *arg)
{
	(void)arg;
	for (int i = 0; i < 200; i++) {
		thread_start(thread_create("short", short_lived, NULL));
		if (i % 10 == 0)
			thread_yield();
	}
	while (exited < 200)
		thread_yield();
	sched_halt();
}

TEST(thread_exit_frees_stacks)
{
	vmt_ram();
	kmem_reclaim();
	uint64_t before = vmstats.v_free_count;
	exited = 0;
	run_kernel(1, 0, exit_main, NULL);
	CHECK_EQ(exited, 200);
	/* All stacks came back, the test thread's too (spare slabs aside). */
	kmem_reclaim();
	CHECK_EQ(vmstats.v_free_count, before);
}

struct counter {
	int value, workers;
};

static void
count_worker(void *arg)
{
	struct counter *c = arg;
	for (int i = 0; i < 1000; i++) {
		int v = c->value;
		if (i % 100 == 0)
			thread_yield();
		c->value = v + 1;
	}
	if (--c->workers == 0)
		wakeup(c);
}

static void
count_main(void *arg)
{
	struct counter *c = arg;
	c->workers = 8;
	for (int i = 0; i < 8; i++)
		thread_start(thread_create("count", count_worker, c));
	while (c->workers > 0)
		tsleep(c, 0, "count", 0);
	sched_halt();
}

TEST(thread_big_lock_two_cpus)
{
	/* Kernel code is serialised: a yield is the only point of switching. */
	static struct counter c;
	memset(&c, 0, sizeof(c));
	run_kernel(2, 100, count_main, &c);
	CHECK(c.value > 0 && c.value <= 8000);
	CHECK_EQ(c.workers, 0);
}

struct lockcheck {
	bool in_kernel, in_host_thread;
};

static void *
lockcheck_host(void *arg)
{
	struct lockcheck *lc = arg;
	lc->in_host_thread = kernel_locked();
	return NULL;
}

static void
lockcheck_main(void *arg)
{
	struct lockcheck *lc = arg;
	pthread_t t;
	lc->in_kernel = kernel_locked();
	/* Another host thread, while the CPU holds the lock: not its holder. */
	lc->in_host_thread = true;
	if (pthread_create(&t, NULL, lockcheck_host, lc) == 0)
		pthread_join(t, NULL);
	sched_halt();
}

/* kernel_locked: the holder is the CPU running kernel code, nobody else. */
TEST(thread_kernel_locked_holder)
{
	static struct lockcheck lc;
	CHECK(kernel_locked());		/* no CPU runs: single-threaded */
	run_kernel(1, 100, lockcheck_main, &lc);
	CHECK(lc.in_kernel);
	CHECK(!lc.in_host_thread);
	CHECK(kernel_locked());		/* the CPUs are gone again */
}
