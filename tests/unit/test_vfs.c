/*
 * Path lookup: "..", symlinks and their loops, trailing slashes,
 * ENOTDIR, ENAMETOOLONG, permissions, mounts, *at calls and getcwd.
 */
#include "fs/namei.h"
#include "tests/unit/fstest.h"
#include "tests/unit/unit.h"

TEST(vfs_lookup_dotdot_and_slashes)
{
	struct fst t;
	struct linux_stat st, root;
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/a", 0755), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/a/b", 0755), 0);
	CHECK_EQ(fst_mkfile(&t, "/a/b/f", "x"), 0);
	CHECK_EQ(fst_stat(&t, "/", &root), 0);
	CHECK_EQ(fst_stat(&t, "/..", &st), 0);
	CHECK_EQ(st.st_ino, root.st_ino);
	CHECK_EQ(fst_stat(&t, "/../../a/../a/b/../../a/./b//f", &st), 0);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(fst_stat(&t, "///a///b///", &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(fst_stat(&t, "a/b/f", &st), 0);	/* relative to cwd "/" */
	CHECK_EQ(fst_stat(&t, "", &st), -ENOENT);
	CHECK_EQ(fst_stat(&t, "/a/b/f/", &st), -ENOTDIR);
	CHECK_EQ(fst_stat(&t, "/a/b/f/.", &st), -ENOTDIR);
	CHECK_EQ(fst_stat(&t, "/a/b/f/x", &st), -ENOTDIR);
	CHECK_EQ(fst_stat(&t, "/a/nope/x", &st), -ENOENT);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(vfs_lookup_symlinks)
{
	struct fst t;
	struct linux_stat st;
	char buf[64];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d", 0755), 0);
	CHECK_EQ(fst_mkfile(&t, "/d/f", "data"), 0);
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "d/f", AT_FDCWD, "/rel"), 0);
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "/d", AT_FDCWD, "/abs"), 0);
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "nowhere", AT_FDCWD, "/dangling"), 0);
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "loop2", AT_FDCWD, "/loop1"), 0);
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "loop1", AT_FDCWD, "/loop2"), 0);
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "../d/f", AT_FDCWD, "/d/up"), 0);
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "", AT_FDCWD, "/empty"), -ENOENT);

	CHECK_EQ(fst_cat(&t, "/rel", buf, sizeof(buf)), 4);
	CHECK(strcmp(buf, "data") == 0);
	CHECK_EQ(fst_cat(&t, "/abs/f", buf, sizeof(buf)), 4);
	CHECK_EQ(fst_cat(&t, "/abs/up", buf, sizeof(buf)), 4);
	CHECK_EQ(fst_lstat(&t, "/rel", &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_EQ(st.st_size, 3);
	CHECK_EQ(fst_stat(&t, "/abs/", &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(fst_lstat(&t, "/abs/", &st), 0);	/* slash follows */
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(fst_stat(&t, "/dangling", &st), -ENOENT);
	CHECK_EQ(fst_lstat(&t, "/dangling", &st), 0);
	CHECK_EQ(fst_stat(&t, "/loop1", &st), -ELOOP);
	CHECK_EQ(fst_stat(&t, "/loop1/x", &st), -ELOOP);
	CHECK_EQ(fst_lstat(&t, "/loop1", &st), 0);
	CHECK_EQ(fst_open(&t, "/rel", O_RDONLY | O_NOFOLLOW, 0), -ELOOP);
	CHECK_EQ(kern_readlinkat(&t.p, &t.cr, AT_FDCWD, "/rel", buf, sizeof(buf)), 3);
	CHECK(memcmp(buf, "d/f", 3) == 0);
	CHECK_EQ(kern_readlinkat(&t.p, &t.cr, AT_FDCWD, "/rel", buf, 2), 2);
	CHECK_EQ(kern_readlinkat(&t.p, &t.cr, AT_FDCWD, "/d/f", buf, 9), -EINVAL);

	/* A chain of 40 links resolves; 41 is too many. */
	char name[32], target[32];
	for (int i = 1; i <= 41; i++) {
		snprintf(name, sizeof(name), "/c%d", i);
		snprintf(target, sizeof(target), i == 1 ? "d/f" : "c%d", i - 1);
		CHECK_EQ(kern_symlinkat(&t.p, &t.cr, target, AT_FDCWD, name), 0);
	}
	CHECK_EQ(fst_stat(&t, "/c40", &st), 0);
	CHECK_EQ(fst_stat(&t, "/c41", &st), -ELOOP);

	/* O_CREAT through a dangling link creates its target. */
	int fd = fst_open(&t, "/dangling", O_WRONLY | O_CREAT, 0600);
	CHECK(fd >= 0);
	kern_close(&t.p, fd);
	CHECK_EQ(fst_stat(&t, "/nowhere", &st), 0);
	CHECK_EQ(fst_open(&t, "/rel", O_WRONLY | O_CREAT | O_EXCL, 0600), -EEXIST);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(vfs_lookup_name_limits)
{
	struct fst t;
	struct linux_stat st;
	REQUIRE(fst_begin(&t) == 0);
	char name[300];
	memset(name, 'n', sizeof(name));
	name[0] = '/';
	name[256] = '\0';	/* a component of 255 bytes: fine */
	CHECK_EQ(fst_mkfile(&t, name, ""), 0);
	CHECK_EQ(fst_stat(&t, name, &st), 0);
	name[256] = 'n';
	name[257] = '\0';	/* 256 bytes */
	CHECK_EQ(fst_stat(&t, name, &st), -ENAMETOOLONG);
	CHECK_EQ(fst_mkfile(&t, name, ""), -ENAMETOOLONG);

	static char path[PATH_MAX + 8];
	memset(path, 0, sizeof(path));
	for (size_t i = 0; i + 2 < PATH_MAX; i += 2)
		memcpy(path + i, "./", 2);
	path[PATH_MAX - 1] = '\0';	/* 4095 bytes and the NUL: fine */
	CHECK_EQ(fst_stat(&t, path, &st), 0);
	memset(path, '/', PATH_MAX);
	path[PATH_MAX] = '\0';		/* 4096 bytes */
	CHECK_EQ(fst_stat(&t, path, &st), -ENAMETOOLONG);

	/* A link whose target makes the path too long. */
	static char target[PATH_MAX];
	memset(target, '/', PATH_MAX - 2);
	target[PATH_MAX - 2] = '\0';
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, target, AT_FDCWD, "/long"), 0);
	CHECK_EQ(fst_stat(&t, "/long", &st), 0);
	CHECK_EQ(fst_stat(&t, "/long/./././.", &st), -ENAMETOOLONG);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(vfs_lookup_permissions)
{
	struct fst t;
	struct linux_stat st;
	REQUIRE(fst_begin(&t) == 0);
	struct ucred u = fst_user(1000, 1000);
	struct ucred other = fst_user(2000, 2000);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/priv", 0700), 0);
	CHECK_EQ(fst_mkfile(&t, "/priv/f", "x"), 0);
	CHECK_EQ(kern_fchmodat(&t.p, &t.cr, AT_FDCWD, "/priv/f", 0600, 0), 0);
	CHECK_EQ(kern_fstatat(&t.p, &u, AT_FDCWD, "/priv/f", &st, 0), -EACCES);
	CHECK_EQ(kern_fstatat(&t.p, &u, AT_FDCWD, "/priv", &st, 0), 0);
	CHECK_EQ(kern_openat(&t.p, &u, AT_FDCWD, "/priv/g", O_CREAT | O_WRONLY,
	    0600), -EACCES);
	/* Search but not read: lookups work, listing does not. */
	CHECK_EQ(kern_fchmodat(&t.p, &t.cr, AT_FDCWD, "/priv", 0711, 0), 0);
	CHECK_EQ(kern_fstatat(&t.p, &u, AT_FDCWD, "/priv/f", &st, 0), 0);
	CHECK_EQ(kern_openat(&t.p, &u, AT_FDCWD, "/priv", O_RDONLY, 0), -EACCES);
	CHECK_EQ(kern_openat(&t.p, &u, AT_FDCWD, "/priv/f", O_RDONLY, 0), -EACCES);
	CHECK_EQ(kern_fchmodat(&t.p, &t.cr, AT_FDCWD, "/priv/f", 0644, 0), 0);
	int fd = kern_openat(&t.p, &u, AT_FDCWD, "/priv/f", O_RDONLY, 0);
	CHECK(fd >= 0);
	kern_close(&t.p, fd);
	CHECK_EQ(kern_openat(&t.p, &u, AT_FDCWD, "/priv/f", O_RDWR, 0), -EACCES);
	CHECK_EQ(kern_faccessat(&t.p, &u, AT_FDCWD, "/priv/f", R_OK, 0), 0);
	CHECK_EQ(kern_faccessat(&t.p, &u, AT_FDCWD, "/priv/f", W_OK, 0), -EACCES);
	CHECK_EQ(kern_faccessat(&t.p, &t.cr, AT_FDCWD, "/priv/f", W_OK, 0), 0);
	CHECK_EQ(kern_faccessat(&t.p, &t.cr, AT_FDCWD, "/priv/f", X_OK, 0), -EACCES);
	CHECK_EQ(kern_faccessat(&t.p, &t.cr, AT_FDCWD, "/priv", X_OK, 0), 0);
	CHECK_EQ(kern_faccessat(&t.p, &t.cr, AT_FDCWD, "/priv", 8, 0), -EINVAL);
	/* Only the owner (or root) changes modes; chown is root's. */
	CHECK_EQ(kern_fchmodat(&t.p, &u, AT_FDCWD, "/priv/f", 0777, 0), -EPERM);
	CHECK_EQ(kern_fchownat(&t.p, &u, AT_FDCWD, "/priv/f", 1000, -1, 0), -EPERM);
	CHECK_EQ(kern_fchownat(&t.p, &t.cr, AT_FDCWD, "/priv/f", 1000, 1000, 0), 0);
	CHECK_EQ(kern_fchmodat(&t.p, &u, AT_FDCWD, "/priv/f", 0600, 0), 0);
	CHECK_EQ(kern_fchownat(&t.p, &u, AT_FDCWD, "/priv/f", -1, 2000, 0), -EPERM);
	/* The sticky /tmp rule: others' files cannot be removed. */
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/tmp", 01777), 0);
	CHECK_EQ(kern_fchmodat(&t.p, &t.cr, AT_FDCWD, "/tmp", 01777, 0), 0);
	fd = kern_openat(&t.p, &u, AT_FDCWD, "/tmp/mine", O_CREAT | O_WRONLY, 0644);
	CHECK(fd >= 0);
	kern_close(&t.p, fd);
	CHECK_EQ(kern_unlinkat(&t.p, &other, AT_FDCWD, "/tmp/mine", 0), -EPERM);
	CHECK_EQ(kern_renameat2(&t.p, &other, AT_FDCWD, "/tmp/mine", AT_FDCWD,
	    "/tmp/theirs", 0), -EPERM);
	CHECK_EQ(kern_unlinkat(&t.p, &u, AT_FDCWD, "/tmp/mine", 0), 0);
	/* Device nodes are root's to make. */
	CHECK_EQ(kern_mknodat(&t.p, &u, AT_FDCWD, "/tmp/null", S_IFCHR | 0666,
	    linux_makedev(1, 3)), -EPERM);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(vfs_at_calls_and_cwd)
{
	struct fst t;
	struct linux_stat st;
	char buf[256];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/x", 0755), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/x/y", 0755), 0);
	int dfd = fst_open(&t, "/x", O_RDONLY | O_DIRECTORY, 0);
	CHECK(dfd >= 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, dfd, "y/z", 0755), 0);
	CHECK_EQ(kern_fstatat(&t.p, &t.cr, dfd, "y/z", &st, 0), 0);
	CHECK_EQ(kern_fstatat(&t.p, &t.cr, dfd, "", &st, AT_EMPTY_PATH), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(kern_fstatat(&t.p, &t.cr, 99, "y", &st, 0), -EBADF);
	CHECK_EQ(kern_fstatat(&t.p, &t.cr, 99, "/x", &st, 0), 0);
	CHECK_EQ(fst_mkfile(&t, "/file", ""), 0);
	int ffd = fst_open(&t, "/file", O_RDONLY, 0);
	CHECK_EQ(kern_fstatat(&t.p, &t.cr, ffd, "y", &st, 0), -ENOTDIR);
	CHECK_EQ(fst_open(&t, "/file", O_RDONLY | O_DIRECTORY, 0), -ENOTDIR);
	CHECK_EQ(kern_fstatat(&t.p, &t.cr, AT_FDCWD, "/x", &st, 0x10000), -EINVAL);

	CHECK_EQ(kern_getcwd(&t.p, buf, sizeof(buf)), 2);
	CHECK(strcmp(buf, "/") == 0);
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/x/y/z"), 0);
	CHECK_EQ(kern_getcwd(&t.p, buf, sizeof(buf)), 7);
	CHECK(strcmp(buf, "/x/y/z") == 0);
	CHECK_EQ(kern_getcwd(&t.p, buf, 6), -ERANGE);
	CHECK_EQ(fst_stat(&t, "../../y", &st), 0);
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/file"), -ENOTDIR);
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/none"), -ENOENT);
	CHECK_EQ(kern_fchdir(&t.p, &t.cr, dfd), 0);
	CHECK_EQ(kern_getcwd(&t.p, buf, sizeof(buf)), 3);
	CHECK(strcmp(buf, "/x") == 0);
	CHECK_EQ(kern_fchdir(&t.p, &t.cr, ffd), -ENOTDIR);
	/* A removed cwd has no name. */
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/x/y/z"), 0);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/x/y/z", AT_REMOVEDIR), 0);
	CHECK_EQ(kern_getcwd(&t.p, buf, sizeof(buf)), -ENOENT);
	CHECK_EQ(fst_stat(&t, ".", &st), 0);
	CHECK_EQ(st.st_nlink, 0);
	CHECK_EQ(fst_mkfile(&t, "new", ""), -ENOENT);
	/* chroot: ".." stops at the new root. */
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/x"), 0);
	CHECK_EQ(kern_chroot(&t.p, &t.cr, "/x"), 0);
	CHECK_EQ(kern_getcwd(&t.p, buf, sizeof(buf)), 2);
	CHECK_EQ(fst_stat(&t, "/../../y", &st), 0);
	CHECK_EQ(fst_stat(&t, "/file", &st), -ENOENT);
	kern_close(&t.p, dfd);
	kern_close(&t.p, ffd);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(vfs_mounts)
{
	struct fst t;
	struct linux_stat st, mst;
	char buf[64];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/mnt", 0755), 0);
	CHECK_EQ(fst_mkfile(&t, "/mnt/hidden", ""), 0);
	CHECK_EQ(kern_mount(&t.p, &t.cr, NULL, "/mnt", "tmpfs", 0, NULL), 0);
	CHECK_EQ(kern_mount(&t.p, &t.cr, NULL, "/mnt", "nofs", 0, NULL), -ENODEV);
	struct ucred u = fst_user(5, 5);
	CHECK_EQ(kern_mount(&t.p, &u, NULL, "/mnt", "tmpfs", 0, NULL), -EPERM);
	CHECK_EQ(fst_stat(&t, "/mnt/hidden", &st), -ENOENT);
	CHECK_EQ(fst_mkfile(&t, "/mnt/f", "on tmp"), 0);
	CHECK_EQ(fst_stat(&t, "/mnt", &mst), 0);
	CHECK_EQ(fst_stat(&t, "/", &st), 0);
	CHECK(mst.st_dev != st.st_dev);
	CHECK_EQ(mst.st_mode & 07777, 01777);
	CHECK_EQ(fst_stat(&t, "/mnt/..", &st), 0);
	CHECK_EQ(fst_stat(&t, "/", &mst), 0);
	CHECK_EQ(st.st_ino, mst.st_ino);
	/* Renames and links do not cross. */
	CHECK_EQ(kern_renameat2(&t.p, &t.cr, AT_FDCWD, "/mnt/f", AT_FDCWD, "/f", 0),
	    -EXDEV);
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/mnt/f", AT_FDCWD, "/f", 0),
	    -EXDEV);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/mnt", AT_REMOVEDIR), -EBUSY);
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/mnt"), 0);
	CHECK_EQ(kern_getcwd(&t.p, buf, sizeof(buf)), 5);
	CHECK(strcmp(buf, "/mnt") == 0);
	CHECK_EQ(kern_umount(&t.p, &t.cr, "/mnt", 0), -EBUSY);	/* our cwd */
	CHECK_EQ(kern_chdir(&t.p, &t.cr, ".."), 0);
	CHECK_EQ(kern_getcwd(&t.p, buf, sizeof(buf)), 2);
	struct statfs_info sf;
	CHECK_EQ(kern_statfs(&t.p, &t.cr, "/mnt/f", &sf), 0);
	CHECK_EQ(sf.f_type, 0x01021994);
	CHECK_EQ(sf.f_bsize, 4096);
	CHECK_EQ(sf.f_blocks - sf.f_bfree, 1);	/* one page of data */
	CHECK_EQ(kern_umount(&t.p, &t.cr, "/", 0), -EBUSY);
	CHECK_EQ(kern_umount(&t.p, &t.cr, "/mnt/f", 0), -EINVAL);
	CHECK_EQ(kern_umount(&t.p, &t.cr, "/mnt", 0), 0);
	CHECK_EQ(fst_stat(&t, "/mnt/hidden", &st), 0);
	CHECK_EQ(fst_end(&t), 0);
}
