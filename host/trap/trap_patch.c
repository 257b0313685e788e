/*
 * Patched system calls: the host half.  The kernel rewrites a guest's
 * "mov $nr,%eax; syscall" into "jmp *(STUB_UTRAP_TABLE + 8k)"
 * (sys/sys_patch.c); the jump lands in trampoline entry k of the stub
 * (stub_entry.S), which saves the registers in the thread's slot, posts a
 * report with no signal (STUB_SIG_UTRAP) and waits as the handler does.
 * A round trip then costs two cache-line hand-offs instead of a host
 * signal delivery and rt_sigreturn.
 *
 * The report carries k and the guest's registers, nothing else: the
 * kernel knows which call site and number k stands for in that process,
 * and checks the site still holds the jump (a guest jumping into the
 * trampoline with forged registers makes, at most, the call the site
 * makes, from the site).  The resume is a jump too when the registers
 * allow it (rcx = rip and r11 = rflags, as the syscall instruction
 * leaves them; the same segments); anything else, and anything that
 * needs the thread's FPU state (a signal frame, fork), first has the
 * thread trap into its handler from the trampoline (convert: an int3),
 * after which it is an ordinary parked thread with a frame.
 *
 * The trampoline finds its slot from the host's gs base, which the stub
 * keeps at the slot while the guest's is 0; a guest that set another
 * (arch_prctl, or wrgsbase itself) gets its patched calls through the
 * trampoline's ud2, a signal-path report decoded here as the same call.
 */
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>

#include "host/hostlog.h"
#include "host/trap/trap.h"

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE	(1 << 1)
#endif

/* CF PF AF ZF SF TF IF DF OF NT RF AC ID: what a user's rflags hold. */
#define RFLAGS_USER	0x0000000000254fd5UL
#define RFLAGS_FIXED	0x2UL

_Static_assert(STUB_UTRAP_NCP == VMSPACE_PATCH_NCP, "musl's entries");
_Static_assert(STUB_UTRAP_NEAR == VMSPACE_PATCH_NEAR(STUB_UTRAP_TABLE),
    "the near page");

static bool utrap_wanted;
static int utrap_state = -1;	/* -1: not looked at yet */

/* The host allows the table's page and the trampoline's rdgsbase. */
static bool
utrap_host_allows(void)
{
	unsigned long min = 65536;
	FILE *f = fopen("/proc/sys/vm/mmap_min_addr", "r");
	if (f != NULL) {
		if (fscanf(f, "%lu", &min) != 1)
			min = 65536;
		fclose(f);
	}
	return (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0 &&
	    min <= STUB_UTRAP_TABLE;
}

void
vmspace_patch_enable(bool on)
{
	utrap_wanted = on;
	utrap_state = -1;
}

/* Whether stubs map the table and keep gs at their slots (stub_boot.utrap). */
bool
trap_utrap_on(void)
{
	if (utrap_state < 0) {
		utrap_state = utrap_wanted && utrap_host_allows();
		if (utrap_wanted && !utrap_state)
			host_log("trap: system-call patching unavailable on this host "
			    "(needs user fsgsbase and vm.mmap_min_addr <= %#lx)",
			    (unsigned long)STUB_UTRAP_TABLE);
	}
	return utrap_state;
}

bool
vmspace_patch_table(uint64_t *table, unsigned *nentries)
{
	if (!trap_utrap_on())
		return false;
	*table = STUB_UTRAP_TABLE;
	*nentries = STUB_UTRAP_N;
	return true;
}

static struct stub_utrap *
utrap_record(struct trap_thread *t)
{
	return (struct stub_utrap *)((uint8_t *)t->thr + STUB_UT_OFF);
}

bool
trap_utrap_report(struct vmspace_host *vh, struct trap_thread *t)
{
	(void)vh;
	return trap_utrap_on() &&
	    __atomic_load_n(&t->thr->signo, __ATOMIC_RELAXED) == STUB_SIG_UTRAP;
}

/* A flags image the host will load: user bits, bit 1 set. */
static uint64_t
rflags_clean(uint64_t f)
{
	return (f & RFLAGS_USER) | RFLAGS_FIXED;
}

static void
utrap_tf(struct trapframe *tf, uint64_t entry, uint64_t rflags)
{
	tf->tf_trapno = T_SYSCALL;
	tf->tf_err = SYSCALL_ABI_PATCHED;
	tf->tf_addr = entry;
	tf->tf_rflags = rflags_clean(rflags);
	/* The kernel fills these from the call site (vmspace.h). */
	tf->tf_rip = tf->tf_rax = tf->tf_rcx = tf->tf_r11 = 0;
	tf->tf_cs = GSEL_UCODE;
	tf->tf_ss = GSEL_UDATA;
}

/*
 * The trampoline's report as a trap: the record is guest memory, read
 * once into a copy.
 */
void
trap_utrap_get(struct vmspace_host *vh, struct trap_thread *t,
    struct trapframe *tf, struct vextframe *vf)
{
	struct stub_utrap u;

	memcpy(&u, utrap_record(t), sizeof(u));
	utrap_tf(tf, u.entry, u.rflags);
	if (u.entry >= STUB_UTRAP_CP0)		/* the call's number */
		tf->tf_rax = u.reg[UT_RAX];
	tf->tf_rbx = u.reg[UT_RBX];
	tf->tf_rdx = u.reg[UT_RDX];
	tf->tf_rsi = u.reg[UT_RSI];
	tf->tf_rdi = u.reg[UT_RDI];
	tf->tf_rbp = u.reg[UT_RBP];
	tf->tf_rsp = u.reg[UT_RSP];
	tf->tf_r8 = u.reg[UT_R8];
	tf->tf_r9 = u.reg[UT_R9];
	tf->tf_r10 = u.reg[UT_R10];
	tf->tf_r12 = u.reg[UT_R12];
	tf->tf_r13 = u.reg[UT_R13];
	tf->tf_r14 = u.reg[UT_R14];
	tf->tf_r15 = u.reg[UT_R15];
	if (vf != NULL && vh->cmd->fsgsbase) {
		vf->vx_fsbase = t->thr->fsbase;
		vf->vx_gsbase = t->thr->gsbase;
	}
	__atomic_fetch_add(&vh->nreturned, 1, __ATOMIC_RELAXED);
}

/*
 * The trampoline's ud2 (the gs base was no slot): the same call by the
 * signal path.  r11 holds k and, above bit 32, the flags lahf/seto took;
 * rax and rcx are the trampoline's, dead across a system call anyway,
 * but for musl's site (k from STUB_UTRAP_CP0), whose call number rcx
 * keeps.
 */
bool
trap_utrap_fallback(struct trap_thread *t, struct trapframe *tf)
{
	if (!trap_utrap_on() || tf->tf_rip != STUB_UTRAP_BAD)
		return false;
	(void)t;
	uint64_t r11 = tf->tf_r11, ah = (r11 >> 40) & 0xff;
	uint64_t flags = (tf->tf_rflags & ~0x8d5UL) | (ah & 0xd5) |
	    ((r11 >> 32) & 1 ? 0x800 : 0);
	uint64_t entry = (uint32_t)r11, nr = tf->tf_rcx;
	utrap_tf(tf, entry, flags);
	if (entry >= STUB_UTRAP_CP0)
		tf->tf_rax = nr;
	return true;
}

static inline void
put_if(uint64_t *w, uint64_t v)
{
	if (*w != v)
		*w = v;
}

bool
trap_utrap_put(struct trap_thread *t, const struct trapframe *tf,
    const struct vextframe *vf)
{
	if ((tf->tf_cs != 0 && (tf->tf_cs & 0xffff) != GSEL_UCODE) ||
	    (tf->tf_ss != 0 && (tf->tf_ss & 0xffff) != GSEL_UDATA) ||
	    tf->tf_rcx != tf->tf_rip || tf->tf_r11 != tf->tf_rflags ||
	    rflags_clean(tf->tf_rflags) != tf->tf_rflags)
		return false;
	/*
	 * Only what changed is written: the record's lines the guest left
	 * alone stay in its core's cache (stub_entry.S, put_if).
	 */
	struct stub_utrap *u = utrap_record(t);
	const uint64_t reg[16] = {
		[UT_RAX] = tf->tf_rax, [UT_RBX] = tf->tf_rbx,
		[UT_RCX] = tf->tf_rcx, [UT_RDX] = tf->tf_rdx,
		[UT_RSI] = tf->tf_rsi, [UT_RDI] = tf->tf_rdi,
		[UT_RBP] = tf->tf_rbp, [UT_RSP] = tf->tf_rsp,
		[UT_R8] = tf->tf_r8, [UT_R9] = tf->tf_r9,
		[UT_R10] = tf->tf_r10, [UT_R11] = tf->tf_r11,
		[UT_R12] = tf->tf_r12, [UT_R13] = tf->tf_r13,
		[UT_R14] = tf->tf_r14, [UT_R15] = tf->tf_r15,
	};
	for (int i = 0; i < 16; i++)
		put_if(&u->reg[i], reg[i]);
	put_if(&u->rip, tf->tf_rip);
	put_if(&u->rflags, tf->tf_rflags);
	put_if(&u->convert, 0);
	/* The bases the stub has are those it reported: load only others. */
	if (vf != NULL && (vf->vx_fsbase != t->thr->fsbase ||
	    vf->vx_gsbase != t->thr->gsbase)) {
		t->thr->set_fsbase = vf->vx_fsbase;
		t->thr->set_gsbase = vf->vx_gsbase;
		t->thr->set_bases = 1;
	}
	return true;
}

int
trap_utrap_settle(struct vmspace_host *vh, struct trap_thread *t)
{
	if (!t->utrap)
		return 0;
	__atomic_store_n(&utrap_record(t)->convert, 1, __ATOMIC_RELEASE);
	__atomic_store_n(&t->parked, false, __ATOMIC_RELEASE);
	trap_resumed(t);
	trap_reply_post(t);
	/* Any report with a frame will do: the caller has the registers. */
	do {
		if (trap_wait_report(vh, t, false) < 0)
			return -1;
	} while (t->utrap);
	return 0;
}
