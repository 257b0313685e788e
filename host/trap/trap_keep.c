/*
 * A recycled stub keeps its last occupant's read-only mappings, checked
 * at its next first activation.
 *
 * In a fork loop the stub a child takes from the pool was last used by
 * the previous child of the same parent, which had the same read-only
 * mappings (text, rodata, copy-on-write data) at the same addresses of
 * the same RAM pages; the child's first run mapped them again, an mmap
 * of the RAM file each (~2.5 us here, 6-9 of them per fork).  So the
 * read-only mappings the host holds are remembered exactly (address,
 * length, offset in RAM, protection) in vh->kept, up to TRAP_KEEP_MAX;
 * the wipe that recycles a stub (trap_recycle.c) unmaps all but them,
 * and the next occupant's first mappings claim those that equal one of
 * its own.  The rest goes before its first instruction.
 *
 * A record is exact or absent: every change the host's mappings of its
 * range may undergo (an invalidation, a protection change, an eviction
 * of its group, a mapping over it) drops it first (trap_keep_forget).
 *
 * Why the equality check suffices.  A claimed record maps address a to
 * RAM page p with protection prot; the new occupant asked for that very
 * mapping, from its own page tables, under the vmspace's lock: its
 * tables map p there with at least prot, so the host mapping gives the
 * guest nothing its tables do not.  From the claim on, it is counted in
 * the host-mapping account like any mapping made (trap_hostmap.c), so
 * the occupant's later invalidations (reclaim, munmap, mprotect, CoW)
 * reach it.  A record not claimed maps a page the new occupant's tables
 * may not: it is unmapped in the batch that precedes the occupant's
 * first resume (trap_keep_settle, from trap_cmd_issue and trap_run),
 * whatever took the stub (a first activation with or without prefaults,
 * a thread's run, a resume of any kind): no guest instruction runs in
 * the stub before it.  One overlapped by a mapping queued earlier is
 * unmapped before that mapping, in the same batch.
 *
 * What a stub in the pool can reach.  The retained pages may be freed by
 * the kernel once the last occupant's vmspace is released (the stub
 * counts as gone after the wipe, trap_gone), and reused by anyone.  A
 * stub in the pool runs no code: its mapper waits for a batch, thread 0
 * sleeps in its handler from the host-verified reset (trap_recycle.c),
 * whose rt_sigreturn, int3 and report touch only the stub's image and
 * control memory, below VM_MIN_USER_ADDRESS, never a guest page.  Before
 * that reset, between the wipe and the host's proof that thread 0 is
 * parked, a thread 0 that forged its last report may still run, and it
 * could read a retained page the kernel reused meanwhile.  What it reads
 * it cannot keep: the retained mappings are read-only and it can change
 * no mapping or protection (the guest filter), the stub has no writable
 * memory of its own, the control memory is emptied before the reset and
 * never handed to a guest, and the reset loads every register, mask,
 * stack and FPU state from the stub's image.  Nothing reaches another
 * process: its reports go unanswered and it holds no descriptor but the
 * mapper's.  That it may run kept guest code rather than the stub's
 * changes nothing the reset relies on: the filter decides what its calls
 * can do, whoever makes them.  So the dead process's pages need not wait
 * for that proof (vmspace_kill's contract and vmreap's "gone" still mean
 * what they did: the stub can write no page and keep nothing it reads),
 * and the host-mapping account, emptied at the reset, counts the kept
 * mappings again only once an occupant claims them.  The global bound
 * of host mappings (trap_hostmap.c) does not count the at most
 * TRAP_KEEP_MAX a pooled stub holds.
 */
#include <string.h>
#include <sys/mman.h>

#include "host/trap/trap.h"

/* Remembers [addr, addr + len) mapped read-only at RAM offset off. */
void
trap_keep_note(struct vmspace_host *vh, uint64_t addr, uint64_t len,
    uint32_t prot, uint64_t off)
{
	if (!vh->keep_first || (prot & PROT_WRITE) ||
	    vh->nkept == TRAP_KEEP_MAX)
		return;
	/* The occupant's own, queued after any munmap of the kept ones. */
	vh->kept[vh->nkept++] = (struct trap_kept){ addr, len, off, prot,
	    true };
}

/* Queues the munmap of a record no occupant's tables vouch for. */
static int
keep_unmap(struct vmspace_host *vh, const struct trap_kept *k)
{
	TRAP_COUNT(vh, keep_dropped, 1);
	return trap_cmd_add(vh, STUB_OP_MUNMAP, k->addr, k->len, 0, 0);
}

/* Keeps piece k of a record of no occupant, or unmaps it. */
static int
keep_piece(struct vmspace_host *vh, const struct trap_kept *k)
{
	if (k->len == 0)
		return 0;
	if (vh->nkept == TRAP_KEEP_MAX)
		return keep_unmap(vh, k);
	vh->kept[vh->nkept++] = *k;
	return 0;
}

int
trap_keep_cover(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	if (!vh->keep_pending)
		return trap_keep_forget(vh, start, end);
	/*
	 * The mapping replaces what it covers (MAP_FIXED): of a record of
	 * no occupant, what it leaves is still exactly mapped, and goes
	 * with the rest (trap_keep_settle, after this mapping).
	 */
	int r = 0;
	for (int i = 0; i < vh->nkept; i++) {
		struct trap_kept k = vh->kept[i];
		if (k.addr >= end || k.addr + k.len <= start)
			continue;
		vh->kept[i--] = vh->kept[--vh->nkept];
		if (k.claimed)
			continue;	/* in the account */
		struct trap_kept lo = k, hi = k;
		lo.len = start > k.addr ? start - k.addr : 0;
		hi.len = k.addr + k.len > end ? k.addr + k.len - end : 0;
		hi.addr = end;
		hi.off = k.off + (end - k.addr);
		if (keep_piece(vh, &lo) < 0 || keep_piece(vh, &hi) < 0)
			r = -1;
	}
	return r;
}

int
trap_keep_forget(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	int r = 0;
	for (int i = 0; i < vh->nkept; i++) {
		struct trap_kept *k = &vh->kept[i];
		if (k->addr >= end || k->addr + k->len <= start)
			continue;
		/* Not in the account: nothing else would unmap it. */
		if (vh->keep_pending && !k->claimed && keep_unmap(vh, k) < 0)
			r = -1;
		vh->kept[i--] = vh->kept[--vh->nkept];
	}
	return r;
}

bool
trap_keep_claim(struct vmspace_host *vh, uint64_t addr, uint64_t len,
    uint32_t prot, uint64_t off)
{
	if (!vh->keep_pending)
		return false;
	for (int i = 0; i < vh->nkept; i++) {
		struct trap_kept *k = &vh->kept[i];
		if (k->addr == addr && k->len == len && k->off == off &&
		    k->prot == prot && !k->claimed) {
			k->claimed = true;
			TRAP_COUNT(vh, keep_claimed, 1);
			return true;
		}
	}
	return false;
}

/*
 * Sorts the records by address: the wipe unmaps the gaps between them.
 * A few records, an insertion sort.
 */
static void
keep_sort(struct vmspace_host *vh)
{
	for (int i = 1; i < vh->nkept; i++) {
		struct trap_kept k = vh->kept[i];
		int j = i;
		for (; j > 0 && vh->kept[j - 1].addr > k.addr; j--)
			vh->kept[j] = vh->kept[j - 1];
		vh->kept[j] = k;
	}
}

int
trap_keep_settle(struct vmspace_host *vh)
{
	uint64_t lo = 0, hi = 0;
	int r = 0;

	vh->keep_first = false;
	if (!vh->keep_pending)
		return 0;
	vh->keep_pending = false;	/* before: a full batch issues */
	keep_sort(vh);
	/*
	 * One munmap for neighbouring records of no occupant: between two
	 * of them the host maps nothing but what the account counts (the
	 * wipe took the rest), which stays.  At most STUB_OP_MAXLEN: the
	 * mapper's filter kills the stub for a longer one.
	 */
	for (int i = 0; i <= vh->nkept; i++) {
		struct trap_kept *k = &vh->kept[i];
		if (i < vh->nkept && k->claimed)
			continue;
		if (i < vh->nkept && hi != 0 &&
		    k->addr + k->len - lo <= STUB_OP_MAXLEN &&
		    !trap_hostmap_any(vh, hi, k->addr)) {
			hi = k->addr + k->len;
		} else {
			if (hi != 0 && trap_cmd_add(vh, STUB_OP_MUNMAP, lo,
			    hi - lo, 0, 0) < 0)
				r = -1;
			if (i < vh->nkept) {
				lo = k->addr;
				hi = k->addr + k->len;
			}
		}
		if (i < vh->nkept) {
			TRAP_COUNT(vh, keep_dropped, 1);
			memmove(k, k + 1, (vh->nkept - i - 1) * sizeof(*k));
			vh->nkept--;
			i--;
		}
	}
	return r;
}

int
trap_keep_wipe(struct vmspace_host *vh)
{
	/* A stub taken but never run: its records are still exact. */
	vh->keep_pending = false;
	keep_sort(vh);
	for (int i = 0; i < vh->nkept; i++)
		vh->kept[i].claimed = false;
	if (trap_inval_but(vh, vh->kept, vh->nkept) < 0 || trap_dead(vh))
		return -1;
	/* Out of the account (recycle_reset empties it): of no occupant. */
	vh->keep_pending = vh->nkept > 0;
	return 0;
}

