/*
 * Host files (see hostfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/hostfile.h"

int
host_file_map(const char *path, void **bufp, size_t *lenp)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int error = 0;
	void *buf = NULL;
	if (fstat(fd, &st) < 0)
		error = -errno;
	else if (st.st_size > 0 && (buf = mmap(NULL, (size_t)st.st_size,
	    PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
		error = -errno;
	close(fd);		/* the mapping keeps the file */
	if (error == 0) {
		*bufp = buf;
		*lenp = (size_t)st.st_size;
	}
	return error;
}

void
host_file_unmap(void *buf, size_t len)
{
	if (buf != NULL)
		munmap(buf, len);
}

int
host_pidfile(const char *path)
{
	FILE *f = fopen(path, "w");
	if (f == NULL)
		return -1;
	fprintf(f, "%d\n", (int)getpid());
	return fclose(f) == 0 ? 0 : -1;
}
