/*
 * Processes and their threads (lwps).  A process owns an address space
 * (its pmap is the host-layer vmspace its threads run in), credentials,
 * files, limits and signal actions.  An lwp is one guest thread: its user
 * registers, FPU image, signal mask, its guest thread in the host
 * vmspace, and the kernel thread that runs its kernel side
 * (kern/thread.h).  A process has one lwp per thread of its thread
 * group (clone with CLONE_THREAD); the first one's tid is the pid.
 */
#ifndef KERN_PROC_H
#define KERN_PROC_H

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#include "host/vmspace.h"
#include "kern/queue.h"
#include "kern/thread.h"
#include "kern/timeout.h"

struct vmspace;
struct ucred;
struct filedesc;
struct pwddesc;

#define PID_MAX		32768
#define LINUX_NSIG		64		/* Linux's _NSIG */

typedef uint64_t ksigset_t;		/* bit sig - 1 */
#define SIGBIT(sig)	(1ULL << ((sig) - 1))

/*
 * The siginfo of pending signals, oldest first (proc/kern_sig.c):
 * beside a pending set, the entries of its signals.  All zero is empty.
 */
struct ksiginfo;
struct sigqueue {
	struct ksiginfo *sq_first;
	struct ksiginfo *sq_last;
};

enum proc_state { PRS_NEW, PRS_NORMAL, PRS_ZOMBIE };

struct lwp {
	struct proc *lwp_proc;
	struct thread *lwp_thread;
	pid_t lwp_tid;			/* from the pid space; the leader's is the pid */
	char lwp_comm[16];		/* its name (PR_SET_NAME); the leader's is p_comm */
	int lwp_hostthr;		/* its guest thread in the host vmspace */
	struct trapframe lwp_tf;
	struct vextframe *lwp_vf;	/* FPU image and segment bases */
	ksigset_t lwp_sigmask;
	ksigset_t lwp_siglist;		/* pending for this thread */
	struct sigqueue lwp_sigqueue;	/* and their siginfo */
	ksigset_t lwp_oldmask;		/* rt_sigsuspend's, for the frame */
	ksigset_t lwp_realmask;		/* the mask rt_sigtimedwait lifted */
	stack_t lwp_sigstk;		/* sigaltstack */
	uint64_t lwp_clear_child_tid;	/* set_tid_address */
	uint64_t lwp_syscall_nr;	/* the call a restart re-issues (LWP_RESTART) */
	/* What restart_syscall continues: an interrupted relative sleep. */
	struct restart_block {
		long (*rb_fn)(struct lwp *lp);
		int rb_clock;
		int64_t rb_deadline;	/* ns on rb_clock */
		uint64_t rb_rmtp;	/* where the time left goes */
		uint64_t rb_uaddr;	/* futex: the word, its value, ... */
		uint32_t rb_val, rb_bitset;
		bool rb_shared;
	} lwp_restart;
	uint64_t lwp_robust_list;	/* set_robust_list's head, or 0 */
	int lwp_flags;
	int lwp_nice;			/* -20..19 */
	int lwp_policy;			/* SCHED_OTHER...; | SCHED_RESET_ON_FORK */
	int lwp_rtprio;			/* SCHED_FIFO and SCHED_RR: 1..99 */
	int lwp_ioprio;			/* ioprio_set: class << 13 | data */
	uint64_t lwp_utime;		/* ns its guest ran (the host's count) */
	uint64_t lwp_runwait;		/* ns its thread waited for the guest */
	uint64_t lwp_runstart;		/* when the run under way began, or 0 */
	TAILQ_ENTRY(lwp) lwp_link;
	TAILQ_ENTRY(lwp) lwp_hash;	/* by tid */
};

#define LWP_OLDMASK	0x01		/* lwp_oldmask goes in the next frame */
#define LWP_RESTART	0x02		/* rax holds an -ERESTART* of lwp_syscall_nr */
#define LWP_STOPPED	0x08		/* counted in its process's group stop */
#define LWP_FUTEXDEAD	0x100		/* exiting: owns no PI futex any more */

struct linux_sigaction {
	uint64_t lsa_handler;
	uint64_t lsa_flags;
	uint64_t lsa_restorer;
	ksigset_t lsa_mask;
};

struct sigacts {
	int ps_ref;
	struct linux_sigaction ps_act[LINUX_NSIG];
};

struct session {
	int s_ref;
	pid_t s_sid;
	struct proc *s_leader;
	struct pgrp *s_fgpgrp;		/* the controlling tty's foreground */
	void *s_ttyp;			/* the controlling tty, if any */
};

struct pgrp {
	pid_t pg_id;
	struct session *pg_session;
	TAILQ_HEAD(, proc) pg_members;
	TAILQ_ENTRY(pgrp) pg_hash;
};

/*
 * A process's file-system state: the tables fs/ keeps (fs/file.h) and
 * clone may share (CLONE_FILES, CLONE_FS), and the write limit.  Only
 * pointers, so a process is defined below the file systems.
 */
struct fsproc {
	struct filedesc *fp_fd;	/* NULL once exited */
	struct pwddesc *fp_pwd;	/* NULL once exited */
	uint64_t fp_fsize;	/* RLIMIT_FSIZE: no write past it */
};

TAILQ_HEAD(procq, proc);

struct proc {
	pid_t p_pid;
	enum proc_state p_state;
	struct proc *p_pptr;		/* parent (init once orphaned) */
	struct procq p_children;
	TAILQ_ENTRY(proc) p_sibling;
	TAILQ_ENTRY(proc) p_hash;
	TAILQ_ENTRY(proc) p_pglist;	/* in its process group */
	struct pgrp *p_pgrp;
	struct vmspace *p_vmspace;
	struct ucred *p_ucred;
	struct fsproc p_fs;		/* cwd, root, umask, descriptors */
	struct sigacts *p_sigacts;
	ksigset_t p_siglist;		/* pending for the process */
	struct sigqueue p_sigqueue;	/* and their siginfo */
	int p_nstopped;			/* lwps stopped in a group stop */
	TAILQ_HEAD(, lwp) p_lwps;
	int p_nlwps;
	int *p_vforkdone;		/* set and woken at exec or exit (vfork) */
	int p_xstat;			/* wait status once a zombie */
	int p_exitsig;			/* sent to the parent: SIGCHLD */
	int p_pdeathsig;		/* PR_SET_PDEATHSIG: sent when the parent exits */
	int p_flags;
	unsigned int p_personality;	/* personality(2): kept, not acted on */
	struct rlimit p_rlimit[RLIM_NLIMITS];
	uint64_t p_start;		/* nanouptime at fork */
	uint64_t p_stat_ns;		/* fork_stat.h: at fork, then at exit */
	uint64_t p_utime, p_stime;	/* ns, of its lwps that have exited */
	uint64_t p_cutime, p_cstime;	/* of waited-for children */
	uint64_t p_maxrss_kb;
	struct callout p_itimer;	/* ITIMER_REAL */
	uint64_t p_itimer_interval;	/* ns, 0: one-shot */
	TAILQ_HEAD(, ptimer) p_timers;	/* POSIX timers (kern/ptimer.h) */
	int p_timer_nextid;		/* the next timer id to try */
	char p_comm[16];		/* its leader thread's name */
	char *p_exe;			/* the image's path (/proc/PID/exe),
					 * kmalloc'd; NULL if unknown */
};

#define P_WEXIT		0x01		/* all lwps but one are being ended */
#define P_TRACED	0x02
#define P_STOPPED	0x04
#define P_WAITED	0x08		/* stop or continue reported */
#define P_CONTINUED	0x10
#define P_EXEC		0x20		/* has exec'd since fork */
#define P_NPROC_EXCEEDED 0x40		/* set*uid went past RLIMIT_NPROC */
#define P_NOTDUMPABLE	0x80		/* PR_SET_DUMPABLE 0; exec clears it */
#define P_NO_NEW_PRIVS	0x100		/* PR_SET_NO_NEW_PRIVS: for good */
#define P_SUBREAPER	0x200		/* PR_SET_CHILD_SUBREAPER */
#define P_STOPPING	0x400		/* a group stop: its threads stop */
#define P_INHERITED	(P_NOTDUMPABLE | P_NO_NEW_PRIVS)	/* kept at fork */

extern struct proc *initproc;
/*
 * nprocs counts tasks, as Linux's nr_threads: a process, and each of its
 * lwps but the first.  maxprocs and RLIMIT_NPROC bound tasks, so that a
 * thread bomb stops where a fork bomb does.
 */
extern int nprocs, maxprocs;
extern uint64_t nforks;		/* processes created since boot */
extern pid_t lastpid;		/* the pid given last */

/*
 * The process and lwp of the calling kernel thread (NULL if none): the
 * thread's own pointer, so that every layer may ask (a copyin, a tty).
 */
static inline struct lwp *
curlwp_get(void)
{
	struct thread *td = curthread;
	return td != NULL ? td->td_lwp : NULL;
}
#define curlwp	(curlwp_get())
#define curproc	(curlwp != NULL ? curlwp->lwp_proc : NULL)

/*
 * Called, once set, when process p becomes a zombie and when it is
 * reaped: fs/pidfd.c sets it at its first pidfd, to wake pidfd pollers.
 */
extern void (*pidfd_exit_hook)(struct proc *p);
/*
 * The pid a pidfd names, for waitid(P_PIDFD) (fs/pidfd.c's pidfd_pid,
 * set with pidfd_exit_hook): or -EBADF.
 */
extern pid_t (*pidfd_pid_hook)(struct fsproc *fsp, int fd, bool *nonblock);

/* The process with pid, or NULL (zombies included; any pid <= 0). */
struct proc *pfind(pid_t pid);

/* The live lwp with thread id tid, or NULL (any tid <= 0). */
struct lwp *lwpfind(pid_t tid);

/* Calls fn on every process, zombies included; fn must not free any. */
void proc_foreach(void (*fn)(struct proc *p, void *arg), void *arg);
struct pgrp *pgfind(pid_t pgid);

/*
 * Allocates a child of parent (NULL for init) with a new pid, acting as
 * cr (a reference is taken) and counted under its real uid; its lwp is
 * created by the caller.  NULL with *error = -EAGAIN past the process
 * limits (proc_limit_check), or -ENOMEM.
 */
struct proc *proc_alloc(struct proc *parent, struct ucred *cr, int *error);
void proc_free(struct proc *p);
int enterpgrp(struct proc *p, pid_t pgid, bool mksess);
void leavepgrp(struct proc *p);
/* Drops a reference to s (a process group's, a terminal's); frees it at 0. */
void session_rele(struct session *s);

/*
 * Process limits (proc/kern_resource.c).  proc_limit_init sets maxprocs
 * from the pages of RAM processes can have: those still free once the
 * boot file systems are in (an initramfs lives in RAM for good).
 * proc_limit_check: 0 if parent may fork,
 * -EAGAIN past maxprocs or past its RLIMIT_NPROC for its real uid (which
 * root is exempt from); the same check holds for a new thread of parent.
 * chgproccnt adds diff to uid's count of tasks: 0, or -ENOMEM if a first
 * process of uid finds no memory for its record.  lwp_task_count counts
 * a new lwp of p that is not its first (diff 1) or one that goes (-1).
 */
void proc_limit_init(uint64_t free_pages);
int proc_limit_check(const struct proc *parent);
int proc_count_uid(uid_t uid);
int chgproccnt(uid_t uid, int diff);
void lwp_task_count(struct proc *p, int diff);

/*
 * prlimit by cur on resource res of process pid (0: cur): gives the old
 * limit in *old and, unless nl is NULL, sets *nl (and applies it to the
 * descriptor table and address space).  0, -ESRCH, -EPERM or -EINVAL.
 */
int kern_prlimit(struct proc *cur, pid_t pid, unsigned res,
    const struct rlimit *nl, struct rlimit *old);

/*
 * The share of the CPUs of uid's processes (kern/kern_runq.c), which
 * lives while chgproccnt counts any process of uid: each user gets an
 * equal share, however many processes it runs.  uid must be counted.
 */
struct sched_group *uid_sched_group(uid_t uid);

/*
 * A set*uid call never fails for RLIMIT_NPROC: as Linux, nproc_setuid
 * (called before p's real uid becomes newruid) notes that newruid is
 * over p's limit, and nproc_exec_check makes p's next execve fail with
 * -EAGAIN if it still is; 0 otherwise.
 */
void nproc_setuid(struct proc *p, uid_t newruid);
int nproc_exec_check(struct proc *p);

/*
 * Creates an lwp of p, whose kernel thread runs fn(lwp) (lwp_main).  The
 * first lwp of a process has the pid as its tid, the others a new id
 * from the pid space; its guest thread is number 0 of the vmspace unless
 * the caller sets lwp_hostthr.  NULL if memory or ids are short.
 */
struct lwp *lwp_alloc(struct proc *p, void (*fn)(void *));
/* Frees an lwp whose thread has exited (or never started). */
void lwp_free(struct lwp *lp);
/* lp's thread id becomes tid (execve: the pid), which must be free. */
void lwp_settid(struct lwp *lp, pid_t tid);

/*
 * Gives up lp's guest thread in its process's host vmspace (not number
 * 0, which lives as long as the vmspace), for an lwp that is about to
 * leave it: exit, or exec into a new address space.  The lwp then owns
 * thread 0 of whatever vmspace its process has next.
 */
void lwp_unhost(struct lwp *lp);

/*
 * Ends every lwp of lp's process but lp (exit_group, a fatal signal,
 * execve): marks the process P_WEXIT, interrupts each (its sleep, or its
 * guest run through its CPU), and waits until they are gone; each ends
 * itself on its way back to user mode (lwp_userexit).  0, or -1 if
 * another lwp of the process is at it already: lp must then end itself.
 * The process stays P_WEXIT; execve clears it.
 */
int killalllwps(struct lwp *lp);

/*
 * Ends the calling lwp, which is not the last of its process (exit of one
 * thread, or killalllwps): clears and wakes its CHILD_CLEARTID word,
 * folds its CPU time into the process, frees it.  No return.
 */
void lwp_exit(void) __attribute__((noreturn));

/*
 * Wakes the parent of a vfork child (its exec or exit): the parent
 * goes on once the child no longer uses its memory.
 */
void vfork_done(struct proc *p);

/*
 * The kernel side of a guest thread: run it, handle its traps
 * (sys/kern_trap.c, the top of every guest thread's kernel stack).
 */
void lwp_main(void *arg);

/*
 * An lwp's nice value, I/O priority, scheduling policy and CPU affinity,
 * its parent thread's or (NULL) the defaults; sys/sys_sched.c changes them.
 */
void lwp_sched_init(struct lwp *lp, const struct lwp *parent);

/*
 * CPU time (kern/kern_cputime.c), in ns.  lwp_run_begin and lwp_run_end
 * bracket each run of the guest (cputime: the host layer's tf_cputime;
 * now: nanouptime, as the scheduler read it around the same run).
 * lwp_cputime gives an lwp's user and system time so far; lwp_cputime_fold
 * adds an exiting lwp's to its process (its thread is about to go);
 * proc_cputime gives a process's, all its lwps together.
 */
void lwp_run_begin(struct lwp *lp, uint64_t now);
void lwp_run_end(struct lwp *lp, uint64_t cputime, uint64_t now);
void lwp_cputime(const struct lwp *lp, uint64_t *utime, uint64_t *stime);
void lwp_cputime_fold(struct lwp *lp);
void proc_cputime(const struct proc *p, uint64_t *utime, uint64_t *stime);
/* A struct rusage with these times (ns) and nothing else counted. */
void rusage_fill(struct rusage *ru, uint64_t utime, uint64_t stime);

/*
 * Ends the calling process, all its threads, with the given wait status
 * (exit_group, a fatal signal); no return.
 */
void exit1(int xstat) __attribute__((noreturn));

/*
 * Called, when set, as p becomes a zombie with wait status xstat: the
 * tracer's (--strace) "+++ exited with 0 +++".  A hook the tracer sets,
 * as proc_signal_hook (kern/signal.h).
 */
extern void (*proc_exit_hook)(struct proc *p, int xstat);

/*
 * Called, when set, as p exits, before its files close: System V
 * semaphores apply p's SEM_UNDO adjustments (sys/sysv_sem.c sets it when
 * it first records one; FreeBSD's semexit is a process_exit event
 * handler the same way).
 */
extern void (*proc_semexit_hook)(struct proc *p);

/* What a wait found: wait4's status word and waitid's siginfo fields. */
struct wait_result {
	pid_t pid;
	uid_t uid;
	int status;		/* wait4's encoding */
	int code;		/* CLD_* */
	int cld_status;		/* exit code or signal */
};


/*
 * The wait of wait4 and waitid (kern_exit.c): a child matching pid (as
 * wait4's argument) that exited (WEXITED), stopped (WSTOPPED) or
 * continued (WCONTINUED) and was not reported yet; WNOWAIT leaves it to
 * be reported again.  Returns its pid with *wr filled (and *ru, if not
 * NULL, for an exited child), 0 with WNOHANG and nothing to report,
 * -ECHILD without any matching child, or -ERESTARTSYS when a signal ends
 * the wait.
 */
long kern_wait(struct lwp *lp, pid_t pid, int options, struct wait_result *wr,
    struct rusage *ru);

/*
 * fork, vfork, clone and clone3 (kern_fork.c): what the new task is made
 * of, Linux's struct kernel_clone_args.
 */
struct clone_req {
	uint64_t cr_flags;		/* CLONE_*, the exit signal apart */
	int cr_exitsig;
	uint64_t cr_stack;		/* its stack pointer; 0: the caller's */
	uint64_t cr_ptid, cr_ctid;	/* PARENT_SETTID, CHILD_SETTID/CLEARTID */
	uint64_t cr_tls;		/* CLONE_SETTLS: the FS base */
};

/*
 * Creates a child of lp's process (or, with CLONE_THREAD, a thread of
 * it) running from lp's registers with rax 0, as cr says.  Returns the
 * child's pid (thread id) or a negative errno; flags Linux refuses give
 * -EINVAL, flags this kernel does not implement -EINVAL with a log line.
 * The child's kernel thread runs body(lwp): the caller's return-to-user
 * loop (lwp_main, sys/kern_trap.c), as Linux's kernel_clone_args.fn or
 * the architecture's ret_from_fork; the process layer does not know it.
 */
long fork1(struct lwp *lp, const struct clone_req *cr, void (*body)(void *));

#endif /* KERN_PROC_H */
