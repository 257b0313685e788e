/*
 * The signal frame of a parked guest thread.  The host kernel wrote it on
 * the stub's signal stack when the guest trapped: the guest's registers
 * and FPU state.  The vkernel reads the trap from it and writes the
 * registers to resume with into it; the stub's rt_sigreturn loads them.
 *
 * The stub reports where the frame is, and the signal stack is guest
 * memory, so every pointer is checked to lie inside the signal stack
 * before use and read exactly once.  While the guest thread is parked no
 * other thread of the stub writes the frame (a guest's other threads can,
 * but only to its own harm: the frame is checked, and its contents are
 * the guest's registers anyway).
 */
#include <string.h>

#include "host/trap/trap.h"

#define FPX_MAGIC1	0x46505853U	/* FP_XSTATE_MAGIC1 */
#define FXSAVE_SIZE	512
#define XSAVE_HDR_OFF	512
#define XSAVE_HDR_SIZE	64
#define SW_BYTES_OFF	464		/* struct _fpx_sw_bytes in fxsave */

struct fpx_sw_bytes {
	uint32_t magic1;
	uint32_t extended_size;
	uint64_t xfeatures;
	uint32_t xstate_size;
	uint32_t padding[7];
};

/*
 * The vkernel's address of stub address a, if [a, a+len) is in thread
 * t's signal stack.
 */
static void *
altstack_ptr(struct vmspace_host *vh, struct trap_thread *t, uint64_t a,
    uint64_t len, uint64_t align)
{
	uint64_t lo = STUB_SLOT_ALTSTACK(t->n), hi = STUB_SLOT_END(t->n);
	if (a < lo || a > hi || len > hi - a || (a & (align - 1)) != 0)
		return NULL;
	return vh->ctl + (a - STUB_CMD);
}

/*
 * Takes the frame of the trap just posted.  Returns 0, or -1 if the stub
 * reported a frame that is not where a frame can be.
 */
int
trap_frame_take(struct vmspace_host *vh, struct trap_thread *t)
{
	uint64_t uca = __atomic_load_n(&t->thr->ucontext, __ATOMIC_RELAXED);
	uint64_t sia = __atomic_load_n(&t->thr->siginfo, __ATOMIC_RELAXED);

	t->uc = altstack_ptr(vh, t, uca, sizeof(ucontext_t), 8);
	t->si = altstack_ptr(vh, t, sia, sizeof(siginfo_t), 8);
	t->fpu = NULL;
	t->fpu_size = 0;
	if (t->uc == NULL || t->si == NULL)
		return -1;

	uint64_t fpa = (uint64_t)t->uc->uc_mcontext.fpregs;
	uint8_t *fp = altstack_ptr(vh, t, fpa, FXSAVE_SIZE, 16);
	if (fp == NULL)
		return -1;
	/*
	 * The image's size, from its software bytes: a line of its own,
	 * which the host rewrote on the stub's core, read only after the
	 * pointer to it.  A frame lands where the last one did (the top of
	 * the signal stack), and the host's size does not change, so the
	 * size found for an address stands for it: one miss less a trap.
	 */
	uint32_t size = t->fpu_at == fpa ? t->fpu_at_size : 0;
	if (size == 0) {
		struct fpx_sw_bytes sw;
		memcpy(&sw, fp + SW_BYTES_OFF, sizeof(sw));
		size = FXSAVE_SIZE;
		if (sw.magic1 == FPX_MAGIC1 && sw.xstate_size > FXSAVE_SIZE +
		    XSAVE_HDR_SIZE && sw.xstate_size <= VX_FPU_SIZE &&
		    (fpa & 63) == 0)
			size = sw.xstate_size;
		if (altstack_ptr(vh, t, fpa, size, 16) == NULL)
			return -1;
		t->fpu_at = fpa;
		t->fpu_at_size = size;
	}
	t->fpu = fp;
	t->fpu_size = size;
	return 0;
}

/* Copies the guest's registers at the trap into tf (and bases into vf). */
void
trap_frame_get(struct vmspace_host *vh, struct trap_thread *t,
    struct trapframe *tf, struct vextframe *vf)
{
	const greg_t *g = t->uc->uc_mcontext.gregs;

	tf->tf_rdi = (uint64_t)g[REG_RDI];
	tf->tf_rsi = (uint64_t)g[REG_RSI];
	tf->tf_rdx = (uint64_t)g[REG_RDX];
	tf->tf_rcx = (uint64_t)g[REG_RCX];
	tf->tf_r8 = (uint64_t)g[REG_R8];
	tf->tf_r9 = (uint64_t)g[REG_R9];
	tf->tf_rax = (uint64_t)g[REG_RAX];
	tf->tf_rbx = (uint64_t)g[REG_RBX];
	tf->tf_rbp = (uint64_t)g[REG_RBP];
	tf->tf_r10 = (uint64_t)g[REG_R10];
	tf->tf_r11 = (uint64_t)g[REG_R11];
	tf->tf_r12 = (uint64_t)g[REG_R12];
	tf->tf_r13 = (uint64_t)g[REG_R13];
	tf->tf_r14 = (uint64_t)g[REG_R14];
	tf->tf_r15 = (uint64_t)g[REG_R15];
	tf->tf_rip = (uint64_t)g[REG_RIP];
	tf->tf_rflags = (uint64_t)g[REG_EFL];
	tf->tf_rsp = (uint64_t)g[REG_RSP];
	/* REG_CSGSFS: cs, gs, fs, ss, 16 bits each. */
	tf->tf_cs = (uint64_t)g[REG_CSGSFS] & 0xffff;
	tf->tf_ss = (uint64_t)g[REG_CSGSFS] >> 48;
	if (vf != NULL && vh->cmd->fsgsbase) {
		vf->vx_fsbase = t->thr->fsbase;
		vf->vx_gsbase = t->thr->gsbase;
	}
}

/* Stores v at *w only if it differs (see trap_frame_put). */
static inline void
put_if(greg_t *w, uint64_t v)
{
	if ((uint64_t)*w != v)
		*w = (greg_t)v;
}

/*
 * Writes the registers to resume with.  The host's rt_sigreturn keeps the
 * privileged flags whatever we write, and loads CS and SS as its own
 * sigreturn would (RPL 3; one user mode may not use faults, and the
 * guest gets that #GP); the signal mask and signal stack are reset so
 * that a guest cannot keep a forged mask (which would block the kick)
 * beyond one trap that returns through rt_sigreturn (a SIGSYS handler
 * mostly resumes by a jump, with the mask it ran with: stub_entry.S).
 *
 * Only what changed is written: the host wrote the frame on the stub's
 * core, we read it on ours, and a line we leave alone stays in both
 * caches, so the stub's resume reads it without a miss (a getpid
 * changes rax alone).  The bases, likewise, only if they are not those
 * the stub reported.
 */
void
trap_frame_put(struct vmspace_host *vh, struct trap_thread *t,
    const struct trapframe *tf, const struct vextframe *vf)
{
	greg_t *g = t->uc->uc_mcontext.gregs;

	put_if(&g[REG_RDI], tf->tf_rdi);
	put_if(&g[REG_RSI], tf->tf_rsi);
	put_if(&g[REG_RDX], tf->tf_rdx);
	put_if(&g[REG_RCX], tf->tf_rcx);
	put_if(&g[REG_R8], tf->tf_r8);
	put_if(&g[REG_R9], tf->tf_r9);
	put_if(&g[REG_RAX], tf->tf_rax);
	put_if(&g[REG_RBX], tf->tf_rbx);
	put_if(&g[REG_RBP], tf->tf_rbp);
	put_if(&g[REG_R10], tf->tf_r10);
	put_if(&g[REG_R11], tf->tf_r11);
	put_if(&g[REG_R12], tf->tf_r12);
	put_if(&g[REG_R13], tf->tf_r13);
	put_if(&g[REG_R14], tf->tf_r14);
	put_if(&g[REG_R15], tf->tf_r15);
	put_if(&g[REG_RIP], tf->tf_rip);
	put_if(&g[REG_EFL], tf->tf_rflags);
	put_if(&g[REG_RSP], tf->tf_rsp);
	uint64_t cs = tf->tf_cs != 0 ? tf->tf_cs & 0xffff : GSEL_UCODE;
	uint64_t ss = tf->tf_ss != 0 ? tf->tf_ss & 0xffff : GSEL_UDATA;
	put_if(&g[REG_CSGSFS], ((uint64_t)g[REG_CSGSFS] & 0x0000ffffffff0000UL) |
	    cs | ss << 48);
	/* The host's mask is the first 8 bytes of glibc's 128. */
	uint64_t mask;
	memcpy(&mask, &t->uc->uc_sigmask, sizeof(mask));
	if (mask != 0)
		memset(&t->uc->uc_sigmask, 0, sizeof(mask));
	stack_t *ss_ = &t->uc->uc_stack;
	if (ss_->ss_sp != (void *)STUB_SLOT_ALTSTACK(t->n))
		ss_->ss_sp = (void *)STUB_SLOT_ALTSTACK(t->n);
	if (ss_->ss_size != STUB_ALTSTACK_SIZE)
		ss_->ss_size = STUB_ALTSTACK_SIZE;
	if (ss_->ss_flags != 0)
		ss_->ss_flags = 0;
	if (vf != NULL && (!vh->cmd->fsgsbase ||
	    vf->vx_fsbase != t->thr->fsbase || vf->vx_gsbase != t->thr->gsbase)) {
		t->thr->set_fsbase = vf->vx_fsbase;
		t->thr->set_gsbase = vf->vx_gsbase;
		t->thr->set_bases = 1;
	}
}

/* Copies the FPU state loaded in the vmspace into vf. */
void
trap_fpu_save(struct trap_thread *t, struct vextframe *vf)
{
	memcpy(vf->vx_fpu, t->fpu, t->fpu_size);
	memset(vf->vx_fpu + t->fpu_size, 0, VX_FPU_SIZE - t->fpu_size);
}

/*
 * Loads vf's FPU image into the frame.  The image is the kernel's, but it
 * may have come from a guest's signal frame, so it is made acceptable to
 * XRSTOR: MXCSR within the host's mask, only features the frame has, the
 * standard (uncompacted) format.  The host's software bytes stay.
 */
void
trap_fpu_load(struct trap_thread *t, const struct vextframe *vf)
{
	uint8_t *fp = t->fpu;
	uint32_t mask, mxcsr;
	struct fpx_sw_bytes sw;

	memcpy(&mask, fp + 28, 4);
	memcpy(&sw, fp + SW_BYTES_OFF, sizeof(sw));
	memcpy(fp, vf->vx_fpu, SW_BYTES_OFF);
	memcpy(&mxcsr, fp + 24, 4);
	mxcsr &= mask ? mask : 0xffbf;
	memcpy(fp + 24, &mxcsr, 4);
	memcpy(fp + 28, &mask, 4);
	if (t->fpu_size > FXSAVE_SIZE) {
		uint64_t bv;
		memcpy(fp + XSAVE_HDR_OFF, vf->vx_fpu + XSAVE_HDR_OFF,
		    t->fpu_size - XSAVE_HDR_OFF);
		memcpy(&bv, fp + XSAVE_HDR_OFF, 8);
		bv &= sw.xfeatures;
		memcpy(fp + XSAVE_HDR_OFF, &bv, 8);
		memset(fp + XSAVE_HDR_OFF + 8, 0, XSAVE_HDR_SIZE - 8);
	}
}
