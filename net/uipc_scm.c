/*
 * Control messages of sendmsg and recvmsg (Linux's struct cmsghdr
 * layout): files passed with SCM_RIGHTS, credentials with
 * SCM_CREDENTIALS.
 */
#include <fcntl.h>

#include "fs/file.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "net/socket.h"
#include "kern/kmem.h"

/* Linux's x86-64 struct cmsghdr. */
struct lcmsghdr {
	uint64_t cmsg_len;
	int32_t cmsg_level;
	int32_t cmsg_type;
};

#define CM_ALIGN(n)	(((n) + 7) & ~(size_t)7)
#define CM_HDR		sizeof(struct lcmsghdr)
#define CM_LEN(n)	(CM_HDR + (n))
#define CM_SPACE(n)	(CM_HDR + CM_ALIGN(n))

/* May p claim the ids of sc?  Linux's scm_check_creds. */
static int
scm_check_cred(struct proc *p, const struct sockcred *sc)
{
	const struct ucred *cr = p->p_ucred;
	if (cred_is_root(cr))
		return 0;
	if (sc->sc_pid != p->p_pid)
		return -EPERM;
	if (sc->sc_uid != cr->cr_uid && sc->sc_uid != cr->cr_ruid &&
	    sc->sc_uid != cr->cr_svuid)
		return -EPERM;
	if (sc->sc_gid != cr->cr_gid && sc->sc_gid != cr->cr_rgid &&
	    sc->sc_gid != cr->cr_svgid)
		return -EPERM;
	return 0;
}

static int
scm_rights_in(struct proc *p, const char *data, size_t n, struct sockctl *ctl)
{
	int nfds = (int)(n / sizeof(int));
	if (nfds <= 0)
		return 0;
	if (ctl->sc_nfds + nfds > SCM_MAX_FD)
		return -EINVAL;
	if (ctl->sc_fds == NULL &&
	    (ctl->sc_fds = kmalloc(SCM_MAX_FD * sizeof(*ctl->sc_fds), 0)) == NULL)
		return -ENOMEM;
	for (int i = 0; i < nfds; i++) {
		int fd;
		memcpy(&fd, data + i * sizeof(int), sizeof(fd));
		struct file *fp = fget(&p->p_fs, fd);
		if (fp == NULL)
			return -EBADF;
		ctl->sc_fds[ctl->sc_nfds++] = fp;
	}
	return 0;
}

int
scm_internalize(struct proc *p, const struct protosw *pr, const char *buf,
    size_t len, struct sockctl *ctl)
{
	struct lcmsghdr h;
	int error;

	for (size_t off = 0; off + CM_HDR <= len; off += CM_ALIGN(h.cmsg_len)) {
		memcpy(&h, buf + off, sizeof(h));
		if (h.cmsg_len < CM_HDR || h.cmsg_len > len - off)
			return -EINVAL;
		if (h.cmsg_level != SOL_SOCKET || !(pr->pr_flags & PR_RIGHTS))
			continue;
		const char *data = buf + off + CM_HDR;
		size_t n = h.cmsg_len - CM_HDR;
		switch (h.cmsg_type) {
		case SCM_RIGHTS:
			if ((error = scm_rights_in(p, data, n, ctl)) < 0)
				return error;
			break;
		case SCM_CREDENTIALS:
			if (n != sizeof(struct sockcred))
				return -EINVAL;
			memcpy(&ctl->sc_cred, data, sizeof(ctl->sc_cred));
			if ((error = scm_check_cred(p, &ctl->sc_cred)) < 0)
				return error;
			ctl->sc_hascred = true;
			break;
		default:
			return -EINVAL;
		}
		if (CM_ALIGN(h.cmsg_len) > len - off)
			break;
	}
	return 0;
}

/*
 * Linux's put_cmsg: as much of the message as fits (MSG_CTRUNC if not
 * all), nothing if not even the header does.  The bytes used.
 */
static size_t
put_cmsg(char *buf, size_t room, int level, int type, const void *data,
    size_t n, int *msgflags)
{
	if (room < CM_HDR) {
		*msgflags |= MSG_CTRUNC;
		return 0;
	}
	size_t cmlen = CM_LEN(n);
	if (cmlen > room) {
		*msgflags |= MSG_CTRUNC;
		cmlen = room;
	}
	struct lcmsghdr h = { cmlen, level, type };
	memcpy(buf, &h, sizeof(h));
	memcpy(buf + CM_HDR, data, cmlen - CM_HDR);
	return MIN(CM_SPACE(n), room);
}

size_t
scm_externalize(struct proc *p, struct sockctl *ctl, bool passcred, int flags,
    char *buf, size_t size, int *msgflags)
{
	size_t used = 0;

	for (int i = 0; i < ctl->sc_nints && buf != NULL; i++)
		used += put_cmsg(buf + used, size - used, ctl->sc_ints[i].so_level,
		    ctl->sc_ints[i].so_type, &ctl->sc_ints[i].so_val, sizeof(int),
		    msgflags);
	ctl->sc_nints = 0;
	if (passcred && ctl->sc_hascred && buf != NULL)
		used += put_cmsg(buf + used, size - used, SOL_SOCKET,
		    SCM_CREDENTIALS, &ctl->sc_cred, sizeof(ctl->sc_cred),
		    msgflags);
	if (ctl->sc_nfds == 0)
		return used;
	size_t room = buf != NULL ? size - used : 0;
	int fdmax = room > CM_HDR ? (int)((room - CM_HDR) / sizeof(int)) : 0;
	int fdflags = (flags & MSG_CMSG_CLOEXEC) ? FD_CLOEXEC : 0;
	int i;
	for (i = 0; i < ctl->sc_nfds && i < fdmax; i++) {
		int fd = fdalloc(&p->p_fs, ctl->sc_fds[i], 0, fdflags);
		if (fd < 0)
			break;
		memcpy(buf + used + CM_HDR + i * sizeof(int), &fd, sizeof(fd));
	}
	if (i > 0) {
		struct lcmsghdr h = { CM_LEN(i * sizeof(int)), SOL_SOCKET,
		    SCM_RIGHTS };
		memcpy(buf + used, &h, sizeof(h));
		used += MIN(CM_SPACE(i * sizeof(int)), room);
	}
	if (i < ctl->sc_nfds)
		*msgflags |= MSG_CTRUNC;
	sockctl_release(ctl);	/* the descriptors hold their own references */
	return used;
}
