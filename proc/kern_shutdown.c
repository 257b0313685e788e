/*
 * Shutdown, the one way down for every cause: PID 1 exits, a process
 * calls reboot(2) (which kills PID 1), or the host sends SIGTERM (which
 * kills PID 1 too).  PID 1's exit runs it in PID 1's kernel thread, which
 * can still sleep: every other process is killed and waited for, so that
 * no file is in use, the file systems are unmounted (writing back what a
 * disk file system holds), the buffer cache is written and the disks
 * flushed, and only then do the virtual CPUs halt.
 */
#include <stdarg.h>
#include <stdio.h>
#include <sys/reboot.h>
#include <sys/wait.h>

#include "fs/buf.h"
#include "fs/vfs.h"
#include "fs/vnode.h"
#include "host/hostlog.h"
#include "kern/init.h"
#include "kern/interrupt.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "proc/fork_stat.h"

#define SHUTDOWN_GRACE_NS	(5ULL * 1000000000)	/* for the killed to exit */

static int shutdown_status = -1;	/* what vkernel exits with */
static bool reboot_requested;
static bool restart_requested;		/* reboot(2) RB_AUTOBOOT */

int
kern_shutdown_status(void)
{
	return shutdown_status;
}

bool
kern_shutdown_restart(void)
{
	return restart_requested;
}

static void
shutdown_kill(struct proc *p, void *arg)
{
	int *alive = arg;
	if (p == curproc || p->p_state != PRS_NORMAL)
		return;
	psignal_proc(p, SIGKILL);
	(*alive)++;
}

/* One line of the fork counters on standard error (host_log ends it). */
static void __attribute__((format(printf, 1, 2)))
forkstat_log(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0 && (size_t)n < sizeof(line) && line[n - 1] == '\n')
		line[n - 1] = '\0';
	host_log("%s", line);
}

void
kern_shutdown(int xstat)
{
	if (!reboot_requested)
		shutdown_status = xstat;
	uint64_t deadline = nanouptime() + SHUTDOWN_GRACE_NS;
	for (;;) {
		int alive = 0;
		proc_foreach(shutdown_kill, &alive);
		if (alive == 0)
			break;
		if (nanouptime() >= deadline) {
			kprintf("shutdown: %d processes would not die\n", alive);
			break;
		}
		/* Each exit wakes its parent, and the orphans' parent is us. */
		tsleep(curproc, 0, "shutdn", 10 * 1000000);
	}
	if (forkstat_enabled())
		forkstat_print(forkstat_log, NULL);
	vfs_unmountall();
	vfs_shutdown();		/* whatever would not go is at least synced */
	int error = bio_shutdown();
	if (error < 0)
		kprintf("shutdown: some blocks were not written (%d)\n", error);
	sched_halt();
}

/* SIGTERM or SIGHUP to the vkernel process: PID 1 is killed. */
static void
shutdown_signal(int sig)
{
	kprintf("vkernel: %s: shutting down\n",
	    sig == SIGTERM ? "SIGTERM" : "SIGHUP");
	if (initproc != NULL)
		psignal_proc(initproc, SIGKILL);
}

void
shutdown_signals_init(void)
{
	intr_signal_establish(SIGTERM, shutdown_signal);
	intr_signal_establish(SIGHUP, shutdown_signal);
}

void
shutdown_request(bool restart)
{
	if (!reboot_requested && initproc != NULL) {
		reboot_requested = true;
		restart_requested = restart;
		shutdown_status = W_EXITCODE(0, 0);
		psignal_proc(initproc, SIGKILL);
	}
}

void
kern_reboot(bool restart)
{
	shutdown_request(restart);
	exit1(W_EXITCODE(0, 0));
}
