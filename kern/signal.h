/*
 * Signals: posting, delivery with Linux signal frames, default actions.
 * Numbers and codes are Linux's (the host's <signal.h>).
 */
#ifndef KERN_SIGNAL_H
#define KERN_SIGNAL_H

#include <signal.h>
#include <sys/wait.h>

#include "kern/proc.h"

/* Posts sig to process p (kill(2)); wakes a thread to take it. */
void psignal_proc(struct proc *p, int sig);

/* Posts sig to every process of a process group. */
void pgsignal(struct pgrp *pg, int sig);

/* Posts a synchronous signal for a fault of lp, with code and address. */
void trapsignal(struct lwp *lp, int sig, int code, uint64_t addr);

/* True if lp has a signal to act on now (pending and not blocked). */
bool issignal_pending(const struct lwp *lp);

/*
 * Acts on one pending signal of lp: runs its default action (which may
 * end the process) or builds a signal frame for its handler.
 */
void postsig(struct lwp *lp);

/*
 * Settles a system call that a signal interrupted (LWP_RESTART): it fails
 * with EINTR or runs again, as Linux decides from its -ERESTART* code and
 * sa, the handler about to run (NULL: none runs).
 */
void syscall_restart(struct lwp *lp, const struct linux_sigaction *sa);

/*
 * The process is being created: its signal actions are a copy of its
 * parent's (fork), or with share the parent's own, referenced
 * (CLONE_SIGHAND).  0 or -ENOMEM.
 */
int sigacts_fork(struct proc *child, const struct proc *parent, bool share);
/* The actions become p's own copy if shared (execve).  0 or -ENOMEM. */
int sigacts_unshare(struct proc *p);
/* exec: handled signals go back to their default action. */
void sigacts_exec(struct proc *p);
/* Drops p's reference to its signal actions. */
void sigacts_free(struct proc *p);

#endif /* KERN_SIGNAL_H */
