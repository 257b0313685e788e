/*
 * Page faults of user processes (see vm_fault in vm.h): the kernel's half
 * of the article's fault handling.  The host layer serves every fault it
 * can from the vpagetable; the rest come here, and we either fill the
 * VPTE (demand zero, copy-on-write, a file's page) or refuse.
 *
 * The page for an address is found by walking the entry's object chain:
 * the first object with the page (or whose pager provides it) wins; if
 * none has it, a zero page goes into the first object.  A page found
 * behind the first object is mapped read-only, and a write copies it into
 * the first object: that is copy-on-write.  An entry still sharing its
 * object with another map (MAP_ENTRY_NEEDS_COPY) gets a shadow object of
 * its own before its first write.
 */
#include "vm/vm.h"
#include "vm/vm_object.h"

#define VM_FAULT_AHEAD	8	/* pages, as the host layer's fault-around */
#define VM_FAULT_AHEAD_MAX 64	/* pages, a group of the host's account */
/*
 * Pages a read fault puts in the pmap around it: two of the host layer's
 * fault-around groups, so that a process reading through memory (a mapped
 * file) comes here once per 16 pages, the host serving the second group
 * from the pmap without the kernel.
 */
#define VM_PREFAULT	16

/* Whether an entry with protection prot allows an access of type. */
static bool
prot_allows(int prot, int type)
{
	/* As on x86 Linux: any access right implies read. */
	if (type & VM_PROT_WRITE)
		return (prot & VM_PROT_WRITE) != 0;
	if (type & VM_PROT_EXECUTE)
		return (prot & VM_PROT_EXECUTE) != 0;
	return (prot & VM_PROT_ALL) != 0;
}

/* Whether vpte already allows an access of type. */
static bool
vpte_allows(vpte_t vpte, int type)
{
	if (!(vpte & VPTE_V))
		return false;
	if ((type & VM_PROT_WRITE) && !(vpte & VPTE_RW))
		return false;
	return !(type & VM_PROT_EXECUTE) || !(vpte & VPTE_NX);
}

/*
 * Grows the MAP_GROWSDOWN entry just above va (not mapped) down to va's
 * page, as Linux does: within the stack limit and RLIMIT_AS, and keeping
 * a guard gap above an accessible mapping below.  Returns 0, -EFAULT or
 * -ENOMEM.
 */
static int
vm_growstack(struct vmspace *vm, uint64_t va)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *below, *stack;

	vm_map_lookup_entry(map, va, &below);
	stack = below->next;
	if (stack == VM_MAP_END(map) || !(stack->eflags & MAP_ENTRY_GROWSDOWN) ||
	    va < vm_map_min(map) || stack->end - va > vm->vm_stack_max)
		return -EFAULT;
	if (below != VM_MAP_END(map) && va - below->end < VM_STACK_GUARD &&
	    !(below->eflags & MAP_ENTRY_GROWSDOWN) &&
	    (below->protection & VM_PROT_ALL) != 0)
		return -EFAULT;
	if (!vm_may_expand(vm, stack->start - va))
		return -EFAULT;		/* RLIMIT_AS: SIGSEGV, as Linux */
	/* No object yet: it merges with the stack unless that has pages there. */
	return vm_map_insert(map, va, stack->start, NULL, 0, stack->protection,
	    stack->max_protection, stack->eflags & ~MAP_ENTRY_NEEDS_COPY);
}

/*
 * Finds page pindex in the chain from obj down: sets *mp to it (NULL if
 * no object has it) and returns 0, or a pager's error.  A pager that may
 * sleep (anything but anonymous memory) holds a reference to its object
 * meanwhile; -EAGAIN then means the map changed, so start over.
 */
static int
chain_lookup(struct vm_map *map, struct vm_object *obj, uint64_t pindex,
    struct vm_page **mp)
{
	for (;;) {
		struct vm_page *m = vm_object_page_lookup(obj, pindex);
		if (m != NULL) {
			*mp = m;
			return 0;
		}
		int err;
		if (obj->type == OBJT_ANON) {
			/* Never sleeps; and a reference could collapse obj. */
			err = obj->pager->getpage(obj, pindex, mp);
		} else {
			uint32_t ts = map->timestamp;
			vm_object_reference(obj);
			err = obj->pager->getpage(obj, pindex, mp);
			vm_object_deallocate(obj);
			if (map->timestamp != ts)
				return -EAGAIN;
		}
		if (err != -ENOENT)
			return err;
		if (obj->backing_object == NULL) {
			*mp = NULL;
			return 0;
		}
		obj = obj->backing_object;
	}
}

/*
 * After a read fault at va: the resident pages around it in the same
 * entry go into the pmap too (read-only unless they are the entry's own),
 * and the host layer, mapping va, maps them with it.  A child after fork,
 * whose pmap starts empty, then does not fault once per page of text and
 * data it reads.  Only pages already in memory (a file's too): nothing is
 * allocated or read, nothing sleeps.
 */
static void
vm_fault_prefault(struct vmspace *vm, struct vm_map_entry *e, uint64_t va,
    int prot)
{
	uint64_t first = rounddown2(va, VM_PREFAULT * PAGE_SIZE);
	for (uint64_t a = first; a < first + VM_PREFAULT * PAGE_SIZE;
	    a += PAGE_SIZE) {
		if (a == va || a < e->start || a >= e->end)
			continue;
		vpte_t *pte = pmap_pte(&vm->vm_pmap, a);
		if (pte != NULL && (__atomic_load_n(pte, __ATOMIC_ACQUIRE) & VPTE_V))
			continue;
		uint64_t pindex = vm_map_entry_pindex(e, a);
		struct vm_page *m = NULL;
		for (struct vm_object *obj = e->object; obj != NULL && m == NULL;
		    obj = obj->backing_object)
			m = vm_object_page_lookup(obj, pindex);
		if (m == NULL)
			continue;
		/* A file's page is writable only once a write dirtied it. */
		int p = m->object == e->object && m->object->type != OBJT_VNODE ?
		    prot : prot & ~VM_PROT_WRITE;
		/* Its page-table page may take the reclaimer to it. */
		m->hold_count++;
		int err = pmap_enter(&vm->vm_pmap, a, m, p, VM_PROT_READ);
		m->hold_count--;
		if (err != 0)
			return;
	}
}

/*
 * A write fault that filled the page at va (zero-filled it, or copied it
 * on write) right after the previous one: a process writing through
 * memory in order, as memset or a growing stack or heap does, or a child
 * after fork writing through its copy of the parent's data.  The
 * following pages of the entry, to the end of an aligned window, that
 * its own object does not have yet are filled and mapped writable too,
 * as that write would fill them: a copy of the page further down the
 * chain, else zeros; and the host layer maps them with va.  The window
 * starts at VM_FAULT_AHEAD pages and doubles, up to VM_FAULT_AHEAD_MAX,
 * each time the writer reaches its end, as readahead grows: each fault
 * costs a trap through the host and a resume through its mapper, which
 * a long run in order (first touch of a large buffer) pays once per 64
 * pages.  Memory spent ahead stays below one window, only on a
 * sequential pattern.  Only anonymous chains: nothing is read, nothing
 * sleeps.
 */
static void
vm_fault_fill_ahead(struct vmspace *vm, struct vm_map_entry *e, uint64_t va,
    int prot)
{
	uint64_t window = MAX(vm->vm_fill_window, VM_FAULT_AHEAD) * PAGE_SIZE;
	uint64_t end = MIN(e->end, rounddown2(va, window) + window);
	uint64_t a;
	for (a = va + PAGE_SIZE; a < end; a += PAGE_SIZE) {
		uint64_t pindex = vm_map_entry_pindex(e, a);
		struct vm_page *src = NULL;
		for (struct vm_object *obj = e->object; obj != NULL &&
		    src == NULL; obj = obj->backing_object) {
			if (obj->type != OBJT_ANON)
				goto out;
			src = vm_object_page_lookup(obj, pindex);
			if (src != NULL && obj == e->object)
				goto out;
		}
		struct vm_page *m;
		if (src == NULL) {
			m = vm_object_page_alloc(e->object, pindex, true);
		} else {
			/* The allocation may reclaim: not the page copied. */
			src->hold_count++;
			m = vm_object_page_alloc(e->object, pindex, false);
			src->hold_count--;
			if (m != NULL)
				memcpy(VM_PAGE_TO_DMAP(m), VM_PAGE_TO_DMAP(src),
				    PAGE_SIZE);
		}
		if (m == NULL)
			goto out;
		/* On failure the page stays in the object: no leak. */
		if (pmap_enter(&vm->vm_pmap, a, m, prot, VM_PROT_WRITE) != 0)
			goto out;
		vm->vm_zfod_next = a + PAGE_SIZE;
	}
	/* Filled to its end: the writer's next window is twice as large. */
	vm->vm_fill_window = (uint32_t)MIN(window / PAGE_SIZE * 2,
	    VM_FAULT_AHEAD_MAX);
out:
	/* The host layer maps the fault's own group; the rest goes now. */
	if (window > VM_FAULT_AHEAD * PAGE_SIZE && a > va + PAGE_SIZE)
		pmap_prefault(&vm->vm_pmap, va + PAGE_SIZE, a);
}

int
vm_fault(struct vmspace *vm, uint64_t va, int fault_type)
{
	struct vm_map *map = &vm->vm_map;
	struct vm_map_entry *e;
	struct vm_page *m;
	int err;
	/*
	 * VM_FAULT_COPY: the kernel is about to write the page of a private
	 * mapping the process itself may not write (vm_text_page): it gets
	 * its own copy as a write would give it, mapped with the entry's
	 * protection, never the file's page.
	 */
	bool copy = (fault_type & VM_FAULT_COPY) != 0;

	fault_type &= ~VM_FAULT_COPY;
	if (va >= VM_MAX_USER_ADDRESS)
		return -EFAULT;
	va = rounddown2(va, PAGE_SIZE);
	vmcounts.v_faults++;
again:
	if (!vm_map_lookup_entry(map, va, &e)) {
		if ((err = vm_growstack(vm, va)) != 0)
			return err;
		if (!vm_map_lookup_entry(map, va, &e))
			panic("vm_fault: %#lx not mapped after growing", va);
	}
	if (copy && (!(e->eflags & MAP_ENTRY_COW) || !prot_allows(e->protection,
	    VM_PROT_READ)))
		return -EACCES;
	if (!copy && !prot_allows(e->protection, fault_type))
		return -EACCES;
	vpte_t *pte = pmap_pte(&vm->vm_pmap, va);
	if (!copy && pte != NULL && vpte_allows(__atomic_load_n(pte,
	    __ATOMIC_ACQUIRE), fault_type))
		return 0;	/* the host lost its mapping, or another CPU won */

	/* What the VPTE grants: on x86 a writable page is readable too. */
	int prot = e->protection;
	if (prot & VM_PROT_WRITE)
		prot |= VM_PROT_READ;
	const int entry_prot = prot;
	if (e->object == NULL) {
		/* Anonymous, first touch: its object, indexed by address. */
		struct vm_object *obj = vm_object_allocate_anon();
		if (obj == NULL)
			return -ENOMEM;
		obj->flags |= OBJ_ONEMAPPING;
		vm_map_entry_set_object(map, e, obj, e->start);
	}
	if (e->eflags & MAP_ENTRY_NEEDS_COPY) {
		if (fault_type & VM_PROT_WRITE) {
			if ((err = vm_object_shadow(&e->object)) != 0)
				return err;
			e->eflags &= ~MAP_ENTRY_NEEDS_COPY;
			map->timestamp++;
		} else {
			prot &= ~VM_PROT_WRITE;	/* until it has its own copy */
		}
	}

	struct vm_object *first = e->object;
	uint64_t pindex = vm_map_entry_pindex(e, va);
	err = chain_lookup(map, first, pindex, &m);
	if (err == -EAGAIN)
		goto again;
	if (err != 0)
		return err == -ENOMEM ? -ENOMEM : -EIO;
	bool fill_ahead = false;
	if (m == NULL) {
		m = vm_object_page_alloc(first, pindex, true);
		if (m == NULL)
			return -ENOMEM;
		vm_mmap_touched(vm, va);
		if (fault_type & VM_PROT_WRITE) {
			fill_ahead = va == vm->vm_zfod_next;
			vm->vm_zfod_next = va + PAGE_SIZE;
			if (!fill_ahead)
				vm->vm_fill_window = VM_FAULT_AHEAD;
		}
	} else if (m->object != first) {
		if (fault_type & VM_PROT_WRITE) {
			/* The allocation may reclaim: not the page copied. */
			m->hold_count++;
			struct vm_page *copy = vm_object_page_alloc(first, pindex,
			    false);
			m->hold_count--;
			if (copy == NULL)
				return -ENOMEM;
			memcpy(VM_PAGE_TO_DMAP(copy), VM_PAGE_TO_DMAP(m), PAGE_SIZE);
			m = copy;
			fill_ahead = va == vm->vm_zfod_next;
			vm->vm_zfod_next = va + PAGE_SIZE;
			if (!fill_ahead)
				vm->vm_fill_window = VM_FAULT_AHEAD;
		} else {
			prot &= ~VM_PROT_WRITE;	/* a write will copy it */
		}
	}
	if (m->object->type == OBJT_VNODE && (prot & VM_PROT_WRITE)) {
		/*
		 * A shared mapping of a file's page: writable only from the
		 * write that dirties it, and write-protected again when it is
		 * cleaned, so the kernel sees every page that changes.
		 */
		if (fault_type & VM_PROT_WRITE)
			vm_object_page_dirty(m);
		else
			prot &= ~VM_PROT_WRITE;
	}
	/*
	 * A file's page no mapping shows yet is the reclaimer's to take if
	 * pmap_enter needs a page of its own: hold it meanwhile.
	 */
	m->hold_count++;
	err = pmap_enter(&vm->vm_pmap, va, m, prot, fault_type);
	m->hold_count--;
	if (err == 0 && fill_ahead)
		vm_fault_fill_ahead(vm, e, va, prot);
	else if (err == 0 && !(fault_type & VM_PROT_WRITE))
		vm_fault_prefault(vm, e, va, (e->eflags & MAP_ENTRY_NEEDS_COPY) ?
		    entry_prot & ~VM_PROT_WRITE : entry_prot);
	return err;
}
