/*
 * clone and clone3 without pthreads: threads (CLONE_THREAD) share the
 * address space, descriptors, cwd and umask, and the pid; tid words are
 * written and cleared; the processes clone makes share what their flags
 * say and nothing else; Linux's refusals (EINVAL, E2BIG) for bad flag
 * combinations and clone_args sizes.  A thread's child waits by polling
 * its CHILD_CLEARTID word (no futex needed).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_clone3
#define SYS_clone3	435
#endif
#ifndef CLONE_DETACHED
#define CLONE_DETACHED	0x00400000
#endif

/* Linux's struct clone_args (CLONE_ARGS_SIZE_VER2). */
struct clone_args {
	uint64_t flags, pidfd, child_tid, parent_tid, exit_signal;
	uint64_t stack, stack_size, tls, set_tid, set_tid_size, cgroup;
};

#define STACK_SIZE	(64 * 1024)
#define THREAD_FLAGS	(CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND | \
	CLONE_THREAD | CLONE_SYSVSEM | CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID)

static volatile int shared;
static volatile pid_t child_tid_word, parent_tid_word;
static volatile pid_t seen_pid, seen_tid;
static int fd_opened = -1;

static char *
new_stack(void)
{
	char *s = malloc(STACK_SIZE);
	return s + STACK_SIZE;
}

/* Waits until the kernel clears a CHILD_CLEARTID word (thread exit). */
static void
wait_clear(volatile pid_t *w)
{
	while (*w != 0)
		sched_yield();
}

static int
thread_body(void *arg)
{
	(void)arg;
	seen_pid = (pid_t)syscall(SYS_getpid);
	seen_tid = (pid_t)syscall(SYS_gettid);
	shared = 42;
	/* Descriptors and fs state are the process's. */
	fd_opened = (int)syscall(SYS_open, "/", O_RDONLY | O_DIRECTORY);
	syscall(SYS_chdir, "/");
	syscall(SYS_umask, 027);
	return 0;	/* libc's clone makes SYS_exit: this thread only */
}

static void
test_thread(void)
{
	char before[256], after[256];
	getcwd(before, sizeof(before));
	mode_t old = umask(022);
	child_tid_word = -1;
	int tid = clone(thread_body, new_stack(), THREAD_FLAGS, NULL,
	    &parent_tid_word, NULL, &child_tid_word);
	if (tid < 0) {
		printf("thread: clone: %s\n", strerror(errno));
		return;
	}
	wait_clear(&child_tid_word);
	printf("thread: tid is new %d, parent_tid %d, pid shared %d, "
	    "memory shared %d\n", tid != getpid(), parent_tid_word == tid,
	    seen_pid == getpid(), shared == 42);
	printf("thread: its gettid is the clone result %d\n", seen_tid == tid);
	printf("thread: fd open here %d, cwd moved %d, umask %03o\n",
	    fcntl(fd_opened, F_GETFD) == 0, getcwd(after, sizeof(after)) != NULL &&
	    strcmp(after, "/") == 0, (unsigned)umask(old));
	close(fd_opened);
	chdir(before);
}

static int
proc_body(void *arg)
{
	int fd = (int)(intptr_t)arg;
	shared = 7;
	close(fd);
	umask(077);
	return 5;
}

/* CLONE_VM alone: a process on our memory, with its own files and cwd. */
static void
test_vm_process(void)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	mode_t old = umask(022);
	shared = 0;
	int pid = clone(proc_body, new_stack(), CLONE_VM | SIGCHLD,
	    (void *)(intptr_t)fd);
	int st = 0;
	waitpid(pid, &st, 0);
	printf("vm process: exit %d, memory shared %d, fd still open %d, "
	    "umask %03o\n", WEXITSTATUS(st), shared == 7,
	    fcntl(fd, F_GETFD) == 0, (unsigned)umask(old));
	close(fd);
	/* With CLONE_FILES | CLONE_FS, its close and umask are ours. */
	fd = open("/", O_RDONLY | O_DIRECTORY);
	old = umask(022);
	pid = clone(proc_body, new_stack(), CLONE_VM | CLONE_FILES | CLONE_FS |
	    SIGCHLD, (void *)(intptr_t)fd);
	waitpid(pid, &st, 0);
	printf("files+fs process: exit %d, fd closed %d, umask %03o\n",
	    WEXITSTATUS(st), fcntl(fd, F_GETFD) < 0 && errno == EBADF,
	    (unsigned)umask(old));
}

static volatile int release;

static int
waiting_body(void *arg)
{
	(void)arg;
	while (!release)
		sched_yield();
	return 0;
}

/* The first line of path starting with key, its value as a number. */
static long
status_field(const char *path, const char *key)
{
	char line[256];
	long v = -1;
	FILE *f = fopen(path, "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, strlen(key)) == 0) {
			v = atol(line + strlen(key));
			break;
		}
	if (f != NULL)
		fclose(f);
	return v;
}

/* /proc/PID/task and the Threads, Tgid and Pid fields. */
static void
test_proc_task(void)
{
	char path[64];
	release = 0;
	child_tid_word = -1;
	int tid = clone(waiting_body, new_stack(), THREAD_FLAGS, NULL,
	    &parent_tid_word, NULL, &child_tid_word);
	int n = 0, saw_tid = 0, saw_pid = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *de;
	while (d != NULL && (de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		n++;
		saw_tid |= atoi(de->d_name) == tid;
		saw_pid |= atoi(de->d_name) == getpid();
	}
	if (d != NULL)
		closedir(d);
	printf("task: %d entries, the thread %d, the leader %d\n", n, saw_tid,
	    saw_pid);
	printf("status: Threads %ld\n", status_field("/proc/self/status",
	    "Threads:"));
	snprintf(path, sizeof(path), "/proc/self/task/%d/status", tid);
	printf("task status: Pid is the tid %d, Tgid the pid %d\n",
	    status_field(path, "Pid:") == tid,
	    status_field(path, "Tgid:") == getpid());
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", getpid(), tid);
	FILE *f = fopen(path, "r");
	int sid = 0;
	if (f != NULL) {
		if (fscanf(f, "%d", &sid) != 1)
			sid = 0;
		fclose(f);
	}
	printf("task stat: first field the tid %d\n", sid == tid);
	snprintf(path, sizeof(path), "/proc/self/task/%d/comm", tid);
	printf("task comm readable %d\n", access(path, R_OK) == 0);
	release = 1;
	wait_clear(&child_tid_word);
	usleep(100000);		/* Linux clears the word before the task goes */
	snprintf(path, sizeof(path), "/proc/self/task/%d", tid);
	printf("after its exit: task entry %s\n", access(path, F_OK) == 0 ?
	    "present" : strerror(errno));
	printf("status: Threads %ld\n", status_field("/proc/self/status",
	    "Threads:"));
}

static volatile long unshare_vm, unshare_bad;

static int
unshare_body(void *arg)
{
	int fd = (int)(intptr_t)arg;
	unshare_vm = syscall(SYS_unshare, CLONE_VM) < 0 ? -errno : 0;
	unshare_bad = syscall(SYS_unshare, 0x1) < 0 ? -errno : 0;
	if (syscall(SYS_unshare, CLONE_FILES | CLONE_FS) < 0)
		return 1;
	close(fd);
	umask(077);
	return 0;
}

/* unshare gives a process sharing our table and fs state its own. */
static void
test_unshare(void)
{
	int fd = open("/", O_RDONLY | O_DIRECTORY);
	mode_t old = umask(022);
	int pid = clone(unshare_body, new_stack(), CLONE_VM | CLONE_FILES |
	    CLONE_FS | SIGCHLD, (void *)(intptr_t)fd);
	int st = 0;
	waitpid(pid, &st, 0);
	printf("unshare: exit %d, our fd still open %d, our umask %03o, "
	    "CLONE_VM while shared %s, a bad flag %s\n", WEXITSTATUS(st),
	    fcntl(fd, F_GETFD) == 0, (unsigned)umask(old),
	    strerror((int)-unshare_vm), strerror((int)-unshare_bad));
	close(fd);
	printf("unshare of nothing shared: %ld\n", syscall(SYS_unshare,
	    CLONE_FILES | CLONE_FS | CLONE_SIGHAND | CLONE_THREAD | CLONE_VM));
}

static void
report(const char *what, long r)
{
	if (r < 0)
		printf("%s: %s\n", what, strerror(errno));
	else
		printf("%s: %ld\n", what, r);
}

/* Flag combinations Linux refuses, before creating anything. */
static void
test_refusals(void)
{
	report("THREAD without SIGHAND", syscall(SYS_clone,
	    CLONE_VM | CLONE_THREAD, 0, 0, 0, 0));
	report("SIGHAND without VM", syscall(SYS_clone,
	    CLONE_SIGHAND, 0, 0, 0, 0));
	report("FS with NEWNS", syscall(SYS_clone, CLONE_FS | CLONE_NEWNS,
	    0, 0, 0, 0));
	report("TLS in the kernel's half", syscall(SYS_clone, CLONE_SETTLS |
	    SIGCHLD, 0, 0, 0, 1UL << 63));
}

static void
test_clone3(void)
{
	struct clone_args ca;
	char big[4096 + 16];

	memset(&ca, 0, sizeof(ca));
	report("clone3 size 0", syscall(SYS_clone3, &ca, 0));
	report("clone3 size 63", syscall(SYS_clone3, &ca, 63));
	report("clone3 size past a page", syscall(SYS_clone3, &ca, 4097));
	memset(big, 0, sizeof(big));
	big[200] = 1;
	report("clone3 nonzero tail", syscall(SYS_clone3, big, 256));
	report("clone3 bad pointer", syscall(SYS_clone3, (void *)8, 64));
	ca.flags = THREAD_FLAGS & ~(CLONE_PARENT_SETTID | CLONE_CHILD_CLEARTID);
	ca.exit_signal = SIGCHLD;
	report("clone3 THREAD with exit signal", syscall(SYS_clone3, &ca, 64));
	ca.flags = 0;
	ca.stack = 4096;
	report("clone3 stack without size", syscall(SYS_clone3, &ca, 64));
	ca.stack = 0;
	ca.exit_signal = 65;
	report("clone3 exit signal 65", syscall(SYS_clone3, &ca, 64));
	ca.exit_signal = 0x100 | SIGCHLD;
	report("clone3 exit signal past CSIGNAL", syscall(SYS_clone3, &ca, 64));
	ca.exit_signal = SIGCHLD;
	ca.flags = CLONE_DETACHED;
	report("clone3 CLONE_DETACHED", syscall(SYS_clone3, &ca, 64));

	/* A fork through clone3, with a zero tail past what Linux knows. */
	memset(big, 0, sizeof(big));
	ca.flags = 0;
	memcpy(big, &ca, sizeof(ca));
	long pid = syscall(SYS_clone3, big, 128);
	if (pid == 0)
		_exit(9);
	int st = 0;
	waitpid((pid_t)pid, &st, 0);
	printf("clone3 fork: child %d, exit %d\n", pid > 0, WEXITSTATUS(st));
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	test_thread();
	test_proc_task();
	test_vm_process();
	test_unshare();
	test_refusals();
	test_clone3();
	return 0;
}
