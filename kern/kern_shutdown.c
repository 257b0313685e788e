/*
 * Shutdown, the one way down for every cause: PID 1 exits, a process
 * calls reboot(2) (which kills PID 1), or the host sends SIGTERM (which
 * kills PID 1 too).  PID 1's exit runs it in PID 1's kernel thread, which
 * can still sleep: every other process is killed and waited for, so that
 * no file is in use, the file systems are unmounted (writing back what a
 * disk file system holds), the buffer cache is written and the disks
 * flushed, and only then do the virtual CPUs halt.
 */
#include <sys/reboot.h>
#include <sys/wait.h>

#include "fs/buf.h"
#include "fs/vfs.h"
#include "fs/vnode.h"
#include "kern/init.h"
#include "kern/proc.h"
#include "kern/signal.h"
#include "sys/syscall.h"
#include "kern/thread.h"
#include "kern/ucred.h"

#define SHUTDOWN_GRACE_NS	(5ULL * 1000000000)	/* for the killed to exit */

static int shutdown_status = -1;	/* what vkernel exits with */
static bool reboot_requested;

int
kern_shutdown_status(void)
{
	return shutdown_status;
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
	vfs_unmountall();
	vfs_shutdown();		/* whatever would not go is at least synced */
	int error = bio_shutdown();
	if (error < 0)
		kprintf("shutdown: some blocks were not written (%d)\n", error);
	sched_halt();
}

/*
 * reboot(2).  Halting, powering off and restarting all stop the virtual
 * machine and vkernel exits with 0: restarting it is the host's business.
 */
long
sys_reboot(struct lwp *lp, const uint64_t *args)
{
	if ((uint32_t)args[0] != 0xfee1dead ||
	    ((uint32_t)args[1] != 672274793 && (uint32_t)args[1] != 85072278 &&
	    (uint32_t)args[1] != 369367448 && (uint32_t)args[1] != 537993216))
		return -EINVAL;
	if (lp->lwp_proc->p_ucred->cr_uid != 0)
		return -EPERM;
	const char *what;
	switch ((uint32_t)args[2]) {
	case RB_ENABLE_CAD:
	case RB_DISABLE_CAD:
		return 0;	/* the console has no Ctrl-Alt-Del to trap */
	case RB_HALT_SYSTEM:	what = "halt"; break;
	case RB_POWER_OFF:	what = "power off"; break;
	case RB_AUTOBOOT:
	case 0xa1b2c3d4:	/* LINUX_REBOOT_CMD_RESTART2 */
		what = "restart";
		break;
	default:
		return -EINVAL;	/* suspend, kexec: not for a virtual kernel */
	}
	kprintf("reboot(2) by pid %d (%s): %s\n", lp->lwp_proc->p_pid,
	    lp->lwp_proc->p_comm, what);
	if (!reboot_requested) {
		reboot_requested = true;
		shutdown_status = W_EXITCODE(0, 0);
		psignal_proc(initproc, SIGKILL);
	}
	exit1(W_EXITCODE(0, 0));
}
