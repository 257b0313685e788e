/*
 * Fork bombs hit the process limits: fork fails with EAGAIN, every child
 * can be killed and reaped, and afterwards fork works again.  The first
 * bomb runs as nobody with RLIMIT_NPROC 64, which stops it.  The second
 * runs as root, exempt from its RLIMIT_NPROC of 64, so inside vkernel the
 * system-wide limit (scaled with RAM, and below what RAM holds) stops it;
 * natively, for the host's sake, a stand-in runs as nobody with
 * RLIMIT_NPROC 256.  Afterwards the free memory is back: exactly (but for
 * what the kernel's object caches keep) inside vkernel, within an eighth
 * of RAM on a busy native host.  Nothing printed depends on the counts.
 * Also: a setuid past RLIMIT_NPROC fails the next execve, as in Linux.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#define CAP	6000		/* above any limit we expect: never reached */
#define SLACK_PAGES	64	/* what vkernel's object caches may keep */

static pid_t kids[CAP];

/* True inside vkernel (whose uname release ends so). */
static int
in_vkernel(void)
{
	struct utsname u;
	size_t n;
	if (uname(&u) < 0 || (n = strlen(u.release)) < 8)
		return 0;
	return strcmp(u.release + n - 8, "-vkernel") == 0;
}

static uint64_t
freemem(void)
{
	struct sysinfo si;
	if (sysinfo(&si) < 0)
		return 0;
	return (uint64_t)si.freeram * si.mem_unit;
}

/*
 * Forks until fork fails, with RLIMIT_NPROC nproc, as nobody unless
 * as_root; then kills half the children and lets the others exit.
 */
static int
bomb(rlim_t nproc, int as_root)
{
	struct rlimit rl = { nproc, nproc };
	setpgid(0, 0);		/* so that the parent can kill what is left */
	setrlimit(RLIMIT_NPROC, &rl);
	if (!as_root && getuid() == 0 && (setgid(65534) < 0 || setuid(65534) < 0))
		return 1;
	int pfd[2];
	if (pipe(pfd) < 0)
		return 1;
	int n = 0, err = 0;
	while (n < CAP) {
		pid_t pid = fork();
		if (pid == 0) {
			char c;
			close(pfd[1]);
			read(pfd[0], &c, 1);	/* until the parent goes */
			_exit(0);
		}
		if (pid < 0) {
			err = errno;
			break;
		}
		kids[n++] = pid;
	}
	printf("fork failed with EAGAIN: %s\n", err == EAGAIN ? "yes" :
	    n == CAP ? "no, cap reached" : "no, another error");
	if (err != EAGAIN && err != 0)
		printf("errno %d\n", err);
	/* (Other processes of nobody's on the host count too: "at most".) */
	if (as_root || nproc > 64)
		printf("more than 64 children: %s\n", n > 64 ? "yes" : "no");
	else
		printf("at most %d children: %s\n", (int)nproc - 1,
		    n <= (int)nproc - 1 ? "yes" : "no");
	fflush(stdout);

	/* Kill half, let the other half go by closing the pipe, reap all. */
	int killed = 0;
	for (int i = 0; i < n; i += 2)
		killed += kill(kids[i], SIGKILL) == 0;
	close(pfd[1]);
	int reaped = 0, bykill = 0, byexit = 0, status;
	pid_t w;
	while ((w = wait(&status)) > 0) {
		reaped++;
		if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
			bykill++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			byexit++;
	}
	printf("killed all asked: %s\n", killed == (n + 1) / 2 ? "yes" : "no");
	printf("reaped all: %s\n", reaped == n && w < 0 && errno == ECHILD ? "yes" : "no");
	printf("killed ones died of SIGKILL: %s\n", bykill == killed ? "yes" : "no");
	printf("the others exited 0: %s\n", byexit == n - killed ? "yes" : "no");
	return 0;
}

static void onchld(int sig) { (void)sig; }

/* Signals to a zombie are accepted (and lost), as on Linux. */
static void
zombie(void)
{
	sigset_t chld, none;
	sigemptyset(&chld);
	sigemptyset(&none);
	sigaddset(&chld, SIGCHLD);
	signal(SIGCHLD, onchld);
	sigprocmask(SIG_BLOCK, &chld, NULL);
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	sigsuspend(&none);		/* until SIGCHLD: the child is a zombie */
	sigprocmask(SIG_UNBLOCK, &chld, NULL);
	signal(SIGCHLD, SIG_DFL);
	printf("kill(zombie, SIGKILL): %s\n", kill(pid, SIGKILL) == 0 ? "0" :
	    errno == ESRCH ? "ESRCH" : "error");
	printf("kill(zombie, 0): %s\n", kill(pid, 0) == 0 ? "0" :
	    errno == ESRCH ? "ESRCH" : "error");
	int status;
	waitpid(pid, &status, 0);
	printf("zombie exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/*
 * set*uid never fails for RLIMIT_NPROC; Linux defers the failure to the
 * next execve, which gives EAGAIN while the new user is over the limit.
 * Three processes of nobody's wait, then a root child with RLIMIT_NPROC
 * lim (1 or RLIM_INFINITY) becomes nobody and execs.
 */
static void
setuid_then_exec(rlim_t lim)
{
	int pfd[2], rfd[2], ready[2];
	pid_t waiters[3];
	if (pipe(pfd) < 0 || pipe(ready) < 0)
		return;
	for (int i = 0; i < 3; i++) {
		if ((waiters[i] = fork()) == 0) {
			char c;
			close(pfd[1]);
			if (setgid(65534) < 0 || setuid(65534) < 0)
				_exit(1);
			write(ready[1], "r", 1);
			read(pfd[0], &c, 1);
			_exit(0);
		}
	}
	/* All three are nobody's before the exec: no race with their setuid. */
	for (int i = 0; i < 3; i++) {
		char c;
		if (read(ready[0], &c, 1) != 1)
			break;
	}
	close(ready[0]);
	close(ready[1]);
	if (pipe(rfd) < 0)
		return;
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { lim, lim };
		close(rfd[0]);
		fcntl(rfd[1], F_SETFD, FD_CLOEXEC);
		setrlimit(RLIMIT_NPROC, &rl);
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		execl("/bin/sh", "sh", "-c", "exit 7", (char *)0);
		int e = errno;
		write(rfd[1], &e, sizeof(e));
		_exit(0);
	}
	close(rfd[1]);
	int e = 0, status;
	ssize_t n = read(rfd[0], &e, sizeof(e));
	close(rfd[0]);
	waitpid(pid, &status, 0);
	printf("setuid to nobody, RLIMIT_NPROC %s, execve: %s\n",
	    lim == RLIM_INFINITY ? "unlimited" : "1",
	    n == sizeof(e) ? e == EAGAIN ? "EAGAIN" : "another error" :
	    WIFEXITED(status) && WEXITSTATUS(status) == 7 ? "ran" : "failed");
	close(pfd[0]);
	close(pfd[1]);
	for (int i = 0; i < 3; i++)
		waitpid(waiters[i], &status, 0);
}

/* Runs bomb(nproc, as_root) in a child and reaps whatever it leaves. */
static void
run_bomb(rlim_t nproc, int as_root)
{
	pid_t boss = fork();
	if (boss == 0)
		_exit(bomb(nproc, as_root));
	int status;
	waitpid(boss, &status, 0);
	printf("bomber exited %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
	kill(-boss, SIGKILL);	/* children it left, if it died (none if all went well) */
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	int vk = in_vkernel();
	struct sysinfo si;
	sysinfo(&si);
	uint64_t slack = vk ? SLACK_PAGES * 4096 :
	    (uint64_t)si.totalram * si.mem_unit / 8;
	uint64_t before = freemem();

	zombie();
	setuid_then_exec(1);
	setuid_then_exec(RLIM_INFINITY);
	run_bomb(64, 0);
	if (vk)
		run_bomb(64, 1);
	else
		run_bomb(256, 0);
	int status;

	/* The system is usable again: fork and exec work (soon: what was
	 * killed above may still be on its way out). */
	int code = -1;
	for (int try = 0; try < 50 && code != 7; try++) {
		if (try > 0)
			usleep(100000);
		pid_t pid = fork();
		if (pid == 0) {
			execl("/bin/sh", "sh", "-c", "exit 7", (char *)0);
			_exit(127);
		}
		if (pid < 0)
			continue;
		waitpid(pid, &status, 0);
		code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
	}
	printf("fork+exec after: exit %d\n", code);
	uint64_t after = freemem();
	printf("free memory back: %s\n", after + slack >= before ? "yes" : "no");
	return 0;
}
