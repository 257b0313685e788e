/*
 * Is a parked guest thread really stopped?  A guest thread shares its
 * address space and its privileges with its handler, so it can post a
 * report without entering the handler and go on computing.  The host
 * knows better: a genuinely parked thread is, after at most its spin,
 * asleep in futex(&reply, FUTEX_WAIT, WW_SLEEPING, NULL) on its own
 * slot's reply word, which /proc/PID/task/TID/syscall shows.  Each
 * thread of a stub is audited on its own.  A thread seen elsewhere on several
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
#include <linux/futex.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/cpu.h"
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
 * Reads /proc/PID/task/TID/FILE into buf, NUL-terminated, through fd if
 * it is open (>= 0).
 */
static bool
task_read(pid_t pid, pid_t tid, const char *file, int fd, char *buf,
    size_t len)
{
	bool own = fd < 0;

	if (own) {
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid,
		    (int)tid, file);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return false;
	}
	ssize_t n = pread(fd, buf, len - 1, 0);
	if (own)
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
task_syscall(pid_t pid, pid_t tid, int fd, long *nr, unsigned long a[4])
{
	char buf[256];

	if (!task_read(pid, tid, "syscall", fd, buf, sizeof(buf)))
		return -1;
	return sscanf(buf, "%ld %lx %lx %lx %lx", nr, &a[0], &a[1], &a[2],
	    &a[3]) == 5 && *nr >= 0;
}

/* A task's state letter (R, S, D...), or 0 if the host does not say. */
static char
task_state(pid_t pid, pid_t tid)
{
	char buf[512];

	if (!task_read(pid, tid, "stat", -1, buf, sizeof(buf)))
		return 0;
	char *p = strrchr(buf, ')');	/* the name may hold anything */
	return p != NULL && p[1] == ' ' ? p[2] : 0;
}

bool
trap_task_exists(pid_t pid, pid_t tid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	return access(path, F_OK) == 0;
}

/*
 * True if the host thread tid of the stub has exited: gone from /proc,
 * or a zombie (a thread group's leader stays one until the group ends).
 */
bool
trap_task_exited(pid_t pid, pid_t tid)
{
	char s = task_state(pid, tid);
	return s == 'Z' || s == 'X' || (s == 0 && !trap_task_exists(pid, tid));
}

/*
 * The descriptor *fdp of /proc/PID/task/TID/FILE of thread t, opened
 * once: the audit (on the tick's CPU) and the kick verdict (on the
 * thread's) may race to open it, and one keeps it.  Only thread 0 keeps
 * its descriptors: a vmspace of hundreds of threads would otherwise hold
 * hundreds of the vkernel's; the others' are opened for each look (-1).
 */
static int
task_fd(struct trap_thread *t, pid_t pid, const char *file, int *fdp)
{
	pid_t tid = t->tid;
	if (t->n != 0)
		return -1;
	int have = __atomic_load_n(fdp, __ATOMIC_ACQUIRE);
	if (have >= 0)
		return have;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", (int)pid, (int)tid,
	    file);
	int fd = open(path, O_RDONLY | O_CLOEXEC), none = -1;
	if (fd < 0)
		return -1;
	if (!__atomic_compare_exchange_n(fdp, &none, fd, false,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		close(fd);
		return none;	/* the other's */
	}
	return fd;
}

/* The handler's wait: futex(&reply, FUTEX_WAIT, WW_SLEEPING, NULL) of thread n. */
static bool
handler_wait(int n, long nr, const unsigned long a[4])
{
	return nr == SYS_futex &&
	    a[0] == STUB_SLOT(n) + offsetof(struct stub_thread, reply) &&
	    a[1] == FUTEX_WAIT && a[2] == WW_SLEEPING && a[3] == 0;
}

/* True if guest thread t sleeps in its handler's wait for the reply. */
static bool
stub_asleep_in_handler(struct vmspace_host *vh, struct trap_thread *t)
{
	long nr;
	unsigned long a[4];

	switch (task_syscall(vh->pid, t->tid, task_fd(t, vh->pid, "syscall",
	    &t->syscallfd), &nr, a)) {
	case -1:
		return true;	/* cannot tell: give it the benefit */
	case 0:
		return false;
	default:
		return handler_wait(t->n, nr, a);
	}
}

/*
 * True if the mapper waits for a batch after the last one issued: it has
 * carried out every batch, and posted the reply any of them carried.  The
 * guest cannot fake this: the mapper's registers are its own.
 */
static bool
stub_mapper_idle(struct vmspace_host *vh)
{
	pid_t tid = vh->mapper_tid;
	long nr;
	unsigned long a[4];

	return tid > 0 && task_syscall(vh->pid, tid, -1, &nr, a) == 1 &&
	    nr == SYS_futex && a[0] == STUB_CMD + offsetof(struct stub_cmd, seq) &&
	    a[1] == FUTEX_WAIT &&
	    (uint32_t)a[2] == __atomic_load_n(&vh->seq, __ATOMIC_ACQUIRE);
}

/*
 * True if guest thread t sleeps, after a kick, where no guest keeping
 * the protocol sleeps.  The only sleep a guest thread can make is a
 * futex wait from the stub's code on the stub's words; the handler makes
 * one, for its reply, and only while the mapper still owes that reply.
 * The mapper is looked at first: once it is idle, a guest thread it woke
 * is runnable (R) even if the host has not run it yet, so one found
 * asleep (S) after that went back to sleep of its own accord.
 */
static bool
stub_sleeps_by_choice(struct vmspace_host *vh, struct trap_thread *t)
{
	bool mapper_idle = stub_mapper_idle(vh);
	long nr;
	unsigned long a[4];

	if (task_syscall(vh->pid, t->tid, task_fd(t, vh->pid, "syscall",
	    &t->syscallfd), &nr, a) != 1 || nr != SYS_futex ||
	    task_state(vh->pid, t->tid) != 'S')
		return false;
	return !handler_wait(t->n, nr, a) || mapper_idle;
}

/*
 * The CPU time guest thread t has used (ns), from the host's schedstat;
 * UINT64_MAX if the host does not tell.
 */
uint64_t
trap_guest_cputime(struct vmspace_host *vh, struct trap_thread *t)
{
	char buf[128];
	unsigned long long ns;
	int fd = task_fd(t, vh->pid, "schedstat", &t->schedfd);

	if (!task_read(vh->pid, t->tid, "schedstat", fd, buf, sizeof(buf)))
		return UINT64_MAX;
	return sscanf(buf, "%llu", &ns) == 1 ? ns : UINT64_MAX;
}

/* The thread was resumed (or nudged back to spinning): audit afresh. */
void
trap_resumed(struct trap_thread *t)
{
	__atomic_add_fetch(&t->rungen, 1, __ATOMIC_ACQ_REL);
	__atomic_store_n(&t->verified, false, __ATOMIC_RELEASE);
}

/* The thread reported (seen at now, host_nanotime) and waits in its handler. */
void
trap_parked(struct trap_thread *t, uint64_t now)
{
	__atomic_store_n(&t->parked_at, now, __ATOMIC_RELEASE);
	__atomic_store_n(&t->parked, true, __ATOMIC_RELEASE);
}

/*
 * One thread.  The audit runs on the tick's CPU while the thread's own
 * CPU may resume it: a strike counts only if the thread stayed parked,
 * in the same parking, across the look.
 */
static void
trap_audit_thread(struct vmspace_host *vh, struct trap_thread *t, uint64_t now)
{
	uint32_t gen = __atomic_load_n(&t->rungen, __ATOMIC_ACQUIRE);
	if (!__atomic_load_n(&t->parked, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&t->verified, __ATOMIC_ACQUIRE) || t->tid <= 0)
		return;
	uint64_t parked_at = __atomic_load_n(&t->parked_at, __ATOMIC_ACQUIRE);
	if (now < parked_at || now - parked_at < TRAP_AUDIT_AFTER_NS)
		return;
	if (t->audit_gen != gen) {
		t->audit_gen = gen;
		t->strikes = 0;
	}
	if (t->strikes > 0 &&
	    now - parked_at < TRAP_AUDIT_AFTER_NS + t->strikes * TRAP_AUDIT_SPACING_NS)
		return;
	bool asleep = stub_asleep_in_handler(vh, t);
	if (__atomic_load_n(&t->rungen, __ATOMIC_ACQUIRE) != gen ||
	    !__atomic_load_n(&t->parked, __ATOMIC_ACQUIRE))
		return;		/* resumed meanwhile: the look says nothing */
	if (asleep) {
		__atomic_store_n(&t->verified, true, __ATOMIC_RELEASE);
		return;
	}
	uint64_t cpu = trap_guest_cputime(vh, t);
	if (t->strikes == 0)
		t->audit_cpu = cpu;
	else if (cpu != UINT64_MAX && t->audit_cpu != UINT64_MAX &&
	    cpu - t->audit_cpu < t->strikes * TRAP_AUDIT_CPU_NS)
		return;		/* not asleep, but not running either: wait */
	if (++t->strikes >= TRAP_AUDIT_STRIKES)
		trap_kill(vh, "guest ran while stopped");
}

void
trap_audit(struct vmspace_host *vh, uint64_t now)
{
	if (trap_dead(vh))
		return;
	for (int n = 0; n < STUB_MAXTHREADS && n < vh->slots_used; n++)
		if (vh->threads[n] != NULL)
			trap_audit_thread(vh, vh->threads[n], now);
}

/*
 * How long thread t has had its kick of time kicked, at now, without
 * the time the machine spent stopped (the debugger) since the first
 * look: the guest's CPU may be among those stopped, and a watchdog must
 * not take the machine's stop for the guest's refusal.
 */
static uint64_t
kick_waited(struct trap_thread *t, uint64_t kicked, uint64_t now)
{
	uint64_t stopped = cpu_stopped_ns();
	if (t->kick_at != kicked) {
		t->kick_at = kicked;
		t->kick_stopped = stopped;
	}
	uint64_t waited = now - kicked, paused = stopped - t->kick_stopped;
	return waited > paused ? waited - paused : 0;
}

/*
 * A kicked guest has not answered yet.  A guest thread keeping the
 * protocol answers within microseconds of running, so one that sleeps
 * instead (stub_sleeps_by_choice), or has run for two ticks of CPU since
 * the first look (*cpu0, UINT64_MAX until then), blocked the kick.  One
 * that did neither was not scheduled by the host: a loaded machine can
 * leave a stub waiting that long, and it is killed only at a bound,
 * which the machine's stops do not count towards.  Returns why the
 * guest must die, or NULL to wait on.
 */
const char *
trap_kick_verdict(struct vmspace_host *vh, struct trap_thread *t,
    uint64_t kicked, uint64_t now, uint64_t *cpu0)
{
	if (stub_sleeps_by_choice(vh, t))
		return "guest slept through a kick";
	uint64_t cpu = trap_guest_cputime(vh, t);
	uint64_t waited = kick_waited(t, kicked, now);
	if (*cpu0 == UINT64_MAX)
		*cpu0 = cpu;
	if (cpu == UINT64_MAX || *cpu0 == UINT64_MAX) {
		if (waited >= TRAP_KICK_GRACE_NS)
			return "guest ignored a kick";
	} else if (cpu - *cpu0 >= TRAP_KICK_CPU_NS) {
		return "guest ran through a kick";
	}
	if (waited >= TRAP_KICK_LIMIT_NS)
		return "guest ignored a kick for too long";
	return NULL;
}
