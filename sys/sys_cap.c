/*
 * Capabilities: capget and capset.  This kernel's privilege is the
 * traditional one, the effective uid 0 (cred_is_root), so the capability
 * sets are derived from the uids as Linux derives them for a process
 * without file capabilities: a root effective uid has every capability
 * effective, any root uid keeps them permitted (a seteuid away from root
 * can come back), and nothing is inheritable.  capset can only confirm
 * the sets a process has: a change would have to be obeyed by every
 * permission check, which looks at the uid alone.
 */
#include "kern/proc.h"
#include "kern/ucred.h"
#include "sys/syscall.h"

#define LINUX_CAPABILITY_VERSION_1	0x19980330
#define LINUX_CAPABILITY_VERSION_2	0x20071026
#define LINUX_CAPABILITY_VERSION_3	0x20080522
#define CAP_LAST_CAP			40	/* CAP_CHECKPOINT_RESTORE */
#define CAP_FULL_SET			((1ULL << (CAP_LAST_CAP + 1)) - 1)

struct cap_header {
	uint32_t version;
	int32_t pid;
};

/* One per 32 capabilities: version 1 has one, versions 2 and 3 two. */
struct cap_data {
	uint32_t effective;
	uint32_t permitted;
	uint32_t inheritable;
};

struct capsets {
	uint64_t effective, permitted, inheritable;
};

static void
cred_capsets(const struct ucred *cr, struct capsets *cs)
{
	bool any_root = cr->cr_uid == 0 || cr->cr_ruid == 0 || cr->cr_svuid == 0;

	cs->effective = cred_is_root(cr) ? CAP_FULL_SET : 0;
	cs->permitted = any_root ? CAP_FULL_SET : 0;
	cs->inheritable = 0;
}

/*
 * Reads the header's version: the number of data structs it takes in
 * *ndata, or, for a version Linux does not know, writes the one it
 * prefers back (as a probe expects) and gives -EINVAL.
 */
static int
cap_validate_header(uint64_t uhdr, struct cap_header *hdr, int *ndata)
{
	if (copyin(uhdr, hdr, sizeof(*hdr)) < 0)
		return -EFAULT;
	switch (hdr->version) {
	case LINUX_CAPABILITY_VERSION_1:
		*ndata = 1;
		return 0;
	case LINUX_CAPABILITY_VERSION_2:
	case LINUX_CAPABILITY_VERSION_3:
		*ndata = 2;
		return 0;
	}
	uint32_t preferred = LINUX_CAPABILITY_VERSION_3;
	if (copyout(&preferred, uhdr, sizeof(preferred)) < 0)
		return -EFAULT;
	return -EINVAL;
}

/* capget(hdr, data): the sets of hdr->pid (0: the caller). */
long
sys_capget(struct lwp *lp, const uint64_t *args)
{
	struct cap_header hdr;
	struct cap_data data[2];
	struct capsets cs;
	int ndata, error = cap_validate_header(args[0], &hdr, &ndata);

	/* A probe with no data learns the version and succeeds. */
	if (args[1] == 0)
		return error == -EINVAL ? 0 : error;
	if (error < 0)
		return error;
	if (hdr.pid < 0)
		return -EINVAL;
	struct proc *p = hdr.pid == 0 ? lp->lwp_proc : pfind(hdr.pid);
	if (p == NULL || p->p_state == PRS_ZOMBIE)
		return -ESRCH;
	cred_capsets(p->p_ucred, &cs);
	for (int i = 0; i < ndata; i++) {
		data[i].effective = (uint32_t)(cs.effective >> (32 * i));
		data[i].permitted = (uint32_t)(cs.permitted >> (32 * i));
		data[i].inheritable = (uint32_t)(cs.inheritable >> (32 * i));
	}
	if (copyout(data, args[1], ndata * sizeof(data[0])) < 0)
		return -EFAULT;
	return 0;
}

/*
 * capset(hdr, data): only for the caller (pid 0 or its own), and only to
 * the sets it has.  Adding a capability it does not hold is -EPERM, as in
 * Linux; dropping one is -EPERM too, logged, since nothing here could
 * obey a root process that gave up a capability.
 */
long
sys_capset(struct lwp *lp, const uint64_t *args)
{
	struct cap_header hdr;
	struct cap_data data[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
	struct capsets cs, want = { 0, 0, 0 };
	struct proc *p = lp->lwp_proc;
	int ndata, error = cap_validate_header(args[0], &hdr, &ndata);

	if (error < 0)
		return error;
	if (hdr.pid != 0 && hdr.pid != p->p_pid)
		return -EPERM;
	if (copyin(args[1], data, ndata * sizeof(data[0])) < 0)
		return -EFAULT;
	for (int i = 0; i < ndata; i++) {
		want.effective |= (uint64_t)data[i].effective << (32 * i);
		want.permitted |= (uint64_t)data[i].permitted << (32 * i);
		want.inheritable |= (uint64_t)data[i].inheritable << (32 * i);
	}
	cred_capsets(p->p_ucred, &cs);
	if (ndata == 1) {		/* version 1 leaves the upper half */
		want.effective |= cs.effective & ~0xffffffffULL;
		want.permitted |= cs.permitted & ~0xffffffffULL;
		want.inheritable |= cs.inheritable & ~0xffffffffULL;
	}
	if ((want.permitted & ~cs.permitted) != 0 ||
	    (want.effective & ~want.permitted) != 0 ||
	    (want.inheritable & ~(cs.inheritable | cs.permitted)) != 0)
		return -EPERM;
	if (want.effective != cs.effective || want.permitted != cs.permitted ||
	    want.inheritable != cs.inheritable) {
		kprintf_ratelimited("pid %d (%s): capset: changing the capability "
		    "sets is not supported (privilege is the uid); EPERM\n",
		    p->p_pid, p->p_comm);
		return -EPERM;
	}
	return 0;
}
