/*
 * Descriptor tables: dup, dup2, dup3, fcntl, close-on-exec, fork's copy
 * with shared offsets, the RLIMIT_NOFILE limit, close-all at exit.
 */
#include <sys/ioctl.h>

#include "tests/unit/fstest.h"
#include "tests/unit/unit.h"

TEST(fd_dup_family)
{
	struct fst t;
	char buf[8];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(fst_mkfile(&t, "/f", "0123456789"), 0);
	int fd = fst_open(&t, "/f", O_RDONLY, 0);
	CHECK_EQ(fd, 0);
	CHECK_EQ(kern_dup(&t.p, fd), 1);
	CHECK_EQ(kern_dup(&t.p, 77), -EBADF);
	/* The offset is the file's: dups share it. */
	CHECK_EQ(fst_read(&t, 0, buf, 3), 3);
	CHECK_EQ(fst_read(&t, 1, buf, 3), 3);
	CHECK(memcmp(buf, "345", 3) == 0);
	CHECK_EQ(kern_dup2(&t.p, 0, 10), 10);
	CHECK_EQ(kern_lseek(&t.p, 10, 0, SEEK_CUR), 6);
	CHECK_EQ(kern_dup2(&t.p, 10, 10), 10);
	CHECK_EQ(kern_dup2(&t.p, 11, 11), -EBADF);
	CHECK_EQ(kern_dup2(&t.p, 0, -1), -EBADF);
	CHECK_EQ(kern_dup2(&t.p, 0, 1024), -EBADF);
	CHECK_EQ(kern_dup3(&t.p, 0, 0, 0), -EINVAL);
	CHECK_EQ(kern_dup3(&t.p, 0, 5, O_NONBLOCK), -EINVAL);
	CHECK_EQ(kern_dup3(&t.p, 0, 5, O_CLOEXEC), 5);
	CHECK_EQ(kern_fcntl(&t.p, 5, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(kern_fcntl(&t.p, 0, F_GETFD, 0), 0);
	/* dup2 onto an open descriptor closes what it held. */
	CHECK_EQ(fst_mkfile(&t, "/g", "g"), 0);
	int g = fst_open(&t, "/g", O_RDONLY, 0);
	CHECK_EQ(g, 2);
	CHECK_EQ(kern_dup2(&t.p, 2, 5), 5);
	CHECK_EQ(kern_fcntl(&t.p, 5, F_GETFD, 0), 0);
	CHECK_EQ(fst_read(&t, 5, buf, 8), 1);
	/* The lowest free descriptor is taken. */
	CHECK_EQ(kern_close(&t.p, 1), 0);
	CHECK_EQ(kern_close(&t.p, 1), -EBADF);
	CHECK_EQ(kern_close(&t.p, -1), -EBADF);
	CHECK_EQ(kern_dup(&t.p, 0), 1);
	CHECK_EQ(kern_dup(&t.p, 0), 3);
	CHECK_EQ(kern_fcntl(&t.p, 0, F_DUPFD, 7), 7);
	CHECK_EQ(kern_fcntl(&t.p, 0, F_DUPFD, 7), 8);
	CHECK_EQ(kern_fcntl(&t.p, 0, F_DUPFD_CLOEXEC, 0), 4);
	CHECK_EQ(kern_fcntl(&t.p, 4, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(kern_fcntl(&t.p, 0, F_DUPFD, 1024), -EINVAL);
	CHECK_EQ(kern_fcntl(&t.p, 0, F_SETFD, FD_CLOEXEC), 0);
	CHECK_EQ(kern_fcntl(&t.p, 0, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(kern_fcntl(&t.p, 0, 12345, 0), -EINVAL);
	CHECK_EQ(kern_fcntl(&t.p, 99, F_GETFD, 0), -EBADF);
	/* Status flags: shared by dups, only some changeable. */
	CHECK_EQ(kern_fcntl(&t.p, 0, F_GETFL, 0), O_RDONLY | 0100000);
	CHECK_EQ(kern_fcntl(&t.p, 0, F_SETFL, O_NONBLOCK | O_APPEND | O_RDWR |
	    O_TRUNC), 0);
	CHECK_EQ(kern_fcntl(&t.p, 1, F_GETFL, 0), O_RDONLY | O_NONBLOCK |
	    O_APPEND | 0100000);
	/*
	 * Only the commands without a pointer here (no user memory); the
	 * others are tests/guest/c/ioctls.c's.
	 */
	CHECK_EQ(kern_ioctl(&t.p, 1, FIOCLEX, 0), 0);
	CHECK_EQ(kern_fcntl(&t.p, 1, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(kern_ioctl(&t.p, 1, FIONCLEX, 0), 0);
	CHECK_EQ(kern_fcntl(&t.p, 1, F_GETFD, 0), 0);
	CHECK_EQ(kern_ioctl(&t.p, 1, 0x5401, 0), -ENOTTY);
	CHECK_EQ(kern_ioctl(&t.p, 99, FIONREAD, 0), -EBADF);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(fd_fork_exec_exit)
{
	struct fst t;
	struct fsproc child;
	char buf[8];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(fst_mkfile(&t, "/f", "abcdef"), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/dir", 0755), 0);
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/dir"), 0);
	kern_umask(&t.p, 027);
	int a = fst_open(&t, "/f", O_RDONLY, 0);
	int b = fst_open(&t, "/f", O_RDONLY | O_CLOEXEC, 0);
	CHECK_EQ(kern_dup2(&t.p, a, 40), 40);
	CHECK_EQ(fsproc_fork(&child, &t.p, 0), 0);
	/* The child's reads move the parent's offset: one open file. */
	struct fst c = t;
	c.p = child;
	CHECK_EQ(fst_read(&c, a, buf, 2), 2);
	CHECK_EQ(fst_read(&t, a, buf, 2), 2);
	CHECK(memcmp(buf, "cd", 2) == 0);
	CHECK_EQ(fst_read(&c, 40, buf, 1), 1);
	CHECK_EQ(buf[0], 'e');
	CHECK_EQ(kern_fcntl(&c.p, b, F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(kern_umask(&c.p, 0), 027);
	char cwd[16];
	CHECK_EQ(kern_getcwd(&c.p, cwd, sizeof(cwd)), 5);
	/* exec closes close-on-exec descriptors only. */
	fsproc_exec(&c.p);
	CHECK_EQ(kern_fcntl(&c.p, b, F_GETFD, 0), -EBADF);
	CHECK_EQ(kern_fcntl(&c.p, a, F_GETFD, 0), 0);
	CHECK_EQ(kern_fcntl(&t.p, b, F_GETFD, 0), FD_CLOEXEC);
	/* Closing in the child leaves the parent's open. */
	CHECK_EQ(kern_close(&c.p, a), 0);
	CHECK_EQ(fst_read(&t, a, buf, 1), 1);
	fsproc_exit(&c.p);
	CHECK_EQ(fst_end(&t), 0);
}

/* Shared tables and fs state (CLONE_FILES, CLONE_FS), and unsharing them. */
TEST(fd_share_unshare)
{
	struct fst t;
	struct fsproc child;
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(fst_mkfile(&t, "/f", "abc"), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d", 0755), 0);
	int a = fst_open(&t, "/f", O_RDONLY, 0);
	CHECK_EQ(fsproc_fork(&child, &t.p, FSP_FILES | FSP_FS), 0);
	CHECK(child.fp_fd == t.p.fp_fd && child.fp_pwd == t.p.fp_pwd);
	/* A close, an open, a chdir and a umask in one are the other's. */
	CHECK_EQ(kern_close(&child, a), 0);
	CHECK_EQ(kern_fcntl(&t.p, a, F_GETFD, 0), -EBADF);
	a = fst_open(&t, "/f", O_RDONLY, 0);
	CHECK_EQ(kern_fcntl(&child, a, F_GETFD, 0), 0);
	CHECK_EQ(kern_chdir(&child, &t.cr, "/d"), 0);
	kern_umask(&child, 077);
	char cwd[16];
	CHECK_EQ(kern_getcwd(&t.p, cwd, sizeof(cwd)), 3);
	CHECK_EQ(kern_umask(&t.p, 077), 077);
	/* Unshared, each has its own again, with the same contents. */
	CHECK_EQ(fsproc_unshare(&child, FSP_FILES | FSP_FS), 0);
	CHECK(child.fp_fd != t.p.fp_fd && child.fp_pwd != t.p.fp_pwd);
	CHECK_EQ(kern_close(&child, a), 0);
	CHECK_EQ(kern_fcntl(&t.p, a, F_GETFD, 0), 0);
	CHECK_EQ(kern_chdir(&child, &t.cr, "/"), 0);
	CHECK_EQ(kern_getcwd(&t.p, cwd, sizeof(cwd)), 3);
	CHECK_EQ(kern_umask(&child, 0), 077);
	fsproc_exit(&child);
	/* Still ours after the other's exit. */
	CHECK_EQ(kern_fcntl(&t.p, a, F_GETFD, 0), 0);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(fd_limit)
{
	struct fst t;
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(fst_mkfile(&t, "/f", ""), 0);
	int fd = fst_open(&t, "/f", O_RDONLY, 0);
	int last = fd;
	for (int i = 1; i < 1024; i++) {
		int n = kern_dup(&t.p, fd);
		if (n != i) {
			CHECK_EQ(n, i);
			break;
		}
		last = n;
	}
	CHECK_EQ(last, 1023);
	CHECK_EQ(kern_dup(&t.p, fd), -EMFILE);
	CHECK_EQ(fst_open(&t, "/f", O_RDONLY, 0), -EMFILE);
	int fds[2];
	CHECK_EQ(kern_pipe2(&t.p, &t.cr, fds, 0), -EMFILE);
	CHECK_EQ(kern_close(&t.p, 500), 0);
	CHECK_EQ(kern_dup(&t.p, fd), 500);
	/* Raise the limit: more fit; lower it: new ones must fit below. */
	CHECK_EQ(fsproc_setlimit(&t.p, 2048), 0);
	CHECK_EQ(kern_dup(&t.p, fd), 1024);
	CHECK_EQ(kern_dup2(&t.p, fd, 2000), 2000);
	CHECK_EQ(fsproc_setlimit(&t.p, 100), 0);
	CHECK_EQ(kern_dup(&t.p, fd), -EMFILE);
	CHECK_EQ(kern_dup2(&t.p, fd, 200), -EBADF);
	CHECK_EQ(kern_fcntl(&t.p, 2000, F_GETFD, 0), 0);
	CHECK_EQ(fsproc_setlimit(&t.p, NOFILE_MAX + 1), -EPERM);
	CHECK_EQ(fst_end(&t), 0);
}
