/*
 * Signal-driven I/O against Linux: F_SETOWN and F_GETOWN (a process, a
 * process group), F_SETOWN_EX and F_GETOWN_EX, F_SETSIG and F_GETSIG,
 * and the signals O_ASYNC brings: SIGIO when a pipe's read end gets
 * data and not without O_ASYNC, F_SETSIG's signal with the descriptor
 * and the band, a socket's, a write end's when room appears, and a
 * child's ownership (the parent owns; the child's write signals it).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static volatile sig_atomic_t nsigio, nrt, rt_fd, rt_code, rt_band;

static void
on_sigio(int sig)
{
	(void)sig;
	nsigio++;
}

static void
on_rt(int sig, siginfo_t *si, void *uc)
{
	(void)sig, (void)uc;
	nrt++;
	rt_fd = si->si_fd;
	rt_code = si->si_code;
	rt_band = (int)si->si_band;
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	/* A group of its own: the group's SIGIO must not reach the shell. */
	setpgid(0, 0);
	signal(SIGIO, on_sigio);
	struct sigaction sa = { .sa_sigaction = on_rt, .sa_flags = SA_SIGINFO };
	sigaction(SIGRTMIN + 1, &sa, NULL);
	int p[2];
	pipe(p);

	printf("owner before: %d\n", fcntl(p[0], F_GETOWN));
	report("F_SETOWN self", fcntl(p[0], F_SETOWN, getpid()));
	printf("owner is self: %d\n", fcntl(p[0], F_GETOWN) == getpid());
	report("F_SETOWN no such pid", fcntl(p[0], F_SETOWN, 4000000));
	write(p[1], "a", 1);
	printf("without O_ASYNC: %d SIGIO\n", (int)nsigio);
	char buf[16];
	read(p[0], buf, sizeof(buf));
	report("O_ASYNC", fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_ASYNC));
	printf("O_ASYNC set: %d\n", (fcntl(p[0], F_GETFL) & O_ASYNC) != 0);
	write(p[1], "b", 1);
	printf("a write: SIGIO %s\n", nsigio > 0 ? "came" : "did not come");
	read(p[0], buf, sizeof(buf));

	printf("F_GETSIG: %d\n", fcntl(p[0], F_GETSIG));
	report("F_SETSIG 1000", fcntl(p[0], F_SETSIG, 1000));
	report("F_SETSIG SIGRTMIN+1", fcntl(p[0], F_SETSIG, SIGRTMIN + 1));
	printf("F_GETSIG is it: %d\n", fcntl(p[0], F_GETSIG) == SIGRTMIN + 1);
	nsigio = 0;
	write(p[1], "c", 1);
	printf("a write: %d SIGIO, RT %s, fd %s, code %d, band has POLLIN %d\n",
	    (int)nsigio, nrt > 0 ? "came" : "did not come",
	    rt_fd == p[0] ? "right" : "wrong", (int)rt_code,
	    (rt_band & POLLIN) != 0);
	read(p[0], buf, sizeof(buf));
	fcntl(p[0], F_SETSIG, 0);

	struct f_owner_ex ox = { F_OWNER_PGRP, getpgrp() };
	report("F_SETOWN_EX group", fcntl(p[0], F_SETOWN_EX, &ox));
	printf("F_GETOWN is minus the group: %d\n",
	    fcntl(p[0], F_GETOWN) == -getpgrp());
	memset(&ox, 0, sizeof(ox));
	report("F_GETOWN_EX", fcntl(p[0], F_GETOWN_EX, &ox));
	printf("  type %d, the group %d\n", ox.type, ox.pid == getpgrp());
	nsigio = 0;
	write(p[1], "d", 1);
	printf("a write, owned by the group: SIGIO %s\n",
	    nsigio > 0 ? "came" : "did not come");
	read(p[0], buf, sizeof(buf));
	ox.type = 7;
	report("F_SETOWN_EX type 7", fcntl(p[0], F_SETOWN_EX, &ox));
	report("F_GETOWN_EX bad pointer", fcntl(p[0], F_GETOWN_EX, (void *)8));
	report("F_SETOWN 0", fcntl(p[0], F_SETOWN, 0));
	nsigio = 0;
	write(p[1], "e", 1);
	printf("no owner: %d SIGIO\n", (int)nsigio);
	read(p[0], buf, sizeof(buf));

	/* A full write end hears of room when the reader reads. */
	fcntl(p[1], F_SETFL, O_WRONLY | O_NONBLOCK | O_ASYNC);
	fcntl(p[1], F_SETOWN, getpid());
	static char big[65536];
	while (write(p[1], big, sizeof(big)) > 0)
		;
	nsigio = 0;
	read(p[0], big, sizeof(big));
	printf("room in a full pipe: SIGIO %s\n", nsigio > 0 ? "came" : "did not come");

	/* A socket; the owner is the parent, the writer a child. */
	int sv[2];
	socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	fcntl(sv[0], F_SETOWN, getpid());
	fcntl(sv[0], F_SETFL, O_RDWR | O_ASYNC);
	sigset_t block, old;
	sigemptyset(&block);
	sigaddset(&block, SIGIO);
	sigprocmask(SIG_BLOCK, &block, &old);
	nsigio = 0;
	pid_t pid = fork();
	if (pid == 0) {
		write(sv[1], "x", 1);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	sigprocmask(SIG_SETMASK, &old, NULL);
	printf("a child's write to a socket: SIGIO %s\n",
	    nsigio > 0 ? "came" : "did not come");
	return 0;
}
