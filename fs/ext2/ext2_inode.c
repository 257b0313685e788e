/*
 * ext2 inodes in core: reading one from its inode table into a vnode
 * (checking every field), writing the vnode's attributes back, making new
 * inodes, and the end of a vnode's life.
 */
#include "dev/disk.h"
#include "fs/buf.h"
#include "fs/ext2/ext2.h"
#include "fs/stat.h"
#include "fs/vnode_pager.h"
#include "vm/vm_object.h"
#include "kern/vm_page.h"
#include "kern/thread.h"
#include "kern/kmem.h"

/* Bytes of the on-disk inode we read and write: the rest is kept as is. */
static size_t
inode_bytes(struct ext2_mount *um, const struct ext2_dinode *din)
{
	if (um->um_isize == EXT2_GOOD_OLD_INODE_SIZE)
		return EXT2_GOOD_OLD_INODE_SIZE;
	size_t extra = MIN(din->i_extra_isize,
	    sizeof(struct ext2_dinode) - EXT2_GOOD_OLD_INODE_SIZE);
	return EXT2_GOOD_OLD_INODE_SIZE + (extra & ~3u);
}

/* Does the inode's extra space reach the end of field ending at end? */
static bool
has_extra(struct ext2_mount *um, const struct ext2_dinode *din, size_t end)
{
	return inode_bytes(um, din) >= end;
}

#define EXTRA_END(f)	(offsetof(struct ext2_dinode, f) + sizeof(uint32_t))

/* A disk time (seconds, and the extra word if there is one) to a timespec. */
static struct timespec
time_in(uint32_t sec, const uint32_t *extra)
{
	struct timespec ts = { .tv_sec = (int32_t)sec };
	if (extra != NULL) {
		ts.tv_sec += (int64_t)(*extra & 3) << 32;
		ts.tv_nsec = MIN(*extra >> 2, 999999999u);
	}
	return ts;
}

static void
time_out(struct timespec ts, uint32_t *sec, uint32_t *extra)
{
	*sec = (uint32_t)ts.tv_sec;
	if (extra != NULL)
		*extra = (uint32_t)(((ts.tv_sec - (int32_t)*sec) >> 32) & 3) |
		    ((uint32_t)ts.tv_nsec << 2);
}

/* Where inode ino lives: its table block and byte offset in it. */
static void
inode_where(struct ext2_mount *um, uint32_t ino, uint32_t *bnp, size_t *offp)
{
	uint32_t g = (ino - 1) / um->um_ipg, idx = (ino - 1) % um->um_ipg;
	*bnp = um->um_gd[g].bg_inode_table + idx / um->um_ipb;
	*offp = (size_t)(idx % um->um_ipb) * um->um_isize;
}

static struct ext2_node *
hash_find(struct ext2_mount *um, uint32_t ino)
{
	struct ext2_node *n;
	TAILQ_FOREACH(n, &um->um_hash[ino % EXT2_NHASH], n_hash)
		if (n->n_ino == ino)
			return n;
	return NULL;
}

/* Is this (fast) symlink's target kept in i_block? */
static bool
fast_symlink(struct ext2_mount *um, const struct ext2_dinode *din)
{
	uint32_t acl = din->i_file_acl != 0 ? um->um_secperblk : 0;
	return din->i_blocks == acl;
}

/* Checks a freshly read inode and fills vp from it. */
static int
inode_load(struct ext2_mount *um, uint32_t ino, const struct ext2_dinode *din,
    struct vnode *vp)
{
	enum vtype type = ifmt_to_vtype(din->i_mode);

	if (din->i_links_count == 0 || type == VNON)
		return ext2_corrupt(um, "inode %u: deleted or no type, yet named",
		    ino);
	if (din->i_flags & EXT4_EXTENTS_FL)
		return ext2_corrupt(um, "inode %u: uses extents (ext4)", ino);
	vp->v_type = type;
	vp->v_mode = din->i_mode & 07777;
	vp->v_uid = din->i_uid | (uint32_t)din->i_uid_high << 16;
	vp->v_gid = din->i_gid | (uint32_t)din->i_gid_high << 16;
	vp->v_nlink = din->i_links_count;
	vp->v_size = din->i_size;
	if (type == VREG)
		vp->v_size |= (uint64_t)din->i_size_high << 32;
	vp->v_blocks = din->i_blocks;
	vp->v_atime = time_in(din->i_atime, has_extra(um, din,
	    EXTRA_END(i_atime_extra)) ? &din->i_atime_extra : NULL);
	vp->v_mtime = time_in(din->i_mtime, has_extra(um, din,
	    EXTRA_END(i_mtime_extra)) ? &din->i_mtime_extra : NULL);
	vp->v_ctime = time_in(din->i_ctime, has_extra(um, din,
	    EXTRA_END(i_ctime_extra)) ? &din->i_ctime_extra : NULL);
	vp->v_ino = ino;

	switch (type) {
	case VCHR:
	case VBLK:
		if (din->i_block[0] != 0) {
			uint32_t d = din->i_block[0];
			vp->v_rdev = linux_makedev((d >> 8) & 0xff, d & 0xff);
		} else {
			uint32_t d = din->i_block[1];
			vp->v_rdev = linux_makedev((d >> 8) & 0xfff,
			    (d & 0xff) | ((d >> 12) & 0xfff00));
		}
		break;
	case VDIR:
		if (vp->v_size % um->um_bsize != 0 || vp->v_size == 0)
			return ext2_corrupt(um, "directory %u: size %llu",
			    ino, (unsigned long long)vp->v_size);
		/* FALLTHROUGH */
	case VREG:
		if (vp->v_size > ext2_maxfilesize(um))
			return ext2_corrupt(um, "inode %u: size %llu too large",
			    ino, (unsigned long long)vp->v_size);
		break;
	case VLNK:
		if (vp->v_size == 0 || vp->v_size >= um->um_bsize ||
		    vp->v_size >= PATH_MAX ||
		    (fast_symlink(um, din) && vp->v_size > EXT2_FAST_SYMLINK_MAX))
			return ext2_corrupt(um, "symlink %u: bad length %llu", ino,
			    (unsigned long long)vp->v_size);
		break;
	default:
		break;
	}
	return 0;
}

/* A vnode and node for inode ino, in the hash; NULL if memory is short. */
static struct vnode *
node_alloc(struct ext2_mount *um, uint32_t ino, enum vtype type)
{
	struct ext2_node *n = kmalloc(sizeof(*n), KM_ZERO);
	if (n == NULL)
		return NULL;
	struct vnode *vp = vnode_alloc(um->um_mp, type, &ext2_vnops);
	if (vp == NULL) {
		kfree(n);
		return NULL;
	}
	vp->v_data = n;
	vp->v_ino = ino;
	n->n_vnode = vp;
	n->n_ino = ino;
	TAILQ_INSERT_HEAD(&um->um_hash[ino % EXT2_NHASH], n, n_hash);
	return vp;
}

static void
node_free(struct vnode *vp)
{
	struct ext2_node *n = VTON(vp);

	TAILQ_REMOVE(&VTOUM(vp)->um_hash[n->n_ino % EXT2_NHASH], n, n_hash);
	if (n->n_flags & N_RWANTED)
		wakeup(n);
	if (vp->v_object != NULL)
		ext2_readahead_end(vp, true);
	kfree(n->n_ra);
	vp->v_usecount = 0;
	vnode_free(vp);
	kfree(n);
}

int
ext2_vget(struct ext2_mount *um, uint32_t ino, struct vnode **vpp)
{
	struct ext2_node *n;
	struct buf *bp;
	int error;

	if (ino == 0 || ino > um->um_sb.s_inodes_count ||
	    (ino < um->um_firstino && ino != EXT2_ROOT_INO))
		return ext2_corrupt(um, "inode number %u out of range", ino);
again:
	if ((n = hash_find(um, ino)) != NULL) {
		if (n->n_flags & N_RECLAIM) {
			n->n_flags |= N_RWANTED;
			tsleep(n, 0, "ext2rcl", 0);
			goto again;
		}
		ext2_uncache(n->n_vnode);
		*vpp = vref(n->n_vnode);
		return 0;
	}
	uint32_t bn;
	size_t off;
	inode_where(um, ino, &bn, &off);
	if ((error = ext2_bread(um, bn, &bp)) < 0)
		return error;
	/* The read slept: somebody else may have loaded it meanwhile. */
	if (hash_find(um, ino) != NULL) {
		brelse(bp);
		goto again;
	}
	struct ext2_dinode din = { 0 };
	memcpy(&din, (char *)bp->b_data + off, EXT2_GOOD_OLD_INODE_SIZE);
	memcpy(&din, (char *)bp->b_data + off, inode_bytes(um, &din));
	brelse(bp);

	struct vnode *vp = node_alloc(um, ino, VNON);
	if (vp == NULL)
		return -ENOMEM;
	VTON(vp)->n_din = din;
	if ((error = inode_load(um, ino, &din, vp)) < 0) {
		node_free(vp);
		return error;
	}
	if (vp->v_type == VREG && vnode_pager_setup(vp, &ext2_pager_ops) < 0) {
		node_free(vp);
		return -ENOMEM;
	}
	if (ino == EXT2_ROOT_INO)
		vp->v_flags |= VROOT;
	*vpp = vp;
	return 0;
}

int
ext2_valloc(struct vnode *dvp, const struct vattr *va, struct vnode **vpp)
{
	struct ext2_mount *um = VTOUM(dvp);
	uint32_t ino, bn;
	size_t off;
	struct buf *bp;
	int error;

	if ((error = ext2_ialloc(um, VTON(dvp)->n_ino, va->va_type == VDIR,
	    &ino)) < 0)
		return error;
	inode_where(um, ino, &bn, &off);
	if ((error = ext2_bread(um, bn, &bp)) < 0)
		goto fail;
	if (hash_find(um, ino) != NULL) {
		/* A free inode in use in core: the bitmap lied. */
		brelse(bp);
		error = ext2_corrupt(um, "inode %u: free in the bitmap, in use",
		    ino);
		goto fail;
	}
	struct ext2_dinode *old = (void *)((char *)bp->b_data + off);
	uint32_t gen = old->i_generation + 1;
	/* A fresh inode: in-inode attributes of a former life go too. */
	memset(old, 0, um->um_isize);
	bdwrite(bp);

	struct vnode *vp = node_alloc(um, ino, va->va_type);
	if (vp != NULL && vp->v_type == VREG &&
	    vnode_pager_setup(vp, &ext2_pager_ops) < 0) {
		node_free(vp);
		vp = NULL;
	}
	if (vp == NULL) {
		error = -ENOMEM;
		goto fail;
	}
	struct ext2_dinode *din = &VTON(vp)->n_din;
	din->i_generation = gen;
	if (um->um_isize >= sizeof(struct ext2_dinode))
		din->i_extra_isize = EXT2_EXTRA_ISIZE;
	vp->v_mode = va->va_mode & 07777;
	vp->v_uid = va->va_uid;
	vp->v_gid = va->va_gid;
	if (va->va_type == VCHR || va->va_type == VBLK) {
		uint32_t maj = linux_major(va->va_rdev);
		uint32_t min = linux_minor(va->va_rdev);
		vp->v_rdev = va->va_rdev;
		/* The old 16-bit encoding when it fits, as Linux. */
		if (maj < 256 && min < 256)
			din->i_block[0] = maj << 8 | min;
		else
			din->i_block[1] = (min & 0xff) | (maj << 8) |
			    ((min & ~0xffu) << 12);
	}
	vfs_timestamp(&vp->v_atime);
	vp->v_mtime = vp->v_ctime = vp->v_atime;
	time_out(vp->v_ctime, &din->i_crtime, &din->i_crtime_extra);
	*vpp = vp;
	return 0;
fail:
	ext2_ifree(um, ino, va->va_type == VDIR);
	return error;
}

int
ext2_iupdate(struct vnode *vp)
{
	struct ext2_mount *um = VTOUM(vp);
	struct ext2_node *n = VTON(vp);
	struct ext2_dinode *din = &n->n_din;
	struct buf *bp;
	uint32_t bn;
	size_t off;
	int error;

	if (um->um_ronly)
		return 0;
	din->i_mode = (uint16_t)(vtype_to_ifmt(vp->v_type) | (vp->v_mode & 07777));
	din->i_uid = (uint16_t)vp->v_uid;
	din->i_uid_high = (uint16_t)(vp->v_uid >> 16);
	din->i_gid = (uint16_t)vp->v_gid;
	din->i_gid_high = (uint16_t)(vp->v_gid >> 16);
	din->i_links_count = (uint16_t)vp->v_nlink;
	din->i_size = (uint32_t)vp->v_size;
	if (vp->v_type == VREG) {
		din->i_size_high = (uint32_t)(vp->v_size >> 32);
		if (vp->v_size > INT32_MAX && !(um->um_sb.s_feature_ro_compat &
		    EXT2_FEATURE_RO_COMPAT_LARGE_FILE)) {
			um->um_sb.s_feature_ro_compat |=
			    EXT2_FEATURE_RO_COMPAT_LARGE_FILE;
			um->um_dirty = true;
		}
	}
	din->i_blocks = (uint32_t)vp->v_blocks;
	time_out(vp->v_atime, &din->i_atime, has_extra(um, din,
	    EXTRA_END(i_atime_extra)) ? &din->i_atime_extra : NULL);
	time_out(vp->v_mtime, &din->i_mtime, has_extra(um, din,
	    EXTRA_END(i_mtime_extra)) ? &din->i_mtime_extra : NULL);
	time_out(vp->v_ctime, &din->i_ctime, has_extra(um, din,
	    EXTRA_END(i_ctime_extra)) ? &din->i_ctime_extra : NULL);

	inode_where(um, n->n_ino, &bn, &off);
	if ((error = ext2_bread(um, bn, &bp)) < 0)
		return error;
	size_t len = inode_bytes(um, din);
	char *slot = (char *)bp->b_data + off;
	if (memcmp(slot, din, len) == 0) {
		brelse(bp);
		return 0;
	}
	memcpy(slot, din, len);
	bdwrite(bp);
	return 0;
}

/* Drops the inode's extended-attribute block reference, if it has one. */
static int
free_xattr(struct vnode *vp)
{
	struct ext2_mount *um = VTOUM(vp);
	struct ext2_dinode *din = &VTON(vp)->n_din;
	uint32_t bn = din->i_file_acl;
	struct buf *bp;
	int error;

	if (bn == 0)
		return 0;
	if (!ext2_bvalid(um, bn))
		return ext2_corrupt(um, "inode %u: attribute block %u out of range",
		    VTON(vp)->n_ino, bn);
	if ((error = ext2_bread(um, bn, &bp)) < 0)
		return error;
	struct ext2_xattr_header *h = bp->b_data;
	if (h->h_magic != EXT2_XATTR_MAGIC || h->h_refcount == 0) {
		brelse(bp);
		return ext2_corrupt(um, "inode %u: bad attribute block %u",
		    VTON(vp)->n_ino, bn);
	}
	din->i_file_acl = 0;
	vp->v_blocks -= MIN(vp->v_blocks, um->um_secperblk);
	if (--h->h_refcount > 0) {
		bdwrite(bp);
		return 0;
	}
	brelse(bp);
	return ext2_bfree(um, bn);
}

/* Frees node vp: the file too if it has no name; else writes it back. */
static void
node_reclaim(struct vnode *vp)
{
	struct ext2_mount *um = VTOUM(vp);
	struct ext2_node *n = VTON(vp);
	int error = 0;

	/* From here ext2_vget waits for the node to go. */
	n->n_flags |= N_RECLAIM;
	if (vp->v_object != NULL)
		ext2_readahead_end(vp, true);
	if (vp->v_nlink == 0 && !um->um_ronly) {
		bool fast = vp->v_type == VLNK && fast_symlink(um, &n->n_din);
		if (vp->v_type == VREG || vp->v_type == VDIR ||
		    (vp->v_type == VLNK && !fast))
			error = ext2_truncate(vp, 0);
		if (error == 0)
			error = free_xattr(vp);
		if (error == 0) {
			struct timespec now;
			vfs_timestamp(&now);
			n->n_din.i_dtime = (uint32_t)now.tv_sec;
			if (fast)
				memset(n->n_din.i_block, 0, sizeof(n->n_din.i_block));
			vp->v_size = 0;
			error = ext2_iupdate(vp);
		}
		if (error == 0)
			error = ext2_ifree(um, n->n_ino, vp->v_type == VDIR);
	} else {
		/* Its pages go with it: what was written reaches the disk. */
		error = vnode_pager_clean(vp, 0, UINT64_MAX, VPC_ALL);
		int e = ext2_iupdate(vp);
		if (error == 0)
			error = e;
	}
	if (error < 0)
		kprintf("ext2 %s: inode %u: cannot write back (%d)\n",
		    um->um_disk->d_name, n->n_ino, error);
	node_free(vp);
}

void
ext2_uncache(struct vnode *vp)
{
	struct ext2_node *n = VTON(vp);
	if (n->n_flags & N_CACHED) {
		TAILQ_REMOVE(&VTOUM(vp)->um_cached, n, n_cache);
		VTOUM(vp)->um_ncached--;
		n->n_flags &= ~N_CACHED;
	}
}

void
ext2_uncache_all(struct ext2_mount *um)
{
	struct ext2_node *n;
	while ((n = TAILQ_FIRST(&um->um_cached)) != NULL) {
		ext2_uncache(n->n_vnode);
		node_reclaim(n->n_vnode);
	}
}

void
ext2_inactive(struct vnode *vp)
{
	struct ext2_mount *um = VTOUM(vp);
	struct ext2_node *n = VTON(vp);

	if (vp->v_nlink == 0 || vp->v_object == NULL ||
	    vp->v_object->resident_page_count == 0) {
		node_reclaim(vp);
		return;
	}
	/* Linked, with pages: cached (dirty pages are the syncer's). */
	ext2_readahead_end(vp, false);
	int error = ext2_iupdate(vp);
	if (error < 0)
		kprintf("ext2 %s: inode %u: cannot write back (%d)\n",
		    um->um_disk->d_name, n->n_ino, error);
	if (!(n->n_flags & N_CACHED)) {
		n->n_flags |= N_CACHED;
		TAILQ_INSERT_TAIL(&um->um_cached, n, n_cache);
		um->um_ncached++;
	}
	while (um->um_ncached > MAX(1024, vmstats.v_page_count / EXT2_CACHEPAGES)) {
		struct ext2_node *old = TAILQ_FIRST(&um->um_cached), *x = old;
		for (int i = 0; x != NULL && i < EXT2_EVICTSCAN;
		    x = TAILQ_NEXT(x, n_cache), i++) {
			if (!vnode_pager_dirty(x->n_vnode)) {
				old = x;
				break;
			}
		}
		ext2_uncache(old->n_vnode);
		node_reclaim(old->n_vnode);
	}
}

void
ext2_ilock(struct vnode *vp)
{
	struct ext2_node *n = VTON(vp);

	while (n->n_flags & N_LOCKED) {
		n->n_flags |= N_LWANTED;
		tsleep(&n->n_flags, 0, "ext2lk", 0);
	}
	n->n_flags |= N_LOCKED;
	n->n_owner = curthread;
}

bool
ext2_ilock_cond(struct vnode *vp)
{
	if ((VTON(vp)->n_flags & N_LOCKED) && VTON(vp)->n_owner == curthread)
		return false;
	ext2_ilock(vp);
	return true;
}

void
ext2_iunlock_cond(struct vnode *vp, bool taken)
{
	if (taken)
		ext2_iunlock(vp);
}

void
ext2_iunlock(struct vnode *vp)
{
	struct ext2_node *n = VTON(vp);

	KASSERT(n->n_flags & N_LOCKED, "ext2_iunlock: not locked");
	n->n_flags &= ~N_LOCKED;
	n->n_owner = NULL;
	if (n->n_flags & N_LWANTED) {
		n->n_flags &= ~N_LWANTED;
		wakeup(&n->n_flags);
	}
}
