/*
 * Recycling the stub of a process that exited.  Starting a stub (vfork,
 * exec, boot, two cross-core wake-ups) and collecting one (the host's
 * exit of a process, waitpid) were most of a fork+exit+wait.  The stub of
 * an exited process goes back to the pool instead, once it is as clean
 * as a new one:
 *
 * 1. The wipe (trap_wipe): the mapper drops every host mapping the stub
 *    holds but the read-only ones of its first run (trap_keep.c), and
 *    the eventfd that only the mapper writes proves it done: the proof
 *    every munmap of a live process rests on.  The guest's threads
 *    cannot map (the filter), and nothing is mapped again until the
 *    stub is clean and given to a new process, so from then on no
 *    thread of the stub can write a page of RAM, and what a rogue one
 *    reads of the kept ones it cannot keep (trap_keep.c): the stub
 *    counts as gone (trap_gone), with the guarantee the wait for a
 *    killed stub's end gives (trap_pool.c, trap_reaper.c).  When a stub is ready in the pool
 *    for the next fork and a core has no CPU (density placement: the
 *    reapers' core), a reaper thread wipes it while the exiting CPU goes
 *    on, and posts INTR_VMSPACE once it is done; until then it is a
 *    killed stub's case: the kernel keeps the dead process's pages
 *    (vmspace_kill's contract; vm_vmspace.c's vmreap releases them), and
 *    its guest, if it still runs, reaches only those.  "Never later"
 *    (trap_inval) is about stubs that run again; this one runs no guest
 *    code before it is clean.  With none ready, the next fork waits for a
 *    recycle anyway and the reapers are behind: the exiting CPU wipes it
 *    itself, a mapper round trip (50-60 us in density) that overlaps
 *    that wait and leaves the reapers to recycling.  With no spare core
 *    (latency placement on this host) the reapers share the cores of
 *    spinning CPUs and guests, and the CPU wipes it too.
 *
 * 2. On the reaper thread (trap_recycle), off the critical path, thread
 *    0 is reset: the stub keeps its host thread, made as clean as a new
 *    one from a state the host vouches for, not the guest.  Thread 0 may
 *    have forged its last report and still run: stub code, or guest
 *    code of the kept read-only pages (trap_keep.c; no page it can write
 *    is left, and the filter is the same whichever code makes the
 *    calls), on a stack it prepared, with a signal mask, signal
 *    stack, bases, selectors and FPU state of its choosing (what a forged
 *    rt_sigreturn from the stub's code gives, and arch_prctl, wrfsbase,
 *    wrpkru, segment loads: the guest filter allows it nothing else that
 *    lasts; no mapping, signal action, descriptor, limit, filter, thread
 *    or robust list).  The steps:
 *    - The reply tells it to reset (STUB_QUIT_RESET): an honest thread
 *      enters STUB_RESET (stub_abi.h) and parks in a futex wait on slot
 *      0's request word, which returns to STUB_RESET_PARKED.  It is
 *      believed parked only when the host says so: /proc/PID/task/TID/
 *      syscall names that futex wait, without a timeout, and that return
 *      address (t0_parked_to_reset), and /proc shows the stub's tasks to
 *      be thread 0 and the mapper, which the guest cannot steer
 *      (registers only, commands from a read-only page).  A rogue thread
 *      may have come there by a jump, with registers and memory of its
 *      own: from that address on the stub's code takes nothing from
 *      either.  Asleep there, it runs nothing until we wake it.
 *    - The control memory the guest could write (the sync page and every
 *      thread slot: words and signal stacks) is zeroed (ctl_zero), and
 *      the host is asked again: still asleep there, so nothing wrote it
 *      meanwhile.
 *    - Woken, it loads everything from the stub's image: an rt_sigreturn
 *      from a frame there gives constant registers, an empty signal
 *      mask, the initial FPU state (PKRU too) and slot 0's signal stack;
 *      it loads null selectors and a new thread's bases and traps (int3)
 *      into its handler, as a new thread's first trap does.
 *    - The host may refuse the signal stack, silently (the rogue one
 *      holds the stack pointer it tests: such a stack could never be
 *      left); where that trap's frame lands says which, and that it came
 *      from STUB_RESET_TRAP (t0_trap_checked).
 *    The stub has no writable memory of its own (stub.ld) and a guest
 *    thread can change no process-wide host state (the filter), so what
 *    is left is what a new stub has: the mapper, as it booted, and a
 *    thread 0 whose every register, mask, signal stack and base the
 *    stub's image set.  Any doubt (a thread that does not park where it
 *    should within 1 s, a task we do not know, a step that fails, a first
 *    trap elsewhere) kills the stub instead.  (The reset replaced thread
 *    0's quit and a new thread 0 cloned by the mapper: 80 + 150 us of a
 *    recycle in density, and the fork loop's pool ran dry.)
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/cpu.h"
#include "host/hostlog.h"
#include "host/hostsync.h"
#include "host/trap/trap.h"

#define CTL_ZERO_MAX		(STUB_SLOT(2) - STUB_SYNC)	/* bytes ctl_zero sets */
#define RECYCLE_WAIT_NS		1000000000UL	/* a thread told to reset parks by then */

/* True if vh's process ended cleanly enough to recycle its stub. */
static bool
recyclable(struct vmspace_host *vh)
{
	if (trap_dead(vh) || vh->reaping || vh->pid <= 0 || !trap_pool_running())
		return false;
	for (int n = 1; n < STUB_MAXTHREADS; n++)
		if (vh->threads[n] != NULL)
			return false;
	/* Its last report came: no run of it is under way. */
	return __atomic_load_n(&vh->t0.parked, __ATOMIC_ACQUIRE) && vh->t0.tid > 0;
}

bool
trap_wipe(struct vmspace_host *vh)
{
	/*
	 * A reaper's wipe: the mapper's munmaps run on a core no CPU runs
	 * guests on, if there is one, where recycle() puts it anyway.  (Its
	 * thread 0 is told to reset only after: one that forged its last
	 * report and still runs would miss a reply posted before it traps.)
	 */
	if (__atomic_load_n(&vh->early, __ATOMIC_ACQUIRE) &&
	    vh->params.stub_core >= 0)
		(void)cpu_pin_spare(vh->mapper_tid);
	host_mutex_lock(&vh->lock);
	(void)trap_keep_wipe(vh);
	/* A wipe that failed killed the stub and waited for its end. */
	bool wiped = !trap_dead(vh);
	host_mutex_unlock(&vh->lock);
	vh->wiped = wiped;
	if (!wiped) {
		__atomic_store_n(&vh->early, 0, __ATOMIC_RELEASE);	/* reaped */
		trap_pool_recycling(&vh->params, -1);
	}
	__atomic_store_n(&vh->reaped, 1, __ATOMIC_RELEASE);
	return wiped;
}

int
trap_exit(struct vmspace_host *vh, struct vcpu *cpu)
{
	host_mutex_lock(&vh->lock);
	bool ok = recyclable(vh);
	host_mutex_unlock(&vh->lock);
	if (!ok)
		return trap_kill_async(vh, cpu);
	VMSTAT_ADD(wipes, 1);
	bool ready = trap_pool_recycling(&vh->params, 1) > 0;
	if (ready && cpu_has_spare() && trap_wipe_async(vh, cpu) == 0)
		VMSTAT_ADD(wipes_reaper, 1);
	else
		(void)trap_wipe(vh);
	return 0;
}

/*
 * True if the host shows thread 0 asleep where its reset parks
 * (stub_abi.h, STUB_RESET): in futex(&slot0->req, FUTEX_WAIT, ...,
 * NULL) from the call that returns to STUB_RESET_PARKED.  fd is its
 * /proc/PID/task/TID/syscall, which names a call only while the task is
 * blocked in it and holds still for the reading.  Without a timeout,
 * nothing but a wake of ours ends that sleep: the stub's only other
 * task is the mapper, which wakes no thread unasked, no signal is sent
 * to a stub being recycled, and a guest signal it could raise needs it
 * to run.
 */
static bool
t0_parked_to_reset(int fd)
{
	char buf[256];
	ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	long nr;
	unsigned long a[6], sp, pc;
	if (sscanf(buf, "%ld %lx %lx %lx %lx %lx %lx %lx %lx", &nr, &a[0],
	    &a[1], &a[2], &a[3], &a[4], &a[5], &sp, &pc) != 9)
		return false;
	return nr == SYS_futex &&
	    a[0] == STUB_SLOT(0) + offsetof(struct stub_thread, req) &&
	    a[1] == FUTEX_WAIT && a[3] == 0 && pc == STUB_RESET_PARKED;
}

/*
 * Tells thread 0 to reset and waits until the host shows it parked for
 * that (t0_parked_to_reset); *fdp is then its syscall file, open.  The
 * request word the stub sets on the way is only a hint for the wait:
 * the guest could have set it.
 */
static bool
t0_reset_parked(struct vmspace_host *vh, int *fdp)
{
	struct trap_thread *t = &vh->t0;
	uint32_t *req = &t->thr->req;
	uint64_t start = host_nanotime();
	char path[64];
	unsigned looks = 0;

	/*
	 * It runs on a core no CPU runs guests on, if there is one: on its
	 * stub core it waited for the guests and the CPU there (150 us per
	 * recycle in density, and the fork loop's pool ran dry meanwhile).
	 */
	if (vh->params.stub_core >= 0)
		(void)cpu_pin_spare(t->tid);
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", (int)vh->pid,
	    (int)t->tid);
	if ((*fdp = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return false;
	__atomic_store_n(&t->thr->quit, STUB_QUIT_RESET, __ATOMIC_RELEASE);
	__atomic_store_n(&t->parked, false, __ATOMIC_RELEASE);
	trap_reply_post(t);
	for (;;) {
		uint32_t v = __atomic_load_n(req, __ATOMIC_ACQUIRE);
		if ((v & WW_POSTED) && t0_parked_to_reset(*fdp))
			return true;
		if (host_nanotime() - start > RECYCLE_WAIT_NS || !trap_alive(vh))
			return false;
		if (!(v & WW_POSTED)) {
			struct timespec ts = { 0, 1000000 };
			(void)ww_sleep(req, WW_POSTED, &ts);
		} else if (++looks < 64) {
			sched_yield();	/* it is on its way into the wait */
		} else {
			struct timespec ts = { 0, 50000 };
			nanosleep(&ts, NULL);
		}
	}
}

/*
 * True if thread 0's first report after its reset is the int3 at
 * STUB_RESET_TRAP, its frame on slot 0's signal stack.  The reset's
 * rt_sigreturn asks the host for slot 0's signal stack, which the host
 * refuses, silently, when the thread's current one holds the stack
 * pointer it tests (the frame's, STUB_RESET_FRAME, on this host's
 * kernel; the one it returns to, STUB_RESET_SP, on older ones): a rogue
 * thread 0 can make its signal stack anything, and one that holds every
 * stack pointer of the stub can never be left.  The int3 runs 128 bytes
 * above STUB_RESET_SP, so that the host's test for a switch to the
 * signal stack, made below the red zone, is made at STUB_RESET_SP.  If
 * the signal stack was refused, the rogue one holds the tested pointer,
 * which is STUB_RESET_SP or below it, and ends below STUB_RESET_SP or
 * holds it too: either way the frame lands below STUB_RESET_SP.  If it
 * was installed, STUB_RESET_SP is its base, not on it, and the frame
 * lands at its top.  Only stub code runs in the stub since the thread
 * left STUB_RESET_PARKED: what it reported is what the host gave it.
 */
static bool
t0_trap_checked(struct vmspace_host *vh)
{
	const struct stub_thread *thr = vh->t0.thr;
	uint64_t uc = __atomic_load_n(&thr->ucontext, __ATOMIC_ACQUIRE);

	if (thr->signo != SIGTRAP || uc <= STUB_RESET_SP ||
	    uc > STUB_SLOT_END(0) - sizeof(ucontext_t) || (uc & 7) != 0)
		return false;
	const ucontext_t *u = (const ucontext_t *)(vh->ctl + (uc - STUB_CMD));
	return (uint64_t)u->uc_mcontext.gregs[REG_RSP] == STUB_RESET_SP + 128 &&
	    (uint64_t)u->uc_mcontext.gregs[REG_RIP] == STUB_RESET_TRAP;
}

/*
 * True once the stub's tasks are thread 0 and the mapper only.  A thread
 * destroyed earlier may still be leaving the host's lists; one that
 * stays longer than a quit may take is not ours to wait for.
 */
static bool
tasks_only_ours(struct vmspace_host *vh)
{
	char path[64];
	uint64_t start = host_nanotime();

	snprintf(path, sizeof(path), "/proc/%d/task", (int)vh->pid);
	for (;;) {
		DIR *d = opendir(path);
		if (d == NULL)
			return false;
		bool others = false, mapper = false, t0 = false;
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			char *end;
			long tid = strtol(de->d_name, &end, 10);
			if (de->d_name[0] == '.' || *end != '\0')
				continue;
			if (tid == vh->mapper_tid)
				mapper = true;
			else if (tid == vh->t0.tid)
				t0 = true;
			else
				others = true;
		}
		closedir(d);
		if (!mapper || !t0)
			return false;
		if (!others)
			return true;
		if (host_nanotime() - start > RECYCLE_WAIT_NS)
			return false;
		struct timespec ts = { 0, 50000 };
		nanosleep(&ts, NULL);
	}
}

/* Host-side state as trap_spawn leaves it, thread 0 still to reset. */
static int
recycle_reset(struct vmspace_host *vh)
{
	struct trap_thread *t = &vh->t0;

	trap_thread_fini(t);
	*t = (struct trap_thread){ 0 };
	trap_thread_init(vh, t, 0);
	vh->slots_used = 1;
	vh->root = TRAP_NO_ROOT;
	vh->ngov = 0;
	vh->refusals = 0;
	vh->cputime = 0;	/* the next first run starts the count */
	vh->keep_first = true;	/* its first mappings are worth keeping */
	trap_stats_fold(vh);
	memset(&vh->stats, 0, sizeof(vh->stats));
	trap_hostmap_fini(vh);
	memset(&vh->hm, 0, sizeof(vh->hm));
	return trap_hostmap_init(vh, vh->params.hostmap_budget);
}

/*
 * Counts the host page faults of vh's process since it was last
 * recycled (its threads', the mapper's: /proc/PID/stat's minflt).
 */
static void
stub_minflt(struct vmspace_host *vh)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)vh->pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return;
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* after the name's closing parenthesis: state, then minflt is the 8th */
	char *s = strrchr(buf, ')');
	unsigned long minflt;
	if (s != NULL && sscanf(s + 1, " %*c %*d %*d %*d %*d %*d %*u %lu",
	    &minflt) == 1) {
		VMSTAT_ADD(stub_minflt, minflt - vh->minflt_seen);
		vh->minflt_seen = minflt;
	}
}

/*
 * Zeroes the control memory [p, p + len) of a stub whose threads are
 * all asleep.  Punching it out (MADV_REMOVE) zaps it in every process
 * that maps it, ours too, whose mm runs on the CPUs' core: a TLB
 * shoot-down IPI to that core per recycle, and 20-30 us of this thread's
 * time waiting for it.  A memset of the usual stub's control memory (one
 * thread slot) costs less, and its pages stay for the stub's next
 * occupant; the control memory of one that ran many threads is punched
 * out still, lest the pool keep megabytes.
 */
static int
ctl_zero(uint8_t *p, size_t len)
{
	if (len > CTL_ZERO_MAX)
		return madvise(p, len, MADV_REMOVE);
	memset(p, 0, len);
	return 0;
}

/* recycle(), with thread 0's syscall file in *fdp once it is open. */
static const char *
recycle_t0(struct vmspace_host *vh, int *fdp)
{
	uint64_t t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	if (!t0_reset_parked(vh, fdp))
		return "thread 0 did not park for its reset";
	VMSTAT_ADD(recycle_park_ns, host_nanotime() - t0);
	t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	if (!tasks_only_ours(vh))
		return "a task of it is not ours";
	/* Only the mapper runs now, and it touches none of this. */
	int used = __atomic_load_n(&vh->slots_used, __ATOMIC_ACQUIRE);
	if (ctl_zero(vh->ctl + (STUB_SYNC - STUB_CMD),
	    STUB_SLOT(used) - STUB_SYNC) < 0)
		return "its control memory could not be emptied";
	/* Still asleep: it ran nothing while its memory was emptied. */
	if (!t0_parked_to_reset(*fdp))
		return "thread 0 woke before its reset";
	VMSTAT_ADD(recycle_tasks_ns, host_nanotime() - t0);
	/*
	 * The kernel may still invalidate: nothing is mapped but the kept
	 * mappings, which it unmaps (trap_keep_forget).
	 */
	pid_t tid = vh->t0.tid;
	host_mutex_lock(&vh->lock);
	int rr = recycle_reset(vh);
	vh->t0.tid = tid;
	host_mutex_unlock(&vh->lock);
	if (rr < 0)
		return "no memory";

	t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	host_futex_wake(&vh->t0.thr->req, 1);
	if (trap_wait_report(vh, &vh->t0, true) < 0)
		return "thread 0 did not come back from its reset";
	if (!t0_trap_checked(vh))
		return "thread 0 came back from its reset elsewhere";
	vh->t0.core = -1;
	trap_stub_home(vh);
	vh->t0.fresh = true;	/* its first run loads the guest's FPU state */
	VMSTAT_ADD(recycle_reset_ns, host_nanotime() - t0);
	return NULL;
}

/* Makes wiped vh as clean as a new stub; NULL, or why it could not. */
static const char *
recycle(struct vmspace_host *vh)
{
	int fd = -1;
	const char *why = recycle_t0(vh, &fd);
	if (fd >= 0)
		close(fd);
	return why;
}

/*
 * Gives recycled vh to the pool (why NULL), or reaps it; p are its
 * parameters, read before: once in the pool, vh may be taken and gone.
 */
static void
recycle_end(struct vmspace_host *vh, const char *why,
    const struct trap_params *p)
{
	if (why == NULL) {
		vh->wiped = false;
		vh->early = 0;
		__atomic_store_n(&vh->reaped, 0, __ATOMIC_RELEASE);
	}
	bool back = why == NULL && trap_pool_put(vh) == 0;
	trap_pool_recycling(p, -1);
	if (back) {
		VMSTAT_ADD(recycles, 1);
		return;
	}
	VMSTAT_ADD(recycle_fails, 1);
	if (why != NULL)
		host_debug("trap: stub %d not recycled: %s", (int)vh->pid, why);
	vh->wiped = false;
	trap_reap(vh);
}

void
trap_recycle(struct vmspace_host *vh)
{
	struct trap_params p = vh->params;
	uint64_t t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	if (vmspace_stats_enabled())
		stub_minflt(vh);
	const char *why = recycle(vh);
	VMSTAT_ADD(recycle_ns, host_nanotime() - t0);
	recycle_end(vh, why, &p);
}

/*
 * A stub wiped by a reaper is recycled as soon as it is wiped
 * (trap_recycle_wiped), not when the kernel destroys its vmspace
 * (trap_recycle_destroyed): the kernel's vmreap thread does that when it
 * runs, and in density it shares its CPU with the fork loop.  Whichever
 * of the two comes second ends it: the stub goes to the pool only when
 * both are done, so that no two vmspaces of the kernel ever name one stub.
 */
#define EARLY_ON	1u	/* recycled as soon as wiped */
#define EARLY_RECYCLED	2u	/* ... and that is done */
#define EARLY_DESTROYED	4u	/* the kernel destroyed its vmspace */

static void
early_step(struct vmspace_host *vh, unsigned step)
{
	unsigned was = __atomic_fetch_or(&vh->early, step, __ATOMIC_ACQ_REL);
	if (((was | step) & (EARLY_RECYCLED | EARLY_DESTROYED)) !=
	    (EARLY_RECYCLED | EARLY_DESTROYED))
		return;
	struct trap_params p = vh->params;
	recycle_end(vh, vh->early_why, &p);
}

void
trap_recycle_early(struct vmspace_host *vh)
{
	__atomic_store_n(&vh->early, EARLY_ON, __ATOMIC_RELEASE);
}

void
trap_recycle_wiped(struct vmspace_host *vh)
{
	uint64_t t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	trap_stats_log(vh);	/* before recycle_reset zeroes them */
	if (vmspace_stats_enabled())
		stub_minflt(vh);
	const char *why = recycle(vh);
	VMSTAT_ADD(recycle_ns, host_nanotime() - t0);
	if (why != NULL) {
		/* Dead and collected here, not on the CPU that ends it. */
		trap_kill(vh, NULL);
		stub_waitpid(vh->pid, NULL);
		vh->reaping = true;
	}
	vh->early_why = why;
	early_step(vh, EARLY_RECYCLED);
}

bool
trap_recycle_destroyed(struct vmspace_host *vh)
{
	if (!(__atomic_load_n(&vh->early, __ATOMIC_ACQUIRE) & EARLY_ON))
		return false;
	early_step(vh, EARLY_DESTROYED);
	return true;
}
