/*
 * reboot(2).  Halting, powering off or restarting all end the vkernel with
 * status 0, the way init's exit does: init is killed, and its exit shuts
 * the machine down (syncing and unmounting the file systems).
 */
#include <signal.h>

#include "kern/init.h"
#include "kern/signal.h"
#include "kern/syscall.h"
#include "kern/ucred.h"

int reboot_status = -1;

#define LINUX_REBOOT_MAGIC1		0xfee1deadu
#define LINUX_REBOOT_CMD_RESTART	0x01234567u
#define LINUX_REBOOT_CMD_HALT		0xcdef0123u
#define LINUX_REBOOT_CMD_CAD_ON		0x89abcdefu
#define LINUX_REBOOT_CMD_CAD_OFF	0x00000000u
#define LINUX_REBOOT_CMD_POWER_OFF	0x4321fedcu
#define LINUX_REBOOT_CMD_RESTART2	0xa1b2c3d4u

SYSCALL(reboot)
{
	static const uint32_t magic2[] = { 672274793, 85072278, 369367448,
	    537993216 };
	uint32_t cmd = (uint32_t)args[2];
	bool ok = false;

	if (lp->lwp_proc->p_ucred->cr_uid != 0)
		return -EPERM;
	for (size_t i = 0; i < nitems(magic2); i++)
		ok |= (uint32_t)args[1] == magic2[i];
	if ((uint32_t)args[0] != LINUX_REBOOT_MAGIC1 || !ok)
		return -EINVAL;
	switch (cmd) {
	case LINUX_REBOOT_CMD_CAD_ON:
	case LINUX_REBOOT_CMD_CAD_OFF:
		return 0;
	case LINUX_REBOOT_CMD_RESTART:
	case LINUX_REBOOT_CMD_RESTART2:
	case LINUX_REBOOT_CMD_HALT:
	case LINUX_REBOOT_CMD_POWER_OFF:
		kprintf("vkernel: reboot(2): shutting down\n");
		reboot_status = 0;
		psignal_proc(initproc, SIGKILL);
		return 0;
	default:
		return -EINVAL;
	}
}
