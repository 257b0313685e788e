/*
 * Truncation and private mappings: a file shrunk under a MAP_PRIVATE
 * mapping loses the mapping's copy-on-write copies past its new end too
 * (Linux zaps them with the file's pages), in the parent and in a child
 * that shares them after fork, so once the file grows again those pages
 * read the file's zeros; the copies before the end stay.  For a memfd
 * (stress-ng's memfd stressor checks this) and a file in /tmp.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096

static void
check(const char *what, const char *p)
{
	int first = 1, second = 1;
	for (int i = 0; i < PG; i++) {
		first &= p[i] == 'x';
		second &= p[PG + i] == 0;
	}
	printf("%s: first page kept %d, second page zero %d\n", what, first,
	    second);
}

static void
one(const char *what, int fd)
{
	if (ftruncate(fd, 2 * PG) < 0) {
		perror("ftruncate");
		return;
	}
	char *p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return;
	}
	memset(p, 'x', 2 * PG);
	ftruncate(fd, PG);
	ftruncate(fd, 2 * PG);
	check(what, p);

	/* The copies shared with a child after fork go from both. */
	memset(p, 'x', 2 * PG);
	pid_t pid = fork();
	if (pid == 0) {
		ftruncate(fd, PG);
		ftruncate(fd, 2 * PG);
		check("  child", p);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	check("  parent after the child's truncation", p);
	munmap(p, 2 * PG);
	close(fd);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	one("memfd", (int)syscall(SYS_memfd_create, "tp", 0));
	one("tmpfile", open("truncprivate.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600));
	unlink("truncprivate.tmp");
	return 0;
}
