/*
 * The virtual memory system of user processes: what the rest of the
 * kernel (system calls, fork, exec, the trap handler) uses.
 *
 * A process's address space is a struct vmspace: a vm_map of entries
 * (vm/vm_map.h) saying what each range promises, the vm_objects behind
 * them (vm/vm_object.h), and a pmap (vm/pmap.h) that keeps the vpagetable
 * the host layer runs the process under.  Pages arrive lazily: the kernel
 * hands every T_PAGEFLT the host returns to vm_fault, which fills the
 * vpagetable or says why the access is bad.
 *
 * The guest ABI is Linux x86-64's, so protections, mmap flags and madvise
 * advice are the host's own <sys/mman.h> values; VM_PROT_* are PROT_*.
 * Every function returns 0 (or a value >= 0) on success and a negative
 * errno on failure, as Linux system calls do.
 *
 * Locking: the big kernel lock serialises every function here; there are
 * no locks of the VM system's own.  Nothing sleeps today; a pager of
 * file-backed objects may (vm_fault revalidates the map after it).
 */
#ifndef VM_VM_H
#define VM_VM_H

#include <sys/mman.h>

#include "kern/kernel.h"
#include "host/vmspace.h"
#include "vm/pmap.h"
#include "vm/vm_map.h"

struct vm_object;

/*
 * Where things go in a new address space, as Linux lays them out without
 * randomisation: the stack at the top of user space, top-down mmap below
 * a gap for it (Linux's minimum, 128 MiB), and the default stack limit.
 */
#define VM_USRSTACK		VM_MAX_USER_ADDRESS
#define VM_MMAP_BASE		(VM_USRSTACK - (128UL << 20))
#define VM_STACK_MAX_DEFAULT	(8UL << 20)	/* RLIMIT_STACK */

/*
 * Where Linux's user space ends (TASK_SIZE_MAX).  Ours ends lower, at
 * VM_MAX_USER_ADDRESS (the host stub lives above), and the memory calls
 * treat that as their TASK_SIZE: an mmap hint above it is not taken,
 * MAP_FIXED there is ENOMEM, munmap EINVAL, mprotect and madvise ENOMEM
 * (nothing can be mapped there), as Linux answers past its TASK_SIZE.
 * arch_prctl's bases are not mappings and keep Linux's limit.
 */
#define VM_LINUX_TASK_SIZE	0x00007ffffffff000UL

/* Linux's default vm.max_map_count: how many entries a map may have. */
#define VM_MAX_MAP_COUNT	65530

#define VM_FIRST_PAGES	48	/* see vmspace_enter_first */
#define VM_FIRST_GROUP	(16 * PAGE_SIZE)	/* vm_fault's prefault group */

struct vmspace {
	struct vm_map vm_map;	/* what each range promises */
	struct pmap vm_pmap;	/* the vpagetable; its address is the host id */
	int vm_refcnt;
	uint64_t vm_brk_start;	/* the heap: [vm_brk_start, vm_brk), exec sets */
	uint64_t vm_brk;
	uint64_t vm_mmap_base;	/* top-down mmap placement starts below this */
	uint64_t vm_stack_max;	/* how large a MAP_GROWSDOWN entry may grow */
	/* exec's argument and environment strings on the stack (/proc) */
	uint64_t vm_arg_start, vm_arg_end, vm_env_end;
	uint64_t vm_auxv_start, vm_auxv_end;	/* its auxiliary vector */
	/* the part of the image exec read from its file (/proc maps) */
	uint64_t vm_image_start, vm_image_end;
	uint64_t vm_zfod_next;	/* after the last write fault filling a page */
	uint32_t vm_fill_window;	/* pages vm_fault fills ahead */
	/* whether anonymous mmaps are touched at once (vm_mmap_touch_ahead) */
	uint64_t vm_touch_hint;	/* the last one's first page, until touched */
	uint64_t vm_touch_ahead;	/* the last page mapped ahead */
	uint32_t vm_touch_streak;	/* how many in a row were touched */
	uint64_t vm_as_max;	/* RLIMIT_AS: how much the map may hold */
	struct vm_patch *vm_patch;	/* patched system calls (vm_patch.c) */
	/* pages the host maps before the first run (vmspace_touch_first) */
	uint64_t vm_first[VM_FIRST_PAGES];
	int vm_nfirst;
	/* what children touch first (vm_forkhint.c): ours, our parent's */
	struct vm_forkhint *vm_forkhint, *vm_forkhint_parent;
	struct vmspace *vm_reapnext;	/* released in the background (vmspace_free) */
};

/*
 * Whether vm may map grow more bytes within RLIMIT_AS (Linux's
 * may_expand_vm): mmap and brk fail with ENOMEM, and a stack does not
 * grow, past it.
 */
static inline bool
vm_may_expand(const struct vmspace *vm, uint64_t grow)
{
	return grow <= vm->vm_as_max && vm->vm_map.size <= vm->vm_as_max - grow;
}

/*
 * Sets up the VM system's caches and per-page state.  Call once at boot,
 * after vm_page_init and kmem_init; panics if RAM cannot hold them.
 */
void vm_init(void);

/*
 * A new, empty address space with a reference count of 1 and a host
 * vmspace (host/vmspace.h) to run it.  Returns NULL if RAM is short or the
 * host refuses another vmspace.
 */
struct vmspace *vmspace_alloc(void);

/* Takes another reference (a thread sharing the address space, vfork). */
void vmspace_ref(struct vmspace *vm);

/*
 * Drops a reference; the last one destroys the host vmspace first (so no
 * guest thread of it can run again), then every mapping, page-table page
 * and object reference.  When the host takes its vmspace down in the
 * background and every mapping is private, a kernel thread does all that
 * once the host is done, and the caller goes on at once.
 */
void vmspace_free(struct vmspace *vm);

/*
 * Waits until every address space vmspace_free releases in the
 * background is released, with its references to files and its RAM:
 * before an unmount decides a file system is busy, before free memory is
 * counted, before a fault short of RAM gives up.  True if it waited.
 */
bool vmspace_drain(void);

/*
 * fork: a new address space that copies vm1 as Linux fork does.  Private
 * entries become copy-on-write in both (their pages are write-protected in
 * vm1's pmap and shared until one side writes), shared entries share
 * their object, MADV_DONTFORK entries are left out and MADV_WIPEONFORK
 * ones start empty.  The child's vpagetable starts empty and faults pages
 * in.  Returns NULL if RAM is short (vm1 is then unchanged but for
 * write protections and copy-on-write marks, which are harmless).  The
 * host's part of vm1's write protection may wait for vm1's next run
 * (pmap_invalidate_defer); the caller ends fork's part of it with
 * vmspace_fork_end once it has made vm1's own copies, before it lets
 * anything else run.
 */
struct vmspace *vmspace_fork(struct vmspace *vm1);

/*
 * The child of a fork (or an image exec built) gets its own copy of the
 * page at va now, as its first write would give it, if va lies in a
 * private writable mapping: for the pages it is known to write first
 * (its stack top, its thread pointer's), each of which would otherwise
 * cost it a read fault and a copy-on-write fault through the host; the
 * host maps it with the first run.  Only before vm first runs; anything
 * else (no mapping there, a shared one, no memory) is left to the faults.
 */
void vmspace_touch_first(struct vmspace *vm, uint64_t va);
/*
 * A new process (a forked child, or an image exec built), before it first
 * runs, will execute or read the page at va (its text at its rip): the
 * page, and its resident neighbours of the prefault group, are entered
 * now read-only, and the host maps them with its first run (or, for an
 * exec, as it takes over the old host vmspace) instead of at a fault
 * each.
 */
void vmspace_enter_first(struct vmspace *vm, uint64_t va);
/*
 * The forking process's side: its only thread, back from fork, writes
 * its stack top at once, which fork just made copy-on-write.  The copy
 * is made now (as that write's fault would make it) and the host maps it
 * with the thread's resume: no fault through the host.
 */
void vmspace_fork_parent_touch(struct vmspace *vm, uint64_t va);
/*
 * The parent's fork is done with its address space (its copies made):
 * from now on a change of its tables is invalidated on its own again.
 */
void vmspace_fork_end(struct vmspace *vm);

/*
 * Fork hints (vm_forkhint.c): the pages a forked child faulted on before
 * it exec'd, noted in its parent's vmspace, which its next child gets
 * entered before it runs.  vm_forkhint_fork enters the parent's hints in
 * the new child (before it runs) and makes it a learner; vm_forkhint_note
 * notes a fault vm's thread took (type: VM_PROT_*) if vm is a learner,
 * and vm's own writes if it has forked;
 * vm_forkhint_free forgets both sides (exec, the end of vm).
 */
struct vm_forkhint;
void vm_forkhint_fork(struct vmspace *child, struct vmspace *parent);
void vm_forkhint_note(struct vmspace *vm, uint64_t va, int type);
/*
 * After fork: the pages parent wrote since its previous fork are copied
 * for it now if touch (its only thread, in the kernel), and forgotten.
 */
void vm_forkhint_rewrite(struct vmspace *parent, bool touch);
void vm_forkhint_free(struct vmspace *vm);

/*
 * execve: removes every mapping of vm, which must not be shared (the
 * caller allocates a new vmspace for a shared one), and resets the heap
 * and placement fields to a new process's.
 */
void vmspace_exec(struct vmspace *vm);

/*
 * Gives vm its host vmspace if it has none yet (pmap_host): before a
 * guest thread of it first runs.  0 or a negative errno.
 */
int vmspace_activate(struct vmspace *vm);

/*
 * exec: new takes over old's host vmspace, old is freed.  old must be
 * the caller's alone (not shared by a vfork parent).
 */
void vmspace_exec_switch(struct vmspace *new, struct vmspace *old);

/* The host layer's id of vm's vmspace (for vmspace_ctl and the like). */
static inline void *
vmspace_host_id(struct vmspace *vm)
{
	return &vm->vm_pmap;
}

/*
 * mmap(2).  addr is a hint unless flags has MAP_FIXED (replace whatever is
 * there) or MAP_FIXED_NOREPLACE (-EEXIST if anything is).  obj is NULL
 * with MAP_ANONYMOUS (MAP_SHARED: a new anonymous object, offsets from
 * 0, that fork and mremap keep sharing); otherwise an object of which
 * the mapping takes its own reference, mapped from byte offset off (page
 * aligned): a file's, or any other (System V shared memory maps its
 * segment's anonymous object with MAP_SHARED, and every process that
 * does shows the same pages).  MAP_POPULATE (and MAP_LOCKED) fault the
 * range in before returning, unless MAP_NONBLOCK.
 * Returns the address, or -EINVAL (bad length, flags, alignment),
 * -ENOMEM (no room, or RAM short), -EPERM (below VM_MIN_USER_ADDRESS),
 * -EEXIST, -EOPNOTSUPP (unknown flags with MAP_SHARED_VALIDATE),
 * -ENODEV (an object that cannot be mapped).
 */
long vm_mmap(struct vmspace *vm, uint64_t addr, uint64_t len, int prot,
    int flags, struct vm_object *obj, uint64_t off);

/*
 * vm_mmap with a ceiling on the protections mprotect may give the range
 * later: a shared mapping of a file opened read-only has maxprot without
 * PROT_WRITE.  prot must lie within maxprot (-EACCES).
 */
long vm_mmap_maxprot(struct vmspace *vm, uint64_t addr, uint64_t len,
    int prot, int maxprot, int flags, struct vm_object *obj, uint64_t off);

/*
 * The process just mapped [addr, addr + len) anonymous with mmap(2)
 * (prot, flags as given): if its recent mappings were each touched at
 * their first page before the next was made, this one's first page is
 * filled and mapped now, sparing the touch its fault.  vm_mmap_touched:
 * a fault filled a fresh page at va, which teaches it.
 */
void vm_mmap_touch_ahead(struct vmspace *vm, uint64_t addr, uint64_t len,
    int prot, int flags);
void vm_mmap_touched(struct vmspace *vm, uint64_t va);
/*
 * Whether page m was mapped ahead of a touch and still holds only zeros:
 * no touch shows, so mincore and smaps count it absent, as Linux would
 * the page of a mapping never touched.
 */
bool vm_page_untouched(struct vm_page *m);

/*
 * Where a new mapping of len bytes (page multiple) goes without
 * MAP_FIXED, as Linux's get_unmapped_area: at the hint if it is free,
 * else top-down below vm_mmap_base, then bottom-up above it (MAP_32BIT:
 * in the low 2 GiB).  0 if there is no room.
 */
uint64_t vm_mmap_place(struct vmspace *vm, uint64_t hint, uint64_t len,
    int flags);

/*
 * mremap(2), with Linux 6.18's rules.  Shrinks in place; grows in place
 * if the mapping ends at addr + old_len and the room above it is free;
 * else, with MREMAP_MAYMOVE, moves the range (its entries keep their
 * objects and offsets, its pages' mappings move with it: no page is
 * copied) to a new place, or to new_addr with MREMAP_FIXED (whatever is
 * there is unmapped first).  MREMAP_DONTUNMAP leaves the old range
 * mapped as MADV_DONTNEED would leave it (private anonymous memory reads
 * as zero, shared memory and files keep showing their data).  An
 * old_len of 0 maps a shared mapping a second time.  MREMAP_FIXED with
 * old_len == new_len moves every mapping of the old range, holes kept.
 * Returns the new address, or -EINVAL (flags, alignment, lengths,
 * overlap), -EFAULT (addr not mapped, or the range crosses into another
 * mapping), -ENOMEM (no room, RLIMIT_AS, vm.max_map_count, RAM).
 */
long vm_mremap(struct vmspace *vm, uint64_t addr, uint64_t old_len,
    uint64_t new_len, int flags, uint64_t new_addr);

/*
 * munmap(2): removes [addr, addr + len) (len rounded up to pages),
 * splitting entries that straddle its ends; unmapped parts are fine.
 * -EINVAL for an unaligned addr, a zero length or a range reaching past
 * user space (VM_MAX_USER_ADDRESS); -ENOMEM if RAM is too short to split
 * an entry, or a hole punched in one would pass VM_MAX_MAP_COUNT.
 */
int vm_munmap(struct vmspace *vm, uint64_t addr, uint64_t len);

/*
 * mprotect(2).  -EINVAL (alignment, unknown bits), -ENOMEM (a hole in the
 * range, or RAM short), -EACCES (beyond an entry's maximum protection).
 * As Linux, the entries before the first hole or refusal change, and
 * then the call fails.  PROT_GROWSDOWN extends the range down to the
 * start of a MAP_GROWSDOWN entry, as Linux does.
 */
int vm_mprotect(struct vmspace *vm, uint64_t addr, uint64_t len, int prot);

/*
 * madvise(2).  MADV_DONTNEED (and MADV_DONTNEED_LOCKED, and MADV_FREE
 * for private anonymous memory) drops the pages: private anonymous
 * memory reads as zero afterwards, a private file mapping as the file,
 * shared memory keeps its data.  MADV_REMOVE punches shared anonymous
 * memory (zero afterwards in every process that maps it; -EINVAL on
 * private memory, -EACCES on a file mapping that cannot write,
 * -EOPNOTSUPP on one that can, for now).  MADV_POPULATE_READ/WRITE fault
 * the range in (-EFAULT if the access is not allowed).
 * MADV_DONTFORK/DOFORK and MADV_WIPEONFORK/KEEPONFORK set what fork
 * does.  MADV_NORMAL, RANDOM, SEQUENTIAL, WILLNEED, COLD, PAGEOUT,
 * MERGEABLE, UNMERGEABLE, HUGEPAGE, NOHUGEPAGE, DONTDUMP and DODUMP are
 * accepted and change nothing.  As Linux, holes in the range (and
 * whatever of it lies above user space) give -ENOMEM after the mapped
 * parts are done; -EINVAL for alignment, unknown advice or a range that
 * wraps around.
 */
int vm_madvise(struct vmspace *vm, uint64_t addr, uint64_t len, int advice);

/*
 * mincore(2): one byte per page of [addr, addr + len) at user address
 * vec, 1 if the page is in RAM (mapped in the pmap, or in the entry's
 * object chain), else 0.  -EINVAL (addr unaligned), -ENOMEM (a page of
 * the range is not mapped, or the range leaves user space), -EFAULT
 * (vec cannot be written).
 */
int vm_mincore(struct vmspace *vm, uint64_t addr, uint64_t len, uint64_t vec);

/*
 * brk(2): moves the break to newbrk if it can and returns the break,
 * new or unchanged (Linux's contract: the caller compares).  Below
 * vm_brk_start, colliding with another mapping, or short of RAM, the
 * break stays.  Shrinking unmaps the pages above the new break.
 */
uint64_t vm_brk(struct vmspace *vm, uint64_t newbrk);

/* vm_fault types: the access that faulted. */
#define VM_PROT_NONE	PROT_NONE
#define VM_PROT_READ	PROT_READ
#define VM_PROT_WRITE	PROT_WRITE
#define VM_PROT_EXECUTE	PROT_EXEC
#define VM_PROT_ALL	(VM_PROT_READ | VM_PROT_WRITE | VM_PROT_EXECUTE)

/* The access a T_PAGEFLT describes, from its tf_err (PGEX_*). */
static inline int
vm_fault_type(uint64_t pgex)
{
	if (pgex & PGEX_W)
		return VM_PROT_WRITE;
	return (pgex & PGEX_I) ? VM_PROT_EXECUTE : VM_PROT_READ;
}

/*
 * Serves a page fault of a process at va for an access of fault_type
 * (one VM_PROT_*): fills the VPTE so that the access succeeds when the
 * thread runs again.  Returns 0 (also when the VPTE already allowed the
 * access: the host layer may have dropped its own mapping), -EFAULT for
 * an address with no mapping (SIGSEGV, SEGV_MAPERR), -EACCES for an
 * access the mapping forbids (SEGV_ACCERR),
 * -EIO when a file's pager cannot provide the page (SIGBUS), -ENOMEM
 * when RAM is exhausted (the kernel kills the process).  A fault just
 * below a MAP_GROWSDOWN entry grows it, within vm_stack_max and a guard
 * gap above the mapping below.  On failure nothing is left half done.
 */
int vm_fault(struct vmspace *vm, uint64_t va, int fault_type);
/* With VM_PROT_WRITE: a private copy of the page, protection unchanged. */
#define VM_FAULT_COPY	0x100

/*
 * Copies between the kernel and a process's memory, walking its
 * vpagetable in software and faulting pages in through vm_fault; they
 * honour the pages' protections (copyout needs write access, and breaks
 * copy-on-write) and set the accessed (and, for copyout, modified) bits
 * themselves, since no host layer sees the kernel's accesses.  Each
 * returns 0 or -EFAULT: for an address without a mapping that allows the
 * access, at or above VM_MAX_USER_ADDRESS, or wrapping around.  Data up
 * to a bad page may have been copied.  A zero length always succeeds.
 */
int vm_copyin(struct vmspace *vm, uint64_t uaddr, void *kbuf, size_t len);
int vm_copyout(struct vmspace *vm, const void *kbuf, uint64_t uaddr,
    size_t len);

/*
 * Copies a NUL-terminated string of at most maxlen bytes (the NUL
 * included) from uaddr.  Returns 0, -EFAULT, or -ENAMETOOLONG if no NUL
 * came within maxlen bytes; *done (if not NULL) is the number of bytes
 * copied, the NUL included.  Bytes past the NUL are never touched, so a
 * string ending just before an unmapped page is fine.
 */
int vm_copyinstr(struct vmspace *vm, uint64_t uaddr, char *kbuf,
    size_t maxlen, size_t *done);

/*
 * The kernel's pointer to the page at user address va (page aligned, in
 * user space), for a read, or a write if write: faults it in if needed
 * and sets its accessed (and modified) bit as the host would have.  NULL
 * if the process may not make that access.  The pointer is good until
 * the kernel next sleeps (the page may be unmapped then).
 */
uint8_t *vm_user_page(struct vmspace *vm, uint64_t va, bool write);

/*
 * Patched system calls (vm_patch.c, sys/sys_patch.c): the table of what
 * each trampoline entry k stands for in this address space, a call site
 * and its number.  Copied by fork, emptied by exec.
 *
 * vm_patch_lookup: entry k's site and number; false if k is unused.
 * vm_patch_add: the entry of (site, nr), a new one if none has it yet
 * (at most max); -ENOSPC when all are used, -ENOMEM.
 */
bool vm_patch_lookup(struct vmspace *vm, unsigned k, uint64_t *site,
    uint32_t *nr);
int vm_patch_add(struct vmspace *vm, uint64_t site, uint32_t nr, unsigned max);
int vm_patch_fork(struct vmspace *dst, const struct vmspace *src);
/* Makes the table (max entries) now: 0 or -ENOMEM. */
int vm_patch_init(struct vmspace *vm, unsigned max);
/*
 * A site found not to hold the pattern (a cache of a few, per address
 * space, so that the signal path does not read it at each call); only
 * once the table exists.
 */
bool vm_patch_rejected(struct vmspace *vm, uint64_t site);
void vm_patch_reject(struct vmspace *vm, uint64_t site);
/*
 * Counts a call from site: how many there were, this one included (at
 * most 255; sites are remembered as vm_patch_rejected's, a few at once).
 */
unsigned vm_patch_calls(struct vmspace *vm, uint64_t site);
/* The same on a table (vm_patch_origin's). */
unsigned vm_patch_count(struct vm_patch *p, uint64_t site);
/*
 * A forked child's calls credit its parent: the table vm's was copied
 * from if parent still has it (no exec since), else NULL.  A site the
 * children together called often enough is left pending in the parent's
 * table (vm_patch_pend, a few at once), for the parent to patch in its
 * own text when it next enters the kernel (vm_patch_pending takes one:
 * the address after its syscall and its number).
 */
struct vm_patch *vm_patch_origin(struct vmspace *vm, struct vmspace *parent);
void vm_patch_pend(struct vmspace *vm, uint64_t rip, uint32_t nr);
bool vm_patch_pending(struct vmspace *vm, uint64_t *rip, uint32_t *nr);
/*
 * A site's number: the call, and in bits 16-23 for a run site ("mov
 * $nr,%eax", a few instructions, "syscall"; sys/sys_patch.c) the bytes
 * between the mov and the syscall.  A run site's 5-byte mov became a
 * relative jump.
 */
#define VM_PATCH_MOVLEN		5
#define VM_PATCH_RUN(nr, len)	((uint32_t)(nr) | (uint32_t)(len) << 16)
#define VM_PATCH_NR(n)		((n) & 0xffff)
#define VM_PATCH_RUNLEN(n)	((n) == UINT32_MAX ? 0 : ((n) >> 16) & 0xff)
/*
 * mremap moved [s, t) to to: the sites there move along, but for run
 * sites, whose relative jump is undone (the mov written back) and whose
 * entry is dropped.
 */
void vm_patch_move(struct vmspace *vm, uint64_t s, uint64_t t, uint64_t to);
/*
 * Stores len (at most 16) bytes of new at p, a kernel pointer into a
 * text page (vm_text_page), all at once when they lie in one aligned 16
 * bytes (one cmpxchg16b, which every CPU's instruction fetch sees
 * whole); the caller makes sure no other thread runs them otherwise.
 */
void vm_text_store(uint8_t *p, const uint8_t *new, size_t len);
void vm_patch_free(struct vmspace *vm);

/*
 * The kernel's pointer to the page at va of a private, executable,
 * non-writable mapping of a file (program text), made the process's own
 * copy first, so that the kernel may write it: the file and its page
 * cache never change, and other processes keep the file's page.  NULL if
 * va is not such a page.  The pointer is good until the kernel next
 * sleeps, as vm_user_page's.
 */
uint8_t *vm_text_page(struct vmspace *vm, uint64_t va);

#endif /* VM_VM_H */
