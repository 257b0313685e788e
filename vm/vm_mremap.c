/*
 * mremap(2) (see vm_mremap in vm.h), in the order of Linux 6.18's
 * do_mremap so that every error is the one Linux gives first.
 *
 * A move relinks the entries at their new addresses: they keep their
 * objects and offsets (an anonymous object stays indexed by the
 * addresses it was created at, which is only a numbering), so no page
 * changes hands and none is copied.  The pages mapped in the old range
 * are entered at the new one before the old range leaves the pmap, so
 * the process does not fault them back one by one.
 *
 * A Linux VMA may be several of our entries (a fork's copy-on-write
 * marks, an object that could not be extended), so "one mapping" below
 * is a run of entries that Linux would show as one VMA (same_vma).
 */
#include "vm/vm.h"
#include "vm/vm_object.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP	4
#endif
#define MREMAP_KNOWN	(MREMAP_MAYMOVE | MREMAP_FIXED | MREMAP_DONTUNMAP)
#define NBPDR		(1UL << VPTE_SHIFT(1))	/* what one page table maps */

/* Whether b continues a as the same Linux VMA would. */
static bool
same_vma(const struct vm_map_entry *a, const struct vm_map_entry *b)
{
	if (a->end != b->start || a->protection != b->protection ||
	    a->max_protection != b->max_protection || a->name != b->name ||
	    ((a->eflags ^ b->eflags) & ~MAP_ENTRY_NEEDS_COPY) != 0)
		return false;
	struct vm_object *file = vm_map_entry_file(a);
	if (file != vm_map_entry_file(b))
		return false;
	bool contiguous = a->offset + (a->end - a->start) == b->offset;
	if (!(a->eflags & MAP_ENTRY_COW))
		return a->object == b->object && (a->object == NULL || contiguous);
	return file == NULL || contiguous;
}

/* The last entry of the mapping (run of same_vma entries) that e is in. */
static struct vm_map_entry *
vma_last(struct vm_map *map, struct vm_map_entry *e)
{
	while (e->next != VM_MAP_END(map) && same_vma(e, e->next))
		e = e->next;
	return e;
}

/*
 * Enters the pages mapped in [s, t) at the same places of [to, ...), with
 * their protections and modified bits, then removes [s, t) from the pmap
 * (one host invalidation).  A page that cannot be entered (RAM short for
 * a page table) just faults in later from the moved entry's object.
 */
static void
move_pages(struct pmap *pm, uint64_t s, uint64_t t, uint64_t to)
{
	for (uint64_t va = s; va < t; va += PAGE_SIZE) {
		vpte_t *pte = pmap_pte(pm, va);
		if (pte == NULL) {
			/* No page table: nothing mapped up to the next one. */
			va = rounddown2(va, NBPDR) + NBPDR - PAGE_SIZE;
			continue;
		}
		vpte_t v = __atomic_load_n(pte, __ATOMIC_ACQUIRE);
		if (!(v & VPTE_V))
			continue;
		int prot = VM_PROT_READ | ((v & VPTE_RW) ? VM_PROT_WRITE : 0) |
		    ((v & VPTE_NX) ? 0 : VM_PROT_EXECUTE);
		(void)pmap_enter(pm, to + (va - s), PHYS_TO_VM_PAGE(v & VPTE_FRAME),
		    prot, (v & VPTE_M) ? VM_PROT_WRITE : VM_PROT_READ);
	}
	pmap_remove(pm, s, t);
}

/*
 * For MREMAP_DONTUNMAP: maps [s, t) again as what entry f (moved from
 * there) leaves behind, as MADV_DONTNEED would: shared memory (f's
 * object, made now if f has none yet, so both places share it) or the
 * file under a private mapping, or nothing yet (anonymous: zero).
 */
static int
leave_behind(struct vm_map *map, struct vm_map_entry *f, uint64_t fs,
    uint64_t s, uint64_t t)
{
	struct vm_object *obj;
	uint64_t off = f->offset + (fs - f->start);
	int eflags = f->eflags & ~MAP_ENTRY_NEEDS_COPY;

	if (!(f->eflags & MAP_ENTRY_COW)) {
		if (f->object == NULL) {
			if ((obj = vm_object_allocate_anon()) == NULL)
				return -ENOMEM;
			vm_map_entry_set_object(map, f, obj, f->start);
			off = f->offset + (fs - f->start);
		}
		obj = f->object;
		obj->flags &= ~OBJ_ONEMAPPING;	/* two places show its pages */
	} else if ((obj = vm_map_entry_file(f)) != NULL) {
		eflags |= MAP_ENTRY_NEEDS_COPY;
	} else {
		off = 0;
	}
	if (obj != NULL)
		vm_object_reference(obj);
	int err = vm_map_insert(map, s, t, obj, off, f->protection,
	    f->max_protection, eflags);
	if (err != 0 && obj != NULL)
		vm_object_deallocate(obj);
	return err;
}

/*
 * Moves the mappings of [s, t) (holes allowed) to [to, to + t - s), which
 * must be free, with their pages' mappings; with dontunmap the old range
 * is mapped again as leave_behind says.  Returns 0 or -ENOMEM (before
 * anything moved, or, with dontunmap, when RAM ran out for the old
 * range's new entries: it is then partly unmapped).
 */
static int
move_range(struct vmspace *vm, uint64_t s, uint64_t t, uint64_t to,
    bool dontunmap)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *e;
	int err;

	if ((err = vm_map_clip(map, s, t)) != 0)
		return err;
	for (uint64_t at = s; at < t; ) {
		if (!vm_map_lookup_entry(map, at, &e))
			e = e->next;
		if (e == VM_MAP_END(map) || e->start >= t)
			break;
		at = e->end;
		vm_map_entry_move(map, e, to + (e->start - s));
	}
	move_pages(&vm->vm_pmap, s, t, to);
	vm_patch_move(vm, s, t, to);	/* patched text: its sites went along */
	uint64_t tt = to + (t - s);
	if (dontunmap) {
		/* Entries may merge meanwhile: walk by address, clamped. */
		for (uint64_t at = to; at < tt; ) {
			if (!vm_map_lookup_entry(map, at, &e))
				e = e->next;
			if (e == VM_MAP_END(map) || e->start >= tt)
				break;
			uint64_t fs = MAX(e->start, at), ft = MIN(e->end, tt);
			at = ft;
			if ((err = leave_behind(map, e, fs, fs - to + s,
			    ft - to + s)) != 0)
				return err;
		}
	}
	vm_map_simplify(map, to, tt);
	return 0;
}

/*
 * Makes the mapping whose last entry is e (ending where the range above
 * it is free) reach end: e grows when that shows the right pages (shared
 * memory and files: the following offsets; private memory: where no
 * private layer has pages there and no other entry can reach them), else
 * a new entry of the same kind follows it.  Returns 0 or -ENOMEM.
 */
static int
extend(struct vm_map *map, struct vm_map_entry *e, uint64_t end)
{
	uint64_t s = e->end;
	struct vm_object *top = e->object;

	if (!(e->eflags & MAP_ENTRY_COW) || top == NULL) {
		vm_map_entry_grow(map, e, end);
		vm_map_simplify(map, s, end);
		return 0;
	}
	if (top->ref_count == 1) {
		bool empty = true;
		for (struct vm_object *o = top; o != NULL && empty;
		    o = o->backing_object)
			if (o->type == OBJT_ANON)
				empty = vm_object_range_empty(o,
				    vm_map_entry_pindex(e, s),
				    vm_map_entry_pindex(e, end));
		if (empty) {
			vm_map_entry_grow(map, e, end);
			vm_map_simplify(map, s, end);
			return 0;
		}
	}
	struct vm_object *file = vm_map_entry_file(e);
	int eflags = e->eflags & ~MAP_ENTRY_NEEDS_COPY;
	if (file != NULL) {
		vm_object_reference(file);
		eflags |= MAP_ENTRY_NEEDS_COPY;
	}
	int err = vm_map_insert(map, s, end, file,
	    file != NULL ? e->offset + (s - e->start) : 0, e->protection,
	    e->max_protection, eflags);
	if (err != 0 && file != NULL)
		vm_object_deallocate(file);
	return err;
}

/*
 * old_len 0: maps the shared mapping e (at addr) a second time at
 * [to, to + len), showing the same object from addr's offset on.
 */
static long
duplicate(struct vmspace *vm, struct vm_map_entry *e, uint64_t addr,
    uint64_t to, uint64_t len)
{
	struct vm_map *map = &vm->vm_map;

	if (e->object == NULL) {
		struct vm_object *obj = vm_object_allocate_anon();
		if (obj == NULL)
			return -ENOMEM;
		vm_map_entry_set_object(map, e, obj, e->start);
	}
	e->object->flags &= ~OBJ_ONEMAPPING;	/* two places show its pages */
	vm_object_reference(e->object);
	int err = vm_map_insert(map, to, to + len, e->object,
	    e->offset + (addr - e->start), e->protection, e->max_protection,
	    e->eflags);
	if (err != 0) {
		vm_object_deallocate(e->object);
		return err;
	}
	return (long)to;
}

/*
 * Linux's move_vma: [addr, addr + old_len) of the mapping whose last
 * entry reaches at least that far goes to new_addr (free), grown to
 * new_len.  Returns new_addr or a negative errno.
 */
static long
move_mapping(struct vmspace *vm, uint64_t addr, uint64_t old_len,
    uint64_t new_len, uint64_t new_addr, bool dontunmap)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *e;

	if (map->nentries >= VM_MAX_MAP_COUNT - 3)
		return -ENOMEM;
	if (!vm_map_lookup_entry(map, addr, &e))
		return -EFAULT;
	if (old_len == 0)
		return duplicate(vm, e, addr, new_addr, new_len);
	int err = move_range(vm, addr, addr + old_len, new_addr, dontunmap);
	if (err != 0)
		return err;
	if (new_len > old_len) {
		vm_map_lookup_entry(map, new_addr + old_len - 1, &e);
		if ((err = extend(map, e, new_addr + new_len)) != 0)
			return err;
	}
	return (long)new_addr;
}

/*
 * MREMAP_FIXED with old_len == new_len (Linux's remap_move): every
 * mapping in [addr, addr + len) moves, the holes between them kept, each
 * replacing what was at its destination.  addr itself must be mapped.
 */
static long
remap_move(struct vmspace *vm, uint64_t addr, uint64_t len, uint64_t new_addr,
    bool dontunmap)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *e;
	uint64_t end = MIN(addr + len, VM_MAX_USER_ADDRESS);

	if (!vm_map_lookup_entry(map, addr, &e))
		return -EFAULT;
	if (new_addr + len > VM_MAX_USER_ADDRESS)
		return -ENOMEM;
	/* What is left behind may merge with what follows: go by address. */
	for (uint64_t at = addr; at < end; ) {
		if (!vm_map_lookup_entry(map, at, &e))
			e = e->next;
		if (e == VM_MAP_END(map) || e->start >= end)
			break;
		uint64_t s = MAX(e->start, at);
		uint64_t t = MIN(vma_last(map, e)->end, end);
		uint64_t to = new_addr + (s - addr);
		at = t;
		if (dontunmap && !vm_may_expand(vm, t - s))
			return -ENOMEM;
		int err = vm_map_delete(map, to, to + (t - s));
		if (err == 0)
			err = move_range(vm, s, t, to, dontunmap);
		if (err != 0)
			return err;
	}
	return (long)new_addr;
}

long
vm_mremap(struct vmspace *vm, uint64_t addr, uint64_t old_len,
    uint64_t new_len, int flags, uint64_t new_addr)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *e;
	bool to = (flags & (MREMAP_FIXED | MREMAP_DONTUNMAP)) != 0;
	bool dontunmap = (flags & MREMAP_DONTUNMAP) != 0;

	/* Linux's check_mremap_params, against its own TASK_SIZE. */
	if ((flags & ~MREMAP_KNOWN) || (addr & PAGE_MASK))
		return -EINVAL;
	old_len = roundup2(old_len, PAGE_SIZE);	/* wraps to 0 as Linux's */
	new_len = roundup2(new_len, PAGE_SIZE);
	if (new_len == 0 || new_len > VM_LINUX_TASK_SIZE)
		return -EINVAL;
	if (to) {
		if (new_addr > VM_LINUX_TASK_SIZE - new_len ||
		    (new_addr & PAGE_MASK) || !(flags & MREMAP_MAYMOVE) ||
		    (dontunmap && old_len != new_len))
			return -EINVAL;
		if (addr + old_len > new_addr && new_addr + new_len > addr)
			return -EINVAL;		/* the ranges overlap */
		if (map->nentries + 2 >= VM_MAX_MAP_COUNT - 3)
			return -ENOMEM;
	}
	if ((flags & MREMAP_FIXED) && old_len == new_len)
		return remap_move(vm, addr, old_len, new_addr, dontunmap);

	/* Linux's check_prep_vma. */
	if (!vm_map_lookup_entry(map, addr, &e))
		return -EFAULT;
	if (new_len > old_len || to) {
		if (old_len == 0 && (e->eflags & MAP_ENTRY_COW))
			return -EINVAL;	/* duplicating a private mapping */
		/* A shrink may cross into other mappings; what stays may not. */
		uint64_t keep = MIN(old_len, new_len);
		if (keep > vma_last(map, e)->end - addr)
			return -EFAULT;
		if (new_len != old_len) {
			uint64_t pindex = vm_map_entry_pindex(e, addr);
			if (pindex + (new_len >> PAGE_SHIFT) < pindex)
				return -EINVAL;
			uint64_t delta = new_len > old_len ? new_len - old_len :
			    old_len - new_len;
			if (!vm_may_expand(vm, delta))
				return -ENOMEM;
		}
	}

	if (!to) {
		/* Linux's mremap_at: in place if it can be. */
		if (new_len == old_len)
			return (long)addr;
		if (new_len < old_len) {
			/* Linux's munmap of the tail, with its checks. */
			int err = vm_munmap(vm, addr + new_len, old_len - new_len);
			return err != 0 ? err : (long)addr;
		}
		struct vm_map_entry *last = vma_last(map, e);
		uint64_t grow_end = addr + new_len;
		if (old_len > 0 && last->end == addr + old_len &&
		    grow_end > last->end && grow_end <= VM_MAX_USER_ADDRESS &&
		    vm_map_range_free(map, last->end, grow_end)) {
			int err = extend(map, last, grow_end);
			return err != 0 ? err : (long)addr;
		}
		if (!(flags & MREMAP_MAYMOVE))
			return -ENOMEM;
		if ((new_addr = vm_mmap_place(vm, 0, new_len, 0)) == 0)
			return -ENOMEM;
		return move_mapping(vm, addr, old_len, new_len, new_addr, false);
	}

	/* Linux's mremap_to. */
	if (flags & MREMAP_FIXED) {
		if (new_addr + new_len > VM_MAX_USER_ADDRESS)
			return -ENOMEM;
		int err = vm_map_delete(map, new_addr, new_addr + new_len);
		if (err != 0)
			return err;
		if (!vm_map_lookup_entry(map, addr, &e))
			return -EFAULT;
	}
	if (new_len < old_len) {
		int err = vm_munmap(vm, addr + new_len, old_len - new_len);
		if (err != 0)
			return err;
		old_len = new_len;
	}
	if (dontunmap && !vm_may_expand(vm, old_len))
		return -ENOMEM;
	if (!(flags & MREMAP_FIXED) &&
	    (new_addr = vm_mmap_place(vm, new_addr, new_len, 0)) == 0)
		return -ENOMEM;
	return move_mapping(vm, addr, old_len, new_len, new_addr, dontunmap);
}
