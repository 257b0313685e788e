/*
 * trace: a kernel thread's stack, by the frame pointers (kdb_backtrace).
 *
 * Where the walk starts: this CPU's thread, here; a thread off every
 * CPU, at the frame cpu_switch saved on its stack (td_sp: r15 r14 r13
 * r12 rbx rbp, then the return address into thread_switch); the thread
 * of another CPU, stopped with the world, at the frame where that CPU
 * waits for the big lock.
 */
#include "ddb/ddb.h"
#include "host/cpu.h"
#include "kern/thread.h"

#define SWITCH_RBP	5	/* words into the switch frame */
#define SWITCH_RIP	6

void
db_trace_line(void *arg, const char *line)
{
	(void)arg;
	db_printf("%s\n", line);
}

static void
db_trace_thread(struct thread *td)
{
	if (td == curthread) {
		kdb_backtrace((uintptr_t)__builtin_frame_address(0), 0,
		    db_trace_line, NULL);
		return;
	}
	if (td->td_state == TDS_RUNNING) {
		for (int i = 0; i < cpu_count(); i++) {
			struct sched_cpuinfo ci;
			sched_cpu_info(i, &ci);
			if (ci.ci_curthread != td)
				continue;
			if (ci.ci_parkfp == 0) {
				db_printf("running on cpu %d, which did not stop\n", i);
				return;
			}
			db_printf("on cpu %d, stopped waiting for the big lock:\n", i);
			kdb_backtrace(ci.ci_parkfp, 0, db_trace_line, NULL);
			return;
		}
		db_printf("running, but on no CPU?\n");
		return;
	}
	if (td->td_state == TDS_DEAD) {
		db_printf("dead\n");
		return;
	}
	uint64_t frame[SWITCH_RIP + 1];
	if (db_read(frame, td->td_sp, sizeof(frame)) < 0) {
		db_printf("saved sp %#lx cannot be read\n", (unsigned long)td->td_sp);
		return;
	}
	kdb_backtrace(frame[SWITCH_RBP], frame[SWITCH_RIP], db_trace_line, NULL);
}

void
db_trace(int argc, char **argv)
{
	struct thread *td = argc > 1 ? db_find_thread(argv[1]) : curthread;

	if (td == NULL) {
		if (argc <= 1)
			db_printf("no thread on this CPU\n");
		return;
	}
	db_printf("thread %p %s (%s)\n", (void *)td, td->td_name, db_thread_state(td));
	db_trace_thread(td);
}
