/*
 * Socket system calls on names and options: socket, socketpair, bind,
 * connect, listen, accept, accept4, getsockname, getpeername, shutdown,
 * setsockopt, getsockopt.  They copy arguments in and out (Linux's
 * move_addr_to_kernel and move_addr_to_user rules) and call the socket
 * layer (net/).
 */
#include "fs/file.h"
#include "net/socket.h"
#include "sys/sys_socket.h"
#include "kern/kmem.h"

#define PROC	(lp->lwp_proc)

int
sockaddr_in(uint64_t uaddr, uint64_t ulen, char *kaddr, socklen_t *klen)
{
	int len = (int)ulen;
	memset(kaddr, 0, SOCKADDR_MAX);
	if (len < 0 || len > SOCKADDR_MAX)
		return -EINVAL;
	if (len > 0 && copyin(uaddr, kaddr, (size_t)len) < 0)
		return -EFAULT;
	*klen = (socklen_t)len;
	return 0;
}

int
sockaddr_out(const char *kaddr, socklen_t klen, uint64_t uaddr, uint64_t ulenp)
{
	int len;
	if (copyin(ulenp, &len, sizeof(len)) < 0)
		return -EFAULT;
	if (len > (int)klen)
		len = (int)klen;
	if (len < 0)
		return -EINVAL;
	if (len > 0 && copyout(kaddr, uaddr, (size_t)len) < 0)
		return -EFAULT;
	int kl = (int)klen;
	if (copyout(&kl, ulenp, sizeof(kl)) < 0)
		return -EFAULT;
	return 0;
}

long
sys_socket(struct lwp *lp, const uint64_t *args)
{
	return kern_socket(PROC, (int)args[0], (int)args[1], (int)args[2]);
}

long
sys_socketpair(struct lwp *lp, const uint64_t *args)
{
	int fds[2];
	if (!user_range_ok(args[3], sizeof(fds)))
		return -EFAULT;
	int error = kern_socketpair(PROC, (int)args[0], (int)args[1],
	    (int)args[2], fds);
	if (error < 0)
		return error;
	if (copyout(fds, args[3], sizeof(fds)) < 0) {
		kern_close(&PROC->p_fs, fds[0]);
		kern_close(&PROC->p_fs, fds[1]);
		return -EFAULT;
	}
	return 0;
}

long
sys_bind(struct lwp *lp, const uint64_t *args)
{
	char addr[SOCKADDR_MAX];
	socklen_t len;
	int error = sockaddr_in(args[1], args[2], addr, &len);
	if (error < 0)
		return error;
	return kern_bind(PROC, (int)args[0], addr, len);
}

long
sys_connect(struct lwp *lp, const uint64_t *args)
{
	char addr[SOCKADDR_MAX];
	socklen_t len;
	int error = sockaddr_in(args[1], args[2], addr, &len);
	if (error < 0)
		return error;
	return kern_connect(PROC, (int)args[0], addr, len);
}

long
sys_listen(struct lwp *lp, const uint64_t *args)
{
	return kern_listen(PROC, (int)args[0], (int)args[1]);
}

long
sys_accept4(struct lwp *lp, const uint64_t *args)
{
	char addr[SOCKADDR_MAX];
	socklen_t len = 0;
	bool want = args[1] != 0;
	int fd = kern_accept4(PROC, (int)args[0], want ? addr : NULL, &len,
	    (int)args[3]);
	if (fd < 0 || !want)
		return fd;
	int error = sockaddr_out(addr, len, args[1], args[2]);
	if (error < 0) {
		kern_close(&PROC->p_fs, fd);
		return error;
	}
	return fd;
}

long
sys_accept(struct lwp *lp, const uint64_t *args)
{
	const uint64_t a[4] = { args[0], args[1], args[2], 0 };
	return sys_accept4(lp, a);
}

static long
getname(struct lwp *lp, const uint64_t *args, bool peer)
{
	char addr[SOCKADDR_MAX];
	socklen_t len;
	int error = kern_getname(PROC, (int)args[0], addr, &len, peer);
	if (error < 0)
		return error;
	return sockaddr_out(addr, len, args[1], args[2]);
}

long
sys_getsockname(struct lwp *lp, const uint64_t *args)
{
	return getname(lp, args, false);
}

long
sys_getpeername(struct lwp *lp, const uint64_t *args)
{
	return getname(lp, args, true);
}

long
sys_shutdown(struct lwp *lp, const uint64_t *args)
{
	return kern_soshutdown(PROC, (int)args[0], (int)args[1]);
}

#define OPT_MAX	256	/* the largest option value kept */

long
sys_setsockopt(struct lwp *lp, const uint64_t *args)
{
	char val[OPT_MAX];
	int len = (int)args[4];
	if (len < 0)
		return -EINVAL;
	size_t n = MIN((size_t)len, sizeof(val));
	memset(val, 0, sizeof(val));
	if (n > 0 && copyin(args[3], val, n) < 0)
		return -EFAULT;
	return kern_setsockopt(PROC, (int)args[0], (int)args[1], (int)args[2],
	    val, (socklen_t)len);
}

long
sys_getsockopt(struct lwp *lp, const uint64_t *args)
{
	char val[OPT_MAX];
	int len;
	if (copyin(args[4], &len, sizeof(len)) < 0)
		return -EFAULT;
	if (len < 0)
		return -EINVAL;
	socklen_t n = (socklen_t)MIN((size_t)len, sizeof(val));
	int error = kern_getsockopt(PROC, (int)args[0], (int)args[1],
	    (int)args[2], val, &n);
	if (error < 0)
		return error;
	if (copyout(val, args[3], n) < 0)
		return -EFAULT;
	int nl = (int)n;
	if (copyout(&nl, args[4], sizeof(nl)) < 0)
		return -EFAULT;
	return 0;
}
