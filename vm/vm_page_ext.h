/*
 * Per-page state of the VM system that struct vm_page (the page
 * allocator's) has no room for: the link of a page in its object's hash
 * chain, the page's mappings (pmap's reverse map), and the referenced and
 * modified bits harvested from VPTEs that were dropped.  One entry per
 * page of RAM, in blocks of RAM taken at vm_init; 16 bytes a page, as
 * the fields would cost in the vm_page itself.
 *
 * Locking: the big kernel lock.
 */
#ifndef VM_VM_PAGE_EXT_H
#define VM_VM_PAGE_EXT_H

#include "kern/vm_page.h"

struct pv_entry;

struct vm_page_ext {
	struct pv_entry *pv;	/* mappings of the page (pmap.c) */
	uint32_t hnext;		/* next page frame in its object's hash
				 * chain, 0 for none (frame 0 is never in
				 * an object: the vm_page array is there) */
	uint32_t flags;		/* PGX_* */
};

#define PGX_DIRTY	0x0001	/* modified by a mapping since last cleaned */
#define PGX_REFERENCED	0x0002	/* accessed through a mapping now dropped */
#define PGX_AHEAD	0x0004	/* mapped before any touch (vm_mmap.c) */

extern struct vm_page_ext **vm_page_ext_dir;
extern unsigned vm_page_ext_shift;	/* log2 of entries per block */

/* Takes the blocks of RAM for every page's entry; panics if short. */
void vm_page_ext_init(void);

/* The VM system's state of page m. */
static inline struct vm_page_ext *
VM_PAGE_EXT(const struct vm_page *m)
{
	uint64_t pfn = (uint64_t)(m - vm_page_array());
	return &vm_page_ext_dir[pfn >> vm_page_ext_shift]
	    [pfn & ((1UL << vm_page_ext_shift) - 1)];
}

#endif /* VM_VM_PAGE_EXT_H */
