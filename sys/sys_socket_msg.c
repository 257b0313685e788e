/*
 * Socket data system calls: sendto, recvfrom, sendmsg, recvmsg,
 * sendmmsg, recvmmsg.  They copy Linux's struct msghdr, its iovec,
 * address and control buffer in and out, and call the socket layer.
 */
#include "fs/file.h"
#include "kern/signal.h"
#include "kern/thread.h"
#include "net/socket.h"
#include "sys/sys_socket.h"
#include "kern/kmem.h"

#define PROC	(lp->lwp_proc)
#define CONTROL_MAX	(64 * 1024)	/* control bytes handled per call */

/* Linux's x86-64 struct msghdr and struct mmsghdr. */
struct lmsghdr {
	uint64_t msg_name;
	int32_t msg_namelen;
	uint32_t pad0;
	uint64_t msg_iov;
	uint64_t msg_iovlen;
	uint64_t msg_control;
	uint64_t msg_controllen;
	int32_t msg_flags;
	uint32_t pad1;
};
_Static_assert(sizeof(struct lmsghdr) == 56, "struct msghdr");

struct lmmsghdr {
	struct lmsghdr msg_hdr;
	uint32_t msg_len;
	uint32_t pad;
};
_Static_assert(sizeof(struct lmmsghdr) == 64, "struct mmsghdr");

/*
 * SIGPIPE for -EPIPE unless MSG_NOSIGNAL; -EPIPENOSIG (a family that
 * raises none) is -EPIPE.
 */
static long
send_result(struct lwp *lp, long r, int flags)
{
	if (r == -EPIPE && !(flags & MSG_NOSIGNAL))
		lwpsignal_self(lp, SIGPIPE);
	return r == -EPIPENOSIG ? -EPIPE : r;
}

/* EBADF and ENOTSOCK come before any argument is read, as in Linux. */
static int
check_sock(struct lwp *lp, int fd)
{
	struct file *fp;
	struct socket *so;
	int error = getsock(PROC, fd, &fp, &so);
	if (error == 0)
		fdrop(fp);
	return error;
}

long
sys_sendto(struct lwp *lp, const uint64_t *args)
{
	char addr[SOCKADDR_MAX];
	struct uio uio;
	struct kiovec iov;
	int flags = (int)args[3];
	uint64_t len = MIN(args[2], (uint64_t)INT32_MAX);
	int error;

	if ((error = check_sock(lp, (int)args[0])) < 0)
		return error;
	struct sockmsg m = { .sm_uio = &uio, .sm_name = addr, .sm_flags = flags };
	if (!user_range_ok(args[1], len))
		return -EFAULT;
	if (args[4] != 0 &&
	    (error = sockaddr_in(args[4], args[5], addr, &m.sm_namelen)) < 0)
		return error;
	uio_user1(&uio, &iov, lp, args[1], len, UIO_WRITE);
	return send_result(lp, kern_sendmsg(PROC, (int)args[0], &m, NULL, 0),
	    flags);
}

long
sys_recvfrom(struct lwp *lp, const uint64_t *args)
{
	char addr[SOCKADDR_MAX];
	struct uio uio;
	struct kiovec iov;
	uint64_t len = MIN(args[2], (uint64_t)INT32_MAX);
	size_t clen = 0;

	if (!user_range_ok(args[1], len))
		return -EFAULT;
	struct sockmsg m = { .sm_uio = &uio, .sm_name = addr,
	    .sm_flags = (int)args[3] };
	uio_user1(&uio, &iov, lp, args[1], len, UIO_READ);
	int64_t r = kern_recvmsg(PROC, (int)args[0], &m, NULL, &clen);
	if (r >= 0 && args[4] != 0) {
		int error = sockaddr_out(addr, m.sm_namelen, args[4], args[5]);
		if (error < 0)
			return error;
	}
	return r;
}

/* sendmsg of the msghdr h (a kernel copy). */
static long
sendmsg1(struct lwp *lp, int fd, struct lmsghdr *h, int flags)
{
	char addr[SOCKADDR_MAX];
	struct uio uio;
	struct kiovec *iov;
	int error;

	if (h->msg_name == 0)
		h->msg_namelen = 0;
	if (h->msg_namelen < 0)
		return -EINVAL;
	if (h->msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	if (h->msg_controllen > CONTROL_MAX)
		return -ENOBUFS;
	struct sockmsg m = { .sm_uio = &uio, .sm_name = addr, .sm_flags = flags };
	if (h->msg_namelen > 0 && (error = sockaddr_in(h->msg_name,
	    MIN(h->msg_namelen, SOCKADDR_MAX), addr, &m.sm_namelen)) < 0)
		return error;
	char *control = NULL;
	if (h->msg_controllen > 0) {
		control = kmalloc(h->msg_controllen, 0);
		if (control == NULL)
			return -ENOMEM;
		if (copyin(h->msg_control, control, h->msg_controllen) < 0) {
			kfree(control);
			return -EFAULT;
		}
	}
	if ((error = uio_userv(&uio, &iov, lp, h->msg_iov, h->msg_iovlen,
	    UIO_WRITE)) < 0) {
		kfree(control);
		return error;
	}
	int64_t r = kern_sendmsg(PROC, fd, &m, control, h->msg_controllen);
	kfree(iov);
	kfree(control);
	return send_result(lp, r, flags);
}

/*
 * recvmsg into the msghdr h (a kernel copy of the one at uh, whose
 * msg_namelen, msg_controllen and msg_flags are written back).
 */
static long
recvmsg1(struct lwp *lp, int fd, struct lmsghdr *h, uint64_t uh, int flags)
{
	char addr[SOCKADDR_MAX];
	struct uio uio;
	struct kiovec *iov;
	int error;

	if (h->msg_namelen < 0)
		return -EINVAL;
	if (h->msg_iovlen > UIO_MAXIOV)
		return -EMSGSIZE;
	if ((error = uio_userv(&uio, &iov, lp, h->msg_iov, h->msg_iovlen,
	    UIO_READ)) < 0)
		return error;
	size_t clen = h->msg_control != 0 ? MIN(h->msg_controllen, CONTROL_MAX) : 0;
	char *control = clen > 0 ? kmalloc(clen, KM_ZERO) : NULL;
	if (clen > 0 && control == NULL) {
		kfree(iov);
		return -ENOMEM;
	}
	struct sockmsg m = { .sm_uio = &uio, .sm_name = addr, .sm_flags = flags };
	int64_t r = kern_recvmsg(PROC, fd, &m, control, &clen);
	kfree(iov);
	if (r >= 0) {
		int32_t mflags = m.sm_flags | (flags & MSG_CMSG_CLOEXEC);
		uint64_t used = clen;
		if ((clen > 0 && copyout(control, h->msg_control, clen) < 0) ||
		    copyout(&used, uh + offsetof(struct lmsghdr, msg_controllen),
		    sizeof(used)) < 0 ||
		    copyout(&mflags, uh + offsetof(struct lmsghdr, msg_flags),
		    sizeof(mflags)) < 0)
			r = -EFAULT;
		else if (h->msg_name != 0 && (error = sockaddr_out(addr,
		    m.sm_namelen, h->msg_name,
		    uh + offsetof(struct lmsghdr, msg_namelen))) < 0)
			r = error;
		else if (h->msg_name == 0) {
			int32_t zero = 0;
			if (copyout(&zero, uh + offsetof(struct lmsghdr,
			    msg_namelen), sizeof(zero)) < 0)
				r = -EFAULT;
		}
	}
	kfree(control);
	return r;
}

/*
 * The msghdr at uh for socket fd, copied into *h: 0, -EBADF or -ENOTSOCK
 * (before the msghdr is read, as in Linux), -EFAULT.
 */
static int
msghdr_in(struct lwp *lp, int fd, uint64_t uh, struct lmsghdr *h)
{
	int error = check_sock(lp, fd);
	if (error < 0)
		return error;
	return copyin(uh, h, sizeof(*h)) < 0 ? -EFAULT : 0;
}

long
sys_sendmsg(struct lwp *lp, const uint64_t *args)
{
	struct lmsghdr h;
	int error = msghdr_in(lp, (int)args[0], args[1], &h);
	return error < 0 ? error : sendmsg1(lp, (int)args[0], &h, (int)args[2]);
}

long
sys_recvmsg(struct lwp *lp, const uint64_t *args)
{
	struct lmsghdr h;
	int error = msghdr_in(lp, (int)args[0], args[1], &h);
	return error < 0 ? error :
	    recvmsg1(lp, (int)args[0], &h, args[1], (int)args[2]);
}

/* Message u of sendmmsg or recvmmsg done, r bytes: 0 or -EFAULT. */
static int
mmsg_setlen(uint64_t u, long r)
{
	uint32_t len = (uint32_t)r;
	return copyout(&len, u + offsetof(struct lmmsghdr, msg_len),
	    sizeof(len)) < 0 ? -EFAULT : 0;
}

long
sys_sendmmsg(struct lwp *lp, const uint64_t *args)
{
	int fd = (int)args[0], flags = (int)args[3];
	unsigned vlen = (unsigned)MIN(args[2], (uint64_t)UIO_MAXIOV);
	unsigned n;
	long r = 0;

	if ((r = check_sock(lp, fd)) < 0)
		return r;
	for (n = 0; n < vlen; n++) {
		struct lmmsghdr mh;
		uint64_t u = args[1] + n * sizeof(mh);
		if (copyin(u, &mh, sizeof(mh)) < 0) {
			r = -EFAULT;
			break;
		}
		if ((r = sendmsg1(lp, fd, &mh.msg_hdr, flags)) < 0)
			break;
		if ((r = mmsg_setlen(u, r)) < 0)
			break;
	}
	return n > 0 ? (long)n : r;
}

long
sys_recvmmsg(struct lwp *lp, const uint64_t *args)
{
	int fd = (int)args[0], flags = (int)args[3];
	unsigned vlen = (unsigned)MIN(args[2], (uint64_t)UIO_MAXIOV);
	uint64_t deadline = 0;
	struct timespec ts;
	unsigned n;
	long r;

	if ((r = check_sock(lp, fd)) < 0)
		return r;
	if (args[4] != 0) {
		if (copyin(args[4], &ts, sizeof(ts)) < 0)
			return -EFAULT;
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000)
			return -EINVAL;
		deadline = nanouptime() + (uint64_t)ts.tv_sec * 1000000000 +
		    (uint64_t)ts.tv_nsec;
	}
	for (n = 0; n < vlen; n++) {
		struct lmmsghdr mh;
		uint64_t u = args[1] + n * sizeof(mh);
		if (copyin(u, &mh, sizeof(mh)) < 0) {
			r = -EFAULT;
			break;
		}
		if ((r = recvmsg1(lp, fd, &mh.msg_hdr, u, flags)) < 0)
			break;
		if ((r = mmsg_setlen(u, r)) < 0)
			break;
		if (flags & MSG_WAITFORONE)
			flags |= MSG_DONTWAIT;
		if (deadline != 0 && nanouptime() >= deadline) {
			n++;
			break;
		}
	}
	if (deadline != 0) {
		uint64_t now = nanouptime(), left = now < deadline ? deadline - now : 0;
		ts.tv_sec = (time_t)(left / 1000000000);
		ts.tv_nsec = (long)(left % 1000000000);
		(void)copyout(&ts, args[4], sizeof(ts));
	}
	return n > 0 ? (long)n : r;
}
