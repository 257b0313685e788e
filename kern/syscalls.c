/*
 * The system-call table: Linux x86-64 numbers to handlers.  A number
 * without a handler returns -ENOSYS (kern_syscall.c).
 */
#include <sys/syscall.h>

#include "kern/syscall.h"

#define S(name)	[SYS_##name] = sys_##name

SYSCALL(getpid); SYSCALL(gettid); SYSCALL(getppid);
SYSCALL(getuid); SYSCALL(geteuid); SYSCALL(getgid); SYSCALL(getegid);
SYSCALL(set_tid_address); SYSCALL(arch_prctl); SYSCALL(uname);
SYSCALL(sched_yield); SYSCALL(prlimit64); SYSCALL(getrlimit);
SYSCALL(setrlimit);
SYSCALL(brk); SYSCALL(mmap); SYSCALL(munmap); SYSCALL(mprotect);
SYSCALL(madvise);
SYSCALL(execve); SYSCALL(exit); SYSCALL(exit_group); SYSCALL(wait4);
SYSCALL(fork); SYSCALL(vfork); SYSCALL(clone);
SYSCALL(rt_sigaction); SYSCALL(rt_sigprocmask); SYSCALL(rt_sigpending);
SYSCALL(rt_sigsuspend); SYSCALL(rt_sigreturn); SYSCALL(kill);
SYSCALL(tgkill); SYSCALL(tkill); SYSCALL(sigaltstack);
SYSCALL(read); SYSCALL(write); SYSCALL(readv); SYSCALL(writev);
SYSCALL(open); SYSCALL(openat); SYSCALL(close); SYSCALL(ioctl);
SYSCALL(lseek); SYSCALL(dup); SYSCALL(dup2); SYSCALL(dup3); SYSCALL(fcntl); SYSCALL(fchdir);
SYSCALL(fchmod); SYSCALL(fchown); SYSCALL(ftruncate); SYSCALL(umask); SYSCALL(fstat); SYSCALL(newfstatat);
SYSCALL(stat); SYSCALL(lstat); SYSCALL(statx); SYSCALL(getdents64); SYSCALL(mkdirat); SYSCALL(mkdir);
SYSCALL(unlinkat); SYSCALL(unlink); SYSCALL(rmdir); SYSCALL(chdir); SYSCALL(chroot); SYSCALL(mknodat);
SYSCALL(mknod); SYSCALL(faccessat); SYSCALL(faccessat2); SYSCALL(access); SYSCALL(fchmodat); SYSCALL(chmod);
SYSCALL(fchownat); SYSCALL(chown); SYSCALL(lchown); SYSCALL(truncate); SYSCALL(renameat2); SYSCALL(renameat);
SYSCALL(rename); SYSCALL(linkat); SYSCALL(link); SYSCALL(symlinkat); SYSCALL(symlink); SYSCALL(readlinkat);
SYSCALL(readlink); SYSCALL(getcwd); SYSCALL(pipe2); SYSCALL(pipe); SYSCALL(poll); SYSCALL(pread64);
SYSCALL(pwrite64);

SYSCALL(clock_gettime); SYSCALL(clock_getres); SYSCALL(gettimeofday); SYSCALL(time); SYSCALL(nanosleep); SYSCALL(clock_nanosleep);
SYSCALL(times); SYSCALL(getrandom); SYSCALL(getpgid); SYSCALL(getpgrp); SYSCALL(getsid); SYSCALL(setsid);
SYSCALL(setpgid); SYSCALL(set_robust_list); SYSCALL(prctl); SYSCALL(sysinfo); SYSCALL(setresuid); SYSCALL(setresgid);
SYSCALL(setreuid); SYSCALL(setregid); SYSCALL(setuid); SYSCALL(setgid); SYSCALL(getresuid); SYSCALL(getresgid);
SYSCALL(getgroups); SYSCALL(setgroups);

SYSCALL(utimensat); SYSCALL(pause); SYSCALL(restart_syscall); SYSCALL(reboot); SYSCALL(waitid);
SYSCALL(setitimer); SYSCALL(getitimer); SYSCALL(alarm);
SYSCALL(select); SYSCALL(pselect6);
SYSCALL(mount); SYSCALL(umount2); SYSCALL(statfs); SYSCALL(fstatfs);
SYSCALL(fsync); SYSCALL(fdatasync); SYSCALL(sync); SYSCALL(syncfs);
SYSCALL(getrusage);
SYSCALL(creat);
SYSCALL(preadv);
SYSCALL(pwritev);
SYSCALL(preadv2);
SYSCALL(pwritev2);
SYSCALL(getpriority);
SYSCALL(setpriority);
SYSCALL(sched_getaffinity);
SYSCALL(sched_setaffinity);
SYSCALL(syslog);
SYSCALL(ppoll);
SYSCALL(flock);
SYSCALL(sendfile);
SYSCALL(ioprio_get);
SYSCALL(ioprio_set);

const sy_call_t sysent[SYS_MAXSYSCALL] = {
	S(getpid), S(gettid), S(getppid),
	S(getuid), S(geteuid), S(getgid), S(getegid),
	S(set_tid_address), S(arch_prctl), S(uname),
	S(sched_yield), S(prlimit64), S(getrlimit), S(setrlimit),
	S(brk), S(mmap), S(munmap), S(mprotect), S(madvise),
	S(execve), S(exit), S(exit_group), S(wait4),
	S(fork), S(vfork), S(clone),
	S(rt_sigaction), S(rt_sigprocmask), S(rt_sigpending),
	S(rt_sigsuspend), S(rt_sigreturn), S(kill), S(tgkill), S(tkill),
	S(sigaltstack),
	S(read), S(write), S(readv), S(writev),
	S(open), S(openat), S(close), S(ioctl),
	S(lseek), S(dup), S(dup2), S(dup3), S(fcntl), S(fchdir),
	S(fchmod), S(fchown), S(ftruncate), S(umask), S(fstat), S(newfstatat),
	S(stat), S(lstat), S(statx), S(getdents64), S(mkdirat), S(mkdir),
	S(unlinkat), S(unlink), S(rmdir), S(chdir), S(chroot), S(mknodat),
	S(mknod), S(faccessat), S(faccessat2), S(access), S(fchmodat), S(chmod),
	S(fchownat), S(chown), S(lchown), S(truncate), S(renameat2), S(renameat),
	S(rename), S(linkat), S(link), S(symlinkat), S(symlink), S(readlinkat),
	S(readlink), S(getcwd), S(pipe2), S(pipe), S(poll), S(pread64),
	S(pwrite64),
	S(clock_gettime), S(clock_getres), S(gettimeofday), S(time), S(nanosleep), S(clock_nanosleep),
	S(times), S(getrandom), S(getpgid), S(getpgrp), S(getsid), S(setsid),
	S(setpgid), S(set_robust_list), S(prctl), S(sysinfo), S(setresuid), S(setresgid),
	S(setreuid), S(setregid), S(setuid), S(setgid), S(getresuid), S(getresgid),
	S(getgroups), S(setgroups),
	S(utimensat), S(pause), S(restart_syscall), S(reboot), S(waitid),
	S(setitimer), S(getitimer), S(alarm),
	S(select), S(pselect6),
	S(mount), S(umount2), S(statfs), S(fstatfs),
	S(fsync), S(fdatasync), S(sync), S(syncfs),
	S(getrusage),
	S(creat),
	S(preadv),
	S(pwritev),
	S(preadv2),
	S(pwritev2),
	S(getpriority),
	S(setpriority),
	S(sched_getaffinity),
	S(sched_setaffinity),
	S(syslog),
	S(ppoll),
	S(flock),
	S(sendfile),
	S(ioprio_get),
	S(ioprio_set),
};
