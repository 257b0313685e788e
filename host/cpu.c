/*
 * Virtual CPUs (see cpu.h): the threads, their placement, the per-CPU
 * tick (a POSIX timer aimed at the CPU's own thread, the article's
 * systimer over a cputimer), the mailbox and the sleep that any post ends.
 */
#include <errno.h>
#include <linux/futex.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "cpu.h"
#include "hostsync.h"

#define CPU_SPIN_NS	20000	/* >= one hand-off round trip; 5 us was too short */

static struct vcpu *cpus[MAXCPU];
static int ncpus;
static pthread_mutex_t cpus_lock = PTHREAD_MUTEX_INITIALIZER;	/* cpu_post_id vs cpu_join */
static enum cpu_placement placement;
static cpu_set_t spare;		/* allowed cores that no CPU is placed on */
static int tick_hz;
static int tick_signo;
static __thread struct vcpu *curcpu;

int
cpu_placement_parse(const char *s)
{
	if (strcmp(s, "latency") == 0)
		return CPU_PLACE_LATENCY;
	if (strcmp(s, "density") == 0)
		return CPU_PLACE_DENSITY;
	if (strcmp(s, "none") == 0)
		return CPU_PLACE_NONE;
	errno = EINVAL;
	return -1;
}

const char *
cpu_placement_name(enum cpu_placement p)
{
	static const char *const names[] = { "none", "latency", "density" };
	return (unsigned)p < 3 ? names[p] : "?";
}

/* The n-th host core (wrapping) among those the vkernel may use. */
static int
host_core(const cpu_set_t *allowed, int n)
{
	int count = CPU_COUNT(allowed);
	if (count < 1)
		return 0;
	n %= count;
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, allowed) && n-- == 0)
			return c;
	return 0;
}

/*
 * Host cores for CPU id of n.  Latency: each CPU's guests on a core of
 * their own and the CPU's thread on another, which with 2n cores or more
 * is a core no one else uses (CPU i on allowed core 2i, its guests on 2i
 * + 1).  With fewer, guests come first: the stubs of CPU i go on core i
 * (wrapping), so that n CPUs' guests compute on n different cores, and
 * the CPU's thread, which mostly waits, on the next core, that of
 * another CPU's guests.  Pinning every CPU's stubs to the same core (the
 * 2i + 1 rule wrapped on 2 cores) kept two CPU-bound guests of -n 2 on
 * one core: no faster than -n 1.  Density: both on allowed core id.
 */
static void
cpu_place(struct vcpu *cpu, int n, const cpu_set_t *allowed)
{
	int ncores = CPU_COUNT(allowed);

	cpu->host_core = cpu->stub_core = -1;
	cpu->spin_ns = 0;
	switch (placement) {
	case CPU_PLACE_LATENCY:
		if (ncores >= 2 * n) {
			cpu->host_core = host_core(allowed, 2 * cpu->id);
			cpu->stub_core = host_core(allowed, 2 * cpu->id + 1);
		} else {
			cpu->stub_core = host_core(allowed, cpu->id);
			cpu->host_core = host_core(allowed, cpu->id + 1);
		}
		/* Spinning against oneself on one core is pure loss. */
		if (cpu->stub_core != cpu->host_core)
			cpu->spin_ns = CPU_SPIN_NS;
		break;
	case CPU_PLACE_DENSITY:
		cpu->host_core = cpu->stub_core = host_core(allowed, cpu->id);
		break;
	case CPU_PLACE_NONE:
		break;
	}
}

int
cpu_configure(int n, enum cpu_placement place, int hz)
{
	if (n < 1 || n > MAXCPU || ncpus != 0 || hz < 0 || hz > 10000 ||
	    (unsigned)place > CPU_PLACE_DENSITY) {
		errno = EINVAL;
		return -1;
	}
	cpu_set_t allowed;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		return -1;
	placement = place;
	tick_hz = hz;
	spare = allowed;
	for (int i = 0; i < n; i++) {
		struct vcpu *cpu = calloc(1, sizeof(*cpu));
		if (cpu == NULL) {
			while (i-- > 0)
				free(cpus[i]);
			return -1;
		}
		cpu->id = i;
		cpu_place(cpu, n, &allowed);
		if (cpu->host_core >= 0)
			CPU_CLR(cpu->host_core, &spare);
		if (cpu->stub_core >= 0)
			CPU_CLR(cpu->stub_core, &spare);
		cpus[i] = cpu;
	}
	pthread_mutex_lock(&cpus_lock);
	ncpus = n;
	pthread_mutex_unlock(&cpus_lock);
	return 0;
}

int
cpu_tick_hz(void)
{
	return tick_hz;
}

int
cpu_count(void)
{
	return ncpus;
}

struct vcpu *
cpu_get(int id)
{
	return id >= 0 && id < ncpus ? cpus[id] : NULL;
}

struct vcpu *
cpu_self(void)
{
	return curcpu;
}

__thread void *cpu_local_data;

int
cpu_thread_stack(void **addr, size_t *size)
{
	pthread_attr_t attr;
	int error = -1;
	if (pthread_getattr_np(pthread_self(), &attr) == 0) {
		if (pthread_attr_getstack(&attr, addr, size) == 0)
			error = 0;
		pthread_attr_destroy(&attr);
	}
	return error;
}

int
cpu_pin_task(pid_t tid, int core)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(core, &set);
	return sched_setaffinity(tid, sizeof(set), &set);
}

/*
 * The machine's stops: one writer (the CPU that stops the others), any
 * number of readers on other threads; the sequence word is odd while
 * the two others change, so that a reader never counts a stop that just
 * ended twice, nor misses it.
 */
static uint32_t stop_seq;
static uint64_t stop_since;	/* when the stop under way began, or 0 */
static uint64_t stop_total;	/* the stops that ended */

static void
stop_set(uint64_t since, uint64_t total)
{
	__atomic_add_fetch(&stop_seq, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&stop_since, since, __ATOMIC_RELEASE);
	__atomic_store_n(&stop_total, total, __ATOMIC_RELEASE);
	__atomic_add_fetch(&stop_seq, 1, __ATOMIC_ACQ_REL);
}

void
cpu_stop_begin(void)
{
	if (__atomic_load_n(&stop_since, __ATOMIC_ACQUIRE) == 0)
		stop_set(host_nanotime(), stop_total);
}

void
cpu_stop_end(void)
{
	uint64_t since = __atomic_load_n(&stop_since, __ATOMIC_ACQUIRE);
	if (since != 0)
		stop_set(0, stop_total + (host_nanotime() - since));
}

uint64_t
cpu_stopped_ns(void)
{
	uint32_t seq;
	uint64_t since, total;
	do {
		seq = __atomic_load_n(&stop_seq, __ATOMIC_ACQUIRE);
		since = __atomic_load_n(&stop_since, __ATOMIC_ACQUIRE);
		total = __atomic_load_n(&stop_total, __ATOMIC_ACQUIRE);
	} while ((seq & 1) || seq != __atomic_load_n(&stop_seq, __ATOMIC_ACQUIRE));
	return since != 0 ? total + (host_nanotime() - since) : total;
}

int
cpu_pin_spare(pid_t tid)
{
	if (CPU_COUNT(&spare) == 0) {
		errno = ENOENT;
		return -1;
	}
	return sched_setaffinity(tid, sizeof(spare), &spare);
}

bool
cpu_has_spare(void)
{
	return CPU_COUNT(&spare) != 0;
}

void
cpu_post(struct vcpu *cpu, uint32_t bits)
{
	/* pending first: whoever sees WW_WAKE must also see the bits. */
	__atomic_fetch_or(&cpu->pending, bits, __ATOMIC_SEQ_CST);
	ww_post(&cpu->idleword, WW_WAKE);
}

void
cpu_post_id(int id, uint32_t bits)
{
	pthread_mutex_lock(&cpus_lock);
	struct vcpu *cpu = cpu_get(id);
	if (cpu != NULL)
		cpu_post(cpu, bits);
	pthread_mutex_unlock(&cpus_lock);
}

void
cpu_sleep(struct vcpu *cpu, uint32_t *w, uint32_t want, uint64_t timeout_ns)
{
	struct timespec rel = host_timespec(timeout_ns);
	const struct timespec *relp = timeout_ns ? &rel : NULL;

	if (cpu == NULL) {
		ww_sleep(w, want, relp);
		return;
	}
	if (w == NULL) {
		ww_sleep(&cpu->idleword, WW_WAKE, relp);
		__atomic_store_n(&cpu->idleword, 0, __ATOMIC_SEQ_CST);
		return;
	}

	/* The guest did not come back within the spin: the owed kick goes. */
	if (cpu->kick_owed != NULL) {
		cpu_post(cpu->kick_owed, INTR_KICK);
		cpu->kick_owed = NULL;
	}

	/* Mark both words sleeping, each only from a value with nothing for us. */
	uint32_t iv = 0, v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
	if (!__atomic_compare_exchange_n(&cpu->idleword, &iv, WW_SLEEPING, 0,
	    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		goto out;
	if ((v & want) != 0 || !__atomic_compare_exchange_n(w, &v,
	    v | WW_SLEEPING, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
		goto out;

	struct futex_waitv fw[2] = {
		{ .val = v | WW_SLEEPING, .uaddr = (uintptr_t)w, .flags = FUTEX_32 },
		{ .val = WW_SLEEPING, .uaddr = (uintptr_t)&cpu->idleword,
		  .flags = FUTEX_32 },
	};
	struct timespec abs, *absp = NULL;
	if (timeout_ns) {
		uint64_t t = host_nanotime() + timeout_ns;
		abs = host_timespec(t);
		absp = &abs;
	}
	syscall(SYS_futex_waitv, fw, 2, 0, absp, CLOCK_MONOTONIC);
	__atomic_and_fetch(w, ~WW_SLEEPING, __ATOMIC_SEQ_CST);
out:
	/* The WW_WAKE mark has done its job; pending keeps the bits. */
	__atomic_store_n(&cpu->idleword, 0, __ATOMIC_SEQ_CST);
}

static void
cpu_tick_handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)si, (void)uc;
	struct vcpu *cpu = curcpu;
	if (cpu != NULL) {
		__atomic_fetch_add(&cpu->ticks, 1, __ATOMIC_RELAXED);
		cpu_post(cpu, INTR_TICK);
	}
}

static int
cpu_tick_start(struct vcpu *cpu)
{
	struct sigevent sev = { 0 };
	timer_t t;

	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = tick_signo;
	sev._sigev_un._tid = cpu->tid;
	if (timer_create(CLOCK_MONOTONIC, &sev, &t) < 0)
		return -1;
	long ns = 1000000000L / tick_hz;
	struct itimerspec its = { { ns / 1000000000L, ns % 1000000000L },
	    { ns / 1000000000L, ns % 1000000000L } };
	if (timer_settime(t, 0, &its, NULL) < 0) {
		timer_delete(t);
		return -1;
	}
	cpu->tick_timer = t;
	return 0;
}

static void *
cpu_thread(void *arg)
{
	struct vcpu *cpu = arg;

	curcpu = cpu;
	cpu->tid = (pid_t)syscall(SYS_gettid);
	if (cpu->host_core >= 0)
		(void)cpu_pin_task(0, cpu->host_core);
	if (tick_hz > 0 && cpu_tick_start(cpu) < 0)
		abort();	/* timers are a host resource we cannot run without */
	cpu->main(cpu, cpu->arg);
	if (cpu->tick_timer != NULL)
		timer_delete((timer_t)cpu->tick_timer);
	curcpu = NULL;
	return NULL;
}

int
cpu_start(void (*fn)(struct vcpu *, void *), void *arg)
{
	if (ncpus == 0) {
		errno = EINVAL;
		return -1;
	}
	if (tick_hz > 0) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = cpu_tick_handler;
		sa.sa_flags = SA_SIGINFO;	/* no SA_RESTART: waits must end */
		sigemptyset(&sa.sa_mask);
		tick_signo = SIGRTMIN + 1;
		if (sigaction(tick_signo, &sa, NULL) < 0)
			return -1;
	}
	for (int i = 0; i < ncpus; i++) {
		cpus[i]->arg = arg;
		cpus[i]->main = fn;
		int e = pthread_create(&cpus[i]->thread, NULL, cpu_thread, cpus[i]);
		if (e != 0) {
			cpus[i]->main = NULL;
			errno = e;
			return -1;
		}
	}
	return 0;
}

void
cpu_join(void)
{
	for (int i = 0; i < ncpus; i++) {
		if (cpus[i]->main != NULL)	/* started */
			pthread_join(cpus[i]->thread, NULL);
	}
	pthread_mutex_lock(&cpus_lock);
	for (int i = 0; i < ncpus; i++) {
		free(cpus[i]);
		cpus[i] = NULL;
	}
	ncpus = 0;
	pthread_mutex_unlock(&cpus_lock);
}
