/*
 * The siginfo queue: each pending signal with the siginfo it was sent
 * with.  Real-time signals queue every instance in order, each with its
 * value; a standard signal is pending once (a second one coalesces).
 * Entries are counted per real user against RLIMIT_SIGPENDING, as in
 * Linux, so a user cannot fill the kernel's memory with queued signals.
 */
#include "kern/signal.h"
#include "kern/ucred.h"
#include "vm/kmem.h"

/* The entries queued for one user, kept while it has any. */
struct sigcount {
	struct sigcount *sc_next;
	uid_t sc_uid;
	unsigned long sc_count;
};

#define SIGCOUNT_HASH	64
static struct sigcount *sigcounts[SIGCOUNT_HASH];

static struct sigcount **
sigcount_slot(uid_t uid)
{
	struct sigcount **scp = &sigcounts[uid % SIGCOUNT_HASH];
	while (*scp != NULL && (*scp)->sc_uid != uid)
		scp = &(*scp)->sc_next;
	return scp;
}

/* Counts one more entry of uid: false if no memory for its record. */
static bool
sigcount_add(uid_t uid)
{
	struct sigcount **scp = sigcount_slot(uid);
	if (*scp == NULL) {
		struct sigcount *sc = kmalloc(sizeof(*sc), KM_ZERO);
		if (sc == NULL)
			return false;
		sc->sc_uid = uid;
		*scp = sc;
	}
	(*scp)->sc_count++;
	return true;
}

static void
sigcount_sub(uid_t uid)
{
	struct sigcount **scp = sigcount_slot(uid), *sc = *scp;
	KASSERT(sc != NULL && sc->sc_count > 0, "sigcount_sub: uid not counted");
	if (--sc->sc_count == 0) {
		*scp = sc->sc_next;
		kfree(sc);
	}
}

static unsigned long
sigcount_get(uid_t uid)
{
	struct sigcount *sc = *sigcount_slot(uid);
	return sc != NULL ? sc->sc_count : 0;
}

static void
ksiginfo_free(struct ksiginfo *k)
{
	sigcount_sub(k->ksi_uid);
	kfree(k);
}

int
sigqueue_add(struct proc *p, ksigset_t *set, struct sigqueue *q,
    const siginfo_t *info)
{
	int sig = info->si_signo;
	bool rt = sig >= LINUX_SIGRTMIN;

	if (!rt && (*set & SIGBIT(sig)))
		return 0;		/* coalesced with the one pending */
	if (sig != SIGKILL) {		/* SIGKILL's siginfo is never seen */
		/*
		 * A standard signal from the kernel or kill takes an entry
		 * past the limit (there is at most one per pending set);
		 * others may not.
		 */
		uid_t uid = p->p_ucred != NULL ? p->p_ucred->cr_ruid : 0;
		struct ksiginfo *k = NULL;
		if ((!rt && info->si_code >= 0) || sigcount_get(uid) <
		    p->p_rlimit[RLIMIT_SIGPENDING].rlim_cur) {
			k = kmalloc(sizeof(*k), 0);
			if (k != NULL && !sigcount_add(uid)) {
				kfree(k);
				k = NULL;
			}
		}
		if (k != NULL) {
			k->ksi_next = NULL;
			k->ksi_uid = uid;
			k->ksi_info = *info;
			if (q->sq_last != NULL)
				q->sq_last->ksi_next = k;
			else
				q->sq_first = k;
			q->sq_last = k;
		} else if (rt && info->si_code != SI_USER &&
		    info->si_code != SI_KERNEL) {
			return -EAGAIN;	/* a value would be lost: refused */
		}
		/* Otherwise it goes without its siginfo. */
	}
	*set |= SIGBIT(sig);
	return 0;
}

/* Unlinks k, which follows prev (NULL: first) in q. */
static void
sigqueue_unlink(struct sigqueue *q, struct ksiginfo *prev, struct ksiginfo *k)
{
	if (prev != NULL)
		prev->ksi_next = k->ksi_next;
	else
		q->sq_first = k->ksi_next;
	if (q->sq_last == k)
		q->sq_last = prev;
}

bool
sigqueue_take(ksigset_t *set, struct sigqueue *q, int sig, siginfo_t *info)
{
	struct ksiginfo *k, *prev = NULL, *found = NULL, *fprev = NULL;
	bool more = false;

	if (!(*set & SIGBIT(sig)))
		return false;
	for (k = q->sq_first; k != NULL; prev = k, k = k->ksi_next) {
		if (k->ksi_info.si_signo != sig)
			continue;
		if (found != NULL) {
			more = true;
			break;
		}
		found = k;
		fprev = prev;
	}
	if (!more)
		*set &= ~SIGBIT(sig);
	if (found == NULL) {
		/* Posted without its siginfo (past the limit; SIGKILL). */
		siginfo_init(info, sig, SI_USER, NULL);
		return true;
	}
	*info = found->ksi_info;
	sigqueue_unlink(q, fprev, found);
	ksiginfo_free(found);
	return true;
}

void
sigqueue_flush(ksigset_t *set, struct sigqueue *q, ksigset_t mask)
{
	struct ksiginfo *k, *prev = NULL, *next;

	*set &= ~mask;
	for (k = q->sq_first; k != NULL; k = next) {
		next = k->ksi_next;
		if (!(mask & SIGBIT(k->ksi_info.si_signo))) {
			prev = k;
			continue;
		}
		sigqueue_unlink(q, prev, k);
		ksiginfo_free(k);
	}
}

void
sigqueue_proc_free(struct proc *p)
{
	sigqueue_flush(&p->p_siglist, &p->p_sigqueue, ~(ksigset_t)0);
}

void
siginfo_init(siginfo_t *si, int sig, int code, const struct proc *sender)
{
	memset(si, 0, sizeof(*si));
	si->si_signo = sig;
	si->si_code = code;
	if (sender != NULL) {
		si->si_pid = sender->p_pid;
		si->si_uid = sender->p_ucred->cr_ruid;
	}
}
