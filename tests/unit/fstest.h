/*
 * Helpers for the file-system tests: a tmpfs root, a process's file state
 * and credential, kernel-buffer I/O, and the memory check at the end.
 */
#ifndef TESTS_UNIT_FSTEST_H
#define TESTS_UNIT_FSTEST_H

#include <stdint.h>

#include "fs/file.h"
#include "fs/vfs.h"
#include "kern/ucred.h"

struct fst {
	struct fsproc p;
	struct ucred cr;	/* root */
	uint64_t free0;		/* free pages before */
};

/* RAM, the VFS, a tmpfs root and a root process; 0 or -1. */
int fst_begin(struct fst *t);

/*
 * Ends the process, unmounts everything, and returns 0 if every page
 * came back, else the pages missing (or -1 if a mount was busy).
 */
int64_t fst_end(struct fst *t);

/* A non-root credential (uid, gid). */
struct ucred fst_user(uid_t uid, gid_t gid);

int fst_open(struct fst *t, const char *path, int flags, mode_t mode);
int64_t fst_write(struct fst *t, int fd, const void *buf, size_t n);
int64_t fst_read(struct fst *t, int fd, void *buf, size_t n);
int64_t fst_pwrite(struct fst *t, int fd, const void *buf, size_t n,
    int64_t off);
int64_t fst_pread(struct fst *t, int fd, void *buf, size_t n, int64_t off);
/* Creates path with contents s; 0 or a negative errno. */
int fst_mkfile(struct fst *t, const char *path, const char *s);
/* Reads all of path into buf (size n, NUL-terminated); bytes or errno. */
int64_t fst_cat(struct fst *t, const char *path, char *buf, size_t n);
int fst_stat(struct fst *t, const char *path, struct linux_stat *st);
int fst_lstat(struct fst *t, const char *path, struct linux_stat *st);

#endif /* TESTS_UNIT_FSTEST_H */
