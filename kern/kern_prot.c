/*
 * Credentials (kern/ucred.h).
 */
#include <string.h>

#include "kern/kernel.h"
#include "kern/ucred.h"
#include "kern/kmem.h"

struct ucred *
crget(void)
{
	struct ucred *cr = kmalloc(sizeof(*cr), 0);
	if (cr != NULL)
		cred_init_root(cr);
	return cr;
}

void
cred_init_root(struct ucred *cr)
{
	memset(cr, 0, sizeof(*cr));
	cr->cr_ref = 1;
	cr->cr_capeff = cr->cr_capprm = cr->cr_capbnd = CAP_FULL_SET;
}

void
cred_setuid_caps(struct ucred *cr, uid_t ruid, uid_t euid, uid_t suid)
{
	bool was_root = ruid == 0 || euid == 0 || suid == 0;

	if (was_root && cr->cr_ruid != 0 && cr->cr_uid != 0 && cr->cr_svuid != 0 &&
	    !cr->cr_keepcaps)
		cr->cr_capprm = cr->cr_capeff = 0;
	if (euid == 0 && cr->cr_uid != 0)
		cr->cr_capeff = 0;
	if (euid != 0 && cr->cr_uid == 0)
		cr->cr_capeff = cr->cr_capprm;
}

void
cred_exec_caps(struct ucred *cr)
{
	if (cr->cr_uid == 0 || cr->cr_ruid == 0)
		cr->cr_capprm = CAP_FULL_SET & cr->cr_capbnd;
	else
		cr->cr_capprm = 0;
	cr->cr_capeff = cr->cr_uid == 0 ? cr->cr_capprm : 0;
	cr->cr_keepcaps = false;
}

struct ucred *
crhold(struct ucred *cr)
{
	cr->cr_ref++;
	return cr;
}

void
crfree(struct ucred *cr)
{
	KASSERT(cr->cr_ref > 0, "credential freed twice");
	if (--cr->cr_ref == 0)
		kfree(cr);
}

/* A private copy of cr with one reference, or NULL if memory is short. */
struct ucred *
crdup(const struct ucred *cr)
{
	struct ucred *n = kmalloc(sizeof(*n), 0);
	if (n != NULL) {
		*n = *cr;
		n->cr_ref = 1;
	}
	return n;
}

int
groupmember(gid_t gid, const struct ucred *cr)
{
	if (cr->cr_gid == gid)
		return 1;
	for (int i = 0; i < cr->cr_ngroups; i++)
		if (cr->cr_groups[i] == gid)
			return 1;
	return 0;
}
