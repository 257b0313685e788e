/*
 * The object allocator (see kmem.h).
 *
 * A slab is a block of 2^kc_order pages, each flagged PG_KMEM with
 * slab.cache pointing at its cache; its head page keeps the offset of the
 * first free object and the count of objects in use.  A free object holds
 * the offset of the next one and a magic number, which makes a double
 * free cheap to suspect (and a list walk confirms it).  A slab is on its
 * cache's partial list while it has both free and used objects; a full
 * slab is on no list; an empty one is the spare or is freed.
 */
#include <stdio.h>

#include "kern/kmem.h"

#define KMEM_NOFREE	UINT32_MAX	/* end of a slab's free list */
#define KMEM_FREE_MAGIC	0x6b6d656d66726565UL	/* "kmemfree" */

/* The start of every free object. */
struct kmem_free {
	uint32_t next;		/* offset of the next free object in the slab */
	uint32_t pad;
	uint64_t magic;		/* KMEM_FREE_MAGIC */
};

struct kmem_cache_list kmem_caches = TAILQ_HEAD_INITIALIZER(kmem_caches);
struct kmemstats kmemstats;

static struct kmem_cache kmem_cache_cache;	/* the cache of caches */
static struct kmem_cache *kmalloc_class[8];	/* 16, 32, ..., 2048 bytes */
static bool kmem_ready;

static void
kmem_cache_setup(struct kmem_cache *kc, const char *name, size_t size,
    size_t align)
{
	if (name == NULL || size == 0 || size > KMEM_MAXSIZE ||
	    (align & (align - 1)) != 0 || align > PAGE_SIZE)
		panic("kmem_cache_create: \"%s\": size %zu, align %zu",
		    name != NULL ? name : "(null)", size, align);
	if (align < 8)
		align = 8;
	size = roundup2(MAX(size, (size_t)KMEM_MINSIZE), align);

	/* The smallest slab that wastes at most an eighth of itself. */
	uint32_t order = 0;
	while (order < KMEM_SLAB_MAXORDER &&
	    ((PAGE_SIZE << order) % size) > (PAGE_SIZE << order) / 8)
		order++;

	memset(kc, 0, sizeof(*kc));
	snprintf(kc->kc_name, sizeof(kc->kc_name), "%s", name);
	kc->kc_size = (uint32_t)size;
	kc->kc_align = (uint32_t)align;
	kc->kc_order = order;
	kc->kc_perslab = (uint32_t)((PAGE_SIZE << order) / size);
	TAILQ_INIT(&kc->kc_partial);
}

void
kmem_init(void)
{
	if (kmem_ready)
		panic("kmem_init: called twice");
	KASSERT(vmstats.v_page_count != 0, "kmem_init before vm_page_init");
	kmem_cache_setup(&kmem_cache_cache, "kmem_cache",
	    sizeof(struct kmem_cache), _Alignof(struct kmem_cache));
	TAILQ_INSERT_TAIL(&kmem_caches, &kmem_cache_cache, kc_link);
	kmem_ready = true;

	for (size_t i = 0; i < nitems(kmalloc_class); i++) {
		char name[KMEM_NAMELEN];
		size_t size = (size_t)KMEM_MINSIZE << i;
		snprintf(name, sizeof(name), "kmalloc-%zu", size);
		/* Aligned to their size: kmalloc's alignment promise. */
		kmalloc_class[i] = kmem_cache_create(name, size, size);
		if (kmalloc_class[i] == NULL)
			panic("kmem_init: out of memory");
		kmalloc_class[i]->kc_flags |= KC_KMALLOC;
	}
	_Static_assert(KMEM_MINSIZE << (nitems(kmalloc_class) - 1) ==
	    KMALLOC_MAX_SLAB, "kmalloc classes");
}

struct kmem_cache *
kmem_cache_create(const char *name, size_t size, size_t align)
{
	KASSERT(kmem_ready, "kmem_cache_create before kmem_init");
	struct kmem_cache tmp;
	kmem_cache_setup(&tmp, name, size, align);	/* panics if bad */
	struct kmem_cache *kc = kmem_cache_alloc(&kmem_cache_cache, 0);
	if (kc == NULL)
		return NULL;
	*kc = tmp;
	TAILQ_INIT(&kc->kc_partial);	/* the copy's head pointed into tmp */
	TAILQ_INSERT_TAIL(&kmem_caches, kc, kc_link);
	return kc;
}

/* A new slab for kc, all free, on no list; NULL if out of RAM. */
static struct vm_page *
kmem_slab_alloc(struct kmem_cache *kc)
{
	struct vm_page *m = vm_page_alloc((int)kc->kc_order, VM_ALLOC_NORMAL);
	if (m == NULL)
		return NULL;
	uint32_t npages = 1U << kc->kc_order;
	for (uint32_t i = 0; i < npages; i++) {
		m[i].flags |= PG_KMEM;
		m[i].slab.cache = kc;
	}
	uint8_t *base = VM_PAGE_TO_DMAP(m);
	for (uint32_t k = 0; k < kc->kc_perslab; k++) {
		struct kmem_free *f = (struct kmem_free *)(base + k * kc->kc_size);
		f->next = k + 1 < kc->kc_perslab ? (k + 1) * kc->kc_size :
		    KMEM_NOFREE;
		f->magic = KMEM_FREE_MAGIC;
	}
	m->slab.free = 0;
	m->slab.inuse = 0;
	kc->kc_slabs++;
	vmstats.v_wire_count += npages;
	return m;
}

/* Returns an empty slab, on no list, to the page allocator. */
static void
kmem_slab_free(struct kmem_cache *kc, struct vm_page *m)
{
	uint32_t npages = 1U << kc->kc_order;
	KASSERT(m->slab.inuse == 0, "kmem_slab_free: slab in use");
	for (uint32_t i = 0; i < npages; i++) {
		m[i].flags &= ~PG_KMEM;
		m[i].slab.cache = NULL;
		m[i].slab.free = m[i].slab.inuse = 0;
	}
	vm_page_free(m, (int)kc->kc_order);
	kc->kc_slabs--;
	vmstats.v_wire_count -= npages;
}

void *
kmem_cache_alloc(struct kmem_cache *kc, int flags)
{
	KASSERT(kmem_ready, "kmem_cache_alloc before kmem_init");
	if ((flags & ~KM_ZERO) != 0)
		panic("kmem_cache_alloc: %s: flags %#x", kc->kc_name, flags);
	struct vm_page *m = TAILQ_FIRST(&kc->kc_partial);
	if (m == NULL) {
		if ((m = kc->kc_spare) != NULL)
			kc->kc_spare = NULL;
		else if ((m = kmem_slab_alloc(kc)) == NULL) {
			kc->kc_fails++;
			return NULL;
		}
		TAILQ_INSERT_HEAD(&kc->kc_partial, m, pageq);
	}

	uint8_t *base = VM_PAGE_TO_DMAP(m);
	struct kmem_free *f = (struct kmem_free *)(base + m->slab.free);
	uint32_t next = f->next;
	/* A write after free shows here first. */
	if (next != KMEM_NOFREE && (next % kc->kc_size != 0 ||
	    next / kc->kc_size >= kc->kc_perslab))
		panic("kmem_cache_alloc: %s: free list of slab %#lx corrupt",
		    kc->kc_name, VM_PAGE_TO_PHYS(m));
	f->magic = 0;
	m->slab.free = next;
	m->slab.inuse++;
	if (next == KMEM_NOFREE)
		TAILQ_REMOVE(&kc->kc_partial, m, pageq);	/* now full */
	kc->kc_inuse++;
	kc->kc_allocs++;
	if (flags & KM_ZERO)
		memset(f, 0, kc->kc_size);
	return f;
}

/* True if the object at offset off is on slab m's free list. */
static bool
kmem_slab_has_free(struct vm_page *m, uint32_t off)
{
	const uint8_t *base = VM_PAGE_TO_DMAP(m);
	uint32_t n = 0;
	for (uint32_t o = m->slab.free; o != KMEM_NOFREE && n <=
	    m->slab.cache->kc_perslab; n++) {
		if (o == off)
			return true;
		o = ((const struct kmem_free *)(base + o))->next;
	}
	return false;
}

void
kmem_cache_free(struct kmem_cache *kc, void *p)
{
	if (p == NULL)
		return;
	struct vm_page *pg = DMAP_TO_VM_PAGE(p);
	if (!(pg->flags & PG_KMEM) || pg->slab.cache != kc)
		panic("kmem_cache_free: %p is not from cache %s", p,
		    kc->kc_name);
	/* Slabs are blocks aligned to their size: the head is below. */
	uint64_t phys = VM_PAGE_TO_PHYS(pg);
	struct vm_page *m = PHYS_TO_VM_PAGE(rounddown2(phys,
	    PAGE_SIZE << kc->kc_order));
	uint8_t *base = VM_PAGE_TO_DMAP(m);
	uint32_t off = (uint32_t)((uint8_t *)p - base);
	if (off % kc->kc_size != 0 || off / kc->kc_size >= kc->kc_perslab)
		panic("kmem_cache_free: %p is inside an object of %s", p,
		    kc->kc_name);
	struct kmem_free *f = p;
	if (m->slab.inuse == 0 || (f->magic == KMEM_FREE_MAGIC &&
	    kmem_slab_has_free(m, off)))
		panic("kmem_cache_free: %p of %s freed twice", p, kc->kc_name);

	bool was_full = m->slab.free == KMEM_NOFREE;
	f->next = m->slab.free;
	f->magic = KMEM_FREE_MAGIC;
	m->slab.free = off;
	m->slab.inuse--;
	kc->kc_inuse--;
	if (m->slab.inuse == 0) {
		if (!was_full)
			TAILQ_REMOVE(&kc->kc_partial, m, pageq);
		if (kc->kc_spare == NULL)
			kc->kc_spare = m;
		else
			kmem_slab_free(kc, m);
	} else if (was_full)
		TAILQ_INSERT_HEAD(&kc->kc_partial, m, pageq);
}

void
kmem_cache_destroy(struct kmem_cache *kc)
{
	if (kc == &kmem_cache_cache || (kc->kc_flags & KC_KMALLOC))
		panic("kmem_cache_destroy: %s is the kernel's", kc->kc_name);
	if (kc->kc_inuse != 0)
		panic("kmem_cache_destroy: %s has %lu objects in use",
		    kc->kc_name, kc->kc_inuse);
	KASSERT(TAILQ_EMPTY(&kc->kc_partial), "kmem_cache_destroy: partial");
	if (kc->kc_spare != NULL)
		kmem_slab_free(kc, kc->kc_spare);
	TAILQ_REMOVE(&kmem_caches, kc, kc_link);
	kmem_cache_free(&kmem_cache_cache, kc);
}

void
kmem_reclaim(void)
{
	struct kmem_cache *kc;
	TAILQ_FOREACH(kc, &kmem_caches, kc_link) {
		if (kc->kc_spare != NULL) {
			struct vm_page *m = kc->kc_spare;
			kc->kc_spare = NULL;
			kmem_slab_free(kc, m);
		}
	}
}

void *
kmalloc(size_t size, int flags)
{
	KASSERT(kmem_ready, "kmalloc before kmem_init");
	if ((flags & ~KM_ZERO) != 0)
		panic("kmalloc: flags %#x", flags);
	if (size <= KMALLOC_MAX_SLAB) {
		size = MAX(size, (size_t)KMEM_MINSIZE);
		/* ceil(log2(size)) - log2(KMEM_MINSIZE) */
		int i = 64 - __builtin_clzl(size - 1) - 4;
		return kmem_cache_alloc(kmalloc_class[i], flags);
	}
	if (size > KMALLOC_MAX)
		return NULL;
	uint64_t npages = howmany(size, PAGE_SIZE);
	int order = npages == 1 ? 0 : 64 - __builtin_clzl(npages - 1);
	struct vm_page *m = vm_page_alloc(order,
	    (flags & KM_ZERO) ? VM_ALLOC_ZERO : VM_ALLOC_NORMAL);
	if (m == NULL)
		return NULL;
	m->flags |= PG_KMEM;	/* slab.cache stays NULL: a kmalloc block */
	kmemstats.km_large_inuse++;
	kmemstats.km_large_pages += 1UL << order;
	vmstats.v_wire_count += 1UL << order;
	return VM_PAGE_TO_DMAP(m);
}

void
kfree(void *p)
{
	if (p == NULL)
		return;
	struct vm_page *m = DMAP_TO_VM_PAGE(p);
	if (!(m->flags & PG_KMEM))
		panic("kfree: %p is not from kmalloc%s", p,
		    (m->flags & PG_FREE) ? " (freed twice?)" : "");
	if (m->slab.cache != NULL) {
		if (!(m->slab.cache->kc_flags & KC_KMALLOC))
			panic("kfree: %p is from cache %s", p,
			    m->slab.cache->kc_name);
		kmem_cache_free(m->slab.cache, p);
		return;
	}
	if (((uintptr_t)p & PAGE_MASK) != 0 || m->order == VM_ORDER_NONE)
		panic("kfree: %p is inside a kmalloc block", p);
	uint64_t npages = 1UL << m->order;
	m->flags &= ~PG_KMEM;
	kmemstats.km_large_inuse--;
	kmemstats.km_large_pages -= npages;
	vmstats.v_wire_count -= npages;
	vm_page_free(m, m->order);
}
