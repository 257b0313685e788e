/*
 * System calls: the Linux x86-64 numbers, a table of handlers, and the
 * copyin family for the calling process.  A handler gets the six argument
 * registers and returns the result or a negative errno, which go to rax.
 */
#ifndef KERN_SYSCALL_H
#define KERN_SYSCALL_H

#include <stdint.h>
#include <sys/syscall.h>		/* SYS_* numbers */

#include "kern/proc.h"

#define EJUSTRETURN	1024	/* -EJUSTRETURN: the handler set the registers */

typedef long (*sy_call_t)(struct lwp *lp, const uint64_t *args);

#define SYS_MAXSYSCALL	512
extern const sy_call_t sysent[SYS_MAXSYSCALL];		/* kern/syscalls.c */
extern const char *const syscallnames[SYS_MAXSYSCALL];

#define SYSCALL(name)	long sys_##name(struct lwp *lp __attribute__((unused)), \
	    const uint64_t *args __attribute__((unused)))

/*
 * The result of a write or truncate for the caller: -EPIPE sends SIGPIPE,
 * -EXFSZ (past RLIMIT_FSIZE) sends SIGXFSZ and becomes -EFBIG.
 */
long syscall_write_result(struct lwp *lp, long r);

/* Runs the system call in lp's registers and puts its result in rax. */
void syscall_dispatch(struct lwp *lp);

/*
 * Linux's access_ok: [uaddr, uaddr + len) lies in user space at all.
 * Buffers are checked so before any work, as Linux does.
 */
static inline bool
user_range_ok(uint64_t uaddr, uint64_t len)
{
	const uint64_t top = 0x00007ffffffff000UL;	/* Linux's TASK_SIZE_MAX */
	return uaddr <= top && len <= top - uaddr;
}

/* The copyin family on the current process: 0 or -EFAULT. */
int copyin(uint64_t uaddr, void *kaddr, size_t len);
int copyout(const void *kaddr, uint64_t uaddr, size_t len);
/* A string of at most maxlen bytes with its NUL: 0, -EFAULT, -ENAMETOOLONG. */
int copyinstr(uint64_t uaddr, char *kaddr, size_t maxlen, size_t *done);

/*
 * A path argument, copied into a kernel buffer of PATH_MAX bytes that the
 * caller frees with kfree: NULL with *error set on failure.
 */
char *copyin_path(uint64_t uaddr, int *error);

#endif /* KERN_SYSCALL_H */
