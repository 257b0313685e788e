/*
 * Physical pages: one struct vm_page per page of RAM, and a buddy
 * allocator of naturally aligned blocks of 2^order pages.
 *
 * The vm_page array sits at the start of RAM (so page 0 is never handed
 * out, and the array is kernel state in RAM like any other); its pages are
 * reserved.  Every other page is in exactly one block, free or allocated.
 * Blocks are aligned to their size because the trap backend maps a
 * physically contiguous run as one host mapping and a pmap wants aligned
 * runs behind contiguous virtual ranges.
 *
 * Locking: the big kernel lock; nothing here sleeps or takes a lock.
 */
#ifndef VM_VM_PAGE_H
#define VM_VM_PAGE_H

#include "kern/kernel.h"
#include "kern/queue.h"

#ifndef PAGE_SHIFT
#define PAGE_SHIFT	12
#endif
_Static_assert(PAGE_SIZE == 1UL << PAGE_SHIFT, "PAGE_SHIFT");

#define VM_MAX_ORDER	10		/* largest block: 2^10 pages, 4 MiB */
#define VM_NFREEORDER	(VM_MAX_ORDER + 1)
#define VM_ORDER_NONE	0xff		/* order of a page that heads no block */

struct vm_object;
struct kmem_cache;

/*
 * One page of RAM.  The fields marked "later" belong to the VM system
 * (vm_object, pmap, pageout) and are only reset here.  Keep it small: it
 * costs sizeof(struct vm_page) / PAGE_SIZE of RAM (48 bytes: 1.2%).
 */
struct vm_page {
	/* Free queue of its order while free; active/inactive queue (later);
	 * partial-slab list while it heads a kmem slab. */
	TAILQ_ENTRY(vm_page) pageq;
	union {
		struct {			/* pageable pages (later) */
			struct vm_object *object;	/* owner, or NULL */
			uint64_t pindex;	/* page index in object */
		};
		struct {			/* every page of a kmem slab */
			struct kmem_cache *cache;
			uint32_t free;		/* head only: first free object */
			uint32_t inuse;		/* head only: objects allocated */
		} slab;
	};
	uint32_t wire_count;	/* wirings: not pageable while > 0 (later) */
	uint32_t hold_count;	/* short-term references (later) */
	uint16_t flags;		/* PG_* */
	uint8_t order;		/* block head: its order; else VM_ORDER_NONE */
	uint8_t queue;		/* PQ_*: which pageq list it is on */
	uint8_t act_count;	/* pageout's activity estimate (later) */
};
_Static_assert(sizeof(struct vm_page) <= 64, "struct vm_page grew");

TAILQ_HEAD(pglist, vm_page);

/* flags */
#define PG_FREE		0x0001	/* in a free block (every page of it) */
#define PG_RESERVED	0x0002	/* never allocated: the vm_page array */
#define PG_KMEM		0x0004	/* owned by kmem: slab page or kmalloc block head */

/* queue */
#define PQ_NONE		0
#define PQ_FREE		1	/* a free queue (head pages of free blocks) */
#define PQ_ACTIVE	2	/* later */
#define PQ_INACTIVE	3	/* later */

/* vm_page_alloc flags */
#define VM_ALLOC_NORMAL	0x0000
#define VM_ALLOC_ZERO	0x0001	/* zero the block */

/* Page counts, for /proc/meminfo and free(1). */
struct vmstats {
	uint64_t v_page_count;	/* pages of RAM */
	uint64_t v_free_count;	/* pages in free blocks */
	uint64_t v_wire_count;	/* held by the kernel itself: the vm_page
				 * array, kmem; other holders add theirs */
};
extern struct vmstats vmstats;

/* Events since boot, for /proc/vmstat (vmstats is the state now). */
struct vmcounts {
	uint64_t v_pgalloc;	/* pages allocated */
	uint64_t v_pgfree;	/* pages freed */
	uint64_t v_faults;	/* faults of user mappings served */
	uint64_t v_pgscan;	/* file pages the pageout scan looked at */
	uint64_t v_pgsteal;	/* and freed */
};
extern struct vmcounts vmcounts;

/*
 * Builds the vm_page array at the start of RAM and frees every other page
 * into the buddy queues.  Call once, after physmem_init; panics if called
 * twice or if RAM cannot hold the array and a page more.
 */
void vm_page_init(void);

/*
 * Allocates a block of 2^order pages aligned to its size, zeroed if flags
 * has VM_ALLOC_ZERO.  Returns its head page (the lowest; the others follow
 * it in the array), with no flags, no owner and no wirings, or NULL if no
 * block that large is free, even after the reclaimers freed what they
 * could.  Never sleeps.  Panics on a bad order or flag.
 */
struct vm_page *vm_page_alloc(int order, int flags);

/*
 * Registers fn for when vm_page_alloc finds no free block: fn(pages)
 * frees about that many pages if it can, without sleeping, and returns
 * how many it freed; the allocation is then tried once more.  Caches
 * that give way to memory pressure (the buffer cache) register one.
 */
void vm_page_reclaimer(size_t (*fn)(size_t pages));

/*
 * Frees the block of 2^order pages headed by m, as vm_page_alloc returned
 * it, and merges it with its free buddies.  Panics (a kernel bug) on a
 * double free, a reserved page, a page still owned by kmem or wired, an
 * order other than the block's, or a page that heads no block.
 */
void vm_page_free(struct vm_page *m, int order);

/* Free blocks of exactly this order now (/proc/buddyinfo). */
uint64_t vm_page_free_blocks(int order);

/* The page array; it starts at physical address 0. */
static inline struct vm_page *
vm_page_array(void)
{
	return (struct vm_page *)PHYS_TO_DMAP(0);
}

/* The physical address of page m. */
static inline uint64_t
VM_PAGE_TO_PHYS(const struct vm_page *m)
{
	return (uint64_t)(m - vm_page_array()) << PAGE_SHIFT;
}

/* The page holding physical address pa, which must be in RAM. */
static inline struct vm_page *
PHYS_TO_VM_PAGE(uint64_t pa)
{
	KASSERT(pa < physmem.size, "PHYS_TO_VM_PAGE: not in RAM");
	return vm_page_array() + (pa >> PAGE_SHIFT);
}

/* The kernel's pointer to the first byte of page m. */
static inline void *
VM_PAGE_TO_DMAP(const struct vm_page *m)
{
	return PHYS_TO_DMAP(VM_PAGE_TO_PHYS(m));
}

/* The page holding kernel pointer p, which must point into RAM. */
static inline struct vm_page *
DMAP_TO_VM_PAGE(const void *p)
{
	return PHYS_TO_VM_PAGE((uintptr_t)p - (uintptr_t)physmem.base);
}

#endif /* VM_VM_PAGE_H */
