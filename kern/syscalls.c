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
};
