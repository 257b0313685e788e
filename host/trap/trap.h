/*
 * The trap backend's private state (DESIGN.md, "The host layer contract").
 *
 * Each vmspace is a stub process (stub/stub.c) whose threads run the
 * guest's threads natively under a seccomp filter; every system call,
 * fault and kick arrives in the stub's signal handler, which posts it to
 * the vkernel through the thread's slot of shared control memory
 * (stub_abi.h) and waits.  Host mappings of RAM are made by the stub's
 * mapper thread on the vkernel's command; it also clones the threads.
 *
 * State: struct vmspace_host is the stub (its mapper, command areas,
 * host mappings, governed ranges, root), struct trap_thread one guest
 * thread (its slot, report, parking and audit).  Locking: vh->lock
 * serialises everything that talks to the mapper or reads the
 * vpagetable on the guest's behalf: batches, fault service, host-mapping
 * accounting, invalidations, the governed ranges and root, the thread
 * table.  It is never held while waiting for a guest's report.  A
 * thread's own fields belong to the one caller running it (vmspace.h
 * serialises calls on a thread), but the audit reads the parking ones,
 * hence their atomic accesses; vh->dead is set once, atomically.
 *
 * Files: trap_vmspace.c (operations table), trap_spawn.c (starting and
 * killing stubs), trap_thread.c (more guest threads), trap_confine.c
 * (what a stub keeps of the vkernel's process), trap_filter.c (the
 * seccomp programs), trap_frame.c (the signal frame: registers and FPU),
 * trap_run.c (running a guest thread until it traps), trap_fault.c (the
 * vpagetable walk and fault service), trap_mapper.c (command batches and
 * the host-mapping budget), trap_patch.c (patched system calls: the
 * trampoline's reports and resumes).
 */
#ifndef HOST_TRAP_TRAP_H
#define HOST_TRAP_TRAP_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <signal.h>
#include <ucontext.h>

#include "host/hostsync.h"
#include "host/vmspace.h"
#include "host/vmspace_backend.h"
#include "host/trap/stub_abi.h"

_Static_assert(STUB_MAXTHREADS == VMSPACE_MAXTHREADS, "the thread limit vmspace.h says");

#define TRAP_NO_ROOT	UINT64_MAX
#define TRAP_MAXGOV	8		/* vpagetable-governed ranges */
#define TRAP_SLOT_SHIFT	30		/* the host-mapping summary: 1 GiB slots */
#define TRAP_NSLOTS	(VM_MAX_USER_ADDRESS >> TRAP_SLOT_SHIFT)

/* Tunables a caller may pass to vmspace_create() as data (or NULL). */
struct trap_params {
	int hostmap_budget;	/* host mappings before eviction; 0: default */
	int fault_around;	/* pages mapped per read fault; 0: default, 1: off */
	int stub_core;		/* pin the stub to this host core; -1: none */
	int64_t spin_ns;	/* spin before sleeping; -1: from the CPU */
};

/*
 * The host mappings of a stub (trap_hostmap.c): groups of 64 pages, each
 * with the pages the host may map and those that begin a host VMA.
 */
#define TRAP_HM_GROUP_SHIFT	18

struct hm_group {
	uint64_t base;			/* address of its first page */
	uint64_t mapped;		/* pages the host may have mapped */
	uint64_t starts;		/* mapped pages that begin a host VMA */
	struct hm_group *hnext;		/* hash chain */
	struct hm_group *older, *newer;	/* by when last mapped */
};

struct trap_hostmap {
	struct hm_group **hash;
	uint32_t nbuckets, ngroups;
	struct hm_group *oldest, *newest;
	uint32_t runs;			/* host VMAs, an upper bound */
	uint32_t cap;			/* runs before eviction */
	uint64_t slots[(TRAP_NSLOTS + 63) / 64];	/* slots that may hold mappings */
};

struct vcpu;

/* One guest thread: slot n of the stub. */
struct trap_thread {
	int n;
	pid_t tid;			/* its host thread */
	struct stub_thread *thr;	/* its page, in our mapping */
	bool parked;			/* waits in its handler (atomic) */
	/*
	 * The report taken is still marked in its request word: cleared
	 * with the reply (trap_reply_post) or before the mapper resumes it
	 * (trap_req_release).  The stub posts no report before a reply.
	 */
	bool req_held;
	bool fresh;			/* not run yet: load the FPU state */
	int core;			/* host core it is pinned to, or -1 */

	/* vmspace_audit: is a parked thread really asleep in its handler? */
	uint64_t parked_at;
	uint32_t rungen, audit_gen;	/* resumes, and the one audited */
	unsigned strikes;		/* audits that found it running */
	bool verified;			/* found asleep since the last resume */
	int syscallfd;			/* /proc/PID/task/TID/syscall, or -1 */
	int schedfd;			/* /proc/PID/task/TID/schedstat, or -1 */
	uint64_t audit_cpu;		/* its CPU time at the 1st strike */
	/* trap_kick_verdict: the kick looked at, and the machine's stops then */
	uint64_t kick_at, kick_stopped;

	/*
	 * The last report came from the trampoline (trap_patch.c): the
	 * registers are in the slot's record, there is no frame.
	 */
	bool utrap;
	uint64_t charged_at;		/* when its run last read the CPU clock */

	/* The frame of the last trap, validated (pointers into ctl). */
	ucontext_t *uc;
	siginfo_t *si;
	uint8_t *fpu;
	uint32_t fpu_size;
	/* The last image's address (stub's) and its size (trap_frame_take). */
	uint64_t fpu_at;
	uint32_t fpu_at_size;

	uint64_t last_fault_va;		/* the page last served in this run */
	/* A fault passed to the vkernel: its address, error and rip. */
	uint64_t kfault_va, kfault_err, kfault_rip;
	unsigned fault_repeats;		/* served again, the host refusing */
};

/*
 * Where a process's time in the host goes, counted always (relaxed atomic
 * adds) and printed as one line when its vmspace is destroyed under -v
 * (trap_stats_log): the traps the guest took, the batches the mapper was
 * given and how each reached it, the host system calls it made.
 */
struct trap_stats {
	uint64_t sys_signal;	/* system calls trapped by SIGSYS */
	uint64_t sys_patched;	/* ... by the trampoline (no signal) */
	uint64_t faults;	/* page faults reported */
	uint64_t fault_kernel;	/* ... that the kernel had to fill */
	uint64_t other;		/* other reports (kicks, exceptions) */
	uint64_t batch_resume;	/* batches that resume a guest thread */
	uint64_t batch_sync;	/* batches waited for (invalidations) */
	uint64_t wake_guest;	/* mapper woken by the parked guest thread */
	uint64_t wake_futex;	/* ... by us, a futex wake across cores */
	uint64_t wait_sleep;	/* waits for the mapper that slept */
	uint64_t op_mmap, op_munmap, op_mprotect;	/* the mapper's calls */
	uint64_t pages_mapped;	/* pages its mmaps covered */
	uint64_t keep_claimed;	/* kept mappings its first run claimed */
	uint64_t keep_dropped;	/* ... and those unmapped unclaimed */
};
#define TRAP_COUNT(vh, field, n) \
	__atomic_fetch_add(&(vh)->stats.field, (n), __ATOMIC_RELAXED)

/* A read-only host mapping a recycled stub keeps (trap_keep.c). */
#define TRAP_KEEP_MAX	16
struct trap_kept {
	uint64_t addr, len;
	uint64_t off;			/* in RAM */
	uint32_t prot;
	bool claimed;			/* the occupant's: claimed or made */
};

struct vmspace_host {
	pid_t pid;
	int pidfd;
	uint8_t *ctl;			/* our mapping of the control memory */
	struct stub_cmd *cmd;
	struct stub_sync *sync;
	struct stub_thread *thr;	/* thread 0's page */
	struct host_mutex lock;		/* see above */
	int donefd;			/* eventfd the mapper counts batches on */
	uint32_t seq;			/* last batch issued */
	uint32_t confirmed;		/* the last batch proved done */
	uint32_t proving[STUB_CMD_AREAS];	/* batches asked to prove, in order */
	uint32_t nproving, proving_head;
	uint32_t nops;			/* ops in the batch being built */
	/*
	 * A deferred invalidation (trap_inval_defer): its munmaps are in
	 * the batch being built (queued), or in batch inval_seq (owed).
	 */
	bool inval_queued, inval_owed;
	uint32_t inval_seq;

	bool dead;			/* the stub is gone or being killed */
	bool reaping;			/* handed to the reaper (trap_reaper.c) */
	int reaped;			/* the reaper collected it (atomic) */
	bool wiped;			/* exited and wiped, to recycle (trap_recycle.c) */
	unsigned early;			/* recycled before destroyed: EARLY_* (atomic) */
	const char *early_why;		/* why that failed, or NULL */
	struct trap_params params;	/* what it was made with: its pool */
	const char *dead_why;

	pid_t mapper_tid;		/* told by the stub as it booted */
	uint64_t cputime;		/* the stub's CPU time at the last report */

	uint64_t root;			/* MADV_SETMAP, or TRAP_NO_ROOT */
	struct { uint64_t start, end; } gov[TRAP_MAXGOV];
	int ngov;

	/* Guest threads by number; t0 is thread 0. */
	struct trap_thread *threads[STUB_MAXTHREADS];
	int slots_used;			/* highest slot ever used, + 1 (atomic) */
	struct trap_thread t0;

	struct trap_hostmap hm;
	/*
	 * Read-only host mappings, exactly as they are (trap_keep.c); while
	 * keep_pending, those not claimed are of no occupant, out of the
	 * account, and go before the next resume.
	 */
	struct trap_kept kept[TRAP_KEEP_MAX];
	int nkept;
	bool keep_pending;
	bool keep_first;		/* noting them: a recycled stub's first run */
	int fault_around;
	uint64_t spin_ns;
	unsigned refusals;		/* reports since the mapper last failed */

	/* statistics, for tests and the benchmark (atomic) */
	uint64_t nserved, nreturned, nmapops, nsleeps;
	unsigned long minflt_seen;	/* the stub's host faults counted so far */
	struct trap_stats stats;
};

/* trap_vmspace.c: the parameters of a stub made for cpu (NULL: none). */
void trap_params_default(struct trap_params *p, const struct vcpu *cpu);

/* trap_pool.c: ready stubs (vmspace_pool); NULL if none is ready. */
int trap_pool(int nready);
struct vmspace_host *trap_pool_take(const struct trap_params *p);
/*
 * delta stubs of the pool of p more (or, negative, fewer) are being
 * recycled: the keeper counts them as ready and spawns no stub for them.
 * Returns how many of its stubs are ready now.
 */
int trap_pool_recycling(const struct trap_params *p, int delta);
/* For tests: stubs ready now; *ntaken: how many were handed out. */
int trap_pool_ready(unsigned *ntaken);
/* For tests: how many recycled stubs came back to the pool. */
unsigned trap_pool_recycled(void);

/* trap_spawn.c */
struct vmspace_host *trap_spawn(const struct trap_params *p);
/*
 * Pins a booted stub's thread 0 and mapper to its stub core (they boot
 * on the cores no CPU is placed on): its first run there moves nothing.
 */
void trap_stub_home(struct vmspace_host *vh);
/* Kills the stub: every thread's next run gives T_DEAD.  Any context. */
void trap_kill(struct vmspace_host *vh, const char *why);
bool trap_dead(const struct vmspace_host *vh);
void trap_reap(struct vmspace_host *vh);
/* Adds vh's statistics to vmspace_stats' and zeroes them. */
void trap_stats_fold(struct vmspace_host *vh);
void trap_wait_gone(struct vmspace_host *vh);
bool trap_alive(struct vmspace_host *vh);

/*
 * trap_confine.c: in the child about to exec the stub (async-signal-safe
 * calls only): closes fds 0-2, drops every capability and the right to
 * gain any, shrinks the stack limit.  0, or -1 with errno.
 */
int trap_confine_child(void);

/*
 * Kills the stub and has the reaper thread collect it, which then posts
 * INTR_VMSPACE to cpu; trap_gone is true from then on, and trap_reap
 * does not wait.  Returns 0, or -1 with errno if no reaper thread runs.
 */
int trap_kill_async(struct vmspace_host *vh, struct vcpu *cpu);
bool trap_gone(struct vmspace_host *vh);
/* waitpid, again when a signal (the CPU's tick) interrupts it. */
pid_t stub_waitpid(pid_t pid, int *status);
/* Waits until the reaper has collected vh's stub (after trap_kill_async). */
void trap_reaper_wait(struct vmspace_host *vh);

/*
 * trap_recycle.c.  trap_exit is the backend's kill: the stub of a process
 * that exited and can be recycled is wiped (every host mapping dropped,
 * proven), by a reaper thread when a stub is ready for the next fork and
 * a core is spare (INTR_VMSPACE to cpu once done), else at once; it
 * counts as gone once wiped.  Any other is killed as trap_kill_async.
 * trap_wipe does
 * the wipe and makes vh gone: true if wiped, false if that failed and
 * the stub was killed and waited for instead.  trap_recycle (the
 * reaper's) makes a wiped stub as clean as a new one and gives it to the
 * pool, or reaps it.
 */
int trap_exit(struct vmspace_host *vh, struct vcpu *cpu);
bool trap_wipe(struct vmspace_host *vh);
void trap_recycle(struct vmspace_host *vh);
/* trap_reaper.c: has the reaper thread trap_recycle vh (after trap_exit). */
void trap_recycle_async(struct vmspace_host *vh);
/*
 * Recycling that starts once the wipe is done: trap_recycle_early marks
 * vh so (before its wipe), trap_recycle_wiped (the reaper's, after the
 * wipe) recycles it, trap_recycle_destroyed (the backend's destroy) says
 * the kernel forgot it: false if vh is not recycled so.  The second of
 * the last two gives vh to the pool or reaps it.
 */
void trap_recycle_early(struct vmspace_host *vh);
void trap_recycle_wiped(struct vmspace_host *vh);
bool trap_recycle_destroyed(struct vmspace_host *vh);
/*
 * trap_reaper.c: has a reaper thread trap_wipe vh, ahead of any recycle,
 * then post INTR_VMSPACE to cpu.  0, or -1 if no reaper thread runs.
 */
int trap_wipe_async(struct vmspace_host *vh, struct vcpu *cpu);

/* trap_pool.c: puts a recycled stub among the ready ones; -1 if no room. */
int trap_pool_put(struct vmspace_host *vh);
/* True if the keeper runs, so that a recycled stub has a pool to go to. */
bool trap_pool_running(void);

/* trap_filter.c: writes both programs into the boot page. */
int trap_filter_build(struct stub_boot *boot);

/* trap_thread.c */
int trap_thread_create(struct vmspace_host *vh);
int trap_thread_destroy(struct vmspace_host *vh, int n);
void trap_thread_init(struct vmspace_host *vh, struct trap_thread *t, int n);
void trap_thread_fini(struct trap_thread *t);
struct trap_thread *trap_thread_get(struct vmspace_host *vh, int n);
/* Has the mapper clone thread t; 0, or -1 with errno (EAGAIN: the host's limit). */
int trap_thread_clone(struct vmspace_host *vh, struct trap_thread *t);
/* True if tid may be the thread just started: a task of the stub we do not know. */
bool trap_tid_new(struct vmspace_host *vh, struct trap_thread *t, pid_t tid);

/* trap_frame.c */
int trap_frame_take(struct vmspace_host *vh, struct trap_thread *t);
void trap_frame_get(struct vmspace_host *vh, struct trap_thread *t,
    struct trapframe *tf, struct vextframe *vf);
void trap_frame_put(struct vmspace_host *vh, struct trap_thread *t,
    const struct trapframe *tf,
    const struct vextframe *vf);
void trap_fpu_save(struct trap_thread *t, struct vextframe *vf);
void trap_fpu_load(struct trap_thread *t, const struct vextframe *vf);

/* trap_run.c */
int trap_run(struct vmspace_host *vh, int n, struct trapframe *tf,
    struct vextframe *vf);
int trap_wait_report(struct vmspace_host *vh, struct trap_thread *t,
    bool booting);
void trap_req_release(struct trap_thread *t);
void trap_reply_post(struct trap_thread *t);

/* trap_patch.c */
bool trap_utrap_on(void);
/* True if signo (the report just taken) is a trampoline's. */
bool trap_utrap_report(struct vmspace_host *vh, struct trap_thread *t);
void trap_utrap_get(struct vmspace_host *vh, struct trap_thread *t,
    struct trapframe *tf, struct vextframe *vf);
/* A signal-path patched call (the trampoline's ud2): true if it is one. */
bool trap_utrap_fallback(struct trap_thread *t, struct trapframe *tf);
/* Resumes a trampoline-parked thread with tf, if a jump can: true if done. */
bool trap_utrap_put(struct trap_thread *t, const struct trapframe *tf,
    const struct vextframe *vf);
/*
 * Makes a trampoline-parked thread park in its handler, with a frame
 * (its FPU state, a full register load).  0, or -1 if the stub is dead.
 */
int trap_utrap_settle(struct vmspace_host *vh, struct trap_thread *t);

/* trap_handoff.c */
/* A CPU's polling of hand-offs (trap_handoff.c). */
struct trap_pollstate {
	uint64_t off_until;	/* polling is off until then (host_nanotime) */
	uint64_t polled_at;	/* a polled hand-off is pending since; 0: none */
	uint32_t history;	/* the last polled hand-offs, 1 bits slow */
};
void trap_yield(struct vmspace_host *vh, int n);
void trap_poll_judge(struct trap_pollstate *ps, uint64_t latency_ns,
    uint64_t spin_ns, uint64_t now);
void trap_handoff_poll(struct trap_thread *t, uint64_t now, uint64_t spin_ns);
void trap_handoff_done(uint64_t spin_ns);

/* trap_audit.c */
uint64_t trap_guest_cputime(struct vmspace_host *vh, struct trap_thread *t);
void trap_audit(struct vmspace_host *vh, uint64_t now);
void trap_resumed(struct trap_thread *t);
void trap_parked(struct trap_thread *t, uint64_t now);
const char *trap_kick_verdict(struct vmspace_host *vh, struct trap_thread *t,
    uint64_t kicked, uint64_t now, uint64_t *cpu0);
bool trap_task_exists(pid_t pid, pid_t tid);
bool trap_task_exited(pid_t pid, pid_t tid);

/* trap_fault.c (vh->lock held) */
void trap_fault_ahead(struct vmspace_host *vh, struct trap_thread *t);
enum { TRAP_FAULT_SERVED, TRAP_FAULT_KERNEL, TRAP_FAULT_REFUSED };
int trap_fault(struct vmspace_host *vh, struct trap_thread *t, uint64_t va,
    uint64_t hosterr, bool accerr, bool resume, uint64_t *errp);
bool trap_governed(const struct vmspace_host *vh, uint64_t va);
/*
 * MADV_PREFAULT: queues mappings of the valid pages of [start, end) the
 * host lacks; they go with the next batch (a resume's at the latest).
 */
int trap_prefault(struct vmspace_host *vh, uint64_t start, uint64_t end);

/* trap_mapper.c (vh->lock held) */
int trap_cmd_add(struct vmspace_host *vh, uint32_t op, uint64_t addr,
    uint64_t len, uint32_t prot, uint64_t off);
int trap_map_run(struct vmspace_host *vh, uint64_t addr, uint64_t len,
    uint32_t prot, uint64_t pa);
int trap_protect_page(struct vmspace_host *vh, uint64_t page, uint32_t prot);
/*
 * Publishes the batch, for thread t (NULL: none).  With resume, the
 * mapper resumes t after it; without, returns once the batch is done.
 */
int trap_cmd_issue(struct vmspace_host *vh, struct trap_thread *t, bool resume);
int trap_cmd_wait(struct vmspace_host *vh);
/* Prints vh's statistics (struct trap_stats) as one -v debug line. */
void trap_stats_log(const struct vmspace_host *vh);
int trap_inval(struct vmspace_host *vh, uint64_t start, uint64_t end);
/* trap_inval of all but the n mappings of keep, sorted, in one batch. */
int trap_inval_but(struct vmspace_host *vh, const struct trap_kept *keep,
    int n);
/*
 * trap_keep.c (vh->lock held): kept read-only mappings.  note remembers
 * a read-only mapping just queued; forget drops the records overlapping
 * [start, end), about to change (queuing the munmap of one of no
 * occupant); cover is forget for a mapping about to be queued over
 * [start, end), which keeps what a record of no occupant has left; claim
 * is true if a mapping about to be queued is kept
 * already (then it must not be queued: count it in the account only);
 * settle queues the munmaps of the records not claimed, before a
 * resume; wipe unmaps everything but the records, which are of no
 * occupant from then on.  -1 if the stub died.
 */
void trap_keep_note(struct vmspace_host *vh, uint64_t addr, uint64_t len,
    uint32_t prot, uint64_t off);
int trap_keep_forget(struct vmspace_host *vh, uint64_t start, uint64_t end);
int trap_keep_cover(struct vmspace_host *vh, uint64_t start, uint64_t end);
bool trap_keep_claim(struct vmspace_host *vh, uint64_t addr, uint64_t len,
    uint32_t prot, uint64_t off);
int trap_keep_settle(struct vmspace_host *vh);
int trap_keep_wipe(struct vmspace_host *vh);
int trap_inval_defer(struct vmspace_host *vh, uint64_t start, uint64_t end);
int trap_settle(struct vmspace_host *vh);

/* trap_hostmap.c */
int trap_hostmap_init(struct vmspace_host *vh, int budget);
void trap_hostmap_fini(struct vmspace_host *vh);
/* Accounts for a mapping, an mprotect of one page, an unmapping. */
int trap_hostmap_note_map(struct vmspace_host *vh, uint64_t addr, uint64_t len);
void trap_hostmap_note_prot(struct vmspace_host *vh, uint64_t va);
void trap_hostmap_note_unmap(struct vmspace_host *vh, uint64_t start,
    uint64_t end);
/* True if the host may have the page at va mapped. */
bool trap_hostmap_mapped(const struct vmspace_host *vh, uint64_t va);
/* The pages of va's group the host may have mapped, bit i for page i. */
uint64_t trap_hostmap_group(const struct vmspace_host *vh, uint64_t va);
/* True if the host may have any page of [start, end) mapped. */
bool trap_hostmap_any(const struct vmspace_host *vh, uint64_t start,
    uint64_t end);
/* Unmaps the n least recently mapped groups. */
void trap_hostmap_shrink(struct vmspace_host *vh, uint32_t n);
/*
 * Queues unmappings until vh is within its budget and the vkernel's, but
 * never of the group holding keep (the fault being served).
 */
int trap_hostmap_enforce(struct vmspace_host *vh, uint64_t keep);
/* Runs mapped by all stubs together. */
uint64_t trap_hostmap_total(void);

#endif /* HOST_TRAP_TRAP_H */
