/*
 * sysdoc: prints docs/syscalls.md, the list of Linux x86-64 system calls
 * and which of them vkernel implements, from sys/syscalls.tbl.h.
 * make docs/syscalls.md writes it; the system test syscalls_doc.t fails
 * when the committed one is stale.
 */
#include <stdio.h>
#include <string.h>

struct entry {
	int nr;
	const char *name, *handler, *args;
};

static const struct entry table[] = {
#define SYSCALL(nr, name, handler, flags, ret, ...)	{ nr, #name, #handler, #__VA_ARGS__ },
#include "sys/syscalls.tbl.h"
#undef SYSCALL
};

/* The number of arguments: the kinds listed, comma-separated. */
static int
nargs(const char *args)
{
	int n = 0;
	if (*args == '\0')
		return 0;
	for (n = 1; *args != '\0'; args++)
		n += *args == ',';
	return n;
}

int
main(void)
{
	int n = (int)(sizeof(table) / sizeof(table[0])), impl = 0;
	for (int i = 0; i < n; i++)
		impl += strcmp(table[i].handler, "sys_nosys") != 0;

	printf("# System calls\n\n"
	    "Generated from `sys/syscalls.tbl.h` by `make docs/syscalls.md`: do not\n"
	    "edit. `make test` fails when this file is stale.\n\n"
	    "**%d of %d x86-64 system calls implemented.** The list is Linux's\n"
	    "(`arch/x86/entry/syscalls/syscall_64.tbl`, 0..334 and 424..462, as of\n"
	    "Linux 6.10). A call not implemented returns `ENOSYS` and is logged\n"
	    "once (`vkernel -v`); `vkernel --strace` shows each call a program makes.\n\n"
	    "| nr | name | status | args | handler |\n"
	    "|---:|------|--------|-----:|---------|\n", impl, n);
	for (int i = 0; i < n; i++) {
		int yes = strcmp(table[i].handler, "sys_nosys") != 0;
		printf("| %d | %s | %s | %d | %s |\n", table[i].nr, table[i].name,
		    yes ? "implemented" : "ENOSYS", nargs(table[i].args),
		    yes ? table[i].handler : "");
	}
	return 0;
}
