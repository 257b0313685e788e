/*
 * The memory-mapping system calls' kernel side, with Linux's semantics
 * (see vm.h): mmap, munmap, mprotect and brk.
 */
#include "vm/vm.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"

#define MAP_TYPE_MASK	0x0f
#define MAP_KNOWN	(MAP_SHARED | MAP_PRIVATE | MAP_FIXED | MAP_ANONYMOUS | \
	MAP_32BIT | MAP_GROWSDOWN | MAP_DENYWRITE | MAP_EXECUTABLE | \
	MAP_LOCKED | MAP_NORESERVE | MAP_POPULATE | MAP_NONBLOCK | \
	MAP_STACK | MAP_HUGETLB | MAP_FIXED_NOREPLACE)
#ifndef PROT_SEM
#define PROT_SEM	0x8		/* Linux's; glibc does not define it */
#endif
#define MAP_32BIT_LO	0x40000000UL	/* Linux's window for MAP_32BIT */
#define MAP_32BIT_HI	0x80000000UL

/* Rounds len up to pages; 0 if that overflows user space. */
static uint64_t
page_len(uint64_t len)
{
	if (len > VM_MAX_USER_ADDRESS)
		return 0;
	return roundup2(len, PAGE_SIZE);
}

/* How many bytes of [start, end) are mapped. */
static uint64_t
mapped_bytes(struct vm_map *map, uint64_t start, uint64_t end)
{
	struct vm_map_entry *e;
	uint64_t n = 0;
	if (!vm_map_lookup_entry(map, start, &e))
		e = e->next;
	for (; e != VM_MAP_END(map) && e->start < end; e = e->next)
		n += MIN(e->end, end) - MAX(e->start, start);
	return n;
}

uint64_t
vm_mmap_place(struct vmspace *vm, uint64_t hint, uint64_t len, int flags)
{
	struct vm_map *map = &vm->vm_map;
	uint64_t addr;

	hint = roundup2(hint, PAGE_SIZE);
	if (hint != 0 && hint >= VM_MIN_USER_ADDRESS &&
	    hint <= VM_MAX_USER_ADDRESS - len && vm_map_fits(map, hint, hint + len))
		return hint;
	if (flags & MAP_32BIT)
		return vm_map_findspace(map, MAP_32BIT_LO, MAP_32BIT_HI, len,
		    false, &addr) == 0 ? addr : 0;
	/* Top-down below the stack's room, then bottom-up above it (Linux). */
	if (vm_map_findspace(map, VM_MIN_USER_ADDRESS, vm->vm_mmap_base, len,
	    true, &addr) == 0 ||
	    vm_map_findspace(map, vm->vm_mmap_base, VM_MAX_USER_ADDRESS, len,
	    false, &addr) == 0)
		return addr;
	return 0;
}

/*
 * MAP_POPULATE (and MAP_LOCKED, which Linux populates too): faults the
 * new mapping in now, as Linux's mm_populate: a private writable mapping
 * with writes (its own copies), others with reads; errors are not the
 * caller's (a later touch faults again), so the first one just stops.
 */
static void
mmap_populate(struct vmspace *vm, uint64_t start, uint64_t end, int prot,
    int type)
{
	if (!(prot & VM_PROT_ALL))
		return;
	int access = (prot & VM_PROT_WRITE) && type == MAP_PRIVATE ?
	    VM_PROT_WRITE : VM_PROT_READ;
	uint64_t va;
	for (va = start; va < end; va += PAGE_SIZE)
		if (vm_fault(vm, va, access) != 0)
			break;
	/* The process asked for them now: the host maps them in one go. */
	pmap_prefault(&vm->vm_pmap, start, va);
}

/*
 * Mapping the first page ahead (vm_mmap_touch_ahead): after
 * VM_TOUCH_LEARN anonymous mappings in a row whose first page faulted
 * before the next mmap (malloc writes its chunk header there, and a
 * program that maps memory mostly writes it), the next ones get their
 * first page at the mmap.  A page mapped ahead never faults, so its
 * touch shows only in its contents: one still all zero at the next mmap
 * stops the mapping ahead, which then has to be learnt again.  A wrong
 * guess costs one zeroed page; a right one spares a trap through the
 * host and a resume through the mapper.
 */
#define VM_TOUCH_LEARN	2

/* The page the pmap maps at va, or NULL. */
static struct vm_page *
mapped_page(struct vmspace *vm, uint64_t va)
{
	vpte_t *pte = pmap_pte(&vm->vm_pmap, va);
	vpte_t v = pte != NULL ? __atomic_load_n(pte, __ATOMIC_ACQUIRE) : 0;
	return (v & VPTE_V) ? PHYS_TO_VM_PAGE(v & VPTE_FRAME) : NULL;
}

void
vm_mmap_touch_ahead(struct vmspace *vm, uint64_t addr, uint64_t len,
    int prot, int flags)
{
	if ((flags & MAP_TYPE_MASK) != MAP_PRIVATE ||
	    (flags & (MAP_POPULATE | MAP_NORESERVE | MAP_GROWSDOWN)) ||
	    !(prot & PROT_WRITE) || len == 0)
		return;
	if (vm->vm_touch_hint != 0)	/* the last one was not touched */
		vm->vm_touch_streak = 0;
	if (vm->vm_touch_ahead != 0) {
		struct vm_page *m = mapped_page(vm, vm->vm_touch_ahead);
		if (m != NULL && vm_page_untouched(m))
			vm->vm_touch_streak = 0;
		vm->vm_touch_ahead = 0;
	}
	if (vm->vm_touch_streak < VM_TOUCH_LEARN) {
		vm->vm_touch_hint = addr;
		return;
	}
	vm->vm_touch_hint = 0;
	/* Not a write in order: a writer's run elsewhere goes on as it was. */
	uint64_t zfod_next = vm->vm_zfod_next;
	uint32_t window = vm->vm_fill_window;
	int err = vm_fault(vm, addr, VM_PROT_WRITE);
	vm->vm_zfod_next = zfod_next;
	vm->vm_fill_window = window;
	struct vm_page *m = mapped_page(vm, addr);
	if (err != 0 || m == NULL)
		return;
	VM_PAGE_EXT(m)->flags |= PGX_AHEAD;
	vm->vm_touch_ahead = addr;
	pmap_prefault(&vm->vm_pmap, addr, addr + PAGE_SIZE);
}

void
vm_mmap_touched(struct vmspace *vm, uint64_t va)
{
	if (va != vm->vm_touch_hint)
		return;
	vm->vm_touch_hint = 0;
	if (vm->vm_touch_streak < VM_TOUCH_LEARN)
		vm->vm_touch_streak++;
}

bool
vm_page_untouched(struct vm_page *m)
{
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	if (!(x->flags & PGX_AHEAD))
		return false;
	const uint64_t *w = VM_PAGE_TO_DMAP(m);
	for (size_t i = 0; i < PAGE_SIZE / sizeof(*w); i++)
		if (w[i] != 0) {
			x->flags &= ~PGX_AHEAD;	/* written: touched */
			return false;
		}
	return true;
}

long
vm_mmap_maxprot(struct vmspace *vm, uint64_t addr, uint64_t len, int prot,
    int maxprot, int flags, struct vm_object *obj, uint64_t off)
{
	struct vm_map *map = &vm->vm_map;
	int type = flags & MAP_TYPE_MASK;
	bool anon = (flags & MAP_ANONYMOUS) != 0;

	if (type == MAP_SHARED_VALIDATE) {
		if (flags & ~MAP_KNOWN)
			return -EOPNOTSUPP;
		type = MAP_SHARED;
	}
	if (type != MAP_SHARED && type != MAP_PRIVATE)
		return -EINVAL;
	if (anon != (obj == NULL) || (off & PAGE_MASK) != 0 || len == 0)
		return -EINVAL;
	if ((flags & MAP_GROWSDOWN) && (!anon || type != MAP_PRIVATE))
		return -EINVAL;
	if (flags & MAP_HUGETLB)
		return -ENOMEM;		/* no huge pages are reserved */
	prot &= VM_PROT_ALL;	/* mmap ignores other bits, as Linux */
	if ((len = page_len(len)) == 0)
		return -ENOMEM;
	if (off + len < off)
		return -EOVERFLOW;
	if (prot & ~maxprot)
		return -EACCES;
	if (map->nentries > VM_MAX_MAP_COUNT)
		return -ENOMEM;		/* as Linux's do_mmap */

	if (flags & (MAP_FIXED | MAP_FIXED_NOREPLACE)) {
		if (addr & PAGE_MASK)
			return -EINVAL;
		if (addr < VM_MIN_USER_ADDRESS)
			return -EPERM;
		if (addr > VM_MAX_USER_ADDRESS - len)
			return -ENOMEM;
		if (flags & MAP_FIXED_NOREPLACE) {
			if (!vm_map_range_free(map, addr, addr + len))
				return -EEXIST;
		} else {
			/* What it replaces does not count against RLIMIT_AS. */
			if (!vm_may_expand(vm, len - mapped_bytes(map, addr,
			    addr + len)))
				return -ENOMEM;
			/* As Linux: the old mapping is gone even if we fail. */
			int err = vm_map_delete(map, addr, addr + len);
			if (err != 0)
				return err;
		}
	} else if ((addr = vm_mmap_place(vm, addr, len, flags)) == 0) {
		return -ENOMEM;
	}
	if (!vm_may_expand(vm, len))
		return -ENOMEM;

	int eflags = (flags & MAP_GROWSDOWN) ? MAP_ENTRY_GROWSDOWN : 0;
	if (type == MAP_PRIVATE) {
		eflags |= MAP_ENTRY_COW;
		if (obj != NULL)
			eflags |= MAP_ENTRY_NEEDS_COPY;	/* the file's pages */
	}
	if (obj != NULL) {
		vm_object_reference(obj);
	} else if (type == MAP_SHARED) {
		/*
		 * Shared anonymous memory is one object from the start, as
		 * Linux's shmem file: every process and place that maps it
		 * later (fork, mremap) shows the same pages, and /proc maps
		 * tells two such mappings apart.  Its offsets start at 0.
		 */
		if ((obj = vm_object_allocate_anon()) == NULL)
			return -ENOMEM;
		off = 0;
	} else {
		off = 0;	/* set at the first fault */
	}
	int err = vm_map_insert(map, addr, addr + len, obj, off, prot, maxprot,
	    eflags);
	if (err != 0) {
		if (obj != NULL)
			vm_object_deallocate(obj);
		return err;
	}
	if ((flags & (MAP_POPULATE | MAP_LOCKED)) && !(flags & MAP_NONBLOCK))
		mmap_populate(vm, addr, addr + len, prot, type);
	return (long)addr;
}

long
vm_mmap(struct vmspace *vm, uint64_t addr, uint64_t len, int prot, int flags,
    struct vm_object *obj, uint64_t off)
{
	return vm_mmap_maxprot(vm, addr, len, prot, VM_PROT_ALL, flags, obj,
	    off);
}

int
vm_munmap(struct vmspace *vm, uint64_t addr, uint64_t len)
{
	/* As Linux's do_vmi_munmap, with our user range for its TASK_SIZE. */
	if ((addr & PAGE_MASK) || len == 0 || addr > VM_MAX_USER_ADDRESS ||
	    len > VM_MAX_USER_ADDRESS - addr)
		return -EINVAL;
	uint64_t end = MIN(addr + roundup2(len, PAGE_SIZE), VM_MAX_USER_ADDRESS);
	return addr < end ? vm_map_delete(&vm->vm_map, addr, end) : 0;
}

int
vm_mprotect(struct vmspace *vm, uint64_t addr, uint64_t len, int prot)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *e, *first;
	int grows = prot & (PROT_GROWSDOWN | PROT_GROWSUP);

	prot &= ~grows;
	if ((addr & PAGE_MASK) || (prot & ~(VM_PROT_ALL | PROT_SEM)) ||
	    (grows & PROT_GROWSUP))
		return -EINVAL;	/* x86 has no stacks growing up */
	if (len == 0)
		return 0;
	prot &= VM_PROT_ALL;
	uint64_t plen = roundup2(len, PAGE_SIZE), end = addr + plen;
	if (plen == 0 || end <= addr || addr >= VM_MAX_USER_ADDRESS)
		return -ENOMEM;
	/* Above user space is a hole: the part below it changes. */
	bool beyond = end > VM_MAX_USER_ADDRESS;
	if (beyond)
		end = VM_MAX_USER_ADDRESS;

	bool mapped = vm_map_lookup_entry(map, addr, &first);
	if (grows & PROT_GROWSDOWN) {
		if (!mapped)
			return -ENOMEM;
		if (!(first->eflags & MAP_ENTRY_GROWSDOWN))
			return -EINVAL;
		addr = first->start;
	}
	/*
	 * As Linux: the entries up to the first hole (-ENOMEM) or the first
	 * entry that does not allow prot (-EACCES) change, then the error.
	 */
	if (!mapped)
		return -ENOMEM;
	uint64_t at = addr;
	int stop = 0;
	for (e = first; at < end; e = e->next) {
		if (e == VM_MAP_END(map) || e->start > at) {
			stop = -ENOMEM;
			break;
		}
		if (prot & ~e->max_protection) {
			stop = -EACCES;
			break;
		}
		at = MIN(e->end, end);
	}
	if (at == addr)
		return stop;
	end = at;

	int err = vm_map_clip(map, addr, end);
	if (err != 0)
		return err;
	bool lowered = false;
	vm_map_lookup_entry(map, addr, &e);
	for (; e != VM_MAP_END(map) && e->start < end; e = e->next) {
		lowered |= (e->protection & ~prot) != 0;
		e->protection = (uint8_t)prot;
		vm_map_entry_changed(map, e);
	}
	/* One pass over the pmap; it only ever lowers. */
	if (lowered)
		pmap_protect(&vm->vm_pmap, addr, end, prot);
	vm_map_simplify(map, addr, end);
	return stop != 0 ? stop : beyond ? -ENOMEM : 0;
}

uint64_t
vm_brk(struct vmspace *vm, uint64_t newbrk)
{
	struct vm_map *map = &vm->vm_map;
	uint64_t old = vm->vm_brk;

	if (newbrk < vm->vm_brk_start || newbrk > VM_MAX_USER_ADDRESS - PAGE_SIZE)
		return old;
	uint64_t oldpage = roundup2(old, PAGE_SIZE);
	uint64_t newpage = roundup2(newbrk, PAGE_SIZE);
	if (newpage < oldpage) {
		if (vm_map_delete(map, newpage, oldpage) != 0)
			return old;
	} else if (newpage > oldpage) {
		/* As Linux, a page of room must be left above the heap. */
		if (map->nentries > VM_MAX_MAP_COUNT ||
		    !vm_may_expand(vm, newpage - oldpage) ||
		    !vm_map_fits(map, oldpage, newpage + PAGE_SIZE) ||
		    vm_map_insert(map, oldpage, newpage, NULL, 0,
		    VM_PROT_READ | VM_PROT_WRITE, VM_PROT_ALL, MAP_ENTRY_COW) != 0)
			return old;
	}
	vm->vm_brk = newbrk;
	return newbrk;
}
