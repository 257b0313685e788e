/*
 * ddb's entry and its command loop (see ddb.h).
 *
 * Entering stops the world: the other virtual CPUs are kicked and park
 * on the big lock, which the entering CPU holds (sched_stop_cpus); the
 * guests they ran see their run end as at any tick.  Nothing is sent to
 * a guest, no sleep is cut short and no timer is touched, so a guest
 * sees of the visit only the time that passed: a sleep whose deadline
 * passed meanwhile ends when the machine goes on, as if the host had
 * not run it for a while.
 */
#include <stdio.h>
#include <string.h>

#include "ddb/ddb.h"
#include "dev/console.h"
#include "host/cpu.h"
#include "host/hostdbg.h"
#include "kern/init.h"
#include "kern/kernel.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "kern/thread.h"

#define DB_STOP_NS	(2ULL * 1000000000)	/* for the other CPUs to park */
#define DB_MAXARGS	8

static bool db_active;
static bool db_leave;
static const char *db_panicstr;

static void db_help(int argc, char **argv);

static void
db_continue(int argc, char **argv)
{
	(void)argc, (void)argv;
	db_leave = true;
}

/*
 * Reboots as reboot(2) does: init is killed, the disks are flushed, and
 * the vkernel executes itself again with the same arguments.
 */
static void
db_reboot(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (db_panicstr != NULL || initproc == NULL) {
		db_printf("the machine cannot go down in order: use panic\n");
		return;
	}
	db_printf("rebooting once you continue (init killed, disks flushed)\n");
	shutdown_request(true);
	db_leave = true;
}

static void
db_panic(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (db_panicstr != NULL) {	/* the panic goes on when we leave */
		db_leave = true;
		return;
	}
	panic("from the debugger");
}

static const struct db_command db_commands[] = {
	{ "help", db_help, "", "this list" },
	{ "ps", db_ps, "", "processes and threads: state, wait channel, CPU" },
	{ "trace", db_trace, "[TID|0xTHREAD]",
	    "kernel stack of a thread (default: this CPU's)" },
	{ "x", db_examine, "/FMT ADDR[,COUNT]",
	    "examine memory: FMT [N][bhlg][xduocs], e.g. x/4gx ADDR" },
	{ "continue", db_continue, "", "leave the debugger (also c)" },
	{ "c", db_continue, NULL, NULL },
	{ "reboot", db_reboot, "", "reboot: the vkernel starts again (kills init)" },
	{ "panic", db_panic, "", "panic: message, backtrace, exit status 99" },
	{ NULL, NULL, NULL, NULL },
};

static const struct db_command db_show_commands[] = {
	{ "proc", db_show_proc, "PID", "a process, its threads and registers" },
	{ "thread", db_show_thread, "TID|0xTHREAD", "a kernel thread" },
	{ "map", db_show_map, "PID", "vm_map entries: range, protection, object" },
	{ "pte", db_show_pte, "PID ADDR",
	    "vpagetable walk, every level, A and M bits" },
	{ "page", db_show_page, "PA", "the vm_page of a physical address" },
	{ "vnode", db_show_vnode, "0xVNODE", "a vnode" },
	{ "mount", db_show_mount, "", "mounted file systems" },
	{ "buf", db_show_buf, "[0xBUF]", "buffer cache (or one buffer)" },
	{ "intr", db_show_intr, "", "interrupt handlers, pending bits" },
	{ "cpu", db_show_cpu, "", "virtual CPUs" },
	{ "log", db_show_log, "", "the kernel message buffer" },
	{ "forkstat", db_show_forkstat, "",
	    "where forks' time goes (VKERNEL_FORKSTAT)" },
	{ NULL, NULL, NULL, NULL },
};

static void
db_help(int argc, char **argv)
{
	(void)argc, (void)argv;
	for (const struct db_command *c = db_commands; c->name != NULL; c++)
		if (c->help != NULL)
			db_printf("%-8s %-18s %s\n", c->name, c->args, c->help);
	for (const struct db_command *c = db_show_commands; c->name != NULL; c++)
		db_printf("show %-6s %-15s %s\n", c->name, c->args, c->help);
}

static const struct db_command *
db_lookup(const struct db_command *table, const char *name)
{
	for (const struct db_command *c = table; c->name != NULL; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* Splits line into words and runs the command they name. */
static void
db_execute(char *line)
{
	char *argv[DB_MAXARGS + 1];
	int argc = 0;

	for (char *w = strtok(line, " \t"); w != NULL && argc < DB_MAXARGS;
	    w = strtok(NULL, " \t"))
		argv[argc++] = w;
	argv[argc] = NULL;
	if (argc == 0)
		return;
	/* x/FMT: the format is glued to the command's name. */
	if (argv[0][0] == 'x' && (argv[0][1] == '/' || argv[0][1] == '\0')) {
		db_examine(argc, argv);
		return;
	}
	const struct db_command *c;
	if (strcmp(argv[0], "show") == 0) {
		if (argc < 2 || (c = db_lookup(db_show_commands, argv[1])) == NULL) {
			db_printf("show what? (help lists them)\n");
			return;
		}
		c->fn(argc - 1, argv + 1);
		return;
	}
	if ((c = db_lookup(db_commands, argv[0])) == NULL) {
		db_printf("%s: no such command (help lists them)\n", argv[0]);
		return;
	}
	c->fn(argc, argv);
}

/* kdb_hook: with the big lock held on this CPU (unless a panic did not). */
static void
ddb_trap(const char *why, const char *panicstr)
{
	char line[256];

	if (db_active || (panicstr != NULL && !cn_interactive()))
		return;
	db_active = true;
	db_leave = false;
	db_panicstr = panicstr;
	int running = kernel_locked() ? sched_stop_cpus(DB_STOP_NS) : -1;
	uint64_t t0 = nanouptime();

	db_printf("\n[ ddb: %s ]\n", why);
	if (panicstr != NULL) {
		db_printf("panic: %s\n", panicstr);
		kdb_backtrace((uintptr_t)__builtin_frame_address(0), 0,
		    db_trace_line, NULL);
	}
	if (running > 0)
		db_printf("other CPUs that did not stop: %d\n", running);
	else if (running < 0)
		db_printf("the big lock is not ours: the other CPUs run on\n");
	else if (cpu_count() > 1)
		db_printf("other CPUs stopped: %d\n", cpu_count() - 1);
	struct thread *td = curthread;
	if (td != NULL)
		db_printf("cpu %d, thread %p (%s)\n", db_thread_cpu(td),
		    (void *)td, td->td_name);
	while (!db_leave) {
		if (db_readline("db> ", line, sizeof(line)) < 0) {
			db_printf("\nend of input: continuing\n");
			break;
		}
		db_execute(line);
	}
	if (running >= 0)
		sched_resume_cpus();
	uint64_t t = nanouptime() - t0;
	db_printf("[ ddb: left after %lu.%03lu s ]\n",
	    (unsigned long)(t / 1000000000), (unsigned long)(t / 1000000 % 1000));
	db_panicstr = NULL;
	db_active = false;
}

void
ddb_init(void)
{
	host_symbols_init();
	kdb_hook = ddb_trap;
}
