/*
 * System calls about the process itself: identity, limits, the thread
 * pointer, uname.
 */
#include <asm/prctl.h>
#include <sys/prctl.h>
#include <sys/sysinfo.h>
#include <sys/utsname.h>

#include "sys/syscall.h"
#include "kern/ucred.h"
#include "vm/vm.h"
#include "kern/vm_page.h"

long
sys_getpid(struct lwp *lp, const uint64_t *args)
{
	(void)args;
	return lp->lwp_proc->p_pid;
}

long
sys_gettid(struct lwp *lp, const uint64_t *args)
{
	(void)args;
	return lp->lwp_tid;
}

long
sys_getppid(struct lwp *lp, const uint64_t *args)
{
	(void)args;
	struct proc *pp = lp->lwp_proc->p_pptr;
	return pp != NULL ? pp->p_pid : 0;
}

long
sys_getuid(struct lwp *lp, const uint64_t *args)  { (void)args; return lp->lwp_proc->p_ucred->cr_ruid; }
long
sys_geteuid(struct lwp *lp, const uint64_t *args) { (void)args; return lp->lwp_proc->p_ucred->cr_uid; }
long
sys_getgid(struct lwp *lp, const uint64_t *args)  { (void)args; return lp->lwp_proc->p_ucred->cr_rgid; }
long
sys_getegid(struct lwp *lp, const uint64_t *args) { (void)args; return lp->lwp_proc->p_ucred->cr_gid; }

long
sys_set_tid_address(struct lwp *lp, const uint64_t *args)
{
	lp->lwp_clear_child_tid = args[0];
	return lp->lwp_tid;
}

/*
 * The thread pointer.  The host layer loads the bases on the next run
 * (FSGSBASE or arch_prctl in the stub), so this is bookkeeping only.
 */
long
sys_arch_prctl(struct lwp *lp, const uint64_t *args)
{
	switch (args[0]) {
	case ARCH_SET_FS:
	case ARCH_SET_GS:
		if (args[1] >= VM_LINUX_TASK_SIZE)	/* TASK_SIZE_MAX */
			return -EPERM;
		if (args[0] == ARCH_SET_FS)
			lp->lwp_vf->vx_fsbase = args[1];
		else
			lp->lwp_vf->vx_gsbase = args[1];
		return 0;
	case ARCH_GET_FS:
		return copyout(&lp->lwp_vf->vx_fsbase, args[1], 8);
	case ARCH_GET_GS:
		return copyout(&lp->lwp_vf->vx_gsbase, args[1], 8);
	}
	return -EINVAL;
}

long
sys_uname(struct lwp *lp, const uint64_t *args)
{
	struct utsname u;
	(void)lp;
	memset(&u, 0, sizeof(u));
	strcpy(u.sysname, "Linux");
	strcpy(u.nodename, "vkernel");
	strcpy(u.release, UNAME_RELEASE);
	strcpy(u.version, "#1 SMP vkernel");
	strcpy(u.machine, "x86_64");
	strcpy(u.domainname, "(none)");
	return copyout(&u, args[0], sizeof(u));
}

long
sys_sched_yield(struct lwp *lp, const uint64_t *args)
{
	(void)lp, (void)args;
	thread_yield();
	return 0;
}

long
sys_getpgid(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = args[0] == 0 ? lp->lwp_proc : pfind((pid_t)args[0]);
	return p != NULL && p->p_pgrp != NULL ? p->p_pgrp->pg_id : -ESRCH;
}

long
sys_getpgrp(struct lwp *lp, const uint64_t *args __unused)
{
	const uint64_t a[1] = { 0 };
	return sys_getpgid(lp, a);
}

long
sys_getsid(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = args[0] == 0 ? lp->lwp_proc : pfind((pid_t)args[0]);
	return p != NULL && p->p_pgrp != NULL ? p->p_pgrp->pg_session->s_sid : -ESRCH;
}

long
sys_setsid(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	(void)args;
	if (pgfind(p->p_pid) != NULL)
		return -EPERM;		/* already a group leader */
	int error = enterpgrp(p, p->p_pid, true);
	return error < 0 ? error : p->p_pid;
}

/* setpgid(pid, pgid): ourselves or a child not yet exec'd, same session. */
long
sys_setpgid(struct lwp *lp, const uint64_t *args)
{
	struct proc *cur = lp->lwp_proc;
	pid_t pid = (pid_t)args[0], pgid = (pid_t)args[1];
	struct proc *p = pid == 0 ? cur : pfind(pid);

	/* As Linux: pgid 0 means pid, and is checked as it. */
	if (pid == 0)
		pid = cur->p_pid;
	if (pgid == 0)
		pgid = pid;
	if (pgid < 0)
		return -EINVAL;
	if (p == NULL || (p != cur && p->p_pptr != cur))
		return -ESRCH;
	if (p != cur && (p->p_flags & P_EXEC))
		return -EACCES;
	struct session *s = cur->p_pgrp->pg_session;
	if (p->p_pgrp->pg_session != s || (p->p_pgrp->pg_session->s_leader == p))
		return -EPERM;
	struct pgrp *pg = pgfind(pgid);
	if (pgid != p->p_pid && (pg == NULL || pg->pg_session != s))
		return -EPERM;
	return enterpgrp(p, pgid, false);
}

#define READ_IMPLIES_EXEC	0x0400000

/*
 * personality(persona): the old persona, and persona kept unless it is
 * 0xffffffff (a query), as Linux; fork passes it on, a set-id exec drops
 * the flags Linux drops there.  None acts: vkernel has no address
 * randomization to turn off (ADDR_NO_RANDOMIZE is how it runs anyway),
 * no 32-bit layouts, UNAME26 leaves uname's release alone, and
 * READ_IMPLIES_EXEC makes nothing executable (logged).
 */
long
sys_personality(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	unsigned int old = p->p_personality, persona = (unsigned int)args[0];

	if (persona == 0xffffffffu)
		return old;
	if ((persona & READ_IMPLIES_EXEC) && !(old & READ_IMPLIES_EXEC))
		kprintf_ratelimited("pid %d: personality READ_IMPLIES_EXEC is "
		    "kept but not applied\n", p->p_pid);
	p->p_personality = persona;
	return old;
}

/* An int result of a prctl query, stored at uaddr. */
static long
prctl_putint(uint64_t uaddr, int v)
{
	return copyout(&v, uaddr, sizeof(v));
}

/*
 * prctl(option, arg2, arg3, arg4, arg5): the name, dumpability, the
 * parent-death signal, child subreaping and no_new_privs, with Linux's
 * argument checks; other options are -EINVAL and logged.
 */
long
sys_prctl(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;

	switch (args[0]) {
	case PR_SET_NAME: {
		char name[16];
		size_t done;
		int error = copyinstr(args[1], name, sizeof(name), &done);
		if (error == -ENAMETOOLONG) {
			if (copyin(args[1], name, sizeof(name) - 1) < 0)
				return -EFAULT;
			name[sizeof(name) - 1] = '\0';
		} else if (error < 0) {
			return error;
		}
		/* The calling thread's name; the leader's names the process. */
		memcpy(lp->lwp_comm, name, sizeof(name));
		if (lp->lwp_tid == p->p_pid)
			memcpy(p->p_comm, name, sizeof(name));
		return 0;
	}
	case PR_GET_NAME:
		return copyout(lp->lwp_comm, args[1], 16);
	case PR_GET_DUMPABLE:
		return (p->p_flags & P_NOTDUMPABLE) ? 0 : 1;
	case PR_SET_DUMPABLE:
		if (args[1] > 1)
			return -EINVAL;
		if (args[1] == 0)
			p->p_flags |= P_NOTDUMPABLE;
		else
			p->p_flags &= ~P_NOTDUMPABLE;
		return 0;
	case PR_SET_PDEATHSIG:
		if (args[1] > LINUX_NSIG)
			return -EINVAL;
		p->p_pdeathsig = (int)args[1];
		return 0;
	case PR_GET_PDEATHSIG:
		return prctl_putint(args[1], p->p_pdeathsig);
	case PR_SET_CHILD_SUBREAPER:
		if (args[1] != 0)
			p->p_flags |= P_SUBREAPER;
		else
			p->p_flags &= ~P_SUBREAPER;
		return 0;
	case PR_GET_CHILD_SUBREAPER:
		return prctl_putint(args[1], (p->p_flags & P_SUBREAPER) != 0);
	case PR_SET_NO_NEW_PRIVS:
		if (args[1] != 1 || args[2] != 0 || args[3] != 0 || args[4] != 0)
			return -EINVAL;
		p->p_flags |= P_NO_NEW_PRIVS;
		return 0;
	case PR_GET_NO_NEW_PRIVS:
		if (args[1] != 0 || args[2] != 0 || args[3] != 0 || args[4] != 0)
			return -EINVAL;
		return (p->p_flags & P_NO_NEW_PRIVS) != 0;
	case PR_GET_KEEPCAPS:
	case PR_SET_KEEPCAPS:
	case PR_CAPBSET_READ:
	case PR_CAPBSET_DROP:
	case PR_GET_SECUREBITS:
	case PR_SET_SECUREBITS:
	case PR_CAP_AMBIENT:
		return prctl_caps(p, args);
	}
	kprintf_ratelimited("pid %d: prctl %lu not implemented\n", p->p_pid,
	    (unsigned long)args[0]);
	return -EINVAL;
}

long
sys_sysinfo(struct lwp *lp, const uint64_t *args)
{
	struct sysinfo si;
	memset(&si, 0, sizeof(si));
	vmspace_drain();	/* exited processes' RAM counts as free */
	unsigned long load[3];
	si.uptime = (long)(sched_uptime() / 1000000000);
	sched_loadavg(load);
	for (int i = 0; i < 3; i++)		/* SI_LOAD_SHIFT is 16 */
		si.loads[i] = load[i] << (16 - LOAD_FSHIFT);
	si.totalram = vmstats.v_page_count;
	si.freeram = vmstats.v_free_count;
	si.procs = (unsigned short)nprocs;
	si.mem_unit = PAGE_SIZE;
	(void)lp;
	return copyout(&si, args[0], sizeof(si));
}

/* Credentials: setuid family, as root may do anything and others little. */
static long
setcred(struct lwp *lp, uid_t ruid, uid_t euid, uid_t suid, bool is_gid)
{
	struct proc *p = lp->lwp_proc;
	struct ucred *old = p->p_ucred;
	uid_t cur[3] = { is_gid ? old->cr_rgid : old->cr_ruid,
	    is_gid ? old->cr_gid : old->cr_uid, is_gid ? old->cr_svgid : old->cr_svuid };
	uid_t want[3] = { ruid, euid, suid };
	for (int i = 0; i < 3; i++) {
		if (want[i] == (uid_t)-1)
			want[i] = cur[i];
		else if (!cred_is_root(old) && want[i] != cur[0] &&
		    want[i] != cur[1] && want[i] != cur[2])
			return -EPERM;
	}
	struct ucred *cr = crdup(old);
	if (cr == NULL)
		return -ENOMEM;
	/* A process is counted under its real uid (RLIMIT_NPROC). */
	if (!is_gid && want[0] != cur[0]) {
		nproc_setuid(p, want[0]);
		/* Its tasks: the process and its lwps but the first. */
		if (chgproccnt(want[0], p->p_nlwps) < 0) {
			crfree(cr);
			return -ENOMEM;
		}
		/* Its threads go to the new user's share (the old may end). */
		struct lwp *l;
		TAILQ_FOREACH(l, &p->p_lwps, lwp_link)
			thread_setgroup(l->lwp_thread, uid_sched_group(want[0]));
		(void)chgproccnt(cur[0], -p->p_nlwps);
	}
	if (is_gid) {
		cr->cr_rgid = want[0]; cr->cr_gid = want[1]; cr->cr_svgid = want[2];
	} else {
		cr->cr_ruid = want[0]; cr->cr_uid = want[1]; cr->cr_svuid = want[2];
		cred_setuid_caps(cr, cur[0], cur[1], cur[2]);
	}
	p->p_ucred = cr;
	crfree(old);
	return 0;
}

long
sys_setresuid(struct lwp *lp, const uint64_t *args) { return setcred(lp, (uid_t)args[0], (uid_t)args[1], (uid_t)args[2], false); }
long
sys_setresgid(struct lwp *lp, const uint64_t *args) { return setcred(lp, (uid_t)args[0], (uid_t)args[1], (uid_t)args[2], true); }
long
sys_setreuid(struct lwp *lp, const uint64_t *args)  { return setcred(lp, (uid_t)args[0], (uid_t)args[1], (uid_t)-1, false); }
long
sys_setregid(struct lwp *lp, const uint64_t *args)  { return setcred(lp, (uid_t)args[0], (uid_t)args[1], (uid_t)-1, true); }

long
sys_setuid(struct lwp *lp, const uint64_t *args)
{
	uid_t u = (uid_t)args[0];
	return cred_is_root(lp->lwp_proc->p_ucred) ? setcred(lp, u, u, u, false) :
	    setcred(lp, (uid_t)-1, u, (uid_t)-1, false);
}

long
sys_setgid(struct lwp *lp, const uint64_t *args)
{
	uid_t g = (uid_t)args[0];
	return cred_is_root(lp->lwp_proc->p_ucred) ? setcred(lp, g, g, g, true) :
	    setcred(lp, (uid_t)-1, g, (uid_t)-1, true);
}

static long
getres(uint64_t *uaddr, const uid_t *v)
{
	for (int i = 0; i < 3; i++)
		if (copyout(&v[i], uaddr[i], sizeof(uid_t)) < 0)
			return -EFAULT;
	return 0;
}

long
sys_getresuid(struct lwp *lp, const uint64_t *args)
{
	const struct ucred *cr = lp->lwp_proc->p_ucred;
	uid_t v[3] = { cr->cr_ruid, cr->cr_uid, cr->cr_svuid };
	uint64_t a[3] = { args[0], args[1], args[2] };
	return getres(a, v);
}

long
sys_getresgid(struct lwp *lp, const uint64_t *args)
{
	const struct ucred *cr = lp->lwp_proc->p_ucred;
	uid_t v[3] = { cr->cr_rgid, cr->cr_gid, cr->cr_svgid };
	uint64_t a[3] = { args[0], args[1], args[2] };
	return getres(a, v);
}

long
sys_getgroups(struct lwp *lp, const uint64_t *args)
{
	const struct ucred *cr = lp->lwp_proc->p_ucred;
	if (args[0] == 0)
		return cr->cr_ngroups;
	if ((int)args[0] < cr->cr_ngroups)
		return -EINVAL;
	return copyout(cr->cr_groups, args[1], (size_t)cr->cr_ngroups * sizeof(gid_t)) < 0 ?
	    -EFAULT : cr->cr_ngroups;
}

long
sys_setgroups(struct lwp *lp, const uint64_t *args)
{
	struct proc *p = lp->lwp_proc;
	if (!cred_is_root(p->p_ucred))
		return -EPERM;
	if (args[0] > KNGROUPS)
		return -EINVAL;
	struct ucred *cr = crdup(p->p_ucred);
	if (cr == NULL)
		return -ENOMEM;
	if (copyin(args[1], cr->cr_groups, args[0] * sizeof(gid_t)) < 0) {
		crfree(cr);
		return -EFAULT;
	}
	cr->cr_ngroups = (int)args[0];
	crfree(p->p_ucred);
	p->p_ucred = cr;
	return 0;
}
