/*
 * The VM system's per-page state (see vm_page_ext.h): an array of
 * entries indexed by page frame number, in blocks of up to 2^VM_MAX_ORDER
 * pages (so RAM up to PHYSMEM_MAX needs at most a few thousand blocks,
 * and a block the size of the biggest the allocator has is easy to find at
 * boot), reached through a small directory.
 */
#include "kern/kmem.h"
#include "vm/vm_page_ext.h"

struct vm_page_ext **vm_page_ext_dir;
unsigned vm_page_ext_shift;

void
vm_page_ext_init(void)
{
	uint64_t npages = vmstats.v_page_count;
	uint64_t per_page = PAGE_SIZE / sizeof(struct vm_page_ext);
	int order = 0;

	KASSERT(vm_page_ext_dir == NULL, "vm_page_ext_init: called twice");
	/* The smallest block that holds them all, or the largest there is. */
	while (order < VM_MAX_ORDER && (per_page << order) < npages)
		order++;
	uint64_t per_block = per_page << order;
	uint64_t nblocks = howmany(npages, per_block);
	vm_page_ext_shift = (unsigned)__builtin_ctzl(per_block);
	vm_page_ext_dir = kmalloc(nblocks * sizeof(*vm_page_ext_dir), KM_ZERO);
	if (vm_page_ext_dir == NULL)
		panic("vm_page_ext_init: no RAM for %lu block pointers", nblocks);
	for (uint64_t i = 0; i < nblocks; i++) {
		struct vm_page *m = vm_page_alloc(order, VM_ALLOC_ZERO);
		if (m == NULL)
			panic("vm_page_ext_init: no block of order %d", order);
		vm_page_ext_dir[i] = VM_PAGE_TO_DMAP(m);
		/* Kernel state for good: wired, as the vm_page array is. */
		vmstats.v_wire_count += 1UL << order;
	}
}
