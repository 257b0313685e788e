/*
 * devfs and procfs mounted by kern_mount: the nodes devfs makes, a disk
 * registered and unregistered while mounted, mount options, procfs files read in pieces, and
 * every page back after the unmounts.
 */
#include <sys/stat.h>

#include "dev/disk.h"
#include "fs/devfs/devfs.h"
#include "tests/unit/fstest.h"
#include "tests/unit/unit.h"

TEST(vfs_getopt)
{
	char v[8];
	CHECK_EQ(vfs_getopt("size=1m,mode=755", "size", v, sizeof(v)), 0);
	CHECK(strcmp(v, "1m") == 0);
	CHECK_EQ(vfs_getopt("size=1m,mode=755", "mode", v, sizeof(v)), 0);
	CHECK(strcmp(v, "755") == 0);
	CHECK_EQ(vfs_getopt("ro,sizes=1", "size", v, sizeof(v)), -ENOENT);
	CHECK_EQ(vfs_getopt("ro,size", "size", v, sizeof(v)), 0);
	CHECK(strcmp(v, "") == 0);
	CHECK_EQ(vfs_getopt("size=12345678", "size", v, sizeof(v)), -EINVAL);
	CHECK_EQ(vfs_getopt(NULL, "size", v, sizeof(v)), -ENOENT);
}

TEST(devfs_nodes)
{
	struct fst t;
	struct linux_stat st;
	char buf[64];
	static struct disk dk = { .d_name = "vkd9" };

	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/dev", 0755), 0);
	CHECK_EQ(kern_mount(&t.p, &t.cr, "dev", "/dev", "devtmpfs", 0, NULL), 0);
	CHECK_EQ(fst_stat(&t, "/dev/null", &st), 0);
	CHECK(S_ISCHR(st.st_mode));
	CHECK_EQ(st.st_rdev, linux_makedev(1, 3));
	CHECK_EQ(st.st_mode & 07777, 0666);
	CHECK_EQ(fst_stat(&t, "/dev", &st), 0);
	CHECK_EQ(st.st_mode & 07777, 0755);
	CHECK_EQ(fst_stat(&t, "/dev/shm", &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(kern_readlinkat(&t.p, &t.cr, AT_FDCWD, "/dev/stdin", buf,
	    sizeof(buf)), 15);
	CHECK(memcmp(buf, "/proc/self/fd/0", 15) == 0);

	/* A disk registered while mounted appears. */
	dk.d_dev = linux_makedev(DISK_MAJOR, 9);
	disk_register(&dk);
	CHECK_EQ(fst_stat(&t, "/dev/vkd9", &st), 0);
	CHECK(S_ISBLK(st.st_mode));
	CHECK_EQ(st.st_rdev, dk.d_dev);

	/* A second devfs gets every node at its mount. */
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/d2", 0755), 0);
	CHECK_EQ(kern_mount(&t.p, &t.cr, NULL, "/d2", "devfs", 0, NULL), 0);
	CHECK_EQ(fst_stat(&t, "/d2/vkd9", &st), 0);
	CHECK_EQ(fst_mkfile(&t, "/d2/shm/f", "x"), 0);

	/* An unregistered disk leaves every devfs. */
	disk_unregister(&dk);
	CHECK_EQ(fst_stat(&t, "/dev/vkd9", &st), -ENOENT);
	CHECK_EQ(fst_stat(&t, "/d2/vkd9", &st), -ENOENT);
	CHECK_EQ(kern_umount(&t.p, &t.cr, "/d2", 0), 0);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(devfs_readonly_mount)
{
	struct fst t;
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/ro", 0755), 0);
	CHECK_EQ(kern_mount(&t.p, &t.cr, NULL, "/ro", "tmpfs", MNT_RDONLY,
	    NULL), 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/ro/d", 0755), -EROFS);
	CHECK_EQ(fst_open(&t, "/ro/f", O_WRONLY | O_CREAT, 0644), -EROFS);
	struct statfs_info sf;
	CHECK_EQ(kern_statfs(&t.p, &t.cr, "/ro", &sf), 0);
	CHECK(sf.f_rdonly);
	CHECK_EQ(kern_mount(&t.p, &t.cr, NULL, "/ro", "tmpfs", 0, "size=x"),
	    -EINVAL);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(procfs_read_in_pieces)
{
	struct fst t;
	char whole[4096], pieces[4096];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/proc", 0555), 0);
	CHECK_EQ(kern_mount(&t.p, &t.cr, "proc", "/proc", "proc", 0, NULL), 0);
	int fd = fst_open(&t, "/proc/meminfo", O_RDONLY, 0);
	REQUIRE(fd >= 0);
	int64_t n = fst_read(&t, fd, whole, sizeof(whole));
	CHECK(n > 100);
	CHECK(memcmp(whole, "MemTotal:", 9) == 0);
	/* Seven bytes at a time: the snapshot of the open, whole. */
	int fd2 = fst_open(&t, "/proc/meminfo", O_RDONLY, 0);
	int64_t got = 0, r;
	while ((r = fst_read(&t, fd2, pieces + got, 7)) > 0)
		got += r;
	CHECK_EQ(fst_pread(&t, fd2, whole, sizeof(whole), 0), got);
	CHECK(memcmp(whole, pieces, (size_t)got) == 0);
	CHECK_EQ(fst_pread(&t, fd2, pieces, 8, 3), 8);
	CHECK(memcmp(pieces, "Total:  ", 8) == 0);
	CHECK_EQ(fst_open(&t, "/proc/meminfo", O_WRONLY, 0), -EACCES);
	CHECK_EQ(fst_mkfile(&t, "/proc/new", ""), -EACCES);
	CHECK_EQ(fst_open(&t, "/proc/99999/stat", O_RDONLY, 0), -ENOENT);
	CHECK_EQ(kern_umount(&t.p, &t.cr, "/proc", 0), -EBUSY);
	kern_close(&t.p, fd);
	kern_close(&t.p, fd2);
	struct statfs_info sf;
	CHECK_EQ(kern_statfs(&t.p, &t.cr, "/proc/sys/kernel", &sf), 0);
	CHECK_EQ(sf.f_type, 0x9fa0);
	CHECK_EQ(fst_cat(&t, "/proc/sys/kernel/ostype", whole, sizeof(whole)), 6);
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/proc/sys/kernel"), 0);
	CHECK_EQ(kern_getcwd(&t.p, whole, sizeof(whole)), 17);
	CHECK(strcmp(whole, "/proc/sys/kernel") == 0);
	CHECK_EQ(kern_chdir(&t.p, &t.cr, "/"), 0);
	CHECK_EQ(kern_mount(&t.p, &t.cr, NULL, "/proc/sys", "tmpfs", 0, NULL),
	    -EINVAL);
	CHECK_EQ(fst_end(&t), 0);
}
