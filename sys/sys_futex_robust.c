/*
 * set_robust_list and get_robust_list: where a thread's robust futex
 * list is (the walk at exit: proc/futex_robust.c).
 */
#include "kern/proc.h"
#include "kern/ucred.h"
#include "proc/futex_var.h"
#include "sys/syscall.h"
#include "vm/vm.h"

/* set_robust_list(head, len): only Linux's 24-byte head; never checked. */
long
sys_set_robust_list(struct lwp *lp, const uint64_t *args)
{
	if (args[1] != sizeof(struct urobust_head))
		return -EINVAL;
	lp->lwp_robust_list = args[0];
	return 0;
}

/*
 * Whether cur may read p's robust list: as Linux's
 * PTRACE_MODE_READ_REALCREDS, the superuser, or a caller whose real ids
 * are all of a dumpable p's.
 */
static bool
robust_may_read(const struct proc *cur, const struct proc *p)
{
	const struct ucred *c = cur->p_ucred, *t = p->p_ucred;
	if (cur == p || cred_is_root(c))
		return true;
	return !(p->p_flags & P_NOTDUMPABLE) &&
	    c->cr_ruid == t->cr_uid && c->cr_ruid == t->cr_ruid &&
	    c->cr_ruid == t->cr_svuid && c->cr_rgid == t->cr_gid &&
	    c->cr_rgid == t->cr_rgid && c->cr_rgid == t->cr_svgid;
}

/* get_robust_list(tid, head_ptr, len_ptr): 0, -ESRCH, -EPERM, -EFAULT. */
long
sys_get_robust_list(struct lwp *lp, const uint64_t *args)
{
	pid_t tid = (pid_t)args[0];
	struct lwp *t = lp;

	if (tid != 0) {
		if ((t = lwpfind(tid)) == NULL)
			return -ESRCH;
		if (!robust_may_read(lp->lwp_proc, t->lwp_proc))
			return -EPERM;
	}
	uint64_t len = sizeof(struct urobust_head), head = t->lwp_robust_list;
	if (copyout(&len, args[2], sizeof(len)) < 0 ||
	    copyout(&head, args[1], sizeof(head)) < 0)
		return -EFAULT;
	return 0;
}
