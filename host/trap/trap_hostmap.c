/*
 * The host mappings of a stub, counted: what the host may have mapped in
 * the stub's address space, how many host VMAs that costs, and which to
 * give back first.
 *
 * A host process has at most vm.max_map_count VMAs, and each costs the
 * host memory (the VMA, and page-table pages for a sparse address space)
 * that -m does not bound.  So every vmspace keeps its mapped runs within
 * a budget of its own, and all of them together within a share of RAM;
 * the least recently mapped are unmapped first and fault back in on
 * their next use.
 *
 * The count must be exact, not a log of past mappings: a log keeps runs
 * that an invalidation already removed, and evicting such a stale entry
 * unmaps whatever was mapped there since, possibly the page a fault just
 * mapped (a guest then faults on the same page for ever).  The unit of
 * account is a group of 64 pages, aligned: no fault maps beyond its own
 * group (fault-around and zero-ahead stay inside theirs, which are
 * smaller and aligned), so a group records which of its pages the host
 * may have mapped and which of them begin a host VMA (a run); a group is
 * evicted whole, by one munmap.  The count is an upper bound: the host
 * merges neighbouring runs that happen to be contiguous in RAM.
 *
 * An eviction never touches the group of the fault being served: its
 * munmap is queued after the fault's mappings in the same batch.
 */
#include <stdio.h>
#include <stdlib.h>

#include "host/physmem.h"
#include "host/trap/trap.h"

#define HM_SHIFT	(TRAP_HM_GROUP_SHIFT)
#define HM_SIZE		(1UL << HM_SHIFT)
#define HM_PAGES	(HM_SIZE / PAGE_SIZE)
#define HM_FLOOR	64		/* runs a vmspace keeps whatever the total */
#define HM_MIN_TOTAL	4096

_Static_assert(HM_PAGES == 64, "a group's pages are the bits of a word");

/* Runs mapped by every stub of this vkernel, and their bound. */
static uint64_t hm_total;
static uint64_t hm_total_cap;

static uint32_t
host_max_map_count(void)
{
	unsigned v = 65530;
	FILE *f = fopen("/proc/sys/vm/max_map_count", "re");
	if (f != NULL) {
		if (fscanf(f, "%u", &v) != 1)
			v = 65530;
		fclose(f);
	}
	return v;
}

/*
 * All stubs together may hold one run per 8 pages of RAM (at least
 * HM_MIN_TOTAL): the host's cost of a run is at worst a VMA and a
 * page-table page (~4.4 KiB), so about 14% of -m at the very worst.
 */
static uint64_t
hm_cap_total(void)
{
	uint64_t cap = __atomic_load_n(&hm_total_cap, __ATOMIC_RELAXED);
	if (cap == 0) {
		cap = physmem.size / PAGE_SIZE / 8;
		if (cap < HM_MIN_TOTAL)
			cap = HM_MIN_TOTAL;
		__atomic_store_n(&hm_total_cap, cap, __ATOMIC_RELAXED);
	}
	return cap;
}

uint64_t
trap_hostmap_total(void)
{
	return __atomic_load_n(&hm_total, __ATOMIC_RELAXED);
}

int
trap_hostmap_init(struct vmspace_host *vh, int budget)
{
	struct trap_hostmap *hm = &vh->hm;

	/* Room for the stub's own VMAs and the splits of a munmap. */
	if (budget <= 0)
		budget = (int)(host_max_map_count() / 2);
	if (budget < 16)
		budget = 16;
	hm->cap = (uint32_t)budget;
	hm->nbuckets = 256;
	hm->hash = calloc(hm->nbuckets, sizeof(hm->hash[0]));
	if (hm->hash == NULL)
		return -1;
	return 0;
}

static void
hm_adjust(struct trap_hostmap *hm, int64_t delta)
{
	hm->runs = (uint32_t)((int64_t)hm->runs + delta);
	__atomic_add_fetch(&hm_total, (uint64_t)delta, __ATOMIC_RELAXED);
}

static void
lru_remove(struct trap_hostmap *hm, struct hm_group *g)
{
	*(g->older != NULL ? &g->older->newer : &hm->oldest) = g->newer;
	*(g->newer != NULL ? &g->newer->older : &hm->newest) = g->older;
	g->older = g->newer = NULL;
}

static void
lru_append(struct trap_hostmap *hm, struct hm_group *g)
{
	g->older = hm->newest;
	*(hm->newest != NULL ? &hm->newest->newer : &hm->oldest) = g;
	hm->newest = g;
}

static uint32_t
hm_bucket(const struct trap_hostmap *hm, uint64_t base)
{
	return (uint32_t)(((base >> HM_SHIFT) * 0x9e3779b97f4a7c15UL) >> 40) &
	    (hm->nbuckets - 1);
}

static struct hm_group *
hm_lookup(const struct trap_hostmap *hm, uint64_t base)
{
	for (struct hm_group *g = hm->hash[hm_bucket(hm, base)]; g != NULL;
	    g = g->hnext)
		if (g->base == base)
			return g;
	return NULL;
}

/* Doubles the hash table when it holds more groups than buckets. */
static void
hm_grow(struct trap_hostmap *hm)
{
	uint32_t old = hm->nbuckets;
	struct hm_group **oh = hm->hash;
	struct hm_group **nh = calloc((size_t)old * 2, sizeof(nh[0]));
	if (nh == NULL)
		return;		/* longer chains, still correct */
	hm->hash = nh;
	hm->nbuckets = old * 2;
	for (uint32_t i = 0; i < old; i++) {
		struct hm_group *g = oh[i], *next;
		for (; g != NULL; g = next) {
			next = g->hnext;
			uint32_t b = hm_bucket(hm, g->base);
			g->hnext = nh[b];
			nh[b] = g;
		}
	}
	free(oh);
}

static struct hm_group *
hm_get(struct trap_hostmap *hm, uint64_t base)
{
	struct hm_group *g = hm_lookup(hm, base);
	if (g != NULL)
		return g;
	g = calloc(1, sizeof(*g));
	if (g == NULL)
		return NULL;
	if (hm->ngroups >= hm->nbuckets)
		hm_grow(hm);
	g->base = base;
	uint32_t b = hm_bucket(hm, base);
	g->hnext = hm->hash[b];
	hm->hash[b] = g;
	lru_append(hm, g);
	hm->ngroups++;
	return g;
}

static void
hm_free(struct trap_hostmap *hm, struct hm_group *g)
{
	struct hm_group **pp = &hm->hash[hm_bucket(hm, g->base)];
	while (*pp != g)
		pp = &(*pp)->hnext;
	*pp = g->hnext;
	lru_remove(hm, g);
	hm_adjust(hm, -(int64_t)__builtin_popcountl(g->starts));
	hm->ngroups--;
	free(g);
}

void
trap_hostmap_fini(struct vmspace_host *vh)
{
	struct trap_hostmap *hm = &vh->hm;
	struct hm_group *g;

	if (hm->hash == NULL)
		return;
	while ((g = hm->oldest) != NULL)
		hm_free(hm, g);
	free(hm->hash);
	hm->hash = NULL;
}

/* Bits of the pages of g in [start, end). */
static uint64_t
hm_mask(const struct hm_group *g, uint64_t start, uint64_t end)
{
	uint64_t lo = start > g->base ? (start - g->base) / PAGE_SIZE : 0;
	uint64_t hi = end < g->base + HM_SIZE ?
	    (end - g->base + PAGE_SIZE - 1) / PAGE_SIZE : HM_PAGES;
	uint64_t upto = hi == HM_PAGES ? ~0UL : (1UL << hi) - 1;
	return upto & ~((1UL << lo) - 1);
}

/*
 * Sets g's run starts after its pages in m changed: the first page of m
 * begins a run (if mapped), and so does the mapped page after m, whose
 * run the change cut off.
 */
static void
hm_recount(struct trap_hostmap *hm, struct hm_group *g, uint64_t m,
    bool begins)
{
	int before = __builtin_popcountl(g->starts);
	uint64_t first = m & -m;
	uint64_t after = (m + first) & ~m;	/* the bit above m's top */

	g->starts &= ~m;
	if (begins)
		g->starts |= first;
	g->starts |= after & g->mapped;
	g->starts &= g->mapped;
	hm_adjust(hm, __builtin_popcountl(g->starts) - before);
}

int
trap_hostmap_note_map(struct vmspace_host *vh, uint64_t addr, uint64_t len)
{
	struct trap_hostmap *hm = &vh->hm;

	for (uint64_t base = addr & ~(HM_SIZE - 1); base < addr + len;
	    base += HM_SIZE) {
		struct hm_group *g = hm_get(hm, base);
		if (g == NULL)
			return -1;
		uint64_t m = hm_mask(g, addr, addr + len);
		g->mapped |= m;
		hm_recount(hm, g, m, true);
		lru_remove(hm, g);
		lru_append(hm, g);
	}
	return 0;
}

bool
trap_hostmap_mapped(const struct vmspace_host *vh, uint64_t va)
{
	const struct hm_group *g = hm_lookup(&vh->hm, va & ~(HM_SIZE - 1));
	return g != NULL && (g->mapped & hm_mask(g, va, va + 1)) != 0;
}

uint64_t
trap_hostmap_group(const struct vmspace_host *vh, uint64_t va)
{
	const struct hm_group *g = hm_lookup(&vh->hm, va & ~(HM_SIZE - 1));
	return g != NULL ? g->mapped : 0;
}

bool
trap_hostmap_any(const struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	const struct trap_hostmap *hm = &vh->hm;
	uint64_t first = start & ~(HM_SIZE - 1);

	if (hm->hash == NULL || end <= start)
		return false;
	/* A wide range: look at the groups there are, as note_unmap does. */
	if ((end - first) / HM_SIZE > hm->ngroups) {
		for (const struct hm_group *g = hm->oldest; g != NULL;
		    g = g->newer)
			if (g->base < end && g->base + HM_SIZE > start &&
			    (g->mapped & hm_mask(g, start, end)) != 0)
				return true;
		return false;
	}
	for (uint64_t base = first; base < end; base += HM_SIZE) {
		const struct hm_group *g = hm_lookup(hm, base);
		if (g != NULL && (g->mapped & hm_mask(g, start, end)) != 0)
			return true;
	}
	return false;
}

void
trap_hostmap_note_prot(struct vmspace_host *vh, uint64_t va)
{
	struct hm_group *g = hm_lookup(&vh->hm, va & ~(HM_SIZE - 1));
	if (g != NULL)
		hm_recount(&vh->hm, g, hm_mask(g, va, va + 1) & g->mapped, true);
}

static void
hm_unmap_group(struct trap_hostmap *hm, struct hm_group *g, uint64_t start,
    uint64_t end)
{
	uint64_t m = hm_mask(g, start, end);
	g->mapped &= ~m;
	if (g->mapped == 0)
		hm_free(hm, g);
	else
		hm_recount(hm, g, m, false);
}

void
trap_hostmap_note_unmap(struct vmspace_host *vh, uint64_t start, uint64_t end)
{
	struct trap_hostmap *hm = &vh->hm;
	uint64_t first = start & ~(HM_SIZE - 1);

	if (hm->hash == NULL || end <= start)
		return;
	/* A wide range: visit the groups there are, not the ones there might be. */
	if ((end - first) / HM_SIZE > hm->ngroups) {
		struct hm_group *g, *next;
		for (g = hm->oldest; g != NULL; g = next) {
			next = g->newer;
			if (g->base < end && g->base + HM_SIZE > start)
				hm_unmap_group(hm, g, start, end);
		}
		return;
	}
	for (uint64_t base = first; base < end; base += HM_SIZE) {
		struct hm_group *g = hm_lookup(hm, base);
		if (g != NULL)
			hm_unmap_group(hm, g, start, end);
	}
}

/* Unmaps group g whole and forgets it. */
static int
hm_evict(struct vmspace_host *vh, struct hm_group *g)
{
	uint64_t base = g->base;
	hm_free(&vh->hm, g);
	if (trap_keep_forget(vh, base, base + HM_SIZE) < 0)
		return -1;
	return trap_cmd_add(vh, STUB_OP_MUNMAP, base, HM_SIZE, 0, 0);
}

void
trap_hostmap_shrink(struct vmspace_host *vh, uint32_t n)
{
	struct hm_group *g;
	while (n-- > 0 && (g = vh->hm.oldest) != NULL)
		if (hm_evict(vh, g) < 0)
			return;
}

int
trap_hostmap_enforce(struct vmspace_host *vh, uint64_t keep)
{
	struct trap_hostmap *hm = &vh->hm;
	uint64_t cap = hm_cap_total();
	bool moved = false;
	struct hm_group *g;

	while ((hm->runs > hm->cap ||
	    (trap_hostmap_total() > cap && hm->runs > HM_FLOOR)) &&
	    (g = hm->oldest) != NULL) {
		if (g->base == (keep & ~(HM_SIZE - 1))) {
			if (moved || g->newer == NULL)
				break;
			lru_remove(hm, g);
			lru_append(hm, g);
			moved = true;
			continue;
		}
		if (hm_evict(vh, g) < 0)
			return -1;
	}
	return 0;
}
