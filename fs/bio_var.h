/*
 * The buffer cache's own state, shared by its files: bio_cache.c (the
 * hash, the queues, getblk and the transfers) and bio_syncer.c (the
 * syncer thread and bsync).  Tests read it too.
 *
 * A buffer not busy is on one queue: bufclean (an LRU, oldest first) if
 * it holds no delayed write, else bufdirty (in the order they went on
 * it; b_dirtied says since when each is dirty).  A busy one is on none.
 * Every buffer is on its hash chain.
 */
#ifndef FS_BIO_VAR_H
#define FS_BIO_VAR_H

#include "fs/buf.h"

TAILQ_HEAD(bufq, buf);

extern struct bufq bufclean, bufdirty;

struct biostats {
	size_t bytes;		/* data held by every buffer */
	size_t maxbytes;	/* the cap on bytes: a share of RAM */
	size_t nbufs;
	size_t ndirty;		/* buffers with B_DELWRI */
	size_t dirtybytes;	/* their data */
	uint64_t inbytes;	/* read from disks since boot, pages' too */
	uint64_t outbytes;	/* written to disks */
};
extern struct biostats biostats;

/* Delayed writes older than this go to disk (ns; a tunable, as BSD's). */
extern uint64_t bio_syncdelay;

/* Takes a buffer that is not busy off its queue and makes it busy. */
void bio_acquire(struct buf *bp);

/*
 * Sleeps on chan; a kernel with no thread to sleep in (boot, shutdown)
 * instead polls dk, whose transfer is what it waits for.
 */
void bio_sleep(const void *chan, const char *wmesg, struct disk *dk);

/* Starts the syncer thread if it is not running. */
void bio_syncer_start(void);

#endif /* FS_BIO_VAR_H */
