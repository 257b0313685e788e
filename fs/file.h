/*
 * Open files and descriptor tables.
 *
 * A struct file is one open: its flags, its offset and what it reads and
 * writes (a vnode, a pipe, a device).  Descriptors name files; dup and
 * fork make more descriptors for the same file, so they share its offset
 * and status flags, as POSIX says.  Each kind of file has a table of
 * operations (fileops).
 *
 * struct fsproc is a process's file-system state: its descriptor table
 * (struct filedesc) and its current and root directories with its umask
 * (struct pwddesc), each a reference-counted object that clone shares
 * between processes (CLONE_FILES, CLONE_FS), and RLIMIT_FSIZE.  Each
 * process embeds one (kern/proc.h, which defines it: a process sees only
 * pointers to these tables); threads of a process share it.
 *
 * Locking: the big kernel lock.  A file operation may sleep (a pipe, a
 * fifo); callers hold a reference (fget) across it so a concurrent close
 * frees nothing under it.
 */
#ifndef FS_FILE_H
#define FS_FILE_H

#include <stdint.h>
#include <sys/types.h>

#include "fs/stat.h"
#include "kern/proc.h"

struct file;
struct uio;
struct vnode;
struct pollwaiter;
struct ioctl_cmd;
struct epitem;
struct inotify_fileref;

/*
 * Every operation returns 0 (or a count, for lseek and poll) or a
 * negative errno.  read and write move data between the file and the uio
 * at uio->uio_offset, which the caller sets (from f_offset, or pread's
 * offset) and reads back.  A short transfer leaves uio_resid above zero;
 * the caller reports the bytes moved if there are any, else the error.
 */
struct fileops {
	int (*fo_read)(struct file *fp, struct uio *uio);
	int (*fo_write)(struct file *fp, struct uio *uio);
	/*
	 * The commands the file knows (fs/ioctl.h), or NULL for none; only
	 * those reach fo_ioctl.
	 */
	const struct ioctl_cmd *(*fo_ioctls)(struct file *fp);
	/*
	 * data is the kernel copy of the argument as the command's
	 * declaration says: copied in for IOCD_IN, the value as an int for
	 * IOCD_VALUE, copied out after success for IOCD_OUT.
	 */
	int (*fo_ioctl)(struct file *fp, unsigned long cmd, void *data);
	/*
	 * The POLL* events among events (POLLERR and POLLHUP always
	 * count) that are ready now.  With pw not NULL, also records the
	 * caller on the file's wait lists (selrecord) so that a change
	 * wakes it.
	 */
	int (*fo_poll)(struct file *fp, int events, struct pollwaiter *pw);
	int (*fo_stat)(struct file *fp, struct linux_stat *st);
	/* The new offset, or -ESPIPE, -EINVAL. */
	int64_t (*fo_lseek)(struct file *fp, int64_t off, int whence);
	/* The last reference to the file went. */
	void (*fo_close)(struct file *fp);
};

/*
 * DTYPE_ANON: an event file with no name (fs/anon_file.h); DTYPE_PATH:
 * opened with O_PATH, a name for a vnode and nothing more.
 */
enum ftype { DTYPE_VNODE = 1, DTYPE_PIPE, DTYPE_FIFO, DTYPE_DEV, DTYPE_SOCKET,
    DTYPE_ANON, DTYPE_PATH };

struct file {
	int f_count;
	enum ftype f_type;
	int f_flag;		/* O_ACCMODE | O_APPEND | O_NONBLOCK | ... */
	int64_t f_offset;
	const struct fileops *f_ops;
	struct vnode *f_vnode;	/* referenced; NULL for an anonymous pipe */
	void *f_data;		/* the pipe, the device, the socket */
	void *f_devpriv;	/* a device's state for this open (d_open, d_close) */
	struct epitem *f_epitems;	/* its epoll registrations (eventpoll.c) */
	struct inotify_fileref *f_inotify;	/* its name, for inotify.c */
	struct fasync *f_async;	/* its owner for O_ASYNC (fasync.c) */
};

/*
 * Set by fs/fasync.c, above this layer, when it gives a file an entry:
 * fdrop calls it at the last close of a file that has one.
 */
extern void (*file_async_close)(struct file *fp);

/* f_flag bits that fcntl(F_SETFL) may change (Linux's SETFL_MASK). */
#define FSETFL_MASK	(O_APPEND | O_NONBLOCK | O_DIRECT | O_NOATIME | O_ASYNC)

#define FREAD(fp)	(((fp)->f_flag & O_ACCMODE) != O_WRONLY)
#define FWRITE(fp)	(((fp)->f_flag & O_ACCMODE) != O_RDONLY)

/* A descriptor slot. */
struct fdent {
	struct file *fde_file;	/* NULL: free */
	int fde_flags;		/* FD_CLOEXEC */
};

#define NOFILE_DEFAULT	1024	/* RLIMIT_NOFILE's default soft limit */
#define NOFILE_MAX	(1 << 20)	/* Linux's nr_open */

struct filedesc {
	int fd_refcnt;			/* fsprocs sharing it (CLONE_FILES) */
	struct fdent *fd_ofiles;	/* kmalloc'd, fd_nfiles slots */
	int fd_nfiles;
	int fd_freefile;	/* no free slot below it */
	int fd_lastfile;	/* highest used, -1 if none */
	unsigned fd_limit;	/* RLIMIT_NOFILE: descriptors are below it */
};

struct pwddesc {
	int pd_refcnt;			/* fsprocs sharing it (CLONE_FS) */
	struct vnode *pd_cdir;		/* current directory (referenced) */
	struct vnode *pd_rdir;		/* root directory (referenced) */
	mode_t pd_umask;
};

/* fsproc_fork's and fsproc_unshare's sharing flags. */
#define FSP_FILES	0x01	/* the descriptor table */
#define FSP_FS		0x02	/* cwd, root and umask */

/* Files (kern_descrip.c). */

/*
 * A new file with one reference and the given type, flags and
 * operations; NULL if memory is short.
 */
struct file *falloc(enum ftype type, int flags, const struct fileops *ops);

/* Takes a reference on fp. */
struct file *fhold(struct file *fp);

/*
 * Drops a reference; the last takes fp out of the epoll sets it is in,
 * tells inotify, calls fo_close and frees fp.
 */
void fdrop(struct file *fp);

/*
 * The file open on descriptor fd, referenced (fdrop it), or NULL if fd is
 * not open (-EBADF for the caller).  An O_PATH file counts as not open
 * here, as in Linux: it cannot be read, written or otherwise used.
 */
struct file *fget(struct fsproc *p, int fd);

/*
 * fget that also gives O_PATH files: for the calls that only want the
 * file's name (fstat, *at directories, fchdir, dup, some of fcntl).
 */
struct file *fget_raw(struct fsproc *p, int fd);

/*
 * Installs fp on the lowest free descriptor at or above minfd with the
 * given FD_CLOEXEC flags, taking a new reference on fp.  Returns the
 * descriptor, -EMFILE at the limit, -ENOMEM.
 */
int fdalloc(struct fsproc *p, struct file *fp, int minfd, int fdflags);

/* Per-process state (kern_descrip.c). */

/*
 * Initialises p for the first process: no descriptors, cwd and root at
 * root (both referenced), umask 022.  Returns 0 or -ENOMEM.
 */
int fsproc_init(struct fsproc *p, struct vnode *root);

/*
 * Makes child's state from parent's for fork and clone: the parts named
 * in share (FSP_FILES, FSP_FS) are parent's own objects, referenced;
 * the others copies: the same files (references taken, offsets shared),
 * close-on-exec flags, cwd, root and umask.  Returns 0 or -ENOMEM
 * (child is then empty: nothing to release).
 */
int fsproc_fork(struct fsproc *child, const struct fsproc *parent, int share);

/*
 * Gives p private copies of the parts named in what (FSP_FILES, FSP_FS)
 * that it shares with another process (unshare, execve).  0 or -ENOMEM,
 * p unchanged.
 */
int fsproc_unshare(struct fsproc *p, int what);

/*
 * Closes the close-on-exec descriptors, for execve.  The table must be
 * p's own (fsproc_unshare first: an exec does not close the files of a
 * process that shares the table, as in Linux).
 */
void fsproc_exec(struct fsproc *p);

/*
 * Drops p's table and directories, for exit: the last reference to each
 * closes every descriptor and drops cwd and root.
 */
void fsproc_exit(struct fsproc *p);

/*
 * Sets the descriptor limit (RLIMIT_NOFILE) to lim; -EPERM above
 * NOFILE_MAX.  Open descriptors above it stay open, as in Linux.
 */
int fsproc_setlimit(struct fsproc *p, unsigned lim);

/*
 * RLIMIT_FSIZE for p's writes and truncations of regular files: past it
 * they fail with -EXFSZ (kern/kernel.h); a write across it is cut short.
 */
void fsproc_setfsize(struct fsproc *p, uint64_t max);

/* Descriptor system calls (kern_descrip.c). */

/* close(fd): 0 or -EBADF. */
int kern_close(struct fsproc *p, int fd);

/*
 * close_range(first, last, flags): closes the open descriptors from
 * first to last, or with cloexec marks them close-on-exec instead.  The
 * caller has unshared the table for CLOSE_RANGE_UNSHARE.
 */
void kern_close_range(struct fsproc *p, unsigned first, unsigned last,
    bool cloexec);

/* dup(fd): the new descriptor or -EBADF, -EMFILE. */
int kern_dup(struct fsproc *p, int fd);

/*
 * dup3(oldfd, newfd, flags), flags 0 or O_CLOEXEC: newfd, or -EBADF,
 * -EINVAL (oldfd == newfd, bad flags), -ENOMEM.
 */
int kern_dup3(struct fsproc *p, int oldfd, int newfd, int flags);

/* dup2: as dup3 but oldfd == newfd returns newfd if it is open. */
int kern_dup2(struct fsproc *p, int oldfd, int newfd);

/*
 * fcntl for F_DUPFD, F_DUPFD_CLOEXEC, F_GETFD, F_SETFD, F_GETFL,
 * F_SETFL; -EINVAL for other commands (locks are not kept).
 */
int kern_fcntl(struct fsproc *p, int fd, int cmd, uint64_t arg);

/* I/O on descriptors (file_io.c): counts or negative errno. */

/* read/readv on fd at its offset; uio describes the destination. */
int64_t kern_readv(struct fsproc *p, int fd, struct uio *uio);
int64_t kern_writev(struct fsproc *p, int fd, struct uio *uio);

/* pread/pwrite at offset (uio->uio_offset ignored); -ESPIPE on pipes. */
int64_t kern_preadv(struct fsproc *p, int fd, struct uio *uio,
    int64_t offset);
int64_t kern_pwritev(struct fsproc *p, int fd, struct uio *uio,
    int64_t offset);

/* lseek: the new offset or -EBADF, -EINVAL, -ESPIPE. */
int64_t kern_lseek(struct fsproc *p, int fd, int64_t off, int whence);

/*
 * ioctl(fd, cmd, arg) by declaration (fs/ioctl.h): the commands of every
 * file (fd_ioctls: FIOCLEX, FIONCLEX, FIONBIO, FIOASYNC) here, the
 * others by the file's table and fo_ioctl.  0 or a negative errno:
 * -EBADF, -ENOTTY for a command the file does not declare, -EFAULT if
 * the argument cannot be read (before anything is done) or written back.
 */
int kern_ioctl(struct fsproc *p, int fd, unsigned long cmd, uint64_t arg);

/* Vnode files (vfs_vnops.c). */
extern const struct fileops vnops_fileops;

/* O_PATH files (vfs_path.c): each operation but fstat fails. */
extern const struct fileops pathops_fileops;

#endif /* FS_FILE_H */
