/*
 * Vnodes: the kernel's handle on a file of any file system.
 *
 * A vnode carries the attributes every file has (the inode, as Linux
 * would say) and a table of operations its file system implements.  File
 * systems keep their own state behind v_data.  A vnode is reference
 * counted (v_usecount): every name lookup, open file, current directory
 * and mount point holds one.  When the last reference goes, the file
 * system's inactive operation decides whether the vnode lives on (tmpfs
 * keeps linked files in memory) or is reclaimed (unlinked, or evicted by
 * a disk file system).
 *
 * Operations take kernel names (NUL-terminated, at most NAME_MAX bytes,
 * never "." or ".." except for lookup) and return 0 or a negative errno.
 * Permission checks are the VFS layer's (vfs_syscalls.c); operations only
 * do what they are asked.  A vnode returned through *vpp is referenced.
 *
 * Locking: the big kernel lock.  An operation that sleeps (a disk file
 * system reading a block) must expect the world to have changed when it
 * wakes; tmpfs never sleeps.
 */
#ifndef FS_VNODE_H
#define FS_VNODE_H

#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>

#include "kern/kernel.h"
#include "kern/queue.h"

struct uio;
struct ucred;
struct mount;
struct pipe;
struct pollwaiter;
struct file;
struct disk;

#define NAME_MAX	255	/* bytes in a path component */
#define PATH_MAX	4096	/* bytes in a path, its NUL included */
#define MAXSYMLINKS	40	/* symbolic links followed in one lookup */

enum vtype { VNON, VREG, VDIR, VLNK, VCHR, VBLK, VFIFO, VSOCK };

struct vnode {
	enum vtype v_type;
	mode_t v_mode;		/* permission and S_ISUID/S_ISGID/S_ISVTX bits */
	uid_t v_uid;
	gid_t v_gid;
	uint32_t v_nlink;
	uint64_t v_size;	/* bytes; for a symlink its target's length */
	uint64_t v_blocks;	/* 512-byte units allocated */
	struct timespec v_atime, v_mtime, v_ctime;
	uint64_t v_ino;
	dev_t v_rdev;		/* a device node's number (Linux encoding) */
	int v_usecount;
	int v_flags;		/* VROOT */
	const struct vnops *v_op;
	struct mount *v_mount;	/* the file system it belongs to */
	struct mount *v_mountedhere;	/* a file system mounted on it */
	struct pipe *v_fifo;	/* a fifo's pipe while it is open */
	struct lockf *v_lockf;	/* advisory locks (vfs_lock.c) */
	struct vnode *v_dotdot;	/* a removed directory's parent, referenced:
				 * its ".." while anyone still holds it */
	void *v_data;		/* the file system's own */
	/*
	 * A regular file's page cache: its one vm_object (fs/vnode_pager.h),
	 * whose pages read, write and every mapping share; made by the file
	 * system (or at the first mmap, for one that has none) and freed at
	 * reclaim.  NULL until then, and for other types.
	 */
	struct vm_object *v_object;
	TAILQ_ENTRY(vnode) v_mntlist;	/* on its mount's list */
};

#define VROOT	0x0001		/* the root of its file system */

/* What setattr changes: va_mask bits. */
#define VA_MODE		0x0001
#define VA_UID		0x0002
#define VA_GID		0x0004
#define VA_SIZE		0x0008
#define VA_ATIME	0x0010
#define VA_MTIME	0x0020
#define VA_CTIME	0x0040

/* Attributes for creating a node or changing one. */
struct vattr {
	int va_mask;		/* setattr: VA_* to change */
	enum vtype va_type;	/* create: the type */
	mode_t va_mode;		/* permission bits (no S_IFMT) */
	uid_t va_uid;
	gid_t va_gid;
	dev_t va_rdev;		/* create of a device node */
	uint64_t va_size;
	struct timespec va_atime, va_mtime, va_ctime;
};

/* readdir's result record, written into the uio as Linux's dirent64. */
struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;		/* the offset that resumes after this entry */
	uint16_t d_reclen;
	uint8_t d_type;
	char d_name[];
};

struct vnops {
	/* The child name of directory dvp ("." and ".." included). */
	int (*vop_lookup)(struct vnode *dvp, const char *name,
	    struct vnode **vpp);
	/*
	 * A new regular file, fifo, socket or device node (va_type,
	 * va_mode, va_uid, va_gid, va_rdev) named name in dvp, which has
	 * no such entry.
	 */
	int (*vop_create)(struct vnode *dvp, const char *name,
	    const struct vattr *va, struct vnode **vpp);
	int (*vop_mkdir)(struct vnode *dvp, const char *name,
	    const struct vattr *va, struct vnode **vpp);
	int (*vop_symlink)(struct vnode *dvp, const char *name,
	    const struct vattr *va, const char *target, struct vnode **vpp);
	/* Copies the target of symlink vp into the uio (not terminated). */
	int (*vop_readlink)(struct vnode *vp, struct uio *uio);
	/*
	 * Optional, for a "magic" link such as /proc/PID/fd/N: the open
	 * file it stands for, held (fdrop it), or NULL if there is none.
	 */
	struct file *(*vop_linkfile)(struct vnode *vp);
	/* A new name in dvp for vp (same mount, not a directory). */
	int (*vop_link)(struct vnode *dvp, const char *name, struct vnode *vp);
	/* Removes the entry name of dvp, which is vp (not a directory). */
	int (*vop_unlink)(struct vnode *dvp, const char *name, struct vnode *vp);
	/* Removes the empty directory vp named name in dvp. */
	int (*vop_rmdir)(struct vnode *dvp, const char *name, struct vnode *vp);
	/*
	 * Moves fdvp/fname (vnode fvp) to tdvp/tname, replacing tvp if it
	 * is not NULL.  The VFS has checked every POSIX rule (types match,
	 * tvp an empty directory if fvp is one, no loop, same mount).
	 */
	int (*vop_rename)(struct vnode *fdvp, const char *fname,
	    struct vnode *fvp, struct vnode *tdvp, const char *tname,
	    struct vnode *tvp);
	/* Regular files: data at uio->uio_offset. */
	int (*vop_read)(struct vnode *vp, struct uio *uio);
	int (*vop_write)(struct vnode *vp, struct uio *uio);
	/*
	 * Changes the attributes named by va->va_mask (VA_SIZE: truncate or
	 * extend with zeros).  Sets v_ctime itself unless VA_CTIME is given.
	 */
	int (*vop_setattr)(struct vnode *vp, const struct vattr *va);
	/*
	 * Directory entries as linux_dirent64 records from the cookie
	 * uio->uio_offset (0: the start), as many as fit whole; leaves
	 * uio_offset at the cookie that resumes.  Cookies stay valid across
	 * insertions and removals.  -EINVAL if the first does not fit.
	 */
	int (*vop_readdir)(struct vnode *vp, struct uio *uio);
	/* The last reference went (see the top of this file). */
	void (*vop_inactive)(struct vnode *vp);
	/*
	 * Optional: vp (a regular file or directory) is being opened into
	 * fp, whose flags are set and whose operations are the vnode
	 * file's.  A file system whose contents are made at open (procfs)
	 * replaces fp->f_ops and f_data here; its fo_close must vrele
	 * fp->f_vnode.  Returns 0 or a negative errno (the open fails).
	 */
	int (*vop_open)(struct vnode *vp, struct file *fp);
	/*
	 * Makes vp's data (and, unless datasync, all its attributes) and
	 * what is needed to reach them durable.  NULL: nothing to do.
	 */
	int (*vop_fsync)(struct vnode *vp, bool datasync);
	/*
	 * Optional (fallocate): gives regular file vp storage for bytes
	 * [off, off + len), past its size too; keepsize leaves v_size as
	 * it is, otherwise it grows to off + len.  The VFS has checked the
	 * arguments.  NULL: -EOPNOTSUPP, as Linux's ext2.
	 */
	int (*vop_allocate)(struct vnode *vp, uint64_t off, uint64_t len,
	    bool keepsize);
	/*
	 * Optional (fallocate's FALLOC_FL_PUNCH_HOLE): regular file vp gives
	 * up the storage of bytes [off, off + len), which read as zeros
	 * afterwards, in every mapping too; v_size stays.  NULL:
	 * -EOPNOTSUPP, as Linux's ext2.
	 */
	int (*vop_punch)(struct vnode *vp, uint64_t off, uint64_t len);
};

/*
 * File systems: vfsops make and tear down a mount.
 */
struct statfs_info {
	uint64_t f_type;	/* Linux magic number */
	uint64_t f_bsize;
	uint64_t f_blocks, f_bfree, f_bavail;
	uint64_t f_files, f_ffree;
	uint64_t f_namelen;
	/* Filled by the VFS (kern_statfs), not the file system: */
	uint64_t f_fsid;	/* the mount's st_dev */
	int f_rdonly;		/* mounted MNT_RDONLY */
};

/*
 * What mount(2) hands a file system (vfs_mount's data; NULL at boot and
 * from kernel callers that want the defaults).
 *
 * Block devices: for a file system with VFCF_REQDEV, mount(2) looks the
 * source path up; it must name a block device (-ENOTBLK) of a registered
 * disk (-ENXIO), and ma_disk is that disk.  The file system reads and
 * writes it through dk->d_strategy (dev/disk.h); it must refuse to write
 * when ma_flags has MNT_RDONLY or dk->d_readonly (then -EROFS, or mount
 * read-only and set MNT_RDONLY in mp->mnt_flags).  Other file systems get
 * ma_disk NULL and the source only as a name for /proc/mounts.  The
 * strings live only during the call (vfs_mount keeps its own copy of the
 * source); the disk's driver must not detach it while it is mounted.
 */
struct mount_args {
	const char *ma_source;	/* as given: "/dev/vkd1", "none" */
	struct disk *ma_disk;	/* VFCF_REQDEV: the disk; else NULL */
	const char *ma_options;	/* Linux's data string ("size=1m,mode=755"),
				 * or NULL; vfs_getopt reads it */
	int ma_flags;		/* MNT_* */
};

#define MNT_RDONLY	0x0001	/* no writes (MS_RDONLY) */

#define VFCF_REQDEV	0x0001	/* mounts a disk (Linux's FS_REQUIRES_DEV) */
#define VFCF_SYNTHETIC	0x0002	/* vnodes are made at each lookup (procfs):
				 * only its root can be mounted on */

struct vfsops {
	const char *vfs_name;
	int vfs_flags;		/* VFCF_* */
	/*
	 * Fills mp->mnt_root (referenced) and mp->mnt_data.  data is a
	 * struct mount_args or NULL (see above); mp->mnt_flags is already
	 * ma_flags.
	 */
	int (*vfs_mount)(struct mount *mp, const void *data);
	/*
	 * Frees everything; only called when no vnode but the root is
	 * referenced, and the root only by the mount.
	 */
	void (*vfs_unmount)(struct mount *mp);
	void (*vfs_statfs)(struct mount *mp, struct statfs_info *sf);
	/*
	 * Writes everything changed back to the disk; with wait, durably.
	 * NULL: nothing to write (memory file systems).
	 */
	int (*vfs_sync)(struct mount *mp, bool wait);
};

struct mount {
	const struct vfsops *mnt_op;
	struct vnode *mnt_root;
	struct vnode *mnt_covered;	/* what it is mounted on; NULL: root */
	dev_t mnt_dev;			/* st_dev of its files */
	int mnt_id;			/* /proc/PID/mountinfo's, from 1 */
	struct disk *mnt_disk;		/* the disk it holds (VFCF_REQDEV) */
	int mnt_flags;			/* MNT_* */
	char *mnt_source;		/* for /proc/mounts, kmalloc'd */
	void *mnt_data;
	TAILQ_HEAD(, vnode) mnt_vnodes;	/* every vnode it has */
	TAILQ_ENTRY(mount) mnt_list;
};

TAILQ_HEAD(mountlist, mount);
extern struct mountlist mountlist;
extern struct vnode *rootvnode;		/* the root of the root file system */

/* Vnode lifetime (vfs_subr.c). */

/*
 * A new vnode of mount mp with one reference, its attributes zero but
 * v_ino, on mp's list.  NULL if memory is short.
 */
struct vnode *vnode_alloc(struct mount *mp, enum vtype type,
    const struct vnops *ops);

/* Frees vp, which has no reference; file systems call it to reclaim. */
void vnode_free(struct vnode *vp);

/*
 * Takes a reference on vp and returns it.  vp may have none yet: a file
 * system hands out its live but unreferenced vnodes this way.
 */
struct vnode *vref(struct vnode *vp);

/* Drops a reference; the last calls vop_inactive.  NULL is ignored. */
void vrele(struct vnode *vp);

/* The current time for timestamps (CLOCK_REALTIME). */
void vfs_timestamp(struct timespec *ts);

/* S_IF* for a vnode type, and back. */
mode_t vtype_to_ifmt(enum vtype t);
enum vtype ifmt_to_vtype(mode_t m);

/* The DT_* of a vnode type for dirents. */
uint8_t vtype_to_dt(enum vtype t);

/*
 * readdir's record: one linux_dirent64 (d_off next, d_type dtype) into
 * the uio.  0, 1 if it does not fit, or a negative errno.
 */
int vfs_dirent_out(struct uio *uio, uint64_t ino, int64_t next,
    uint8_t dtype, const char *name, size_t namelen);

/* Mounts (vfs_mount.c). */

/* The vfsops registered under name ("tmpfs"), or NULL. */
const struct vfsops *vfs_byname(const char *name);

/*
 * Adds ops to the types mount(2) knows, after those of fs/ (a file
 * system of a layer above: procfs).  At boot; registering it again does
 * nothing.  0 or -ENOSPC.
 */
int vfs_register(const struct vfsops *ops);

/* The i-th registered vfsops (from 0), or NULL past the last. */
const struct vfsops *vfs_byindex(int i);

/*
 * Option name of a mount's option string ("size=1m,mode=755"): copies
 * its value (or "" for a bare "ro") into buf and returns 0; -ENOENT if
 * absent, -EINVAL if the value does not fit size bytes with its NUL.
 */
int vfs_getopt(const char *options, const char *name, char *buf,
    size_t size);

/*
 * Mounts a new file system of type ops on directory covered (NULL: as
 * the root, which must not exist yet) with arguments ma (may be NULL).
 * Returns 0 with *mpp, or -EBUSY (already a mount point, the root is
 * taken, or ma_disk is mounted or held by an O_EXCL open), -ENOTDIR, -EINVAL (covered is a VFCF_SYNTHETIC file system's
 * and not its root), -ENOMEM or the file system's error.
 */
int vfs_mount(const struct vfsops *ops, struct vnode *covered,
    const struct mount_args *ma, struct mount **mpp);

/*
 * Unmounts mp: -EBUSY if one of its vnodes is still in use (open,
 * somebody's cwd) or something is mounted inside it.  Unmounting the
 * root is allowed only when nothing else is mounted.
 */
int vfs_unmount(struct mount *mp);

/*
 * Sets up the root file system as rootvnode: ext2 on the named disk, or
 * a tmpfs if disk is NULL.  Returns 0 or a negative errno.
 */
int vfs_mountroot(const char *disk);

/*
 * At shutdown, with no process left: unmounts every file system, the
 * most recent first and the root last, so that each writes back what it
 * holds.  A file system that will not go is logged.
 */
void vfs_unmountall(void);

/*
 * The boot's other mounts: procfs on /proc and devfs on /dev, making the
 * directories if the root lacks them.  Call after the devices and procfs
 * registered (console_init, vfs_register).  Returns 0, -ENODEV without
 * procfs, or a negative errno.
 */
int vfs_mountboot(void);

#endif /* FS_VNODE_H */
