/*
 * pmap: vpagetables in RAM (see pmap.h).
 *
 * A page-table page counts its valid entries in its vm_page's wire_count
 * (it is wired once per entry, as BSD's page-table pages were), so the
 * removal of the last entry frees it, and the entry above it goes too.
 * Freed table pages go back to the allocator only after the host
 * invalidation: a CPU walking the tables (the kvm backend) must not find
 * a reused page in the middle of a walk it cached.  Likewise for every
 * page: one is reused only once no host mapping of it can exist
 * (pmap_invalidate).
 *
 * The host layer sets A and M in VPTEs with atomic ORs, from the faults
 * of guest threads running on other CPUs, without the kernel's lock.  So
 * every access to a VPTE here is atomic, and every change of a valid one
 * an exchange or compare-and-swap: a copy-on-write downgrade that clears
 * RW keeps an M the host set meanwhile, and clearing A or M returns
 * whether it was set, so no modification is lost.
 */
#include <sys/mman.h>

#include "host/cpu.h"
#include "host/vmspace.h"
#include "kern/interrupt.h"
#include "kern/thread.h"
#include "kern/kmem.h"
#include "vm/pmap.h"
#include "vm/vm.h"
#include "vm/vm_page_ext.h"

/* Upper-level entries grant everything; the leaf decides. */
#define VPTE_TABLE	(VPTE_V | VPTE_U | VPTE_RW)

static struct kmem_cache *pv_cache;
static intr_handler_t pmap_reaped;

void
pmap_init(void)
{
	pv_cache = kmem_cache_create("pv_entry", sizeof(struct pv_entry), 0);
	if (pv_cache == NULL)
		panic("pmap_init: no RAM");
	if (intr_establish(INTR_VMSPACE, pmap_reaped, NULL) < 0)
		panic("pmap_init: no interrupt handler slot");
}

/* The tables and entries a walk for one address went through. */
struct ptwalk {
	struct vm_page *t[VPTE_LEVELS];	/* table at level l (3: the PML4) */
	vpte_t *e[VPTE_LEVELS];		/* va's entry in it */
};

static vpte_t *
table_entry(struct vm_page *t, uint64_t va, int l)
{
	return (vpte_t *)VM_PAGE_TO_DMAP(t) + VPTE_INDEX(va, l);
}

static struct vm_page *
ptp_alloc(struct pmap *pm)
{
	struct vm_page *m = vm_page_alloc(0, VM_ALLOC_ZERO);
	if (m != NULL) {
		pm->pm_ptpages++;
		vmstats.v_wire_count++;
	}
	return m;
}

/* Queues table page m for freeing after the next invalidation. */
static void
ptp_retire(struct pmap *pm, struct vm_page *m, struct pglist *freed)
{
	pm->pm_ptpages--;
	vmstats.v_wire_count--;
	TAILQ_INSERT_TAIL(freed, m, pageq);
}

static void
ptp_free_list(struct pglist *freed)
{
	struct vm_page *m;
	while ((m = TAILQ_FIRST(freed)) != NULL) {
		TAILQ_REMOVE(freed, m, pageq);
		vm_page_free(m, 0);
	}
}

/*
 * Walks pm's tables for va, creating missing ones if create.  Returns 0
 * when the page table exists (w->e[0] is va's leaf), else the level
 * whose entry for va is not valid (RAM was short, with create).
 */
static int
pmap_walk(struct pmap *pm, uint64_t va, bool create, struct ptwalk *w)
{
	w->t[VPTE_LEVELS - 1] = PHYS_TO_VM_PAGE(pm->pm_root);
	for (int l = VPTE_LEVELS - 1; ; l--) {
		w->e[l] = table_entry(w->t[l], va, l);
		if (l == 0)
			return 0;
		/*
		 * The host sets A in table entries as it walks, from other
		 * CPUs' faults: every access here is atomic, none loses a bit.
		 */
		vpte_t e = __atomic_load_n(w->e[l], __ATOMIC_ACQUIRE);
		if (!(e & VPTE_V)) {
			struct vm_page *m = create ? ptp_alloc(pm) : NULL;
			if (m == NULL)
				return l;
			e = VM_PAGE_TO_PHYS(m) | VPTE_TABLE;
			__atomic_store_n(w->e[l], e, __ATOMIC_RELEASE);
			w->t[l]->wire_count++;
		}
		w->t[l - 1] = PHYS_TO_VM_PAGE(e & VPTE_FRAME);
	}
}

/*
 * Frees the tables on va's path that hold no entries, bottom up (never
 * the PML4).
 */
static void
pmap_prune(struct pmap *pm, uint64_t va, struct pglist *freed)
{
	struct ptwalk w;
	int top = pmap_walk(pm, va, false, &w);

	for (int l = top; l < VPTE_LEVELS - 1; l++) {
		if (w.t[l]->wire_count != 0)
			return;
		__atomic_store_n(w.e[l + 1], 0, __ATOMIC_RELEASE);
		w.t[l + 1]->wire_count--;
		ptp_retire(pm, w.t[l], freed);
	}
}

/*
 * Every page and table leaves a pmap through here before it is freed or
 * given to another mapping: a page is reused only once no host mapping of
 * it can exist.  MADV_INVAL returns when that holds; a backend that
 * cannot drop its mappings kills the guest and returns once the guest's
 * host process is gone, so a failure here is a broken kernel invariant
 * (a bad range or a lost host vmspace), never a guest's doing.
 */
void
pmap_invalidate(struct pmap *pm, uint64_t lo, uint64_t hi)
{
	if (pm->pm_hosted && lo < hi &&
	    vmspace_mcontrol(pm, (void *)lo, hi - lo, MADV_INVAL, NULL) < 0)
		panic("pmap_invalidate: %#lx-%#lx of pmap %p: errno %d",
		    lo, hi, (void *)pm, errno);
}

/* The pmaps with a deferred invalidation, not settled yet. */
static struct pmap *pmap_owing;

static void
pmap_owing_remove(struct pmap *pm)
{
	struct pmap **pp = &pmap_owing;
	while (*pp != NULL && *pp != pm)
		pp = &(*pp)->pm_owenext;
	if (*pp != NULL)
		*pp = pm->pm_owenext;
	pm->pm_owing = false;
}

void
pmap_invalidate_defer(struct pmap *pm, uint64_t lo, uint64_t hi)
{
	if (!pm->pm_hosted || lo >= hi)
		return;
	int r = vmspace_mcontrol(pm, (void *)lo, hi - lo, MADV_INVAL_DEFER,
	    NULL);
	if (r < 0)
		panic("pmap_invalidate_defer: %#lx-%#lx of pmap %p: errno %d",
		    lo, hi, (void *)pm, errno);
	if (r == 0)
		return;
	pm->pm_defer_lo = lo;
	pm->pm_defer_hi = hi;
	if (!pm->pm_owing) {
		pm->pm_owing = true;
		pm->pm_owenext = pmap_owing;
		pmap_owing = pm;
	}
}

void
pmap_defer_end(struct pmap *pm)
{
	pm->pm_defer_lo = pm->pm_defer_hi = 0;
}

void
pmap_settle(void)
{
	while (pmap_owing != NULL) {
		struct pmap *pm = pmap_owing;
		pmap_owing_remove(pm);
		if (pm->pm_hosted)
			(void)vmspace_mcontrol(pm, NULL, 0, MADV_SETTLE, NULL);
	}
}

/* A change of va's VPTE that fork's deferred invalidation covers. */
static bool
pmap_deferred(const struct pmap *pm, uint64_t va)
{
	return va >= pm->pm_defer_lo && va < pm->pm_defer_hi;
}

void
pmap_prefault(struct pmap *pm, uint64_t lo, uint64_t hi)
{
	if (pm->pm_hosted && lo < hi)
		(void)vmspace_mcontrol(pm, (void *)lo, hi - lo, MADV_PREFAULT,
		    NULL);
}

static void
pv_insert(struct vm_page *m, struct pv_entry *pv, struct pmap *pm,
    uint64_t va)
{
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	pv->pv_pmap = pm;
	pv->pv_va = va;
	pv->pv_next = x->pv;
	x->pv = pv;
}

/* Takes the mapping (pm, va) off m's list; old is the VPTE it had. */
static void
pv_remove(struct vm_page *m, struct pmap *pm, uint64_t va, vpte_t old)
{
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	struct pv_entry **pp = &x->pv, *pv;

	while ((pv = *pp) != NULL && (pv->pv_pmap != pm || pv->pv_va != va))
		pp = &pv->pv_next;
	if (pv == NULL)
		panic("pmap: no pv entry for %#lx in pmap %p (page %#lx)",
		    va, (void *)pm, VM_PAGE_TO_PHYS(m));
	*pp = pv->pv_next;
	kmem_cache_free(pv_cache, pv);
	/* What the dropped VPTE knew must not be lost. */
	if (old & VPTE_A)
		x->flags |= PGX_REFERENCED;
	if (old & VPTE_M)
		x->flags |= PGX_DIRTY;
}

int
pmap_pinit(struct pmap *pm)
{
	*pm = (struct pmap){ 0 };
	struct vm_page *root = ptp_alloc(pm);
	if (root == NULL)
		return -ENOMEM;
	pm->pm_root = VM_PAGE_TO_PHYS(root);
	return 0;
}

int
pmap_host(struct pmap *pm)
{
	if (pm->pm_hosted)
		return 0;
	if (vmspace_create(pm, VMSPACE_TYPE_DEFAULT, NULL) < 0)
		return -errno;
	if (vmspace_mmap(pm, NULL, VM_MAX_USER_ADDRESS, PROT_READ | PROT_WRITE |
	    PROT_EXEC, MAP_VPAGETABLE, -1, 0) < 0 ||
	    vmspace_mcontrol(pm, NULL, 0, MADV_SETMAP, (void *)pm->pm_root) < 0) {
		int err = -errno;
		vmspace_destroy(pm);
		return err;
	}
	pm->pm_hosted = true;
	return 0;
}

int
pmap_take_host(struct pmap *pm, struct pmap *old)
{
	KASSERT(!pm->pm_hosted && old->pm_hosted, "pmap_take_host: bad pmaps");
	if (!vmspace_exec_keeps(old))
		return -EAGAIN;
	/* A move that fails leaves old hosted, for its release to end. */
	if (vmspace_rekey(old, pm) < 0)
		return -errno;
	old->pm_hosted = false;
	/* A new root drops every host mapping the old tables allowed. */
	if (vmspace_mcontrol(pm, NULL, 0, MADV_SETMAP, (void *)pm->pm_root) < 0) {
		int err = -errno;
		vmspace_destroy(pm);
		return err;
	}
	pm->pm_hosted = true;
	return 0;
}

/* What threads waiting for their host vmspace to go sleep on. */
static char pmap_reap_chan;

bool
pmap_unhost_start(struct pmap *pm)
{
	if (!pm->pm_hosted || pm->pm_dying)
		return pm->pm_dying;
	/* Outside a kernel thread nothing could wait: vmspace_destroy will. */
	pm->pm_dying = curthread != NULL && vmspace_kill(pm, cpu_self()) == 0;
	return pm->pm_dying;
}

bool
pmap_unhost_gone(struct pmap *pm)
{
	return !pm->pm_dying || vmspace_gone(pm);
}

void
pmap_unhost_finish(struct pmap *pm)
{
	KASSERT(pmap_unhost_gone(pm), "pmap_unhost_finish: host not gone");
	if (!pm->pm_hosted)
		return;
	vmspace_destroy(pm);
	pm->pm_hosted = pm->pm_dying = false;
}

void
pmap_unhost_sleep(const char *wmesg)
{
	/*
	 * The timeout only guards against a lost interrupt (a kernel
	 * without the dispatch, in tests).
	 */
	tsleep(&pmap_reap_chan, 0, wmesg, 10000000);
}

void
pmap_unhost(struct pmap *pm)
{
	/*
	 * The host process goes away in the background; none of pm's pages
	 * may be reused before it is gone.
	 */
	if (pmap_unhost_start(pm))
		while (!pmap_unhost_gone(pm))
			pmap_unhost_sleep("unhost");
	pmap_unhost_finish(pm);
}

/* INTR_VMSPACE: a vmspace the host took down is gone. */
static void
pmap_reaped(void *arg, uint32_t bits)
{
	(void)arg, (void)bits;
	wakeup(&pmap_reap_chan);
}

void
pmap_release(struct pmap *pm)
{
	struct pglist freed = TAILQ_HEAD_INITIALIZER(freed);

	KASSERT(!pm->pm_hosted, "pmap_release: host vmspace still there");
	if (pm->pm_owing)
		pmap_owing_remove(pm);
	if (pm->pm_resident != 0 || pm->pm_ptpages != 1)
		panic("pmap_release: %lu pages and %lu tables still mapped",
		    pm->pm_resident, pm->pm_ptpages - 1);
	ptp_retire(pm, PHYS_TO_VM_PAGE(pm->pm_root), &freed);
	ptp_free_list(&freed);
	pm->pm_root = 0;
}

int
pmap_enter(struct pmap *pm, uint64_t va, struct vm_page *m, int prot,
    int access)
{
	struct pglist freed = TAILQ_HEAD_INITIALIZER(freed);
	struct ptwalk w;

	KASSERT((va & PAGE_MASK) == 0 && va < VM_MAX_USER_ADDRESS &&
	    (prot & VM_PROT_ALL) != 0, "pmap_enter: bad address or protection");
	struct pv_entry *pv = kmem_cache_alloc(pv_cache, 0);
	if (pv == NULL)
		return -ENOMEM;
	if (pmap_walk(pm, va, true, &w) != 0) {
		kmem_cache_free(pv_cache, pv);
		pmap_prune(pm, va, &freed);	/* tables made on the way */
		ptp_free_list(&freed);
		return -ENOMEM;
	}

	uint64_t pa = VM_PAGE_TO_PHYS(m);
	vpte_t bits = pa | VPTE_V | VPTE_U | VPTE_A |
	    ((prot & VM_PROT_WRITE) ? VPTE_RW : 0) |
	    ((prot & VM_PROT_EXECUTE) ? 0 : VPTE_NX) |
	    ((access & VM_PROT_WRITE) ? VPTE_M : 0);
	vpte_t old = __atomic_load_n(w.e[0], __ATOMIC_ACQUIRE), new;
	if (!(old & VPTE_V)) {
		__atomic_store_n(w.e[0], bits, __ATOMIC_RELEASE);
		w.t[0]->wire_count++;
		pm->pm_resident++;
		pv_insert(m, pv, pm, va);
		return 0;
	}
	do {
		new = bits;
		if ((old & VPTE_FRAME) == pa)
			new |= old & (VPTE_A | VPTE_M);
	} while (!__atomic_compare_exchange_n(w.e[0], &old, new, false,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	if ((old & VPTE_FRAME) != pa) {
		pv_remove(PHYS_TO_VM_PAGE(old & VPTE_FRAME), pm, va, old);
		pv_insert(m, pv, pm, va);
		if (!pmap_deferred(pm, va))
			pmap_invalidate(pm, va, va + PAGE_SIZE);
		return 0;
	}
	kmem_cache_free(pv_cache, pv);
	if ((((old & VPTE_RW) && !(new & VPTE_RW)) ||
	    (!(old & VPTE_NX) && (new & VPTE_NX))) && !pmap_deferred(pm, va))
		pmap_invalidate(pm, va, va + PAGE_SIZE);
	return 0;
}

/* The end of the region that va's entry at level l covers. */
static uint64_t
level_end(uint64_t va, int l)
{
	uint64_t size = 1UL << VPTE_SHIFT(l);
	return (va & ~(size - 1)) + size;
}

/*
 * Where the next valid entry of table t (level l) after va's begins, or
 * where t's region ends if it has none before eva.  The absent entries of
 * a table are passed over in it, not by a walk from the root each: the
 * release of a small process's whole range walked some 3,000 times for
 * the twenty-odd entries it had (10 us of an exec).
 */
static uint64_t
next_valid(struct vm_page *t, uint64_t va, int l, uint64_t eva)
{
	const vpte_t *e = (const vpte_t *)VM_PAGE_TO_DMAP(t);
	uint64_t next = level_end(va, l), tend = level_end(va, l + 1);

	for (; next < tend && next < eva; next += 1UL << VPTE_SHIFT(l))
		if (__atomic_load_n(&e[VPTE_INDEX(next, l)], __ATOMIC_ACQUIRE) &
		    VPTE_V)
			break;
	return next;
}

/*
 * Calls fn(pm, leaf, va, arg) for every valid leaf in [sva, eva), skipping
 * absent tables; fn returns true if it changed the leaf.  Tables left
 * empty are queued on freed.  Returns the range of changed leaves in
 * *lo, *hi (empty: lo >= hi).
 */
static void
pmap_scan(struct pmap *pm, uint64_t sva, uint64_t eva,
    bool (*fn)(struct pmap *, vpte_t *, uint64_t, void *), void *arg,
    struct pglist *freed, uint64_t *lo, uint64_t *hi)
{
	struct ptwalk w;

	*lo = UINT64_MAX;
	*hi = 0;
	for (uint64_t va = sva; va < eva; ) {
		int l = pmap_walk(pm, va, false, &w);
		if (l != 0) {
			va = next_valid(w.t[l], va, l, eva);
			continue;
		}
		uint64_t end = MIN(eva, level_end(va, 1)), first = va;
		for (; va < end; va += PAGE_SIZE) {
			vpte_t *leaf = table_entry(w.t[0], va, 0);
			if ((__atomic_load_n(leaf, __ATOMIC_ACQUIRE) & VPTE_V) &&
			    fn(pm, leaf, va, arg)) {
				*lo = MIN(*lo, va);
				*hi = va + PAGE_SIZE;
			}
		}
		if (w.t[0]->wire_count == 0)
			pmap_prune(pm, first, freed);
	}
}

static bool
remove_leaf(struct pmap *pm, vpte_t *leaf, uint64_t va, void *arg)
{
	struct vm_page *t = DMAP_TO_VM_PAGE(leaf);
	(void)arg;
	vpte_t old = __atomic_exchange_n(leaf, 0, __ATOMIC_ACQ_REL);
	pv_remove(PHYS_TO_VM_PAGE(old & VPTE_FRAME), pm, va, old);
	t->wire_count--;
	pm->pm_resident--;
	return true;
}

void
pmap_remove(struct pmap *pm, uint64_t sva, uint64_t eva)
{
	struct pglist freed = TAILQ_HEAD_INITIALIZER(freed);
	uint64_t lo, hi;

	pmap_scan(pm, sva, eva, remove_leaf, NULL, &freed, &lo, &hi);
	pmap_invalidate(pm, lo, hi);
	ptp_free_list(&freed);
}

static bool
protect_leaf(struct pmap *pm, vpte_t *leaf, uint64_t va, void *arg)
{
	int prot = *(int *)arg;
	vpte_t old = __atomic_load_n(leaf, __ATOMIC_ACQUIRE), new;
	(void)pm;
	(void)va;
	do {
		new = old;
		if (!(prot & VM_PROT_WRITE))
			new &= ~VPTE_RW;
		if (!(prot & VM_PROT_EXECUTE))
			new |= VPTE_NX;
	} while (new != old && !__atomic_compare_exchange_n(leaf, &old, new,
	    false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE));
	return new != old;
}

void
pmap_protect_deferred(struct pmap *pm, uint64_t sva, uint64_t eva, int prot,
    uint64_t *lo, uint64_t *hi)
{
	struct pglist freed = TAILQ_HEAD_INITIALIZER(freed);
	uint64_t l, h;

	KASSERT((prot & VM_PROT_ALL) != VM_PROT_NONE,
	    "pmap_protect_deferred: removal");
	pmap_scan(pm, sva, eva, protect_leaf, &prot, &freed, &l, &h);
	KASSERT(TAILQ_EMPTY(&freed), "pmap_protect: freed a table");
	*lo = MIN(*lo, l);
	*hi = MAX(*hi, h);
}

void
pmap_protect(struct pmap *pm, uint64_t sva, uint64_t eva, int prot)
{
	uint64_t lo = UINT64_MAX, hi = 0;

	if ((prot & VM_PROT_ALL) == VM_PROT_NONE) {
		pmap_remove(pm, sva, eva);
		return;
	}
	pmap_protect_deferred(pm, sva, eva, prot, &lo, &hi);
	pmap_invalidate(pm, lo, hi);
}

void
pmap_page_protect(struct vm_page *m, int prot)
{
	struct vm_page_ext *x = VM_PAGE_EXT(m);

	if ((prot & VM_PROT_ALL) == VM_PROT_NONE) {
		/* Each removal takes its pv entry off the list. */
		while (x->pv != NULL)
			pmap_remove(x->pv->pv_pmap, x->pv->pv_va,
			    x->pv->pv_va + PAGE_SIZE);
		return;
	}
	/* Keep execute as it is: protect_leaf would set NX without it. */
	prot |= VM_PROT_EXECUTE;
	for (struct pv_entry *pv = x->pv; pv != NULL; pv = pv->pv_next)
		pmap_protect(pv->pv_pmap, pv->pv_va, pv->pv_va + PAGE_SIZE, prot);
}

vpte_t *
pmap_pte(struct pmap *pm, uint64_t va)
{
	struct ptwalk w;
	return pmap_walk(pm, va, false, &w) == 0 ? w.e[0] : NULL;
}

/*
 * Clears bit (A or M) in every mapping of m, invalidating those that had
 * it.  Returns how many had it.
 */
static int
pmap_clear_bit(struct vm_page *m, vpte_t bit)
{
	int n = 0;
	for (struct pv_entry *pv = VM_PAGE_EXT(m)->pv; pv != NULL;
	    pv = pv->pv_next) {
		vpte_t *leaf = pmap_pte(pv->pv_pmap, pv->pv_va);
		KASSERT(leaf != NULL, "pmap: pv entry without a page table");
		if (__atomic_fetch_and(leaf, ~bit, __ATOMIC_ACQ_REL) & bit) {
			n++;
			pmap_invalidate(pv->pv_pmap, pv->pv_va, pv->pv_va + PAGE_SIZE);
		}
	}
	return n;
}

int
pmap_ts_referenced(struct vm_page *m)
{
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	int n = pmap_clear_bit(m, VPTE_A);
	if (x->flags & PGX_REFERENCED) {
		x->flags &= ~PGX_REFERENCED;
		n++;
	}
	return n;
}

bool
pmap_is_modified(struct vm_page *m)
{
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	if (x->flags & PGX_DIRTY)
		return true;
	for (struct pv_entry *pv = x->pv; pv != NULL; pv = pv->pv_next)
		if (__atomic_load_n(pmap_pte(pv->pv_pmap, pv->pv_va),
		    __ATOMIC_ACQUIRE) & VPTE_M)
			return true;
	return false;
}

void
pmap_clear_modify(struct vm_page *m)
{
	VM_PAGE_EXT(m)->flags &= ~PGX_DIRTY;
	pmap_clear_bit(m, VPTE_M);
}
