/*
 * Capabilities: capget and capset over the sets a credential keeps
 * (kern/ucred.h: how they follow the uids, and why privilege is all or
 * nothing here).  capset follows Linux's rules: a process may drop
 * capabilities and move permitted ones into effect, never gain one.
 */
#include <sys/prctl.h>

#include "kern/proc.h"
#include "kern/ucred.h"
#include "sys/syscall.h"

#define CAP_SETPCAP	8	/* Linux's: changes the bounding set */
#define SECBIT_KEEP_CAPS_L	(1 << 4)	/* Linux's SECBIT_KEEP_CAPS */

#define LINUX_CAPABILITY_VERSION_1	0x19980330
#define LINUX_CAPABILITY_VERSION_2	0x20071026
#define LINUX_CAPABILITY_VERSION_3	0x20080522

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
	cs->effective = cr->cr_capeff;
	cs->permitted = cr->cr_capprm;
	cs->inheritable = cr->cr_capinh;
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

long
prctl_caps(struct proc *p, const uint64_t *args)
{
	const struct ucred *ocr = p->p_ucred;
	struct ucred *cr;

	switch (args[0]) {
	case PR_GET_KEEPCAPS:
		return ocr->cr_keepcaps;
	case PR_GET_SECUREBITS:	/* of Linux's securebits, only keep-caps */
		return ocr->cr_keepcaps ? SECBIT_KEEP_CAPS_L : 0;
	case PR_SET_SECUREBITS:
		if (!(ocr->cr_capeff & (1ULL << CAP_SETPCAP)))
			return -EPERM;
		if (args[1] & ~(uint64_t)SECBIT_KEEP_CAPS_L) {
			kprintf_ratelimited("pid %d: securebits %#lx not supported\n",
			    p->p_pid, (unsigned long)args[1]);
			return -EPERM;
		}
		break;
	case PR_CAP_AMBIENT:
		/* No capability is ever ambient: nothing to raise it from. */
		if (args[1] == PR_CAP_AMBIENT_CLEAR_ALL)
			return args[2] | args[3] | args[4] ? -EINVAL : 0;
		if (args[3] | args[4])
			return -EINVAL;
		if (args[2] > CAP_LAST_CAP)
			return -EINVAL;
		switch (args[1]) {
		case PR_CAP_AMBIENT_IS_SET:
		case PR_CAP_AMBIENT_LOWER:
			return 0;
		case PR_CAP_AMBIENT_RAISE:
			kprintf_ratelimited("pid %d: ambient capabilities not supported\n",
			    p->p_pid);
			return -EPERM;
		}
		return -EINVAL;
	case PR_CAPBSET_READ:
		if (args[1] > CAP_LAST_CAP)
			return -EINVAL;
		return (ocr->cr_capbnd >> args[1]) & 1;
	case PR_SET_KEEPCAPS:
		if (args[1] > 1)
			return -EINVAL;
		break;
	case PR_CAPBSET_DROP:
		if (!(ocr->cr_capeff & (1ULL << CAP_SETPCAP)))
			return -EPERM;
		if (args[1] > CAP_LAST_CAP)
			return -EINVAL;
		break;
	default:
		return -EINVAL;
	}
	if ((cr = crdup(ocr)) == NULL)
		return -ENOMEM;
	if (args[0] == PR_SET_KEEPCAPS)
		cr->cr_keepcaps = args[1] != 0;
	else if (args[0] == PR_SET_SECUREBITS)
		cr->cr_keepcaps = (args[1] & SECBIT_KEEP_CAPS_L) != 0;
	else
		cr->cr_capbnd &= ~(1ULL << args[1]);
	crfree(p->p_ucred);
	p->p_ucred = cr;
	return 0;
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
 * capset(hdr, data): only for the caller (pid 0 or its own).  As Linux's
 * cap_capset: permitted may only shrink, effective must stay within the
 * new permitted, inheritable within the old inheritable and permitted
 * and within the bounding set; else -EPERM.
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
	want.effective &= CAP_FULL_SET;
	want.permitted &= CAP_FULL_SET;
	want.inheritable &= CAP_FULL_SET;
	if ((want.permitted & ~cs.permitted) != 0 ||
	    (want.effective & ~want.permitted) != 0 ||
	    (want.inheritable & ~(cs.inheritable | cs.permitted)) != 0 ||
	    (want.inheritable & ~(cs.inheritable | p->p_ucred->cr_capbnd)) != 0)
		return -EPERM;
	struct ucred *cr = crdup(p->p_ucred);
	if (cr == NULL)
		return -ENOMEM;
	cr->cr_capeff = want.effective;
	cr->cr_capprm = want.permitted;
	cr->cr_capinh = want.inheritable;
	crfree(p->p_ucred);
	p->p_ucred = cr;
	return 0;
}
