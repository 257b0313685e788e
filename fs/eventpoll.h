/*
 * epoll (eventpoll.c): a set of (file, descriptor) registrations, each
 * with the events it wants, and a ready list.  A registration records a
 * waiter with a wake function on its file's wait lists (fs/poll.h) once,
 * when it is added; a change of the file puts it on the ready list, so
 * epoll_wait costs the events it reports, not the size of the set.
 *
 * As in Linux, a registration belongs to the open file, not to the
 * descriptor: closing one descriptor of a file that another (a dup, a
 * child's copy) keeps open leaves it in the set; it goes when the file's
 * last reference does (eventpoll_release, from fdrop).
 *
 * Locking: the big kernel lock.
 */
#ifndef FS_EVENTPOLL_H
#define FS_EVENTPOLL_H

#include <stdint.h>

struct file;
struct fsproc;

/* Linux's struct epoll_event: packed on x86-64 (12 bytes). */
struct linux_epoll_event {
	uint32_t events;
	uint64_t data;
} __attribute__((packed));

/* The most events epoll_wait takes (Linux's EP_MAX_EVENTS). */
#define EP_MAX_EVENTS	(0x7fffffff / (int)sizeof(struct linux_epoll_event))

/* epoll_create1(flags): a new set's descriptor, or -EINVAL, -EMFILE. */
int kern_epoll_create(struct fsproc *p, int flags);

/*
 * epoll_ctl(epfd, op, fd, ev) (ev: the caller's copy; unused for DEL).
 * 0 or -EBADF, -EPERM (fd cannot be polled), -EINVAL, -EEXIST, -ENOENT,
 * -ELOOP (a set would contain itself, or nest too deep), -ENOSPC (the
 * kernel's limit of registrations), -ENOMEM.
 */
int kern_epoll_ctl(struct fsproc *p, int epfd, int op, int fd,
    const struct linux_epoll_event *ev);

/*
 * epoll_wait: up to max events of set epfd into the kernel array evs,
 * waiting up to timeout_ns for one (negative: no limit; 0: none).
 * Returns how many, or -EBADF, -EINVAL, -EINTR (a signal came first).
 */
int kern_epoll_wait(struct fsproc *p, int epfd, struct linux_epoll_event *evs,
    int max, int64_t timeout_ns);

/* The last reference to fp goes: takes it out of every set. */
void eventpoll_release(struct file *fp);

#endif /* FS_EVENTPOLL_H */
