/*
 * Page faults of a guest, as the article's host vm_fault serves them for a
 * MAP_VPAGETABLE mapping: walk the vpagetable in software like the MMU
 * would; if the entry allows the access, set its accessed bit (and, for a
 * write, its modified bit) and map the page; otherwise hand the fault to
 * the vkernel.
 *
 * Modified-bit emulation: a writable page whose VPTE is not yet modified
 * is mapped read-only, so the first write faults here and sets VPTE_M
 * before the page becomes writable.  When the kernel clears VPTE_M it
 * calls MADV_INVAL, and the next write faults again.
 *
 * Fault-around: a read fault also maps the valid neighbours in the same
 * aligned group of pages (setting their accessed bits, as x86 Linux does
 * for its fault-around), coalescing runs contiguous in RAM into one host
 * mapping.  Write faults do not: neighbours mapped read-only would each
 * take an upgrade fault anyway.
 *
 * Everything here runs under the vmspace's lock, the walk included: an
 * invalidation that follows a VPTE change either comes after the walk,
 * and its unmapping after the mapping in the mapper's order, or before
 * it, and the walk sees the new VPTE.  Either way no stale translation
 * stays.  A and M are set with atomic ORs: the kernel changes VPTEs
 * without this lock, with compare-and-swap (vm/pmap.c).
 */
#include <sys/mman.h>

#include "host/hostlog.h"
#include "host/physmem.h"
#include "host/vpte.h"
#include "host/trap/trap.h"

#define TRAP_FAULT_AROUND	8	/* pages, a power of two */
#define TRAP_PREFAULT_MAX	512	/* pages one prefault maps at most */
#define TRAP_FAULT_REPEATS	16	/* refused this often in a row: SIGBUS */

enum walk_status { WALK_OK, WALK_NOTPRESENT, WALK_BAD };

struct vpt_walk {
	vpte_t *pte[VPTE_LEVELS];	/* entries visited, from level 3 down */
	int level;			/* of the leaf */
	bool user, write, noexec;	/* effective over the levels above the leaf */
	bool leaf_user, leaf_write, leaf_noexec;	/* ... and with the leaf */
	uint64_t pa;			/* of the 4 KiB page */
};

bool
trap_governed(const struct vmspace_host *vh, uint64_t va)
{
	for (int i = 0; i < vh->ngov; i++)
		if (va >= vh->gov[i].start && va < vh->gov[i].end)
			return true;
	return false;
}

/* Walks the vpagetable rooted at root for va, as the MMU would. */
static enum walk_status
vpt_walk(uint64_t root, uint64_t va, struct vpt_walk *w)
{
	uint64_t table = root;

	w->user = w->write = true;
	w->noexec = false;
	for (int l = VPTE_LEVELS - 1; l >= 0; l--) {
		if (!physmem_valid(table, PAGE_SIZE))
			return WALK_BAD;
		vpte_t *p = (vpte_t *)PHYS_TO_DMAP(table) + VPTE_INDEX(va, l);
		vpte_t e = __atomic_load_n(p, __ATOMIC_ACQUIRE);
		w->pte[l] = p;
		w->level = l;
		if ((e & VPTE_V) == 0)
			return WALK_NOTPRESENT;
		if ((e & VPTE_RESERVED) != 0 || (l == 3 && (e & VPTE_PS)))
			return WALK_BAD;
		if (l == 0 || (e & VPTE_PS)) {
			w->leaf_user = w->user && (e & VPTE_U);
			w->leaf_write = w->write && (e & VPTE_RW);
			w->leaf_noexec = w->noexec || (e & VPTE_NX);
			uint64_t size = 1UL << VPTE_SHIFT(l);
			/* A large page's frame below its size is reserved, but PAT. */
			if (l > 0 && (e & VPTE_FRAME & (size - 1) & ~VPTE_PAT_LARGE))
				return WALK_BAD;
			w->pa = ((e & VPTE_FRAME) & ~(size - 1)) +
			    ((va & (size - 1)) & ~PAGE_MASK);
			return physmem_valid(w->pa, PAGE_SIZE) ? WALK_OK : WALK_BAD;
		}
		w->user &= (e & VPTE_U) != 0;
		w->write &= (e & VPTE_RW) != 0;
		w->noexec |= (e & VPTE_NX) != 0;
		table = e & VPTE_FRAME;
	}
	return WALK_BAD;
}

static uint32_t
host_prot(const struct vpt_walk *w, vpte_t leaf)
{
	uint32_t prot = PROT_READ;
	if (w->write && (leaf & VPTE_RW) && (leaf & VPTE_M))
		prot |= PROT_WRITE;
	if (!w->noexec && !(leaf & VPTE_NX))
		prot |= PROT_EXEC;
	return prot;
}

/*
 * Maps the valid neighbours of the page at va in its aligned group, and
 * the page itself, as runs contiguous in both address and RAM.  A
 * neighbour the host has already is left as it is: every change of a
 * VPTE that takes a page or a right away invalidates it first
 * (vm/pmap.c), so what the host has is still right, at worst without a
 * right granted since, which a fault upgrades.  Mapping it again cost a
 * host mmap per neighbour at every fault, and split the host's VMAs.
 */
static int
fault_around(struct vmspace_host *vh, const struct vpt_walk *w, uint64_t va,
    uint32_t prot)
{
	uint64_t group = (uint64_t)vh->fault_around * PAGE_SIZE;
	uint64_t first = va & ~(group - 1);
	vpte_t *pt = w->pte[0] - VPTE_INDEX(va, 0);
	uint64_t run_va = 0, run_pa = 0, run_len = 0;
	uint32_t run_prot = 0;
	/* A fault-around group lies within one group of the account. */
	uint64_t had = trap_hostmap_group(vh, first);
	uint64_t hm_base = first & ~((1UL << TRAP_HM_GROUP_SHIFT) - 1);

	for (uint64_t a = first; a < first + group; a += PAGE_SIZE) {
		uint64_t pa = 0;
		uint32_t p = 0;
		if (a == (va & ~PAGE_MASK)) {
			pa = w->pa;
			p = prot;
		} else if (!(had & 1UL << ((a - hm_base) / PAGE_SIZE)) &&
		    a >= VM_MIN_USER_ADDRESS && trap_governed(vh, a)) {
			vpte_t *ep = pt + VPTE_INDEX(a, 0);
			vpte_t e = __atomic_load_n(ep, __ATOMIC_ACQUIRE);
			pa = e & VPTE_FRAME;
			if ((e & (VPTE_V | VPTE_U)) == (VPTE_V | VPTE_U) &&
			    (e & VPTE_RESERVED) == 0 && physmem_valid(pa, PAGE_SIZE)) {
				e = __atomic_or_fetch(ep, VPTE_A, __ATOMIC_ACQ_REL);
				p = host_prot(w, e);
			}
		}
		if (run_len != 0 && (p == 0 || p != run_prot ||
		    pa != run_pa + run_len)) {
			if (trap_map_run(vh, run_va, run_len, run_prot, run_pa) < 0)
				return -1;
			run_len = 0;
		}
		if (p == 0)
			continue;
		if (run_len == 0) {
			run_va = a;
			run_pa = pa;
			run_prot = p;
		}
		run_len += PAGE_SIZE;
	}
	if (run_len != 0)
		return trap_map_run(vh, run_va, run_len, run_prot, run_pa);
	return 0;
}

/*
 * Queues what lets the access (va, hosterr) go ahead if the vpagetable
 * allows it, setting A (and M) as the hardware would.  remap (after the
 * vkernel filled the fault): map afresh even where the host had the page
 * (accerr), since the kernel may have put another page there, and map
 * the neighbours a write fault's filling may have filled too.  Returns 1
 * if queued, 0 if the tables do not allow it (*errp: the x86 error code
 * for the vkernel), -1 if the stub failed, -2 if the host keeps refusing
 * to map the page.
 */
static int
trap_fault_queue(struct vmspace_host *vh, struct trap_thread *t, uint64_t va,
    uint64_t hosterr, bool accerr, bool remap, uint64_t *errp)
{
	bool write = (hosterr & PGEX_W) != 0, exec = (hosterr & PGEX_I) != 0;
	struct vpt_walk w;

	*errp = PGEX_U | (hosterr & (PGEX_W | PGEX_I));
	if (vh->root == TRAP_NO_ROOT || va < VM_MIN_USER_ADDRESS ||
	    !trap_governed(vh, va))
		return 0;
	switch (vpt_walk(vh->root, va, &w)) {
	case WALK_NOTPRESENT:
		return 0;
	case WALK_BAD:
		*errp |= PGEX_P | PGEX_RSV;
		return 0;
	case WALK_OK:
		break;
	}
	if (!w.leaf_user || (write && !w.leaf_write) || (exec && w.leaf_noexec)) {
		*errp |= PGEX_P;
		return 0;
	}
	/*
	 * The same page again, though its mapping was queued: only a host
	 * that refused the mapping (the mapper reported errors since) can
	 * do that to a guest whose tables allow the access; after a few
	 * tries the guest gets SIGBUS, as Linux gives a fault it cannot
	 * back.  A mapper that did its work never counts.
	 */
	uint64_t page = va & ~PAGE_MASK;
	if (page != t->last_fault_va || vh->refusals == 0)
		t->fault_repeats = 0;
	else if (++t->fault_repeats > TRAP_FAULT_REPEATS) {
		host_log("trap: host will not map %#lx: SIGBUS",
		    (unsigned long)va);
		t->fault_repeats = 0;
		return -2;
	}
	t->last_fault_va = page;

	/* The hardware sets A in every level it walks, and D in the leaf. */
	for (int l = VPTE_LEVELS - 1; l > w.level; l--)
		if ((*w.pte[l] & VPTE_A) == 0)
			__atomic_or_fetch(w.pte[l], VPTE_A, __ATOMIC_ACQ_REL);
	vpte_t leaf = __atomic_or_fetch(w.pte[w.level],
	    VPTE_A | (write ? VPTE_M : 0), __ATOMIC_ACQ_REL);
	uint32_t prot = host_prot(&w, leaf);

	/*
	 * An upgrade of a page the host has is an mprotect; the host's word
	 * (accerr) is the guest's, so a page we never mapped is mapped.
	 */
	int r;
	if (accerr && !remap && trap_hostmap_mapped(vh, page))
		r = trap_protect_page(vh, page, prot);
	else if (vh->fault_around > 1 && (!write || remap) && w.level == 0)
		r = fault_around(vh, &w, va, prot);
	else
		r = trap_map_run(vh, page, PAGE_SIZE, prot, w.pa);
	if (r == 0)
		r = trap_hostmap_enforce(vh, page);
	return r < 0 ? -1 : 1;
}

/*
 * A guest fault at va with the host's error code hosterr; accerr is set
 * when the host had the page mapped without the access (an upgrade).
 * TRAP_FAULT_SERVED: the mapper has the batch and, with resume, resumes
 * the guest (without, the batch is done and the guest still parked).
 * TRAP_FAULT_KERNEL: *errp is the x86 error code for the vkernel, which
 * has to fill the VPTE or signal the guest.  TRAP_FAULT_REFUSED: the
 * host will not map the page.
 */
int
trap_fault(struct vmspace_host *vh, struct trap_thread *t, uint64_t va,
    uint64_t hosterr, bool accerr, bool resume, uint64_t *errp)
{
	switch (trap_fault_queue(vh, t, va, hosterr, accerr, false, errp)) {
	case 1:
		break;
	case -2:
		return TRAP_FAULT_REFUSED;
	default:
		return TRAP_FAULT_KERNEL;
	}
	if (trap_cmd_issue(vh, t, resume) < 0)
		return TRAP_FAULT_KERNEL;
	__atomic_fetch_add(&vh->nserved, 1, __ATOMIC_RELAXED);
	return TRAP_FAULT_SERVED;
}

/*
 * The valid pages of [start, end) the host lacks, as the guest's touch
 * would map them (A set in every level walked; writable if M is set),
 * in runs contiguous in address and RAM that stay within a group of
 * the account.  At most TRAP_PREFAULT_MAX pages: it is a hint, and what
 * it leaves out faults in as before.  The batch goes with the next one
 * issued, at the latest the resume of the thread that asked (trap_run):
 * a mapping made from the tables under the lock, ordered before any
 * invalidation that follows, as a served fault's.
 */
int
trap_prefault(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	uint64_t run_va = 0, run_pa = 0, run_len = 0;
	uint32_t run_prot = 0;

	if (vh->root == TRAP_NO_ROOT || trap_dead(vh))
		return 0;
	if (end - start > TRAP_PREFAULT_MAX * PAGE_SIZE)
		end = start + TRAP_PREFAULT_MAX * PAGE_SIZE;
	for (uint64_t a = start; a <= end; a += PAGE_SIZE) {
		struct vpt_walk w;
		uint64_t pa = 0;
		uint32_t p = 0;
		if (a < end && trap_governed(vh, a) && !trap_hostmap_mapped(vh, a) &&
		    vpt_walk(vh->root, a, &w) == WALK_OK && w.level == 0 &&
		    w.leaf_user) {
			for (int l = VPTE_LEVELS - 1; l > 0; l--)
				if ((*w.pte[l] & VPTE_A) == 0)
					__atomic_or_fetch(w.pte[l], VPTE_A,
					    __ATOMIC_ACQ_REL);
			p = host_prot(&w, __atomic_or_fetch(w.pte[0], VPTE_A,
			    __ATOMIC_ACQ_REL));
			pa = w.pa;
		}
		bool group = (a & ((1UL << TRAP_HM_GROUP_SHIFT) - 1)) == 0;
		if (run_len != 0 && (p == 0 || p != run_prot || group ||
		    pa != run_pa + run_len)) {
			if (trap_map_run(vh, run_va, run_len, run_prot, run_pa) < 0)
				return -1;
			run_len = 0;
		}
		if (p == 0)
			continue;
		if (run_len == 0) {
			run_va = a;
			run_pa = pa;
			run_prot = p;
		}
		run_len += PAGE_SIZE;
	}
	return trap_hostmap_enforce(vh, start);
}

/*
 * The vkernel handled a fault and resumes the guest at the same
 * instruction: map what its tables now allow before it runs, sparing the
 * guest the second fault that would ask for it.
 */
void
trap_fault_ahead(struct vmspace_host *vh, struct trap_thread *t)
{
	uint64_t err;
	if (t->kfault_va != UINT64_MAX)
		(void)trap_fault_queue(vh, t, t->kfault_va, t->kfault_err, true,
		    true, &err);
	t->kfault_va = UINT64_MAX;
}
