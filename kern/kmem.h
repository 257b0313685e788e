/*
 * The kernel's object allocator, on the page allocator: Bonwick's slabs,
 * simply done (think FreeBSD's uma zones, Linux's SLUB).
 *
 * A cache hands out objects of one size.  Its slabs are page blocks (one
 * page for most sizes) cut into objects; a slab's bookkeeping lives in the
 * vm_pages of its block (vm_page.slab), so the whole block is objects, and
 * its free objects are chained through their own first bytes.  A slab
 * that empties goes back to the page allocator, except one spare per cache
 * so that an alloc/free ping-pong does not take and return a page each
 * time.
 *
 * kmalloc serves sizes up to KMALLOC_MAX_SLAB from power-of-two caches
 * (16 to 2048 bytes) and larger sizes with whole page blocks, whose order
 * is in their vm_page, so kfree needs no size.
 *
 * All of it lives in RAM, the cache structures too: they are objects of a
 * cache of caches (whose own header is static, to bootstrap).
 *
 * Locking: the big kernel lock; nothing here sleeps.  Every allocation
 * returns NULL when RAM runs out; misuse (a bad argument from kernel code,
 * a double free, a foreign pointer) panics.
 */
#ifndef VM_KMEM_H
#define VM_KMEM_H

#include "kern/vm_page.h"

/* kmem_cache_alloc and kmalloc flags */
#define KM_ZERO		0x0001	/* zero the object */

#define KMEM_NAMELEN	24
#define KMEM_MINSIZE	16	/* smallest object: room for the free link */
#define KMEM_SLAB_MAXORDER 3	/* slabs are at most 8 pages... */
#define KMEM_MAXSIZE	(PAGE_SIZE << KMEM_SLAB_MAXORDER) /* ...so objects too */
#define KMALLOC_MAX_SLAB 2048	/* larger kmallocs take page blocks */
#define KMALLOC_MAX	(PAGE_SIZE << VM_MAX_ORDER)	/* 4 MiB */

struct kmem_cache {
	char kc_name[KMEM_NAMELEN];
	uint32_t kc_size;	/* object stride: size rounded up to align */
	uint32_t kc_align;
	uint32_t kc_order;	/* each slab is a block of 2^order pages */
	uint32_t kc_perslab;	/* objects per slab */
	uint32_t kc_flags;	/* KC_* */
	struct pglist kc_partial; /* slabs with objects both free and used */
	struct vm_page *kc_spare; /* an empty slab kept back, or NULL */
	/* Statistics (/proc/slabinfo) */
	uint64_t kc_inuse;	/* objects allocated now */
	uint64_t kc_slabs;	/* slabs held, the spare included */
	uint64_t kc_allocs;	/* allocations ever */
	uint64_t kc_fails;	/* allocations refused for want of RAM */
	TAILQ_ENTRY(kmem_cache) kc_link;	/* on kmem_caches */
};

#define KC_KMALLOC	0x0001	/* a kmalloc size class */

/* Every cache, the cache of caches first (for /proc/slabinfo). */
TAILQ_HEAD(kmem_cache_list, kmem_cache);
extern struct kmem_cache_list kmem_caches;

/* kmalloc's page blocks (the size classes count in their caches). */
struct kmemstats {
	uint64_t km_large_inuse;	/* blocks allocated now */
	uint64_t km_large_pages;	/* their pages */
};
extern struct kmemstats kmemstats;

/*
 * Sets up the cache of caches and kmalloc's size classes.  Call once,
 * after vm_page_init; panics if called twice or out of RAM.
 */
void kmem_init(void);

/*
 * A new cache of objects of size bytes aligned to align (a power of two
 * up to PAGE_SIZE; 0 means 8).  The name is copied (truncated to
 * KMEM_NAMELEN - 1).  Objects are at least KMEM_MINSIZE bytes apart.
 * Returns NULL if out of RAM; panics if size is 0 or above KMEM_MAXSIZE
 * or align is bad.
 */
struct kmem_cache *kmem_cache_create(const char *name, size_t size,
    size_t align);

/*
 * Destroys a cache made by kmem_cache_create, returning its pages.
 * Panics if it still has objects allocated.
 */
void kmem_cache_destroy(struct kmem_cache *kc);

/* An object of kc, zeroed with KM_ZERO; NULL if out of RAM. */
void *kmem_cache_alloc(struct kmem_cache *kc, int flags);

/*
 * Returns object p to kc (NULL is ignored).  Panics if p is not an
 * allocated object of kc (a double free, a foreign or interior pointer).
 */
void kmem_cache_free(struct kmem_cache *kc, void *p);

/*
 * Returns every cache's spare slab to the page allocator: for a pageout
 * daemon short of memory, and for tests that want their pages back.
 */
void kmem_reclaim(void);

/*
 * size bytes, zeroed with KM_ZERO.  Up to KMALLOC_MAX_SLAB bytes, the
 * object is aligned to size rounded up to a power of two (at least 16);
 * above, it is a page block aligned to its own size.  kmalloc(0) returns
 * a 16-byte object (so NULL always means out of memory).  Returns NULL
 * if out of RAM or size is above KMALLOC_MAX (4 MiB).
 */
void *kmalloc(size_t size, int flags);

/*
 * Frees what kmalloc returned (NULL is ignored).  Panics if p did not
 * come from kmalloc or is freed twice.
 */
void kfree(void *p);

#endif /* VM_KMEM_H */
