/*
 * Memory objects (see vm_object.h): reference counts, the page hash,
 * shadow chains and their collapse.
 *
 * Each object hashes its resident pages by index into buckets of page
 * frame numbers, chained through the pages' vm_page_ext.hnext, so adding
 * a page never needs memory: a small object uses four buckets inside
 * itself, and the table grows (by four) when chains average more than
 * two pages, if RAM allows.
 */
#include "kern/kmem.h"
#include "vm/pmap.h"
#include "vm/vm.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"
#include "vm/vm_pageout.h"

#define OBJ_INLINE_SHIFT	(64 - 2)	/* four inline buckets */
#define OBJ_MAX_BUCKETS		(1UL << 20)	/* a 4 MiB table */

static struct kmem_cache *vm_object_cache;
struct vm_objectq vm_file_objects = TAILQ_HEAD_INITIALIZER(vm_file_objects);

void
vm_object_init(void)
{
	vm_object_cache = kmem_cache_create("vm_object",
	    sizeof(struct vm_object), 0);
	if (vm_object_cache == NULL)
		panic("vm_object_init: no RAM");
	vm_page_reclaimer(vm_pageout_reclaim);
}

static uint64_t
nbuckets(const struct vm_object *obj)
{
	return 1UL << (64 - obj->hash_shift);
}

static uint32_t *
bucket(const struct vm_object *obj, uint64_t pindex)
{
	return &obj->buckets[(pindex * 0x9e3779b97f4a7c15UL) >> obj->hash_shift];
}

static uint32_t
page_frame(const struct vm_page *m)
{
	return (uint32_t)(m - vm_page_array());
}

static struct vm_page *
frame_page(uint32_t pfn)
{
	return vm_page_array() + pfn;
}

static struct vm_object *
vm_object_allocate(enum vm_object_type type, const struct vm_pager_ops *ops,
    void *handle)
{
	struct vm_object *obj = kmem_cache_alloc(vm_object_cache, KM_ZERO);
	if (obj == NULL)
		return NULL;
	obj->ref_count = 1;
	obj->type = (uint16_t)type;
	obj->hash_shift = OBJ_INLINE_SHIFT;
	obj->buckets = obj->inline_buckets;
	LIST_INIT(&obj->shadow_head);
	obj->pager = ops;
	obj->handle = handle;
	return obj;
}

struct vm_object *
vm_object_allocate_anon(void)
{
	return vm_object_allocate(OBJT_ANON, &anon_pager_ops, NULL);
}

struct vm_object *
vm_object_allocate_vnode(const struct vm_pager_ops *ops, void *handle)
{
	KASSERT(ops != NULL && ops->getpage != NULL,
	    "vm_object_allocate_vnode: a pager without getpage");
	struct vm_object *obj = vm_object_allocate(OBJT_VNODE, ops, handle);
	if (obj != NULL)
		TAILQ_INSERT_TAIL(&vm_file_objects, obj, object_list);
	return obj;
}

void
vm_object_reference(struct vm_object *obj)
{
	KASSERT(obj->ref_count > 0, "vm_object_reference: dead object");
	obj->ref_count++;
	if (obj->pager->reference != NULL)
		obj->pager->reference(obj);
}

struct vm_page *
vm_object_page_lookup(struct vm_object *obj, uint64_t pindex)
{
	for (uint32_t pfn = *bucket(obj, pindex); pfn != 0; ) {
		struct vm_page *m = frame_page(pfn);
		if (m->pindex == pindex)
			return m;
		pfn = VM_PAGE_EXT(m)->hnext;
	}
	return NULL;
}

/* Links m into its bucket of obj's current table. */
static void
hash_link(struct vm_object *obj, struct vm_page *m)
{
	uint32_t *b = bucket(obj, m->pindex);
	VM_PAGE_EXT(m)->hnext = *b;
	*b = page_frame(m);
}

/* A table of at least want buckets if RAM allows; else the old one stays. */
static void
hash_grow(struct vm_object *obj, uint64_t want)
{
	unsigned shift = obj->hash_shift;
	while ((1UL << (64 - shift)) < want && (1UL << (64 - shift)) < OBJ_MAX_BUCKETS)
		shift -= 2;
	if (shift == obj->hash_shift)
		return;
	uint32_t *nb = kmalloc((1UL << (64 - shift)) * sizeof(uint32_t), KM_ZERO);
	if (nb == NULL)
		return;
	uint32_t *ob = obj->buckets;
	uint64_t on = nbuckets(obj);
	obj->buckets = nb;
	obj->hash_shift = shift;
	for (uint64_t i = 0; i < on; i++) {
		for (uint32_t pfn = ob[i]; pfn != 0; ) {
			struct vm_page *m = frame_page(pfn);
			pfn = VM_PAGE_EXT(m)->hnext;
			hash_link(obj, m);
		}
	}
	if (ob != obj->inline_buckets)
		kfree(ob);
}

void
vm_object_page_insert(struct vm_object *obj, struct vm_page *m,
    uint64_t pindex)
{
	KASSERT(m->object == NULL, "vm_object_page_insert: page has an owner");
	KASSERT(vm_object_page_lookup(obj, pindex) == NULL,
	    "vm_object_page_insert: index taken");
	m->object = obj;
	m->pindex = pindex;
	hash_link(obj, m);
	obj->resident_page_count++;
	if (obj->resident_page_count > 2 * nbuckets(obj)) {
		/* The table's allocation may reclaim: not the page inserted. */
		m->hold_count++;
		hash_grow(obj, obj->resident_page_count);
		m->hold_count--;
	}
}

/* Takes m out of its object, which keeps no trace of it. */
static void
page_unlink(struct vm_page *m)
{
	struct vm_object *obj = m->object;
	uint32_t *pp = bucket(obj, m->pindex), pfn = page_frame(m);

	while (*pp != pfn) {
		KASSERT(*pp != 0, "page_unlink: page not in its object");
		pp = &VM_PAGE_EXT(frame_page(*pp))->hnext;
	}
	*pp = VM_PAGE_EXT(m)->hnext;
	VM_PAGE_EXT(m)->hnext = 0;
	m->object = NULL;
	obj->resident_page_count--;
}

struct vm_page *
vm_object_page_alloc(struct vm_object *obj, uint64_t pindex, bool zero)
{
	struct vm_page *m = vm_page_alloc(0, zero ? VM_ALLOC_ZERO : 0);
	if (m != NULL)
		vm_object_page_insert(obj, m, pindex);
	return m;
}

/* Takes m out of its object and gives it back to the page allocator. */
static void
page_free(struct vm_page *m)
{
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	if (x->pv != NULL)
		panic("vm_object: freeing page %#lx (object %p, index %#lx) "
		    "while it is mapped", VM_PAGE_TO_PHYS(m), (void *)m->object,
		    m->pindex);
	page_unlink(m);
	x->flags = 0;
	vm_page_free(m, 0);
}

void
vm_object_page_free(struct vm_page *m)
{
	page_free(m);
}

void
vm_object_page_dirty(struct vm_page *m)
{
	VM_PAGE_EXT(m)->flags |= PGX_DIRTY;
	m->object->flags |= OBJ_MIGHTBEDIRTY;
}

/*
 * Calls fn(obj, m, arg) for every resident page of obj with an index in
 * [start, end); fn may take m out of obj.  Visits whichever is fewer, the
 * indices of the range or the pages of the object.
 */
static void
foreach_page(struct vm_object *obj, uint64_t start, uint64_t end,
    void (*fn)(struct vm_object *, struct vm_page *, void *), void *arg)
{
	if (end - start <= obj->resident_page_count) {
		for (uint64_t i = start; i < end; i++) {
			struct vm_page *m = vm_object_page_lookup(obj, i);
			if (m != NULL)
				fn(obj, m, arg);
		}
		return;
	}
	for (uint64_t b = 0; b < nbuckets(obj); b++) {
		for (uint32_t pfn = obj->buckets[b]; pfn != 0; ) {
			struct vm_page *m = frame_page(pfn);
			pfn = VM_PAGE_EXT(m)->hnext;
			if (m->pindex >= start && m->pindex < end)
				fn(obj, m, arg);
		}
	}
}

void
vm_object_foreach(struct vm_object *obj, uint64_t start, uint64_t end,
    void (*fn)(struct vm_object *, struct vm_page *, void *), void *arg)
{
	if (obj->resident_page_count != 0 && start < end)
		foreach_page(obj, start, end, fn, arg);
}

static void
remove_one(struct vm_object *obj, struct vm_page *m, void *arg)
{
	(void)obj;
	(void)arg;
	page_free(m);
}

void
vm_object_page_remove(struct vm_object *obj, uint64_t start, uint64_t end)
{
	if (obj->resident_page_count != 0 && start < end)
		foreach_page(obj, start, end, remove_one, NULL);
}

static void
unmap_one(struct vm_object *obj, struct vm_page *m, void *arg)
{
	(void)obj;
	(void)arg;
	pmap_page_protect(m, VM_PROT_NONE);
	page_free(m);
}

void
vm_object_shadows_truncate(struct vm_object *obj, uint64_t start)
{
	struct vm_object *s;

	LIST_FOREACH(s, &obj->shadow_head, shadow_list) {
		vm_object_foreach(s, start, UINT64_MAX, unmap_one, NULL);
		vm_object_shadows_truncate(s, start);
	}
}

static void
found_one(struct vm_object *obj, struct vm_page *m, void *arg)
{
	(void)obj;
	(void)m;
	*(bool *)arg = false;
}

bool
vm_object_range_empty(struct vm_object *obj, uint64_t start, uint64_t end)
{
	bool empty = true;
	if (obj->resident_page_count != 0 && start < end)
		foreach_page(obj, start, end, found_one, &empty);
	return empty;
}

int
vm_object_shadow(struct vm_object **objp)
{
	struct vm_object *obj = *objp;

	if (obj->type == OBJT_ANON && obj->ref_count == 1) {
		/* Ours alone: the caller's one entry maps each index once. */
		obj->flags |= OBJ_ONEMAPPING;
		return 0;
	}
	struct vm_object *s = vm_object_allocate_anon();
	if (s == NULL)
		return -ENOMEM;
	s->flags |= OBJ_ONEMAPPING;
	s->backing_object = obj;
	LIST_INSERT_HEAD(&obj->shadow_head, s, shadow_list);
	obj->shadow_count++;
	obj->flags &= ~OBJ_ONEMAPPING;
	*objp = s;
	return 0;
}

/* Moves backing page m into shadow s, or frees it if s has its own. */
static void
collapse_one(struct vm_object *backing, struct vm_page *m, void *arg)
{
	struct vm_object *s = arg;
	(void)backing;
	if (vm_object_page_lookup(s, m->pindex) != NULL) {
		/*
		 * Hidden by s's copy, so no mapping can show it: whoever
		 * mapped it through s was given the copy when it was made.
		 */
		page_free(m);
		return;
	}
	uint64_t pindex = m->pindex;
	page_unlink(m);
	vm_object_page_insert(s, m, pindex);
}

static void
vm_object_free(struct vm_object *obj)
{
	if (obj->type == OBJT_VNODE)
		TAILQ_REMOVE(&vm_file_objects, obj, object_list);
	if (obj->buckets != obj->inline_buckets)
		kfree(obj->buckets);
	kmem_cache_free(vm_object_cache, obj);
}

/*
 * Merges into s every backing object that only s references: its pages
 * that s lacks move to s (mappings of them stay valid, the pages do not
 * change), the rest are freed, and s takes over its backing object.
 */
static void
vm_object_collapse(struct vm_object *s)
{
	struct vm_object *b;

	while ((b = s->backing_object) != NULL && b->type == OBJT_ANON &&
	    b->ref_count == 1) {
		KASSERT(b->shadow_count == 1 && LIST_FIRST(&b->shadow_head) == s,
		    "vm_object_collapse: lone reference is not the shadow");
		hash_grow(s, s->resident_page_count + b->resident_page_count);
		foreach_page(b, 0, UINT64_MAX, collapse_one, s);
		LIST_REMOVE(s, shadow_list);
		s->backing_object = b->backing_object;
		if (s->backing_object != NULL) {
			/* b's place in its backing object's shadows, and b's reference. */
			LIST_REMOVE(b, shadow_list);
			LIST_INSERT_HEAD(&s->backing_object->shadow_head, s,
			    shadow_list);
		}
		vm_object_free(b);
	}
}

void
vm_object_deallocate(struct vm_object *obj)
{
	while (obj != NULL) {
		KASSERT(obj->ref_count > 0, "vm_object_deallocate: dead object");
		if (obj->pager->release != NULL && obj->ref_count > 1) {
			/* Not the owner's: the pager drops what it holds. */
			obj->ref_count--;
			obj->pager->release(obj);
			return;
		}
		if (--obj->ref_count > 0) {
			if (obj->ref_count == 1 && obj->shadow_count == 1)
				vm_object_collapse(LIST_FIRST(&obj->shadow_head));
			return;
		}
		KASSERT(obj->shadow_count == 0,
		    "vm_object_deallocate: unreferenced object has shadows");
		if (obj->pager->dealloc != NULL)
			obj->pager->dealloc(obj);
		vm_object_page_remove(obj, 0, UINT64_MAX);
		struct vm_object *b = obj->backing_object;
		if (b != NULL) {
			LIST_REMOVE(obj, shadow_list);
			b->shadow_count--;
		}
		vm_object_free(obj);
		obj = b;	/* drop the reference obj held */
	}
}
