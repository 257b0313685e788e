/*
 * Consecutive children of one parent map different things at the same
 * addresses.  vkernel's recycled stub keeps the read-only mappings its
 * last occupant's first run made (a forked child's first pages, among
 * them those its elder siblings read first: vm/vm_forkhint.c) for the
 * next one, which must claim only those its own page tables hold
 * (host/trap/trap_keep.c).  Before each fork the parent maps, at a fixed
 * address, file A, file B or nothing, by round; the child reads there
 * first thing and must see its own (or fault), never what its elder
 * sibling had.  Each child also maps a file page at a second address
 * where the parent has nothing, after checking that reading there
 * faults.  Children forked and exiting in quick succession, the same
 * stub taken again and again.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG	4096
#define AT	((char *)0x3f000000)	/* unmapped in the parent */
#define AT2	((char *)0x3f200000)	/* A, B or nothing, in the parent */
#define ROUNDS	60

static sigjmp_buf env;

static void
segv(int sig)
{
	(void)sig;
	siglongjmp(env, 1);
}

/* 1 if reading p faulted, 0 if it read something, printing what. */
static int
faults_at(char *p)
{
	volatile char *v = p;
	if (sigsetjmp(env, 1) != 0)
		return 1;
	char c = v[0];
	printf("read %#x at %p without a mapping\n", (unsigned char)c, (void *)p);
	return 0;
}

/* A file of one page of c; its descriptor. */
static int
page_file(const char *path, char c)
{
	char buf[PG];
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	memset(buf, c, sizeof(buf));
	if (fd < 0 || write(fd, buf, sizeof(buf)) != sizeof(buf)) {
		perror(path);
		exit(1);
	}
	return fd;
}

/* 0 if every 512th byte of the page at p is c. */
static int
page_is(const char *p, char c)
{
	for (int i = 0; i < PG; i += 512)
		if (p[i] != c)
			return 1;
	return 0;
}

/*
 * Child r: 0 if all it saw was right.  AT2 holds what the parent mapped
 * there for it (A, B, nothing), read first thing.
 */
static int
child(int r, int fa, int fb)
{
	int bad = 0;

	if (r % 3 == 2 ? !faults_at(AT2) : page_is(AT2, r % 3 ? 'B' : 'A'))
		bad |= 1;
	if (!faults_at(AT))
		bad |= 2;
	int which = r % 3;		/* A, B, nothing */
	if (which < 2) {
		char *m = mmap(AT, PG, PROT_READ, (r & 1 ? MAP_SHARED :
		    MAP_PRIVATE) | MAP_FIXED, which == 0 ? fa : fb, 0);
		if (m != AT)
			return 4;
		bad |= page_is(m, which == 0 ? 'A' : 'B') << 3;
	}
	return bad;
}

/* Maps A, B or nothing at AT2, for round r. */
static int
parent_map(int r, int fa, int fb)
{
	if (r % 3 == 2)
		return munmap(AT2, PG);
	char *m = mmap(AT2, PG, PROT_READ, MAP_PRIVATE | MAP_FIXED,
	    r % 3 ? fb : fa, 0);
	return m == AT2 ? 0 : -1;
}

int
main(void)
{
	char pa[] = "/tmp/forkkeepA.XXXXXX", pb[] = "/tmp/forkkeepB.XXXXXX";
	int ta = mkstemp(pa), tb = mkstemp(pb);
	if (ta < 0 || tb < 0) {
		perror("mkstemp");
		return 1;
	}
	close(ta);
	close(tb);
	int fa = page_file(pa, 'A'), fb = page_file(pb, 'B');
	unlink(pa);
	unlink(pb);
	signal(SIGSEGV, segv);
	int failed = 0;
	for (int r = 0; r < ROUNDS; r++) {
		if (parent_map(r, fa, fb) < 0) {
			printf("round %d: the parent's mapping failed\n", r);
			return 1;
		}
		pid_t p = fork();
		if (p == 0)
			_exit(child(r, fa, fb));
		int st;
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			if (failed++ < 5)
				printf("round %d: status %#x\n", r,
				    p < 0 ? -1 : st);
		}
	}
	printf("children: %s\n", failed ? "FAILED" : "ok");
	return failed != 0;
}
