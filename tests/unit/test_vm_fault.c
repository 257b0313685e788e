/*
 * Tests of vm_fault with real guest code (guest_vm.S) run through the
 * host layer: demand zero, copy-on-write after vmspace_fork, protection
 * and unmapping faults, MADV_DONTNEED, stack growth, exhausted RAM,
 * file-backed objects through a test pager, fork's madvise flags, exec,
 * and page accounting: every page a process took comes back when it goes.
 */
#include <stdlib.h>

#include "fs/vnode_pager.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmproc.h"
#include "kern/kmem.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"

#define PG	PAGE_SIZE
#define RW	(PROT_READ | PROT_WRITE)
#define ANON	(MAP_PRIVATE | MAP_ANONYMOUS)

static struct vm_map_entry *
entry_at(struct vmp *p, uint64_t va)
{
	struct vm_map_entry *e;
	return vm_map_lookup_entry(&p->vm->vm_map, va, &e) ? e : NULL;
}

/* Runs vm_fill over n pages at va with values base + i; its sum or ~0. */
static uint64_t
fill(struct vmp *p, uint64_t va, uint64_t n, uint64_t base)
{
	vmp_goto(p, g_vm_fill);
	p->tf.tf_rdi = va;
	p->tf.tf_rsi = n;
	p->tf.tf_rdx = base;
	if (vmp_run(p) != T_SYSCALL || p->tf.tf_rax != VMP_SYS_DONE)
		return ~0UL;
	return p->tf.tf_r9;
}

/* Runs vm_sum over n pages at va: the sum of their first qwords, or ~0. */
static uint64_t
sum(struct vmp *p, uint64_t va, uint64_t n)
{
	vmp_goto(p, g_vm_sum);
	p->tf.tf_rdi = va;
	p->tf.tf_rsi = n;
	if (vmp_run(p) != T_SYSCALL || p->tf.tf_rax != VMP_SYS_LOAD)
		return ~0UL;
	return p->tf.tf_rdx;
}

/* Runs vm_store of v at va: the trap number (T_SYSCALL when it worked). */
static int
store(struct vmp *p, uint64_t va, uint64_t v)
{
	vmp_goto(p, g_vm_store);
	p->tf.tf_rdi = va;
	p->tf.tf_rsi = v;
	return vmp_run(p);
}

/* Runs vm_load at va: the trap number; the value is in tf_rsi. */
static int
load(struct vmp *p, uint64_t va)
{
	vmp_goto(p, g_vm_load);
	p->tf.tf_rdi = va;
	return vmp_run(p);
}

static uint64_t
series(uint64_t n, uint64_t base)
{
	return n * base + n * (n - 1) / 2;
}

/* The full loop: run, T_PAGEFLT, vm_fault, run again, for fresh pages. */
TEST(vm_fault_demand_zero)
{
	enum { N = 40 };
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, N * PG) == 0);
	CHECK_EQ(sum(&p, VMP_DATA, N), 0);	/* zero pages, read first */
	uint64_t faults = p.nfaults;
	CHECK(faults >= 1);
	CHECK_EQ(fill(&p, VMP_DATA, N, 1000), series(N, 1000));
	/* Reads mapped the pages read-only?  No: private pages are writable. */
	CHECK(p.nfaults - faults <= 1);
	struct vm_object *obj = entry_at(&p, VMP_DATA)->object;
	REQUIRE(obj != NULL);
	CHECK_EQ(obj->resident_page_count, N);
	CHECK(obj->flags & OBJ_ONEMAPPING);
	for (int i = 0; i < N; i++) {
		CHECK_EQ(vmp_peek(&p, VMP_DATA + i * PG), 1000 + i);
		vpte_t e = vmp_vpte(&p, VMP_DATA + i * PG);
		CHECK((e & (VPTE_V | VPTE_U | VPTE_RW | VPTE_A | VPTE_M | VPTE_NX)) ==
		    (VPTE_V | VPTE_U | VPTE_RW | VPTE_A | VPTE_M | VPTE_NX));
	}
	/* A fault on a page mapped as asked changes nothing. */
	uint64_t pa = vmp_pa(&p, VMP_DATA);
	CHECK_EQ(vm_fault(p.vm, VMP_DATA + 5, VM_PROT_WRITE), 0);
	CHECK_EQ(vmp_pa(&p, VMP_DATA), pa);
	CHECK_EQ(obj->resident_page_count, N);
	/* The code is executable and read-only. */
	vpte_t c = vmp_vpte(&p, VMP_CODE);
	CHECK((c & (VPTE_V | VPTE_RW | VPTE_NX)) == VPTE_V);
	vmp_destroy(&p);
}

/*
 * fork: both see the same data in the same pages until one writes; a
 * write is private to its side; when the child goes, the parent's chain
 * collapses back to one object; all pages come back.
 */
TEST(vm_fault_fork_cow)
{
	enum { N = 64 };
	struct vmp p, c;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, N * PG) == 0);
	CHECK_EQ(fill(&p, VMP_DATA, N, 1), series(N, 1));
	uint64_t before_fork = vmp_free_pages();
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(sum(&c, VMP_DATA, N), series(N, 1));
	CHECK_EQ(sum(&p, VMP_DATA, N), series(N, 1));
	/* Same physical pages, read-only on both sides. */
	for (int i = 0; i < N; i++) {
		uint64_t va = VMP_DATA + i * PG;
		CHECK_EQ(vmp_pa(&c, va), vmp_pa(&p, va));
		CHECK(!(vmp_vpte(&c, va) & VPTE_RW));
		CHECK(!(vmp_vpte(&p, va) & VPTE_RW));
	}
	/* The child cost page tables and bookkeeping, not N data pages. */
	uint64_t shared = vmp_free_pages();
	CHECK(before_fork - shared < 16);
	struct vm_object *obj = entry_at(&p, VMP_DATA)->object;
	CHECK(obj == entry_at(&c, VMP_DATA)->object);
	CHECK_EQ(obj->ref_count, 2);

	/* The child writes page 3: its own copy; the parent sees nothing. */
	CHECK_EQ(store(&c, VMP_DATA + 3 * PG, 777), T_SYSCALL);
	CHECK_EQ(load(&c, VMP_DATA + 3 * PG), T_SYSCALL);
	CHECK_EQ(c.tf.tf_rsi, 777);
	CHECK_EQ(load(&p, VMP_DATA + 3 * PG), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 4);
	CHECK(vmp_pa(&c, VMP_DATA + 3 * PG) != vmp_pa(&p, VMP_DATA + 3 * PG));
	CHECK_EQ(vmp_pa(&c, VMP_DATA + 4 * PG), vmp_pa(&p, VMP_DATA + 4 * PG));
	CHECK(before_fork - vmp_free_pages() < 16 + 1);
	struct vm_object *cs = entry_at(&c, VMP_DATA)->object;
	CHECK(cs != obj && cs->backing_object == obj);
	CHECK_EQ(cs->resident_page_count, 1);

	/* The parent writes page 5; the child keeps the old value. */
	CHECK_EQ(store(&p, VMP_DATA + 5 * PG, 555), T_SYSCALL);
	CHECK_EQ(load(&c, VMP_DATA + 5 * PG), T_SYSCALL);
	CHECK_EQ(c.tf.tf_rsi, 6);
	CHECK_EQ(sum(&p, VMP_DATA, N), series(N, 1) - 6 + 555);
	CHECK_EQ(sum(&c, VMP_DATA, N), series(N, 1) - 4 + 777);

	/* The child goes: the parent's shadow absorbs the shared object. */
	vmp_destroy(&c);
	struct vm_object *ps = entry_at(&p, VMP_DATA)->object;
	CHECK(ps->backing_object == NULL);
	CHECK_EQ(ps->resident_page_count, N);
	CHECK_EQ(sum(&p, VMP_DATA, N), series(N, 1) - 6 + 555);
	/* Writable again without copying (the pages are the parent's now). */
	uint64_t pa7 = vmp_pa(&p, VMP_DATA + 7 * PG);
	CHECK_EQ(store(&p, VMP_DATA + 7 * PG, 7), T_SYSCALL);
	CHECK_EQ(vmp_pa(&p, VMP_DATA + 7 * PG), pa7);
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/* Grandchildren, exits in every order: data stays right, pages come back. */
TEST(vm_fault_fork_chains)
{
	enum { N = 8, G = 4 };
	struct vmp g[G];
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&g[0], g_vm_fill) == 0);
	REQUIRE(vmp_anon(&g[0], VMP_DATA, N * PG) == 0);
	CHECK_EQ(fill(&g[0], VMP_DATA, N, 100), series(N, 100));
	for (int i = 1; i < G; i++) {
		REQUIRE(vmp_fork(&g[i - 1], &g[i]) == 0);
		/* Each generation overwrites page i with its own number. */
		CHECK_EQ(store(&g[i], VMP_DATA + i * PG, 1000 + i), T_SYSCALL);
	}
	for (int i = 0; i < G; i++) {
		uint64_t want = series(N, 100);
		for (int j = 1; j <= i; j++)
			want += 1000 + j - (100 + j);
		CHECK_EQ(sum(&g[i], VMP_DATA, N), want);
	}
	/* The middle ones go first, then the parent; the last one holds on. */
	vmp_destroy(&g[1]);
	vmp_destroy(&g[2]);
	vmp_destroy(&g[0]);
	CHECK_EQ(sum(&g[3], VMP_DATA, N), series(N, 100) + 3 * 900);
	CHECK(entry_at(&g[3], VMP_DATA)->object->backing_object == NULL);
	CHECK_EQ(entry_at(&g[3], VMP_DATA)->object->resident_page_count, N);
	vmp_destroy(&g[3]);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/*
 * A collapse can leave the survivor pages outside its entry (the other
 * side's): memory mapped there afresh must still read as zero, not as
 * those pages, even where it merges with the entry.
 */
TEST(vm_fault_collapse_leftovers)
{
	struct vmp p, c;
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, 3 * PG) == 0);
	CHECK_EQ(fill(&p, VMP_DATA, 3, 10), series(3, 10));
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(store(&p, VMP_DATA, 1), T_SYSCALL);	/* p's shadow */
	CHECK_EQ(vm_munmap(p.vm, VMP_DATA + 2 * PG, PG), 0);
	vmp_destroy(&c);				/* collapse */
	struct vm_object *obj = entry_at(&p, VMP_DATA)->object;
	CHECK(obj->backing_object == NULL);
	CHECK(vm_object_page_lookup(obj, (VMP_DATA >> PAGE_SHIFT) + 2) != NULL);
	REQUIRE(vmp_anon(&p, VMP_DATA + 2 * PG, PG) == 0);
	CHECK_EQ(vmp_peek(&p, VMP_DATA + 2 * PG), 0);
	CHECK_EQ(sum(&p, VMP_DATA, 3), 1 + 11);
	/* Where the object has no page, the new range merges with it. */
	REQUIRE(vmp_anon(&p, VMP_DATA + 3 * PG, PG) == 0);
	CHECK(entry_at(&p, VMP_DATA + 3 * PG) == entry_at(&p, VMP_DATA + 2 * PG));
	vmp_destroy(&p);
}

/* Write-only memory is readable (x86), and stays so when shared by fork. */
TEST(vm_fault_write_only)
{
	struct vmp p, c;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vm_mmap(p.vm, VMP_DATA, 2 * PG, PROT_WRITE, ANON | MAP_FIXED,
	    NULL, 0) == (long)VMP_DATA);
	CHECK_EQ(store(&p, VMP_DATA, 8), T_SYSCALL);
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(load(&c, VMP_DATA), T_SYSCALL);
	CHECK_EQ(c.tf.tf_rsi, 8);
	CHECK_EQ(load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(load(&c, VMP_DATA + PG), T_SYSCALL);	/* a zero page */
	CHECK_EQ(c.tf.tf_rsi, 0);
	CHECK_EQ(store(&c, VMP_DATA, 9), T_SYSCALL);
	CHECK_EQ(load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 8);
	vmp_destroy(&c);
	vmp_destroy(&p);
}

/* MAP_SHARED memory stays shared across fork. */
TEST(vm_fault_fork_shared)
{
	struct vmp p, c;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vm_mmap(p.vm, VMP_DATA, 2 * PG, RW, MAP_SHARED | MAP_ANONYMOUS |
	    MAP_FIXED, NULL, 0) == (long)VMP_DATA);
	REQUIRE(vmp_fork(&p, &c) == 0);	/* untouched: created to be shared */
	CHECK_EQ(store(&c, VMP_DATA, 11), T_SYSCALL);
	CHECK_EQ(load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 11);
	CHECK_EQ(store(&p, VMP_DATA + PG, 22), T_SYSCALL);
	CHECK_EQ(load(&c, VMP_DATA + PG), T_SYSCALL);
	CHECK_EQ(c.tf.tf_rsi, 22);
	CHECK_EQ(vmp_pa(&p, VMP_DATA), vmp_pa(&c, VMP_DATA));
	CHECK(vmp_vpte(&c, VMP_DATA) & VPTE_RW);
	/* DONTNEED on shared memory keeps the data. */
	CHECK_EQ(vm_madvise(c.vm, VMP_DATA, 2 * PG, MADV_DONTNEED), 0);
	CHECK_EQ(vmp_vpte(&c, VMP_DATA) & VPTE_V, 0);
	CHECK_EQ(load(&c, VMP_DATA), T_SYSCALL);
	CHECK_EQ(c.tf.tf_rsi, 11);
	vmp_destroy(&c);
	vmp_destroy(&p);
}

/*
 * vmspace_touch_first (what fork does for the child's stack top and thread
 * pointer): the child gets its own copy of a private page before it runs,
 * so its first write there takes no fault at all (without: a
 * copy-on-write fault); the parent keeps its page, read-only, and its
 * data; a shared page and an address with nothing mapped are left alone.
 */
TEST(vm_fault_fork_touch)
{
	struct vmp p, c;
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, 4 * PG) == 0);
	CHECK_EQ(fill(&p, VMP_DATA, 4, 1), series(4, 1));
	REQUIRE(vm_mmap(p.vm, VMP_DATA + 8 * PG, PG, RW, MAP_SHARED |
	    MAP_ANONYMOUS | MAP_FIXED, NULL, 0) == (long)(VMP_DATA + 8 * PG));
	REQUIRE(vmp_fork(&p, &c) == 0);
	uint64_t ppa = vmp_pa(&p, VMP_DATA + PG);
	vmspace_touch_first(c.vm, VMP_DATA + PG + 8);
	vmspace_touch_first(c.vm, VMP_DATA + 8 * PG);
	vmspace_touch_first(c.vm, VMP_DATA + 16 * PG);
	CHECK(vmp_vpte(&c, VMP_DATA + PG) & VPTE_RW);
	CHECK(vmp_pa(&c, VMP_DATA + PG) != ppa);
	CHECK_EQ(vmp_pa(&p, VMP_DATA + PG), ppa);
	CHECK(!(vmp_vpte(&p, VMP_DATA + PG) & VPTE_RW));
	CHECK_EQ(vmp_vpte(&c, VMP_DATA + 8 * PG) & VPTE_V, 0);
	CHECK(entry_at(&c, VMP_DATA + 16 * PG) == NULL);

	/* Code and stack fault in first; then the write costs nothing. */
	CHECK_EQ(load(&c, VMP_DATA), T_SYSCALL);
	c.nfaults = 0;
	CHECK_EQ(store(&c, VMP_DATA + PG, 99), T_SYSCALL);
	CHECK_EQ(c.nfaults, 0);
	CHECK_EQ(load(&c, VMP_DATA + PG), T_SYSCALL);
	CHECK_EQ(c.tf.tf_rsi, 99);
	CHECK_EQ(load(&p, VMP_DATA + PG), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 2);
	vmp_destroy(&c);
	vmp_destroy(&p);
}

/* mprotect takes write away: the guest's write faults, vm_fault refuses (-EACCES). */
TEST(vm_fault_mprotect_refuses)
{
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	CHECK_EQ(store(&p, VMP_DATA, 1), T_SYSCALL);
	CHECK_EQ(vm_mprotect(p.vm, VMP_DATA, PG, PROT_READ), 0);
	CHECK_EQ(store(&p, VMP_DATA, 2), T_PAGEFLT);
	CHECK_EQ(p.fault_err, -EACCES);
	CHECK_EQ(p.tf.tf_addr, VMP_DATA);
	CHECK_EQ(p.tf.tf_err & (PGEX_P | PGEX_W), PGEX_P | PGEX_W);
	CHECK_EQ(vmp_peek(&p, VMP_DATA), 1);
	CHECK_EQ(load(&p, VMP_DATA), T_SYSCALL);	/* reads still work */
	CHECK_EQ(p.tf.tf_rsi, 1);
	/* PROT_NONE takes every access away; the mapping stays (ACCERR). */
	CHECK_EQ(vm_mprotect(p.vm, VMP_DATA, PG, PROT_NONE), 0);
	CHECK_EQ(load(&p, VMP_DATA), T_PAGEFLT);
	CHECK_EQ(p.fault_err, -EACCES);
	/* Given back, the store goes through. */
	CHECK_EQ(vm_mprotect(p.vm, VMP_DATA, PG, RW), 0);
	CHECK_EQ(store(&p, VMP_DATA, 3), T_SYSCALL);
	CHECK_EQ(vmp_peek(&p, VMP_DATA), 3);
	vmp_destroy(&p);
}

/* Touching after munmap faults and is refused. */
TEST(vm_fault_munmap_refuses)
{
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_load) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, 2 * PG) == 0);
	CHECK_EQ(vmp_poke(&p, VMP_DATA + PG, 9), 0);
	CHECK_EQ(load(&p, VMP_DATA + PG), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 9);
	CHECK_EQ(vm_munmap(p.vm, VMP_DATA + PG, PG), 0);
	CHECK_EQ(load(&p, VMP_DATA + PG), T_PAGEFLT);
	CHECK_EQ(p.fault_err, -EFAULT);
	CHECK_EQ(p.tf.tf_addr, VMP_DATA + PG);
	CHECK_EQ(load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(load(&p, 0), T_PAGEFLT);		/* NULL */
	CHECK_EQ(p.fault_err, -EFAULT);
	CHECK_EQ(vm_fault(p.vm, VM_MAX_USER_ADDRESS, VM_PROT_READ), -EFAULT);
	CHECK_EQ(vm_fault(p.vm, ~0UL, VM_PROT_READ), -EFAULT);
	vmp_destroy(&p);
}

/* Code runs only where PROT_EXEC is; granting it lets the jump through. */
TEST(vm_fault_exec)
{
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_jump) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	size_t n = (size_t)(g_vm_load_end - g_vm_load);
	REQUIRE(vm_copyout(p.vm, g_vm_load, VMP_DATA, n) == 0);
	p.tf.tf_rdi = VMP_DATA;
	CHECK_EQ(vmp_run(&p), T_PAGEFLT);
	CHECK_EQ(p.fault_err, -EACCES);
	CHECK_EQ(p.tf.tf_addr, VMP_DATA);
	CHECK(p.tf.tf_err & PGEX_I);
	CHECK_EQ(vm_mprotect(p.vm, VMP_DATA, PG, PROT_READ | PROT_EXEC), 0);
	/* The jump restarts; g_vm_load (copied there) loads (%rdi). */
	CHECK_EQ(vmp_run(&p), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rax, VMP_SYS_LOAD);
	uint64_t head;
	memcpy(&head, g_vm_load, sizeof(head));
	CHECK_EQ(p.tf.tf_rsi, head);
	vmp_destroy(&p);
}

/* MADV_DONTNEED: private anonymous memory reads as zero again. */
TEST(vm_fault_dontneed)
{
	enum { N = 8 };
	struct vmp p, c;
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, N * PG) == 0);
	CHECK_EQ(fill(&p, VMP_DATA, N, 10), series(N, 10));
	struct vm_object *obj = entry_at(&p, VMP_DATA)->object;
	CHECK_EQ(vm_madvise(p.vm, VMP_DATA + 2 * PG, 3 * PG, MADV_DONTNEED), 0);
	CHECK_EQ(obj->resident_page_count, N - 3);
	CHECK_EQ(p.vm->vm_map.nentries, 3);	/* code, data, stack */
	CHECK_EQ(sum(&p, VMP_DATA, N), series(N, 10) - (12 + 13 + 14));

	/* After fork, a child's DONTNEED must not bring back the parent's data. */
	CHECK_EQ(fill(&p, VMP_DATA, N, 10), series(N, 10));
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(store(&c, VMP_DATA, 99), T_SYSCALL);	/* a shadow of its own */
	CHECK_EQ(vm_madvise(c.vm, VMP_DATA, 2 * PG, MADV_DONTNEED), 0);
	/* The range starts afresh, with no object: the older layer is gone. */
	CHECK(entry_at(&c, VMP_DATA)->object == NULL);
	CHECK_EQ(entry_at(&c, VMP_DATA)->end, VMP_DATA + 2 * PG);
	CHECK_EQ(sum(&c, VMP_DATA, N), series(N, 10) - (10 + 11));
	CHECK_EQ(vm_madvise(c.vm, VMP_DATA + 4 * PG, PG, MADV_FREE), 0);
	CHECK_EQ(sum(&c, VMP_DATA, N), series(N, 10) - (10 + 11 + 14));
	CHECK_EQ(sum(&p, VMP_DATA, N), series(N, 10));
	/* Holes give -ENOMEM after doing the rest; bad advice -EINVAL. */
	CHECK_EQ(vm_madvise(c.vm, VMP_DATA + (N - 1) * PG, 2 * PG, MADV_DONTNEED),
	    -ENOMEM);
	CHECK_EQ(sum(&c, VMP_DATA + (N - 1) * PG, 1), 0);
	CHECK_EQ(vm_madvise(c.vm, VMP_DATA, PG, 12345), -EINVAL);
	CHECK_EQ(vm_madvise(c.vm, VMP_DATA + 1, PG, MADV_DONTNEED), -EINVAL);
	CHECK_EQ(vm_madvise(c.vm, VMP_DATA, PG, MADV_WILLNEED), 0);
	vmp_destroy(&c);
	vmp_destroy(&p);
}

/* MADV_DONTFORK and MADV_WIPEONFORK: what the child gets. */
TEST(vm_fault_fork_madvise)
{
	struct vmp p, c;
	REQUIRE(vmp_spawn(&p, g_vm_load) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, 3 * PG) == 0);
	for (int i = 0; i < 3; i++)
		CHECK_EQ(vmp_poke(&p, VMP_DATA + i * PG, 50 + i), 0);
	CHECK_EQ(vm_madvise(p.vm, VMP_DATA, PG, MADV_DONTFORK), 0);
	CHECK_EQ(vm_madvise(p.vm, VMP_DATA + PG, PG, MADV_WIPEONFORK), 0);
	CHECK_EQ(vm_mmap(p.vm, VMP_DATA + 8 * PG, PG, RW, MAP_SHARED |
	    MAP_ANONYMOUS | MAP_FIXED, NULL, 0), VMP_DATA + 8 * PG);
	CHECK_EQ(vm_madvise(p.vm, VMP_DATA + 8 * PG, PG, MADV_WIPEONFORK), -EINVAL);
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(load(&c, VMP_DATA), T_PAGEFLT);
	CHECK_EQ(c.fault_err, -EFAULT);
	CHECK_EQ(load(&c, VMP_DATA + PG), T_SYSCALL);
	CHECK_EQ(c.tf.tf_rsi, 0);
	CHECK_EQ(load(&c, VMP_DATA + 2 * PG), T_SYSCALL);
	CHECK_EQ(c.tf.tf_rsi, 52);
	CHECK_EQ(load(&p, VMP_DATA + PG), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 51);
	/*
	 * Undone, the flags go and the two entries merge again (the third
	 * is still copy-on-write from the fork).
	 */
	CHECK_EQ(vm_madvise(p.vm, VMP_DATA, 2 * PG, MADV_DOFORK), 0);
	CHECK_EQ(vm_madvise(p.vm, VMP_DATA, 2 * PG, MADV_KEEPONFORK), 0);
	CHECK_EQ(entry_at(&p, VMP_DATA)->end, VMP_DATA + 2 * PG);
	CHECK_EQ(entry_at(&p, VMP_DATA)->eflags, MAP_ENTRY_COW);
	vmp_destroy(&c);
	vmp_destroy(&p);
}

/* A MAP_GROWSDOWN stack grows on faults, up to vm_stack_max. */
TEST(vm_fault_stack_grows)
{
	struct vmp p;
	REQUIRE(vmp_spawn(&p, g_vm_stack) == 0);
	p.vm->vm_stack_max = 256 * 1024;
	p.tf.tf_rsi = 128 * 1024;
	CHECK_EQ(vmp_run(&p), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rax, VMP_SYS_DONE);
	struct vm_map_entry *e = entry_at(&p, VMP_STACK - PG);
	REQUIRE(e != NULL);
	CHECK(e->eflags & MAP_ENTRY_GROWSDOWN);
	CHECK_EQ(e->end, VMP_STACK);
	CHECK_EQ(e->start, VMP_STACK - 64 - 128 * 1024 + 64 - PG);
	CHECK_EQ(p.vm->vm_map.nentries, 2);	/* one stack entry, and the code */
	/* Deeper than the limit: refused. */
	vmp_goto(&p, g_vm_stack);
	p.tf.tf_rsi = 512 * 1024;
	CHECK_EQ(vmp_run(&p), T_PAGEFLT);
	CHECK_EQ(p.fault_err, -EFAULT);
	CHECK(p.tf.tf_addr < VMP_STACK - 256 * 1024);
	/* A mapping just below the stack stops it at the guard gap. */
	p.vm->vm_stack_max = 1 << 20;
	e = entry_at(&p, VMP_STACK - PG);
	uint64_t low = e->start - VM_STACK_GUARD - 4 * PG;
	REQUIRE(vmp_anon(&p, low, PG) == 0);
	CHECK_EQ(vm_fault(p.vm, low + PG + VM_STACK_GUARD - PG, VM_PROT_WRITE),
	    -EFAULT);
	CHECK_EQ(vm_fault(p.vm, low + PG + VM_STACK_GUARD, VM_PROT_WRITE), 0);
	vmp_destroy(&p);
}

static TAILQ_HEAD(, vm_page) hoard = TAILQ_HEAD_INITIALIZER(hoard);

/* Takes free pages until `leave' are left. */
static void
hoard_pages(uint64_t leave)
{
	struct vm_page *m;
	kmem_reclaim();
	while (vmstats.v_free_count > leave && (m = vm_page_alloc(0, 0)) != NULL)
		TAILQ_INSERT_TAIL(&hoard, m, pageq);
}

static void
hoard_release(void)
{
	struct vm_page *m;
	while ((m = TAILQ_FIRST(&hoard)) != NULL) {
		TAILQ_REMOVE(&hoard, m, pageq);
		vm_page_free(m, 0);
	}
}

/*
 * RAM runs out: the fault fails with -ENOMEM and leaves everything as it
 * was, or as consistent; with RAM back, the same fault succeeds.
 */
TEST(vm_fault_enomem)
{
	struct vmp p;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	uint64_t far = VMP_DATA + (1UL << 30);		/* a table of its own */
	REQUIRE(vmp_anon(&p, far, PG) == 0);
	CHECK_EQ(store(&p, VMP_DATA, 1), T_SYSCALL);	/* code, stack, tables */
	CHECK_EQ(vmp_poke(&p, far + 8, 0), 0);
	CHECK_EQ(vm_munmap(p.vm, far, PG), 0);		/* its tables go */
	REQUIRE(vmp_anon(&p, far, PG) == 0);

	/* No page at all: the data page cannot be had. */
	hoard_pages(0);
	CHECK_EQ(vmstats.v_free_count, 0);
	CHECK_EQ(store(&p, VMP_DATA + PG * 0 + 8, 2), T_SYSCALL);	/* mapped */
	CHECK_EQ(store(&p, far, 3), T_PAGEFLT);
	CHECK_EQ(p.fault_err, -ENOMEM);
	CHECK_EQ(vmp_vpte(&p, far) & VPTE_V, 0);
	hoard_release();

	/* One page: the data page, but no page table for it. */
	hoard_pages(1);
	CHECK_EQ(store(&p, far, 3), T_PAGEFLT);
	CHECK_EQ(p.fault_err, -ENOMEM);
	CHECK_EQ(pmap_pte(&p.vm->vm_pmap, far), NULL);
	struct vm_object *obj = entry_at(&p, far)->object;
	CHECK(obj == NULL || obj->resident_page_count <= 1);
	hoard_release();

	/* RAM back: the same store, restarted, goes through. */
	CHECK_EQ(vmp_run(&p), T_SYSCALL);
	CHECK_EQ(vmp_peek(&p, far), 3);
	CHECK_EQ(vmp_peek(&p, VMP_DATA + 8), 2);
	CHECK_EQ(vmp_peek(&p, VMP_DATA), 1);

	/* fork with no RAM: NULL, and the parent goes on. */
	hoard_pages(0);
	CHECK(vmspace_fork(p.vm) == NULL);
	hoard_release();
	CHECK_EQ(store(&p, VMP_DATA, 4), T_SYSCALL);
	CHECK_EQ(vmp_peek(&p, VMP_DATA), 4);
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/* A process that touched N pages gives every page back when it goes. */
TEST(vm_fault_accounting)
{
	enum { N = 300 };
	struct vmp p, c;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	uint64_t spawned = vmp_free_pages();
	REQUIRE(vmp_anon(&p, VMP_DATA, N * PG) == 0);
	/* Spread over tables: a second range 3 GiB away. */
	REQUIRE(vmp_anon(&p, VMP_DATA + (3UL << 30), 4 * PG) == 0);
	CHECK_EQ(fill(&p, VMP_DATA, N, 1), series(N, 1));
	CHECK_EQ(fill(&p, VMP_DATA + (3UL << 30), 4, 1), series(4, 1));
	CHECK(spawned - vmp_free_pages() >= N + 4);
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(fill(&c, VMP_DATA, N / 2, 7), series(N / 2, 7));
	vmp_destroy(&p);
	vmp_destroy(&c);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/* exec empties the address space, and frees what it held. */
TEST(vm_fault_exec_empties)
{
	struct vmp p;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	uint64_t empty = baseline - vmp_free_pages();	/* what load took */
	REQUIRE(vmp_anon(&p, VMP_DATA, 16 * PG) == 0);
	CHECK_EQ(fill(&p, VMP_DATA, 16, 1), series(16, 1));
	p.vm->vm_brk_start = p.vm->vm_brk = 0x600000;
	vmspace_exec(p.vm);
	CHECK_EQ(p.vm->vm_map.nentries, 0);
	CHECK_EQ(p.vm->vm_pmap.pm_resident, 0);
	CHECK_EQ(p.vm->vm_pmap.pm_ptpages, 1);
	CHECK_EQ(p.vm->vm_brk, 0);
	CHECK(baseline - vmp_free_pages() < empty);
	/* And the new image runs. */
	REQUIRE(vmp_load(&p, g_vm_fill) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, 2 * PG) == 0);
	CHECK_EQ(fill(&p, VMP_DATA, 2, 5), series(2, 5));
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/*
 * A file's object through a test pager: a private mapping reads the file
 * and writes copies; a shared one writes the file's pages; beyond its end
 * a fault gets -EIO; DONTNEED on the private one shows the file again.
 */
#define FILE_PAGES	4

static int
test_getpage(struct vm_object *obj, uint64_t pindex, struct vm_page **mp)
{
	if (pindex >= FILE_PAGES)
		return -EIO;
	struct vm_page *m = vm_object_page_alloc(obj, pindex, true);
	if (m == NULL)
		return -ENOMEM;
	*(uint64_t *)VM_PAGE_TO_DMAP(m) = 0xf11e0000 + pindex;
	*mp = m;
	return 0;
}

static int
test_putpages(struct vm_object *obj, const uint64_t *idx, int n)
{
	(void)obj;
	(void)idx;
	(void)n;
	return -ENOSYS;
}

static const struct vm_pager_ops test_pager = {
	.name = "test",
	.getpage = test_getpage,
	.putpages = test_putpages,
};

TEST(vm_fault_file_object)
{
	struct vmp p, q;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	struct vm_object *file = vm_object_allocate_vnode(&test_pager, NULL);
	REQUIRE(file != NULL);
	REQUIRE(vmp_spawn(&p, g_vm_load) == 0);
	REQUIRE(vmp_spawn(&q, g_vm_load) == 0);
	/* Private, from file page 1; shared in q, from page 0. */
	CHECK_EQ(vm_mmap(p.vm, VMP_DATA, 4 * PG, RW, MAP_PRIVATE | MAP_FIXED,
	    file, PG), VMP_DATA);
	CHECK_EQ(vm_mmap(q.vm, VMP_DATA, 4 * PG, RW, MAP_SHARED | MAP_FIXED,
	    file, 0), VMP_DATA);
	CHECK_EQ(file->ref_count, 3);
	CHECK_EQ(load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 0xf11e0001);
	CHECK(!(vmp_vpte(&p, VMP_DATA) & VPTE_RW));
	CHECK_EQ(store(&p, VMP_DATA, 0xabc), T_SYSCALL);
	CHECK_EQ(vmp_peek(&p, VMP_DATA), 0xabc);
	CHECK_EQ(load(&q, VMP_DATA + PG), T_SYSCALL);
	CHECK_EQ(q.tf.tf_rsi, 0xf11e0001);		/* the file is unchanged */
	/* q's writes go to the file, and p sees them where it has no copy. */
	CHECK_EQ(store(&q, VMP_DATA + 2 * PG, 0x5ad), T_SYSCALL);
	CHECK(vmp_vpte(&q, VMP_DATA + 2 * PG) & VPTE_RW);
	CHECK_EQ(load(&p, VMP_DATA + PG), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 0x5ad);
	CHECK(pmap_is_modified(vm_object_page_lookup(file, 2)));
	/*
	 * The article's write-protect: a read fault maps a file page
	 * read-only even where the shared mapping may write, the write that
	 * dirties it faults; cleaning write-protects it again, so the next
	 * write faults and dirties it again.
	 */
	CHECK_EQ(load(&q, VMP_DATA + 3 * PG), T_SYSCALL);
	struct vm_page *m3 = vm_object_page_lookup(file, 3);
	REQUIRE(m3 != NULL);
	CHECK(!(vmp_vpte(&q, VMP_DATA + 3 * PG) & VPTE_RW));
	CHECK(!pmap_is_modified(m3));
	CHECK_EQ(store(&q, VMP_DATA + 3 * PG, 0x77), T_SYSCALL);
	CHECK(vmp_vpte(&q, VMP_DATA + 3 * PG) & VPTE_RW);
	CHECK(VM_PAGE_EXT(m3)->flags & PGX_DIRTY);
	CHECK(file->flags & OBJ_MIGHTBEDIRTY);
	CHECK(vnode_pager_cleaning(m3));
	CHECK(!(vmp_vpte(&q, VMP_DATA + 3 * PG) & VPTE_RW));
	CHECK(!pmap_is_modified(m3));
	CHECK(!vnode_pager_cleaning(m3));	/* clean: nothing to write */
	CHECK_EQ(store(&q, VMP_DATA + 3 * PG, 0x78), T_SYSCALL);
	CHECK(pmap_is_modified(m3));
	CHECK_EQ(vmp_peek(&q, VMP_DATA + 3 * PG), 0x78);
	/* Past the end of the file: -EIO (SIGBUS). */
	CHECK_EQ(load(&p, VMP_DATA + 3 * PG), T_PAGEFLT);
	CHECK_EQ(p.fault_err, -EIO);
	/* DONTNEED drops p's copy: the file shows through again. */
	CHECK_EQ(vm_madvise(p.vm, VMP_DATA, PG, MADV_DONTNEED), 0);
	CHECK_EQ(load(&p, VMP_DATA), T_SYSCALL);
	CHECK_EQ(p.tf.tf_rsi, 0xf11e0001);
	CHECK_EQ(vm_madvise(p.vm, VMP_DATA, PG, MADV_FREE), -EINVAL);
	/* A read-only file's shared mapping cannot be made writable. */
	CHECK_EQ(vm_mmap_maxprot(q.vm, VMP_DATA + 8 * PG, PG, PROT_READ,
	    PROT_READ | PROT_EXEC, MAP_SHARED | MAP_FIXED, file, 0),
	    VMP_DATA + 8 * PG);
	CHECK_EQ(vm_mprotect(q.vm, VMP_DATA + 8 * PG, PG, RW), -EACCES);
	vmp_destroy(&p);
	vmp_destroy(&q);
	CHECK_EQ(file->ref_count, 1);
	vm_object_deallocate(file);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/*
 * Random forks, exits, writes, reads, unmappings and MADV_DONTNEED over a
 * few processes, each checked against a model of what it must see: its
 * own writes, and its parent's from before the fork.  Exercises shadow
 * chains and their collapse in every order; every page comes back.
 */
#define NPROC	5
#define RWIN	24


TEST(vm_fault_random_fork)
{
	struct vmp pr[NPROC];
	bool live[NPROC] = { false };
	uint64_t val[NPROC][RWIN];	/* ~0: unmapped */
	vmp_init();
	uint64_t baseline = vmp_free_pages();

	rng_state = 0xa4093822299f31d0UL;
	REQUIRE(vmp_spawn(&pr[0], g_vm_sum) == 0);
	REQUIRE(vmp_anon(&pr[0], VMP_DATA, RWIN * PG) == 0);
	live[0] = true;
	for (int i = 0; i < RWIN; i++)
		val[0][i] = 0;
	for (int round = 0; round < 3000 && !unit_failed_now(); round++) {
		int a = (int)(rng() % NPROC), b = (int)(rng() % NPROC);
		int pg = (int)(rng() % RWIN);
		uint64_t va = VMP_DATA + (uint64_t)pg * PG;
		if (!live[a])
			continue;
		switch (rng() % 10) {
		case 0:		/* fork a into the free slot b */
			if (live[b])
				break;
			REQUIRE(vmp_fork(&pr[a], &pr[b]) == 0);
			memcpy(val[b], val[a], sizeof(val[a]));
			live[b] = true;
			break;
		case 1:		/* exit, but keep one process */
			if (live[b] && b != a) {
				vmp_destroy(&pr[b]);
				live[b] = false;
			}
			break;
		case 2: {	/* unmap a page, or map it afresh */
			if (val[a][pg] != ~0UL) {
				CHECK_EQ(vm_munmap(pr[a].vm, va, PG), 0);
				val[a][pg] = ~0UL;
			} else {
				CHECK_EQ(vmp_anon(&pr[a], va, PG), 0);
				val[a][pg] = 0;
			}
			break;
		}
		case 3:
			CHECK_EQ(vm_madvise(pr[a].vm, va, PG, MADV_DONTNEED),
			    val[a][pg] == ~0UL ? -ENOMEM : 0);
			if (val[a][pg] != ~0UL)
				val[a][pg] = 0;
			break;
		case 4: {	/* the guest reads the whole window, if mapped */
			bool all = true;
			uint64_t want = 0;
			for (int i = 0; i < RWIN; i++) {
				all &= val[a][i] != ~0UL;
				want += val[a][i];
			}
			if (all)
				CHECK_EQ(sum(&pr[a], VMP_DATA, RWIN), want);
			break;
		}
		case 5:
		case 6: {	/* the guest writes */
			uint64_t v = rng() >> 8;
			if (val[a][pg] == ~0UL)
				break;
			CHECK_EQ(store(&pr[a], va, v), T_SYSCALL);
			val[a][pg] = v;
			break;
		}
		default: {	/* the kernel writes or reads */
			uint64_t v = rng() >> 8;
			if (rng() % 2) {
				CHECK_EQ(vmp_poke(&pr[a], va, v),
				    val[a][pg] == ~0UL ? -EFAULT : 0);
				if (val[a][pg] != ~0UL)
					val[a][pg] = v;
			}
			CHECK_EQ(vmp_peek(&pr[a], va), val[a][pg]);
			break;
		}
		}
	}
	for (int i = 0; i < NPROC; i++) {
		if (!live[i])
			continue;
		for (int j = 0; j < RWIN; j++)
			CHECK_EQ(vmp_peek(&pr[i], VMP_DATA + (uint64_t)j * PG),
			    val[i][j]);
		vmp_destroy(&pr[i]);
	}
	CHECK_EQ(vmp_free_pages(), baseline);
}

/*
 * Writes through fresh memory in order: the second of two consecutive
 * demand-zero write faults fills the rest of its 8-page group, up to the
 * first page something already holds; a write elsewhere fills only its
 * own page.  The pages filled ahead are zero, writable and accounted.
 */
TEST(vm_fault_zero_ahead)
{
	struct vmp p;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, 32 * PG) == 0);
	CHECK_EQ(store(&p, VMP_DATA, 1), T_SYSCALL);
	struct vm_object *obj = entry_at(&p, VMP_DATA)->object;
	REQUIRE(obj != NULL);
	CHECK_EQ(obj->resident_page_count, 1);
	CHECK_EQ(store(&p, VMP_DATA + PG, 2), T_SYSCALL);
	CHECK_EQ(obj->resident_page_count, 8);		/* pages 0..7 */
	vpte_t e = vmp_vpte(&p, VMP_DATA + 5 * PG);
	CHECK((e & (VPTE_V | VPTE_RW | VPTE_M)) == (VPTE_V | VPTE_RW | VPTE_M));
	CHECK_EQ(vmp_peek(&p, VMP_DATA + 5 * PG), 0);
	/* Out of order: its page alone. */
	CHECK_EQ(store(&p, VMP_DATA + 20 * PG, 3), T_SYSCALL);
	CHECK_EQ(obj->resident_page_count, 9);
	/* In order again, but page 11 is there already: 10 only. */
	CHECK_EQ(store(&p, VMP_DATA + 11 * PG, 4), T_SYSCALL);
	CHECK_EQ(store(&p, VMP_DATA + 8 * PG, 5), T_SYSCALL);
	CHECK_EQ(store(&p, VMP_DATA + 9 * PG, 6), T_SYSCALL);
	CHECK_EQ(obj->resident_page_count, 13);
	CHECK(vmp_pa(&p, VMP_DATA + 10 * PG) != ~0UL);
	CHECK(vmp_pa(&p, VMP_DATA + 12 * PG) == ~0UL);
	CHECK_EQ(vmp_peek(&p, VMP_DATA + 11 * PG), 4);
	CHECK_EQ(vmp_peek(&p, VMP_DATA + PG), 2);
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/* Maps one private page at va as sys_mmap does: vm_mmap, then the hint. */
static int
mmap_page(struct vmp *p, uint64_t va)
{
	long r = vm_mmap(p->vm, va, PG, RW, ANON | MAP_FIXED, NULL, 0);
	if (r < 0)
		return (int)r;
	vm_mmap_touch_ahead(p->vm, va, PG, RW, ANON | MAP_FIXED);
	return 0;
}

/*
 * Mappings touched as soon as they are made: after two, the next ones
 * come with their first page, zero and writable, so their touch does not
 * fault.  A page so mapped counts absent until something non-zero is
 * written to it.  One left untouched stops it at the next mmap.  No page
 * is lost.
 */
TEST(vm_fault_touch_ahead)
{
	struct vmp p;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&p, g_vm_store) == 0);
	uint64_t faults[40];
	for (int i = 0; i < 40; i++) {
		uint64_t va = VMP_DATA + (uint64_t)i * 2 * PG;
		REQUIRE(mmap_page(&p, va) == 0);
		uint64_t f = p.nfaults;
		CHECK_EQ(store(&p, va, (uint64_t)i + 1), T_SYSCALL);
		faults[i] = p.nfaults - f;
		CHECK_EQ(vmp_peek(&p, va), (uint64_t)i + 1);
	}
	/* Learnt on 0 (which faults on the code too) and 1; then ahead. */
	CHECK(faults[0] >= 1);
	CHECK_EQ(faults[1], 1);
	for (int i = 2; i < 40; i++)
		CHECK_EQ(faults[i], 0);

	/* Mapped ahead, not touched: absent; written: there. */
	uint64_t va = VMP_DATA + 100 * PG;
	REQUIRE(mmap_page(&p, va) == 0);
	vpte_t e = vmp_vpte(&p, va);
	CHECK((e & (VPTE_V | VPTE_RW | VPTE_M)) == (VPTE_V | VPTE_RW | VPTE_M));
	struct vm_page *m = PHYS_TO_VM_PAGE(e & VPTE_FRAME);
	CHECK(vm_page_untouched(m));
	CHECK_EQ(store(&p, va, 9), T_SYSCALL);
	CHECK(!vm_page_untouched(m));

	/* One mapped ahead, left untouched: the next gets no page. */
	REQUIRE(mmap_page(&p, VMP_DATA + 110 * PG) == 0);
	CHECK(vmp_vpte(&p, VMP_DATA + 110 * PG) & VPTE_V);
	REQUIRE(mmap_page(&p, VMP_DATA + 112 * PG) == 0);
	CHECK(!(vmp_vpte(&p, VMP_DATA + 112 * PG) & VPTE_V));
	/* Its touch faults, and teaches it again. */
	CHECK_EQ(store(&p, VMP_DATA + 112 * PG, 1), T_SYSCALL);
	REQUIRE(mmap_page(&p, VMP_DATA + 114 * PG) == 0);
	CHECK(!(vmp_vpte(&p, VMP_DATA + 114 * PG) & VPTE_V));
	CHECK_EQ(store(&p, VMP_DATA + 114 * PG, 1), T_SYSCALL);
	REQUIRE(mmap_page(&p, VMP_DATA + 116 * PG) == 0);
	CHECK(vmp_vpte(&p, VMP_DATA + 116 * PG) & VPTE_V);
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/*
 * A child after fork writing through the parent's data in order: its
 * second write fault copies the rest of the 8-page group too, each page
 * with the parent's contents as at the fork, mapped writable, so the
 * writes that follow do not fault; the parent's pages stay as they were,
 * and a write of the parent's afterwards shows only in the parent.
 */
TEST(vm_fault_cow_ahead)
{
	enum { N = 16 };
	struct vmp p, c;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, N * PG) == 0);
	CHECK_EQ(fill(&p, VMP_DATA, N, 1), series(N, 1));
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(store(&c, VMP_DATA, 100), T_SYSCALL);
	struct vm_object *cs = entry_at(&c, VMP_DATA)->object;
	CHECK_EQ(cs->resident_page_count, 1);
	uint64_t f = c.nfaults;
	CHECK_EQ(store(&c, VMP_DATA + PG, 101), T_SYSCALL);
	CHECK_EQ(c.nfaults - f, 1);
	CHECK_EQ(cs->resident_page_count, 8);		/* pages 0..7 */
	for (int i = 2; i < 8; i++) {
		uint64_t va = VMP_DATA + (uint64_t)i * PG;
		vpte_t e = vmp_vpte(&c, va);
		CHECK((e & (VPTE_V | VPTE_RW | VPTE_M)) ==
		    (VPTE_V | VPTE_RW | VPTE_M));
		CHECK(vmp_pa(&c, va) != vmp_pa(&p, va));
		CHECK_EQ(vmp_peek(&c, va), (uint64_t)i + 1);
	}
	/* Pages 2..7 are written without a fault; 8 is the next group's. */
	f = c.nfaults;
	for (uint64_t i = 2; i < 8; i++)
		CHECK_EQ(store(&c, VMP_DATA + i * PG, 100 + i), T_SYSCALL);
	CHECK_EQ(c.nfaults, f);
	CHECK(!(vmp_vpte(&c, VMP_DATA + 8 * PG) & VPTE_V));
	/* The parent's data is its own; its write does not reach the child. */
	CHECK_EQ(sum(&p, VMP_DATA, N), series(N, 1));
	CHECK_EQ(store(&p, VMP_DATA + 9 * PG, 999), T_SYSCALL);
	CHECK_EQ(sum(&c, VMP_DATA, N), series(8, 100) + series(8, 9));
	vmp_destroy(&c);
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), baseline);
}

/*
 * A long run of writes in order: the window filled ahead doubles each
 * time the writer reaches its end, up to 64 pages, so 256 pages cost a
 * handful of faults rather than one per 8; every page is zero before
 * its write and holds it after; a write out of order starts over at 8.
 */
TEST(vm_fault_fill_ahead_grows)
{
	enum { N = 256 };
	struct vmp p;
	vmp_init();
	uint64_t baseline = vmp_free_pages();
	REQUIRE(vmp_spawn(&p, g_vm_fill) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, (N + 64) * PG) == 0);
	uint64_t f = p.nfaults;
	CHECK_EQ(fill(&p, VMP_DATA, N, 1), series(N, 1));
	uint64_t faults = p.nfaults - f;
	printf("    %d pages written in order: %lu faults\n", N,
	    (unsigned long)faults);
	/* 0, 1 (to 8), 8 (to 16), 16 (to 32), 32 (to 64), 64, 128, 192 */
	CHECK(faults <= 10);
	struct vm_object *obj = entry_at(&p, VMP_DATA)->object;
	REQUIRE(obj != NULL);
	CHECK_EQ(obj->resident_page_count, N);	/* 256 ends a window */
	for (uint64_t i = 0; i < N; i += 37)
		CHECK_EQ(vmp_peek(&p, VMP_DATA + i * PG), 1 + i);
	/* Out of order, then in order again: 8 pages, not 64. */
	CHECK_EQ(store(&p, VMP_DATA + (N + 40) * PG, 1), T_SYSCALL);
	CHECK_EQ(store(&p, VMP_DATA + (N + 41) * PG, 2), T_SYSCALL);
	CHECK_EQ(obj->resident_page_count, N + 8);	/* N+40..N+47 */
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), baseline);
}
