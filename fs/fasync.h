/*
 * Signal-driven I/O (Linux's fcntl F_SETOWN, F_SETOWN_EX, F_SETSIG and
 * O_ASYNC; fs/fasync.c).  A file given an owner has a waiter recorded
 * on every wait list of the file, as an epoll item is (fs/poll.h's wake
 * function); while the file has O_ASYNC, each change of it sends the
 * owner SIGIO, or F_SETSIG's signal with the descriptor and the band.
 *
 * It signals processes, so it sits above the process layer with pidfd
 * (tests/layers.sh); the file layer below reaches it only through the
 * close hook that it sets.  Locking: the big kernel lock.
 */
#ifndef FS_FASYNC_H
#define FS_FASYNC_H

#include <sys/types.h>

struct file;
struct ucred;

/* F_SETOWN_EX's owner types (Linux's). */
#define FOWNER_TID	0
#define FOWNER_PID	1
#define FOWNER_PGRP	2

/*
 * F_SETOWN, F_SETOWN_EX: fp's owner becomes thread, process or process
 * group pid (0: none), set by cr, fd being the descriptor named.  0,
 * -EINVAL (a bad type), -ESRCH (no such owner), -ENOMEM.
 */
int fasync_setown(struct file *fp, int fd, int type, pid_t pid,
    const struct ucred *cr);

/* F_GETOWN_EX: fp's owner; type FOWNER_PID and pid 0 if none. */
void fasync_getown(struct file *fp, int *type, pid_t *pid);

/* F_SETSIG and F_GETSIG: the signal sent, 0 for SIGIO; -EINVAL past 64. */
int fasync_setsig(struct file *fp, int fd, int sig);
int fasync_getsig(struct file *fp);

#endif /* FS_FASYNC_H */
