/*
 * madvise(2) and mincore(2) (see vm.h): what a process says it will do
 * with its memory, and which of its pages are in RAM.
 */
#include "vm/vm.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"

/* Linux's advice numbers that the host's headers may lack. */
#ifndef MADV_COLD
#define MADV_COLD		20
#endif
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT		21
#endif
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ	22
#define MADV_POPULATE_WRITE	23
#endif
#ifndef MADV_DONTNEED_LOCKED
#define MADV_DONTNEED_LOCKED	24
#endif

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

	if (top == NULL || top == (file = vm_map_entry_file(e)))
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

/*
 * MADV_REMOVE on the part [s, t) of shared anonymous entry e: its pages
 * leave the object, and so every mapping of them in every process (the
 * caller removed its own range already); the memory reads as zero
 * everywhere afterwards, as Linux's hole punched in shared memory.
 */
static void
remove_shared(struct vm_map_entry *e, uint64_t s, uint64_t t)
{
	struct vm_object *obj = e->object;
	if (obj == NULL)
		return;		/* never touched: nothing to punch */
	uint64_t first = vm_map_entry_pindex(e, s), last = vm_map_entry_pindex(e, t);
	for (uint64_t i = first; i < last && obj->resident_page_count > 0; i++) {
		struct vm_page *m = vm_object_page_lookup(obj, i);
		if (m == NULL)
			continue;
		struct pv_entry *pv;
		while ((pv = VM_PAGE_EXT(m)->pv) != NULL)
			pmap_remove(pv->pv_pmap, pv->pv_va, pv->pv_va + PAGE_SIZE);
	}
	vm_object_page_remove(obj, first, last);
}

/*
 * Whether advice applies to e, as Linux checks before it does anything:
 * 0, or the error.  MADV_FREE and MADV_WIPEONFORK are for private
 * anonymous memory only; MADV_REMOVE punches shared memory (a file's
 * pages would need its file system's hole punching: not yet).
 */
static int
advice_fits(const struct vm_map_entry *e, int advice)
{
	switch (advice) {
	case MADV_FREE:
	case MADV_WIPEONFORK:
		if (!(e->eflags & MAP_ENTRY_COW) || vm_map_entry_file(e) != NULL)
			return -EINVAL;
		break;
	case MADV_REMOVE:
		if (e->eflags & MAP_ENTRY_COW) {
			/* Linux: private anonymous memory has no file. */
			return vm_map_entry_file(e) == NULL ? -EINVAL : -EACCES;
		}
		if (vm_map_entry_file(e) != NULL) {
			if (!(e->max_protection & VM_PROT_WRITE))
				return -EACCES;
			kprintf("madvise: MADV_REMOVE of a file's pages needs its "
			    "file system to punch holes (not yet)\n");
			return -EOPNOTSUPP;
		}
		break;
	}
	return 0;
}

/*
 * MADV_POPULATE_READ/WRITE over [s, t): faults every page in as a read
 * or a write would.  0, or Linux's errors: -EINVAL (the mapping does not
 * allow the access), -EFAULT (SIGBUS), -ENOMEM (unmapped meanwhile, or
 * RAM short).
 */
static int
populate(struct vmspace *vm, uint64_t s, uint64_t t, int type)
{
	for (uint64_t va = s; va < t; va += PAGE_SIZE) {
		switch (vm_fault(vm, va, type)) {
		case 0:
			break;
		case -EACCES:
			return -EINVAL;
		case -EIO:
			return -EFAULT;
		default:
			return -ENOMEM;
		}
	}
	return 0;
}

int
vm_madvise(struct vmspace *vm, uint64_t addr, uint64_t len, int advice)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *e;

	switch (advice) {
	case MADV_DONTNEED_LOCKED:
		advice = MADV_DONTNEED;	/* nothing is locked in RAM here */
		break;
	case MADV_NORMAL: case MADV_RANDOM: case MADV_SEQUENTIAL:
	case MADV_WILLNEED: case MADV_DONTNEED: case MADV_FREE:
	case MADV_REMOVE: case MADV_DONTFORK: case MADV_DOFORK:
	case MADV_MERGEABLE: case MADV_UNMERGEABLE:
	case MADV_HUGEPAGE: case MADV_NOHUGEPAGE:
	case MADV_DONTDUMP: case MADV_DODUMP:
	case MADV_WIPEONFORK: case MADV_KEEPONFORK:
	case MADV_COLD: case MADV_PAGEOUT:
	case MADV_POPULATE_READ: case MADV_POPULATE_WRITE:
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
	    f = f->next) {
		int bad = advice_fits(f, advice);
		if (bad != 0)
			return bad;
	}

	uint64_t at = addr;
	if (advice == MADV_DONTNEED || advice == MADV_FREE ||
	    advice == MADV_REMOVE)
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
		case MADV_REMOVE:
			remove_shared(e, s, t);
			continue;
		case MADV_POPULATE_READ:
		case MADV_POPULATE_WRITE: {
			/* The map may change while a file's page is read. */
			int perr = populate(vm, s, t, advice == MADV_POPULATE_READ ?
			    VM_PROT_READ : VM_PROT_WRITE);
			if (perr != 0)
				return perr;
			if (!vm_map_lookup_entry(map, t - 1, &e))
				return -ENOMEM;
			continue;
		}
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


/* Whether the page at va of entry e is in RAM: mapped, or in its chain. */
static bool
resident(struct vmspace *vm, const struct vm_map_entry *e, uint64_t va)
{
	vpte_t *pte = pmap_pte(&vm->vm_pmap, va);
	vpte_t v = pte != NULL ? __atomic_load_n(pte, __ATOMIC_ACQUIRE) : 0;
	if (v & VPTE_V)
		return !vm_page_untouched(PHYS_TO_VM_PAGE(v & VPTE_FRAME));
	uint64_t pindex = vm_map_entry_pindex(e, va);
	for (struct vm_object *obj = e->object; obj != NULL;
	    obj = obj->backing_object) {
		struct vm_page *m = vm_object_page_lookup(obj, pindex);
		if (m != NULL)
			return !vm_page_untouched(m);
	}
	return false;
}

int
vm_mincore(struct vmspace *vm, uint64_t addr, uint64_t len, uint64_t vec)
{
	struct vm_map_entry *e;
	uint8_t buf[256];

	/* Linux's checks, in its order, against its TASK_SIZE. */
	if (addr & PAGE_MASK)
		return -EINVAL;
	if (addr + len < addr || addr + len > VM_LINUX_TASK_SIZE)
		return -ENOMEM;
	uint64_t pages = (len >> PAGE_SHIFT) + ((len & PAGE_MASK) != 0);
	if (vec + pages < vec || vec + pages > VM_LINUX_TASK_SIZE)
		return -EFAULT;
	while (pages > 0) {
		if (!vm_map_lookup_entry(&vm->vm_map, addr, &e))
			return -ENOMEM;
		uint64_t n = MIN(MIN(pages, sizeof(buf)),
		    (e->end - addr) >> PAGE_SHIFT);
		for (uint64_t i = 0; i < n; i++)
			buf[i] = resident(vm, e, addr + i * PAGE_SIZE);
		if (vm_copyout(vm, buf, vec, n) != 0)
			return -EFAULT;
		pages -= n;
		vec += n;
		addr += n << PAGE_SHIFT;
	}
	return 0;
}
