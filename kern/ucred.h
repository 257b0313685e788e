/*
 * Credentials: who a process acts as.  Shared, reference counted and never
 * changed in place (a change makes a new one), as in BSD.
 */
#ifndef KERN_UCRED_H
#define KERN_UCRED_H

#include <stdint.h>
#include <sys/types.h>

#define KNGROUPS	32

struct ucred {
	int cr_ref;
	uid_t cr_uid, cr_ruid, cr_svuid;
	gid_t cr_gid, cr_rgid, cr_svgid;
	int cr_ngroups;
	gid_t cr_groups[KNGROUPS];
};

/* True if cred is the superuser. */
static inline int
cred_is_root(const struct ucred *cr)
{
	return cr->cr_uid == 0;
}

/* True if cred has gid among its groups (effective gid included). */
int groupmember(gid_t gid, const struct ucred *cr);

struct ucred *crget(void);		/* a new root credential, ref 1 */
struct ucred *crhold(struct ucred *cr);
void crfree(struct ucred *cr);
struct ucred *crdup(const struct ucred *cr);

#endif /* KERN_UCRED_H */
