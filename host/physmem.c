/*
 * RAM (see physmem.h).
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <unistd.h>

#include "physmem.h"

struct physmem physmem = { .fd = -1 };

static int
physmem_open_file(const char *path)
{
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	/* Two kernels on one memory image would corrupt each other. */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0 || ftruncate(fd, 0) < 0) {
		int e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

int
physmem_init(uint64_t size, const char *path)
{
	if (physmem.base != NULL || size == 0 || (size & PAGE_MASK) != 0 ||
	    size > PHYSMEM_MAX) {
		errno = EINVAL;
		return -1;
	}
	int fd = path != NULL ? physmem_open_file(path) :
	    memfd_create("vkernel-ram", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, (off_t)size) < 0)
		goto fail;
	void *p = mmap((void *)PHYSMEM_BASE, size, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_FIXED_NOREPLACE, fd, 0);
	if (p == MAP_FAILED)
		goto fail;
	if (p != (void *)PHYSMEM_BASE) {	/* a kernel without NOREPLACE */
		munmap(p, size);
		errno = EEXIST;
		goto fail;
	}
	physmem.base = p;
	physmem.size = size;
	physmem.fd = fd;
	physmem.path = path;
	return 0;
fail:;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

void
physmem_fini(void)
{
	if (physmem.base == NULL)
		return;
	munmap(physmem.base, physmem.size);
	if (physmem.path != NULL)
		(void)ftruncate(physmem.fd, 0);	/* RAM does not outlive us */
	close(physmem.fd);
	physmem.base = NULL;
	physmem.size = 0;
	physmem.fd = -1;
	physmem.path = NULL;
}

int64_t
physmem_parse_size(const char *s)
{
	char *end;
	errno = 0;
	if (s == NULL || !isdigit((unsigned char)*s))
		goto bad;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno != 0)
		goto bad;
	unsigned shift = 0;
	switch (tolower((unsigned char)*end)) {
	case 'k': shift = 10; end++; break;
	case 'm': shift = 20; end++; break;
	case 'g': shift = 30; end++; break;
	case 't': shift = 40; end++; break;
	case '\0': break;
	default: goto bad;
	}
	if (*end != '\0' || v > (unsigned long long)INT64_MAX >> shift)
		goto bad;
	return (int64_t)(v << shift);
bad:
	errno = EINVAL;
	return -1;
}
