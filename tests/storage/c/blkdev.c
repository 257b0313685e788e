/*
 * blkdev: a block device used as Linux's block layer answers, checked
 * from a program.  Prints "ok   NAME" or "FAIL NAME: why" per check (the
 * storage tests' format).  Written against Linux: run natively on a loop
 * device it passes too (losetup; a read-only one with blockdev --setro).
 *
 *   blkdev io DEV SIZE          ioctls, lseek, the end, pread/pwrite,
 *                               fsync, O_EXCL between two opens
 *   blkdev busy DEV             DEV is mounted: O_EXCL is EBUSY
 *   blkdev ro DEV               DEV is read-only: writes are EPERM
 *   blkdev exclmount DEV DIR    ext2 DEV opened O_EXCL cannot be
 *                               mounted on DIR; once closed, it can
 *   blkdev share DEV DIR        DEV is mounted on DIR: a file's block
 *                               written through DEV reads back through
 *                               the file and the other way round, before
 *                               any sync (vkernel's: Linux keeps file
 *                               data in the file's page cache, apart)
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

/* Linux's <linux/fs.h>, which musl-gcc does not see. */
#undef BLKROGET
#undef BLKRRPART
#undef BLKGETSIZE
#undef BLKFLSBUF
#undef BLKSSZGET
#undef BLKBSZGET
#undef BLKGETSIZE64
#undef BLKPBSZGET
#define BLKROGET	_IO(0x12, 94)
#define BLKRRPART	_IO(0x12, 95)
#define BLKGETSIZE	_IO(0x12, 96)
#define BLKFLSBUF	_IO(0x12, 97)
#define BLKSSZGET	_IO(0x12, 104)
#define BLKBSZGET	_IOR(0x12, 112, size_t)
#define BLKGETSIZE64	_IOR(0x12, 114, size_t)
#define BLKPBSZGET	_IO(0x12, 123)
#ifndef SEEK_DATA
#define SEEK_DATA	3
#define SEEK_HOLE	4
#endif

static int failed;

static void
check(const char *name, int good, const char *fmt, ...)
{
	va_list ap;

	if (good) {
		printf("ok   %s\n", name);
		return;
	}
	failed = 1;
	printf("FAIL %s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
}

/* A call expected to fail with errno want. */
static void
fails(const char *name, long r, int want)
{
	int e = errno;
	check(name, r == -1 && e == want, "returned %ld, errno %s (want %s)",
	    r, r == -1 ? strerror(e) : "-", strerror(want));
}

static void
fill(unsigned char *b, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		seed = seed * 1103515245 + 12345;
		b[i] = (unsigned char)(seed >> 16);
	}
}

static void
io(const char *dev, uint64_t size)
{
	struct stat st, fst;
	int fd = open(dev, O_RDWR);
	if (fd < 0) {
		check("open", 0, "%s: %s", dev, strerror(errno));
		return;
	}
	check("stat-blk", stat(dev, &st) == 0 && S_ISBLK(st.st_mode) &&
	    fstat(fd, &fst) == 0 && S_ISBLK(fst.st_mode) &&
	    st.st_rdev == fst.st_rdev && fst.st_size == 0,
	    "mode %o rdev %lx size %lld", fst.st_mode, (long)fst.st_rdev,
	    (long long)fst.st_size);

	uint64_t sz64 = 0;
	unsigned long sectors = 0;
	int ssz = 0, ro = -1;
	unsigned pbsz = 0;
	check("BLKGETSIZE64", ioctl(fd, BLKGETSIZE64, &sz64) == 0 &&
	    sz64 == size, "%llu", (unsigned long long)sz64);
	check("BLKGETSIZE", ioctl(fd, BLKGETSIZE, &sectors) == 0 &&
	    sectors == size / 512, "%lu", sectors);
	check("BLKSSZGET", ioctl(fd, BLKSSZGET, &ssz) == 0 && ssz == 512,
	    "%d", ssz);
	check("BLKPBSZGET", ioctl(fd, BLKPBSZGET, &pbsz) == 0 && pbsz == 512,
	    "%u", pbsz);
	/* An int, whatever the number says; 4096 divides this disk. */
	uint64_t wide = ~0ULL;
	check("BLKBSZGET", ioctl(fd, BLKBSZGET, &wide) == 0 &&
	    (wide & 0xffffffff) == 4096 && wide >> 32 == 0xffffffff,
	    "%llx", (unsigned long long)wide);
	check("BLKROGET", ioctl(fd, BLKROGET, &ro) == 0 && ro == 0, "%d", ro);
	fails("BLKRRPART", ioctl(fd, BLKRRPART, 0), EINVAL);
	check("BLKFLSBUF", ioctl(fd, BLKFLSBUF, 0) == 0, "%s", strerror(errno));
	fails("BLKGETSIZE64-efault", ioctl(fd, BLKGETSIZE64, (void *)8), EFAULT);

	/* lseek: the size at the end, nothing past it. */
	check("seek-end", lseek(fd, 0, SEEK_END) == (off_t)size, "%s",
	    strerror(errno));
	check("seek-end-back", lseek(fd, -512, SEEK_END) == (off_t)size - 512,
	    "%s", strerror(errno));
	fails("seek-past-end", lseek(fd, (off_t)size + 1, SEEK_SET), EINVAL);
	fails("seek-negative", lseek(fd, -1, SEEK_SET), EINVAL);
	/* Linux's fixed_size_llseek knows no data or holes. */
	fails("seek-data", lseek(fd, 4096, SEEK_DATA), EINVAL);
	fails("seek-hole", lseek(fd, 4096, SEEK_HOLE), EINVAL);

	/* The end: reads stop, writes are cut short, then ENOSPC. */
	unsigned char a[20000], b[20000];
	char c = 'x';
	check("read-at-end", lseek(fd, 0, SEEK_END) == (off_t)size &&
	    read(fd, b, sizeof(b)) == 0, "%s", strerror(errno));
	fails("write-at-end", write(fd, &c, 1), ENOSPC);
	fails("pwrite-past-end", pwrite(fd, &c, 1, (off_t)size + 4096), ENOSPC);
	check("pread-past-end", pread(fd, b, 10, (off_t)size + 4096) == 0, "%s",
	    strerror(errno));
	fill(a, sizeof(a), 7);
	check("pwrite-across-end", pwrite(fd, a, 1000, (off_t)size - 100) == 100,
	    "%s", strerror(errno));
	memset(b, 0, sizeof(b));
	check("pread-across-end", pread(fd, b, 1000, (off_t)size - 100) == 100 &&
	    memcmp(a, b, 100) == 0, "%s", strerror(errno));

	/* Unaligned, across blocks; then through the offset. */
	fill(a, sizeof(a), 11);
	check("pwrite", pwrite(fd, a, sizeof(a), 12345) == (ssize_t)sizeof(a),
	    "%s", strerror(errno));
	check("pread", pread(fd, b, sizeof(b), 12345) == (ssize_t)sizeof(b) &&
	    memcmp(a, b, sizeof(a)) == 0, "%s", strerror(errno));
	fill(a, 4096, 13);
	check("write-offset", lseek(fd, 8192, SEEK_SET) == 8192 &&
	    write(fd, a, 4096) == 4096 && lseek(fd, 0, SEEK_CUR) == 12288,
	    "%s", strerror(errno));
	check("read-offset", lseek(fd, 8192, SEEK_SET) == 8192 &&
	    read(fd, b, 4096) == 4096 && memcmp(a, b, 4096) == 0, "%s",
	    strerror(errno));
	check("fsync", fsync(fd) == 0 && fdatasync(fd) == 0, "%s",
	    strerror(errno));
	/* A bad buffer: nothing written, EFAULT. */
	void *volatile bad = (void *)8;
	fails("write-efault", pwrite(fd, bad, 4096, 0), EFAULT);
	/* A buffer that ends 1000 bytes into a block it would overwrite
	 * whole: those 1000 bytes are written, the rest is the disk's. */
	unsigned char *pg = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(pg + 4096, 4096);
	fill(pg + 3096, 1000, 17);
	fill(a, 4096, 19);
	pwrite(fd, a, 4096, 65536);
	ssize_t n = pwrite(fd, pg + 3096, 4096, 65536);
	memcpy(a, pg + 3096, 1000);
	check("write-partial-efault", n == 1000 &&
	    pread(fd, b, 4096, 65536) == 4096 && memcmp(a, b, 4096) == 0,
	    "wrote %zd", n);
	close(fd);

	/* O_EXCL: one holder; plain opens still work; kept no further. */
	int x1 = open(dev, O_RDONLY | O_EXCL);
	check("excl-open", x1 >= 0 && !(fcntl(x1, F_GETFL) & O_EXCL), "%s",
	    strerror(errno));
	fails("excl-twice", open(dev, O_RDONLY | O_EXCL), EBUSY);
	int plain = open(dev, O_RDONLY);
	check("excl-plain-open", plain >= 0, "%s", strerror(errno));
	close(plain);
	close(x1);
	int x2 = open(dev, O_RDWR | O_EXCL);
	check("excl-after-close", x2 >= 0, "%s", strerror(errno));
	close(x2);
	fails("creat-excl", open(dev, O_RDWR | O_CREAT | O_EXCL, 0600), EEXIST);
}

static void
busy(const char *dev)
{
	fails("mounted-excl", open(dev, O_RDONLY | O_EXCL), EBUSY);
	int fd = open(dev, O_RDONLY);
	char buf[1024];
	check("mounted-read", fd >= 0 && pread(fd, buf, sizeof(buf), 1024) ==
	    (ssize_t)sizeof(buf), "%s", strerror(errno));
	close(fd);
}

static void
readonly(const char *dev)
{
	int ro = -1;
	int fd = open(dev, O_RDWR);
	char buf[512] = { 0 };
	check("ro-open-rdwr", fd >= 0, "%s", strerror(errno));
	check("ro-BLKROGET", ioctl(fd, BLKROGET, &ro) == 0 && ro == 1, "%d", ro);
	fails("ro-write", pwrite(fd, buf, sizeof(buf), 0), EPERM);
	check("ro-read", pread(fd, buf, sizeof(buf), 0) == sizeof(buf), "%s",
	    strerror(errno));
	close(fd);
}

static void
exclmount(const char *dev, const char *dir)
{
	int fd = open(dev, O_RDONLY | O_EXCL);
	check("exclmount-open", fd >= 0, "%s", strerror(errno));
	fails("exclmount-busy", mount(dev, dir, "ext2", 0, NULL), EBUSY);
	close(fd);
	check("exclmount-after", mount(dev, dir, "ext2", 0, NULL) == 0, "%s",
	    strerror(errno));
	check("exclmount-umount", umount(dir) == 0, "%s", strerror(errno));
}

/* The byte offset of the first block of dev that starts with mark, or -1. */
static off_t
find_block(int fd, const unsigned char *mark, size_t n, size_t step)
{
	static unsigned char chunk[65536];
	off_t off = 0;
	ssize_t got;

	while ((got = pread(fd, chunk, sizeof(chunk), off)) > 0) {
		for (size_t i = 0; i + n <= (size_t)got; i += step)
			if (memcmp(chunk + i, mark, n) == 0)
				return off + (off_t)i;
		off += got;
	}
	return -1;
}

static void
share(const char *dev, const char *dir)
{
	unsigned char a[1024], b[1024];
	char path[4096];

	snprintf(path, sizeof(path), "%s/shared", dir);
	int ff = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
	fill(a, sizeof(a), 23);
	check("share-file", ff >= 0 && write(ff, a, sizeof(a)) ==
	    (ssize_t)sizeof(a) && fsync(ff) == 0, "%s", strerror(errno));
	int fd = open(dev, O_RDWR);
	off_t at = find_block(fd, a, sizeof(a), 1024);
	check("share-found", at >= 0, "the file's block is not on the disk");
	if (at < 0)
		return;
	/*
	 * As Linux: a file's pages and the device's buffers are two caches.
	 * What the file wrote and fsync'ed is on the disk, and the device
	 * reads it once BLKFLSBUF dropped the buffer it read before.
	 */
	fill(a, sizeof(a), 31);
	check("share-file-to-dev", pwrite(ff, a, sizeof(a), 0) ==
	    (ssize_t)sizeof(a) && fsync(ff) == 0 &&
	    ioctl(fd, BLKFLSBUF, 0) == 0 &&
	    pread(fd, b, sizeof(b), at) == (ssize_t)sizeof(b) &&
	    memcmp(a, b, sizeof(a)) == 0, "%s", strerror(errno));
	check("share-file-reads", pread(ff, b, sizeof(b), 0) ==
	    (ssize_t)sizeof(b) && memcmp(a, b, sizeof(a)) == 0, "%s",
	    strerror(errno));
	close(fd);
	close(ff);
}

int
main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "io") == 0)
		io(argv[2], strtoull(argv[3], NULL, 0));
	else if (argc == 3 && strcmp(argv[1], "busy") == 0)
		busy(argv[2]);
	else if (argc == 3 && strcmp(argv[1], "ro") == 0)
		readonly(argv[2]);
	else if (argc == 4 && strcmp(argv[1], "exclmount") == 0)
		exclmount(argv[2], argv[3]);
	else if (argc == 4 && strcmp(argv[1], "share") == 0)
		share(argv[2], argv[3]);
	else {
		fprintf(stderr, "usage: see blkdev.c\n");
		return 2;
	}
	return failed;
}
