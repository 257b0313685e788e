/*
 * System-call numbers as Linux's do_syscall_64 reads them: the low 32
 * bits of rax as an int.  High bits are ignored (0x100000000 | getpid is
 * getpid); a negative int, -1 included, is ENOSYS; so is the x32 bit on
 * a host without x32 (and vkernel has none).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

static long
raw(unsigned long nr)
{
	long r;
	__asm__ volatile ("syscall" : "=a"(r) : "a"(nr) : "rcx", "r11", "memory");
	return r;
}

int
main(void)
{
	static const struct { const char *what; unsigned long nr; } c[] = {
		{ "getpid", SYS_getpid },
		{ "1 << 32 | getpid", 1UL << 32 | SYS_getpid },
		{ "0xffffffff << 32 | getpid", 0xffffffff00000000UL | SYS_getpid },
		{ "1 << 31 | getpid", 1UL << 31 | SYS_getpid },
		{ "x32 bit | getpid", 0x40000000UL | SYS_getpid },
		{ "-1", ~0UL },
		{ "0xffffffff", 0xffffffffUL },
		{ "INT_MAX", 0x7fffffffUL },
	};
	long pid = getpid();

	for (unsigned i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		long r = raw(c[i].nr);
		printf("%-28s %s\n", c[i].what, r == pid ? "getpid" :
		    r < 0 && r > -4096 ? strerror((int)-r) : "other");
	}
	return 0;
}
