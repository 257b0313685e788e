/*
 * A signal posted just as its target enters a blocking call: the call
 * must end.  A child says it is about to block (a word in shared memory)
 * and blocks in read, wait4, futex, nanosleep, accept or poll; the
 * parent, spinning on another CPU, sends SIGTERM a random few
 * microseconds later, so that the signal lands anywhere from the way
 * into the system call to the sleep.  The child must die of it every
 * time: a signal posted before the sleep begins that the sleep does not
 * see leaves the child asleep for good (it is given 2 s, then SIGKILL).
 * Then the signals that must not end a sleep: a blocked one (the read
 * gets its byte), a handled one for a parent waiting on its vfork child
 * (a killing one does), any but SIGCONT and SIGKILL for a stopped
 * process (each then acts once the wait or the stop is over).
 */
#include "thr.h"

#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>

#define FUTEX_WAIT	0		/* <linux/futex.h>, which musl-gcc does not see */
#define ROUNDS		100
#define DEATH_NS	2000000000LL	/* a child the signal missed */

static volatile int *ready;		/* shared with the children */
static int pipefd[2], lsock;

static long long
now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
spin_ns(long long ns)
{
	long long end = now_ns() + ns;
	while (now_ns() < end)
		;
}

/* The blocking calls, each of which only a signal ends. */
static void
op_read(void)
{
	char c;
	(void)read(pipefd[0], &c, 1);
}

static void
op_wait(void)
{
	/* A grandchild that lives until the child dies (EOF on its pipe). */
	int p[2];
	if (pipe(p) < 0)
		_exit(3);
	pid_t g = fork();
	if (g == 0) {
		char c;
		close(p[1]);
		(void)read(p[0], &c, 1);
		_exit(0);
	}
	close(p[0]);
	*ready = 1;
	(void)waitpid(g, NULL, 0);
}

static void
op_futex(void)
{
	static int word;
	(void)syscall(SYS_futex, &word, FUTEX_WAIT, 0, NULL, NULL, 0);
}

static void
op_nanosleep(void)
{
	struct timespec ts = { 30, 0 };
	(void)nanosleep(&ts, NULL);
}

static void
op_accept(void)
{
	(void)accept(lsock, NULL, NULL);
}

static void
op_poll(void)
{
	struct pollfd pfd = { .fd = pipefd[0], .events = POLLIN };
	(void)poll(&pfd, 1, -1);
}

/*
 * Waits up to DEATH_NS for child pid to end; returns its wait status, or
 * -1 if it did not (it is then killed and reaped).
 */
static int
reap_within(pid_t pid)
{
	long long end = now_ns() + DEATH_NS;
	int st;
	while (now_ns() < end) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid)
			return st;
		if (r < 0)
			return -2;
		usleep(1000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

/* ROUNDS children blocking in op, each sent SIGTERM as it enters it. */
static void
race(const char *name, void (*op)(void), int op_says_ready)
{
	int dead = 0, hung = 0, other = 0;
	for (int r = 0; r < ROUNDS; r++) {
		*ready = 0;
		pid_t pid = fork();
		if (pid < 0) {
			other++;
			continue;
		}
		if (pid == 0) {
			if (!op_says_ready)
				*ready = 1;
			for (;;)
				op();
		}
		while (!*ready)
			sched_yield();
		/* 0 to ~30 us: the landing spot moves across the entry. */
		spin_ns((r * 7919) % 31 * 1000);
		kill(pid, SIGTERM);
		int st = reap_within(pid);
		if (st == -1)
			hung++;
		else if (st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM)
			dead++;
		else
			other++;
	}
	char what[80];
	snprintf(what, sizeof(what), "SIGTERM racing %s ends it every time", name);
	if (hung != 0 || other != 0)
		printf("FAIL %s: %d of %d hung, %d ended otherwise\n", what, hung,
		    ROUNDS, other), thr_failures++;
	else
		EXPECT(dead, ROUNDS, what);
}

/* A blocked signal sent as the child enters read: the read gets its byte. */
static void
blocked_read(void)
{
	int good = 0;
	for (int r = 0; r < ROUNDS / 4; r++) {
		*ready = 0;
		pid_t pid = fork();
		if (pid == 0) {
			sigset_t set;
			char c;
			sigemptyset(&set);
			sigaddset(&set, SIGUSR1);
			sigprocmask(SIG_BLOCK, &set, NULL);
			*ready = 1;
			ssize_t n = read(pipefd[0], &c, 1);
			_exit(n == 1 ? 0 : 1);
		}
		while (!*ready)
			sched_yield();
		spin_ns((r * 7919) % 31 * 1000);
		kill(pid, SIGUSR1);
		usleep(20000);
		(void)write(pipefd[1], "x", 1);
		int st = reap_within(pid);
		good += st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	}
	EXPECT(good, ROUNDS / 4, "a blocked signal does not end a read");
}

/*
 * A parent waiting for its vfork child sleeps on through signals it
 * would handle (Linux's wait is killable only), but a signal that kills
 * it (SIGTERM, default action) ends the wait at once: it dies while the
 * child still sleeps.  Each round has its own word: the orphaned child
 * writes 2 into it later.
 */
static int vfork_flag;

static void
on_usr1(int sig)
{
	(void)sig;
	vfork_flag = 1;
}

static void
vfork_wait(void)
{
	int killed = 0, waited = 0;
	for (int r = 0; r < 5; r++) {
		volatile int *word = &ready[16 + r];
		*ready = 0;
		pid_t pid = fork();
		if (pid == 0) {
			struct sigaction sa = { .sa_handler = on_usr1 };
			sigaction(SIGUSR1, &sa, NULL);
			*ready = 1;
			if (vfork() == 0) {
				struct timespec ts = { 0, 200000000 };
				nanosleep(&ts, NULL);
				*word = 2;
				_exit(0);
			}
			/* SIGUSR1 was taken only once the child had exited. */
			_exit(vfork_flag && *word == 2 ? 0 : 1);
		}
		while (!*ready)
			sched_yield();
		usleep(20000);
		if (r == 0) {
			kill(pid, SIGUSR1);
			int st = reap_within(pid);
			waited += st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
			continue;
		}
		kill(pid, SIGTERM);
		int st = reap_within(pid);
		killed += st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM &&
		    *word != 2;
	}
	EXPECT(waited, 1, "a handled signal waits for the vfork child");
	EXPECT(killed, 4, "SIGTERM kills a parent waiting for its vfork child at once");
}

/*
 * SIGTERM to a stopped process stays pending: the process stays
 * stopped, and dies of it once continued.
 */
static void
stopped(void)
{
	int st;
	pid_t pid = fork();
	if (pid == 0) {
		for (;;)
			pause();
	}
	kill(pid, SIGSTOP);
	CHECK(waitpid(pid, &st, WUNTRACED) == pid && WIFSTOPPED(st),
	    "the child stops");
	kill(pid, SIGTERM);
	usleep(100000);
	EXPECT(waitpid(pid, &st, WNOHANG), 0, "SIGTERM leaves it stopped");
	kill(pid, SIGCONT);
	st = reap_within(pid);
	CHECK(st >= 0 && WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	    "SIGCONT lets SIGTERM kill it");
}

int
main(void)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };

	thr_init();
	ready = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (ready == MAP_FAILED || pipe(pipefd) < 0)
		return 1;
	/* An abstract name, unique to this run. */
	snprintf(sun.sun_path + 1, sizeof(sun.sun_path) - 1, "sigrace-%d", getpid());
	lsock = socket(AF_UNIX, SOCK_STREAM, 0);
	if (lsock < 0 || bind(lsock, (struct sockaddr *)&sun, sizeof(sun)) < 0 ||
	    listen(lsock, 1) < 0)
		return 1;

	race("read", op_read, 0);
	race("wait4", op_wait, 1);
	race("futex", op_futex, 0);
	race("nanosleep", op_nanosleep, 0);
	race("accept", op_accept, 0);
	race("poll", op_poll, 0);
	blocked_read();
	vfork_wait();
	stopped();
	return thr_exit_status();
}
