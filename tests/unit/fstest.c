/*
 * Helpers for the file-system tests (see fstest.h).
 */
#include "fs/procfs/procfs.h"
#include "fs/vnode.h"
#include "kern/uio.h"
#include "tests/unit/fstest.h"
#include "tests/unit/vmtest.h"
#include "kern/kmem.h"

int
fst_begin(struct fst *t)
{
	static bool ready;

	vmt_ram();
	if (!ready) {
		vfs_init();
		(void)vfs_register(&procfs_vfsops);
		ready = true;
	}
	if (rootvnode != NULL)
		return -1;
	memset(t, 0, sizeof(*t));
	cred_init_root(&t->cr);
	kmem_reclaim();
	t->free0 = vmstats.v_free_count;
	if (vfs_mountroot(NULL) < 0)
		return -1;
	return fsproc_init(&t->p, rootvnode);
}

int64_t
fst_end(struct fst *t)
{
	fsproc_exit(&t->p);
	/* Children before parents: the list is in mount order. */
	for (;;) {
		struct mount *mp, *last = NULL;
		TAILQ_FOREACH(mp, &mountlist, mnt_list)
			last = mp;
		if (last == NULL)
			break;
		if (vfs_unmount(last) < 0)
			return -1;
	}
	kmem_reclaim();
	return (int64_t)t->free0 - (int64_t)vmstats.v_free_count;
}

struct ucred
fst_user(uid_t uid, gid_t gid)
{
	struct ucred cr = { .cr_ref = 1 };
	cr.cr_uid = cr.cr_ruid = cr.cr_svuid = uid;
	cr.cr_gid = cr.cr_rgid = cr.cr_svgid = gid;
	return cr;
}

int
fst_open(struct fst *t, const char *path, int flags, mode_t mode)
{
	return kern_openat(&t->p, &t->cr, AT_FDCWD, path, flags, mode);
}

int64_t
fst_write(struct fst *t, int fd, const void *buf, size_t n)
{
	struct uio uio;
	struct kiovec iov;
	uio_init_kernel(&uio, &iov, (void *)buf, n, 0, UIO_WRITE);
	return kern_writev(&t->p, fd, &uio);
}

int64_t
fst_read(struct fst *t, int fd, void *buf, size_t n)
{
	struct uio uio;
	struct kiovec iov;
	uio_init_kernel(&uio, &iov, buf, n, 0, UIO_READ);
	return kern_readv(&t->p, fd, &uio);
}

int64_t
fst_pwrite(struct fst *t, int fd, const void *buf, size_t n, int64_t off)
{
	struct uio uio;
	struct kiovec iov;
	uio_init_kernel(&uio, &iov, (void *)buf, n, 0, UIO_WRITE);
	return kern_pwritev(&t->p, fd, &uio, off);
}

int64_t
fst_pread(struct fst *t, int fd, void *buf, size_t n, int64_t off)
{
	struct uio uio;
	struct kiovec iov;
	uio_init_kernel(&uio, &iov, buf, n, 0, UIO_READ);
	return kern_preadv(&t->p, fd, &uio, off);
}

int
fst_mkfile(struct fst *t, const char *path, const char *s)
{
	int fd = fst_open(t, path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0)
		return fd;
	int64_t n = fst_write(t, fd, s, strlen(s));
	kern_close(&t->p, fd);
	return n < 0 ? (int)n : 0;
}

int64_t
fst_cat(struct fst *t, const char *path, char *buf, size_t n)
{
	int fd = fst_open(t, path, O_RDONLY, 0);
	if (fd < 0)
		return fd;
	int64_t got = fst_read(t, fd, buf, n - 1);
	kern_close(&t->p, fd);
	buf[got > 0 ? got : 0] = '\0';
	return got;
}

int
fst_stat(struct fst *t, const char *path, struct linux_stat *st)
{
	return kern_fstatat(&t->p, &t->cr, AT_FDCWD, path, st, 0);
}

int
fst_lstat(struct fst *t, const char *path, struct linux_stat *st)
{
	return kern_fstatat(&t->p, &t->cr, AT_FDCWD, path, st,
	    AT_SYMLINK_NOFOLLOW);
}
