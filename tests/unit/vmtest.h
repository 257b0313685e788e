/*
 * Helpers for tests of the host layer: RAM for every test, a bump
 * allocator of physical pages, a small builder of vpagetables (the
 * kernel's pmap does this for real), and guest code from guest.S.
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

void vmt_ram(void);
uint64_t vmt_page(void);		/* a zeroed physical page */
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
