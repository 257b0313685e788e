/*
 * Tests of the futex machinery below the system call (proc/futex_var.h,
 * vm/vm_atomic.h): keys (private, shared in private memory, shared
 * memory met from a forked address space), atomic operations on guest
 * words (copy-on-write broken, protections honoured), and the wait
 * queues: arrival order, bitsets, requeue, the references an object
 * key holds.  Waiters here are queued by hand; nothing sleeps.
 */
#include <linux/futex.h>

#include "kern/futex.h"
#include "proc/futex_var.h"
#include "kern/proc.h"
#include "sys/syscall.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmproc.h"
#include "vm/vm_atomic.h"
#include "vm/vm_object.h"

#define PG	PAGE_SIZE
#define RW	(PROT_READ | PROT_WRITE)

static int
shared_anon(struct vmp *p, uint64_t addr, uint64_t len)
{
	return vm_mmap(p->vm, addr, len, RW, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED,
	    NULL, 0) == (long)addr ? 0 : -1;
}

TEST(futex_key_private_and_mm)
{
	struct vmp p;
	struct futex_key k1, k2;
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	/* Private keys need no memory: unmapped is fine, misaligned is not. */
	CHECK_EQ(futex_key_get(p.vm, VMP_DATA + 3 * PG, false, &k1), 0);
	CHECK(k1.fk_space == p.vm && k1.fk_off == VMP_DATA + 3 * PG &&
	    k1.fk_type == FK_PRIVATE);
	CHECK_EQ(futex_key_get(p.vm, VMP_DATA + 2, false, &k1), -EINVAL);
	CHECK_EQ(futex_key_get(p.vm, 0xffff800000000000UL, false, &k1), -EFAULT);
	/* Shared keys in private memory: this address space's, apart from private. */
	CHECK_EQ(futex_key_get(p.vm, VMP_DATA + 8, true, &k2), 0);
	CHECK(k2.fk_space == p.vm && k2.fk_off == VMP_DATA + 8 && k2.fk_type == FK_MM);
	CHECK_EQ(futex_key_get(p.vm, VMP_DATA + 8, false, &k1), 0);
	CHECK(!futex_key_eq(&k1, &k2));
	CHECK_EQ(futex_key_get(p.vm, VMP_DATA + 3 * PG, true, &k2), -EFAULT);
	REQUIRE(vm_mprotect(p.vm, VMP_DATA, PG, PROT_NONE) == 0);
	CHECK_EQ(futex_key_get(p.vm, VMP_DATA + 8, true, &k2), -EFAULT);
	vmp_destroy(&p);
}

/* Two address spaces sharing a MAP_SHARED mapping, at different addresses, meet. */
TEST(futex_key_shared_object)
{
	struct vmp p, c;
	struct futex_key kp, kc, k;
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(shared_anon(&p, VMP_DATA, 4 * PG) == 0);
	REQUIRE(vmp_fork(&p, &c) == 0);
	/* The child moves the second page elsewhere: same object, same offset. */
	REQUIRE(vm_mmap(c.vm, VMP_DATA + 64 * PG, PG, RW, MAP_PRIVATE | MAP_ANONYMOUS |
	    MAP_FIXED, NULL, 0) == (long)(VMP_DATA + 64 * PG));
	CHECK_EQ(futex_key_get(p.vm, VMP_DATA + PG + 12, true, &kp), 0);
	CHECK_EQ(futex_key_get(c.vm, VMP_DATA + PG + 12, true, &kc), 0);
	CHECK_EQ(kp.fk_type, FK_OBJECT);
	CHECK(futex_key_eq(&kp, &kc));
	CHECK_EQ(kp.fk_off & PAGE_MASK, 12);
	CHECK_EQ(futex_key_get(c.vm, VMP_DATA + 2 * PG + 12, true, &k), 0);
	CHECK(!futex_key_eq(&kp, &k));
	/* A private key of the same word does not meet the shared one. */
	CHECK_EQ(futex_key_get(p.vm, VMP_DATA + PG + 12, false, &k), 0);
	CHECK(!futex_key_eq(&kp, &k));
	vmp_destroy(&c);
	vmp_destroy(&p);
}

TEST(futex_atomic_ops)
{
	struct vmp p;
	uint32_t v, old;
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	uint64_t a = VMP_DATA + 40;
	CHECK_EQ(vm_atomic_load32(p.vm, a, &v), 0);
	CHECK_EQ(v, 0);
	CHECK_EQ(vm_atomic_cmpxchg32(p.vm, a, 1, 5, &old), 0);
	CHECK_EQ(old, 0);		/* failed: the word stays */
	CHECK_EQ(vm_atomic_cmpxchg32(p.vm, a, 0, 5, &old), 0);
	CHECK_EQ(old, 0);
	CHECK_EQ(vm_atomic_op32(p.vm, a, VM_ATOMIC_ADD, 3, &old), 0);
	CHECK_EQ(old, 5);
	CHECK_EQ(vm_atomic_op32(p.vm, a, VM_ATOMIC_OR, 0x30, &old), 0);
	CHECK_EQ(vm_atomic_op32(p.vm, a, VM_ATOMIC_ANDN, 0x8, &old), 0);
	CHECK_EQ(vm_atomic_op32(p.vm, a, VM_ATOMIC_XOR, 0x1, &old), 0);
	CHECK_EQ(vm_atomic_op32(p.vm, a, VM_ATOMIC_SET, 7, &old), 0);
	CHECK_EQ(old, 0x31);
	CHECK_EQ(vmp_peek(&p, a) & 0xffffffff, 7);
	CHECK_EQ(vm_atomic_load32(p.vm, a + 2, &v), -EFAULT);
	CHECK_EQ(vm_atomic_load32(p.vm, VMP_DATA + PG, &v), -EFAULT);
	CHECK_EQ(vm_atomic_load32(p.vm, VM_MAX_USER_ADDRESS, &v), -EFAULT);
	/* Read-only: loads work, the others fault. */
	REQUIRE(vm_mprotect(p.vm, VMP_DATA, PG, PROT_READ) == 0);
	CHECK_EQ(vm_atomic_load32(p.vm, a, &v), 0);
	CHECK_EQ(vm_atomic_cmpxchg32(p.vm, a, 7, 8, &old), -EFAULT);
	CHECK_EQ(vm_atomic_op32(p.vm, a, VM_ATOMIC_ADD, 1, &old), -EFAULT);
	CHECK_EQ(v, 7);
	vmp_destroy(&p);
}

/* A write to a copy-on-write word changes only this side's copy. */
TEST(futex_atomic_breaks_cow)
{
	struct vmp p, c;
	uint32_t old;
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	REQUIRE(vmp_poke(&p, VMP_DATA, 100) == 0);
	REQUIRE(vmp_fork(&p, &c) == 0);
	CHECK_EQ(vm_atomic_cmpxchg32(c.vm, VMP_DATA, 100, 200, &old), 0);
	CHECK_EQ(old, 100);
	CHECK_EQ(vmp_peek(&c, VMP_DATA) & 0xffffffff, 200);
	CHECK_EQ(vmp_peek(&p, VMP_DATA) & 0xffffffff, 100);
	CHECK(vmp_pa(&p, VMP_DATA) != vmp_pa(&c, VMP_DATA));
	vmp_destroy(&c);
	vmp_destroy(&p);
}

/* Queues keep arrival order; wakes honour bitsets and counts. */
TEST(futex_queue_order_and_wake)
{
	struct vmp p;
	struct futex_key k;
	static struct futex_waiter w[4];
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	REQUIRE(futex_key_get(p.vm, VMP_DATA, false, &k) == 0);
	static const uint32_t bits[4] = { 0x1, 0x2, 0x1, 0x3 };
	for (int i = 0; i < 4; i++) {
		futex_waiter_init(&w[i], NULL, &k, bits[i], &w[i]);
		futex_queue(&w[i]);
	}
	CHECK(futex_next(&k, NULL) == &w[0]);
	CHECK(futex_next(&k, &w[0]) == &w[1]);
	CHECK(futex_next(&k, &w[3]) == NULL);
	/* 0x2 wakes the first of w[1] and w[3] only (count 1). */
	CHECK_EQ(futex_wake(p.vm, VMP_DATA, 1, 0x2), 1);
	CHECK_EQ(w[1].fw_state, FW_WOKEN);
	CHECK_EQ(w[3].fw_state, FW_QUEUED);
	/* A count of 0 wakes one, as Linux. */
	CHECK_EQ(futex_wake(p.vm, VMP_DATA, 0, FUTEX_BITSET_MATCH_ANY), 1);
	CHECK_EQ(w[0].fw_state, FW_WOKEN);
	CHECK_EQ(futex_wake(p.vm, VMP_DATA, 10, 0x1), 2);
	CHECK_EQ(w[2].fw_state, FW_WOKEN);
	CHECK_EQ(w[3].fw_state, FW_WOKEN);
	CHECK(futex_next(&k, NULL) == NULL);
	CHECK_EQ(futex_wake(p.vm, VMP_DATA + 2, 1, FUTEX_BITSET_MATCH_ANY), -EINVAL);
	for (int i = 0; i < 4; i++)
		futex_unqueue(&w[i]);
	vmp_destroy(&p);
}

/*
 * futex_wake (thread exit's) reaches shared waiters through the object;
 * an object key holds a reference while queued, which moves with a
 * requeue and goes with the waiter.
 */
TEST(futex_queue_shared_refs_and_requeue)
{
	struct vmp p, c;
	struct futex_key k1, k2, kc;
	static struct futex_waiter w[3];
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(shared_anon(&p, VMP_DATA, PG) == 0);
	REQUIRE(vmp_fork(&p, &c) == 0);
	REQUIRE(futex_key_get(c.vm, VMP_DATA + 4, true, &kc) == 0);
	REQUIRE(futex_key_get(p.vm, VMP_DATA + 4, true, &k1) == 0);
	REQUIRE(futex_key_get(p.vm, VMP_DATA + 8, true, &k2) == 0);
	struct vm_object *obj = (struct vm_object *)k1.fk_space;
	int refs = obj->ref_count;
	for (int i = 0; i < 3; i++) {
		futex_waiter_init(&w[i], NULL, &kc, FUTEX_BITSET_MATCH_ANY, &w[i]);
		futex_queue(&w[i]);
	}
	CHECK_EQ(obj->ref_count, refs + 3);
	futex_requeue_waiter(&w[1], &k2);
	futex_requeue_waiter(&w[2], &k2);
	CHECK_EQ(obj->ref_count, refs + 3);
	CHECK(futex_next(&k2, NULL) == &w[1]);
	CHECK(futex_next(&k1, NULL) == &w[0]);
	/* A private wake of the parent meets none; futex_wake meets the shared ones. */
	struct futex_key kp;
	REQUIRE(futex_key_get(p.vm, VMP_DATA + 8, false, &kp) == 0);
	CHECK(futex_next(&kp, NULL) == NULL);
	CHECK_EQ(futex_wake(p.vm, VMP_DATA + 8, 5, FUTEX_BITSET_MATCH_ANY), 2);
	CHECK_EQ(w[0].fw_state, FW_QUEUED);
	for (int i = 0; i < 3; i++)
		futex_unqueue(&w[i]);
	CHECK_EQ(w[0].fw_state, FW_GONE);
	CHECK_EQ(obj->ref_count, refs);
	vmp_destroy(&c);
	vmp_destroy(&p);
}

/* PI waiters are found by owner; plain wakes refuse them. */
TEST(futex_queue_pi)
{
	struct vmp p;
	struct futex_key k;
	static struct futex_waiter w;
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(futex_key_get(p.vm, VMP_DATA, false, &k) == 0);
	futex_waiter_init(&w, NULL, &k, FUTEX_BITSET_MATCH_ANY, &w);
	w.fw_flags = FW_PI;
	w.fw_owner = 42;
	futex_queue(&w);
	CHECK(futex_find_pi(42) == &w);
	CHECK(futex_find_pi(43) == NULL);
	CHECK_EQ(futex_wake(p.vm, VMP_DATA, 1, FUTEX_BITSET_MATCH_ANY), -EINVAL);
	futex_unqueue(&w);
	CHECK(futex_find_pi(42) == NULL);
	CHECK_EQ(futex_npi, 0);
	vmp_destroy(&p);
}

/*
 * A requeue of a futex onto itself moves nobody twice: with a count of
 * INT_MAX it used to walk its own waiters for ever, holding the kernel.
 */
TEST(futex_requeue_onto_itself_ends)
{
	struct vmp p;
	struct futex_key k;
	static struct futex_waiter w[2];
	static struct proc proc;
	static struct lwp lwp;
	REQUIRE(vmp_create(&p) == 0);
	REQUIRE(vmp_anon(&p, VMP_DATA, PG) == 0);
	proc.p_vmspace = p.vm;
	lwp.lwp_proc = &proc;
	REQUIRE(futex_key_get(p.vm, VMP_DATA, false, &k) == 0);
	for (int i = 0; i < 2; i++) {
		futex_waiter_init(&w[i], NULL, &k, FUTEX_BITSET_MATCH_ANY, &w[i]);
		futex_queue(&w[i]);
	}
	uint64_t args[6] = { VMP_DATA, FUTEX_REQUEUE | FUTEX_PRIVATE_FLAG, 0,
	    INT32_MAX, VMP_DATA, 0 };
	CHECK_EQ(sys_futex(&lwp, args), 2);
	CHECK(futex_next(&k, NULL) == &w[0]);
	args[1] = FUTEX_CMP_REQUEUE | FUTEX_PRIVATE_FLAG;
	args[5] = 1;		/* the word is 0 */
	CHECK_EQ(sys_futex(&lwp, args), -EAGAIN);
	args[5] = 0;
	args[2] = 1;		/* wake one, requeue the rest onto itself */
	CHECK_EQ(sys_futex(&lwp, args), 2);
	CHECK_EQ(w[0].fw_state, FW_WOKEN);
	CHECK_EQ(w[1].fw_state, FW_QUEUED);
	for (int i = 0; i < 2; i++)
		futex_unqueue(&w[i]);
	vmp_destroy(&p);
}
