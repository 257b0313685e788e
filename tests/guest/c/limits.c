/*
 * Resource limits as Linux keeps them: prlimit64 on oneself and on
 * others (with Linux's permission rule), the order of its checks and of
 * its side effects, and RLIMIT_NOFILE taking effect on the descriptors.
 * Run as root; the tests that need another user use nobody.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *
res(long r)
{
	static char buf[32];
	if (r == 0)
		return "0";
	switch (errno) {
	case EFAULT: return "EFAULT";
	case EINVAL: return "EINVAL";
	case EPERM: return "EPERM";
	case ESRCH: return "ESRCH";
	case EMFILE: return "EMFILE";
	}
	snprintf(buf, sizeof(buf), "errno %d", errno);
	return buf;
}

static long
raw_prlimit(pid_t pid, int resource, const struct rlimit *nl, struct rlimit *ol)
{
	errno = 0;
	return syscall(SYS_prlimit64, pid, resource, nl, ol);
}

/* The highest descriptor dup gives before it fails, and how it fails. */
static void
dup_until_full(const char *what)
{
	int last = -1, fd;
	errno = 0;
	while ((fd = dup(0)) >= 0)
		last = fd;
	printf("%-34s last fd %d, then %s\n", what, last, res(-1));
	for (int i = 3; i <= last; i++)
		close(i);
}

/* Runs fn in a child as nobody and shows its exit status. */
static void
as_nobody(const char *what, int (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(100);
		_exit(fn());
	}
	int status;
	waitpid(pid, &status, 0);
	printf("%-34s %d\n", what, WIFEXITED(status) ? WEXITSTATUS(status) : -1);
}

/* Nobody may lower its hard limit, not raise it again: 0 if so. */
static int
lower_then_raise(void)
{
	struct rlimit rl;
	getrlimit(RLIMIT_NOFILE, &rl);
	rl.rlim_max = rl.rlim_cur;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
		return 1;
	rl.rlim_max++;
	return setrlimit(RLIMIT_NOFILE, &rl) < 0 && errno == EPERM ? 0 : 2;
}

/* Nobody may not touch init's (root's) limits: 0 if refused with EPERM. */
static int
touch_root(void)
{
	struct rlimit rl;
	return raw_prlimit(1, RLIMIT_NOFILE, NULL, &rl) < 0 && errno == EPERM ? 0 : 1;
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	struct rlimit rl, old, keep;
	getrlimit(RLIMIT_NOFILE, &keep);

	printf("%-34s %s\n", "resource 99", res(raw_prlimit(0, 99, NULL, &rl)));
	rl.rlim_cur = 20, rl.rlim_max = 10;
	printf("%-34s %s\n", "soft above hard", res(raw_prlimit(0, RLIMIT_NOFILE, &rl, NULL)));
	rl.rlim_cur = 10, rl.rlim_max = RLIM_INFINITY;
	printf("%-34s %s\n", "NOFILE hard above nr_open", res(raw_prlimit(0, RLIMIT_NOFILE, &rl, NULL)));
	pid_t gone = fork();
	if (gone == 0)
		_exit(0);
	waitpid(gone, NULL, 0);
	printf("%-34s %s\n", "reaped child's pid", res(raw_prlimit(gone, RLIMIT_NOFILE, NULL, &rl)));
	printf("%-34s %s\n", "bad new", res(raw_prlimit(0, RLIMIT_NOFILE, (void *)1, NULL)));

	/* A bad old pointer: the new limit is in place all the same. */
	rl.rlim_cur = 16, rl.rlim_max = keep.rlim_max;
	printf("%-34s %s\n", "new with bad old", res(raw_prlimit(0, RLIMIT_NOFILE, &rl, (void *)1)));
	getrlimit(RLIMIT_NOFILE, &old);
	printf("%-34s %s\n", "new limit in place", old.rlim_cur == 16 ? "yes" : "no");
	dup_until_full("dup under RLIMIT_NOFILE 16");
	setrlimit(RLIMIT_NOFILE, &keep);

	/* Another process's limits: the parent sets its child's. */
	int go[2], back[2];
	if (pipe(go) < 0 || pipe(back) < 0)
		return 1;
	pid_t pid = fork();
	if (pid == 0) {
		char c;
		close(go[1]);
		read(go[0], &c, 1);
		getrlimit(RLIMIT_NOFILE, &rl);
		write(back[1], &rl, sizeof(rl));
		dup_until_full("child: dup after parent's prlimit");
		_exit(0);
	}
	rl.rlim_cur = 12, rl.rlim_max = 24;
	printf("%-34s %s\n", "prlimit64 on child", res(raw_prlimit(pid, RLIMIT_NOFILE, &rl, &old)));
	printf("%-34s %s\n", "child's old limit was ours",
	    old.rlim_cur == keep.rlim_cur && old.rlim_max == keep.rlim_max ? "yes" : "no");
	write(go[1], "x", 1);
	read(back[0], &rl, sizeof(rl));
	int status;
	waitpid(pid, &status, 0);
	printf("%-34s %ld %ld\n", "child sees", (long)rl.rlim_cur, (long)rl.rlim_max);

	as_nobody("nobody lowers, cannot raise", lower_then_raise);
	as_nobody("nobody touches init's limits", touch_root);
	return 0;
}
