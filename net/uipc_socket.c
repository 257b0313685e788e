/*
 * Sockets as objects and as open files: creation and reference counts,
 * and the file operations (soo_*) that read, write, poll, fstat and
 * close go through.
 */
#include <fcntl.h>
#include <sys/ioctl.h>

#include "fs/file.h"
#include "fs/ioctl.h"
#include "fs/vfs.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "kern/uio.h"
#include "net/if.h"
#include "net/socketvar.h"
#include "kern/kmem.h"

struct socket *
socreate(const struct protosw *pr, int protocol, struct ucred *cr,
    int *error)
{
	struct socket *so = kmalloc(sizeof(*so), KM_ZERO);
	if (so == NULL) {
		*error = -ENOMEM;
		return NULL;
	}
	so->so_refs = 1;
	so->so_type = pr->pr_type;
	so->so_family = pr->pr_family;
	so->so_proto = pr;
	so->so_protocol = protocol;
	sbinit(&so->so_rcv, SB_DEFAULT);
	sbinit(&so->so_snd, SB_DEFAULT);
	so->so_ino = vfs_newino();
	so->so_uid = cr->cr_uid;
	so->so_gid = cr->cr_gid;
	if ((*error = pr->pr_usrreqs->pru_attach(so)) < 0) {
		kfree(so);
		return NULL;
	}
	return so;
}

void
soref(struct socket *so)
{
	so->so_refs++;
}

void
sorele(struct socket *so)
{
	if (--so->so_refs > 0)
		return;
	seldrain(&so->so_rcv.sb_sel);
	seldrain(&so->so_snd.sb_sel);
	kfree(so->so_pcb);	/* detached: it holds no references */
	kfree(so);
}

void
sockcred_self(struct proc *p, struct sockcred *sc)
{
	sc->sc_pid = p->p_pid;
	sc->sc_uid = p->p_ucred->cr_uid;
	sc->sc_gid = p->p_ucred->cr_gid;
}

struct socket *
fp_socket(struct file *fp)
{
	return fp->f_type == DTYPE_SOCKET ? fp->f_data : NULL;
}

static int
soo_read(struct file *fp, struct uio *uio)
{
	struct socket *so = fp->f_data;
	char name[SOCKADDR_MAX];
	struct sockmsg m = { .sm_uio = uio, .sm_name = name,
	    .sm_flags = (fp->f_flag & O_NONBLOCK) ? MSG_DONTWAIT : 0 };
	int64_t r = so->so_proto->pr_usrreqs->pru_recv(so, &m, curproc);
	sockctl_release(&m.sm_ctl);
	return r < 0 ? (int)r : 0;
}

static int
soo_write(struct file *fp, struct uio *uio)
{
	struct socket *so = fp->f_data;
	struct sockmsg m = { .sm_uio = uio,
	    .sm_flags = (fp->f_flag & O_NONBLOCK) ? MSG_DONTWAIT : 0 };
	int64_t r = so->so_proto->pr_usrreqs->pru_send(so, &m, curproc);
	return r < 0 ? (int)r : 0;
}

/* FIONREAD, then the interface ioctls every socket takes (net/if.h). */
static struct ioctl_cmd soo_ioctls[32];

static const struct ioctl_cmd *
soo_ioctl_cmds(struct file *fp)
{
	(void)fp;
	if (soo_ioctls[0].ic_name == NULL) {
		size_t n = 0;
		soo_ioctls[n++] = (struct ioctl_cmd)IOCTL_CMD(FIONREAD, IOCD_OUT,
		    sizeof(int));
		for (size_t i = 0; if_ioctls[i].ic_name != NULL; i++)
			soo_ioctls[n++] = if_ioctls[i];
		KASSERT(n < nitems(soo_ioctls), "soo_ioctls too small");
	}
	return soo_ioctls;
}

/* FIONREAD (SIOCINQ): what the next read would see. */
static int
soo_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	struct socket *so = fp->f_data;

	if (cmd != FIONREAD)
		return ifioctl(cmd, data, curproc);
	int n = so->so_proto->pr_usrreqs->pru_nread(so);
	if (n < 0)
		return n;	/* Linux's ping sockets: ENOTTY */
	memcpy(data, &n, sizeof(n));
	return 0;
}

static int
soo_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct socket *so = fp->f_data;
	return so->so_proto->pr_usrreqs->pru_poll(so, events, pw);
}

static int
soo_stat(struct file *fp, struct linux_stat *st)
{
	struct socket *so = fp->f_data;
	static dev_t sockfs_dev;

	if (sockfs_dev == 0)
		sockfs_dev = vfs_anondev();
	memset(st, 0, sizeof(*st));
	st->st_dev = sockfs_dev;
	st->st_ino = so->so_ino;
	st->st_nlink = 1;
	st->st_mode = S_IFSOCK | 0777;
	st->st_uid = so->so_uid;
	st->st_gid = so->so_gid;
	st->st_blksize = PAGE_SIZE;
	return 0;
}

static int64_t
soo_lseek(struct file *fp, int64_t off, int whence)
{
	(void)fp, (void)off, (void)whence;
	return -ESPIPE;
}

/* The last descriptor closed: the family lets go, then the file's reference. */
static void
soo_close(struct file *fp)
{
	struct socket *so = fp->f_data;
	so->so_file = NULL;
	so->so_proto->pr_usrreqs->pru_detach(so);
	sorele(so);
}

static const struct fileops socketops = {
	.fo_read = soo_read,
	.fo_write = soo_write,
	.fo_ioctls = soo_ioctl_cmds,
	.fo_ioctl = soo_ioctl,
	.fo_poll = soo_poll,
	.fo_stat = soo_stat,
	.fo_lseek = soo_lseek,
	.fo_close = soo_close,
};

struct file *
sofile(struct socket *so, int flags)
{
	struct file *fp = falloc(DTYPE_SOCKET, O_RDWR | (flags & O_NONBLOCK),
	    &socketops);
	if (fp == NULL) {
		so->so_proto->pr_usrreqs->pru_detach(so);
		sorele(so);
		return NULL;
	}
	fp->f_data = so;
	so->so_file = fp;
	return fp;
}
