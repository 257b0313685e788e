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
 *
 * The same host view judges a running guest that does not answer a kick
 * (it can block the signal with a forged rt_sigreturn from the stub's
 * code): one that sleeps or computes instead is killed within a tick or
 * two, so no guest holds a virtual CPU; one the host starves is waited
 * for, up to a bound.
 */
#include <dirent.h>
#include <linux/futex.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/hostsync.h"
#include "host/trap/trap.h"

#define TRAP_AUDIT_AFTER_NS	10000000UL	/* leave spins and hand-offs be */
#define TRAP_AUDIT_STRIKES	3
#define TRAP_AUDIT_SPACING_NS	15000000UL
#define TRAP_AUDIT_CPU_NS	5000000UL	/* ran this much since the first strike */

#define TRAP_KICK_CPU_NS	20000000UL	/* two ticks of CPU without answering */
#define TRAP_KICK_GRACE_NS	250000000UL	/* if the host does not tell CPU time */
#define TRAP_KICK_LIMIT_NS	4000000000UL	/* even if the host starves it */

/*
 * Reads /proc/PID/task/TID/FILE into buf, NUL-terminated.  With fdp, the
 * descriptor is opened once and kept there.
 */
static bool
task_read(pid_t pid, pid_t tid, const char *file, int *fdp, char *buf,
    size_t len)
{
	int fd = fdp != NULL ? *fdp : -1;

	if (fd < 0) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
		    (int)tid, file);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
		if (fdp != NULL)
			*fdp = fd;
	}
	ssize_t n = pread(fd, buf, len - 1, 0);
	if (fdp == NULL)
		close(fd);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	return true;
}

/*
 * The system call a task is blocked in: 1 with its number and first four
 * arguments, 0 if it is in none (running, or stopped elsewhere), -1 if
 * the host does not say.
 */
static int
task_syscall(pid_t pid, pid_t tid, int *fdp, long *nr, unsigned long a[4])
{
	char buf[256];

	if (!task_read(pid, tid, "syscall", fdp, buf, sizeof(buf)))
		return -1;
	return sscanf(buf, "%ld %lx %lx %lx %lx", nr, &a[0], &a[1], &a[2],
	    &a[3]) == 5 && *nr >= 0;
}

/* A task's state letter (R, S, D...), or 0 if the host does not say. */
static char
task_state(pid_t pid, pid_t tid)
{
	char buf[512];

	if (!task_read(pid, tid, "stat", NULL, buf, sizeof(buf)))
		return 0;
	char *p = strrchr(buf, ')');	/* the name may hold anything */
	return p != NULL && p[1] == ' ' ? p[2] : 0;
}

/* The handler's wait: futex(&reply, FUTEX_WAIT, WW_SLEEPING, NULL). */
static bool
handler_wait(long nr, const unsigned long a[4])
{
	return nr == SYS_futex &&
	    a[0] == STUB_THREAD + offsetof(struct stub_thread, reply) &&
	    a[1] == FUTEX_WAIT && a[2] == WW_SLEEPING && a[3] == 0;
}

/* True if the guest thread sleeps in its handler's wait for the reply. */
static bool
stub_asleep_in_handler(struct vmspace_host *vh)
{
	long nr;
	unsigned long a[4];

	switch (task_syscall(vh->pid, vh->pid, &vh->syscallfd, &nr, a)) {
	case -1:
		return true;	/* cannot tell: give it the benefit */
	case 0:
		return false;
	default:
		return handler_wait(nr, a);
	}
}

pid_t
stub_mapper_tid(struct vmspace_host *vh)
{
	char path[64];

	if (vh->mapper_tid > 0)
		return vh->mapper_tid;
	snprintf(path, sizeof(path), "/proc/%d/task", (int)vh->pid);
	DIR *d = opendir(path);
	if (d == NULL)
		return -1;
	for (struct dirent *e; (e = readdir(d)) != NULL; ) {
		long tid = strtol(e->d_name, NULL, 10);
		if (tid > 0 && tid != vh->pid)
			vh->mapper_tid = (pid_t)tid;
	}
	closedir(d);
	return vh->mapper_tid > 0 ? vh->mapper_tid : -1;
}

/*
 * True if the mapper waits for a batch after the last one issued: it has
 * carried out every batch, and posted the reply any of them carried.  The
 * guest cannot fake this: the mapper's registers are its own.
 */
static bool
stub_mapper_idle(struct vmspace_host *vh)
{
	pid_t tid = stub_mapper_tid(vh);
	long nr;
	unsigned long a[4];

	return tid > 0 && task_syscall(vh->pid, tid, NULL, &nr, a) == 1 &&
	    nr == SYS_futex && a[0] == STUB_CMD + offsetof(struct stub_cmd, seq) &&
	    a[1] == FUTEX_WAIT && (uint32_t)a[2] == vh->seq;
}

/*
 * True if the guest thread sleeps, after a kick, where no guest keeping
 * the protocol sleeps.  The only sleep the guest thread can make is a
 * futex wait from the stub's code on the stub's words; the handler makes
 * one, for its reply, and only while the mapper still owes that reply.
 * The mapper is looked at first: once it is idle, a guest thread it woke
 * is runnable (R) even if the host has not run it yet, so one found
 * asleep (S) after that went back to sleep of its own accord.
 */
static bool
stub_sleeps_by_choice(struct vmspace_host *vh)
{
	bool mapper_idle = stub_mapper_idle(vh);
	long nr;
	unsigned long a[4];

	if (task_syscall(vh->pid, vh->pid, &vh->syscallfd, &nr, a) != 1 ||
	    nr != SYS_futex || task_state(vh->pid, vh->pid) != 'S')
		return false;
	return !handler_wait(nr, a) || mapper_idle;
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

/*
 * A kicked guest has not answered yet.  A guest thread keeping the
 * protocol answers within microseconds of running, so one that sleeps
 * instead (stub_sleeps_by_choice), or has run for two ticks of CPU since
 * the first look (*cpu0, UINT64_MAX until then), blocked the kick.  One
 * that did neither was not scheduled by the host: a loaded machine can
 * leave a stub waiting that long, and it is killed only at a bound.
 * Returns why the guest must die, or NULL to wait on.
 */
const char *
trap_kick_verdict(struct vmspace_host *vh, uint64_t kicked, uint64_t now,
    uint64_t *cpu0)
{
	if (stub_sleeps_by_choice(vh))
		return "guest slept through a kick";
	uint64_t cpu = trap_guest_cputime(vh);
	if (*cpu0 == UINT64_MAX)
		*cpu0 = cpu;
	if (cpu == UINT64_MAX || *cpu0 == UINT64_MAX) {
		if (now - kicked >= TRAP_KICK_GRACE_NS)
			return "guest ignored a kick";
	} else if (cpu - *cpu0 >= TRAP_KICK_CPU_NS) {
		return "guest ran through a kick";
	}
	if (now - kicked >= TRAP_KICK_LIMIT_NS)
		return "guest ignored a kick for too long";
	return NULL;
}
