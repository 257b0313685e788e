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
 * - What stays on the signal path: anything not matching the pattern;
 *   calls that replace the whole register set or make a new context
 *   (rt_sigreturn, clone, clone3, fork, vfork, execve, execveat,
 *   restart_syscall) and those made once (exit, exit_group); and a
 *   site's first PATCH_AFTER - 1 calls.  The host resumes
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
	case SYS_exit_group:
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
 * Stores new over the PATCH_LEN bytes at p, all at once: one cmpxchg16b
 * of the aligned 16 bytes holding them, which every CPU's instruction
 * fetch sees whole.  The kernel alone writes text (under its lock), so
 * the compare fails only if the guest's page changed under us: retried.
 */
static void
store_atomic(uint8_t *p, const uint8_t *new)
{
	uint8_t *blk = (uint8_t *)((uintptr_t)p & ~(uintptr_t)15);
	size_t off = (size_t)(p - blk);
	uint64_t lo, hi, nlo, nhi;
	uint8_t want[16];
	bool ok;

	do {
		memcpy(&lo, blk, 8);
		memcpy(&hi, blk + 8, 8);
		memcpy(want, &lo, 8);
		memcpy(want + 8, &hi, 8);
		memcpy(want + off, new, PATCH_LEN);
		memcpy(&nlo, want, 8);
		memcpy(&nhi, want + 8, 8);
		__asm__ volatile ("lock cmpxchg16b %1"
		    : "=@ccz"(ok), "+m"(*(volatile __int128 *)blk), "+a"(lo), "+d"(hi)
		    : "b"(nlo), "c"(nhi) : "memory");
	} while (!ok);
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

void
syspatch_syscall(struct lwp *lp)
{
	struct trapframe *tf = &lp->lwp_tf;
	struct proc *p = lp->lwp_proc;
	struct vmspace *vm = p->p_vmspace;
	uint64_t table, nr = tf->tf_rax, key = tf->tf_rip - PATCH_LEN, site;
	unsigned n;
	uint8_t old[CP_LEN], new[PATCH_LEN];
	uint32_t imm;
	bool cp;

	if (tf->tf_rip < CP_LEN || !vmspace_patch_table(&table, &n))
		return;
	/* The site in one page: the copy and the store see it all. */
	if (vm_patch_init(vm, n) != 0 || vm_patch_rejected(vm, key))
		return;
	if (copyin(tf->tf_rip - CP_LEN, old, CP_LEN) != 0) {
		vm_patch_reject(vm, key);
		return;
	}
	memcpy(&imm, old + CP_LEN - PATCH_LEN + 1, 4);
	if (old[3] == 0xb8 && imm == nr && old[8] == 0x0f && old[9] == 0x05) {
		if (!nr_patchable(nr))
			return;
		cp = false;
		site = key;
	} else if (memcmp(old, cp_site, CP_LEN) == 0) {
		cp = true;
		site = tf->tf_rip - CP_LEN;
	} else {
		vm_patch_reject(vm, key);
		return;
	}
	if ((site >> PAGE_SHIFT) != ((tf->tf_rip - 1) >> PAGE_SHIFT))
		return;
	/*
	 * A site is patched at its PATCH_AFTER-th call: the page's copy and
	 * the invalidation of its host mapping cost some 15 calls' saving,
	 * and a short process (a command of a shell script) makes few calls
	 * from each site: patching them made a shell loop 15% slower.
	 */
	if (vm_patch_calls(vm, key) < PATCH_AFTER)
		return;
	bool whole = (site & 15) + PATCH_LEN <= 16;
	bool alone = vm->vm_refcnt == 1 && p->p_nlwps == 1;
	if (!whole && !alone)
		return;
	int k = vm_patch_add(vm, site, cp ? CP_NR : (uint32_t)nr, n);
	int e = k < 0 ? -1 : entry_of((unsigned)k, cp, n);
	if (e < 0)
		return;
	uint8_t *page = vm_text_page(vm, site);
	if (page == NULL) {
		vm_patch_reject(vm, key);
		return;
	}
	uint8_t *at = page + (site & PAGE_MASK);
	if (memcmp(at, cp ? old : old + CP_LEN - PATCH_LEN, PATCH_LEN) != 0)
		return;
	jump_bytes(new, table, (unsigned)e);
	if (whole)
		store_atomic(at, new);
	else
		memcpy(at, new, PATCH_LEN);	/* no other thread runs it */
	syspatch_count++;
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
	    (nr == CP_NR) != cp)
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
