/*
 * Running a guest thread until it traps (VMSPACE_CTL_RUN).
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
#include "host/trap/trap.h"

#ifndef AUDIT_ARCH_I386
#define AUDIT_ARCH_I386 0x40000003U
#endif

#define TRAP_KICK_CHECK_NS	2000000UL	/* a kicked guest is looked at */
#define TRAP_POLL_NS		20000000UL
#define TRAP_BOOT_WAIT_NS	5000000000UL

static void
trap_kick(struct vmspace_host *vh)
{
	__atomic_store_n(&vh->thr->kick, 1, __ATOMIC_SEQ_CST);
	syscall(SYS_tgkill, vh->pid, vh->pid, STUB_SIGKICK);
}

/*
 * Waits for the guest thread's next report.  Returns 0 with the frame
 * taken, or -1 when the stub is dead (or, booting, never came up).
 */
int
trap_wait_report(struct vmspace_host *vh, bool booting)
{
	struct vcpu *cpu = booting ? NULL : cpu_self();
	uint32_t *req = &vh->thr->req;
	uint64_t start = host_nanotime(), now = start, kicked = 0;
	uint64_t kick_cpu = UINT64_MAX;

	for (;;) {
		if (__atomic_load_n(req, __ATOMIC_ACQUIRE) & WW_POSTED)
			break;
		if (cpu != NULL && kicked == 0 && cpu_pending(cpu) != 0) {
			trap_kick(vh);
			kicked = now;
		}
		if (now - start < vh->spin_ns) {
			cpu_relax();
			now = host_nanotime();
			continue;
		}
		vh->nsleeps++;
		cpu_sleep(cpu, req, WW_POSTED, kicked != 0 ? TRAP_KICK_CHECK_NS :
		    TRAP_POLL_NS);
		now = host_nanotime();
		if (__atomic_load_n(req, __ATOMIC_ACQUIRE) & WW_POSTED)
			break;
		if (!trap_alive(vh)) {
			trap_kill(vh, "stub died");
			return -1;
		}
		if (kicked != 0) {
			const char *why = trap_kick_verdict(vh, kicked, now,
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
	__atomic_and_fetch(req, ~WW_POSTED, __ATOMIC_ACQ_REL);
	__atomic_store_n(&vh->thr->kick, 0, __ATOMIC_SEQ_CST);
	vh->parked = true;
	vh->parked_at = host_nanotime();
	if (trap_frame_take(vh) < 0) {
		trap_kill(vh, "stub reported a bad frame");
		return -1;
	}
	return 0;
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
 * Turns the report into tf.  Returns true if the trap is for the caller,
 * false if it was a fault served here (the guest is running again).
 */
static bool
trap_decode(struct vmspace_host *vh, struct trapframe *tf, struct vextframe *vf)
{
	struct vcpu *cpu = cpu_self();
	const greg_t *g = vh->uc->uc_mcontext.gregs;
	const siginfo_t *si = vh->si;
	uint64_t signo = vh->thr->signo;

	trap_check_mapper(vh);
	tf->tf_err = 0;
	tf->tf_addr = 0;
	switch (signo) {
	case SIGSYS:
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
			/*
			 * Served faults never reach the kernel, so a guest
			 * faulting on and on (or forging faults) would keep
			 * the CPU: with an interrupt pending the fault is
			 * served with the guest left parked, and the CPU
			 * goes back to the kernel.
			 */
			bool preempt = cpu != NULL && cpu_pending(cpu) != 0;
			uint64_t err;
			tf->tf_addr = (uint64_t)g[REG_CR2];
			switch (trap_fault(vh, tf->tf_addr, tf->tf_err,
			    si->si_code == SEGV_ACCERR, !preempt, &err)) {
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
				tf->tf_err = err;
				vh->kfault_va = tf->tf_addr;
				vh->kfault_err = err;
				vh->kfault_rip = (uint64_t)g[REG_RIP];
			}
		} else if (signo == SIGBUS && tf->tf_trapno == T_PAGEFLT) {
			/* Not the guest's exception: a host mapping failed. */
			tf->tf_trapno = T_BUSERR;
		}
		break;
	default:	/* the kick, or a report the stub could not have made */
		tf->tf_trapno = T_INTR;
		break;
	}
	vh->nreturned++;
	trap_frame_get(vh, tf, vf);
	return true;
}

/*
 * The CPU time (ns) the stub's threads have used, from the host's clock
 * of the stub's process (the guest thread and its mapper: the mapper
 * works only for the guest's faults); its last value if the host does
 * not tell (the stub is gone).
 */
static uint64_t
trap_stub_cputime(struct vmspace_host *vh)
{
	/* Linux's MAKE_PROCESS_CPUCLOCK(pid, CPUCLOCK_SCHED) */
	clockid_t clk = (clockid_t)(~(unsigned)vh->pid << 3 | 2);
	struct timespec ts;
	if (clock_gettime(clk, &ts) < 0)
		return vh->cputime;
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void
trap_dead(struct trapframe *tf)
{
	tf->tf_cputime = 0;
	tf->tf_trapno = T_DEAD;
	tf->tf_err = 0;
	tf->tf_addr = 0;
}

/*
 * A stub runs where the guests of the CPU running it go (cpu.h): a
 * process that moves to another CPU takes its stub, mapper included, to
 * that CPU's core, or two CPUs would run their guests on one core.  The
 * stub is parked and alive (its last report came), and its pid is ours
 * until we reap it; the mapper's tid would be freed only if the stub
 * died since, and the host hands out a freed id again only once it has
 * gone round all others.
 */
static void
trap_follow_cpu(struct vmspace_host *vh)
{
	struct vcpu *cpu = cpu_self();

	if (cpu == NULL || cpu->stub_core < 0 || cpu->stub_core == vh->core)
		return;
	(void)cpu_pin_task(vh->pid, cpu->stub_core);
	pid_t mapper = stub_mapper_tid(vh);
	if (mapper > 0)
		(void)cpu_pin_task(mapper, cpu->stub_core);
	vh->core = cpu->stub_core;
}

int
trap_run(struct vmspace_host *vh, struct trapframe *tf, struct vextframe *vf)
{
	if (vh->dead || !vh->parked) {
		trap_dead(tf);
		return 0;
	}
	if (vh->cputime == 0)	/* its first run: what it used booting is not the guest's */
		vh->cputime = trap_stub_cputime(vh);
	trap_follow_cpu(vh);
	if (tf->tf_xflags & PGEX_FPFAULT)
		trap_fpu_load(vh, vf);
	trap_frame_put(vh, tf, vf);
	vh->last_fault_va = UINT64_MAX;	/* the loop guard counts within a run */
	if (vh->kfault_va != UINT64_MAX && tf->tf_rip != vh->kfault_rip)
		vh->kfault_va = UINT64_MAX;	/* off to a signal handler */
	trap_fault_ahead(vh);
	if (vh->nops > 0) {
		if (trap_cmd_issue(vh, true) < 0)
			goto dead;
	} else {
		vh->parked = false;
		trap_resumed(vh);
		ww_post(&vh->thr->reply, WW_POSTED);
	}
	do {
		if (trap_wait_report(vh, false) < 0)
			goto dead;
	} while (!trap_decode(vh, tf, vf));
	if (vh->dead)		/* killed while serving a fault */
		goto dead;
	uint64_t now = trap_stub_cputime(vh);
	tf->tf_cputime = now >= vh->cputime ? now - vh->cputime : 0;
	vh->cputime = now;
	return 0;
dead:
	trap_dead(tf);
	return 0;
}
