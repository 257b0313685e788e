/*
 * inotify: watches on vnodes and the queues of their events (see
 * inotify.h).
 *
 * Watches are found by vnode in one hash table; each instance keeps its
 * own list too, for inotify_rm_watch and close.  An event is queued on
 * each matching watch's instance as a struct inotify_event and its
 * name, padded as Linux pads it; the same event twice in a row is kept
 * once, as Linux merges them.  A queue full at max_queued_events (16384)
 * ends with one IN_Q_OVERFLOW.  A watch ends with IN_IGNORED: removed by
 * inotify_rm_watch, after an IN_ONESHOT event, or when its vnode is
 * deleted (after IN_DELETE_SELF).
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <sys/ioctl.h>

#include "fs/anon_file.h"
#include "fs/inotify.h"
#include "fs/ioctl.h"
#include "fs/namei.h"
#include "fs/poll.h"
#include "fs/vnode.h"
#include "kern/kernel.h"
#include "kern/queue.h"
#include "kern/thread.h"
#include "kern/uio.h"
#include "kern/kmem.h"

#define INOTIFY_MAX_EVENTS	16384	/* Linux's max_queued_events */
/*
 * Linux bounds instances and watches per user (max_user_instances: 128,
 * EMFILE; max_user_watches: ENOSPC); these bound them in the kernel, so
 * that queues and watched vnodes cannot take all memory.
 */
#define INOTIFY_MAX_INSTANCES	1024
#define INOTIFY_MAX_WATCHES	65536
#define INOTIFY_HASH		256
/* The bits of a watch's mask that inotify_add_watch keeps. */
#define IN_WATCH_BITS	(IN_ALL_EVENTS | IN_ONESHOT | IN_EXCL_UNLINK)

struct inotify_watch {
	struct inotify *w_in;
	struct vnode *w_vp;		/* referenced */
	int w_wd;
	uint32_t w_mask;
	TAILQ_ENTRY(inotify_watch) w_hlink;	/* in the hash chain */
	TAILQ_ENTRY(inotify_watch) w_ilink;	/* the instance's */
};
TAILQ_HEAD(watchq, inotify_watch);

struct inotify_kevent {
	TAILQ_ENTRY(inotify_kevent) ke_link;
	struct inotify_event ke_ev;	/* ke_ev.len bytes of name follow */
};

struct inotify {
	struct watchq in_watches;
	int in_nextwd;
	TAILQ_HEAD(kevq, inotify_kevent) in_queue;
	unsigned in_qcount;
	unsigned in_qbytes;
	struct selinfo in_sel;
};

/* A file's directory (referenced) and name, for the file's events. */
struct inotify_fileref {
	struct vnode *fr_dvp;
	char fr_name[];
};

int inotify_nwatches;
bool inotify_used;
static int inotify_ninstances;
static struct watchq watch_hash[INOTIFY_HASH];

static const struct anon_fileops inotify_ops;

static unsigned
ptr_hash(const void *ptr)
{
	uintptr_t h = (uintptr_t)ptr >> 4;
	return (unsigned)(h ^ (h >> 8) ^ (h >> 16)) % INOTIFY_HASH;
}

/* The queue of in gets one event; merged with an equal last one. */
static void
inotify_queue(struct inotify *in, int wd, uint32_t mask, uint32_t cookie,
    const char *name)
{
	size_t len = 0;
	if (name != NULL)
		len = roundup2(strlen(name) + 1, sizeof(struct inotify_event));
	struct inotify_kevent *last = TAILQ_LAST(&in->in_queue, kevq);
	if (last != NULL && last->ke_ev.wd == wd && last->ke_ev.mask == mask &&
	    last->ke_ev.cookie == cookie && last->ke_ev.len == len &&
	    (name == NULL || strcmp(last->ke_ev.name, name) == 0))
		return;
	if (in->in_qcount >= INOTIFY_MAX_EVENTS) {
		if (last != NULL && last->ke_ev.mask == IN_Q_OVERFLOW)
			return;
		wd = -1, mask = IN_Q_OVERFLOW, cookie = 0, len = 0, name = NULL;
	}
	struct inotify_kevent *ke = kmalloc(sizeof(*ke) + len, KM_ZERO);
	if (ke == NULL)
		return;		/* lost, as a full queue would lose it */
	ke->ke_ev.wd = wd;
	ke->ke_ev.mask = mask;
	ke->ke_ev.cookie = cookie;
	ke->ke_ev.len = (uint32_t)len;
	if (name != NULL)
		strcpy(ke->ke_ev.name, name);
	TAILQ_INSERT_TAIL(&in->in_queue, ke, ke_link);
	in->in_qcount++;
	in->in_qbytes += (unsigned)(sizeof(ke->ke_ev) + len);
	wakeup(in);
	selwakeup(&in->in_sel);
}

/* Ends watch w: IN_IGNORED, and the vnode is let go. */
static void
watch_remove(struct inotify_watch *w)
{
	inotify_queue(w->w_in, w->w_wd, IN_IGNORED, 0, NULL);
	TAILQ_REMOVE(&watch_hash[ptr_hash(w->w_vp)], w, w_hlink);
	TAILQ_REMOVE(&w->w_in->in_watches, w, w_ilink);
	inotify_nwatches--;
	vrele(w->w_vp);
	kfree(w);
}

/*
 * Reports mask (with cookie and the entry's name) to the watches of vp
 * that want it.  IN_ISDIR and the other flags go along with an event
 * wanted.
 */
static void
notify(struct vnode *vp, uint32_t mask, uint32_t cookie, const char *name)
{
	struct inotify_watch *w, *next;

	if (vp == NULL)
		return;
	TAILQ_FOREACH_SAFE(w, &watch_hash[ptr_hash(vp)], w_hlink, next) {
		if (w->w_vp != vp || !(w->w_mask & mask & IN_ALL_EVENTS))
			continue;
		inotify_queue(w->w_in, w->w_wd, mask & (w->w_mask | ~IN_ALL_EVENTS),
		    cookie, name);
		if (w->w_mask & IN_ONESHOT)
			watch_remove(w);
	}
}

/* vp was deleted: IN_DELETE_SELF, and its watches end. */
static void
notify_deleted(struct vnode *vp)
{
	struct inotify_watch *w, *next;

	notify(vp, IN_DELETE_SELF, 0, NULL);
	TAILQ_FOREACH_SAFE(w, &watch_hash[ptr_hash(vp)], w_hlink, next)
		if (w->w_vp == vp)
			watch_remove(w);
}

static uint32_t
isdir(const struct vnode *vp)
{
	return vp != NULL && vp->v_type == VDIR ? IN_ISDIR : 0;
}

void
inotify_create1(struct vnode *dvp, const char *name, struct vnode *vp)
{
	notify(dvp, IN_CREATE | isdir(vp), 0, name);
}

void
inotify_delete1(struct vnode *dvp, const char *name, struct vnode *vp)
{
	/* Linux's order: the link count, the file's end, the entry's. */
	if (vp->v_type != VDIR)
		notify(vp, IN_ATTRIB, 0, NULL);
	if (vp->v_nlink == 0)
		notify_deleted(vp);
	notify(dvp, IN_DELETE | isdir(vp), 0, name);
}

void
inotify_rename1(struct vnode *fdvp, const char *fname, struct vnode *tdvp,
    const char *tname, struct vnode *vp, struct vnode *replaced)
{
	static uint32_t cookies;
	uint32_t cookie = ++cookies;

	notify(fdvp, IN_MOVED_FROM | isdir(vp), cookie, fname);
	notify(tdvp, IN_MOVED_TO | isdir(vp), cookie, tname);
	notify(vp, IN_MOVE_SELF, 0, NULL);
	if (replaced != NULL && replaced->v_nlink == 0)
		notify_deleted(replaced);
}

void
inotify_vnode1(struct vnode *vp, uint32_t mask)
{
	notify(vp, mask | isdir(vp), 0, NULL);
}

void
inotify_parent1(struct fsproc *p, struct ucred *cr, int dirfd,
    const char *path, struct vnode *vp, uint32_t mask)
{
	struct nameidata nd;

	if (namei_at(p, cr, dirfd, path, NI_PARENT, &nd) < 0)
		return;
	if (nd.ni_vp == vp && nd.ni_lasttype == NI_LAST_NORM)
		notify(nd.ni_dvp, mask | isdir(vp), 0, nd.ni_last);
	namei_done(&nd);
}

/* Reports mask about file fp: to its vnode, and its directory by name. */
static void
notify_file(struct file *fp, uint32_t mask)
{
	struct inotify_fileref *fr = fp->f_inotify;
	mask |= isdir(fp->f_vnode);
	notify(fp->f_vnode, mask, 0, NULL);
	if (fr != NULL)
		notify(fr->fr_dvp, mask, 0, fr->fr_name);
}

void
inotify_open1(struct file *fp, struct vnode *dvp, const char *name)
{
	struct inotify_fileref *fr;

	if (fp->f_vnode == NULL)
		return;
	if (dvp != NULL && (fr = kmalloc(sizeof(*fr) + strlen(name) + 1, 0))) {
		fr->fr_dvp = vref(dvp);
		strcpy(fr->fr_name, name);
		fp->f_inotify = fr;
	}
	if (inotify_nwatches > 0)
		notify_file(fp, IN_OPEN);
}

void
inotify_file1(struct file *fp, uint32_t mask)
{
	if (fp->f_vnode != NULL)
		notify_file(fp, mask);
}

void
inotify_close1(struct file *fp)
{
	struct inotify_fileref *fr = fp->f_inotify;

	if (inotify_nwatches > 0)
		notify_file(fp, FWRITE(fp) ? IN_CLOSE_WRITE : IN_CLOSE_NOWRITE);
	if (fr != NULL) {
		fp->f_inotify = NULL;
		vrele(fr->fr_dvp);
		kfree(fr);
	}
}

/* The instance behind descriptor fd, referenced in *fpp. */
static struct inotify *
inotify_get(struct fsproc *p, int fd, struct file **fpp, int *error)
{
	struct file *fp = fget(p, fd);
	*error = -EBADF;
	if (fp == NULL)
		return NULL;
	struct inotify *in = anonfile_data(fp, &inotify_ops);
	if (in == NULL) {
		*error = -EINVAL;
		fdrop(fp);
		return NULL;
	}
	*fpp = fp;
	return in;
}

int
kern_inotify_add_watch(struct fsproc *p, struct ucred *cr, int fd,
    const char *path, uint32_t mask)
{
	struct nameidata nd;
	struct file *fp;
	int error;

	if (!(mask & IN_ALL_EVENTS) ||
	    ((mask & IN_MASK_ADD) && (mask & IN_MASK_CREATE)))
		return -EINVAL;
	struct inotify *in = inotify_get(p, fd, &fp, &error);
	if (in == NULL)
		return error;
	error = namei_at(p, cr, AT_FDCWD, path,
	    (mask & IN_DONT_FOLLOW) ? 0 : NI_FOLLOW, &nd);
	if (error < 0)
		goto out;
	struct vnode *vp = nd.ni_vp;
	if ((mask & IN_ONLYDIR) && vp->v_type != VDIR)
		error = -ENOTDIR;
	else
		error = vaccess(vp, R_OK, cr);
	if (error < 0) {
		namei_done(&nd);
		goto out;
	}
	struct inotify_watch *w;
	TAILQ_FOREACH(w, &in->in_watches, w_ilink)
		if (w->w_vp == vp)
			break;
	if (w != NULL) {
		if (mask & IN_MASK_CREATE)
			error = -EEXIST;
		else {
			w->w_mask = (mask & IN_WATCH_BITS) |
			    ((mask & IN_MASK_ADD) ? w->w_mask : 0);
			error = w->w_wd;
		}
		namei_done(&nd);
		goto out;
	}
	if (inotify_nwatches >= INOTIFY_MAX_WATCHES) {
		namei_done(&nd);
		error = -ENOSPC;
		goto out;
	}
	if ((w = kmalloc(sizeof(*w), KM_ZERO)) == NULL) {
		namei_done(&nd);
		error = -ENOMEM;
		goto out;
	}
	w->w_in = in;
	w->w_vp = vref(vp);
	w->w_wd = in->in_nextwd++;
	w->w_mask = mask & IN_WATCH_BITS;
	TAILQ_INSERT_TAIL(&watch_hash[ptr_hash(vp)], w, w_hlink);
	TAILQ_INSERT_TAIL(&in->in_watches, w, w_ilink);
	inotify_nwatches++;
	error = w->w_wd;
	namei_done(&nd);
out:
	fdrop(fp);
	return error;
}

int
kern_inotify_rm_watch(struct fsproc *p, int fd, int wd)
{
	struct file *fp;
	int error;
	struct inotify *in = inotify_get(p, fd, &fp, &error);
	if (in == NULL)
		return error;
	struct inotify_watch *w;
	TAILQ_FOREACH(w, &in->in_watches, w_ilink)
		if (w->w_wd == wd)
			break;
	error = -EINVAL;
	if (w != NULL) {
		watch_remove(w);
		error = 0;
	}
	fdrop(fp);
	return error;
}

/* Reads whole events; -EINVAL if the first does not fit. */
static int
inotify_read(struct file *fp, struct uio *uio)
{
	struct inotify *in = fp->f_data;
	struct inotify_kevent *ke;
	int error = 0;
	bool got = false;

	while (TAILQ_EMPTY(&in->in_queue)) {
		if (fp->f_flag & O_NONBLOCK)
			return -EAGAIN;
		if (tsleep(in, PCATCH, "inotify", 0) == EINTR)
			return -ERESTARTSYS;
	}
	while ((ke = TAILQ_FIRST(&in->in_queue)) != NULL) {
		size_t size = sizeof(ke->ke_ev) + ke->ke_ev.len;
		if (uio->uio_resid < size) {
			if (!got)
				error = -EINVAL;
			break;
		}
		if ((error = uiomove(&ke->ke_ev, size, uio)) < 0)
			break;
		got = true;
		TAILQ_REMOVE(&in->in_queue, ke, ke_link);
		in->in_qcount--;
		in->in_qbytes -= (unsigned)size;
		kfree(ke);
	}
	return error;
}

static int
inotify_nowrite(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return -EINVAL;
}

static const struct ioctl_cmd inotify_ioctl_tab[] = {
	IOCTL_CMD(FIONREAD, IOCD_OUT, sizeof(int)),
	IOCTL_END
};

static const struct ioctl_cmd *
inotify_ioctls(struct file *fp)
{
	(void)fp;
	return inotify_ioctl_tab;
}

/* FIONREAD: the bytes of the queued events. */
static int
inotify_ioctl(struct file *fp, unsigned long cmd, void *data)
{
	struct inotify *in = fp->f_data;
	int n = (int)in->in_qbytes;
	(void)cmd;
	memcpy(data, &n, sizeof(n));
	return 0;
}

static int
inotify_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	struct inotify *in = fp->f_data;

	selrecord(pw, &in->in_sel);
	return TAILQ_EMPTY(&in->in_queue) ? 0 : events & (POLLIN | POLLRDNORM);
}

static void
inotify_fo_close(struct file *fp)
{
	struct inotify *in = fp->f_data;
	struct inotify_watch *w;
	struct inotify_kevent *ke;

	while ((w = TAILQ_FIRST(&in->in_watches)) != NULL)
		watch_remove(w);
	while ((ke = TAILQ_FIRST(&in->in_queue)) != NULL) {
		TAILQ_REMOVE(&in->in_queue, ke, ke_link);
		kfree(ke);
	}
	seldrain(&in->in_sel);
	kfree(in);
	inotify_ninstances--;
}

static const struct anon_fileops inotify_ops = {
	.af_ops = {
		.fo_read = inotify_read,
		.fo_write = inotify_nowrite,
		.fo_ioctls = inotify_ioctls,
		.fo_ioctl = inotify_ioctl,
		.fo_poll = inotify_poll,
		.fo_stat = anonfile_stat,
		.fo_lseek = anonfile_lseek,
		.fo_close = inotify_fo_close,
	},
	.af_name = "inotify",
};

int
kern_inotify_init(struct fsproc *p, int flags)
{
	if (flags & ~(IN_CLOEXEC | IN_NONBLOCK))
		return -EINVAL;
	if (!inotify_used) {
		for (int i = 0; i < INOTIFY_HASH; i++)
			TAILQ_INIT(&watch_hash[i]);
		inotify_used = true;
	}
	if (inotify_ninstances >= INOTIFY_MAX_INSTANCES)
		return -EMFILE;
	struct inotify *in = kmalloc(sizeof(*in), KM_ZERO);
	if (in == NULL)
		return -ENOMEM;
	TAILQ_INIT(&in->in_watches);
	TAILQ_INIT(&in->in_queue);
	in->in_nextwd = 1;
	selinfo_init(&in->in_sel);
	struct file *fp = anonfile_alloc(&inotify_ops, in,
	    O_RDONLY | (flags & O_NONBLOCK));
	if (fp == NULL) {
		kfree(in);
		return -ENOMEM;
	}
	inotify_ninstances++;
	return anonfile_install(p, fp, flags & O_CLOEXEC);
}
