/*
 * Files that deliver events (each in its own file): eventfd.c,
 * timerfd.c, signalfd.c and pidfd.c.  Each kern_ function makes or works
 * on such a file for the system call of its name and returns a
 * descriptor, 0, or a negative errno: -EINVAL for unknown flags, -EBADF
 * for a descriptor that is not open, -EINVAL for one of another kind,
 * -EMFILE, -ENOMEM.
 */
#ifndef FS_EVENT_FILES_H
#define FS_EVENT_FILES_H

#include <signal.h>
#include <stdint.h>
#include <time.h>

#include "kern/proc.h"

struct fsproc;
struct ucred;

/* eventfd2(initval, flags): EFD_SEMAPHORE, EFD_NONBLOCK, EFD_CLOEXEC. */
int kern_eventfd(struct fsproc *p, unsigned initval, int flags);

/*
 * timerfd_create(clock, flags): CLOCK_REALTIME, CLOCK_MONOTONIC,
 * CLOCK_BOOTTIME, and their _ALARM forms (-EPERM without privilege).
 */
int kern_timerfd_create(struct fsproc *p, const struct ucred *cr, int clock,
    int flags);
/* timerfd_settime: the old setting in *old. */
int kern_timerfd_settime(struct fsproc *p, int fd, int flags,
    const struct itimerspec *new, struct itimerspec *old);
int kern_timerfd_gettime(struct fsproc *p, int fd, struct itimerspec *cur);

/*
 * signalfd4(fd, mask, flags): a new signalfd for the signals of mask
 * (fd -1), or a new mask for signalfd fd.
 */
int kern_signalfd(struct fsproc *p, int fd, ksigset_t mask, int flags);

/*
 * pidfd_open(pid, flags): a file that names process pid (a thread-group
 * leader, running or a zombie), PIDFD_NONBLOCK.  -ESRCH if none.
 */
int kern_pidfd_open(struct fsproc *p, pid_t pid, int flags);

/*
 * The process pidfd fd names: NULL with *error -EBADF (fd is not a
 * pidfd, as Linux 6.18 says) or -ESRCH (it was reaped).  *nonblock:
 * opened PIDFD_NONBLOCK.
 */
struct proc *pidfd_proc(struct fsproc *p, int fd, bool *nonblock,
    int *error);

/*
 * pidfd_send_signal's target: pidfd_proc's, or as Linux the process of
 * a /proc/PID directory open on fd (one whose pid was reused is taken
 * for the new process: a directory holds only the number).
 */
struct proc *pidfd_signal_proc(struct fsproc *p, int fd, int *error);

/*
 * The pid of the process pidfd fd names, even reaped, for waitid: or
 * -EBADF.
 */
pid_t pidfd_pid(struct fsproc *p, int fd, bool *nonblock);

#endif /* FS_EVENT_FILES_H */
