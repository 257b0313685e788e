/*
 * The pageout daemon and the page cache's reclaimer (vm_pageout.c).
 */
#ifndef VM_VM_PAGEOUT_H
#define VM_VM_PAGEOUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The page allocator's reclaimer (vm_page_reclaimer): frees about pages
 * clean file pages that no mapping shows, nobody holds and nobody used
 * since the last pass, without sleeping; the count freed.  Wakes the
 * daemon for the rest.
 */
size_t vm_pageout_reclaim(size_t pages);

/*
 * Starts the pageout daemon (at boot, once threads can be made).  It
 * keeps at least a share of RAM free: under that it takes clean file
 * pages nobody used since its last pass out of their mappings (their
 * accessed bits, harvested with pmap_ts_referenced, say who used them)
 * and frees them, and has dirty ones written back first through
 * flush, the file systems' write-back (registered by the VFS).
 */
void vm_pageout_start(void);
void vm_pageout_flusher(void (*flush)(void));

/*
 * True if free RAM is under the daemon's target (and then the daemon is
 * woken): a writer dirtying file pages should write its own back before
 * making more, as Linux's balance_dirty_pages throttles it.
 */
bool vm_pageout_short(void);

/* Pages in file objects, and how many of them are dirty (meminfo). */
void vm_pageout_stats(uint64_t *cached, uint64_t *dirty);

#endif /* VM_VM_PAGEOUT_H */
