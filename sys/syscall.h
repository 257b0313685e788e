/*
 * System calls: the Linux x86-64 numbers and the table of handlers, both
 * from sys/syscalls.tbl.h, and the copyin family for the calling
 * process.  A handler gets the six argument registers and returns the
 * result or a negative errno, which go to rax.
 */
#ifndef SYS_SYSCALL_H
#define SYS_SYSCALL_H

#include <stdint.h>

#include "kern/proc.h"
#include "kern/uio.h"	/* copyin, user_range_ok: every handler's */


typedef long (*sy_call_t)(struct lwp *lp, const uint64_t *args);

/* SYS_read = 0 ... : Linux's numbers, from the table. */
enum sysnum {
#define SYSCALL(nr, name, ...)	SYS_##name = (nr),
#include "sys/syscalls.tbl.h"
#undef SYSCALL
};
#define SYS_MAXSYSCALL	463	/* one past the table's highest number */

/* The handlers: long sys_read(struct lwp *, const uint64_t *args)... */
#define SYSCALL(nr, name, handler, ...)	long handler(struct lwp *, const uint64_t *);
#include "sys/syscalls.tbl.h"
#undef SYSCALL

/*
 * An entry's flags.  The classes are strace's, for --strace=trace=%file.
 * SY_MPSAFE: the call may run without the big kernel lock.  No call has
 * it yet: the dispatcher holds the lock around every call (kernel.h), and
 * the SMP lock split will mark the calls it frees, one by one.
 */
#define SY_FILE		0x0001	/* takes a file name */
#define SY_DESC		0x0002	/* takes or returns a file descriptor */
#define SY_PROC		0x0004	/* process management */
#define SY_SIG		0x0008	/* signals */
#define SY_MEM		0x0010	/* memory mapping */
#define SY_NET		0x0020	/* sockets */
#define SY_IPC		0x0040	/* System V IPC */
#define SY_CREDS	0x0080	/* user and group ids, capabilities */
#define SY_CLOCK	0x0100	/* clocks and timers */
#define SY_NORETURN	0x1000	/* never returns to its caller (exit) */
#define SY_MPSAFE	0x2000	/* runs without the big kernel lock */

/* How the tracer prints a result; RV_FCNTL: as fcntl's command gives it. */
enum { RV_DEC, RV_HEX, RV_OCT, RV_FCNTL };

/*
 * How the tracer prints an argument (sys_trace_args.c).  Kinds named ...IN
 * are read when the call starts, ...OUT when it has returned (and only if
 * it succeeded), as strace does.  ARG(n) adds the index of the argument
 * that holds the size or count the kind needs.
 */
enum argkind {
	AK_HEX,		/* unsigned, %#lx: 0x1f, or 0 */
	AK_INT,		/* int */
	AK_UINT,	/* unsigned int */
	AK_LONG,	/* long */
	AK_ULONG,	/* unsigned long (sizes) */
	AK_OCT,		/* octal: modes and masks */
	AK_PTR,		/* an address or NULL */
	AK_FD,		/* a file descriptor */
	AK_DIRFD,	/* a file descriptor or AT_FDCWD */
	AK_STR,		/* a string (strace's length limit) */
	AK_PATH,	/* a path (whole) */
	AK_OSTR,	/* a string the call fills (getcwd) */
	AK_IBUF,	/* bytes in, ARG(n) long */
	AK_OBUF,	/* bytes out, as many as the call returned */
	AK_OBUFHEX,	/* the same, every byte in hex (getrandom) */
	AK_IOVIN,	/* iovec array in, ARG(n) entries */
	AK_IOVOUT,	/* iovec array out, filled up to the result */
	AK_OPENFLAGS,	/* O_RDONLY|O_CLOEXEC... */
	AK_OFLAGS,	/* the same without the access mode: O_CLOEXEC */
	AK_OPENMODE,	/* the mode, only if flags ARG(n) create a file */
	AK_ATFLAGS,	/* AT_SYMLINK_NOFOLLOW... */
	AK_ACCESS,	/* F_OK, R_OK|W_OK... */
	AK_MODET,	/* S_IFCHR|0620 */
	AK_PROT,	/* PROT_READ|PROT_WRITE */
	AK_MAPFLAGS,	/* MAP_PRIVATE|MAP_ANONYMOUS */
	AK_MADV,	/* MADV_DONTNEED... */
	AK_WHENCE,	/* SEEK_SET... */
	AK_SIG,		/* SIGINT... */
	AK_SIGHOW,	/* SIG_BLOCK... */
	AK_SIGSETIN,	/* [INT TERM] */
	AK_SIGSETOUT,
	AK_SIGACTIN,	/* {sa_handler=..., sa_mask=[], sa_flags=...} */
	AK_SIGACTOUT,
	AK_STATOUT,	/* {st_mode=S_IFREG|0644, st_size=N, ...} */
	AK_STATXOUT,
	AK_TSIN,	/* {tv_sec=1, tv_nsec=0} */
	AK_TSOUT,
	AK_TVIN,	/* {tv_sec=1, tv_usec=0} */
	AK_TVOUT,
	AK_ITVIN,	/* {it_interval=..., it_value=...} */
	AK_ITVOUT,
	AK_ITWHICH,	/* ITIMER_REAL... */
	AK_CLOCK,	/* CLOCK_MONOTONIC... */
	AK_SOCKADDR,	/* {sa_family=AF_INET, ...}, ARG(n) bytes */
	AK_UTSOUT,	/* {sysname="Linux", nodename=..., ...} */
	AK_WSTATUS,	/* [{WIFEXITED(s) && WEXITSTATUS(s) == 0}] */
	AK_WAITOPTS,	/* WNOHANG|WUNTRACED... */
	AK_PIPEFDS,	/* [3, 4] */
	AK_ARGV,	/* ["ls", "/"] */
	AK_ENVP,	/* 0x7ffc... / * 9 vars * / */
	AK_FCNTLCMD,	/* F_SETFD... */
	AK_FCNTLARG,	/* what command ARG(n) takes, if any */
	AK_IOCTLCMD,	/* TCGETS... */
	AK_ARCHPRCTL,	/* ARCH_SET_FS... */
	AK_RLIMRES,	/* RLIMIT_NOFILE... */
	AK_RLIMIN,	/* {rlim_cur=1024, rlim_max=4096} */
	AK_RLIMOUT,
	AK_DIRENTS,	/* getdents64's buffer: 0x... / * 12 entries * / */
	AK_POLLFDS,	/* [{fd=0, events=POLLIN}], ARG(n) entries */
	AK_CLONE,	/* clone's arguments, all printed by the first */
	AK_PRCTL,	/* prctl's, the same, when it returns */
	AK_GRND,	/* GRND_NONBLOCK... */
	AK_IOCTLARG,	/* what ioctl command ARG(n) takes: {c_iflag=...} */
	AK_SOCKDOM,	/* AF_UNIX... */
	AK_SOCKTYPE,	/* SOCK_STREAM|SOCK_CLOEXEC */
	AK_SOCKFLAGS,	/* SOCK_CLOEXEC|SOCK_NONBLOCK (accept4) */
	AK_SOCKADDROUT,	/* an address the call fills, ARG(n) its length's pointer */
	AK_SOCKLENOUT,	/* [110] */
	AK_MSGFLAGS,	/* MSG_PEEK|MSG_DONTWAIT */
	AK_MSGHDRIN,	/* {msg_name=..., msg_iov=[...], msg_control=...} */
	AK_MSGHDROUT,
	AK_SHUTHOW,	/* SHUT_RD... */
	AK_SOCKLEVEL,	/* SOL_SOCKET... */
	AK_SOCKOPT,	/* SO_PASSCRED..., for level ARG(n) */
	AK_ITSIN,	/* {it_interval={tv_sec=0, tv_nsec=0}, it_value=...} */
	AK_ITSOUT,
	AK_EPOLLOP,	/* EPOLL_CTL_ADD... */
	AK_EPOLLEVIN,	/* {events=EPOLLIN|EPOLLET, data=0x5} */
	AK_EPOLLEVOUT,	/* [{events=EPOLLIN, data=0x5}], as many as returned */
	AK_EPFLAGS,	/* EPOLL_CLOEXEC */
	AK_EFDFLAGS,	/* EFD_SEMAPHORE|EFD_NONBLOCK... */
	AK_TFDFLAGS,	/* TFD_NONBLOCK|TFD_CLOEXEC */
	AK_TFDSETFLAGS,	/* TFD_TIMER_ABSTIME... */
	AK_SFDFLAGS,	/* SFD_NONBLOCK|SFD_CLOEXEC */
	AK_INFLAGS,	/* IN_NONBLOCK|IN_CLOEXEC */
	AK_INMASK,	/* IN_CREATE|IN_DELETE... */
	AK_NKINDS
};
#define ARG(n)		((n) << 8)
#define AK_KIND(a)	((a) & 0xff)
#define AK_ARG(a)	((a) >> 8)

struct sysent {
	sy_call_t sy_call;	/* NULL: no call has this number */
	const char *sy_name;
	uint16_t sy_flags;	/* SY_* */
	uint8_t sy_ret;		/* RV_* */
	uint8_t sy_narg;
	uint16_t sy_args[6];	/* AK_* | ARG(n) */
};
extern const struct sysent sysent[SYS_MAXSYSCALL];	/* sys/syscalls.c */

/*
 * The result of a write or truncate for the caller: -EPIPE sends SIGPIPE
 * (-EPIPENOSIG becomes -EPIPE without it),
 * -EXFSZ (past RLIMIT_FSIZE) sends SIGXFSZ and becomes -EFBIG.
 */
long syscall_write_result(struct lwp *lp, long r);

/* A user-space uio over one buffer of the calling process (sys_io.c). */
void uio_user1(struct uio *uio, struct kiovec *iov, struct lwp *lp,
    uint64_t buf, uint64_t len, enum uio_rw rw);

/*
 * A user-space uio over a user iovec array of cnt entries: -EINVAL for
 * a bad count or a total past SSIZE_MAX, -EFAULT for a bad array.  The
 * caller kfrees *iovp after success.
 */
int uio_userv(struct uio *uio, struct kiovec **iovp, struct lwp *lp,
    uint64_t uiov, uint64_t cnt, enum uio_rw rw);

/* Runs the system call in lp's registers and puts its result in rax. */
void syscall_dispatch(struct lwp *lp);

/*
 * The signal mask of a wait (sys_file.c: pselect6, ppoll, epoll_pwait).
 * wait_sigmask sets lp's mask to the caller's set at umask, of size
 * bytes (umask 0: it stays); the old one is in *old.  0, -EFAULT,
 * -EINVAL.  wait_sigmask_done, after the wait that returned r: if a
 * signal ended it (-ERESTARTNOHAND), the handler runs with the wait's
 * mask and the old one comes back after it; otherwise it comes back now.
 */
int wait_sigmask(struct lwp *lp, uint64_t umask, uint64_t size, ksigset_t *old);
void wait_sigmask_done(struct lwp *lp, long r, ksigset_t old);

/*
 * The prctl options on capabilities (sys_cap.c, for sys_prctl):
 * PR_GET_KEEPCAPS, PR_SET_KEEPCAPS, PR_CAPBSET_READ and PR_CAPBSET_DROP
 * (which needs CAP_SETPCAP), PR_GET_SECUREBITS and PR_SET_SECUREBITS
 * (keep-caps only), PR_CAP_AMBIENT (the ambient set is always empty),
 * with Linux's checks; -EINVAL for another.
 */
long prctl_caps(struct proc *p, const uint64_t *args);

/*
 * System-call patching (sys_patch.c).  syspatch_syscall: a call that came
 * by the signal path; patches its site if it can (before the call runs).
 * syspatch_enter: a patched call (SYSCALL_ABI_PATCHED) becomes the call
 * its site makes, 0; or -1 with SIGSEGV sent; or 1, the thread sent to
 * its site's own syscall instruction (a call the trampoline does not
 * make, from musl's site), no call to make now.  syspatch_fault: a page
 * fault of a thread caught halfway into a patched site, or restarting a
 * patched call, sent back to it; false if the fault is no such thing.
 */
void syspatch_syscall(struct lwp *lp);
int syspatch_enter(struct lwp *lp);
bool syspatch_fault(struct lwp *lp);
/*
 * A thread stopped on the near page's entry (sys_patch.c), before its
 * jump through the table: its rip goes back to the run site whose jump
 * led there, the same next step, so that no address of ours shows in a
 * signal frame or to a tracer.
 */
void syspatch_near(struct lwp *lp);
extern uint64_t syspatch_count;

#endif /* SYS_SYSCALL_H */
