/*
 * Scheduling parameters a program may set and read: nice values
 * (getpriority, setpriority), CPU affinity (sched_getaffinity,
 * sched_setaffinity, which the scheduler honours: td_cpumask), the CPU
 * a thread runs on (getcpu) and I/O priorities (ioprio_get, ioprio_set),
 * with Linux's checks.  All are kept per thread and inherited at fork;
 * the scheduler does not act on nice values yet, nor the disks on I/O
 * priorities.
 */
#include <sys/resource.h>

#include "host/cpu.h"
#include "sys/syscall.h"
#include "kern/ucred.h"

#define NICE_MIN	(-20)
#define NICE_MAX	19

/* Linux's cpumask_size() for MAXCPU (64) CPUs: one long. */
#define CPUMASK_SIZE	sizeof(uint64_t)

/* The CPUs this machine has: bit n for CPU n. */
static uint64_t
cpus_online(void)
{
	int n = cpu_count() > 0 ? cpu_count() : 1;
	return n >= 64 ? UINT64_MAX : (1ULL << n) - 1;
}

/* The live lwp of thread id tid (0: the caller), or NULL. */
static struct lwp *
lwp_find(struct lwp *self, pid_t tid)
{
	if (tid == 0)
		return self;
	struct lwp *lp = lwpfind(tid);
	if (lp == NULL || lp->lwp_proc->p_state != PRS_NORMAL)
		return NULL;
	return lp;
}

/*
 * Whether cr may change the scheduling of p (Linux's
 * set_one_prio_perm and check_same_owner): its effective uid is p's
 * real or effective uid, or it is root.
 */
static bool
sched_perm(const struct ucred *cr, const struct proc *p)
{
	const struct ucred *t = p->p_ucred;
	return cred_is_root(cr) || cr->cr_uid == t->cr_ruid ||
	    cr->cr_uid == t->cr_uid;
}

struct prio_walk {
	struct lwp *self;
	int which;
	id_t who;
	int nice;		/* setpriority: the value to set */
	bool set;
	long result;		/* getpriority: best 20 - nice; setpriority: error */
};

static bool
prio_matches(const struct prio_walk *w, const struct proc *p)
{
	if (p->p_state != PRS_NORMAL)
		return false;
	switch (w->which) {
	case PRIO_PGRP:
		return p->p_pgrp != NULL && p->p_pgrp->pg_id == (pid_t)w->who;
	case PRIO_USER:
		return p->p_ucred->cr_ruid == (uid_t)w->who;
	}
	return false;
}

/* setpriority on one thread, as Linux's set_one_prio: -EPERM, -EACCES. */
static long
prio_set_one(struct prio_walk *w, struct lwp *lp)
{
	const struct ucred *cr = w->self->lwp_proc->p_ucred;
	struct proc *p = lp->lwp_proc;

	if (!sched_perm(cr, p))
		return -EPERM;
	/* Lowering nice takes root or RLIMIT_NICE (20 - nice) room. */
	if (w->nice < lp->lwp_nice && !cred_is_root(cr) &&
	    (rlim_t)(20 - w->nice) > p->p_rlimit[RLIMIT_NICE].rlim_cur)
		return -EACCES;
	lp->lwp_nice = w->nice;
	return 0;
}

static void
prio_visit(struct proc *p, void *arg)
{
	struct prio_walk *w = arg;
	struct lwp *lp;

	if (!prio_matches(w, p))
		return;
	TAILQ_FOREACH(lp, &p->p_lwps, lwp_link) {
		if (!w->set) {
			if (20 - lp->lwp_nice > w->result)
				w->result = 20 - lp->lwp_nice;
		} else {
			long error = prio_set_one(w, lp);
			if (error != 0 || w->result == -ESRCH)
				w->result = error;
		}
	}
}

/*
 * Runs getpriority or setpriority over the threads which and who name:
 * PRIO_PROCESS a thread (0: the caller), PRIO_PGRP a process group (0:
 * the caller's), PRIO_USER the processes of a real uid (0: the
 * caller's).  -ESRCH if none matches, -EINVAL for another which.
 */
static long
prio_walk(struct prio_walk *w)
{
	struct lwp *self = w->self;
	struct proc *p = self->lwp_proc;

	switch (w->which) {
	case PRIO_PROCESS: {
		struct lwp *lp = lwp_find(self, (pid_t)w->who);
		if (lp == NULL)
			return -ESRCH;
		if (!w->set)
			return 20 - lp->lwp_nice;
		return prio_set_one(w, lp);
	}
	case PRIO_PGRP:
		if (w->who == 0)
			w->who = (id_t)p->p_pgrp->pg_id;
		break;
	case PRIO_USER:
		if (w->who == 0)
			w->who = p->p_ucred->cr_ruid;
		break;
	default:
		return -EINVAL;
	}
	w->result = -ESRCH;
	proc_foreach(prio_visit, w);
	return w->result;
}

/* getpriority(which, who): 20 - nice, the best of those named (1..40). */
long
sys_getpriority(struct lwp *lp, const uint64_t *args)
{
	struct prio_walk w = { lp, (int)args[0], (id_t)args[1], 0, false, 0 };
	return prio_walk(&w);
}

/* setpriority(which, who, nice): nice clamped to -20..19. */
long
sys_setpriority(struct lwp *lp, const uint64_t *args)
{
	int nice = (int)args[2];
	nice = nice < NICE_MIN ? NICE_MIN : nice > NICE_MAX ? NICE_MAX : nice;
	struct prio_walk w = { lp, (int)args[0], (id_t)args[1], nice, true, 0 };
	return prio_walk(&w);
}

/*
 * sched_getaffinity(tid, len, mask): the size of the mask stored (one
 * long); -EINVAL if len is not a whole number of longs or too short for
 * the machine's CPUs.
 */
long
sys_sched_getaffinity(struct lwp *lp, const uint64_t *args)
{
	uint64_t len = args[1];
	if (len * 8 < (uint64_t)cpu_count() || (len & (sizeof(long) - 1)) != 0)
		return -EINVAL;
	struct lwp *t = lwp_find(lp, (pid_t)args[0]);
	if (t == NULL)
		return -ESRCH;
	uint64_t mask = t->lwp_thread->td_cpumask & cpus_online();
	if (copyout(&mask, args[2], CPUMASK_SIZE) < 0)
		return -EFAULT;
	return CPUMASK_SIZE;
}

/*
 * sched_setaffinity(tid, len, mask): bits past this machine's CPUs are
 * ignored; -EINVAL if none is left, -EPERM for another user's thread.
 */
long
sys_sched_setaffinity(struct lwp *lp, const uint64_t *args)
{
	uint64_t mask = 0;
	uint64_t len = args[1] < CPUMASK_SIZE ? args[1] : CPUMASK_SIZE;
	if (copyin(args[2], &mask, len) < 0)
		return -EFAULT;
	struct lwp *t = lwp_find(lp, (pid_t)args[0]);
	if (t == NULL)
		return -ESRCH;
	if (!sched_perm(lp->lwp_proc->p_ucred, t->lwp_proc))
		return -EPERM;
	if ((mask & cpus_online()) == 0)
		return -EINVAL;
	thread_setaffinity(t->lwp_thread, mask);
	return 0;
}

/*
 * getcpu(cpu, node, tcache): the CPU the caller runs on and its NUMA
 * node (always 0); either pointer may be NULL, tcache is unused.
 */
long
sys_getcpu(struct lwp *lp, const uint64_t *args)
{
	unsigned cpu = (unsigned)lp->lwp_thread->td_cpu->id, node = 0;
	if (args[0] != 0 && copyout(&cpu, args[0], sizeof(cpu)) < 0)
		return -EFAULT;
	if (args[1] != 0 && copyout(&node, args[1], sizeof(node)) < 0)
		return -EFAULT;
	return 0;
}

/* Linux's I/O priority classes and ioprio_* "which" values. */
#define IOPRIO_CLASS_SHIFT	13
#define IOPRIO_CLASS_NONE	0
#define IOPRIO_CLASS_RT		1
#define IOPRIO_CLASS_BE		2
#define IOPRIO_CLASS_IDLE	3
#define IOPRIO_WHO_PROCESS	1
#define IOPRIO_WHO_PGRP		2
#define IOPRIO_WHO_USER		3

struct ioprio_walk {
	struct lwp *self;
	int which;
	uid_t uid;
	pid_t pgid;
	int ioprio;		/* ioprio_set: the value */
	bool set;
	long result;		/* ioprio_get: the best; ioprio_set: the error */
};

/*
 * Of two I/O priorities, the one Linux's ioprio_best keeps: the lower
 * value, one of class none counting as the default (best-effort 4).
 */
static int
ioprio_best(int a, int b)
{
	const int dflt = IOPRIO_CLASS_BE << IOPRIO_CLASS_SHIFT | 4;
	if (a >> IOPRIO_CLASS_SHIFT == IOPRIO_CLASS_NONE)
		a = dflt;
	if (b >> IOPRIO_CLASS_SHIFT == IOPRIO_CLASS_NONE)
		b = dflt;
	return a < b ? a : b;
}

static long
ioprio_one(struct ioprio_walk *w, struct lwp *lp)
{
	if (!w->set)
		return lp->lwp_ioprio;
	if (!sched_perm(w->self->lwp_proc->p_ucred, lp->lwp_proc))
		return -EPERM;
	lp->lwp_ioprio = w->ioprio;
	return 0;
}

static void
ioprio_visit(struct proc *p, void *arg)
{
	struct ioprio_walk *w = arg;
	struct lwp *lp;

	if (p->p_state != PRS_NORMAL ||
	    (w->which == IOPRIO_WHO_PGRP && (p->p_pgrp == NULL ||
	    p->p_pgrp->pg_id != w->pgid)) ||
	    (w->which == IOPRIO_WHO_USER && p->p_ucred->cr_ruid != w->uid))
		return;
	TAILQ_FOREACH(lp, &p->p_lwps, lwp_link) {
		long r = ioprio_one(w, lp);
		if (!w->set)
			w->result = w->result < 0 ? r : ioprio_best((int)w->result, (int)r);
		else if (r < 0 || w->result == -ESRCH)
			w->result = r;
	}
}

/* ioprio_get and ioprio_set over the threads which and who name. */
static long
ioprio_walk(struct ioprio_walk *w, int who)
{
	struct lwp *self = w->self;
	switch (w->which) {
	case IOPRIO_WHO_PROCESS: {
		struct lwp *lp = lwp_find(self, (pid_t)who);
		return lp == NULL ? -ESRCH : ioprio_one(w, lp);
	}
	case IOPRIO_WHO_PGRP:
		w->pgid = who != 0 ? (pid_t)who : self->lwp_proc->p_pgrp->pg_id;
		break;
	case IOPRIO_WHO_USER:
		w->uid = who != 0 ? (uid_t)who : self->lwp_proc->p_ucred->cr_ruid;
		break;
	default:
		return -EINVAL;
	}
	w->result = -ESRCH;
	proc_foreach(ioprio_visit, w);
	return w->result;
}

/* ioprio_get(which, who): the I/O priority, the best of those named. */
long
sys_ioprio_get(struct lwp *lp, const uint64_t *args)
{
	struct ioprio_walk w = { .self = lp, .which = (int)args[0] };
	return ioprio_walk(&w, (int)args[1]);
}

/*
 * ioprio_set(which, who, ioprio): the class in bits 13-15, the level in
 * bits 0-2 (bits 3-12 are Linux's hints, kept as given); real-time takes
 * root, class none level 0; -EINVAL for a class past idle.
 */
long
sys_ioprio_set(struct lwp *lp, const uint64_t *args)
{
	int ioprio = (int)(uint16_t)args[2];
	int class = ioprio >> IOPRIO_CLASS_SHIFT, level = ioprio & 7;
	if (class > IOPRIO_CLASS_IDLE || (class == IOPRIO_CLASS_NONE && level != 0))
		return -EINVAL;
	if (class == IOPRIO_CLASS_RT && !cred_is_root(lp->lwp_proc->p_ucred))
		return -EPERM;
	struct ioprio_walk w = { .self = lp, .which = (int)args[0],
	    .ioprio = ioprio, .set = true };
	return ioprio_walk(&w, (int)args[1]);
}
