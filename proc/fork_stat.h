/*
 * Where a fork's time goes: counters of the stages of making, running,
 * ending and waiting for processes, of the traps of forked children
 * (before they exec) and of everyone else, and the host layer's own
 * (host/vmspace.h, struct vmspace_stats).  Off unless the vkernel's
 * environment has VKERNEL_FORKSTAT; then they are printed on standard
 * error at shutdown, and ddb's "show forkstat" prints them any time.
 * Per-fork figures are the totals divided by the forks: run one
 * benchmark at a time (bench/guest/kbench.c's ONLY argument).
 */
#ifndef PROC_FORK_STAT_H
#define PROC_FORK_STAT_H

#include <stdbool.h>
#include <stdint.h>

struct lwp;

enum fst_stage {
	FST_FORK,		/* fork1 in the parent, whole */
	FST_VMSPACE_FORK,	/* of which vmspace_fork */
	FST_FORK_TOUCH,		/* of which the child's first copies */
	FST_CHILD_START,	/* fork to the child's first run (scheduling) */
	FST_ACTIVATE,		/* a first vmspace_activate: the stub */
	FST_FIRST_RUN,		/* a forked child's first run, to its trap */
	FST_EXEC,		/* execve, whole */
	FST_EXIT,		/* exit1 until the zombie is announced */
	FST_EXIT_VM,		/* of which the address space's release */
	FST_WAKE,		/* the zombie's announcement to its reaping */
	FST_WAIT,		/* a wait4 that slept, whole */
	FST_NSTAGES
};

enum fst_kind {
	FSK_SYSCALL,		/* through SIGSYS */
	FSK_PATCHED,		/* through the trampoline (no signal) */
	FSK_READ, FSK_WRITE, FSK_EXEC,	/* page faults by access */
	FSK_INTR,		/* the CPU's interrupt ended the run */
	FSK_OTHER,
	FSK_NKINDS
};

/* Whether the counters are on (VKERNEL_FORKSTAT). */
bool forkstat_enabled(void);
/* A now for forkstat_stage, 0 if off. */
uint64_t forkstat_now(void);
/* Adds one of stage st that began at t0 (forkstat_now's). */
void forkstat_stage(enum fst_stage st, uint64_t t0);
/*
 * One trap of lp, of kind (FSK_*) after a run of run_ns (guest and
 * host); nr is the system call's number, else -1.  Returns its role for
 * forkstat_trap_done, which adds the kernel's work on it (an exit's
 * never comes).
 */
int forkstat_trap(struct lwp *lp, int kind, long nr, uint64_t run_ns);
void forkstat_trap_done(int role, int kind, uint64_t kern_ns);
/* Prints every counter with pr; sysname names a call (NULL: numbers). */
void forkstat_print(void (*pr)(const char *fmt, ...),
    const char *(*sysname)(long nr));

#endif /* PROC_FORK_STAT_H */
