/*
 * Scheduling parameters a program may set and read: nice values
 * (getpriority, setpriority), policies (sched_setscheduler and its
 * kin), CPU affinity (sched_getaffinity, sched_setaffinity, which the
 * scheduler honours: td_cpumask), the CPU a thread runs on (getcpu) and
 * I/O priorities (ioprio_get, ioprio_set), with Linux's checks.  All are
 * kept per thread and inherited at fork; the scheduler does not act on
 * nice values or policies yet, nor the disks on I/O priorities.
 */
#include <sched.h>
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

/* Policies (sched_setscheduler, sched_getattr...). */

static bool
policy_rt(int policy)
{
	return policy == SCHED_FIFO || policy == SCHED_RR;
}

static bool
policy_valid(int policy)
{
	return policy == SCHED_OTHER || policy == SCHED_BATCH ||
	    policy == SCHED_IDLE || policy_rt(policy);
}

/*
 * Sets tid's policy (-1: keep it) and real-time priority from uparam,
 * in Linux's order of checks: -EINVAL (bad pid, no param), -EFAULT,
 * -ESRCH, -EINVAL (policy, priority out of its range), -EPERM (another
 * user's thread, or real time without privilege).
 */
static long
set_policy(struct lwp *lp, pid_t tid, int policy, uint64_t uparam)
{
	struct sched_param sp;

	if (tid < 0 || uparam == 0)
		return -EINVAL;
	if (copyin(uparam, &sp, sizeof(sp)) < 0)
		return -EFAULT;
	struct lwp *t = lwp_find(lp, tid);
	if (t == NULL)
		return -ESRCH;
	int reset = SCHED_RESET_ON_FORK;
	if (policy < 0) {
		reset &= t->lwp_policy;
		policy = t->lwp_policy & ~SCHED_RESET_ON_FORK;
	} else {
		reset &= policy;
		policy &= ~SCHED_RESET_ON_FORK;
		if (!policy_valid(policy))
			return -EINVAL;
	}
	if (sp.sched_priority < 0 || sp.sched_priority > 99 ||
	    policy_rt(policy) != (sp.sched_priority != 0))
		return -EINVAL;
	const struct ucred *cr = lp->lwp_proc->p_ucred;
	if (!sched_perm(cr, t->lwp_proc) || (policy_rt(policy) && !cred_is_root(cr)))
		return -EPERM;
	t->lwp_policy = policy | reset;
	t->lwp_rtprio = sp.sched_priority;
	return 0;
}

long
sys_sched_setscheduler(struct lwp *lp, const uint64_t *args)
{
	if ((int)args[1] < 0)
		return -EINVAL;
	return set_policy(lp, (pid_t)args[0], (int)args[1], args[2]);
}

long
sys_sched_setparam(struct lwp *lp, const uint64_t *args)
{
	return set_policy(lp, (pid_t)args[0], -1, args[1]);
}

long
sys_sched_getscheduler(struct lwp *lp, const uint64_t *args)
{
	if ((pid_t)args[0] < 0)
		return -EINVAL;
	struct lwp *t = lwp_find(lp, (pid_t)args[0]);
	return t != NULL ? t->lwp_policy : -ESRCH;
}

long
sys_sched_getparam(struct lwp *lp, const uint64_t *args)
{
	if ((pid_t)args[0] < 0 || args[1] == 0)
		return -EINVAL;
	struct lwp *t = lwp_find(lp, (pid_t)args[0]);
	if (t == NULL)
		return -ESRCH;
	struct sched_param sp = { .sched_priority = t->lwp_rtprio };
	return copyout(&sp, args[1], sizeof(sp));
}

long
sys_sched_get_priority_max(struct lwp *lp, const uint64_t *args)
{
	(void)lp;
	int policy = (int)args[0];
	return !policy_valid(policy) ? -EINVAL : policy_rt(policy) ? 99 : 0;
}

long
sys_sched_get_priority_min(struct lwp *lp, const uint64_t *args)
{
	(void)lp;
	int policy = (int)args[0];
	return !policy_valid(policy) ? -EINVAL : policy_rt(policy) ? 1 : 0;
}

/* Linux's struct sched_attr as of SCHED_ATTR_SIZE_VER1. */
struct linux_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime, sched_deadline, sched_period;
	uint32_t sched_util_min, sched_util_max;
};
#define SCHED_ATTR_SIZE_VER0	48
#define SCHED_FLAG_RESET_ON_FORK 0x01

/*
 * sched_getattr(tid, attr, size, flags): the policy, its flags, nice
 * value and priority, in as much of Linux's structure as size holds
 * (attr->size says how much); -EINVAL for flags, a size below the first
 * version or past a page, a negative tid or no buffer.
 */
long
sys_sched_getattr(struct lwp *lp, const uint64_t *args)
{
	uint64_t usize = args[2];

	if ((pid_t)args[0] < 0 || args[1] == 0 || args[3] != 0 ||
	    usize < SCHED_ATTR_SIZE_VER0 || usize > PAGE_SIZE)
		return -EINVAL;
	struct lwp *t = lwp_find(lp, (pid_t)args[0]);
	if (t == NULL)
		return -ESRCH;
	struct linux_sched_attr a = {
		.sched_policy = (uint32_t)(t->lwp_policy & ~SCHED_RESET_ON_FORK),
		.sched_flags = (t->lwp_policy & SCHED_RESET_ON_FORK) ?
		    SCHED_FLAG_RESET_ON_FORK : 0,
		.sched_priority = (uint32_t)t->lwp_rtprio,
		.sched_util_max = 1024,
	};
	if (!policy_rt(t->lwp_policy & ~SCHED_RESET_ON_FORK))
		a.sched_nice = t->lwp_nice;
	a.size = (uint32_t)(usize < sizeof(a) ? usize : sizeof(a));
	return copyout(&a, args[1], a.size);
}
