/*
 * The second extended file system's on-disk format, as the ext2
 * specification (and e2fsprogs) lays it out.  Every field is
 * little-endian; the host is x86-64, so the structures are read in place.
 *
 * Everything read from a disk is hostile: these are layouts, not
 * promises.  ext2_vfsops.c checks the superblock and group descriptors,
 * ext2_bmap.c every block pointer, ext2_dir.c every directory entry.
 */
#ifndef FS_EXT2_EXT2_FS_H
#define FS_EXT2_EXT2_FS_H

#include <stdint.h>

#define EXT2_SUPER_MAGIC	0xef53
#define EXT2_SBOFF		1024	/* the superblock's byte offset */
#define EXT2_SBSIZE		1024

#define EXT2_ROOT_INO		2
#define EXT2_GOOD_OLD_FIRST_INO	11
#define EXT2_GOOD_OLD_INODE_SIZE 128

#define EXT2_NDIR_BLOCKS	12
#define EXT2_IND_BLOCK		12
#define EXT2_DIND_BLOCK		13
#define EXT2_TIND_BLOCK		14
#define EXT2_N_BLOCKS		15

#define EXT2_MIN_BLOCK_LOG	10	/* 1 KiB */
#define EXT2_MAX_BLOCK_LOG	12	/* 4 KiB: a page, the most we do */

/* s_state */
#define EXT2_VALID_FS		0x0001	/* cleanly unmounted */
#define EXT2_ERROR_FS		0x0002	/* errors detected */

/* s_rev_level */
#define EXT2_GOOD_OLD_REV	0
#define EXT2_DYNAMIC_REV	1

/* Compatible features: safe to ignore. */
#define EXT2_FEATURE_COMPAT_DIR_PREALLOC	0x0001
#define EXT2_FEATURE_COMPAT_IMAGIC_INODES	0x0002
#define EXT3_FEATURE_COMPAT_HAS_JOURNAL		0x0004
#define EXT2_FEATURE_COMPAT_EXT_ATTR		0x0008
#define EXT2_FEATURE_COMPAT_RESIZE_INODE	0x0010
#define EXT2_FEATURE_COMPAT_DIR_INDEX		0x0020

/* Read-only compatible features: unknown ones forbid writing. */
#define EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER	0x0001
#define EXT2_FEATURE_RO_COMPAT_LARGE_FILE	0x0002
#define EXT2_FEATURE_RO_COMPAT_BTREE_DIR	0x0004

/* Incompatible features: unknown ones forbid mounting. */
#define EXT2_FEATURE_INCOMPAT_COMPRESSION	0x0001
#define EXT2_FEATURE_INCOMPAT_FILETYPE		0x0002
#define EXT3_FEATURE_INCOMPAT_RECOVER		0x0004
#define EXT3_FEATURE_INCOMPAT_JOURNAL_DEV	0x0008
#define EXT2_FEATURE_INCOMPAT_META_BG		0x0010
#define EXT4_FEATURE_INCOMPAT_EXTENTS		0x0040
#define EXT4_FEATURE_INCOMPAT_64BIT		0x0080
#define EXT4_FEATURE_INCOMPAT_FLEX_BG		0x0200

/* What this implementation handles. */
#define EXT2_SUPP_INCOMPAT	EXT2_FEATURE_INCOMPAT_FILETYPE
#define EXT2_SUPP_RO_COMPAT	(EXT2_FEATURE_RO_COMPAT_SPARSE_SUPER | \
				 EXT2_FEATURE_RO_COMPAT_LARGE_FILE)

struct ext2_super_block {
	uint32_t s_inodes_count;
	uint32_t s_blocks_count;
	uint32_t s_r_blocks_count;
	uint32_t s_free_blocks_count;
	uint32_t s_free_inodes_count;
	uint32_t s_first_data_block;
	uint32_t s_log_block_size;	/* block size = 1024 << this */
	uint32_t s_log_frag_size;
	uint32_t s_blocks_per_group;
	uint32_t s_frags_per_group;
	uint32_t s_inodes_per_group;
	uint32_t s_mtime;		/* last mount */
	uint32_t s_wtime;		/* last write */
	uint16_t s_mnt_count;
	int16_t s_max_mnt_count;
	uint16_t s_magic;
	uint16_t s_state;
	uint16_t s_errors;
	uint16_t s_minor_rev_level;
	uint32_t s_lastcheck;
	uint32_t s_checkinterval;
	uint32_t s_creator_os;
	uint32_t s_rev_level;
	uint16_t s_def_resuid;
	uint16_t s_def_resgid;
	/* EXT2_DYNAMIC_REV only. */
	uint32_t s_first_ino;
	uint16_t s_inode_size;
	uint16_t s_block_group_nr;
	uint32_t s_feature_compat;
	uint32_t s_feature_incompat;
	uint32_t s_feature_ro_compat;
	uint8_t s_uuid[16];
	char s_volume_name[16];
	char s_last_mounted[64];
	uint32_t s_algorithm_usage_bitmap;
	uint8_t s_prealloc_blocks;
	uint8_t s_prealloc_dir_blocks;
	uint16_t s_reserved_gdt_blocks;
	uint8_t s_journal_uuid[16];
	uint32_t s_journal_inum;
	uint32_t s_journal_dev;
	uint32_t s_last_orphan;
	uint32_t s_hash_seed[4];
	uint8_t s_def_hash_version;
	uint8_t s_jnl_backup_type;
	uint16_t s_desc_size;
	uint32_t s_default_mount_opts;
	uint32_t s_first_meta_bg;
	uint32_t s_mkfs_time;
	uint32_t s_jnl_blocks[17];
	uint8_t s_rest[1024 - 0x150];	/* 64-bit counts, checksums: unused */
};
_Static_assert(sizeof(struct ext2_super_block) == EXT2_SBSIZE, "superblock");

struct ext2_group_desc {
	uint32_t bg_block_bitmap;
	uint32_t bg_inode_bitmap;
	uint32_t bg_inode_table;
	uint16_t bg_free_blocks_count;
	uint16_t bg_free_inodes_count;
	uint16_t bg_used_dirs_count;
	uint16_t bg_flags;
	uint32_t bg_reserved[3];
};
_Static_assert(sizeof(struct ext2_group_desc) == 32, "group descriptor");

/*
 * An inode: the 128 bytes of revision 0, then (in larger inodes) the
 * first fields of the extra space, which carry nanoseconds.
 */
struct ext2_dinode {
	uint16_t i_mode;
	uint16_t i_uid;
	uint32_t i_size;
	uint32_t i_atime;
	uint32_t i_ctime;
	uint32_t i_mtime;
	uint32_t i_dtime;		/* deletion time */
	uint16_t i_gid;
	uint16_t i_links_count;
	uint32_t i_blocks;		/* 512-byte units */
	uint32_t i_flags;
	uint32_t i_version;
	uint32_t i_block[EXT2_N_BLOCKS];
	uint32_t i_generation;
	uint32_t i_file_acl;		/* extended-attribute block */
	uint32_t i_size_high;		/* regular files: size bits 32..63 */
	uint32_t i_faddr;
	uint16_t i_blocks_hi;
	uint16_t i_file_acl_high;
	uint16_t i_uid_high;
	uint16_t i_gid_high;
	uint16_t i_checksum_lo;
	uint16_t i_reserved;
	/* Large inodes: i_extra_isize bytes of these follow. */
	uint16_t i_extra_isize;
	uint16_t i_checksum_hi;
	uint32_t i_ctime_extra;		/* nanoseconds << 2 | epoch bits */
	uint32_t i_mtime_extra;
	uint32_t i_atime_extra;
	uint32_t i_crtime;
	uint32_t i_crtime_extra;
	uint32_t i_version_hi;
	uint32_t i_projid;
};
_Static_assert(sizeof(struct ext2_dinode) == 160, "inode");

#define EXT2_EXTRA_ISIZE	32	/* what we give new large inodes */

/* i_flags */
#define EXT2_INDEX_FL		0x00001000	/* hashed-index directory */
#define EXT4_EXTENTS_FL		0x00080000

/* Directory entries. */
struct ext2_dirent {
	uint32_t inode;			/* 0: unused entry */
	uint16_t rec_len;		/* to the next entry */
	uint8_t name_len;
	uint8_t file_type;		/* with INCOMPAT_FILETYPE; else name_len's
					 * high byte, always 0 here */
	char name[];
};

#define EXT2_DIRENT_HDR		8
/* The bytes an entry with a name of len bytes needs. */
#define EXT2_DIRENT_LEN(len)	(((len) + EXT2_DIRENT_HDR + 3) & ~3u)

/* file_type */
#define EXT2_FT_UNKNOWN		0
#define EXT2_FT_REG_FILE	1
#define EXT2_FT_DIR		2
#define EXT2_FT_CHRDEV		3
#define EXT2_FT_BLKDEV		4
#define EXT2_FT_FIFO		5
#define EXT2_FT_SOCK		6
#define EXT2_FT_SYMLINK		7
#define EXT2_FT_MAX		8

/* Extended-attribute block header: only its reference count matters here. */
#define EXT2_XATTR_MAGIC	0xea020000
struct ext2_xattr_header {
	uint32_t h_magic;
	uint32_t h_refcount;
	uint32_t h_blocks;
	uint32_t h_hash;
};

/* A symlink this short lives in i_block (a "fast" symlink). */
#define EXT2_FAST_SYMLINK_MAX	(EXT2_N_BLOCKS * 4 - 1)

#endif /* FS_EXT2_EXT2_FS_H */
