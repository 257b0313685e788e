/*
 * How threads end and what exec and fork do to them, with raw clone:
 * exit of one thread while another blocks in a system call; exit_group
 * (and a fatal signal) with threads blocked in read and nanosleep; the
 * leader's exit before its threads (the process lives on; its status is
 * the group exit's); execve from a thread (the others die, the caller
 * takes the pid); fork from a thread (the child has the caller only);
 * vfork on shared memory; posix_spawn of a missing file; the process's
 * CPU time is its threads' together, those that ended included.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define STACK_SIZE	(64 * 1024)
#define THREAD_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
	CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID)

extern char **environ;
static int pfd[2];
static volatile pid_t ctid[4];
static volatile int flag;

/* A thread running fn; its CHILD_CLEARTID word is ctid[i]. */
static pid_t
spawn_thread(int (*fn)(void *), int i)
{
	char *stack = malloc(STACK_SIZE);
	ctid[i] = -1;
	return clone(fn, stack + STACK_SIZE, THREAD_FLAGS, NULL, NULL, NULL,
	    &ctid[i]);
}

static void
wait_clear(volatile pid_t *w)
{
	while (*w != 0)
		sched_yield();
}

static long
ms_since(struct timespec a)
{
	struct timespec b;
	clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000 + (b.tv_nsec - a.tv_nsec) / 1000000;
}

static int
blocked_read(void *arg)
{
	char c;
	(void)arg;
	flag++;
	syscall(SYS_read, pfd[0], &c, 1);
	return 0;
}

static int
blocked_sleep(void *arg)
{
	struct timespec ts = { 30, 0 };
	(void)arg;
	flag++;
	syscall(SYS_nanosleep, &ts, NULL);
	return 0;
}

static int
write_and_exit(void *arg)
{
	(void)arg;
	syscall(SYS_write, pfd[1], "x", 1);
	return 0;
}

/* A thread exits (SYS_exit) while the main thread blocks in read. */
static void
test_thread_exit(void)
{
	char c;
	pipe(pfd);
	spawn_thread(write_and_exit, 0);
	printf("thread exit: main's read %zd\n", read(pfd[0], &c, 1));
	wait_clear(&ctid[0]);
	printf("thread exit: cleared, process alive %d\n", getpid() > 0);
	close(pfd[0]);
	close(pfd[1]);
}

/* exit_group, or a signal that kills, ends threads blocked in calls. */
static void
test_exit_group(int by_signal)
{
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pid_t pid = fork();
	if (pid == 0) {
		pipe(pfd);
		flag = 0;
		spawn_thread(blocked_read, 0);
		spawn_thread(blocked_sleep, 1);
		while (flag < 2)
			sched_yield();
		usleep(20000);
		if (by_signal)
			kill(getpid(), SIGTERM);
		syscall(SYS_exit_group, 3);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	long ms = ms_since(t0);
	if (WIFSIGNALED(st))
		printf("exit_group (signal): killed by %d, prompt %d\n",
		    WTERMSIG(st), ms < 5000);
	else
		printf("exit_group: status %d, prompt %d\n", WEXITSTATUS(st),
		    ms < 5000);
}

static int
late_exit_group(void *arg)
{
	(void)arg;
	usleep(50000);
	syscall(SYS_exit_group, 6);
	return 0;
}

static int
late_exit(void *arg)
{
	(void)arg;
	usleep(50000);
	return 4;	/* SYS_exit(4): the last thread of the process */
}

/* The leader exits first (SYS_exit); the process ends with its last thread. */
static void
test_leader_first(int group)
{
	pid_t pid = fork();
	if (pid == 0) {
		spawn_thread(group ? late_exit_group : late_exit, 0);
		syscall(SYS_exit, 2);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	printf("leader exits first, then %s: status %d\n",
	    group ? "exit_group(6)" : "exit(4)", WEXITSTATUS(st));
}

static pid_t exec_pid;

static int
exec_thread(void *arg)
{
	char pidarg[16];
	char *argv[] = { "threadexit", "--after-exec", pidarg, NULL };
	(void)arg;
	snprintf(pidarg, sizeof(pidarg), "%d", (int)exec_pid);
	syscall(SYS_execve, "/proc/self/exe", argv, environ);
	syscall(SYS_exit_group, 99);
	return 0;
}

/* execve from a thread while the leader and another thread block. */
static void
test_exec_from_thread(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		pipe(pfd);
		exec_pid = getpid();
		spawn_thread(blocked_sleep, 1);
		spawn_thread(exec_thread, 0);
		char c;
		read(pfd[0], &c, 1);	/* until the exec ends this thread */
		_exit(98);
	}
	int st = 0;
	waitpid(pid, &st, 0);
	printf("exec from a thread: status %d\n", WEXITSTATUS(st));
}

/* Run after the exec: the pid is the old one, and we are its only thread. */
static int
after_exec(const char *pidarg)
{
	int n = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	while (d != NULL && (de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	if (d != NULL)
		closedir(d);
	printf("after exec: same pid %d, tid is pid %d, threads %d\n",
	    getpid() == atoi(pidarg), (pid_t)syscall(SYS_gettid) == getpid(), n);
	return 7;
}

static volatile int fork_status = -1;

static int
fork_thread(void *arg)
{
	(void)arg;
	pid_t pid = (pid_t)syscall(SYS_fork);
	if (pid == 0) {
		/* The child: a single thread, whose tid is its pid. */
		int ok = (pid_t)syscall(SYS_gettid) == (pid_t)syscall(SYS_getpid);
		syscall(SYS_exit_group, ok ? 11 : 12);
	}
	int st = 0;
	syscall(SYS_wait4, pid, &st, 0, NULL);
	fork_status = WEXITSTATUS(st);
	return 0;
}

static void
test_fork_from_thread(void)
{
	spawn_thread(fork_thread, 0);
	wait_clear(&ctid[0]);
	printf("fork from a thread: child status %d\n", fork_status);
}

static void
test_vfork(void)
{
	volatile int shared = 0;
	pid_t pid = vfork();
	if (pid == 0) {
		shared = 1;	/* the parent's memory, as Linux */
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("vfork: memory shared %d\n", shared);

	pid_t sp;
	char *argv[] = { "true", NULL };
	int r = posix_spawn(&sp, "/nonexistent/program", NULL, NULL, argv, environ);
	printf("posix_spawn of a missing file: %s\n", strerror(r));
	r = posix_spawn(&sp, "/bin/true", NULL, NULL, argv, environ);
	if (r == 0)
		waitpid(sp, &st, 0);
	printf("posix_spawn of /bin/true: %s, status %d\n", strerror(r),
	    WEXITSTATUS(st));
}

static uint64_t
cpu_ns(clockid_t c)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Spins until the calling thread has used ms of CPU; returns what it used. */
static uint64_t
spin_ms(int ms)
{
	while (cpu_ns(CLOCK_THREAD_CPUTIME_ID) < (uint64_t)ms * 1000000u)
		;
	return cpu_ns(CLOCK_THREAD_CPUTIME_ID);
}

static volatile uint64_t spun;

static int
spin_thread(void *arg)
{
	(void)arg;
	spun = spin_ms(100);
	return 0;
}

static void
test_cputime(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		spawn_thread(spin_thread, 0);
		uint64_t mine = spin_ms(100);
		wait_clear(&ctid[0]);
		uint64_t all = cpu_ns(CLOCK_PROCESS_CPUTIME_ID);
		printf("cpu time: the process's covers both threads' %d\n",
		    all >= mine + spun && spun >= 100000000u);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc == 3 && strcmp(argv[1], "--after-exec") == 0)
		return after_exec(argv[2]);
	test_thread_exit();
	test_exit_group(0);
	test_exit_group(1);
	test_leader_first(0);
	test_leader_first(1);
	test_exec_from_thread();
	test_fork_from_thread();
	test_vfork();
	test_cputime();
	return 0;
}
