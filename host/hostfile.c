/*
 * Host files (see hostfile.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "host/hostexit.h"
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

static char pidfile_path[PATH_MAX];
static int pidfile_held;

/* At exit and on a fatal signal: async-signal safe. */
static void
pidfile_remove(void)
{
	if (__atomic_exchange_n(&pidfile_held, 0, __ATOMIC_SEQ_CST))
		(void)unlink(pidfile_path);
}

int
host_pidfile(const char *path, long *holder)
{
	if (strlen(path) >= sizeof(pidfile_path))
		return -ENAMETOOLONG;
	int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int error = errno == EWOULDBLOCK ? -EBUSY : -errno;
		char buf[24];
		ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
		buf[n > 0 ? n : 0] = '\0';
		*holder = strtol(buf, NULL, 10);
		close(fd);
		return error;
	}
	char buf[24];
	int n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, (size_t)n, 0) != n) {
		int error = -errno;
		close(fd);
		return error;
	}
	/* fd stays open: the lock lasts as long as we do. */
	strcpy(pidfile_path, path);
	pidfile_held = 1;
	atexit(pidfile_remove);
	(void)host_on_fatal(pidfile_remove);
	return 0;
}
