/*
 * reboot(2): the checks Linux makes; the shutdown is kern_reboot's
 * (proc/kern_shutdown.c).
 */
#include <sys/reboot.h>

#include "kern/init.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "sys/syscall.h"

/*
 * reboot(2).  Halting and powering off stop the virtual machine and
 * vkernel exits with 0; restarting stops it and boots it again, the
 * vkernel executing itself anew with the same arguments.
 */
long
sys_reboot(struct lwp *lp, const uint64_t *args)
{
	if ((uint32_t)args[0] != 0xfee1dead ||
	    ((uint32_t)args[1] != 672274793 && (uint32_t)args[1] != 85072278 &&
	    (uint32_t)args[1] != 369367448 && (uint32_t)args[1] != 537993216))
		return -EINVAL;
	if (!cred_is_root(lp->lwp_proc->p_ucred))
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
	kern_reboot((uint32_t)args[2] == RB_AUTOBOOT ||
	    (uint32_t)args[2] == 0xa1b2c3d4);
}
