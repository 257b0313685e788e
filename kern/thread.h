/*
 * Kernel threads.  Every guest thread (lwp) runs its kernel side on a
 * kernel thread with its own stack in RAM; the kernel blocks with
 * tsleep/wakeup on those stacks, and a context switch is a few saved
 * registers (kern/switch.S), never a host thread switch.  Each virtual CPU
 * is a host thread whose own stack is its idle thread: the scheduler
 * switches from it to runnable threads and back when none is left.
 *
 * All of this runs under the big kernel lock (kern/kernel.h).  The CPUs
 * share one run queue; each has its own current thread.
 */
#ifndef KERN_THREAD_H
#define KERN_THREAD_H

#include <stdint.h>
#include <time.h>

#include "kern/kernel.h"
#include "kern/queue.h"

struct vcpu;

enum thread_state {
	TDS_NEW,		/* created, never run */
	TDS_RUNQ,		/* runnable, on the run queue */
	TDS_RUNNING,		/* on a CPU */
	TDS_SLEEPING,		/* in tsleep */
	TDS_DEAD,		/* exited; freed by whoever reaps it */
};

#define KSTACK_ORDER	2			/* 16 KiB kernel stacks */
#define KSTACK_SIZE	(PAGE_SIZE << KSTACK_ORDER)

struct sched_group;

struct thread {
	uint64_t td_sp;			/* saved stack pointer (switch.S) */
	enum thread_state td_state;
	int td_flags;
	uint8_t *td_kstack;		/* NULL for a CPU's idle thread */
	size_t td_kstack_size;
	const void *td_wchan;		/* what it sleeps on */
	const char *td_wmesg;
	int td_sleep_error;		/* 0, EWOULDBLOCK or EINTR */
	uint64_t td_timeout;		/* tsleep deadline (ns), 0: none */
	struct vcpu *td_cpu;		/* the CPU it runs or last ran on */
	uint64_t td_cpumask;		/* CPUs it may run on (CPUMASK) */
	void (*td_func)(void *);
	void *td_arg;
	struct lwp *td_lwp;		/* the guest thread it serves, if any */
	uint64_t td_runtime;		/* ns on a CPU */
	uint64_t td_switched_at;	/* when it last went on or off a CPU */
	uint64_t td_vruntime;		/* ns run, as placed (kern_runq.c) */
	struct sched_group *td_group;	/* its share of the CPUs */
	void *td_asan_fake;		/* AddressSanitizer's stack switching */
	const void *td_asan_bottom;
	size_t td_asan_size;
	TAILQ_ENTRY(thread) td_runq;	/* its group's run queue or a sleep queue */
	TAILQ_ENTRY(thread) td_timeq;	/* threads sleeping with a timeout */
	TAILQ_ENTRY(thread) td_allq;	/* on the list of all (thread_foreach) */
	char td_name[24];
};

TAILQ_HEAD(threadq, thread);

/*
 * A share of the CPUs (kern_runq.c).  Groups with runnable threads get
 * equal CPU time however many threads each has, and so do the runnable
 * threads of a group.  The process layer makes one per real uid, so that
 * one user's fork bomb costs the others one share; kernel threads are in
 * sched_group0.
 */
struct sched_group {
	uint64_t sg_vruntime;		/* ns its threads ran, as placed */
	uint64_t sg_floor;		/* least vruntime of its threads run */
	struct threadq sg_runq;		/* its runnable threads, by vruntime */
	TAILQ_ENTRY(sched_group) sg_link; /* on the queue while sg_runq is not empty */
};

extern struct sched_group sched_group0;

/* A set of CPUs: bit n for CPU n (host/cpu.h's MAXCPU is 64). */
#define CPUMASK(id)	(1ULL << (id))
#define CPUMASK_ALL	UINT64_MAX

#define TDF_NEEDRESCHED	0x01	/* give up the CPU at the next chance */
#define TDF_IDLE	0x02	/* a CPU's idle thread */
#define TDF_SINTR	0x04	/* the sleep may be interrupted (PCATCH) */
#define TDF_SKILL	0x08	/* only a fatal signal ends the sleep (PKILL) */

/* tsleep flags */
#define PCATCH		0x100	/* a pending signal ends the sleep (EINTR) */
#define PKILL		0x200	/* only a fatal one does (Linux's TASK_KILLABLE) */

/*
 * Creates a kernel thread that will run fn(arg) on a new kernel stack.
 * It is not runnable until thread_start.  Returns NULL if memory is short.
 */
struct thread *thread_create(const char *name, void (*fn)(void *), void *arg);

/* Makes a new thread runnable. */
void thread_start(struct thread *td);

/* Readies a group, which starts level with those that have run. */
void sched_group_init(struct sched_group *sg);

/* Ends a group; no thread may be in it any more. */
void sched_group_fini(struct sched_group *sg);

/*
 * Moves td to group sg, level with sg's threads.  td is the calling
 * thread or one not yet started (never one on the run queue).  Threads
 * start in sched_group0.
 */
void thread_setgroup(struct thread *td, struct sched_group *sg);

/*
 * Restricts td to the CPUs of mask (which names at least one CPU that
 * exists); threads start with CPUMASK_ALL.  A thread running elsewhere
 * leaves its CPU at its next way back to user mode, or at once if it
 * runs user code: its CPU is kicked.
 */
void thread_setaffinity(struct thread *td, uint64_t mask);

/* Ends the calling thread; its stack is freed once another runs. */
void thread_exit(void) __attribute__((noreturn));

/* The thread running on this CPU. */
struct thread *curthread_get(void);
#define curthread (curthread_get())

/*
 * Sleeps on chan until wakeup(chan), until timo_ns nanoseconds pass
 * (0: no limit; gives EWOULDBLOCK), or, with PCATCH, until a signal is
 * pending for the thread (EINTR), or, with PKILL, until a fatal one is.
 * A signal already pending when the sleep begins ends it at once, so a
 * caller that loops on the sleep must give up on EINTR (or sleep
 * without PCATCH).  Returns 0 when woken.
 */
int tsleep(const void *chan, int flags, const char *wmesg, uint64_t timo_ns);

/* Makes every thread sleeping on chan runnable. */
void wakeup(const void *chan);

/* Makes the first thread sleeping on chan runnable. */
void wakeup_one(const void *chan);

/*
 * Ends an interruptible (PCATCH) sleep of td with EINTR, or a killable
 * one (PKILL) if a fatal signal is pending for td (sched_signal_hook).
 */
void thread_interrupt(struct thread *td);

/*
 * Whether a PCATCH sleep of the running thread would end at once: a
 * signal it would take is pending (Linux's signal_pending(current)).
 */
bool thread_signal_pending(void);

/*
 * Takes the calling CPU's pending interrupts (tick, devices); a thread
 * calls it before returning to user mode.
 */
void sched_interrupts(void);

/*
 * Gives up the CPU to whichever runnable thread is owed it first (maybe
 * the caller, which then just goes on).
 */
void thread_yield(void);

/*
 * For the debugger (ddb/).  sched_stop_cpus stops every other virtual
 * CPU: each is kicked out of its guest or its idle sleep and parks on
 * the big lock, which the caller holds; returns how many had not parked
 * within timeout_ns (0: all stopped).  They go on when the caller drops
 * the lock, as after any wait for it; sched_resume_cpus, before that,
 * ends the stop for the host's watchdogs (cpu_stopped_ns), which do not
 * count a stop against a guest that could not run.  sched_cpu_info
 * describes CPU i; ci_parkfp is the frame where a parked CPU waits (0:
 * not parked).
 * thread_foreach calls fn on every kernel thread but the CPUs' idle
 * threads (sched_cpu_info has those).  All with the big lock held.
 */
struct sched_cpuinfo {
	struct vcpu *ci_cpu;		/* NULL: no such CPU */
	struct thread *ci_curthread;
	struct thread *ci_idle;
	int ci_state;			/* CP_USER, CP_SYS, CP_IDLE */
	bool ci_self;			/* the calling CPU */
	uintptr_t ci_parkfp;
	uint64_t ci_time[4];		/* sched_cpu_times */
};
int sched_stop_cpus(uint64_t timeout_ns);
void sched_resume_cpus(void);
void sched_cpu_info(int i, struct sched_cpuinfo *ci);
void thread_foreach(void (*fn)(struct thread *td, void *arg), void *arg);

/* Readies the scheduler; before the CPUs start (cpu_start). */
void sched_init(void);

/*
 * The scheduler loop of a virtual CPU: run by each CPU's host thread
 * (cpu_start(sched_cpu_main, NULL)).  Returns when sched_halt is called.
 */
void sched_cpu_main(struct vcpu *cpu, void *arg);

/* Stops every CPU's scheduler loop once no thread is runnable on it. */
void sched_halt(void);

/*
 * Hooks the kernel proper provides: interrupt dispatch for the pending
 * bits of a CPU, and which signals are pending for a thread: 0 none
 * that ends a sleep, SIGPEND_CATCH one that ends a PCATCH sleep,
 * SIGPEND_FATAL one that ends any interruptible sleep (SIGKILL, or a
 * signal that ends the process as it is taken).
 */
#define SIGPEND_CATCH	1
#define SIGPEND_FATAL	2
extern void (*sched_intr_hook)(struct vcpu *cpu, uint32_t bits);
extern int (*sched_signal_hook)(struct thread *td);

/* Monotonic kernel time in nanoseconds. */
uint64_t nanouptime(void);

/* The wall clock (CLOCK_REALTIME): the host's, which is the machine's. */
void nanotime(struct timespec *ts);

/* Statistics for /proc and sysinfo (kern_sched.c). */

/* Nanoseconds since sched_init (the machine's uptime). */
uint64_t sched_uptime(void);

/* Threads running on a CPU or waiting for one. */
int sched_nrunning(void);

/*
 * Load averages over 1, 5 and 15 minutes in Linux's fixed point
 * (LOAD_FSHIFT fraction bits), sampled every 5 seconds by the tick.
 */
#define LOAD_FSHIFT	11
void sched_loadavg(unsigned long avg[3]);

/*
 * What virtual CPU i did since it started, in nanoseconds per state, as
 * BSD's cp_time: its guests' computing (the host's count of their CPU
 * time), kernel code (waiting for the big lock included), nothing, and
 * waiting for a guest the host did not run.  A guest's run under way is
 * counted when it ends (at least every tick).
 */
#define CP_USER		0
#define CP_SYS		1
#define CP_IDLE		2
#define CP_STEAL	3
#define CPUSTATES	4
void sched_cpu_times(int i, uint64_t t[CPUSTATES]);

/*
 * Around a guest's run: sched_user_enter drops the big lock and counts
 * the CPU in user mode from now (nanouptime, which the caller read for
 * its own account too: a clock read less on every system call);
 * sched_user_exit(cputime) takes the lock back and counts the run:
 * cputime ns (what the host says the guest used) as user time, the rest
 * of it as stolen, and returns when the run ended.
 */
void sched_user_enter(uint64_t now);
uint64_t sched_user_exit(uint64_t cputime);

/*
 * The big kernel lock.  It protects every kernel structure that is not
 * its own subsystem's (the run queue, sleep queues, the process tree,
 * descriptor tables, address-space maps): a CPU holds it while it runs
 * kernel code and drops it only to idle or to run a guest.
 */
void kernel_lock(void);
void kernel_unlock(void);

/*
 * True if the calling host thread holds the big lock, or if no CPU runs
 * yet (boot and the unit tests are single-threaded).  For KASSERT: a
 * load and a compare.
 */
bool kernel_locked(void);

#endif /* KERN_THREAD_H */
