/*
 * x/FMT ADDR[,COUNT]: memory of the vkernel process, as DragonFly's ddb
 * examines it.  FMT is [N][size][display]: size b (1 byte), h (2), l
 * (4, the default) or g (8); display x (hex, the default), d (signed),
 * u (unsigned), o (octal), c (characters) or s (a string).  N or COUNT
 * units are shown, 1 by default.  Every read goes through db_read: an
 * address nothing maps prints an error, never a fault.
 */
#include <ctype.h>
#include <stdlib.h>

#include "ddb/ddb.h"
#include "kern/kernel.h"

#define DB_X_MAX	1024	/* units at most per command */
#define DB_X_LINE	16	/* bytes per line */

static void
db_examine_string(uintptr_t addr, long count)
{
	for (long i = 0; i < count; i++) {
		char c;
		db_printsym(addr);
		if (db_read(&c, addr, 1) < 0) {
			db_printf(": cannot read 0x%lx\n", (unsigned long)addr);
			return;
		}
		db_printf(": \"");
		for (int n = 0; n < 256; n++, addr++) {
			if (db_read(&c, addr, 1) < 0) {
				db_printf("\" (cannot read 0x%lx)\n", (unsigned long)addr);
				return;
			}
			if (c == '\0')
				break;
			db_printf(isprint((unsigned char)c) ? "%c" : "\\x%02x",
			    (unsigned char)c);
		}
		db_printf("\"\n");
		addr++;
	}
}

void
db_examine(int argc, char **argv)
{
	const char *fmt = argv[0][1] == '/' ? argv[0] + 2 : "";
	long count = 0;
	int size = 4;
	char disp = 'x';
	uintptr_t addr;

	for (; *fmt != '\0'; fmt++) {
		if (isdigit((unsigned char)*fmt))
			count = count * 10 + (*fmt - '0');
		else if (strchr("bhlg", *fmt) != NULL)
			size = *fmt == 'b' ? 1 : *fmt == 'h' ? 2 : *fmt == 'l' ? 4 : 8;
		else if (strchr("xduocs", *fmt) != NULL)
			disp = *fmt;
		else {
			db_printf("x/%s: unknown format letter '%c'\n", argv[0] + 2, *fmt);
			return;
		}
		if (count > DB_X_MAX)
			count = DB_X_MAX;
	}
	if (argc < 2) {
		db_printf("usage: x/FMT ADDR[,COUNT]\n");
		return;
	}
	char *comma = strchr(argv[1], ',');
	if (comma != NULL) {
		*comma = '\0';
		if (!db_number(comma + 1, &count))
			return;
	}
	if (!db_addr(argv[1], &addr))
		return;
	if (count <= 0)
		count = 1;
	if (count > DB_X_MAX)
		count = DB_X_MAX;
	if (disp == 's') {
		db_examine_string(addr, count);
		return;
	}
	if (disp == 'c')
		size = 1;
	int perline = DB_X_LINE / size;
	for (long i = 0; i < count; i++, addr += (uintptr_t)size) {
		uint64_t v = 0;
		if (i % perline == 0) {
			if (i != 0)
				db_printf("\n");
			db_printsym(addr);
			db_printf(":");
		}
		if (db_read(&v, addr, (size_t)size) < 0) {
			db_printf(" cannot read 0x%lx\n", (unsigned long)addr);
			return;
		}
		int64_t sv = size == 1 ? (int8_t)v : size == 2 ? (int16_t)v :
		    size == 4 ? (int32_t)v : (int64_t)v;
		switch (disp) {
		case 'x':
			db_printf(" %0*lx", size * 2, (unsigned long)v);
			break;
		case 'd':
			db_printf(" %ld", (long)sv);
			break;
		case 'u':
			db_printf(" %lu", (unsigned long)v);
			break;
		case 'o':
			db_printf(" %lo", (unsigned long)v);
			break;
		case 'c':
			db_printf(isprint((int)v) ? " %c" : " \\x%02x", (int)v);
			break;
		}
	}
	db_printf("\n");
}
