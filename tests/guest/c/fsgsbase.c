/*
 * FS and GS bases as Linux keeps them.  wrfsbase/wrgsbase take any
 * canonical address, the upper half too, and a system call must leave
 * it there (vkernel once panicked on the next call); a non-canonical one
 * is a #GP (SIGSEGV).  arch_prctl refuses bases from TASK_SIZE_MAX up
 * with EPERM.  Libc's TLS lives at the FS base, so between the writes
 * and the restore only raw instructions run.
 */
#define ARCH_SET_GS 0x1001
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <unistd.h>

#define UPPER	0xffff800000000000UL
#define TOP	0xfffffffffffff000UL

static sigjmp_buf env;

static void
on_segv(int sig, siginfo_t *si, void *uc)
{
	(void)sig; (void)si; (void)uc;
	siglongjmp(env, 1);
}

static inline long
raw_getpid(void)
{
	long r;
	__asm__ volatile ("syscall" : "=a"(r) : "a"((long)SYS_getpid)
	    : "rcx", "r11", "memory");
	return r;
}

/* Sets the FS base to v, makes a system call, reads it back, restores. */
static uint64_t
fs_through_syscall(uint64_t v, long *pid)
{
	uint64_t saved, got;
	__asm__ volatile ("rdfsbase %0" : "=r"(saved));
	__asm__ volatile ("wrfsbase %0" : : "r"(v));
	*pid = raw_getpid();
	__asm__ volatile ("rdfsbase %0" : "=r"(got));
	__asm__ volatile ("wrfsbase %0" : : "r"(saved));
	return got;
}

static uint64_t
gs_through_syscall(uint64_t v, long *pid)
{
	uint64_t saved, got;
	__asm__ volatile ("rdgsbase %0" : "=r"(saved));
	__asm__ volatile ("wrgsbase %0" : : "r"(v));
	*pid = raw_getpid();
	__asm__ volatile ("rdgsbase %0" : "=r"(got));
	__asm__ volatile ("wrgsbase %0" : : "r"(saved));
	return got;
}

static void
arch_prctl_gs(const char *what, unsigned long v)
{
	errno = 0;
	long r = syscall(SYS_arch_prctl, ARCH_SET_GS, v);
	printf("arch_prctl(SET_GS, %s): %ld %s\n", what, r,
	    r < 0 ? strerror(errno) : "");
	syscall(SYS_arch_prctl, ARCH_SET_GS, 0UL);
}

int
main(void)
{
	struct sigaction sa;
	long pid = getpid(), p;

	arch_prctl_gs("TASK_SIZE_MAX - 1 page", 0x7fffffffe000UL);
	arch_prctl_gs("TASK_SIZE_MAX", 0x7ffffffff000UL);
	arch_prctl_gs("upper half", UPPER);
	if (!(getauxval(AT_HWCAP2) & 2)) {	/* HWCAP2_FSGSBASE */
		printf("no FSGSBASE: skipped\n");
		return 0;
	}
	for (int i = 0; i < 3; i++) {
		static const uint64_t v[] = { UPPER, TOP, 0x7ffffffff000UL };
		uint64_t got = fs_through_syscall(v[i], &p);
		printf("fs %#lx: kept %s, getpid %s\n", (unsigned long)v[i],
		    got == v[i] ? "yes" : "no", p == pid ? "ok" : "wrong");
		got = gs_through_syscall(v[i], &p);
		printf("gs %#lx: kept %s, getpid %s\n", (unsigned long)v[i],
		    got == v[i] ? "yes" : "no", p == pid ? "ok" : "wrong");
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_segv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	if (sigsetjmp(env, 1) == 0) {
		__asm__ volatile ("wrgsbase %0" : : "r"(0x8000000000000000UL));
		printf("non-canonical gs: accepted\n");
	} else {
		printf("non-canonical gs: SIGSEGV\n");
	}
	fflush(stdout);
	return 0;
}
