/*
 * O_PATH: a descriptor that names a file without opening it.  It stats,
 * serves as an *at directory and for fchdir, dups and closes; reading,
 * writing, fchmod, fchown, lseek, getdents, ioctl, locks and mmap give
 * EBADF, and poll says POLLNVAL.  A link opened with O_NOFOLLOW is the
 * link itself; a device is not opened.  glibc's and musl's
 * fchmodat(AT_SYMLINK_NOFOLLOW) are built on it (GNU tar uses that).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "report.h"

static const char *
kind(mode_t m)
{
	return S_ISDIR(m) ? "dir" : S_ISLNK(m) ? "link" : S_ISCHR(m) ? "chr" :
	    S_ISREG(m) ? "reg" : "other";
}

int
main(void)
{
	struct stat st;
	char buf[256];

	mkdir("op.d", 0755);
	int f = open("op.d/f", O_CREAT | O_WRONLY | O_TRUNC, 0644);
	write(f, "hello", 5);
	close(f);
	symlink("f", "op.d/l");

	int d = open("op.d", O_PATH | O_DIRECTORY);
	report("open dir O_PATH", d >= 0);
	printf("F_GETFL %#x\n", fcntl(d, F_GETFL));
	report("fstat", fstat(d, &st));
	printf("is %s\n", kind(st.st_mode));
	int g = openat(d, "f", O_RDONLY);
	report("openat through it", g >= 0);
	report("read the file", read(g, buf, sizeof(buf)));
	close(g);
	report("fstatat empty path", fstatat(d, "", &st, AT_EMPTY_PATH));
	report("fstatat a name", fstatat(d, "f", &st, 0));
	printf("size %lld\n", (long long)st.st_size);
	report("getdents64", syscall(SYS_getdents64, d, buf, sizeof(buf)));
	report("fchmod", fchmod(d, 0700));
	report("fchown", fchown(d, 0, 0));
	report("fchownat empty path", fchownat(d, "", -1, -1, AT_EMPTY_PATH));
	report("F_SETFL", fcntl(d, F_SETFL, O_NONBLOCK));
	report("F_SETFD", fcntl(d, F_SETFD, FD_CLOEXEC));
	report("F_GETFD", fcntl(d, F_GETFD));
	int d2 = dup(d);
	report("dup", d2 >= 0);
	report("fchdir", fchdir(d2));
	report("stat from the new cwd", stat("f", &st));
	chdir("..");
	close(d2);

	int p = open("op.d/f", O_PATH);
	report("read", read(p, buf, sizeof(buf)));
	report("write", write(p, "x", 1));
	report("pread", pread(p, buf, 1, 0));
	report("lseek", lseek(p, 0, SEEK_SET));
	report("ioctl FIONREAD", ioctl(p, FIONREAD, &f));
	report("flock", flock(p, LOCK_SH));
	struct flock fl = { .l_type = F_RDLCK, .l_whence = SEEK_SET };
	report("F_SETLK", fcntl(p, F_SETLK, &fl));
	report("fsync", fsync(p));
	report("ftruncate", ftruncate(p, 0));
	errno = 0;
	void *m = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, p, 0);
	report("mmap", m == MAP_FAILED ? -1 : 0);
	struct pollfd pf = { .fd = p, .events = POLLIN };
	report("poll", poll(&pf, 1, 0));
	printf("revents %#x\n", pf.revents);
	snprintf(buf, sizeof(buf), "/proc/self/fd/%d", p);
	int r = open(buf, O_RDONLY);
	report("reopen through /proc/self/fd", r >= 0);
	memset(buf, 0, sizeof(buf));
	report("and read", read(r, buf, sizeof(buf)));
	printf("%s\n", buf);
	close(r);
	close(p);

	int l = open("op.d/l", O_PATH | O_NOFOLLOW);
	report("open link O_PATH|O_NOFOLLOW", l >= 0);
	report("fstat", fstat(l, &st));
	printf("is %s\n", kind(st.st_mode));
	report("openat(link, \"x\")", openat(l, "x", O_RDONLY));
	close(l);
	l = open("op.d/l", O_PATH);
	fstat(l, &st);
	printf("followed: %s\n", kind(st.st_mode));
	close(l);

	int n = open("/dev/null", O_PATH);
	fstat(n, &st);
	printf("/dev/null O_PATH: %s\n", kind(st.st_mode));
	report("write to it", write(n, "x", 1));
	close(n);
	report("O_PATH|O_CREAT of nothing", open("op.d/none", O_PATH | O_CREAT, 0644));
	report("O_PATH|O_DIRECTORY of a file", open("op.d/f", O_PATH | O_DIRECTORY));
	report("O_PATH of nothing", open("op.d/none", O_PATH));

	report("fchmodat nofollow, file", fchmodat(AT_FDCWD, "op.d/f", 0600,
	    AT_SYMLINK_NOFOLLOW));
	stat("op.d/f", &st);
	printf("mode %o\n", st.st_mode & 07777);
	report("fchmodat nofollow, link", fchmodat(AT_FDCWD, "op.d/l", 0600,
	    AT_SYMLINK_NOFOLLOW));
	report("fchmodat nofollow, dir", fchmodat(AT_FDCWD, "op.d", 0711,
	    AT_SYMLINK_NOFOLLOW));
	stat("op.d", &st);
	printf("mode %o\n", st.st_mode & 07777);
	unlink("op.d/l");
	unlink("op.d/f");
	report("rmdir", rmdir("op.d"));
	return 0;
}
