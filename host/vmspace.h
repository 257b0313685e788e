/*
 * The host layer: the "real kernel" primitives of the DragonFly virtual
 * kernel (the article's Table 1), provided here by a backend in the
 * vkernel process itself.
 *
 * A vmspace is an alternate address space in which guest threads run
 * natively.  Its user range [0, VM_MAX_USER_ADDRESS) is governed by a
 * virtual page table (vpagetable) that the vkernel keeps in its own RAM:
 * x86-64 4-level tables whose entries hold physical addresses, i.e.
 * offsets in the RAM file (host/physmem.h, host/vpte.h).
 *
 * Every function returns 0 (or a value >= 0) on success and -1 with errno
 * set on failure, as the DragonFly system calls do.  Arguments are checked:
 * an unknown id gives ENOENT, an unaligned or out-of-range address EINVAL,
 * a page-table root outside RAM EINVAL.  A VPTE that points outside RAM is
 * reported to the caller as a page fault with PGEX_RSV set.
 *
 * Locking: VMSPACE_CTL_RUN of different threads of one vmspace (see
 * vmspace_thread_create) may run at once on different CPUs, and while
 * one runs, another CPU may call vmspace_mmap, vmspace_munmap or
 * vmspace_mcontrol on the same vmspace: the backend serialises its own
 * state (a fault served against an MADV_INVAL that follows a VPTE change
 * never leaves a stale translation).  The caller serialises every other
 * pair of calls on one vmspace (the kernel's big lock does), and all
 * calls on one thread.  Calls on different vmspaces may run concurrently.
 */
#ifndef HOST_VMSPACE_H
#define HOST_VMSPACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vcpu;

/*
 * The guest's user range ends here.  The backend reserves everything above
 * it (the trap backend's stub lives there), so the kernel never places a
 * guest mapping at or above this address.
 */
#define VM_MAX_USER_ADDRESS	0x00007fff00000000UL
#define VM_MIN_USER_ADDRESS	0x0000000000010000UL	/* as Linux mmap_min_addr */

/* vmspace_create() types */
#define VMSPACE_TYPE_DEFAULT	0

/* vmspace_mmap() flag: the mapping is governed by a vpagetable */
#define MAP_VPAGETABLE		0x01000000

/* mcontrol()/vmspace_mcontrol() advice beyond madvise(2)'s */
#define MADV_SETMAP		200	/* val = physical address of the PML4 */
/*
 * MADV_INVAL returns only once no host translation of the range exists.
 * A backend that cannot drop them (the guest's host process was killed,
 * or will not cooperate) kills the guest (T_DEAD on its next run) and
 * returns 0 once the guest's host process is gone: the kernel may then
 * reuse the range's pages.
 */
#define MADV_INVAL		201	/* drop host translations of a range */
#define MADV_NOSYNC		202	/* RAM need not be written back to its file */
/*
 * MADV_PREFAULT: a hint that the guest is about to use the valid pages of
 * the range (MAP_POPULATE filled them): the backend may map them from
 * the vpagetable before the guest's next run instead of one fault each.
 */
#define MADV_PREFAULT		203
/*
 * MADV_INVAL_DEFER: MADV_INVAL, but the backend may leave the host
 * translations of the range in place for a while: they go before any
 * guest thread of the vmspace next runs, before the next MADV_INVAL of it
 * returns, and before MADV_SETTLE returns.  Until then none of the
 * range's pages may be freed.  Returns 1 if it deferred, 0 if it is done.
 * For fork's write protection of a process of one thread (vmspace_fork).
 */
#define MADV_INVAL_DEFER	204
/* MADV_SETTLE: returns once no deferred invalidation is left. */
#define MADV_SETTLE		205

/* vmspace_ctl() commands */
#define VMSPACE_CTL_RUN		1	/* run until the guest traps */
#define VMSPACE_CTL_FPSAVE	2	/* copy the loaded FPU state into vf */

/* x86 page-fault error code bits, as in tf_err for T_PAGEFLT */
#define PGEX_P		0x01	/* the translation was present */
#define PGEX_W		0x02	/* the access was a write */
#define PGEX_U		0x04	/* from user mode (always set here) */
#define PGEX_RSV	0x08	/* a page-table entry is malformed */
#define PGEX_I		0x10	/* instruction fetch */

/*
 * tf_xflags, set by the kernel before VMSPACE_CTL_RUN: the thread to run
 * does not own the FPU state loaded in this vmspace, so the backend must
 * load vf->vx_fpu first.  This is the article's flag; the trap backend
 * cannot take a "device not available" fault, so it loads eagerly.
 */
#define PGEX_FPFAULT	0x80

/*
 * Trap numbers in tf_trapno.  Exceptions keep their x86 vector numbers;
 * the rest are the backend's.
 */
#define T_DIVIDE	0	/* #DE */
#define T_TRCTRAP	1	/* #DB */
#define T_BPTFLT	3	/* #BP: int3 */
#define T_OFLOW		4
#define T_BOUND		5
#define T_PRIVINFLT	6	/* #UD */
#define T_DNA		7
#define T_SEGNPFLT	11
#define T_STKFLT	12
#define T_PROTFLT	13	/* #GP: privileged instruction, non-canonical address */
#define T_PAGEFLT	14	/* tf_addr = fault address, tf_err = PGEX_* */
#define T_ARITHTRAP	16	/* x87 */
#define T_ALIGNFLT	17
#define T_XMMFLT	19	/* SIMD floating point */
#define T_SYSCALL	256	/* syscall instruction: number in tf_rax, tf_rip after it */
#define T_INTR		257	/* the CPU has an interrupt pending (tick, kick, device) */
#define T_DEAD		258	/* the guest thread is gone (killed, crashed, unresponsive) */
#define T_BUSERR	259	/* host SIGBUS the backend could not attribute */

/* tf_err for T_SYSCALL: which system-call ABI the guest used */
#define SYSCALL_ABI_X86_64	0
#define SYSCALL_ABI_I386	1	/* int $0x80, sysenter, compat-mode syscall */
/*
 * A patched call (vmspace_patch): it came through trampoline entry
 * tf_addr; tf_rip, tf_rax, tf_rcx and tf_r11 are the kernel's to fill
 * from what it patched there.  The last VMSPACE_PATCH_NCP entries stand
 * for musl's cancellable-call site, "mov 0x8(%rsp),%r9; mov %rcx,%rdx;
 * syscall": they come with those two movs done and tf_rax the call's
 * number.
 */
#define SYSCALL_ABI_PATCHED	2
#define VMSPACE_PATCH_NCP	128
/*
 * The page just below the table holds, at 8k, code that jumps through
 * entry k: what a 5-byte "jmp rel32" from the guest's low 2 GiB reaches.
 */
#define VMSPACE_PATCH_NEAR(table)	((table) - 0x1000)

/* User segment selectors (the host's GDT, Linux's layout), as in tf_cs/tf_ss. */
#define GSEL_UCODE32		0x23	/* compatibility (32-bit) mode */
#define GSEL_UDATA		0x2b
#define GSEL_UCODE		0x33	/* 64-bit mode */

/*
 * The user registers of a guest thread.  In: the state to run.  Out: the
 * state at the trap, with tf_trapno, tf_err and tf_addr describing it.
 */
struct trapframe {
	uint64_t tf_rdi, tf_rsi, tf_rdx, tf_rcx, tf_r8, tf_r9;
	uint64_t tf_rax, tf_rbx, tf_rbp, tf_r10, tf_r11;
	uint64_t tf_r12, tf_r13, tf_r14, tf_r15;
	uint64_t tf_rip, tf_rflags, tf_rsp;
	uint64_t tf_trapno;
	uint64_t tf_err;
	uint64_t tf_addr;
	uint64_t tf_xflags;	/* PGEX_FPFAULT */
	/*
	 * Segment selectors; 0 stands for GSEL_UCODE and GSEL_UDATA (a
	 * zeroed frame runs 64-bit code).  The host checks them as its
	 * sigreturn does: a selector user mode may not load faults (#GP).
	 */
	uint64_t tf_cs, tf_ss;
	/*
	 * Out of VMSPACE_CTL_RUN: the host CPU time (ns) the guest used
	 * during the run, its traps' host handling included; the kernel
	 * counts it as the thread's user time.
	 */
	uint64_t tf_cputime;
};

/* Size of the FPU save area: an XSAVE image, standard format. */
#define VX_FPU_SIZE	4096

/*
 * The rest of a guest thread's CPU state.  vx_fpu is valid after
 * VMSPACE_CTL_FPSAVE, and is loaded when PGEX_FPFAULT is set.  The FS
 * and GS bases may be any canonical address (what wrfsbase takes, the
 * upper half included); VMSPACE_CTL_RUN refuses others with EINVAL.
 */
struct vextframe {
	uint64_t vx_fsbase;
	uint64_t vx_gsbase;
	uint8_t  vx_fpu[VX_FPU_SIZE] __attribute__((aligned(64)));
};

/* The article's Table 1. */
int vmspace_create(void *id, int type, void *data);
int vmspace_destroy(void *id);
/*
 * Not in DragonFly's table: vmspace_destroy in two halves, so that the
 * caller need not wait in the host.  vmspace_kill stops every guest
 * thread of id at once and lets the host take its process down in the
 * background, then posts INTR_VMSPACE to cpu; vmspace_gone(id) is true
 * from then on, and vmspace_destroy(id) no longer blocks.  Until then
 * the host may still hold mappings of id's pages: the caller must not
 * reuse them.  vmspace_kill returns 0, or -1 with errno (ENOENT; ENOSYS
 * if the backend cannot, when vmspace_destroy is the way).
 */
int vmspace_kill(void *id, struct vcpu *cpu);
bool vmspace_gone(void *id);
/*
 * Not in DragonFly's table: the vmspace id becomes newid, with all its
 * state (exec moves its host process to the new address space).
 */
int vmspace_rekey(void *id, void *newid);
/*
 * Not in DragonFly's table: whether exec should keep id's host vmspace
 * for its new image (vmspace_rekey, then a MADV_SETMAP that drops every
 * host mapping on exec's path) rather than let it go as an exit's does
 * and host the image in a new one.  The backend's answer; true if it has
 * none.
 */
bool vmspace_exec_keeps(void *id);
/*
 * Not in DragonFly's table: keep nready host vmspaces made ahead for each
 * CPU (after cpu_configure), so that vmspace_create on the fork path does
 * not wait for one; 0 stops and frees them.  Only creations with default
 * parameters (data NULL) take them.
 */
int vmspace_pool(int nready);

/*
 * Counters of the host side of making and ending processes, for finding
 * where a fork's time goes: off unless the vkernel's environment has
 * VKERNEL_FORKSTAT (then they cost a clock read or two per operation);
 * proc/fork_stat.c prints them with the kernel's.  Times in ns.
 */
struct vmspace_stats {
	uint64_t creates, create_ns;	/* vmspace_create: a stub for a process */
	uint64_t pool_hits;		/* of those, a ready stub from the pool */
	uint64_t pool_waits, pool_wait_ns;	/* waited for a recycling one */
	uint64_t spawns, spawn_ns;	/* spawned on the creating thread */
	uint64_t kills, kill_ns;	/* vmspace_kill: an exit's wipe or kill */
	uint64_t wipes;			/* of those, wiped to be recycled */
	uint64_t wipes_reaper;		/* ... by a reaper, off the exit's path */
	uint64_t destroys, destroy_ns;	/* vmspace_destroy */
	uint64_t recycles, recycle_ns;	/* off the critical path (reaper) */
	uint64_t recycle_fails, reaps;
	/* of recycle_ns: thread 0 parks, the task check and wipe, its reset */
	uint64_t recycle_park_ns, recycle_tasks_ns, recycle_reset_ns;
	/* the stubs' own counts over their processes' lives */
	uint64_t served, returned, mapops, sleeps;
	uint64_t stub_minflt;		/* host page faults of recycled stubs */
};

/* Whether VKERNEL_FORKSTAT turned the counters on. */
bool vmspace_stats_enabled(void);
/* A copy of the counters (each read atomically, not all at one time). */
void vmspace_stats_get(struct vmspace_stats *s);
int vmspace_ctl(void *id, int cmd, struct trapframe *tf, struct vextframe *vf);

/*
 * Guest threads (not in Table 1: DragonFly's real kernel knows the
 * calling host thread, and a vkernel lwp has none of its own).  A vmspace
 * is created with one guest thread, number 0, which lives as long as the
 * vmspace; vmspace_ctl(id, ...) is vmspace_thread_ctl(id, 0, ...).
 * vmspace_thread_create adds a thread that runs in the same address
 * space (the same host mappings, the same host process): it returns its
 * number (> 0, the lowest free), or -1 with errno EAGAIN (past the
 * backend's limit, VMSPACE_MAXTHREADS on the trap backend, or the
 * host's limit on tasks) or ENOMEM.  Its first VMSPACE_CTL_RUN starts it
 * from the trapframe given, with the FPU state of vf (PGEX_FPFAULT is
 * implied).  vmspace_thread_destroy ends thread n (not 0: EINVAL; no
 * such thread: ENOENT): it must not be in VMSPACE_CTL_RUN; its number
 * may be given out again.  Each thread has its own kick: an interrupt
 * posted to the CPU running thread n returns thread n alone with
 * T_INTR.  Every thread of a vmspace whose host side died (or was
 * killed) gets T_DEAD from its next run, or from the run it is in, within
 * a few host polls (tens of milliseconds); a thread created then too.
 * MADV_INVAL and every downgrade are synchronous for all threads: when
 * it returns, no thread of the vmspace, running or not, can use the old
 * translation.  tf_cputime: the host CPU time of the whole vmspace since
 * the last report of any of its threads, so that the sum over the
 * threads is exact, and one thread's share approximate while several run
 * at once.  vmspace_rekey keeps the threads.
 */
#define VMSPACE_MAXTHREADS	256	/* the trap backend's, thread 0 included */

int vmspace_thread_create(void *id);
int vmspace_thread_destroy(void *id, int n);
int vmspace_thread_ctl(void *id, int n, int cmd, struct trapframe *tf,
    struct vextframe *vf);
int vmspace_mmap(void *id, void *start, size_t len, int prot, int flags,
    int fd, off_t offset);
int vmspace_munmap(void *id, void *start, size_t len);
int mcontrol(void *start, size_t len, int adv, void *val);
int vmspace_mcontrol(void *id, void *start, size_t len, int adv, void *val);

/*
 * Not in Table 1: checks that the guests the caller believes stopped (their
 * last run returned) really are.  A guest can forge the report that ends a
 * run and keep computing; memory it loses is gone (MADV_INVAL is
 * synchronous), but it would escape the kernel's scheduler.  A guest found
 * running while stopped on several checks over some 50 ms is killed
 * (T_DEAD on its next run).  The kernel calls this once per tick; it costs
 * a host system call per guest stopped for more than 10 ms, once.
 */
void vmspace_audit(void);

/*
 * Not in Table 1: how many vmspaces the host will hold at once, from
 * the tasks it has left now (kernel.pid_max, kernel.threads-max, and
 * RLIMIT_NPROC unless we are root), keeping a quarter of them for the
 * rest of the host and the backend's own helpers.  The kernel caps its
 * process limit with it, so that fork fails with EAGAIN before the host
 * refuses a vmspace.  INT_MAX if the host does not say.
 *
 * A vmspace of one thread takes the backend's host_tasks tasks (2 on
 * the trap backend: the guest thread and the mapper); each thread more
 * takes thread_tasks (1).  vmspace_thread_max says how many threads more
 * the same room holds, all vmspaces together: a kernel that caps its
 * threads with it gets EAGAIN from clone before the host would refuse.
 * The two share one room: a thread more is a vmspace less by
 * thread_tasks / host_tasks (a half on the trap backend).
 */
int vmspace_max(void);
int vmspace_thread_max(void);

/* A clean FPU image (FNINIT state, MXCSR 0x1f80) for a new thread. */
void vmspace_fpu_init(struct vextframe *vf);

/*
 * Not in Table 1: system-call patching (the trap backend's trampoline,
 * host/trap/trap_patch.c).  vmspace_patch_enable asks for it (before the
 * first vmspace is made); it is on only if the host allows it (user
 * fsgsbase, and an mmap_min_addr below the table).  vmspace_patch_table
 * says where the table of trampoline pointers is in every vmspace and
 * how many entries it has: "jmp *(table + 8k)" enters the kernel as
 * T_SYSCALL with SYSCALL_ABI_PATCHED and tf_addr k.  Returns false (and
 * nothing) when patching is off.
 */
void vmspace_patch_enable(bool on);
bool vmspace_patch_table(uint64_t *table, unsigned *nentries);

#endif /* HOST_VMSPACE_H */
