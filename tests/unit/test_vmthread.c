/*
 * Several guest threads in one vmspace (vmspace_thread_create): each
 * runs from its own registers and reports its own traps, threads run at
 * once from different host threads, a kick ends only the thread it is
 * for, an invalidation from a third thread leaves no stale translation,
 * a dead stub gives T_DEAD to every thread, and the number of threads is
 * bounded.  Guest code is in guest_threads.S.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/cpu.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

GUEST(thr_report);
GUEST(thr_add);
GUEST(thr_spin);
GUEST(thr_load);

#define SYS_REPORT	1000

/* A guest thread's registers: its own stack below the others'. */
struct gthread {
	struct vmt *v;
	int n;
	struct trapframe tf;
	struct vextframe vf;
};

static void
gthread_init(struct gthread *g, struct vmt *v, int n, uint64_t rip)
{
	g->v = v;
	g->n = n;
	g->tf = (struct trapframe){ .tf_rip = rip, .tf_rflags = 0x202,
	    .tf_rsp = VMT_STACK - 64 - (uint64_t)n * 1024 };
	vmspace_fpu_init(&g->vf);
}

static int
gthread_run(struct gthread *g)
{
	if (vmspace_thread_ctl(g->v, g->n, VMSPACE_CTL_RUN, &g->tf, &g->vf) < 0)
		return -1;
	g->tf.tf_xflags = 0;
	return (int)g->tf.tf_trapno;
}

/* Host tasks of the stub: its /proc/PID/task entries. */
static int
stub_tasks(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	char line[256];
	int n = -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

TEST(vmthread_create_run_destroy)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(thr_report));
	vmt_stack(&v);
	pid_t pid = vmt_host(&v)->pid;
	CHECK_EQ(stub_tasks(pid), 2);

	int n = vmspace_thread_create(&v);
	CHECK_EQ(n, 1);
	CHECK_EQ(stub_tasks(pid), 3);
	struct gthread g;
	gthread_init(&g, &v, n, VMT_CODE);
	g.tf.tf_rdi = 0x1234;
	g.tf.tf_rsi = 0x5678;
	CHECK_EQ(gthread_run(&g), T_SYSCALL);
	CHECK_EQ(g.tf.tf_rax, SYS_REPORT);
	CHECK_EQ(g.tf.tf_rdi, 0x1234);
	CHECK_EQ(g.tf.tf_rsi, 0x5678);
	CHECK_EQ(g.tf.tf_rdx, 1);

	/* Thread 0 is another thread: its own registers and count. */
	v.tf.tf_rdi = 0xaaaa;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rdi, 0xaaaa);
	CHECK_EQ(v.tf.tf_rdx, 1);
	CHECK_EQ(gthread_run(&g), T_SYSCALL);
	CHECK_EQ(g.tf.tf_rdi, 0x1234);
	CHECK_EQ(g.tf.tf_rdx, 2);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rdx, 2);

	/* A second thread, then the first goes; its number comes back. */
	int m = vmspace_thread_create(&v);
	CHECK_EQ(m, 2);
	CHECK_EQ(vmspace_thread_destroy(&v, n), 0);
	CHECK_EQ(stub_tasks(pid), 3);
	errno = 0;
	CHECK_EQ(vmspace_thread_ctl(&v, n, VMSPACE_CTL_RUN, &g.tf, &g.vf), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(vmspace_thread_create(&v), n);
	gthread_init(&g, &v, n, VMT_CODE);
	g.tf.tf_rdi = 0x4321;
	CHECK_EQ(gthread_run(&g), T_SYSCALL);
	CHECK_EQ(g.tf.tf_rdi, 0x4321);
	CHECK_EQ(g.tf.tf_rdx, 1);
	CHECK_EQ(stub_tasks(pid), 4);

	/* Bad numbers. */
	errno = 0;
	CHECK_EQ(vmspace_thread_destroy(&v, 0), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(vmspace_thread_destroy(&v, 77), -1);
	CHECK_EQ(errno, ENOENT);
	errno = 0;
	CHECK_EQ(vmspace_thread_destroy(&v, -1), -1);
	CHECK_EQ(errno, ENOENT);
	errno = 0;
	CHECK_EQ(vmspace_thread_create((void *)&errno), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK(!vmt_host(&v)->dead);
	vmt_destroy(&v);
}

/* ------------------------------------------------------------------ */

#define MS		1000000UL
#define SEC		1000000000UL
#define WATCHDOG_NS	(20 * SEC)	/* a test this slow is hung */

static int
load(const int *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

static void
store(int *p, int v)
{
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

static void
sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / SEC), (long)(ns % SEC) };
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * Two virtual CPUs, each running guest thread cpu->id of one vmspace
 * through body; the main thread watches, and kills the stub if they do
 * not finish, so that a broken backend fails instead of hanging.
 */
struct pjob {
	struct vmt v;
	struct gthread g[2];
	void (*body)(struct pjob *, struct vcpu *, struct gthread *);
	int running[2];		/* in a run now */
	int done[2];
	int trap[2];
	uint64_t returned_at[2];
	int stop;
	int bad, runs;
	uint64_t published;	/* vmthread_inval_race: the generation mapped */
	uint64_t va;
};

static void
pjob_main(struct vcpu *cpu, void *arg)
{
	struct pjob *j = arg;
	j->body(j, cpu, &j->g[cpu->id]);
	store(&j->done[cpu->id], 1);
}

static bool
pjob_start(struct pjob *j)
{
	if (cpu_configure(2, CPU_PLACE_NONE, 0) < 0) {
		unit_fail(__FILE__, __LINE__, "cpu_configure: %s", strerror(errno));
		return false;
	}
	if (cpu_start(pjob_main, j) < 0) {
		unit_fail(__FILE__, __LINE__, "cpu_start: %s", strerror(errno));
		return false;
	}
	return true;
}

/* Waits for both CPUs; kills the stub if they hang.  False if they did. */
static bool
pjob_end(struct pjob *j)
{
	uint64_t end = host_nanotime() + WATCHDOG_NS;
	bool ok = true;
	while (!load(&j->done[0]) || !load(&j->done[1])) {
		if (ok && host_nanotime() > end) {
			unit_fail(__FILE__, __LINE__, "CPUs did not finish");
			store(&j->stop, 1);
			kill(vmt_host(&j->v)->pid, SIGKILL);
			ok = false;
		}
		sleep_ns(MS);
	}
	cpu_join();
	return ok;
}

/* A vmspace with the code and a stack, and thread 1 beside thread 0. */
static bool
pjob_vmspace(struct pjob *j, const char *code, size_t len)
{
	if (vmt_create(&j->v, NULL) < 0)
		return false;
	vmt_code(&j->v, code, len);
	vmt_stack(&j->v);
	if (vmspace_thread_create(&j->v) != 1)
		return false;
	gthread_init(&j->g[0], &j->v, 0, VMT_CODE);
	gthread_init(&j->g[1], &j->v, 1, VMT_CODE);
	return true;
}

#define ADD_N		200000
#define ADD_ROUNDS	10

static void
add_body(struct pjob *j, struct vcpu *cpu, struct gthread *g)
{
	(void)cpu;
	for (int i = 0; i < ADD_ROUNDS; i++) {
		int t = gthread_run(g);
		if (t != T_SYSCALL || g->tf.tf_rax != SYS_REPORT) {
			j->trap[cpu->id] = t;
			j->bad++;
			return;
		}
	}
}

/*
 * Two threads of one vmspace on two CPUs add to one counter with lock
 * incq: the total is exact, and they ran at once (their runs overlap in
 * time on a 2-core machine; printed, not asserted).
 */
TEST(vmthread_parallel_add)
{
	static struct pjob j;
	memset(&j, 0, sizeof(j));
	REQUIRE(pjob_vmspace(&j, GUEST_CODE(thr_add)));
	uint64_t pa = vmt_page();
	vmt_map(&j.v, VMT_DATA, pa, VPTE_USER_RW | VPTE_NX);
	for (int i = 0; i < 2; i++) {
		j.g[i].tf.tf_rdi = VMT_DATA + 64;
		j.g[i].tf.tf_rsi = ADD_N;
	}
	j.body = add_body;
	uint64_t t0 = host_nanotime();
	REQUIRE(pjob_start(&j));
	REQUIRE(pjob_end(&j));
	uint64_t ns = host_nanotime() - t0;
	CHECK_EQ(j.bad, 0);
	uint64_t total = *(uint64_t *)PHYS_TO_DMAP(pa + 64);
	CHECK_EQ(total, 2UL * ADD_N * ADD_ROUNDS);
	printf("    2 threads x %d lock incq: %.1f ms\n", ADD_N * ADD_ROUNDS,
	    ns / 1e6);
	CHECK(!vmt_host(&j.v)->dead);
	vmt_destroy(&j.v);
}

static void
spin_body(struct pjob *j, struct vcpu *cpu, struct gthread *g)
{
	store(&j->running[cpu->id], 1);
	j->trap[cpu->id] = gthread_run(g);
	__atomic_store_n(&j->returned_at[cpu->id], host_nanotime(),
	    __ATOMIC_RELEASE);
	cpu_take(cpu);
	store(&j->running[cpu->id], 0);
}

/*
 * Both threads spin on two CPUs; an interrupt for CPU 1 ends thread 1's
 * run alone with T_INTR, thread 0 spins on until CPU 0 has one too.
 */
TEST(vmthread_kick_one)
{
	static struct pjob j;
	memset(&j, 0, sizeof(j));
	REQUIRE(pjob_vmspace(&j, GUEST_CODE(thr_spin)));
	j.body = spin_body;
	REQUIRE(pjob_start(&j));
	uint64_t end = host_nanotime() + WATCHDOG_NS;
	while ((!load(&j.running[0]) || !load(&j.running[1])) &&
	    host_nanotime() < end)
		sleep_ns(MS);
	sleep_ns(20 * MS);		/* both in guest code by now */
	cpu_post(cpu_get(1), INTR_KICK);
	while (load(&j.running[1]) && host_nanotime() < end)
		sleep_ns(MS);
	sleep_ns(50 * MS);
	CHECK(load(&j.running[0]));	/* thread 0 still runs */
	cpu_post(cpu_get(0), INTR_KICK);
	REQUIRE(pjob_end(&j));
	CHECK_EQ(j.trap[0], T_INTR);
	CHECK_EQ(j.trap[1], T_INTR);
	CHECK(j.returned_at[0] > j.returned_at[1] + 40 * MS);
	CHECK(!vmt_host(&j.v)->dead);
	vmt_destroy(&j.v);
}

#define RACE_GENS	500
#define RACE_PAGES	8

static void
race_body(struct pjob *j, struct vcpu *cpu, struct gthread *g)
{
	(void)cpu;
	while (!load(&j->stop)) {
		uint64_t before = __atomic_load_n(&j->published, __ATOMIC_ACQUIRE);
		int t = gthread_run(g);
		if (t != T_SYSCALL) {
			j->bad++;
			j->trap[cpu->id] = t;
			return;
		}
		/* What the run read was mapped after the generation published before it. */
		if (g->tf.tf_rsi < before)
			j->bad++;
		__atomic_fetch_add(&j->runs, 1, __ATOMIC_RELAXED);
	}
}

/*
 * Two threads read a page in a loop while the main thread, a third CPU
 * of sorts, puts a new page under it (a VPTE change) and invalidates,
 * again and again: a thread never reads a page older than the last one
 * whose invalidation had returned before its run began.  The two
 * threads' faults on the range are served concurrently with the
 * invalidations.
 */
TEST(vmthread_inval_race)
{
	static struct pjob j;
	memset(&j, 0, sizeof(j));
	REQUIRE(pjob_vmspace(&j, GUEST_CODE(thr_load)));
	uint64_t va = VMT_DATA + 3 * PAGE_SIZE;
	for (int i = 0; i < RACE_PAGES; i++)
		vmt_map(&j.v, VMT_DATA + i * PAGE_SIZE, vmt_page(), VPTE_USER_RW);
	vpte_t *pte = vmt_pte(&j.v, va);
	uint64_t pa = vmt_page();
	*(uint64_t *)PHYS_TO_DMAP(pa) = 0;
	__atomic_store_n(pte, pa | VPTE_USER_RW, __ATOMIC_RELEASE);
	for (int i = 0; i < 2; i++)
		j.g[i].tf.tf_rdi = va;
	j.body = race_body;
	uint64_t served0 = vmt_host(&j.v)->nserved;
	uint64_t t0 = host_nanotime();
	REQUIRE(pjob_start(&j));
	for (uint64_t gen = 1; gen <= RACE_GENS && !load(&j.bad); gen++) {
		pa = vmt_page();
		*(uint64_t *)PHYS_TO_DMAP(pa) = gen;
		__atomic_store_n(pte, pa | VPTE_USER_RW, __ATOMIC_RELEASE);
		CHECK_EQ(vmspace_mcontrol(&j.v, (void *)VMT_DATA,
		    RACE_PAGES * PAGE_SIZE, MADV_INVAL, NULL), 0);
		__atomic_store_n(&j.published, gen, __ATOMIC_RELEASE);
		if (gen % 8 == 0)
			sleep_ns(100000);	/* let the readers fault it in */
	}
	store(&j.stop, 1);
	REQUIRE(pjob_end(&j));
	uint64_t ns = host_nanotime() - t0;
	uint64_t served = vmt_host(&j.v)->nserved - served0;
	CHECK_EQ(j.bad, 0);
	CHECK(j.runs > 0);
	CHECK(*pte & VPTE_A);
	CHECK(!vmt_host(&j.v)->dead);
	printf("    %d invalidations, %d runs, %lu faults served: %.0f faults/s\n",
	    RACE_GENS, j.runs, (unsigned long)served, served * 1e9 / ns);
	vmt_destroy(&j.v);
}

/* The stub dies: every thread's run, parked or running, gives T_DEAD. */
TEST(vmthread_dead_all)
{
	static struct pjob j;
	memset(&j, 0, sizeof(j));
	REQUIRE(pjob_vmspace(&j, GUEST_CODE(thr_spin)));
	int n2 = vmspace_thread_create(&j.v);
	CHECK_EQ(n2, 2);
	j.body = spin_body;
	REQUIRE(pjob_start(&j));
	uint64_t end = host_nanotime() + WATCHDOG_NS;
	while ((!load(&j.running[0]) || !load(&j.running[1])) &&
	    host_nanotime() < end)
		sleep_ns(MS);
	sleep_ns(20 * MS);
	uint64_t t0 = host_nanotime();
	CHECK_EQ(kill(vmt_host(&j.v)->pid, SIGKILL), 0);
	REQUIRE(pjob_end(&j));
	CHECK_EQ(j.trap[0], T_DEAD);
	CHECK_EQ(j.trap[1], T_DEAD);
	uint64_t last = j.returned_at[0] > j.returned_at[1] ?
	    j.returned_at[0] : j.returned_at[1];
	CHECK(last - t0 < 2 * SEC);
	printf("    both running threads saw T_DEAD after %.1f ms\n",
	    (last - t0) / 1e6);
	/* The parked one, and a thread made after the death. */
	struct gthread g;
	gthread_init(&g, &j.v, n2, VMT_CODE);
	CHECK_EQ(gthread_run(&g), T_DEAD);
	int n3 = vmspace_thread_create(&j.v);
	CHECK(n3 > 0);
	gthread_init(&g, &j.v, n3, VMT_CODE);
	CHECK_EQ(gthread_run(&g), T_DEAD);
	CHECK_EQ(vmspace_thread_destroy(&j.v, n2), 0);
	CHECK_EQ(vmspace_thread_destroy(&j.v, n3), 0);
	CHECK(vmt_host(&j.v)->dead);
	vmt_destroy(&j.v);
}

/*
 * Threads up to the limit, then EAGAIN; each runs in its own slot (the
 * last one too); one destroyed makes room for one more.  Prints the
 * cost of a thread create and destroy.
 */
TEST(vmthread_limit)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(thr_report));
	vmt_stack(&v);
	int n, last = 0;
	uint64_t t0 = host_nanotime();
	for (n = 1; n < STUB_MAXTHREADS + 8; n++) {
		int r = vmspace_thread_create(&v);
		if (r < 0)
			break;
		CHECK_EQ(r, n);
		last = r;
	}
	uint64_t ns = host_nanotime() - t0;
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(last, STUB_MAXTHREADS - 1);
	printf("    %d threads: %.1f us per create\n", last, ns / 1e3 / last);
	struct gthread g;
	for (int i = last; i > last - 3 && i > 0; i--) {
		gthread_init(&g, &v, i, VMT_CODE);
		g.tf.tf_rsp = VMT_STACK - 64;
		g.tf.tf_rdi = (uint64_t)i;
		CHECK_EQ(gthread_run(&g), T_SYSCALL);
		CHECK_EQ(g.tf.tf_rdi, (uint64_t)i);
	}
	t0 = host_nanotime();
	CHECK_EQ(vmspace_thread_destroy(&v, 7), 0);
	CHECK_EQ(vmspace_thread_create(&v), 7);
	printf("    destroy + create: %.1f us\n", (host_nanotime() - t0) / 1e3);
	errno = 0;
	CHECK_EQ(vmspace_thread_create(&v), -1);
	CHECK_EQ(errno, EAGAIN);
	CHECK_EQ(stub_tasks(vmt_host(&v)->pid), STUB_MAXTHREADS + 1);
	CHECK(!vmt_host(&v)->dead);
	vmt_destroy(&v);
}

/*
 * A parked thread is audited on its own host thread: asleep in its own
 * handler, it is verified (thread 0, parked too, sleeps on another word).
 */
TEST(vmthread_audit)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(thr_report));
	vmt_stack(&v);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	int n = vmspace_thread_create(&v);
	REQUIRE(n > 0);
	struct gthread g;
	gthread_init(&g, &v, n, VMT_CODE);
	CHECK_EQ(gthread_run(&g), T_SYSCALL);
	sleep_ns(30 * MS);
	vmspace_audit();
	struct vmspace_host *vh = vmt_host(&v);
	CHECK(vh->t0.verified);
	CHECK(vh->threads[n]->verified);
	CHECK(!vh->dead);
	vmt_destroy(&v);
}
