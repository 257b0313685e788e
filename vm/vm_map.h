/*
 * vm_map: what each range of an address space promises.  A map is a
 * sorted set of entries: [start, end), protection and its ceiling, flags
 * (private or shared, what fork does, a stack), and the object (plus
 * byte offset of start in it) whose pages it shows.  An anonymous entry has no object until its first
 * fault.
 *
 * Entries are both on a list in address order (the map's header entry
 * closes the ring, with end = the map's lowest address and start = its
 * highest) and in an AVL tree keyed by start, for O(log n) lookup.  Each
 * tree node also knows the largest free gap below any entry of its
 * subtree, so finding space, first fit bottom-up or top-down, is O(log n)
 * too.  The gap below a MAP_GROWSDOWN entry leaves VM_STACK_GUARD free
 * for the stack to grow into, as Linux's stack_guard_gap does.
 *
 * Adjacent entries that promise the same are merged whenever a change
 * makes them so (see vm_map_simplify), so a map stays as small as Linux's
 * list of VMAs for the same calls.
 *
 * Locking: the big kernel lock.
 */
#ifndef VM_VM_MAP_H
#define VM_VM_MAP_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/vm_page.h"

struct pmap;
struct vm_object;

struct vm_map_entry {
	struct vm_map_entry *prev, *next;	/* address order, ring */
	struct vm_map_entry *left, *right, *parent;	/* the AVL tree */
	uint64_t max_free;	/* largest gap below an entry of the subtree */
	int height;		/* of the subtree */
	uint64_t start, end;	/* page aligned */
	struct vm_object *object;	/* referenced, or NULL: no pages yet */
	uint64_t offset;	/* byte offset of start in object */
	uint8_t protection;	/* VM_PROT_* */
	uint8_t max_protection;	/* what mprotect may grant */
	uint16_t eflags;	/* MAP_ENTRY_* */
	/*
	 * What /proc/PID/maps calls a special mapping ("[vdso]", "[vvar]"):
	 * a string that outlives the entry, or NULL.  Set by
	 * vm_map_set_name; entries merge only with one of the same name.
	 */
	const char *name;
};

/* eflags */
#define MAP_ENTRY_COW		0x0001	/* private: writes never reach a shared
					 * object (absent: MAP_SHARED) */
#define MAP_ENTRY_NEEDS_COPY	0x0002	/* the object is shared with another
					 * map: shadow it before a write */
#define MAP_ENTRY_GROWSDOWN	0x0004	/* a stack that faults extend down */
/*
 * What fork does (Linux's madvise flags): a private entry is copied
 * (copy-on-write), a shared one shared, unless
 */
#define MAP_ENTRY_DONTFORK	0x0008	/* the child does not get it at all */
#define MAP_ENTRY_WIPEONFORK	0x0010	/* the child gets it empty (private) */

/* The gap kept free below a stack: Linux's stack_guard_gap. */
#define VM_STACK_GUARD		(256 * PAGE_SIZE)

struct vm_map {
	struct vm_map_entry header;	/* ring head; end = min, start = max */
	struct vm_map_entry *root;
	struct vm_map_entry *spare[2];	/* for splits that must not fail */
	struct pmap *pmap;
	uint64_t nentries;
	uint64_t size;			/* bytes mapped */
	uint32_t timestamp;		/* changes at every change of the map */
};

/* The lowest and highest address a map may use. */
static inline uint64_t vm_map_min(const struct vm_map *map) { return map->header.end; }
static inline uint64_t vm_map_max(const struct vm_map *map) { return map->header.start; }

/* The first entry and the end of the ring. */
#define VM_MAP_FIRST(map)	((map)->header.next)
#define VM_MAP_END(map)		(&(map)->header)

/* The page index in e's object of address va in e. */
static inline uint64_t
vm_map_entry_pindex(const struct vm_map_entry *e, uint64_t va)
{
	return (e->offset + (va - e->start)) >> PAGE_SHIFT;
}

/* Sets up the entry cache; vm_init calls it. */
void vm_map_init_cache(void);

/* An empty map of [min, max) whose mappings pmap keeps. */
void vm_map_init(struct vm_map *map, struct pmap *pmap, uint64_t min,
    uint64_t max);

/* Frees an empty map's spare entries. */
void vm_map_fini(struct vm_map *map);

/*
 * If addr lies in an entry, sets *entry to it and returns true; else sets
 * *entry to the last entry below addr (the header if none) and returns
 * false.
 */
bool vm_map_lookup_entry(struct vm_map *map, uint64_t addr,
    struct vm_map_entry **entry);

/*
 * Finds len free bytes (page multiple) within [lo, hi) of the map: the
 * lowest such address if !topdown, the highest if topdown.  Gaps below
 * MAP_GROWSDOWN entries keep their guard.  Returns 0 with *addr, or
 * -ENOMEM.
 */
int vm_map_findspace(struct vm_map *map, uint64_t lo, uint64_t hi,
    uint64_t len, bool topdown, uint64_t *addr);

/* True if no entry intersects [start, end). */
bool vm_map_range_free(struct vm_map *map, uint64_t start, uint64_t end);

/*
 * True if [start, end) lies in the map, is free and keeps clear of the
 * guard gap below a MAP_GROWSDOWN entry above it (where a hint may go).
 */
bool vm_map_fits(struct vm_map *map, uint64_t start, uint64_t end);

/*
 * Maps [start, end), which must be free, to obj at byte offset off
 * (obj NULL: anonymous, no pages yet), taking over the caller's reference
 * to obj, and merges it with its neighbours if they promise the same.
 * Returns 0 or -ENOMEM (the caller keeps its reference).
 */
int vm_map_insert(struct vm_map *map, uint64_t start, uint64_t end,
    struct vm_object *obj, uint64_t off, int prot, int maxprot, int eflags);

/*
 * Splits the entries that straddle start or end, so that every entry
 * meeting [start, end) lies inside it.  Returns 0, or -ENOMEM with
 * nothing changed (only if an entry straddles one of them): RAM is short,
 * or the map would have more than VM_MAX_MAP_COUNT entries.
 */
int vm_map_clip(struct vm_map *map, uint64_t start, uint64_t end);

/*
 * Removes every mapping in [start, end): splits the entries at its ends,
 * removes the range from the pmap (one host invalidation), frees the
 * pages only these entries could reach and drops their objects.  Returns
 * 0, or -ENOMEM with nothing changed (only if an entry straddles start or
 * end: removing everything cannot fail).
 */
int vm_map_delete(struct vm_map *map, uint64_t start, uint64_t end);

/*
 * Merges the entries meeting [start, end], and their outer neighbours,
 * with their neighbours wherever they promise the same: same protections
 * and flags, and either the same object at contiguous offsets
 * or no object yet beside an anonymous object nothing else references and
 * that has no pages there.
 */
void vm_map_simplify(struct vm_map *map, uint64_t start, uint64_t end);

/*
 * Replaces e's object by obj at offset off (either may be NULL), taking
 * over the caller's reference to obj and dropping e's reference to the
 * old one; marks the map changed.
 */
void vm_map_entry_set_object(struct vm_map *map, struct vm_map_entry *e,
    struct vm_object *obj, uint64_t off);

/*
 * Notes that e's protection or flags changed (they are the caller's to
 * set): the gaps depend on MAP_ENTRY_GROWSDOWN, and vm_fault restarts
 * when the map changed under it.
 */
void vm_map_entry_changed(struct vm_map *map, struct vm_map_entry *e);

/*
 * Moves entry e, whose new place [to, to + its length) is free, there
 * with its object and offset (its pages' mappings are the caller's).
 * No merging: the caller simplifies when it is done.
 */
void vm_map_entry_move(struct vm_map *map, struct vm_map_entry *e,
    uint64_t to);

/*
 * Extends e up to end (the range above e must be free): it shows more of
 * its object at the following offsets.  The caller knows that is right.
 */
void vm_map_entry_grow(struct vm_map *map, struct vm_map_entry *e,
    uint64_t end);

/*
 * The file whose pages e shows (the bottom of its object chain if that
 * is a file's object), or NULL for anonymous memory.
 */
struct vm_object *vm_map_entry_file(const struct vm_map_entry *e);

/*
 * Names the entries of [start, end) for /proc/PID/maps (name: a string
 * that outlives the map, e.g. "[vdso]"; NULL for none).  Returns 0,
 * -ENOMEM (RAM short to split) or -EFAULT if a part is not mapped.
 */
int vm_map_set_name(struct vm_map *map, uint64_t start, uint64_t end,
    const char *name);

#endif /* VM_VM_MAP_H */
