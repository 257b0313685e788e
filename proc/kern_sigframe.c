/*
 * Signal frames: Linux x86-64's rt_sigframe (the handler's return
 * address, a ucontext with the interrupted registers and mask, the
 * siginfo, and the FPU state as XSAVE with its software bytes), built on
 * the user stack for a handler and undone by rt_sigreturn.  Both run in
 * the thread of the lwp, so the copies go to its own address space.
 */
#include <sys/ucontext.h>

#include "host/cpu.h"
#include "kern/signal.h"
#include "kern/uio.h"

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

/*
 * The XSAVE software bytes (Linux's struct _fpx_sw_bytes) at 464 in the
 * image: magic1, extended_size, xfeatures (8 bytes), xstate_size.
 */
#define FP_SW_OFF	464
#define FP_SW_SIZE_OFF	16

/* The FPU image in lp's vf and its size (XSAVE software bytes). */
static uint32_t
fpu_image_size(const struct vextframe *vf)
{
	uint32_t magic, size;
	memcpy(&magic, vf->vx_fpu + FP_SW_OFF, 4);
	memcpy(&size, vf->vx_fpu + FP_SW_OFF + FP_SW_SIZE_OFF, 4);
	if (magic == FP_MAGIC1 && size >= 512 + 64 && size + 4 <= VX_FPU_SIZE)
		return size;
	return 512;
}

int
sendsig(struct lwp *lp, const siginfo_t *info, const struct linux_sigaction *sa)
{
	struct trapframe *tf = &lp->lwp_tf;

	KASSERT(lp == curlwp, "sendsig: not the lwp's own thread");
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
	memset(&uc, 0, sizeof(uc));
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

	uint32_t magic2 = FP_MAGIC2;
	uint64_t ret = sa->lsa_restorer;
	if (copyout(lp->lwp_vf->vx_fpu, fpaddr, fpsize) < 0 ||
	    copyout(&magic2, fpaddr + fpsize, 4) < 0 ||
	    copyout(&ret, frame, 8) < 0 ||
	    copyout(&uc, ucaddr, sizeof(uc)) < 0 ||
	    copyout(info, infoaddr, sizeof(*info)) < 0)
		return -EFAULT;

	tf->tf_rdi = (uint64_t)info->si_signo;
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

int
sigreturn_frame(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	struct linux_ucontext uc;

	if (copyin(tf->tf_rsp, &uc, sizeof(uc)) < 0)
		return -EFAULT;
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
	lp->lwp_sigmask = uc.uc_sigmask & ~SIG_CANTMASK;
	uint64_t fpaddr = (uint64_t)uc.uc_mcontext.fpregs;
	if (fpaddr != 0) {
		uint32_t fpsize = 512;
		uint8_t sw[48];
		if (copyin(fpaddr + FP_SW_OFF, sw, sizeof(sw)) == 0) {
			uint32_t magic, size;
			memcpy(&magic, sw, 4);
			memcpy(&size, sw + FP_SW_SIZE_OFF, 4);
			if (magic == FP_MAGIC1 && size >= 576 && size <= VX_FPU_SIZE)
				fpsize = size;
		}
		if (copyin(fpaddr, lp->lwp_vf->vx_fpu, fpsize) == 0)
			tf->tf_xflags |= PGEX_FPFAULT;
	}
	return 0;
}

