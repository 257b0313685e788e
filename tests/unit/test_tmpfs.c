/*
 * tmpfs through the system calls: files, sparse data and truncate,
 * directories and getdents64, links, rename's POSIX cases, timestamps,
 * device nodes, and the error of every operation.
 */

#include "fs/cdev.h"
#include "fs/namei.h"
#include "fs/tmpfs/tmpfs.h"
#include "kern/uio.h"
#include "tests/unit/fstest.h"
#include "tests/unit/unit.h"

TEST(tmpfs_read_write_seek)
{
	struct fst t;
	struct linux_stat st;
	char buf[64];
	REQUIRE(fst_begin(&t) == 0);
	int fd = fst_open(&t, "/f", O_RDWR | O_CREAT | O_EXCL, 0640);
	REQUIRE(fd >= 0);
	CHECK_EQ(fst_open(&t, "/f", O_RDWR | O_CREAT | O_EXCL, 0640), -EEXIST);
	CHECK_EQ(fst_write(&t, fd, "hello, world", 12), 12);
	CHECK_EQ(kern_lseek(&t.p, fd, 0, SEEK_CUR), 12);
	CHECK_EQ(fst_read(&t, fd, buf, sizeof(buf)), 0);
	CHECK_EQ(kern_lseek(&t.p, fd, -5, SEEK_END), 7);
	CHECK_EQ(fst_read(&t, fd, buf, sizeof(buf)), 5);
	CHECK(memcmp(buf, "world", 5) == 0);
	CHECK_EQ(kern_lseek(&t.p, fd, -1, SEEK_SET), -EINVAL);
	CHECK_EQ(kern_lseek(&t.p, fd, 0, 42), -EINVAL);
	CHECK_EQ(kern_lseek(&t.p, fd, INT64_MAX, SEEK_SET), INT64_MAX);
	CHECK_EQ(kern_lseek(&t.p, fd, 1, SEEK_CUR), -EINVAL);
	CHECK_EQ(kern_lseek(&t.p, fd, 3, SEEK_DATA), 3);
	CHECK_EQ(kern_lseek(&t.p, fd, 3, SEEK_HOLE), 12);
	CHECK_EQ(kern_lseek(&t.p, fd, 12, SEEK_DATA), -ENXIO);
	CHECK_EQ(fst_pread(&t, fd, buf, 5, 0), 5);
	CHECK(memcmp(buf, "hello", 5) == 0);
	CHECK_EQ(fst_pwrite(&t, fd, "HELLO", 5, 0), 5);
	CHECK_EQ(fst_pread(&t, fd, buf, 12, 0), 12);
	CHECK(memcmp(buf, "HELLO, world", 12) == 0);
	CHECK_EQ(fst_pread(&t, fd, buf, 5, -1), -EINVAL);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK_EQ(st.st_size, 12);
	CHECK_EQ(st.st_mode, S_IFREG | 0640);	/* umask 022 */
	CHECK_EQ(st.st_nlink, 1);
	CHECK_EQ(st.st_blocks, 8);
	CHECK_EQ(st.st_blksize, 4096);
	kern_close(&t.p, fd);

	/* O_APPEND writes at the end whatever the offset. */
	fd = fst_open(&t, "/f", O_WRONLY | O_APPEND, 0);
	CHECK_EQ(fst_write(&t, fd, "!", 1), 1);
	CHECK_EQ(fst_pwrite(&t, fd, "?", 1, 0), 1);
	CHECK_EQ(fst_read(&t, fd, buf, 1), -EBADF);
	kern_close(&t.p, fd);
	CHECK_EQ(fst_cat(&t, "/f", buf, sizeof(buf)), 14);
	CHECK(strcmp(buf, "HELLO, world!?") == 0);
	/* O_TRUNC empties it. */
	fd = fst_open(&t, "/f", O_RDONLY | O_TRUNC, 0);
	CHECK(fd >= 0);
	CHECK_EQ(fst_write(&t, fd, "x", 1), -EBADF);
	kern_close(&t.p, fd);
	CHECK_EQ(fst_stat(&t, "/f", &st), 0);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(st.st_blocks, 0);
	CHECK_EQ(fst_open(&t, "/f", O_RDWR | O_ACCMODE, 0), -EINVAL);
	/* O_PATH names the file: it opens, but nothing writes through it. */
	fd = fst_open(&t, "/f", O_PATH, 0);
	CHECK(fd >= 0);
	CHECK_EQ(fst_write(&t, fd, "x", 1), -EBADF);
	kern_close(&t.p, fd);
	CHECK_EQ(fst_open(&t, "/nope", O_RDONLY, 0), -ENOENT);
	CHECK_EQ(fst_open(&t, "/new/", O_RDWR | O_CREAT, 0644), -EISDIR);
	CHECK_EQ(fst_open(&t, "/", O_RDWR, 0), -EISDIR);
	CHECK_EQ(fst_open(&t, "/", O_RDONLY | O_CREAT, 0), -EISDIR);
	fd = fst_open(&t, "/", O_RDONLY, 0);
	CHECK_EQ(fst_read(&t, fd, buf, 4), -EISDIR);
	kern_close(&t.p, fd);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(tmpfs_sparse_and_truncate)
{
	struct fst t;
	struct linux_stat st;
	static char buf[3 * 4096];
	REQUIRE(fst_begin(&t) == 0);
	int fd = fst_open(&t, "/s", O_RDWR | O_CREAT, 0644);
	REQUIRE(fd >= 0);
	/* One byte a gigabyte out: one data page, holes read as zeros. */
	CHECK_EQ(fst_pwrite(&t, fd, "z", 1, 1L << 30), 1);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK_EQ(st.st_size, (1L << 30) + 1);
	CHECK_EQ(st.st_blocks, 8);
	memset(buf, 0x55, sizeof(buf));
	CHECK_EQ(fst_pread(&t, fd, buf, sizeof(buf), (1L << 30) - 8192), 8193);
	bool zeros = true;
	for (int i = 0; i < 8192; i++)
		zeros &= buf[i] == 0;
	CHECK(zeros);
	CHECK_EQ(buf[8192], 'z');
	/* And far out, past 2^39 (a deeper tree). */
	CHECK_EQ(fst_pwrite(&t, fd, "y", 1, 1L << 40), 1);
	CHECK_EQ(fst_pread(&t, fd, buf, 1, 1L << 40), 1);
	CHECK_EQ(buf[0], 'y');
	CHECK_EQ(fst_pwrite(&t, fd, "y", 1, (int64_t)TMPFS_MAXFILESIZE), -EFBIG);

	/* Down: the tail is cut and comes back as zeros. */
	memset(buf, 'a', 3 * 4096);
	CHECK_EQ(fst_pwrite(&t, fd, buf, 3 * 4096, 0), 3 * 4096);
	CHECK_EQ(kern_ftruncate(&t.p, fd, 5000), 0);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK_EQ(st.st_size, 5000);
	CHECK_EQ(st.st_blocks, 16);
	CHECK_EQ(kern_ftruncate(&t.p, fd, 9000), 0);
	memset(buf, 0x55, sizeof(buf));
	CHECK_EQ(fst_pread(&t, fd, buf, sizeof(buf), 0), 9000);
	CHECK_EQ(buf[4999], 'a');
	CHECK_EQ(buf[5000], 0);
	CHECK_EQ(buf[8999], 0);
	CHECK_EQ(kern_ftruncate(&t.p, fd, -1), -EINVAL);
	CHECK_EQ(kern_truncate(&t.p, &t.cr, "/s", 0), 0);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(st.st_blocks, 0);
	CHECK_EQ(kern_truncate(&t.p, &t.cr, "/", 0), -EISDIR);
	CHECK_EQ(kern_truncate(&t.p, &t.cr, "/none", 0), -ENOENT);
	kern_close(&t.p, fd);
	fd = fst_open(&t, "/s", O_RDONLY, 0);
	CHECK_EQ(kern_ftruncate(&t.p, fd, 0), -EINVAL);
	kern_close(&t.p, fd);
	CHECK_EQ(kern_ftruncate(&t.p, fd, 0), -EBADF);
	CHECK_EQ(fst_end(&t), 0);
}

/* Reads the whole directory at fd with buffers of bufsize bytes. */
static int
list_dir(struct fst *t, int fd, size_t bufsize, char names[][16], int max)
{
	char buf[4096];
	int n = 0;
	for (;;) {
		struct uio uio;
		struct kiovec iov;
		uio_init_kernel(&uio, &iov, buf, bufsize, 0, UIO_READ);
		int64_t got = kern_getdents64(&t->p, fd, &uio);
		if (got <= 0)
			return got < 0 ? (int)got : n;
		for (int64_t off = 0; off < got;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			if (n < max)
				snprintf(names[n], 16, "%s", d->d_name);
			n++;
			off += d->d_reclen;
		}
	}
}

TEST(tmpfs_getdents_resumes_after_deletions)
{
	struct fst t;
	static char names[1200][16];
	char path[32];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d", 0755), 0);
	for (int i = 0; i < 1000; i++) {
		snprintf(path, sizeof(path), "/d/file%d", i);
		CHECK_EQ(fst_mkfile(&t, path, ""), 0);
	}
	int fd = fst_open(&t, "/d", O_RDONLY | O_DIRECTORY, 0);
	REQUIRE(fd >= 0);
	CHECK_EQ(list_dir(&t, fd, 4096, names, 1200), 1002);
	CHECK(strcmp(names[0], ".") == 0);
	CHECK(strcmp(names[1], "..") == 0);
	CHECK(strcmp(names[2], "file0") == 0);
	CHECK(strcmp(names[1001], "file999") == 0);
	/* A buffer too small for one record; then one record at a time. */
	CHECK_EQ(kern_lseek(&t.p, fd, 0, SEEK_SET), 0);
	CHECK_EQ(list_dir(&t, fd, 10, names, 1200), -EINVAL);
	CHECK_EQ(list_dir(&t, fd, 32, names, 1200), 1002);

	/* Read half, delete entries on both sides, read on. */
	CHECK_EQ(kern_lseek(&t.p, fd, 0, SEEK_SET), 0);
	char buf[512];
	struct uio uio;
	struct kiovec iov;
	int seen = 0;
	bool seen_name[1000] = { false };
	while (seen < 502) {
		uio_init_kernel(&uio, &iov, buf, sizeof(buf), 0, UIO_READ);
		int64_t got = kern_getdents64(&t.p, fd, &uio);
		REQUIRE(got > 0);
		for (int64_t off = 0; off < got;) {
			struct linux_dirent64 *d = (void *)(buf + off);
			int k;
			if (sscanf(d->d_name, "file%d", &k) == 1)
				seen_name[k] = true;
			seen++;
			off += d->d_reclen;
		}
	}
	int64_t pos = kern_lseek(&t.p, fd, 0, SEEK_CUR);
	for (int i = 0; i < 1000; i += 2) {
		snprintf(path, sizeof(path), "/d/file%d", i);
		CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, path, 0), 0);
	}
	CHECK_EQ(kern_lseek(&t.p, fd, pos, SEEK_SET), pos);
	int n = list_dir(&t, fd, sizeof(buf), names, 1200);
	/* Exactly the odd files not yet seen, each once. */
	int expect = 0;
	for (int i = 1; i < 1000; i += 2)
		expect += !seen_name[i];
	CHECK_EQ(n, expect);
	for (int i = 0; i < n && i < 1200; i++) {
		int k = -1;
		CHECK(sscanf(names[i], "file%d", &k) == 1 && k % 2 == 1 &&
		    !seen_name[k]);
	}
	CHECK_EQ(kern_lseek(&t.p, fd, 0, SEEK_END), -EINVAL);
	kern_close(&t.p, fd);
	fd = fst_open(&t, "/d/file1", O_RDONLY, 0);
	uio_init_kernel(&uio, &iov, buf, sizeof(buf), 0, UIO_READ);
	CHECK_EQ(kern_getdents64(&t.p, fd, &uio), -ENOTDIR);
	kern_close(&t.p, fd);
	uio_init_kernel(&uio, &iov, buf, sizeof(buf), 0, UIO_READ);
	CHECK_EQ(kern_getdents64(&t.p, fd, &uio), -EBADF);
	for (int i = 1; i < 1000; i += 2) {
		snprintf(path, sizeof(path), "/d/file%d", i);
		CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, path, 0), 0);
	}
	CHECK_EQ(fst_end(&t), 0);
}

TEST(tmpfs_links_and_counts)
{
	struct fst t;
	struct linux_stat st, st2;
	char buf[16];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(fst_stat(&t, "/", &st), 0);
	CHECK_EQ(st.st_nlink, 2);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d", 0777), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d", 0777), -EEXIST);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d/", 0777), -EEXIST);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/e/", 0777), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/", 0777), -EEXIST);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d/.", 0777), -EEXIST);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/x/y", 0777), -ENOENT);
	CHECK_EQ(fst_stat(&t, "/", &st), 0);
	CHECK_EQ(st.st_nlink, 4);
	CHECK_EQ(fst_stat(&t, "/d", &st), 0);
	CHECK_EQ(st.st_nlink, 2);
	CHECK_EQ(st.st_mode, S_IFDIR | 0755);

	CHECK_EQ(fst_mkfile(&t, "/d/f", "data"), 0);
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/d/f", AT_FDCWD, "/g", 0), 0);
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/d/f", AT_FDCWD, "/g", 0), -EEXIST);
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/d", AT_FDCWD, "/dd", 0), -EPERM);
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/none", AT_FDCWD, "/n2", 0), -ENOENT);
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/d/f", AT_FDCWD, "/h/", 0), -ENOENT);
	CHECK_EQ(fst_stat(&t, "/g", &st), 0);
	CHECK_EQ(fst_stat(&t, "/d/f", &st2), 0);
	CHECK_EQ(st.st_ino, st2.st_ino);
	CHECK_EQ(st.st_nlink, 2);
	/* A link to a symlink, with and without following it. */
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "/g", AT_FDCWD, "/sl"), 0);
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/sl", AT_FDCWD, "/sl2", 0), 0);
	CHECK_EQ(fst_lstat(&t, "/sl2", &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/sl", AT_FDCWD, "/g3",
	    AT_SYMLINK_FOLLOW), 0);
	CHECK_EQ(fst_stat(&t, "/g", &st), 0);
	CHECK_EQ(st.st_nlink, 3);

	/* An open file outlives its last name. */
	int fd = fst_open(&t, "/g", O_RDONLY, 0);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/g", 0), 0);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/g3", 0), 0);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d/f", 0), 0);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK_EQ(st.st_nlink, 0);
	CHECK_EQ(fst_read(&t, fd, buf, sizeof(buf)), 4);
	kern_close(&t.p, fd);

	/* unlink and rmdir errors. */
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d/f", 0), -ENOENT);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d", 0), -EISDIR);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/.", 0), -EISDIR);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/sl/", 0), -ENOTDIR);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/sl", 0x1), -EINVAL);
	CHECK_EQ(fst_mkfile(&t, "/d/f", ""), 0);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d", AT_REMOVEDIR), -ENOTEMPTY);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d/f", AT_REMOVEDIR), -ENOTDIR);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d/.", AT_REMOVEDIR), -EINVAL);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d/..", AT_REMOVEDIR), -ENOTEMPTY);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/", AT_REMOVEDIR), -EBUSY);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/sl", AT_REMOVEDIR), -ENOTDIR);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d/f", 0), 0);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/d/", AT_REMOVEDIR), 0);
	CHECK_EQ(kern_unlinkat(&t.p, &t.cr, AT_FDCWD, "/e", AT_REMOVEDIR), 0);
	CHECK_EQ(fst_stat(&t, "/", &st), 0);
	CHECK_EQ(st.st_nlink, 2);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(tmpfs_rename_cases)
{
	struct fst t;
	struct linux_stat st, st2;
	char buf[16];
	REQUIRE(fst_begin(&t) == 0);
#define REN(a, b) kern_renameat2(&t.p, &t.cr, AT_FDCWD, a, AT_FDCWD, b, 0)
	CHECK_EQ(fst_mkfile(&t, "/a", "A"), 0);
	CHECK_EQ(fst_mkfile(&t, "/b", "B"), 0);
	CHECK_EQ(fst_stat(&t, "/a", &st), 0);
	CHECK_EQ(REN("/a", "/b"), 0);		/* over an existing file */
	CHECK_EQ(fst_stat(&t, "/a", &st2), -ENOENT);
	CHECK_EQ(fst_stat(&t, "/b", &st2), 0);
	CHECK_EQ(st.st_ino, st2.st_ino);
	CHECK_EQ(fst_cat(&t, "/b", buf, sizeof(buf)), 1);
	CHECK(strcmp(buf, "A") == 0);
	CHECK_EQ(REN("/b", "/b"), 0);
	CHECK_EQ(kern_linkat(&t.p, &t.cr, AT_FDCWD, "/b", AT_FDCWD, "/b2", 0), 0);
	CHECK_EQ(REN("/b", "/b2"), 0);		/* the same file: no-op */
	CHECK_EQ(fst_stat(&t, "/b", &st), 0);
	CHECK_EQ(REN("/none", "/x"), -ENOENT);
	CHECK_EQ(kern_renameat2(&t.p, &t.cr, AT_FDCWD, "/b", AT_FDCWD, "/c",
	    RENAME_NOREPLACE), 0);
	CHECK_EQ(kern_renameat2(&t.p, &t.cr, AT_FDCWD, "/c", AT_FDCWD, "/b2",
	    RENAME_NOREPLACE), -EEXIST);
	CHECK_EQ(kern_renameat2(&t.p, &t.cr, AT_FDCWD, "/c", AT_FDCWD, "/b2",
	    RENAME_EXCHANGE), -EINVAL);

	/* Directories. */
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d1", 0755), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d1/sub", 0755), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d2", 0755), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/full", 0755), 0);
	CHECK_EQ(fst_mkfile(&t, "/full/x", ""), 0);
	CHECK_EQ(REN("/d1", "/d1/sub/in"), -EINVAL);
	CHECK_EQ(REN("/d1", "/d1/in"), -EINVAL);
	CHECK_EQ(REN("/d1", "/c"), -ENOTDIR);
	CHECK_EQ(REN("/c", "/d2"), -EISDIR);
	CHECK_EQ(REN("/c/", "/z"), -ENOTDIR);
	CHECK_EQ(REN("/c", "/z/"), -ENOTDIR);
	CHECK_EQ(REN("/d1", "/full"), -ENOTEMPTY);
	CHECK_EQ(REN("/d1/sub", "/d1/.."), -EBUSY);
	CHECK_EQ(REN("/.", "/q"), -EBUSY);
	CHECK_EQ(REN("/d1/sub", "/"), -EBUSY);
	CHECK_EQ(REN("/full/x", "/full"), -EISDIR);
	CHECK_EQ(REN("/d1", "/full/x"), -ENOTDIR);
	CHECK_EQ(fst_stat(&t, "/", &st), 0);
	nlink_t root_links = st.st_nlink;
	CHECK_EQ(REN("/d1", "/d2"), 0);		/* over an empty directory */
	CHECK_EQ(fst_stat(&t, "/d1", &st), -ENOENT);
	CHECK_EQ(fst_stat(&t, "/d2/sub", &st), 0);
	CHECK_EQ(fst_stat(&t, "/", &st), 0);
	CHECK_EQ(st.st_nlink, root_links - 1);
	/* Moving a directory moves its "..". */
	CHECK_EQ(REN("/d2/sub", "/full/sub2"), 0);
	CHECK_EQ(fst_stat(&t, "/full/sub2/..", &st), 0);
	CHECK_EQ(fst_stat(&t, "/full", &st2), 0);
	CHECK_EQ(st.st_ino, st2.st_ino);
	CHECK_EQ(st2.st_nlink, 3);
	CHECK_EQ(fst_stat(&t, "/d2", &st), 0);
	CHECK_EQ(st.st_nlink, 2);
	CHECK_EQ(REN("/d2/", "/d3/"), 0);
	/* A symlink is renamed, not followed. */
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "/d3", AT_FDCWD, "/sl"), 0);
	CHECK_EQ(REN("/sl", "/sl2"), 0);
	CHECK_EQ(fst_lstat(&t, "/sl2", &st), 0);
	CHECK(S_ISLNK(st.st_mode));
#undef REN
	CHECK_EQ(fst_end(&t), 0);
}

TEST(tmpfs_timestamps_and_attrs)
{
	struct fst t;
	struct linux_stat st, d0, d1;
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d", 0755), 0);
	struct timespec old[2] = { { 1000, 1 }, { 2000, 2 } };
	CHECK_EQ(kern_utimensat(&t.p, &t.cr, AT_FDCWD, "/d", old, 0), 0);
	CHECK_EQ(fst_stat(&t, "/d", &d0), 0);
	CHECK_EQ(d0.st_atime_sec, 1000);
	CHECK_EQ(d0.st_atime_nsec, 1);
	CHECK_EQ(d0.st_mtime_sec, 2000);
	CHECK_EQ(d0.st_mtime_nsec, 2);
	CHECK(d0.st_ctime_sec > 2000);
	/* Creating in a directory changes its mtime and ctime. */
	CHECK_EQ(fst_mkfile(&t, "/d/f", ""), 0);
	CHECK_EQ(fst_stat(&t, "/d", &d1), 0);
	CHECK(d1.st_mtime_sec > 2000);
	CHECK_EQ(d1.st_atime_sec, 1000);
	/* Writing changes mtime and ctime, not atime; reading atime. */
	CHECK_EQ(kern_utimensat(&t.p, &t.cr, AT_FDCWD, "/d/f", old, 0), 0);
	int fd = fst_open(&t, "/d/f", O_RDWR, 0);
	CHECK_EQ(fst_write(&t, fd, "abc", 3), 3);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK_EQ(st.st_atime_sec, 1000);
	CHECK(st.st_mtime_sec > 2000);
	CHECK_EQ(kern_utimensat(&t.p, &t.cr, AT_FDCWD, "/d/f", old, 0), 0);
	char c;
	CHECK_EQ(fst_pread(&t, fd, &c, 1, 0), 1);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK(st.st_atime_sec > 1000);
	CHECK_EQ(st.st_mtime_sec, 2000);
	/* UTIME_OMIT keeps one; UTIME_NOW sets it; bad nsec is EINVAL. */
	struct timespec some[2] = { { 5, UTIME_OMIT }, { 0, UTIME_NOW } };
	CHECK_EQ(kern_utimensat(&t.p, &t.cr, fd, NULL, some, 0), 0);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK(st.st_atime_sec > 1000);
	CHECK(st.st_mtime_sec > 2000);
	struct timespec bad[2] = { { 5, 1000000000 }, { 0, 0 } };
	CHECK_EQ(kern_utimensat(&t.p, &t.cr, fd, NULL, bad, 0), -EINVAL);
	/* Others: explicit times need ownership; "now" needs write. */
	struct ucred u = fst_user(7, 7);
	CHECK_EQ(kern_utimensat(&t.p, &u, AT_FDCWD, "/d/f", old, 0), -EPERM);
	CHECK_EQ(kern_utimensat(&t.p, &u, AT_FDCWD, "/d/f", NULL, 0), -EACCES);
	CHECK_EQ(kern_fchmod(&t.p, &t.cr, fd, 0666), 0);
	CHECK_EQ(kern_utimensat(&t.p, &u, AT_FDCWD, "/d/f", NULL, 0), 0);
	/* chmod and chown change ctime; chown clears set-user-ID. */
	CHECK_EQ(kern_fchmod(&t.p, &t.cr, fd, 04755), 0);
	CHECK_EQ(kern_fchown(&t.p, &t.cr, fd, 7, 8), 0);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK_EQ(st.st_mode, S_IFREG | 0755);
	CHECK_EQ(st.st_uid, 7);
	CHECK_EQ(st.st_gid, 8);
	CHECK_EQ(kern_fchownat(&t.p, &t.cr, AT_FDCWD, "/d/f", -1, -1, 0), 0);
	CHECK_EQ(kern_fchmodat(&t.p, &t.cr, AT_FDCWD, "/d/f", 0644, 0x4), -EINVAL);
	CHECK_EQ(kern_symlinkat(&t.p, &t.cr, "f", AT_FDCWD, "/d/l"), 0);
	CHECK_EQ(kern_fchmodat(&t.p, &t.cr, AT_FDCWD, "/d/l", 0644,
	    AT_SYMLINK_NOFOLLOW), -EOPNOTSUPP);
	CHECK_EQ(kern_fchownat(&t.p, &t.cr, AT_FDCWD, "/d/l", 3, 3,
	    AT_SYMLINK_NOFOLLOW), 0);
	CHECK_EQ(fst_lstat(&t, "/d/l", &st), 0);
	CHECK_EQ(st.st_uid, 3);
	CHECK_EQ(fst_stat(&t, "/d/l", &st), 0);
	CHECK_EQ(st.st_uid, 7);
	/* statx agrees with stat. */
	struct linux_statx stx;
	CHECK_EQ(kern_statx(&t.p, &t.cr, AT_FDCWD, "/d/f", 0, STATX_BASIC_STATS,
	    &stx), 0);
	CHECK_EQ(stx.stx_ino, st.st_ino);
	CHECK_EQ(stx.stx_mode, st.st_mode);
	CHECK_EQ(stx.stx_size, 3);
	CHECK_EQ(stx.stx_mtime.tv_sec, st.st_mtime_sec);
	CHECK_EQ(kern_statx(&t.p, &t.cr, fd, "", AT_EMPTY_PATH, STATX_ALL, &stx), 0);
	CHECK_EQ(stx.stx_uid, 7);
	CHECK_EQ(kern_statx(&t.p, &t.cr, fd, "", 0x8000000, 0, &stx), -EINVAL);
	/* umask applies to new files and directories. */
	CHECK_EQ(kern_umask(&t.p, 077), 022);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d/m", 0777), 0);
	CHECK_EQ(fst_stat(&t, "/d/m", &st), 0);
	CHECK_EQ(st.st_mode, S_IFDIR | 0700);
	kern_close(&t.p, fd);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(tmpfs_device_nodes)
{
	struct fst t;
	struct linux_stat st;
	char buf[64];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/dev", 0755), 0);
	struct vnode *dev;
	struct nameidata nd = { .ni_path = "/dev", .ni_startdir = rootvnode,
	    .ni_rootdir = rootvnode, .ni_cred = &t.cr, .ni_flags = NI_FOLLOW };
	REQUIRE(namei(&nd) == 0);
	dev = nd.ni_vp;
	CHECK_EQ(devfs_populate(dev), 0);
	CHECK_EQ(devfs_populate(dev), 0);	/* again: nothing new */
	vrele(dev);
	CHECK_EQ(fst_stat(&t, "/dev/null", &st), 0);
	CHECK_EQ(st.st_mode, S_IFCHR | 0666);
	CHECK_EQ(st.st_rdev, linux_makedev(1, 3));
	CHECK_EQ(st.st_rdev, 0x103);

	int fd = fst_open(&t, "/dev/null", O_RDWR, 0);
	CHECK_EQ(fst_write(&t, fd, "gone", 4), 4);
	CHECK_EQ(fst_read(&t, fd, buf, sizeof(buf)), 0);
	CHECK_EQ(kern_lseek(&t.p, fd, 100, SEEK_SET), 0);
	CHECK_EQ(kern_fstat(&t.p, fd, &st), 0);
	CHECK(S_ISCHR(st.st_mode));
	kern_close(&t.p, fd);
	fd = fst_open(&t, "/dev/zero", O_RDONLY, 0);
	memset(buf, 1, sizeof(buf));
	CHECK_EQ(fst_read(&t, fd, buf, sizeof(buf)), 64);
	CHECK(buf[0] == 0 && buf[63] == 0);
	kern_close(&t.p, fd);
	fd = fst_open(&t, "/dev/full", O_WRONLY, 0);
	CHECK_EQ(fst_write(&t, fd, "x", 1), -ENOSPC);
	kern_close(&t.p, fd);
	fd = fst_open(&t, "/dev/urandom", O_RDONLY, 0);
	char r1[32] = { 0 }, r2[32] = { 0 };
	CHECK_EQ(fst_read(&t, fd, r1, 32), 32);
	CHECK_EQ(fst_read(&t, fd, r2, 32), 32);
	CHECK(memcmp(r1, r2, 32) != 0);
	kern_close(&t.p, fd);
	/* A node with no driver, and one made by mknod. */
	CHECK_EQ(kern_mknodat(&t.p, &t.cr, AT_FDCWD, "/dev/nodrv", S_IFCHR | 0600,
	    linux_makedev(99, 1)), 0);
	CHECK_EQ(fst_open(&t, "/dev/nodrv", O_RDONLY, 0), -ENXIO);
	CHECK_EQ(kern_mknodat(&t.p, &t.cr, AT_FDCWD, "/dev/z2", S_IFCHR | 0600,
	    linux_makedev(1, 5)), 0);
	fd = fst_open(&t, "/dev/z2", O_RDONLY, 0);
	CHECK(fd >= 0);
	kern_close(&t.p, fd);
	CHECK_EQ(kern_mknodat(&t.p, &t.cr, AT_FDCWD, "/dev/z2", S_IFIFO | 0600, 0),
	    -EEXIST);
	CHECK_EQ(kern_mknodat(&t.p, &t.cr, AT_FDCWD, "/dev/d", S_IFDIR | 0600, 0),
	    -EPERM);
	CHECK_EQ(kern_mknodat(&t.p, &t.cr, AT_FDCWD, "/dev/bad", 0170000 | 0600, 0),
	    -EINVAL);
	CHECK_EQ(kern_mknodat(&t.p, &t.cr, AT_FDCWD, "/dev/sock", S_IFSOCK | 0600, 0),
	    0);
	CHECK_EQ(fst_open(&t, "/dev/sock", O_RDONLY, 0), -ENXIO);
	CHECK_EQ(kern_mknodat(&t.p, &t.cr, AT_FDCWD, "/dev/reg", 0600, 0), 0);
	CHECK_EQ(fst_stat(&t, "/dev/reg", &st), 0);
	CHECK(S_ISREG(st.st_mode));
	static const struct cdevsw dup = { .d_name = "null2", .d_major = 1,
	    .d_minor = 3 };
	CHECK_EQ(cdev_register(&dup), -EEXIST);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(tmpfs_full)
{
	struct fst t;
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/small", 0755), 0);
	CHECK_EQ(kern_mount(&t.p, &t.cr, "x", "/small", "tmpfs", 0,
	    "size=32k,mode=0700"), 0);
	int fd = fst_open(&t, "/small/f", O_WRONLY | O_CREAT, 0644);
	static char buf[16 * 4096];
	/* Eight pages, all data: the file's object indexes them for free. */
	CHECK_EQ(fst_write(&t, fd, buf, sizeof(buf)), 8 * 4096);
	CHECK_EQ(fst_write(&t, fd, buf, 1), -ENOSPC);
	struct statfs_info sf;
	CHECK_EQ(kern_fstatfs(&t.p, fd, &sf), 0);
	CHECK_EQ(sf.f_bfree, 0);
	CHECK_EQ(sf.f_blocks, 8);
	kern_close(&t.p, fd);
	CHECK_EQ(fst_end(&t), 0);
}
