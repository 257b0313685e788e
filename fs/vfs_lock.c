/*
 * Advisory locks (lockf.h).  Each vnode keeps a list of its locks in
 * order of their start, each a byte range [start, end] of one type and
 * one owner; an owner's locks never overlap, and its adjacent locks of
 * one type are merged, as Linux merges them (what F_GETLK reports
 * depends on it).  A waiter sleeps on
 * the vnode's list and looks again after every change to it.  A POSIX
 * waiter records whose lock it waits for, so that a wait that would
 * close a cycle of owners fails with EDEADLK instead.
 *
 * Everything runs under the big kernel lock.
 */
#include <sys/file.h>

#include "fs/file.h"
#include "fs/lockf.h"
#include "fs/vnode.h"
#include "kern/queue.h"
#include "kern/thread.h"
#include "kern/kmem.h"

#define LF_POSIX	0x1		/* owner: a descriptor table */
#define LF_OFD		0x2		/* owner: an open file */
#define LF_FLOCK	0x4		/* owner: an open file; a space apart */

#define OFF_MAX		INT64_MAX

struct lockf {
	short lf_type;			/* F_RDLCK or F_WRLCK */
	short lf_flags;			/* LF_* */
	int64_t lf_start, lf_end;	/* inclusive; lf_end OFF_MAX: to EOF and on */
	const void *lf_owner;
	pid_t lf_pid;			/* F_GETLK's l_pid: -1 for OFD */
	struct lockf *lf_next;
};

/* A POSIX owner waiting for another's lock (deadlock detection). */
struct lockwait {
	const void *lw_owner, *lw_blocker;
	TAILQ_ENTRY(lockwait) lw_link;
};
static TAILQ_HEAD(, lockwait) lockwaits = TAILQ_HEAD_INITIALIZER(lockwaits);

/* Whether a and b are one owner's (the same space and owner). */
static bool
same_owner(const struct lockf *a, const struct lockf *b)
{
	return a->lf_owner == b->lf_owner &&
	    (a->lf_flags & LF_FLOCK) == (b->lf_flags & LF_FLOCK);
}

/* Whether held lock l stands in the way of request r. */
static bool
conflicts(const struct lockf *l, const struct lockf *r)
{
	if ((l->lf_flags & LF_FLOCK) != (r->lf_flags & LF_FLOCK) || same_owner(l, r))
		return false;
	if (l->lf_type != F_WRLCK && r->lf_type != F_WRLCK)
		return false;
	return l->lf_start <= r->lf_end && r->lf_start <= l->lf_end;
}

static struct lockf *
find_conflict(struct vnode *vp, const struct lockf *r)
{
	for (struct lockf *l = vp->v_lockf; l != NULL; l = l->lf_next)
		if (conflicts(l, r))
			return l;
	return NULL;
}

/*
 * Whether owner waiting for blocker's lock would wait for itself: the
 * chain of POSIX owners each waiting for the next comes back to it.
 */
static bool
would_deadlock(const void *owner, const void *blocker)
{
	for (int hops = 0; hops < 1000 && blocker != NULL; hops++) {
		if (blocker == owner)
			return true;
		const struct lockwait *lw;
		const void *next = NULL;
		TAILQ_FOREACH(lw, &lockwaits, lw_link)
			if (lw->lw_owner == blocker) {
				next = lw->lw_blocker;
				break;
			}
		blocker = next;
	}
	return false;
}

/*
 * Sets r's owner's locks over r's range to r's type (F_UNLCK: none).  The
 * caller has checked for conflicts.  spare holds two unused locks, which
 * this takes as it needs them (a split, the new lock); r itself is never
 * kept.
 */
static void
lock_apply(struct vnode *vp, const struct lockf *r, struct lockf *spare[2])
{
	int64_t start = r->lf_start, end = r->lf_end;
	struct lockf **lp = &vp->v_lockf, *l;

	while ((l = *lp) != NULL) {
		if (!same_owner(l, r)) {
			lp = &l->lf_next;
			continue;
		}
		bool adjacent = (l->lf_end != OFF_MAX && l->lf_end + 1 == start) ||
		    (end != OFF_MAX && end + 1 == l->lf_start);
		bool overlap = l->lf_start <= end && start <= l->lf_end;
		if (r->lf_type != F_UNLCK && l->lf_type == r->lf_type &&
		    (overlap || adjacent)) {
			/* Merged into the new lock. */
			start = l->lf_start < start ? l->lf_start : start;
			end = l->lf_end > end ? l->lf_end : end;
			*lp = l->lf_next;
			kfree(l);
			continue;
		}
		if (!overlap) {
			lp = &l->lf_next;
			continue;
		}
		if (l->lf_start < r->lf_start && l->lf_end > r->lf_end) {
			/* The range falls inside l: l keeps both ends. */
			struct lockf *tail = spare[0];
			spare[0] = NULL;
			*tail = *l;
			tail->lf_start = r->lf_end + 1;
			l->lf_end = r->lf_start - 1;
			tail->lf_next = l->lf_next;
			l->lf_next = tail;
			break;
		}
		if (l->lf_start < r->lf_start) {
			l->lf_end = r->lf_start - 1;
		} else if (l->lf_end > r->lf_end) {
			l->lf_start = r->lf_end + 1;
		} else {
			*lp = l->lf_next;
			kfree(l);
			continue;
		}
		lp = &l->lf_next;
	}
	if (r->lf_type != F_UNLCK) {
		struct lockf *n = spare[1];
		spare[1] = NULL;
		*n = *r;
		n->lf_start = start;
		n->lf_end = end;
		/* In order of start, as Linux keeps an owner's: F_GETLK finds the first. */
		for (lp = &vp->v_lockf; *lp != NULL && (*lp)->lf_start <= start;
		    lp = &(*lp)->lf_next)
			;
		n->lf_next = *lp;
		*lp = n;
	}
	wakeup(&vp->v_lockf);
}

/*
 * Takes (or changes, or with F_UNLCK drops) lock r on vp, waiting for
 * conflicting locks to go if wait.
 */
static int
lock_set(struct vnode *vp, const struct lockf *r, bool wait)
{
	struct lockf *spare[2];
	int error = 0;

	spare[0] = kmalloc(sizeof(struct lockf), 0);
	spare[1] = kmalloc(sizeof(struct lockf), 0);
	if (spare[0] == NULL || spare[1] == NULL) {
		error = -ENOLCK;
		goto out;
	}
	struct lockf *c;
	while (r->lf_type != F_UNLCK && (c = find_conflict(vp, r)) != NULL) {
		if (!wait) {
			error = -EAGAIN;
			goto out;
		}
		if (r->lf_flags & LF_POSIX) {
			const void *blocker = (c->lf_flags & LF_POSIX) ? c->lf_owner : NULL;
			if (would_deadlock(r->lf_owner, blocker)) {
				error = -EDEADLK;
				goto out;
			}
			struct lockwait lw = { r->lf_owner, blocker, { NULL, NULL } };
			TAILQ_INSERT_TAIL(&lockwaits, &lw, lw_link);
			int e = tsleep(&vp->v_lockf, PCATCH, "lockf", 0);
			TAILQ_REMOVE(&lockwaits, &lw, lw_link);
			if (e == EINTR) {
				error = -ERESTARTSYS;
				goto out;
			}
		} else if (tsleep(&vp->v_lockf, PCATCH, "lockf", 0) == EINTR) {
			error = -ERESTARTSYS;
			goto out;
		}
	}
	lock_apply(vp, r, spare);
out:
	kfree(spare[0]);
	kfree(spare[1]);
	return error;
}

/* struct flock's range, from whence, into r: 0, -EINVAL, -EOVERFLOW. */
static int
flock_range(struct file *fp, const struct flock *fl, struct lockf *r)
{
	int64_t base;
	switch (fl->l_whence) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = fp->f_offset; break;
	case SEEK_END: base = (int64_t)fp->f_vnode->v_size; break;
	default: return -EINVAL;
	}
	int64_t start;
	if (__builtin_add_overflow(base, (int64_t)fl->l_start, &start))
		return -EOVERFLOW;
	int64_t len = fl->l_len;
	if (len > 0) {
		if (__builtin_add_overflow(start, len - 1, &r->lf_end))
			return -EOVERFLOW;
	} else if (len == 0) {
		r->lf_end = OFF_MAX;
	} else {
		r->lf_end = start - 1;
		if (__builtin_add_overflow(start, len, &start))
			return -EINVAL;
	}
	if (start < 0)
		return -EINVAL;
	r->lf_start = start;
	return 0;
}

int
vfs_advlock(struct file *fp, struct filedesc *fdp, pid_t pid, int cmd,
    struct flock *fl)
{
	struct vnode *vp = fp->f_vnode;
	struct lockf r = { 0 };
	bool ofd = cmd == F_OFD_GETLK || cmd == F_OFD_SETLK || cmd == F_OFD_SETLKW;

	if (vp == NULL)
		return -EINVAL;
	if (ofd && fl->l_pid != 0)
		return -EINVAL;
	if (fl->l_type != F_RDLCK && fl->l_type != F_WRLCK && fl->l_type != F_UNLCK)
		return -EINVAL;
	int error = flock_range(fp, fl, &r);
	if (error < 0)
		return error;
	r.lf_type = fl->l_type;
	r.lf_flags = ofd ? LF_OFD : LF_POSIX;
	r.lf_owner = ofd ? (const void *)fp : (const void *)fdp;
	r.lf_pid = ofd ? -1 : pid;

	if (cmd == F_GETLK || cmd == F_OFD_GETLK) {
		if (fl->l_type == F_UNLCK)
			return -EINVAL;
		struct lockf *c = find_conflict(vp, &r);
		if (c == NULL) {
			fl->l_type = F_UNLCK;
			return 0;
		}
		fl->l_type = c->lf_type;
		fl->l_whence = SEEK_SET;
		fl->l_start = c->lf_start;
		fl->l_len = c->lf_end == OFF_MAX ? 0 : c->lf_end - c->lf_start + 1;
		fl->l_pid = c->lf_pid;
		return 0;
	}
	if ((fl->l_type == F_RDLCK && !FREAD(fp)) ||
	    (fl->l_type == F_WRLCK && !FWRITE(fp)))
		return -EBADF;
	return lock_set(vp, &r, cmd == F_SETLKW || cmd == F_OFD_SETLKW);
}

int
vfs_flock(struct file *fp, int op)
{
	struct vnode *vp = fp->f_vnode;
	struct lockf r = { 0 };
	bool nb = (op & LOCK_NB) != 0;

	switch (op & ~LOCK_NB) {
	case LOCK_SH: r.lf_type = F_RDLCK; break;
	case LOCK_EX: r.lf_type = F_WRLCK; break;
	case LOCK_UN: r.lf_type = F_UNLCK; break;
	default: return -EINVAL;
	}
	if (vp == NULL)
		return 0;	/* a pipe: nothing shares it by name */
	r.lf_flags = LF_FLOCK;
	r.lf_owner = fp;
	r.lf_pid = -1;
	r.lf_start = 0;
	r.lf_end = OFF_MAX;
	if (r.lf_type != F_UNLCK) {
		/* As Linux, a conversion lets the old lock go before it waits. */
		struct lockf un = r;
		un.lf_type = F_UNLCK;
		struct lockf *none[2] = { NULL, NULL };
		if (find_conflict(vp, &r) != NULL)
			lock_apply(vp, &un, none);
	}
	int error = lock_set(vp, &r, !nb);
	return error == -EAGAIN ? -EWOULDBLOCK : error;
}

/* Drops every lock on vp for which drop(lock, arg) holds. */
static void
lock_drop(struct vnode *vp, bool (*drop)(const struct lockf *, const void *),
    const void *arg)
{
	struct lockf **lp = &vp->v_lockf, *l;
	bool any = false;

	while ((l = *lp) != NULL) {
		if (drop(l, arg)) {
			*lp = l->lf_next;
			kfree(l);
			any = true;
		} else {
			lp = &l->lf_next;
		}
	}
	if (any)
		wakeup(&vp->v_lockf);
}

static bool
is_posix_of(const struct lockf *l, const void *fdp)
{
	return (l->lf_flags & LF_POSIX) && l->lf_owner == fdp;
}

static bool
is_file_of(const struct lockf *l, const void *fp)
{
	return (l->lf_flags & (LF_OFD | LF_FLOCK)) && l->lf_owner == fp;
}

void
vfs_lock_close(struct vnode *vp, struct filedesc *fdp)
{
	if (vp->v_lockf != NULL)
		lock_drop(vp, is_posix_of, fdp);
}

void
vfs_lock_release(struct vnode *vp, struct file *fp)
{
	if (vp->v_lockf != NULL)
		lock_drop(vp, is_file_of, fp);
}
