/*
 * Tests of the physical page allocator (vm/vm_page).  RAM and the
 * allocator are shared with every other test of this process, so tests
 * assert on deltas, and each leaves the free blocks as it found them.
 * Tests that dirty, scramble or exhaust RAM run in a child with a private
 * copy of it (vmt_private_child); a kernel bug there shows as an abort.
 */
#include <signal.h>
#include <stdlib.h>
#include <fcntl.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"
#include "kern/vm_page.h"

#define DIED(sig)	(128 + (sig))

struct buddyinfo {
	uint64_t free;			/* vmstats.v_free_count */
	uint64_t blocks[VM_NFREEORDER];
};

static void
buddyinfo(struct buddyinfo *b)
{
	b->free = vmstats.v_free_count;
	for (int o = 0; o <= VM_MAX_ORDER; o++)
		b->blocks[o] = vm_page_free_blocks(o);
}

static bool
buddyinfo_same(const struct buddyinfo *a, const struct buddyinfo *b)
{
	return memcmp(a, b, sizeof(*a)) == 0;
}

/* Pages of RAM the vm_page array takes. */
static uint64_t
array_pages(void)
{
	return howmany(vmstats.v_page_count * sizeof(struct vm_page),
	    PAGE_SIZE);
}

/*
 * The free counts agree three ways: the counter, the queues, and the
 * PG_FREE marks of the array.  Returns true if they do.
 */
static bool
free_consistent(void)
{
	uint64_t q = 0, marked = 0;
	for (int o = 0; o <= VM_MAX_ORDER; o++)
		q += vm_page_free_blocks(o) << o;
	struct vm_page *pa = vm_page_array();
	for (uint64_t i = 0; i < vmstats.v_page_count; i++)
		marked += (pa[i].flags & PG_FREE) != 0;
	if (q != vmstats.v_free_count || marked != vmstats.v_free_count)
		fprintf(stderr, "    free: counter %lu, queues %lu, marked %lu\n",
		    vmstats.v_free_count, q, marked);
	return q == vmstats.v_free_count && marked == vmstats.v_free_count;
}


TEST(vm_page_layout)
{
	vmt_ram();
	REQUIRE(sizeof(struct vm_page) <= 64);
	CHECK_EQ(vmstats.v_page_count, physmem.size / PAGE_SIZE);
	CHECK((void *)vm_page_array() == PHYS_TO_DMAP(0));
	uint64_t nres = array_pages();
	CHECK(vmstats.v_wire_count >= nres);
	for (uint64_t i = 0; i < nres; i++) {
		struct vm_page *m = PHYS_TO_VM_PAGE(i * PAGE_SIZE);
		if (m->flags != PG_RESERVED || m->wire_count != 1) {
			CHECK_EQ(m->flags, PG_RESERVED);
			CHECK_EQ(m->wire_count, 1);
			break;
		}
	}
	CHECK(vmstats.v_free_count + nres <= vmstats.v_page_count);
	CHECK(free_consistent());

	/* The conversions agree, at both ends of RAM. */
	uint64_t last = physmem.size - PAGE_SIZE;
	CHECK_EQ(VM_PAGE_TO_PHYS(PHYS_TO_VM_PAGE(last)), last);
	CHECK_EQ(VM_PAGE_TO_PHYS(PHYS_TO_VM_PAGE(last + 123)), last);
	CHECK(PHYS_TO_VM_PAGE(last) == vm_page_array() +
	    vmstats.v_page_count - 1);
	CHECK(VM_PAGE_TO_DMAP(PHYS_TO_VM_PAGE(last)) == PHYS_TO_DMAP(last));
	CHECK(DMAP_TO_VM_PAGE((char *)PHYS_TO_DMAP(last) + 4095) ==
	    PHYS_TO_VM_PAGE(last));
}

/* Every order: the block is aligned to its size, in RAM, counted. */
TEST(vm_page_alloc_orders)
{
	struct buddyinfo before, after;
	vmt_ram();
	buddyinfo(&before);
	uint64_t wired = vmstats.v_wire_count;
	for (int o = 0; o <= VM_MAX_ORDER; o++) {
		struct vm_page *m = vm_page_alloc(o, VM_ALLOC_NORMAL);
		REQUIRE(m != NULL);
		uint64_t pa = VM_PAGE_TO_PHYS(m), n = 1UL << o;
		CHECK_EQ(pa & ((PAGE_SIZE << o) - 1), 0);
		CHECK(pa >= array_pages() * PAGE_SIZE);
		CHECK(physmem_valid(pa, PAGE_SIZE << o));
		CHECK_EQ(m->order, o);
		CHECK_EQ(m->flags, 0);
		CHECK(m->object == NULL && m->wire_count == 0);
		for (uint64_t i = 1; i < n; i++)
			if (m[i].flags != 0 || m[i].order != VM_ORDER_NONE) {
				CHECK_EQ(m[i].flags, 0);
				CHECK_EQ(m[i].order, VM_ORDER_NONE);
				break;
			}
		CHECK_EQ(vmstats.v_free_count, before.free - n);
		CHECK(free_consistent());
		vm_page_free(m, o);
		CHECK_EQ(vmstats.v_free_count, before.free);
	}
	buddyinfo(&after);
	CHECK(buddyinfo_same(&before, &after));
	CHECK_EQ(vmstats.v_wire_count, wired);
}

/*
 * Successive pages come out contiguous and ascending, for long host runs.
 * Free blocks of every order below 6 are taken first (holes left by
 * earlier tests), so that the pages must come from splitting one block.
 */
static int
child_ascending(void *arg)
{
	enum { N = 64 };
	struct vm_page *m[N];
	(void)arg;

	for (int o = 0; o < 6; o++)
		while (vm_page_free_blocks(o) > 0)
			if (vm_page_alloc(o, 0) == NULL)
				return 2;
	for (int i = 0; i < N; i++) {
		if ((m[i] = vm_page_alloc(0, 0)) == NULL)
			return 2;
	}
	CHECK_EQ(VM_PAGE_TO_PHYS(m[0]) & ((PAGE_SIZE << 6) - 1), 0);
	for (int i = 1; i < N; i++)
		CHECK(m[i] == m[0] + i);
	return unit_failed_now();
}

TEST(vm_page_ascending)
{
	CHECK_EQ(vmt_private_child(child_ascending, NULL), 0);
}

/* A dirtied page comes back zeroed with VM_ALLOC_ZERO. */
TEST(vm_page_zero)
{
	vmt_ram();
	for (int o = 0; o <= 3; o++) {
		struct vm_page *m = vm_page_alloc(o, 0);
		REQUIRE(m != NULL);
		size_t len = PAGE_SIZE << o;
		memset(VM_PAGE_TO_DMAP(m), 0xa5, len);
		vm_page_free(m, o);
		struct vm_page *z = vm_page_alloc(o, VM_ALLOC_ZERO);
		REQUIRE(z != NULL);
		CHECK(z == m);			/* the queues are LIFO */
		const uint8_t *p = VM_PAGE_TO_DMAP(z);
		size_t i = 0;
		while (i < len && p[i] == 0)
			i++;
		CHECK_EQ(i, len);
		vm_page_free(z, o);
	}
}

/*
 * Interleaved allocations and frees of random orders: every page of every
 * live block carries its block's tag, which would show any overlap.  All
 * freed, the free blocks are as they were: buddies coalesced.
 */
#define NLIVE	512

struct blk {
	struct vm_page *m;
	int order;
	uint64_t tag;
};

static void
blk_tag(const struct blk *b)
{
	for (uint64_t i = 0; i < 1UL << b->order; i++) {
		uint64_t *w = VM_PAGE_TO_DMAP(b->m + i);
		w[0] = b->tag + i;
		w[PAGE_SIZE / 8 - 1] = ~(b->tag + i);
	}
}

static bool
blk_intact(const struct blk *b)
{
	for (uint64_t i = 0; i < 1UL << b->order; i++) {
		uint64_t *w = VM_PAGE_TO_DMAP(b->m + i);
		if (w[0] != b->tag + i || w[PAGE_SIZE / 8 - 1] != ~(b->tag + i))
			return false;
	}
	return true;
}

static int
child_no_overlap(void *arg)
{
	static struct blk live[NLIVE];
	struct buddyinfo before, after;
	int nlive = 0, nfail = 0;
	(void)arg;

	buddyinfo(&before);
	rng_state = 0x9e3779b97f4a7c15UL;
	for (int step = 0; step < 20000; step++) {
		if (nlive == NLIVE || (nlive > 0 && rng() % 5 < 2)) {
			int k = (int)(rng() % (uint64_t)nlive);
			if (!blk_intact(&live[k])) {
				CHECK(blk_intact(&live[k]));
				return 1;
			}
			vm_page_free(live[k].m, live[k].order);
			live[k] = live[--nlive];
			continue;
		}
		/* Mostly small blocks, now and then a large one. */
		int o = rng() % 16 == 0 ? (int)(rng() % (VM_MAX_ORDER + 1)) :
		    (int)(rng() % 4);
		struct vm_page *m = vm_page_alloc(o, 0);
		if (m == NULL) {		/* possible with many large ones */
			nfail++;
			continue;
		}
		CHECK_EQ(VM_PAGE_TO_PHYS(m) & ((PAGE_SIZE << o) - 1), 0);
		live[nlive] = (struct blk){ m, o, rng() << 12 };
		blk_tag(&live[nlive++]);
	}
	for (int k = 0; k < nlive; k++) {
		CHECK(blk_intact(&live[k]));
		vm_page_free(live[k].m, live[k].order);
	}
	CHECK(free_consistent());
	buddyinfo(&after);
	CHECK(buddyinfo_same(&before, &after));
	CHECK(nfail < 1000);
	/* And the largest blocks are there to take again. */
	CHECK(vm_page_alloc(VM_MAX_ORDER, 0) != NULL);
	return unit_failed_now();
}

TEST(vm_page_no_overlap_and_coalesce)
{
	CHECK_EQ(vmt_private_child(child_no_overlap, NULL), 0);
}

/* Frees in a random order still coalesce completely. */
static int
child_coalesce(void *arg)
{
	enum { N = 4096 };
	static struct vm_page *m[N];
	struct buddyinfo before, after;
	(void)arg;

	buddyinfo(&before);
	for (int i = 0; i < N; i++)
		if ((m[i] = vm_page_alloc(0, 0)) == NULL)
			return 2;
	CHECK_EQ(vmstats.v_free_count, before.free - N);
	rng_state = 12345;
	for (int i = N - 1; i > 0; i--) {	/* shuffle */
		int j = (int)(rng() % (uint64_t)(i + 1));
		struct vm_page *t = m[i];
		m[i] = m[j];
		m[j] = t;
	}
	for (int i = 0; i < N; i++)
		vm_page_free(m[i], 0);
	buddyinfo(&after);
	CHECK(buddyinfo_same(&before, &after));
	CHECK(free_consistent());
	return unit_failed_now();
}

TEST(vm_page_coalesce_random_order)
{
	CHECK_EQ(vmt_private_child(child_coalesce, NULL), 0);
}

/*
 * Exhaustion: every order answers NULL, nothing panics, and RAM comes
 * back whole once everything is freed.
 */
static int
child_exhaust(void *arg)
{
	struct buddyinfo before, after;
	(void)arg;

	buddyinfo(&before);
	uint64_t n = 0, cap = before.free;
	struct vm_page **m = malloc(cap * sizeof(*m));
	if (m == NULL)
		return 2;
	/* Large blocks first, then smaller: all of RAM, no block left. */
	uint64_t pages = 0;
	int *ord = malloc(cap * sizeof(*ord));
	for (int o = VM_MAX_ORDER; o >= 0; o--) {
		struct vm_page *p;
		while ((p = vm_page_alloc(o, 0)) != NULL) {
			if (n == cap)
				return 3;
			m[n] = p;
			ord[n++] = o;
			pages += 1UL << o;
		}
		CHECK_EQ(vm_page_free_blocks(o), 0);
	}
	CHECK_EQ(pages, before.free);
	CHECK_EQ(vmstats.v_free_count, 0);
	for (int o = 0; o <= VM_MAX_ORDER; o++)
		CHECK(vm_page_alloc(o, VM_ALLOC_ZERO) == NULL);
	CHECK(free_consistent());

	/*
	 * One block back (its buddy is taken: no merge): that order can be
	 * allocated again, the next one up not.
	 */
	uint64_t k = n - 1;
	int o = ord[k];
	vm_page_free(m[k], o);
	CHECK_EQ(vm_page_free_blocks(o), 1);
	if (o < VM_MAX_ORDER)
		CHECK(vm_page_alloc(o + 1, 0) == NULL);
	CHECK((m[k] = vm_page_alloc(o, 0)) != NULL);

	for (uint64_t i = 0; i < n; i++)
		vm_page_free(m[i], ord[i]);
	buddyinfo(&after);
	CHECK(buddyinfo_same(&before, &after));
	CHECK(vm_page_alloc(VM_MAX_ORDER, 0) != NULL);
	free(m);
	free(ord);
	return unit_failed_now();
}

TEST(vm_page_exhaustion)
{
	CHECK_EQ(vmt_private_child(child_exhaust, NULL), 0);
}

/* Kernel bugs panic: each case in its own child, which must abort. */
enum misuse {
	DOUBLE_FREE, DOUBLE_FREE_MERGED, FREE_RESERVED, FREE_WRONG_ORDER,
	FREE_TAIL, FREE_WIRED, FREE_NOT_A_PAGE, ALLOC_BAD_ORDER,
	ALLOC_BAD_FLAGS, INIT_TWICE, NMISUSE
};

static int
child_misuse(void *arg)
{
	enum misuse what = *(enum misuse *)arg;
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);	/* the panic message */
	struct vm_page *m = vm_page_alloc(2, 0), *m2;
	if (m == NULL)
		return 2;
	switch (what) {
	case DOUBLE_FREE:
		vm_page_free(m, 2);
		vm_page_free(m, 2);
		break;
	case DOUBLE_FREE_MERGED:
		/* m + 1 is no head of anything once m's block is free. */
		vm_page_free(m, 2);
		vm_page_free(m + 1, 0);
		break;
	case FREE_RESERVED:
		vm_page_free(vm_page_array(), 0);
		break;
	case FREE_WRONG_ORDER:
		vm_page_free(m, 1);
		break;
	case FREE_TAIL:
		vm_page_free(m + 2, 1);
		break;
	case FREE_WIRED:
		m->wire_count = 1;
		vm_page_free(m, 2);
		break;
	case FREE_NOT_A_PAGE:
		m2 = (struct vm_page *)((char *)m + 8);
		vm_page_free(m2, 0);
		break;
	case ALLOC_BAD_ORDER:
		vm_page_alloc(VM_MAX_ORDER + 1, 0);
		break;
	case ALLOC_BAD_FLAGS:
		vm_page_alloc(0, 0x100);
		break;
	case INIT_TWICE:
		vm_page_init();
		break;
	default:
		break;
	}
	return 0;			/* survived: wrong */
}

TEST(vm_page_misuse_panics)
{
	for (int w = 0; w < NMISUSE; w++) {
		enum misuse what = w;
		int st = vmt_private_child(child_misuse, &what);
		if (st != DIED(SIGABRT))
			unit_fail(__FILE__, __LINE__,
			    "misuse %d: status %d, expected SIGABRT", w, st);
	}
	/* The parent's allocator saw none of it. */
	CHECK(free_consistent());
}
