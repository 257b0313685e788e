/*
 * ext2 mounts: checking the superblock and group descriptors of an
 * untrusted image, the feature sets we accept, the clean/not-clean state,
 * statfs, sync and unmount.
 */
#include <stdarg.h>
#include <stdio.h>

#include "dev/disk.h"
#include "fs/buf.h"
#include "fs/ext2/ext2.h"
#include "fs/vnode_pager.h"
#include "fs/ext2/ext2_mount.h"
#include "kern/thread.h"
#include "kern/kmem.h"

int
ext2_corrupt(struct ext2_mount *um, const char *fmt, ...)
{
	char msg[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	kprintf("ext2 %s: corrupt: %s\n", um->um_disk->d_name, msg);
	if (!um->um_ronly) {
		/* As Linux: the image says it needs checking. */
		um->um_sb.s_state |= EXT2_ERROR_FS;
		um->um_dirty = true;
	}
	return -EUCLEAN;
}

void
ext2_nslock(struct ext2_mount *um)
{
	while (um->um_nslocked) {
		um->um_nswanted = true;
		tsleep(&um->um_nslocked, 0, "ext2ns", 0);
	}
	um->um_nslocked = true;
}

void
ext2_nsunlock(struct ext2_mount *um)
{
	um->um_nslocked = false;
	if (um->um_nswanted) {
		um->um_nswanted = false;
		wakeup(&um->um_nslocked);
	}
}

int
ext2_sbflush(struct ext2_mount *um, bool clean)
{
	struct buf *bp;
	int error;

	if (um->um_ronly)
		return 0;
	size_t gdbytes = um->um_ngroups * sizeof(struct ext2_group_desc);
	for (uint32_t i = 0; i < um->um_gdblocks; i++) {
		if ((error = ext2_bread(um, um->um_gdblock + i, &bp)) < 0)
			return error;
		size_t off = (size_t)i * um->um_bsize;
		memcpy(bp->b_data, (char *)um->um_gd + off,
		    MIN(um->um_bsize, gdbytes - off));
		bdwrite(bp);
	}
	struct timespec now;
	vfs_timestamp(&now);
	um->um_sb.s_wtime = (uint32_t)now.tv_sec;
	if (clean)
		um->um_sb.s_state |= EXT2_VALID_FS;
	else
		um->um_sb.s_state &= ~EXT2_VALID_FS;
	uint32_t sbblock = EXT2_SBOFF / um->um_bsize;
	if ((error = ext2_bread(um, sbblock, &bp)) < 0)
		return error;
	memcpy((char *)bp->b_data + EXT2_SBOFF % um->um_bsize, &um->um_sb,
	    EXT2_SBSIZE);
	bdwrite(bp);
	um->um_dirty = false;
	return 0;
}

/* Reads the superblock (1 KiB at byte 1024, before the block size is known). */
static int
read_super(struct disk *dk, struct ext2_super_block *sb)
{
	struct buf *bp;
	int error = bread(dk, EXT2_SBOFF / DEV_BSIZE, EXT2_SBSIZE, &bp);
	if (error < 0)
		return error;
	memcpy(sb, bp->b_data, sizeof(*sb));
	/* The file system's buffers are blocks: this one must not linger. */
	bp->b_flags |= B_INVAL;
	brelse(bp);
	return 0;
}

static const struct {
	uint32_t bit;
	const char *name;
} incompat_names[] = {
	{ EXT2_FEATURE_INCOMPAT_COMPRESSION, "compression" },
	{ EXT3_FEATURE_INCOMPAT_RECOVER, "needs_recovery (journal replay)" },
	{ EXT3_FEATURE_INCOMPAT_JOURNAL_DEV, "journal_dev" },
	{ EXT2_FEATURE_INCOMPAT_META_BG, "meta_bg" },
	{ EXT4_FEATURE_INCOMPAT_EXTENTS, "extent (ext4)" },
	{ EXT4_FEATURE_INCOMPAT_64BIT, "64bit" },
	{ EXT4_FEATURE_INCOMPAT_FLEX_BG, "flex_bg" },
};

/*
 * Checks the superblock of disk dk and fills um's geometry: 0, or -EINVAL
 * with a logged reason.
 */
static int
check_super(struct ext2_mount *um, struct disk *dk)
{
	struct ext2_super_block *sb = &um->um_sb;
	const char *why = NULL;

#define BAD(msg) do { why = (msg); goto bad; } while (0)
	if (sb->s_magic != EXT2_SUPER_MAGIC)
		BAD("no ext2 magic number");
	if (sb->s_rev_level > EXT2_DYNAMIC_REV)
		BAD("unknown revision");
	if (sb->s_log_block_size > EXT2_MAX_BLOCK_LOG - EXT2_MIN_BLOCK_LOG)
		BAD("block size not 1, 2 or 4 KiB");
	um->um_bsize = 1024u << sb->s_log_block_size;
	um->um_secperblk = um->um_bsize / DEV_BSIZE;
	um->um_nindir = um->um_bsize / 4;
	if (sb->s_first_data_block != (um->um_bsize == 1024 ? 1u : 0u))
		BAD("bad first data block");
	if (sb->s_rev_level == EXT2_GOOD_OLD_REV) {
		um->um_isize = EXT2_GOOD_OLD_INODE_SIZE;
		um->um_firstino = EXT2_GOOD_OLD_FIRST_INO;
		sb->s_feature_compat = sb->s_feature_incompat = 0;
		sb->s_feature_ro_compat = 0;
	} else {
		um->um_isize = sb->s_inode_size;
		um->um_firstino = sb->s_first_ino;
	}
	if (um->um_isize < EXT2_GOOD_OLD_INODE_SIZE ||
	    um->um_isize > um->um_bsize || (um->um_isize & (um->um_isize - 1)))
		BAD("bad inode size");
	um->um_ipb = um->um_bsize / um->um_isize;
	um->um_bpg = sb->s_blocks_per_group;
	um->um_ipg = sb->s_inodes_per_group;
	if (um->um_bpg == 0 || um->um_bpg > 8 * um->um_bsize)
		BAD("bad blocks per group");
	if (um->um_ipg == 0 || um->um_ipg > 8 * um->um_bsize ||
	    um->um_ipg % um->um_ipb != 0)
		BAD("bad inodes per group");
	if (sb->s_blocks_count <= sb->s_first_data_block + 1)
		BAD("bad block count");
	if ((uint64_t)sb->s_blocks_count * um->um_secperblk > dk->d_nsectors)
		BAD("file system larger than the disk");
	um->um_ngroups = howmany(sb->s_blocks_count - sb->s_first_data_block,
	    um->um_bpg);
	if ((uint64_t)um->um_ngroups * um->um_ipg != sb->s_inodes_count)
		BAD("inode count does not match the groups");
	if (um->um_firstino <= EXT2_ROOT_INO ||
	    um->um_firstino > sb->s_inodes_count)
		BAD("bad first inode");
	um->um_gdblock = sb->s_first_data_block + 1;
	um->um_gdblocks = howmany(um->um_ngroups * sizeof(struct ext2_group_desc),
	    um->um_bsize);
	if (um->um_gdblock + um->um_gdblocks >= sb->s_blocks_count)
		BAD("group descriptors past the end");

	uint32_t bad = sb->s_feature_incompat & ~EXT2_SUPP_INCOMPAT;
	if (bad != 0) {
		for (size_t i = 0; i < nitems(incompat_names); i++)
			if (bad & incompat_names[i].bit)
				kprintf("ext2 %s: unsupported feature %s\n",
				    dk->d_name, incompat_names[i].name);
		kprintf("ext2 %s: cannot mount: incompatible features %#x\n",
		    dk->d_name, bad);
		return -EINVAL;
	}
	um->um_filetype = (sb->s_feature_incompat &
	    EXT2_FEATURE_INCOMPAT_FILETYPE) != 0;
	if (sb->s_feature_ro_compat & ~EXT2_SUPP_RO_COMPAT) {
		kprintf("ext2 %s: unknown read-only features %#x: mounting "
		    "read-only\n", dk->d_name,
		    sb->s_feature_ro_compat & ~EXT2_SUPP_RO_COMPAT);
		um->um_ronly = true;
	}
	return 0;
bad:
	kprintf("ext2 %s: cannot mount: %s\n", dk->d_name, why);
	return -EINVAL;
#undef BAD
}

/* Reads and checks the group descriptors; recomputes the free totals. */
static int
read_groups(struct ext2_mount *um)
{
	struct ext2_super_block *sb = &um->um_sb;
	size_t bytes = um->um_gdblocks * um->um_bsize;
	uint32_t itblocks = um->um_ipg / um->um_ipb;
	uint64_t freeb = 0, freei = 0;
	int error;

	um->um_gd = kmalloc(bytes, KM_ZERO);
	if (um->um_gd == NULL)
		return -ENOMEM;
	for (uint32_t i = 0; i < um->um_gdblocks; i++) {
		struct buf *bp;
		if ((error = ext2_bread(um, um->um_gdblock + i, &bp)) < 0)
			return error;
		memcpy((char *)um->um_gd + (size_t)i * um->um_bsize, bp->b_data,
		    um->um_bsize);
		brelse(bp);
	}
	for (uint32_t g = 0; g < um->um_ngroups; g++) {
		struct ext2_group_desc *gd = &um->um_gd[g];
		uint32_t first = sb->s_first_data_block + g * um->um_bpg;
		uint32_t last = MIN(first + um->um_bpg, sb->s_blocks_count);
		if (gd->bg_block_bitmap < first || gd->bg_block_bitmap >= last ||
		    gd->bg_inode_bitmap < first || gd->bg_inode_bitmap >= last ||
		    gd->bg_inode_table < first ||
		    (uint64_t)gd->bg_inode_table + itblocks > last) {
			kprintf("ext2 %s: cannot mount: group %u's bitmaps or "
			    "inode table outside the group\n",
			    um->um_disk->d_name, g);
			return -EINVAL;
		}
		if (gd->bg_free_blocks_count > last - first ||
		    gd->bg_free_inodes_count > um->um_ipg) {
			kprintf("ext2 %s: cannot mount: group %u's free counts "
			    "too large\n", um->um_disk->d_name, g);
			return -EINVAL;
		}
		freeb += gd->bg_free_blocks_count;
		freei += gd->bg_free_inodes_count;
	}
	/* The groups are the truth; Linux recomputes these too. */
	sb->s_free_blocks_count = (uint32_t)freeb;
	sb->s_free_inodes_count = (uint32_t)freei;
	return 0;
}

static void
ext2_free_mount(struct ext2_mount *um)
{
	kfree(um->um_gd);
	kfree(um);
}

static int
ext2_mount(struct mount *mp, const void *data)
{
	const struct mount_args *ma = data;
	int error;

	if (ma == NULL || ma->ma_disk == NULL)
		return -EINVAL;
	struct disk *dk = ma->ma_disk;
	struct ext2_mount *um = kmalloc(sizeof(*um), KM_ZERO);
	if (um == NULL)
		return -ENOMEM;
	um->um_mp = mp;
	um->um_disk = dk;
	um->um_ronly = (ma->ma_flags & MNT_RDONLY) || dk->d_readonly;
	for (int i = 0; i < EXT2_NHASH; i++)
		TAILQ_INIT(&um->um_hash[i]);
	TAILQ_INIT(&um->um_cached);
	if ((error = read_super(dk, &um->um_sb)) < 0 ||
	    (error = check_super(um, dk)) < 0) {
		ext2_free_mount(um);
		return error;
	}
	/* The block device's transfers share our buffers: our size. */
	bio_setbsize(dk, um->um_bsize);
	if ((error = read_groups(um)) < 0) {
		ext2_free_mount(um);
		return error;
	}
	struct ext2_super_block *sb = &um->um_sb;
	um->um_wasclean = (sb->s_state & EXT2_VALID_FS) &&
	    !(sb->s_state & EXT2_ERROR_FS);
	if (!um->um_wasclean)
		kprintf("ext2 %s: mounting a file system that was not cleanly "
		    "unmounted or has errors: run e2fsck\n", dk->d_name);
	mp->mnt_data = um;
	mp->mnt_dev = dk->d_dev;

	struct vnode *root;
	if ((error = ext2_vget(um, EXT2_ROOT_INO, &root)) < 0) {
		kprintf("ext2 %s: cannot mount: no root directory (%d)\n",
		    dk->d_name, error);
		goto fail;
	}
	if (root->v_type != VDIR) {
		kprintf("ext2 %s: cannot mount: the root is not a directory\n",
		    dk->d_name);
		vrele(root);
		error = -EINVAL;
		goto fail;
	}
	mp->mnt_root = root;
	if (!um->um_ronly) {
		/* Not clean until unmounted, so a crash is seen as one. */
		struct timespec now;
		vfs_timestamp(&now);
		sb->s_mtime = (uint32_t)now.tv_sec;
		sb->s_mnt_count++;
		if ((error = ext2_sbflush(um, false)) < 0 ||
		    (error = bsync(dk, 1)) < 0) {
			mp->mnt_root = NULL;
			vrele(root);
			goto fail;
		}
	}
	return 0;
fail:
	binvalidate(dk);
	ext2_free_mount(um);
	mp->mnt_data = NULL;
	return error;
}

static int
ext2_sync(struct mount *mp, bool wait)
{
	struct ext2_mount *um = VFSTOUM(mp);
	struct vnode *vp, **vps;
	size_t n = 0, count = 0;
	int error = 0, e;

	if (um->um_ronly)
		return 0;
	/*
	 * Attributes the VFS changed in place (access times) go out too.
	 * Writing an inode may sleep and the list change meanwhile: hold
	 * references on a copy of it.
	 */
	TAILQ_FOREACH(vp, &mp->mnt_vnodes, v_mntlist)
		count++;
	if ((vps = kmalloc(count * sizeof(*vps) + 1, 0)) == NULL)
		return -ENOMEM;
	TAILQ_FOREACH(vp, &mp->mnt_vnodes, v_mntlist) {
		if (!(VTON(vp)->n_flags & N_RECLAIM)) {
			ext2_uncache(vp);	/* the vrele caches it again */
			vps[n++] = vref(vp);
		}
	}
	for (size_t i = 0; i < n; i++) {
		/* Data first, then the inode that points to their blocks. */
		if (vnode_pager_dirty(vps[i])) {
			ext2_ilock(vps[i]);
			e = vnode_pager_clean(vps[i], 0, UINT64_MAX, VPC_ALL);
			ext2_iunlock(vps[i]);
			if (e < 0 && error == 0)
				error = e;
		}
		if ((e = ext2_iupdate(vps[i])) < 0 && error == 0)
			error = e;
	}
	for (size_t i = 0; i < n; i++)
		vrele(vps[i]);
	kfree(vps);
	if ((e = ext2_sbflush(um, false)) < 0 && error == 0)
		error = e;
	if ((e = bsync(um->um_disk, wait)) < 0 && error == 0)
		error = e;
	return error;
}

static void
ext2_unmount(struct mount *mp)
{
	struct ext2_mount *um = VFSTOUM(mp);
	struct disk *dk = um->um_disk;
	int error = 0;

	vrele(mp->mnt_root);
	mp->mnt_root = NULL;
	ext2_uncache_all(um);
	KASSERT(TAILQ_EMPTY(&mp->mnt_vnodes), "ext2_unmount: busy vnode");
	if (!um->um_ronly) {
		/*
		 * As Linux: an image that was not clean stays so until
		 * e2fsck has seen it, whatever happened since.
		 */
		bool clean = um->um_wasclean &&
		    !(um->um_sb.s_state & EXT2_ERROR_FS);
		error = ext2_sbflush(um, clean);
		if (error == 0)
			error = bsync(dk, 1);
	}
	if (error < 0)
		kprintf("ext2 %s: unmount: cannot write back (%d)\n",
		    dk->d_name, error);
	binvalidate(dk);
	ext2_free_mount(um);
}

static void
ext2_statfs(struct mount *mp, struct statfs_info *sf)
{
	struct ext2_mount *um = VFSTOUM(mp);
	const struct ext2_super_block *sb = &um->um_sb;

	memset(sf, 0, sizeof(*sf));
	sf->f_type = EXT2_MAGIC_LINUX;
	sf->f_bsize = um->um_bsize;
	sf->f_blocks = sb->s_blocks_count;
	sf->f_bfree = sb->s_free_blocks_count;
	sf->f_bavail = sb->s_free_blocks_count > sb->s_r_blocks_count ?
	    sb->s_free_blocks_count - sb->s_r_blocks_count : 0;
	sf->f_files = sb->s_inodes_count;
	sf->f_ffree = sb->s_free_inodes_count;
	sf->f_namelen = NAME_MAX;
}

const struct vfsops ext2_vfsops = {
	.vfs_name = "ext2",
	.vfs_flags = VFCF_REQDEV,
	.vfs_mount = ext2_mount,
	.vfs_unmount = ext2_unmount,
	.vfs_statfs = ext2_statfs,
	.vfs_sync = ext2_sync,
};
