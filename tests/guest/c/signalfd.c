/*
 * signalfd: blocked signals read as signalfd_siginfo (kill, sigqueue
 * with a value, a child's SIGCHLD, one thread's own), consumed by the
 * read; poll and epoll readiness; a mask changed; errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void
show(const struct signalfd_siginfo *s, pid_t self)
{
	printf("  signo %u code %d pid %s uid %u int %d status %d\n", s->ssi_signo,
	    s->ssi_code, s->ssi_pid == (uint32_t)self ? "self" :
	    s->ssi_pid == 0 ? "0" : "other", s->ssi_uid, s->ssi_int, s->ssi_status);
}

static int
readall(int fd, pid_t self)
{
	struct signalfd_siginfo s[4];
	ssize_t n = read(fd, s, sizeof(s));
	if (n < 0) {
		printf("  read: %s\n", strerror(errno));
		return 0;
	}
	printf("  read %zd bytes\n", n);
	for (int i = 0; i < n / (int)sizeof(s[0]); i++)
		show(&s[i], self);
	return (int)(n / sizeof(s[0]));
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	pid_t self = getpid();
	sigset_t mask;
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR1);
	sigaddset(&mask, SIGUSR2);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGRTMIN);
	sigprocmask(SIG_BLOCK, &mask, NULL);

	printf("bad flags: %s\n", signalfd(-1, &mask, 0x4) < 0 ? strerror(errno) : "ok");
	printf("bad size: %s\n", syscall(SYS_signalfd4, -1, &mask, 4, 0) < 0 ? strerror(errno) : "ok");
	printf("not a signalfd: %s\n", signalfd(0, &mask, 0) < 0 ? strerror(errno) : "ok");
	int fd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	printf("cloexec %d\n", (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	readall(fd, self);
	struct signalfd_siginfo one;
	printf("short read: %s\n", read(fd, &one, 100) < 0 ? strerror(errno) : "ok");

	printf("kill and sigqueue\n");
	kill(self, SIGUSR1);
	union sigval v = { .sival_int = 1234 };
	sigqueue(self, SIGRTMIN, v);
	v.sival_int = 5678;
	sigqueue(self, SIGRTMIN, v);
	struct pollfd p = { fd, POLLIN, 0 };
	int r = poll(&p, 1, 0);
	printf("  poll: %d revents %#x\n", r, p.revents);
	readall(fd, self);
	printf("  poll after: %d\n", poll(&p, 1, 0));
	sigset_t pend;
	sigpending(&pend);
	printf("  still pending: %d\n", sigismember(&pend, SIGUSR1));

	printf("a thread's own\n");
	syscall(SYS_tgkill, self, syscall(SYS_gettid), SIGUSR2);
	readall(fd, self);

	printf("child exit\n");
	int ep = epoll_create1(0);
	struct epoll_event ev = { .events = EPOLLIN, .data.u32 = 1 };
	epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(30000);
		_exit(7);
	}
	int n = epoll_wait(ep, &ev, 1, 5000);
	printf("  epoll: %d data %u\n", n, ev.data.u32);
	struct signalfd_siginfo s;
	read(fd, &s, sizeof(s));
	printf("  signo %u code %d pid %s status %d\n", s.ssi_signo, s.ssi_code,
	    s.ssi_pid == (uint32_t)pid ? "child" : "other", s.ssi_status);
	waitpid(pid, NULL, 0);

	printf("mask changed\n");
	sigemptyset(&mask);
	sigaddset(&mask, SIGUSR2);
	printf("  same fd: %d\n", signalfd(fd, &mask, 0) == fd);
	kill(self, SIGUSR1);
	readall(fd, self);
	kill(self, SIGUSR2);
	readall(fd, self);
	sigset_t usr1;
	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	int sig;
	sigwait(&usr1, &sig);
	printf("  SIGUSR1 left for sigwait: %d\n", sig);

	printf("blocking read\n");
	int bfd = signalfd(-1, &mask, 0);
	pid = fork();
	if (pid == 0) {
		usleep(30000);
		kill(getppid(), SIGUSR2);
		_exit(0);
	}
	read(bfd, &s, sizeof(s));
	printf("  signo %u from %s\n", s.ssi_signo, s.ssi_pid == (uint32_t)pid ? "child" : "other");
	waitpid(pid, NULL, 0);
	return 0;
}
