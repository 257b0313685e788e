/*
 * Map entries: insertion, splitting, removal and merging (see vm_map.h;
 * the ordered set itself is vm_map_tree.c).
 *
 * Operations that split entries take the new entries from two spares the
 * map keeps filled beforehand, so a munmap or mprotect either fails with
 * nothing done or cannot fail halfway.
 */
#include "kern/thread.h"
#include "kern/kmem.h"
#include "vm/pmap.h"
#include "vm/vm.h"
#include "vm/vm_map_tree.h"
#include "vm/vm_object.h"

static struct kmem_cache *vm_map_entry_cache;

void
vm_map_init_cache(void)
{
	vm_map_entry_cache = kmem_cache_create("vm_map_entry",
	    sizeof(struct vm_map_entry), 0);
	if (vm_map_entry_cache == NULL)
		panic("vm_map_init_cache: no RAM");
}

void
vm_map_init(struct vm_map *map, struct pmap *pmap, uint64_t min,
    uint64_t max)
{
	*map = (struct vm_map){ .pmap = pmap };
	map->header.next = map->header.prev = &map->header;
	map->header.end = min;
	map->header.start = max;
}

void
vm_map_fini(struct vm_map *map)
{
	KASSERT(map->nentries == 0, "vm_map_fini: map not empty");
	for (size_t i = 0; i < nitems(map->spare); i++) {
		kmem_cache_free(vm_map_entry_cache, map->spare[i]);
		map->spare[i] = NULL;
	}
}

/* Fills the spare entries; -ENOMEM if RAM is short. */
static int
vm_map_reserve(struct vm_map *map)
{
	for (size_t i = 0; i < nitems(map->spare); i++) {
		if (map->spare[i] == NULL)
			map->spare[i] = kmem_cache_alloc(vm_map_entry_cache, 0);
		if (map->spare[i] == NULL)
			return -ENOMEM;
	}
	return 0;
}

static struct vm_map_entry *
vm_map_spare(struct vm_map *map)
{
	for (size_t i = 0; i < nitems(map->spare); i++) {
		struct vm_map_entry *e = map->spare[i];
		if (e != NULL) {
			map->spare[i] = NULL;
			return e;
		}
	}
	panic("vm_map_spare: no spare entry");
}

/* Splits e at addr (inside it); e keeps the part below addr. */
static void
vm_map_split(struct vm_map *map, struct vm_map_entry *e, uint64_t addr)
{
	struct vm_map_entry *n = vm_map_spare(map);

	KASSERT(addr > e->start && addr < e->end, "vm_map_split: outside");
	*n = *e;
	n->start = addr;
	n->offset = e->offset + (addr - e->start);
	if (n->object != NULL)
		vm_object_reference(n->object);
	e->end = addr;
	vm_map_tree_link(map, n);
}

/*
 * vm_map_clip, with splits allowed past VM_MAX_MAP_COUNT as long as the
 * caller's operation does not leave more entries than it found (munmap).
 */
static int
map_clip(struct vm_map *map, uint64_t start, uint64_t end, bool limited)
{
	struct vm_map_entry *e;

	bool at_start = vm_map_lookup_entry(map, start, &e) && e->start < start;
	bool at_end = vm_map_lookup_entry(map, end, &e) && e->start < end;

	if (!at_start && !at_end)
		return 0;
	/* As Linux's split_vma: none past vm.max_map_count. */
	if (limited && map->nentries + at_start + at_end > VM_MAX_MAP_COUNT)
		return -ENOMEM;
	if (vm_map_reserve(map) < 0)
		return -ENOMEM;
	if (at_start) {
		vm_map_lookup_entry(map, start, &e);
		vm_map_split(map, e, start);
	}
	if (at_end) {
		vm_map_lookup_entry(map, end, &e);
		vm_map_split(map, e, end);
	}
	map->timestamp++;
	return 0;
}

int
vm_map_clip(struct vm_map *map, uint64_t start, uint64_t end)
{
	return map_clip(map, start, end, true);
}

/* An anonymous object that nothing but its one entry can reach. */
static bool
extendable(const struct vm_object *obj)
{
	return obj->type == OBJT_ANON && obj->ref_count == 1 &&
	    obj->backing_object == NULL;
}

/* Whether adjacent entries a and b (a below) promise the same. */
static bool
mergeable(const struct vm_map_entry *a, const struct vm_map_entry *b)
{
	if (a->end != b->start || a->protection != b->protection ||
	    a->max_protection != b->max_protection || a->eflags != b->eflags ||
	    a->name != b->name)
		return false;
	if (a->object == b->object)
		return a->object == NULL ||
		    a->offset + (a->end - a->start) == b->offset;
	if (!(a->eflags & MAP_ENTRY_COW))
		return false;
	/*
	 * An entry with no object yet and a private anonymous object beside
	 * it: the object can cover both if it has no pages (left by a
	 * collapse, or before a fork) where the other entry would show them.
	 */
	if (b->object == NULL)
		return extendable(a->object) &&
		    vm_object_range_empty(a->object,
		    vm_map_entry_pindex(a, b->start),
		    vm_map_entry_pindex(a, b->end));
	uint64_t len = a->end - a->start;
	return a->object == NULL && extendable(b->object) && b->offset >= len &&
	    vm_object_range_empty(b->object, (b->offset - len) >> PAGE_SHIFT,
	    b->offset >> PAGE_SHIFT);
}

/* Makes a cover b too, and frees b. */
static void
vm_map_merge(struct vm_map *map, struct vm_map_entry *a,
    struct vm_map_entry *b)
{
	if (a->object == NULL && b->object != NULL) {
		a->object = b->object;
		a->offset = b->offset - (a->end - a->start);
	} else if (b->object != NULL) {
		vm_object_deallocate(b->object);	/* a holds it too */
	}
	vm_map_tree_unlink(map, b);
	a->end = b->end;
	vm_map_tree_resized(map, a);
	kmem_cache_free(vm_map_entry_cache, b);
	map->timestamp++;
}

void
vm_map_simplify(struct vm_map *map, uint64_t start, uint64_t end)
{
	struct vm_map_entry *e;

	if (vm_map_lookup_entry(map, start, &e) && e->prev != VM_MAP_END(map))
		e = e->prev;
	if (e == VM_MAP_END(map))
		e = e->next;
	while (e != VM_MAP_END(map) && e->next != VM_MAP_END(map) &&
	    e->start <= end) {
		if (mergeable(e, e->next))
			vm_map_merge(map, e, e->next);
		else
			e = e->next;
	}
}

int
vm_map_insert(struct vm_map *map, uint64_t start, uint64_t end,
    struct vm_object *obj, uint64_t off, int prot, int maxprot, int eflags)
{
	KASSERT(kernel_locked(), "vm_map_insert: big lock not held");
	KASSERT(start < end && start >= vm_map_min(map) &&
	    end <= vm_map_max(map) && vm_map_range_free(map, start, end),
	    "vm_map_insert: range not free");
	struct vm_map_entry *e = kmem_cache_alloc(vm_map_entry_cache, KM_ZERO);
	if (e == NULL)
		return -ENOMEM;
	e->start = start;
	e->end = end;
	e->object = obj;
	e->offset = off;
	e->protection = (uint8_t)prot;
	e->max_protection = (uint8_t)maxprot;
	e->eflags = (uint16_t)eflags;
	vm_map_tree_link(map, e);
	map->size += end - start;
	map->timestamp++;
	vm_map_simplify(map, start, end);
	return 0;
}

/* Takes e out of the map and drops what it held; its range is unmapped. */
static void
vm_map_entry_delete(struct vm_map *map, struct vm_map_entry *e)
{
	struct vm_object *obj = e->object;

	vm_map_tree_unlink(map, e);
	map->size -= e->end - e->start;
	if (obj != NULL) {
		/* Nothing else can reach these pages: give them back now. */
		if (obj->flags & OBJ_ONEMAPPING)
			vm_object_page_remove(obj, vm_map_entry_pindex(e, e->start),
			    vm_map_entry_pindex(e, e->end));
		vm_object_deallocate(obj);
	}
	kmem_cache_free(vm_map_entry_cache, e);
}

int
vm_map_delete(struct vm_map *map, uint64_t start, uint64_t end)
{
	struct vm_map_entry *e;

	KASSERT(kernel_locked(), "vm_map_delete: big lock not held");
	/* Only a hole punched inside one entry adds one (Linux's munmap). */
	struct vm_map_entry *e0;
	if (vm_map_lookup_entry(map, start, &e0) && e0->start < start &&
	    end < e0->end && map->nentries >= VM_MAX_MAP_COUNT)
		return -ENOMEM;
	if (map_clip(map, start, end, false) < 0)
		return -ENOMEM;
	pmap_remove(map->pmap, start, end);
	if (!vm_map_lookup_entry(map, start, &e))
		e = e->next;
	while (e != VM_MAP_END(map) && e->start < end) {
		struct vm_map_entry *next = e->next;
		vm_map_entry_delete(map, e);
		e = next;
	}
	map->timestamp++;
	return 0;
}

void
vm_map_entry_set_object(struct vm_map *map, struct vm_map_entry *e,
    struct vm_object *obj, uint64_t off)
{
	struct vm_object *old = e->object;

	e->object = obj;
	e->offset = off;
	if (old != NULL)
		vm_object_deallocate(old);
	map->timestamp++;
}

void
vm_map_entry_changed(struct vm_map *map, struct vm_map_entry *e)
{
	vm_map_tree_resized(map, e);
	map->timestamp++;
}

void
vm_map_entry_move(struct vm_map *map, struct vm_map_entry *e, uint64_t to)
{
	uint64_t len = e->end - e->start;

	KASSERT(vm_map_range_free(map, to, to + len),
	    "vm_map_entry_move: destination not free");
	vm_map_tree_unlink(map, e);
	e->start = to;
	e->end = to + len;
	vm_map_tree_link(map, e);
	map->timestamp++;
}

void
vm_map_entry_grow(struct vm_map *map, struct vm_map_entry *e, uint64_t end)
{
	KASSERT(end > e->end && vm_map_range_free(map, e->end, end),
	    "vm_map_entry_grow: range not free");
	map->size += end - e->end;
	e->end = end;
	vm_map_entry_changed(map, e);
}

struct vm_object *
vm_map_entry_file(const struct vm_map_entry *e)
{
	struct vm_object *obj = e->object;
	if (obj == NULL)
		return NULL;
	while (obj->backing_object != NULL)
		obj = obj->backing_object;
	return obj->type == OBJT_ANON ? NULL : obj;
}

int
vm_map_set_name(struct vm_map *map, uint64_t start, uint64_t end,
    const char *name)
{
	struct vm_map_entry *e;
	uint64_t at = start;

	if (!vm_map_lookup_entry(map, start, &e))
		return -EFAULT;
	for (; at < end; e = e->next) {
		if (e == VM_MAP_END(map) || e->start > at)
			return -EFAULT;
		at = e->end;
	}
	int err = vm_map_clip(map, start, end);
	if (err != 0)
		return err;
	vm_map_lookup_entry(map, start, &e);
	for (; e != VM_MAP_END(map) && e->start < end; e = e->next)
		e->name = name;
	map->timestamp++;
	vm_map_simplify(map, start, end);
	return 0;
}
