/*
 * --strace: every system call of every guest process, one line each in
 * strace's format, with the signals they take and how they end.  Off, the
 * only cost is the dispatcher's test of strace_enabled and the process
 * layer's of its hooks (strace_config sets proc_signal_hook to
 * strace_signal, proc_exit_hook to strace_exit).
 */
#ifndef KERN_SYS_TRACE_H
#define KERN_SYS_TRACE_H

#include <signal.h>
#include <stdbool.h>

#include "sys/syscall.h"

extern bool strace_enabled;

/*
 * Configures the tracer from --strace[=SPEC] before boot.  SPEC is empty
 * (standard error), a file name, or a comma list of file=FILE and
 * trace=LIST, LIST taking the rest of the string: strace's -e trace=
 * syntax (names, %file %desc %process %signal %memory %network %ipc
 * %creds %clock, all, none, a leading ! to negate).  Returns 0, or -1 with
 * *why set.
 */
int strace_config(const char *spec, const char **why);

/*
 * Runs fn (NULL: the call of another ABI, -ENOSYS) for system call nr of
 * lp with args, tracing it: its input arguments are read before the call,
 * its output ones and the result after.  Returns what fn returned.
 */
long strace_syscall(struct lwp *lp, uint64_t nr, sy_call_t fn,
    const uint64_t *args);

/*
 * A signal that p takes, with its siginfo: "--- SIGCHLD {si_signo=...}
 * ---", the fields strace shows for its si_code.
 */
void strace_signal(struct proc *p, const siginfo_t *si);

/*
 * Init's execve (the kernel's, with no call to trace): path and argv
 * are the kernel's strings, envc how many environment strings it gave,
 * error what kern_execve returned.  On success, lp's registers are the
 * new image's, so envp is shown where it lies on the new stack.
 */
void strace_init_exec(struct lwp *lp, const char *path, char *const argv[],
    int envc, int error);

/* p ends with wait status xstat: "+++ exited with 0 +++". */
void strace_exit(struct proc *p, int xstat);

#endif /* KERN_SYS_TRACE_H */
