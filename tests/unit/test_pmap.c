/*
 * Tests of the pmap (vm/pmap.c) against the host layer: page-table pages
 * come and go, every removal and downgrade reaches the host (a guest
 * would otherwise keep a stale mapping), the A and M bits can be
 * harvested and come back on the next access, and reverse mappings
 * follow every mapping of a page.
 */
#include "tests/unit/unit.h"
#include "tests/unit/vmproc.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"

#define PG	PAGE_SIZE

static struct vm_page *
page_at(struct vmp *p, uint64_t va)
{
	uint64_t pa = vmp_pa(p, va);
	return pa != ~0UL ? PHYS_TO_VM_PAGE(pa) : NULL;
}

static int
npv(struct vm_page *m)
{
	int n = 0;
	for (struct pv_entry *pv = VM_PAGE_EXT(m)->pv; pv != NULL;
	    pv = pv->pv_next)
		n++;
	return n;
}

static int
run_store(struct vmp *p, uint64_t va, uint64_t v)
{
	vmp_goto(p, g_vm_store);
	p->tf.tf_rdi = va;
	p->tf.tf_rsi = v;
	return vmp_run(p);
}

static int
run_load(struct vmp *p, uint64_t va)
{
	vmp_goto(p, g_vm_load);
	p->tf.tf_rdi = va;
	return vmp_run(p);
}

/* Tables appear as pages are mapped in new regions, and go with them. */
TEST(pmap_table_pages)
{
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	struct pmap *pm = &p.vm->vm_pmap;
	CHECK_EQ(run_store(&p, VMP_STACK - 8, 0), T_SYSCALL);
	uint64_t t0 = pm->pm_ptpages, r0 = pm->pm_resident;
	/* Same 2 MiB, another 2 MiB of the same 1 GiB, another 512 GiB. */
	uint64_t va[] = { VMP_DATA, VMP_DATA + PG, VMP_DATA + (2UL << 20),
	    0x100000000000UL };
	/* The first two share the code's PD; the last needs a new PDPT too. */
	uint64_t want[] = { 1, 1, 2, 5 };
	for (size_t i = 0; i < nitems(va); i++) {
		REQUIRE(vmp_anon(&p, va[i], PG) == 0);
		CHECK_EQ(run_store(&p, va[i], i), T_SYSCALL);
		CHECK_EQ(pm->pm_ptpages, t0 + want[i]);
	}
	CHECK_EQ(pm->pm_resident, r0 + nitems(va));
	/* Unmapping the last page of a region frees its tables at once. */
	CHECK_EQ(vm_munmap(p.vm, va[3], PG), 0);
	CHECK_EQ(pm->pm_ptpages, t0 + 2);
	CHECK_EQ(vm_munmap(p.vm, va[0], PG), 0);
	CHECK_EQ(pm->pm_ptpages, t0 + 2);
	CHECK_EQ(vm_munmap(p.vm, va[1], PG), 0);
	CHECK_EQ(pm->pm_ptpages, t0 + 1);
	CHECK_EQ(vm_munmap(p.vm, va[2], PG), 0);
	CHECK_EQ(pm->pm_ptpages, t0);
	CHECK_EQ(pm->pm_resident, r0);
	/* Everything gone: only the PML4 is left. */
	CHECK_EQ(vm_munmap(p.vm, 0, VM_MAX_USER_ADDRESS), 0);
	CHECK_EQ(pm->pm_ptpages, 1);
	CHECK_EQ(pm->pm_resident, 0);
	vmp_destroy(&p);
}

/*
 * A scan passes over absent entries inside a table (pmap.c's next_valid)
 * and finds every valid one after them: pages on the last and first
 * entries of tables at every level, far apart in the user range, are all
 * downgraded and removed by one call over the whole range, and a scan
 * that ends before a valid entry leaves it alone.
 */
TEST(pmap_scan_sparse)
{
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	struct pmap *pm = &p.vm->vm_pmap;
	CHECK_EQ(run_store(&p, VMP_STACK - 8, 0), T_SYSCALL);
	uint64_t va[] = {
		0x200000000000UL - PG,		/* index 511 at levels 0-2 */
		0x200000000000UL,		/* the next PML4 entry's first */
		0x200040000000UL + 5 * PG,	/* its next PDPT entry */
		0x2000403fe000UL,		/* the same PD's entry 1 */
		0x300000200000UL,		/* another PML4 entry */
	};
	for (size_t i = 0; i < nitems(va); i++) {
		REQUIRE(vmp_anon(&p, va[i], PG) == 0);
		CHECK_EQ(run_store(&p, va[i], i + 1), T_SYSCALL);
		CHECK(vmp_vpte(&p, va[i]) & VPTE_RW);
	}
	pmap_protect(pm, 0x100000000000UL, VM_MAX_USER_ADDRESS, VM_PROT_READ);
	for (size_t i = 0; i < nitems(va); i++) {
		CHECK(vmp_vpte(&p, va[i]) & VPTE_V);
		CHECK(!(vmp_vpte(&p, va[i]) & VPTE_RW));
	}
	/* Ends one page short of va[3]: va[2] goes, va[3] stays. */
	pmap_remove(pm, 0x200000000000UL + PG, va[3]);
	CHECK_EQ(vmp_vpte(&p, va[2]) & VPTE_V, 0);
	CHECK(vmp_vpte(&p, va[3]) & VPTE_V);
	CHECK(vmp_vpte(&p, va[1]) & VPTE_V);
	uint64_t r = pm->pm_resident;
	pmap_remove(pm, 0x100000000000UL, VM_MAX_USER_ADDRESS);
	for (size_t i = 0; i < nitems(va); i++)
		CHECK_EQ(vmp_vpte(&p, va[i]) & VPTE_V, 0);
	CHECK_EQ(pm->pm_resident, r - 4);
	vmp_destroy(&p);
}

/*
 * Removal and downgrade reach the host: a page the guest had mapped
 * writable faults after pmap_protect, and after pmap_remove it faults
 * again even for a read; and a VPTE replaced by another page shows the
 * new page at once.
 */
TEST(pmap_invalidates)
{
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, 2 * PG) == 0);
	struct pmap *pm = &p.vm->vm_pmap;
	CHECK_EQ(run_store(&p, VMP_DATA, 1), T_SYSCALL);
	CHECK_EQ(run_store(&p, VMP_DATA, 2), T_SYSCALL);	/* host-mapped rw */
	uint64_t nf = p.nfaults;
	pmap_protect(pm, VMP_DATA, VMP_DATA + 2 * PG, VM_PROT_READ);
	CHECK(!(vmp_vpte(&p, VMP_DATA) & VPTE_RW));
	CHECK_EQ(run_store(&p, VMP_DATA, 3), T_SYSCALL);
	CHECK_EQ(p.nfaults, nf + 1);		/* it faulted, vm_fault upgraded */
	CHECK(vmp_vpte(&p, VMP_DATA) & VPTE_RW);
	CHECK_EQ(vmp_peek(&p, VMP_DATA), 3);

	struct vm_page *m = page_at(&p, VMP_DATA);
	pmap_remove(pm, VMP_DATA, VMP_DATA + 2 * PG);
	CHECK_EQ(vmp_vpte(&p, VMP_DATA) & VPTE_V, 0);
	CHECK(VM_PAGE_EXT(m)->pv == NULL);
	CHECK(VM_PAGE_EXT(m)->flags & PGX_DIRTY);	/* M was not lost */
	CHECK(pmap_is_modified(m));
	pmap_clear_modify(m);
	CHECK(!pmap_is_modified(m));
	nf = p.nfaults;
	CHECK_EQ(run_load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 3);
	CHECK_EQ(p.nfaults, nf + 1);

	/* Replacing the page behind a VPTE: the guest sees the new one. */
	struct vm_page *other = vm_page_alloc(0, VM_ALLOC_ZERO);
	REQUIRE(other != NULL);
	*(uint64_t *)VM_PAGE_TO_DMAP(other) = 0x07e4;
	CHECK_EQ(pmap_enter(pm, VMP_DATA, other, VM_PROT_READ, VM_PROT_READ), 0);
	CHECK_EQ(npv(m), 0);
	CHECK_EQ(npv(other), 1);
	CHECK_EQ(run_load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 0x07e4);
	pmap_remove(pm, VMP_DATA, VMP_DATA + PG);
	VM_PAGE_EXT(other)->flags = 0;
	vm_page_free(other, 0);
	CHECK_EQ(run_load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 3);
	vmp_destroy(&p);
}

/*
 * A and M harvesting: cleared (with the host invalidated), a read sets A
 * again and not M, and a write sets M again; over and over.
 */
TEST(pmap_ad_harvest)
{
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	CHECK_EQ(run_store(&p, VMP_DATA, 1), T_SYSCALL);
	struct vm_page *m = page_at(&p, VMP_DATA);
	REQUIRE(m != NULL);
	CHECK((vmp_vpte(&p, VMP_DATA) & (VPTE_A | VPTE_M)) == (VPTE_A | VPTE_M));
	for (uint64_t round = 2; round < 20 && !unit_failed_now(); round++) {
		uint64_t nf = p.nfaults;
		CHECK(pmap_ts_referenced(m) >= 1);
		pmap_clear_modify(m);
		CHECK_EQ(vmp_vpte(&p, VMP_DATA) & (VPTE_A | VPTE_M), 0);
		CHECK(!pmap_is_modified(m));
		CHECK_EQ(pmap_ts_referenced(m), 0);
		CHECK_EQ(run_load(&p, VMP_DATA), T_SYSCALL);
		CHECK_EQ(p.tf.tf_rsi, round - 1);
		CHECK_EQ(vmp_vpte(&p, VMP_DATA) & (VPTE_A | VPTE_M), VPTE_A);
		CHECK(!pmap_is_modified(m));
		CHECK_EQ(run_store(&p, VMP_DATA, round), T_SYSCALL);
		CHECK(vmp_vpte(&p, VMP_DATA) & VPTE_M);
		CHECK(pmap_is_modified(m));
		CHECK_EQ(p.nfaults, nf);	/* the host did it all */
	}
	vmp_destroy(&p);
}

/* Reverse mappings: one per pmap that maps a page, through fork and exit. */
TEST(pmap_pv_entries)
{
	struct vmp p, c;
	REQUIRE(vmp_spawn(&p, g_vm_load) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	CHECK_EQ(vmp_poke(&p, VMP_DATA, 5), 0);
	struct vm_page *m = page_at(&p, VMP_DATA);
	CHECK_EQ(npv(m), 1);
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(npv(m), 1);		/* the child maps on demand */
	CHECK_EQ(run_load(&c, VMP_DATA), T_SYSCALL);
	CHECK_EQ(npv(m), 2);
	/* Harvesting A covers both mappings; each access sets its own again. */
	CHECK_EQ(pmap_ts_referenced(m), 2);
	CHECK_EQ(run_load(&c, VMP_DATA), T_SYSCALL);
	CHECK_EQ(pmap_ts_referenced(m), 1);
	/* The child writes: its copy is a new page, m loses a mapping. */
	CHECK_EQ(run_store(&c, VMP_DATA, 6), T_SYSCALL);
	CHECK_EQ(npv(m), 1);
	CHECK_EQ(npv(page_at(&c, VMP_DATA)), 1);
	vmp_destroy(&c);
	CHECK_EQ(npv(m), 1);
	vmp_destroy(&p);
}

/*
 * exec's switch: where the host says exec keeps the stub
 * (vmspace_exec_keeps: no spare core), the new address space takes over
 * the old one's host process, and none of the old translations survive
 * in it; elsewhere the old one's goes and the new one is hosted afresh at
 * its first run.  Either way the new image runs on its own pages.
 */
TEST(pmap_exec_switch_host)
{
	struct vmp p, n;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	CHECK_EQ(run_store(&p, VMP_DATA, 42), T_SYSCALL);
	struct vmspace_host *vh = vmspace_host_of(&p.vm->vm_pmap);
	REQUIRE(vh != NULL);
	pid_t stub = vh->pid;
	bool keeps = vmspace_exec_keeps(&p.vm->vm_pmap);

	/* Built but never run, the new address space has no host yet. */
	REQUIRE(vmp_spawn(&n, g_vm_load) == 0);
	CHECK(!n.vm->vm_pmap.pm_hosted);
	REQUIRE(vmp_anon(&n, VMP_DATA, PG) == 0);
	REQUIRE(vmp_poke(&n, VMP_DATA, 7) == 0);

	vmspace_exec_switch(n.vm, p.vm);
	p.vm = NULL;
	CHECK_EQ(n.vm->vm_pmap.pm_hosted, keeps);
	if (keeps) {
		vh = vmspace_host_of(&n.vm->vm_pmap);
		REQUIRE(vh != NULL);
		CHECK_EQ(vh->pid, stub);
	}
	CHECK_EQ(run_load(&n, VMP_DATA), T_SYSCALL);
	CHECK_EQ(n.tf.tf_rsi, 7);
	CHECK(n.vm->vm_pmap.pm_hosted);
	printf("  exec %s the stub\n", keeps ? "kept" : "let go of");
	vmp_destroy(&n);
}

/* The host layer's rekey checks its ids. */
TEST(vmspace_rekey_arguments)
{
	struct vmp p;
	int other;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vmspace_activate(p.vm) == 0);
	void *id = &p.vm->vm_pmap;
	CHECK_EQ(vmspace_rekey(&other, id), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(vmspace_rekey(id, NULL), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(vmspace_rekey(id, id), -1);
	CHECK_EQ(errno, EEXIST);
	CHECK_EQ(vmspace_rekey(id, &other), 0);
	CHECK(vmspace_host_of(id) == NULL);
	CHECK_EQ(vmspace_rekey(&other, id), 0);
	CHECK(vmspace_host_of(id) != NULL);
	vmp_destroy(&p);
}
