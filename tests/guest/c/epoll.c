/*
 * epoll on pipes: level- and edge-triggered, one-shot, MOD and DEL,
 * the errors of epoll_ctl, nested sets and loops, a file closed while
 * registered (and one kept open by a dup), epoll_pwait (and ppoll) with
 * a signal the wait's mask lets through.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

static int
wait1(int ep, int timeout)
{
	struct epoll_event ev[8];
	int n = epoll_wait(ep, ev, 8, timeout);
	if (n < 0) {
		printf("  wait: %s\n", strerror(errno));
		return n;
	}
	printf("  wait: %d", n);
	for (int i = 0; i < n; i++)
		printf(" [data %llu events %#x]", (unsigned long long)ev[i].data.u64,
		    ev[i].events);
	printf("\n");
	return n;
}

static void
ctl(const char *what, int ep, int op, int fd, unsigned events, unsigned long long data)
{
	struct epoll_event ev = { .events = events, .data.u64 = data };
	int r = epoll_ctl(ep, op, fd, &ev);
	printf("%s: %s\n", what, r == 0 ? "ok" : strerror(errno));
}

static void
onusr1(int sig)
{
	(void)sig;
}

int
main(void)
{
	int p[2], q[2];
	char buf[64];
	setvbuf(stdout, NULL, _IONBF, 0);

	int ep = epoll_create1(EPOLL_CLOEXEC);
	printf("cloexec: %d\n", (fcntl(ep, F_GETFD) & FD_CLOEXEC) != 0);
	printf("create1 bad flags: %s\n", epoll_create1(1) < 0 ? strerror(errno) : "ok");
	printf("create 0: %s\n", epoll_create(0) < 0 ? strerror(errno) : "ok");
	pipe(p);
	pipe(q);

	printf("level-triggered\n");
	ctl("add", ep, EPOLL_CTL_ADD, p[0], EPOLLIN, 1);
	ctl("add again", ep, EPOLL_CTL_ADD, p[0], EPOLLIN, 1);
	wait1(ep, 0);
	write(p[1], "ab", 2);
	wait1(ep, 0);
	wait1(ep, 0);		/* still there: level */
	read(p[0], buf, 2);
	wait1(ep, 0);

	printf("edge-triggered\n");
	ctl("mod et", ep, EPOLL_CTL_MOD, p[0], EPOLLIN | EPOLLET, 2);
	write(p[1], "ab", 2);
	wait1(ep, 0);
	wait1(ep, 0);		/* no new edge */
	write(p[1], "c", 1);
	wait1(ep, 0);		/* a new write is a new edge */
	read(p[0], buf, sizeof(buf));

	printf("one-shot\n");
	ctl("mod oneshot", ep, EPOLL_CTL_MOD, p[0], EPOLLIN | EPOLLONESHOT, 3);
	write(p[1], "x", 1);
	wait1(ep, 0);
	wait1(ep, 0);		/* disabled */
	write(p[1], "y", 1);
	wait1(ep, 0);		/* still disabled */
	ctl("rearm", ep, EPOLL_CTL_MOD, p[0], EPOLLIN | EPOLLONESHOT, 4);
	wait1(ep, 0);
	read(p[0], buf, sizeof(buf));

	printf("writer side and hang-up\n");
	ctl("add write end", ep, EPOLL_CTL_ADD, q[1], EPOLLOUT, 5);
	ctl("del read end", ep, EPOLL_CTL_DEL, p[0], 0, 0);
	ctl("del again", ep, EPOLL_CTL_DEL, p[0], 0, 0);
	ctl("mod missing", ep, EPOLL_CTL_MOD, p[0], EPOLLIN, 0);
	wait1(ep, 0);
	close(q[0]);		/* EPOLLERR: no reader */
	wait1(ep, 0);
	ctl("del write end", ep, EPOLL_CTL_DEL, q[1], 0, 0);
	close(q[1]);

	printf("errors\n");
	char path[] = "/tmp/epollXXXXXX";
	int f = mkstemp(path);
	unlink(path);
	ctl("regular file", ep, EPOLL_CTL_ADD, f, EPOLLIN, 0);
	ctl("bad fd", ep, EPOLL_CTL_ADD, 999, EPOLLIN, 0);
	ctl("not epoll", p[0], EPOLL_CTL_ADD, p[1], EPOLLIN, 0);
	ctl("itself", ep, EPOLL_CTL_ADD, ep, EPOLLIN, 0);
	ctl("bad op", ep, 99, p[0], EPOLLIN, 0);
	ctl("exclusive", ep, EPOLL_CTL_ADD, p[0], EPOLLIN | EPOLLEXCLUSIVE, 6);
	ctl("exclusive mod", ep, EPOLL_CTL_MOD, p[0], EPOLLIN | EPOLLEXCLUSIVE, 6);
	ctl("mod of exclusive", ep, EPOLL_CTL_MOD, p[0], EPOLLIN, 6);
	ctl("del", ep, EPOLL_CTL_DEL, p[0], 0, 0);
	ctl("exclusive oneshot", ep, EPOLL_CTL_ADD, p[0], EPOLLIN | EPOLLEXCLUSIVE | EPOLLONESHOT, 6);
	struct epoll_event evs[1];
	printf("wait 0 max: %s\n", epoll_wait(ep, evs, 0, 0) < 0 ? strerror(errno) : "ok");
	printf("wait not epoll: %s\n", epoll_wait(p[0], evs, 1, 0) < 0 ? strerror(errno) : "ok");
	close(f);

	printf("nested\n");
	int outer = epoll_create1(0), inner = epoll_create1(0);
	ctl("inner add", inner, EPOLL_CTL_ADD, p[0], EPOLLIN, 7);
	ctl("outer add inner", outer, EPOLL_CTL_ADD, inner, EPOLLIN, 8);
	ctl("loop", inner, EPOLL_CTL_ADD, outer, EPOLLIN, 9);
	ctl("exclusive on epoll", ep, EPOLL_CTL_ADD, inner, EPOLLIN | EPOLLEXCLUSIVE, 9);
	wait1(outer, 0);
	write(p[1], "n", 1);
	wait1(outer, 0);
	wait1(inner, 0);
	read(p[0], buf, sizeof(buf));
	wait1(outer, 0);
	/* A blocked wait on the outer set, woken by a child's write. */
	pid_t pid = fork();
	if (pid == 0) {
		usleep(50000);
		write(p[1], "w", 1);
		_exit(0);
	}
	wait1(outer, 5000);
	waitpid(pid, NULL, 0);
	read(p[0], buf, sizeof(buf));
	close(outer);
	close(inner);

	printf("depth\n");
	int chain[7];
	for (int i = 0; i < 7; i++)
		chain[i] = epoll_create1(0);
	for (int i = 5; i >= 0; i--) {	/* from the bottom up */
		struct epoll_event cev = { .events = EPOLLIN };
		int r = epoll_ctl(chain[i], EPOLL_CTL_ADD, chain[i + 1], &cev);
		printf("  set %d into %d: %s\n", i + 1, i, r == 0 ? "ok" : strerror(errno));
	}
	for (int i = 0; i < 7; i++)
		close(chain[i]);

	printf("closed while registered\n");
	int r[2];
	pipe(r);
	ctl("add", ep, EPOLL_CTL_ADD, r[0], EPOLLIN, 10);
	int d = dup(r[0]);
	close(r[0]);		/* the file lives on in d: still registered */
	write(r[1], "z", 1);
	wait1(ep, 0);
	ctl("del closed fd", ep, EPOLL_CTL_DEL, r[0], 0, 0);
	close(d);		/* the last: gone from the set */
	wait1(ep, 0);
	ctl("add dup", ep, EPOLL_CTL_ADD, r[1], EPOLLOUT, 11);
	wait1(ep, 0);
	close(r[1]);
	wait1(ep, 0);

	printf("epoll_pwait with a signal\n");
	struct sigaction sa = { .sa_handler = onusr1 };
	sigaction(SIGUSR1, &sa, NULL);
	sigset_t block, none;
	sigemptyset(&block);
	sigaddset(&block, SIGUSR1);
	sigemptyset(&none);
	sigprocmask(SIG_BLOCK, &block, NULL);
	kill(getpid(), SIGUSR1);	/* pending, blocked */
	int n = epoll_wait(ep, evs, 1, 100);
	printf("  wait with it blocked: %d\n", n);
	n = epoll_pwait(ep, evs, 1, 5000, &none);
	printf("  pwait unblocking it: %d %s\n", n, n < 0 ? strerror(errno) : "");
	kill(getpid(), SIGUSR1);
	struct pollfd pfd = { p[0], POLLIN, 0 };
	struct timespec ts = { 5, 0 };
	n = ppoll(&pfd, 1, &ts, &none);
	printf("  ppoll unblocking it: %d %s\n", n, n < 0 ? strerror(errno) : "");
	sigset_t now;
	sigprocmask(SIG_SETMASK, NULL, &now);
	printf("  mask restored: %d\n", sigismember(&now, SIGUSR1));
	close(ep);
	return 0;
}
