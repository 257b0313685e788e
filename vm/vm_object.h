/*
 * Memory objects: what a map entry maps.  An object holds resident pages
 * by page index; its pager (vm_pager.h) says where other pages come from.
 *
 * Anonymous objects (OBJT_ANON) hold memory no file backs.  A private
 * entry writes into an anonymous object of its own; after fork, both
 * sides share the old object read-only, and the first write of either
 * side puts a *shadow* object in front of its entry's object: a new
 * anonymous object whose missing pages are looked up in the one behind
 * it (the backing object), and which receives the copies that side
 * writes.  A shadow has the same page indices as its backing object.
 * When an object is referenced only by the one shadow in front of it,
 * the two are merged (collapse), so chains stay as long as the number of
 * live processes that still share an ancestor's pages, not the number of
 * forks.
 *
 * Objects of files (OBJT_VNODE) are created by the file system with its
 * pager; their index is the file offset in pages.
 *
 * Locking: the big kernel lock.
 */
#ifndef VM_VM_OBJECT_H
#define VM_VM_OBJECT_H

#include <sys/queue.h>

#include "kern/vm_page.h"
#include "vm/vm_pager.h"

enum vm_object_type {
	OBJT_ANON,		/* anonymous memory: zero-fill, no store */
	OBJT_VNODE,		/* a file's pages; pager from the file system */
};

struct vm_object {
	int ref_count;		/* map entries, shadows, and other holders */
	int shadow_count;	/* objects whose backing object this is */
	uint16_t type;		/* enum vm_object_type */
	uint16_t flags;		/* OBJ_* */
	uint32_t hash_shift;	/* 64 - log2 of the number of buckets */
	uint64_t resident_page_count;
	struct vm_object *backing_object;	/* referenced; NULL at the end */
	LIST_HEAD(, vm_object) shadow_head;	/* objects that shadow this */
	LIST_ENTRY(vm_object) shadow_list;	/* on backing_object's list */
	const struct vm_pager_ops *pager;
	void *handle;		/* the pager's: a vnode, or NULL */
	TAILQ_ENTRY(vm_object) object_list;	/* OBJT_VNODE: on vm_file_objects */
	uint32_t *buckets;	/* page frames heading the hash chains */
	uint32_t inline_buckets[4];	/* the buckets of a small object */
};

/*
 * One-mapping: an anonymous object of a private mapping whose every page
 * index is reachable through at most one place of one map (the entries
 * that reference it belong to one map and cover disjoint indices).  Then
 * unmapping a range can free the object's pages in it.  Set for the
 * object of a private anonymous entry; cleared when another map shares
 * the object (fork) or it becomes a backing object.
 */
#define OBJ_ONEMAPPING	0x0001

/*
 * Might-be-dirty: a page of this (file) object was written (write(2) or a
 * write fault) since its last full cleaning; sync's walk skips objects
 * without it.
 */
#define OBJ_MIGHTBEDIRTY	0x0002

/* Every file's object, for the pageout daemon (vm_pageout.c). */
TAILQ_HEAD(vm_objectq, vm_object);
extern struct vm_objectq vm_file_objects;

/* Sets up the object cache; vm_init calls it. */
void vm_object_init(void);

/* A new anonymous object, referenced once; NULL if RAM is short. */
struct vm_object *vm_object_allocate_anon(void);

/*
 * A new object for a file (handle: its vnode) whose pages come from ops,
 * referenced once; NULL if RAM is short.  For the file system.
 */
struct vm_object *vm_object_allocate_vnode(const struct vm_pager_ops *ops,
    void *handle);

/* Takes another reference to obj. */
void vm_object_reference(struct vm_object *obj);

/*
 * Drops a reference to obj.  The last one frees its pages (none may be
 * mapped any more: the caller removed its mappings first), tells its
 * pager, and drops its reference to its backing object.  When only the
 * shadow in front of obj is left referencing it, the two collapse.
 */
void vm_object_deallocate(struct vm_object *obj);

/* The resident page of obj at pindex, or NULL. */
struct vm_page *vm_object_page_lookup(struct vm_object *obj, uint64_t pindex);

/*
 * Makes page m (allocated, in no object) obj's page at pindex, where obj
 * has none.  Never fails: a hash table that cannot grow just gets longer
 * chains.
 */
void vm_object_page_insert(struct vm_object *obj, struct vm_page *m,
    uint64_t pindex);

/*
 * A new page of obj at pindex (where obj has none), zeroed if zero is
 * true; NULL if RAM is short.
 */
struct vm_page *vm_object_page_alloc(struct vm_object *obj, uint64_t pindex,
    bool zero);

/*
 * Frees obj's resident pages with indices in [start, end).  They must not
 * be mapped (panics otherwise: a broken invariant).  Costs the smaller of
 * the range and the object's resident pages.
 */
void vm_object_page_remove(struct vm_object *obj, uint64_t start,
    uint64_t end);

/*
 * A file shrank to start pages: the private copies of its pages from
 * start on, in every shadow in front of file object obj (the copy-on-write
 * pages of private mappings, in every process), leave every mapping and
 * are freed, as Linux's truncation zaps private copies past the end too.
 * A later touch reads the file there (SIGBUS, or zeros once it grew).
 */
void vm_object_shadows_truncate(struct vm_object *obj, uint64_t start);

/*
 * Frees page m of its object; it must be mapped nowhere (panics
 * otherwise).
 */
void vm_object_page_free(struct vm_page *m);

/*
 * Calls fn(obj, m, arg) for every resident page of obj with an index in
 * [start, end), in no particular order; fn may take m out of obj.
 */
void vm_object_foreach(struct vm_object *obj, uint64_t start, uint64_t end,
    void (*fn)(struct vm_object *, struct vm_page *, void *), void *arg);

/*
 * Marks file page m changed (PGX_DIRTY) and its object might-be-dirty,
 * for write(2) and write faults of shared mappings.
 */
void vm_object_page_dirty(struct vm_page *m);

/* True if obj itself (not its backing objects) has no page in [start, end). */
bool vm_object_range_empty(struct vm_object *obj, uint64_t start,
    uint64_t end);

/*
 * Before the first write through a copy-on-write entry whose object
 * *objp other holders share: puts a new anonymous shadow in front of it
 * and makes *objp the shadow (the entry's reference moves to it).  An
 * anonymous object of which the caller's entry holds the only reference
 * needs no shadow and is left in place.  Returns 0, or -ENOMEM with
 * nothing changed.
 */
int vm_object_shadow(struct vm_object **objp);

#endif /* VM_VM_OBJECT_H */
