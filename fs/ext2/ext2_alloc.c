/*
 * ext2 allocation: block and inode bitmaps, one bitmap block per group,
 * and the free counts of the group descriptors and the superblock, which
 * must agree with the bitmaps for e2fsck to call the image clean.
 */
#include "dev/disk.h"
#include "fs/buf.h"
#include "fs/ext2/ext2.h"

int
ext2_bread(struct ext2_mount *um, uint32_t bn, struct buf **bpp)
{
	if (bn >= um->um_sb.s_blocks_count)
		return ext2_corrupt(um, "block %u past the end", bn);
	return bread(um->um_disk, (uint64_t)bn * um->um_secperblk,
	    um->um_bsize, bpp);
}

int
ext2_bzero(struct ext2_mount *um, uint32_t bn, struct buf **bpp)
{
	struct buf *bp = getblk(um->um_disk, (uint64_t)bn * um->um_secperblk,
	    um->um_bsize);
	if (bp == NULL)
		return -ENOMEM;
	memset(bp->b_data, 0, um->um_bsize);
	*bpp = bp;
	return 0;
}

bool
ext2_bvalid(struct ext2_mount *um, uint32_t bn)
{
	return bn > um->um_sb.s_first_data_block &&
	    bn < um->um_sb.s_blocks_count;
}

/* Blocks in group g: the last group may be short. */
static uint32_t
group_nblocks(struct ext2_mount *um, uint32_t g)
{
	uint32_t first = um->um_sb.s_first_data_block + g * um->um_bpg;
	return MIN(um->um_bpg, um->um_sb.s_blocks_count - first);
}

/*
 * Is bn one of group g's own metadata blocks (bitmaps, inode table)?
 * A hostile bitmap may call them free; they are never handed out.
 */
static bool
group_meta(struct ext2_mount *um, uint32_t g, uint32_t bn)
{
	const struct ext2_group_desc *gd = &um->um_gd[g];
	uint32_t itblocks = um->um_ipg / um->um_ipb;

	return bn == gd->bg_block_bitmap || bn == gd->bg_inode_bitmap ||
	    (bn >= gd->bg_inode_table && bn - gd->bg_inode_table < itblocks) ||
	    (bn >= um->um_gdblock && bn - um->um_gdblock < um->um_gdblocks);
}

/* The first clear bit of map in [from, n), or -1. */
static int64_t
bit_find(const uint8_t *map, uint32_t from, uint32_t n)
{
	for (uint32_t i = from; i < n; i++) {
		if ((i & 7) == 0 && map[i >> 3] == 0xff && i + 8 <= n) {
			i += 7;
			continue;
		}
		if (!(map[i >> 3] & (1u << (i & 7))))
			return i;
	}
	return -1;
}

int
ext2_balloc(struct ext2_mount *um, uint32_t goal, uint32_t *bnp)
{
	uint32_t fdb = um->um_sb.s_first_data_block;
	uint32_t g0 = 0, start = 0;

	if (um->um_sb.s_free_blocks_count == 0)
		return -ENOSPC;
	if (ext2_bvalid(um, goal)) {
		g0 = (goal - fdb) / um->um_bpg;
		start = (goal - fdb) % um->um_bpg;
	}
	for (uint32_t i = 0; i < um->um_ngroups; i++) {
		uint32_t g = (g0 + i) % um->um_ngroups;
		struct ext2_group_desc *gd = &um->um_gd[g];
		if (gd->bg_free_blocks_count == 0)
			continue;
		struct buf *bp;
		int error = ext2_bread(um, gd->bg_block_bitmap, &bp);
		if (error < 0)
			return error;
		uint8_t *map = bp->b_data;
		uint32_t n = group_nblocks(um, g);
		uint32_t from = i == 0 ? start : 0;
		for (int pass = 0; pass < 2; pass++) {
			int64_t bit = pass == 0 ? bit_find(map, from, n) :
			    bit_find(map, 0, from);
			while (bit >= 0) {
				uint32_t bn = fdb + g * um->um_bpg + (uint32_t)bit;
				if (!group_meta(um, g, bn) && ext2_bvalid(um, bn)) {
					map[bit >> 3] |= 1u << (bit & 7);
					bdwrite(bp);
					gd->bg_free_blocks_count--;
					um->um_sb.s_free_blocks_count--;
					um->um_dirty = true;
					*bnp = bn;
					return 0;
				}
				bit = bit_find(map, (uint32_t)bit + 1,
				    pass == 0 ? n : from);
			}
		}
		brelse(bp);
		/* The descriptor promised free blocks the bitmap lacks. */
		return ext2_corrupt(um, "group %u: free block count %u, bitmap full",
		    g, gd->bg_free_blocks_count);
	}
	return -ENOSPC;
}

int
ext2_bfree(struct ext2_mount *um, uint32_t bn)
{
	if (!ext2_bvalid(um, bn))
		return ext2_corrupt(um, "freeing block %u out of range", bn);
	uint32_t g = (bn - um->um_sb.s_first_data_block) / um->um_bpg;
	uint32_t bit = (bn - um->um_sb.s_first_data_block) % um->um_bpg;
	if (group_meta(um, g, bn))
		return ext2_corrupt(um, "freeing metadata block %u", bn);
	struct buf *bp;
	int error = ext2_bread(um, um->um_gd[g].bg_block_bitmap, &bp);
	if (error < 0)
		return error;
	uint8_t *map = bp->b_data;
	if (!(map[bit >> 3] & (1u << (bit & 7)))) {
		brelse(bp);
		return ext2_corrupt(um, "freeing free block %u", bn);
	}
	map[bit >> 3] &= ~(1u << (bit & 7));
	bdwrite(bp);
	um->um_gd[g].bg_free_blocks_count++;
	um->um_sb.s_free_blocks_count++;
	um->um_dirty = true;
	return 0;
}

/*
 * The group for a new inode: a directory goes to the group with the
 * fewest directories among those with free inodes and blocks (spreading
 * trees over the disk); a file stays near its directory.
 */
static uint32_t
ialloc_group(struct ext2_mount *um, uint32_t dir, bool isdir)
{
	uint32_t pg = (dir - 1) / um->um_ipg, best = UINT32_MAX;

	if (isdir) {
		for (uint32_t g = 0; g < um->um_ngroups; g++) {
			const struct ext2_group_desc *gd = &um->um_gd[g];
			if (gd->bg_free_inodes_count == 0)
				continue;
			if (best == UINT32_MAX ||
			    (gd->bg_free_blocks_count > 0 &&
			    (um->um_gd[best].bg_free_blocks_count == 0 ||
			    gd->bg_used_dirs_count < um->um_gd[best].bg_used_dirs_count)))
				best = g;
		}
		return best;
	}
	for (uint32_t i = 0; i < um->um_ngroups; i++) {
		uint32_t g = (pg + i) % um->um_ngroups;
		const struct ext2_group_desc *gd = &um->um_gd[g];
		if (gd->bg_free_inodes_count > 0 && gd->bg_free_blocks_count > 0)
			return g;
		if (gd->bg_free_inodes_count > 0 && best == UINT32_MAX)
			best = g;
	}
	return best;
}

int
ext2_ialloc(struct ext2_mount *um, uint32_t dir, bool isdir, uint32_t *inop)
{
	if (um->um_sb.s_free_inodes_count == 0)
		return -ENOSPC;
	uint32_t g0 = ialloc_group(um, dir, isdir);
	if (g0 == UINT32_MAX)
		return -ENOSPC;
	for (uint32_t i = 0; i < um->um_ngroups; i++) {
		uint32_t g = (g0 + i) % um->um_ngroups;
		struct ext2_group_desc *gd = &um->um_gd[g];
		if (gd->bg_free_inodes_count == 0)
			continue;
		struct buf *bp;
		int error = ext2_bread(um, gd->bg_inode_bitmap, &bp);
		if (error < 0)
			return error;
		uint8_t *map = bp->b_data;
		int64_t bit = bit_find(map, 0, um->um_ipg);
		/* The reserved inodes of group 0 are never handed out. */
		while (bit >= 0 && g * um->um_ipg + (uint32_t)bit + 1 < um->um_firstino)
			bit = bit_find(map, (uint32_t)bit + 1, um->um_ipg);
		if (bit < 0) {
			brelse(bp);
			return ext2_corrupt(um, "group %u: free inode count %u, bitmap full",
			    g, gd->bg_free_inodes_count);
		}
		map[bit >> 3] |= 1u << (bit & 7);
		bdwrite(bp);
		gd->bg_free_inodes_count--;
		um->um_sb.s_free_inodes_count--;
		if (isdir)
			gd->bg_used_dirs_count++;
		um->um_dirty = true;
		*inop = g * um->um_ipg + (uint32_t)bit + 1;
		return 0;
	}
	return -ENOSPC;
}

int
ext2_ifree(struct ext2_mount *um, uint32_t ino, bool isdir)
{
	if (ino < um->um_firstino || ino > um->um_sb.s_inodes_count)
		return ext2_corrupt(um, "freeing inode %u out of range", ino);
	uint32_t g = (ino - 1) / um->um_ipg, bit = (ino - 1) % um->um_ipg;
	struct buf *bp;
	int error = ext2_bread(um, um->um_gd[g].bg_inode_bitmap, &bp);
	if (error < 0)
		return error;
	uint8_t *map = bp->b_data;
	if (!(map[bit >> 3] & (1u << (bit & 7)))) {
		brelse(bp);
		return ext2_corrupt(um, "freeing free inode %u", ino);
	}
	map[bit >> 3] &= ~(1u << (bit & 7));
	bdwrite(bp);
	um->um_gd[g].bg_free_inodes_count++;
	um->um_sb.s_free_inodes_count++;
	if (isdir && um->um_gd[g].bg_used_dirs_count > 0)
		um->um_gd[g].bg_used_dirs_count--;
	um->um_dirty = true;
	return 0;
}
