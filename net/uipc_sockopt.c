/*
 * Socket options: the SOL_SOCKET level every family shares, kept in
 * struct socket; other levels go to the family's pru_ctloutput.
 */
#include <sys/time.h>

#include "fs/file.h"
#include "kern/proc.h"
#include "net/socket.h"

/* The flag options kept as so_options bits. */
static int
soopt_flag(int name)
{
	switch (name) {
	case SO_PASSCRED:	return SOO_PASSCRED;
	case SO_REUSEADDR:	return SOO_REUSEADDR;
	case SO_KEEPALIVE:	return SOO_KEEPALIVE;
	case SO_BROADCAST:	return SOO_BROADCAST;
	case SO_OOBINLINE:	return SOO_OOBINLINE;
	case SO_DONTROUTE:	return SOO_DONTROUTE;
	default:		return 0;
	}
}

/* SO_RCVTIMEO, SO_SNDTIMEO: a struct timeval into ns (0: none). */
static int
set_timeo(uint64_t *timeo, const void *val, socklen_t len)
{
	struct timeval tv;
	if (len < sizeof(tv))
		return -EINVAL;
	memcpy(&tv, val, sizeof(tv));
	if (tv.tv_usec < 0 || tv.tv_usec >= 1000000)
		return -EDOM;
	if (tv.tv_sec < 0) {
		*timeo = 0;	/* Linux: a negative time does not wait */
		return 0;
	}
	if ((uint64_t)tv.tv_sec > UINT64_MAX / 4000000000ULL)
		*timeo = 0;
	else
		*timeo = (uint64_t)tv.tv_sec * 1000000000 +
		    (uint64_t)tv.tv_usec * 1000;
	return 0;
}

/* SO_SNDBUF and SO_RCVBUF: Linux doubles the value, within limits. */
static uint32_t
sb_size(int val, uint32_t min)
{
	uint32_t v = (uint32_t)MIN((unsigned)MAX(val, 0), SB_MAX);
	return MAX(v * 2, min);
}

static int
sosetopt(struct socket *so, int name, const void *val, socklen_t len)
{
	int v, flag;

	if (name == SO_RCVTIMEO || name == SO_SNDTIMEO)
		return set_timeo(name == SO_RCVTIMEO ? &so->so_rcv.sb_timeo :
		    &so->so_snd.sb_timeo, val, len);
	if (name == SO_LINGER) {
		struct linux_linger l;
		if (len < sizeof(l))
			return -EINVAL;
		memcpy(&l, val, sizeof(l));
		/* The family reads it at close (TCP: 0 resets the connection). */
		so->so_lingeron = l.l_onoff != 0;
		so->so_linger = MAX(l.l_linger, 0);
		return 0;
	}
	if (len < sizeof(int))
		return -EINVAL;
	memcpy(&v, val, sizeof(v));
	if ((flag = soopt_flag(name)) != 0) {
		if (v)
			so->so_options |= flag;
		else
			so->so_options &= ~flag;
		return 0;
	}
	switch (name) {
	case SO_SNDBUF:
		so->so_snd.sb_hiwat = sb_size(v, SB_MIN_SND);
		sowakeup(&so->so_snd);
		return 0;
	case SO_RCVBUF:
		so->so_rcv.sb_hiwat = sb_size(v, SB_MIN_RCV);
		return 0;
	case SO_TYPE:
	case SO_PROTOCOL:
	case SO_DOMAIN:
	case SO_ERROR:
	case SO_ACCEPTCONN:
	case SO_PEERCRED:
		return -ENOPROTOOPT;
	default:
		kprintf("setsockopt: SOL_SOCKET option %d not implemented\n", name);
		return -ENOPROTOOPT;
	}
}

static int
sogetopt(struct socket *so, int name, void *val, socklen_t *len)
{
	union {
		int i;
		struct timeval tv;
		struct sockcred cred;
		struct linux_linger l;
	} u;
	socklen_t n = sizeof(int);
	int flag;

	if ((flag = soopt_flag(name)) != 0) {
		u.i = (so->so_options & flag) != 0;
	} else {
		switch (name) {
		case SO_TYPE:		u.i = so->so_type; break;
		case SO_PROTOCOL:	/* an entry of 0 takes any: the caller's */
			u.i = so->so_proto->pr_protocol != 0 ?
			    so->so_proto->pr_protocol : so->so_protocol;
			break;
		case SO_DOMAIN:		u.i = so->so_family; break;
		case SO_ERROR:
			u.i = so->so_error;
			so->so_error = 0;
			break;
		case SO_ACCEPTCONN:
			u.i = (so->so_state & SS_ISLISTENING) != 0;
			break;
		case SO_SNDBUF:		u.i = (int)so->so_snd.sb_hiwat; break;
		case SO_RCVBUF:		u.i = (int)so->so_rcv.sb_hiwat; break;
		case SO_RCVTIMEO:
		case SO_SNDTIMEO: {
			uint64_t t = name == SO_RCVTIMEO ? so->so_rcv.sb_timeo :
			    so->so_snd.sb_timeo;
			u.tv.tv_sec = (time_t)(t / 1000000000);
			u.tv.tv_usec = (suseconds_t)(t % 1000000000 / 1000);
			n = sizeof(u.tv);
			if (*len < n)
				return -EINVAL;
			break;
		}
		case SO_LINGER:
			u.l.l_onoff = so->so_lingeron;
			u.l.l_linger = so->so_linger;
			n = sizeof(u.l);
			break;
		case SO_PEERCRED:
			if (so->so_haspeercred)
				u.cred = so->so_peercred;
			else
				u.cred = (struct sockcred){ 0, 65534, 65534 };
			n = sizeof(u.cred);
			break;
		default:
			kprintf("getsockopt: SOL_SOCKET option %d not implemented\n",
			    name);
			return -ENOPROTOOPT;
		}
	}
	*len = MIN(*len, n);
	memcpy(val, &u, *len);
	return 0;
}

/*
 * Option (level, name) of socket fd set from val (*len bytes) or read
 * into it (*len: its room, then the length written): SOL_SOCKET's here,
 * the others by the protocol's pru_ctloutput (-EOPNOTSUPP if none).
 */
static int
sockopt1(struct proc *p, int fd, bool set, int level, int name, void *val,
    socklen_t *len)
{
	const struct pr_usrreqs *pru;
	struct file *fp;
	struct socket *so;
	int error = getsock(p, fd, &fp, &so);
	if (error < 0)
		return error;
	pru = so->so_proto->pr_usrreqs;
	if (level == SOL_SOCKET)
		error = set ? sosetopt(so, name, val, *len) :
		    sogetopt(so, name, val, len);
	else if (pru->pru_ctloutput == NULL)
		error = -EOPNOTSUPP;
	else
		error = pru->pru_ctloutput(so, set, level, name, val, len);
	fdrop(fp);
	return error;
}

int
kern_setsockopt(struct proc *p, int fd, int level, int name, const void *val,
    socklen_t len)
{
	/* pru_ctloutput takes one pointer for both ways; a set only reads. */
	return sockopt1(p, fd, true, level, name, (void *)val, &len);
}

int
kern_getsockopt(struct proc *p, int fd, int level, int name, void *val,
    socklen_t *len)
{
	return sockopt1(p, fd, false, level, name, val, len);
}
