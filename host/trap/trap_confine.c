/*
 * What a stub may keep of the vkernel's process.  The stub is exec'd
 * from the vkernel (as root, often), and the guest runs inside it: its
 * filter stops every host call the guest makes, but should a hole ever
 * open, the stub must have nothing worth taking.  So before the exec it
 * loses the terminal (fds 0-2), every capability (effective, permitted,
 * inheritable, ambient, and the bounding set, so that exec as root
 * cannot give them back), and the right to gain privileges; its stack
 * limit shrinks to what exec needs, since the stub leaves that stack at
 * start and unmaps it (stub.c).
 *
 * Not done: PR_SET_DUMPABLE 0.  It would hide the stub's
 * /proc/PID/task/PID/syscall from a vkernel that is not root, and the
 * audit (trap_audit.c) reads it; RLIMIT_CORE 0 already keeps cores away.
 */
#include <errno.h>
#include <linux/capability.h>
#include <linux/close_range.h>
#include <linux/securebits.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/trap/trap.h"

/* exec's own minimum for arguments is 128 KiB; the stub's are a few bytes. */
#define STUB_STACK_LIMIT	(128UL << 10)

/* Drops every capability; 0, or -1 if one is left. */
static int
confine_caps(void)
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct none[_LINUX_CAPABILITY_U32S_3] = { { 0, 0, 0 } };

	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0 &&
	    errno != EINVAL)	/* EINVAL: a host before ambient sets */
		return -1;
	/* Without CAP_SETPCAP (not root) these fail; there is nothing to lose. */
	for (int cap = 0; cap < 64; cap++)
		if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) < 0 && errno == EINVAL)
			break;		/* past the host's last capability */
	(void)prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED |
	    SECBIT_NO_SETUID_FIXUP | SECBIT_NO_SETUID_FIXUP_LOCKED |
	    SECBIT_KEEP_CAPS_LOCKED | SECBIT_NO_CAP_AMBIENT_RAISE |
	    SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED, 0, 0, 0);
	if (syscall(SYS_capset, &hdr, none) < 0)
		return -1;
	/* No exec may give back what was dropped. */
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}

int
trap_confine_child(void)
{
	struct rlimit rl;

	if (syscall(SYS_close_range, 0, 2, 0) < 0)
		return -1;
	/*
	 * A small finite stack limit: exec's stack is sized by it, and an
	 * unlimited one would also give the legacy, bottom-up layout.
	 */
	if (getrlimit(RLIMIT_STACK, &rl) == 0) {
		rl.rlim_cur = STUB_STACK_LIMIT;
		if (rl.rlim_max < rl.rlim_cur)
			rl.rlim_cur = rl.rlim_max;
		if (setrlimit(RLIMIT_STACK, &rl) < 0)
			return -1;
	}
	return confine_caps();
}
