/*
 * tmpfs: a file system in RAM.
 *
 * Every node is a vnode (the attributes) with a tmpfs_node behind v_data
 * (the contents).  A node lives while it has a name (v_nlink > 0) or a
 * reference; the last vrele of an unlinked node frees it.
 *
 * Directories are lists of entries in creation order, each with a cookie
 * that never changes and is never reused in that directory, so readdir
 * offsets stay valid across insertions and removals.  Regular files keep
 * their data in pages from the page allocator, found through a radix tree
 * of page-table-like pages (512 physical addresses each); a hole is a 0
 * entry and reads as zeros.
 *
 * Locking: the big kernel lock; nothing here sleeps.
 */
#ifndef FS_TMPFS_TMPFS_H
#define FS_TMPFS_TMPFS_H

#include "fs/vnode.h"

#define TMPFS_MAGIC	0x01021994	/* Linux's statfs f_type */
#define TMPFS_RADIX_SHIFT 9		/* 512 entries per tree page */
#define TMPFS_MAXHEIGHT	4		/* 2^36 pages: 256 TiB files */
#define TMPFS_MAXFILESIZE ((uint64_t)PAGE_SIZE << (TMPFS_RADIX_SHIFT * TMPFS_MAXHEIGHT))

/* The first cookie of a real entry: 0 is ".", 1 is "..". */
#define TMPFS_COOKIE_FIRST 2

struct tmpfs_dirent {
	TAILQ_ENTRY(tmpfs_dirent) td_link;
	uint64_t td_cookie;
	struct vnode *td_vnode;
	uint16_t td_namelen;
	char td_name[];		/* NUL-terminated */
};

struct tmpfs_node {
	union {
		struct {			/* VDIR */
			TAILQ_HEAD(, tmpfs_dirent) tn_dirents;
			uint64_t tn_nextcookie;
			struct vnode *tn_parent;	/* itself for the root */
			bool tn_dead;		/* removed: holds tn_parent */
		};
		struct {			/* VREG */
			uint64_t tn_radix;	/* tree root (physical), 0: empty */
			int tn_height;		/* levels: 512^height pages;
						 * 0: tn_radix is page 0 */
		};
		char *tn_link;			/* VLNK: target, kmalloc'd */
	};
};

struct tmpfs_mount {
	uint64_t tm_pages_max;
	uint64_t tm_pages_used;	/* data and tree pages */
	uint64_t tm_nodes;
};

extern const struct vfsops tmpfs_vfsops;
extern const struct vnops tmpfs_vnops;

static inline struct tmpfs_node *
VTOTN(struct vnode *vp)
{
	return vp->v_data;
}

static inline struct tmpfs_mount *
VFSTOTM(struct mount *mp)
{
	return mp->mnt_data;
}

/* Nodes and entries (tmpfs_subr.c). */

/*
 * A new node of type va->va_type with va's mode, owner and rdev, times
 * now, v_nlink 0 (the caller links it), one reference.  A directory's
 * parent is dvp (itself if NULL).  Returns 0 or -ENOMEM, -ENOSPC.
 */
int tmpfs_node_alloc(struct mount *mp, const struct vattr *va,
    struct vnode *dvp, const char *link, struct vnode **vpp);

/* Frees node vp and its contents (it has no references and no names). */
void tmpfs_node_free(struct vnode *vp);

/* The entry called name in directory dvp, or NULL. */
struct tmpfs_dirent *tmpfs_dir_lookup(struct vnode *dvp, const char *name);

/* A new entry name -> vp, not yet in a directory; NULL if out of memory. */
struct tmpfs_dirent *tmpfs_dirent_alloc(const char *name, struct vnode *vp);

/* Appends de to dvp with a fresh cookie; updates dvp's size and times. */
void tmpfs_dir_attach(struct vnode *dvp, struct tmpfs_dirent *de);

/* Removes de from dvp and frees it; updates dvp's size and times. */
void tmpfs_dir_detach(struct vnode *dvp, struct tmpfs_dirent *de);

/* File data (tmpfs_subr.c). */

/*
 * The physical address of page pindex of regular file vp, or 0 for a
 * hole.  With alloc, fills the hole with a zeroed page (-ENOSPC when the
 * mount or RAM is full).
 */
int tmpfs_getpage(struct vnode *vp, uint64_t pindex, bool alloc,
    uint64_t *pap);

/*
 * Sets the size of regular file vp: frees pages wholly past it and zeros
 * the tail of the last one.  -EFBIG past TMPFS_MAXFILESIZE.
 */
int tmpfs_truncate(struct vnode *vp, uint64_t size);

#endif /* FS_TMPFS_TMPFS_H */
