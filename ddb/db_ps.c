/*
 * ps, show proc, show thread: the process table and the kernel threads,
 * as DragonFly's ddb ps prints them.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ddb/ddb.h"
#include "host/cpu.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "kern/thread.h"

const char *
db_thread_state(const struct thread *td)
{
	switch (td->td_state) {
	case TDS_NEW:
		return "new";
	case TDS_RUNQ:
		return "runq";
	case TDS_RUNNING:
		return "run";
	case TDS_SLEEPING:
		return "sleep";
	case TDS_DEAD:
		return "dead";
	}
	return "?";
}

int
db_thread_cpu(const struct thread *td)
{
	return td->td_cpu != NULL ? td->td_cpu->id : -1;
}

static void
db_ps_thread(const struct proc *p, const struct lwp *lp, const struct thread *td)
{
	if (p != NULL)
		db_printf("%5d %5d %5d %5d %4u ", (int)p->p_pid, (int)lp->lwp_tid,
		    p->p_pptr != NULL ? (int)p->p_pptr->p_pid : 0,
		    p->p_pgrp != NULL ? (int)p->p_pgrp->pg_id : 0,
		    p->p_ucred != NULL ? (unsigned)p->p_ucred->cr_uid : 0);
	else
		db_printf("%5s %5s %5s %5s %4s ", "-", "-", "-", "-", "-");
	if (td == NULL) {
		db_printf("%-5s %3s %-8s %-14s %-14s %s\n", "-", "-", "-", "-", "-",
		    lp != NULL ? lp->lwp_comm : "?");
		return;
	}
	char cpu[8] = "-";
	if (td->td_state == TDS_RUNNING)
		snprintf(cpu, sizeof(cpu), "%d", db_thread_cpu(td));
	db_printf("%-5s %3s %-8s %14p %14p %s\n", db_thread_state(td), cpu,
	    td->td_state == TDS_SLEEPING && td->td_wmesg != NULL ? td->td_wmesg : "-",
	    td->td_state == TDS_SLEEPING ? td->td_wchan : NULL, (const void *)td,
	    lp != NULL ? lp->lwp_comm : td->td_name);
}

static void
db_ps_proc(struct proc *p, void *arg)
{
	struct lwp *lp;

	(void)arg;
	if (p->p_state == PRS_ZOMBIE) {
		db_printf("%5d %5s %5d %5d %4u %-5s %3s %-8s %-14s %-14s %s\n",
		    (int)p->p_pid, "-", p->p_pptr != NULL ? (int)p->p_pptr->p_pid : 0,
		    p->p_pgrp != NULL ? (int)p->p_pgrp->pg_id : 0,
		    p->p_ucred != NULL ? (unsigned)p->p_ucred->cr_uid : 0,
		    "zomb", "-", "-", "-", "-", p->p_comm);
		return;
	}
	TAILQ_FOREACH(lp, &p->p_lwps, lwp_link)
		db_ps_thread(p, lp, lp->lwp_thread);
}

static void
db_ps_kthread(struct thread *td, void *arg)
{
	(void)arg;
	if (td->td_lwp == NULL)
		db_ps_thread(NULL, NULL, td);
}

void
db_ps(int argc, char **argv)
{
	(void)argc, (void)argv;
	db_printf("%5s %5s %5s %5s %4s %-5s %3s %-8s %-14s %-14s %s\n", "PID", "TID",
	    "PPID", "PGRP", "UID", "STATE", "CPU", "WMESG", "WCHAN", "THREAD", "COMM");
	proc_foreach(db_ps_proc, NULL);
	thread_foreach(db_ps_kthread, NULL);
	for (int i = 0; i < cpu_count(); i++) {
		struct sched_cpuinfo ci;
		sched_cpu_info(i, &ci);
		if (ci.ci_idle != NULL)
			db_ps_thread(NULL, NULL, ci.ci_idle);
	}
}

struct db_tdfind {
	uintptr_t addr;
	struct thread *td;
};

static void
db_tdfind_one(struct thread *td, void *arg)
{
	struct db_tdfind *f = arg;
	if ((uintptr_t)td == f->addr)
		f->td = td;
}

/*
 * A thread by tid (decimal: a guest thread's kernel thread) or by its
 * address (0x...), checked against the list, so that a wrong address
 * is refused instead of read.
 */
struct thread *
db_find_thread(const char *arg)
{
	if (arg[0] == '0' && arg[1] == 'x') {
		struct db_tdfind f = { strtoul(arg, NULL, 16), NULL };
		thread_foreach(db_tdfind_one, &f);
		for (int i = 0; i < cpu_count() && f.td == NULL; i++) {
			struct sched_cpuinfo ci;
			sched_cpu_info(i, &ci);
			if ((uintptr_t)ci.ci_idle == f.addr)
				f.td = ci.ci_idle;
		}
		if (f.td == NULL)
			db_printf("%s: no such thread\n", arg);
		return f.td;
	}
	long tid;
	if (!db_number(arg, &tid))
		return NULL;
	struct lwp *lp = lwpfind((pid_t)tid);
	if (lp == NULL || lp->lwp_thread == NULL) {
		db_printf("%ld: no such thread\n", tid);
		return NULL;
	}
	return lp->lwp_thread;
}

static void
db_print_thread(const struct thread *td)
{
	db_printf("thread %p %s: %s", (const void *)td, td->td_name,
	    db_thread_state(td));
	if (td->td_state == TDS_RUNNING)
		db_printf(" on cpu %d", db_thread_cpu(td));
	if (td->td_state == TDS_SLEEPING)
		db_printf(" on %p \"%s\"%s", td->td_wchan,
		    td->td_wmesg != NULL ? td->td_wmesg : "",
		    (td->td_flags & TDF_SINTR) ? " (interruptible)" : "");
	db_printf("\n  flags %#x, stack %p size %zu, saved sp %#lx, ran %lu.%06lu s\n",
	    td->td_flags, (void *)td->td_kstack, td->td_kstack_size,
	    (unsigned long)td->td_sp, (unsigned long)(td->td_runtime / 1000000000),
	    (unsigned long)(td->td_runtime / 1000 % 1000000));
}

void
db_show_thread(int argc, char **argv)
{
	if (argc < 2) {
		db_printf("usage: show thread TID|0xTHREAD\n");
		return;
	}
	struct thread *td = db_find_thread(argv[1]);
	if (td != NULL)
		db_print_thread(td);
}

void
db_show_proc(int argc, char **argv)
{
	long pid;
	struct lwp *lp;

	if (argc < 2) {
		db_printf("usage: show proc PID\n");
		return;
	}
	if (!db_number(argv[1], &pid))
		return;
	struct proc *p = pfind((pid_t)pid);
	if (p == NULL) {
		db_printf("%ld: no such process\n", pid);
		return;
	}
	db_printf("proc %p pid %d \"%s\" %s, parent %d, pgrp %d, flags %#x\n",
	    (void *)p, (int)p->p_pid, p->p_comm,
	    p->p_state == PRS_ZOMBIE ? "zombie" : p->p_state == PRS_NEW ? "new" : "normal",
	    p->p_pptr != NULL ? (int)p->p_pptr->p_pid : 0,
	    p->p_pgrp != NULL ? (int)p->p_pgrp->pg_id : 0, p->p_flags);
	db_printf("  exe %s, vmspace %p, pending %#lx, %d threads\n",
	    p->p_exe != NULL ? p->p_exe : "?", (void *)p->p_vmspace,
	    (unsigned long)p->p_siglist, p->p_nlwps);
	TAILQ_FOREACH(lp, &p->p_lwps, lwp_link) {
		const struct trapframe *tf = &lp->lwp_tf;
		db_printf("lwp %d \"%s\": mask %#lx pending %#lx\n", (int)lp->lwp_tid,
		    lp->lwp_comm, (unsigned long)lp->lwp_sigmask,
		    (unsigned long)lp->lwp_siglist);
		db_printf("  rip %#lx rsp %#lx rbp %#lx rax %#lx\n",
		    (unsigned long)tf->tf_rip, (unsigned long)tf->tf_rsp,
		    (unsigned long)tf->tf_rbp, (unsigned long)tf->tf_rax);
		db_printf("  last trap %lu err %#lx addr %#lx\n",
		    (unsigned long)tf->tf_trapno, (unsigned long)tf->tf_err,
		    (unsigned long)tf->tf_addr);
		if (lp->lwp_thread != NULL) {
			db_printf("  ");
			db_print_thread(lp->lwp_thread);
		}
	}
}
