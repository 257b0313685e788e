/*
 * Credentials: who a process acts as.  Shared, reference counted and never
 * changed in place (a change makes a new one), as in BSD.
 *
 * Privilege is the superuser's, all or nothing: a credential is
 * privileged while every capability is in its effective set.  The sets
 * follow the uids as Linux's do for processes without file capabilities
 * (cred_setuid_caps, cred_exec_caps): an effective uid 0 brings every
 * permitted capability into effect, leaving root for good drops them.
 * An exec permits root only what the bounding set holds (PR_CAPBSET_DROP
 * shrinks it, for good), and forgets PR_SET_KEEPCAPS, which lets a
 * process that leaves root keep its permitted set (effective goes).
 * capset may drop capabilities; a credential that lacks any is then
 * refused everything that needs privilege (Linux would still allow what
 * the capabilities it kept cover: this kernel does not split privilege).
 */
#ifndef KERN_UCRED_H
#define KERN_UCRED_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#define KNGROUPS	32

struct ucred {
	int cr_ref;
	uid_t cr_uid, cr_ruid, cr_svuid;
	gid_t cr_gid, cr_rgid, cr_svgid;
	int cr_ngroups;
	gid_t cr_groups[KNGROUPS];
	uint64_t cr_capeff, cr_capprm, cr_capinh;	/* bit n: capability n */
	uint64_t cr_capbnd;	/* the bounding set: what an exec may permit */
	bool cr_keepcaps;	/* PR_SET_KEEPCAPS: leaving root keeps permitted */
};

#define CAP_LAST_CAP	40			/* CAP_CHECKPOINT_RESTORE */
#define CAP_FULL_SET	((1ULL << (CAP_LAST_CAP + 1)) - 1)

/* True if cred has the superuser's privilege (see above). */
static inline int
cred_is_root(const struct ucred *cr)
{
	return cr->cr_capeff == CAP_FULL_SET;
}

/* True if cred has gid among its groups (effective gid included). */
int groupmember(gid_t gid, const struct ucred *cr);

/*
 * The capability sets after cr's uids changed from (ruid, euid, suid)
 * (Linux's cap_emulate_setxuid), and after an exec (as Linux's for a
 * file without capabilities: root's come back in full, others' go).
 */
void cred_setuid_caps(struct ucred *cr, uid_t ruid, uid_t euid, uid_t suid);
void cred_exec_caps(struct ucred *cr);

struct ucred *crget(void);		/* a new root credential, ref 1 */
/* Makes *cr a root credential of one reference (all ids 0, every capability). */
void cred_init_root(struct ucred *cr);
struct ucred *crhold(struct ucred *cr);
void crfree(struct ucred *cr);
struct ucred *crdup(const struct ucred *cr);

#endif /* KERN_UCRED_H */
