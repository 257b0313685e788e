/*
 * The vkd disk driver: images as disks, transfers on host helper threads
 * that complete as interrupts, and host failures as EIO.
 */
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sched.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "dev/disk.h"
#include "dev/vkd.h"
#include "fs/buf.h"
#include "host/blkio.h"
#include "host/clock.h"
#include "kern/thread.h"
#include "tests/unit/biotest.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"
#include "kern/kmem.h"

#define KB	1024
#define BS	(4 * KB)			/* the tests' block size */
#define SEC(b)	((uint64_t)(b) * (BS / DEV_BSIZE))	/* block to sector */

static uint8_t want[BS], got[BS];

TEST(vkd_config_refuses_bad_images)
{
	const char *why = NULL;
	char path[] = "/tmp/vkdbad.XXXXXX", spec[64];
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);

	CHECK_EQ(vkd_config("/nonexistent/disk.img", &why), -1);
	CHECK(why != NULL && strstr(why, "No such file") != NULL);
	REQUIRE(ftruncate(fd, 1000) == 0);
	CHECK_EQ(vkd_config(path, &why), -1);
	CHECK(strstr(why, "multiple of 512") != NULL);
	REQUIRE(ftruncate(fd, 0) == 0);
	CHECK_EQ(vkd_config(path, &why), -1);		/* empty */
	CHECK_EQ(vkd_config("/dev/null", &why), -1);
	CHECK(strstr(why, "regular file") != NULL);

	/* A writable image is locked: nobody else may have it, read-write
	 * or read-only (a second open stands for a second vkernel). */
	REQUIRE(ftruncate(fd, 64 * KB) == 0);
	REQUIRE(vkd_config(path, &why) == 0);
	CHECK_EQ(vkd_config(path, &why), -1);
	CHECK(strstr(why, "locked") != NULL);
	snprintf(spec, sizeof(spec), "%s:ro", path);
	CHECK_EQ(vkd_config(spec, &why), -1);

	/* Attached, it is vkdN with the right size and number; detached,
	 * its lock goes, and read-only users may share it. */
	vmt_ram();
	REQUIRE(vkd_attach() == 0);
	struct disk *dk = TAILQ_FIRST(&disklist);
	REQUIRE(dk != NULL && TAILQ_NEXT(dk, d_list) == NULL);
	CHECK(strcmp(dk->d_name, "vkd0") == 0);
	CHECK(disk_lookup("/dev/vkd0") == dk);
	CHECK(disk_bydev(makedev(DISK_MAJOR, 0)) == dk);
	CHECK_EQ(dk->d_nsectors, 128);
	CHECK_EQ(dk->d_readonly, 0);
	vkd_detach(dk);
	CHECK(disk_lookup("vkd0") == NULL);
	REQUIRE(vkd_config(spec, &why) == 0);
	CHECK_EQ(vkd_config(spec, &why), 0);
	REQUIRE(vkd_attach() == 0);
	CHECK(disk_lookup("vkd1") != NULL && disk_lookup("vkd1")->d_readonly);
	while ((dk = TAILQ_FIRST(&disklist)) != NULL)
		vkd_detach(dk);
	close(fd);
	unlink(path);
}

static void
roundtrip_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 1 << 20, NULL) == 0);
	struct disk *dk = d.dk;

	/* bwrite: on the image when it returns. */
	bp = getblk(dk, SEC(3), BS);
	REQUIRE(bp != NULL);
	CHECK(!(bp->b_flags & B_CACHE));
	biot_fill(bp->b_data, BS, 3);
	CHECK_EQ(bwrite(bp), 0);
	biot_fill(want, BS, 3);
	CHECK(biot_pread(&d, got, BS, 3 * BS) == 0 && memcmp(got, want, BS) == 0);

	/* bread of what the host wrote. */
	biot_fill(want, BS, 7);
	REQUIRE(biot_pwrite(&d, want, BS, 7 * BS) == 0);
	REQUIRE(bread(dk, SEC(7), BS, &bp) == 0);
	CHECK(memcmp(bp->b_data, want, BS) == 0);
	brelse(bp);

	/* bdwrite: not yet on the image; bsync puts it there. */
	bp = getblk(dk, SEC(5), BS);
	biot_fill(bp->b_data, BS, 5);
	bdwrite(bp);
	biot_fill(want, BS, 5);
	CHECK(biot_pread(&d, got, BS, 5 * BS) == 0 && memcmp(got, want, BS) != 0);
	/* The cache has it meanwhile. */
	REQUIRE(bread(dk, SEC(5), BS, &bp) == 0);
	CHECK(memcmp(bp->b_data, want, BS) == 0);
	CHECK(bp->b_flags & B_DELWRI);
	bdwrite(bp);
	/* bawrite: started now. */
	bp = getblk(dk, SEC(9), BS);
	biot_fill(bp->b_data, BS, 9);
	bawrite(bp);
	CHECK_EQ(bsync(dk, 1), 0);
	CHECK(biot_pread(&d, got, BS, 5 * BS) == 0 && memcmp(got, want, BS) == 0);
	biot_fill(want, BS, 9);
	CHECK(biot_pread(&d, got, BS, 9 * BS) == 0 && memcmp(got, want, BS) == 0);

	/* Smaller blocks (ext2's 1 KiB) at odd sectors. */
	bp = getblk(dk, 1001, KB);
	biot_fill(bp->b_data, KB, 1001);
	CHECK_EQ(bwrite(bp), 0);
	biot_fill(want, KB, 1001);
	CHECK(biot_pread(&d, got, KB, 1001 * 512) == 0 && memcmp(got, want, KB) == 0);
	biot_disk_free(&d);
}

TEST(vkd_roundtrip)
{
	biot_run(1, roundtrip_body, NULL);
}

static void
readonly_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 64 * KB, ":ro") == 0);
	CHECK(d.dk->d_readonly);
	biot_fill(want, BS, 2);
	REQUIRE(biot_pwrite(&d, want, BS, 2 * BS) == 0);
	REQUIRE(bread(d.dk, SEC(2), BS, &bp) == 0);
	CHECK(memcmp(bp->b_data, want, BS) == 0);
	memset(bp->b_data, 0xee, BS);
	CHECK_EQ(bwrite(bp), -EROFS);
	bp = getblk(d.dk, SEC(3), BS);
	memset(bp->b_data, 0xee, BS);
	bdwrite(bp);
	CHECK_EQ(bsync(d.dk, 1), -EROFS);	/* the delayed write failed */
	CHECK_EQ(bsync(d.dk, 1), 0);		/* and said so once */
	CHECK(biot_pread(&d, got, BS, 2 * BS) == 0 && memcmp(got, want, BS) == 0);
	memset(want, 0, BS);
	CHECK(biot_pread(&d, got, BS, 3 * BS) == 0 && memcmp(got, want, BS) == 0);
	biot_disk_free(&d);
}

TEST(vkd_readonly_refuses_writes)
{
	biot_run(1, readonly_body, NULL);
}

static void
past_end_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 64 * KB, NULL) == 0);	/* 128 sectors */
	CHECK_EQ(bread(d.dk, SEC(15), BS, &bp), 0);
	brelse(bp);
	CHECK_EQ(bread(d.dk, SEC(16), BS, &bp), -EIO);
	CHECK(bp == NULL);
	CHECK_EQ(bread(d.dk, 124, BS, &bp), -EIO);	/* straddles the end */
	CHECK_EQ(bread(d.dk, UINT64_MAX - 3, BS, &bp), -EIO);	/* wraps */
	bp = getblk(d.dk, SEC(20), BS);
	memset(bp->b_data, 1, BS);
	CHECK_EQ(bwrite(bp), -EIO);
	/* The image did not grow. */
	struct stat st;
	CHECK(fstat(d.fd, &st) == 0 && st.st_size == 64 * KB);
	biot_disk_free(&d);
}

TEST(vkd_past_the_end_is_eio)
{
	biot_run(1, past_end_body, NULL);
}

static off_t fail_off = -1;

static int
fail_hook(enum blkio_op op, off_t off, size_t len)
{
	(void)len;
	return op == BLKIO_READ && off == fail_off ? EIO : 0;
}

static void
host_error_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 4 << 20, NULL) == 0);

	/* An injected host EIO on one block. */
	fail_off = 6 * BS;
	blkio_test_hook = fail_hook;
	CHECK_EQ(bread(d.dk, SEC(6), BS, &bp), -EIO);
	CHECK_EQ(bread(d.dk, SEC(5), BS, &bp), 0);
	brelse(bp);
	blkio_test_hook = NULL;
	CHECK_EQ(bread(d.dk, SEC(6), BS, &bp), 0);	/* not cached as bad */
	brelse(bp);

	/* The image shrank behind our back: reads beyond are short. */
	REQUIRE(ftruncate(d.fd, 1 << 20) == 0);
	CHECK_EQ(bread(d.dk, SEC(600), BS, &bp), -EIO);
	CHECK_EQ(bread(d.dk, SEC(100), BS, &bp), 0);
	brelse(bp);
	REQUIRE(ftruncate(d.fd, 4 << 20) == 0);

	/* The host refuses to write past 2 MiB (EFBIG, as a full file
	 * system would give ENOSPC): writes there fail, others work. */
	struct rlimit old, lim;
	REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
	lim = old;
	lim.rlim_cur = 2 << 20;
	signal(SIGXFSZ, SIG_IGN);
	REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
	bp = getblk(d.dk, SEC(600), BS);
	memset(bp->b_data, 0x5a, BS);
	CHECK_EQ(bwrite(bp), -EIO);
	/* A write straddling the limit is short, then fails. */
	bp = getblk(d.dk, SEC(511) + 4, BS);
	memset(bp->b_data, 0x5a, BS);
	CHECK_EQ(bwrite(bp), -EIO);
	bp = getblk(d.dk, SEC(601), BS);
	memset(bp->b_data, 0x5b, BS);
	bdwrite(bp);
	bp = getblk(d.dk, SEC(1), BS);
	memset(bp->b_data, 0x5c, BS);
	bdwrite(bp);
	CHECK_EQ(bsync(d.dk, 1), -EIO);		/* the write-behind failed */
	CHECK_EQ(bsync(d.dk, 1), 0);
	REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);
	signal(SIGXFSZ, SIG_DFL);
	memset(want, 0x5c, BS);
	CHECK(biot_pread(&d, got, BS, 1 * BS) == 0 && memcmp(got, want, BS) == 0);
	/* The kernel goes on: the failed block can be written now. */
	bp = getblk(d.dk, SEC(601), BS);
	CHECK(bp->b_flags & B_CACHE);		/* kept, as Linux keeps it */
	CHECK_EQ(bwrite(bp), 0);
	memset(want, 0x5b, BS);
	CHECK(biot_pread(&d, got, BS, 601 * BS) == 0 && memcmp(got, want, BS) == 0);
	biot_disk_free(&d);
}

TEST(vkd_host_errors_are_eio)
{
	biot_run(1, host_error_body, NULL);
}

/* A thread that counts while another waits for the disk. */
static struct {
	atomic_int count;
	atomic_int released_at;		/* count when the transfer went on */
	int done;
} overlap;

static int
hold_hook(enum blkio_op op, off_t off, size_t len)
{
	(void)len;
	if (op != BLKIO_READ || off != 8 * BS)
		return 0;
	/* Hold the transfer until the other thread has run a while. */
	uint64_t t0 = host_nanotime();
	while (atomic_load(&overlap.count) < 1000 &&
	    host_nanotime() - t0 < 5000000000ULL) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	atomic_store(&overlap.released_at, atomic_load(&overlap.count));
	return 0;
}

static void
counter(void *arg)
{
	(void)arg;
	while (!overlap.done) {
		atomic_fetch_add(&overlap.count, 1);
		sched_interrupts();	/* as a thread on its way to user mode */
		thread_yield();
	}
	overlap.done = 2;
	wakeup(&overlap.done);
}

static void
overlap_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 1 << 20, NULL) == 0);
	blkio_test_hook = hold_hook;
	thread_start(thread_create("counter", counter, NULL));
	CHECK_EQ(bread(d.dk, SEC(8), BS, &bp), 0);
	int after = atomic_load(&overlap.count);
	brelse(bp);
	blkio_test_hook = NULL;
	overlap.done = 1;
	while (overlap.done != 2)
		tsleep(&overlap.done, 0, "counter", 0);
	CHECK(atomic_load(&overlap.released_at) >= 1000);
	CHECK(after >= 1000);
	biot_disk_free(&d);
}

TEST(vkd_cpu_runs_others_while_a_thread_waits)
{
	biot_run(1, overlap_body, NULL);
}

#define NWORKERS	8
#define NPERWORKER	32

static struct {
	struct disk *dk;
	int finished;
	int errors;
} conc;

static void
conc_worker(void *arg)
{
	int w = (int)(intptr_t)arg;
	for (int i = 0; i < NPERWORKER; i++) {
		int blk = i * NWORKERS + w;
		struct buf *bp = getblk(conc.dk, SEC(blk), BS);
		if (bp == NULL) {
			conc.errors++;
			continue;
		}
		biot_fill(bp->b_data, BS, (uint32_t)blk);
		if (i % 3 == 0)
			conc.errors += bwrite(bp) != 0;
		else if (i % 3 == 1)
			bawrite(bp);
		else
			bdwrite(bp);
	}
	conc.errors += bsync(conc.dk, 1) != 0;
	conc.finished++;
	wakeup(&conc.finished);
}

static void
conc_reader(void *arg)
{
	int w = (int)(intptr_t)arg;
	uint8_t *pat = kmalloc(BS, 0);
	for (int i = 0; i < NPERWORKER; i++) {
		int blk = (i * NWORKERS + w * 5) % (NWORKERS * NPERWORKER);
		struct buf *bp;
		if (bread(conc.dk, SEC(blk), BS, &bp) != 0) {
			conc.errors++;
			continue;
		}
		biot_fill(pat, BS, (uint32_t)blk);
		conc.errors += memcmp(bp->b_data, pat, BS) != 0;
		brelse(bp);
	}
	kfree(pat);
	conc.finished++;
	wakeup(&conc.finished);
}

static void
concurrent_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	REQUIRE(biot_disk(&d, 2 << 20, NULL) == 0);
	conc.dk = d.dk;
	conc.finished = conc.errors = 0;
	for (int w = 0; w < NWORKERS; w++)
		thread_start(thread_create("writer", conc_worker, (void *)(intptr_t)w));
	while (conc.finished < NWORKERS)
		tsleep(&conc.finished, 0, "writers", 0);
	CHECK_EQ(conc.errors, 0);
	for (int blk = 0; blk < NWORKERS * NPERWORKER; blk++) {
		biot_fill(want, BS, (uint32_t)blk);
		if (biot_pread(&d, got, BS, (uint64_t)blk * BS) != 0 ||
		    memcmp(got, want, BS) != 0) {
			unit_fail(__FILE__, __LINE__, "block %d differs on the image", blk);
			break;
		}
	}
	/* Read back from the image, all at once, overlapping blocks. */
	binvalidate(d.dk);
	conc.finished = 0;
	for (int w = 0; w < NWORKERS; w++)
		thread_start(thread_create("reader", conc_reader, (void *)(intptr_t)w));
	while (conc.finished < NWORKERS)
		tsleep(&conc.finished, 0, "readers", 0);
	CHECK_EQ(conc.errors, 0);
	biot_disk_free(&d);
}

TEST(vkd_many_concurrent_buffers)
{
	biot_run(2, concurrent_body, NULL);
}

/*
 * The image on a full host file system: a 256 KiB tmpfs in a mount
 * namespace of the test's own (root only; otherwise a file-size limit
 * of 256 KiB stands in for it, EFBIG for ENOSPC).
 */
static void
enospc_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 1 << 20, NULL) == 0);
	for (int b = 0; b < 128; b++) {		/* 512 KiB of delayed writes */
		bp = getblk(d.dk, SEC(b), BS);
		biot_fill(bp->b_data, BS, (uint32_t)b);
		bdwrite(bp);
	}
	CHECK_EQ(bsync(d.dk, 1), -EIO);
	/* The kernel goes on: what fitted is there, blocks the file has can
	 * be rewritten, holes read as zeros. */
	biot_fill(want, BS, 1);
	CHECK(biot_pread(&d, got, BS, 1 * BS) == 0 && memcmp(got, want, BS) == 0);
	bp = getblk(d.dk, SEC(1), BS);
	memset(bp->b_data, 0x11, BS);
	CHECK_EQ(bwrite(bp), 0);
	memset(want, 0x11, BS);
	CHECK(biot_pread(&d, got, BS, 1 * BS) == 0 && memcmp(got, want, BS) == 0);
	binvalidate(d.dk);
	CHECK_EQ(bread(d.dk, SEC(200), BS, &bp), 0);
	CHECK(((uint8_t *)bp->b_data)[0] == 0);
	brelse(bp);
	CHECK_EQ(bsync(d.dk, 1), 0);
	biot_disk_free(&d);
}

static int
enospc_child(void *arg)
{
	(void)arg;
	char dir[] = "/tmp/vkdfull.XXXXXX";
	if (mkdtemp(dir) == NULL)
		return 2;
	bool mounted = unshare(CLONE_NEWNS) == 0 &&
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0 &&
	    mount("tmpfs", dir, "tmpfs", 0, "size=256k") == 0;
	if (mounted)
		biot_tmpdir = dir;
	else {
		struct rlimit lim = { 256 * KB, RLIM_INFINITY };
		signal(SIGXFSZ, SIG_IGN);
		if (setrlimit(RLIMIT_FSIZE, &lim) < 0)
			return 2;
	}
	int rc = biot_kernel(1, enospc_body, NULL);
	if (mounted)
		umount(dir);
	rmdir(dir);
	return rc;
}

TEST(vkd_full_host_file_system_is_eio)
{
	biot_isolated(enospc_child, NULL);
}

/* Reaps n ended transfers of b: how many failed, and *ok those whose
 * cookie is in[i] with the bytes of out[i] (reads only). */
static int
reap_n(struct blkio *b, int n, char (*in)[BS], char (*out)[BS], int *ok)
{
	int failed = 0;
	for (int ended = 0; ended < n; ) {
		enum blkio_op op;
		void *cookie;
		int error;
		if (!blkio_reap(b, &op, &cookie, &error)) {
			blkio_wait(b);
			continue;
		}
		ended++;
		if (error != 0)
			failed++;
		else if (op == BLKIO_READ) {
			int i = (int)(((char (*)[BS])cookie) - in);
			*ok += memcmp(in[i], out[i], BS) == 0;
		}
	}
	return failed;
}

/*
 * The helpers merge a run of continuing transfers queued together into
 * one host call, and every one of them still gets its own bytes and its
 * own completion; a run that meets the end of the file falls back to one
 * call each, so only the transfers past the end fail.
 */
TEST(blkio_clusters_continuing_transfers)
{
	enum { N = 64 };
	char path[] = "/tmp/vkd-cluster-XXXXXX";
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	unlink(path);
	REQUIRE(ftruncate(fd, (N - 4) * BS) == 0);
	static char out[N][BS], in[N][BS];
	for (int i = 0; i < N; i++)
		memset(out[i], 'a' + i % 26, BS);
	struct blkio *b = blkio_open(fd, 1);
	REQUIRE(b != NULL);

	for (int i = 0; i < N - 4; i++)
		REQUIRE(blkio_submit(b, BLKIO_WRITE, out[i], BS, (off_t)i * BS,
		    out[i], -1) == 0);
	int good = 0;
	CHECK_EQ(reap_n(b, N - 4, in, out, &good), 0);
	unsigned long writes = blkio_hostcalls(b);
	CHECK(writes < N - 4);
	for (int i = 0; i < N - 4; i++) {
		char buf[BS];
		REQUIRE(pread(fd, buf, BS, (off_t)i * BS) == BS);
		CHECK(memcmp(buf, out[i], BS) == 0);
	}

	/* Reads, the last four past the end of the file. */
	for (int i = 0; i < N; i++)
		REQUIRE(blkio_submit(b, BLKIO_READ, in[i], BS, (off_t)i * BS,
		    in[i], -1) == 0);
	CHECK_EQ(reap_n(b, N, in, out, &good), 4);	/* the four past the end */
	CHECK_EQ(good, N - 4);
	blkio_close(b);
	close(fd);
}
