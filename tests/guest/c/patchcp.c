/*
 * read and write through musl's cancellable-call site (__syscall_cp_c:
 * "mov 0x8(%rsp),%r9; mov %rcx,%rdx; syscall", the call's number in a
 * register), which vkernel patches into a jump to its trampoline, while
 * signals arrive: bytes over two pipes between two processes, a blocking
 * read interrupted with and without SA_RESTART, and a storm of timer
 * signals whose handler writes and reads through the same site while the
 * program does too (a signal landing between the site's movs resumes
 * halfway into the patched bytes).  Output must be Linux's; with glibc
 * the same calls go through glibc's own code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#define ROUNDS 3000
#define STORM 30000

static volatile sig_atomic_t sigs;
static int hp[2];		/* the handler's own pipe */
static volatile sig_atomic_t hbad;

static void
on_sig(int s)
{
	(void)s;
	sigs++;
}

/* Through the same site as the program: one byte there and back. */
static void
on_timer(int s)
{
	char c = (char)sigs, d = 0;
	int e = errno;

	(void)s;
	sigs++;
	if (write(hp[1], &c, 1) != 1 || read(hp[0], &d, 1) != 1 || d != c)
		hbad++;
	errno = e;
}

/* Bytes 0..255 cycling there and back; returns how many came back wrong. */
static int
pingpong(void)
{
	int a[2], b[2], bad = 0;

	if (pipe(a) < 0 || pipe(b) < 0)
		return -1;
	pid_t p = fork();
	if (p == 0) {
		unsigned char c;
		for (int i = 0; i < ROUNDS; i++) {
			if (read(a[0], &c, 1) != 1)
				_exit(1);
			c = (unsigned char)(c + 1);
			if (write(b[1], &c, 1) != 1)
				_exit(1);
		}
		_exit(0);
	}
	for (int i = 0; i < ROUNDS; i++) {
		unsigned char c = (unsigned char)i, d;
		if (write(a[1], &c, 1) != 1 || read(b[0], &d, 1) != 1 ||
		    d != (unsigned char)(c + 1))
			bad++;
	}
	int st;
	waitpid(p, &st, 0);
	close(a[0]); close(a[1]); close(b[0]); close(b[1]);
	return bad + !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

/* Waits (up to 5 s) until process c sleeps, i.e. blocks in its read. */
static void
blocked(pid_t c)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)c);
	for (int i = 0; i < 500; i++) {
		usleep(10000);
		FILE *f = fopen(path, "r");
		if (f == NULL)
			return;
		char *s = fgets(buf, sizeof(buf), f);
		fclose(f);
		char *e = s != NULL ? strrchr(s, ')') : NULL;
		if (e != NULL && e[1] == ' ' && e[2] != 'R')
			return;		/* asleep (or gone) */
	}
}

/* A read blocked on an empty pipe, signalled three times, then fed. */
static void
interrupted(int restart)
{
	int p[2];
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigaction(SIGUSR1, &sa, NULL);
	if (pipe(p) < 0)
		return;
	pid_t c = fork();
	if (c == 0) {
		char ch = 0;
		ssize_t n = read(p[0], &ch, 1);
		int e = errno;
		printf("  %s: read %zd%s%s, %d signal(s) taken\n",
		    restart ? "SA_RESTART" : "no SA_RESTART", n,
		    n < 0 ? " " : "", n < 0 ? strerror(e) : "", (int)sigs);
		_exit(0);
	}
	for (int i = 0; i < (restart ? 3 : 1); i++) {
		blocked(c);
		kill(c, SIGUSR1);
	}
	blocked(c);
	if (write(p[1], "x", 1) != 1)
		printf("  write failed\n");
	waitpid(c, NULL, 0);
	close(p[0]);
	close(p[1]);
}

/* The storm: the program's calls and the handler's through one site. */
static void
storm(void)
{
	int p[2], bad = 0;
	struct sigaction sa;
	struct itimerval it = { { 0, 200 }, { 0, 200 } }, off = { { 0, 0 }, { 0, 0 } };

	if (pipe(p) < 0 || pipe(hp) < 0)
		return;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sigs = 0;
	setitimer(ITIMER_REAL, &it, NULL);
	for (int i = 0; i < STORM; i++) {
		char c = (char)i, d = 0;
		if (write(p[1], &c, 1) != 1 || read(p[0], &d, 1) != 1 || d != c)
			bad++;
	}
	setitimer(ITIMER_REAL, &off, NULL);
	printf("storm: %d calls wrong, handler's wrong: %d, signals %s\n",
	    bad, (int)hbad, sigs > 0 ? "came" : "none");
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("pingpong: %d wrong\n", pingpong());
	printf("pingpong again: %d wrong\n", pingpong());
	printf("interrupted read:\n");
	sigs = 0;
	interrupted(1);
	sigs = 0;
	interrupted(0);
	storm();
	return 0;
}
