/*
 * ddb, the in-kernel debugger (after DragonFly's and FreeBSD's): a host
 * SIGINT, the console escape "~^B" at a raw console, -D at boot, or a
 * panic at a terminal stops every virtual CPU and reads commands on the
 * console (docs/ddb.md).  It ranks with boot/ above every layer, since
 * it looks into all of them; the layers reach it only through kdb_hook
 * (kern/kernel.h).
 *
 * Everything here runs on one CPU with the big lock held and the other
 * CPUs parked (sched_stop_cpus), so the kernel's structures hold still
 * while they are printed; memory is read only through db_read, which
 * never faults.
 */
#ifndef DDB_DDB_H
#define DDB_DDB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct proc;
struct thread;

/* Sets kdb_hook and loads the symbols trace prints: at boot. */
void ddb_init(void);

/* Output on the console, straight to the host (dev/console.h: cnputs). */
void db_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Reads a line into buf (at most len - 1 bytes, NUL-terminated) with
 * the prompt shown: backspace and ^U edit, ^C drops the line.  Returns
 * the length, or -1 at the end of input.
 */
int db_readline(const char *prompt, char *buf, int len);

/*
 * Arguments.  db_number parses a decimal number (a pid); db_addr a hex
 * address with or without 0x, or a symbol's name, with an optional
 * "+off".  Both return false, having said why, if s is not one.
 */
bool db_number(const char *s, long *v);
bool db_addr(const char *s, uintptr_t *v);

/*
 * Copies len bytes of this process's memory at addr into dst: 0, or
 * -EFAULT if any of it is not mapped (the host says; nothing faults).
 */
int db_read(void *dst, uintptr_t addr, size_t len);

/* Prints "name+0xoff" for addr, or the bare address. */
void db_printsym(uintptr_t addr);

/* One command: "ps", or "show" and its second word ("show map"). */
struct db_command {
	const char *name;
	void (*fn)(int argc, char **argv);	/* argv[0] is the last name word */
	const char *args;			/* for help */
	const char *help;
};

/* The commands of each file. */
void db_ps(int argc, char **argv);
void db_show_proc(int argc, char **argv);
void db_show_thread(int argc, char **argv);
void db_trace(int argc, char **argv);
void db_show_map(int argc, char **argv);
void db_show_pte(int argc, char **argv);
void db_show_page(int argc, char **argv);
void db_show_vnode(int argc, char **argv);
void db_show_mount(int argc, char **argv);
void db_show_buf(int argc, char **argv);
void db_show_intr(int argc, char **argv);
void db_show_cpu(int argc, char **argv);
void db_show_log(int argc, char **argv);
void db_show_forkstat(int argc, char **argv);
void db_examine(int argc, char **argv);

/* Prints one frame of kdb_backtrace on the console (its pr). */
void db_trace_line(void *arg, const char *line);

/* Shared by ps and trace. */
const char *db_thread_state(const struct thread *td);
struct thread *db_find_thread(const char *arg);
/* The CPU a running thread is on, or -1. */
int db_thread_cpu(const struct thread *td);

#endif /* DDB_DDB_H */
