/*
 * System V message queues: msgget, msgsnd, msgrcv, msgctl, as Linux's.
 *
 * A queue is a list of messages in the order sent, each a type and up to
 * MSGMAX bytes copied into the kernel.  A sender waits while the queue
 * holds msg_qbytes bytes (or as many messages: Linux's other limit), a
 * receiver while no message matches its type; both sleep on the queue,
 * and each change wakes them all to look again.  A removed queue wakes
 * its sleepers with EIDRM and is freed by the last of them.
 */
#include <sys/ipc.h>
#include <sys/msg.h>

#include "fs/procfs/procfs.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "sys/syscall.h"
#include "sys/sysv_ipc.h"
#include "kern/kmem.h"

/* Linux's defaults (include/uapi/linux/msg.h). */
#define MSGMNI_L	32000
#define MSGMAX_L	8192
#define MSGMNB_L	16384

#ifndef MSG_EXCEPT
#define MSG_EXCEPT	020000
#endif
#ifndef MSG_COPY
#define MSG_COPY	040000
#endif
#ifndef MSG_STAT_ANY
#define MSG_STAT_ANY	13
#endif

struct kmsg {
	TAILQ_ENTRY(kmsg) km_link;
	long km_type;
	size_t km_size;
	char km_text[];
};

struct msgq {
	struct ipc_obj mq_perm;
	TAILQ_HEAD(, kmsg) mq_msgs;
	uint64_t mq_cbytes, mq_qnum, mq_qbytes;
	int64_t mq_stime, mq_rtime;
	pid_t mq_lspid, mq_lrpid;
};

/* Linux's struct msqid64_ds on x86-64. */
struct linux_msqid64_ds {
	struct linux_ipc64_perm msg_perm;
	int64_t msg_stime, msg_rtime, msg_ctime;
	uint64_t msg_cbytes, msg_qnum, msg_qbytes;
	int32_t msg_lspid, msg_lrpid;
	uint64_t unused4, unused5;
};

struct linux_msginfo {
	int msgpool, msgmap, msgmax, msgmnb, msgmni, msgssz, msgtql;
	unsigned short msgseg;
};

static struct ipc_ids msg_ids = { .ii_max = MSGMNI_L };
static uint64_t msg_bytes, msg_count;	/* in all queues (MSG_INFO) */

#define CR(lp)	((lp)->lwp_proc->p_ucred)

static struct msgq *
msg_lookup(int id)
{
	return (struct msgq *)ipc_lookup(&msg_ids, id);
}

static void
msg_unlink(struct msgq *mq, struct kmsg *km)
{
	TAILQ_REMOVE(&mq->mq_msgs, km, km_link);
	mq->mq_cbytes -= km->km_size;
	mq->mq_qnum--;
	msg_bytes -= km->km_size;
	msg_count--;
}

static void
msg_release(struct msgq *mq)
{
	if (--mq->mq_perm.io_refs > 0)
		return;
	struct kmsg *km;
	while ((km = TAILQ_FIRST(&mq->mq_msgs)) != NULL) {
		msg_unlink(mq, km);
		kfree(km);
	}
	kfree(mq);
}

static long
msg_newq(struct lwp *lp, int key, int flg)
{
	struct msgq *mq = kmalloc(sizeof(*mq), KM_ZERO);
	if (mq == NULL)
		return -ENOMEM;
	int error = ipc_addid(&msg_ids, &mq->mq_perm, key, flg, CR(lp));
	if (error < 0) {
		kfree(mq);
		return error;
	}
	TAILQ_INIT(&mq->mq_msgs);
	mq->mq_qbytes = MSGMNB_L;
	return mq->mq_perm.io_id;
}

/* msgget(key, msgflg) */
long
sys_msgget(struct lwp *lp, const uint64_t *args)
{
	int key = (int)args[0], flg = (int)args[1];

	if (key == IPC_PRIVATE)
		return msg_newq(lp, key, flg);
	struct msgq *mq = (struct msgq *)ipc_findkey(&msg_ids, key);
	if (mq == NULL)
		return (flg & IPC_CREAT) ? msg_newq(lp, key, flg) : -ENOENT;
	if ((flg & IPC_CREAT) && (flg & IPC_EXCL))
		return -EEXIST;
	if (ipc_perms(CR(lp), &mq->mq_perm, flg) < 0)
		return -EACCES;
	return mq->mq_perm.io_id;
}

/*
 * Sleeps on queue mq for a change.  0 to look again; -EIDRM (the queue
 * is gone, and released), -EINTR (a signal: message calls are never
 * restarted, as Linux's).
 */
static int
msg_wait(struct msgq *mq, const char *wmesg)
{
	mq->mq_perm.io_refs++;
	int error = tsleep(mq, PCATCH, wmesg, 0);
	if (mq->mq_perm.io_removed) {
		msg_release(mq);
		return -EIDRM;
	}
	mq->mq_perm.io_refs--;
	return error == EINTR ? -EINTR : 0;
}

/* msgsnd(msqid, msgp, msgsz, msgflg) */
long
sys_msgsnd(struct lwp *lp, const uint64_t *args)
{
	int id = (int)args[0], flg = (int)args[3];
	uint64_t umsg = args[1];
	int64_t size = (int64_t)args[2];
	long type;

	if (size > MSGMAX_L || size < 0 || id < 0)
		return -EINVAL;
	if (copyin(umsg, &type, sizeof(type)) < 0)
		return -EFAULT;
	if (type < 1)
		return -EINVAL;
	struct kmsg *km = kmalloc(sizeof(*km) + (size_t)size, 0);
	if (km == NULL)
		return -ENOMEM;
	km->km_type = type;
	km->km_size = (size_t)size;
	if (copyin(umsg + sizeof(long), km->km_text, (size_t)size) < 0) {
		kfree(km);
		return -EFAULT;
	}
	int error;
	for (;;) {
		struct msgq *mq = msg_lookup(id);
		if (mq == NULL) {
			error = -EINVAL;
			break;
		}
		if (ipc_perms(CR(lp), &mq->mq_perm, 0222) < 0) {
			error = -EACCES;
			break;
		}
		/* Room for its bytes, and (Linux's) for one more message. */
		if ((uint64_t)size + mq->mq_cbytes <= mq->mq_qbytes &&
		    mq->mq_qnum + 1 <= mq->mq_qbytes) {
			TAILQ_INSERT_TAIL(&mq->mq_msgs, km, km_link);
			mq->mq_cbytes += (uint64_t)size;
			mq->mq_qnum++;
			msg_bytes += (uint64_t)size;
			msg_count++;
			mq->mq_lspid = lp->lwp_proc->p_pid;
			mq->mq_stime = ipc_now();
			wakeup(mq);
			return 0;
		}
		if (flg & IPC_NOWAIT) {
			error = -EAGAIN;
			break;
		}
		if ((error = msg_wait(mq, "msgsnd")) < 0)
			break;
	}
	kfree(km);
	return error;
}

/* The first message of mq that msgrcv's type and flags select. */
static struct kmsg *
msg_select(struct msgq *mq, long type, int flg)
{
	struct kmsg *km, *best = NULL;

	TAILQ_FOREACH(km, &mq->mq_msgs, km_link) {
		if (type == 0)
			return km;
		if (type > 0) {
			if ((km->km_type == type) != ((flg & MSG_EXCEPT) != 0))
				return km;
		} else if (km->km_type <= -type &&
		    (best == NULL || km->km_type < best->km_type)) {
			best = km;	/* the lowest type, the first of it */
		}
	}
	return best;
}

/* msgrcv(msqid, msgp, msgsz, msgtyp, msgflg): the bytes of text copied. */
long
sys_msgrcv(struct lwp *lp, const uint64_t *args)
{
	int id = (int)args[0], flg = (int)args[4];
	uint64_t umsg = args[1];
	int64_t size = (int64_t)args[2];
	long type = (long)args[3];

	if (id < 0 || size < 0)
		return -EINVAL;
	if (flg & MSG_COPY)
		return -ENOSYS;		/* Linux without CHECKPOINT_RESTORE */
	for (;;) {
		struct msgq *mq = msg_lookup(id);
		if (mq == NULL)
			return -EINVAL;
		if (ipc_perms(CR(lp), &mq->mq_perm, 0444) < 0)
			return -EACCES;
		struct kmsg *km = msg_select(mq, type, flg);
		if (km != NULL) {
			if ((int64_t)km->km_size > size && !(flg & MSG_NOERROR))
				return -E2BIG;
			size_t n = MIN(km->km_size, (size_t)size);
			if (copyout(&km->km_type, umsg, sizeof(long)) < 0 ||
			    copyout(km->km_text, umsg + sizeof(long), n) < 0)
				return -EFAULT;	/* the message stays, as Linux */
			msg_unlink(mq, km);
			kfree(km);
			mq->mq_lrpid = lp->lwp_proc->p_pid;
			mq->mq_rtime = ipc_now();
			wakeup(mq);
			return (long)n;
		}
		if (flg & IPC_NOWAIT)
			return -ENOMSG;
		int error = msg_wait(mq, "msgrcv");
		if (error < 0)
			return error;
	}
}

static void
msg_stat_out(const struct msgq *mq, struct linux_msqid64_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	ipc_perm_out(&mq->mq_perm, &ds->msg_perm);
	ds->msg_stime = mq->mq_stime;
	ds->msg_rtime = mq->mq_rtime;
	ds->msg_ctime = mq->mq_perm.io_ctime;
	ds->msg_cbytes = mq->mq_cbytes;
	ds->msg_qnum = mq->mq_qnum;
	ds->msg_qbytes = mq->mq_qbytes;
	ds->msg_lspid = mq->mq_lspid;
	ds->msg_lrpid = mq->mq_lrpid;
}

static int
msg_maxslot(void)
{
	int max = -1;
	for (int i = 0; i < msg_ids.ii_nslots; i++)
		if (msg_ids.ii_slots[i] != NULL)
			max = i;
	return max < 0 ? 0 : max;
}

/* msgctl(msqid, cmd, buf) */
long
sys_msgctl(struct lwp *lp, const uint64_t *args)
{
	int id = (int)args[0], cmd = (int)args[1];
	uint64_t ubuf = args[2];
	struct ucred *cr = CR(lp);
	struct linux_msqid64_ds ds;
	struct msgq *mq;

	if (id < 0 || cmd < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
	case MSG_INFO: {
		struct linux_msginfo mi = { .msgpool = MSGMNI_L * MSGMNB_L / 1024,
		    .msgmap = MSGMNB_L, .msgmax = MSGMAX_L, .msgmnb = MSGMNB_L,
		    .msgmni = MSGMNI_L, .msgssz = 16, .msgtql = MSGMNB_L,
		    .msgseg = 0xffff };
		if (cmd == MSG_INFO) {	/* usage, in Linux's fields */
			mi.msgpool = msg_ids.ii_inuse;
			mi.msgmap = (int)msg_count;
			mi.msgtql = (int)msg_bytes;
		}
		if (copyout(&mi, ubuf, sizeof(mi)) < 0)
			return -EFAULT;
		return msg_maxslot();
	}
	case MSG_STAT:
	case MSG_STAT_ANY:
		if (id >= msg_ids.ii_nslots || msg_ids.ii_slots[id] == NULL)
			return -EINVAL;
		mq = (struct msgq *)msg_ids.ii_slots[id];
		if (cmd == MSG_STAT && ipc_perms(cr, &mq->mq_perm, 0444) < 0)
			return -EACCES;
		msg_stat_out(mq, &ds);
		if (copyout(&ds, ubuf, sizeof(ds)) < 0)
			return -EFAULT;
		return mq->mq_perm.io_id;
	case IPC_SET:
		if (copyin(ubuf, &ds, sizeof(ds)) < 0)
			return -EFAULT;
		break;
	case IPC_STAT:
	case IPC_RMID:
		break;
	default:
		return -EINVAL;
	}
	if ((mq = msg_lookup(id)) == NULL)
		return -EINVAL;
	switch (cmd) {
	case IPC_STAT:
		if (ipc_perms(cr, &mq->mq_perm, 0444) < 0)
			return -EACCES;
		msg_stat_out(mq, &ds);
		return copyout(&ds, ubuf, sizeof(ds)) < 0 ? -EFAULT : 0;
	case IPC_SET:
		if (!ipc_owner(cr, &mq->mq_perm))
			return -EPERM;
		/* Raising the limit past MSGMNB takes CAP_SYS_RESOURCE. */
		if (ds.msg_qbytes > MSGMNB_L && !cred_is_root(cr))
			return -EPERM;
		ipc_perm_set(&mq->mq_perm, &ds.msg_perm);
		mq->mq_qbytes = ds.msg_qbytes;
		wakeup(mq);		/* senders may fit now */
		return 0;
	default:	/* IPC_RMID */
		if (!ipc_owner(cr, &mq->mq_perm))
			return -EPERM;
		ipc_rmid(&msg_ids, &mq->mq_perm);
		mq->mq_perm.io_refs++;
		wakeup(mq);
		msg_release(mq);
		return 0;
	}
}

/* /proc/sysvipc/msg, in Linux's columns. */
int
msg_procfs(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "       key      msqid perms      cbytes       qnum lspid "
	    "lrpid   uid   gid  cuid  cgid      stime      rtime      ctime\n");
	for (int i = 0; i < msg_ids.ii_nslots; i++) {
		struct msgq *mq = (struct msgq *)msg_ids.ii_slots[i];
		if (mq == NULL)
			continue;
		const struct ipc_obj *io = &mq->mq_perm;
		sbuf_printf(sb, "%10d %10d  %4o  %10lu %10lu %5d %5d %5u %5u %5u "
		    "%5u %10ld %10ld %10ld\n", io->io_key, io->io_id, io->io_mode,
		    (unsigned long)mq->mq_cbytes, (unsigned long)mq->mq_qnum,
		    mq->mq_lspid, mq->mq_lrpid, io->io_uid, io->io_gid, io->io_cuid,
		    io->io_cgid, (long)mq->mq_stime, (long)mq->mq_rtime,
		    (long)io->io_ctime);
	}
	return 0;
}
