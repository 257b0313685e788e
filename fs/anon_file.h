/*
 * Files with no name in any file system (Linux's anonymous inodes): the
 * epoll sets, eventfds, timerfds, signalfds, pidfds and inotify
 * instances.  Each kind has a table of operations with a name, shown as
 * /proc/PID/fd's link "anon_inode:NAME".  They all stat as one inode of
 * mode 0600 with no file type, as in Linux.
 */
#ifndef FS_ANON_FILE_H
#define FS_ANON_FILE_H

#include "fs/file.h"

struct anon_fileops {
	struct fileops af_ops;
	const char *af_name;		/* "[eventpoll]", "[eventfd]"... */
};

/*
 * A new anonymous file of kind ops over data, with the given open flags
 * (O_RDWR, O_RDONLY, | O_NONBLOCK), and one reference; NULL if memory
 * is short.
 */
struct file *anonfile_alloc(const struct anon_fileops *ops, void *data,
    int flags);

/*
 * Installs fp on the lowest free descriptor (O_CLOEXEC in flags: close
 * on exec) and drops the caller's reference.  The descriptor or -EMFILE,
 * -ENOMEM (fp is then closed).
 */
int anonfile_install(struct fsproc *p, struct file *fp, int flags);

/* fp's f_data if fp is an anonymous file of kind ops, else NULL. */
void *anonfile_data(struct file *fp, const struct anon_fileops *ops);

/* The name of anonymous file fp ("eventfd"), NULL for other files. */
const char *anonfile_name(const struct file *fp);

/* fo_stat and fo_lseek of every anonymous file. */
int anonfile_stat(struct file *fp, struct linux_stat *st);
int64_t anonfile_lseek(struct file *fp, int64_t off, int whence);

#endif /* FS_ANON_FILE_H */
