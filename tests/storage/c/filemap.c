/*
 * File mappings over one page cache, in the current directory: a
 * MAP_SHARED mapping and write(2) see each other, across processes;
 * MAP_PRIVATE sees the file's changes until its own first write of a
 * page; SIGBUS (BUS_ADRERR) past the end of the file; truncate while
 * mapped takes the pages past the new end away and growing brings zeros;
 * write extends show in a mapping; msync's arguments; what a mapping
 * wrote is in the file after munmap and close.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096

static sigjmp_buf jb;
static volatile int got_sig, got_code;

static void
on_fault(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	got_sig = sig;
	got_code = si->si_code;
	siglongjmp(jb, 1);
}

/* Reads *p: the byte, or -1 after a signal (printed). */
static int
probe(const char *what, volatile char *p)
{
	if (sigsetjmp(jb, 1) == 0) {
		int c = *p;
		printf("%s: %d\n", what, c);
		return c;
	}
	printf("%s: %s code %s\n", what, got_sig == SIGBUS ? "SIGBUS" :
	    got_sig == SIGSEGV ? "SIGSEGV" : "other",
	    got_code == BUS_ADRERR ? "BUS_ADRERR" : "other");
	return -1;
}

static char
at(int fd, off_t off)
{
	char c = '?';
	if (pread(fd, &c, 1, off) != 1)
		return '!';
	return c;
}

/* errno's name: libcs word their messages differently. */
static const char *
errname(int e)
{
	return e == EINVAL ? "EINVAL" : e == ENOMEM ? "ENOMEM" :
	    e == EACCES ? "EACCES" : e == ENODEV ? "ENODEV" : "other";
}

static void
err(const char *what, int r)
{
	printf("%s: %d %s\n", what, r, r < 0 ? errname(errno) : "");
}

int
main(void)
{
	struct sigaction sa = { 0 };
	sa.sa_sigaction = on_fault;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);

	int fd = open("filemap.dat", O_RDWR | O_CREAT | O_TRUNC, 0644);
	char buf[2 * PG];
	memset(buf, 'a', sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf)) {
		perror("setup");
		return 1;
	}

	/* 1. write(2) and MAP_SHARED, in two processes. */
	char *p = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap shared");
		return 1;
	}
	printf("shared first: %c%c\n", p[0], p[PG]);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		pwrite(fd, "hello", 5, 100);
		char *q = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_SHARED,
		    fd, 0);
		q[PG + 7] = 'Z';
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("child's write: %.5s, child's store: %c, read of it: %c\n",
	    p + 100, p[PG + 7], at(fd, PG + 7));
	p[200] = 'M';
	fflush(stdout);
	if ((pid = fork()) == 0) {
		printf("parent's store read by child: %c\n", at(fd, 200));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);

	/* 2. MAP_PRIVATE: the file's until its own write. */
	char *r = mmap(NULL, 2 * PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	printf("private first: %c\n", r[0]);
	pwrite(fd, "B", 1, 0);
	printf("private after file write: %c\n", r[0]);
	r[0] = 'P';
	printf("private own write: %c, file: %c, shared: %c\n", r[0], at(fd, 0),
	    p[0]);
	pwrite(fd, "C", 1, 1);
	p[2] = 'S';
	printf("private page after its write: %c%c, other page: %c\n", r[1],
	    r[2], r[PG + 7]);
	pwrite(fd, "D", 1, PG);
	printf("private unwritten page sees file: %c\n", r[PG]);

	/* 3. Past the end of the file. */
	ftruncate(fd, PG + 904);
	char *s = mmap(NULL, 3 * PG, PROT_READ, MAP_SHARED, fd, 0);
	probe("last byte", s + PG + 903);
	probe("tail of last page", s + PG + 904);
	probe("page past the end", s + 2 * PG);

	/* 4. Truncate while mapped; grow again; extend by write. */
	ftruncate(fd, 100);
	probe("kept page", p + 50);
	probe("truncated page", p + PG);
	probe("private truncated page", r + PG);
	probe("private own page", r);
	ftruncate(fd, 2 * PG);
	probe("grown page", p + PG);
	probe("zeroed tail", p + 150);
	pwrite(fd, "X", 1, PG + 1000);
	probe("write extend", p + PG + 1000);
	p[PG + 1001] = 'Y';
	printf("store read back: %c\n", at(fd, PG + 1001));

	/* 5. msync. */
	err("msync sync", msync(p, 2 * PG, MS_SYNC));
	err("msync async", msync(p, PG, MS_ASYNC));
	err("msync invalidate", msync(p, 2 * PG, MS_INVALIDATE));
	err("msync unaligned", msync(p + 1, PG, MS_SYNC));
	err("msync both", msync(p, PG, MS_SYNC | MS_ASYNC));
	err("msync bad flag", msync(p, PG, 8));
	err("msync zero length", msync(p, 0, MS_SYNC));
	munmap(s, 3 * PG);
	err("msync unmapped", msync(s, PG, MS_SYNC));
	printf("after invalidate: %c %c\n", p[PG + 1000], p[PG + 1001]);

	/* 6. A read-only descriptor. */
	int ro = open("filemap.dat", O_RDONLY);
	char *m = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_SHARED, ro, 0);
	printf("shared writable of read-only fd: %s\n",
	    m == MAP_FAILED ? errname(errno) : "mapped");
	m = mmap(NULL, PG, PROT_READ, MAP_SHARED, ro, 0);
	err("mprotect write", mprotect(m, PG, PROT_READ | PROT_WRITE));
	m = mmap(NULL, PG, PROT_READ, MAP_PRIVATE, ro, 0);
	err("mprotect private write", mprotect(m, PG, PROT_READ | PROT_WRITE));
	close(ro);

	/* 7. What a mapping wrote outlives it. */
	p[10] = 'W';
	munmap(p, 2 * PG);
	munmap(r, 2 * PG);
	close(fd);
	fd = open("filemap.dat", O_RDONLY);
	printf("after close: %c %c %c\n", at(fd, 10), at(fd, PG + 1000),
	    at(fd, PG + 1001));
	close(fd);
	unlink("filemap.dat");
	return 0;
}
