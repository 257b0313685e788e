/*
 * Open files and descriptor tables: allocation, dup, fcntl, and a
 * process's table and directories at fork (copied or shared), exec and
 * exit.
 *
 * The table is an array that doubles as descriptors are taken, up to the
 * process's RLIMIT_NOFILE.  fd_freefile remembers that no slot below it
 * is free, so allocation after a run of opens does not rescan from 0.
 */
#include "fs/eventpoll.h"
#include "fs/file.h"
#include "fs/inotify.h"
#include "fs/lockf.h"
#include "fs/pipe.h"
#include "fs/tmpfs/tmpfs.h"
#include "fs/vnode.h"
#include "kern/thread.h"
#include "kern/kmem.h"

#define NDFILE_FIRST	32	/* slots in a table's first array */

struct file *
falloc(enum ftype type, int flags, const struct fileops *ops)
{
	struct file *fp = kmalloc(sizeof(*fp), KM_ZERO);
	if (fp == NULL)
		return NULL;
	fp->f_count = 1;
	fp->f_type = type;
	fp->f_flag = flags;
	fp->f_ops = ops;
	return fp;
}

struct file *
fhold(struct file *fp)
{
	KASSERT(fp->f_count > 0, "fhold: dead file");
	fp->f_count++;
	return fp;
}

void (*file_async_close)(struct file *fp);

void
fdrop(struct file *fp)
{
	KASSERT(fp->f_count > 0, "fdrop: dead file");
	if (--fp->f_count > 0)
		return;
	if (fp->f_vnode != NULL)
		vfs_lock_release(fp->f_vnode, fp);
	if (fp->f_epitems != NULL)
		eventpoll_release(fp);
	if (fp->f_async != NULL)
		file_async_close(fp);
	if (fp->f_vnode != NULL)
		inotify_close(fp);
	fp->f_ops->fo_close(fp);
	kfree(fp);
}

struct file *
fget_raw(struct fsproc *p, int fd)
{
	struct filedesc *fdp = p->fp_fd;

	if (fd < 0 || fd >= fdp->fd_nfiles || fdp->fd_ofiles[fd].fde_file == NULL)
		return NULL;
	return fhold(fdp->fd_ofiles[fd].fde_file);
}

struct file *
fget(struct fsproc *p, int fd)
{
	struct filedesc *fdp = p->fp_fd;

	if (fd < 0 || fd >= fdp->fd_nfiles || fdp->fd_ofiles[fd].fde_file == NULL ||
	    fdp->fd_ofiles[fd].fde_file->f_type == DTYPE_PATH)
		return NULL;
	return fhold(fdp->fd_ofiles[fd].fde_file);
}

/* Makes room for descriptor fd (below the limit); 0 or -ENOMEM. */
static int
fdgrow(struct filedesc *fdp, int fd)
{
	if (fd < fdp->fd_nfiles)
		return 0;
	int n = MAX(fdp->fd_nfiles, NDFILE_FIRST);
	while (n <= fd)
		n *= 2;
	if ((unsigned)n > fdp->fd_limit)
		n = (int)fdp->fd_limit;	/* callers keep fd below it */
	struct fdent *nf = kmalloc((size_t)n * sizeof(*nf), KM_ZERO);
	if (nf == NULL)
		return -ENOMEM;
	if (fdp->fd_nfiles > 0)
		memcpy(nf, fdp->fd_ofiles, (size_t)fdp->fd_nfiles * sizeof(*nf));
	kfree(fdp->fd_ofiles);
	fdp->fd_ofiles = nf;
	fdp->fd_nfiles = n;
	return 0;
}

/* Puts fp (a reference the table takes over) in free slot fd. */
static void
fdinstall(struct filedesc *fdp, int fd, struct file *fp, int fdflags)
{
	KASSERT(kernel_locked(), "fdinstall: big lock not held");
	fdp->fd_ofiles[fd].fde_file = fp;
	fdp->fd_ofiles[fd].fde_flags = fdflags & FD_CLOEXEC;
	if (fd > fdp->fd_lastfile)
		fdp->fd_lastfile = fd;
	if (fd == fdp->fd_freefile)
		fdp->fd_freefile = fd + 1;
}

/* Empties slot fd and returns the file it held. */
static struct file *
fdremove(struct filedesc *fdp, int fd)
{
	struct file *fp = fdp->fd_ofiles[fd].fde_file;

	KASSERT(kernel_locked(), "fdremove: big lock not held");
	/* Closing any descriptor of a file drops the process's POSIX locks. */
	if (fp->f_vnode != NULL)
		vfs_lock_close(fp->f_vnode, fdp);
	fdp->fd_ofiles[fd].fde_file = NULL;
	fdp->fd_ofiles[fd].fde_flags = 0;
	if (fd < fdp->fd_freefile)
		fdp->fd_freefile = fd;
	while (fdp->fd_lastfile >= 0 &&
	    fdp->fd_ofiles[fdp->fd_lastfile].fde_file == NULL)
		fdp->fd_lastfile--;
	return fp;
}

int
fdalloc(struct fsproc *p, struct file *fp, int minfd, int fdflags)
{
	struct filedesc *fdp = p->fp_fd;
	int fd = MAX(minfd, fdp->fd_freefile);

	while (fd < fdp->fd_nfiles && fdp->fd_ofiles[fd].fde_file != NULL)
		fd++;
	if ((unsigned)fd >= fdp->fd_limit)
		return -EMFILE;
	int error = fdgrow(fdp, fd);
	if (error < 0)
		return error;
	fdinstall(fdp, fd, fhold(fp), fdflags);
	return fd;
}

/* A new empty descriptor table with limit lim, or NULL. */
static struct filedesc *
filedesc_alloc(unsigned lim)
{
	struct filedesc *fdp = kmalloc(sizeof(*fdp), KM_ZERO);
	if (fdp == NULL)
		return NULL;
	fdp->fd_refcnt = 1;
	fdp->fd_lastfile = -1;
	fdp->fd_limit = lim;
	return fdp;
}

/* A copy of table pfd: the same files, referenced; NULL if memory is short. */
static struct filedesc *
filedesc_copy(const struct filedesc *pfd)
{
	struct filedesc *cfd = filedesc_alloc(pfd->fd_limit);
	if (cfd == NULL || pfd->fd_lastfile < 0)
		return cfd;
	int n = pfd->fd_lastfile + 1;
	cfd->fd_ofiles = kmalloc((size_t)n * sizeof(struct fdent), KM_ZERO);
	if (cfd->fd_ofiles == NULL) {
		kfree(cfd);
		return NULL;
	}
	cfd->fd_nfiles = n;
	for (int fd = 0; fd < n; fd++) {
		struct fdent *fde = &pfd->fd_ofiles[fd];
		if (fde->fde_file != NULL)
			fdinstall(cfd, fd, fhold(fde->fde_file), fde->fde_flags);
	}
	cfd->fd_freefile = pfd->fd_freefile;
	return cfd;
}

/* Drops a reference to fdp; the last closes every descriptor. */
static void
filedesc_rele(struct filedesc *fdp)
{
	KASSERT(fdp->fd_refcnt > 0, "filedesc_rele: freed table");
	if (--fdp->fd_refcnt > 0)
		return;
	/* Highest first, so fd_lastfile shrinks without a rescan. */
	for (int fd = fdp->fd_lastfile; fd >= 0; fd--)
		if (fdp->fd_ofiles[fd].fde_file != NULL)
			fdrop(fdremove(fdp, fd));
	kfree(fdp->fd_ofiles);
	kfree(fdp);
}

/* A pwddesc with cwd cdir, root rdir (references taken), or NULL. */
static struct pwddesc *
pwddesc_alloc(struct vnode *cdir, struct vnode *rdir, mode_t umask)
{
	struct pwddesc *pd = kmalloc(sizeof(*pd), 0);
	if (pd == NULL)
		return NULL;
	pd->pd_refcnt = 1;
	pd->pd_cdir = vref(cdir);
	pd->pd_rdir = vref(rdir);
	pd->pd_umask = umask;
	return pd;
}

static void
pwddesc_rele(struct pwddesc *pd)
{
	KASSERT(pd->pd_refcnt > 0, "pwddesc_rele: freed pwddesc");
	if (--pd->pd_refcnt > 0)
		return;
	vrele(pd->pd_cdir);
	vrele(pd->pd_rdir);
	kfree(pd);
}

int
fsproc_init(struct fsproc *p, struct vnode *root)
{
	memset(p, 0, sizeof(*p));
	p->fp_fsize = UINT64_MAX;
	if ((p->fp_fd = filedesc_alloc(NOFILE_DEFAULT)) == NULL)
		return -ENOMEM;
	if ((p->fp_pwd = pwddesc_alloc(root, root, 022)) == NULL) {
		filedesc_rele(p->fp_fd);
		p->fp_fd = NULL;
		return -ENOMEM;
	}
	return 0;
}

int
fsproc_fork(struct fsproc *child, const struct fsproc *parent, int share)
{
	const struct pwddesc *ppd = parent->fp_pwd;

	memset(child, 0, sizeof(*child));
	child->fp_fsize = parent->fp_fsize;
	if (share & FSP_FILES) {
		child->fp_fd = parent->fp_fd;
		child->fp_fd->fd_refcnt++;
	} else if ((child->fp_fd = filedesc_copy(parent->fp_fd)) == NULL) {
		return -ENOMEM;
	}
	if (share & FSP_FS) {
		child->fp_pwd = parent->fp_pwd;
		child->fp_pwd->pd_refcnt++;
	} else if ((child->fp_pwd = pwddesc_alloc(ppd->pd_cdir, ppd->pd_rdir,
	    ppd->pd_umask)) == NULL) {
		filedesc_rele(child->fp_fd);
		child->fp_fd = NULL;
		return -ENOMEM;
	}
	return 0;
}

int
fsproc_unshare(struct fsproc *p, int what)
{
	struct filedesc *fdp = NULL;
	struct pwddesc *pd = NULL;
	const struct pwddesc *opd = p->fp_pwd;

	if ((what & FSP_FILES) && p->fp_fd->fd_refcnt > 1 &&
	    (fdp = filedesc_copy(p->fp_fd)) == NULL)
		return -ENOMEM;
	if ((what & FSP_FS) && opd->pd_refcnt > 1 && (pd =
	    pwddesc_alloc(opd->pd_cdir, opd->pd_rdir, opd->pd_umask)) == NULL) {
		if (fdp != NULL)
			filedesc_rele(fdp);
		return -ENOMEM;
	}
	if (fdp != NULL) {
		filedesc_rele(p->fp_fd);
		p->fp_fd = fdp;
	}
	if (pd != NULL) {
		pwddesc_rele(p->fp_pwd);
		p->fp_pwd = pd;
	}
	return 0;
}

void
fsproc_exec(struct fsproc *p)
{
	struct filedesc *fdp = p->fp_fd;

	KASSERT(fdp->fd_refcnt == 1, "fsproc_exec: shared descriptor table");
	for (int fd = 0; fd <= fdp->fd_lastfile; fd++)
		if (fdp->fd_ofiles[fd].fde_file != NULL &&
		    (fdp->fd_ofiles[fd].fde_flags & FD_CLOEXEC))
			fdrop(fdremove(fdp, fd));
}

void
fsproc_exit(struct fsproc *p)
{
	filedesc_rele(p->fp_fd);
	pwddesc_rele(p->fp_pwd);
	p->fp_fd = NULL;
	p->fp_pwd = NULL;
}

int
fsproc_setlimit(struct fsproc *p, unsigned lim)
{
	if (lim > NOFILE_MAX)
		return -EPERM;
	p->fp_fd->fd_limit = lim;
	return 0;
}

void
fsproc_setfsize(struct fsproc *p, uint64_t max)
{
	p->fp_fsize = max;
}

int
kern_close(struct fsproc *p, int fd)
{
	struct filedesc *fdp = p->fp_fd;

	if (fd < 0 || fd >= fdp->fd_nfiles || fdp->fd_ofiles[fd].fde_file == NULL)
		return -EBADF;
	fdrop(fdremove(fdp, fd));
	return 0;
}

void
kern_close_range(struct fsproc *p, unsigned first, unsigned last, bool cloexec)
{
	struct filedesc *fdp = p->fp_fd;

	/*
	 * fd_lastfile is read again each turn: a close may sleep.  The
	 * comparison is unsigned: a first past INT_MAX is past every file.
	 */
	for (unsigned fd = first; fd <= last; fd++) {
		if (fdp->fd_lastfile < 0 || fd > (unsigned)fdp->fd_lastfile)
			break;
		if (fdp->fd_ofiles[fd].fde_file == NULL)
			continue;
		if (cloexec)
			fdp->fd_ofiles[fd].fde_flags |= FD_CLOEXEC;
		else
			fdrop(fdremove(fdp, (int)fd));
	}
}

int
kern_dup(struct fsproc *p, int fd)
{
	struct file *fp = fget_raw(p, fd);
	if (fp == NULL)
		return -EBADF;
	int nfd = fdalloc(p, fp, 0, 0);
	fdrop(fp);
	return nfd;
}

/* dup2/dup3 once the arguments are checked. */
static int
dupto(struct fsproc *p, int oldfd, int newfd, int fdflags)
{
	struct filedesc *fdp = p->fp_fd;
	struct file *fp = fget_raw(p, oldfd);

	if (fp == NULL)
		return -EBADF;
	if (newfd < 0 || (unsigned)newfd >= fdp->fd_limit) {
		fdrop(fp);
		return -EBADF;
	}
	int error = fdgrow(fdp, newfd);
	if (error < 0) {
		fdrop(fp);
		return error;
	}
	/* Close what newfd held only once nothing can fail. */
	struct file *old = NULL;
	if (fdp->fd_ofiles[newfd].fde_file != NULL)
		old = fdremove(fdp, newfd);
	fdinstall(fdp, newfd, fp, fdflags);
	if (old != NULL)
		fdrop(old);
	return newfd;
}

int
kern_dup3(struct fsproc *p, int oldfd, int newfd, int flags)
{
	if ((flags & ~O_CLOEXEC) != 0 || oldfd == newfd)
		return -EINVAL;
	return dupto(p, oldfd, newfd, (flags & O_CLOEXEC) ? FD_CLOEXEC : 0);
}

int
kern_dup2(struct fsproc *p, int oldfd, int newfd)
{
	if (oldfd == newfd) {
		struct file *fp = fget_raw(p, oldfd);
		if (fp == NULL)
			return -EBADF;
		fdrop(fp);
		return newfd;
	}
	return dupto(p, oldfd, newfd, 0);
}

int
kern_fcntl(struct fsproc *p, int fd, int cmd, uint64_t arg)
{
	struct filedesc *fdp = p->fp_fd;
	struct file *fp = fget_raw(p, fd);
	int ret;

	if (fp == NULL)
		return -EBADF;
	/* An O_PATH file dups and shows its flags, no more (Linux's list). */
	if (fp->f_type == DTYPE_PATH && cmd != F_DUPFD && cmd != F_DUPFD_CLOEXEC &&
	    cmd != F_GETFD && cmd != F_SETFD && cmd != F_GETFL) {
		fdrop(fp);
		return -EBADF;
	}
	switch (cmd) {
	case F_DUPFD:
	case F_DUPFD_CLOEXEC:
		/* Linux takes the argument's low 32 bits, unsigned. */
		if ((unsigned)arg >= fdp->fd_limit)
			ret = -EINVAL;
		else
			ret = fdalloc(p, fp, (int)(unsigned)arg,
			    cmd == F_DUPFD_CLOEXEC ? FD_CLOEXEC : 0);
		break;
	case F_GETFD:
		ret = fdp->fd_ofiles[fd].fde_flags;
		break;
	case F_SETFD:
		fdp->fd_ofiles[fd].fde_flags = (int)(arg & FD_CLOEXEC);
		ret = 0;
		break;
	case F_GETFL:
		ret = fp->f_flag;
		break;
	case F_SETFL:
		fp->f_flag = (fp->f_flag & ~FSETFL_MASK) | ((int)arg & FSETFL_MASK);
		ret = 0;
		break;
	case F_GETPIPE_SZ:
	case F_SETPIPE_SZ:
		if (fp->f_type != DTYPE_PIPE && fp->f_type != DTYPE_FIFO)
			ret = -EBADF;
		else if (cmd == F_GETPIPE_SZ)
			ret = pipe_getsize(fp);
		else
			ret = pipe_setsize(fp, (unsigned)arg);
		break;
	case F_ADD_SEALS:
		ret = tmpfs_add_seals(fp, (int)arg);
		break;
	case F_GET_SEALS:
		ret = tmpfs_get_seals(fp);
		break;
	default:
		ret = -EINVAL;
		break;
	}
	fdrop(fp);
	return ret;
}
