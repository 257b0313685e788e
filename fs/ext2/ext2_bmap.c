/*
 * ext2 block maps: a file's logical blocks to disk blocks through the
 * inode's twelve direct pointers and its single, double and triple
 * indirect blocks.  A zero pointer is a hole, read as zeros; writing
 * fills it.  Truncation frees whole subtrees.
 */
#include "fs/buf.h"
#include "fs/ext2/ext2.h"
#include "fs/vnode_pager.h"
#include "vm/vm_object.h"

uint64_t
ext2_maxfilesize(struct ext2_mount *um)
{
	uint64_t n = um->um_nindir;
	uint64_t blocks = EXT2_NDIR_BLOCKS + n + n * n + n * n * n;
	/* i_blocks counts 512-byte units in 32 bits: Linux stops there too. */
	uint64_t cap = ((uint64_t)UINT32_MAX * DEV_BSIZE) & ~(uint64_t)(um->um_bsize - 1);
	return MIN(blocks * um->um_bsize, cap);
}

/*
 * The path to logical block lbn: the i_block slot, then an index in each
 * indirect block.  Returns the number of indirect levels (0-3) or -1 if
 * lbn is past the triple indirect block.
 */
static int
bmap_path(struct ext2_mount *um, uint64_t lbn, int *slot, uint32_t idx[3])
{
	uint64_t n = um->um_nindir;

	if (lbn < EXT2_NDIR_BLOCKS) {
		*slot = (int)lbn;
		return 0;
	}
	lbn -= EXT2_NDIR_BLOCKS;
	if (lbn < n) {
		*slot = EXT2_IND_BLOCK;
		idx[0] = (uint32_t)lbn;
		return 1;
	}
	lbn -= n;
	if (lbn < n * n) {
		*slot = EXT2_DIND_BLOCK;
		idx[0] = (uint32_t)(lbn / n);
		idx[1] = (uint32_t)(lbn % n);
		return 2;
	}
	lbn -= n * n;
	if (lbn < n * n * n) {
		*slot = EXT2_TIND_BLOCK;
		idx[0] = (uint32_t)(lbn / (n * n));
		idx[1] = (uint32_t)(lbn / n % n);
		idx[2] = (uint32_t)(lbn % n);
		return 3;
	}
	return -1;
}

/* A new block for vp near its last one; indirect blocks come zeroed. */
static int
bmap_alloc(struct vnode *vp, bool indirect, uint32_t *bnp)
{
	struct ext2_mount *um = VTOUM(vp);
	struct ext2_node *n = VTON(vp);
	uint32_t goal = n->n_lastalloc != 0 ? n->n_lastalloc + 1 :
	    um->um_sb.s_first_data_block +
	    (n->n_ino - 1) / um->um_ipg * um->um_bpg;
	int error = ext2_balloc(um, goal, bnp);
	if (error < 0)
		return error;
	n->n_lastalloc = *bnp;
	vp->v_blocks += um->um_secperblk;
	if (indirect) {
		struct buf *bp;
		if ((error = ext2_bzero(um, *bnp, &bp)) < 0)
			return error;
		bdwrite(bp);
	}
	return 0;
}

int
ext2_bmap(struct vnode *vp, uint64_t lbn, bool alloc, uint32_t *bnp,
    bool *newp)
{
	struct ext2_mount *um = VTOUM(vp);
	struct ext2_node *n = VTON(vp);
	uint32_t idx[3];
	int slot, error;

	*bnp = 0;
	if (newp != NULL)
		*newp = false;
	int levels = bmap_path(um, lbn, &slot, idx);
	if (levels < 0)
		return -EFBIG;
	uint32_t bn = n->n_din.i_block[slot];
	if (bn == 0) {
		if (!alloc)
			return 0;
		if ((error = bmap_alloc(vp, levels > 0, &bn)) < 0)
			return error;
		n->n_din.i_block[slot] = bn;
		if (levels == 0 && newp != NULL)
			*newp = true;
	} else if (!ext2_bvalid(um, bn)) {
		return ext2_corrupt(um, "inode %u: block pointer %u out of range",
		    n->n_ino, bn);
	}
	for (int i = 0; i < levels; i++) {
		struct buf *bp;
		if ((error = ext2_bread(um, bn, &bp)) < 0)
			return error;
		uint32_t *ptrs = bp->b_data;
		uint32_t next = ptrs[idx[i]];
		if (next == 0) {
			if (!alloc) {
				brelse(bp);
				return 0;
			}
			if ((error = bmap_alloc(vp, i + 1 < levels, &next)) < 0) {
				brelse(bp);
				return error;
			}
			ptrs[idx[i]] = next;
			bdwrite(bp);
			if (i + 1 == levels && newp != NULL)
				*newp = true;
		} else {
			brelse(bp);
			if (!ext2_bvalid(um, next))
				return ext2_corrupt(um, "inode %u: indirect "
				    "pointer %u out of range", n->n_ino, next);
		}
		bn = next;
	}
	*bnp = bn;
	return 0;
}

/* Frees a block of vp's and forgets it in its count. */
static int
block_free(struct vnode *vp, uint32_t bn)
{
	struct ext2_mount *um = VTOUM(vp);
	int error = ext2_bfree(um, bn);
	if (error == 0)
		vp->v_blocks -= MIN(vp->v_blocks, um->um_secperblk);
	return error;
}

/*
 * Frees the blocks of the subtree at *slotp (level 0: a data block, else
 * an indirect block of that level) that map logical blocks from first
 * on; base is the subtree's first logical block.  A subtree left empty
 * is freed with its indirect block and *slotp cleared.
 */
static int
free_tree(struct vnode *vp, uint32_t *slotp, int level, uint64_t base,
    uint64_t first)
{
	struct ext2_mount *um = VTOUM(vp);
	uint32_t bn = *slotp;
	int error = 0;

	if (bn == 0)
		return 0;
	if (!ext2_bvalid(um, bn))
		return ext2_corrupt(um, "inode %u: block pointer %u out of range",
		    VTON(vp)->n_ino, bn);
	if (level == 0) {
		if (base < first)
			return 0;
		if ((error = block_free(vp, bn)) < 0)
			return error;
		*slotp = 0;
		return 0;
	}
	uint64_t span = 1;
	for (int i = 1; i < level; i++)
		span *= um->um_nindir;
	if (first >= base + span * um->um_nindir)
		return 0;

	struct buf *bp;
	if ((error = ext2_bread(um, bn, &bp)) < 0)
		return error;
	uint32_t *ptrs = bp->b_data;
	bool changed = false;
	for (uint32_t j = 0; j < um->um_nindir; j++) {
		uint64_t cbase = base + j * span;
		if (ptrs[j] == 0 || cbase + span <= first)
			continue;
		error = free_tree(vp, &ptrs[j], level - 1, cbase, first);
		changed = true;
		if (error < 0)
			break;
	}
	if (error == 0 && first <= base) {
		/* Everything below is gone: the indirect block goes too. */
		brelse(bp);
		if ((error = block_free(vp, bn)) == 0)
			*slotp = 0;
		return error;
	}
	if (changed)
		bdwrite(bp);
	else
		brelse(bp);
	return error;
}

int
ext2_truncate(struct vnode *vp, uint64_t size)
{
	struct ext2_mount *um = VTOUM(vp);
	struct ext2_node *n = VTON(vp);
	uint64_t bs = um->um_bsize, nind = um->um_nindir;
	int error = 0;

	if (size > ext2_maxfilesize(um))
		return -EFBIG;
	if (size < vp->v_size && vp->v_object != NULL) {
		ext2_readahead_end(vp, true);	/* it may read past the end */
		/*
		 * A file's data are its pages: those past the end leave
		 * every mapping, and the tail of the last one kept is zeroed
		 * and written back with it, so growing reads zeros.
		 */
		struct vm_page *m = NULL;
		if (size % PAGE_SIZE != 0 &&
		    (error = ext2_getpage(vp, size >> PAGE_SHIFT, true, &m)) < 0)
			return error;
		vnode_pager_setsize(vp, size);
		if (m != NULL)
			vm_object_page_dirty(m);
	}
	if (size < vp->v_size) {
		/* Zero the tail of the last block kept: growing reads zeros. */
		if (size % bs != 0 && vp->v_object == NULL) {
			uint32_t bn;
			if ((error = ext2_bmap(vp, size / bs, false, &bn, NULL)) < 0)
				return error;
			if (bn != 0) {
				struct buf *bp;
				if ((error = ext2_bread(um, bn, &bp)) < 0)
					return error;
				memset((char *)bp->b_data + size % bs, 0,
				    bs - size % bs);
				bdwrite(bp);
			}
		}
		uint64_t first = howmany(size, bs);
		uint32_t *ib = n->n_din.i_block;
		for (uint64_t i = 0; i < EXT2_NDIR_BLOCKS && error == 0; i++)
			error = free_tree(vp, &ib[i], 0, i, first);
		uint64_t base = EXT2_NDIR_BLOCKS, span = nind;
		for (int level = 1; level <= 3 && error == 0; level++) {
			error = free_tree(vp, &ib[EXT2_IND_BLOCK + level - 1],
			    level, base, first);
			base += span;
			span *= nind;
		}
		n->n_lastalloc = 0;
	}
	/* A failed free leaves the blocks and the size as they were found. */
	if (error == 0)
		vp->v_size = size;
	int e = ext2_iupdate(vp);
	return error < 0 ? error : e;
}
