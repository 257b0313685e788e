/*
 * Virtual CPUs: host threads of the vkernel process that each run the
 * kernel's scheduler loop (-n N).  A CPU has a mailbox of pending
 * interrupt bits; anyone may post to it (cpu_post, async-signal safe),
 * which ends whatever host wait the CPU is in: its idle sleep, or the
 * wait for a guest running on it (the backend then kicks the guest).
 *
 * Placement (-l): "latency" pins each CPU to a host core and its guests'
 * stubs to another, and both sides spin briefly before sleeping;
 * "density" pins a CPU and its stubs to one core and never spins.
 * Cross-core wake-ups cost 40-60 us on these hosts, so neither leaves
 * sleeping hand-offs to the host scheduler.
 */
#ifndef HOST_CPU_H
#define HOST_CPU_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define MAXCPU		64

#define INTR_TICK	0x01u	/* the CPU's periodic timer */
#define INTR_KICK	0x02u	/* another thread wants this CPU's attention */
#define INTR_DEVICE	0x04u	/* a host fd became ready (host/intr.h) */
#define INTR_HALT	0x08u	/* shut down */
#define INTR_SIGNAL	0x10u	/* the vkernel process got a signal (host_signals) */
#define INTR_DISK	0x20u	/* a disk transfer ended (host/blkio.h) */
#define INTR_VMSPACE	0x40u	/* a killed vmspace is gone (vmspace_kill) */

enum cpu_placement {
	CPU_PLACE_NONE,		/* no pinning, no spinning (tests) */
	CPU_PLACE_LATENCY,
	CPU_PLACE_DENSITY,
};

struct vcpu {
	int id;
	pid_t tid;
	pthread_t thread;
	uint32_t pending;	/* INTR_* bits (atomic) */
	uint32_t idleword;	/* wait word that cpu_post wakes (hostsync.h) */
	int host_core;		/* host core it is pinned to, or -1 */
	int stub_core;		/* host core for its guests' stubs, or -1 */
	uint64_t spin_ns;	/* bounded spin before any sleep */
	/*
	 * The guest thread (vmspace id, thread) this CPU ran last, and the
	 * one it ran before the run under way if that was another: the
	 * generic layer's (host/vmspace.c, vmspace_handoff).
	 */
	void *run_id;
	int run_n;
	/*
	 * A CPU to kick (INTR_KICK) once this one, running a guest, stops
	 * spinning for it and sleeps (cpu_sleep): the scheduler's, set and
	 * cleared by this CPU's own thread (kern_sched.c, sched_user_enter).
	 */
	struct vcpu *kick_owed;
	void *handoff_id;
	int handoff_n;
	uint64_t ticks;		/* ticks received (atomic) */
	void (*main)(struct vcpu *, void *);
	void *arg;
	void *tick_timer;	/* timer_t */
};

/* Parses "latency", "density" or "none"; -1 with EINVAL if unknown. */
int cpu_placement_parse(const char *s);
const char *cpu_placement_name(enum cpu_placement p);

/*
 * Creates n virtual CPUs (1..MAXCPU) with the given placement and a tick
 * of hz per second (0: no tick).  Returns 0, or -1 with errno set.
 */
int cpu_configure(int n, enum cpu_placement place, int hz);

/* The tick's rate (per second), as configured; 0 if there is none. */
int cpu_tick_hz(void);

/* Starts every CPU's thread in fn(cpu, arg); returns 0 or -1 with errno. */
int cpu_start(void (*fn)(struct vcpu *, void *), void *arg);

/* Waits until every CPU thread has returned, then frees the CPUs. */
void cpu_join(void);

int cpu_count(void);
struct vcpu *cpu_get(int id);

/* The CPU the calling thread is, or NULL for any other thread. */
struct vcpu *cpu_self(void);

/*
 * The kernel's per-CPU data of the calling host thread: set by the
 * thread's own scheduler loop, NULL in any other thread.  Inline, as the
 * kernel reads it on every curthread.
 */
extern __thread void *cpu_local_data;

static inline void *
cpu_local(void)
{
	return cpu_local_data;
}

static inline void
cpu_set_local(void *p)
{
	cpu_local_data = p;
}

/* A token unique to the calling host thread while it lives (lock owners). */
static inline const void *
cpu_thread_token(void)
{
	return &cpu_local_data;
}

/*
 * The calling host thread's stack (for AddressSanitizer's stack
 * switching).  Returns 0, or -1 if the host does not say.
 */
int cpu_thread_stack(void **addr, size_t *size);

/*
 * Pins host task tid (0: the caller) to host core core.  A guest's stub
 * follows the CPU that runs it: stub_core is where the guests of a CPU
 * compute, and they move with their threads.  Returns 0 or -1 with errno.
 */
int cpu_pin_task(pid_t tid, int core);

/*
 * The machine's stops (the debugger parks every CPU but its own):
 * cpu_stop_begin and cpu_stop_end bracket one, cpu_stopped_ns is the
 * host time spent stopped so far, the stop under way included.  A
 * watchdog that bounds how long a guest takes subtracts it: a guest
 * does not run while the machine is stopped, through no fault of its
 * own.
 */
void cpu_stop_begin(void);
void cpu_stop_end(void);
uint64_t cpu_stopped_ns(void);

/*
 * Lets host task tid (0: the caller) run on the cores no CPU is placed
 * on: for the host threads that work beside the CPUs (reaping, recycling
 * and spawning stubs), which should take no core from a running guest
 * when another is free.  Returns 0, or -1 with errno: ENOENT if every
 * core has a CPU (or none was configured), and the task stays where it
 * is.
 */
int cpu_pin_spare(pid_t tid);
/* True if some allowed core has no CPU placed on it (cpu_pin_spare's). */
bool cpu_has_spare(void);

/* Posts interrupt bits to cpu and ends its host wait.  Async-signal safe. */
void cpu_post(struct vcpu *cpu, uint32_t bits);

/*
 * cpu_post to the CPU numbered id, if there is one: for host threads
 * that may outlive the CPUs (cpu_join frees them).  Not signal safe.
 */
void cpu_post_id(int id, uint32_t bits);

/* Takes (clears and returns) the calling CPU's pending bits. */
static inline uint32_t
cpu_take(struct vcpu *cpu)
{
	return __atomic_exchange_n(&cpu->pending, 0, __ATOMIC_ACQ_REL);
}

static inline uint32_t
cpu_pending(const struct vcpu *cpu)
{
	return __atomic_load_n(&cpu->pending, __ATOMIC_ACQUIRE);
}

/*
 * Sleeps until a bit of want is set in the wait word w (hostsync.h; w may
 * be NULL), an interrupt is posted to cpu, or timeout_ns passes (0: no
 * limit).  cpu may be NULL for a thread that is no CPU.  The caller
 * re-checks both conditions afterwards: wake-ups may be spurious.  Both
 * words are waited on at once (futex_waitv), so posters only ever touch
 * the CPU's own word, never memory that a vmspace may free.
 */
void cpu_sleep(struct vcpu *cpu, uint32_t *w, uint32_t want, uint64_t timeout_ns);

/* Sleeps until an interrupt is pending or timeout_ns passes (0: none). */
static inline void
cpu_idle(struct vcpu *cpu, uint64_t timeout_ns)
{
	cpu_sleep(cpu, NULL, 0, timeout_ns);
}

#endif /* HOST_CPU_H */
