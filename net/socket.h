/*
 * The socket system calls as kernel functions (uipc_syscalls.c,
 * uipc_scm.c).  The system-call layer copies addresses, buffers and
 * control data in and out; these take kernel pointers and return 0 (or
 * a descriptor, a count) or a negative errno with Linux's meaning.
 * Addresses are kernel buffers of SOCKADDR_MAX bytes.
 */
#ifndef NET_SOCKET_H
#define NET_SOCKET_H

#include <stdint.h>

#include "net/sockdefs.h"
#include "net/socketvar.h"

struct proc;

/* socket(domain, type | SOCK_NONBLOCK | SOCK_CLOEXEC, protocol). */
int kern_socket(struct proc *p, int domain, int type, int protocol);

/* socketpair: fds[0] and fds[1] connected. */
int kern_socketpair(struct proc *p, int domain, int type, int protocol,
    int fds[2]);

int kern_bind(struct proc *p, int fd, const char *addr, socklen_t len);
int kern_listen(struct proc *p, int fd, int backlog);
int kern_connect(struct proc *p, int fd, const char *addr, socklen_t len);

/*
 * accept4 with SOCK_NONBLOCK, SOCK_CLOEXEC: the new descriptor, and the
 * peer's address into addr (*len set) if addr is not NULL.
 */
int kern_accept4(struct proc *p, int fd, char *addr, socklen_t *len,
    int flags);

/* getsockname (peer false) and getpeername. */
int kern_getname(struct proc *p, int fd, char *addr, socklen_t *len,
    bool peer);

/*
 * sendmsg of m on fd with the control messages at control (controllen
 * bytes, parsed by scm_internalize).  Returns the count; -EPIPE is for
 * the caller to turn into SIGPIPE unless MSG_NOSIGNAL.
 */
int64_t kern_sendmsg(struct proc *p, int fd, struct sockmsg *m,
    const char *control, size_t controllen);

/*
 * recvmsg of m on fd: the count (with MSG_TRUNC on a datagram socket,
 * the datagram's whole length), the source address in m->sm_name, the
 * control messages in control (*controllen: its size in, the bytes used
 * out; control may be NULL with 0), and m->sm_flags set to the flags
 * the caller reports (MSG_TRUNC, MSG_CTRUNC).
 */
int64_t kern_recvmsg(struct proc *p, int fd, struct sockmsg *m,
    char *control, size_t *controllen);

int kern_soshutdown(struct proc *p, int fd, int how);

/* Options: set takes len bytes at val; get fills up to *len, sets *len. */
int kern_setsockopt(struct proc *p, int fd, int level, int name,
    const void *val, socklen_t len);
int kern_getsockopt(struct proc *p, int fd, int level, int name, void *val,
    socklen_t *len);

/*
 * Parses the control messages of a sendmsg (len bytes at buf) on a
 * socket of protocol pr into ctl: SCM_RIGHTS (files referenced) and
 * SCM_CREDENTIALS (checked against p's ids).  -EINVAL (malformed, too
 * many files), -EBADF, -EPERM; ctl then holds what was taken (release
 * it).
 */
int scm_internalize(struct proc *p, const struct protosw *pr,
    const char *buf, size_t len, struct sockctl *ctl);

/*
 * Writes the control data ctl of a received message into buf (size
 * bytes) as Linux's cmsgs: the protocol's (IP_TTL...), the sender's ids
 * if passcred, then the files,
 * each installed as a new descriptor of p (O_CLOEXEC with
 * MSG_CMSG_CLOEXEC in flags).  Files that do not fit are closed and
 * MSG_CTRUNC set in *msgflags.  Returns the bytes used.  Empties ctl.
 */
size_t scm_externalize(struct proc *p, struct sockctl *ctl, bool passcred,
    int flags, char *buf, size_t size, int *msgflags);

/* The socket of descriptor fd, its file referenced into *fpp. */
int getsock(struct proc *p, int fd, struct file **fpp, struct socket **sop);

#endif /* NET_SOCKET_H */
