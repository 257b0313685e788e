/*
 * The tracer's names: flags, commands, signals and errors by value, as
 * strace spells and orders them.  Values are Linux x86-64's.
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/poll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>

#include "kern/kernel.h"
#include "sys/sys_trace_var.h"

#define X(v)	{ (uint64_t)(v), #v }
#define XEND	{ 0, NULL }

const struct xlat xl_open[] = {
	X(O_CREAT), X(O_EXCL), X(O_NOCTTY), X(O_TRUNC), X(O_APPEND),
	X(O_NONBLOCK), X(O_SYNC), X(O_DSYNC), X(O_DIRECT),
	{ 0100000, "O_LARGEFILE" }, X(O_NOFOLLOW), X(O_NOATIME), X(O_CLOEXEC),
	X(O_PATH), X(O_TMPFILE), X(O_DIRECTORY), X(FASYNC), XEND
};
const struct xlat xl_at[] = {
	X(AT_SYMLINK_NOFOLLOW), X(AT_REMOVEDIR), X(AT_SYMLINK_FOLLOW),
	X(AT_NO_AUTOMOUNT), X(AT_EMPTY_PATH), { 0x2000, "AT_STATX_FORCE_SYNC" },
	{ 0x4000, "AT_STATX_DONT_SYNC" }, XEND
};
const struct xlat xl_access[] = { X(R_OK), X(W_OK), X(X_OK), XEND };
const struct xlat xl_prot[] = {
	X(PROT_READ), X(PROT_WRITE), X(PROT_EXEC), { 0x8, "PROT_SEM" },
	X(PROT_GROWSDOWN), X(PROT_GROWSUP), XEND
};
const struct xlat xl_maptype[] = {
	X(MAP_SHARED), X(MAP_PRIVATE), X(MAP_SHARED_VALIDATE), XEND
};
const struct xlat xl_mapflags[] = {
	X(MAP_FIXED), X(MAP_ANONYMOUS), X(MAP_32BIT), X(MAP_NORESERVE),
	X(MAP_POPULATE), X(MAP_NONBLOCK), X(MAP_GROWSDOWN), X(MAP_DENYWRITE),
	X(MAP_EXECUTABLE), X(MAP_LOCKED), X(MAP_STACK), X(MAP_HUGETLB),
	X(MAP_SYNC), { 0x4000000, "MAP_UNINITIALIZED" },
	X(MAP_FIXED_NOREPLACE), XEND
};
const struct xlat xl_madv[] = {
	X(MADV_NORMAL), X(MADV_RANDOM), X(MADV_SEQUENTIAL), X(MADV_WILLNEED),
	X(MADV_DONTNEED), X(MADV_FREE), X(MADV_REMOVE), X(MADV_DONTFORK),
	X(MADV_DOFORK), X(MADV_MERGEABLE), X(MADV_UNMERGEABLE),
	X(MADV_HUGEPAGE), X(MADV_NOHUGEPAGE), X(MADV_DONTDUMP), X(MADV_DODUMP),
	X(MADV_WIPEONFORK), X(MADV_KEEPONFORK), X(MADV_HWPOISON), XEND
};
const struct xlat xl_whence[] = {
	X(SEEK_SET), X(SEEK_CUR), X(SEEK_END), X(SEEK_DATA), X(SEEK_HOLE), XEND
};
const struct xlat xl_sighow[] = {
	X(SIG_BLOCK), X(SIG_UNBLOCK), X(SIG_SETMASK), XEND
};
const struct xlat xl_sa[] = {
	{ 0x04000000, "SA_RESTORER" }, X(SA_ONSTACK), X(SA_RESTART),
	X(SA_NODEFER), X(SA_RESETHAND), X(SA_SIGINFO), X(SA_NOCLDSTOP),
	X(SA_NOCLDWAIT), XEND
};
const struct xlat xl_clock[] = {
	X(CLOCK_REALTIME), X(CLOCK_MONOTONIC), X(CLOCK_PROCESS_CPUTIME_ID),
	X(CLOCK_THREAD_CPUTIME_ID), X(CLOCK_MONOTONIC_RAW),
	X(CLOCK_REALTIME_COARSE), X(CLOCK_MONOTONIC_COARSE), X(CLOCK_BOOTTIME),
	X(CLOCK_REALTIME_ALARM), X(CLOCK_BOOTTIME_ALARM), X(CLOCK_TAI), XEND
};
const struct xlat xl_itimer[] = {
	X(ITIMER_REAL), X(ITIMER_VIRTUAL), X(ITIMER_PROF), XEND
};
const struct xlat xl_wait[] = {
	X(WNOHANG), X(WUNTRACED), X(WEXITED), X(WCONTINUED), X(WNOWAIT),
	X(__WNOTHREAD), X(__WALL), X(__WCLONE), XEND
};
const struct xlat xl_fcntl[] = {
	X(F_DUPFD), X(F_GETFD), X(F_SETFD), X(F_GETFL), X(F_SETFL), X(F_GETLK),
	X(F_SETLK), X(F_SETLKW), X(F_SETOWN), X(F_GETOWN), X(F_SETSIG),
	X(F_GETSIG), X(F_SETOWN_EX), X(F_GETOWN_EX), X(F_OFD_GETLK),
	X(F_OFD_SETLK), X(F_OFD_SETLKW), X(F_SETLEASE), X(F_GETLEASE),
	X(F_NOTIFY), X(F_DUPFD_CLOEXEC), X(F_SETPIPE_SZ), X(F_GETPIPE_SZ),
	X(F_ADD_SEALS), X(F_GET_SEALS), XEND
};
const struct xlat xl_ioctl[] = {
	/* strace names both users of the 'T' numbers 2 to 4 (OSS's too). */
	{ 0x5401, "TCGETS" }, { 0x5402, "SNDCTL_TMR_START or TCSETS" },
	{ 0x5403, "SNDCTL_TMR_STOP or TCSETSW" },
	{ 0x5404, "SNDCTL_TMR_CONTINUE or TCSETSF" }, { 0x540b, "TCFLSH" }, { 0x540e, "TIOCSCTTY" },
	{ 0x540f, "TIOCGPGRP" }, { 0x5410, "TIOCSPGRP" },
	{ 0x5413, "TIOCGWINSZ" }, { 0x5414, "TIOCSWINSZ" },
	{ 0x541b, "FIONREAD" }, { 0x5421, "FIONBIO" }, { 0x5422, "TIOCNOTTY" },
	{ 0x5429, "TIOCGSID" }, { 0x5450, "FIONCLEX" }, { 0x5451, "FIOCLEX" },
	{ 0x5452, "FIOASYNC" }, { 0x1268, "BLKSSZGET" },
	{ 0x80081272, "BLKGETSIZE64" }, { 0x80045430, "TIOCGPTN" },
	{ 0x40045431, "TIOCSPTLCK" }, XEND
};
/* struct termios, in strace's order (c_lflag's is not by value). */
const struct xlat xl_iflag[] = {
	X(IGNBRK), X(BRKINT), X(IGNPAR), X(PARMRK), X(INPCK), X(ISTRIP),
	X(INLCR), X(IGNCR), X(ICRNL), X(IUCLC), X(IXON), X(IXANY), X(IXOFF),
	X(IMAXBEL), X(IUTF8), XEND
};
const struct xlat xl_oflag[] = {
	X(OPOST), X(OLCUC), X(ONLCR), X(OCRNL), X(ONOCR), X(ONLRET), X(OFILL),
	X(OFDEL), XEND
};
/* c_oflag's delay fields, each printed even when 0: NL0|CR0|TAB0... */
const struct xlat xl_nldly[] = { X(NL0), X(NL1), XEND };
const struct xlat xl_crdly[] = { X(CR0), X(CR1), X(CR2), X(CR3), XEND };
const struct xlat xl_tabdly[] = { X(TAB0), X(TAB1), X(TAB2), X(TAB3), XEND };
const struct xlat xl_bsdly[] = { X(BS0), X(BS1), XEND };
const struct xlat xl_vtdly[] = { X(VT0), X(VT1), XEND };
const struct xlat xl_ffdly[] = { X(FF0), X(FF1), XEND };
const struct xlat xl_baud[] = {
	X(B0), X(B50), X(B75), X(B110), X(B134), X(B150), X(B200), X(B300),
	X(B600), X(B1200), X(B1800), X(B2400), X(B4800), X(B9600), X(B19200),
	X(B38400), X(B57600), X(B115200), X(B230400), X(B460800), X(B500000),
	X(B576000), X(B921600), X(B1000000), X(B1152000), X(B1500000),
	X(B2000000), X(B2500000), X(B3000000), X(B3500000), X(B4000000),
	{ 0x1000, "BOTHER" }, XEND
};
const struct xlat xl_cflag[] = {
	X(CSTOPB), X(CREAD), X(PARENB), X(PARODD), X(HUPCL), X(CLOCAL),
	X(CMSPAR), X(CRTSCTS), XEND
};
const struct xlat xl_lflag[] = {
	X(ISIG), X(ICANON), X(XCASE), X(ECHO), X(ECHOE), X(ECHOK), X(ECHONL),
	X(NOFLSH), X(IEXTEN), X(ECHOCTL), X(ECHOPRT), X(ECHOKE), X(FLUSHO),
	X(PENDIN), X(TOSTOP), X(EXTPROC), XEND
};
const struct xlat xl_tcflsh[] = {
	X(TCIFLUSH), X(TCOFLUSH), X(TCIOFLUSH), XEND
};
const struct xlat xl_archprctl[] = {
	{ 0x1001, "ARCH_SET_GS" }, { 0x1002, "ARCH_SET_FS" },
	{ 0x1003, "ARCH_GET_FS" }, { 0x1004, "ARCH_GET_GS" },
	{ 0x1011, "ARCH_GET_CPUID" }, { 0x1012, "ARCH_SET_CPUID" }, XEND
};
const struct xlat xl_rlimit[] = {
	X(RLIMIT_CPU), X(RLIMIT_FSIZE), X(RLIMIT_DATA), X(RLIMIT_STACK),
	X(RLIMIT_CORE), X(RLIMIT_RSS), X(RLIMIT_NPROC), X(RLIMIT_NOFILE),
	X(RLIMIT_MEMLOCK), X(RLIMIT_AS), X(RLIMIT_LOCKS), X(RLIMIT_SIGPENDING),
	X(RLIMIT_MSGQUEUE), X(RLIMIT_NICE), X(RLIMIT_RTPRIO), X(RLIMIT_RTTIME),
	XEND
};
const struct xlat xl_poll[] = {
	X(POLLIN), X(POLLPRI), X(POLLOUT), X(POLLERR), X(POLLHUP), X(POLLNVAL),
	X(POLLRDNORM), X(POLLRDBAND), X(POLLWRNORM), X(POLLWRBAND), X(POLLMSG),
	X(POLLRDHUP), XEND
};
const struct xlat xl_epollop[] = {
	X(EPOLL_CTL_ADD), X(EPOLL_CTL_DEL), X(EPOLL_CTL_MOD), XEND
};
const struct xlat xl_epoll[] = {
	X(EPOLLIN), X(EPOLLPRI), X(EPOLLOUT), X(EPOLLERR), X(EPOLLHUP),
	X(EPOLLRDNORM), X(EPOLLRDBAND), X(EPOLLWRNORM),
	X(EPOLLWRBAND), X(EPOLLMSG), X(EPOLLRDHUP), X(EPOLLEXCLUSIVE),
	X(EPOLLWAKEUP), X(EPOLLONESHOT), X(EPOLLET), XEND
};
const struct xlat xl_epflags[] = { X(EPOLL_CLOEXEC), XEND };
const struct xlat xl_efd[] = {
	X(EFD_SEMAPHORE), X(EFD_NONBLOCK), X(EFD_CLOEXEC), XEND
};
const struct xlat xl_tfd[] = { X(TFD_NONBLOCK), X(TFD_CLOEXEC), XEND };
const struct xlat xl_tfdset[] = {
	X(TFD_TIMER_ABSTIME), X(TFD_TIMER_CANCEL_ON_SET), XEND
};
const struct xlat xl_sfd[] = { X(SFD_NONBLOCK), X(SFD_CLOEXEC), XEND };
const struct xlat xl_inflags[] = { X(IN_NONBLOCK), X(IN_CLOEXEC), XEND };
const struct xlat xl_inmask[] = {
	X(IN_ACCESS), X(IN_MODIFY), X(IN_ATTRIB), X(IN_CLOSE_WRITE),
	X(IN_CLOSE_NOWRITE), X(IN_OPEN), X(IN_MOVED_FROM), X(IN_MOVED_TO),
	X(IN_CREATE), X(IN_DELETE), X(IN_DELETE_SELF), X(IN_MOVE_SELF),
	X(IN_UNMOUNT), X(IN_Q_OVERFLOW), X(IN_IGNORED), X(IN_ONLYDIR),
	X(IN_DONT_FOLLOW), X(IN_EXCL_UNLINK), X(IN_MASK_CREATE),
	X(IN_MASK_ADD), X(IN_ISDIR), X(IN_ONESHOT), XEND
};
const struct xlat xl_clone[] = {
	{ 0x100, "CLONE_VM" }, { 0x200, "CLONE_FS" }, { 0x400, "CLONE_FILES" },
	{ 0x800, "CLONE_SIGHAND" }, { 0x1000, "CLONE_PIDFD" },
	{ 0x2000, "CLONE_PTRACE" }, { 0x4000, "CLONE_VFORK" },
	{ 0x8000, "CLONE_PARENT" }, { 0x10000, "CLONE_THREAD" },
	{ 0x20000, "CLONE_NEWNS" }, { 0x40000, "CLONE_SYSVSEM" },
	{ 0x80000, "CLONE_SETTLS" }, { 0x100000, "CLONE_PARENT_SETTID" },
	{ 0x200000, "CLONE_CHILD_CLEARTID" }, { 0x800000, "CLONE_UNTRACED" },
	{ 0x1000000, "CLONE_CHILD_SETTID" }, { 0x2000000, "CLONE_NEWCGROUP" },
	{ 0x4000000, "CLONE_NEWUTS" }, { 0x8000000, "CLONE_NEWIPC" },
	{ 0x10000000, "CLONE_NEWUSER" }, { 0x20000000, "CLONE_NEWPID" },
	{ 0x40000000, "CLONE_NEWNET" }, { 0x80000000, "CLONE_IO" }, XEND
};
const struct xlat xl_family[] = {
	{ 0, "AF_UNSPEC" }, { 1, "AF_UNIX" }, { 2, "AF_INET" },
	{ 10, "AF_INET6" }, { 16, "AF_NETLINK" }, { 17, "AF_PACKET" }, XEND
};
const struct xlat xl_statx[] = {
	{ 0x7ff, "STATX_BASIC_STATS" }, { 0x800, "STATX_BTIME" },
	{ 0x1000, "STATX_MNT_ID" }, { 0x2000, "STATX_DIOALIGN" }, XEND
};
const struct xlat xl_sicode_chld[] = {
	X(CLD_EXITED), X(CLD_KILLED), X(CLD_DUMPED), X(CLD_TRAPPED),
	X(CLD_STOPPED), X(CLD_CONTINUED), XEND
};
/* The codes of faults, by signal (a kernel code is SI_KERNEL). */
const struct xlat xl_sicode_segv[] = {
	X(SEGV_MAPERR), X(SEGV_ACCERR), X(SI_KERNEL), XEND
};
const struct xlat xl_sicode_bus[] = {
	X(BUS_ADRALN), X(BUS_ADRERR), X(BUS_OBJERR), X(SI_KERNEL), XEND
};
const struct xlat xl_sicode_ill[] = {
	X(ILL_ILLOPC), X(ILL_ILLOPN), X(ILL_ILLADR), X(ILL_ILLTRP),
	X(ILL_PRVOPC), X(ILL_PRVREG), X(ILL_COPROC), X(ILL_BADSTK),
	X(SI_KERNEL), XEND
};
const struct xlat xl_sicode_fpe[] = {
	X(FPE_INTDIV), X(FPE_INTOVF), X(FPE_FLTDIV), X(FPE_FLTOVF),
	X(FPE_FLTUND), X(FPE_FLTRES), X(FPE_FLTINV), X(FPE_FLTSUB),
	X(SI_KERNEL), XEND
};
const struct xlat xl_sicode_trap[] = {
	X(TRAP_BRKPT), X(TRAP_TRACE), X(SI_KERNEL), XEND
};
const struct xlat xl_sicode[] = {
	X(SI_USER), X(SI_KERNEL), X(SI_QUEUE), X(SI_TIMER), X(SI_MESGQ),
	X(SI_ASYNCIO), X(SI_SIGIO), X(SI_TKILL), XEND
};

const struct xlat xl_prctl[] = {
	{ 1, "PR_SET_PDEATHSIG" }, { 2, "PR_GET_PDEATHSIG" },
	{ 3, "PR_GET_DUMPABLE" }, { 4, "PR_SET_DUMPABLE" },
	{ 15, "PR_SET_NAME" }, { 16, "PR_GET_NAME" },
	{ 36, "PR_SET_CHILD_SUBREAPER" }, { 37, "PR_GET_CHILD_SUBREAPER" },
	{ 38, "PR_SET_NO_NEW_PRIVS" }, { 39, "PR_GET_NO_NEW_PRIVS" },
	{ 22, "PR_SET_SECCOMP" }, { 21, "PR_GET_SECCOMP" },
	{ 0x59616d61, "PR_SET_PTRACER" }, XEND
};
const struct xlat xl_grnd[] = {
	{ 1, "GRND_NONBLOCK" }, { 2, "GRND_RANDOM" }, { 4, "GRND_INSECURE" }, XEND
};

static const char *const signames[] = {
	[SIGHUP] = "HUP", [SIGINT] = "INT", [SIGQUIT] = "QUIT",
	[SIGILL] = "ILL", [SIGTRAP] = "TRAP", [SIGABRT] = "ABRT",
	[SIGBUS] = "BUS", [SIGFPE] = "FPE", [SIGKILL] = "KILL",
	[SIGUSR1] = "USR1", [SIGSEGV] = "SEGV", [SIGUSR2] = "USR2",
	[SIGPIPE] = "PIPE", [SIGALRM] = "ALRM", [SIGTERM] = "TERM",
	[SIGSTKFLT] = "STKFLT", [SIGCHLD] = "CHLD", [SIGCONT] = "CONT",
	[SIGSTOP] = "STOP", [SIGTSTP] = "TSTP", [SIGTTIN] = "TTIN",
	[SIGTTOU] = "TTOU", [SIGURG] = "URG", [SIGXCPU] = "XCPU",
	[SIGXFSZ] = "XFSZ", [SIGVTALRM] = "VTALRM", [SIGPROF] = "PROF",
	[SIGWINCH] = "WINCH", [SIGIO] = "IO", [SIGPWR] = "PWR", [SIGSYS] = "SYS",
};

const char *
xlat_name(const struct xlat *x, uint64_t v)
{
	for (; x->name != NULL; x++)
		if (x->val == v)
			return x->name;
	return NULL;
}

void
tb_xlat(struct tbuf *tb, const struct xlat *x, uint64_t v, const char *fmt)
{
	const char *name = xlat_name(x, v);
	if (name != NULL)
		tb_puts(tb, name);
	else
		tb_printf(tb, fmt, v);
}

void
tb_flags(struct tbuf *tb, const struct xlat *x, uint64_t v, const char *zero)
{
	bool any = false;
	if (v == 0) {
		tb_puts(tb, zero != NULL ? zero : "0");
		return;
	}
	/* A name of several bits (O_SYNC) comes before its parts. */
	for (; x->name != NULL; x++) {
		if (x->val != 0 && (v & x->val) == x->val) {
			tb_printf(tb, "%s%s", any ? "|" : "", x->name);
			v &= ~x->val;
			any = true;
		}
	}
	if (v != 0 || !any)
		tb_printf(tb, "%s%#lx", any ? "|" : "", (unsigned long)v);
}

void
tb_signame(struct tbuf *tb, int sig, bool bare)
{
	const char *pre = bare ? "" : "SIG";
	if (sig > 0 && sig < (int)nitems(signames) && signames[sig] != NULL)
		tb_printf(tb, "%s%s", pre, signames[sig]);
	else if (sig == SIGRTMIN_KERNEL)
		tb_printf(tb, "%sRTMIN", pre);
	else if (sig > SIGRTMIN_KERNEL && sig <= LINUX_NSIG)
		tb_printf(tb, "%sRT_%d", pre, sig - SIGRTMIN_KERNEL);
	else
		tb_printf(tb, "%d", sig);
}

void
tb_sigset(struct tbuf *tb, uint64_t set)
{
	const char *sep = "";
	if (__builtin_popcountll(set) > LINUX_NSIG / 2) {
		tb_puts(tb, "~");
		set = ~set;
	}
	tb_puts(tb, "[");
	for (int sig = 1; sig <= LINUX_NSIG; sig++) {
		if (set & SIGBIT(sig)) {
			tb_puts(tb, sep);
			tb_signame(tb, sig, true);
			sep = " ";
		}
	}
	tb_puts(tb, "]");
}

void
tb_errno(struct tbuf *tb, long error)
{
	static const struct {
		long err;
		const char *name, *desc;
	} restart[] = {
		{ ERESTARTSYS, "ERESTARTSYS", "To be restarted if SA_RESTART is set" },
		{ ERESTARTNOINTR, "ERESTARTNOINTR", "To be restarted" },
		{ ERESTARTNOHAND, "ERESTARTNOHAND", "To be restarted if no handler" },
		{ ERESTART_RESTARTBLOCK, "ERESTART_RESTARTBLOCK", "Interrupted by signal" },
	};
	for (size_t i = 0; i < nitems(restart); i++) {
		if (restart[i].err == error) {
			tb_printf(tb, "? %s (%s)", restart[i].name, restart[i].desc);
			return;
		}
	}
	/* Linux's errno values are the host C library's: its names serve. */
	const char *name = strerrorname_np((int)error);
	if (name != NULL)
		tb_printf(tb, "-1 %s (%s)", name, strerrordesc_np((int)error));
	else
		tb_printf(tb, "-1 errno %ld", error);
}

void
tb_mode(struct tbuf *tb, uint32_t mode)
{
	static const struct xlat types[] = {
		X(S_IFREG), X(S_IFDIR), X(S_IFCHR), X(S_IFBLK), X(S_IFIFO),
		X(S_IFLNK), X(S_IFSOCK), XEND
	};
	const char *type = xlat_name(types, mode & S_IFMT);
	if (type != NULL)
		tb_printf(tb, "%s|", type);
	else if (mode & S_IFMT)
		tb_printf(tb, "%#o|", mode & S_IFMT);
	if (mode & S_ISUID)
		tb_puts(tb, "S_ISUID|");
	if (mode & S_ISGID)
		tb_puts(tb, "S_ISGID|");
	if (mode & S_ISVTX)
		tb_puts(tb, "S_ISVTX|");
	tb_printf(tb, "%#03o", mode & 0777);
}
