/*
 * Advisory locks: fcntl record locks (F_GETLK, F_SETLK, F_SETLKW), their
 * merging and splitting, EDEADLK, release on close of any descriptor and
 * on exit; OFD locks (per open file); flock (whole file, a space apart
 * from fcntl's), with conversion and release.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static const char *F = "locks.tmp";
static pid_t parent;

static int
setlk(int fd, int cmd, short type, off_t start, off_t len)
{
	struct flock fl = { .l_type = type, .l_whence = SEEK_SET,
	    .l_start = start, .l_len = len };
	return fcntl(fd, cmd, &fl);
}

/* F_GETLK (or F_OFD_GETLK) of a write lock over [start, start + len). */
static void
getlk(const char *what, int fd, int cmd, off_t start, off_t len)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET,
	    .l_start = start, .l_len = len };
	if (fcntl(fd, cmd, &fl) < 0) {
		printf("%s: -1 %s\n", what, strerror(errno));
		return;
	}
	if (fl.l_type == F_UNLCK) {
		printf("%s: unlocked\n", what);
		return;
	}
	printf("%s: %s at %lld len %lld by %s\n", what,
	    fl.l_type == F_WRLCK ? "write" : "read", (long long)fl.l_start,
	    (long long)fl.l_len, fl.l_pid == parent ? "the parent" :
	    fl.l_pid == -1 ? "an open file (-1)" : "another");
}

/* Runs fn in a child and waits for it. */
static void
in_child(void (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		fn();
		_exit(0);
	}
	waitpid(pid, NULL, 0);
}

static void
child_sees(void)
{
	int fd = open(F, O_RDWR);
	getlk("child: getlk 0..100", fd, F_GETLK, 0, 100);
	getlk("child: getlk 12..100", fd, F_GETLK, 12, 88);
	getlk("child: getlk 30..", fd, F_GETLK, 30, 0);
	report("child: setlk write 5..15", setlk(fd, F_SETLK, F_WRLCK, 5, 10));
	report("child: setlk read 5..15", setlk(fd, F_SETLK, F_RDLCK, 5, 10));
	report("child: setlk write 40..50", setlk(fd, F_SETLK, F_WRLCK, 40, 10));
}

static void
child_reads(void)
{
	int fd = open(F, O_RDWR);
	report("child: read lock all", setlk(fd, F_SETLK, F_RDLCK, 0, 0));
	report("child: write lock all", setlk(fd, F_SETLK, F_WRLCK, 0, 0));
}

static void
posix_locks(int fd)
{
	report("write lock 0..10", setlk(fd, F_SETLK, F_WRLCK, 0, 10));
	report("write lock 10..20 (merges)", setlk(fd, F_SETLK, F_WRLCK, 10, 10));
	report("read lock 20..30", setlk(fd, F_SETLK, F_RDLCK, 20, 10));
	in_child(child_sees);
	getlk("after the child's exit, 40..50", fd, F_GETLK, 40, 10);
	report("own locks never conflict: read 0..30", setlk(fd, F_SETLK, F_RDLCK, 0, 30));
	report("unlock 5..15", setlk(fd, F_SETLK, F_UNLCK, 5, 10));
	in_child(child_reads);
	report("write lock 0..2 again", setlk(fd, F_SETLK, F_WRLCK, 0, 2));
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 5, .l_len = -3 };
	report("negative length: 2..5", fcntl(fd, F_SETLK, &fl));
	in_child(child_sees);
	/* Closing any descriptor of the file lets the process's locks go. */
	int fd2 = open(F, O_RDONLY);
	close(fd2);
	in_child(child_sees);
}

static void
errors(int fd)
{
	int ro = open(F, O_RDONLY);
	report("write lock on a read-only fd", setlk(ro, F_SETLK, F_WRLCK, 0, 1));
	report("read lock on a read-only fd", setlk(ro, F_SETLK, F_RDLCK, 0, 1));
	close(ro);
	int wo = open(F, O_WRONLY);
	report("read lock on a write-only fd", setlk(wo, F_SETLK, F_RDLCK, 0, 1));
	close(wo);
	report("bad type", setlk(fd, F_SETLK, 7, 0, 1));
	report("negative start", setlk(fd, F_SETLK, F_WRLCK, -1, 1));
	struct flock fl = { .l_type = F_WRLCK, .l_whence = 9 };
	report("bad whence", fcntl(fd, F_SETLK, &fl));
	fl.l_whence = SEEK_SET;
	fl.l_start = 0x7fffffffffffffffLL;
	fl.l_len = 2;
	report("overflowing range", fcntl(fd, F_SETLK, &fl));
	report("bad fd", setlk(99, F_SETLK, F_WRLCK, 0, 1));
	report("bad pointer", fcntl(fd, F_SETLK, (void *)8));
	report("getlk of F_UNLCK", setlk(fd, F_GETLK, F_UNLCK, 0, 1));
	struct flock ofl = { .l_type = F_WRLCK, .l_pid = 1 };
	report("OFD with l_pid", fcntl(fd, F_OFD_SETLK, &ofl));
	setlk(fd, F_SETLK, F_UNLCK, 0, 0);
}

/* The parent waits for the child's lock; the child then for the parent's: EDEADLK. */
static void
deadlock(int fd)
{
	int go[2], held[2];
	pipe(go);
	pipe(held);
	setlk(fd, F_SETLK, F_WRLCK, 0, 1);
	pid_t pid = fork();
	if (pid == 0) {
		int cfd = open(F, O_RDWR);
		setlk(cfd, F_SETLK, F_WRLCK, 1, 1);
		write(held[1], "h", 1);
		/* Blocks until the parent lets byte 0 go. */
		report("child: setlkw on byte 0", setlk(cfd, F_SETLKW, F_WRLCK, 0, 1));
		_exit(0);
	}
	char c;
	read(held[0], &c, 1);
	usleep(200000);		/* the child is waiting by now */
	report("setlkw on the child's byte 1", setlk(fd, F_SETLKW, F_WRLCK, 1, 1));
	int r = setlk(fd, F_SETLK, F_UNLCK, 0, 1);
	waitpid(pid, NULL, 0);		/* its report first, as on any machine */
	report("unlock byte 0", r);
	/* F_SETLKW waits for the holder, and gets the lock once it lets go. */
	pid = fork();
	if (pid == 0) {
		int cfd = open(F, O_RDWR);
		setlk(cfd, F_SETLK, F_WRLCK, 0, 0);
		write(held[1], "h", 1);
		usleep(200000);
		printf("child: lets go\n");
		_exit(0);	/* its locks go with it */
	}
	read(held[0], &c, 1);
	report("setlkw on the whole file", setlk(fd, F_SETLKW, F_WRLCK, 0, 0));
	printf("got it\n");
	waitpid(pid, NULL, 0);
	setlk(fd, F_SETLK, F_UNLCK, 0, 0);
}

static void
ofd_locks(void)
{
	int a = open(F, O_RDWR), b = open(F, O_RDWR);
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_len = 10 };
	report("OFD write lock through a", fcntl(a, F_OFD_SETLK, &fl));
	report("OFD write lock through b", fcntl(b, F_OFD_SETLK, &fl));
	report("POSIX write lock, same process", setlk(b, F_SETLK, F_WRLCK, 0, 10));
	getlk("OFD getlk through b", b, F_OFD_GETLK, 0, 0);
	getlk("POSIX getlk", b, F_GETLK, 0, 0);
	int a2 = dup(a);
	close(a);
	getlk("after closing a dup'd fd", b, F_OFD_GETLK, 0, 0);
	close(a2);
	getlk("after closing the last", b, F_OFD_GETLK, 0, 0);
	close(b);
}

static void
child_flock(void)
{
	int fd = open(F, O_RDONLY);
	report("child: flock ex nb", flock(fd, LOCK_EX | LOCK_NB));
	report("child: flock sh nb", flock(fd, LOCK_SH | LOCK_NB));
	report("child: fcntl write lock (another space)", setlk(open(F, O_RDWR), F_SETLK, F_WRLCK, 0, 0));
}

static void
flocks(void)
{
	int fd = open(F, O_RDONLY);
	report("flock ex", flock(fd, LOCK_EX));
	in_child(child_flock);
	report("flock sh (conversion)", flock(fd, LOCK_SH));
	in_child(child_flock);
	report("flock un", flock(fd, LOCK_UN));
	in_child(child_flock);
	report("flock bad op", flock(fd, 0));
	report("flock bad op 3", flock(fd, LOCK_SH | LOCK_EX));
	report("flock bad fd", flock(99, LOCK_SH));
	/* A child's lock through an inherited descriptor is the same lock. */
	flock(fd, LOCK_EX);
	pid_t pid = fork();
	if (pid == 0) {
		report("child: flock ex through the inherited fd", flock(fd, LOCK_EX | LOCK_NB));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	close(fd);
	/* A lock goes with its holder's exit. */
	pid = fork();
	if (pid == 0) {
		flock(open(F, O_RDONLY), LOCK_EX);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	fd = open(F, O_RDONLY);
	report("flock ex nb after the holder exited", flock(fd, LOCK_EX | LOCK_NB));
	close(fd);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	parent = getpid();
	int fd = open(F, O_CREAT | O_RDWR | O_TRUNC, 0600);
	write(fd, "0123456789", 10);
	posix_locks(fd);
	close(fd);
	fd = open(F, O_RDWR);
	errors(fd);
	deadlock(fd);
	close(fd);
	ofd_locks();
	flocks();
	unlink(F);
	return 0;
}
