/*
 * execve: the argument decoding over kern_execve (proc/kern_exec.c):
 * the path and the argv and envp vectors are copied in here.
 */
#include "proc/exec.h"
#include "proc/fork_stat.h"
#include "sys/syscall.h"
#include "kern/kmem.h"

#define EXEC_MAXARGS	(EXEC_ARGMAX / 2)
#define EXEC_STRMAX	(32 * PAGE_SIZE)	/* one string, as Linux's MAX_ARG_STRLEN */

/* Copies a user string vector (argv or envp) in; returns its count. */
static long
args_copyin(struct exec_args *ea, uint64_t uvec)
{
	long count = 0;
	for (; uvec != 0; count++) {
		uint64_t up;
		size_t done;
		if (copyin(uvec + 8 * (uint64_t)count, &up, 8) < 0)
			return -EFAULT;
		if (up == 0)
			break;
		if (count >= EXEC_MAXARGS)
			return -E2BIG;
		int error = copyinstr(up, ea->ea_buf + ea->ea_len,
		    MIN(EXEC_ARGMAX - ea->ea_len, EXEC_STRMAX), &done);
		if (error == -ENAMETOOLONG)
			return -E2BIG;
		if (error < 0)
			return error;
		ea->ea_len += done;
	}
	return count;
}

long
sys_execve(struct lwp *lp, const uint64_t *args)
{
	struct exec_args ea = { 0 };
	int error;
	char *path = copyin_path(args[0], &error);
	if (path == NULL)
		return error;
	if ((error = nproc_exec_check(lp->lwp_proc)) < 0)
		goto out;
	ea.ea_buf = kmalloc(EXEC_ARGMAX, 0);
	if (ea.ea_buf == NULL) {
		error = -ENOMEM;
		goto out;
	}
	long n = args_copyin(&ea, args[1]);
	if (n < 0) {
		error = (int)n;
		goto out;
	}
	/*
	 * As Linux, an empty argv gets "" as argv[0], so that a program
	 * that starts at argv[1] does not walk into envp.
	 */
	if (n == 0) {
		if ((error = args_add(&ea, "")) < 0)
			goto out;
		n = 1;
	}
	ea.ea_argc = n;
	n = args_copyin(&ea, args[2]);
	if (n < 0) {
		error = (int)n;
		goto out;
	}
	ea.ea_envc = n;
	uint64_t t0 = forkstat_now();
	error = kern_execve(lp, path, &ea);
	forkstat_stage(FST_EXEC, t0);
out:
	kfree(ea.ea_buf);
	kfree(path);
	return error == 0 ? -EJUSTRETURN : error;
}
