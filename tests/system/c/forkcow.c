/*
 * Copy-on-write right after fork.  vkernel may leave the parent's host
 * mappings writable after fork returns and drop them with the parent's
 * next resume (vmspace_fork, MADV_INVAL_DEFER): the parent's writes
 * right after fork, to pages it wrote before (its data, heap and stack,
 * and a page written at every fork), must never show in the child, nor
 * the child's in the parent.  Then the same while another thread of the
 * parent writes a page all the time: the child's copy must hold still.
 * Prints what it checked; any mismatch is named.
 *
 *   forkcow [rounds]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PG	4096

static volatile long data[PG / sizeof(long) * 4];	/* four pages */
static volatile long spin_page[PG / sizeof(long)];
static volatile int stop;

/* The values the child must see of round r, written before the fork. */
static void
fill(volatile long *p, size_t n, long v)
{
	for (size_t i = 0; i < n; i += PG / sizeof(long))
		p[i] = v;
}

static int
check(const volatile long *p, size_t n, long v)
{
	for (size_t i = 0; i < n; i += PG / sizeof(long))
		if (p[i] != v)
			return -1;
	return 0;
}

/*
 * One round: the parent writes round into its data, heap and stack
 * pages, forks and writes -round into all of them at once, then lets
 * the child look (a pipe); the child checks, writes its own values and
 * lets the parent look.  Returns 0 or a string saying what differed.
 */
static const char *
round_once(long r, volatile long *heap)
{
	volatile long stack[PG / sizeof(long) * 2];
	int to_child[2], to_parent[2];
	char c = 0;

	fill(data, sizeof(data) / sizeof(long), r);
	fill(heap, PG / sizeof(long) * 4, r);
	fill(stack, sizeof(stack) / sizeof(long), r);
	if (pipe(to_child) < 0 || pipe(to_parent) < 0)
		return "pipe";
	pid_t pid = fork();
	if (pid < 0)
		return "fork";
	if (pid == 0) {
		if (read(to_child[0], &c, 1) != 1)
			_exit(2);
		int bad = check(data, sizeof(data) / sizeof(long), r) |
		    check(heap, PG / sizeof(long) * 4, r) |
		    check(stack, sizeof(stack) / sizeof(long), r);
		fill(data, sizeof(data) / sizeof(long), r + 1);
		fill(heap, PG / sizeof(long) * 4, r + 1);
		fill(stack, sizeof(stack) / sizeof(long), r + 1);
		if (write(to_parent[1], &c, 1) != 1)
			_exit(2);
		_exit(bad ? 1 : 0);
	}
	/* At once: these pages are the child's too until now. */
	fill(data, sizeof(data) / sizeof(long), -r);
	fill(heap, PG / sizeof(long) * 4, -r);
	fill(stack, sizeof(stack) / sizeof(long), -r);
	const char *why = NULL;
	if (write(to_child[1], &c, 1) != 1 || read(to_parent[0], &c, 1) != 1)
		why = "pipe i/o";
	else if (check(data, sizeof(data) / sizeof(long), -r) ||
	    check(heap, PG / sizeof(long) * 4, -r) ||
	    check(stack, sizeof(stack) / sizeof(long), -r))
		why = "the parent saw the child's writes";
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return "waitpid";
	if (why == NULL && !(WIFEXITED(st) && WEXITSTATUS(st) == 0))
		why = WIFEXITED(st) && WEXITSTATUS(st) == 1 ?
		    "the child saw the parent's writes after fork" :
		    "the child failed";
	close(to_child[0]);
	close(to_child[1]);
	close(to_parent[0]);
	close(to_parent[1]);
	return why;
}

static void *
writer(void *arg)
{
	(void)arg;
	for (long i = 1; !stop; i++)
		spin_page[0] = i;
	return NULL;
}

/*
 * With a thread of the parent writing spin_page all the while: the
 * child's copy, read twice 2 ms apart, must not change.
 */
static const char *
thread_round(void)
{
	pid_t pid = fork();
	if (pid < 0)
		return "fork";
	if (pid == 0) {
		long a = spin_page[0];
		struct timespec ts = { 0, 2000000 };
		nanosleep(&ts, NULL);
		_exit(spin_page[0] == a ? 0 : 1);
	}
	int st;
	if (waitpid(pid, &st, 0) != pid)
		return "waitpid";
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		return "the child's copy changed under it";
	return NULL;
}

int
main(int argc, char **argv)
{
	long rounds = argc > 1 ? atol(argv[1]) : 300;
	volatile long *heap = malloc(PG * 4);
	const char *why = NULL;
	long r;

	if (heap == NULL)
		return 1;
	for (r = 1; r <= rounds && why == NULL; r++)
		why = round_once(r, heap);
	if (why != NULL) {
		printf("round %ld: %s\n", r - 1, why);
		return 1;
	}
	printf("%ld rounds of writes right after fork: copies kept apart\n",
	    rounds);

	pthread_t t;
	if (pthread_create(&t, NULL, writer, NULL) != 0)
		return 1;
	while (spin_page[0] == 0)
		;
	for (r = 1; r <= rounds / 10 && why == NULL; r++)
		why = thread_round();
	stop = 1;
	pthread_join(t, NULL);
	if (why != NULL) {
		printf("thread round %ld: %s\n", r - 1, why);
		return 1;
	}
	printf("%ld forks beside a writing thread: the child's copy held\n",
	    rounds / 10);
	return 0;
}
