/*
 * Block I/O on a host file by helper threads: the article's "cothreads"
 * for the disk driver.  The kernel never blocks in the host, so a
 * transfer is queued here and the caller goes on; one of the file's
 * helper threads does the blocking pread, pwrite or fdatasync straight
 * into or out of RAM (mapped in this process), queues the result, and
 * posts INTR_DISK to the CPU that asked.  The kernel's interrupt handler
 * then takes the results with blkio_reap.
 *
 * Helper threads are plain host threads: they touch nothing of the
 * kernel's but the bytes of the transfer, which the kernel leaves alone
 * until the result is reaped.  Any thread may call these functions; the
 * queues have their own lock.
 */
#ifndef HOST_BLKIO_H
#define HOST_BLKIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum blkio_op {
	BLKIO_READ,
	BLKIO_WRITE,
	BLKIO_FLUSH,		/* fdatasync: completed writes to stable storage */
};

struct blkio;

/*
 * Opens the disk image at path for a disk: read-write unless *ro is set
 * or the host refuses writes (then *ro is set), a regular file whose size
 * (*size) is a non-zero multiple of sector bytes, locked against other
 * vkernels (shared if read-only, else exclusive).  Returns the host fd,
 * or -1 with a reason in why (whylen bytes).  Close with blkio_image_close.
 */
int blkio_image_open(const char *path, bool *ro, uint64_t *size,
    unsigned sector, char *why, size_t whylen);

/* Closes an image's fd; its lock goes with it. */
void blkio_image_close(int fd);

/*
 * Starts nthreads helper threads for the open file fd (which stays the
 * caller's).  Returns NULL with errno set.
 */
struct blkio *blkio_open(int fd, int nthreads);

/*
 * Waits for every queued transfer to end, stops the helpers and frees
 * b; results not reaped are dropped.
 */
void blkio_close(struct blkio *b);

/*
 * Queues op on len bytes at data and file offset off (both ignored for
 * BLKIO_FLUSH); cookie comes back from blkio_reap.  When it ends,
 * INTR_DISK is posted to the CPU numbered cpu (if it still exists).
 * Returns 0, or -1 with errno (ENOMEM) and nothing queued.
 */
int blkio_submit(struct blkio *b, enum blkio_op op, void *data, size_t len,
    off_t off, void *cookie, int cpu);

/*
 * Takes the oldest ended transfer: true with its op, its cookie and its
 * result (0, or a negative host errno; -EIO for a read past the end of
 * the file or a write that made no progress), false if none has ended.
 */
bool blkio_reap(struct blkio *b, enum blkio_op *op, void **cookie,
    int *error);

/*
 * Sleeps in the host until an ended transfer waits to be reaped: for a
 * kernel that has no thread to sleep in (at boot, after the CPUs stop).
 */
void blkio_wait(struct blkio *b);

/*
 * The host calls made so far (a run of continuing transfers queued
 * together is one preadv/pwritev): for tests and statistics.
 */
unsigned long blkio_hostcalls(struct blkio *b);

/*
 * For tests: when set, helpers call it before each transfer; a non-zero
 * errno return fails the transfer with it instead.  It may block, to
 * hold a transfer in flight.
 */
extern int (*blkio_test_hook)(enum blkio_op op, off_t off, size_t len);

#endif /* HOST_BLKIO_H */
