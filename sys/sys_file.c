/*
 * File-system system calls: paths and buffers are copied in, then the
 * file layer (fs/) does the work.  The *at forms are the real ones; the
 * old forms call them with AT_FDCWD.
 */
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sys/select.h>

#include "fs/fasync.h"
#include "fs/file.h"
#include "fs/lockf.h"
#include "fs/poll.h"
#include "fs/stat.h"
#include "fs/vfs.h"
#include "kern/signal.h"
#include "sys/syscall.h"
#include "kern/uio.h"
#include "kern/kmem.h"

#define P	(&lp->lwp_proc->p_fs)
#define CR	(lp->lwp_proc->p_ucred)
#define FDCWD	((uint64_t)AT_FDCWD)

/* Runs fn with the user path at uaddr copied in. */
#define WITH_PATH(uaddr, call) do {					\
	int error_;							\
	char *path = copyin_path((uaddr), &error_);			\
	if (path == NULL)						\
		return error_;						\
	long r_ = (call);						\
	kfree(path);							\
	return r_;							\
} while (0)

long
sys_lseek(struct lwp *lp, const uint64_t *args)  { return kern_lseek(P, (int)args[0], (int64_t)args[1], (int)args[2]); }
long
sys_dup(struct lwp *lp, const uint64_t *args)    { return kern_dup(P, (int)args[0]); }
long
sys_dup2(struct lwp *lp, const uint64_t *args)   { return kern_dup2(P, (int)args[0], (int)args[1]); }
long
sys_dup3(struct lwp *lp, const uint64_t *args)   { return kern_dup3(P, (int)args[0], (int)args[1], (int)args[2]); }
/* fcntl's record locks: the struct flock in and (F_GETLK) out. */
static long
fcntl_lock(struct lwp *lp, int fd, int cmd, uint64_t ufl)
{
	struct file *fp = fget(P, fd);
	struct flock fl;
	long error;

	if (fp == NULL)
		return -EBADF;
	if (copyin(ufl, &fl, sizeof(fl)) < 0) {
		fdrop(fp);
		return -EFAULT;
	}
	error = vfs_advlock(fp, P->fp_fd, lp->lwp_proc->p_pid, cmd, &fl);
	fdrop(fp);
	if (error == 0 && (cmd == F_GETLK || cmd == F_OFD_GETLK))
		error = copyout(&fl, ufl, sizeof(fl));
	return error;
}

/*
 * fcntl's owner and signal for O_ASYNC (fs/fasync.h): F_SETOWN's
 * negative pid is a process group; F_*OWN_EX copy a struct f_owner_ex.
 */
static long
fcntl_owner(struct lwp *lp, int fd, int cmd, uint64_t arg)
{
	struct file *fp = fget(P, fd);
	struct f_owner_ex ox;
	int type;
	pid_t pid;
	long r = 0;

	if (fp == NULL)
		return -EBADF;
	switch (cmd) {
	case F_SETOWN:
		pid = (int)arg;
		r = fasync_setown(fp, fd, pid < 0 ? FOWNER_PGRP : FOWNER_PID,
		    pid < 0 ? -pid : pid, CR);
		break;
	case F_GETOWN:
		fasync_getown(fp, &type, &pid);
		r = type == FOWNER_PGRP ? -pid : pid;
		break;
	case F_SETOWN_EX:
		if (copyin(arg, &ox, sizeof(ox)) < 0)
			r = -EFAULT;
		else
			r = fasync_setown(fp, fd, (int)ox.type, ox.pid, CR);
		break;
	case F_GETOWN_EX:
		fasync_getown(fp, &type, &pid);
		ox.type = (enum __pid_type)type;
		ox.pid = pid;
		r = copyout(&ox, arg, sizeof(ox));
		break;
	case F_SETSIG:
		r = fasync_setsig(fp, fd, (int)arg);
		break;
	case F_GETSIG:
		r = fasync_getsig(fp);
		break;
	}
	fdrop(fp);
	return r;
}

long
sys_fcntl(struct lwp *lp, const uint64_t *args)
{
	int cmd = (int)args[1];
	switch (cmd) {
	case F_GETLK: case F_SETLK: case F_SETLKW:
	case F_OFD_GETLK: case F_OFD_SETLK: case F_OFD_SETLKW:
		return fcntl_lock(lp, (int)args[0], cmd, args[2]);
	case F_SETOWN: case F_GETOWN: case F_SETOWN_EX: case F_GETOWN_EX:
	case F_SETSIG: case F_GETSIG:
		return fcntl_owner(lp, (int)args[0], cmd, args[2]);
	}
	return kern_fcntl(P, (int)args[0], cmd, args[2]);
}

long
sys_flock(struct lwp *lp, const uint64_t *args)
{
	struct file *fp = fget(P, (int)args[0]);
	if (fp == NULL)
		return -EBADF;
	int error = vfs_flock(fp, (int)args[1]);
	fdrop(fp);
	return error;
}
/*
 * fadvise64(fd, offset, len, advice): advice is a hint, as in Linux, and
 * the buffer cache's read-ahead and write-back do not take hints yet, so
 * a valid call changes nothing.  Its checks are Linux's, in its order.
 */
long
sys_fadvise64(struct lwp *lp, const uint64_t *args)
{
	struct file *fp = fget(P, (int)args[0]);
	long error = 0;

	if (fp == NULL)
		return -EBADF;
	if (fp->f_type == DTYPE_PIPE || fp->f_type == DTYPE_FIFO)
		error = -ESPIPE;
	else if ((int64_t)args[2] < 0 || (int)args[3] < POSIX_FADV_NORMAL ||
	    (int)args[3] > POSIX_FADV_NOREUSE)
		error = -EINVAL;
	fdrop(fp);
	return error;
}

long
sys_fchdir(struct lwp *lp, const uint64_t *args) { return kern_fchdir(P, CR, (int)args[0]); }
long
sys_fchmod(struct lwp *lp, const uint64_t *args) { return kern_fchmod(P, CR, (int)args[0], (mode_t)args[1]); }
long
sys_fchown(struct lwp *lp, const uint64_t *args) { return kern_fchown(P, CR, (int)args[0], (uid_t)args[1], (gid_t)args[2]); }
long
sys_ftruncate(struct lwp *lp, const uint64_t *args) { return syscall_write_result(lp, kern_ftruncate(P, (int)args[0], (int64_t)args[1])); }

long
sys_fallocate(struct lwp *lp, const uint64_t *args) { return syscall_write_result(lp, kern_fallocate(P, (int)args[0], (int)args[1], (int64_t)args[2], (int64_t)args[3])); }

long
sys_umask(struct lwp *lp, const uint64_t *args)
{
	mode_t old = P->fp_pwd->pd_umask;
	P->fp_pwd->pd_umask = (mode_t)args[0] & 0777;
	return old;
}

long
sys_fstat(struct lwp *lp, const uint64_t *args)
{
	struct linux_stat st;
	int error = kern_fstat(P, (int)args[0], &st);
	return error < 0 ? error : copyout(&st, args[1], sizeof(st));
}

static long
fstatat1(struct lwp *lp, int dirfd, uint64_t upath, uint64_t ust, int flags)
{
	struct linux_stat st;
	int error;
	char *path = copyin_path(upath, &error);
	if (path == NULL)
		return error;
	error = kern_fstatat(P, CR, dirfd, path, &st, flags);
	kfree(path);
	return error < 0 ? error : copyout(&st, ust, sizeof(st));
}

long
sys_newfstatat(struct lwp *lp, const uint64_t *args) { return fstatat1(lp, (int)args[0], args[1], args[2], (int)args[3]); }
long
sys_stat(struct lwp *lp, const uint64_t *args)       { return fstatat1(lp, AT_FDCWD, args[0], args[1], 0); }
long
sys_lstat(struct lwp *lp, const uint64_t *args)      { return fstatat1(lp, AT_FDCWD, args[0], args[1], AT_SYMLINK_NOFOLLOW); }

long
sys_statx(struct lwp *lp, const uint64_t *args)
{
	struct linux_statx stx;
	int error;
	char *path = copyin_path(args[1], &error);
	if (path == NULL)
		return error;
	error = kern_statx(P, CR, (int)args[0], path, (int)args[2],
	    (unsigned)args[3], &stx);
	kfree(path);
	return error < 0 ? error : copyout(&stx, args[4], sizeof(stx));
}

long
sys_getdents64(struct lwp *lp, const uint64_t *args)
{
	struct uio uio;
	struct kiovec iov = { args[1], args[2] };
	uio = (struct uio){ &iov, 1, 0, args[2], UIO_USERSPACE, UIO_READ,
	    lp->lwp_proc->p_vmspace };
	return kern_getdents64(P, (int)args[0], &uio);
}

long
sys_mkdirat(struct lwp *lp, const uint64_t *args) { WITH_PATH(args[1], kern_mkdirat(P, CR, (int)args[0], path, (mode_t)args[2])); }
long
sys_mkdir(struct lwp *lp, const uint64_t *args)   { WITH_PATH(args[0], kern_mkdirat(P, CR, AT_FDCWD, path, (mode_t)args[1])); }
long
sys_unlinkat(struct lwp *lp, const uint64_t *args) { WITH_PATH(args[1], kern_unlinkat(P, CR, (int)args[0], path, (int)args[2])); }
long
sys_unlink(struct lwp *lp, const uint64_t *args)  { WITH_PATH(args[0], kern_unlinkat(P, CR, AT_FDCWD, path, 0)); }
long
sys_rmdir(struct lwp *lp, const uint64_t *args)   { WITH_PATH(args[0], kern_unlinkat(P, CR, AT_FDCWD, path, AT_REMOVEDIR)); }
long
sys_chdir(struct lwp *lp, const uint64_t *args)   { WITH_PATH(args[0], kern_chdir(P, CR, path)); }
long
sys_chroot(struct lwp *lp, const uint64_t *args)  { WITH_PATH(args[0], kern_chroot(P, CR, path)); }
long
sys_mknodat(struct lwp *lp, const uint64_t *args) { WITH_PATH(args[1], kern_mknodat(P, CR, (int)args[0], path, (mode_t)args[2], (dev_t)args[3])); }
long
sys_mknod(struct lwp *lp, const uint64_t *args)   { WITH_PATH(args[0], kern_mknodat(P, CR, AT_FDCWD, path, (mode_t)args[1], (dev_t)args[2])); }
long
sys_faccessat(struct lwp *lp, const uint64_t *args) { WITH_PATH(args[1], kern_faccessat(P, CR, (int)args[0], path, (int)args[2], 0)); }
long
sys_faccessat2(struct lwp *lp, const uint64_t *args) { WITH_PATH(args[1], kern_faccessat(P, CR, (int)args[0], path, (int)args[2], (int)args[3])); }
long
sys_access(struct lwp *lp, const uint64_t *args)  { WITH_PATH(args[0], kern_faccessat(P, CR, AT_FDCWD, path, (int)args[1], 0)); }
long
sys_fchmodat(struct lwp *lp, const uint64_t *args) { WITH_PATH(args[1], kern_fchmodat(P, CR, (int)args[0], path, (mode_t)args[2], 0)); }
long
sys_chmod(struct lwp *lp, const uint64_t *args)   { WITH_PATH(args[0], kern_fchmodat(P, CR, AT_FDCWD, path, (mode_t)args[1], 0)); }
long
sys_fchownat(struct lwp *lp, const uint64_t *args) { WITH_PATH(args[1], kern_fchownat(P, CR, (int)args[0], path, (uid_t)args[2], (gid_t)args[3], (int)args[4])); }
long
sys_chown(struct lwp *lp, const uint64_t *args)   { WITH_PATH(args[0], kern_fchownat(P, CR, AT_FDCWD, path, (uid_t)args[1], (gid_t)args[2], 0)); }
long
sys_lchown(struct lwp *lp, const uint64_t *args)  { WITH_PATH(args[0], kern_fchownat(P, CR, AT_FDCWD, path, (uid_t)args[1], (gid_t)args[2], AT_SYMLINK_NOFOLLOW)); }
long
sys_truncate(struct lwp *lp, const uint64_t *args) { WITH_PATH(args[0], syscall_write_result(lp, kern_truncate(P, CR, path, (int64_t)args[1]))); }

/* Two paths: renames and links. */
static long
twopaths(struct lwp *lp, uint64_t u1, uint64_t u2,
    long (*fn)(struct lwp *, const char *, const char *, const uint64_t *),
    const uint64_t *args)
{
	int error;
	char *a = copyin_path(u1, &error), *b = NULL;
	if (a == NULL)
		return error;
	b = copyin_path(u2, &error);
	long r = b != NULL ? fn(lp, a, b, args) : error;
	kfree(a);
	kfree(b);
	return r;
}

static long
do_rename(struct lwp *lp, const char *a, const char *b, const uint64_t *args)
{
	return kern_renameat2(P, CR, (int)args[0], a, (int)args[2], b, (unsigned)args[4]);
}

static long
do_link(struct lwp *lp, const char *a, const char *b, const uint64_t *args)
{
	return kern_linkat(P, CR, (int)args[0], a, (int)args[2], b, (int)args[4]);
}

static long
do_symlink(struct lwp *lp, const char *a, const char *b, const uint64_t *args)
{
	return kern_symlinkat(P, CR, a, (int)args[1], b);
}

long
sys_renameat2(struct lwp *lp, const uint64_t *args) { return twopaths(lp, args[1], args[3], do_rename, args); }
long
sys_renameat(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[5] = { args[0], args[1], args[2], args[3], 0 };
	return twopaths(lp, args[1], args[3], do_rename, a);
}
long
sys_rename(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[5] = { FDCWD, args[0], FDCWD, args[1], 0 };
	return twopaths(lp, args[0], args[1], do_rename, a);
}
long
sys_linkat(struct lwp *lp, const uint64_t *args) { return twopaths(lp, args[1], args[3], do_link, args); }
long
sys_link(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[5] = { FDCWD, args[0], FDCWD, args[1], 0 };
	return twopaths(lp, args[0], args[1], do_link, a);
}
long
sys_symlinkat(struct lwp *lp, const uint64_t *args) { return twopaths(lp, args[0], args[2], do_symlink, args); }
long
sys_symlink(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[3] = { args[0], FDCWD, args[1] };
	return twopaths(lp, args[0], args[1], do_symlink, a);
}

static long
readlink1(struct lwp *lp, int dirfd, uint64_t upath, uint64_t ubuf, uint64_t size)
{
	int error;
	if ((int64_t)size <= 0)
		return -EINVAL;
	char *path = copyin_path(upath, &error);
	if (path == NULL)
		return error;
	char *buf = kmalloc(PATH_MAX, 0);
	error = buf == NULL ? -ENOMEM :
	    kern_readlinkat(P, CR, dirfd, path, buf, MIN(size, PATH_MAX));
	if (error > 0 && copyout(buf, ubuf, (size_t)error) < 0)
		error = -EFAULT;
	kfree(buf);
	kfree(path);
	return error;
}

long
sys_readlinkat(struct lwp *lp, const uint64_t *args) { return readlink1(lp, (int)args[0], args[1], args[2], args[3]); }
long
sys_readlink(struct lwp *lp, const uint64_t *args)   { return readlink1(lp, AT_FDCWD, args[0], args[1], args[2]); }

long
sys_getcwd(struct lwp *lp, const uint64_t *args)
{
	char *buf = kmalloc(PATH_MAX, 0);
	if (buf == NULL)
		return -ENOMEM;
	int r = kern_getcwd(P, buf, MIN(args[1], PATH_MAX));
	if (r > 0 && copyout(buf, args[0], (size_t)r) < 0)
		r = -EFAULT;
	kfree(buf);
	return r;
}

long
sys_pipe2(struct lwp *lp, const uint64_t *args)
{
	int fds[2];
	int error = kern_pipe2(P, CR, fds, (int)args[1]);
	if (error < 0)
		return error;
	if (copyout(fds, args[0], sizeof(fds)) < 0) {
		kern_close(P, fds[0]);
		kern_close(P, fds[1]);
		return -EFAULT;
	}
	return 0;
}

long
sys_pipe(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[2] = { args[0], 0 };
	return sys_pipe2(lp, a);
}

/* poll(fds, nfds, timeout in ms; negative: forever). */
static long
poll1(struct lwp *lp, uint64_t ufds, unsigned nfds, int64_t timeout_ns)
{
	if (nfds > lp->lwp_proc->p_rlimit[RLIMIT_NOFILE].rlim_cur)
		return -EINVAL;
	struct pollfd *fds = kmalloc(nfds * sizeof(*fds) + 1, 0);
	if (fds == NULL)
		return -ENOMEM;
	long r = copyin(ufds, fds, nfds * sizeof(*fds));
	if (r == 0) {
		r = kern_poll(P, fds, nfds, timeout_ns);
		if (r >= 0 && copyout(fds, ufds, nfds * sizeof(*fds)) < 0)
			r = -EFAULT;
	}
	kfree(fds);
	return r;
}

long
sys_poll(struct lwp *lp, const uint64_t *args)
{
	int64_t ms = (int)args[2];
	return poll1(lp, args[0], (unsigned)args[1], ms < 0 ? -1 : ms * 1000000);
}

long
sys_pread64(struct lwp *lp, const uint64_t *args)
{
	if (!user_range_ok(args[1], args[2]))
		return -EFAULT;
	struct kiovec iov = { args[1], args[2] };
	struct uio uio = { &iov, 1, 0, args[2], UIO_USERSPACE, UIO_READ,
	    lp->lwp_proc->p_vmspace };
	return kern_preadv(P, (int)args[0], &uio, (int64_t)args[3]);
}

long
sys_pwrite64(struct lwp *lp, const uint64_t *args)
{
	if (!user_range_ok(args[1], args[2]))
		return -EFAULT;
	struct kiovec iov = { args[1], args[2] };
	struct uio uio = { &iov, 1, 0, args[2], UIO_USERSPACE, UIO_WRITE,
	    lp->lwp_proc->p_vmspace };
	return syscall_write_result(lp, kern_pwritev(P, (int)args[0], &uio, (int64_t)args[3]));
}

long
sys_utimensat(struct lwp *lp, const uint64_t *args)
{
	struct timespec ts[2];
	int error;
	if (args[2] != 0 && copyin(args[2], ts, sizeof(ts)) < 0)
		return -EFAULT;
	char *path = NULL;
	if (args[1] != 0 && (path = copyin_path(args[1], &error)) == NULL)
		return error;
	error = kern_utimensat(P, CR, (int)args[0], path, args[2] ? ts : NULL,
	    (int)args[3]);
	kfree(path);
	return error;
}

/*
 * The old forms of utimensat: utime(path, utimbuf) in seconds, utimes
 * (path, timeval[2]) and futimesat(dirfd, path, timeval[2]) in
 * microseconds (EINVAL past 999999, as Linux); no times means now.
 */
static long
utimes1(struct lwp *lp, int dirfd, uint64_t upath, uint64_t utimes, bool tv)
{
	struct timespec ts[2];
	int error;
	if (utimes != 0 && tv) {
		struct timeval t[2];
		if (copyin(utimes, t, sizeof(t)) < 0)
			return -EFAULT;
		for (int i = 0; i < 2; i++) {
			if (t[i].tv_usec < 0 || t[i].tv_usec >= 1000000)
				return -EINVAL;
			ts[i] = (struct timespec){ t[i].tv_sec,
			    t[i].tv_usec * 1000 };
		}
	} else if (utimes != 0) {
		int64_t t[2];		/* struct utimbuf: actime, modtime */
		if (copyin(utimes, t, sizeof(t)) < 0)
			return -EFAULT;
		for (int i = 0; i < 2; i++)
			ts[i] = (struct timespec){ t[i], 0 };
	}
	char *path = NULL;
	if (upath != 0 && (path = copyin_path(upath, &error)) == NULL)
		return error;
	error = kern_utimensat(P, CR, dirfd, path, utimes != 0 ? ts : NULL, 0);
	kfree(path);
	return error;
}

long
sys_utime(struct lwp *lp, const uint64_t *args)
{
	return utimes1(lp, AT_FDCWD, args[0], args[1], false);
}

long
sys_utimes(struct lwp *lp, const uint64_t *args)
{
	return utimes1(lp, AT_FDCWD, args[0], args[1], true);
}

long
sys_futimesat(struct lwp *lp, const uint64_t *args)
{
	return utimes1(lp, (int)args[0], args[1], args[2], true);
}

/*
 * select and pselect6, over kern_poll: each descriptor in the sets
 * becomes a pollfd, and the results go back into the sets.
 */
static long
select1(struct lwp *lp, int nfds, uint64_t urd, uint64_t uwr, uint64_t uex,
    int64_t timeout_ns)
{
	uint64_t in[3][FD_SETSIZE / 64], out[3][FD_SETSIZE / 64];
	const uint64_t uset[3] = { urd, uwr, uex };

	if (nfds < 0)
		return -EINVAL;
	/* As Linux: no further than the descriptor table goes. */
	nfds = MIN(nfds, roundup2(P->fp_fd->fd_nfiles, 64));
	if (nfds > FD_SETSIZE)
		return -EINVAL;		/* descriptors past FD_SETSIZE: not yet */
	size_t bytes = (size_t)howmany(nfds, 64) * 8;
	memset(in, 0, sizeof(in));
	memset(out, 0, sizeof(out));
	for (int i = 0; i < 3; i++)
		if (uset[i] != 0 && copyin(uset[i], in[i], bytes) < 0)
			return -EFAULT;
	struct pollfd *fds = kmalloc((size_t)nfds * sizeof(*fds) + 1, 0);
	if (fds == NULL)
		return -ENOMEM;
	unsigned n = 0;
	for (int fd = 0; fd < nfds; fd++) {
		short ev = 0;
		if (in[0][fd / 64] & (1ULL << (fd % 64))) ev |= POLLIN;
		if (in[1][fd / 64] & (1ULL << (fd % 64))) ev |= POLLOUT;
		if (in[2][fd / 64] & (1ULL << (fd % 64))) ev |= POLLPRI;
		if (ev != 0)
			fds[n++] = (struct pollfd){ fd, ev, 0 };
	}
	long r = kern_poll(P, fds, n, timeout_ns);
	long count = 0;
	for (unsigned i = 0; r >= 0 && i < n; i++) {
		int fd = fds[i].fd;
		short re = fds[i].revents;
		if (re & POLLNVAL) {
			r = -EBADF;
			break;
		}
		uint64_t bit = 1ULL << (fd % 64);
		if ((fds[i].events & POLLIN) && (re & (POLLIN | POLLHUP | POLLERR)))
			out[0][fd / 64] |= bit, count++;
		if ((fds[i].events & POLLOUT) && (re & (POLLOUT | POLLERR)))
			out[1][fd / 64] |= bit, count++;
		if ((fds[i].events & POLLPRI) && (re & POLLPRI))
			out[2][fd / 64] |= bit, count++;
	}
	kfree(fds);
	if (r < 0)
		return r;
	for (int i = 0; i < 3; i++)
		if (uset[i] != 0 && copyout(out[i], uset[i], bytes) < 0)
			return -EFAULT;
	return count;
}

/*
 * The time left of a wait that was to end at deadline (ns of uptime), as
 * select, pselect6 and ppoll write it back: 0 once past.
 */
static int64_t
time_left(int64_t deadline)
{
	int64_t now = (int64_t)nanouptime();
	return deadline > now ? deadline - now : 0;
}

/*
 * Writes back the time left as Linux's poll_select_finish: nothing for
 * a zero timeout; if the copy fails, an interrupted call is not
 * restarted (its time would be lost) and gives EINTR.
 */
static long
timeout_finish(long r, int64_t timeout, int64_t deadline, uint64_t uaddr,
    bool timeval)
{
	if (timeout <= 0)
		return r;
	int64_t left = time_left(deadline);
	int error;
	if (timeval) {
		struct timeval tv = { left / 1000000000, left % 1000000000 / 1000 };
		error = copyout(&tv, uaddr, sizeof(tv));
	} else {
		struct timespec ts = { left / 1000000000, left % 1000000000 };
		error = copyout(&ts, uaddr, sizeof(ts));
	}
	return error < 0 && r == -ERESTARTNOHAND ? -EINTR : r;
}

long
sys_select(struct lwp *lp, const uint64_t *args)
{
	int64_t timeout = -1;
	if (args[4] != 0) {
		struct timeval tv;
		if (copyin(args[4], &tv, sizeof(tv)) < 0)
			return -EFAULT;
		if (tv.tv_sec < 0 || tv.tv_usec < 0 || tv.tv_usec >= 1000000)
			return -EINVAL;
		timeout = tv.tv_sec * 1000000000LL + tv.tv_usec * 1000LL;
	}
	int64_t deadline = (int64_t)nanouptime() + timeout;
	long r = select1(lp, (int)args[0], args[1], args[2], args[3], timeout);
	return timeout_finish(r, timeout, deadline, args[4], true);
}

/* A timespec timeout in ns: -1 for none (NULL), -EFAULT, -EINVAL. */
static int64_t
timespec_timeout(uint64_t uts, int *error)
{
	struct timespec ts;
	*error = 0;
	if (uts == 0)
		return -1;
	if (copyin(uts, &ts, sizeof(ts)) < 0)
		*error = -EFAULT;
	else if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
		*error = -EINVAL;
	return *error < 0 ? 0 : ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
wait_sigmask(struct lwp *lp, uint64_t umask, uint64_t size, ksigset_t *old)
{
	ksigset_t set;
	*old = lp->lwp_sigmask;
	if (umask == 0)
		return 0;
	if (size != sizeof(set))
		return -EINVAL;
	if (copyin(umask, &set, sizeof(set)) < 0)
		return -EFAULT;
	lp->lwp_sigmask = set & ~(SIGBIT(SIGKILL) | SIGBIT(SIGSTOP));
	return 0;
}

void
wait_sigmask_done(struct lwp *lp, long r, ksigset_t old)
{
	if (r == -ERESTARTNOHAND && lp->lwp_sigmask != old) {
		lp->lwp_oldmask = old;
		lp->lwp_flags |= LWP_OLDMASK;
	} else {
		lp->lwp_sigmask = old;
	}
}

/* pselect6: a timespec, and a signal mask for the wait ({ mask, size }). */
long
sys_pselect6(struct lwp *lp, const uint64_t *args)
{
	int error;
	int64_t timeout = timespec_timeout(args[4], &error);
	if (error < 0)
		return error;
	uint64_t m[2] = { 0, 0 };
	if (args[5] != 0 && copyin(args[5], m, sizeof(m)) < 0)
		return -EFAULT;
	ksigset_t old;
	if ((error = wait_sigmask(lp, m[0], m[1], &old)) < 0)
		return error;
	int64_t deadline = (int64_t)nanouptime() + timeout;
	long r = select1(lp, (int)args[0], args[1], args[2], args[3], timeout);
	wait_sigmask_done(lp, r, old);
	return timeout_finish(r, timeout, deadline, args[4], false);
}

/* ppoll(fds, nfds, timeout, sigmask, sigsetsize) */
long
sys_ppoll(struct lwp *lp, const uint64_t *args)
{
	int error;
	int64_t timeout = timespec_timeout(args[2], &error);
	if (error < 0)
		return error;
	ksigset_t old;
	if ((error = wait_sigmask(lp, args[3], args[4], &old)) < 0)
		return error;
	int64_t deadline = (int64_t)nanouptime() + timeout;
	long r = poll1(lp, args[0], (unsigned)args[1], timeout);
	wait_sigmask_done(lp, r, old);
	return timeout_finish(r, timeout, deadline, args[2], false);
}

long
sys_fsync(struct lwp *lp, const uint64_t *args)     { return kern_fsync(P, (int)args[0], false); }
long
sys_fdatasync(struct lwp *lp, const uint64_t *args) { return kern_fsync(P, (int)args[0], true); }
long
sys_syncfs(struct lwp *lp, const uint64_t *args)    { return kern_syncfs(P, (int)args[0]); }

long
sys_sync(struct lwp *lp __unused, const uint64_t *args __unused)
{
	kern_sync();
	return 0;
}

