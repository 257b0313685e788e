/*
 * Kernel benchmark, run the same natively, inside vkernel and under
 * User-Mode Linux: each figure is the median of several rounds, in
 * microseconds per operation, one "name value" line each.
 *
 *   kbench [MiB [ONLY]]  MiB: how much anonymous memory the first-touch
 *                    test touches (default 256); ONLY: a comma-separated
 *                    list of the figures to run (default: all)
 *
 * As PID 1 (UML's rdinit=, vkernel's init) it powers the machine off at
 * the end. fork+exec runs "exit0", a tiny static program that must sit in
 * the same directory as kbench. If macro.sh and bb/ (busybox's sh, md5sum
 * and rm) sit there too, the shell macro runs last, timed whole, in ms.
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096
#define MAXROUNDS 15

static double
now_us(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One warm-up round, then the median of `rounds`. */
static double
median(double (*fn)(int), int n, int rounds)
{
	double v[MAXROUNDS];
	fn(n / 10 > 0 ? n / 10 : 1);
	for (int r = 0; r < rounds; r++)
		v[r] = fn(n);
	qsort(v, (size_t)rounds, sizeof(double), cmp);
	return v[rounds / 2];
}

static const char *only;	/* the figures to run, comma-separated; NULL: all */

/* Whether figure name is to run. */
static int
wanted(const char *name)
{
	size_t n = strlen(name);
	for (const char *s = only; s != NULL; s = strchr(s, ',')) {
		s += *s == ',';
		if (strncmp(s, name, n) == 0 && (s[n] == ',' || s[n] == '\0'))
			return 1;
	}
	return only == NULL;
}

static void
report(const char *name, const char *fmt, double v)
{
	printf("%s ", name);
	printf(fmt, v);
	printf("\n");
	fflush(stdout);
}

/*
 * getpid through libc (musl: "mov $39,%eax; syscall", the pair vkernel
 * patches, --patch); no libc caches it.
 */
static double
b_getpid(int n)
{
	double t = now_us();
	for (int i = 0; i < n; i++)
		(void)getpid();
	return (now_us() - t) / n;
}

/* clock_gettime through libc: the vDSO's, where there is one. */
static double
b_clock(int n)
{
	struct timespec ts;
	double t = now_us();
	for (int i = 0; i < n; i++)
		clock_gettime(CLOCK_MONOTONIC, &ts);
	return (now_us() - t) / n;
}

static void
reap(pid_t p)
{
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		fprintf(stderr, "kbench: child failed (%s)\n", strerror(errno));
		exit(1);
	}
}

static double
b_fork(int n)
{
	double t = now_us();
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		reap(p);
	}
	return (now_us() - t) / n;
}

static char exit0[256];
static char dir[256];	/* kbench's directory, with its slash */

static double
b_forkexec(int n)
{
	double t = now_us();
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p == 0) {
			execl(exit0, exit0, (char *)0);
			_exit(127);
		}
		reap(p);
	}
	return (now_us() - t) / n;
}

/* Writes one byte to each page of a fresh anonymous mapping. */
static double
b_touch(int pages)
{
	size_t len = (size_t)pages * PAGE;
	volatile char *m = mmap(NULL, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m == MAP_FAILED) {
		perror("kbench: mmap");
		exit(1);
	}
	double t = now_us();
	for (size_t off = 0; off < len; off += PAGE)
		m[off] = 1;
	t = (now_us() - t) / pages;
	munmap((void *)m, len);
	return t;
}

/* One byte each way between two processes over two pipes. */
static double
b_pipe(int n)
{
	int a[2], b[2];
	char c = 0;
	if (pipe(a) < 0 || pipe(b) < 0) {
		perror("kbench: pipe");
		exit(1);
	}
	pid_t p = fork();
	if (p == 0) {
		for (int i = 0; i < n; i++)
			if (read(a[0], &c, 1) != 1 || write(b[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	double t = now_us();
	for (int i = 0; i < n; i++)
		if (write(a[1], &c, 1) != 1 || read(b[0], &c, 1) != 1)
			break;
	t = (now_us() - t) / n;
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	reap(p);
	return t;
}

/*
 * A futex hand-off over the word w, n rounds: each side bumps the word,
 * wakes the other and waits for its turn.  side 0 starts; op_flags is
 * 0 (shared) or FUTEX_PRIVATE_FLAG.
 */
static void
futex_turns(uint32_t *w, int n, int side, int op_flags)
{
	for (uint32_t i = 0; i < (uint32_t)n; i++) {
		uint32_t mine = 2 * i + (uint32_t)side;
		while (__atomic_load_n(w, __ATOMIC_ACQUIRE) != mine)
			syscall(SYS_futex, w, 0 /* FUTEX_WAIT */ | op_flags,
			    mine - 1, NULL, NULL, 0);
		__atomic_store_n(w, mine + 1, __ATOMIC_RELEASE);
		syscall(SYS_futex, w, 1 /* FUTEX_WAKE */ | op_flags, 1, NULL, NULL, 0);
	}
}

/* The hand-off between two processes sharing a page (shared futex). */
static double
b_futex(int n)
{
	uint32_t *w = mmap(NULL, PAGE, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (w == MAP_FAILED) {
		perror("kbench: mmap");
		exit(1);
	}
	pid_t p = fork();
	if (p == 0) {
		futex_turns(w, n, 1, 0);
		_exit(0);
	}
	double t = now_us();
	futex_turns(w, n, 0, 0);
	t = (now_us() - t) / n;
	reap(p);
	munmap(w, PAGE);
	return t;
}

static uint32_t futex_word;
static int futex_rounds;

static void *
futex_thread(void *arg)
{
	(void)arg;
	futex_turns(&futex_word, futex_rounds, 1, 128 /* FUTEX_PRIVATE_FLAG */);
	return NULL;
}

/* The hand-off between two threads of one process (private futex). */
static double
b_futex_thread(int n)
{
	pthread_t th;
	futex_word = 0;
	futex_rounds = n;
	if (pthread_create(&th, NULL, futex_thread, NULL) != 0) {
		fprintf(stderr, "kbench: thread create failed\n");
		exit(1);
	}
	double t = now_us();
	futex_turns(&futex_word, n, 0, 128);
	t = (now_us() - t) / n;
	pthread_join(th, NULL);
	return t;
}

/*
 * n separate one-page mappings: each asked for at a hint one page past
 * the previous, so no two are adjacent and none can merge, and each is
 * touched once. The time to unmap them is reported apart.
 */
static double munmap_us[MAXROUNDS + 1];
static int munmap_n;
static int hint_misses;

static double
b_mmaps(int n)
{
	size_t span = (size_t)n * 2 * PAGE;
	char *base = mmap(NULL, span, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char **v = malloc(sizeof(char *) * (size_t)n);
	if (base == MAP_FAILED || v == NULL) {
		perror("kbench: mmap");
		exit(1);
	}
	munmap(base, span);
	double t = now_us();
	for (int i = 0; i < n; i++) {
		char *want = base + (size_t)i * 2 * PAGE;
		v[i] = mmap(want, PAGE, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (v[i] == MAP_FAILED) {
			perror("kbench: mmap");
			exit(1);
		}
		if (v[i] != want)
			hint_misses++;
		*(volatile char *)v[i] = 1;
	}
	t = (now_us() - t) / n;
	double u = now_us();
	for (int i = 0; i < n; i++)
		munmap(v[i], PAGE);
	if (munmap_n <= MAXROUNDS)
		munmap_us[munmap_n++] = (now_us() - u) / n;
	free(v);
	return t;
}

static void *
thread_noop(void *arg)
{
	return arg;
}

/* pthread_create and pthread_join of a thread that returns at once. */
static double
b_thread(int n)
{
	double t = now_us();
	for (int i = 0; i < n; i++) {
		pthread_t th;
		void *ret;
		if (pthread_create(&th, NULL, thread_noop, NULL) != 0 ||
		    pthread_join(th, &ret) != 0) {
			fprintf(stderr, "kbench: thread create or join failed\n");
			exit(1);
		}
	}
	return (now_us() - t) / n;
}

/*
 * The shell macro (macro.sh): one whole run, in milliseconds, or -1 if
 * it is not there. Its applets come from bb/ beside us, links to the
 * same busybox natively and inside.
 */
static double
b_macro(void)
{
	char sh[300], script[300], path[300], work[64];
	snprintf(sh, sizeof(sh), "%sbb/sh", dir);
	snprintf(script, sizeof(script), "%smacro.sh", dir);
	snprintf(path, sizeof(path), "PATH=%sbb", dir);
	snprintf(work, sizeof(work), "/tmp/kbench-macro.%d", (int)getpid());
	if (access(sh, X_OK) != 0 || access(script, R_OK) != 0)
		return -1;
	double t = now_us();
	pid_t p = fork();
	if (p == 0) {
		char *av[] = { "sh", script, work, NULL };
		char *ev[] = { path, NULL };
		execve(sh, av, ev);
		_exit(127);
	}
	reap(p);
	return (now_us() - t) / 1000;
}

int
main(int argc, char **argv)
{
	/* exit0 beside argv[0] */
	const char *slash = strrchr(argv[0], '/');
	int dirlen = slash ? (int)(slash - argv[0] + 1) : 0;
	snprintf(exit0, sizeof(exit0), "%.*sexit0", dirlen, argv[0]);
	snprintf(dir, sizeof(dir), "%.*s", dirlen, argv[0]);
	int mib = argc > 1 ? atoi(argv[1]) : 256;
	if (mib <= 0)
		mib = 256;

	only = argc > 2 ? argv[2] : NULL;

#define RUN(name, fmt, expr) do { if (wanted(name)) report(name, fmt, expr); } while (0)
	RUN("getpid", "%.3f", median(b_getpid, 20000, 7));
	RUN("clock_gettime", "%.3f", median(b_clock, 100000, 7));
	RUN("fork+exit+wait", "%.1f", median(b_fork, 200, 7));
	RUN("fork+exec+wait", "%.1f", median(b_forkexec, 100, 7));
	RUN("first-touch-per-page", "%.2f",
	    median(b_touch, mib * (1024 * 1024 / PAGE), 3));
	RUN("pipe-round-trip", "%.2f", median(b_pipe, 5000, 7));
	RUN("futex-round-trip", "%.2f", median(b_futex, 5000, 7));
	RUN("futex-round-trip-threads", "%.2f", median(b_futex_thread, 5000, 7));
	RUN("thread-create+join", "%.1f", median(b_thread, 500, 7));
	if (wanted("mmap+touch-per-mapping") || wanted("munmap-per-mapping")) {
		report("mmap+touch-per-mapping", "%.2f",
		    median(b_mmaps, 10000, 5));
		/* the rounds after the warm-up one */
		qsort(munmap_us + 1, (size_t)munmap_n - 1, sizeof(double), cmp);
		report("munmap-per-mapping", "%.2f",
		    munmap_us[1 + (munmap_n - 1) / 2]);
	}
	if (wanted("shell-macro")) {
		double macro = b_macro();
		if (macro >= 0)
			report("shell-macro", "%.0f", macro);
	}
#undef RUN
	if (hint_misses)
		printf("# %d mappings missed their hint: they may have merged\n",
		    hint_misses);
	fflush(stdout);
	if (getpid() == 1) {
		/* UML: init must not exit; vkernel: returns ENOSYS, exit is fine */
		reboot(RB_POWER_OFF);
	}
	return 0;
}
