/*
 * The vmspace API on the trap backend: system calls, faults, A/D bits.
 */
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

GUEST(syscall);

TEST(vmspace_syscall_roundtrip)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(syscall));
	vmt_stack(&v);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, 39);
	CHECK_EQ(v.tf.tf_rbx, 0x1111);
	CHECK_EQ(v.tf.tf_rdi, 0x2222);
	CHECK_EQ(v.tf.tf_rsi, 0x3333);
	CHECK_EQ(v.tf.tf_rdx, 0x4444);
	CHECK_EQ(v.tf.tf_r10, 0x5555);
	CHECK_EQ(v.tf.tf_r8, 0x6666);
	CHECK_EQ(v.tf.tf_r9, 0x7777);
	CHECK_EQ(v.tf.tf_r12, 0x8888);
	CHECK_EQ(v.tf.tf_r15, 0x9999);
	CHECK_EQ(v.tf.tf_err, SYSCALL_ABI_X86_64);
	/* rcx and r11 hold the return address and flags, as on a real syscall. */
	CHECK_EQ(v.tf.tf_rcx, v.tf.tf_rip);
	v.tf.tf_rax = 4242;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, 60);
	CHECK_EQ(v.tf.tf_rdi, 4242);
	vmt_destroy(&v);
}
