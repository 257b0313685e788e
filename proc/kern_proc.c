/*
 * The process table: pids, lookup, process groups and sessions, and the
 * allocation of processes and their lwps.  Thread ids come from the pid
 * space: a new id is free as a pid, a process group, a session and a
 * thread id.
 */
#include <sched.h>

#include "kern/proc.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "kern/kmem.h"
#include "vm/vm.h"

#define PIDHASH		256

static struct procq pidhash[PIDHASH];
static TAILQ_HEAD(, pgrp) pgrphash[PIDHASH];
static TAILQ_HEAD(, lwp) tidhash[PIDHASH];
pid_t lastpid;
struct proc *initproc;
int nprocs, maxprocs;		/* maxprocs: proc_limit_init */
uint64_t nforks;

static void
proc_tables_init(void)
{
	static bool done;
	if (done)
		return;
	for (int i = 0; i < PIDHASH; i++) {
		TAILQ_INIT(&pidhash[i]);
		TAILQ_INIT(&pgrphash[i]);
		TAILQ_INIT(&tidhash[i]);
	}
	done = true;
}

struct proc *
pfind(pid_t pid)
{
	struct proc *p;
	if (pid <= 0)
		return NULL;	/* a guest's negative pid must not index the hash */
	proc_tables_init();
	TAILQ_FOREACH(p, &pidhash[pid % PIDHASH], p_hash)
		if (p->p_pid == pid)
			return p;
	return NULL;
}

struct lwp *
lwpfind(pid_t tid)
{
	struct lwp *lp;
	if (tid <= 0)
		return NULL;
	proc_tables_init();
	TAILQ_FOREACH(lp, &tidhash[tid % PIDHASH], lwp_hash)
		if (lp->lwp_tid == tid)
			return lp;
	return NULL;
}

void
proc_foreach(void (*fn)(struct proc *p, void *arg), void *arg)
{
	struct proc *p, *next;
	proc_tables_init();
	for (int i = 0; i < PIDHASH; i++)
		TAILQ_FOREACH_SAFE(p, &pidhash[i], p_hash, next)
			fn(p, arg);
}

struct pgrp *
pgfind(pid_t pgid)
{
	struct pgrp *pg;
	if (pgid <= 0)
		return NULL;
	proc_tables_init();
	TAILQ_FOREACH(pg, &pgrphash[pgid % PIDHASH], pg_hash)
		if (pg->pg_id == pgid)
			return pg;
	return NULL;
}

/* A pid in use by no process, process group, session or thread. */
static pid_t
pid_alloc(void)
{
	for (int tries = 0; tries < PID_MAX; tries++) {
		if (++lastpid >= PID_MAX)
			lastpid = 2;	/* 1 is init's forever */
		if (pfind(lastpid) == NULL && pgfind(lastpid) == NULL &&
		    lwpfind(lastpid) == NULL)
			return lastpid;
	}
	return -1;
}

struct proc *
proc_alloc(struct proc *parent, struct ucred *cr, int *error)
{
	KASSERT(kernel_locked(), "proc_alloc: big lock not held");
	proc_tables_init();
	if ((*error = proc_limit_check(parent)) < 0)
		return NULL;
	struct proc *p = kmalloc(sizeof(*p), KM_ZERO);
	if (p == NULL) {
		*error = -ENOMEM;
		return NULL;
	}
	pid_t pid = pid_alloc();
	*error = pid < 0 ? -EAGAIN : chgproccnt(cr->cr_ruid, 1);
	if (*error < 0) {
		kfree(p);
		return NULL;
	}
	p->p_pid = pid;
	p->p_ucred = crhold(cr);
	p->p_state = PRS_NEW;
	p->p_pptr = parent;
	TAILQ_INIT(&p->p_children);
	TAILQ_INIT(&p->p_lwps);
	TAILQ_INIT(&p->p_timers);
	p->p_exitsig = SIGCHLD;
	p->p_start = nanouptime();
	if (parent != NULL)
		TAILQ_INSERT_TAIL(&parent->p_children, p, p_sibling);
	TAILQ_INSERT_TAIL(&pidhash[pid % PIDHASH], p, p_hash);
	nprocs++;
	nforks++;
	return p;
}

/* Frees a reaped zombie (or a process that never ran). */
void
proc_free(struct proc *p)
{
	KASSERT(kernel_locked(), "proc_free: big lock not held");
	if (p->p_pptr != NULL)
		TAILQ_REMOVE(&p->p_pptr->p_children, p, p_sibling);
	TAILQ_REMOVE(&pidhash[p->p_pid % PIDHASH], p, p_hash);
	if (p->p_pgrp != NULL)
		leavepgrp(p);
	sigqueue_proc_free(p);
	if (p->p_ucred != NULL) {
		(void)chgproccnt(p->p_ucred->cr_ruid, -1);
		crfree(p->p_ucred);
	}
	kfree(p->p_exe);
	nprocs--;
	kfree(p);
}

void
session_rele(struct session *s)
{
	if (--s->s_ref == 0)
		kfree(s);
}

/* Takes p out of its process group, freeing the group when empty. */
void
leavepgrp(struct proc *p)
{
	struct pgrp *pg = p->p_pgrp;
	KASSERT(kernel_locked(), "leavepgrp: big lock not held");
	TAILQ_REMOVE(&pg->pg_members, p, p_pglist);
	p->p_pgrp = NULL;
	if (TAILQ_EMPTY(&pg->pg_members)) {
		if (pg->pg_session->s_fgpgrp == pg)
			pg->pg_session->s_fgpgrp = NULL;
		session_rele(pg->pg_session);
		TAILQ_REMOVE(&pgrphash[pg->pg_id % PIDHASH], pg, pg_hash);
		kfree(pg);
	}
}

/*
 * Moves p into process group pgid, creating it (and, with mksess, a new
 * session led by p) if needed.  0 or -ENOMEM.
 */
int
enterpgrp(struct proc *p, pid_t pgid, bool mksess)
{
	struct pgrp *pg = pgfind(pgid);
	struct session *s = NULL;

	KASSERT(kernel_locked(), "enterpgrp: big lock not held");
	if (pg == NULL) {
		pg = kmalloc(sizeof(*pg), KM_ZERO);
		if (mksess)
			s = kmalloc(sizeof(*s), KM_ZERO);
		if (pg == NULL || (mksess && s == NULL)) {
			kfree(pg);
			kfree(s);
			return -ENOMEM;
		}
		if (mksess) {
			s->s_ref = 1;
			s->s_sid = p->p_pid;
			s->s_leader = p;
		} else {
			s = p->p_pgrp->pg_session;
			s->s_ref++;
		}
		pg->pg_id = pgid;
		pg->pg_session = s;
		TAILQ_INIT(&pg->pg_members);
		TAILQ_INSERT_TAIL(&pgrphash[pgid % PIDHASH], pg, pg_hash);
	}
	if (p->p_pgrp == pg)
		return 0;
	if (p->p_pgrp != NULL)
		leavepgrp(p);
	p->p_pgrp = pg;
	TAILQ_INSERT_TAIL(&pg->pg_members, p, p_pglist);
	return 0;
}

void
lwp_sched_init(struct lwp *lp, const struct lwp *parent)
{
	lp->lwp_nice = parent != NULL ? parent->lwp_nice : 0;
	lp->lwp_policy = parent != NULL ? parent->lwp_policy : SCHED_OTHER;
	lp->lwp_rtprio = parent != NULL ? parent->lwp_rtprio : 0;
	/* SCHED_RESET_ON_FORK: the child is an ordinary thread, as Linux's. */
	if (lp->lwp_policy & SCHED_RESET_ON_FORK) {
		int policy = lp->lwp_policy & ~SCHED_RESET_ON_FORK;
		if (policy == SCHED_FIFO || policy == SCHED_RR) {
			lp->lwp_policy = SCHED_OTHER;
			lp->lwp_rtprio = 0;
		} else {
			lp->lwp_policy = policy;
		}
		if (lp->lwp_nice < 0)
			lp->lwp_nice = 0;
	}
	lp->lwp_ioprio = parent != NULL ? parent->lwp_ioprio : 0;
	thread_setaffinity(lp->lwp_thread, parent != NULL ?
	    parent->lwp_thread->td_cpumask : CPUMASK_ALL);
}

struct lwp *
lwp_alloc(struct proc *p, void (*fn)(void *))
{
	KASSERT(kernel_locked(), "lwp_alloc: big lock not held");
	pid_t tid = TAILQ_EMPTY(&p->p_lwps) ? p->p_pid : pid_alloc();
	if (tid < 0)
		return NULL;
	struct lwp *lp = kmalloc(sizeof(*lp), KM_ZERO);
	if (lp == NULL)
		return NULL;
	lp->lwp_vf = kmalloc(sizeof(*lp->lwp_vf), KM_ZERO);
	if (lp->lwp_vf != NULL)
		lp->lwp_thread = thread_create(p->p_comm, fn, lp);
	if (lp->lwp_thread == NULL) {
		kfree(lp->lwp_vf);
		kfree(lp);
		return NULL;
	}
	lp->lwp_thread->td_lwp = lp;
	thread_setgroup(lp->lwp_thread, uid_sched_group(p->p_ucred->cr_ruid));
	lp->lwp_proc = p;
	lp->lwp_tid = tid;
	memcpy(lp->lwp_comm, p->p_comm, sizeof(lp->lwp_comm));
	vmspace_fpu_init(lp->lwp_vf);
	lwp_sched_init(lp, NULL);
	TAILQ_INSERT_TAIL(&p->p_lwps, lp, lwp_link);
	TAILQ_INSERT_TAIL(&tidhash[tid % PIDHASH], lp, lwp_hash);
	p->p_nlwps++;
	return lp;
}

void
lwp_free(struct lwp *lp)
{
	struct proc *p = lp->lwp_proc;
	KASSERT(kernel_locked(), "lwp_free: big lock not held");
	TAILQ_REMOVE(&p->p_lwps, lp, lwp_link);
	TAILQ_REMOVE(&tidhash[lp->lwp_tid % PIDHASH], lp, lwp_hash);
	/* The process stays counted as one task until proc_free. */
	if (--p->p_nlwps > 0)
		lwp_task_count(p, -1);
	signal_lwp_free(lp);
	kfree(lp->lwp_vf);
	kfree(lp);
}

void
lwp_settid(struct lwp *lp, pid_t tid)
{
	TAILQ_REMOVE(&tidhash[lp->lwp_tid % PIDHASH], lp, lwp_hash);
	lp->lwp_tid = tid;
	TAILQ_INSERT_TAIL(&tidhash[tid % PIDHASH], lp, lwp_hash);
}

void
lwp_unhost(struct lwp *lp)
{
	struct vmspace *vm = lp->lwp_proc->p_vmspace;
	if (lp->lwp_hostthr == 0)
		return;
	/* It runs nowhere (it is the caller): only a lost host can refuse. */
	if (vm != NULL && vmspace_thread_destroy(vmspace_host_id(vm),
	    lp->lwp_hostthr) < 0)
		kprintf("pid %d: guest thread %d not destroyed (errno %d)\n",
		    lp->lwp_proc->p_pid, lp->lwp_hostthr, errno);
	lp->lwp_hostthr = 0;
}
