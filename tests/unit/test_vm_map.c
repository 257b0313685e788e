/*
 * Tests of vm_map and the mapping calls (vm/vm_map*.c, vm/vm_mmap.c):
 * placement, MAP_FIXED and its variants, splitting and merging by munmap
 * and mprotect, brk, errors, and random sequences of calls checked
 * against a model of Linux's behaviour page by page.  After every change
 * the map's own invariants are checked: the ring and the AVL tree agree,
 * the tree is balanced, its gap sums are exact, entries are disjoint and
 * no two neighbours could be merged.
 */
#include <stdlib.h>

#include "tests/unit/unit.h"
#include "tests/unit/vmproc.h"
#include "vm/vm_object.h"

#define PG	PAGE_SIZE
#define RW	(PROT_READ | PROT_WRITE)
#define ANON	(MAP_PRIVATE | MAP_ANONYMOUS)


/* The free space below e, as vm_map_tree.c counts it. */
static uint64_t
gap_of(const struct vm_map_entry *e)
{
	uint64_t s = e->start, below = e->prev->end;
	if (e->eflags & MAP_ENTRY_GROWSDOWN)
		s = s - below > VM_STACK_GUARD ? s - VM_STACK_GUARD : below;
	return s - below;
}

/* Checks the subtree at n; returns its height, or -1 if broken. */
static int
check_tree(const struct vm_map_entry *n, const struct vm_map_entry *parent,
    const struct vm_map_entry **inorder, uint64_t *count)
{
	if (n == NULL)
		return 0;
	if (n->parent != parent)
		return -1;
	int hl = check_tree(n->left, n, inorder, count);
	if (hl < 0 || *inorder != n)	/* in-order walk follows the ring */
		return -1;
	*inorder = n->next;
	(*count)++;
	int hr = check_tree(n->right, n, inorder, count);
	if (hr < 0 || abs(hl - hr) > 1 || n->height != 1 + MAX(hl, hr))
		return -1;
	uint64_t mf = gap_of(n);
	if (n->left != NULL)
		mf = MAX(mf, n->left->max_free);
	if (n->right != NULL)
		mf = MAX(mf, n->right->max_free);
	return mf == n->max_free ? n->height : -1;
}

/* Same promises and objects that vm_map_simplify would have merged. */
static bool
plainly_mergeable(const struct vm_map_entry *a, const struct vm_map_entry *b)
{
	return a->end == b->start && a->protection == b->protection &&
	    a->max_protection == b->max_protection && a->eflags == b->eflags &&
	    a->object == b->object && (a->object == NULL ||
	    a->offset + (a->end - a->start) == b->offset);
}

static bool
map_ok(struct vm_map *map)
{
	const struct vm_map_entry *inorder = VM_MAP_FIRST(map), *e;
	uint64_t count = 0, size = 0;

	if (check_tree(map->root, NULL, &inorder, &count) < 0 ||
	    inorder != VM_MAP_END(map) || count != map->nentries) {
		fprintf(stderr, "    map tree broken\n");
		return false;
	}
	uint64_t at = vm_map_min(map);
	for (e = VM_MAP_FIRST(map); e != VM_MAP_END(map); e = e->next) {
		if (e->start < at || e->end <= e->start || (e->start & PAGE_MASK) ||
		    (e->end & PAGE_MASK) || e->next->prev != e) {
			fprintf(stderr, "    entry [%#lx, %#lx) out of order\n",
			    e->start, e->end);
			return false;
		}
		if (e->next != VM_MAP_END(map) && plainly_mergeable(e, e->next)) {
			fprintf(stderr, "    entries at %#lx and %#lx not merged\n",
			    e->start, e->next->start);
			return false;
		}
		at = e->end;
		size += e->end - e->start;
	}
	return at <= vm_map_max(map) && size == map->size;
}

static struct vm_map_entry *
entry_at(struct vmp *p, uint64_t va)
{
	struct vm_map_entry *e;
	return vm_map_lookup_entry(&p->vm->vm_map, va, &e) ? e : NULL;
}

/* Anonymous mappings without a hint go top-down below vm_mmap_base, merging. */
TEST(vm_map_topdown_placement)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	long a = vm_mmap(vm, 0, 3 * PG, RW, ANON, NULL, 0);
	CHECK_EQ(a, VM_MMAP_BASE - 3 * PG);
	long b = vm_mmap(vm, 0, 5000, RW, ANON, NULL, 0);	/* rounds up */
	CHECK_EQ(b, a - 2 * PG);
	CHECK_EQ(vm->vm_map.nentries, 1);	/* merged, as Linux's VMAs */
	CHECK_EQ(vm->vm_map.size, 5 * PG);
	/* A different protection does not merge. */
	long c = vm_mmap(vm, 0, PG, PROT_READ, ANON, NULL, 0);
	CHECK_EQ(c, b - PG);
	CHECK_EQ(vm->vm_map.nentries, 2);
	/* A hole is found top-down: the highest that fits. */
	CHECK_EQ(vm_munmap(vm, a + PG, PG), 0);
	CHECK_EQ(vm_mmap(vm, 0, PG, PROT_EXEC, ANON, NULL, 0), a + PG);
	CHECK_EQ(vm_mmap(vm, 0, 2 * PG, PROT_EXEC, ANON, NULL, 0), c - 2 * PG);
	CHECK(map_ok(&vm->vm_map));
	vmp_destroy(&p);
}

/* A free hint is taken (rounded up to a page); a taken one is not. */
TEST(vm_map_hint)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	CHECK_EQ(vm_mmap(vm, VMP_DATA + 1, PG, RW, ANON, NULL, 0),
	    VMP_DATA + PG);
	CHECK_EQ(vm_mmap(vm, VMP_DATA + PG, PG, RW, ANON, NULL, 0),
	    VM_MMAP_BASE - PG);
	/* Too low or too high: placed as if without a hint. */
	CHECK_EQ(vm_mmap(vm, PG, PG, PROT_READ, ANON, NULL, 0),
	    VM_MMAP_BASE - 2 * PG);
	CHECK_EQ(vm_mmap(vm, VM_MAX_USER_ADDRESS - PG, 2 * PG, PROT_NONE, ANON,
	    NULL, 0), VM_MMAP_BASE - 4 * PG);
	/* The hint must leave the guard gap below a stack alone. */
	uint64_t stack = 0x500000000UL;
	CHECK_EQ(vm_mmap(vm, stack, 4 * PG, RW, ANON | MAP_FIXED | MAP_GROWSDOWN,
	    NULL, 0), stack);
	CHECK(vm_mmap(vm, stack - PG, PG, RW, ANON, NULL, 0) != (long)(stack - PG));
	CHECK_EQ(vm_mmap(vm, stack - VM_STACK_GUARD - PG, PG, RW, ANON, NULL, 0),
	    stack - VM_STACK_GUARD - PG);
	/* MAP_32BIT: the lowest fit in [1 GiB, 2 GiB). */
	CHECK_EQ(vm_mmap(vm, 0, PG, RW, ANON | MAP_32BIT, NULL, 0), 0x40000000);
	CHECK_EQ(vm_mmap(vm, 0, PG, RW, ANON | MAP_32BIT, NULL, 0), 0x40001000);
	CHECK(map_ok(&vm->vm_map));
	vmp_destroy(&p);
}

/* vm_map_findspace, both directions, gaps of every size, the guard. */
TEST(vm_map_findspace)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vm_map *map = &p.vm->vm_map;
	uint64_t base = 0x100000000UL, a;
	/* Entries of one page separated by holes of 1, 2, ..., 40 pages. */
	uint64_t at = base, hole[41];
	for (int i = 1; i <= 40; i++) {
		REQUIRE(vm_mmap(p.vm, at, PG, i % 2 ? RW : PROT_READ,
		    ANON | MAP_FIXED, NULL, 0) == (long)at);
		hole[i] = at + PG;
		at += PG + i * PG;
	}
	REQUIRE(map_ok(map));
	for (int n = 1; n <= 40; n++) {
		/* Bottom-up from base: the first hole of at least n pages. */
		CHECK_EQ(vm_map_findspace(map, base, VM_MAX_USER_ADDRESS, n * PG,
		    false, &a), 0);
		CHECK_EQ(a, hole[n]);
		/* Top-down below at: the end of the last, biggest, hole. */
		CHECK_EQ(vm_map_findspace(map, base, at, n * PG, true, &a), 0);
		CHECK_EQ(a, at - n * PG);
		/* Top-down below hole n's end: inside hole n-1 or lower. */
		if (n > 1) {
			CHECK_EQ(vm_map_findspace(map, base, hole[n], (n - 1) * PG,
			    true, &a), 0);
			CHECK_EQ(a, hole[n - 1]);
		}
	}
	/* Clipped by lo and hi. */
	CHECK_EQ(vm_map_findspace(map, hole[10] + 3 * PG, VM_MAX_USER_ADDRESS,
	    7 * PG, false, &a), 0);
	CHECK_EQ(a, hole[10] + 3 * PG);
	CHECK_EQ(vm_map_findspace(map, hole[10] + 4 * PG, VM_MAX_USER_ADDRESS,
	    7 * PG, false, &a), 0);
	CHECK_EQ(a, hole[11]);
	CHECK_EQ(vm_map_findspace(map, base, hole[10] + 5 * PG, 5 * PG, true,
	    &a), 0);
	CHECK_EQ(a, hole[10]);
	CHECK_EQ(vm_map_findspace(map, hole[3], hole[3] + 3 * PG, 4 * PG,
	    true, &a), -ENOMEM);
	CHECK_EQ(vm_map_findspace(map, hole[3], hole[40], 41 * PG, false, &a),
	    -ENOMEM);
	/* Above everything: the top of the map, and after the last entry. */
	CHECK_EQ(vm_map_findspace(map, 0, VM_MAX_USER_ADDRESS, PG, true, &a), 0);
	CHECK_EQ(a, VM_MAX_USER_ADDRESS - PG);
	CHECK_EQ(vm_map_findspace(map, at, VM_MAX_USER_ADDRESS, 100 * PG,
	    false, &a), 0);
	CHECK_EQ(a, at);
	CHECK_EQ(vm_map_findspace(map, hole[40] - PG, VM_MAX_USER_ADDRESS,
	    100 * PG, false, &a), 0);
	CHECK_EQ(a, hole[40]);
	/* Below the first entry, down to the map's lowest address. */
	CHECK_EQ(vm_map_findspace(map, 0, base, PG, false, &a), 0);
	CHECK_EQ(a, VM_MIN_USER_ADDRESS);
	/* A stack's guard is not free space. */
	uint64_t s = hole[30] + 20 * PG;
	REQUIRE(vm_mmap(p.vm, s, PG, RW, ANON | MAP_FIXED | MAP_GROWSDOWN, NULL,
	    0) == (long)s);
	CHECK_EQ(vm_map_findspace(map, base, VM_MAX_USER_ADDRESS, 30 * PG,
	    false, &a), 0);
	CHECK_EQ(a, hole[31]);
	CHECK(map_ok(map));
	vmp_destroy(&p);
}

/* MAP_FIXED replaces; MAP_FIXED_NOREPLACE refuses; bad arguments. */
TEST(vm_map_fixed)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	uint64_t a = VMP_DATA;
	CHECK_EQ(vm_mmap(vm, a, 8 * PG, RW, ANON | MAP_FIXED, NULL, 0), a);
	CHECK_EQ(vmp_poke(&p, a + 2 * PG, 42), 0);
	CHECK_EQ(vm_mmap(vm, a + 4 * PG, 8 * PG, RW, ANON | MAP_FIXED_NOREPLACE,
	    NULL, 0), -EEXIST);
	CHECK_EQ(vm_mmap(vm, a + 8 * PG, 8 * PG, RW, ANON | MAP_FIXED_NOREPLACE,
	    NULL, 0), a + 8 * PG);
	/* Replacing the middle: its data is gone, the rest stays. */
	CHECK_EQ(vmp_poke(&p, a + 5 * PG, 55), 0);
	CHECK_EQ(vm_mmap(vm, a + 2 * PG, 2 * PG, PROT_READ, ANON | MAP_FIXED,
	    NULL, 0), a + 2 * PG);
	CHECK_EQ(vmp_peek(&p, a + 2 * PG), 0);
	CHECK_EQ(vmp_peek(&p, a + 5 * PG), 55);
	CHECK_EQ(vm->vm_map.nentries, 3);
	CHECK(map_ok(&vm->vm_map));

	CHECK_EQ(vm_mmap(vm, a + 1, PG, RW, ANON | MAP_FIXED, NULL, 0), -EINVAL);
	CHECK_EQ(vm_mmap(vm, PG, PG, RW, ANON | MAP_FIXED, NULL, 0), -EPERM);
	CHECK_EQ(vm_mmap(vm, VM_MAX_USER_ADDRESS - PG, 2 * PG, RW,
	    ANON | MAP_FIXED, NULL, 0), -ENOMEM);
	CHECK_EQ(vm_mmap(vm, 0, 0, RW, ANON, NULL, 0), -EINVAL);
	CHECK_EQ(vm_mmap(vm, 0, PG, RW, MAP_ANONYMOUS, NULL, 0), -EINVAL);
	CHECK_EQ(vm_mmap(vm, 0, PG, RW, ANON, NULL, 1), -EINVAL);
	CHECK_EQ(vm_mmap(vm, 0, ~0UL, RW, ANON, NULL, 0), -ENOMEM);
	CHECK_EQ(vm_mmap(vm, 0, VM_MAX_USER_ADDRESS, RW, ANON, NULL, 0), -ENOMEM);
	CHECK_EQ(vm_mmap(vm, 0, PG, RW, MAP_SHARED_VALIDATE | MAP_ANONYMOUS |
	    0x20000000, NULL, 0), -EOPNOTSUPP);
	CHECK_EQ(vm_mmap(vm, 0, PG, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_GROWSDOWN,
	    NULL, 0), -EINVAL);
	CHECK_EQ(vm_mmap_maxprot(vm, 0, PG, RW, PROT_READ, ANON, NULL, 0),
	    -EACCES);
	CHECK(map_ok(&vm->vm_map));
	vmp_destroy(&p);
}

/* munmap of a middle, an end, several entries, nothing; errors. */
TEST(vm_map_munmap_split)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	uint64_t a = VMP_DATA;
	REQUIRE(vmp_anon(&p, a, 16 * PG) == 0);
	for (int i = 0; i < 16; i++)
		CHECK_EQ(vmp_poke(&p, a + i * PG, 100 + i), 0);
	CHECK_EQ(vm_munmap(vm, a + 4 * PG, 2 * PG), 0);
	CHECK_EQ(vm->vm_map.nentries, 2);
	CHECK(entry_at(&p, a + 4 * PG) == NULL);
	CHECK_EQ(entry_at(&p, a)->end, a + 4 * PG);
	CHECK_EQ(entry_at(&p, a + 6 * PG)->start, a + 6 * PG);
	/* Both halves share the object; the hole's pages were freed. */
	struct vm_object *obj = entry_at(&p, a)->object;
	CHECK(obj == entry_at(&p, a + 15 * PG)->object);
	CHECK_EQ(obj->ref_count, 2);
	CHECK_EQ(obj->resident_page_count, 14);
	CHECK_EQ(vmp_peek(&p, a + 4 * PG), ~0UL);
	CHECK_EQ(vmp_peek(&p, a + 6 * PG), 106);
	/* The ends, and a range covering a hole and part of both. */
	CHECK_EQ(vm_munmap(vm, a, PG), 0);
	CHECK_EQ(vm_munmap(vm, a + 15 * PG, 100 * PG), 0);
	CHECK_EQ(vm_munmap(vm, a + 3 * PG, 4 * PG), 0);
	CHECK_EQ(vm->vm_map.nentries, 2);
	CHECK_EQ(entry_at(&p, a + PG)->end, a + 3 * PG);
	CHECK_EQ(entry_at(&p, a + 7 * PG)->start, a + 7 * PG);
	CHECK_EQ(entry_at(&p, a + 7 * PG)->end, a + 15 * PG);
	CHECK_EQ(obj->resident_page_count, 10);
	CHECK_EQ(vmp_peek(&p, a + 2 * PG), 102);
	CHECK_EQ(vmp_peek(&p, a + 14 * PG), 114);
	/* Nothing there: fine.  Errors. */
	CHECK_EQ(vm_munmap(vm, 0x600000000UL, PG), 0);
	CHECK_EQ(vm_munmap(vm, a + 1, PG), -EINVAL);
	CHECK_EQ(vm_munmap(vm, a, 0), -EINVAL);
	/* User space ends at VM_MAX_USER_ADDRESS: past it is EINVAL. */
	CHECK_EQ(vm_munmap(vm, VM_MAX_USER_ADDRESS - PG, PG), 0);
	CHECK_EQ(vm_munmap(vm, VM_MAX_USER_ADDRESS - PG, 2 * PG), -EINVAL);
	CHECK_EQ(vm_munmap(vm, VM_MAX_USER_ADDRESS, PG), -EINVAL);
	CHECK_EQ(vm_munmap(vm, VM_LINUX_TASK_SIZE - PG, PG), -EINVAL);
	CHECK_EQ(vm_munmap(vm, VM_LINUX_TASK_SIZE, PG), -EINVAL);
	CHECK_EQ(vm_munmap(vm, a, ~0UL - PG), -EINVAL);
	CHECK(map_ok(&vm->vm_map));
	CHECK_EQ(vm_munmap(vm, 0, VM_MAX_USER_ADDRESS), 0);
	CHECK_EQ(vm->vm_map.nentries, 0);
	CHECK_EQ(vm->vm_map.size, 0);
	vmp_destroy(&p);
}

/*
 * mprotect splits entries and merges them back; a hole stops it there
 * (-ENOMEM), a refused protection before it changes anything (-EACCES).
 */
TEST(vm_map_mprotect_split_merge)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	uint64_t a = VMP_DATA;
	REQUIRE(vmp_anon(&p, a, 10 * PG) == 0);
	CHECK_EQ(vmp_poke(&p, a + 5 * PG, 5), 0);
	CHECK_EQ(vm_mprotect(vm, a + 3 * PG, 2 * PG, PROT_READ), 0);
	CHECK_EQ(vm->vm_map.nentries, 3);
	CHECK_EQ(entry_at(&p, a + 3 * PG)->protection, PROT_READ);
	CHECK_EQ(vmp_poke(&p, a + 3 * PG, 1), -EFAULT);
	CHECK_EQ(vmp_poke(&p, a + 5 * PG, 6), 0);
	CHECK_EQ(vm_mprotect(vm, a + 5 * PG, PG, PROT_READ), 0);
	CHECK_EQ(vm->vm_map.nentries, 3);	/* grew the middle */
	CHECK_EQ(entry_at(&p, a + 3 * PG)->end, a + 6 * PG);
	CHECK_EQ(vm_mprotect(vm, a, 10 * PG, RW), 0);
	CHECK_EQ(vm->vm_map.nentries, 1);	/* all one again */
	CHECK_EQ(vmp_peek(&p, a + 5 * PG), 6);
	CHECK(map_ok(&vm->vm_map));

	/* As Linux: what comes before a hole changes, then -ENOMEM. */
	REQUIRE(vm_mmap_maxprot(vm, a + 20 * PG, 2 * PG, PROT_READ, PROT_READ,
	    ANON | MAP_FIXED, NULL, 0) == (long)(a + 20 * PG));
	CHECK_EQ(vm_mprotect(vm, a + 8 * PG, 4 * PG, PROT_READ), -ENOMEM);
	CHECK_EQ(entry_at(&p, a + 8 * PG)->protection, PROT_READ);
	CHECK_EQ(entry_at(&p, a + 7 * PG)->protection, RW);
	CHECK_EQ(vm_mprotect(vm, a + 8 * PG, 2 * PG, RW), 0);
	CHECK_EQ(vm_mprotect(vm, a + 20 * PG, PG, RW), -EACCES);
	CHECK_EQ(vm_mprotect(vm, a + 20 * PG, PG, PROT_NONE), 0);
	CHECK_EQ(vm->vm_map.nentries, 3);
	CHECK_EQ(entry_at(&p, a + 8 * PG)->protection, RW);
	CHECK_EQ(vm_mprotect(vm, a + 1, PG, PROT_READ), -EINVAL);
	CHECK_EQ(vm_mprotect(vm, a, PG, 0x100), -EINVAL);
	CHECK_EQ(vm_mprotect(vm, a, 0, PROT_READ), 0);
	CHECK_EQ(vm_mprotect(vm, a, ~0UL, PROT_READ), -ENOMEM);
	/* PROT_GROWSDOWN reaches down to the start of a stack. */
	uint64_t s = 0x500000000UL;
	REQUIRE(vm_mmap(vm, s, 4 * PG, RW, ANON | MAP_FIXED | MAP_GROWSDOWN, NULL,
	    0) == (long)s);
	CHECK_EQ(vm_mprotect(vm, s + 2 * PG, PG, PROT_READ | PROT_GROWSDOWN), 0);
	CHECK_EQ(entry_at(&p, s)->protection, PROT_READ);
	CHECK_EQ(entry_at(&p, s)->end, s + 3 * PG);
	CHECK_EQ(vm_mprotect(vm, a, PG, PROT_READ | PROT_GROWSDOWN), -EINVAL);
	CHECK_EQ(vm_mprotect(vm, a, PG, PROT_READ | PROT_GROWSUP), -EINVAL);
	CHECK(map_ok(&vm->vm_map));
	vmp_destroy(&p);
}

/* brk grows the heap entry, shrinks it, and stops at other mappings. */
TEST(vm_map_brk)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	uint64_t b = 0x600000;
	vm->vm_brk_start = vm->vm_brk = b;
	CHECK_EQ(vm_brk(vm, 0), b);
	CHECK_EQ(vm_brk(vm, b + 100), b + 100);
	CHECK_EQ(vm->vm_map.nentries, 1);
	CHECK_EQ(vmp_poke(&p, b + 8, 7), 0);
	CHECK_EQ(vm_brk(vm, b + 10 * PG), b + 10 * PG);
	CHECK_EQ(vm->vm_map.nentries, 1);	/* grown in place */
	CHECK_EQ(entry_at(&p, b)->end, b + 10 * PG);
	CHECK_EQ(vmp_poke(&p, b + 9 * PG, 9), 0);
	CHECK_EQ(vm_brk(vm, b + 2 * PG + 1), b + 2 * PG + 1);
	CHECK_EQ(entry_at(&p, b)->end, b + 3 * PG);
	CHECK_EQ(entry_at(&p, b)->object->resident_page_count, 1);
	/* Grown again, the pages above the old break read as zero. */
	CHECK_EQ(vm_brk(vm, b + 10 * PG), b + 10 * PG);
	CHECK_EQ(vm->vm_map.nentries, 1);
	CHECK_EQ(vmp_peek(&p, b + 9 * PG), 0);
	CHECK_EQ(vmp_peek(&p, b + 8), 7);
	/* A mapping above stops it, with a page to spare. */
	REQUIRE(vmp_anon(&p, b + 20 * PG, PG) == 0);
	CHECK_EQ(vm_brk(vm, b + 20 * PG), b + 10 * PG);
	CHECK_EQ(vm_brk(vm, b + 19 * PG), b + 19 * PG);
	CHECK_EQ(vm_brk(vm, b + 19 * PG + 1), b + 19 * PG);
	CHECK_EQ(vm_brk(vm, b), b);
	CHECK(entry_at(&p, b) == NULL);
	CHECK(map_ok(&vm->vm_map));
	vmp_destroy(&p);
}

/*
 * Random mmap, munmap and mprotect of a window of pages, never touched:
 * the map must be exactly the maximal runs of equal protection (merged
 * as Linux merges VMAs), and every call must answer as Linux would.
 */
#define WIN	96

TEST(vm_map_random_canonical)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	int model[WIN];		/* protection, or -1 for unmapped */
	uint64_t base = VMP_DATA;

	rng_state = 0x9e3779b97f4a7c15UL;
	for (int i = 0; i < WIN; i++)
		model[i] = -1;
	for (int round = 0; round < 4000 && !unit_failed_now(); round++) {
		int s = (int)(rng() % WIN), n = 1 + (int)(rng() % (WIN - s));
		int prot = (int)(rng() % 4);	/* none, r, w, rw */
		uint64_t a = base + (uint64_t)s * PG, len = (uint64_t)n * PG;
		bool any = false, all = true;
		for (int i = s; i < s + n; i++) {
			any |= model[i] >= 0;
			all &= model[i] >= 0;
		}
		switch (rng() % 4) {
		case 0:
			CHECK_EQ(vm_mmap(vm, a, len, prot, ANON | MAP_FIXED, NULL, 0),
			    a);
			for (int i = s; i < s + n; i++)
				model[i] = prot;
			break;
		case 1:
			CHECK_EQ(vm_mmap(vm, a, len, prot, ANON | MAP_FIXED_NOREPLACE,
			    NULL, 0), any ? -EEXIST : (long)a);
			for (int i = s; i < s + n && !any; i++)
				model[i] = prot;
			break;
		case 2:
			CHECK_EQ(vm_munmap(vm, a, len), 0);
			for (int i = s; i < s + n; i++)
				model[i] = -1;
			break;
		case 3:
			CHECK_EQ(vm_mprotect(vm, a, len, prot), all ? 0 : -ENOMEM);
			/* As Linux: the pages before the first hole change. */
			for (int i = s; i < s + n && model[i] >= 0; i++)
				model[i] = prot;
			break;
		}
		CHECK(map_ok(&vm->vm_map));
		/* Compare entry by entry with the model's runs. */
		struct vm_map_entry *e = VM_MAP_FIRST(&vm->vm_map);
		for (int i = 0; i < WIN; ) {
			int j = i;
			while (j < WIN && model[j] == model[i])
				j++;
			if (model[i] >= 0) {
				if (e == VM_MAP_END(&vm->vm_map) ||
				    e->start != base + (uint64_t)i * PG ||
				    e->end != base + (uint64_t)j * PG ||
				    e->protection != model[i]) {
					unit_fail(__FILE__, __LINE__, "round %d: "
					    "run [%d, %d) prot %d differs", round,
					    i, j, model[i]);
					break;
				}
				e = e->next;
			}
			i = j;
		}
		CHECK(e == VM_MAP_END(&vm->vm_map));
	}
	vmp_destroy(&p);
}

/*
 * Random calls on touched memory: data written with copyout survives
 * mprotect, splits and merges, goes with munmap, MAP_FIXED and
 * MADV_DONTNEED, and faults answer as the model's protections say.
 * Every page must go back to the allocator at the end.
 */
TEST(vm_map_random_data)
{
	struct vmp p;
	vmp_init();
	uint64_t before = vmp_free_pages();
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	int model[WIN];
	uint64_t data[WIN];
	uint64_t base = VMP_DATA;

	rng_state = 0x243f6a8885a308d3UL;
	for (int i = 0; i < WIN; i++)
		model[i] = -1;
	for (int round = 0; round < 4000 && !unit_failed_now(); round++) {
		int s = (int)(rng() % WIN), n = 1 + (int)(rng() % MIN(16, WIN - s));
		int prot = (int)(rng() % 4);
		uint64_t a = base + (uint64_t)s * PG, len = (uint64_t)n * PG;
		bool all = true;
		for (int i = s; i < s + n; i++)
			all &= model[i] >= 0;
		switch (rng() % 7) {
		case 0:
			CHECK_EQ(vm_mmap(vm, a, len, prot, ANON | MAP_FIXED, NULL, 0),
			    a);
			for (int i = s; i < s + n; i++) {
				model[i] = prot;
				data[i] = 0;
			}
			break;
		case 1:
			CHECK_EQ(vm_munmap(vm, a, len), 0);
			for (int i = s; i < s + n; i++)
				model[i] = -1;
			break;
		case 2:
			CHECK_EQ(vm_mprotect(vm, a, len, prot), all ? 0 : -ENOMEM);
			for (int i = s; i < s + n && model[i] >= 0; i++)
				model[i] = prot;
			break;
		case 3:
			CHECK_EQ(vm_madvise(vm, a, len, MADV_DONTNEED),
			    all ? 0 : -ENOMEM);
			for (int i = s; i < s + n; i++)
				data[i] = 0;
			break;
		default: {
			uint64_t v = rng();
			bool w = model[s] >= 0 && (model[s] & PROT_WRITE);
			bool r = model[s] > 0;
			CHECK_EQ(vmp_poke(&p, a + 8, v), w ? 0 : -EFAULT);
			if (w)
				data[s] = v;
			CHECK_EQ(vmp_peek(&p, a + 8), r ? data[s] : ~0UL);
			break;
		}
		}
		CHECK(map_ok(&vm->vm_map));
	}
	/* Everything readable still holds its data. */
	for (int i = 0; i < WIN; i++)
		if (model[i] > 0)
			CHECK_EQ(vmp_peek(&p, base + (uint64_t)i * PG + 8), data[i]);
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), before);
}

/*
 * Many entries: random mappings and unmappings of a window of 4096 pages
 * (neighbours kept apart by alternating protections), with the tree
 * checked and vm_map_findspace compared, both ways, against a scan of a
 * page model.
 */
#define BIG	4096

/* The model's answer: lowest (or highest) fit of n pages in [lo, hi). */
static int
model_fit(const int8_t *used, int lo, int hi, int n, bool topdown)
{
	int run = 0;
	if (!topdown) {
		for (int i = lo; i < hi; i++) {
			run = used[i] ? 0 : run + 1;
			if (run == n)
				return i - n + 1;
		}
	} else {
		for (int i = hi - 1; i >= lo; i--) {
			run = used[i] ? 0 : run + 1;
			if (run == n)
				return i;
		}
	}
	return -1;
}

TEST(vm_map_random_findspace)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	struct vm_map *map = &p.vm->vm_map;
	static int8_t used[BIG];
	uint64_t base = 0x200000000UL;

	memset(used, 0, sizeof(used));
	rng_state = 0x13198a2e03707344UL;
	for (int round = 0; round < 6000 && !unit_failed_now(); round++) {
		int s = (int)(rng() % BIG), n = 1 + (int)(rng() % 8);
		n = MIN(n, BIG - s);
		uint64_t a = base + (uint64_t)s * PG;
		if (rng() % 3 != 0) {
			/* Alternate protections by page so nothing merges. */
			for (int i = s; i < s + n; i++) {
				int prot = i % 2 ? PROT_READ : RW;
				CHECK_EQ(vm_mmap(p.vm, base + (uint64_t)i * PG, PG, prot,
				    ANON | MAP_FIXED, NULL, 0), base + (uint64_t)i * PG);
				used[i] = 1;
			}
		} else {
			CHECK_EQ(vm_munmap(p.vm, a, (uint64_t)n * PG), 0);
			memset(used + s, 0, (size_t)n);
		}
		if (round % 64 == 0)
			CHECK(map_ok(map));
		for (int q = 0; q < 4; q++) {
			int lo = (int)(rng() % BIG);
			int hi = lo + 1 + (int)(rng() % (BIG - lo));
			int len = 1 + (int)(rng() % 24);
			bool td = q % 2;
			int want = model_fit(used, lo, hi, len, td);
			uint64_t got;
			int err = vm_map_findspace(map, base + (uint64_t)lo * PG,
			    base + (uint64_t)hi * PG, (uint64_t)len * PG, td, &got);
			if (want < 0) {
				CHECK_EQ(err, -ENOMEM);
			} else {
				CHECK_EQ(err, 0);
				CHECK_EQ(got, base + (uint64_t)want * PG);
			}
		}
	}
	CHECK(map->nentries > 1000);
	CHECK(map_ok(map));
	vmp_destroy(&p);
}

/*
 * Random calls with mremap on touched memory: moves with MREMAP_FIXED
 * (every mapping of the range, holes kept, with MREMAP_DONTUNMAP or not)
 * and growing in place, against the page model of what Linux does; data
 * follows the pages it was written to, the map stays canonical, and every
 * page goes back to the allocator at the end (a move copies no page and
 * leaks none).
 */
TEST(vm_map_random_mremap)
{
	struct vmp p;
	vmp_init();
	uint64_t before = vmp_free_pages();
	REQUIRE(vmp_create(&p) == 0);
	struct vmspace *vm = p.vm;
	int model[WIN];
	uint64_t data[WIN];
	uint64_t base = VMP_DATA;

	rng_state = 0x13198a2e03707344UL;
	for (int i = 0; i < WIN; i++)
		model[i] = -1;
	for (int round = 0; round < 4000 && !unit_failed_now(); round++) {
		int s = (int)(rng() % WIN), n = 1 + (int)(rng() % MIN(16, WIN - s));
		int prot = 1 + (int)(rng() % 3);
		uint64_t a = base + (uint64_t)s * PG, len = (uint64_t)n * PG;
		switch (rng() % 6) {
		case 0:
			CHECK_EQ(vm_mmap(vm, a, len, prot, ANON | MAP_FIXED, NULL, 0),
			    a);
			for (int i = s; i < s + n; i++) {
				model[i] = prot;
				data[i] = 0;
			}
			break;
		case 1:
			CHECK_EQ(vm_munmap(vm, a, len), 0);
			for (int i = s; i < s + n; i++)
				model[i] = -1;
			break;
		case 2: {
			/* A move to a place of the window that does not overlap. */
			int d = (int)(rng() % (WIN - n + 1));
			bool dontunmap = rng() % 3 == 0;
			if (d < s + n && s < d + n)
				break;
			long r = vm_mremap(vm, a, len, len, MREMAP_MAYMOVE |
			    MREMAP_FIXED | (dontunmap ? MREMAP_DONTUNMAP : 0),
			    base + (uint64_t)d * PG);
			if (model[s] < 0) {
				CHECK_EQ(r, -EFAULT);
				break;
			}
			CHECK_EQ(r, (long)(base + (uint64_t)d * PG));
			for (int i = 0; i < n; i++) {
				if (model[s + i] < 0)
					continue;	/* holes keep the destination */
				model[d + i] = model[s + i];
				data[d + i] = data[s + i];
				if (dontunmap)
					data[s + i] = 0;
				else
					model[s + i] = -1;
			}
			break;
		}
		case 3: {
			/* Growing the end of a run in place, or ENOMEM. */
			int k = 1 + (int)(rng() % 8), end = s;
			if (s + n + k > WIN)
				break;
			while (end < WIN && model[s] >= 0 && model[end] == model[s])
				end++;
			bool room = s + n + k <= WIN;
			for (int i = s + n; room && i < s + n + k; i++)
				room = model[i] < 0;
			long r = vm_mremap(vm, a, len, len + (uint64_t)k * PG, 0, 0);
			if (model[s] < 0 || s + n > end) {
				CHECK_EQ(r, -EFAULT);
			} else if (s + n < end || !room) {
				CHECK_EQ(r, -ENOMEM);
			} else {
				CHECK_EQ(r, (long)a);
				for (int i = s + n; i < s + n + k; i++) {
					model[i] = model[s];
					data[i] = 0;
				}
			}
			break;
		}
		default: {
			uint64_t v = rng();
			bool w = model[s] >= 0 && (model[s] & PROT_WRITE);
			CHECK_EQ(vmp_poke(&p, a + 8, v), w ? 0 : -EFAULT);
			if (w)
				data[s] = v;
			CHECK_EQ(vmp_peek(&p, a + 8), model[s] > 0 ? data[s] : ~0UL);
			break;
		}
		}
		CHECK(map_ok(&vm->vm_map));
	}
	for (int i = 0; i < WIN; i++)
		if (model[i] > 0)
			CHECK_EQ(vmp_peek(&p, base + (uint64_t)i * PG + 8), data[i]);
	vmp_destroy(&p);
	CHECK_EQ(vmp_free_pages(), before);
}

/*
 * Syscall patching counts each site's calls before it patches: two sites
 * called in turn (a read and a write in one loop), whatever their
 * addresses, must both reach the count.  Sites 64 bytes apart shared one
 * counter, reset each other's count and were never patched.
 */
TEST(vm_patch_calls_neighbours)
{
	struct vmp p;
	REQUIRE(vmp_create(&p) == 0);
	CHECK_EQ(vm_patch_init(p.vm, 8), 0);
	for (uint64_t k = 0; k < 256; k++) {
		uint64_t a = 0x401000 + k * 256, b = a + 64 + 16 * (k % 4);
		unsigned ca = 0, cb = 0;
		for (int i = 0; i < 16; i++) {
			ca = vm_patch_calls(p.vm, a);
			cb = vm_patch_calls(p.vm, b);
		}
		CHECK_EQ(ca, 16);
		CHECK_EQ(cb, 16);
	}
	vmp_destroy(&p);
}
