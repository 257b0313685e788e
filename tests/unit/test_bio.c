/*
 * The buffer cache over a vkd disk: hits, delayed writes and the syncer,
 * bsync's flush, busy buffers, the cap, and giving way to memory
 * pressure.
 */
#include <stdatomic.h>

#include "dev/disk.h"
#include "fs/bio_var.h"
#include "host/blkio.h"
#include "host/clock.h"
#include "kern/thread.h"
#include "tests/unit/biotest.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"
#include "kern/vm_page.h"

#define KB	1024
#define BS	(4 * KB)
#define SEC(b)	((uint64_t)(b) * (BS / DEV_BSIZE))
#define MS	1000000ULL

static uint8_t want[BS], got[BS];
static atomic_int nreads, nwrites, nflushes;

static int
count_hook(enum blkio_op op, off_t off, size_t len)
{
	(void)off;
	(void)len;
	atomic_fetch_add(op == BLKIO_READ ? &nreads : op == BLKIO_WRITE ?
	    &nwrites : &nflushes, 1);
	return 0;
}

static void
counting(void)
{
	atomic_store(&nreads, 0);
	atomic_store(&nwrites, 0);
	atomic_store(&nflushes, 0);
	blkio_test_hook = count_hook;
}

static void
hits_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 1 << 20, NULL) == 0);
	counting();
	REQUIRE(bread(d.dk, SEC(4), BS, &bp) == 0);
	memset(bp->b_data, 0x44, BS);	/* changed in the cache only */
	brelse(bp);
	REQUIRE(bread(d.dk, SEC(4), BS, &bp) == 0);
	CHECK(((uint8_t *)bp->b_data)[100] == 0x44);
	brelse(bp);
	CHECK_EQ(atomic_load(&nreads), 1);
	/* getblk of a block about to be written whole reads nothing. */
	bp = getblk(d.dk, SEC(5), BS);
	CHECK(!(bp->b_flags & B_CACHE));
	bp->b_flags |= B_INVAL;
	brelse(bp);
	CHECK_EQ(atomic_load(&nreads), 1);
	/* Dropped: read again. */
	binvalidate(d.dk);
	REQUIRE(bread(d.dk, SEC(4), BS, &bp) == 0);
	CHECK(((uint8_t *)bp->b_data)[100] == 0);
	brelse(bp);
	CHECK_EQ(atomic_load(&nreads), 2);
	blkio_test_hook = NULL;
	biot_disk_free(&d);
}

TEST(bio_cache_hits_and_binvalidate)
{
	biot_run(1, hits_body, NULL);
}

static void
bsync_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	REQUIRE(biot_disk(&d, 1 << 20, NULL) == 0);
	counting();
	for (int b = 0; b < 10; b++) {
		struct buf *bp = getblk(d.dk, SEC(b), BS);
		biot_fill(bp->b_data, BS, (uint32_t)b + 100);
		bdwrite(bp);
	}
	CHECK_EQ(biostats.ndirty, 10);
	CHECK_EQ(atomic_load(&nwrites), 0);
	CHECK_EQ(bsync(d.dk, 1), 0);
	CHECK_EQ(biostats.ndirty, 0);
	CHECK_EQ(atomic_load(&nwrites), 10);
	CHECK_EQ(atomic_load(&nflushes), 1);	/* after the writes */
	for (int b = 0; b < 10; b++) {
		biot_fill(want, BS, (uint32_t)b + 100);
		CHECK(biot_pread(&d, got, BS, (uint64_t)b * BS) == 0 &&
		    memcmp(got, want, BS) == 0);
	}
	/* Without wait, no flush; nothing to write, still a flush with it. */
	CHECK_EQ(bsync(d.dk, 0), 0);
	CHECK_EQ(atomic_load(&nflushes), 1);
	CHECK_EQ(bsync(NULL, 1), 0);
	CHECK_EQ(atomic_load(&nflushes), 2);
	blkio_test_hook = NULL;
	biot_disk_free(&d);
}

TEST(bio_bsync_writes_then_flushes)
{
	biot_run(1, bsync_body, NULL);
}

static void
syncer_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	REQUIRE(biot_disk(&d, 1 << 20, NULL) == 0);
	uint64_t delay = bio_syncdelay;
	bio_syncdelay = 300 * MS;
	struct buf *bp = getblk(d.dk, SEC(3), BS);
	biot_fill(bp->b_data, BS, 33);
	biot_fill(want, BS, 33);
	uint64_t t0 = nanouptime();
	bdwrite(bp);
	/* Not before its delay... */
	tsleep(&d, 0, "wait", 100 * MS);
	CHECK(biot_pread(&d, got, BS, 3 * BS) == 0 && memcmp(got, want, BS) != 0);
	/* ...and within the delay and a syncer period or two. */
	uint64_t t;
	for (;;) {
		tsleep(&d, 0, "wait", 20 * MS);
		t = nanouptime() - t0;
		if (biot_pread(&d, got, BS, 3 * BS) == 0 && memcmp(got, want, BS) == 0)
			break;
		if (t > 4000 * MS)
			break;
	}
	CHECK(t >= 300 * MS);
	CHECK(t < 4000 * MS);
	CHECK_EQ(biostats.ndirty, 0);
	bio_syncdelay = delay;
	biot_disk_free(&d);
}

TEST(bio_syncer_writes_delayed_writes)
{
	biot_run(1, syncer_body, NULL);
}

/* Two threads want one block: the second sleeps until the first is done. */
static struct {
	struct disk *dk;
	int step;
	bool saw_a;
} busy;

static void
busy_second(void *arg)
{
	(void)arg;
	busy.step = 1;
	wakeup(&busy.step);
	struct buf *bp = getblk(busy.dk, SEC(2), BS);	/* sleeps */
	busy.saw_a = ((uint8_t *)bp->b_data)[0] == 0xaa && busy.step == 2;
	brelse(bp);
	busy.step = 3;
	wakeup(&busy.step);
}

static void
busy_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	REQUIRE(biot_disk(&d, 1 << 20, NULL) == 0);
	busy.dk = d.dk;
	busy.step = 0;
	busy.saw_a = false;
	struct buf *bp = getblk(d.dk, SEC(2), BS);
	thread_start(thread_create("second", busy_second, NULL));
	while (busy.step != 1)
		tsleep(&busy.step, 0, "step", 0);
	tsleep(&busy, 0, "let", 20 * MS);	/* it runs into the busy buffer */
	CHECK_EQ(busy.step, 1);
	memset(bp->b_data, 0xaa, BS);
	busy.step = 2;
	bdwrite(bp);
	while (busy.step != 3)
		tsleep(&busy.step, 0, "step", 0);
	CHECK(busy.saw_a);
	biot_disk_free(&d);
}

TEST(bio_getblk_waits_for_a_busy_buffer)
{
	biot_run(1, busy_body, NULL);
}

static void
cap_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 8 << 20, NULL) == 0);
	size_t cap = biostats.maxbytes, peak = 0;
	biostats.maxbytes = 256 * KB;
	/* Clean and dirty blocks, twice the cap: the cache stays under it,
	 * recycling clean buffers and having dirty ones written. */
	for (int b = 0; b < 128; b++) {
		if (b % 2 == 0) {
			REQUIRE(bread(d.dk, SEC(b), BS, &bp) == 0);
			brelse(bp);
		} else {
			bp = getblk(d.dk, SEC(b), BS);
			REQUIRE(bp != NULL);
			biot_fill(bp->b_data, BS, (uint32_t)b);
			bdwrite(bp);
		}
		peak = MAX(peak, biostats.bytes);
	}
	CHECK(peak <= 256 * KB);
	CHECK(biostats.nbufs <= 64);
	CHECK_EQ(bsync(d.dk, 1), 0);
	for (int b = 1; b < 128; b += 2) {
		biot_fill(want, BS, (uint32_t)b);
		CHECK(biot_pread(&d, got, BS, (uint64_t)b * BS) == 0 &&
		    memcmp(got, want, BS) == 0);
	}
	biostats.maxbytes = cap;
	biot_disk_free(&d);
}

TEST(bio_cache_stays_under_its_cap)
{
	biot_run(1, cap_body, NULL);
}

static void
reclaim_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 8 << 20, NULL) == 0);
	size_t nbufs0 = biostats.nbufs;
	for (int b = 0; b < 256; b++) {
		REQUIRE(bread(d.dk, SEC(b), BS, &bp) == 0);
		brelse(bp);
	}
	for (int b = 256; b < 272; b++) {
		bp = getblk(d.dk, SEC(b), BS);
		biot_fill(bp->b_data, BS, (uint32_t)b);
		bdwrite(bp);
	}
	CHECK_EQ(biostats.nbufs, nbufs0 + 272);

	/* Clean buffers go first, the oldest first; dirty ones stay. */
	uint64_t free0 = vmstats.v_free_count;
	CHECK(bio_reclaim(64) >= 64);
	CHECK(vmstats.v_free_count >= free0 + 64);
	CHECK_EQ(biostats.ndirty, 16);
	CHECK_EQ(biostats.nbufs, nbufs0 + 272 - 64);
	counting();
	REQUIRE(bread(d.dk, SEC(255), BS, &bp) == 0);	/* the newest: kept */
	brelse(bp);
	REQUIRE(bread(d.dk, SEC(0), BS, &bp) == 0);	/* the oldest: gone */
	brelse(bp);
	CHECK_EQ(atomic_load(&nreads), 1);
	blkio_test_hook = NULL;

	/* Asking for more than the clean ones starts the dirty ones' writes. */
	bio_reclaim(100000);
	CHECK_EQ(biostats.nbufs, nbufs0 + 16);
	CHECK_EQ(biostats.ndirty, 0);
	CHECK_EQ(bsync(d.dk, 1), 0);
	biot_fill(want, BS, 271);
	CHECK(biot_pread(&d, got, BS, 271 * BS) == 0 && memcmp(got, want, BS) == 0);
	biot_disk_free(&d);
}

TEST(bio_reclaim_frees_clean_buffers)
{
	biot_run(1, reclaim_body, NULL);
}

static void
pressure_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	REQUIRE(biot_disk(&d, 16 << 20, NULL) == 0);
	for (int b = 0; b < 2048; b++) {
		REQUIRE(bread(d.dk, SEC(b), BS, &bp) == 0);
		brelse(bp);
	}
	size_t nbufs = biostats.nbufs;
	uint64_t free0 = vmstats.v_free_count;

	/* Take every page there is, chained through their first bytes: the
	 * allocator must get the cache's pages too rather than fail. */
	void *chain = NULL;
	uint64_t got_pages = 0;
	struct vm_page *m;
	while ((m = vm_page_alloc(0, 0)) != NULL) {
		void **p = VM_PAGE_TO_DMAP(m);
		*p = chain;
		chain = p;
		got_pages++;
	}
	CHECK(got_pages >= free0 + 2000);
	CHECK(biostats.nbufs < nbufs - 2000);
	while (chain != NULL) {
		void *next = *(void **)chain;
		vm_page_free(DMAP_TO_VM_PAGE(chain), 0);
		chain = next;
	}
	/* And the cache works again. */
	REQUIRE(bread(d.dk, SEC(1), BS, &bp) == 0);
	brelse(bp);
	biot_disk_free(&d);
}

TEST(bio_gives_way_to_memory_pressure)
{
	biot_run(1, pressure_body, NULL);
}

/* At boot and after the CPUs stop there is no thread: transfers poll. */
static int
nothread_child(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	bio_init();
	if (biot_disk(&d, 1 << 20, NULL) < 0)
		return 1;
	biot_fill(want, BS, 77);
	CHECK(biot_pwrite(&d, want, BS, 7 * BS) == 0);
	if (bread(d.dk, SEC(7), BS, &bp) != 0)
		return 1;
	CHECK(memcmp(bp->b_data, want, BS) == 0);
	biot_fill(bp->b_data, BS, 78);
	bdwrite(bp);
	counting();
	CHECK_EQ(bsync(NULL, 1), 0);
	CHECK_EQ(atomic_load(&nflushes), 1);
	blkio_test_hook = NULL;
	biot_fill(want, BS, 78);
	CHECK(biot_pread(&d, got, BS, 7 * BS) == 0 && memcmp(got, want, BS) == 0);
	biot_disk_free(&d);
	return unit_failed_now();
}

TEST(bio_works_without_a_thread)
{
	biot_isolated(nothread_child, NULL);
}

/*
 * Buffers of other shapes than the disk's blocks: a sector is in one
 * buffer only, so a read of any shape sees the last write of any other,
 * and an odd buffer is not kept once clean.
 */
static void
shapes_body(void *arg)
{
	(void)arg;
	struct biot_disk d;
	struct buf *bp;
	uint8_t a[BS];
	REQUIRE(biot_disk(&d, 1 << 20, NULL) == 0);
	CHECK_EQ(d.dk->d_bsize, BS);
	size_t nbufs0 = biostats.nbufs;

	/* A delayed 4 KiB write, read as 1 KiB inside it. */
	bp = getblk(d.dk, SEC(2), BS);
	biot_fill(bp->b_data, BS, 41);
	memcpy(a, bp->b_data, BS);
	bdwrite(bp);
	REQUIRE(bread(d.dk, SEC(2) + 2, KB, &bp) == 0);
	CHECK(memcmp(bp->b_data, a + KB, KB) == 0);
	CHECK_EQ(d.dk->d_nodd, 1);
	/* Changed there, read as the whole block again. */
	biot_fill(bp->b_data, KB, 43);
	memcpy(a + KB, bp->b_data, KB);
	bdwrite(bp);
	REQUIRE(bread(d.dk, SEC(2), BS, &bp) == 0);
	CHECK(memcmp(bp->b_data, a, BS) == 0);
	brelse(bp);
	CHECK_EQ(d.dk->d_nodd, 0);
	CHECK_EQ(biostats.nbufs, nbufs0 + 1);

	/* A clean odd buffer is not kept; one straddling two blocks works. */
	REQUIRE(bread(d.dk, SEC(2) + 7, KB, &bp) == 0);
	CHECK(memcmp(bp->b_data, a + 3 * KB + 512, 512) == 0);
	brelse(bp);
	CHECK_EQ(d.dk->d_nodd, 0);
	CHECK_EQ(biostats.nbufs, nbufs0);	/* block 2 went for it */

	/* A new block size: what is cached in the old one is dropped. */
	REQUIRE(bread(d.dk, SEC(2), BS, &bp) == 0);
	brelse(bp);
	bio_setbsize(d.dk, KB);
	CHECK_EQ(biostats.nbufs, nbufs0);
	CHECK_EQ(d.dk->d_nodd, 0);
	REQUIRE(bread(d.dk, SEC(2) + 2, KB, &bp) == 0);
	CHECK(memcmp(bp->b_data, a + KB, KB) == 0);
	brelse(bp);
	CHECK_EQ(biostats.nbufs, nbufs0 + 1);	/* regular now: kept */
	bio_setbsize(d.dk, BS);

	CHECK_EQ(bsync(d.dk, 1), 0);
	CHECK(biot_pread(&d, got, BS, 2 * BS) == 0 && memcmp(got, a, BS) == 0);
	biot_disk_free(&d);
}

TEST(bio_shapes_share_sectors)
{
	biot_run(1, shapes_body, NULL);
}
