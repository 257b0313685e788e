/*
 * show cpu, show intr, show log: the virtual CPUs, interrupt dispatch,
 * and the kernel's message buffer.
 */
#include <signal.h>
#include <string.h>

#include "ddb/ddb.h"
#include "host/cpu.h"
#include "kern/interrupt.h"
#include "kern/kernel.h"
#include "kern/msgbuf.h"
#include "kern/thread.h"
#include "proc/fork_stat.h"
#include "sys/syscall.h"

static const char *const intr_names[] = { "tick", "kick", "device", "halt",
    "signal", "disk", "vmspace" };

static void
db_intr_bits(uint32_t bits)
{
	if (bits == 0)
		db_printf(" none");
	for (unsigned b = 0; b < 32; b++)
		if (bits & (1u << b))
			db_printf(" %s", b < nitems(intr_names) ? intr_names[b] : "?");
}

void
db_show_cpu(int argc, char **argv)
{
	static const char *const states[] = { "user", "sys", "idle", "steal" };

	(void)argc, (void)argv;
	for (int i = 0; i < cpu_count(); i++) {
		struct sched_cpuinfo ci;
		sched_cpu_info(i, &ci);
		if (ci.ci_cpu == NULL)
			continue;
		struct thread *td = ci.ci_curthread;
		db_printf("cpu %d: host tid %d, core %d (guests on %d), %s, %s\n", i,
		    (int)ci.ci_cpu->tid, ci.ci_cpu->host_core, ci.ci_cpu->stub_core,
		    ci.ci_self ? "in the debugger" : ci.ci_parkfp != 0 ? "stopped" :
		    "not stopped", (unsigned)ci.ci_state < 4 ? states[ci.ci_state] : "?");
		db_printf("  thread %p %s, ticks %lu, pending",
		    (void *)td, td != NULL ? td->td_name : "-",
		    (unsigned long)__atomic_load_n(&ci.ci_cpu->ticks, __ATOMIC_RELAXED));
		db_intr_bits(cpu_pending(ci.ci_cpu));
		db_printf("\n  ms user %lu sys %lu idle %lu steal %lu\n",
		    (unsigned long)(ci.ci_time[CP_USER] / 1000000),
		    (unsigned long)(ci.ci_time[CP_SYS] / 1000000),
		    (unsigned long)(ci.ci_time[CP_IDLE] / 1000000),
		    (unsigned long)(ci.ci_time[CP_STEAL] / 1000000));
	}
}

void
db_show_intr(int argc, char **argv)
{
	uint32_t bit;
	intr_handler_t *fn;
	void *arg;

	(void)argc, (void)argv;
	db_printf("handlers:\n");
	for (int i = 0; intr_handler(i, &bit, &fn, &arg) == 0; i++) {
		db_printf(" ");
		db_intr_bits(bit);
		db_printf(": ");
		db_printsym((uintptr_t)fn);
		db_printf("(%p)\n", arg);
	}
	db_printf("the vkernel's signals:\n");
	for (int sig = 1; sig < 64; sig++) {
		void (*h)(int) = intr_signal_handler(sig);
		if (h == NULL)
			continue;
		db_printf("  SIG%s: ", sigabbrev_np(sig) != NULL ? sigabbrev_np(sig) : "?");
		db_printsym((uintptr_t)h);
		db_printf("\n");
	}
	db_printf("pending:\n");
	for (int i = 0; i < cpu_count(); i++) {
		db_printf("  cpu %d:", i);
		db_intr_bits(cpu_pending(cpu_get(i)));
		db_printf("\n");
	}
}

/*
 * The message buffer (kern/msgbuf.h), oldest record first, each line as
 * syslog(2) gives it ("<level>[time] text").  msgbuf_get takes its own spin lock, never the big
 * lock, so this works with every CPU stopped.
 */
void
db_show_log(int argc, char **argv)
{
	static struct msgrec r;
	static char line[MSG_TEXT_MAX + 64];

	(void)argc, (void)argv;
	uint64_t seq = msgbuf_first_seq();
	if (seq == msgbuf_next_seq()) {
		db_printf("(the message buffer is empty)\n");
		return;
	}
	while (msgbuf_get(seq, &r) == 0) {
		size_t n = msgrec_syslog(&r, line, sizeof(line));
		db_printf("%.*s", (int)MIN(n, sizeof(line) - 1), line);
		seq = r.mr_seq + 1;
	}
}

static const char *
db_sysname(long nr)
{
	return nr >= 0 && nr < SYS_MAXSYSCALL ? sysent[nr].sy_name : NULL;
}

/* The fork counters (proc/fork_stat.h), if VKERNEL_FORKSTAT is set. */
void
db_show_forkstat(int argc, char **argv)
{
	(void)argc, (void)argv;
	if (!forkstat_enabled()) {
		db_printf("the fork counters are off: start the vkernel with "
		    "VKERNEL_FORKSTAT=1 in its environment\n");
		return;
	}
	forkstat_print(db_printf, db_sysname);
}
