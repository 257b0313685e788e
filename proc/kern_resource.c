/*
 * Resource limits (kern_prlimit; the calls are sys/sys_resource.c's); and process
 * limits, as Linux counts them: a system-wide maximum of processes scaled
 * with RAM (Linux's max_threads), and the processes of each real uid,
 * which RLIMIT_NPROC limits at fork.  Both count a process from its fork
 * until its parent reaps it, zombies included.  The record of a uid's
 * count also holds the users's share of the CPUs.
 */
#include "fs/file.h"
#include "proc/exec.h"
#include "kern/ucred.h"
#include "kern/kmem.h"
#include "vm/vm.h"

/*
 * What a process costs at least: its kernel stack (4 pages), its page
 * table pages, and the few pages a forked process dirties before it
 * blocks (18 pages measured for a small static program waiting in read).
 * The limit lets such processes take half of RAM: RAM / 128 KiB, the same
 * figure as Linux's max_threads (16 KiB stacks taking an eighth of RAM).
 */
#define PROC_COST_PAGES	16
#define MAXPROCS_MIN	20		/* Linux's MIN_THREADS */

#define UIHASH		64

/* The processes of one real uid; a record lives while it counts any. */
struct uidinfo {
	uid_t ui_uid;
	int ui_proccnt;
	struct sched_group ui_sched;	/* the share of its processes' threads */
	TAILQ_ENTRY(uidinfo) ui_hash;
};

static TAILQ_HEAD(, uidinfo) uihash[UIHASH];

void
proc_limit_init(uint64_t free_pages)
{
	uint64_t n = free_pages / (2 * PROC_COST_PAGES);
	maxprocs = (int)MIN(MAX(n, (uint64_t)MAXPROCS_MIN), (uint64_t)PID_MAX);
	/* Each process needs a host vmspace: fail fork before the host would. */
	int host = vmspace_max();
	if (host < maxprocs) {
		kprintf("maxprocs %d (RAM allows %d; the host's tasks, %d)\n",
		    MAX(host, MAXPROCS_MIN), maxprocs, host);
		maxprocs = MAX(host, MAXPROCS_MIN);
	}
	for (int i = 0; i < UIHASH; i++)
		TAILQ_INIT(&uihash[i]);
}

static struct uidinfo *
uifind(uid_t uid)
{
	struct uidinfo *ui;
	TAILQ_FOREACH(ui, &uihash[uid % UIHASH], ui_hash)
		if (ui->ui_uid == uid)
			return ui;
	return NULL;
}

int
proc_count_uid(uid_t uid)
{
	struct uidinfo *ui = uifind(uid);
	return ui != NULL ? ui->ui_proccnt : 0;
}

int
chgproccnt(uid_t uid, int diff)
{
	struct uidinfo *ui = uifind(uid);
	if (ui == NULL) {
		KASSERT(diff > 0, "chgproccnt: uid never counted");
		if ((ui = kmalloc(sizeof(*ui), KM_ZERO)) == NULL)
			return -ENOMEM;
		ui->ui_uid = uid;
		sched_group_init(&ui->ui_sched);
		TAILQ_INSERT_HEAD(&uihash[uid % UIHASH], ui, ui_hash);
	}
	ui->ui_proccnt += diff;
	KASSERT(ui->ui_proccnt >= 0, "chgproccnt: negative count");
	if (ui->ui_proccnt == 0) {
		sched_group_fini(&ui->ui_sched);
		TAILQ_REMOVE(&uihash[uid % UIHASH], ui, ui_hash);
		kfree(ui);
	}
	return 0;
}

void
lwp_task_count(struct proc *p, int diff)
{
	/* The uid has a record: the process itself is counted under it. */
	(void)chgproccnt(p->p_ucred->cr_ruid, diff);
	nprocs += diff;
}

struct sched_group *
uid_sched_group(uid_t uid)
{
	struct uidinfo *ui = uifind(uid);
	KASSERT(ui != NULL, "uid_sched_group: uid not counted");
	return &ui->ui_sched;
}

int
proc_limit_check(const struct proc *parent)
{
	if (nprocs >= maxprocs)
		return -EAGAIN;
	if (parent == NULL)
		return 0;
	/*
	 * Linux exempts the real root user and holders of CAP_SYS_RESOURCE
	 * or CAP_SYS_ADMIN, which here is whoever is privileged.
	 */
	const struct ucred *cr = parent->p_ucred;
	if (cr->cr_ruid == 0 || cred_is_root(cr))
		return 0;
	if ((uint64_t)proc_count_uid(cr->cr_ruid) >=
	    parent->p_rlimit[RLIMIT_NPROC].rlim_cur)
		return -EAGAIN;
	return 0;
}

void
nproc_setuid(struct proc *p, uid_t newruid)
{
	/* Counted before p itself moves to newruid, as Linux does. */
	if (newruid != 0 && (uint64_t)proc_count_uid(newruid) >
	    p->p_rlimit[RLIMIT_NPROC].rlim_cur)
		p->p_flags |= P_NPROC_EXCEEDED;
	else
		p->p_flags &= ~P_NPROC_EXCEEDED;
}

int
nproc_exec_check(struct proc *p)
{
	if ((p->p_flags & P_NPROC_EXCEEDED) &&
	    (uint64_t)proc_count_uid(p->p_ucred->cr_ruid) >
	    p->p_rlimit[RLIMIT_NPROC].rlim_cur)
		return -EAGAIN;
	p->p_flags &= ~P_NPROC_EXCEEDED;
	return 0;
}

/*
 * Whether the caller with credential cr may see and set p's limits: as
 * Linux, if its real uid and gid are all of p's, or it is root.
 */
static bool
prlimit_allowed(const struct ucred *cr, const struct proc *p)
{
	const struct ucred *t = p->p_ucred;
	return cred_is_root(cr) ||
	    (cr->cr_ruid == t->cr_ruid && cr->cr_ruid == t->cr_uid &&
	    cr->cr_ruid == t->cr_svuid && cr->cr_rgid == t->cr_rgid &&
	    cr->cr_rgid == t->cr_gid && cr->cr_rgid == t->cr_svgid);
}

int
kern_prlimit(struct proc *cur, pid_t pid, unsigned res, const struct rlimit *nl,
    struct rlimit *old)
{
	struct proc *p = pid == 0 ? cur : pfind(pid);
	if (p == NULL || p->p_state == PRS_NEW)
		return -ESRCH;
	if (p != cur && !prlimit_allowed(cur->p_ucred, p))
		return -EPERM;
	if (res >= RLIM_NLIMITS)
		return -EINVAL;
	*old = p->p_rlimit[res];
	if (nl != NULL) {
		if (nl->rlim_cur > nl->rlim_max)
			return -EINVAL;
		if (res == RLIMIT_NOFILE && nl->rlim_max > NOFILE_MAX)
			return -EPERM;
		if (nl->rlim_max > old->rlim_max && !cred_is_root(cur->p_ucred))
			return -EPERM;
		/* A zombie's descriptors and memory are gone; its limits remain. */
		if (res == RLIMIT_NOFILE && p->p_state == PRS_NORMAL)
			(void)fsproc_setlimit(&p->p_fs, (unsigned)nl->rlim_cur);
		if (res == RLIMIT_AS && p->p_vmspace != NULL)
			p->p_vmspace->vm_as_max = nl->rlim_cur;
		if (res == RLIMIT_FSIZE && p->p_state == PRS_NORMAL)
			fsproc_setfsize(&p->p_fs, nl->rlim_cur == RLIM_INFINITY ?
			    UINT64_MAX : nl->rlim_cur);
		if (res == RLIMIT_STACK && p->p_vmspace != NULL)
			p->p_vmspace->vm_stack_max = exec_stack_max(nl->rlim_cur);
		p->p_rlimit[res] = *nl;
	}
	return 0;
}
