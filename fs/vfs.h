/*
 * The file system calls, as kernel functions.  The system-call layer
 * copies paths (copyinstr, at most PATH_MAX bytes with the NUL) and
 * buffers in and out and calls these; each takes kernel pointers and
 * returns 0 (or a count) or a negative errno with Linux's meaning.
 *
 * Every path call takes the process's fsproc (descriptors, cwd, root,
 * umask) and the credential it acts with.  dirfd is a descriptor of a
 * directory or AT_FDCWD, used only for relative paths.
 *
 * Locking: the big kernel lock; calls on fifos may sleep.
 */
#ifndef FS_VFS_H
#define FS_VFS_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "fs/file.h"
#include "fs/stat.h"
#include "fs/vnode.h"

struct ucred;
struct uio;

/* Sets up the VFS: registers the memory devices.  Call once at boot. */
void vfs_init(void);

/* Names (vfs_syscalls.c). */

/*
 * openat: the new descriptor.  Supports O_CREAT, O_EXCL, O_TRUNC,
 * O_APPEND, O_NONBLOCK, O_DIRECTORY, O_NOFOLLOW, O_CLOEXEC, O_PATH (a
 * name only: vfs_path.c); O_TMPFILE gives -EOPNOTSUPP.  A fifo's open may block for
 * its partner (-ERESTARTSYS).
 */
int kern_openat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, int flags, mode_t mode);

/* mknodat: regular files, fifos, sockets, and (root only) devices. */
int kern_mknodat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, mode_t mode, dev_t dev);

int kern_mkdirat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, mode_t mode);

/* unlinkat; with AT_REMOVEDIR it is rmdir. */
int kern_unlinkat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, int flags);

/* renameat2 with flags 0 or RENAME_NOREPLACE (others: -EINVAL). */
int kern_renameat2(struct fsproc *p, struct ucred *cr, int olddirfd,
    const char *oldpath, int newdirfd, const char *newpath, unsigned flags);

/* linkat with flags AT_SYMLINK_FOLLOW, AT_EMPTY_PATH. */
int kern_linkat(struct fsproc *p, struct ucred *cr, int olddirfd,
    const char *oldpath, int newdirfd, const char *newpath, int flags);

int kern_symlinkat(struct fsproc *p, struct ucred *cr, const char *target,
    int newdirfd, const char *linkpath);

/* readlinkat: the bytes placed in buf (not terminated), or -EINVAL. */
int kern_readlinkat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, char *buf, size_t bufsiz);

/* Attributes (vfs_attr.c). */

/*
 * newfstatat with AT_SYMLINK_NOFOLLOW and AT_EMPTY_PATH (stat, lstat
 * and fstat are its special cases).
 */
int kern_fstatat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, struct linux_stat *st, int flags);
int kern_fstat(struct fsproc *p, int fd, struct linux_stat *st);

/* statx: fills the basic fields whatever mask asks. */
int kern_statx(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, int flags, unsigned mask, struct linux_statx *stx);

/*
 * faccessat (mode F_OK or R_OK|W_OK|X_OK) with AT_EACCESS,
 * AT_SYMLINK_NOFOLLOW; checks with the real ids unless AT_EACCESS.
 */
int kern_faccessat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, int mode, int flags);

/* fchmodat (flags 0 or AT_SYMLINK_NOFOLLOW) and fchmod. */
int kern_fchmodat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, mode_t mode, int flags);
int kern_fchmod(struct fsproc *p, struct ucred *cr, int fd, mode_t mode);

/* fchownat (AT_SYMLINK_NOFOLLOW, AT_EMPTY_PATH), fchown; -1 keeps one. */
int kern_fchownat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, uid_t uid, gid_t gid, int flags);
int kern_fchown(struct fsproc *p, struct ucred *cr, int fd, uid_t uid,
    gid_t gid);

/*
 * utimensat: times[0] is the access time, times[1] the modification
 * time, each possibly UTIME_NOW or UTIME_OMIT; times NULL means now.  A
 * NULL path is dirfd's own file (futimens).  Flags AT_SYMLINK_NOFOLLOW,
 * AT_EMPTY_PATH.
 */
int kern_utimensat(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, const struct timespec *times, int flags);

int kern_truncate(struct fsproc *p, struct ucred *cr, const char *path,
    int64_t length);
int kern_ftruncate(struct fsproc *p, int fd, int64_t length);
/*
 * fallocate: mode 0 or FALLOC_FL_KEEP_SIZE, with Linux's checks in its
 * order (EINVAL, EOPNOTSUPP, EBADF, ESPIPE, EISDIR, ENODEV, EFBIG);
 * -EXFSZ past RLIMIT_FSIZE; -EOPNOTSUPP where the file system has no
 * vop_allocate, and for the other modes (hole punching and the ranges).
 */
int kern_fallocate(struct fsproc *p, int fd, int mode, int64_t off,
    int64_t len);

/* statfs numbers of the file system holding path or fd. */
int kern_statfs(struct fsproc *p, struct ucred *cr, const char *path,
    struct statfs_info *sf);
int kern_fstatfs(struct fsproc *p, int fd, struct statfs_info *sf);

/* Directories and the process's place (vfs_cwd.c). */

/* getdents64 into the uio: the bytes written, 0 at the end. */
int64_t kern_getdents64(struct fsproc *p, int fd, struct uio *uio);

int kern_chdir(struct fsproc *p, struct ucred *cr, const char *path);
int kern_fchdir(struct fsproc *p, struct ucred *cr, int fd);

/* chroot (root only). */
int kern_chroot(struct fsproc *p, struct ucred *cr, const char *path);

/*
 * getcwd: the path of the current directory relative to the process root
 * into buf, NUL-terminated; returns its length with the NUL, -ERANGE if
 * size is too small, -ENOENT if the directory was removed.
 */
int kern_getcwd(struct fsproc *p, char *buf, size_t size);

/* umask: sets it (mask & 0777) and returns the old one. */
mode_t kern_umask(struct fsproc *p, mode_t mask);

/* Mounts (vfs_mount.c). */

/*
 * mount(2) of a new file system (root only): fstype (a registered name)
 * on the directory path, from source (a block device for VFCF_REQDEV
 * file systems, else only a name; NULL is "none"), with MNT_* flags and
 * Linux's option string (may be NULL).  -EPERM, -ENODEV (no such type),
 * -ENOTBLK, -ENXIO (source is no disk), the lookup's and vfs_mount's
 * errors.
 */
int kern_mount(struct fsproc *p, struct ucred *cr, const char *source,
    const char *path, const char *fstype, int flags, const char *options);

/*
 * umount2: path must be the root of a mounted file system (-EINVAL);
 * flags may hold LINUX_UMOUNT_NOFOLLOW (the system-call layer refuses the
 * others it does not implement).  -EPERM, -EBUSY.
 */
#define LINUX_UMOUNT_NOFOLLOW	0x8
int kern_umount(struct fsproc *p, struct ucred *cr, const char *path,
    int flags);

/*
 * The path of vp from root directory rdir into buf (NUL-terminated):
 * its length with the NUL, or -ERANGE (size too small), -ENOENT
 * (removed, or a non-directory found neither in directory hint, which
 * may be NULL, nor at the top of its file system), -ENAMETOOLONG.
 */
int vn_fullpath(struct vnode *rdir, struct vnode *vp, struct vnode *hint,
    char *buf, size_t size);

/* Writing back (vfs_sync.c). */

/* fsync (datasync: fdatasync): -EINVAL for pipes and sockets. */
int kern_fsync(struct fsproc *p, int fd, bool datasync);

/* sync: every mounted file system and block-device write, waiting. */
void kern_sync(void);

/*
 * The periodic write-back (the syncer, and the pageout daemon when
 * dirty pages stand in its way): every file system writes its dirty
 * pages and starts the writes of its dirty metadata, without waiting.
 */
void vfs_writeback(void);

/* syncfs: the file system holding fd. */
int kern_syncfs(struct fsproc *p, int fd);

/*
 * At shutdown, from a thread: unmounts every file system it can (waiting
 * a little for dying processes to close their files) and syncs those it
 * cannot.
 */
void vfs_shutdown(void);

/* Extended attributes (vfs_xattr.c): none are kept. */

enum xattr_op { XATTR_GET, XATTR_SET, XATTR_REMOVE, XATTR_LIST };

/*
 * getxattr, setxattr, removexattr, listxattr on path (the last link
 * followed if follow): the lookup's errors, else 0 for XATTR_LIST (no
 * names) and -EOPNOTSUPP for the others.
 */
int kern_xattr_path(struct fsproc *p, struct ucred *cr, const char *path,
    bool follow, enum xattr_op op);

/* The same on descriptor fd: -EBADF if it is not open (or is O_PATH). */
int kern_xattr_fd(struct fsproc *p, int fd, enum xattr_op op);

/* Pipes (pipe.c). */

/* pipe2 with O_CLOEXEC and O_NONBLOCK: fds[0] reads, fds[1] writes. */
int kern_pipe2(struct fsproc *p, struct ucred *cr, int fds[2], int flags);

/* Shared by the VFS (vfs_vnops.c). */

/* Fills a Linux stat of vp. */
void vn_stat(struct vnode *vp, struct linux_stat *st);
struct pollwaiter;
/*
 * The poll and fstat of a file whose data never makes anyone wait (a RAM
 * file system's, a block device's): ready for whatever is asked, and the
 * vnode's attributes.  For file operation tables.
 */
int vn_poll(struct file *fp, int events, struct pollwaiter *pw);
int vn_fstat(struct file *fp, struct linux_stat *st);

/* Fills a Linux statx of vp. */
void vn_statx(struct vnode *vp, struct linux_statx *stx);

/*
 * Makes the open file for vp (referenced; the file takes the reference)
 * with open flags fflags: a regular file or directory, a fifo (may
 * block), a device.  Returns 0 with *fpp, or a negative errno (the
 * reference on vp is then dropped).
 */
int vn_open(struct vnode *vp, int fflags, struct file **fpp);

/*
 * The O_PATH file for vp (referenced; the file takes the reference) with
 * open flags flags (O_DIRECTORY: -ENOTDIR unless vp is a directory).
 * Returns 0 with *fpp, or a negative errno (vp's reference dropped).
 */
int vn_open_path(struct vnode *vp, int flags, struct file **fpp);

/* A fresh inode number, unique machine-wide; and an anonymous st_dev. */
uint64_t vfs_newino(void);
dev_t vfs_anondev(void);

#endif /* FS_VFS_H */
