/*
 * The Linux x86-64 stat and statx structures, as the system calls copy
 * them out, and device-number encoding.
 *
 * The O_*, AT_*, S_*, POLL*, UTIME_* and STATX_* constants the fs code
 * uses come from the host's headers: the host is Linux x86-64, so they are
 * the guest ABI's values.
 */
#ifndef FS_STAT_H
#define FS_STAT_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

struct linux_stat {
	uint64_t st_dev;
	uint64_t st_ino;
	uint64_t st_nlink;
	uint32_t st_mode;
	uint32_t st_uid;
	uint32_t st_gid;
	uint32_t __pad0;
	uint64_t st_rdev;
	int64_t st_size;
	int64_t st_blksize;
	int64_t st_blocks;	/* 512-byte units */
	uint64_t st_atime_sec, st_atime_nsec;
	uint64_t st_mtime_sec, st_mtime_nsec;
	uint64_t st_ctime_sec, st_ctime_nsec;
	int64_t __reserved[3];
};
_Static_assert(sizeof(struct linux_stat) == 144, "struct stat");
_Static_assert(offsetof(struct linux_stat, st_rdev) == 40, "st_rdev");

struct linux_statx_timestamp {
	int64_t tv_sec;
	uint32_t tv_nsec;
	int32_t __reserved;
};

struct linux_statx {
	uint32_t stx_mask;
	uint32_t stx_blksize;
	uint64_t stx_attributes;
	uint32_t stx_nlink;
	uint32_t stx_uid;
	uint32_t stx_gid;
	uint16_t stx_mode;
	uint16_t __spare0;
	uint64_t stx_ino;
	uint64_t stx_size;
	uint64_t stx_blocks;
	uint64_t stx_attributes_mask;
	struct linux_statx_timestamp stx_atime, stx_btime, stx_ctime, stx_mtime;
	uint32_t stx_rdev_major, stx_rdev_minor;
	uint32_t stx_dev_major, stx_dev_minor;
	uint64_t __spare2[14];
};
_Static_assert(sizeof(struct linux_statx) == 256, "struct statx");
_Static_assert(offsetof(struct linux_statx, stx_rdev_major) == 128, "statx");

/* Linux's dev_t encoding (new_encode_dev, as glibc's makedev). */
static inline uint64_t
linux_makedev(uint32_t major, uint32_t minor)
{
	return (minor & 0xffu) | ((uint64_t)(major & 0xfffu) << 8) |
	    ((uint64_t)(minor & ~0xffu) << 12) |
	    ((uint64_t)(major & ~0xfffu) << 32);
}

static inline uint32_t
linux_major(uint64_t dev)
{
	return (uint32_t)(((dev >> 8) & 0xfff) | ((dev >> 32) & ~0xfffu));
}

static inline uint32_t
linux_minor(uint64_t dev)
{
	return (uint32_t)((dev & 0xff) | ((dev >> 12) & ~0xffu));
}

#endif /* FS_STAT_H */
