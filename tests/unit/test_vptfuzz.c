/*
 * Random vpagetable contents under a running guest (the trap backend).
 *
 * A guest (mem_touch_loop) loads and stores back one word of each of 64
 * pages, over and over, while the test writes random entries into the
 * tables that map them: reserved bits, frames beyond RAM, tables that
 * point at themselves or at a table of another level, the large-page bit
 * at every level, and bits flipped.  A second thread writes while the
 * guest runs; between runs the test writes more and calls MADV_INVAL
 * (the kernel's pmap does both).  The backend must never crash, never
 * give the guest a host mapping outside RAM, report only page faults on
 * the pages the guest touches (at its load or store), and serve the guest
 * again once the tables are whole.
 *
 * Every frame written is in a 4 MiB block of our own (the three tables
 * below the root among its pages) or beyond RAM; the guest's range sits
 * at the same offset within 1 GiB as the block, so that even a 1 GiB or
 * 2 MiB page made of a table entry lands in the block.  Whatever the garbage, the guest's stores (of what
 * it just loaded) cannot reach memory the test harness uses.
 *
 * VPTFUZZ_SEED and VPTFUZZ_ROUNDS make it longer (make fuzz-abi).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>

#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

GUEST(mem_touch_loop);

#define FZ_PAGES	64
#define FZ_BLOCK_ORDER	10		/* 4 MiB */
#define FZ_BLOCK	(PAGE_SIZE << FZ_BLOCK_ORDER)
#define FZ_PML4_SLOT	64UL
#define GB		(1UL << 30)
#define MB2		(2UL << 20)

struct fz {
	struct vmt v;
	uint64_t block;			/* physical: 4 MiB, aligned */
	uint64_t va;			/* the guest's 64 pages */
	uint64_t tables[3];		/* PDPT, PD, PT of va */
	uint64_t pristine[3][512];
	vpte_t pml4e;
	uint64_t seed;			/* the writer thread's sequence */
	volatile int stop;
	unsigned long writes;
};

static inline uint64_t
fz_rng(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static vpte_t *
fz_table(struct fz *f, int level)	/* 3 = the PML4 */
{
	return (vpte_t *)PHYS_TO_DMAP(level == 3 ? f->v.root :
	    f->tables[2 - level]);
}

/* Whether e keeps the guest inside the block, at any level it is read at. */
static bool
fz_safe(const struct fz *f, vpte_t e)
{
	uint64_t frame = e & VPTE_FRAME;
	if (frame >= physmem.size)
		return true;
	return frame >= f->block && frame < f->block + FZ_BLOCK;
}

/* A random entry: flags, frame and the bits no entry may have. */
static vpte_t
fz_entry(struct fz *f, uint64_t *s)
{
	uint64_t frame;
	switch (fz_rng(s) % 8) {
	case 0: frame = f->tables[fz_rng(s) % 3]; break;	/* loops, other levels */
	case 1: frame = f->tables[0] + PAGE_SIZE * (fz_rng(s) % 3); break;
	case 2: frame = f->block + (fz_rng(s) % 2) * MB2; break;
	case 3: frame = physmem.size + (fz_rng(s) % 4) * PAGE_SIZE; break;
	case 4: frame = VPTE_FRAME & (fz_rng(s) | GB); break;
	case 5: frame = (fz_rng(s) % 8 + 1) * GB; break;
	default: frame = f->block + (fz_rng(s) % 1024) * PAGE_SIZE; break;
	}
	vpte_t e = frame | (fz_rng(s) & (VPTE_RW | VPTE_U | VPTE_PWT |
	    VPTE_PCD | VPTE_A | VPTE_M | VPTE_G | VPTE_AVAIL | VPTE_NX));
	if (fz_rng(s) % 8)
		e |= VPTE_V;
	if (fz_rng(s) % 4 == 0)
		e |= VPTE_PS;
	if (fz_rng(s) % 8 == 0)
		e |= VPTE_PAT_LARGE;
	if (fz_rng(s) % 8 == 0)
		e |= 1UL << (52 + fz_rng(s) % 11);	/* reserved */
	if (fz_rng(s) % 2)
		e |= VPTE_U | VPTE_V;
	return e;
}

/* Writes one random entry, or flips one bit, in the tables of the range. */
static void
fz_write(struct fz *f, uint64_t *s)
{
	int level = (int)(fz_rng(s) % 4);
	unsigned idx;
	if (level == 3)
		idx = FZ_PML4_SLOT;
	else if (fz_rng(s) % 4 == 0)
		idx = fz_rng(s) % 512;
	else
		idx = VPTE_INDEX(f->va + (fz_rng(s) % FZ_PAGES) * PAGE_SIZE, level);
	vpte_t *p = fz_table(f, level) + idx;
	vpte_t e = __atomic_load_n(p, __ATOMIC_RELAXED);
	if (fz_rng(s) % 3 == 0)
		e ^= 1UL << (fz_rng(s) % 64);
	else
		e = fz_entry(f, s);
	if (fz_safe(f, e)) {
		__atomic_store_n(p, e, __ATOMIC_RELEASE);
		__atomic_fetch_add(&f->writes, 1, __ATOMIC_RELAXED);
	}
}

static void
fz_restore(struct fz *f)
{
	for (int i = 0; i < 3; i++)
		memcpy(PHYS_TO_DMAP(f->tables[i]), f->pristine[i], PAGE_SIZE);
	fz_table(f, 3)[FZ_PML4_SLOT] = f->pml4e;
}

static void *
fz_writer(void *arg)
{
	struct fz *f = arg;
	struct timespec pause = { 0, 20000 };
	while (!f->stop) {
		fz_write(f, &f->seed);
		nanosleep(&pause, NULL);
	}
	return NULL;
}

/*
 * The stub's host mappings below STUB_BASE: each must be of the RAM file
 * and inside RAM, and those of the guest's range inside the block.  Returns the number of bad ones, printing them.
 */
static int
fz_check_maps(struct fz *f)
{
	char path[64], line[512];
	struct stat st;
	int bad = 0;

	if (fstat(physmem.fd, &st) < 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)vmt_host(&f->v)->pid);
	FILE *m = fopen(path, "r");
	if (m == NULL)
		return 0;	/* the stub is gone: it maps nothing */
	while (fgets(line, sizeof(line), m) != NULL) {
		unsigned long lo, hi, off, ino;
		if (sscanf(line, "%lx-%lx %*s %lx %*s %lu", &lo, &hi, &off, &ino) != 4 ||
		    lo >= STUB_BASE)
			continue;
		bool ok = ino == st.st_ino && physmem_valid(off, hi - lo);
		uint64_t end = f->va + FZ_PAGES * PAGE_SIZE;
		for (uint64_t a = lo > f->va ? lo : f->va; ok && a < hi && a < end;
		    a += PAGE_SIZE) {
			uint64_t pa = off + (a - lo);
			ok = pa >= f->block && pa < f->block + FZ_BLOCK;
		}
		if (!ok) {
			fprintf(stderr, "    bad host mapping: %s", line);
			bad++;
		}
	}
	fclose(m);
	return bad;
}

/* One run: a report of a full pass, a sane page fault, or an interrupt. */
static bool
fz_run_sane(struct fz *f, int *trap)
{
	uint64_t code_end = VMT_CODE + (size_t)(g_mem_touch_loop_end -
	    g_mem_touch_loop);
	*trap = vmt_run(&f->v);
	switch (*trap) {
	case T_SYSCALL:
		return f->v.tf.tf_rax == 1000;
	case T_PAGEFLT:
		return f->v.tf.tf_addr >= f->va &&
		    f->v.tf.tf_addr < f->va + FZ_PAGES * PAGE_SIZE &&
		    (f->v.tf.tf_err & PGEX_U) &&
		    f->v.tf.tf_rip >= VMT_CODE && f->v.tf.tf_rip < code_end;
	case T_INTR:
		return true;
	default:
		return false;
	}
}

TEST(vptfuzz_random_tables)
{
	const char *es = getenv("VPTFUZZ_SEED"), *er = getenv("VPTFUZZ_ROUNDS");
	uint64_t seed = es != NULL ? strtoull(es, NULL, 0) : 1;
	long rounds = er != NULL ? atol(er) : 200;
	struct fz *f = calloc(1, sizeof(*f));
	REQUIRE(f != NULL);
	REQUIRE(vmt_create(&f->v, NULL) == 0);
	vmt_code(&f->v, GUEST_CODE(mem_touch_loop));
	vmt_stack(&f->v);

	/* The block: three tables, 64 guest pages, the rest spare. */
	f->block = vmt_block(FZ_BLOCK_ORDER);
	f->va = (FZ_PML4_SLOT << VPTE_SHIFT(3)) + (f->block & (GB - 1));
	for (int i = 0; i < 3; i++)
		f->tables[i] = f->block + (uint64_t)i * PAGE_SIZE;
	fz_table(f, 3)[FZ_PML4_SLOT] = f->tables[0] | VPTE_USER_RW;
	fz_table(f, 2)[VPTE_INDEX(f->va, 2)] = f->tables[1] | VPTE_USER_RW;
	fz_table(f, 1)[VPTE_INDEX(f->va, 1)] = f->tables[2] | VPTE_USER_RW;
	for (int i = 0; i < FZ_PAGES; i++)
		fz_table(f, 0)[VPTE_INDEX(f->va, 0) + i] =
		    (f->block + (16 + (uint64_t)i) * PAGE_SIZE) | VPTE_USER_RW;
	for (int i = 0; i < 3; i++)
		memcpy(f->pristine[i], PHYS_TO_DMAP(f->tables[i]), PAGE_SIZE);
	f->pml4e = fz_table(f, 3)[FZ_PML4_SLOT];
	f->v.tf.tf_rdi = f->va;
	f->v.tf.tf_rsi = FZ_PAGES;

	uint64_t s = seed * 0x9e3779b97f4a7c15UL | 1;
	long counts[3] = { 0 };		/* passes, faults, interrupts */
	for (long r = 0; r < rounds && !unit_failed_now(); r++) {
		bool concurrent = r % 2 == 1;
		pthread_t writer;
		f->stop = 0;
		f->seed = fz_rng(&s) | 1;
		if (concurrent)
			REQUIRE(pthread_create(&writer, NULL, fz_writer, f) == 0);
		for (int k = 0; k < 8; k++) {
			for (int n = (int)(fz_rng(&s) % 4); n > 0; n--)
				fz_write(f, &s);
			uint64_t lo = fz_rng(&s) % 2 ? f->va : 0;
			CHECK_EQ(vmspace_mcontrol(&f->v, (void *)lo, lo ? FZ_PAGES *
			    PAGE_SIZE : VM_MAX_USER_ADDRESS, MADV_INVAL, NULL), 0);
			int trap;
			if (!fz_run_sane(f, &trap)) {
				unit_fail(__FILE__, __LINE__, "seed %llu round %ld: trap %d "
				    "at %#llx, address %#llx, err %#llx",
				    (unsigned long long)seed, r, trap,
				    (unsigned long long)f->v.tf.tf_rip,
				    (unsigned long long)f->v.tf.tf_addr,
				    (unsigned long long)f->v.tf.tf_err);
				break;
			}
			counts[trap == T_SYSCALL ? 0 : trap == T_PAGEFLT ? 1 : 2]++;
			if (trap == T_PAGEFLT && fz_rng(&s) % 2)
				fz_restore(f);	/* as the kernel fixes a fault */
		}
		if (concurrent) {
			f->stop = 1;
			pthread_join(writer, NULL);
		}
		if (fz_check_maps(f) != 0)
			unit_fail(__FILE__, __LINE__, "seed %llu round %ld: a host "
			    "mapping outside the block", (unsigned long long)seed, r);
		/* Whole tables again: the guest completes a pass. */
		fz_restore(f);
		CHECK_EQ(vmspace_mcontrol(&f->v, NULL, VM_MAX_USER_ADDRESS,
		    MADV_INVAL, NULL), 0);
		int trap;
		do
			trap = vmt_run(&f->v);
		while (trap == T_INTR);
		if (trap != T_SYSCALL)
			unit_fail(__FILE__, __LINE__, "seed %llu round %ld: trap %d "
			    "at %#llx with whole tables, address %#llx, err %#llx",
			    (unsigned long long)seed, r, trap,
			    (unsigned long long)f->v.tf.tf_rip,
			    (unsigned long long)f->v.tf.tf_addr,
			    (unsigned long long)f->v.tf.tf_err);
	}
	CHECK(!vmt_host(&f->v)->dead);
	fprintf(stderr, "    vptfuzz seed %llu: %ld rounds, %lu entries written, "
	    "%ld passes, %ld faults, %ld interrupts\n", (unsigned long long)seed,
	    rounds, f->writes, counts[0], counts[1], counts[2]);
	vmt_destroy(&f->v);
	free(f);
}
