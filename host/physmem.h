/*
 * The vkernel's RAM: one memory file mapped MAP_SHARED at a fixed host
 * address, so that a physical address (an offset in the file) and a
 * pointer into RAM convert by one addition, in every thread and for the
 * lifetime of the process.  Stubs of the trap backend map pages of the
 * same file into guest address spaces.
 */
#ifndef HOST_PHYSMEM_H
#define HOST_PHYSMEM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Where RAM is mapped.  Above 0x10007fff8000, where AddressSanitizer
 * leaves memory to the program, and far below the stack and libraries.
 */
#define PHYSMEM_BASE	0x500000000000UL
#define PHYSMEM_MAX	(1UL << 40)	/* 1 TiB is more than any host here */
#define PHYSMEM_DEFAULT	(256UL << 20)
#define PAGE_SIZE	4096UL
#define PAGE_MASK	(PAGE_SIZE - 1)

struct physmem {
	uint8_t *base;		/* == PHYSMEM_BASE once attached */
	uint64_t size;		/* bytes, a multiple of PAGE_SIZE */
	int fd;			/* the memory file (close-on-exec) */
	const char *path;	/* -i FILE, or NULL for an anonymous memfd */
};

extern struct physmem physmem;

/*
 * Creates RAM of size bytes: an anonymous memfd when path is NULL, else
 * the file at path (DragonFly's -i), created if missing, locked exclusively
 * (a second vkernel on the same file fails with EWOULDBLOCK) and emptied to
 * holes.  Returns 0, or -1 with errno set.
 */
int physmem_init(uint64_t size, const char *path);

/* Unmaps and closes RAM; the memory file's contents are not kept. */
void physmem_fini(void);

/* True if [pa, pa + len) lies inside RAM (no overflow). */
static inline bool
physmem_valid(uint64_t pa, uint64_t len)
{
	return pa <= physmem.size && len <= physmem.size - pa;
}

/* The kernel's pointer to physical address pa (which must be valid). */
static inline void *
PHYS_TO_DMAP(uint64_t pa)
{
	return physmem.base + pa;
}

/* Parses "256m", "1g", "65536", "64k" into bytes; -1 with EINVAL if bad. */
int64_t physmem_parse_size(const char *s);

#endif /* HOST_PHYSMEM_H */
