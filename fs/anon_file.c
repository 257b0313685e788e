/*
 * Anonymous files (see anon_file.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>

#include "fs/anon_file.h"
#include "fs/vfs.h"
#include "kern/vm_page.h"

struct file *
anonfile_alloc(const struct anon_fileops *ops, void *data, int flags)
{
	struct file *fp = falloc(DTYPE_ANON, flags, &ops->af_ops);
	if (fp != NULL)
		fp->f_data = data;
	return fp;
}

int
anonfile_install(struct fsproc *p, struct file *fp, int flags)
{
	int fd = fdalloc(p, fp, 0, (flags & O_CLOEXEC) ? FD_CLOEXEC : 0);
	fdrop(fp);
	return fd;
}

void *
anonfile_data(struct file *fp, const struct anon_fileops *ops)
{
	return fp->f_ops == &ops->af_ops ? fp->f_data : NULL;
}

const char *
anonfile_name(const struct file *fp)
{
	if (fp->f_type != DTYPE_ANON)
		return NULL;
	const struct anon_fileops *ops = (const struct anon_fileops *)
	    ((const char *)fp->f_ops - offsetof(struct anon_fileops, af_ops));
	return ops->af_name;
}

int
anonfile_stat(struct file *fp, struct linux_stat *st)
{
	/* One inode for all, made at the first stat (Linux's anon_inode). */
	static dev_t dev;
	static uint64_t ino;

	(void)fp;
	if (dev == 0) {
		dev = vfs_anondev();
		ino = vfs_newino();
	}
	memset(st, 0, sizeof(*st));
	st->st_dev = dev;
	st->st_ino = ino;
	st->st_nlink = 1;
	st->st_mode = 0600;
	st->st_blksize = PAGE_SIZE;
	return 0;
}

int64_t
anonfile_lseek(struct file *fp, int64_t off, int whence)
{
	(void)fp, (void)off, (void)whence;
	return -ESPIPE;
}
