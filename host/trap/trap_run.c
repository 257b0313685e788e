/*
 * Running a guest thread until it traps (VMSPACE_CTL_RUN).
 *
 * Threads of one vmspace run at once on different CPUs: each waits on
 * its own thread's report word, and takes the vmspace's lock only to
 * talk to the mapper (a fault served, a batch before the resume).
 *
 * The guest thread is parked in its signal handler.  We write the
 * registers into its frame and post the reply (or let the mapper post it
 * after a batch); the thread returns through rt_sigreturn into guest code
 * and runs natively until its next system call, fault or kick, which
 * posts a new report.  Faults on valid VPTEs are served here and never
 * reach the caller.
 *
 * While the guest runs, the calling CPU waits: it spins for a while
 * (latency placement), then sleeps on the report word and its own
 * mailbox at once.  An interrupt for the CPU kicks the guest (SIGKICK);
 * a guest that does not answer the kick (it may have blocked the signal
 * with a forged sigreturn) is looked at every TRAP_KICK_CHECK_NS and
 * killed as soon as the host shows it sleeping or computing instead
 * (trap_kick_verdict), or after a bound if the host never ran it; so is
 * one whose stub dies: the caller sees T_DEAD, never a hang.
 */
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/cpu.h"
#include "host/hostlog.h"
#include "host/hostsync.h"
#include "host/trace.h"
#include "host/trap/trap.h"
#include "host/vmspace_backend.h"

#ifndef AUDIT_ARCH_I386
#define AUDIT_ARCH_I386 0x40000003U
#endif

#define TRAP_KICK_CHECK_NS	2000000UL	/* a kicked guest is looked at */
#define TRAP_POLL_NS		20000000UL
#define TRAP_BOOT_WAIT_NS	5000000000UL
#define TRAP_CHARGE_NS		1000000UL	/* the stub's CPU clock, read at most */

static void
trap_kick(struct vmspace_host *vh, struct trap_thread *t)
{
	__atomic_store_n(&t->thr->kick, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_tgkill, vh->pid, t->tid, STUB_SIGKICK);
}

/*
 * Waits for thread t's next report.  Returns 0 with the frame taken, or
 * -1 when the stub is dead (or, booting, the thread never came up).
 */
int
trap_wait_report(struct vmspace_host *vh, struct trap_thread *t, bool booting)
{
	struct vcpu *cpu = booting ? NULL : cpu_self();
	uint32_t *req = &t->thr->req;
	uint64_t start = host_nanotime(), now = start, kicked = 0, looked = start;
	uint64_t kick_cpu = UINT64_MAX;

	for (;;) {
		if (__atomic_load_n(req, __ATOMIC_ACQUIRE) & WW_POSTED)
			break;
		if (cpu != NULL && kicked == 0 && cpu_pending(cpu) != 0) {
			trap_kick(vh, t);
			kicked = now;
		}
		if (now - start < vh->spin_ns) {
			cpu_relax();
			now = host_nanotime();
			if (cpu != NULL)
				trap_handoff_poll(t, now, vh->spin_ns);
			continue;
		}
		__atomic_fetch_add(&vh->nsleeps, 1, __ATOMIC_RELAXED);
		cpu_sleep(cpu, req, WW_POSTED, kicked != 0 ? TRAP_KICK_CHECK_NS :
		    TRAP_POLL_NS);
		now = host_nanotime();
		if (__atomic_load_n(req, __ATOMIC_ACQUIRE) & WW_POSTED)
			break;
		if (trap_dead(vh))
			return -1;
		if (!trap_alive(vh)) {
			trap_kill(vh, "stub died");
			return -1;
		}
		/*
		 * A thread that exited (the stub's code lets a thread exit,
		 * for vmspace_thread_destroy) will never report.  A thread
		 * but 0 has its id word cleared by the host; thread 0, the
		 * group's leader (a recycled stub's too: trap_recycle.c),
		 * shows its exit in /proc (looked at once a poll, not at
		 * every interrupt).
		 */
		bool exited = false;
		if (!booting && t->n != 0)
			exited = __atomic_load_n(&t->thr->tid, __ATOMIC_ACQUIRE) == 0;
		else if (!booting && now - looked >= TRAP_POLL_NS) {
			looked = now;
			exited = trap_task_exited(vh->pid, t->tid);
		}
		if (exited) {
			trap_kill(vh, "guest thread exited");
			return -1;
		}
		if (kicked != 0) {
			const char *why = trap_kick_verdict(vh, t, kicked, now,
			    &kick_cpu);
			/* It may have answered while we looked. */
			if (why != NULL &&
			    !(__atomic_load_n(req, __ATOMIC_ACQUIRE) & WW_POSTED)) {
				trap_kill(vh, why);
				return -1;
			}
		}
		if (booting && now - start >= TRAP_BOOT_WAIT_NS)
			return -1;
	}
#ifdef VK_TRACE
	const struct stub_trace *st = (const struct stub_trace *)
	    ((const char *)t->thr + STUB_TR_OFF);
	TRACE_AT(TR_S_SEEN, st->seen);
	TRACE_AT(TR_S_POST, st->post);
	TRACE(TR_T_REPORT);
#endif
	t->req_held = true;	/* cleared with the reply: trap_reply_post */
	if (__atomic_load_n(&t->thr->kick, __ATOMIC_RELAXED) != 0)
		__atomic_store_n(&t->thr->kick, 0, __ATOMIC_SEQ_CST);
	trap_parked(t, now);	/* the spin's last look: its clock is read */
	/* A trampoline's report has no frame (trap_patch.c). */
	t->utrap = !booting && trap_utrap_report(vh, t);
	if (t->utrap) {
		t->uc = NULL;
		t->si = NULL;
		t->fpu = NULL;
		t->fpu_size = 0;
		return 0;
	}
	if (trap_frame_take(vh, t) < 0) {
		trap_kill(vh, "stub reported a bad frame");
		return -1;
	}
	return 0;
}

/*
 * The request word holds the report taken (trap_wait_report) until t is
 * resumed: clears it, if it still does.  Called before the mapper
 * resumes t; the stub posts its next report only after the reply.
 */
void
trap_req_release(struct trap_thread *t)
{
	if (!t->req_held)
		return;
	t->req_held = false;
	__atomic_and_fetch(&t->thr->req, ~WW_POSTED, __ATOMIC_ACQ_REL);
}

_Static_assert(__builtin_offsetof(struct stub_thread, reply) ==
    __builtin_offsetof(struct stub_thread, req) + 4 &&
    __builtin_offsetof(struct stub_thread, req) % 8 == 0,
    "req and reply: one aligned 8-byte word, req the low half");

/*
 * Posts the reply to parked thread t (ww_post) and clears the report it
 * answers from the request word in the same locked operation, on the 8
 * aligned bytes that hold both.  The two words share a cache line, which
 * the stub reads on and on while it waits: each write of ours took that
 * line back from the stub's core, a cross-core round trip on the way of
 * every system call; now a call costs one such write, not two.
 */
void
trap_reply_post(struct trap_thread *t)
{
	if (!t->req_held) {
		ww_post(&t->thr->reply, WW_POSTED);
		return;
	}
	t->req_held = false;
	uint64_t *w = (uint64_t *)(void *)&t->thr->req;
	uint64_t old = __atomic_load_n(w, __ATOMIC_RELAXED), new;
	do
		new = (old & ~(uint64_t)WW_POSTED) | (uint64_t)WW_POSTED << 32;
	while (!__atomic_compare_exchange_n(w, &old, new, false,
	    __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	if ((old >> 32) & WW_SLEEPING) {
		host_futex_wake(&t->thr->reply, 1);
		TRACE(TR_T_WOKEN);
	}
}

/*
 * Errors of the mapper's batches since the last report.  ENOMEM is the
 * host's VMA limit (or its memory): shed an eighth of the mappings.
 */
static void
trap_check_mapper(struct vmspace_host *vh)
{
	int64_t err = __atomic_exchange_n(&vh->sync->err, 0, __ATOMIC_ACQ_REL);
	if (err == 0) {
		vh->refusals = 0;
		return;
	}
	vh->refusals++;
	if (err == -ENOMEM)
		trap_hostmap_shrink(vh, vh->hm.ngroups / 8 + 1);
	else
		host_debug("trap: mapper error %lld", (long long)err);
}

/*
 * A page fault of thread t: served here (under the vmspace's lock) if
 * the vpagetable allows it.  Returns true if the trap is for the caller
 * (tf says which), false if the guest is running again.
 */
static bool
trap_decode_fault(struct vmspace_host *vh, struct trap_thread *t,
    struct trapframe *tf, const greg_t *g, bool accerr)
{
	struct vcpu *cpu = cpu_self();
	/*
	 * Served faults never reach the kernel, so a guest faulting on and
	 * on (or forging faults) would keep the CPU: with an interrupt
	 * pending the fault is served with the guest left parked, and the
	 * CPU goes back to the kernel.
	 */
	bool preempt = cpu != NULL && cpu_pending(cpu) != 0;
	uint64_t err;
	tf->tf_addr = (uint64_t)g[REG_CR2];
	TRAP_COUNT(vh, faults, 1);
	host_mutex_lock(&vh->lock);
	trap_check_mapper(vh);
	int r = trap_fault(vh, t, tf->tf_addr, tf->tf_err, accerr, !preempt, &err);
	host_mutex_unlock(&vh->lock);
	switch (r) {
	case TRAP_FAULT_SERVED:
		if (!preempt)
			return false;
		tf->tf_trapno = T_INTR;
		tf->tf_err = tf->tf_addr = 0;
		break;
	case TRAP_FAULT_REFUSED:
		tf->tf_trapno = T_BUSERR;
		break;
	default:
		TRAP_COUNT(vh, fault_kernel, 1);
		tf->tf_err = err;
		t->kfault_va = tf->tf_addr;
		t->kfault_err = err;
		t->kfault_rip = (uint64_t)g[REG_RIP];
	}
	return true;
}

/*
 * Turns the report into tf.  Returns true if the trap is for the caller,
 * false if it was a fault served here (the guest is running again).
 */
static bool
trap_decode(struct vmspace_host *vh, struct trap_thread *t,
    struct trapframe *tf, struct vextframe *vf)
{
	if (t->utrap) {
		TRAP_COUNT(vh, sys_patched, 1);
		trap_utrap_get(vh, t, tf, vf);
		return true;
	}
	const greg_t *g = t->uc->uc_mcontext.gregs;
	const siginfo_t *si = t->si;
	uint64_t signo = t->thr->signo;

	tf->tf_err = 0;
	tf->tf_addr = 0;
	switch (signo) {
	case SIGSYS:
		TRAP_COUNT(vh, sys_signal, 1);
		tf->tf_trapno = T_SYSCALL;
		tf->tf_err = (uint32_t)si->si_arch == AUDIT_ARCH_I386 ?
		    SYSCALL_ABI_I386 : SYSCALL_ABI_X86_64;
		break;
	case SIGSEGV:
	case SIGBUS:
	case SIGILL:
	case SIGFPE:
	case SIGTRAP:
		tf->tf_trapno = (uint64_t)g[REG_TRAPNO];
		tf->tf_err = (uint64_t)g[REG_ERR];
		tf->tf_addr = (uint64_t)si->si_addr;
		/*
		 * The host sends SIGSEGV for other reasons too (a failed
		 * rt_sigreturn: SI_KERNEL), leaving a stale trap number.
		 */
		if (signo == SIGSEGV && tf->tf_trapno == T_PAGEFLT &&
		    si->si_code != SEGV_MAPERR && si->si_code != SEGV_ACCERR) {
			tf->tf_trapno = T_PROTFLT;
			tf->tf_err = 0;
		} else if (signo == SIGSEGV && tf->tf_trapno == T_PAGEFLT) {
			if (!trap_decode_fault(vh, t, tf, g,
			    si->si_code == SEGV_ACCERR))
				return false;
		} else if (signo == SIGBUS && tf->tf_trapno == T_PAGEFLT) {
			/* Not the guest's exception: a host mapping failed. */
			tf->tf_trapno = T_BUSERR;
		}
		break;
	default:	/* the kick, or a report the stub could not have made */
		TRAP_COUNT(vh, other, 1);
		tf->tf_trapno = T_INTR;
		break;
	}
	/* Mapper errors are looked at on every report; the lock only if any. */
	if (__atomic_load_n(&vh->sync->err, __ATOMIC_ACQUIRE) != 0) {
		host_mutex_lock(&vh->lock);
		trap_check_mapper(vh);
		host_mutex_unlock(&vh->lock);
	}
	__atomic_fetch_add(&vh->nreturned, 1, __ATOMIC_RELAXED);
	trap_frame_get(vh, t, tf, vf);
	if (signo == SIGILL)
		(void)trap_utrap_fallback(t, tf);
	return true;
}

/*
 * The CPU time (ns) the stub's threads have used, from the host's clock
 * of the stub's process (its guest threads and its mapper: the mapper
 * works only for the guests' faults); 0 if the host does not tell (the
 * stub is gone).
 */
static uint64_t
trap_stub_cputime(struct vmspace_host *vh)
{
	/* Linux's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) */
	clockid_t clk = (clockid_t)(~(unsigned)vh->pid << 3 | 2);
	struct timespec ts;
	if (clock_gettime(clk, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * The stub's CPU time since the last report of any of its threads.  The
 * host will not read another process's thread clocks, so a run is
 * charged what the whole stub used since then: the sum over the
 * threads' runs is the stub's time, exact with one thread running, a
 * thread's share approximate with several.
 */
static uint64_t
trap_charge(struct vmspace_host *vh)
{
	uint64_t now = trap_stub_cputime(vh);
	uint64_t prev = __atomic_load_n(&vh->cputime, __ATOMIC_ACQUIRE);
	do {
		if (now <= prev)
			return 0;
	} while (!__atomic_compare_exchange_n(&vh->cputime, &prev, now, false,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return now - prev;
}

static void
trap_dead_frame(struct trapframe *tf)
{
	tf->tf_cputime = 0;
	tf->tf_trapno = T_DEAD;
	tf->tf_err = 0;
	tf->tf_addr = 0;
}

/*
 * A stub thread runs where the guests of the CPU running it go (cpu.h):
 * a guest thread that moves to another CPU takes its stub thread to that
 * CPU's core, or two CPUs would run their guests on one core.  The
 * mapper follows thread 0, so a process of one thread keeps both on one
 * core; the threads of a multithreaded one spread.  The thread is parked
 * and the stub alive (its last report came), so its tid is still its own.
 */
static void
trap_follow_cpu(struct vmspace_host *vh, struct trap_thread *t)
{
	struct vcpu *cpu = cpu_self();

	if (cpu == NULL || cpu->stub_core < 0 || cpu->stub_core == t->core ||
	    t->tid <= 0)
		return;
	(void)cpu_pin_task(t->tid, cpu->stub_core);
	if (t->n == 0 && vh->mapper_tid > 0)
		(void)cpu_pin_task(vh->mapper_tid, cpu->stub_core);
	t->core = cpu->stub_core;
}

int
trap_run(struct vmspace_host *vh, int n, struct trapframe *tf,
    struct vextframe *vf)
{
	TRACE(TR_T_RUN);
	struct trap_thread *t = trap_thread_get(vh, n);
	if (t == NULL)
		return -1;
	if (trap_dead(vh) || !__atomic_load_n(&t->parked, __ATOMIC_ACQUIRE))
		goto dead;
	/* Its first run: what the stub used booting is not the guest's. */
	if (__atomic_load_n(&vh->cputime, __ATOMIC_ACQUIRE) == 0)
		(void)trap_charge(vh);
	/*
	 * A thread parked in the trampoline resumes by a jump if it can;
	 * for anything more it first traps into its handler (trap_patch.c).
	 */
	bool fpu = (tf->tf_xflags & PGEX_FPFAULT) || (t->fresh && vf != NULL);
	if (t->utrap && (fpu || !trap_utrap_put(t, tf, vf)) &&
	    trap_utrap_settle(vh, t) < 0)
		goto dead;
	if (fpu)
		trap_fpu_load(t, vf);
	t->fresh = false;
	trap_follow_cpu(vh, t);
	if (!t->utrap)
		trap_frame_put(vh, t, tf, vf);
	t->last_fault_va = UINT64_MAX;	/* the loop guard counts within a run */
	if (t->kfault_va != UINT64_MAX && tf->tf_rip != t->kfault_rip)
		t->kfault_va = UINT64_MAX;	/* off to a signal handler */
	TRACE(TR_T_PREP);
	host_mutex_lock(&vh->lock);
	trap_fault_ahead(vh, t);
	/* What a recycled stub kept and nobody claimed goes first. */
	int r = trap_keep_settle(vh);
	if (r == 0 && vh->nops > 0) {
		r = trap_cmd_issue(vh, t, true);
	} else if (r == 0) {
		__atomic_store_n(&t->parked, false, __ATOMIC_RELEASE);
		trap_resumed(t);
		TRACE(TR_T_LOCKED);
		trap_reply_post(t);
		TRACE(TR_T_POSTED);
	}
	host_mutex_unlock(&vh->lock);
	if (r < 0)
		goto dead;
	vmspace_handoff();	/* the guest this CPU ran before stops spinning */
	TRACE(TR_T_HANDOFF);
	if (trap_wait_report(vh, t, false) < 0)
		goto dead;
	trap_handoff_done(vh->spin_ns);
	while (!trap_decode(vh, t, tf, vf))
		if (trap_wait_report(vh, t, false) < 0)
			goto dead;
	if (trap_dead(vh))		/* killed while serving a fault */
		goto dead;
	/*
	 * Reading the stub's CPU clock is a host system call (some 0.5-1 us
	 * here), dearer than a whole patched call and a third of a signal
	 * path's: it is read at most once a millisecond per thread, and the
	 * next reading charges what was left.  A pipe round trip read it
	 * four times.
	 */
	tf->tf_cputime = 0;
	uint64_t now = __atomic_load_n(&t->parked_at, __ATOMIC_RELAXED);
	if (now - t->charged_at >= TRAP_CHARGE_NS) {
		t->charged_at = now;
		tf->tf_cputime = trap_charge(vh);
	}
	TRACE(TR_T_RETURN);
	return 0;
dead:
	trap_dead_frame(tf);
	return 0;
}
