/*
 * RLIMIT_FSIZE: a write across the limit is cut short at it, one at or
 * past it fails with EFBIG and SIGXFSZ (which kills by default), as does
 * a truncate past it; pipes and reads are not limited.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t nsig;

static void
on_xfsz(int sig)
{
	(void)sig;
	nsig++;
}

/* Kept until the end: stdout may be a file, which the limit would cut. */
static char out[8192];
static size_t outlen;

static void
report(const char *what, long r)
{
	if (r < 0)
		outlen += (size_t)snprintf(out + outlen, sizeof(out) - outlen,
		    "%s: -1 %s, signals %d\n", what, strerror(errno), (int)nsig);
	else
		outlen += (size_t)snprintf(out + outlen, sizeof(out) - outlen,
		    "%s: %ld, signals %d\n", what, r, (int)nsig);
}

int
main(void)
{
	static char buf[300];
	struct rlimit rl = { 100, RLIM_INFINITY };

	signal(SIGXFSZ, on_xfsz);
	int fd = open("fsize.tmp", O_CREAT | O_RDWR | O_TRUNC, 0600);
	report("setrlimit 100", setrlimit(RLIMIT_FSIZE, &rl));
	report("write 150", write(fd, buf, 150));
	report("write at the limit", write(fd, buf, 10));
	report("pwrite 100 at 50", pwrite(fd, buf, 100, 50));
	report("pwrite at 200", pwrite(fd, buf, 1, 200));
	struct iovec iov[2] = { { buf, 30 }, { buf, 30 } };
	report("pwritev 60 at 70", pwritev(fd, iov, 2, 70));
	report("ftruncate 200", ftruncate(fd, 200));
	report("ftruncate 100", ftruncate(fd, 100));
	report("ftruncate 10", ftruncate(fd, 10));
	report("truncate 101", truncate("fsize.tmp", 101));
	report("read 300", pread(fd, buf, 300, 0));
	int a = open("fsize.tmp", O_WRONLY | O_APPEND);
	report("append 200 (size 10)", write(a, buf, 200));
	close(a);
	int p[2];
	pipe(p);
	report("a pipe takes 200", write(p[1], buf, 200));
	rl.rlim_cur = 0;
	setrlimit(RLIMIT_FSIZE, &rl);
	report("limit 0: write 1", pwrite(fd, buf, 1, 0));
	report("limit 0: write 0", pwrite(fd, buf, 0, 0));
	rl.rlim_cur = RLIM_INFINITY;
	setrlimit(RLIMIT_FSIZE, &rl);
	report("no limit: write 300", pwrite(fd, buf, 300, 0));

	/* The limit is inherited, and SIGXFSZ kills by default. */
	rl.rlim_cur = 10;
	setrlimit(RLIMIT_FSIZE, &rl);
	pid_t pid = fork();
	if (pid == 0) {
		signal(SIGXFSZ, SIG_DFL);
		(void)!pwrite(fd, buf, 1, 20);
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	rl.rlim_cur = RLIM_INFINITY;
	setrlimit(RLIMIT_FSIZE, &rl);
	fputs(out, stdout);
	printf("child: %s %d\n", WIFSIGNALED(st) ? "killed by signal" : "exited",
	    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	close(fd);
	unlink("fsize.tmp");
	return 0;
}
