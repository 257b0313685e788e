/*
 * ext2 directories: linear lists of variable-length entries in the
 * directory's blocks.  Every entry's rec_len reaches the next one and
 * the last of a block reaches the block's end; an entry with inode 0 is
 * free space.  Removing an entry gives its space to the one before it in
 * its block, so entries never move and their byte offsets serve as
 * readdir cookies.
 */
#include <dirent.h>

#include "fs/buf.h"
#include "fs/ext2/ext2.h"
#include "kern/uio.h"

/* Reads directory block lbn of dvp; a hole in a directory is corruption. */
static int
dir_bread(struct vnode *dvp, uint64_t lbn, struct buf **bpp)
{
	struct ext2_mount *um = VTOUM(dvp);
	uint32_t bn;
	int error = ext2_bmap(dvp, lbn, false, &bn, NULL);
	if (error < 0)
		return error;
	if (bn == 0)
		return ext2_corrupt(um, "directory %u: hole at block %llu",
		    VTON(dvp)->n_ino, (unsigned long long)lbn);
	return ext2_bread(um, bn, bpp);
}

/* Checks the entry at off of a directory block: 0 or -EUCLEAN. */
static int
dirent_check(struct vnode *dvp, uint64_t lbn, const char *blk, uint32_t off)
{
	struct ext2_mount *um = VTOUM(dvp);
	const struct ext2_dirent *de = (const void *)(blk + off);
	const char *why = NULL;

	if (off + EXT2_DIRENT_HDR > um->um_bsize)
		why = "header past the block";
	else if (de->rec_len < EXT2_DIRENT_LEN(1) || (de->rec_len & 3))
		why = "bad rec_len";
	else if (off + de->rec_len > um->um_bsize)
		why = "rec_len past the block";
	else if (de->inode != 0 && EXT2_DIRENT_LEN(de->name_len) > de->rec_len)
		why = "name past rec_len";
	else if (de->inode != 0 && de->name_len == 0)
		why = "empty name";
	else if (de->inode > um->um_sb.s_inodes_count)
		why = "inode number out of range";
	if (why == NULL)
		return 0;
	return ext2_corrupt(um, "directory %u, block %llu, offset %u: %s",
	    VTON(dvp)->n_ino, (unsigned long long)lbn, off, why);
}

static uint8_t
vtype_to_ft(enum vtype t)
{
	switch (t) {
	case VREG:	return EXT2_FT_REG_FILE;
	case VDIR:	return EXT2_FT_DIR;
	case VCHR:	return EXT2_FT_CHRDEV;
	case VBLK:	return EXT2_FT_BLKDEV;
	case VFIFO:	return EXT2_FT_FIFO;
	case VSOCK:	return EXT2_FT_SOCK;
	case VLNK:	return EXT2_FT_SYMLINK;
	default:	return EXT2_FT_UNKNOWN;
	}
}

static uint8_t
ft_to_dt(uint8_t ft)
{
	static const uint8_t dt[EXT2_FT_MAX] = {
		DT_UNKNOWN, DT_REG, DT_DIR, DT_CHR, DT_BLK, DT_FIFO, DT_SOCK,
		DT_LNK,
	};
	return ft < EXT2_FT_MAX ? dt[ft] : DT_UNKNOWN;
}

static bool
name_is(const struct ext2_dirent *de, const char *name, size_t len)
{
	return de->inode != 0 && de->name_len == len &&
	    memcmp(de->name, name, len) == 0;
}

/* Where a search found its entry. */
struct dirpos {
	uint64_t lbn;
	uint32_t off;		/* of the entry */
	uint32_t prev;		/* of the entry before it in its block, or off */
	uint32_t ino;
};

/*
 * Finds entry name in dvp: 1 with *pos, 0 if there is none, or an
 * errno.
 */
static int
dir_find(struct vnode *dvp, const char *name, struct dirpos *pos)
{
	struct ext2_mount *um = VTOUM(dvp);
	size_t len = strlen(name);
	uint64_t nblocks = dvp->v_size / um->um_bsize;

	for (uint64_t lbn = 0; lbn < nblocks; lbn++) {
		struct buf *bp;
		int error = dir_bread(dvp, lbn, &bp);
		if (error < 0)
			return error;
		const char *blk = bp->b_data;
		uint32_t prev = 0;
		for (uint32_t off = 0; off < um->um_bsize; ) {
			if ((error = dirent_check(dvp, lbn, blk, off)) < 0) {
				brelse(bp);
				return error;
			}
			const struct ext2_dirent *de = (const void *)(blk + off);
			if (name_is(de, name, len)) {
				*pos = (struct dirpos){ lbn, off, prev, de->inode };
				brelse(bp);
				return 1;
			}
			prev = off;
			off += de->rec_len;
		}
		brelse(bp);
	}
	return 0;
}

int
ext2_dirlookup(struct vnode *dvp, const char *name, uint32_t *inop)
{
	struct dirpos pos;
	int found = dir_find(dvp, name, &pos);
	if (found < 0)
		return found;
	*inop = found ? pos.ino : 0;
	return 0;
}

/* The directory changed: times, and no hashed index any more. */
static int
dir_changed(struct vnode *dvp)
{
	/* Its htree (if e2fsprogs built one) no longer matches. */
	VTON(dvp)->n_din.i_flags &= ~EXT2_INDEX_FL;
	vfs_timestamp(&dvp->v_mtime);
	dvp->v_ctime = dvp->v_mtime;
	return ext2_iupdate(dvp);
}

static void
dirent_fill(struct ext2_mount *um, struct ext2_dirent *de, const char *name,
    size_t len, uint32_t ino, enum vtype type)
{
	de->inode = ino;
	de->name_len = (uint8_t)len;
	de->file_type = um->um_filetype ? vtype_to_ft(type) : 0;
	memcpy(de->name, name, len);
}

int
ext2_direnter(struct vnode *dvp, const char *name, uint32_t ino,
    enum vtype type)
{
	struct ext2_mount *um = VTOUM(dvp);
	size_t len = strlen(name);
	uint32_t need = EXT2_DIRENT_LEN(len);
	uint64_t nblocks = dvp->v_size / um->um_bsize;
	struct buf *bp;
	int error;

	/* One pass: the name must not be there; note the first free space. */
	for (uint64_t lbn = 0; lbn < nblocks; lbn++) {
		if ((error = dir_bread(dvp, lbn, &bp)) < 0)
			return error;
		char *blk = bp->b_data;
		struct ext2_dirent *spot = NULL;
		for (uint32_t off = 0; off < um->um_bsize; ) {
			if ((error = dirent_check(dvp, lbn, blk, off)) < 0) {
				brelse(bp);
				return error;
			}
			struct ext2_dirent *de = (void *)(blk + off);
			if (name_is(de, name, len)) {
				brelse(bp);
				return -EEXIST;
			}
			uint32_t used = de->inode != 0 ?
			    EXT2_DIRENT_LEN(de->name_len) : 0;
			if (spot == NULL && de->rec_len >= used + need)
				spot = de;
			off += de->rec_len;
		}
		if (spot == NULL) {
			brelse(bp);
			continue;
		}
		/*
		 * Space in this block.  Later blocks may still hold the name:
		 * look there before taking it.
		 */
		for (uint64_t l2 = lbn + 1; l2 < nblocks; l2++) {
			struct buf *bp2;
			if ((error = dir_bread(dvp, l2, &bp2)) < 0) {
				brelse(bp);
				return error;
			}
			const char *b2 = bp2->b_data;
			for (uint32_t off = 0; off < um->um_bsize; ) {
				if ((error = dirent_check(dvp, l2, b2, off)) < 0) {
					brelse(bp2);
					brelse(bp);
					return error;
				}
				const struct ext2_dirent *de = (const void *)(b2 + off);
				if (name_is(de, name, len)) {
					brelse(bp2);
					brelse(bp);
					return -EEXIST;
				}
				off += de->rec_len;
			}
			brelse(bp2);
		}
		if (spot->inode != 0) {
			/* Split: the new entry takes the end of this one. */
			uint32_t used = EXT2_DIRENT_LEN(spot->name_len);
			struct ext2_dirent *de = (void *)((char *)spot + used);
			de->rec_len = (uint16_t)(spot->rec_len - used);
			spot->rec_len = (uint16_t)used;
			spot = de;
		}
		dirent_fill(um, spot, name, len, ino, type);
		bdwrite(bp);
		return dir_changed(dvp);
	}

	/* No room: a new block with this one entry. */
	uint32_t bn;
	if (dvp->v_size + um->um_bsize > ext2_maxfilesize(um))
		return -ENOSPC;
	if ((error = ext2_bmap(dvp, nblocks, true, &bn, NULL)) < 0)
		return error;
	if ((error = ext2_bzero(um, bn, &bp)) < 0)
		return error;
	struct ext2_dirent *de = bp->b_data;
	de->rec_len = (uint16_t)um->um_bsize;
	dirent_fill(um, de, name, len, ino, type);
	bdwrite(bp);
	dvp->v_size += um->um_bsize;
	return dir_changed(dvp);
}

int
ext2_dirremove(struct vnode *dvp, const char *name)
{
	struct dirpos pos;
	struct buf *bp;
	int error = dir_find(dvp, name, &pos);
	if (error < 0)
		return error;
	if (error == 0)
		return ext2_corrupt(VTOUM(dvp), "directory %u: entry %s vanished",
		    VTON(dvp)->n_ino, name);
	if ((error = dir_bread(dvp, pos.lbn, &bp)) < 0)
		return error;
	char *blk = bp->b_data;
	struct ext2_dirent *de = (void *)(blk + pos.off);
	if (pos.prev != pos.off) {
		struct ext2_dirent *prev = (void *)(blk + pos.prev);
		prev->rec_len = (uint16_t)(prev->rec_len + de->rec_len);
	} else {
		de->inode = 0;
	}
	bdwrite(bp);
	return dir_changed(dvp);
}

int
ext2_dirrewrite(struct vnode *dvp, const char *name, uint32_t ino,
    enum vtype type)
{
	struct ext2_mount *um = VTOUM(dvp);
	struct dirpos pos;
	struct buf *bp;
	int error = dir_find(dvp, name, &pos);
	if (error < 0)
		return error;
	if (error == 0)
		return ext2_corrupt(um, "directory %u: entry %s vanished",
		    VTON(dvp)->n_ino, name);
	if ((error = dir_bread(dvp, pos.lbn, &bp)) < 0)
		return error;
	struct ext2_dirent *de = (void *)((char *)bp->b_data + pos.off);
	de->inode = ino;
	de->file_type = um->um_filetype ? vtype_to_ft(type) : 0;
	bdwrite(bp);
	return dir_changed(dvp);
}

int
ext2_dirinit(struct vnode *vp, uint32_t parent)
{
	struct ext2_mount *um = VTOUM(vp);
	struct buf *bp;
	uint32_t bn;
	int error;

	if ((error = ext2_bmap(vp, 0, true, &bn, NULL)) < 0)
		return error;
	if ((error = ext2_bzero(um, bn, &bp)) < 0)
		return error;
	struct ext2_dirent *dot = bp->b_data;
	dot->rec_len = EXT2_DIRENT_LEN(1);
	dirent_fill(um, dot, ".", 1, VTON(vp)->n_ino, VDIR);
	struct ext2_dirent *dotdot = (void *)((char *)bp->b_data + dot->rec_len);
	dotdot->rec_len = (uint16_t)(um->um_bsize - dot->rec_len);
	dirent_fill(um, dotdot, "..", 2, parent, VDIR);
	bdwrite(bp);
	vp->v_size = um->um_bsize;
	return 0;
}

int
ext2_dirempty(struct vnode *vp)
{
	struct ext2_mount *um = VTOUM(vp);
	uint64_t nblocks = vp->v_size / um->um_bsize;

	for (uint64_t lbn = 0; lbn < nblocks; lbn++) {
		struct buf *bp;
		int error = dir_bread(vp, lbn, &bp);
		if (error < 0)
			return error;
		const char *blk = bp->b_data;
		for (uint32_t off = 0; off < um->um_bsize; ) {
			if ((error = dirent_check(vp, lbn, blk, off)) < 0) {
				brelse(bp);
				return error;
			}
			const struct ext2_dirent *de = (const void *)(blk + off);
			if (de->inode != 0 && !name_is(de, ".", 1) &&
			    !name_is(de, "..", 2)) {
				brelse(bp);
				return 0;
			}
			off += de->rec_len;
		}
		brelse(bp);
	}
	return 1;
}

int
ext2_readdir(struct vnode *vp, struct uio *uio)
{
	struct ext2_mount *um = VTOUM(vp);
	int64_t off = uio->uio_offset;
	int error = 0, count = 0;

	if (off < 0)
		return -EINVAL;
	while ((uint64_t)off < vp->v_size && error == 0) {
		uint64_t lbn = (uint64_t)off / um->um_bsize;
		uint64_t start = lbn * um->um_bsize;
		struct buf *bp;
		if ((error = dir_bread(vp, lbn, &bp)) < 0)
			break;
		const char *blk = bp->b_data;
		/*
		 * From the block's start: a cookie may point into an entry
		 * that grew over removed ones since; resume after it.
		 */
		for (uint32_t pos = 0; pos < um->um_bsize; ) {
			if ((error = dirent_check(vp, lbn, blk, pos)) < 0)
				break;
			const struct ext2_dirent *de = (const void *)(blk + pos);
			int64_t here = (int64_t)(start + pos);
			int64_t next = here + de->rec_len;
			pos += de->rec_len;
			if (here < off)
				continue;
			if (de->inode != 0) {
				uint8_t dt = um->um_filetype ?
				    ft_to_dt(de->file_type) : DT_UNKNOWN;
				error = vfs_dirent_out(uio, de->inode, next, dt,
				    de->name, de->name_len);
				if (error != 0)
					break;
				count++;
			}
			off = next;
		}
		brelse(bp);
		if (error == 0)
			off = (int64_t)(start + um->um_bsize);
	}
	uio->uio_offset = off;
	if (error == 1)
		return count == 0 ? -EINVAL : 0;
	return count > 0 ? 0 : error;
}
