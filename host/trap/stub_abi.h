/*
 * The trap backend's stub: the fixed layout of its address space above
 * VM_MAX_USER_ADDRESS and of the control memory it shares with the
 * vkernel.  Included by the freestanding stub and by the vkernel.
 *
 *   STUB_BASE          stub text and rodata (the only code the seccomp
 *                      filters treat as the stub's; nothing is writable)
 *   STUB_CMD           mapper commands, written by the vkernel, read-only
 *                      in the stub; the mapper's "stack" points into it
 *   STUB_SYNC          mapper status (read-write)
 *   STUB_THREAD        STUB_MAXTHREADS slots of STUB_THREAD_SIZE, one per
 *                      guest thread (slot n is thread n): its words, trap
 *                      record and signal stack (read-write)
 *   up to STUB_HOST_TOP the host's stack and vdso (ADDR_NO_RANDOMIZE
 *                      puts them here), unmapped once the stub has started
 *
 * The control memory is one memfd: [STUB_CMD, STUB_CTL_END) maps it from
 * offset 0.  It is sparse: a slot costs memory only once a thread uses
 * it (a page of words and the few pages its signal frames touch).
 * Everything the guest can write here is untrusted: the vkernel copies
 * each word once and checks it.
 *
 * Threads: thread 0 is the stub's main thread.  The others are cloned by
 * the mapper on the vkernel's command (STUB_OP_CLONE), never by a guest
 * thread, whose filter forbids clone: a guest cannot make host tasks.  A
 * new thread finds its slot from its stack pointer (the top of the slot),
 * installs the slot's signal stack and the guest filter, and parks in
 * its handler with a first trap, as thread 0 does at boot.
 */
#ifndef HOST_TRAP_STUB_ABI_H
#define HOST_TRAP_STUB_ABI_H

#ifdef __ASSEMBLER__
#define STUB_UL(x)	x
#else
#include <stdint.h>
#define STUB_UL(x)	x##UL
#endif

#define STUB_BASE		STUB_UL(0x00007fff00000000)	/* == VM_MAX_USER_ADDRESS */
#define STUB_TEXT		(STUB_BASE + 0x1000)	/* .text.entry starts here */
#define STUB_IMAGE_END		(STUB_BASE + 0x100000)	/* filters: stub code below */
#define STUB_RESTORER		(STUB_TEXT + 0x40)	/* mov $15,%eax; syscall */
#define STUB_MAPPER		(STUB_TEXT + 0x80)	/* the mapper thread's code */
/*
 * Thread 0's reset, when its process exited and its stub is recycled
 * (trap_recycle.c): it parks in futex(&slot0->req, FUTEX_WAIT, ...)
 * whose return address is STUB_RESET_PARKED, and from there, woken by
 * the vkernel, takes nothing from its registers or from writable memory:
 * an rt_sigreturn from a frame in the image (STUB_RESET_FRAME) loads its
 * registers, an empty signal mask, the initial FPU state and slot 0's
 * signal stack, with its stack pointer at STUB_RESET_SP; 128 bytes above
 * that (STUB_RESET_SP + 128), it loads its bases and traps with the
 * int3 that ends at STUB_RESET_TRAP.
 */
#define STUB_RESET		(STUB_TEXT + 0x800)
#define STUB_RESET_PARKED	(STUB_RESET + 0x80)
#define STUB_RESET_BOOT		(STUB_RESET + 0x100)
#define STUB_RESET_TRAP		(STUB_RESET + 0x180)
#define STUB_RESET_FRAME	(STUB_RESET + 0x200)	/* struct rt_sigframe */
#define STUB_RESET_SP		STUB_ALTSTACK
#define STUB_REQ_RESET		0x100u	/* req, with WW_POSTED: parked to reset */
#define STUB_QUIT_EXIT		1	/* stub_thread.quit: the thread exits */
#define STUB_QUIT_RESET		2	/* ... thread 0 resets (STUB_RESET) */

/*
 * System-call patching (trap_patch.c): a guest's "mov $nr,%eax; syscall"
 * (b8 imm32 0f 05) may become "jmp *STUB_UTRAP_TABLE+8k" (ff 24 25 disp32),
 * which enters trampoline entry k in the stub's code and hands the
 * registers to the vkernel in the thread's slot, with no host signal.
 * The table is one read-only page below VM_MIN_USER_ADDRESS (the guest
 * can never map there; the host's mmap_min_addr must allow it), entry k
 * holding STUB_UTRAP_ENTRY(k).  Its address is chosen so that the
 * patch's bytes 5 and 6 are 00 00 ("add %al,(%rax)"): a thread that ran
 * the old mov (rax: a system-call number) and then meets them faults on
 * a page no one can map, which the kernel recognises (trap_patch.c).
 */
#define STUB_UTRAP_TABLE	STUB_UL(0xe000)
/*
 * The page below the table holds, at 8k, "jmp *STUB_UTRAP_TABLE+8k":
 * code a 5-byte "jmp rel32" reaches from a site in the guest's low 2 GiB
 * (sys/sys_patch.c's run sites, "mov $nr,%eax; ...; syscall").  It does
 * nothing a guest's own jump through the table does not.
 */
#define STUB_UTRAP_NEAR		(STUB_UTRAP_TABLE - STUB_UL(0x1000))
#define STUB_UTRAP_N		512	/* entries: one page of pointers */
/*
 * The last STUB_UTRAP_NCP entries stand for musl's cancellable-call site
 * (host/vmspace.h, VMSPACE_PATCH_NCP): they first do what the site's two
 * movs before its syscall do, and report rax, the call's number.
 */
#define STUB_UTRAP_NCP		128
#define STUB_UTRAP_CP0		(STUB_UTRAP_N - STUB_UTRAP_NCP)
#define STUB_UTRAP_ENTRY0	(STUB_TEXT + 0x1000)
#define STUB_UTRAP_ENTRY(k)	(STUB_UTRAP_ENTRY0 + 16 * (k))
#define STUB_UTRAP_CODE		(STUB_UTRAP_ENTRY(STUB_UTRAP_N))
#define STUB_UTRAP_BAD		(STUB_UTRAP_CODE + 0x300)	/* ud2: gs is no slot */
/* The slot page's trampoline record (struct stub_utrap), its offset. */
#define STUB_UT_OFF		0x200
#define STUB_UT_REG(i)		(STUB_UT_OFF + 8 * (i))	/* REG_* order below */
#define STUB_UT_RIP		(STUB_UT_OFF + 8 * 16)
#define STUB_UT_RFLAGS		(STUB_UT_OFF + 8 * 17)
#define STUB_UT_ENTRY		(STUB_UT_OFF + 8 * 18)
#define STUB_UT_CONVERT		(STUB_UT_OFF + 8 * 19)
/* The slot page's stage-trace stamps (struct stub_trace), its offset. */
#define STUB_TR_OFF		0x300
/*
 * The trampoline's stack: the rest of the slot page, [STUB_UT_STACK_LO,
 * STUB_UT_STACK).  Not the signal stack, where only handlers run: a kick
 * that finds its thread's stack in the signal stack interrupted a
 * handler, one that finds it here the trampoline (stub.c).
 */
#define STUB_UT_STACK_LO	0x400
#define STUB_UT_STACK		STUB_PAGE
/* Register order in the record. */
#define UT_RAX	0
#define UT_RBX	1
#define UT_RCX	2
#define UT_RDX	3
#define UT_RSI	4
#define UT_RDI	5
#define UT_RBP	6
#define UT_RSP	7
#define UT_R8	8
#define UT_R9	9
#define UT_R10	10
#define UT_R11	11
#define UT_R12	12
#define UT_R13	13
#define UT_R14	14
#define UT_R15	15
/* Offsets in struct stub_thread, for the stub's assembly. */
#define STUB_T_KICK		8
#define STUB_T_SIGMASKED	0x54
/* stub_thread.signo of a trampoline's report: no signal, no frame. */
#define STUB_SIG_UTRAP		0x100

#define STUB_PAGE		STUB_UL(4096)
#define STUB_CMD		STUB_IMAGE_END
#define STUB_CMD_SIZE		(16 * STUB_PAGE)
#define STUB_SYNC		(STUB_CMD + STUB_CMD_SIZE)
#define STUB_SYNC_SIZE		STUB_PAGE
#define STUB_THREAD		(STUB_SYNC + STUB_SYNC_SIZE)	/* slot 0 */
#define STUB_THREAD_SIZE	(64 * STUB_PAGE)
#define STUB_MAXTHREADS		256	/* guest threads per vmspace: VMSPACE_MAXTHREADS */
#define STUB_ALTSTACK		(STUB_THREAD + STUB_PAGE)	/* thread 0's */
#define STUB_ALTSTACK_SIZE	(STUB_THREAD_SIZE - STUB_PAGE)
#define STUB_SLOT(n)		(STUB_THREAD + (n) * STUB_THREAD_SIZE)
#define STUB_SLOT_ALTSTACK(n)	(STUB_SLOT(n) + STUB_PAGE)
#define STUB_SLOT_END(n)	(STUB_SLOT(n) + STUB_THREAD_SIZE)
#define STUB_CTL_END		STUB_SLOT(STUB_MAXTHREADS)
#define STUB_CTL_SIZE		(STUB_CTL_END - STUB_CMD)
#define STUB_HOST_TOP		STUB_UL(0x00007ffffffff000)	/* TASK_SIZE_MAX */

/* The stub's descriptors at exec. */
#define STUB_RAM_FD		3
#define STUB_CTL_FD		4
#define STUB_DONE_FD		5	/* eventfd: the mapper counts batches done */

/* The only clone a stub makes: CLONE_VM|FS|FILES|SIGHAND|THREAD|SYSVSEM. */
#define STUB_CLONE_FLAGS	0x50f00

/* The signal the vkernel kicks a running guest with. */
#define STUB_SIGKICK		10	/* SIGUSR1 */

/*
 * Mapper operations.  The filters allow the mapper nothing but these on
 * the RAM file, each within one GiB and wholly below STUB_BASE.
 */
#define STUB_OP_MMAP		1
#define STUB_OP_MPROTECT	2
#define STUB_OP_MUNMAP		3
#define STUB_OP_CLONE		4	/* addr: the new thread's slot end */
#define STUB_OP_MAXLEN		(STUB_UL(1) << 30)

#define STUB_OP_SIZE		32
#define STUB_CMD_HDR		64
/*
 * Batches go to eight areas in turn, so the vkernel can write the next
 * batch while the mapper may still be on the last one, and needs proof of
 * completion only for the batch eight back.  Proof (an eventfd count) is a
 * system call on the fault path, so the mapper gives it only for batches
 * that ask: every fourth, and every one the vkernel waits for.
 */
#define STUB_CMD_AREAS		8
#define STUB_PROVE_EVERY	4
#define STUB_AREA_HDR		16
#define STUB_AREA_OPS		224
#define STUB_AREA_SIZE		(STUB_AREA_HDR + STUB_AREA_OPS * STUB_OP_SIZE)

#define STUB_BOOT		(STUB_CMD + STUB_CMD_SIZE - STUB_PAGE)
#define STUB_BOOT_INSNS		((STUB_PAGE - 40) / 8)
#define STUB_BOOT_UTRAP		32	/* offset of stub_boot.utrap */

#ifndef __ASSEMBLER__
struct stub_op {
	uint32_t op;
	uint32_t prot;
	uint64_t addr;
	uint64_t len;
	uint64_t off;		/* mmap: offset in RAM */
};

/*
 * Read-only in the stub.  The last page holds the seccomp programs the
 * vkernel wrote (struct stub_boot); the mapper's stack pointer is its top,
 * and the mapper never pushes.
 */
struct stub_area {
	uint32_t nops;
	uint32_t resume;	/* after the batch, post the thread's reply */
	uint32_t prove;		/* after the batch, count it on the eventfd */
	uint32_t thread;	/* 1 + the thread the batch is for; 0: none */
	struct stub_op ops[STUB_AREA_OPS];
};

struct stub_cmd {
	uint32_t seq;		/* batches issued; the mapper waits on it */
	uint32_t fsgsbase;	/* the host lets user code use wrfsbase */
	uint64_t spin_tsc;	/* how long the guest thread spins, TSC ticks */
	uint64_t one;		/* 1: what the mapper writes to STUB_DONE_FD */
	uint8_t  pad[STUB_CMD_HDR - 24];
	struct stub_area area[STUB_CMD_AREAS];	/* batch n is in area n % 8 */
};

/* A classic BPF program as seccomp(2) takes it (struct sock_fprog). */
struct stub_fprog {
	uint16_t len;
	uint16_t pad[3];
	uint64_t filter;	/* stub address of the instructions */
};

struct stub_boot {
	struct stub_fprog guest;	/* the guest thread's filter */
	struct stub_fprog mapper;	/* the mapper thread's filter */
	uint32_t utrap;		/* map the trampoline table; gs: the slot */
	uint32_t pad2;
	uint64_t insns[STUB_BOOT_INSNS];
};

/*
 * Written by the mapper, and writable by the guest: hints only.  That a
 * batch is done the vkernel learns from STUB_DONE_FD, which the guest
 * thread's filter does not let it write.
 */
struct stub_sync {
	uint32_t done;		/* seq of the last batch carried out */
	uint32_t ready;		/* the mapper's filter is in place */
	int64_t err;		/* first -errno of the batches since cleared */
	int64_t unmap_err;	/* first -errno of a munmap, never cleared */
	int64_t clone_ret;	/* the last STUB_OP_CLONE: tid or -errno */
	int64_t mapper_tid;	/* written by thread 0 at boot, before any guest code */
};

/*
 * A guest thread's page, the first of its slot.  req and reply are wait
 * words (host/hostsync.h).
 */
struct stub_thread {
	uint32_t req;		/* stub -> vkernel: a trap record is posted */
	uint32_t reply;		/* vkernel -> stub: resume (or wake the mapper) */
	uint32_t kick;		/* the vkernel kicked: SIGKICK is not stale */
	uint32_t quit;		/* with the reply: STUB_QUIT_*, not resume */
	/* the trap record */
	uint64_t signo;
	uint64_t siginfo;	/* stub address of the siginfo, in the altstack */
	uint64_t ucontext;	/* stub address of the ucontext, in the altstack */
	uint64_t fsbase;	/* at the trap (when fsgsbase is usable) */
	uint64_t gsbase;
	/* set by the vkernel before the reply, applied by the stub */
	uint64_t set_fsbase;
	uint64_t set_gsbase;
	uint64_t set_bases;	/* nonzero: load set_fsbase/set_gsbase */
	/*
	 * Threads but 0: the host's thread id, written by the thread as it
	 * starts; the host clears it (and wakes it as a futex) once the
	 * thread has exited (set_tid_address).
	 */
	uint32_t tid;
	/*
	 * The SIGSYS handler found a signal mask (forged: the vkernel's
	 * resumes have none): it returns through rt_sigreturn, which loads
	 * the frame's, then clears this (stub_entry.S).
	 */
	uint32_t sigmasked;
};

/*
 * A trampoline's report (STUB_SIG_UTRAP), at STUB_UT_OFF in the slot
 * page: the guest's registers as the patched call left them, and the
 * ones to resume with, written by the vkernel before the reply.
 * Guest-writable like the rest of the slot: read once, and trusted no
 * more than registers the guest could have loaded itself.
 */
struct stub_utrap {
	uint64_t reg[16];	/* UT_RAX... */
	uint64_t rip;		/* resume: where the trampoline jumps */
	uint64_t rflags;	/* at entry; resume: what the trampoline loads */
	uint64_t entry;		/* k: the table entry the guest came through */
	uint64_t convert;	/* with the reply: trap (int3) instead of resuming */
};

/*
 * The stub's stamps for the stage trace (host/trace.h, make TRACE=1), at
 * STUB_TR_OFF in the slot page: TSC values the CPU taking the report
 * reads.  Written only by a stub built with VK_TRACE.
 */
struct stub_trace {
	uint64_t seen;		/* the reply seen */
	uint64_t post;		/* the report posted */
};

_Static_assert(sizeof(struct stub_op) == STUB_OP_SIZE, "stub_op layout");
_Static_assert(__builtin_offsetof(struct stub_thread, kick) == STUB_T_KICK &&
    __builtin_offsetof(struct stub_thread, sigmasked) == STUB_T_SIGMASKED,
    "stub_thread layout");
_Static_assert(sizeof(struct stub_thread) <= STUB_UT_OFF, "trampoline record overlaps");
_Static_assert(STUB_UT_OFF + sizeof(struct stub_utrap) <= STUB_TR_OFF,
    "trace stamps overlap the trampoline record");
_Static_assert(STUB_TR_OFF + sizeof(struct stub_trace) <= STUB_UT_STACK_LO,
    "the trampoline's stack overlaps the trace stamps");
_Static_assert(STUB_UT_CONVERT == STUB_UT_OFF + __builtin_offsetof(struct stub_utrap, convert),
    "trampoline record layout");
_Static_assert(sizeof(struct stub_area) == STUB_AREA_SIZE, "stub_area layout");
_Static_assert(sizeof(struct stub_cmd) <= STUB_BOOT - STUB_CMD, "commands overlap boot");
_Static_assert(sizeof(struct stub_boot) <= STUB_PAGE, "boot page");
_Static_assert(__builtin_offsetof(struct stub_boot, utrap) == STUB_BOOT_UTRAP,
    "stub_boot layout");
#endif /* !__ASSEMBLER__ */

/* Exit codes of a stub that cannot start. */
#define STUB_EXIT_LAYOUT	120	/* stack or image outside the stub region */
#define STUB_EXIT_CTL		121	/* cannot map control memory */
#define STUB_EXIT_SIGNALS	122	/* cannot install handlers */
#define STUB_EXIT_MAPPER	123	/* mapper thread did not start */
#define STUB_EXIT_FILTER	124	/* seccomp refused the guest filter */

#endif /* HOST_TRAP_STUB_ABI_H */
