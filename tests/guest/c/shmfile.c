/*
 * A tmpfs file (in /dev/shm, tmpfs on both sides) and its mappings share
 * one copy of each page: write(2) shows at once in a MAP_SHARED mapping
 * of another process and the other way round; a MAP_PRIVATE mapping sees
 * the file until it writes a page; truncation takes pages out of every
 * mapping (SIGBUS past the end) and growing again reads zeros; a mapping
 * outlives the file's name and descriptor.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf jb;
static volatile int sigs;

static void
onbus(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	sigs++;
	printf("  signal %s code %d\n", sig == SIGBUS ? "SIGBUS" : "other",
	    si->si_code);
	siglongjmp(jb, 1);
}

/* Reads p[0] or reports the signal it gives. */
static int
probe(volatile char *p)
{
	if (sigsetjmp(jb, 1))
		return -1;
	return p[0];
}

int
main(void)
{
	char path[64], buf[16];
	snprintf(path, sizeof(path), "/dev/shm/vk-shmfile-%d", getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		printf("open: %s\n", strerror(errno));
		return 1;
	}
	if (ftruncate(fd, 3 * 4096) < 0)
		return 2;
	char *sh = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	char *pr = mmap(NULL, 3 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (sh == MAP_FAILED || pr == MAP_FAILED) {
		printf("mmap: %s\n", strerror(errno));
		return 3;
	}
	printf("fresh mapping reads zeros: %d %d\n", sh[0], sh[8191]);

	/* write(2) in a child, seen through the parent's shared mapping. */
	pid_t pid = fork();
	if (pid == 0) {
		pwrite(fd, "child-wrote", 11, 4096);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("shared sees the child's write: %.11s\n", sh + 4096);
	printf("private (untouched) sees it too: %.11s\n", pr + 4096);

	/* A store through the child's inherited shared mapping, read(2) here. */
	pid = fork();
	if (pid == 0) {
		memcpy(sh + 100, "stored", 6);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	memset(buf, 0, sizeof(buf));
	pread(fd, buf, 6, 100);
	printf("read sees the child's store: %s\n", buf);

	/* A private write copies the page; the file and the shared one keep theirs. */
	memcpy(pr + 4096, "PRIVATE", 7);
	pwrite(fd, "again", 5, 4096 + 20);
	pread(fd, buf, 7, 4096);
	printf("file after private write: %.7s, private: %.7s, private +20: %d\n",
	    buf, pr + 4096, pr[4096 + 20]);
	printf("private page 0 still follows the file: %.6s\n", pr + 100);

	/* A mapping in an unrelated process (a fresh open) sees the same pages. */
	pid = fork();
	if (pid == 0) {
		int fd2 = open(path, O_RDWR);
		char *m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd2, 4096);
		if (m == MAP_FAILED)
			_exit(1);
		m[30] = 'Z';
		_exit(m[0] == 'c' ? 0 : 2);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("other mapping: status %d, parent sees %c\n", WEXITSTATUS(st),
	    sh[4096 + 30]);

	/* Truncation takes the pages out of every mapping. */
	struct sigaction sa = { .sa_sigaction = onbus, .sa_flags = SA_SIGINFO };
	sigaction(SIGBUS, &sa, NULL);
	ftruncate(fd, 4096 + 10);
	printf("after truncate: page 1 byte 5 %d, byte 30 %d\n", sh[4096 + 5],
	    sh[4096 + 30]);
	printf("page 2: %d\n", probe(sh + 8192));
	ftruncate(fd, 3 * 4096);
	printf("grown again: page 2 %d, page 1 byte 30 %d\n", probe(sh + 8192),
	    sh[4096 + 30]);
	struct stat s;
	fstat(fd, &s);
	printf("size %lld\n", (long long)s.st_size);

	/* The mapping outlives the name and the descriptor. */
	unlink(path);
	close(fd);
	sh[0] = 'x';
	pid = fork();
	if (pid == 0)
		_exit(sh[0] == 'x' && sh[4096] == 'c' ? 0 : 1);
	waitpid(pid, &st, 0);
	printf("after unlink and close: child status %d, holes read %d\n",
	    WEXITSTATUS(st), probe(sh + 8192 + 5));
	printf("signals: %d\n", sigs);
	return 0;
}
