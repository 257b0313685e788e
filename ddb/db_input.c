/*
 * The debugger's console: output, the command line with its editing,
 * and the parsing of arguments.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "ddb/ddb.h"
#include "dev/console.h"
#include "host/hostdbg.h"
#include "kern/kernel.h"

#define CTRL(c)		((c) & 0x1f)

void
db_printf(const char *fmt, ...)
{
	char buf[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	cnputs(buf);
}

/* Wipes n characters left of the cursor. */
static void
db_rubout(int n)
{
	while (n-- > 0)
		cnputs("\b \b");
}

/*
 * At a raw terminal we echo and edit; a pipe or a cooked terminal
 * (a non-raw console) has done both before the line reaches us.
 */
int
db_readline(const char *prompt, char *buf, int len)
{
	bool echo = cn_interactive();
	int n = 0;

	cnputs(prompt);
	for (;;) {
		int c = cngetc();
		if (c < 0) {
			if (n == 0)
				return -1;
			break;		/* the last line has no newline */
		}
		if (c == '\r' || c == '\n') {
			if (echo)
				cnputs("\n");
			break;
		}
		if (c == '\b' || c == 0x7f) {
			if (n > 0 && echo)
				db_rubout(1);
			n -= n > 0;
			continue;
		}
		if (c == CTRL('u')) {
			if (echo)
				db_rubout(n);
			n = 0;
			continue;
		}
		if (c == CTRL('c')) {
			if (echo)
				cnputs("^C\n");
			n = 0;
			cnputs(prompt);
			continue;
		}
		if (!isprint(c) || n >= len - 1)
			continue;
		buf[n++] = (char)c;
		if (echo) {
			char s[2] = { (char)c, '\0' };
			cnputs(s);
		}
	}
	buf[n] = '\0';
	return n;
}

bool
db_number(const char *s, long *v)
{
	char *end;
	errno = 0;
	long x = strtol(s, &end, 10);
	if (*s == '\0' || *end != '\0' || errno != 0) {
		db_printf("%s: not a number\n", s);
		return false;
	}
	*v = x;
	return true;
}

bool
db_addr(const char *s, uintptr_t *v)
{
	char name[128], *end;
	const char *plus = strchr(s, '+');
	uintptr_t off = 0;

	if (plus != NULL) {
		off = strtoul(plus + 1, &end, 16);
		if (plus[1] == '\0' || *end != '\0') {
			db_printf("%s: bad offset\n", s);
			return false;
		}
	}
	size_t n = plus != NULL ? (size_t)(plus - s) : strlen(s);
	if (n == 0 || n >= sizeof(name)) {
		db_printf("%s: not an address\n", s);
		return false;
	}
	memcpy(name, s, n);
	name[n] = '\0';
	errno = 0;
	uintptr_t x = strtoul(name, &end, 16);
	if (*end != '\0' || errno != 0) {
		x = host_symbol_addr(name);
		if (x == 0) {
			db_printf("%s: no such symbol\n", name);
			return false;
		}
	}
	*v = x + off;
	return true;
}

int
db_read(void *dst, uintptr_t addr, size_t len)
{
	return host_peek(dst, addr, len);
}

void
db_printsym(uintptr_t addr)
{
	uintptr_t off;
	const char *name = host_symbol(addr, &off);
	if (name != NULL && off == 0)
		db_printf("%s", name);
	else if (name != NULL)
		db_printf("%s+0x%lx", name, (unsigned long)off);
	else
		db_printf("0x%lx", (unsigned long)addr);
}
