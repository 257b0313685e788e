/*
 * Helpers for tests of the host layer: RAM for every test, physical
 * pages from the kernel's page allocator, a small builder of vpagetables
 * (the kernel's pmap does this for real), and guest code from guest.S.
 */
#ifndef TESTS_UNIT_VMTEST_H
#define TESTS_UNIT_VMTEST_H

#include <stdint.h>

#include "host/physmem.h"
#include "host/trap/trap.h"
#include "host/vmspace.h"
#include "host/vpte.h"

#define VMT_CODE	0x400000UL	/* where guest code goes */
#define VMT_STACK	0x7ff000000UL	/* top of the guest stack */
#define VMT_DATA	0x10000000UL	/* a free area for data pages */

struct vmt {
	uint64_t root;
	struct trapframe tf;
	struct vextframe vf;
	int created;
};

/* Guest code: g_NAME .. g_NAME_end in guest.S. */
#define GUEST(name)	extern const char g_##name[], g_##name##_end[]
#define GUEST_CODE(name) g_##name, (size_t)(g_##name##_end - g_##name)

void vmt_ram(void);			/* RAM, vm_page and kmem, once */
uint64_t vmt_page(void);		/* a zeroed physical page */
/*
 * 2^order zeroed pages, physically contiguous and aligned to their size.
 * Successive vmt_page()s are contiguous only while no test has left free
 * holes in RAM; tests that need a run or a gap should take a block.
 */
uint64_t vmt_block(int order);
/*
 * Runs fn(arg) in a forked child whose RAM is a private copy-on-write copy
 * of ours, so that it may exhaust or corrupt the kernel's memory (the
 * vm_page array is in RAM, which a plain fork would share).  Returns the
 * child's exit status (fn's value), 128 + signal if it died, -1 on error.
 */
int vmt_private_child(int (*fn)(void *), void *arg);
int vmt_create(struct vmt *v, const struct trap_params *p);
void vmt_destroy(struct vmt *v);
vpte_t *vmt_map(struct vmt *v, uint64_t va, uint64_t pa, uint64_t flags);
vpte_t *vmt_pte(struct vmt *v, uint64_t va);	/* leaf, or NULL */
void vmt_code(struct vmt *v, const char *code, size_t len);
void vmt_stack(struct vmt *v);
int vmt_run(struct vmt *v);		/* returns tf_trapno, -1 on error */
struct vmspace_host *vmt_host(struct vmt *v);	/* the backend's state */

#define VPTE_USER_RW	(VPTE_V | VPTE_U | VPTE_RW)

#endif /* TESTS_UNIT_VMTEST_H */
