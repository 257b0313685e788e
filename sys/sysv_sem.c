/*
 * System V semaphores: semget, semop, semtimedop, semctl, as Linux's.
 *
 * A set is an array of semaphores.  semop applies all its operations at
 * once or none: it tries them in order on the live values and rolls back
 * at the first that would block, then sleeps on the set until any change
 * to it and tries again (every change wakes every sleeper of the set;
 * sets are small and contention rare).  A sleeper is counted in
 * semncnt or semzcnt of the semaphore whose operation blocked it.
 *
 * SEM_UNDO keeps, per process and set, the sum of the process's undoable
 * operations negated (semadj); exit adds them back (sem_exit), clamped
 * to [0, SEMVMX] as Linux does.  SETVAL and SETALL clear them.
 */
#include <sys/ipc.h>
#include <sys/sem.h>

#include "fs/procfs/procfs.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "sys/syscall.h"
#include "sys/sysv_ipc.h"
#include "kern/kmem.h"

/* Linux's defaults (include/uapi/linux/sem.h). */
#define SEMMNI_L	32000
#define SEMMSL_L	32000
#define SEMMNS_L	(SEMMNI_L * SEMMSL_L)
#define SEMOPM_L	500
#define SEMVMX_L	32767
#define SEMAEM_L	SEMVMX_L

#ifndef SEM_STAT_ANY
#define SEM_STAT_ANY	20
#endif

struct ksem {
	unsigned short semval;
	pid_t sempid;
	int ncnt, zcnt;		/* sleepers for an increase, for zero */
};

struct sem_undo {
	TAILQ_ENTRY(sem_undo) su_link;
	pid_t su_pid;
	short su_adj[];		/* one per semaphore of the set */
};

struct semset {
	struct ipc_obj ss_perm;
	int ss_nsems;
	int64_t ss_otime;
	TAILQ_HEAD(, sem_undo) ss_undo;
	struct ksem ss_sems[];
};

/* Linux's struct semid64_ds on x86-64. */
struct linux_semid64_ds {
	struct linux_ipc64_perm sem_perm;
	int64_t sem_otime;
	uint64_t unused1;
	int64_t sem_ctime;
	uint64_t unused2;
	uint64_t sem_nsems;
	uint64_t unused3, unused4;
};

struct linux_seminfo {
	int semmap, semmni, semmns, semmnu, semmsl, semopm, semume, semusz,
	    semvmx, semaem;
};

struct linux_sembuf {
	uint16_t sem_num;
	int16_t sem_op;
	int16_t sem_flg;
};

static struct ipc_ids sem_ids = { .ii_max = SEMMNI_L };
static long sem_total;		/* semaphores in all sets (SEMMNS) */
static long sem_nundo;		/* undo records: sem_exit has work */

#define CR(lp)	((lp)->lwp_proc->p_ucred)

static struct semset *
sem_lookup(int id)
{
	return (struct semset *)ipc_lookup(&sem_ids, id);
}

static void
sem_free(struct semset *ss)
{
	struct sem_undo *su;
	while ((su = TAILQ_FIRST(&ss->ss_undo)) != NULL) {
		TAILQ_REMOVE(&ss->ss_undo, su, su_link);
		kfree(su);
		sem_nundo--;
	}
	sem_total -= ss->ss_nsems;
	kfree(ss);
}

/* Drops a sleeper's hold on removed set ss; the last frees it. */
static void
sem_release(struct semset *ss)
{
	if (--ss->ss_perm.io_refs == 0)
		sem_free(ss);
}

static long
sem_newset(struct lwp *lp, int key, int nsems, int flg)
{
	if (nsems == 0)
		return -EINVAL;
	if (sem_total + nsems > SEMMNS_L)
		return -ENOSPC;
	struct semset *ss = kmalloc(sizeof(*ss) + nsems * sizeof(struct ksem),
	    KM_ZERO);
	if (ss == NULL)
		return -ENOMEM;
	int error = ipc_addid(&sem_ids, &ss->ss_perm, key, flg, CR(lp));
	if (error < 0) {
		kfree(ss);
		return error;
	}
	ss->ss_nsems = nsems;
	TAILQ_INIT(&ss->ss_undo);
	sem_total += nsems;
	return ss->ss_perm.io_id;
}

/* semget(key, nsems, semflg) */
long
sys_semget(struct lwp *lp, const uint64_t *args)
{
	int key = (int)args[0], nsems = (int)args[1], flg = (int)args[2];

	if (nsems < 0 || nsems > SEMMSL_L)
		return -EINVAL;
	if (key == IPC_PRIVATE)
		return sem_newset(lp, key, nsems, flg);
	struct semset *ss = (struct semset *)ipc_findkey(&sem_ids, key);
	if (ss == NULL)
		return (flg & IPC_CREAT) ? sem_newset(lp, key, nsems, flg) : -ENOENT;
	if ((flg & IPC_CREAT) && (flg & IPC_EXCL))
		return -EEXIST;
	if (nsems > ss->ss_nsems)
		return -EINVAL;
	if (ipc_perms(CR(lp), &ss->ss_perm, flg) < 0)
		return -EACCES;
	return ss->ss_perm.io_id;
}

static struct sem_undo *
sem_undo_find(struct semset *ss, pid_t pid)
{
	struct sem_undo *su;
	TAILQ_FOREACH(su, &ss->ss_undo, su_link)
		if (su->su_pid == pid)
			return su;
	return NULL;
}

/*
 * Tries sops on ss at once.  Returns 0 (applied), -EAGAIN with *block
 * the index of the operation that must wait, or -ERANGE (nothing
 * applied either way).
 */
static int
sem_try(struct semset *ss, const struct linux_sembuf *sops, size_t nsops,
    struct sem_undo *su, size_t *block)
{
	size_t i;
	int error = 0;

	for (i = 0; i < nsops; i++) {
		struct ksem *s = &ss->ss_sems[sops[i].sem_num];
		int op = sops[i].sem_op, result = s->semval + op;
		if ((op == 0 && s->semval != 0) || result < 0) {
			*block = i;
			error = -EAGAIN;
			break;
		}
		if (result > SEMVMX_L) {
			error = -ERANGE;
			break;
		}
		if ((sops[i].sem_flg & SEM_UNDO) && op != 0) {
			int undo = su->su_adj[sops[i].sem_num] - op;
			if (undo < -SEMAEM_L - 1 || undo > SEMAEM_L) {
				error = -ERANGE;
				break;
			}
			su->su_adj[sops[i].sem_num] = (short)undo;
		}
		s->semval = (unsigned short)result;
	}
	if (error == 0)
		return 0;
	while (i-- > 0) {	/* roll back what was applied */
		struct ksem *s = &ss->ss_sems[sops[i].sem_num];
		s->semval = (unsigned short)(s->semval - sops[i].sem_op);
		if ((sops[i].sem_flg & SEM_UNDO) && sops[i].sem_op != 0)
			su->su_adj[sops[i].sem_num] += sops[i].sem_op;
	}
	return error;
}

static long
do_semtimedop(struct lwp *lp, int id, uint64_t usops, size_t nsops,
    uint64_t utimeout)
{
	struct linux_sembuf small[16], *sops = small;
	uint64_t deadline = 0;
	long error;

	if (id < 0 || nsops < 1)
		return -EINVAL;
	if (nsops > SEMOPM_L)
		return -E2BIG;
	if (nsops > nitems(small) &&
	    (sops = kmalloc(nsops * sizeof(*sops), 0)) == NULL)
		return -ENOMEM;
	if (copyin(usops, sops, nsops * sizeof(*sops)) < 0) {
		error = -EFAULT;
		goto out;
	}
	if (utimeout != 0) {
		struct timespec ts;
		if (copyin(utimeout, &ts, sizeof(ts)) < 0) {
			error = -EFAULT;
			goto out;
		}
		if (ts.tv_sec < 0 || ts.tv_nsec < 0 || ts.tv_nsec >= 1000000000) {
			error = -EINVAL;
			goto out;
		}
		deadline = nanouptime() + (uint64_t)ts.tv_sec * 1000000000 +
		    (uint64_t)ts.tv_nsec;
	}
	unsigned max = 0;
	bool undos = false, alter = false;
	for (size_t i = 0; i < nsops; i++) {
		max = MAX(max, sops[i].sem_num);
		undos |= (sops[i].sem_flg & SEM_UNDO) != 0;
		alter |= sops[i].sem_op != 0;
	}
	struct semset *ss = sem_lookup(id);
	if (ss == NULL) {
		error = -EINVAL;
		goto out;
	}
	if (max >= (unsigned)ss->ss_nsems) {
		error = -EFBIG;
		goto out;
	}
	if (ipc_perms(CR(lp), &ss->ss_perm, alter ? 0222 : 0444) < 0) {
		error = -EACCES;
		goto out;
	}
	pid_t pid = lp->lwp_proc->p_pid;
	struct sem_undo *su = NULL;
	if (undos && (su = sem_undo_find(ss, pid)) == NULL) {
		su = kmalloc(sizeof(*su) + ss->ss_nsems * sizeof(short), KM_ZERO);
		if (su == NULL) {
			error = -ENOMEM;
			goto out;
		}
		su->su_pid = pid;
		TAILQ_INSERT_HEAD(&ss->ss_undo, su, su_link);
		sem_nundo++;
		proc_semexit_hook = sem_exit;
	}
	for (;;) {
		size_t b;
		error = sem_try(ss, sops, nsops, su, &b);
		if (error == 0) {
			for (size_t i = 0; i < nsops; i++)
				ss->ss_sems[sops[i].sem_num].sempid = pid;
			ss->ss_otime = ipc_now();
			if (alter)
				wakeup(ss);
			break;
		}
		if (error != -EAGAIN || (sops[b].sem_flg & IPC_NOWAIT))
			break;
		uint64_t timo = 0;
		if (deadline != 0) {
			uint64_t now = nanouptime();
			if (now >= deadline)
				break;		/* -EAGAIN, as Linux on timeout */
			timo = deadline - now;
		}
		struct ksem *s = &ss->ss_sems[sops[b].sem_num];
		int *cnt = sops[b].sem_op == 0 ? &s->zcnt : &s->ncnt;
		(*cnt)++;
		ss->ss_perm.io_refs++;
		int serr = tsleep(ss, PCATCH, "semop", timo);
		(*cnt)--;
		if (ss->ss_perm.io_removed) {
			sem_release(ss);
			error = -EIDRM;
			break;
		}
		ss->ss_perm.io_refs--;
		if (serr == EINTR) {
			error = -EINTR;		/* semop is never restarted */
			break;
		}
	}
out:
	if (sops != small)
		kfree(sops);
	return error;
}

/* semop(semid, sops, nsops) */
long
sys_semop(struct lwp *lp, const uint64_t *args)
{
	return do_semtimedop(lp, (int)args[0], args[1], args[2], 0);
}

/* semtimedop(semid, sops, nsops, timeout) */
long
sys_semtimedop(struct lwp *lp, const uint64_t *args)
{
	return do_semtimedop(lp, (int)args[0], args[1], args[2], args[3]);
}

/* SETVAL and SETALL: the values changed, every semadj of them is void. */
static void
sem_clear_undo(struct semset *ss, int semnum)
{
	struct sem_undo *su;
	TAILQ_FOREACH(su, &ss->ss_undo, su_link) {
		if (semnum >= 0)
			su->su_adj[semnum] = 0;
		else
			memset(su->su_adj, 0, ss->ss_nsems * sizeof(short));
	}
}

static void
sem_stat_out(const struct semset *ss, struct linux_semid64_ds *ds)
{
	memset(ds, 0, sizeof(*ds));
	ipc_perm_out(&ss->ss_perm, &ds->sem_perm);
	ds->sem_otime = ss->ss_otime;
	ds->sem_ctime = ss->ss_perm.io_ctime;
	ds->sem_nsems = (uint64_t)ss->ss_nsems;
}

static int
sem_maxslot(void)
{
	int max = -1;
	for (int i = 0; i < sem_ids.ii_nslots; i++)
		if (sem_ids.ii_slots[i] != NULL)
			max = i;
	return max < 0 ? 0 : max;
}

static long
sem_info(int cmd, uint64_t ubuf)
{
	struct linux_seminfo si = {
		.semmap = SEMMNS_L, .semmni = SEMMNI_L, .semmns = SEMMNS_L,
		.semmnu = SEMMNS_L, .semmsl = SEMMSL_L, .semopm = SEMOPM_L,
		.semume = SEMOPM_L, .semusz = 20, .semvmx = SEMVMX_L,
		.semaem = SEMAEM_L,
	};
	if (cmd == SEM_INFO) {		/* Linux puts usage in two fields */
		si.semusz = sem_ids.ii_inuse;
		si.semaem = (int)sem_total;
	}
	if (copyout(&si, ubuf, sizeof(si)) < 0)
		return -EFAULT;
	return sem_maxslot();
}

/* semctl(semid, semnum, cmd, arg) */
long
sys_semctl(struct lwp *lp, const uint64_t *args)
{
	int id = (int)args[0], semnum = (int)args[1], cmd = (int)args[2];
	uint64_t arg = args[3];
	struct ucred *cr = CR(lp);
	struct linux_semid64_ds ds;
	struct semset *ss;

	if (id < 0 || cmd < 0)
		return -EINVAL;
	switch (cmd) {
	case IPC_INFO:
	case SEM_INFO:
		return sem_info(cmd, arg);
	case SEM_STAT:
	case SEM_STAT_ANY:
		if (id >= sem_ids.ii_nslots || sem_ids.ii_slots[id] == NULL)
			return -EINVAL;
		ss = (struct semset *)sem_ids.ii_slots[id];
		if (cmd == SEM_STAT && ipc_perms(cr, &ss->ss_perm, 0444) < 0)
			return -EACCES;
		sem_stat_out(ss, &ds);
		if (copyout(&ds, arg, sizeof(ds)) < 0)
			return -EFAULT;
		return ss->ss_perm.io_id;
	case SETVAL: {
		int val = (int)arg;
		if (val < 0 || val > SEMVMX_L)
			return -ERANGE;
		if ((ss = sem_lookup(id)) == NULL)
			return -EINVAL;
		if (semnum < 0 || semnum >= ss->ss_nsems)
			return -EINVAL;
		if (ipc_perms(cr, &ss->ss_perm, 0222) < 0)
			return -EACCES;
		sem_clear_undo(ss, semnum);
		ss->ss_sems[semnum].semval = (unsigned short)val;
		ss->ss_sems[semnum].sempid = lp->lwp_proc->p_pid;
		ss->ss_perm.io_ctime = ipc_now();
		wakeup(ss);
		return 0;
	}
	case IPC_SET:
		if (copyin(arg, &ds, sizeof(ds)) < 0)
			return -EFAULT;
		break;
	case IPC_STAT:
	case IPC_RMID:
	case GETVAL:
	case GETPID:
	case GETNCNT:
	case GETZCNT:
	case GETALL:
	case SETALL:
		break;
	default:
		return -EINVAL;
	}
	if ((ss = sem_lookup(id)) == NULL)
		return -EINVAL;
	switch (cmd) {
	case IPC_STAT:
		if (ipc_perms(cr, &ss->ss_perm, 0444) < 0)
			return -EACCES;
		sem_stat_out(ss, &ds);
		return copyout(&ds, arg, sizeof(ds)) < 0 ? -EFAULT : 0;
	case IPC_SET:
		if (!ipc_owner(cr, &ss->ss_perm))
			return -EPERM;
		ipc_perm_set(&ss->ss_perm, &ds.sem_perm);
		return 0;
	case IPC_RMID:
		if (!ipc_owner(cr, &ss->ss_perm))
			return -EPERM;
		ipc_rmid(&sem_ids, &ss->ss_perm);
		/* Sleepers wake to EIDRM; the last of them frees the set. */
		ss->ss_perm.io_refs++;
		wakeup(ss);
		sem_release(ss);
		return 0;
	case GETALL: {
		if (ipc_perms(cr, &ss->ss_perm, 0444) < 0)
			return -EACCES;
		for (int i = 0; i < ss->ss_nsems; i++) {
			unsigned short v = ss->ss_sems[i].semval;
			if (copyout(&v, arg + i * sizeof(v), sizeof(v)) < 0)
				return -EFAULT;
		}
		return 0;
	}
	case SETALL: {
		if (ipc_perms(cr, &ss->ss_perm, 0222) < 0)
			return -EACCES;
		unsigned short *v = kmalloc(ss->ss_nsems * sizeof(*v), 0);
		if (v == NULL)
			return -ENOMEM;
		int error = copyin(arg, v, ss->ss_nsems * sizeof(*v));
		for (int i = 0; error == 0 && i < ss->ss_nsems; i++)
			if (v[i] > SEMVMX_L)
				error = -ERANGE;
		if (error == 0) {
			for (int i = 0; i < ss->ss_nsems; i++) {
				ss->ss_sems[i].semval = v[i];
				ss->ss_sems[i].sempid = lp->lwp_proc->p_pid;
			}
			sem_clear_undo(ss, -1);
			ss->ss_perm.io_ctime = ipc_now();
			wakeup(ss);
		}
		kfree(v);
		return error;
	}
	default:	/* GETVAL, GETPID, GETNCNT, GETZCNT */
		if (ipc_perms(cr, &ss->ss_perm, 0444) < 0)
			return -EACCES;
		if (semnum < 0 || semnum >= ss->ss_nsems)
			return -EINVAL;
		struct ksem *s = &ss->ss_sems[semnum];
		return cmd == GETVAL ? s->semval : cmd == GETPID ? s->sempid :
		    cmd == GETNCNT ? s->ncnt : s->zcnt;
	}
}

void
sem_exit(struct proc *p)
{
	if (sem_nundo == 0)
		return;
	for (int i = 0; i < sem_ids.ii_nslots; i++) {
		struct semset *ss = (struct semset *)sem_ids.ii_slots[i];
		struct sem_undo *su;
		if (ss == NULL || (su = sem_undo_find(ss, p->p_pid)) == NULL)
			continue;
		for (int n = 0; n < ss->ss_nsems; n++) {
			struct ksem *s = &ss->ss_sems[n];
			int v = s->semval + su->su_adj[n];
			if (su->su_adj[n] == 0)
				continue;
			s->semval = (unsigned short)MIN(MAX(v, 0), SEMVMX_L);
			s->sempid = p->p_pid;
		}
		TAILQ_REMOVE(&ss->ss_undo, su, su_link);
		kfree(su);
		sem_nundo--;
		ss->ss_otime = ipc_now();
		wakeup(ss);
	}
}

/* /proc/sysvipc/sem, in Linux's columns. */
int
sem_procfs(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "       key      semid perms      nsems   uid   gid  "
	    "cuid  cgid      otime      ctime\n");
	for (int i = 0; i < sem_ids.ii_nslots; i++) {
		struct semset *ss = (struct semset *)sem_ids.ii_slots[i];
		if (ss == NULL)
			continue;
		const struct ipc_obj *io = &ss->ss_perm;
		sbuf_printf(sb, "%10d %10d  %4o %10d %5u %5u %5u %5u %10ld %10ld\n",
		    io->io_key, io->io_id, io->io_mode, ss->ss_nsems, io->io_uid,
		    io->io_gid, io->io_cuid, io->io_cgid, (long)ss->ss_otime,
		    (long)io->io_ctime);
	}
	return 0;
}
