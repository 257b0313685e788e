/*
 * Commands to the stub's mapper thread, and the budget of host mappings.
 * All of it under the vmspace's lock (trap.h).
 *
 * A batch of operations is written into the next of the command areas and
 * published by bumping cmd->seq.  The mapper carries it out, counts it on
 * its eventfd and, if asked, resumes the parked guest thread itself, so a
 * served fault costs one hand-off to the stub and no extra one back.  An
 * area is never rewritten before the eventfd has proved its last batch
 * done: an operation torn between two batches could map a page the
 * vpagetable does not.
 *
 * Every mapping made here is accounted in trap_hostmap.c, which keeps the
 * stub's host VMAs within budget.  A bitmap of 1 GiB slots that may hold
 * mappings lets an invalidation of a large range skip the empty ones.
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/cpu.h"
#include "host/hostlog.h"
#include "host/hostsync.h"
#include "host/physmem.h"
#include "host/trap/trap.h"

#define TRAP_NUDGE_NS		200000UL	/* then wake the mapper ourselves */
#define TRAP_REREAD_NS		1000UL		/* between reads of the proof */
#define TRAP_WAIT_POLL_MS	20		/* check the stub is alive */
#define TRAP_WAIT_LIMIT_NS	5000000000UL	/* a mapper this slow is dead */

/* n more proving batches are done: the batches before them are too. */
static void
trap_cmd_proved(struct vmspace_host *vh, uint64_t n)
{
	if (n > vh->nproving) {		/* cannot be: only the mapper counts */
		trap_kill(vh, "mapper proved batches it was not given");
		return;
	}
	while (n-- > 0) {
		vh->confirmed = vh->proving[vh->proving_head];
		vh->proving_head = (vh->proving_head + 1) % STUB_CMD_AREAS;
		vh->nproving--;
	}
}

/*
 * How long a wait spins before it sleeps: a mapper on a core of its own
 * (latency) is done sooner than a sleep and a wake-up would take; one
 * that shares our core (density) runs only once we stop, so spinning
 * against it only delays it.  An unplaced stub may be either.
 */
static uint64_t
trap_cmd_spin_ns(const struct vmspace_host *vh)
{
	if (vh->spin_ns > 0)
		return vh->spin_ns + TRAP_NUDGE_NS;
	return vh->params.stub_core < 0 ? TRAP_NUDGE_NS : 0;
}

/*
 * Waits until the mapper has carried out batch target.  The sync
 * page's done word says so first (we spin on it), but the guest can
 * write that word; only the mapper can write the eventfd, so a batch
 * counts as done when the eventfd has counted it.  A mapper that the
 * guest's thread was asked to wake and was not is woken directly.
 */
static int
trap_cmd_wait_for(struct vmspace_host *vh, uint32_t target)
{
	uint64_t start = 0, next_read = 0, n;
	bool nudged = false;

	while ((int32_t)(vh->confirmed - target) < 0) {
		uint64_t now = host_nanotime();
		if (start == 0)
			start = now;
		bool spin = now - start < trap_cmd_spin_ns(vh);
		bool hint = (int32_t)(__atomic_load_n(&vh->sync->done,
		    __ATOMIC_ACQUIRE) - target) >= 0;
		/*
		 * While we spin, the proof is read only once the done word
		 * says it may be there, and then at most once a microsecond
		 * (the mapper counts it a few instructions after the word):
		 * reading at every turn made an munmap cost 40-110 host
		 * reads of the eventfd.
		 */
		if ((!spin || (hint && now >= next_read)) &&
		    read(vh->donefd, &n, sizeof(n)) == sizeof(n)) {
			trap_cmd_proved(vh, n);
			continue;
		}
		if (trap_dead(vh))
			return -1;
		if (spin) {
			if (hint && now >= next_read)
				next_read = now + TRAP_REREAD_NS;
			cpu_relax();
			continue;
		}
		if (!nudged) {
			TRAP_COUNT(vh, wait_sleep, 1);
			host_futex_wake(&vh->cmd->seq, 1);
			nudged = true;
		}
		if (now - start > TRAP_WAIT_LIMIT_NS || !trap_alive(vh)) {
			trap_kill(vh, "mapper stopped answering");
			return -1;
		}
		struct pollfd pfd = { vh->donefd, POLLIN, 0 };
		poll(&pfd, 1, TRAP_WAIT_POLL_MS);
	}
	return 0;
}

int
trap_cmd_wait(struct vmspace_host *vh)
{
	return trap_cmd_wait_for(vh, vh->seq);
}

static struct stub_area *
trap_cmd_area(struct vmspace_host *vh)
{
	return &vh->cmd->area[(vh->seq + 1) % STUB_CMD_AREAS];
}

/*
 * Publishes the batch.  The thread it is for, spinning on its reply word
 * in its handler, is asked to wake the mapper (a hand-off on its own
 * core); if it sleeps, or the batch is for no thread (an invalidation,
 * perhaps from another CPU while the guest's threads run), we wake the
 * mapper.  With resume, the mapper then resumes the thread; without, we
 * wait until the batch is done.
 */
int
trap_cmd_issue(struct vmspace_host *vh, struct trap_thread *t, bool resume)
{
	/* A recycled stub's mappings of no occupant go before any resume. */
	if (trap_keep_settle(vh) < 0)
		return -1;
	/* Room to remember one more proving batch. */
	if (vh->nproving == STUB_CMD_AREAS &&
	    trap_cmd_wait_for(vh, vh->proving[vh->proving_head]) < 0)
		return -1;
	if (trap_dead(vh))
		return -1;
	struct stub_area *a = trap_cmd_area(vh);
	if (resume && t != NULL)
		trap_req_release(t);	/* before the mapper can resume it */
	a->nops = vh->nops;
	a->resume = resume && t != NULL;
	a->thread = t != NULL ? (uint32_t)t->n + 1 : 0;
	/* A deferred invalidation's batch is proved: trap_settle waits for it. */
	a->prove = !resume || vh->inval_queued ||
	    (vh->seq + 1) % STUB_PROVE_EVERY == 0;
	if (vh->inval_queued) {
		vh->inval_queued = false;
		vh->inval_owed = true;
		vh->inval_seq = vh->seq + 1;
	}
	if (a->prove)
		vh->proving[(vh->proving_head + vh->nproving++) % STUB_CMD_AREAS] =
		    vh->seq + 1;
	vh->nops = 0;
	__atomic_store_n(&vh->seq, vh->seq + 1, __ATOMIC_RELEASE);
	__atomic_store_n(&vh->cmd->seq, vh->seq, __ATOMIC_SEQ_CST);
	uint32_t expect = 0;
	if (t != NULL) {
		if (a->resume)
			__atomic_store_n(&t->parked, false, __ATOMIC_RELEASE);
		trap_resumed(t);	/* resumed, or nudged back to spinning */
	}
	if (a->resume)
		TRAP_COUNT(vh, batch_resume, 1);
	else
		TRAP_COUNT(vh, batch_sync, 1);
	if (t == NULL || !__atomic_compare_exchange_n(&t->thr->reply, &expect,
	    WW_MAPPER, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		TRAP_COUNT(vh, wake_futex, 1);
		host_futex_wake(&vh->cmd->seq, 1);
	} else {
		TRAP_COUNT(vh, wake_guest, 1);
	}
	return a->resume ? 0 : trap_cmd_wait(vh);
}

/*
 * A mapping of [addr, addr + len) about to be queued replaces, at once,
 * whatever the host maps there: a munmap queued inside that range in the
 * batch being built is then only a host call more, and goes.  Looked for
 * while a deferred invalidation waits in the batch: fork's protection of
 * the parent's stack top, which the copy fork made for it maps again (a
 * one-page munmap, 3 us of the mapper's time here).
 */
static void
trap_cmd_drop_replaced(struct vmspace_host *vh, uint64_t addr, uint64_t len)
{
	struct stub_op *ops = trap_cmd_area(vh)->ops;

	for (uint32_t i = 0; i < vh->nops; i++) {
		if (ops[i].op != STUB_OP_MUNMAP || ops[i].addr < addr ||
		    ops[i].addr + ops[i].len > addr + len)
			continue;
		memmove(&ops[i], &ops[i + 1], (vh->nops - i - 1) * sizeof(*ops));
		vh->nops--;
		i--;
	}
}

/* Appends one operation; a full batch is carried out first. */
int
trap_cmd_add(struct vmspace_host *vh, uint32_t op, uint64_t addr,
    uint64_t len, uint32_t prot, uint64_t off)
{
	if (vh->nops == STUB_AREA_OPS && trap_cmd_issue(vh, NULL, false) < 0)
		return -1;
	/*
	 * The area is free once the batch that last used it is done; a proven
	 * batch at most STUB_PROVE_EVERY later than that one proves it.
	 */
	if (vh->nops == 0 &&
	    trap_cmd_wait_for(vh, vh->seq + 1 - STUB_CMD_AREAS) < 0)
		return -1;
	if (op == STUB_OP_MMAP && vh->inval_queued)
		trap_cmd_drop_replaced(vh, addr, len);
	trap_cmd_area(vh)->ops[vh->nops++] =
	    (struct stub_op){ op, prot, addr, len, off };
	vh->nmapops++;
	switch (op) {
	case STUB_OP_MMAP:
		TRAP_COUNT(vh, op_mmap, 1);
		TRAP_COUNT(vh, pages_mapped, len / PAGE_SIZE);
		break;
	case STUB_OP_MUNMAP:
		TRAP_COUNT(vh, op_munmap, 1);
		break;
	case STUB_OP_MPROTECT:
		TRAP_COUNT(vh, op_mprotect, 1);
		break;
	}
	return 0;
}

void
trap_stats_log(const struct vmspace_host *vh)
{
	const struct trap_stats *s = &vh->stats;

	host_debug("trap: stub %d: syscalls %lu signalled %lu patched; "
	    "faults %lu (%lu to the kernel); other reports %lu (CPU slept "
	    "for %lu); batches %lu "
	    "resuming %lu waited (mapper woken by the guest %lu, by futex %lu; "
	    "waits slept %lu); mapper mmap %lu (%lu pages) munmap %lu "
	    "mprotect %lu; kept mappings claimed %lu dropped %lu",
	    (int)vh->pid, s->sys_signal, s->sys_patched,
	    s->faults, s->fault_kernel, s->other,
	    __atomic_load_n(&vh->nsleeps, __ATOMIC_RELAXED), s->batch_resume,
	    s->batch_sync,
	    s->wake_guest, s->wake_futex, s->wait_sleep, s->op_mmap,
	    s->pages_mapped, s->op_munmap, s->op_mprotect, s->keep_claimed,
	    s->keep_dropped);
}

static void
slot_mark(struct vmspace_host *vh, uint64_t addr, uint64_t len)
{
	for (uint64_t s = addr >> TRAP_SLOT_SHIFT;
	    s <= (addr + len - 1) >> TRAP_SLOT_SHIFT; s++)
		vh->hm.slots[s / 64] |= 1UL << (s % 64);
}

/*
 * Maps [addr, addr+len) to RAM at pa; a recycled stub may hold that very
 * mapping already (trap_keep.c), which is then only counted.
 */
int
trap_map_run(struct vmspace_host *vh, uint64_t addr, uint64_t len,
    uint32_t prot, uint64_t pa)
{
	if (trap_keep_claim(vh, addr, len, prot, pa)) {
		if (trap_hostmap_note_map(vh, addr, len) < 0)
			return -1;
		slot_mark(vh, addr, len);
		return 0;
	}
	if (trap_keep_cover(vh, addr, addr + len) < 0 ||
	    trap_hostmap_note_map(vh, addr, len) < 0 ||
	    trap_cmd_add(vh, STUB_OP_MMAP, addr, len, prot, pa) < 0)
		return -1;
	slot_mark(vh, addr, len);
	trap_keep_note(vh, addr, len, prot, pa);
	return 0;
}

/* Changes the protection of a page the host has mapped. */
int
trap_protect_page(struct vmspace_host *vh, uint64_t page, uint32_t prot)
{
	trap_hostmap_note_prot(vh, page);
	if (trap_keep_forget(vh, page, page + PAGE_SIZE) < 0)
		return -1;
	return trap_cmd_add(vh, STUB_OP_MPROTECT, page, PAGE_SIZE, prot, 0);
}

/*
 * Thread 0 if it is parked and spinning for its reply (latency
 * placement), else NULL.  A batch for no thread wakes the mapper from
 * the vkernel's core, and the mapper, on the core where that thread
 * spins, then waits for the spin to end or the host to preempt it (an
 * munmap took 23 us at the median, against 4 us in density).  Asked,
 * the thread wakes the mapper itself and sleeps, a hand-off on its own
 * core, as for a served fault; the mapper follows thread 0's core.
 */
static struct trap_thread *
trap_cmd_spinner(struct vmspace_host *vh)
{
	struct trap_thread *t = vh->threads[0];

	if (vh->spin_ns == 0 || t == NULL || t->thr == NULL ||
	    !__atomic_load_n(&t->parked, __ATOMIC_ACQUIRE) ||
	    __atomic_load_n(&t->thr->reply, __ATOMIC_ACQUIRE) != 0)
		return NULL;
	return t;
}

/*
 * Queues the munmaps that drop the host mappings of [start, end), as far
 * as the account knows of any; true if it queued some.  Returns -1 if
 * the stub died meanwhile.
 */
static int trap_inval_slots(struct vmspace_host *vh, uint64_t start,
    uint64_t end);

static int
trap_inval_queue(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	/*
	 * Nothing of the guest's lies below VM_MIN_USER_ADDRESS, and the
	 * trampoline table does (trap_patch.c): it stays.
	 */
	if (start < VM_MIN_USER_ADDRESS)
		start = VM_MIN_USER_ADDRESS;
	if (end > start && trap_keep_forget(vh, start, end) < 0)
		return -1;
	/*
	 * A range the host never mapped (memory never touched, or whose
	 * mappings an earlier invalidation took) costs no batch: the
	 * account is exact up to queued mappings, which it counts too.
	 */
	if (end <= start || !trap_hostmap_any(vh, start, end))
		return 0;
	return trap_inval_slots(vh, start, end);
}

/*
 * Queues the munmaps of [start, end) (above VM_MIN_USER_ADDRESS) in
 * every slot that may hold mappings, whatever the account says of the
 * range itself; 1 if it queued some.
 */
static int
trap_inval_slots(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	trap_hostmap_note_unmap(vh, start, end);
	int queued = 0;
	for (uint64_t s = start >> TRAP_SLOT_SHIFT;
	    s < TRAP_NSLOTS && (s << TRAP_SLOT_SHIFT) < end; s++) {
		uint64_t *w = &vh->hm.slots[s / 64];
		uint64_t bit = 1UL << (s % 64);
		if ((*w & bit) == 0) {
			s |= 63 * (*w == 0);	/* skip an empty word */
			continue;
		}
		uint64_t lo = s << TRAP_SLOT_SHIFT, hi = lo + STUB_OP_MAXLEN;
		if (start <= lo && end >= hi)
			*w &= ~bit;
		if (trap_cmd_add(vh, STUB_OP_MUNMAP, lo > start ? lo : start,
		    (hi < end ? hi : end) - (lo > start ? lo : start), 0, 0) < 0)
			return -1;
		queued = 1;
	}
	return queued;
}

static int trap_inval_issue(struct vmspace_host *vh, int q);

/* A stub whose mappings could not be dropped: 0 once it is gone. */
static int
trap_inval_failed(struct vmspace_host *vh)
{
	trap_kill(vh, "host mappings could not be dropped");
	trap_wait_gone(vh);
	return 0;
}

/*
 * Drops the host mappings of [start, end) before returning, for every
 * thread of the stub at once: the host's munmap shoots the translation
 * down on every CPU that runs one.  Never later: a guest can post a
 * report without stopping, so "parked" is a belief, and a deferred unmap
 * could leave it a page the kernel gave away.  A stub
 * that is killed, or dies on the way, maps nothing only once its process
 * is gone (a SIGKILL takes effect later): we wait for that, and the
 * answer is then 0 as well.
 */
int
trap_inval(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	if (trap_dead(vh))
		return trap_inval_failed(vh);
	return trap_inval_issue(vh, trap_inval_queue(vh, start, end));
}

int
trap_inval_but(struct vmspace_host *vh, const struct trap_kept *keep, int n)
{
	uint64_t at = VM_MIN_USER_ADDRESS;
	int q = 0;

	if (trap_dead(vh))
		return trap_inval_failed(vh);
	/*
	 * As thorough as trap_inval of everything: each gap is unmapped in
	 * every slot that may hold mappings, even where the account counts
	 * none.
	 */
	if (!trap_hostmap_any(vh, VM_MIN_USER_ADDRESS, VM_MAX_USER_ADDRESS))
		return trap_inval_issue(vh, 0);
	for (int i = 0; i <= n && q >= 0; i++) {
		uint64_t to = i < n ? keep[i].addr : VM_MAX_USER_ADDRESS;
		int qi = to > at ? trap_inval_slots(vh, at, to) : 0;
		q = qi < 0 ? qi : q | qi;
		if (i < n)
			at = keep[i].addr + keep[i].len;
	}
	return trap_inval_issue(vh, q);
}

/*
 * Carries out the munmaps trap_inval_queue queued (q > 0), if any
 * (q == 0), or kills the stub (q < 0).
 */
static int
trap_inval_issue(struct vmspace_host *vh, int q)
{
	if (q < 0)
		return trap_inval_failed(vh);
	/* A deferred invalidation may hold back pages this one frees. */
	if (q == 0)
		return trap_settle(vh);
	/*
	 * An unmapping the host refused would leave the guest a page the
	 * kernel may reuse.  Within the budget a munmap cannot fail for want
	 * of VMAs: a failure means a broken or tampered stub.
	 */
	if (trap_cmd_issue(vh, trap_cmd_spinner(vh), false) == 0 &&
	    __atomic_load_n(&vh->sync->unmap_err, __ATOMIC_ACQUIRE) == 0) {
		vh->inval_owed = false;		/* the wait covered it too */
		return 0;
	}
	return trap_inval_failed(vh);
}

/*
 * MADV_INVAL_DEFER: fork's write protection of the parent.  Its munmaps
 * wait in the batch being built, and go with the parent's resume after
 * the fork, in the batch that maps the pages fork copied for it: one
 * mapper round trip for both, where the protection was one of its own
 * (13 us of a 156 us fork+exit+wait in density, the CPU's sleep and
 * wake-up on its own mapper's core mostly).  Until they are done the
 * stub's old mappings stay, writable; that is safe while no guest code
 * of the stub runs, which holds with thread 0 its only thread: any
 * resume of it is a batch after them (trap_run), any invalidation waits
 * for them (trap_inval, as the range's pages may be about to be freed),
 * and so does MADV_SETTLE, which the kernel calls before another
 * process's first run (the child, whose copy-on-write pages these are)
 * and before an address space's pages are freed.  A thread 0 that posts
 * a report without stopping is the reason for "never later" above: it
 * may go on writing these pages, which are the parent's and its child's
 * only, until the batch is done, which is before the child runs.
 * With more threads it is done at once.  Returns 1 if deferred.
 */
int
trap_inval_defer(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	if (trap_dead(vh))
		return trap_inval_failed(vh);
	for (int n = 1; n < __atomic_load_n(&vh->slots_used,
	    __ATOMIC_ACQUIRE); n++)
		if (vh->threads[n] != NULL)
			return trap_inval(vh, start, end);
	int q = trap_inval_queue(vh, start, end);
	if (q < 0)
		return trap_inval_failed(vh);
	if (q > 0)
		vh->inval_queued = true;
	return q;
}

/*
 * MADV_SETTLE: returns once no deferred invalidation is left undone: it
 * goes to the mapper now if it still waits in the batch being built,
 * else we wait for the batch that took it to be proved.
 */
int
trap_settle(struct vmspace_host *vh)
{
	if (trap_dead(vh))
		return trap_inval_failed(vh);
	if (vh->inval_queued) {
		if (trap_cmd_issue(vh, NULL, false) < 0)
			return trap_inval_failed(vh);
	} else if (vh->inval_owed &&
	    (int32_t)(vh->confirmed - vh->inval_seq) < 0 &&
	    trap_cmd_wait_for(vh, vh->inval_seq) < 0) {
		return trap_inval_failed(vh);
	}
	vh->inval_owed = false;
	if (__atomic_load_n(&vh->sync->unmap_err, __ATOMIC_ACQUIRE) != 0)
		return trap_inval_failed(vh);
	return 0;
}
