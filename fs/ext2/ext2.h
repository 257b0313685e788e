/*
 * ext2: the second extended file system, read-write, on a disk of the
 * buffer cache (fs/buf.h, dev/disk.h).
 *
 * A mount keeps the superblock and the group descriptors in memory and
 * writes them back at sync and unmount; bitmaps, inode tables,
 * directories, indirect blocks and data live in buffers.  An in-core
 * inode is a vnode (the attributes) with an ext2_node behind v_data (the
 * rest of the on-disk inode); it exists only while referenced: the last
 * vrele writes it back and frees it, or frees the file if it has no name.
 * Nodes are found by number in a hash per mount.
 *
 * Every value read from the disk is checked before use; a bad one logs
 * a line naming the disk and gives -EUCLEAN (Linux's EFSCORRUPTED) to
 * the caller, never a crash.
 *
 * Locking: the big kernel lock, given up whenever a buffer read sleeps.
 * So: a node's contents (its block map, its size) are changed only under
 * its sleep lock (ext2_ilock), and names only under the mount's
 * namespace lock, taken before any node lock.
 */
#ifndef FS_EXT2_EXT2_H
#define FS_EXT2_EXT2_H

#include "fs/ext2/ext2_fs.h"
#include "fs/vnode.h"

struct buf;
struct ext2_ra;
struct vm_page;
struct disk;

#define EXT2_MAGIC_LINUX	0xef53		/* statfs f_type */
#define EXT2_NHASH		256		/* node hash buckets */
#define EXT2_LINK_MAX		32000		/* Linux's EXT2_LINK_MAX */

struct ext2_node {
	struct vnode *n_vnode;
	uint32_t n_ino;
	int n_flags;			/* N_* */
	/* The on-disk inode as read; the vnode's attributes override it. */
	struct ext2_dinode n_din;
	uint32_t n_lastalloc;		/* allocation goal: last block given */
	uint64_t n_nextread;		/* the page a sequential reader reads next */
	uint64_t n_lastfault;		/* the last page a fault had to read, + 1 */
	struct ext2_ra *n_ra;		/* read-ahead in flight, or NULL */
	void *n_owner;			/* the thread holding ext2_ilock */
	TAILQ_ENTRY(ext2_node) n_hash;
	TAILQ_ENTRY(ext2_node) n_cache;	/* N_CACHED: on um_cached */
};

#define N_LOCKED	0x01	/* ext2_ilock held */
#define N_LWANTED	0x02	/* somebody waits for the lock */
#define N_RECLAIM	0x04	/* being freed: ext2_vget waits */
#define N_RWANTED	0x08	/* somebody waits for the freeing to end */
#define N_CACHED	0x10	/* unreferenced, kept for its pages */

/*
 * Unreferenced regular files kept in core with their pages, so that the
 * next open finds its data cached (the page cache lives in the vnode's
 * object): at most one per EXT2_CACHEPAGES pages of RAM per mount (a
 * node costs about 400 bytes besides its pages), the least recently
 * released going first, preferably one with no dirty page among the
 * EXT2_EVICTSCAN oldest (evicting a dirty one writes it back in the
 * close that evicts it).  The pageout daemon takes their pages under
 * pressure.
 */
#define EXT2_CACHEPAGES	8
#define EXT2_EVICTSCAN	16

struct ext2_mount {
	struct mount *um_mp;
	struct disk *um_disk;
	struct ext2_super_block um_sb;	/* in-core copy */
	uint32_t um_bsize;		/* bytes per block */
	uint32_t um_secperblk;		/* DEV_BSIZE sectors per block */
	uint32_t um_nindir;		/* block numbers per indirect block */
	uint32_t um_ngroups;
	uint32_t um_ipg, um_bpg;	/* inodes, blocks per group */
	uint32_t um_isize;		/* bytes per on-disk inode */
	uint32_t um_ipb;		/* inodes per block */
	uint32_t um_firstino;		/* first non-reserved inode */
	uint32_t um_gdblock;		/* first block of group descriptors */
	uint32_t um_gdblocks;		/* blocks of group descriptors */
	struct ext2_group_desc *um_gd;	/* um_ngroups of them, in memory */
	bool um_ronly;			/* mounted read-only */
	bool um_filetype;		/* dir entries carry the type */
	bool um_dirty;			/* superblock or descriptors changed */
	bool um_wasclean;		/* clean when mounted: may say so again */
	bool um_nslocked, um_nswanted;	/* the namespace lock */
	TAILQ_HEAD(, ext2_node) um_hash[EXT2_NHASH];
	TAILQ_HEAD(, ext2_node) um_cached;	/* N_CACHED nodes, LRU first */
	uint32_t um_ncached;
};

extern const struct vfsops ext2_vfsops;
extern const struct vnops ext2_vnops;

static inline struct ext2_node *
VTON(struct vnode *vp)
{
	return vp->v_data;
}

static inline struct ext2_mount *
VFSTOUM(struct mount *mp)
{
	return mp->mnt_data;
}

static inline struct ext2_mount *
VTOUM(struct vnode *vp)
{
	return VFSTOUM(vp->v_mount);
}

/* Mount-wide (ext2_vfsops.c). */

/*
 * Logs a corruption found on um's disk (printf-style, one line) and
 * returns -EUCLEAN for the caller to pass on.
 */
int ext2_corrupt(struct ext2_mount *um, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Writes the group descriptors and the superblock into their buffers
 * (delayed); with clean, the superblock says "cleanly unmounted".
 */
int ext2_sbflush(struct ext2_mount *um, bool clean);

/* The namespace lock (sleeps). */
void ext2_nslock(struct ext2_mount *um);
void ext2_nsunlock(struct ext2_mount *um);

/* Blocks (ext2_alloc.c). */

/* Reads block bn: 0 with *bpp busy, -EUCLEAN out of range, -EIO. */
int ext2_bread(struct ext2_mount *um, uint32_t bn, struct buf **bpp);

/* The buffer of block bn, zeroed, busy, for a block just allocated. */
int ext2_bzero(struct ext2_mount *um, uint32_t bn, struct buf **bpp);

/* Is bn a block a file may point to (inside the data area)? */
bool ext2_bvalid(struct ext2_mount *um, uint32_t bn);

/* A free block, near goal if it can: 0 with *bnp, -ENOSPC, -EIO. */
int ext2_balloc(struct ext2_mount *um, uint32_t goal, uint32_t *bnp);

/* Frees block bn (checked: -EUCLEAN if not allocated or not data). */
int ext2_bfree(struct ext2_mount *um, uint32_t bn);

/*
 * A free inode for a new file in directory dir (isdir: a directory,
 * spread over the groups): 0 with *inop, -ENOSPC, -EIO.
 */
int ext2_ialloc(struct ext2_mount *um, uint32_t dir, bool isdir,
    uint32_t *inop);

/* Frees inode ino. */
int ext2_ifree(struct ext2_mount *um, uint32_t ino, bool isdir);

/* Inodes (ext2_inode.c). */

/* The vnode of inode ino, referenced: 0, -EUCLEAN, -EIO, -ENOMEM. */
int ext2_vget(struct ext2_mount *um, uint32_t ino, struct vnode **vpp);

/*
 * A new inode of va's type, mode and owner in directory dvp (times now,
 * no link yet): 0 with *vpp referenced, or an errno.
 */
int ext2_valloc(struct vnode *dvp, const struct vattr *va,
    struct vnode **vpp);

/* Copies vp's attributes into its on-disk inode (a delayed write). */
int ext2_iupdate(struct vnode *vp);

/*
 * vop_inactive: free the file if it lost its last name; else keep it
 * cached if it has pages, or write it back and free the node.
 */
void ext2_inactive(struct vnode *vp);

/*
 * Takes vp's node off the cache of unreferenced nodes, if it is there:
 * before a reference is taken on a node that may have none.
 */
void ext2_uncache(struct vnode *vp);

/* At unmount: writes back and frees every cached node. */
void ext2_uncache_all(struct ext2_mount *um);

/* The node's sleep lock. */
void ext2_ilock(struct vnode *vp);
void ext2_iunlock(struct vnode *vp);

/*
 * The lock unless the calling thread holds it already (a page fault of
 * its own read or write, which copies to a mapping of the file): true
 * if it was taken, for ext2_iunlock_cond.
 */
bool ext2_ilock_cond(struct vnode *vp);
void ext2_iunlock_cond(struct vnode *vp, bool taken);

/* File data in the page cache (ext2_pager.c). */

/* The pager of regular files' objects (vp->v_object). */
extern const struct vm_pager_ops ext2_pager_ops;

/*
 * The resident page pindex of regular file vp, read from its blocks if
 * needed (holes and the part past the end of the file read as zero);
 * with fill false, a page not resident is made zeroed without reading
 * (the caller overwrites it whole, or it lies past the end).  Under the
 * node lock.  0 with *mp, -EIO, -EUCLEAN (a bad block map), -ENOMEM.
 */
int ext2_getpage(struct vnode *vp, uint64_t pindex, bool fill,
    struct vm_page **mp);

/*
 * ext2_getpage with fill (waiting for a read-ahead in flight that has
 * the page), reading up to count pages from pindex on that
 * are not resident at once (read-ahead; at most EXT2_READAHEAD); count
 * 0 is fill false.
 */
#define EXT2_READAHEAD	32
int ext2_getpages(struct vnode *vp, uint64_t pindex, uint32_t count,
    struct vm_page **mp);

/*
 * A sequential reader just read page pindex: if pages of the next
 * EXT2_READAHEAD are missing and no read-ahead is in flight, starts
 * reading EXT2_READAHEAD pages from the first missing one, without
 * waiting, so the disk works while the reader copies.  Under the node
 * lock.
 */
void ext2_readahead(struct vnode *vp, uint64_t pindex);

/*
 * Ends vp's read-ahead in flight, if any: waits for it and puts the
 * pages read into the object (where it has none), or with discard frees
 * them.  Under the node lock; before truncating, at the last close and
 * at reclaim, and by ext2_getpages for one of its pages.
 */
void ext2_readahead_end(struct vnode *vp, bool discard);

/* Block maps (ext2_bmap.c). */

/*
 * The disk block of vp's logical block lbn: 0 with *bnp (0 for a hole),
 * or an errno.  With alloc, fills a hole (and the indirect blocks on
 * the way) with zeroed blocks; *newp tells whether the block is new.
 */
int ext2_bmap(struct vnode *vp, uint64_t lbn, bool alloc, uint32_t *bnp,
    bool *newp);

/* Frees vp's blocks past size bytes and sets its size. */
int ext2_truncate(struct vnode *vp, uint64_t size);

/* The largest file size the block size allows. */
uint64_t ext2_maxfilesize(struct ext2_mount *um);

/* Directories (ext2_dir.c). */

/* The inode number of entry name in dvp (0 if none), or an errno. */
int ext2_dirlookup(struct vnode *dvp, const char *name, uint32_t *inop);

/* Adds name -> ino (of type type) to dvp; -EEXIST if the name is there. */
int ext2_direnter(struct vnode *dvp, const char *name, uint32_t ino,
    enum vtype type);

/* Removes entry name from dvp. */
int ext2_dirremove(struct vnode *dvp, const char *name);

/* Points the existing entry name of dvp at ino (type type). */
int ext2_dirrewrite(struct vnode *dvp, const char *name, uint32_t ino,
    enum vtype type);

/* Writes the first block of new directory vp: "." and ".." (parent). */
int ext2_dirinit(struct vnode *vp, uint32_t parent);

/* 1 if directory vp holds only "." and "..", 0 if not, or an errno. */
int ext2_dirempty(struct vnode *vp);

/* vop_readdir: cookies are byte offsets in the directory. */
int ext2_readdir(struct vnode *vp, struct uio *uio);

#endif /* FS_EXT2_EXT2_H */
