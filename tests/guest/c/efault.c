/*
 * Hostile pointers: every pointer argument of the system calls the kernel
 * implements, given addresses the process may not touch, gives what Linux
 * gives (EFAULT nearly always), and the process lives on.  Each line shows
 * one argument tried with each kind of bad address:
 *   low    (void *)1, in the never-mapped first page
 *   none   inside a PROT_NONE page
 *   edge   the last byte before that page (objects straddle into it;
 *          strings there have no NUL before it)
 *   hole   0x7ffffffff000, the last user page, never mapped
 *   ncan   1 << 47, the first non-canonical address
 *   kern   0xffff800000000000, the kernel half
 *   wrap   (void *)-8, where address + length wraps around
 * Raw syscall() throughout, so no libc check or vDSO gets in the way.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/select.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ARCH_GET_FS	0x1003
#define PR_SET_NAME	15
#define PR_GET_NAME	16
#ifndef STATX_BASIC_STATS
#define STATX_BASIC_STATS 0x7ff
#endif

static char *self;
static void *bad[7];
static const char *badname[7] = { "low", "none", "edge", "hole", "ncan", "kern", "wrap" };
#define NBAD 7
static char *rwpage;		/* read-write page just below the PROT_NONE one */

static const char *
ename(int e)
{
	static char buf[32];
	switch (e) {
	case EFAULT: return "EFAULT";
	case ENOENT: return "ENOENT";
	case EINVAL: return "EINVAL";
	case EBADF: return "EBADF";
	case EAGAIN: return "EAGAIN";
	case ENOSYS: return "ENOSYS";
	case EACCES: return "EACCES";
	case EPERM: return "EPERM";
	case ENOEXEC: return "ENOEXEC";
	case ECHILD: return "ECHILD";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case ENOTDIR: return "ENOTDIR";
	case EEXIST: return "EEXIST";
	case ERANGE: return "ERANGE";
	case ENOTTY: return "ENOTTY";
	case EINTR: return "EINTR";
	case ENOMEM: return "ENOMEM";
	case E2BIG: return "E2BIG";
	}
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

/* The bytes before the PROT_NONE page are never a NUL (calls may write there). */
static void
refill(void)
{
	memset(rwpage + 4096 - 64, 'a', 64);
}

/* A result: the errno's name, or "=N" for success. */
static const char *
res(long r)
{
	static char buf[32];
	if (r == -1)
		return ename(errno);
	snprintf(buf, sizeof(buf), "=%ld", r);
	return buf;
}

/* Runs EXPR once for each bad address B and prints the results on one line. */
#define TRY(label, expr) do {						\
	printf("%-22s", label);						\
	for (int i_ = 0; i_ < NBAD; i_++) {				\
		void *B = bad[i_];					\
		(void)B;						\
		refill();						\
		errno = 0;						\
		long r_ = (long)(expr);					\
		printf(" %s", res(r_));					\
	}								\
	printf("\n");							\
} while (0)

/* One call, one result. */
#define ONE(label, expr) do {						\
	refill();							\
	errno = 0;							\
	long r_ = (long)(expr);						\
	printf("%-22s %s\n", label, res(r_));				\
} while (0)

static void
report(const char *what, int status)
{
	if (WIFEXITED(status))
		printf("%-22s exited %d\n", what, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%-22s killed by %d\n", what, WTERMSIG(status));
	else
		printf("%-22s status %#x\n", what, status);
}

static void
files(void)
{
	int pfd[2];
	if (pipe2(pfd, O_NONBLOCK) < 0)
		return;
	int f = open("f", O_RDWR | O_CREAT | O_TRUNC, 0644);
	char blk[8192];
	memset(blk, 'z', sizeof(blk));
	write(f, blk, sizeof(blk));
	mkdir("d", 0755);
	symlink("f", "sl");
	int dfd = open("d", O_RDONLY | O_DIRECTORY);
	struct stat st;
	char buf[256];

	printf("%-22s", "");
	for (int i = 0; i < NBAD; i++)
		printf(" %s", badname[i]);
	printf("\n");

	write(pfd[1], "x", 1);
	TRY("read pipe", syscall(SYS_read, pfd[0], B, 10));
	ONE("read pipe after", syscall(SYS_read, pfd[0], buf, 10));
	TRY("read file", syscall(SYS_pread64, f, B, 10, 0));
	TRY("write pipe", syscall(SYS_write, pfd[1], B, 10));
	TRY("write file", syscall(SYS_pwrite64, f, B, 10, 0));
	ONE("pipe still empty", syscall(SYS_read, pfd[0], buf, 10));

	struct iovec iov[2] = { { buf, 4 }, { buf, 4 } };
	TRY("readv iovec", syscall(SYS_readv, f, B, 2));
	TRY("writev iovec", syscall(SYS_writev, pfd[1], B, 2));
	TRY("readv iov_base", (iov[0].iov_base = B, lseek(f, 0, SEEK_SET),
	    syscall(SYS_readv, f, iov, 1)));
	TRY("writev iov_base", (iov[0].iov_base = B,
	    syscall(SYS_writev, pfd[1], iov, 1)));

	TRY("open", syscall(SYS_open, B, O_RDONLY));
	TRY("open O_CREAT", syscall(SYS_open, B, O_WRONLY | O_CREAT, 0644));
	TRY("openat", syscall(SYS_openat, AT_FDCWD, B, O_RDONLY));
	TRY("stat path", syscall(SYS_stat, B, &st));
	TRY("stat buf", syscall(SYS_stat, "f", B));
	TRY("lstat path", syscall(SYS_lstat, B, &st));
	TRY("lstat buf", syscall(SYS_lstat, "sl", B));
	TRY("fstat buf", syscall(SYS_fstat, f, B));
	TRY("newfstatat path", syscall(SYS_newfstatat, AT_FDCWD, B, &st, 0));
	TRY("newfstatat buf", syscall(SYS_newfstatat, AT_FDCWD, "f", B, 0));
	TRY("statx path", syscall(SYS_statx, AT_FDCWD, B, 0, STATX_BASIC_STATS, buf));
	TRY("statx buf", syscall(SYS_statx, AT_FDCWD, "f", 0, STATX_BASIC_STATS, B));
	TRY("getdents64", (lseek(dfd, 0, SEEK_SET), syscall(SYS_getdents64, dfd, B, 4096)));
	TRY("getcwd", syscall(SYS_getcwd, B, 4096));
	TRY("readlink path", syscall(SYS_readlink, B, buf, sizeof(buf)));
	TRY("readlink buf", syscall(SYS_readlink, "sl", B, sizeof(buf)));
	TRY("readlinkat path", syscall(SYS_readlinkat, AT_FDCWD, B, buf, sizeof(buf)));
	TRY("rename from", syscall(SYS_rename, B, "g"));
	TRY("rename to", syscall(SYS_rename, "f", B));
	TRY("renameat from", syscall(SYS_renameat, AT_FDCWD, B, AT_FDCWD, "g"));
	TRY("renameat to", syscall(SYS_renameat, AT_FDCWD, "f", AT_FDCWD, B));
	TRY("renameat2 from", syscall(SYS_renameat2, AT_FDCWD, B, AT_FDCWD, "g", 0));
	TRY("renameat2 to", syscall(SYS_renameat2, AT_FDCWD, "f", AT_FDCWD, B, 0));
	TRY("link from", syscall(SYS_link, B, "g"));
	TRY("link to", syscall(SYS_link, "f", B));
	TRY("linkat to", syscall(SYS_linkat, AT_FDCWD, "f", AT_FDCWD, B, 0));
	TRY("symlink target", syscall(SYS_symlink, B, "g"));
	TRY("symlink name", syscall(SYS_symlink, "f", B));
	TRY("symlinkat name", syscall(SYS_symlinkat, "f", AT_FDCWD, B));
	TRY("mkdir", syscall(SYS_mkdir, B, 0755));
	TRY("mkdirat", syscall(SYS_mkdirat, AT_FDCWD, B, 0755));
	TRY("mknod", syscall(SYS_mknod, B, S_IFIFO | 0644, 0));
	TRY("mknodat", syscall(SYS_mknodat, AT_FDCWD, B, S_IFIFO | 0644, 0));
	TRY("unlink", syscall(SYS_unlink, B));
	TRY("unlinkat", syscall(SYS_unlinkat, AT_FDCWD, B, 0));
	TRY("rmdir", syscall(SYS_rmdir, B));
	TRY("chdir", syscall(SYS_chdir, B));
	TRY("chroot", syscall(SYS_chroot, B));
	TRY("access", syscall(SYS_access, B, F_OK));
	TRY("faccessat", syscall(SYS_faccessat, AT_FDCWD, B, F_OK));
	TRY("faccessat2", syscall(SYS_faccessat2, AT_FDCWD, B, F_OK, 0));
	TRY("chmod", syscall(SYS_chmod, B, 0644));
	TRY("fchmodat", syscall(SYS_fchmodat, AT_FDCWD, B, 0644));
	TRY("chown", syscall(SYS_chown, B, 0, 0));
	TRY("lchown", syscall(SYS_lchown, B, 0, 0));
	TRY("fchownat", syscall(SYS_fchownat, AT_FDCWD, B, 0, 0, 0));
	TRY("truncate", syscall(SYS_truncate, B, 0));
	TRY("utimensat path", syscall(SYS_utimensat, AT_FDCWD, B, NULL, 0));
	TRY("utimensat times", syscall(SYS_utimensat, AT_FDCWD, "f", B, 0));
	TRY("pipe", syscall(SYS_pipe, B));
	TRY("pipe2", syscall(SYS_pipe2, B, 0));
	TRY("poll", syscall(SYS_poll, B, 1, 0));
	TRY("ioctl FIONREAD", syscall(SYS_ioctl, pfd[0], FIONREAD, B));
	struct timeval tv0 = { 0, 0 };
	TRY("select fds", syscall(SYS_select, 1, B, NULL, NULL, &tv0));
	TRY("select timeout", syscall(SYS_select, 0, NULL, NULL, NULL, B));
	/* pselect6's last argument points to { sigset pointer, size }. */
	struct timespec ts0 = { 0, 0 };
	uint64_t mask = 0;
	struct { void *set; size_t size; } sm = { &mask, 8 };
	TRY("pselect6 fds", syscall(SYS_pselect6, 1, B, NULL, NULL, &ts0, NULL));
	TRY("pselect6 timeout", syscall(SYS_pselect6, 0, NULL, NULL, NULL, B, NULL));
	TRY("pselect6 sigmask arg", syscall(SYS_pselect6, 0, NULL, NULL, NULL, &ts0, B));
	TRY("pselect6 sigmask set", (sm.set = B, syscall(SYS_pselect6, 0, NULL, NULL,
	    NULL, &ts0, &sm)));

	/* Nothing above may have changed the files. */
	ONE("f still there", syscall(SYS_stat, "f", &st));
	printf("%-22s %ld\n", "f size", (long)st.st_size);
	ONE("readlink sl", syscall(SYS_readlink, "sl", buf, sizeof(buf)));
	close(f);
	close(dfd);
	close(pfd[0]);
	close(pfd[1]);
}

static void
partial(void)
{
	int f = open("p", O_RDWR | O_CREAT | O_TRUNC, 0644);
	char blk[8192];
	memset(blk, 'q', sizeof(blk));
	write(f, blk, sizeof(blk));
	char *end = rwpage + 4096;	/* the PROT_NONE page starts here */
	char buf[64];

	/* Buffers that run from good memory into bad. */
	ONE("pread runs into none", syscall(SYS_pread64, f, end - 100, 200, 0));
	ONE("pwrite runs into none", syscall(SYS_pwrite64, f, end - 100, 200, 0));
	/* A good vector then a bad one: Linux checks the bases against the
	 * user range first, then transfers until the fault. */
	struct iovec iov[2] = { { buf, 10 }, { (void *)1, 10 } };
	ONE("readv 2nd low", (lseek(f, 0, SEEK_SET), syscall(SYS_readv, f, iov, 2)));
	ONE("writev 2nd low", (lseek(f, 0, SEEK_SET), syscall(SYS_writev, f, iov, 2)));
	iov[1].iov_base = bad[5];
	ONE("readv 2nd kern", (lseek(f, 0, SEEK_SET), syscall(SYS_readv, f, iov, 2)));
	ONE("writev 2nd kern", (lseek(f, 0, SEEK_SET), syscall(SYS_writev, f, iov, 2)));
	/* Lengths that wrap or reach past user space. */
	ONE("read huge len", syscall(SYS_pread64, f, buf, 1UL << 62, 0));
	ONE("write huge len", syscall(SYS_pwrite64, f, buf, 1UL << 62, 0));
	/* Strings that end exactly at the bad page, and ones that do not end. */
	ONE("path ends at edge", (strcpy(end - 9, "nonexist"),
	    syscall(SYS_open, end - 9, O_RDONLY)));
	ONE("path runs into none", syscall(SYS_open, end - 9, O_RDONLY));
	char *longp = malloc(8192);
	memset(longp, 'a', 8191);
	longp[8191] = 0;
	ONE("path 8191 bytes", syscall(SYS_open, longp, O_RDONLY));
	longp[300] = 0;
	ONE("component 300 bytes", syscall(SYS_open, longp, O_RDONLY));
	free(longp);
	ONE("getcwd 2 at edge", syscall(SYS_getcwd, end - 2, 100));
	ONE("getcwd size 1", syscall(SYS_getcwd, buf, 1));
	close(f);
	unlink("p");
}

/* Memory calls given addresses outside user space or lengths that wrap. */
static void
vm(void)
{
	const int rw = PROT_READ | PROT_WRITE, fl = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
	static const struct { const char *name; uint64_t addr, len; } r[] = {
		{ "hole", 0x7ffffffff000UL, 4096 },
		{ "ncan", 1UL << 47, 4096 },
		{ "kern", 0xffff800000000000UL, 4096 },
		{ "top", 0xfffffffffffff000UL, 4096 },
		{ "wrap", 0xfffffffffffff000UL, 8192 },
		{ "huge", 0x10000, 1UL << 62 },
	};
	char label[40];
	for (unsigned i = 0; i < sizeof(r) / sizeof(r[0]); i++) {
		void *a = (void *)r[i].addr;
		printf("%-5s", r[i].name);
		errno = 0;
		long m = (long)mmap(a, r[i].len, rw, fl | MAP_FIXED_NOREPLACE, -1, 0);
		printf(" mmap:%s", m == (long)MAP_FAILED ? ename(errno) : m == (long)a ? "same" : "moved");
		errno = 0;
		m = (long)mmap(a, r[i].len, rw, fl, -1, 0);
		printf(" fixed:%s", m == (long)MAP_FAILED ? ename(errno) : m == (long)a ? "same" : "moved");
		errno = 0;
		m = (long)mmap(a, r[i].len, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		printf(" hint:%s", m == (long)MAP_FAILED ? ename(errno) : m == (long)a ? "same" : "moved");
		if (m != (long)MAP_FAILED && m != (long)a)
			munmap((void *)m, r[i].len);
		snprintf(label, sizeof(label), " munmap:%s", res(syscall(SYS_munmap, a, r[i].len)));
		printf("%s", label);
		printf(" mprotect:%s", res(syscall(SYS_mprotect, a, r[i].len, PROT_READ)));
		/* (Linux would zap every mapping in a huge range, then say ENOMEM.) */
		if (r[i].len < (1UL << 40))
			printf(" madvise:%s", res(syscall(SYS_madvise, a, r[i].len, MADV_DONTNEED)));
		printf("\n");
	}
	ONE("mmap len 0", (long)mmap(NULL, 0, rw, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0));
	ONE("munmap unaligned", syscall(SYS_munmap, rwpage + 1, 4096));
	ONE("mprotect unaligned", syscall(SYS_mprotect, rwpage + 1, 4096, PROT_READ));
	long cur = syscall(SYS_brk, 0);
	long nb = syscall(SYS_brk, 0xffff800000000000UL);
	printf("%-22s %s\n", "brk kern unchanged", nb == cur ? "yes" : "no");
	nb = syscall(SYS_brk, 1UL << 47);
	printf("%-22s %s\n", "brk ncan unchanged", nb == cur ? "yes" : "no");
	nb = syscall(SYS_brk, 1);
	printf("%-22s %s\n", "brk low unchanged", nb == cur ? "yes" : "no");
}

static void
procs(void)
{
	int status;
	pid_t pid;

	/* wait4: Linux reaps the child first, then fails to store. */
	printf("%-22s", "wait4 status");
	for (int i = 0; i < NBAD; i++) {
		if ((pid = fork()) == 0)
			_exit(3);
		errno = 0;
		long r = syscall(SYS_wait4, pid, bad[i], 0, NULL);
		printf(" %s", r == pid ? "=pid" : res(r));
		errno = 0;
		r = syscall(SYS_wait4, pid, NULL, WNOHANG, NULL);
		printf("/%s", r == pid ? "=pid" : res(r));
	}
	printf("\n");
	printf("%-22s", "wait4 rusage");
	for (int i = 0; i < NBAD; i++) {
		if ((pid = fork()) == 0)
			_exit(3);
		errno = 0;
		long r = syscall(SYS_wait4, pid, &status, 0, bad[i]);
		printf(" %s", r == pid ? "=pid" : res(r));
		errno = 0;
		r = syscall(SYS_wait4, pid, NULL, WNOHANG, NULL);
		printf("/%s", r == pid ? "=pid" : res(r));
	}
	printf("\n");

	/* execve, in a child in case one succeeds. */
	fflush(stdout);
	if ((pid = fork()) == 0) {
		char *argv[] = { self, "executed", NULL };
		char *envp[] = { "A=1", NULL };
		char *badv[2] = { NULL, NULL };
		TRY("execve path", syscall(SYS_execve, B, argv, envp));
		TRY("execve argv", syscall(SYS_execve, self, B, envp));
		TRY("execve argv[0]", (badv[0] = B, syscall(SYS_execve, self, badv, envp)));
		TRY("execve envp", syscall(SYS_execve, self, argv, B));
		TRY("execve envp[0]", (badv[0] = B, syscall(SYS_execve, self, argv, badv)));
		char *argv2[] = { self, "executed", NULL, NULL };
		TRY("execve argv[2]", (argv2[2] = B, syscall(SYS_execve, self, argv2, envp)));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, &status, 0);
	report("execve child", status);

	/* set_tid_address: the kernel clears the word at exit; a bad one is ignored. */
	printf("%-22s", "set_tid_address+exit");
	for (int i = 0; i < NBAD; i++) {
		if ((pid = fork()) == 0) {
			long tid = syscall(SYS_set_tid_address, bad[i]);
			_exit(tid == syscall(SYS_gettid) ? 5 : 6);
		}
		waitpid(pid, &status, 0);
		printf(" %s", WIFEXITED(status) ? WEXITSTATUS(status) == 5 ? "exit5" : "exit?" :
		    WIFSIGNALED(status) ? "killed" : "?");
	}
	printf("\n");

	/* clone: the tid stores are best effort, as on Linux. */
	static const struct { const char *name; unsigned long flags; int arg; } cl[] = {
		{ "clone PARENT_SETTID", CLONE_PARENT_SETTID, 2 },
		{ "clone CHILD_SETTID", CLONE_CHILD_SETTID, 3 },
		{ "clone CHILD_CLEARTID", CLONE_CHILD_CLEARTID, 3 },
	};
	for (unsigned c = 0; c < sizeof(cl) / sizeof(cl[0]); c++) {
		printf("%-22s", cl[c].name);
		for (int i = 0; i < NBAD; i++) {
			fflush(stdout);
			errno = 0;
			long r = syscall(SYS_clone, cl[c].flags | SIGCHLD, 0,
			    cl[c].arg == 2 ? bad[i] : NULL, cl[c].arg == 3 ? bad[i] : NULL, 0);
			if (r == 0)
				_exit(7);
			if (r < 0) {
				printf(" %s", res(r));
				continue;
			}
			waitpid((pid_t)r, &status, 0);
			printf(" %s", WIFEXITED(status) && WEXITSTATUS(status) == 7 ? "exit7" :
			    WIFSIGNALED(status) ? "killed" : "?");
		}
		printf("\n");
	}
	TRY("set_robust_list", syscall(SYS_set_robust_list, B, 24));
}

static volatile int got_usr1;

static void
usr1(int sig)
{
	(void)sig;
	got_usr1++;
}

/* musl's __restore_rt, which a raw rt_sigaction needs as the restorer. */
__asm__(".text\n.type restorer,@function\nrestorer:\n\tmov $15, %eax\n\tsyscall\n");
void restorer(void);

static void
sigs(void)
{
	struct ksigaction {
		void *handler;
		unsigned long flags;
		void *restorer;
		unsigned long mask;
	} ka = { SIG_IGN, 0, NULL, 0 }, ko;
	uint64_t set = 0;

	TRY("rt_sigaction act", syscall(SYS_rt_sigaction, SIGUSR1, B, NULL, 8));
	TRY("rt_sigaction oldact", syscall(SYS_rt_sigaction, SIGUSR1, NULL, B, 8));
	/* Linux installs the new action before failing to store the old one. */
	ONE("sigaction new+badold", syscall(SYS_rt_sigaction, SIGUSR1, &ka, bad[0], 8));
	syscall(SYS_rt_sigaction, SIGUSR1, NULL, &ko, 8);
	printf("%-22s %s\n", "SIGUSR1 ignored now", ko.handler == SIG_IGN ? "yes" : "no");
	ka.handler = SIG_DFL;
	syscall(SYS_rt_sigaction, SIGUSR1, &ka, NULL, 8);

	TRY("rt_sigprocmask set", syscall(SYS_rt_sigprocmask, SIG_BLOCK, B, NULL, 8));
	TRY("rt_sigprocmask old", syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, B, 8));
	set = 1UL << (SIGUSR2 - 1);
	ONE("sigprocmask new+badold", syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, bad[0], 8));
	uint64_t cur = 0;
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &cur, 8);
	printf("%-22s %s\n", "SIGUSR2 blocked now", cur & set ? "yes" : "no");
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, 8);
	TRY("rt_sigpending", syscall(SYS_rt_sigpending, B, 8));
	/* SIGUSR1 pending and blocked: a suspend that wrongly went ahead
	 * would take it at once (EINTR) rather than sleep forever. */
	struct ksigaction kh = { (void *)usr1, 0x04000000 /* SA_RESTORER */, restorer, 0 };
	syscall(SYS_rt_sigaction, SIGUSR1, &kh, NULL, 8);
	set = 1UL << (SIGUSR1 - 1);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &set, NULL, 8);
	TRY("rt_sigsuspend", (kill(getpid(), SIGUSR1), syscall(SYS_rt_sigsuspend, B, 8)));
	printf("%-22s %d\n", "handler ran", got_usr1);
	syscall(SYS_rt_sigprocmask, SIG_UNBLOCK, &set, NULL, 8);
	printf("%-22s %d\n", "then handler ran", got_usr1);
	kh.handler = SIG_DFL;
	syscall(SYS_rt_sigaction, SIGUSR1, &kh, NULL, 8);
	TRY("sigaltstack new", syscall(SYS_sigaltstack, B, NULL));
	TRY("sigaltstack old", syscall(SYS_sigaltstack, NULL, B));
}

static void
misc(void)
{
	struct timespec tiny = { 0, 1000 };
	struct rlimit rl;
	uint64_t fsbase;

	TRY("uname", syscall(SYS_uname, B));
	TRY("sysinfo", syscall(SYS_sysinfo, B));
	TRY("clock_gettime", syscall(SYS_clock_gettime, CLOCK_MONOTONIC, B));
	TRY("clock_getres", syscall(SYS_clock_getres, CLOCK_MONOTONIC, B));
	TRY("clock_nanosleep req", syscall(SYS_clock_nanosleep, CLOCK_MONOTONIC, 0, B, NULL));
	TRY("nanosleep req", syscall(SYS_nanosleep, B, NULL));
	TRY("nanosleep rem", syscall(SYS_nanosleep, &tiny, B));
	TRY("gettimeofday tv", syscall(SYS_gettimeofday, B, NULL));
	TRY("gettimeofday tz", syscall(SYS_gettimeofday, NULL, B));
	TRY("time", syscall(SYS_time, B) == -1 ? -1 : 0);
	TRY("times", syscall(SYS_times, B) == -1 ? -1 : 0);
	TRY("getitimer", syscall(SYS_getitimer, ITIMER_REAL, B));
	TRY("setitimer", syscall(SYS_setitimer, ITIMER_REAL, B, NULL));
	TRY("prlimit64 new", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, B, NULL));
	TRY("prlimit64 old", syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, B));
	TRY("getrlimit", syscall(SYS_getrlimit, RLIMIT_NOFILE, B));
	TRY("setrlimit", syscall(SYS_setrlimit, RLIMIT_NOFILE, B));
	getrlimit(RLIMIT_NOFILE, &rl);
	printf("%-22s %s\n", "nofile limit sane", rl.rlim_cur > 0 && rl.rlim_cur <= rl.rlim_max ? "yes" : "no");
	TRY("getrandom", syscall(SYS_getrandom, B, 16, 0));
	TRY("getresuid", syscall(SYS_getresuid, B, B, B));
	TRY("getresgid", syscall(SYS_getresgid, B, B, B));
	gid_t g0 = 0;
	syscall(SYS_setgroups, 1, &g0);		/* root: one group to store */
	TRY("getgroups", syscall(SYS_getgroups, 1, B));
	TRY("setgroups", syscall(SYS_setgroups, 1, B));
	TRY("arch_prctl GET_FS", syscall(SYS_arch_prctl, ARCH_GET_FS, B));
	syscall(SYS_arch_prctl, ARCH_GET_FS, &fsbase);
	printf("%-22s %s\n", "fs base intact", fsbase != 0 ? "yes" : "no");
	TRY("prctl SET_NAME", syscall(SYS_prctl, PR_SET_NAME, B, 0, 0, 0));
	TRY("prctl GET_NAME", syscall(SYS_prctl, PR_GET_NAME, B, 0, 0, 0));
}

int
main(int argc, char **argv)
{
	if (argc > 1) {		/* an execve that should have failed did not */
		printf("EXECUTED %s\n", argv[1]);
		return 0;
	}
	self = argv[0];
	setvbuf(stdout, NULL, _IOLBF, 0);
	char *pages = mmap(NULL, 2 * 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pages == MAP_FAILED || mprotect(pages + 4096, 4096, PROT_NONE) < 0)
		return 1;
	rwpage = pages;
	memset(pages, 'a', 4096);
	bad[0] = (void *)1;
	bad[1] = pages + 4096 + 64;
	bad[2] = pages + 4096 - 1;
	bad[3] = (void *)0x7ffffffff000UL;
	bad[4] = (void *)(1UL << 47);
	bad[5] = (void *)0xffff800000000000UL;
	bad[6] = (void *)-8L;

	int fd0 = dup(0);
	close(fd0);
	files();
	partial();
	vm();
	procs();
	sigs();
	misc();
	int fd1 = dup(0);
	close(fd1);
	printf("descriptors leaked: %s\n", fd1 == fd0 ? "no" : "yes");
	unlink("f");
	unlink("sl");
	rmdir("d");
	printf("survived\n");
	return 0;
}
