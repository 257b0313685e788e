/*
 * The memory-mapping system calls' kernel side, with Linux's semantics
 * (see vm.h): mmap, munmap, mprotect, madvise and brk.
 */
#include "vm/vm.h"
#include "vm/vm_object.h"

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

/* Where a new mapping of len bytes goes without MAP_FIXED; 0 if nowhere. */
static uint64_t
mmap_place(struct vmspace *vm, uint64_t hint, uint64_t len, int flags)
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
	} else if ((addr = mmap_place(vm, addr, len, flags)) == 0) {
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
	if (obj != NULL)
		vm_object_reference(obj);
	else
		off = 0;	/* set at the first fault */
	int err = vm_map_insert(map, addr, addr + len, obj, off, prot, maxprot,
	    eflags);
	if (err != 0) {
		if (obj != NULL)
			vm_object_deallocate(obj);
		return err;
	}
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

/* The bottom of e's chain if a file is there (what a private copy hides). */
static struct vm_object *
pristine(const struct vm_map_entry *e)
{
	struct vm_object *obj = e->object;
	while (obj->backing_object != NULL)
		obj = obj->backing_object;
	return obj->type == OBJT_ANON ? NULL : obj;
}

/*
 * MADV_DONTNEED on the part [s, t) of private entry e, whose pages are
 * unmapped already: afterwards it reads as zero (anonymous) or as the
 * file.  Returns 0 or -ENOMEM.
 */
static int
dontneed_private(struct vm_map *map, struct vm_map_entry *e, uint64_t s,
    uint64_t t)
{
	struct vm_object *top = e->object, *file;

	if (top == NULL || top == (file = pristine(e)))
		return 0;	/* nothing private there */
	if ((top->flags & OBJ_ONEMAPPING) && top->backing_object == file) {
		/* The only private layer, and only here: drop its pages. */
		vm_object_page_remove(top, vm_map_entry_pindex(e, s),
		    vm_map_entry_pindex(e, t));
		return 0;
	}
	/*
	 * Older layers (a fork's) would show through: this part of the entry
	 * goes back to the bare file, or to no object at all.
	 */
	int err = vm_map_clip(map, s, t);
	if (err != 0)
		return err;
	vm_map_lookup_entry(map, s, &e);
	if (top->flags & OBJ_ONEMAPPING)
		vm_object_page_remove(top, vm_map_entry_pindex(e, s),
		    vm_map_entry_pindex(e, t));
	if (file != NULL) {
		vm_object_reference(file);
		e->eflags |= MAP_ENTRY_NEEDS_COPY;
	} else {
		e->eflags &= ~MAP_ENTRY_NEEDS_COPY;
	}
	vm_map_entry_set_object(map, e, file, e->offset);
	return 0;
}

/* Whether advice applies to e (Linux refuses some on shared or file memory). */
static bool
advice_fits(const struct vm_map_entry *e, int advice)
{
	switch (advice) {
	case MADV_FREE:
	case MADV_WIPEONFORK:
		return (e->eflags & MAP_ENTRY_COW) &&
		    (e->object == NULL || pristine(e) == NULL);
	}
	return true;
}

int
vm_madvise(struct vmspace *vm, uint64_t addr, uint64_t len, int advice)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *e;

	switch (advice) {
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL:
	case MADV_WILLNEED: case MADV_DONTNEED: case MADV_FREE:
	case MADV_DONTFORK: case MADV_DOFORK:
	case MADV_WIPEONFORK: case MADV_KEEPONFORK:
		break;
	default:
		return -EINVAL;
	}
	if (addr & PAGE_MASK)
		return -EINVAL;
	if (len == 0)
		return 0;
	/* As Linux: only a range that wraps is invalid; the rest is holes. */
	uint64_t plen = roundup2(len, PAGE_SIZE), end = addr + plen;
	if (plen == 0 || end < addr)
		return -EINVAL;
	if (addr >= VM_MAX_USER_ADDRESS)
		return -ENOMEM;
	int err = 0;
	if (end > VM_MAX_USER_ADDRESS) {
		end = VM_MAX_USER_ADDRESS;
		err = -ENOMEM;
	}

	/* The flags that need checking are checked before anything changes. */
	if (!vm_map_lookup_entry(map, addr, &e))
		e = e->next;
	for (struct vm_map_entry *f = e; f != VM_MAP_END(map) && f->start < end;
	    f = f->next)
		if (!advice_fits(f, advice))
			return -EINVAL;

	uint64_t at = addr;
	if (advice == MADV_DONTNEED || advice == MADV_FREE)
		pmap_remove(&vm->vm_pmap, addr, end);
	for (; e != VM_MAP_END(map) && e->start < end; e = e->next) {
		uint64_t s = MAX(e->start, addr), t = MIN(e->end, end);
		if (s > at)
			err = -ENOMEM;		/* a hole: go on, as Linux */
		at = t;
		uint16_t set = 0, clear = 0;
		switch (advice) {
		case MADV_DONTNEED:
		case MADV_FREE:
			if ((e->eflags & MAP_ENTRY_COW) &&
			    dontneed_private(map, e, s, t) != 0)
				return -ENOMEM;
			vm_map_lookup_entry(map, s, &e);
			continue;
		case MADV_DONTFORK:	set = MAP_ENTRY_DONTFORK; break;
		case MADV_DOFORK:	clear = MAP_ENTRY_DONTFORK; break;
		case MADV_WIPEONFORK:	set = MAP_ENTRY_WIPEONFORK; break;
		case MADV_KEEPONFORK:	clear = MAP_ENTRY_WIPEONFORK; break;
		default:
			continue;
		}
		if ((uint16_t)((e->eflags | set) & ~clear) == e->eflags)
			continue;
		if (vm_map_clip(map, s, t) != 0)
			return -ENOMEM;
		vm_map_lookup_entry(map, s, &e);
		e->eflags = (uint16_t)((e->eflags | set) & ~clear);
		vm_map_entry_changed(map, e);
	}
	if (at < end)
		err = -ENOMEM;
	vm_map_simplify(map, addr, end);
	return err;
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
