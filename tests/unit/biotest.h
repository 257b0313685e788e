/*
 * Helpers for the disk and buffer-cache tests: a kernel thread on real
 * virtual CPUs with disk interrupts dispatched, and vkd disks over
 * temporary image files that the test can also read on the host.
 */
#ifndef TESTS_UNIT_BIOTEST_H
#define TESTS_UNIT_BIOTEST_H

#include <stddef.h>
#include <stdint.h>

struct disk;

/* Where biot_disk makes images ("/tmp"). */
extern const char *biot_tmpdir;

struct biot_disk {
	char path[96];
	int fd;			/* the test's own descriptor of the image */
	struct disk *dk;
};

/*
 * Runs body(arg) as a kernel thread on ncpu CPUs, with the buffer cache
 * started before and shut down (synced, syncer stopped) after; returns
 * when it is done.  It all happens in a child with a private copy of
 * RAM (biot_isolated), so that the cache, its threads and the holes
 * they leave in RAM do not outlive the test.
 */
void biot_run(int ncpu, void (*body)(void *), void *arg);

/*
 * biot_run's kernel, in this process: for a child of biot_isolated that
 * prepares the host first.  0, or non-zero if something failed.
 */
int biot_kernel(int ncpu, void (*body)(void *), void *arg);

/*
 * Runs fn(arg) in a child with a private copy of RAM (vmt_private_child);
 * fn returns non-zero if it failed, which fails the calling test.
 */
void biot_isolated(int (*fn)(void *), void *arg);

/*
 * A new image of size bytes (sparse; zeroes) made vkd disk, spec suffix
 * (NULL or ":ro") after its name.  0, or -1 (reported).  From a kernel
 * thread.
 */
int biot_disk(struct biot_disk *d, uint64_t size, const char *suffix);

/* Syncs, drops the disk's buffers, detaches it, removes the image. */
void biot_disk_free(struct biot_disk *d);

/* Host pread of the image: 0 if all n bytes came. */
int biot_pread(struct biot_disk *d, void *buf, size_t n, uint64_t off);
int biot_pwrite(struct biot_disk *d, const void *buf, size_t n, uint64_t off);

/* Fills buf with a pattern that depends on seed. */
void biot_fill(void *buf, size_t n, uint32_t seed);

#endif /* TESTS_UNIT_BIOTEST_H */
