/*
 * Signals: posting, default actions, and delivery to handlers through
 * Linux x86-64 signal frames (rt_sigframe: return address, ucontext,
 * siginfo, and the FPU state as XSAVE with its software bytes), undone
 * by rt_sigreturn.
 */
#include <limits.h>
#include <signal.h>
#include <sys/ucontext.h>

#include "host/cpu.h"
#include "kern/signal.h"
#include "sys/syscall.h"
#include "sys/sys_trace.h"
#include "kern/ucred.h"
#include "vm/kmem.h"
#include "vm/vm.h"

#define SA_RESTORER_	0x04000000
#define CANTMASK	(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP))
#define FP_MAGIC1	0x46505853U
#define FP_MAGIC2	0x46505845U
#define UC_FP_XSTATE_	0x1
#define UC_SIGCONTEXT_SS_	0x2	/* the frame's ss is the interrupted one */
#define UC_STRICT_RESTORE_SS_	0x4	/* sigreturn restores it as it is */
#define REDZONE		128

/* The kernel's struct ucontext (glibc's ucontext_t is larger). */
struct linux_ucontext {
	uint64_t uc_flags;
	uint64_t uc_link;
	stack_t uc_stack;
	mcontext_t uc_mcontext;
	ksigset_t uc_sigmask;
};
_Static_assert(sizeof(struct linux_ucontext) == 304, "Linux ucontext layout");

enum sigdefault { SD_TERM, SD_CORE, SD_IGN, SD_STOP, SD_CONT };

static enum sigdefault
sig_default(int sig)
{
	switch (sig) {
	case SIGQUIT: case SIGILL: case SIGTRAP: case SIGABRT: case SIGBUS:
	case SIGFPE: case SIGSEGV: case SIGXCPU: case SIGXFSZ: case SIGSYS:
		return SD_CORE;
	case SIGCHLD: case SIGURG: case SIGWINCH:
		return SD_IGN;
	case SIGSTOP: case SIGTSTP: case SIGTTIN: case SIGTTOU:
		return SD_STOP;
	case SIGCONT:
		return SD_CONT;
	}
	return SD_TERM;
}

static bool
sig_ignored(const struct proc *p, int sig)
{
	uint64_t h = p->p_sigacts->ps_act[sig - 1].lsa_handler;
	return h == (uint64_t)SIG_IGN || (h == (uint64_t)SIG_DFL &&
	    sig_default(sig) == SD_IGN);
}

/* Gets the lwp of p to notice a signal: ends a PCATCH sleep, or a run. */
static void
sig_notify(struct proc *p)
{
	struct lwp *lp = TAILQ_FIRST(&p->p_lwps);
	if (lp == NULL || lp->lwp_thread == NULL)
		return;
	struct thread *td = lp->lwp_thread;
	if (td->td_state == TDS_SLEEPING)
		thread_interrupt(td);
	else if (td->td_state == TDS_RUNNING && td != curthread)
		cpu_post(td->td_cpu, INTR_KICK);	/* it may be in user mode */
}

void
psignal_proc(struct proc *p, int sig)
{
	if (sig <= 0 || sig > LINUX_NSIG || p->p_state != PRS_NORMAL)
		return;
	if (sig == SIGKILL || sig == SIGCONT) {
		p->p_siglist &= ~(SIGBIT(SIGSTOP) | SIGBIT(SIGTSTP) |
		    SIGBIT(SIGTTIN) | SIGBIT(SIGTTOU));
		if (p->p_flags & P_STOPPED) {
			p->p_flags = (p->p_flags & ~P_STOPPED) | P_CONTINUED;
			wakeup(&p->p_flags);
		}
	}
	if (sig_default(sig) == SD_STOP)
		p->p_siglist &= ~SIGBIT(SIGCONT);
	if (sig_ignored(p, sig) && sig != SIGKILL) {
		if (sig == SIGCONT)
			return;		/* its work (continuing) is done */
		struct lwp *lp = TAILQ_FIRST(&p->p_lwps);
		if (lp == NULL || !(lp->lwp_sigmask & SIGBIT(sig)))
			return;		/* an ignored, unblocked signal is dropped */
	}
	p->p_siglist |= SIGBIT(sig);
	sig_notify(p);
}

void
trapsignal(struct lwp *lp, int sig, int code, uint64_t addr)
{
	struct proc *p = lp->lwp_proc;
	/* A blocked or ignored fault signal cannot be delivered: it kills. */
	if ((lp->lwp_sigmask & SIGBIT(sig)) || sig_ignored(p, sig)) {
		p->p_sigacts->ps_act[sig - 1].lsa_handler = (uint64_t)SIG_DFL;
		lp->lwp_sigmask &= ~SIGBIT(sig);
	}
	lp->lwp_siglist |= SIGBIT(sig);
	lp->lwp_sigcode[sig - 1] = code;
	lp->lwp_sigaddr[sig - 1] = addr;
}

static ksigset_t
sig_deliverable(const struct lwp *lp)
{
	ksigset_t pend = lp->lwp_siglist | lp->lwp_proc->p_siglist;
	return pend & ~(lp->lwp_sigmask & ~CANTMASK);
}

bool
issignal_pending(const struct lwp *lp)
{
	return sig_deliverable(lp) != 0;
}

/* The stop action: until SIGCONT or SIGKILL. */
static void
sig_stop(struct lwp *lp, int sig)
{
	struct proc *p = lp->lwp_proc;
	p->p_flags = (p->p_flags | P_STOPPED) & ~(P_WAITED | P_CONTINUED);
	p->p_xstat = W_STOPCODE(sig);
	if (p->p_pptr != NULL) {
		psignal_proc(p->p_pptr, SIGCHLD);
		wakeup(p->p_pptr);
	}
	while ((p->p_flags & P_STOPPED) && !(p->p_siglist & SIGBIT(SIGKILL)))
		tsleep(&p->p_flags, 0, "stopped", 0);
	if (p->p_pptr != NULL)
		wakeup(p->p_pptr);
}

/* The FPU image in lp's vf and its size (XSAVE software bytes). */
static uint32_t
fpu_image_size(const struct vextframe *vf)
{
	uint32_t magic, size;
	memcpy(&magic, vf->vx_fpu + 464, 4);
	memcpy(&size, vf->vx_fpu + 464 + 12, 4);
	if (magic == FP_MAGIC1 && size >= 512 + 64 && size + 4 <= VX_FPU_SIZE)
		return size;
	return 512;
}

/*
 * Builds the signal frame for sig's handler on the user stack and points
 * the registers at the handler.  Returns 0, or -EFAULT if the stack is
 * unusable (the caller kills the process).
 */
static int
sig_sendframe(struct lwp *lp, int sig, const struct linux_sigaction *sa)
{
	struct trapframe *tf = &lp->lwp_tf;
	struct vmspace *vm = lp->lwp_proc->p_vmspace;

	(void)vmspace_thread_ctl(vmspace_host_id(vm), lp->lwp_hostthr,
	    VMSPACE_CTL_FPSAVE, NULL, lp->lwp_vf);
	uint32_t fpsize = fpu_image_size(lp->lwp_vf);

	uint64_t sp = tf->tf_rsp;
	if ((sa->lsa_flags & SA_ONSTACK) && lp->lwp_sigstk.ss_size != 0 &&
	    !(sp >= (uint64_t)lp->lwp_sigstk.ss_sp &&
	    sp < (uint64_t)lp->lwp_sigstk.ss_sp + lp->lwp_sigstk.ss_size))
		sp = (uint64_t)lp->lwp_sigstk.ss_sp + lp->lwp_sigstk.ss_size;
	else
		sp -= REDZONE;
	uint64_t fpaddr = (sp - fpsize - 4) & ~63UL;
	uint64_t frame = ((fpaddr - sizeof(struct linux_ucontext) -
	    sizeof(siginfo_t) - 8) & ~15UL) - 8;
	uint64_t ucaddr = frame + 8, infoaddr = ucaddr + sizeof(struct linux_ucontext);

	struct linux_ucontext uc;
	siginfo_t info;
	memset(&uc, 0, sizeof(uc));
	memset(&info, 0, sizeof(info));
	/* The interrupted code's segments (0: 64-bit, as vmspace.h). */
	uint64_t cs = tf->tf_cs != 0 ? tf->tf_cs : GSEL_UCODE;
	uint64_t ss = tf->tf_ss != 0 ? tf->tf_ss : GSEL_UDATA;
	uc.uc_flags = UC_FP_XSTATE_ | UC_SIGCONTEXT_SS_ |
	    (cs == GSEL_UCODE ? UC_STRICT_RESTORE_SS_ : 0);
	uc.uc_stack.ss_sp = lp->lwp_sigstk.ss_sp;	/* as it was before */
	uc.uc_stack.ss_size = lp->lwp_sigstk.ss_size;
	uc.uc_stack.ss_flags = lp->lwp_sigstk.ss_size ? 0 : SS_DISABLE;
	greg_t *g = uc.uc_mcontext.gregs;
	g[REG_R8] = (greg_t)tf->tf_r8;   g[REG_R9] = (greg_t)tf->tf_r9;
	g[REG_R10] = (greg_t)tf->tf_r10; g[REG_R11] = (greg_t)tf->tf_r11;
	g[REG_R12] = (greg_t)tf->tf_r12; g[REG_R13] = (greg_t)tf->tf_r13;
	g[REG_R14] = (greg_t)tf->tf_r14; g[REG_R15] = (greg_t)tf->tf_r15;
	g[REG_RDI] = (greg_t)tf->tf_rdi; g[REG_RSI] = (greg_t)tf->tf_rsi;
	g[REG_RBP] = (greg_t)tf->tf_rbp; g[REG_RBX] = (greg_t)tf->tf_rbx;
	g[REG_RDX] = (greg_t)tf->tf_rdx; g[REG_RAX] = (greg_t)tf->tf_rax;
	g[REG_RCX] = (greg_t)tf->tf_rcx; g[REG_RSP] = (greg_t)tf->tf_rsp;
	g[REG_RIP] = (greg_t)tf->tf_rip; g[REG_EFL] = (greg_t)tf->tf_rflags;
	g[REG_CSGSFS] = (greg_t)((cs & 0xffff) | (ss & 0xffff) << 48);
	g[REG_TRAPNO] = (greg_t)(tf->tf_trapno < 256 ? tf->tf_trapno : 0);
	g[REG_ERR] = (greg_t)(tf->tf_trapno < 256 ? tf->tf_err : 0);
	g[REG_CR2] = (greg_t)(tf->tf_trapno == T_PAGEFLT ? tf->tf_addr : 0);
	uc.uc_mcontext.fpregs = (fpregset_t)fpaddr;
	uc.uc_sigmask = lp->lwp_sigmask;
	if (lp->lwp_flags & LWP_OLDMASK) {
		uc.uc_sigmask = lp->lwp_oldmask;
		lp->lwp_flags &= ~LWP_OLDMASK;
	}

	info.si_signo = sig;
	info.si_code = lp->lwp_sigcode[sig - 1];
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGFPE ||
	    sig == SIGTRAP)
		info.si_addr = (void *)lp->lwp_sigaddr[sig - 1];
	else
		info.si_pid = lp->lwp_sigpid[sig - 1];

	uint32_t magic2 = FP_MAGIC2;
	uint64_t ret = sa->lsa_restorer;
	if (vm_copyout(vm, lp->lwp_vf->vx_fpu, fpaddr, fpsize) < 0 ||
	    vm_copyout(vm, &magic2, fpaddr + fpsize, 4) < 0 ||
	    vm_copyout(vm, &ret, frame, 8) < 0 ||
	    vm_copyout(vm, &uc, ucaddr, sizeof(uc)) < 0 ||
	    vm_copyout(vm, &info, infoaddr, sizeof(info)) < 0)
		return -EFAULT;

	tf->tf_rdi = (uint64_t)sig;
	tf->tf_rsi = infoaddr;
	tf->tf_rdx = ucaddr;
	tf->tf_rax = 0;
	tf->tf_rsp = frame;
	tf->tf_rip = sa->lsa_handler;
	/* The handler runs in 64-bit mode whatever the code it interrupted. */
	tf->tf_cs = GSEL_UCODE;
	tf->tf_ss = GSEL_UDATA;
	tf->tf_rflags &= ~0x0500UL;		/* DF and TF */
	vmspace_fpu_init(lp->lwp_vf);		/* a handler starts clean */
	tf->tf_xflags |= PGEX_FPFAULT;
	return 0;
}

/* A suspend mask not taken into a frame goes now. */
static void
sig_restore_oldmask(struct lwp *lp)
{
	if (lp->lwp_flags & LWP_OLDMASK) {
		lp->lwp_sigmask = lp->lwp_oldmask;
		lp->lwp_flags &= ~LWP_OLDMASK;
	}
}

/*
 * The wait status's "core dumped" flag.  No core is written here; the
 * flag is Linux's with a core file pattern: set when RLIMIT_CORE allows
 * a core at all.
 */
static int
core_flag(const struct proc *p)
{
	return p->p_rlimit[RLIMIT_CORE].rlim_cur != 0 ? WCOREFLAG : 0;
}

void
postsig(struct lwp *lp)
{
	struct proc *p = lp->lwp_proc;
	ksigset_t set = sig_deliverable(lp);
	if (set == 0)
		return;
	int sig = __builtin_ctzll(set) + 1;
	if (set & SIGBIT(SIGKILL))
		sig = SIGKILL;
	lp->lwp_siglist &= ~SIGBIT(sig);
	p->p_siglist &= ~SIGBIT(sig);
	/* SIGCHLD was shown when sent (exit1); SIGKILL is never seen. */
	if (__builtin_expect(strace_enabled, 0) && sig != SIGCHLD && sig != SIGKILL)
		strace_signal(p, sig, lp->lwp_sigcode[sig - 1],
		    lp->lwp_sigpid[sig - 1], 0, lp->lwp_sigaddr[sig - 1]);

	struct linux_sigaction *sa = &p->p_sigacts->ps_act[sig - 1];
	if (sa->lsa_handler == (uint64_t)SIG_IGN && sig != SIGKILL) {
		sig_restore_oldmask(lp);
		return;
	}
	if (sa->lsa_handler == (uint64_t)SIG_DFL || sig == SIGKILL ||
	    sig == SIGSTOP) {
		switch (sig_default(sig)) {
		case SD_IGN:
		case SD_CONT:
			sig_restore_oldmask(lp);
			return;
		case SD_STOP:
			sig_stop(lp, sig);
			sig_restore_oldmask(lp);
			return;
		case SD_CORE:
			exit1(W_EXITCODE(0, sig) | core_flag(p));
		case SD_TERM:
			exit1(W_EXITCODE(0, sig));
		}
	}
	syscall_restart(lp, sa);
	if (sig_sendframe(lp, sig, sa) < 0) {
		kprintf_ratelimited("pid %d (%s): cannot deliver signal %d: bad stack\n",
		    p->p_pid, p->p_comm, sig);
		exit1(W_EXITCODE(0, SIGSEGV) | core_flag(p));
	}
	if (!(sa->lsa_flags & SA_NODEFER))
		lp->lwp_sigmask |= SIGBIT(sig);
	lp->lwp_sigmask |= sa->lsa_mask & ~CANTMASK;
	if (sa->lsa_flags & SA_RESETHAND)
		sa->lsa_handler = (uint64_t)SIG_DFL;
}

void
syscall_restart(struct lwp *lp, const struct linux_sigaction *sa)
{
	struct trapframe *tf = &lp->lwp_tf;
	if (!(lp->lwp_flags & LWP_RESTART))
		return;
	lp->lwp_flags &= ~LWP_RESTART;

	long r = (long)tf->tf_rax;
	bool again = sa == NULL || r == -ERESTARTNOINTR ||
	    (r == -ERESTARTSYS && (sa->lsa_flags & SA_RESTART));
	if (!again) {
		tf->tf_rax = (uint64_t)-EINTR;
		return;
	}
	tf->tf_rax = r == -ERESTART_RESTARTBLOCK ? SYS_restart_syscall :
	    lp->lwp_syscall_nr;
	tf->tf_rip -= 2;		/* back onto the syscall instruction */
}

/* Continues the call that returned -ERESTART_RESTARTBLOCK. */
long
sys_restart_syscall(struct lwp *lp, const uint64_t *args __unused)
{
	struct restart_block *rb = &lp->lwp_restart;
	long (*fn)(struct lwp *) = rb->rb_fn;
	rb->rb_fn = NULL;
	return fn != NULL ? fn(lp) : -EINTR;
}

int
sigacts_fork(struct proc *child, const struct proc *parent, bool share)
{
	if (share) {
		child->p_sigacts = parent->p_sigacts;
		child->p_sigacts->ps_ref++;
		return 0;
	}
	child->p_sigacts = kmalloc(sizeof(struct sigacts), 0);
	if (child->p_sigacts == NULL)
		return -ENOMEM;
	if (parent != NULL)
		*child->p_sigacts = *parent->p_sigacts;
	else
		memset(child->p_sigacts, 0, sizeof(struct sigacts));
	child->p_sigacts->ps_ref = 1;
	return 0;
}

void
sigacts_exec(struct proc *p)
{
	for (int i = 0; i < LINUX_NSIG; i++) {
		struct linux_sigaction *sa = &p->p_sigacts->ps_act[i];
		if (sa->lsa_handler != (uint64_t)SIG_IGN)
			memset(sa, 0, sizeof(*sa));
	}
	struct lwp *lp = TAILQ_FIRST(&p->p_lwps);
	if (lp != NULL)
		memset(&lp->lwp_sigstk, 0, sizeof(lp->lwp_sigstk));
}

int
sigacts_unshare(struct proc *p)
{
	struct sigacts *ps = p->p_sigacts;
	if (ps->ps_ref == 1)
		return 0;
	struct sigacts *ns = kmalloc(sizeof(*ns), 0);
	if (ns == NULL)
		return -ENOMEM;
	*ns = *ps;
	ns->ps_ref = 1;
	ps->ps_ref--;
	p->p_sigacts = ns;
	return 0;
}

void
sigacts_free(struct proc *p)
{
	if (--p->p_sigacts->ps_ref == 0)
		kfree(p->p_sigacts);
	p->p_sigacts = NULL;
}

long
sys_rt_sigaction(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	int sig = (int)args[0];
	struct linux_sigaction nsa;

	if (sig < 1 || sig > LINUX_NSIG || args[3] != sizeof(ksigset_t))
		return -EINVAL;
	if (args[1] != 0 && copyin(args[1], &nsa, sizeof(nsa)) < 0)
		return -EFAULT;
	if (args[1] != 0 && (sig == SIGKILL || sig == SIGSTOP))
		return -EINVAL;
	/* As Linux: the new action is in place before the old is stored. */
	struct linux_sigaction osa = p->p_sigacts->ps_act[sig - 1];
	if (args[1] != 0) {
		nsa.lsa_mask &= ~CANTMASK;
		p->p_sigacts->ps_act[sig - 1] = nsa;
		if (sig_ignored(p, sig)) {	/* pending ones go (POSIX) */
			p->p_siglist &= ~SIGBIT(sig);
			lp->lwp_siglist &= ~SIGBIT(sig);
		}
	}
	if (args[2] != 0 && copyout(&osa, args[2], sizeof(osa)) < 0)
		return -EFAULT;
	return 0;
}

long
sys_rt_sigprocmask(struct lwp *lp, const uint64_t *args)
{
	ksigset_t set, old = lp->lwp_sigmask;

	if (args[3] != sizeof(ksigset_t))
		return -EINVAL;
	if (args[1] != 0) {
		if (copyin(args[1], &set, sizeof(set)) < 0)
			return -EFAULT;
		switch (args[0]) {
		case SIG_BLOCK:   lp->lwp_sigmask |= set; break;
		case SIG_UNBLOCK: lp->lwp_sigmask &= ~set; break;
		case SIG_SETMASK: lp->lwp_sigmask = set; break;
		default:	  return -EINVAL;
		}
		lp->lwp_sigmask &= ~CANTMASK;
	}
	if (args[2] != 0 && copyout(&old, args[2], sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

long
sys_rt_sigpending(struct lwp *lp, const uint64_t *args)
{
	ksigset_t set = (lp->lwp_siglist | lp->lwp_proc->p_siglist) &
	    lp->lwp_sigmask;
	if (args[1] != sizeof(ksigset_t))
		return -EINVAL;
	return copyout(&set, args[0], sizeof(set));
}

/* Waits with the given mask until a signal is delivered (EINTR). */
long
sys_rt_sigsuspend(struct lwp *lp, const uint64_t *args)
{
	ksigset_t set, old = lp->lwp_sigmask;
	if (args[1] != sizeof(ksigset_t))
		return -EINVAL;
	if (copyin(args[0], &set, sizeof(set)) < 0)
		return -EFAULT;
	lp->lwp_sigmask = set & ~CANTMASK;
	while (!issignal_pending(lp))
		tsleep(&lp->lwp_sigmask, PCATCH, "sigsusp", 0);
	/* The handler runs with the suspend mask; sigreturn restores old. */
	lp->lwp_oldmask = old;
	lp->lwp_flags |= LWP_OLDMASK;
	return -ERESTARTNOHAND;
}

long
sys_rt_sigreturn(struct lwp *lp, const uint64_t *args)
{
	struct trapframe *tf = &lp->lwp_tf;
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	struct linux_ucontext uc;

	(void)args;
	if (vm_copyin(vm, tf->tf_rsp, &uc, sizeof(uc)) < 0) {
		psignal_proc(lp->lwp_proc, SIGSEGV);
		return -EFAULT;
	}
	const greg_t *g = uc.uc_mcontext.gregs;
	tf->tf_r8 = (uint64_t)g[REG_R8];   tf->tf_r9 = (uint64_t)g[REG_R9];
	tf->tf_r10 = (uint64_t)g[REG_R10]; tf->tf_r11 = (uint64_t)g[REG_R11];
	tf->tf_r12 = (uint64_t)g[REG_R12]; tf->tf_r13 = (uint64_t)g[REG_R13];
	tf->tf_r14 = (uint64_t)g[REG_R14]; tf->tf_r15 = (uint64_t)g[REG_R15];
	tf->tf_rdi = (uint64_t)g[REG_RDI]; tf->tf_rsi = (uint64_t)g[REG_RSI];
	tf->tf_rbp = (uint64_t)g[REG_RBP]; tf->tf_rbx = (uint64_t)g[REG_RBX];
	tf->tf_rdx = (uint64_t)g[REG_RDX]; tf->tf_rax = (uint64_t)g[REG_RAX];
	tf->tf_rcx = (uint64_t)g[REG_RCX]; tf->tf_rsp = (uint64_t)g[REG_RSP];
	tf->tf_rip = (uint64_t)g[REG_RIP];
	/*
	 * Segments as Linux's sigreturn: any selector, at RPL 3 (one user
	 * mode may not load faults on the way out, SIGSEGV).  Unless the
	 * frame asks for a strict restore, 64-bit code gets the flat SS.
	 */
	tf->tf_cs = ((uint64_t)g[REG_CSGSFS] & 0xffff) | 3;
	tf->tf_ss = ((uint64_t)g[REG_CSGSFS] >> 48) | 3;
	if (!(uc.uc_flags & UC_STRICT_RESTORE_SS_) && tf->tf_cs == GSEL_UCODE)
		tf->tf_ss = GSEL_UDATA;
	/* Only the flags user code may change (as the host's sigreturn). */
	tf->tf_rflags = (tf->tf_rflags & ~0x40dd5UL) | ((uint64_t)g[REG_EFL] & 0x40dd5UL);
	lp->lwp_sigmask = uc.uc_sigmask & ~CANTMASK;
	uint64_t fpaddr = (uint64_t)uc.uc_mcontext.fpregs;
	if (fpaddr != 0) {
		uint32_t fpsize = 512;
		uint8_t sw[48];
		if (vm_copyin(vm, fpaddr + 464, sw, sizeof(sw)) == 0) {
			uint32_t magic, size;
			memcpy(&magic, sw, 4);
			memcpy(&size, sw + 12, 4);
			if (magic == FP_MAGIC1 && size >= 576 && size <= VX_FPU_SIZE)
				fpsize = size;
		}
		if (vm_copyin(vm, fpaddr, lp->lwp_vf->vx_fpu, fpsize) == 0)
			tf->tf_xflags |= PGEX_FPFAULT;
	}
	return -EJUSTRETURN;
}

static long
kill1(struct lwp *lp, struct proc *p, int sig)
{
	const struct ucred *cr = lp->lwp_proc->p_ucred;
	if (!cred_is_root(cr) && cr->cr_uid != p->p_ucred->cr_ruid &&
	    cr->cr_ruid != p->p_ucred->cr_ruid)
		return -EPERM;
	if (sig != 0) {
		psignal_proc(p, sig);
		struct lwp *tl = TAILQ_FIRST(&p->p_lwps);
		if (tl != NULL)
			tl->lwp_sigpid[sig - 1] = lp->lwp_proc->p_pid;
	}
	return 0;
}

long
sys_kill(struct lwp *lp, const uint64_t *args)
{
	pid_t pid = (pid_t)args[0];
	int sig = (int)args[1];
	struct proc *p;

	if (sig < 0 || sig > LINUX_NSIG)
		return -EINVAL;
	if (pid == INT_MIN)
		return -ESRCH;		/* as Linux: -INT_MIN is no group */
	/* Zombies are still there to signal, as in Linux: nothing happens. */
	if (pid > 0) {
		p = pfind(pid);
		return p != NULL && p->p_state != PRS_NEW ? kill1(lp, p, sig) :
		    -ESRCH;
	}
	/* A process group (0: ours) or, with -1, everyone but init. */
	long r = -ESRCH;
	struct pgrp *pg = NULL;
	if (pid == 0)
		pg = lp->lwp_proc->p_pgrp;
	else if (pid < -1)
		pg = pgfind(-pid);
	if (pid != -1) {
		if (pg == NULL)
			return -ESRCH;
		TAILQ_FOREACH(p, &pg->pg_members, p_pglist)
			if (p->p_state != PRS_NEW)
				r = kill1(lp, p, sig) == 0 ? 0 : r;
		return r;
	}
	for (pid_t i = 2; i < PID_MAX; i++) {
		p = pfind(i);
		if (p != NULL && p->p_state != PRS_NEW && p != lp->lwp_proc)
			r = kill1(lp, p, sig) == 0 ? 0 : r;
	}
	return r;
}

/* Signals thread tid, of process tgid unless that is 0 (tkill). */
static long
tkill1(struct lwp *lp, pid_t tgid, pid_t tid, int sig)
{
	struct proc *p = pfind(tid);
	if (sig < 0 || sig > LINUX_NSIG)
		return -EINVAL;
	if (p == NULL || p->p_state == PRS_NEW || (tgid != 0 && tgid != p->p_pid))
		return -ESRCH;
	return kill1(lp, p, sig);
}

long
sys_tgkill(struct lwp *lp, const uint64_t *args)
{
	if ((pid_t)args[0] <= 0 || (pid_t)args[1] <= 0)
		return -EINVAL;
	return tkill1(lp, (pid_t)args[0], (pid_t)args[1], (int)args[2]);
}

long
sys_tkill(struct lwp *lp, const uint64_t *args)
{
	if ((pid_t)args[0] <= 0)
		return -EINVAL;
	return tkill1(lp, 0, (pid_t)args[0], (int)args[1]);
}

long
sys_sigaltstack(struct lwp *lp, const uint64_t *args)
{
	stack_t ss, old;
	old.ss_sp = lp->lwp_sigstk.ss_sp;
	old.ss_size = lp->lwp_sigstk.ss_size;
	old.ss_flags = lp->lwp_sigstk.ss_size == 0 ? SS_DISABLE : 0;
	uint64_t sp = lp->lwp_tf.tf_rsp;
	if (old.ss_size != 0 && sp >= (uint64_t)old.ss_sp &&
	    sp < (uint64_t)old.ss_sp + old.ss_size)
		old.ss_flags = SS_ONSTACK;
	if (args[0] != 0) {
		if (copyin(args[0], &ss, sizeof(ss)) < 0)
			return -EFAULT;
		if (old.ss_flags == SS_ONSTACK)
			return -EPERM;
		if (ss.ss_flags == SS_DISABLE) {
			memset(&lp->lwp_sigstk, 0, sizeof(lp->lwp_sigstk));
		} else if (ss.ss_flags != 0) {
			return -EINVAL;
		} else if (ss.ss_size < (size_t)MINSIGSTKSZ) {
			return -ENOMEM;
		} else {
			lp->lwp_sigstk.ss_sp = ss.ss_sp;
			lp->lwp_sigstk.ss_size = ss.ss_size;
		}
	}
	if (args[1] != 0 && copyout(&old, args[1], sizeof(old)) < 0)
		return -EFAULT;
	return 0;
}

/* pause: sleeps until a signal is delivered (EINTR). */
long
sys_pause(struct lwp *lp, const uint64_t *args __unused)
{
	while (!issignal_pending(lp))
		tsleep(&lp->lwp_sigmask, PCATCH, "pause", 0);
	return -ERESTARTNOHAND;
}

/* Posts sig to every live process of process group pg. */
void
pgsignal(struct pgrp *pg, int sig)
{
	struct proc *p;
	if (pg == NULL)
		return;
	TAILQ_FOREACH(p, &pg->pg_members, p_pglist)
		if (p->p_state == PRS_NORMAL)
			psignal_proc(p, sig);
}
