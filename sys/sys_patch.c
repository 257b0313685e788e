/*
 * System-call patching: past the host's signal on each call.
 *
 * A system call that arrives by the signal path (SIGSYS) from the common
 * pair "mov $nr,%eax; syscall" (b8 imm32 0f 05) gets its 7 bytes
 * rewritten to "jmp *(table + 8k)" (ff 24 25 disp32), entry k of the
 * host's trampoline table (vmspace_patch_table) standing for (site, nr)
 * in this address space (vm_patch_add).  The next time, the jump enters
 * the host's trampoline, which hands the registers over in shared memory
 * with no signal, and the call comes here as SYSCALL_ABI_PATCHED: it is
 * then the same call from the same place (rip after the syscall, rax,
 * rcx and r11 as the syscall instruction leaves them), so the tracer,
 * restarts and signal frames see what they see on Linux.
 *
 * Safety (each a test in tests/guest/c/patch*.c):
 *
 * - No privilege: a guest may jump into the trampoline from anywhere with
 *   any registers.  What reaches us is an entry number and registers it
 *   could have loaded itself; the entry must name a site of this address
 *   space that still holds the jump to that entry, and the call is then
 *   the site's own call from the site.  Anything else is SIGSEGV, as a
 *   jump through an address the process cannot map (the table lies below
 *   VM_MIN_USER_ADDRESS).
 *
 * - Atomic against threads running the code: the 7 bytes are stored at
 *   once (cmpxchg16b of the aligned 16 bytes holding them), so a thread
 *   fetches the old pair or the jump.  One that ran the old mov and then
 *   fetches the new bytes 5 and 6 meets "add %al,(%rax)" (00 00, the
 *   table's address being below 64 KiB) with rax its call number: a write
 *   below VM_MIN_USER_ADDRESS, which faults on a page no one can map;
 *   syspatch_fault sends it back to the jump.  A site whose bytes cross a
 *   16-byte boundary is patched only when no other thread can run it (a
 *   process of one thread, its address space not shared with a vfork
 *   child).
 *
 * - Restarts: a call the kernel restarts goes back 2 bytes, to site + 5,
 *   with rax its number (or restart_syscall): the same fault, and the
 *   jump (or restart_syscall, which the entry could not name) again.
 *
 * - Reading the text: a guest sees the patched bytes in its own text
 *   (read(2) of /proc/self/mem, process_vm_readv, or a plain load from
 *   the mapping), and /proc/PID/smaps counts the patched page as a
 *   private dirty page.  This is a deviation from Linux, as gVisor's; a
 *   program that checksums its own code, or a debugger reading it, can
 *   notice.  The file and every other process's text are untouched (the
 *   patch goes to the process's own copy, vm_text_page).
 *
 * - What stays on the signal path: anything not matching the patterns;
 *   calls that replace the whole register set or make a new context
 *   (rt_sigreturn, clone, clone3, fork, vfork, execve, execveat,
 *   restart_syscall) and exit (a thread's, made once); and a site's
 *   first PATCH_AFTER - 1 calls, a forked child's counting for its
 *   parent too (patch_due).  The host resumes
 *   a patched call by a jump only when the registers allow it; a signal
 *   frame, a sigreturn or anything needing the FPU state has the thread
 *   trap into its handler first.
 */
#include <string.h>

#include "host/vmspace.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "sys/syscall.h"
#include "vm/vm.h"

#define PATCH_LEN	7	/* the jump; the whole site of "mov $nr,%eax; syscall" */
#define PATCH_AFTER	16	/* calls by the signal path before the patch */

/*
 * musl's cancellable-call site (__syscall_cp_c, which read, write and
 * the other cancellation points go through): the call's number comes in
 * a register.  Its first 7 bytes become the jump, whose bytes 5 and 6
 * are 00 00 as above, where a thread that ran the first mov resumes; a
 * thread past both movs meets the syscall, left in place (so does a
 * restart).  Its entries are the table's last VMSPACE_PATCH_NCP
 * (host/vmspace.h): the trampoline does the two movs, and the call is
 * the one rax names.
 */
#define CP_LEN		10
#define CP_NR		UINT32_MAX	/* vm_patch's number for such a site */
static const uint8_t cp_site[CP_LEN] = {
	0x4c, 0x8b, 0x4c, 0x24, 0x08,	/* mov 0x8(%rsp),%r9 */
	0x48, 0x89, 0xca,		/* mov %rcx,%rdx */
	0x0f, 0x05,			/* syscall */
};

/* Patched sites, for tests and the benchmark (/proc has no room for it). */
uint64_t syspatch_count;

static bool
nr_patchable(uint64_t nr)
{
	switch (nr) {
	case SYS_rt_sigreturn:
	case SYS_clone:
	case SYS_clone3:
	case SYS_fork:
	case SYS_vfork:
	case SYS_execve:
	case SYS_execveat:
	case SYS_restart_syscall:
	case SYS_exit:
		return false;
	}
	return nr < SYS_MAXSYSCALL;
}

/* The jump through entry k: ff 24 25 and the entry's 32-bit address. */
static void
jump_bytes(uint8_t b[PATCH_LEN], uint64_t table, unsigned k)
{
	uint32_t a = (uint32_t)(table + 8 * (uint64_t)k);

	b[0] = 0xff;
	b[1] = 0x24;
	b[2] = 0x25;
	memcpy(b + 3, &a, 4);
}

/*
 * Run sites: "mov $nr,%eax", then up to RUN_MAX bytes of instructions
 * that neither branch, nor touch rax, rcx or r11 (the call's number and
 * what the syscall clobbers, which the trampoline uses), nor depend on
 * their own address, then "syscall" (musl's __block_all_sigs and
 * __restore_sigs: "mov $14,%eax; xor %edx,%edx; mov $2,%edi; syscall";
 * _Fork's gettid: "mov $186,%eax; mov %fs:0,%rdx; syscall").  Only the
 * 5-byte mov becomes a jump, "jmp rel32" to the near page's entry
 * (VMSPACE_PATCH_NEAR), so a site in the low 2 GiB only; the bytes after
 * it stay, so a thread that ran the old mov, or a jump to any of the
 * instructions after it, or a restart (rip - 2: the syscall), runs the
 * original code and traps as before.  The kernel does the run's
 * instructions itself on the registers the trampoline saved (run_insn),
 * from bytes it reads at the site at each call: what the guest's own
 * code would have done, nothing more.  Allowed: reg-reg mov and xor (32
 * and 64 bits), mov of an immediate to a register, a load from
 * %fs:disp32; anything else is no run site.
 */
#define RUN_MAX		16
#define RUN_WIN		(VM_PATCH_MOVLEN + RUN_MAX + 2)

/* A register a run may use, by its encoding, or NULL (rax rcx rsp r11). */
static uint64_t *
run_reg(struct trapframe *tf, unsigned r)
{
	switch (r) {
	case 2: return &tf->tf_rdx;
	case 3: return &tf->tf_rbx;
	case 5: return &tf->tf_rbp;
	case 6: return &tf->tf_rsi;
	case 7: return &tf->tf_rdi;
	case 8: return &tf->tf_r8;
	case 9: return &tf->tf_r9;
	case 10: return &tf->tf_r10;
	case 12: return &tf->tf_r12;
	case 13: return &tf->tf_r13;
	case 14: return &tf->tf_r14;
	case 15: return &tf->tf_r15;
	}
	return NULL;
}

/* xor's flags: CF OF AF clear, ZF SF PF from the result. */
static void
run_xor_flags(struct trapframe *tf, uint64_t v, bool w)
{
	uint64_t f = tf->tf_rflags & ~0x8d5UL;

	if (v == 0)
		f |= 0x40;
	if (v >> (w ? 63 : 31))
		f |= 0x80;
	if (!__builtin_parity((unsigned)(v & 0xff)))
		f |= 0x4;
	tf->tf_rflags = f;
}

/*
 * One instruction of a run at b (avail bytes), done on tf: its length,
 * 0 if it is not one a run may hold, -1 if its %fs load faulted (with
 * load false, a load is not made: the caller only decodes).
 */
static int
run_insn(const uint8_t *b, size_t avail, struct trapframe *tf, uint64_t fsbase,
    bool load)
{
	size_t i = 0;
	bool fs = false;
	unsigned rex = 0;

	if (i < avail && b[i] == 0x64) {
		fs = true;
		i++;
	}
	if (i < avail && (b[i] & 0xf0) == 0x40)
		rex = b[i++];
	if (i + 2 > avail || (rex & 2))		/* REX.X: no index here */
		return 0;
	bool w = rex & 8;
	uint8_t op = b[i++], modrm = b[i];
	unsigned reg = ((modrm >> 3) & 7) | (rex & 4) << 1;
	unsigned rm = (modrm & 7) | (rex & 1) << 3;
	uint64_t *d, *sr, v;
	uint32_t imm;

	if (op >= 0xb8 && op <= 0xbf && !fs) {		/* mov $imm,%reg */
		size_t n = w ? 8 : 4;
		if ((d = run_reg(tf, (op & 7) | (rex & 1) << 3)) == NULL ||
		    i + n > avail)
			return 0;
		v = 0;
		memcpy(&v, b + i, n);
		*d = v;
		return (int)(i + n);
	}
	i++;					/* past modrm */
	if (op == 0xc7 && !fs && (modrm & 0xf8) == 0xc0) {	/* mov $imm32,%reg */
		if ((d = run_reg(tf, rm)) == NULL || i + 4 > avail)
			return 0;
		memcpy(&imm, b + i, 4);
		*d = w ? (uint64_t)(int64_t)(int32_t)imm : imm;
		return (int)(i + 4);
	}
	if (fs && op == 0x8b && (modrm & 0xc7) == 0x04) {	/* mov %fs:disp32,%reg */
		if ((d = run_reg(tf, reg)) == NULL || i + 5 > avail ||
		    b[i] != 0x25)
			return 0;
		memcpy(&imm, b + i + 1, 4);
		if (load) {
			v = 0;
			if (copyin(fsbase + (uint64_t)(int64_t)(int32_t)imm, &v,
			    w ? 8 : 4) != 0)
				return -1;
			*d = v;
		}
		return (int)(i + 5);
	}
	if (fs || (modrm & 0xc0) != 0xc0)
		return 0;
	switch (op) {
	case 0x89:	/* mov %reg,%rm */
	case 0x31:	/* xor %reg,%rm */
		d = run_reg(tf, rm);
		sr = run_reg(tf, reg);
		break;
	case 0x8b:	/* mov %rm,%reg */
	case 0x33:	/* xor %rm,%reg */
		d = run_reg(tf, reg);
		sr = run_reg(tf, rm);
		break;
	default:
		return 0;
	}
	if (d == NULL || sr == NULL)
		return 0;
	v = op == 0x89 || op == 0x8b ? *sr : *d ^ *sr;
	if (!w)
		v = (uint32_t)v;
	if (op == 0x31 || op == 0x33)
		run_xor_flags(tf, v, w);
	*d = v;
	return (int)i;
}

/* Whether b[0, len) is a run, wholly (done on a scratch frame). */
static bool
run_ok(const uint8_t *b, size_t len, const struct trapframe *tf)
{
	struct trapframe t = *tf;

	for (size_t i = 0; i < len; ) {
		int l = run_insn(b + i, len - i, &t, 0, false);
		if (l <= 0)
			return false;
		i += (size_t)l;
	}
	return true;
}

/* The near jump from a run site to the near page's entry e. */
static void
near_bytes(uint8_t b[VM_PATCH_MOVLEN], uint64_t site, uint64_t table, unsigned e)
{
	int32_t rel = (int32_t)(VMSPACE_PATCH_NEAR(table) + 8 * (uint64_t)e -
	    (site + VM_PATCH_MOVLEN));

	b[0] = 0xe9;
	memcpy(b + 1, &rel, 4);
}

/*
 * The table entry standing for vm_patch's site k of the given kind, or
 * -1 if k is past that kind's share of the n entries: the mov sites
 * count up from 0, musl's down from n - 1.
 */
static int
entry_of(unsigned k, bool cp, unsigned n)
{
	if (cp)
		return k < VMSPACE_PATCH_NCP ? (int)(n - 1 - k) : -1;
	return k < n - VMSPACE_PATCH_NCP ? (int)k : -1;
}

/* vm_patch's site of entry e and whether it is one of musl's. */
static unsigned
site_of(unsigned e, unsigned n, bool *cp)
{
	*cp = e >= n - VMSPACE_PATCH_NCP;
	return *cp ? n - 1 - e : e;
}

/*
 * The run site whose syscall ends at the end of b[0, have), if any: the
 * nearest "mov $nr,%eax" from which allowed instructions lead exactly to
 * the syscall.  Returns the run's length (bytes between the mov and the
 * syscall), 0 if there is none.
 */
static size_t
run_find(const uint8_t *b, size_t have, uint64_t nr, const struct trapframe *tf)
{
	uint32_t imm;

	if (have < 2 || b[have - 2] != 0x0f || b[have - 1] != 0x05)
		return 0;
	for (size_t run = 1; run <= RUN_MAX && run + VM_PATCH_MOVLEN + 2 <= have;
	    run++) {
		const uint8_t *mov = b + have - 2 - run - VM_PATCH_MOVLEN;
		memcpy(&imm, mov + 1, 4);
		if (mov[0] == 0xb8 && imm == nr &&
		    run_ok(mov + VM_PATCH_MOVLEN, run, tf))
			return run;
	}
	return 0;
}

/*
 * Counts a call by the signal path from the site ending at rip; whether
 * it is to be patched now.  A forked child's calls also credit its
 * parent, whose text every later child inherits: a site only children
 * run (musl's gettid in _Fork's child, exit_group) is called once per
 * child, and the parent patches it in its own text (syspatch_syscall,
 * pending) once its children called it PATCH_AFTER times.
 */
static bool
patch_due(struct proc *p, uint64_t rip, uint64_t nr)
{
	struct vmspace *vm = p->p_vmspace;
	uint64_t key = rip - PATCH_LEN;

	/*
	 * A site is patched at its PATCH_AFTER-th call: the page's copy and
	 * the invalidation of its host mapping cost some 15 calls' saving,
	 * and a short process (a command of a shell script) makes few calls
	 * from each site: patching them made a shell loop 15% slower.
	 */
	if (vm_patch_calls(vm, key) >= PATCH_AFTER)
		return true;
	struct vmspace *pvm = p->p_pptr != NULL ? p->p_pptr->p_vmspace : NULL;
	struct vm_patch *o = vm_patch_origin(vm, pvm);
	if (o != NULL && vm_patch_count(o, key) >= PATCH_AFTER)
		vm_patch_pend(pvm, rip, (uint32_t)nr);
	return false;
}

/*
 * Patches the site whose syscall ends at rip, making call nr, if it is
 * one of the patterns and is due (counted is false for a site the
 * children asked for: already counted).
 */
static void
patch_at(struct lwp *lp, uint64_t rip, uint64_t nr, bool counted)
{
	struct proc *p = lp->lwp_proc;
	struct vmspace *vm = p->p_vmspace;
	struct trapframe *tf = &lp->lwp_tf;
	uint64_t table, key = rip - PATCH_LEN, site;
	unsigned n;
	uint8_t win[RUN_WIN], new[PATCH_LEN];
	uint32_t imm;
	size_t len, run = 0;
	bool cp;

	if (rip < RUN_WIN || !vmspace_patch_table(&table, &n))
		return;
	if (vm_patch_init(vm, n) != 0 || vm_patch_rejected(vm, key))
		return;
	/* The site in one page: the copy and the store see it all. */
	uint64_t from = rip - RUN_WIN;
	if ((from >> PAGE_SHIFT) != ((rip - 1) >> PAGE_SHIFT))
		from = rounddown2(rip - 1, PAGE_SIZE);
	size_t have = (size_t)(rip - from);
	if (copyin(from, win, have) != 0) {
		vm_patch_reject(vm, key);
		return;
	}
	const uint8_t *end = win + have;
	if (have >= PATCH_LEN)
		memcpy(&imm, end - PATCH_LEN + 1, 4);
	if (have >= PATCH_LEN && end[-PATCH_LEN] == 0xb8 && imm == nr &&
	    end[-2] == 0x0f && end[-1] == 0x05) {
		cp = false;
		len = PATCH_LEN;
	} else if (have >= CP_LEN && memcmp(end - CP_LEN, cp_site, CP_LEN) == 0) {
		cp = true;
		len = CP_LEN;
	} else if ((run = run_find(win, have, nr, tf)) != 0) {
		cp = false;
		len = VM_PATCH_MOVLEN + run + 2;
	} else {
		vm_patch_reject(vm, key);
		return;
	}
	site = rip - len;
	if (!cp && !nr_patchable(nr))
		return;
	/* A near jump reaches the near page from the low 2 GiB only. */
	if (run != 0 && site + VM_PATCH_MOVLEN - VMSPACE_PATCH_NEAR(table) >
	    INT32_MAX) {
		vm_patch_reject(vm, key);
		return;
	}
	if (counted && !patch_due(p, rip, nr))
		return;
	/*
	 * A run site's 5 bytes must lie in one aligned 8 bytes when another
	 * thread may run them: an instruction fetch across 8 bytes is not
	 * known to see one store whole.
	 */
	size_t plen = run != 0 ? VM_PATCH_MOVLEN : PATCH_LEN;
	bool whole = run != 0 ? (site & 7) + plen <= 8 : (site & 15) + plen <= 16;
	bool alone = vm->vm_refcnt == 1 && p->p_nlwps == 1;
	if (!whole && !alone)
		return;
	int k = vm_patch_add(vm, site, cp ? CP_NR : VM_PATCH_RUN(nr, run), n);
	int e = k < 0 ? -1 : entry_of((unsigned)k, cp, n);
	if (e < 0)
		return;
	uint8_t *page = vm_text_page(vm, site);
	if (page == NULL) {
		vm_patch_reject(vm, key);
		return;
	}
	uint8_t *at = page + (site & PAGE_MASK);
	if (memcmp(at, end - len, plen) != 0)
		return;
	if (run != 0)
		near_bytes(new, site, table, (unsigned)e);
	else
		jump_bytes(new, table, (unsigned)e);
	if (whole)
		vm_text_store(at, new, plen);
	else
		memcpy(at, new, plen);	/* no other thread runs it */
	syspatch_count++;
}

void
syspatch_syscall(struct lwp *lp)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	uint64_t rip;
	uint32_t nr;

	while (vm_patch_pending(vm, &rip, &nr))
		patch_at(lp, rip, nr, false);
	patch_at(lp, lp->lwp_tf.tf_rip, lp->lwp_tf.tf_rax, true);
}

/*
 * A call through run site `site` (its number and run length in nr): the
 * run's instructions done on the frame as the guest would do them, from
 * the bytes at the site now, then the call from its syscall.  Returns 0
 * to make the call, 1 to resume at the instruction after the mov instead
 * (the run no longer decodes, or its load faulted: the guest's own code
 * then does it, and its syscall traps), -1 if the site no longer holds
 * the jump through entry e.
 */
static int
enter_run(struct lwp *lp, uint64_t site, uint32_t nr, uint64_t table,
    unsigned e)
{
	struct trapframe *tf = &lp->lwp_tf, t;
	size_t run = VM_PATCH_RUNLEN(nr), len = VM_PATCH_MOVLEN + run + 2;
	uint8_t have[RUN_WIN], want[VM_PATCH_MOVLEN];
	uint64_t fsbase = lp->lwp_vf != NULL ? lp->lwp_vf->vx_fsbase : 0;

	near_bytes(want, site, table, e);
	if (copyin(site, have, len) != 0 ||
	    memcmp(have, want, VM_PATCH_MOVLEN) != 0)
		return -1;
	tf->tf_err = SYSCALL_ABI_X86_64;
	tf->tf_rax = VM_PATCH_NR(nr);
	t = *tf;
	for (size_t i = VM_PATCH_MOVLEN; i < len - 2; ) {
		int l = run_insn(have + i, len - 2 - i, &t, fsbase,
		    lp->lwp_vf != NULL);
		if (l <= 0 || lp->lwp_vf == NULL)
			goto own;
		i += (size_t)l;
	}
	if (have[len - 2] != 0x0f || have[len - 1] != 0x05)
		goto own;
	*tf = t;
	tf->tf_rip = site + len;
	tf->tf_rcx = tf->tf_rip;
	tf->tf_r11 = tf->tf_rflags;
	return 0;
own:
	tf->tf_rip = site + VM_PATCH_MOVLEN;
	tf->tf_rcx = tf->tf_rip;
	tf->tf_r11 = tf->tf_rflags;
	return 1;
}

int
syspatch_enter(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	uint64_t table, site, e = tf->tf_addr;
	unsigned n;
	uint32_t nr;
	uint8_t want[CP_LEN], have[CP_LEN];
	bool cp;

	if (!vmspace_patch_table(&table, &n) || e >= n)
		goto bad;
	/*
	 * The site must still hold the jump through e: text moved, unmapped
	 * or rewritten since no longer names this call.
	 */
	jump_bytes(want, table, (unsigned)e);
	memcpy(want + PATCH_LEN, cp_site + PATCH_LEN, CP_LEN - PATCH_LEN);
	if (!vm_patch_lookup(vm, site_of((unsigned)e, n, &cp), &site, &nr) ||
	    (nr == CP_NR) != cp)
		goto bad;
	if (!cp && VM_PATCH_RUNLEN(nr) != 0) {
		int r = enter_run(lp, site, nr, table, (unsigned)e);
		if (r >= 0)
			return r;
		goto bad;
	}
	size_t len = cp ? CP_LEN : PATCH_LEN;
	if (copyin(site, have, len) != 0 || memcmp(have, want, len) != 0)
		goto bad;
	tf->tf_err = SYSCALL_ABI_X86_64;
	tf->tf_rip = site + len;
	if (!cp)
		tf->tf_rax = nr;
	tf->tf_rcx = tf->tf_rip;
	tf->tf_r11 = tf->tf_rflags;
	/*
	 * musl's site may make any call: one that replaces the registers or
	 * makes a context runs from its own syscall instruction, by the
	 * signal path, as it would unpatched.
	 */
	if (cp && !nr_patchable(tf->tf_rax)) {
		tf->tf_rip -= 2;
		tf->tf_rcx = tf->tf_rip;
		return 1;
	}
	return 0;
bad:
	/* As a jump through an address no process can map. */
	tf->tf_err = 0;
	tf->tf_rip = table + 8 * (e < n ? e : 0);
	trapsignal(lp, SIGSEGV, SEGV_MAPERR, tf->tf_rip);
	return -1;
}

bool
syspatch_fault(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	uint64_t table, site = tf->tf_rip - 5, s;
	unsigned n;
	uint32_t nr, disp;
	uint8_t b[PATCH_LEN];

	if (tf->tf_addr >= VM_MIN_USER_ADDRESS || tf->tf_addr != tf->tf_rax ||
	    tf->tf_rip < 5 || !vmspace_patch_table(&table, &n) ||
	    copyin(site, b, PATCH_LEN) != 0)
		return false;
	memcpy(&disp, b + 3, 4);
	if (b[0] != 0xff || b[1] != 0x24 || b[2] != 0x25 || disp < table ||
	    disp >= table + 8 * (uint64_t)n || (disp - table) % 8 != 0)
		return false;
	bool cp;
	unsigned k = site_of((unsigned)((disp - table) / 8), n, &cp);
	if (!vm_patch_lookup(vm, k, &s, &nr) || s != site ||
	    (nr == CP_NR) != cp || (!cp && VM_PATCH_RUNLEN(nr) != 0))
		return false;
	/* musl's site: the jump redoes the first mov, which changed nothing. */
	if (!cp && tf->tf_rax == SYS_restart_syscall) {
		tf->tf_trapno = T_SYSCALL;
		tf->tf_err = SYSCALL_ABI_X86_64;
		tf->tf_rip = site + PATCH_LEN;
		tf->tf_rcx = tf->tf_rip;
		tf->tf_r11 = tf->tf_rflags;
		syscall_dispatch(lp);
		return true;
	}
	tf->tf_rip = site;
	return true;
}

void
syspatch_near(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	uint64_t table, near, site, off;
	unsigned n;
	uint32_t nr;
	uint8_t want[VM_PATCH_MOVLEN], have[VM_PATCH_MOVLEN];
	bool cp;

	if (!vmspace_patch_table(&table, &n))
		return;
	near = VMSPACE_PATCH_NEAR(table);
	off = tf->tf_rip - near;
	if (off >= 8 * (uint64_t)n || off % 8 != 0)
		return;
	unsigned e = (unsigned)(off / 8);
	if (!vm_patch_lookup(lp->lwp_proc->p_vmspace, site_of(e, n, &cp), &site,
	    &nr) || cp || VM_PATCH_RUNLEN(nr) == 0)
		return;
	near_bytes(want, site, table, e);
	if (copyin(site, have, sizeof(have)) == 0 &&
	    memcmp(have, want, sizeof(have)) == 0)
		tf->tf_rip = site;
}
