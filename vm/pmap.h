/*
 * pmap: the vpagetable of one address space, and its host vmspace.
 *
 * The tables are x86-64 4-level page tables in RAM (host/vpte.h), which
 * the host layer walks to map guest pages.  Upper levels are always
 * valid, user and writable; a leaf carries the page's protection (no
 * NX for executable pages) and the accessed and modified bits.  A
 * page-table page is freed when its last entry goes.
 *
 * The contract with the host layer (DESIGN.md): the host sets A when it
 * maps a page and M when it lets a write through; whenever the pmap
 * removes a VPTE, takes a permission away from one, or clears A or M, it
 * calls vmspace_mcontrol(MADV_INVAL) over the range before returning,
 * once per operation, so no stale host mapping survives.  Adding a
 * permission needs no invalidation: the host faults and rewalks.
 *
 * Every mapping of a page is on the page's pv list (vm_page_ext.pv), so
 * the VM system can find them by page: to harvest A and M bits, and to
 * check that a page being freed is mapped nowhere.
 *
 * Locking: the big kernel lock.  The host layer may set A and M in leaves
 * concurrently (a guest of this pmap runs on another CPU), so leaves are
 * changed with atomic operations.
 */
#ifndef VM_PMAP_H
#define VM_PMAP_H

#include <stdbool.h>
#include <stdint.h>

#include "host/vpte.h"

struct vm_page;

struct pmap {
	uint64_t pm_root;	/* physical address of the PML4 */
	uint64_t pm_resident;	/* leaf VPTEs */
	uint64_t pm_ptpages;	/* page-table pages, the PML4 included */
	bool pm_hosted;		/* the host vmspace exists */
	bool pm_dying;		/* ... and goes away in the background */
	bool pm_owing;		/* a deferred invalidation, not settled */
	struct pmap *pm_owenext;	/* the list of those (pmap_settle) */
	/* While fork runs: the range its deferred invalidation covers. */
	uint64_t pm_defer_lo, pm_defer_hi;
};

/* A mapping of a page: on the page's list (vm_page_ext.pv). */
struct pv_entry {
	struct pv_entry *pv_next;
	struct pmap *pv_pmap;
	uint64_t pv_va;
};

/* Sets up the pv-entry cache; vm_init calls it. */
void pmap_init(void);

/* Makes pm an empty vpagetable, not hosted yet.  0 or -ENOMEM. */
int pmap_pinit(struct pmap *pm);

/*
 * Creates pm's host vmspace (id pm), governed by its tables over all of
 * user space, if it has none: before its first guest thread runs, so
 * that an address space built and thrown away (a failed exec) never
 * costs a host process.  0 or the host's error (negative errno).
 */
int pmap_host(struct pmap *pm);

/*
 * Moves old's host vmspace to pm, whose tables govern it from now on,
 * none of old's translations left in it: exec keeps its host process.
 * old must not run again.  0; or, pm unhosted and old still hosted
 * (its release ends its host vmspace), the host's error, or -EAGAIN if
 * the host would rather not (vmspace_exec_keeps).
 */
int pmap_take_host(struct pmap *pm, struct pmap *old);

/*
 * Destroys pm's host vmspace: no guest thread of it runs again and no
 * host mapping of its pages survives.  Then its remaining mappings can
 * be removed without invalidations (pmap_remove skips them).  Called by
 * a kernel thread, it sleeps while the host takes the vmspace down, and
 * the CPU runs others; pmap_reaped (on INTR_VMSPACE) wakes it.
 */
void pmap_unhost(struct pmap *pm);

/*
 * pmap_unhost in steps, for a caller that does not wait.  _start stops
 * every guest thread of pm's host vmspace: true if the host takes it
 * down in the background, when pm's pages must not be reused (nor pm
 * freed) until _gone is true; then INTR_VMSPACE wakes _sleep's sleepers.
 * _finish destroys what is left of it, once gone.
 */
bool pmap_unhost_start(struct pmap *pm);
bool pmap_unhost_gone(struct pmap *pm);
void pmap_unhost_finish(struct pmap *pm);
void pmap_unhost_sleep(const char *wmesg);

/*
 * Frees pm's page-table pages.  pm must map nothing any more, and its
 * host vmspace must be gone (pmap_unhost).
 */
void pmap_release(struct pmap *pm);

/*
 * Maps page m at user address va with protection prot (VM_PROT_*; not
 * NONE), replacing what va mapped, for an access of type access that
 * just happened: sets A, and M if access has VM_PROT_WRITE.  Keeps the A
 * and M bits of a VPTE that already mapped m.  Returns 0, or -ENOMEM
 * (RAM short for a page-table page or pv entry) with nothing changed.
 */
int pmap_enter(struct pmap *pm, uint64_t va, struct vm_page *m, int prot,
    int access);

/*
 * Removes every mapping in [sva, eva), frees page-table pages left empty,
 * and invalidates the range in the host once.  The A and M bits of the
 * dropped VPTEs go to the pages (PGX_REFERENCED, PGX_DIRTY).
 */
void pmap_remove(struct pmap *pm, uint64_t sva, uint64_t eva);

/*
 * Lowers the protection of every mapping in [sva, eva) to at most prot
 * (VM_PROT_*; NONE removes them), with one host invalidation if anything
 * changed.  Never raises a protection.
 */
void pmap_protect(struct pmap *pm, uint64_t sva, uint64_t eva, int prot);

/*
 * pmap_protect without the host invalidation, for a caller that lowers
 * many ranges in one operation (fork): widens [*lo, *hi) by the leaves it
 * changed, and the caller calls pmap_invalidate(pm, *lo, *hi) before
 * anything depends on the change.  Start with *lo = UINT64_MAX, *hi = 0.
 */
void pmap_protect_deferred(struct pmap *pm, uint64_t sva, uint64_t eva,
    int prot, uint64_t *lo, uint64_t *hi);

/* Drops the host's translations of [lo, hi) (nothing if lo >= hi). */
void pmap_invalidate(struct pmap *pm, uint64_t lo, uint64_t hi);
/*
 * Fork's write protection of the parent (vmspace_fork): pmap_invalidate
 * of [lo, hi), which the host may carry out later (MADV_INVAL_DEFER),
 * but before any guest thread of pm runs, before pmap_settle returns,
 * and before another invalidation of pm returns.  Until pmap_defer_end,
 * a page pm replaces in that range needs no invalidation of its own (the
 * parent's copies fork makes).  The caller makes sure nothing frees a
 * page of the range meanwhile.
 */
void pmap_invalidate_defer(struct pmap *pm, uint64_t lo, uint64_t hi);
void pmap_defer_end(struct pmap *pm);
/*
 * Returns once every deferred invalidation is done: before a process
 * first runs (a forked child must not see its parent's later writes)
 * and before an address space's pages are freed.
 */
void pmap_settle(void);
/*
 * A hint that the process is about to use [lo, hi), whose pages were
 * just entered (MAP_POPULATE): the host layer may map them before the
 * process next runs rather than at one fault each.
 */
void pmap_prefault(struct pmap *pm, uint64_t lo, uint64_t hi);

/*
 * The leaf VPTE of va if its page table exists (valid or not), else NULL.
 * For walks in software (copyin) and tests.
 */
vpte_t *pmap_pte(struct pmap *pm, uint64_t va);

/*
 * Lowers the protection of every mapping of page m to at most prot
 * (VM_PROT_*; NONE removes them, their A and M bits going to the page),
 * one host invalidation per mapping changed.  For the page cache:
 * write-protecting a page being cleaned, unmapping a truncated one.
 */
void pmap_page_protect(struct vm_page *m, int prot);

/*
 * Counts the mappings of m whose accessed bit is set and clears those
 * bits (invalidating each in its host vmspace), so the next access to m
 * through any of them sets A again.  For the pageout daemon.
 */
int pmap_ts_referenced(struct vm_page *m);

/* True if any mapping of m has its modified bit set. */
bool pmap_is_modified(struct vm_page *m);

/*
 * Clears the modified bit of every mapping of m (invalidating each), so
 * the next write through any of them sets M again.
 */
void pmap_clear_modify(struct vm_page *m);

#endif /* VM_PMAP_H */
