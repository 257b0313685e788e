/*
 * ext2 vnode operations (see vnode.h for each one's contract).  Name
 * operations run under the mount's namespace lock, data operations under
 * the node's lock (ext2.h says why).
 */
#include "dev/disk.h"
#include "fs/buf.h"
#include "fs/ext2/ext2.h"
#include "fs/vnode_pager.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"
#include "vm/vm_pageout.h"
#include "kern/uio.h"

static void
touch_ctime(struct vnode *vp)
{
	vfs_timestamp(&vp->v_ctime);
}

static int
ext2_lookup(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	struct ext2_mount *um = VTOUM(dvp);
	uint32_t ino;

	if (strcmp(name, ".") == 0) {
		*vpp = vref(dvp);
		return 0;
	}
	if (dvp->v_nlink == 0)
		return -ENOENT;		/* removed: not even ".." is left */
	int error = ext2_dirlookup(dvp, name, &ino);
	if (error < 0)
		return error;
	if (ino == 0)
		return -ENOENT;
	if (ino == VTON(dvp)->n_ino) {
		if (strcmp(name, "..") != 0 || !(dvp->v_flags & VROOT))
			return ext2_corrupt(um, "directory %u: entry %s is "
			    "itself", ino, name);
		*vpp = vref(dvp);
		return 0;
	}
	if ((error = ext2_vget(um, ino, vpp)) < 0)
		return error;
	if (strcmp(name, "..") == 0 && (*vpp)->v_type != VDIR) {
		vrele(*vpp);
		return ext2_corrupt(um, "directory %u: \"..\" is not a directory",
		    VTON(dvp)->n_ino);
	}
	return 0;
}

/*
 * Makes a node of va's type named name in dvp: for directories their
 * first block, for symlinks their target.  Under the namespace lock.
 */
static int
ext2_new(struct vnode *dvp, const char *name, const struct vattr *va,
    const char *target, struct vnode **vpp)
{
	struct ext2_mount *um = VTOUM(dvp);
	struct vnode *vp;
	int error;

	if (um->um_ronly)
		return -EROFS;
	if (va->va_type == VDIR && dvp->v_nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	size_t tlen = target != NULL ? strlen(target) : 0;
	if (tlen >= um->um_bsize)
		return -ENAMETOOLONG;
	if ((error = ext2_valloc(dvp, va, &vp)) < 0)
		return error;
	struct ext2_node *n = VTON(vp);
	if (va->va_type == VDIR) {
		error = ext2_dirinit(vp, VTON(dvp)->n_ino);
	} else if (va->va_type == VLNK && tlen <= EXT2_FAST_SYMLINK_MAX) {
		memcpy(n->n_din.i_block, target, tlen);
		vp->v_size = tlen;
	} else if (va->va_type == VLNK) {
		uint32_t bn;
		struct buf *bp;
		if ((error = ext2_bmap(vp, 0, true, &bn, NULL)) == 0 &&
		    (error = ext2_bzero(um, bn, &bp)) == 0) {
			memcpy(bp->b_data, target, tlen);
			bdwrite(bp);
			vp->v_size = tlen;
		}
	}
	vp->v_nlink = va->va_type == VDIR ? 2 : 1;
	if (error == 0)
		error = ext2_iupdate(vp);
	if (error == 0)
		error = ext2_direnter(dvp, name, n->n_ino, va->va_type);
	if (error < 0) {
		vp->v_nlink = 0;	/* the last vrele frees it */
		vrele(vp);
		return error;
	}
	if (va->va_type == VDIR) {
		dvp->v_nlink++;
		if ((error = ext2_iupdate(dvp)) < 0) {
			vrele(vp);
			return error;
		}
	}
	*vpp = vp;
	return 0;
}

static int
ext2_create(struct vnode *dvp, const char *name, const struct vattr *va,
    struct vnode **vpp)
{
	struct ext2_mount *um = VTOUM(dvp);
	ext2_nslock(um);
	int error = ext2_new(dvp, name, va, NULL, vpp);
	ext2_nsunlock(um);
	return error;
}

static int
ext2_mkdir(struct vnode *dvp, const char *name, const struct vattr *va,
    struct vnode **vpp)
{
	return ext2_create(dvp, name, va, vpp);
}

static int
ext2_symlink(struct vnode *dvp, const char *name, const struct vattr *va,
    const char *target, struct vnode **vpp)
{
	struct ext2_mount *um = VTOUM(dvp);
	ext2_nslock(um);
	int error = ext2_new(dvp, name, va, target, vpp);
	ext2_nsunlock(um);
	return error;
}

static int
ext2_readlink(struct vnode *vp, struct uio *uio)
{
	struct ext2_mount *um = VTOUM(vp);
	struct ext2_node *n = VTON(vp);
	size_t len = MIN(vp->v_size, uio->uio_resid);
	uint32_t acl = n->n_din.i_file_acl != 0 ? um->um_secperblk : 0;

	if (vp->v_blocks == acl)
		return uiomove(n->n_din.i_block, len, uio);
	uint32_t bn;
	struct buf *bp;
	int error = ext2_bmap(vp, 0, false, &bn, NULL);
	if (error < 0)
		return error;
	if (bn == 0)
		return ext2_corrupt(um, "symlink %u: no block", n->n_ino);
	if ((error = ext2_bread(um, bn, &bp)) < 0)
		return error;
	error = uiomove(bp->b_data, len, uio);
	brelse(bp);
	return error;
}

static int
ext2_link(struct vnode *dvp, const char *name, struct vnode *vp)
{
	struct ext2_mount *um = VTOUM(dvp);
	int error;

	if (um->um_ronly)
		return -EROFS;
	if (vp->v_nlink >= EXT2_LINK_MAX)
		return -EMLINK;
	ext2_nslock(um);
	if ((error = ext2_direnter(dvp, name, VTON(vp)->n_ino, vp->v_type)) == 0) {
		vp->v_nlink++;
		touch_ctime(vp);
		error = ext2_iupdate(vp);
	}
	ext2_nsunlock(um);
	return error;
}

static int
ext2_unlink(struct vnode *dvp, const char *name, struct vnode *vp)
{
	struct ext2_mount *um = VTOUM(dvp);
	int error;

	if (um->um_ronly)
		return -EROFS;
	ext2_nslock(um);
	if ((error = ext2_dirremove(dvp, name)) == 0) {
		vp->v_nlink--;
		touch_ctime(vp);
		error = ext2_iupdate(vp);
	}
	ext2_nsunlock(um);
	return error;
}

static int
ext2_rmdir(struct vnode *dvp, const char *name, struct vnode *vp)
{
	struct ext2_mount *um = VTOUM(dvp);
	int error;

	if (um->um_ronly)
		return -EROFS;
	ext2_nslock(um);
	error = ext2_dirempty(vp);
	if (error == 0)
		error = -ENOTEMPTY;
	if (error == 1 && (error = ext2_dirremove(dvp, name)) == 0) {
		/* Its blocks go when the last reference does. */
		vp->v_nlink = 0;
		touch_ctime(vp);
		dvp->v_nlink--;		/* its ".." */
		error = ext2_iupdate(vp);
		if (error == 0)
			error = ext2_iupdate(dvp);
	}
	ext2_nsunlock(um);
	return error;
}

static int
ext2_rename(struct vnode *fdvp, const char *fname, struct vnode *fvp,
    struct vnode *tdvp, const char *tname, struct vnode *tvp)
{
	struct ext2_mount *um = VTOUM(fdvp);
	uint32_t fino = VTON(fvp)->n_ino;
	bool isdir = fvp->v_type == VDIR;
	int error;

	if (um->um_ronly)
		return -EROFS;
	ext2_nslock(um);
	if (tvp != NULL) {
		if (tvp->v_type == VDIR) {
			error = ext2_dirempty(tvp);
			if (error == 0)
				error = -ENOTEMPTY;
			if (error < 0)
				goto out;
		}
		/* The target name now names the source: one step. */
		if ((error = ext2_dirrewrite(tdvp, tname, fino, fvp->v_type)) < 0)
			goto out;
		if (tvp->v_type == VDIR) {
			tvp->v_nlink = 0;
			tdvp->v_nlink--;
		} else {
			tvp->v_nlink--;
		}
		touch_ctime(tvp);
		if ((error = ext2_iupdate(tvp)) < 0)
			goto out;
	} else {
		if (isdir && fdvp != tdvp && tdvp->v_nlink >= EXT2_LINK_MAX) {
			error = -EMLINK;
			goto out;
		}
		if ((error = ext2_direnter(tdvp, tname, fino, fvp->v_type)) < 0)
			goto out;
	}
	if ((error = ext2_dirremove(fdvp, fname)) < 0)
		goto out;
	if (isdir && fdvp != tdvp) {
		if ((error = ext2_dirrewrite(fvp, "..", VTON(tdvp)->n_ino,
		    VDIR)) < 0)
			goto out;
		fdvp->v_nlink--;
		tdvp->v_nlink++;
	}
	touch_ctime(fvp);
	if ((error = ext2_iupdate(fvp)) == 0 &&
	    (error = ext2_iupdate(fdvp)) == 0)
		error = ext2_iupdate(tdvp);
out:
	ext2_nsunlock(um);
	return error;
}

/*
 * Access times as Linux's relatime: only when older than the last change
 * or a day old, so reading does not write the disk each time.
 */
static void
mark_accessed(struct vnode *vp)
{
	struct timespec now;

	if (VTOUM(vp)->um_ronly)
		return;
	vfs_timestamp(&now);
	if (vp->v_atime.tv_sec <= vp->v_mtime.tv_sec ||
	    vp->v_atime.tv_sec <= vp->v_ctime.tv_sec ||
	    now.tv_sec - vp->v_atime.tv_sec >= 24 * 3600)
		vp->v_atime = now;
}

static int
ext2_read(struct vnode *vp, struct uio *uio)
{
	int error = 0;

	if (uio->uio_offset < 0)
		return -EINVAL;
	ext2_ilock(vp);
	while (uio->uio_resid > 0 && (uint64_t)uio->uio_offset < vp->v_size) {
		uint64_t off = (uint64_t)uio->uio_offset;
		uint32_t poff = off % PAGE_SIZE;
		size_t n = MIN(MIN(PAGE_SIZE - poff, uio->uio_resid),
		    vp->v_size - off);
		struct vm_page *m;
		/* A reader going through the file in order reads ahead. */
		uint64_t pindex = off >> PAGE_SHIFT;
		struct ext2_node *np = VTON(vp);
		bool sequential = pindex == np->n_nextread ||
		    pindex + 1 == np->n_nextread;
		np->n_nextread = pindex + 1;
		if ((error = ext2_getpages(vp, pindex,
		    sequential ? EXT2_READAHEAD : 1, &m)) < 0)
			break;
		if (sequential)
			ext2_readahead(vp, pindex);
		/* The copy may fault and sleep: nothing may free the page. */
		m->hold_count++;
		VM_PAGE_EXT(m)->flags |= PGX_REFERENCED;	/* for pageout */
		error = uiomove((char *)VM_PAGE_TO_DMAP(m) + poff, n, uio);
		m->hold_count--;
		if (error < 0)
			break;
	}
	mark_accessed(vp);
	ext2_iunlock(vp);
	return error;
}

/* Gives the bytes [off, off + n) of vp blocks (before copying into them). */
static int
alloc_range(struct vnode *vp, uint64_t off, size_t n)
{
	struct ext2_mount *um = VTOUM(vp);
	uint32_t bs = um->um_bsize;

	for (uint64_t lbn = off / bs; lbn <= (off + n - 1) / bs; lbn++) {
		uint32_t bn;
		bool isnew;
		int error = ext2_bmap(vp, lbn, true, &bn, &isnew);
		if (error < 0)
			return error;
		if (isnew)
			bforget(um->um_disk, (uint64_t)bn * um->um_secperblk);
	}
	return 0;
}

static int
ext2_write(struct vnode *vp, struct uio *uio)
{
	struct ext2_mount *um = VTOUM(vp);
	uint64_t resid0 = uio->uio_resid, max = ext2_maxfilesize(um);
	int error = 0;

	if (um->um_ronly)
		return -EROFS;
	if (uio->uio_offset < 0)
		return -EINVAL;
	if ((uint64_t)uio->uio_offset >= max)
		return -EFBIG;
	ext2_ilock(vp);
	while (uio->uio_resid > 0 && (uint64_t)uio->uio_offset < max) {
		uint64_t off = (uint64_t)uio->uio_offset;
		uint64_t pindex = off >> PAGE_SHIFT;
		uint32_t poff = off % PAGE_SIZE;
		size_t n = MIN(MIN(PAGE_SIZE - poff, uio->uio_resid), max - off);
		struct vm_page *m;
		/*
		 * The page first, then its new blocks: a block allocated
		 * before the page is read would read as what it held before.
		 * A page past the end has nothing to read; any other is read
		 * even if it is overwritten whole, as a copy that faults
		 * halfway must leave the rest as it was.
		 */
		bool past = (pindex << PAGE_SHIFT) >= vp->v_size;
		/*
		 * RAM short: write this file's dirty pages back before
		 * dirtying more, so the reclaimer can take them (a writer
		 * faster than the disk is throttled to it, not failed).
		 */
		if (vm_pageout_short())
			(void)vnode_pager_clean(vp, 0, UINT64_MAX, 0);
		error = ext2_getpage(vp, pindex, !past, &m);
		if (error == -ENOMEM) {
			(void)vnode_pager_clean(vp, 0, UINT64_MAX, 0);
			error = ext2_getpage(vp, pindex, !past, &m);
		}
		if (error < 0)
			break;
		m->hold_count++;
		VM_PAGE_EXT(m)->flags |= PGX_REFERENCED;
		if ((error = alloc_range(vp, off, n)) == 0)
			error = uiomove((char *)VM_PAGE_TO_DMAP(m) + poff, n, uio);
		m->hold_count--;
		if ((uint64_t)uio->uio_offset > off)
			vm_object_page_dirty(m);
		if ((uint64_t)uio->uio_offset > vp->v_size)
			vp->v_size = (uint64_t)uio->uio_offset;
		if (error < 0)
			break;
	}
	if (uio->uio_resid != resid0) {
		vfs_timestamp(&vp->v_mtime);
		vp->v_ctime = vp->v_mtime;
	}
	/* Blocks may have been allocated even if nothing was written. */
	int e = ext2_iupdate(vp);
	ext2_iunlock(vp);
	return error < 0 ? error : e;
}

static int
ext2_setattr(struct vnode *vp, const struct vattr *va)
{
	int error = 0;

	if (VTOUM(vp)->um_ronly)
		return -EROFS;
	ext2_ilock(vp);
	if (va->va_mask & VA_SIZE) {
		KASSERT(vp->v_type == VREG, "ext2_setattr: size of a non-file");
		error = ext2_truncate(vp, va->va_size);
	}
	if (error == 0) {
		if (va->va_mask & VA_MODE)
			vp->v_mode = va->va_mode & 07777;
		if (va->va_mask & VA_UID)
			vp->v_uid = va->va_uid;
		if (va->va_mask & VA_GID)
			vp->v_gid = va->va_gid;
		if (va->va_mask & VA_ATIME)
			vp->v_atime = va->va_atime;
		if (va->va_mask & VA_MTIME)
			vp->v_mtime = va->va_mtime;
		if (va->va_mask & VA_CTIME)
			vp->v_ctime = va->va_ctime;
		else
			touch_ctime(vp);
		error = ext2_iupdate(vp);
	}
	ext2_iunlock(vp);
	return error;
}

static int
ext2_vreaddir(struct vnode *vp, struct uio *uio)
{
	ext2_ilock(vp);
	int error = ext2_readdir(vp, uio);
	mark_accessed(vp);
	ext2_iunlock(vp);
	return error;
}

static int
ext2_fsync(struct vnode *vp, bool datasync)
{
	struct ext2_mount *um = VTOUM(vp);
	int error;

	(void)datasync;	/* the inode holds the size: written either way */
	if (um->um_ronly)
		return 0;
	/* The file's own pages, then the inode (blocks may be new). */
	ext2_ilock(vp);
	error = vnode_pager_clean(vp, 0, UINT64_MAX, VPC_ALL);
	int e = ext2_iupdate(vp);
	ext2_iunlock(vp);
	if (error < 0 || (error = e) < 0)
		return error;
	/*
	 * The buffer cache keeps no list of a file's buffers: write every
	 * dirty metadata block of the disk, which covers the file's inode
	 * and indirect blocks and the bitmaps that make them allocated.
	 */
	if ((error = ext2_sbflush(um, false)) < 0)
		return error;
	return bsync(um->um_disk, 1);
}

const struct vnops ext2_vnops = {
	.vop_lookup = ext2_lookup,
	.vop_create = ext2_create,
	.vop_mkdir = ext2_mkdir,
	.vop_symlink = ext2_symlink,
	.vop_readlink = ext2_readlink,
	.vop_link = ext2_link,
	.vop_unlink = ext2_unlink,
	.vop_rmdir = ext2_rmdir,
	.vop_rename = ext2_rename,
	.vop_read = ext2_read,
	.vop_write = ext2_write,
	.vop_setattr = ext2_setattr,
	.vop_readdir = ext2_vreaddir,
	.vop_inactive = ext2_inactive,
	.vop_fsync = ext2_fsync,
};
