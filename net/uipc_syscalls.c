/*
 * The socket system calls on descriptors (see socket.h): the checks all
 * families share, then the family's operation.
 */
#include <fcntl.h>

#include "fs/file.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "net/socket.h"

int
getsock(struct proc *p, int fd, struct file **fpp, struct socket **sop)
{
	struct file *fp = fget(&p->p_fs, fd);
	if (fp == NULL)
		return -EBADF;
	if ((*sop = fp_socket(fp)) == NULL) {
		fdrop(fp);
		return -ENOTSOCK;
	}
	*fpp = fp;
	return 0;
}

static bool
fp_nonblock(const struct file *fp)
{
	return (fp->f_flag & O_NONBLOCK) != 0;
}

/* A new socket of domain, type and protocol (type's flags checked). */
static struct socket *
socket1(struct proc *p, int domain, int type, int protocol, int *error)
{
	const struct protosw *pr = pffindproto(domain,
	    type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC), protocol, error);
	if (pr == NULL)
		return NULL;
	return socreate(pr, protocol, p->p_ucred, error);
}

/* Installs so on a new descriptor (taking the reference): fd or error. */
static int
sofd(struct proc *p, struct socket *so, int flags)
{
	struct file *fp = sofile(so, (flags & SOCK_NONBLOCK) ? O_NONBLOCK : 0);
	if (fp == NULL)
		return -ENOMEM;
	int fd = fdalloc(&p->p_fs, fp, 0, (flags & SOCK_CLOEXEC) ? FD_CLOEXEC : 0);
	fdrop(fp);
	return fd;
}

int
kern_socket(struct proc *p, int domain, int type, int protocol)
{
	int error;
	if (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC | SOCK_TYPE_MASK) ||
	    (type & SOCK_TYPE_MASK) >= SOCK_MAX)
		return -EINVAL;
	struct socket *so = socket1(p, domain, type, protocol, &error);
	if (so == NULL)
		return error;
	return sofd(p, so, type);
}

int
kern_socketpair(struct proc *p, int domain, int type, int protocol,
    int fds[2])
{
	struct socket *a, *b;
	int error;

	if (type & ~(SOCK_NONBLOCK | SOCK_CLOEXEC | SOCK_TYPE_MASK) ||
	    (type & SOCK_TYPE_MASK) >= SOCK_MAX)
		return -EINVAL;
	if ((a = socket1(p, domain, type, protocol, &error)) == NULL)
		return error;
	if (a->so_proto->pr_usrreqs->pru_connect2 == NULL) {
		a->so_proto->pr_usrreqs->pru_detach(a);
		sorele(a);
		return -EOPNOTSUPP;
	}
	if ((b = socket1(p, domain, type, protocol, &error)) == NULL) {
		a->so_proto->pr_usrreqs->pru_detach(a);
		sorele(a);
		return error;
	}
	a->so_proto->pr_usrreqs->pru_connect2(a, b, p);
	if ((fds[0] = sofd(p, a, type)) < 0) {
		b->so_proto->pr_usrreqs->pru_detach(b);
		sorele(b);
		return fds[0];
	}
	if ((fds[1] = sofd(p, b, type)) < 0) {
		kern_close(&p->p_fs, fds[0]);
		return fds[1];
	}
	return 0;
}

int
kern_bind(struct proc *p, int fd, const char *addr, socklen_t len)
{
	struct file *fp;
	struct socket *so;
	int error = getsock(p, fd, &fp, &so);
	if (error < 0)
		return error;
	error = so->so_proto->pr_usrreqs->pru_bind(so, addr, len, p);
	fdrop(fp);
	return error;
}

int
kern_listen(struct proc *p, int fd, int backlog)
{
	struct file *fp;
	struct socket *so;
	int error = getsock(p, fd, &fp, &so);
	if (error < 0)
		return error;
	if ((unsigned)backlog > SOMAXCONN_LINUX)
		backlog = SOMAXCONN_LINUX;
	if (!(so->so_proto->pr_flags & PR_CONNREQUIRED))
		error = -EOPNOTSUPP;
	else
		error = so->so_proto->pr_usrreqs->pru_listen(so, backlog, p);
	fdrop(fp);
	return error;
}

int
kern_connect(struct proc *p, int fd, const char *addr, socklen_t len)
{
	struct file *fp;
	struct socket *so;
	int error = getsock(p, fd, &fp, &so);
	if (error < 0)
		return error;
	error = so->so_proto->pr_usrreqs->pru_connect(so, addr, len, p,
	    fp_nonblock(fp));
	fdrop(fp);
	return error;
}

int
kern_accept4(struct proc *p, int fd, char *addr, socklen_t *len, int flags)
{
	struct file *fp;
	struct socket *so, *nso;
	int error;

	if (flags & ~(SOCK_NONBLOCK | SOCK_CLOEXEC))
		return -EINVAL;
	if ((error = getsock(p, fd, &fp, &so)) < 0)
		return error;
	if (!(so->so_proto->pr_flags & PR_CONNREQUIRED)) {
		fdrop(fp);
		return -EOPNOTSUPP;
	}
	error = so->so_proto->pr_usrreqs->pru_accept(so, &nso, fp_nonblock(fp));
	fdrop(fp);
	if (error < 0)
		return error;
	/* The new file is the accepter's, as Linux's new inode. */
	nso->so_uid = p->p_ucred->cr_uid;
	nso->so_gid = p->p_ucred->cr_gid;
	if (addr != NULL &&
	    (error = nso->so_proto->pr_usrreqs->pru_peeraddr(nso, addr, len)) < 0)
		*len = 0;
	return sofd(p, nso, flags);
}

int
kern_getname(struct proc *p, int fd, char *addr, socklen_t *len, bool peer)
{
	struct file *fp;
	struct socket *so;
	int error = getsock(p, fd, &fp, &so);
	if (error < 0)
		return error;
	const struct pr_usrreqs *pru = so->so_proto->pr_usrreqs;
	error = peer ? pru->pru_peeraddr(so, addr, len) :
	    pru->pru_sockaddr(so, addr, len);
	fdrop(fp);
	return error;
}

int64_t
kern_sendmsg(struct proc *p, int fd, struct sockmsg *m, const char *control,
    size_t controllen)
{
	struct file *fp;
	struct socket *so;
	int error = getsock(p, fd, &fp, &so);
	if (error < 0)
		return error;
	int64_t r = scm_internalize(p, so->so_proto, control, controllen,
	    &m->sm_ctl);
	if (r == 0) {
		if (fp_nonblock(fp))
			m->sm_flags |= MSG_DONTWAIT;
		r = so->so_proto->pr_usrreqs->pru_send(so, m, p);
	}
	sockctl_release(&m->sm_ctl);	/* what the family did not take */
	fdrop(fp);
	return r;
}

int64_t
kern_recvmsg(struct proc *p, int fd, struct sockmsg *m, char *control,
    size_t *controllen)
{
	struct file *fp;
	struct socket *so;
	int error = getsock(p, fd, &fp, &so);
	if (error < 0)
		return error;
	int flags = m->sm_flags;
	if (fp_nonblock(fp))
		m->sm_flags |= MSG_DONTWAIT;
	m->sm_flags &= ~(MSG_TRUNC | MSG_CTRUNC);
	int64_t r = so->so_proto->pr_usrreqs->pru_recv(so, m, p);
	int out = m->sm_flags & MSG_TRUNC;
	if (r >= 0)
		*controllen = scm_externalize(p, &m->sm_ctl,
		    (so->so_options & SOO_PASSCRED) != 0, flags, control,
		    *controllen, &out);
	sockctl_release(&m->sm_ctl);
	m->sm_flags = out;
	if (r >= 0 && (flags & MSG_TRUNC) && so->so_type != SOCK_STREAM)
		r = m->sm_len;	/* the datagram's real length */
	fdrop(fp);
	return r;
}

int
kern_soshutdown(struct proc *p, int fd, int how)
{
	struct file *fp;
	struct socket *so;
	int error = getsock(p, fd, &fp, &so);
	if (error < 0)
		return error;
	if (how < SHUT_RD || how > SHUT_RDWR)
		error = -EINVAL;
	else
		error = so->so_proto->pr_usrreqs->pru_shutdown(so, how);
	fdrop(fp);
	return error;
}
