/*
 * The physical page allocator (see vm_page.h): a binary buddy system over
 * the vm_page array.
 *
 * Every page of a free block is marked PG_FREE; its head (lowest page)
 * carries the order and sits on vm_freeq[order].  Every other page, of a
 * free block or an allocated one, has order VM_ORDER_NONE.  So "is my
 * buddy a free block of my order?" is one look at the buddy's head page,
 * and a double free shows on every page of the block.
 */
#include "kern/vm_page.h"

struct vmstats vmstats;
struct vmcounts vmcounts;

static struct vm_freeq {
	struct pglist pl;
	uint64_t count;		/* blocks on pl */
} vm_freeq[VM_NFREEORDER];

static uint64_t vm_npages;	/* pages of RAM, the array's length */
static size_t (*vm_reclaimers[4])(size_t pages);
static bool vm_page_ready;

static void
vm_freeq_insert(struct vm_page *m, int order, bool tail)
{
	m->order = (uint8_t)order;
	m->queue = PQ_FREE;
	if (tail)
		TAILQ_INSERT_TAIL(&vm_freeq[order].pl, m, pageq);
	else
		TAILQ_INSERT_HEAD(&vm_freeq[order].pl, m, pageq);
	vm_freeq[order].count++;
}

static void
vm_freeq_remove(struct vm_page *m)
{
	TAILQ_REMOVE(&vm_freeq[m->order].pl, m, pageq);
	vm_freeq[m->order].count--;
	m->queue = PQ_NONE;
}

void
vm_page_init(void)
{
	if (vm_page_ready)
		panic("vm_page_init: called twice");
	if (physmem.base == NULL)
		panic("vm_page_init: no RAM");
	uint64_t npages = physmem.size >> PAGE_SHIFT;
	uint64_t nres = howmany(npages * sizeof(struct vm_page), PAGE_SIZE);
	if (nres >= npages)
		panic("vm_page_init: %lu pages cannot hold their own array",
		    npages);

	for (int o = 0; o < VM_NFREEORDER; o++) {
		TAILQ_INIT(&vm_freeq[o].pl);
		vm_freeq[o].count = 0;
	}
	/* A memory file (-i) may hold an old kernel's array: set every field. */
	struct vm_page *pa = vm_page_array();
	for (uint64_t i = 0; i < npages; i++)
		pa[i] = (struct vm_page){ .order = VM_ORDER_NONE,
		    .flags = i < nres ? PG_RESERVED : PG_FREE,
		    .wire_count = i < nres ? 1 : 0 };

	/*
	 * The rest in the largest aligned blocks that fit, queued lowest
	 * first: early allocations then come out in ascending order, as
	 * contiguous as they can be.
	 */
	for (uint64_t i = nres; i < npages; ) {
		int o = VM_MAX_ORDER;
		while (o > 0 && ((i & ((1UL << o) - 1)) != 0 ||
		    i + (1UL << o) > npages))
			o--;
		vm_freeq_insert(&pa[i], o, true);
		i += 1UL << o;
	}
	vm_npages = npages;
	vmstats.v_page_count = npages;
	vmstats.v_free_count = npages - nres;
	vmstats.v_wire_count = nres;
	vm_page_ready = true;
	kprintf("vm_page: %lu pages, %lu for the page array\n", npages, nres);
}

/* The smallest order >= order with a free block; > VM_MAX_ORDER if none. */
static int
vm_freeq_find(int order)
{
	int o = order;
	while (o <= VM_MAX_ORDER && TAILQ_EMPTY(&vm_freeq[o].pl))
		o++;
	return o;
}

void
vm_page_reclaimer(size_t (*fn)(size_t pages))
{
	for (size_t i = 0; i < nitems(vm_reclaimers); i++) {
		if (vm_reclaimers[i] == fn)
			return;
		if (vm_reclaimers[i] == NULL) {
			vm_reclaimers[i] = fn;
			return;
		}
	}
	panic("vm_page_reclaimer: too many");
}

/*
 * Asks the reclaimers for 2^order pages; true if they freed any.  Not
 * reentered: a reclaimer's own allocations fail plainly.
 */
static bool
vm_page_reclaim(int order)
{
	static bool reclaiming;
	size_t freed = 0;

	if (reclaiming)
		return false;
	reclaiming = true;
	for (size_t i = 0; i < nitems(vm_reclaimers) &&
	    vm_reclaimers[i] != NULL; i++)
		freed += vm_reclaimers[i](1UL << order);
	reclaiming = false;
	return freed > 0;
}

struct vm_page *
vm_page_alloc(int order, int flags)
{
	KASSERT(vm_page_ready, "vm_page_alloc before vm_page_init");
	if (order < 0 || order > VM_MAX_ORDER || (flags & ~VM_ALLOC_ZERO) != 0)
		panic("vm_page_alloc: order %d, flags %#x", order, flags);

	int o = vm_freeq_find(order);
	if (o > VM_MAX_ORDER && vm_page_reclaim(order))
		o = vm_freeq_find(order);
	if (o > VM_MAX_ORDER)
		return NULL;
	struct vm_page *m = TAILQ_FIRST(&vm_freeq[o].pl);
	vm_freeq_remove(m);
	/*
	 * Keep the lower half, queue the upper one (its pages are free
	 * already).  Queued at the head, upper halves are what the next small
	 * allocations take, so successive pages come out ascending.
	 */
	while (o > order) {
		o--;
		vm_freeq_insert(m + (1UL << o), o, false);
	}

	uint64_t n = 1UL << order;
	for (uint64_t i = 0; i < n; i++) {
		if (m[i].flags != PG_FREE ||
		    (i > 0 && m[i].order != VM_ORDER_NONE))
			panic("vm_page_alloc: free block at %#lx is corrupt "
			    "(page %lu: flags %#x, order %u)",
			    VM_PAGE_TO_PHYS(m), i, m[i].flags, m[i].order);
		m[i] = (struct vm_page){ .order = VM_ORDER_NONE };
	}
	m->order = (uint8_t)order;
	vmstats.v_free_count -= n;
	vmcounts.v_pgalloc += n;
	if (flags & VM_ALLOC_ZERO)
		memset(VM_PAGE_TO_DMAP(m), 0, n << PAGE_SHIFT);
	return m;
}

void
vm_page_free(struct vm_page *m, int order)
{
	struct vm_page *pa = vm_page_array();

	KASSERT(vm_page_ready, "vm_page_free before vm_page_init");
	if ((uintptr_t)m < (uintptr_t)pa ||
	    (uintptr_t)m >= (uintptr_t)(pa + vm_npages) ||
	    ((uintptr_t)m - (uintptr_t)pa) % sizeof(*m) != 0)
		panic("vm_page_free: %p is not a vm_page", (void *)m);
	if (order < 0 || order > VM_MAX_ORDER)
		panic("vm_page_free: order %d", order);

	uint64_t i = (uint64_t)(m - pa), n = 1UL << order;
	uint64_t phys = VM_PAGE_TO_PHYS(m);
	if (m->flags & PG_RESERVED)
		panic("vm_page_free: page %#lx is reserved", phys);
	if (m->flags & PG_FREE)
		panic("vm_page_free: page %#lx is free already", phys);
	if (m->flags & PG_KMEM)
		panic("vm_page_free: page %#lx belongs to kmem", phys);
	if (m->wire_count != 0 || m->hold_count != 0)
		panic("vm_page_free: page %#lx is wired (%u) or held (%u)",
		    phys, m->wire_count, m->hold_count);
	if (m->order == VM_ORDER_NONE)
		panic("vm_page_free: page %#lx heads no block", phys);
	if (m->order != order)
		panic("vm_page_free: page %#lx heads a block of order %u, "
		    "not %d", phys, m->order, order);
	KASSERT((i & (n - 1)) == 0 && i + n <= vm_npages,
	    "vm_page_free: misaligned block");
	for (uint64_t j = 0; j < n; j++) {
		if (j > 0 && ((m[j].flags & (PG_FREE | PG_RESERVED)) != 0 ||
		    m[j].order != VM_ORDER_NONE))
			panic("vm_page_free: block %#lx of order %d is corrupt "
			    "(page %lu: flags %#x, order %u)", phys, order, j,
			    m[j].flags, m[j].order);
		m[j].flags = PG_FREE;
		m[j].order = VM_ORDER_NONE;
	}
	vmstats.v_free_count += n;
	vmcounts.v_pgfree += n;

	/* Merge with the buddy while it is a free block of the same order. */
	while (order < VM_MAX_ORDER) {
		uint64_t bi = i ^ (1UL << order);
		struct vm_page *b = pa + bi;
		if (bi + (1UL << order) > vm_npages || !(b->flags & PG_FREE) ||
		    b->order != order)
			break;
		vm_freeq_remove(b);
		b->order = VM_ORDER_NONE;
		i &= ~(1UL << order);
		order++;
	}
	vm_freeq_insert(pa + i, order, false);
}

uint64_t
vm_page_free_blocks(int order)
{
	KASSERT(order >= 0 && order <= VM_MAX_ORDER, "vm_page_free_blocks");
	return vm_freeq[order].count;
}
