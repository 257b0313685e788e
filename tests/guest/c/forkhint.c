/*
 * Copy-on-write across many forks whose children touch the pages their
 * elder siblings touched (vkernel enters those pages in each new child
 * before it runs, vm/vm_forkhint.c): every child must see the parent's
 * memory as it was at its fork, never an older sibling's or a stale copy,
 * its writes must stay its own, a shared mapping stays shared, and an
 * unwritten private page of a file goes on showing the file's changes.  The
 * parent changes the pages between forks; children alternate between two
 * sets of pages, read some and write others; grandchildren too.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define PG 4096
#define NPG 24
#define ROUNDS 40

static char bss[NPG * PG];
static char data[NPG * PG] = { 1 };

/* Child's check of round r: 0, or 1 + the page that was wrong. */
static int
check(char *heap, char *anon, int r)
{
	for (int p = r % 2; p < NPG; p += 2)
		if (bss[p * PG] != (char)(r + p) || data[p * PG + 7] != (char)(r - p) ||
		    heap[p * PG + 100] != (char)(r * 3 + p) ||
		    anon[p * PG + 4000] != (char)(r ^ p))
			return 1 + p;
	return 0;
}

/* ... then writes half of what it read: copies of its own. */
static void
scribble(char *heap, char *anon, volatile int *shared, int r)
{
	for (int p = r % 2; p < NPG; p += 4) {
		bss[p * PG] = 'c';
		data[p * PG + 7] = 'c';
		heap[p * PG + 100] = 'c';
		anon[p * PG + 4000] = 'c';
	}
	shared[r] = r + 1000;
}

/*
 * A private mapping of a file that the parent never writes: each child
 * writes its page (its own copy), and the next child, forked before the
 * file changes, must still see the change, as an unwritten private page
 * shows the file's (Linux).  A copy made for it at fork on its elder
 * siblings' example would not.  Returns the failures.
 */
static int
file_rounds(void)
{
	char path[] = "/tmp/forkhint.XXXXXX";
	int fd = mkstemp(path), failures = 0;
	char page[PG];
	memset(page, 'a', sizeof(page));
	if (fd < 0 || write(fd, page, PG) != PG) {
		printf("no file\n");
		return 1;
	}
	unlink(path);
	char *m = mmap(NULL, PG, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (m == MAP_FAILED) {
		printf("no mapping of the file\n");
		return 1;
	}
	for (int r = 0; r < 20; r++) {
		int go[2];
		if (pipe(go) < 0)
			return failures + 1;
		char now = (char)('b' + r % 20);
		pid_t pid = fork();
		if (pid == 0) {
			char c;
			close(go[1]);
			if (read(go[0], &c, 1) != 1)
				_exit(3);
			int bad = m[100] != now;	/* the file changed after the fork */
			m[100] = 'z';		/* a copy of its own, for the next */
			_exit(bad);
		}
		close(go[0]);
		if (pwrite(fd, &now, 1, 100) != 1)
			failures++;
		(void)write(go[1], "g", 1);
		close(go[1]);
		int st;
		if (pid < 0 || waitpid(pid, &st, 0) != pid || st != 0) {
			printf("file round %d: the child did not see the file's change\n",
			    r);
			failures++;
		}
		if (m[100] != now) {
			printf("file round %d: the parent did not see the file's "
			    "change\n", r);
			failures++;
		}
	}
	munmap(m, PG);
	close(fd);
	return failures;
}

int
main(void)
{
	char *heap = malloc(NPG * PG);
	char *anon = mmap(NULL, NPG * PG, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	volatile int *shared = mmap(NULL, PG, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (heap == NULL || anon == MAP_FAILED || shared == MAP_FAILED) {
		printf("no memory\n");
		return 1;
	}
	int failures = 0;
	for (int r = 0; r < ROUNDS; r++) {
		for (int p = 0; p < NPG; p++) {
			bss[p * PG] = (char)(r + p);
			data[p * PG + 7] = (char)(r - p);
			heap[p * PG + 100] = (char)(r * 3 + p);
			anon[p * PG + 4000] = (char)(r ^ p);
		}
		pid_t pid = fork();
		if (pid < 0) {
			printf("fork failed\n");
			return 1;
		}
		if (pid == 0) {
			int bad = check(heap, anon, r);
			/* a grandchild every fifth round: the same view */
			if (!bad && r % 5 == 0) {
				pid_t g = fork();
				if (g == 0) {
					int b = check(heap, anon, r);
					scribble(heap, anon, shared, r);
					_exit(b);
				}
				int st;
				if (g < 0 || waitpid(g, &st, 0) != g || st != 0)
					bad = 100;
				else
					bad = check(heap, anon, r);
			}
			scribble(heap, anon, shared, r);
			_exit(bad);
		}
		int st;
		if (waitpid(pid, &st, 0) != pid || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			printf("round %d: the child saw a wrong page (%d)\n", r,
			    WIFEXITED(st) ? WEXITSTATUS(st) : -1);
			failures++;
		}
		/* the child's writes are not ours; the shared page is */
		for (int p = 0; p < NPG; p++) {
			if (bss[p * PG] != (char)(r + p) ||
			    data[p * PG + 7] != (char)(r - p) ||
			    heap[p * PG + 100] != (char)(r * 3 + p) ||
			    anon[p * PG + 4000] != (char)(r ^ p)) {
				printf("round %d: a child's write reached the parent "
				    "(page %d)\n", r, p);
				failures++;
				break;
			}
		}
		if (shared[r] != r + 1000) {
			printf("round %d: the shared page lost the child's write\n", r);
			failures++;
		}
	}
	failures += file_rounds();
	printf("forkhint: %d rounds, %d failures\n", ROUNDS, failures);
	return failures != 0;
}
