/*
 * Is a parked guest really stopped?  The guest thread shares its address
 * space and its privileges with its handler, so it can post a report
 * without entering the handler and go on computing.  The host knows
 * better: a genuinely parked thread is, after at most its spin, asleep in
 * futex(&reply, FUTEX_WAIT, WW_SLEEPING, NULL), which
 * /proc/PID/task/PID/syscall shows.  A thread seen elsewhere on several
 * audits over some 50 ms of one parking, and that used the CPU meanwhile,
 * is killed; one the host simply did not schedule (a loaded machine can
 * leave a stub preempted in its spin for that long) is not.
 */
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>

#include "host/hostsync.h"
#include "host/trap/trap.h"

#define TRAP_AUDIT_AFTER_NS	10000000UL	/* leave spins and hand-offs be */
#define TRAP_AUDIT_STRIKES	3
#define TRAP_AUDIT_SPACING_NS	15000000UL
#define TRAP_AUDIT_CPU_NS	5000000UL	/* ran this much since the first strike */

/* True if the guest thread sleeps in its handler's wait for the reply. */
static bool
stub_asleep_in_handler(struct vmspace_host *vh)
{
	char buf[256];
	long nr;
	unsigned long a0, a1, a2, a3;

	if (vh->syscallfd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall",
		    (int)vh->pid, (int)vh->pid);
		vh->syscallfd = open(path, O_RDONLY | O_CLOEXEC);
		if (vh->syscallfd < 0)
			return true;	/* cannot tell: give it the benefit */
	}
	ssize_t n = pread(vh->syscallfd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	return sscanf(buf, "%ld %lx %lx %lx %lx", &nr, &a0, &a1, &a2, &a3) == 5 &&
	    nr == 202 && a0 == STUB_THREAD + offsetof(struct stub_thread, reply) &&
	    a1 == 0 /* FUTEX_WAIT */ && a2 == WW_SLEEPING && a3 == 0;
}

/*
 * The CPU time the guest thread has used (ns), from the host's schedstat;
 * UINT64_MAX if the host does not tell.
 */
uint64_t
trap_guest_cputime(struct vmspace_host *vh)
{
	char buf[128];
	unsigned long long ns;

	if (vh->schedfd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat",
		    (int)vh->pid, (int)vh->pid);
		vh->schedfd = open(path, O_RDONLY | O_CLOEXEC);
		if (vh->schedfd < 0)
			return UINT64_MAX;
	}
	ssize_t n = pread(vh->schedfd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return UINT64_MAX;
	buf[n] = '\0';
	return sscanf(buf, "%llu", &ns) == 1 ? ns : UINT64_MAX;
}

/* The guest was resumed (or nudged back to spinning): audit afresh. */
void
trap_resumed(struct vmspace_host *vh)
{
	vh->rungen++;
	vh->verified = false;
}

void
trap_audit(struct vmspace_host *vh, uint64_t now)
{
	if (vh->dead || !vh->parked || vh->verified ||
	    now - vh->parked_at < TRAP_AUDIT_AFTER_NS)
		return;
	if (vh->audit_gen != vh->rungen) {
		vh->audit_gen = vh->rungen;
		vh->strikes = 0;
	}
	if (vh->strikes > 0 &&
	    now - vh->parked_at < TRAP_AUDIT_AFTER_NS + vh->strikes * TRAP_AUDIT_SPACING_NS)
		return;
	if (stub_asleep_in_handler(vh)) {
		vh->verified = true;
		return;
	}
	uint64_t cpu = trap_guest_cputime(vh);
	if (vh->strikes == 0)
		vh->audit_cpu = cpu;
	else if (cpu != UINT64_MAX && vh->audit_cpu != UINT64_MAX &&
	    cpu - vh->audit_cpu < vh->strikes * TRAP_AUDIT_CPU_NS)
		return;		/* not asleep, but not running either: wait */
	if (++vh->strikes >= TRAP_AUDIT_STRIKES)
		trap_kill(vh, "guest ran while stopped");
}
