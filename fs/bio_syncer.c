/*
 * Writing delayed writes back: the syncer thread, which every second
 * starts the writes of buffers dirty for longer than bio_syncdelay (as
 * BSD's syncer does with kern.syncdelay) and every bio_syncdelay has the
 * file systems write their dirty pages (the hook), and bsync, which writes
 * everything now for sync(2), syncfs(2), fsync(2) and shutdown.
 */
#include "dev/disk.h"
#include "fs/bio_var.h"
#include "kern/thread.h"

#define SYNCER_PERIOD	1000000000ULL		/* 1 s */

uint64_t bio_syncdelay = 5000000000ULL;		/* 5 s */

static struct thread *syncer_td;
static bool syncer_stopping;

/* Starts the writes of the delayed writes of dk (NULL: any disk). */
static void
bio_flush_dirty(struct disk *dk, uint64_t older_than)
{
	struct buf *bp, *tmp;
	uint64_t now = nanouptime();

	TAILQ_FOREACH_SAFE(bp, &bufdirty, b_freelist, tmp) {
		if ((dk != NULL && bp->b_disk != dk) ||
		    now - bp->b_dirtied < older_than)
			continue;
		bio_acquire(bp);
		bawrite(bp);	/* may end at once, off bufdirty: tmp stays */
	}
}

static void (*syncer_hook)(void);

void
bio_syncer_hook(void (*fn)(void))
{
	syncer_hook = fn;
}

static void
bio_syncer(void *arg)
{
	uint64_t last = nanouptime();
	(void)arg;
	while (!syncer_stopping) {
		if (syncer_hook != NULL && nanouptime() - last >= bio_syncdelay) {
			syncer_hook();
			last = nanouptime();
		}
		bio_flush_dirty(NULL, bio_syncdelay);
		tsleep(&syncer_td, 0, "syncer", SYNCER_PERIOD);
	}
	syncer_td = NULL;
	wakeup(&syncer_stopping);
	thread_exit();
}

void
bio_syncer_start(void)
{
	if (syncer_td != NULL)
		return;
	syncer_stopping = false;
	syncer_td = thread_create("syncer", bio_syncer, NULL);
	if (syncer_td == NULL)
		panic("bio: cannot create the syncer thread");
	thread_start(syncer_td);
}

/* Waits for dk's writes, then flushes it: 0 or the first error. */
static int
bio_syncdisk(struct disk *dk)
{
	while (dk->d_writes > 0)
		bio_sleep(&dk->d_writes, "bsync", dk);
	int error = dk->d_wberror;
	dk->d_wberror = 0;
	if (!dk->d_readonly) {
		int e = dk->d_flush(dk);
		if (error == 0)
			error = e;
	}
	return error;
}

int
bsync(struct disk *dk, int wait)
{
	struct disk *d;
	int error = 0;

	bio_flush_dirty(dk, 0);
	if (!wait)
		return 0;
	TAILQ_FOREACH(d, &disklist, d_list) {
		if (dk != NULL && d != dk)
			continue;
		int e = bio_syncdisk(d);
		if (error == 0)
			error = e;
	}
	return error;
}

int
bio_shutdown(void)
{
	if (syncer_td != NULL) {
		syncer_stopping = true;
		wakeup(&syncer_td);
		while (syncer_td != NULL)
			tsleep(&syncer_stopping, 0, "syncstop", 0);
	}
	return bsync(NULL, 1);
}
