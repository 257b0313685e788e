/*
 * The pageout daemon: keeps RAM for new pages by taking back file pages
 * (see vm_pageout.h).  There is no swap, so anonymous memory stays; the
 * page cache is what gives way.
 *
 * Which pages: a clock over every file object (vm_file_objects, each
 * visited in turn and moved to the back), with one bit of history per
 * page, the article's accessed bit: a page accessed since the last pass
 * (a VPTE's A, harvested and cleared by pmap_ts_referenced, or
 * PGX_REFERENCED, left by a dropped VPTE and by read and write) is kept
 * and its bit cleared; a page not accessed is freed if it is clean, or
 * counted if it is dirty (the modified bit, harvested the same way).
 * When dirty pages stand in the way, the daemon has the file systems
 * write back (the flusher) and frees them on a later pass, once clean.
 *
 * Two callers: the page allocator, when no block is free, through
 * vm_pageout_reclaim, which must not sleep and only frees pages no
 * mapping shows (its caller may be in the middle of mapping one); and
 * the daemon thread, which also takes pages out of their mappings.
 * Pages held (hold_count: a read copying out of one) are never freed.
 */
#include "kern/thread.h"
#include "vm/pmap.h"
#include "vm/vm.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"
#include "vm/vm_pageout.h"

#define PAGEOUT_PERIOD	(250 * 1000 * 1000ULL)	/* ns between checks */
#define PAGEOUT_SHARE	16	/* keep 1/16 of RAM free */
#define PAGEOUT_BATCH	256	/* pages the reclaimer frees at least */

static struct thread *pageout_td;
static void (*pageout_flush)(void);

struct scan {
	size_t want;		/* pages to free */
	size_t freed;
	size_t dirty;		/* not used lately, but dirty */
	bool unmap;		/* may take pages out of mappings */
};

static void
scan_page(struct vm_object *obj, struct vm_page *m, void *arg)
{
	struct scan *sc = arg;
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	(void)obj;

	if (sc->freed >= sc->want || m->hold_count != 0 || m->wire_count != 0)
		return;
	vmcounts.v_pgscan++;
	if (x->pv != NULL) {
		if (!sc->unmap || pmap_ts_referenced(m) > 0)
			return;
		if (pmap_is_modified(m)) {
			sc->dirty++;
			return;
		}
		pmap_page_protect(m, VM_PROT_NONE);
	} else if (x->flags & PGX_REFERENCED) {
		x->flags &= ~PGX_REFERENCED;	/* a second chance */
		return;
	}
	if (x->flags & PGX_DIRTY) {
		sc->dirty++;
		return;
	}
	x->flags &= ~PGX_REFERENCED;
	vm_object_page_free(m);
	sc->freed++;
	vmcounts.v_pgsteal++;
}

/* One turn of the clock over the file objects, until sc->want are freed. */
static void
scan_objects(struct scan *sc)
{
	size_t n = 0;
	struct vm_object *obj;

	TAILQ_FOREACH(obj, &vm_file_objects, object_list)
		n++;
	for (size_t i = 0; i < n && sc->freed < sc->want; i++) {
		obj = TAILQ_FIRST(&vm_file_objects);
		TAILQ_REMOVE(&vm_file_objects, obj, object_list);
		TAILQ_INSERT_TAIL(&vm_file_objects, obj, object_list);
		vm_object_foreach(obj, 0, UINT64_MAX, scan_page, sc);
	}
}

static uint64_t
free_target(void)
{
	return vmstats.v_page_count / PAGEOUT_SHARE;
}

/* Whether page m could be freed now without sleeping or unmapping. */
static bool
reclaimable(struct vm_page *m)
{
	if (m->flags & (PG_RESERVED | PG_KMEM))
		return false;
	if (m->flags & PG_FREE)
		return true;
	struct vm_object *obj = m->object;
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	return obj != NULL && obj->type == OBJT_VNODE && m->hold_count == 0 &&
	    m->wire_count == 0 && x->pv == NULL && !(x->flags & PGX_DIRTY);
}

/*
 * For an allocation of 2^order pages: the pages freed one by one are
 * scattered and seldom make a block that large.  Finds an aligned block
 * of RAM whose every page is free or a clean file page nobody maps or
 * holds, and frees those: a block by construction.  The search goes on
 * from where the last one stopped.  The count freed.
 */
static size_t
reclaim_block(int order)
{
	static uint64_t cursor;
	uint64_t n = 1UL << order, npages = vmstats.v_page_count;
	struct vm_page *pa = vm_page_array();

	for (uint64_t tries = 0; tries < npages / n; tries++) {
		uint64_t first = cursor;
		cursor = cursor + n >= npages ? 0 : cursor + n;
		if (first + n > npages)
			continue;
		uint64_t i;
		for (i = 0; i < n && reclaimable(&pa[first + i]); i++)
			;
		if (i < n)
			continue;
		size_t freed = 0;
		for (i = 0; i < n; i++) {
			struct vm_page *m = &pa[first + i];
			if (!(m->flags & PG_FREE)) {
				VM_PAGE_EXT(m)->flags &= ~PGX_REFERENCED;
				vm_object_page_free(m);
				freed++;
			}
		}
		if (freed > 0)
			return freed;
	}
	return 0;
}

bool
vm_pageout_short(void)
{
	if (vmstats.v_free_count >= free_target())
		return false;
	if (pageout_td != NULL)
		wakeup(&pageout_td);
	return true;
}

size_t
vm_pageout_reclaim(size_t pages)
{
	/* A few at a time would leave the next allocation short again. */
	struct scan sc = { MAX(pages, PAGEOUT_BATCH), 0, 0, false };
	if (pages > 1)
		sc.freed = reclaim_block(63 - __builtin_clzl(pages));
	if (sc.freed == 0)
		scan_objects(&sc);
	if (pageout_td != NULL)
		wakeup(&pageout_td);
	return sc.freed;
}

static void
vm_pageout(void *arg)
{
	(void)arg;
	for (;;) {
		tsleep(&pageout_td, 0, "pgdaemon", PAGEOUT_PERIOD);
		uint64_t target = free_target();
		if (vmstats.v_free_count >= target)
			continue;
		struct scan sc = { 2 * target - vmstats.v_free_count, 0, 0, true };
		scan_objects(&sc);
		/* Dirty pages in the way: clean them for the next pass. */
		if (sc.freed < sc.want && sc.dirty > 0 && pageout_flush != NULL)
			pageout_flush();
	}
}

void
vm_pageout_flusher(void (*flush)(void))
{
	pageout_flush = flush;
}

void
vm_pageout_start(void)
{
	if (pageout_td != NULL)
		return;
	pageout_td = thread_create("pagedaemon", vm_pageout, NULL);
	if (pageout_td == NULL)
		panic("vm_pageout_start: cannot create the thread");
	thread_start(pageout_td);
}

struct count {
	uint64_t cached, dirty;
};

/* Wired pages (tmpfs's: no store) are not page cache: Shmem counts them. */
static void
count_page(struct vm_object *obj, struct vm_page *m, void *arg)
{
	struct count *c = arg;
	(void)obj;
	if (m->wire_count != 0)
		return;
	c->cached++;
	if (pmap_is_modified(m))
		c->dirty++;
}

void
vm_pageout_stats(uint64_t *cached, uint64_t *dirty)
{
	struct count c = { 0, 0 };
	struct vm_object *obj;

	TAILQ_FOREACH(obj, &vm_file_objects, object_list)
		vm_object_foreach(obj, 0, UINT64_MAX, count_page, &c);
	*cached = c.cached;
	*dirty = c.dirty;
}
