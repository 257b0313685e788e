/*
 * Tests of the object allocator (vm/kmem).  Like test_vm_page.c: deltas
 * only, every test gives back what it took (kmem_reclaim returns the
 * spare slabs), and tests that scramble or exhaust RAM run in a child
 * with a private copy of it.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"
#include "kern/kmem.h"

#define DIED(sig)	(128 + (sig))


/*
 * The page allocator's state with every spare slab returned: the baseline
 * to come back to, free blocks of each order included.
 */
struct pagestate {
	struct vmstats vs;
	uint64_t blocks[VM_NFREEORDER];
};

static struct pagestate
settled(void)
{
	struct pagestate ps;
	kmem_reclaim();
	ps.vs = vmstats;
	for (int o = 0; o <= VM_MAX_ORDER; o++)
		ps.blocks[o] = vm_page_free_blocks(o);
	return ps;
}

static bool
settled_same(const struct pagestate *a)
{
	struct pagestate b = settled();
	if (memcmp(a, &b, sizeof(b)) != 0) {
		fprintf(stderr, "    free %lu -> %lu, wired %lu -> %lu\n",
		    a->vs.v_free_count, b.vs.v_free_count, a->vs.v_wire_count,
		    b.vs.v_wire_count);
		return false;
	}
	return true;
}

static struct kmem_cache *
cache_named(const char *name)
{
	struct kmem_cache *kc;
	TAILQ_FOREACH(kc, &kmem_caches, kc_link)
		if (strcmp(kc->kc_name, name) == 0)
			return kc;
	return NULL;
}

/* True if len bytes at p are all c. */
static bool
all_bytes(const void *p, size_t len, uint8_t c)
{
	const uint8_t *b = p;
	for (size_t i = 0; i < len; i++)
		if (b[i] != c)
			return false;
	return true;
}

/*
 * Each kmalloc size: objects are distinct (a full-size fill of each
 * survives the others'), aligned to their class, in RAM.
 */
TEST(kmem_kmalloc_classes)
{
	enum { N = 40 };
	static const size_t sizes[] = { 0, 1, 8, 15, 16, 17, 31, 32, 33, 64,
	    100, 128, 200, 256, 257, 500, 512, 1000, 1024, 1025, 2000, 2048 };
	vmt_ram();
	struct pagestate base = settled();
	for (size_t s = 0; s < nitems(sizes); s++) {
		size_t size = sizes[s], class = 16;
		while (class < size)
			class *= 2;
		uint8_t *p[N];
		for (int i = 0; i < N; i++) {
			p[i] = kmalloc(size, 0);
			REQUIRE(p[i] != NULL);
			CHECK_EQ((uintptr_t)p[i] & (class - 1), 0);
			CHECK(physmem_valid((uint64_t)(p[i] - physmem.base),
			    class));
			memset(p[i], i + 1, class);
		}
		for (int i = 0; i < N; i++) {
			if (!all_bytes(p[i], class, (uint8_t)(i + 1))) {
				unit_fail(__FILE__, __LINE__,
				    "kmalloc(%zu): object %d overwritten", size, i);
				break;
			}
		}
		char name[32];
		snprintf(name, sizeof(name), "kmalloc-%zu", class);
		struct kmem_cache *kc = cache_named(name);
		REQUIRE(kc != NULL);
		CHECK(kc->kc_inuse >= N);
		for (int i = 0; i < N; i++)
			kfree(p[i]);
	}
	kfree(NULL);
	CHECK(settled_same(&base));
}

/* Caches of odd sizes and alignments, one of them with multi-page slabs. */
TEST(kmem_cache_align_zero)
{
	static const struct { size_t size, align; } c[] = {
		{ 1, 0 }, { 24, 0 }, { 24, 64 }, { 100, 128 }, { 3000, 0 },
		{ 5000, 4096 }, { KMEM_MAXSIZE, 0 },
	};
	enum { N = 50 };
	vmt_ram();
	struct pagestate base = settled();
	for (size_t k = 0; k < nitems(c); k++) {
		struct kmem_cache *kc = kmem_cache_create("test-align",
		    c[k].size, c[k].align);
		REQUIRE(kc != NULL);
		size_t align = c[k].align ? c[k].align : 8;
		CHECK(kc->kc_size >= c[k].size && kc->kc_size % align == 0);
		CHECK(kc->kc_perslab >= 1);
		uint8_t *p[N];
		for (int i = 0; i < N; i++) {
			p[i] = kmem_cache_alloc(kc, 0);
			REQUIRE(p[i] != NULL);
			CHECK_EQ((uintptr_t)p[i] & (align - 1), 0);
			memset(p[i], i + 1, c[k].size);
		}
		for (int i = 0; i < N; i++)
			CHECK(all_bytes(p[i], c[k].size, (uint8_t)(i + 1)));
		CHECK_EQ(kc->kc_inuse, N);
		CHECK_EQ(kc->kc_slabs, howmany(N, kc->kc_perslab));

		/* A dirtied object comes back (LIFO) zeroed with KM_ZERO. */
		memset(p[7], 0xff, c[k].size);
		kmem_cache_free(kc, p[7]);
		uint8_t *z = kmem_cache_alloc(kc, KM_ZERO);
		CHECK(z == p[7]);
		CHECK(all_bytes(z, c[k].size, 0));
		for (int i = 0; i < N; i++)
			kmem_cache_free(kc, p[i]);
		CHECK_EQ(kc->kc_inuse, 0);
		CHECK(kc->kc_slabs <= 1);		/* the spare */
		kmem_cache_destroy(kc);
	}
	CHECK(settled_same(&base));
}

/*
 * Freed slabs go back to the page allocator: a few thousand objects take
 * pages, and all freed, one spare slab per cache is left (and kmem_reclaim
 * returns it).
 */
TEST(kmem_slabs_return)
{
	enum { N = 3000 };
	static void *p[N];
	vmt_ram();
	struct kmem_cache *kc = cache_named("kmalloc-64");
	REQUIRE(kc != NULL);
	struct pagestate base = settled();
	uint64_t slabs = kc->kc_slabs, inuse = kc->kc_inuse;
	for (int i = 0; i < N; i++)
		REQUIRE((p[i] = kmalloc(64, 0)) != NULL);
	uint64_t pages = howmany(N, PAGE_SIZE / 64);
	CHECK(kc->kc_slabs - slabs >= pages);
	CHECK_EQ(kc->kc_inuse - inuse, N);
	CHECK(base.vs.v_free_count - vmstats.v_free_count >= pages);
	CHECK_EQ(vmstats.v_wire_count - base.vs.v_wire_count,
	    base.vs.v_free_count - vmstats.v_free_count);
	/* Every other object first: slabs half empty, none returned. */
	for (int i = 0; i < N; i += 2)
		kfree(p[i]);
	CHECK(kc->kc_slabs - slabs >= pages);
	for (int i = N - 1; i > 0; i -= 2)
		kfree(p[i]);
	CHECK_EQ(kc->kc_inuse, inuse);
	CHECK_EQ(kc->kc_slabs, slabs + 1);
	CHECK(kc->kc_spare != NULL);
	CHECK_EQ(base.vs.v_free_count - vmstats.v_free_count, 1);

	/* A ping-pong on an empty cache lives on the spare. */
	struct vm_page *spare = kc->kc_spare;
	uint64_t free = vmstats.v_free_count;
	for (int i = 0; i < 1000; i++) {
		void *o = kmalloc(64, 0);
		REQUIRE(o != NULL);
		kfree(o);
		if (DMAP_TO_VM_PAGE(o) != spare) {
			CHECK(DMAP_TO_VM_PAGE(o) == spare);
			break;
		}
	}
	CHECK(kc->kc_spare == spare);
	CHECK_EQ(vmstats.v_free_count, free);
	CHECK(settled_same(&base));
}

/* Above 2 KiB: page blocks of the right order, returned by kfree. */
TEST(kmem_kmalloc_large)
{
	static const struct { size_t size; int order; } c[] = {
		{ 2049, 0 }, { PAGE_SIZE, 0 }, { PAGE_SIZE + 1, 1 },
		{ 5 * PAGE_SIZE, 3 }, { 1 << 20, 8 }, { KMALLOC_MAX, 10 },
	};
	vmt_ram();
	struct pagestate base = settled();
	struct kmemstats kbase = kmemstats;
	for (size_t k = 0; k < nitems(c); k++) {
		uint8_t *p = kmalloc(c[k].size, k % 2 ? KM_ZERO : 0);
		REQUIRE(p != NULL);
		struct vm_page *m = DMAP_TO_VM_PAGE(p);
		CHECK_EQ((uintptr_t)p & ((PAGE_SIZE << c[k].order) - 1), 0);
		CHECK_EQ(m->order, c[k].order);
		CHECK(m->flags & PG_KMEM);
		CHECK_EQ(base.vs.v_free_count - vmstats.v_free_count,
		    1UL << c[k].order);
		CHECK_EQ(vmstats.v_wire_count - base.vs.v_wire_count,
		    1UL << c[k].order);
		CHECK_EQ(kmemstats.km_large_inuse, kbase.km_large_inuse + 1);
		memset(p, 0x5a, c[k].size);
		kfree(p);
		CHECK(settled_same(&base));
	}
	/* Dirtied, then zeroed on request. */
	uint8_t *p = kmalloc(3 * PAGE_SIZE, 0);
	REQUIRE(p != NULL);
	memset(p, 0xee, 3 * PAGE_SIZE);
	kfree(p);
	uint8_t *z = kmalloc(3 * PAGE_SIZE, KM_ZERO);
	CHECK(z == p);
	CHECK(z != NULL && all_bytes(z, 4 * PAGE_SIZE, 0));
	kfree(z);
	/* Too big, or a size that would overflow any rounding. */
	CHECK(kmalloc(KMALLOC_MAX + 1, 0) == NULL);
	CHECK(kmalloc(SIZE_MAX, 0) == NULL);
	CHECK(kmalloc(SIZE_MAX - PAGE_SIZE + 2, KM_ZERO) == NULL);
	CHECK_EQ(kmemstats.km_large_inuse, kbase.km_large_inuse);
	CHECK(settled_same(&base));
}

/* Many caches: the cache of caches grows past a slab and shrinks back. */
TEST(kmem_cache_create_many)
{
	enum { N = 100 };
	struct kmem_cache *kc[N];
	vmt_ram();
	struct pagestate base = settled();
	for (int i = 0; i < N; i++) {
		char name[40];
		snprintf(name, sizeof(name), "test-many-%d-with-a-long-name", i);
		kc[i] = kmem_cache_create(name, (size_t)16 + i, 0);
		REQUIRE(kc[i] != NULL);
		CHECK_EQ(strlen(kc[i]->kc_name), KMEM_NAMELEN - 1);
		/* The structure is itself in RAM. */
		CHECK(physmem_valid((uint64_t)((uint8_t *)kc[i] - physmem.base),
		    sizeof(*kc[i])));
		void *o = kmem_cache_alloc(kc[i], KM_ZERO);
		CHECK(o != NULL);
		kmem_cache_free(kc[i], o);
	}
	struct kmem_cache *cc = TAILQ_FIRST(&kmem_caches);
	CHECK(strcmp(cc->kc_name, "kmem_cache") == 0);
	CHECK(cc->kc_slabs >= 2);
	for (int i = 0; i < N; i++)
		kmem_cache_destroy(kc[i]);
	CHECK(cache_named("test-many-1-with-a-long-n") == NULL);
	CHECK(settled_same(&base));
}

/*
 * 100,000 random allocations and frees of random sizes, through kmalloc
 * and a cache, each object filled with its own byte and checked when
 * freed; all freed, the pages are all back.
 */
#define NSLOT	2048

struct obj {
	uint8_t *p;
	size_t size;
	uint8_t fill;
	bool cached;		/* from the test cache, not kmalloc */
};

static bool
obj_intact(const struct obj *o)
{
	/* Large blocks: their ends only, to keep the test quick. */
	if (o->size > 8192)
		return all_bytes(o->p, 4096, o->fill) &&
		    all_bytes(o->p + o->size - 4096, 4096, o->fill);
	return all_bytes(o->p, o->size, o->fill);
}

static void
obj_fill(const struct obj *o)
{
	if (o->size > 8192) {
		memset(o->p, o->fill, 4096);
		memset(o->p + o->size - 4096, o->fill, 4096);
	} else
		memset(o->p, o->fill, o->size);
}

static int
child_stress(void *arg)
{
	static struct obj slot[NSLOT];
	(void)arg;
	struct pagestate base = settled();
	struct kmem_cache *kc = kmem_cache_create("test-stress", 72, 8);
	if (kc == NULL)
		return 2;
	rng_state = 0x2545f4914f6cdd1dUL;
	int nfail = 0;
	for (int step = 0; step < 100000; step++) {
		struct obj *o = &slot[rng() % NSLOT];
		if (o->p != NULL) {
			if (!obj_intact(o)) {
				unit_fail(__FILE__, __LINE__, "step %d: object "
				    "%p of %zu bytes overwritten", step,
				    (void *)o->p, o->size);
				return 1;
			}
			if (o->cached)
				kmem_cache_free(kc, o->p);
			else
				kfree(o->p);
			o->p = NULL;
			continue;
		}
		uint64_t r = rng();
		o->cached = r % 8 == 0;
		if (o->cached)
			o->size = 72;
		else if (r % 64 == 1)		/* page blocks up to 256 KiB */
			o->size = 2049 + (r >> 8) % (256 << 10);
		else				/* mostly small */
			o->size = (r >> 8) % 2049;
		o->fill = (uint8_t)(step | 1);
		o->p = o->cached ? kmem_cache_alloc(kc, 0) :
		    kmalloc(o->size, (r >> 40) % 4 == 0 ? KM_ZERO : 0);
		if (o->p == NULL) {
			nfail++;
			continue;
		}
		obj_fill(o);
	}
	for (int i = 0; i < NSLOT; i++) {
		if (slot[i].p == NULL)
			continue;
		CHECK(obj_intact(&slot[i]));
		if (slot[i].cached)
			kmem_cache_free(kc, slot[i].p);
		else
			kfree(slot[i].p);
	}
	CHECK_EQ(nfail, 0);
	CHECK_EQ(kc->kc_inuse, 0);
	kmem_cache_destroy(kc);
	CHECK(settled_same(&base));
	return unit_failed_now();
}

TEST(kmem_stress)
{
	CHECK_EQ(vmt_private_child(child_stress, NULL), 0);
}

/* Out of RAM, every allocator answers NULL and recovers after frees. */
static int
child_exhaust(void *arg)
{
	(void)arg;
	struct pagestate base = settled();
	struct kmem_cache *kc = cache_named("kmalloc-512");
	if (kc == NULL)
		return 2;
	uint64_t fails = kc->kc_fails;
	/* Chain the objects through themselves: no memory of our own. */
	void *head = NULL, *p;
	uint64_t n = 0;
	while ((p = kmalloc(512, 0)) != NULL) {
		*(void **)p = head;
		head = p;
		n++;
	}
	CHECK(n >= base.vs.v_free_count * (PAGE_SIZE / 512) - 8);
	CHECK_EQ(kc->kc_fails, fails + 1);
	CHECK_EQ(vmstats.v_free_count, 0);
	CHECK(kmalloc(8192, 0) == NULL);
	CHECK(vm_page_alloc(0, 0) == NULL);
	/* A new cache may still find room for its header, not for a slab. */
	struct kmem_cache *none = kmem_cache_create("test-none", 64, 0);
	if (none != NULL) {
		CHECK(kmem_cache_alloc(none, 0) == NULL);
		CHECK_EQ(none->kc_fails, 1);
		kmem_cache_destroy(none);
	}
	while (head != NULL) {
		p = head;
		head = *(void **)p;
		kfree(p);
	}
	CHECK(settled_same(&base));
	CHECK((p = kmalloc(KMALLOC_MAX, 0)) != NULL);
	kfree(p);
	return unit_failed_now();
}

TEST(kmem_exhaustion)
{
	CHECK_EQ(vmt_private_child(child_exhaust, NULL), 0);
}

/* Kernel bugs panic: each case in its own child, which must abort. */
enum misuse {
	KFREE_TWICE, KFREE_TWICE_EMPTY, KFREE_LARGE_TWICE, KFREE_PAGE,
	KFREE_INTERIOR, KFREE_LARGE_INTERIOR, KFREE_CACHE_OBJECT,
	WRONG_CACHE, DESTROY_IN_USE, DESTROY_KMALLOC, CREATE_BAD_ALIGN,
	CREATE_TOO_BIG, KMALLOC_BAD_FLAGS, FREE_SLAB_PAGE, INIT_TWICE, NMISUSE
};

static int
child_misuse(void *arg)
{
	enum misuse what = *(enum misuse *)arg;
	int fd = open("/dev/null", O_WRONLY);
	if (fd >= 0)
		dup2(fd, STDERR_FILENO);	/* the panic message */
	struct kmem_cache *kc = kmem_cache_create("test-misuse", 40, 0);
	uint8_t *keep = kmalloc(100, 0), *p = kmalloc(100, 0);
	uint8_t *big = kmalloc(3 * PAGE_SIZE, 0);
	void *o = kc != NULL ? kmem_cache_alloc(kc, 0) : NULL;
	struct vm_page *m = vm_page_alloc(0, 0);
	if (keep == NULL || p == NULL || big == NULL || o == NULL || m == NULL)
		return 2;
	switch (what) {
	case KFREE_TWICE:		/* its slab still has keep */
		kfree(p);
		kfree(p);
		break;
	case KFREE_TWICE_EMPTY: {	/* the only object of a fresh cache */
		struct kmem_cache *k2 = kmem_cache_create("t2", 300, 0);
		void *x = kmem_cache_alloc(k2, 0);
		kmem_cache_free(k2, x);
		kmem_cache_free(k2, x);
		break;
	}
	case KFREE_LARGE_TWICE:
		kfree(big);
		kfree(big);
		break;
	case KFREE_PAGE:
		kfree(VM_PAGE_TO_DMAP(m));
		break;
	case KFREE_INTERIOR:
		kfree(p + 8);
		break;
	case KFREE_LARGE_INTERIOR:
		kfree(big + PAGE_SIZE);
		break;
	case KFREE_CACHE_OBJECT:
		kfree(o);
		break;
	case WRONG_CACHE:
		kmem_cache_free(kc, p);
		break;
	case DESTROY_IN_USE:
		kmem_cache_destroy(kc);
		break;
	case DESTROY_KMALLOC:
		kmem_cache_destroy(cache_named("kmalloc-128"));
		break;
	case CREATE_BAD_ALIGN:
		kmem_cache_create("bad", 64, 24);
		break;
	case CREATE_TOO_BIG:
		kmem_cache_create("bad", KMEM_MAXSIZE + 1, 0);
		break;
	case KMALLOC_BAD_FLAGS:
		kmalloc(16, 0x80);
		break;
	case FREE_SLAB_PAGE:
		vm_page_free(DMAP_TO_VM_PAGE(o), 0);
		break;
	case INIT_TWICE:
		kmem_init();
		break;
	default:
		break;
	}
	return 0;			/* survived: wrong */
}

TEST(kmem_misuse_panics)
{
	vmt_ram();
	for (int w = 0; w < NMISUSE; w++) {
		enum misuse what = w;
		int st = vmt_private_child(child_misuse, &what);
		if (st != DIED(SIGABRT))
			unit_fail(__FILE__, __LINE__,
			    "misuse %d: status %d, expected SIGABRT", w, st);
	}
}
