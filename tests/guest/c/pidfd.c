/*
 * pidfd: pidfd_open, poll readiness at exit, waitid(P_PIDFD) blocking
 * and not, pidfd_send_signal with and without a siginfo (to a pidfd and
 * to a /proc/PID directory), pidfd_getfd, and the errors of each.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef P_PIDFD
#define P_PIDFD	3
#endif
#define PIDFD_NONBLOCK	O_NONBLOCK

static int
pidfd_open(pid_t pid, unsigned flags)
{
	return (int)syscall(SYS_pidfd_open, pid, flags);
}

static int
pidfd_send_signal(int fd, int sig, siginfo_t *info, unsigned flags)
{
	return (int)syscall(SYS_pidfd_send_signal, fd, sig, info, flags);
}

static const char *
err(int r)
{
	return r < 0 ? strerror(errno) : "ok";
}

static int
pollfd(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	int n = poll(&p, 1, 0);
	return n > 0 ? p.revents : n;
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("bad flags: %s\n", err(pidfd_open(getpid(), 1)));
	printf("pid 0: %s\n", err(pidfd_open(0, 0)));
	printf("no such pid: %s\n", err(pidfd_open(4000000, 0)));
	int self = pidfd_open(getpid(), 0);
	printf("cloexec: %d\n", (fcntl(self, F_GETFD) & FD_CLOEXEC) != 0);
	printf("self poll: %#x\n", pollfd(self));
	printf("signal 0 to self: %s\n", err(pidfd_send_signal(self, 0, NULL, 0)));
	printf("thread flag: %s\n", err(pidfd_send_signal(self, 0, NULL, 1)));
	printf("two flags: %s\n", err(pidfd_send_signal(self, 0, NULL, 3)));
	printf("bad signal flags: %s\n", err(pidfd_send_signal(self, 0, NULL, 8)));
	printf("not a pidfd: %s\n", err(pidfd_send_signal(0, 0, NULL, 0)));
	printf("bad fd: %s\n", err(pidfd_send_signal(99, 0, NULL, 0)));

	printf("exit seen by poll and epoll\n");
	int p[2];
	pipe(p);
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		read(p[0], &c, 1);
		_exit(3);
	}
	int fd = pidfd_open(pid, PIDFD_NONBLOCK);
	printf("  running: poll %#x\n", pollfd(fd));
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	printf("  waitid nonblocking: %s\n", err(waitid(P_PIDFD, fd, &si, WEXITED)));
	printf("  waitid WNOHANG: %s pid %d\n", err(waitid(P_PIDFD, fd, &si, WEXITED | WNOHANG)),
	    si.si_pid);
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 9 };
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	printf("  epoll before: %d\n", epoll_wait(ep, &ev, 1, 0));
	write(p[1], "x", 1);
	int n = epoll_wait(ep, &ev, 1, 5000);
	printf("  epoll: %d data %u events %#x\n", n, ev.data.u32, ev.events);
	printf("  zombie: poll %#x\n", pollfd(fd));
	printf("  kill a zombie: %s\n", err(pidfd_send_signal(fd, SIGKILL, NULL, 0)));
	memset(&si, 0, sizeof(si));
	int r = waitid(P_PIDFD, fd, &si, WEXITED);
	printf("  waitid: %s code %d status %d child %d\n", err(r), si.si_code,
	    si.si_status, si.si_pid == pid);
	printf("  reaped: poll %#x\n", pollfd(fd));
	printf("  signal the reaped: %s\n", err(pidfd_send_signal(fd, SIGTERM, NULL, 0)));
	printf("  waitid again: %s\n", err(waitid(P_PIDFD, fd, &si, WEXITED)));
	close(fd);

	printf("blocking waitid and a signal with a siginfo\n");
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	fd = pidfd_open(pid, 0);
	memset(&si, 0, sizeof(si));
	si.si_signo = SIGUSR1;
	si.si_code = SI_QUEUE;
	si.si_value.sival_int = 5;
	printf("  forged code: %s\n", err(pidfd_send_signal(fd, SIGUSR1, &(siginfo_t){
	    .si_signo = SIGUSR1, .si_code = SI_USER }, 0)));
	printf("  signo mismatch: %s\n", err(pidfd_send_signal(fd, SIGUSR2, &si, 0)));
	printf("  send: %s\n", err(pidfd_send_signal(fd, SIGUSR1, &si, 0)));
	memset(&si, 0, sizeof(si));
	r = waitid(P_PIDFD, fd, &si, WEXITED);
	printf("  waitid: %s code %d status %d\n", err(r), si.si_code, si.si_status);
	close(fd);

	printf("getfd\n");
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	fd = pidfd_open(pid, 0);
	int got = (int)syscall(SYS_pidfd_getfd, fd, p[1], 0);
	printf("  got: %s cloexec %d\n", err(got), (fcntl(got, F_GETFD) & FD_CLOEXEC) != 0);
	write(got, "y", 1);
	char c = 0;
	read(p[0], &c, 1);
	printf("  through it: %c\n", c);
	printf("  bad flags: %s\n", err(syscall(SYS_pidfd_getfd, fd, p[1], 1)));
	printf("  bad target fd: %s\n", err(syscall(SYS_pidfd_getfd, fd, 99, 0)));
	pidfd_send_signal(fd, SIGKILL, NULL, 0);
	waitid(P_PIDFD, fd, &si, WEXITED);
	printf("  killed: code %d status %d\n", si.si_code, si.si_status);

	printf("a /proc/PID directory as a pidfd\n");
	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d", (int)pid);
	int dir = open(path, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)pid);
	int task = open(path, O_RDONLY | O_DIRECTORY);
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	int status = open(path, O_RDONLY);
	printf("  signal 0: %s\n", err(pidfd_send_signal(dir, 0, NULL, 0)));
	printf("  to task/TID: %s\n", err(pidfd_send_signal(task, 0, NULL, 0)));
	printf("  to its status: %s\n", err(pidfd_send_signal(status, 0, NULL, 0)));
	printf("  waitid on it: %s\n", err(waitid(P_PIDFD, dir, &si, WEXITED)));
	printf("  SIGTERM: %s\n", err(pidfd_send_signal(dir, SIGTERM, NULL, 0)));
	int st;
	waitpid(pid, &st, 0);
	printf("  ended by signal %d\n", WIFSIGNALED(st) ? WTERMSIG(st) : 0);
	printf("  signal the reaped: %s\n", err(pidfd_send_signal(dir, 0, NULL, 0)));
	return 0;
}
