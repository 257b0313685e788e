/*
 * Tests of copyin, copyout and copyinstr (vm/vm_copy.c): good pointers
 * fault pages in and set A and M; bad ones (NULL, unmapped, the kernel
 * half, wrapping, no permission, strings running into a hole) give
 * -EFAULT; copyout breaks copy-on-write.
 */
#include "tests/unit/unit.h"
#include "tests/unit/vmproc.h"

#define PG	PAGE_SIZE
#define RW	(PROT_READ | PROT_WRITE)

/* A process with rw memory at VMP_DATA (n pages) and nothing after it. */
static int
setup(struct vmp *p, int n)
{
	if (vmp_create(p) < 0)
		return -1;
	return vmp_anon(p, VMP_DATA, (uint64_t)n * PG);
}

TEST(copyin_good)
{
	struct vmp p;
	char buf[3 * PG], back[3 * PG];
	REQUIRE(setup(&p, 4) == 0);
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + 1);
	/* Unaligned, across three pages none of which exists yet. */
	uint64_t ua = VMP_DATA + PG - 100;
	CHECK_EQ(vmp_vpte(&p, ua) & VPTE_V, 0);
	CHECK_EQ(vm_copyout(p.vm, buf, ua, sizeof(buf)), 0);
	for (int i = 0; i < 4; i++) {
		vpte_t e = vmp_vpte(&p, VMP_DATA + i * PG);
		CHECK((e & (VPTE_V | VPTE_A | VPTE_M)) == (VPTE_V | VPTE_A | VPTE_M));
	}
	CHECK_EQ(vm_copyin(p.vm, ua, back, sizeof(back)), 0);
	CHECK(memcmp(buf, back, sizeof(buf)) == 0);
	/* copyin of untouched memory: zeros, and only A is set. */
	REQUIRE(vmp_anon(&p, VMP_DATA + 8 * PG, PG) == 0);
	memset(back, 0xff, 16);
	CHECK_EQ(vm_copyin(p.vm, VMP_DATA + 8 * PG + 8, back, 16), 0);
	CHECK_EQ(back[0] | back[15], 0);
	CHECK_EQ(vmp_vpte(&p, VMP_DATA + 8 * PG) & (VPTE_A | VPTE_M), VPTE_A);
	/* Harvested bits come back with the kernel's own accesses. */
	struct vm_page *m = PHYS_TO_VM_PAGE(vmp_pa(&p, VMP_DATA));
	pmap_ts_referenced(m);
	pmap_clear_modify(m);
	CHECK_EQ(vm_copyin(p.vm, VMP_DATA, back, 1), 0);
	CHECK_EQ(vmp_vpte(&p, VMP_DATA) & (VPTE_A | VPTE_M), VPTE_A);
	CHECK_EQ(vm_copyout(p.vm, back, VMP_DATA, 1), 0);
	CHECK(pmap_is_modified(m));
	/* Zero lengths never fault. */
	CHECK_EQ(vm_copyin(p.vm, 0, back, 0), 0);
	CHECK_EQ(vm_copyout(p.vm, back, ~0UL, 0), 0);
	vmp_destroy(&p);
}

TEST(copyin_bad_pointers)
{
	struct vmp p;
	char buf[64] = "x";
	REQUIRE(setup(&p, 1) == 0);
	uint64_t bad[] = {
		0, 8, VM_MIN_USER_ADDRESS, VMP_DATA + PG, VMP_DATA - 8,
		VM_MAX_USER_ADDRESS, VM_MAX_USER_ADDRESS - 8,
		0x0000800000000000UL, 0xffff800000000000UL, ~0UL - 3,
	};
	for (size_t i = 0; i < nitems(bad); i++) {
		CHECK_EQ(vm_copyin(p.vm, bad[i], buf, 16), -EFAULT);
		CHECK_EQ(vm_copyout(p.vm, buf, bad[i], 16), -EFAULT);
		size_t done = 99;
		CHECK_EQ(vm_copyinstr(p.vm, bad[i], buf, 16, &done), -EFAULT);
		CHECK_EQ(done, 0);
	}
	/* Straddling the end of the mapping: the tail is bad. */
	CHECK_EQ(vm_copyin(p.vm, VMP_DATA + PG - 8, buf, 16), -EFAULT);
	CHECK_EQ(vm_copyout(p.vm, buf, VMP_DATA + PG - 8, 16), -EFAULT);
	CHECK_EQ(vm_copyin(p.vm, VMP_DATA + PG - 16, buf, 16), 0);
	/* Nothing was mapped for the bad ones. */
	CHECK_EQ(p.vm->vm_map.nentries, 1);
	CHECK_EQ(p.vm->vm_pmap.pm_resident, 1);
	vmp_destroy(&p);
}

TEST(copyin_protections)
{
	struct vmp p;
	uint64_t v = 0x1234, w;
	REQUIRE(setup(&p, 4) == 0);
	CHECK_EQ(vm_copyout(p.vm, &v, VMP_DATA, 8), 0);
	CHECK_EQ(vm_mprotect(p.vm, VMP_DATA, PG, PROT_READ), 0);
	CHECK_EQ(vm_mprotect(p.vm, VMP_DATA + PG, PG, PROT_NONE), 0);
	CHECK_EQ(vm_mprotect(p.vm, VMP_DATA + 2 * PG, PG, PROT_WRITE), 0);
	CHECK_EQ(vm_mprotect(p.vm, VMP_DATA + 3 * PG, PG, PROT_EXEC), 0);
	v = 0x5678;
	CHECK_EQ(vm_copyout(p.vm, &v, VMP_DATA, 8), -EFAULT);	/* read-only */
	CHECK_EQ(vm_copyin(p.vm, VMP_DATA, &w, 8), 0);
	CHECK_EQ(w, 0x1234);
	CHECK_EQ(vm_copyin(p.vm, VMP_DATA + PG, &w, 8), -EFAULT);	/* none */
	CHECK_EQ(vm_copyout(p.vm, &v, VMP_DATA + PG, 8), -EFAULT);
	CHECK_EQ(vm_copyout(p.vm, &v, VMP_DATA + 2 * PG, 8), 0);	/* w-only */
	CHECK_EQ(vm_copyin(p.vm, VMP_DATA + 2 * PG, &w, 8), 0);
	CHECK_EQ(w, 0x5678);
	CHECK_EQ(vm_copyin(p.vm, VMP_DATA + 3 * PG, &w, 8), 0);	/* x-only */
	CHECK_EQ(vm_copyout(p.vm, &v, VMP_DATA + 3 * PG, 8), -EFAULT);
	vmp_destroy(&p);
}

/* copyout to a page shared after fork gives the writer its own copy. */
TEST(copyin_copyout_cow)
{
	struct vmp p, c;
	uint64_t v = 1, w;
	REQUIRE(setup(&p, 1) == 0);
	CHECK_EQ(vm_copyout(p.vm, &v, VMP_DATA, 8), 0);
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(vm_copyin(c.vm, VMP_DATA, &w, 8), 0);
	CHECK_EQ(w, 1);
	CHECK_EQ(vmp_pa(&c, VMP_DATA), vmp_pa(&p, VMP_DATA));
	v = 2;
	CHECK_EQ(vm_copyout(c.vm, &v, VMP_DATA, 8), 0);
	CHECK(vmp_pa(&c, VMP_DATA) != vmp_pa(&p, VMP_DATA));
	CHECK_EQ(vmp_peek(&c, VMP_DATA), 2);
	CHECK_EQ(vmp_peek(&p, VMP_DATA), 1);
	v = 3;
	CHECK_EQ(vm_copyout(p.vm, &v, VMP_DATA, 8), 0);
	CHECK_EQ(vmp_peek(&c, VMP_DATA), 2);
	CHECK_EQ(vmp_peek(&p, VMP_DATA), 3);
	vmp_destroy(&c);
	vmp_destroy(&p);
}

/* copyout below a stack grows it, as the guest's own access would. */
TEST(copyin_grows_stack)
{
	struct vmp p;
	uint64_t v = 42;
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(vm_mmap(p.vm, VMP_STACK - PG, PG, RW, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, NULL, 0) ==
	    (long)(VMP_STACK - PG));
	CHECK_EQ(vm_copyout(p.vm, &v, VMP_STACK - 5 * PG, 8), 0);
	CHECK_EQ(vmp_peek(&p, VMP_STACK - 5 * PG), 42);
	CHECK_EQ(p.vm->vm_map.nentries, 1);
	vmp_destroy(&p);
}

TEST(copyin_str)
{
	struct vmp p;
	char buf[64];
	size_t done;
	REQUIRE(setup(&p, 2) == 0);
	/* "hello" across the boundary of two pages. */
	uint64_t s = VMP_DATA + PG - 3;
	CHECK_EQ(vm_copyout(p.vm, "hello", s, 6), 0);
	CHECK_EQ(vm_copyinstr(p.vm, s, buf, sizeof(buf), &done), 0);
	CHECK_EQ(done, 6);
	CHECK(strcmp(buf, "hello") == 0);
	/* Too long for the buffer. */
	CHECK_EQ(vm_copyinstr(p.vm, s, buf, 5, &done), -ENAMETOOLONG);
	CHECK_EQ(done, 5);
	CHECK_EQ(vm_copyinstr(p.vm, s, buf, 0, &done), -ENAMETOOLONG);
	CHECK_EQ(done, 0);
	CHECK_EQ(vm_copyinstr(p.vm, s, buf, 6, NULL), 0);
	/* Ending on the last byte before a hole: fine. */
	uint64_t end = VMP_DATA + 2 * PG;
	CHECK_EQ(vm_copyout(p.vm, "abc", end - 4, 4), 0);
	CHECK_EQ(vm_copyinstr(p.vm, end - 4, buf, sizeof(buf), &done), 0);
	CHECK_EQ(done, 4);
	/* Running into the hole: -EFAULT, with what came before. */
	CHECK_EQ(vm_copyout(p.vm, "abcd", end - 4, 4), 0);
	CHECK_EQ(vm_copyinstr(p.vm, end - 4, buf, sizeof(buf), &done), -EFAULT);
	CHECK_EQ(done, 4);
	CHECK(memcmp(buf, "abcd", 4) == 0);
	/* And into the top of user space. */
	CHECK_EQ(vm_mmap(p.vm, VM_MAX_USER_ADDRESS - PG, PG, RW, MAP_PRIVATE |
	    MAP_ANONYMOUS | MAP_FIXED, NULL, 0), VM_MAX_USER_ADDRESS - PG);
	CHECK_EQ(vm_copyout(p.vm, "xy", VM_MAX_USER_ADDRESS - 2, 2), 0);
	CHECK_EQ(vm_copyinstr(p.vm, VM_MAX_USER_ADDRESS - 2, buf, sizeof(buf),
	    &done), -EFAULT);
	CHECK_EQ(done, 2);
	vmp_destroy(&p);
}
