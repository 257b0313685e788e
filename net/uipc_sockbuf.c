/*
 * Socket buffers: queues of records, with the sleeps and wake-ups of
 * their readers and writers (see socketvar.h).
 */
#include "fs/file.h"
#include "kern/kernel.h"
#include "kern/thread.h"
#include "kern/uio.h"
#include "net/socketvar.h"
#include "kern/kmem.h"

void
sbinit(struct sockbuf *sb, uint32_t hiwat)
{
	TAILQ_INIT(&sb->sb_recs);
	sb->sb_cc = 0;
	sb->sb_nrecs = 0;
	sb->sb_hiwat = hiwat;
	sb->sb_timeo = 0;
	selinfo_init(&sb->sb_sel);
}

void
sockctl_release(struct sockctl *ctl)
{
	for (int i = 0; i < ctl->sc_nfds; i++)
		if (ctl->sc_fds[i] != NULL)
			fdrop(ctl->sc_fds[i]);
	kfree(ctl->sc_fds);
	ctl->sc_fds = NULL;
	ctl->sc_nfds = 0;
}

struct sbrec *
sbrec_alloc(struct socket *sender, struct uio *uio, uint32_t len,
    struct sockctl *ctl, const char *addr, socklen_t addrlen, int *error)
{
	struct sbrec *rec = kmalloc(sizeof(*rec) + len, 0);
	if (rec == NULL) {
		*error = -ENOMEM;
		return NULL;
	}
	if (len > 0 && (*error = uiomove(rec->r_data, len, uio)) < 0) {
		kfree(rec);
		return NULL;
	}
	rec->r_len = len;
	rec->r_off = 0;
	rec->r_charge = len + SBREC_OVERHEAD +
	    (uint32_t)(ctl->sc_nfds * sizeof(struct file *));
	rec->r_sender = sender;
	soref(sender);
	sender->so_snd.sb_cc += rec->r_charge;
	rec->r_ctl = *ctl;
	ctl->sc_fds = NULL;
	ctl->sc_nfds = 0;
	rec->r_addrlen = (uint8_t)MIN(addrlen, SOCKADDR_MAX);
	if (rec->r_addrlen > 0)
		memcpy(rec->r_addr, addr, rec->r_addrlen);
	return rec;
}

void
sowakeup(struct sockbuf *sb)
{
	wakeup(sb);
	selwakeup(&sb->sb_sel);
}

void
sbappend(struct socket *so, struct sockbuf *sb, struct sbrec *rec)
{
	(void)so;
	TAILQ_INSERT_TAIL(&sb->sb_recs, rec, r_link);
	sb->sb_cc += rec->r_len;
	sb->sb_nrecs++;
	sowakeup(sb);
}

/* Gives n bytes of rec's charge back to its sender, who may write again. */
static void
sbuncharge(struct sbrec *rec, uint32_t n)
{
	struct socket *sender = rec->r_sender;
	sender->so_snd.sb_cc -= n;
	rec->r_charge -= n;
	sowakeup(&sender->so_snd);
}

/*
 * Records whose files are being closed.  Closing a file in flight may
 * close a socket, whose queued records hold more files, and so on: a
 * chain of sockets passed into each other would recurse as deep as it
 * is long.  Instead the first release drains this list and the closes
 * it causes only add to it (Linux bounds the same walk with its GC).
 */
static TAILQ_HEAD(, sbrec) sb_dying = TAILQ_HEAD_INITIALIZER(sb_dying);
static bool sb_draining;

static void
sb_drain(void)
{
	struct sbrec *rec;

	if (sb_draining)
		return;
	sb_draining = true;
	while ((rec = TAILQ_FIRST(&sb_dying)) != NULL) {
		TAILQ_REMOVE(&sb_dying, rec, r_link);
		sockctl_release(&rec->r_ctl);
		kfree(rec);
	}
	sb_draining = false;
}

static void
sbrec_free(struct sockbuf *sb, struct sbrec *rec)
{
	TAILQ_REMOVE(&sb->sb_recs, rec, r_link);
	sb->sb_nrecs--;
	sb->sb_cc -= rec->r_len - rec->r_off;
	sbuncharge(rec, rec->r_charge);
	sorele(rec->r_sender);
	if (rec->r_ctl.sc_nfds == 0) {
		kfree(rec);
		return;
	}
	TAILQ_INSERT_TAIL(&sb_dying, rec, r_link);
	sb_drain();
}

void
sbdrop(struct sockbuf *sb, uint32_t n)
{
	struct sbrec *rec = TAILQ_FIRST(&sb->sb_recs);
	if (rec == NULL)
		return;
	if (rec->r_off + n < rec->r_len) {
		rec->r_off += n;
		sb->sb_cc -= n;
		sbuncharge(rec, n);
		return;
	}
	sbrec_free(sb, rec);
}

void
sbflush(struct sockbuf *sb)
{
	struct sbrec *rec;
	while ((rec = TAILQ_FIRST(&sb->sb_recs)) != NULL)
		sbrec_free(sb, rec);
}

int
sbwait(struct sockbuf *sb)
{
	int error = tsleep(sb, PCATCH, "sbwait", sb->sb_timeo);
	if (error == EWOULDBLOCK)
		return -EAGAIN;
	if (error == EINTR)
		return sb->sb_timeo != 0 ? -EINTR : -ERESTARTSYS;
	return 0;
}

void
sblock(struct sockbuf *sb)
{
	while (sb->sb_rbusy)
		tsleep(&sb->sb_rbusy, 0, "sblock", 0);
	sb->sb_rbusy = true;
}

void
sbunlock(struct sockbuf *sb)
{
	sb->sb_rbusy = false;
	wakeup(&sb->sb_rbusy);
}

int
sbwait_reader(struct sockbuf *sb)
{
	sbunlock(sb);
	int error = sbwait(sb);
	sblock(sb);
	return error;
}
