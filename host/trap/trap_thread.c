/*
 * More guest threads in one stub (vmspace_thread_create).
 *
 * A new thread takes a free slot of the control memory (stub_abi.h): its
 * words and its signal stack.  The mapper clones it on our command, with
 * the one set of flags its filter lets it use, onto the slot's stack; the
 * thread installs its signal stack and the guest filter and parks in its
 * handler with a first trap, which we wait for without the vmspace's
 * lock.  Its first run writes the guest's registers into that frame.
 *
 * The thread's id is what it wrote into its slot, which the guest's other
 * threads could have overwritten meanwhile; it is believed only if the
 * host has that task in the stub and no other thread of ours is it: the
 * guest cannot make tasks, so the one unknown task is the new thread.
 *
 * A thread ends when told to quit with its reply; its slot is free again
 * once the host has cleared its id word (set_tid_address), i.e. the
 * thread no longer uses its stack.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/hostlog.h"
#include "host/hostsync.h"
#include "host/trap/trap.h"

#define TRAP_QUIT_WAIT_NS	1000000000UL	/* a thread told to quit is gone by then */

void
trap_thread_init(struct vmspace_host *vh, struct trap_thread *t, int n)
{
	t->n = n;
	t->thr = (struct stub_thread *)(vh->ctl + (STUB_SLOT(n) - STUB_CMD));
	t->syscallfd = t->schedfd = -1;
	t->kfault_va = UINT64_MAX;
	t->last_fault_va = UINT64_MAX;
	t->core = -1;
	t->fpu_at = 0;			/* no image size known yet */
}

void
trap_thread_fini(struct trap_thread *t)
{
	if (t->syscallfd >= 0)
		close(t->syscallfd);
	if (t->schedfd >= 0)
		close(t->schedfd);
	t->syscallfd = t->schedfd = -1;
}

struct trap_thread *
trap_thread_get(struct vmspace_host *vh, int n)
{
	if (n < 0 || n >= STUB_MAXTHREADS || vh->threads[n] == NULL) {
		errno = ENOENT;
		return NULL;
	}
	return vh->threads[n];
}

bool
trap_tid_new(struct vmspace_host *vh, struct trap_thread *t, pid_t tid)
{
	if (tid <= 0 || tid == vh->pid || tid == vh->mapper_tid)
		return false;
	for (int n = 1; n < STUB_MAXTHREADS; n++)
		if (vh->threads[n] != NULL && vh->threads[n] != t &&
		    vh->threads[n]->tid == tid)
			return false;
	return trap_task_exists(vh->pid, tid);
}

int
trap_thread_clone(struct vmspace_host *vh, struct trap_thread *t)
{
	__atomic_store_n(&vh->sync->clone_ret, 0, __ATOMIC_RELEASE);
	if (trap_cmd_add(vh, STUB_OP_CLONE, STUB_SLOT_END(t->n), 0, 0, 0) < 0 ||
	    trap_cmd_issue(vh, NULL, false) < 0) {
		errno = EAGAIN;
		return -1;
	}
	int64_t r = __atomic_load_n(&vh->sync->clone_ret, __ATOMIC_ACQUIRE);
	if (r <= 0 || r > INT32_MAX) {
		/* EAGAIN is the host's thread limit; the rest we pass on as it. */
		errno = r == -ENOMEM ? ENOMEM : EAGAIN;
		if (r == 0 || r < -4095 || r > INT32_MAX)
			host_log("trap: stub %d: bad clone result %lld", (int)vh->pid,
			    (long long)r);
		return -1;
	}
	return 0;
}

int
trap_thread_create(struct vmspace_host *vh)
{
	struct trap_thread *t = calloc(1, sizeof(*t));
	if (t == NULL)
		return -1;

	host_mutex_lock(&vh->lock);
	int n;
	for (n = 1; n < STUB_MAXTHREADS && vh->threads[n] != NULL; n++)
		;
	if (n == STUB_MAXTHREADS) {
		host_mutex_unlock(&vh->lock);
		free(t);
		errno = EAGAIN;
		return -1;
	}
	trap_thread_init(vh, t, n);
	memset(t->thr, 0, sizeof(*t->thr));
	if (n >= __atomic_load_n(&vh->slots_used, __ATOMIC_RELAXED))
		__atomic_store_n(&vh->slots_used, n + 1, __ATOMIC_RELEASE);
	if (trap_dead(vh)) {
		/* Its runs give T_DEAD, as every thread's of a dead stub. */
		vh->threads[n] = t;
		host_mutex_unlock(&vh->lock);
		return n;
	}
	if (trap_thread_clone(vh, t) < 0) {
		int e = errno;
		host_mutex_unlock(&vh->lock);
		free(t);
		errno = e;
		return -1;
	}
	vh->threads[n] = t;
	host_mutex_unlock(&vh->lock);

	/* Its first trap, as thread 0's at boot; a stub that fails it dies. */
	if (trap_wait_report(vh, t, true) < 0) {
		trap_kill(vh, "new thread did not start");
		return n;
	}
	pid_t tid = (pid_t)__atomic_load_n(&t->thr->tid, __ATOMIC_ACQUIRE);
	host_mutex_lock(&vh->lock);
	bool ok = trap_tid_new(vh, t, tid);
	if (ok)
		t->tid = tid;
	host_mutex_unlock(&vh->lock);
	if (!ok)
		trap_kill(vh, "new thread told a wrong id");
	t->fresh = true;
	return n;
}

/*
 * Tells parked thread t to quit and waits until the host has taken it
 * off its slot.  A thread that does not go kills the stub: the slot
 * cannot be given out while it may still run there.
 */
static void
trap_thread_quit(struct vmspace_host *vh, struct trap_thread *t)
{
	uint32_t *tidw = &t->thr->tid;
	uint64_t start = host_nanotime();

	__atomic_store_n(&t->thr->quit, STUB_QUIT_EXIT, __ATOMIC_RELEASE);
	__atomic_store_n(&t->parked, false, __ATOMIC_RELEASE);
	trap_reply_post(t);
	for (;;) {
		uint32_t v = __atomic_load_n(tidw, __ATOMIC_ACQUIRE);
		if (v == 0 || trap_dead(vh))
			return;
		if (host_nanotime() - start > TRAP_QUIT_WAIT_NS || !trap_alive(vh)) {
			trap_kill(vh, "thread did not quit");
			trap_wait_gone(vh);
			return;
		}
		struct timespec ts = { 0, 10000000 };
		host_futex_wait(tidw, v, &ts);
	}
}

int
trap_thread_destroy(struct vmspace_host *vh, int n)
{
	struct trap_thread *t = trap_thread_get(vh, n);
	if (t == NULL)
		return -1;
	if (!trap_dead(vh)) {
		if (__atomic_load_n(&t->parked, __ATOMIC_ACQUIRE) && t->tid > 0)
			trap_thread_quit(vh, t);
		else {
			/* Running, or never started: nothing else can free its slot. */
			trap_kill(vh, "thread destroyed while not parked");
			trap_wait_gone(vh);
		}
	}
	host_mutex_lock(&vh->lock);
	vh->threads[n] = NULL;
	host_mutex_unlock(&vh->lock);
	trap_thread_fini(t);
	free(t);
	return 0;
}
