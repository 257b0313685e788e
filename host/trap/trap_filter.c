/*
 * The stub's seccomp programs, assembled here and handed to the stub in
 * its read-only boot page.  Seccomp sees only the system-call number, six
 * register arguments and the instruction pointer, and cannot read memory,
 * so what each thread may do is decided by those alone (research notes
 * §5.3-5.4):
 *
 * guest threads: from any address but the stub's code, every system
 *   call traps (SIGSYS, to the vkernel).  From the stub's code:
 *   rt_sigreturn, exit (a thread told to quit), arch_prctl(SET_FS/SET_GS),
 *   sched_yield (a parked thread gives its core to another guest's),
 *   and futex wait/wake on the threads' two words and the mapper's;
 *   anything else kills the stub.  It can never map, nor make a thread.
 *
 * mapper thread: mmap of the RAM file (fd 3, MAP_SHARED|MAP_FIXED|
 *   MAP_POPULATE),
 *   mprotect and munmap, each of at most 1 GiB wholly below STUB_BASE,
 *   mmap of a thread slot of the control memory (fd 4) where it belongs,
 *   an 8-byte write to its eventfd (fd 5: "a batch is done", which the
 *   guest can neither write nor forge), clone with the one set of thread
 *   flags, and futex on its words and the threads'; anything else kills
 *   the stub.  What it maps comes only from the read-only command page.
 *
 * A thread the mapper clones keeps the mapper's filter and adds the
 * guest's; the host applies the stricter verdict of the two, so the
 * mapper's also allows what a starting thread and the handler need from
 * the stub's code (signal stack, mask, thread id, the guest filter,
 * rt_sigreturn, exit, arch_prctl), and traps calls from elsewhere as the
 * guest's does.  The mapper itself never runs outside the stub's code.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/futex.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "host/trap/trap.h"

#ifndef ARCH_SET_GS
#define ARCH_SET_GS 0x1001
#define ARCH_SET_FS 0x1002
#endif

/* A tiny assembler: jumps name labels, resolved at the end. */
enum { L_ALLOW = 1, L_KILL, L_TRAP, L_FUTEX, L_FADDR, L_ARCH,
	L_MMAP, L_PROT, L_RANGE, L_EDGE, L_WRITE, L_CLONE, L_SLOT, L_NLABELS };
#define L_NEXT 0	/* fall through */

struct bpf_asm {
	struct sock_filter *ins;
	int n, max;
	int at[L_NLABELS];
	struct { int insn, label, jf; } fix[128];
	int nfix;
	int error;
};

static void
bpf_op(struct bpf_asm *a, uint16_t code, uint32_t k, int jt, int jf)
{
	if (a->n >= a->max || a->nfix + 2 > 128) {
		a->error = 1;
		return;
	}
	if (jt != L_NEXT)
		a->fix[a->nfix++] = (typeof(a->fix[0])){ a->n, jt, 0 };
	if (jf != L_NEXT)
		a->fix[a->nfix++] = (typeof(a->fix[0])){ a->n, jf, 1 };
	a->ins[a->n++] = (struct sock_filter){ code, 0, 0, k };
}

static void
bpf_label(struct bpf_asm *a, int l)
{
	a->at[l] = a->n;
}

static int
bpf_resolve(struct bpf_asm *a)
{
	for (int i = 0; i < a->nfix; i++) {
		int d = a->at[a->fix[i].label] - a->fix[i].insn - 1;
		if (a->at[a->fix[i].label] < 0 || d < 0 || d > 255)
			return -1;
		struct sock_filter *f = &a->ins[a->fix[i].insn];
		if (BPF_CLASS(f->code) == BPF_JMP && BPF_OP(f->code) == BPF_JA)
			f->k = (uint32_t)d;
		else if (a->fix[i].jf)
			f->jf = (uint8_t)d;
		else
			f->jt = (uint8_t)d;
	}
	return a->error ? -1 : a->n;
}

#define LD(off)		bpf_op(a, BPF_LD | BPF_W | BPF_ABS, (off), L_NEXT, L_NEXT)
#define JEQ(k, t, f)	bpf_op(a, BPF_JMP | BPF_JEQ | BPF_K, (k), (t), (f))
#define JGE(k, t, f)	bpf_op(a, BPF_JMP | BPF_JGE | BPF_K, (k), (t), (f))
#define JGT(k, t, f)	bpf_op(a, BPF_JMP | BPF_JGT | BPF_K, (k), (t), (f))
#define JSET(k, t, f)	bpf_op(a, BPF_JMP | BPF_JSET | BPF_K, (k), (t), (f))
#define JGEX(t, f)	bpf_op(a, BPF_JMP | BPF_JGE | BPF_X, 0, (t), (f))
#define JMP(l)		bpf_op(a, BPF_JMP | BPF_JA, 0, (l), L_NEXT)
#define RET(k)		bpf_op(a, BPF_RET | BPF_K, (k), L_NEXT, L_NEXT)
#define TAX()		bpf_op(a, BPF_MISC | BPF_TAX, 0, L_NEXT, L_NEXT)
#define ST(m)		bpf_op(a, BPF_ST, (m), L_NEXT, L_NEXT)
#define LDXM(m)		bpf_op(a, BPF_LDX | BPF_MEM, (m), L_NEXT, L_NEXT)
#define ADDX()		bpf_op(a, BPF_ALU | BPF_ADD | BPF_X, 0, L_NEXT, L_NEXT)
#define SUBK(k)		bpf_op(a, BPF_ALU | BPF_SUB | BPF_K, (k), L_NEXT, L_NEXT)
#define ADDK(k)		bpf_op(a, BPF_ALU | BPF_ADD | BPF_K, (k), L_NEXT, L_NEXT)
#define JEQX(t, f)	bpf_op(a, BPF_JMP | BPF_JEQ | BPF_X, 0, (t), (f))
#define ANDK(k)		bpf_op(a, BPF_ALU | BPF_AND | BPF_K, (k), L_NEXT, L_NEXT)

#define OFF_NR		offsetof(struct seccomp_data, nr)
#define OFF_ARCH	offsetof(struct seccomp_data, arch)
#define OFF_IP_LO	offsetof(struct seccomp_data, instruction_pointer)
#define OFF_IP_HI	(OFF_IP_LO + 4)
#define OFF_ARG_LO(i)	(offsetof(struct seccomp_data, args) + 8 * (i))
#define OFF_ARG_HI(i)	(OFF_ARG_LO(i) + 4)

#define LO(x)		((uint32_t)(uint64_t)(x))
#define HI(x)		((uint32_t)((uint64_t)(x) >> 32))

#define STUB_WORD(page, type, field) \
	((uint64_t)(page) + offsetof(type, field))

/*
 * Accept futex(addr, FUTEX_WAIT or FUTEX_WAKE, ...) on the given words
 * and on the req and reply words of every thread slot.
 */
static void
bpf_futex_words(struct bpf_asm *a, const uint64_t *words, int n)
{
	bpf_label(a, L_FUTEX);
	LD(OFF_ARG_LO(1));
	JEQ(FUTEX_WAIT, L_FADDR, L_NEXT);
	JEQ(FUTEX_WAKE, L_FADDR, L_KILL);
	bpf_label(a, L_FADDR);
	LD(OFF_ARG_HI(0));
	JEQ(HI(STUB_BASE), L_NEXT, L_KILL);
	LD(OFF_ARG_LO(0));
	for (int i = 0; i < n; i++)
		JEQ(LO(words[i]), L_ALLOW, L_NEXT);
	JGE(LO(STUB_THREAD), L_NEXT, L_KILL);
	SUBK(LO(STUB_THREAD));
	JGE(STUB_MAXTHREADS * STUB_THREAD_SIZE, L_KILL, L_NEXT);
	ANDK(STUB_THREAD_SIZE - 1);
	JEQ(offsetof(struct stub_thread, req), L_ALLOW, L_NEXT);
	JEQ(offsetof(struct stub_thread, reply), L_ALLOW, L_KILL);
}

/* Calls from outside the stub's code trap: the guest's system calls. */
static void
bpf_guest_code(struct bpf_asm *a)
{
	LD(OFF_IP_HI);
	JEQ(HI(STUB_BASE), L_NEXT, L_TRAP);
	LD(OFF_IP_LO);
	/* The IP is that after the syscall instruction: the end is included. */
	JGT(LO(STUB_IMAGE_END), L_TRAP, L_NEXT);
	LD(OFF_ARCH);
	JEQ(AUDIT_ARCH_X86_64, L_NEXT, L_KILL);
}

static void
bpf_arch_prctl(struct bpf_asm *a)
{
	bpf_label(a, L_ARCH);
	LD(OFF_ARG_LO(0));
	JEQ(ARCH_SET_FS, L_ALLOW, L_NEXT);
	JEQ(ARCH_SET_GS, L_ALLOW, L_KILL);
}

static void
bpf_returns(struct bpf_asm *a)
{
	bpf_label(a, L_TRAP);
	RET(SECCOMP_RET_TRAP);
	bpf_label(a, L_ALLOW);
	RET(SECCOMP_RET_ALLOW);
	bpf_label(a, L_KILL);
	RET(SECCOMP_RET_KILL_PROCESS);
}

static void
bpf_guest(struct bpf_asm *a)
{
	static const uint64_t words[] = {
		STUB_WORD(STUB_CMD, struct stub_cmd, seq),
	};

	bpf_guest_code(a);
	LD(OFF_NR);
	JEQ(SYS_rt_sigreturn, L_ALLOW, L_NEXT);
	JEQ(SYS_exit, L_ALLOW, L_NEXT);
	JEQ(SYS_sched_yield, L_ALLOW, L_NEXT);
	JEQ(SYS_futex, L_FUTEX, L_NEXT);
	JEQ(SYS_arch_prctl, L_ARCH, L_KILL);
	bpf_arch_prctl(a);
	bpf_futex_words(a, words, 1);
	bpf_returns(a);
}

static void
bpf_mapper(struct bpf_asm *a)
{
	static const uint64_t words[] = {
		STUB_WORD(STUB_CMD, struct stub_cmd, seq),
		STUB_WORD(STUB_SYNC, struct stub_sync, ready),
	};

	bpf_guest_code(a);
	LD(OFF_NR);
	JEQ(SYS_futex, L_FUTEX, L_NEXT);
	JEQ(SYS_mmap, L_MMAP, L_NEXT);
	JEQ(SYS_mprotect, L_PROT, L_NEXT);
	JEQ(SYS_write, L_WRITE, L_NEXT);
	JEQ(SYS_munmap, L_RANGE, L_NEXT);
	JEQ(SYS_clone, L_CLONE, L_NEXT);
	/* What a thread the mapper cloned needs (see above). */
	JEQ(SYS_rt_sigreturn, L_ALLOW, L_NEXT);
	JEQ(SYS_exit, L_ALLOW, L_NEXT);
	JEQ(SYS_sched_yield, L_ALLOW, L_NEXT);
	JEQ(SYS_sigaltstack, L_ALLOW, L_NEXT);
	JEQ(SYS_rt_sigprocmask, L_ALLOW, L_NEXT);
	JEQ(SYS_set_tid_address, L_ALLOW, L_NEXT);
	JEQ(SYS_seccomp, L_ALLOW, L_NEXT);
	JEQ(SYS_arch_prctl, L_ARCH, L_KILL);
	bpf_arch_prctl(a);

	bpf_label(a, L_CLONE);
	LD(OFF_ARG_HI(0));
	JEQ(0, L_NEXT, L_KILL);
	LD(OFF_ARG_LO(0));
	JEQ(STUB_CLONE_FLAGS, L_ALLOW, L_KILL);

	bpf_label(a, L_WRITE);
	LD(OFF_ARG_LO(0));
	JEQ(STUB_DONE_FD, L_NEXT, L_KILL);
	LD(OFF_ARG_LO(2));
	JEQ(8, L_ALLOW, L_KILL);

	bpf_label(a, L_MMAP);
	LD(OFF_ARG_LO(4));			/* fd */
	JEQ(STUB_CTL_FD, L_SLOT, L_NEXT);
	JEQ(STUB_RAM_FD, L_NEXT, L_KILL);
	LD(OFF_ARG_LO(3));			/* flags */
	JEQ(MAP_SHARED | MAP_FIXED | MAP_POPULATE, L_NEXT, L_KILL);
	bpf_label(a, L_PROT);
	LD(OFF_ARG_LO(2));			/* prot */
	JSET(~(uint32_t)(PROT_READ | PROT_WRITE | PROT_EXEC), L_KILL, L_NEXT);

	/* [addr, addr + len) with len <= 1 GiB must end by STUB_BASE. */
	bpf_label(a, L_RANGE);
	LD(OFF_ARG_HI(1));
	JEQ(0, L_NEXT, L_KILL);
	LD(OFF_ARG_LO(1));
	JGT(LO(STUB_OP_MAXLEN), L_KILL, L_NEXT);
	TAX();
	LD(OFF_ARG_HI(0));
	JGE(HI(STUB_BASE), L_KILL, L_NEXT);
	JEQ(HI(STUB_BASE) - 1, L_EDGE, L_ALLOW);
	/* The last 4 GiB below the stub: no carry out of the low word. */
	bpf_label(a, L_EDGE);
	LD(OFF_ARG_LO(0));
	ST(0);
	ADDX();
	JEQ(0, L_ALLOW, L_NEXT);		/* ends exactly at STUB_BASE */
	LDXM(0);
	JGEX(L_ALLOW, L_KILL);

	/*
	 * A thread's slot of the control memory, where it lies in the
	 * memfd: [addr, addr + STUB_THREAD_SIZE) at offset addr - STUB_CMD,
	 * read-write, for a slot above thread 0's.
	 */
	bpf_label(a, L_SLOT);
	LD(OFF_ARG_LO(3));			/* flags */
	JEQ(MAP_SHARED | MAP_FIXED, L_NEXT, L_KILL);
	LD(OFF_ARG_LO(2));			/* prot */
	JEQ(PROT_READ | PROT_WRITE, L_NEXT, L_KILL);
	LD(OFF_ARG_HI(1));
	JEQ(0, L_NEXT, L_KILL);
	LD(OFF_ARG_LO(1));
	JEQ(STUB_THREAD_SIZE, L_NEXT, L_KILL);
	LD(OFF_ARG_HI(5));
	JEQ(0, L_NEXT, L_KILL);
	LD(OFF_ARG_LO(5));
	ADDK(LO(STUB_CMD));
	TAX();
	LD(OFF_ARG_HI(0));
	JEQ(HI(STUB_BASE), L_NEXT, L_KILL);
	LD(OFF_ARG_LO(0));
	JEQX(L_NEXT, L_KILL);
	JGE(LO(STUB_SLOT(1)), L_NEXT, L_KILL);	/* thread 0's is never remapped */
	JGE(LO(STUB_CTL_END), L_KILL, L_NEXT);
	SUBK(LO(STUB_THREAD));
	ANDK(STUB_THREAD_SIZE - 1);
	JEQ(0, L_ALLOW, L_KILL);

	bpf_futex_words(a, words, 2);
	bpf_returns(a);
}

static int
bpf_build(void (*prog)(struct bpf_asm *), struct sock_filter *ins, int max)
{
	struct bpf_asm a;
	memset(&a, 0, sizeof(a));
	memset(a.at, 0xff, sizeof(a.at));
	a.ins = ins;
	a.max = max;
	prog(&a);
	return bpf_resolve(&a);
}

int
trap_filter_build(struct stub_boot *boot)
{
	struct sock_filter *ins = (struct sock_filter *)boot->insns;
	int ng = bpf_build(bpf_guest, ins, STUB_BOOT_INSNS);
	if (ng < 0)
		return -1;
	int nm = bpf_build(bpf_mapper, ins + ng, STUB_BOOT_INSNS - ng);
	if (nm < 0)
		return -1;
	uint64_t base = STUB_BOOT + offsetof(struct stub_boot, insns);
	boot->guest = (struct stub_fprog){ .len = (uint16_t)ng, .filter = base };
	boot->utrap = trap_utrap_on();
	boot->mapper = (struct stub_fprog){ .len = (uint16_t)nm,
	    .filter = base + (uint64_t)ng * sizeof(struct sock_filter) };
	return 0;
}
