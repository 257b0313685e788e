/*
 * The VPTE format: x86-64 4-level page tables kept in the vkernel's RAM.
 * Entries hold physical addresses, i.e. offsets in the RAM file.  The
 * vkernel's pmap builds them; the trap backend walks them in software the
 * way the MMU would, the kvm backend hands them to the CPU.
 */
#ifndef HOST_VPTE_H
#define HOST_VPTE_H

#include <stdint.h>

typedef uint64_t vpte_t;

#define VPTE_V		0x001UL		/* valid (x86 P) */
#define VPTE_RW		0x002UL		/* writable */
#define VPTE_U		0x004UL		/* user accessible */
#define VPTE_PWT	0x008UL
#define VPTE_PCD	0x010UL
#define VPTE_A		0x020UL		/* accessed */
#define VPTE_M		0x040UL		/* modified (x86 D) */
#define VPTE_PS		0x080UL		/* 2 MiB / 1 GiB page */
#define VPTE_G		0x100UL
#define VPTE_PAT_LARGE	0x1000UL	/* PAT in a 2 MiB / 1 GiB entry */
#define VPTE_AVAIL	0xe00UL		/* ignored by hardware, kernel's own */
#define VPTE_NX		(1UL << 63)	/* no execute */
#define VPTE_FRAME	0x000ffffffffff000UL
#define VPTE_RESERVED	0x7ff0000000000000UL	/* must be zero (we allow no PKEY) */

#define VPTE_LEVELS	4
#define VPTE_SHIFT(l)	(12 + 9 * (l))		/* level 0 = PT, 3 = PML4 */
#define VPTE_INDEX(va, l) (((va) >> VPTE_SHIFT(l)) & 511)
#define VPTE_PAGES_PER_TABLE 512

#endif /* HOST_VPTE_H */
