/*
 * The scheduler: switching threads on each virtual CPU, its loop, CPU
 * time accounting, and the big kernel lock.  Which thread runs next is
 * the run queue's business (kern_runq.c: fair shares by virtual runtime,
 * one queue for all CPUs, each CPU with its own current thread).  A CPU
 * that leaves runnable threads on the queue kicks an idle CPU that may
 * run them (INTR_KICK, the inter-processor interrupt), which takes one
 * and, if more wait, kicks the next: no CPU sleeps while a thread it may
 * run waits.
 * Kernel code is not preempted: a thread runs until it sleeps, yields or
 * exits; user code is preempted by the tick (or a device interrupt) while
 * others wait, which marks the running thread TDF_NEEDRESCHED for its way
 * back to user mode.  Interrupts posted to a CPU are taken by its idle
 * loop and by sched_interrupts, which threads call before returning to
 * user mode.
 */
#include "host/clock.h"
#include "host/cpu.h"
#include "host/hostsync.h"
#include "host/trace.h"
#include "kern/sched.h"
#include "kern/thread.h"
#include "kern/timeout.h"
#include "kern/vclock.h"

struct sched_pcpu {
	struct vcpu *cpu;
	struct thread idle;
	struct thread *pc_curthread;
	struct thread *dead;		/* to free once off its stack */
	bool pc_kicked;			/* idle, and kicked for queued work */
	bool pc_kick_owed;		/* woke a thread for an idle CPU: see sched_setrunnable */
	uint64_t pc_owed_since;		/* ... since then (nanouptime) */
	int pc_state;			/* CP_USER (a guest runs), CP_SYS or CP_IDLE */
	uint64_t pc_since;		/* when it entered pc_state */
	uint64_t pc_time[CPUSTATES];	/* ns in each state, until pc_since */
	/*
	 * Waiting for the big lock (parked, while the debugger holds it):
	 * the frame kernel_lock was called from, for ddb's trace.
	 */
	uintptr_t pc_parkfp;
};

_Static_assert(MAXCPU <= 64, "a CPU mask is one 64-bit word");

static struct sched_pcpu pcpus[MAXCPU];

/* The calling CPU's, or NULL in a thread that is no CPU. */
static inline struct sched_pcpu *
mypcpu(void)
{
	return cpu_local();
}

static struct host_mutex big_lock = HOST_MUTEX_INITIALIZER;
static const void *big_lock_owner;	/* cpu_thread_token of the holder */
static int ncpus_running;		/* CPUs in sched_cpu_main */
static bool halting;
static uint64_t boottime;		/* nanouptime at sched_init */
static unsigned long avenrun[3];	/* LOAD_FSHIFT fixed point */
static uint64_t next_loadavg;

void (*sched_intr_hook)(struct vcpu *cpu, uint32_t bits);
int (*sched_signal_hook)(struct thread *td);

/*
 * A CPU that waits for the big lock spins this long before it sleeps in
 * the host.  Kernel entries hold the lock briefly (a getppid's whole
 * kernel side: 0.15-0.3 us on average), while a CPU asleep in the host
 * waits for the host to run it again: with two guests making system
 * calls on -n 2 at a host load of 9, 14 of 200,000 acquisitions found
 * the lock held and their CPUs slept 3 ms each on average; spinning, half
 * of them got it without sleeping.
 */
#define BIG_LOCK_SPIN_NS	10000

void
kernel_lock(void)
{
	if (!host_mutex_trylock(&big_lock)) {
		uint64_t t0 = nanouptime();
		while (!host_mutex_trylock(&big_lock)) {
			if (nanouptime() - t0 > BIG_LOCK_SPIN_NS) {
				struct sched_pcpu *pc = mypcpu();
				if (pc != NULL)
					__atomic_store_n(&pc->pc_parkfp,
					    (uintptr_t)__builtin_frame_address(0),
					    __ATOMIC_RELEASE);
				host_mutex_lock(&big_lock);
				if (pc != NULL)
					__atomic_store_n(&pc->pc_parkfp, 0,
					    __ATOMIC_RELEASE);
				break;
			}
			cpu_relax();
		}
	}
	__atomic_store_n(&big_lock_owner, cpu_thread_token(), __ATOMIC_RELAXED);
}

void
kernel_unlock(void)
{
	KASSERT(kernel_locked(), "kernel_unlock: not the holder");
	__atomic_store_n(&big_lock_owner, NULL, __ATOMIC_RELAXED);
	host_mutex_unlock(&big_lock);
}

/*
 * Only the holder can read its own token here: another thread sees NULL
 * or a third thread's token, never its own, so relaxed loads suffice.
 */
bool
kernel_locked(void)
{
	return __atomic_load_n(&big_lock_owner, __ATOMIC_RELAXED) ==
	    cpu_thread_token() ||
	    __atomic_load_n(&ncpus_running, __ATOMIC_RELAXED) == 0;
}

/*
 * The kernel's clocks are the guests' (kern/vclock.h), so that a sleep
 * or a file time agrees with what a guest reads; the host's until the
 * clock starts, or if the TSC cannot serve.
 */
uint64_t
nanouptime(void)
{
	int64_t ns;
	if (vclock_ns(CLOCK_MONOTONIC, &ns) == 0)
		return (uint64_t)ns;
	return host_nanotime();
}

void
nanotime(struct timespec *ts)
{
	int64_t ns;
	if (vclock_ns(CLOCK_REALTIME, &ns) == 0) {
		ts->tv_sec = ns / 1000000000;
		ts->tv_nsec = ns % 1000000000;
		return;
	}
	host_realtime(ts);
}

struct thread *
curthread_get(void)
{
	return mypcpu() != NULL ? mypcpu()->pc_curthread : NULL;
}

/* An idle CPU, not already kicked, that may run a thread waiting, or NULL. */
static struct sched_pcpu *
sched_idle_cpu(void)
{
	if (runq_length() == 0)
		return NULL;
	for (int i = 0; i < cpu_count(); i++) {
		struct sched_pcpu *pc = &pcpus[i];
		if (pc == mypcpu() || pc->cpu == NULL || pc->pc_kicked ||
		    pc->pc_curthread != &pc->idle || !runq_runnable(i))
			continue;
		return pc;
	}
	return NULL;
}

/*
 * Kicks one idle CPU, not already kicked, that may run a thread waiting
 * on the queue: the CPU that queued it may keep its own thread for a
 * whole slice.  The kicked CPU kicks the next if more wait.
 */
static void
sched_kick_idle(void)
{
	struct sched_pcpu *pc = sched_idle_cpu();
	if (pc != NULL) {
		pc->pc_kicked = true;
		cpu_post(pc->cpu, INTR_KICK);
	}
}

/*
 * A guest thread that wakes another (a pipe write, a futex wake, an exit
 * its parent waits for) often blocks soon after, in that call or in its
 * next one (the write's reader answers, the waker reads): the woken
 * thread then runs here and the hand-off stays on this CPU and its host
 * cores, where kicking an idle CPU would wake a thread on another core
 * (40-60 us) to run it while this one goes idle.  So the kick is owed,
 * not sent: if the call blocks, mi_switch takes the thread here; if it
 * returns to user mode, the kick goes only once the guest runs longer
 * than this CPU spins for it (cpu_sleep, via vcpu.kick_owed), or at once
 * if it has been owed SCHED_OWED_NS already (a waker that makes short
 * calls on and on).  Wakers that are no guest thread's call (interrupts
 * on an idle CPU, kernel threads) kick at once.
 */
#define SCHED_OWED_NS	100000ULL

void
sched_setrunnable(struct thread *td)
{
	KASSERT(td->td_state == TDS_NEW || td->td_state == TDS_SLEEPING,
	    "thread made runnable twice or after death");
	runq_add(td);
	struct sched_pcpu *pc = mypcpu();
	if (pc != NULL && pc->pc_curthread != NULL &&
	    pc->pc_curthread->td_lwp != NULL && pc->pc_state == CP_SYS) {
		if (!pc->pc_kick_owed) {
			pc->pc_kick_owed = true;
			pc->pc_owed_since = nanouptime();
		}
		return;
	}
	/* Not this CPU: it looks at the queue when its thread stops. */
	sched_kick_idle();
}

void
thread_setaffinity(struct thread *td, uint64_t mask)
{
	KASSERT(kernel_locked(), "thread_setaffinity: big lock not held");
	td->td_cpumask = mask;
	if (td->td_state == TDS_RUNQ) {
		sched_kick_idle();
	} else if (td->td_state == TDS_RUNNING &&
	    !(mask & CPUMASK(td->td_cpu->id))) {
		td->td_flags |= TDF_NEEDRESCHED;
		if (td != curthread)	/* it runs user code: end that */
			cpu_post(td->td_cpu, INTR_KICK);
	}
}

/*
 * Moves this CPU to state st (CP_SYS or CP_IDLE, or CP_USER for a guest's
 * run, which sched_user_exit counts).
 */
static void
cpustate_enter(struct sched_pcpu *pc, int st, uint64_t now)
{
	if (pc->pc_state != CP_USER)
		pc->pc_time[pc->pc_state] += now - pc->pc_since;
	pc->pc_state = st;
	pc->pc_since = now;
}

void
sched_user_enter(uint64_t now)
{
	struct sched_pcpu *pc = mypcpu();
	if (pc->pc_kick_owed) {		/* it did not block (see sched_setrunnable) */
		struct sched_pcpu *idle = sched_idle_cpu();
		if (idle == NULL) {
			pc->pc_kick_owed = false;
		} else if (now - pc->pc_owed_since >= SCHED_OWED_NS) {
			pc->pc_kick_owed = false;
			idle->pc_kicked = true;
			cpu_post(idle->cpu, INTR_KICK);
		} else {
			pc->cpu->kick_owed = idle->cpu;
		}
	}
	cpustate_enter(pc, CP_USER, now);
	kernel_unlock();
}

uint64_t
sched_user_exit(uint64_t cputime)
{
	/* The run ends here: waiting for the lock is the kernel's time. */
	uint64_t now = nanouptime();
	kernel_lock();
	struct sched_pcpu *pc = mypcpu();
	uint64_t ran = now - pc->pc_since, user = MIN(cputime, ran);

	pc->cpu->kick_owed = NULL;	/* back in time: the kernel decides again */

	pc->pc_time[CP_USER] += user;
	pc->pc_time[CP_STEAL] += ran - user;
	pc->pc_state = CP_SYS;
	pc->pc_since = now;
	return now;
}

void
sched_cpu_times(int i, uint64_t t[CPUSTATES])
{
	struct sched_pcpu *pc = &pcpus[i];

	memcpy(t, pc->pc_time, sizeof(pc->pc_time));
	if (pc->cpu != NULL && pc->pc_state != CP_USER)
		t[pc->pc_state] += nanouptime() - pc->pc_since;
}

void
sched_switched_in(void)
{
	if (mypcpu()->dead != NULL) {
		thread_free(mypcpu()->dead);
		mypcpu()->dead = NULL;
	}
}

/*
 * Charges td, running on this CPU, for the time since it last went on or
 * off it (idle time is counted, not charged to anyone).
 */
static void
sched_account(struct thread *td, uint64_t now)
{
	uint64_t ran = now - td->td_switched_at;
	td->td_runtime += ran;
	td->td_switched_at = now;
	if (!(td->td_flags & TDF_IDLE))
		runq_charge(td, ran);
}

static void
sched_run(struct thread *from, struct thread *to)
{
	uint64_t now = nanouptime();
	sched_account(from, now);
	to->td_switched_at = now;
	to->td_state = TDS_RUNNING;
	to->td_cpu = mypcpu()->cpu;
	to->td_flags &= ~TDF_NEEDRESCHED;
	mypcpu()->pc_curthread = to;
	cpustate_enter(mypcpu(), (to->td_flags & TDF_IDLE) ? CP_IDLE : CP_SYS, now);
	if (from->td_state == TDS_DEAD)
		mypcpu()->dead = from;
	TRACE(TR_K_SWITCH);
	thread_switch(from, to);
	TRACE(TR_K_SWITCHED);
}

void
mi_switch(void)
{
	struct thread *td = mypcpu()->pc_curthread;
	struct thread *next = runq_choose(mypcpu()->cpu->id);

	KASSERT(!(td->td_flags & TDF_IDLE), "the idle thread cannot block");
	/* What it left, an idle CPU may take (a yielder kept from here). */
	mypcpu()->pc_kick_owed = false;
	mypcpu()->cpu->kick_owed = NULL;
	sched_kick_idle();
	if (next == td) {		/* it yielded and is still owed the CPU */
		td->td_state = TDS_RUNNING;
		td->td_flags &= ~TDF_NEEDRESCHED;
		return;
	}
	sched_run(td, next != NULL ? next : &mypcpu()->idle);
}

void
thread_yield(void)
{
	struct thread *td = curthread;
	/* Charged first: its place in the queue depends on what it ran. */
	sched_account(td, nanouptime());
	runq_add(td);
	mi_switch();
}

int
sched_nrunning(void)
{
	int n = runq_length();

	for (int i = 0; i < cpu_count(); i++)
		if (pcpus[i].pc_curthread != NULL &&
		    pcpus[i].pc_curthread != &pcpus[i].idle)
			n++;
	return n;
}

/*
 * Every 5 seconds, as Linux's calc_global_load: each average decays by
 * e^(-5s/period) toward the number of running threads.
 */
static void
loadavg_sample(uint64_t now)
{
	static const unsigned long exp[3] = { 1884, 2014, 2037 };
	const unsigned long one = 1UL << LOAD_FSHIFT;

	if (now < next_loadavg)
		return;
	next_loadavg = now + 5000000000ULL;
	unsigned long n = (unsigned long)sched_nrunning() << LOAD_FSHIFT;
	for (int i = 0; i < 3; i++)
		avenrun[i] = (avenrun[i] * exp[i] + n * (one - exp[i])) >> LOAD_FSHIFT;
}

void
sched_loadavg(unsigned long avg[3])
{
	memcpy(avg, avenrun, sizeof(avenrun));
}

uint64_t
sched_uptime(void)
{
	return boottime != 0 ? nanouptime() - boottime : 0;
}

/*
 * Takes this CPU's pending interrupts: the tick expires timeouts and asks
 * the running thread to reschedule if others wait; everything but the
 * kick (whose work, ending a guest's run, is done) goes to the kernel's
 * hook too.
 */
void
sched_interrupts(void)
{
	uint32_t bits = cpu_take(mypcpu()->cpu);

	if (bits & INTR_TICK) {
		sleepq_expire(nanouptime());
		callout_expire(nanouptime());
		loadavg_sample(nanouptime());
	}
	bits &= ~INTR_KICK;
	if (bits != 0 && sched_intr_hook != NULL)
		sched_intr_hook(mypcpu()->cpu, bits);
	/* A slice ended, or a device woke someone who may be owed the CPU. */
	if (bits != 0 && runq_runnable(mypcpu()->cpu->id))
		mypcpu()->pc_curthread->td_flags |= TDF_NEEDRESCHED;
}

/*
 * The stop-the-world IPI: the caller holds the big lock, so a CPU that
 * comes back from its guest or out of its idle sleep waits for the lock
 * in kernel_lock, and nowhere else; the kick ends both.  Nothing else
 * changes for the guests: a kicked guest's run ends as at a tick, its
 * thread's state stays running, and time simply passes.
 */
int
sched_stop_cpus(uint64_t timeout_ns)
{
	KASSERT(kernel_locked(), "sched_stop_cpus: big lock not held");
	cpu_stop_begin();
	for (int i = 0; i < cpu_count(); i++)
		if (&pcpus[i] != mypcpu() && pcpus[i].pc_curthread != NULL)
			cpu_post(pcpus[i].cpu, INTR_KICK);
	uint64_t t0 = host_nanotime();
	for (;;) {
		int running = 0;
		for (int i = 0; i < cpu_count(); i++)
			if (&pcpus[i] != mypcpu() && pcpus[i].pc_curthread != NULL &&
			    __atomic_load_n(&pcpus[i].pc_parkfp, __ATOMIC_ACQUIRE) == 0)
				running++;
		if (running == 0 || host_nanotime() - t0 >= timeout_ns)
			return running;
		cpu_relax();
	}
}

void
sched_resume_cpus(void)
{
	KASSERT(kernel_locked(), "sched_resume_cpus: big lock not held");
	cpu_stop_end();
}

void
sched_cpu_info(int i, struct sched_cpuinfo *ci)
{
	struct sched_pcpu *pc = &pcpus[i];

	memset(ci, 0, sizeof(*ci));
	if (i < 0 || i >= cpu_count() || pc->cpu == NULL)
		return;
	ci->ci_cpu = pc->cpu;
	ci->ci_curthread = pc->pc_curthread;
	ci->ci_idle = &pc->idle;
	ci->ci_state = pc->pc_state;
	ci->ci_self = pc == mypcpu();
	ci->ci_parkfp = __atomic_load_n(&pc->pc_parkfp, __ATOMIC_ACQUIRE);
	sched_cpu_times(i, ci->ci_time);
}

void
sched_init(void)
{
	halting = false;
	boottime = nanouptime();
	next_loadavg = boottime + 5000000000ULL;
}

void
sched_halt(void)
{
	halting = true;
	for (int i = 0; i < cpu_count(); i++)
		cpu_post(cpu_get(i), INTR_HALT);
}

void
sched_cpu_main(struct vcpu *cpu, void *arg)
{
	(void)arg;
	__atomic_add_fetch(&ncpus_running, 1, __ATOMIC_RELAXED);
	cpu_set_local(&pcpus[cpu->id]);
	mypcpu()->cpu = cpu;
	thread_init_idle(&mypcpu()->idle, cpu);
	mypcpu()->pc_curthread = &mypcpu()->idle;
	memset(mypcpu()->pc_time, 0, sizeof(mypcpu()->pc_time));
	mypcpu()->pc_state = CP_IDLE;
	mypcpu()->pc_since = nanouptime();

	kernel_lock();
	for (;;) {
		mypcpu()->pc_kicked = false;
		sched_interrupts();
		sleepq_expire(nanouptime());
		callout_expire(nanouptime());
		struct thread *td = runq_choose(cpu->id);
		if (td != NULL) {
			sched_kick_idle();
			sched_run(&mypcpu()->idle, td);
			continue;
		}
		if (halting)
			break;
		uint64_t next = sleepq_next_deadline(), now = nanouptime();
		uint64_t c = callout_next();
		if (c != 0 && (next == 0 || c < next))
			next = c;
		kernel_unlock();
		cpu_idle(cpu, next == 0 ? 0 : next > now ? next - now : 1);
		kernel_lock();
	}
	mypcpu()->pc_curthread = NULL;
	kernel_unlock();
	cpu_set_local(NULL);
	__atomic_sub_fetch(&ncpus_running, 1, __ATOMIC_RELAXED);
}
