/*
 * The page cache: one vm_object per regular file (vnode_pager.c).
 *
 * A file's pages live in its vnode's v_object, indexed by file offset in
 * pages.  The file system makes the object with its own pager (getpage
 * reads a page through its block map, putpage writes one back) and
 * serves read(2) and write(2) from those pages, so read, write and every
 * mapping see the same memory.  A file system that makes none gets a
 * generic object at the first mmap, whose pager goes through vop_read
 * and vop_write (see vnode_pager.c for what that does not give).
 *
 * References: the vnode owns the object's first reference (dropped at
 * reclaim, vnode_pager_free); every other holder (a map entry, a shadow
 * object) also holds the vnode, so a mapped file is never reclaimed.
 *
 * Dirty pages: a page changed by write(2) or through a writable mapping
 * has PGX_DIRTY (vm_object_page_dirty) and its object OBJ_MIGHTBEDIRTY.
 * Shared mappings of file pages are entered read-only until a write
 * faults, and write-protected again when cleaned, so every change of a
 * clean page goes through the kernel: the article's way of catching a
 * write to a page being written back.
 */
#ifndef FS_VNODE_PAGER_H
#define FS_VNODE_PAGER_H

#include <stdbool.h>
#include <stdint.h>

struct vnode;
struct vm_object;
struct vm_pager_ops;
struct vm_page;

/*
 * For the file system: makes vp->v_object, the file's page cache, with
 * pager ops (handle: vp).  0 or -ENOMEM.
 */
int vnode_pager_setup(struct vnode *vp, const struct vm_pager_ops *ops);

/*
 * Every file system's pager ops name these as reference and release:
 * each reference to the object beyond the vnode's own holds the vnode.
 */
void vnode_pager_reference(struct vm_object *obj);
void vnode_pager_release(struct vm_object *obj);

/*
 * For a pager's putpage, under the lock that keeps the page in its
 * object, just before writing page m: false if m is clean (nothing to
 * write); else m is write-protected in every mapping and marked clean,
 * so that a write from now on dirties it again, and true.
 */
bool vnode_pager_cleaning(struct vm_page *m);

/*
 * vp's page-cache object (made with the generic pager if its file system
 * made none), with a new reference for the caller (which also holds vp
 * until it drops it); NULL if RAM is short.  For mmap.
 */
struct vm_object *vnode_pager_alloc(struct vnode *vp);

/*
 * At reclaim (vnode_free): frees vp's object and its pages, which must be
 * mapped nowhere (they are not: a mapping holds vp).  Dirty pages are
 * lost: the file system cleaned them first if they mattered.
 */
void vnode_pager_free(struct vnode *vp);

/* vnode_pager_clean's flags */
#define VPC_INVAL	0x0001	/* then drop the pages (they stay if busy
				 * writing failed) */
#define VPC_ALL		0x0002	/* the whole file: clears OBJ_MIGHTBEDIRTY */

/*
 * Writes back the dirty pages of vp's object with indices in [start,
 * end), in index order through its pager's putpage (which write-protects
 * each in every mapping first, vnode_pager_cleaning, so that a later
 * write marks it dirty again).
 * VPC_INVAL then takes the range's pages out of every mapping and frees
 * them.  Allocates nothing (it is what frees memory).  Sleeps.  0 or the
 * first error (the other pages are still written).
 */
int vnode_pager_clean(struct vnode *vp, uint64_t start, uint64_t end,
    int flags);

/*
 * Truncation: takes the pages of vp wholly past size bytes out of every
 * mapping and frees them, dirty or not, and zeroes the part past size of
 * the page that holds it, if resident, so that mappings and a later
 * extension see zeros there.  The private copies of those pages (the
 * shadows in front of the object) go too, as Linux's.
 */
void vnode_pager_setsize(struct vnode *vp, uint64_t size);

/*
 * A hole punched in vp: its pages [first, last) leave every mapping and
 * are freed, dirty or not (the file system gives up their storage).
 */
void vnode_pager_punch(struct vnode *vp, uint64_t first, uint64_t last);

/* Whether vp's object may hold dirty pages (for sync's walk). */
bool vnode_pager_dirty(struct vnode *vp);

#endif /* FS_VNODE_PAGER_H */
