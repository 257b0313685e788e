/*
 * Traps of the trap backend: exceptions come back as their x86 vectors,
 * a guest that jumps into the stub's code can do nothing its filter does
 * not allow, FPU state stays with its thread, forged reports are checked,
 * and a stub that dies is T_DEAD, never a host crash.  Guest code is in
 * guest_traps.S.
 */
#include <cpuid.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "host/clock.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

/* Offset of label within guest program name. */
#define GUEST_OFF(name, label)	((uint64_t)(g_##label - g_##name))
#define GUEST_LABEL(name)	extern const char g_##name[]

GUEST(trap_hlt);
GUEST(trap_cli);
GUEST(trap_in);
GUEST(trap_out);
GUEST(trap_ud2);
GUEST(trap_int3);
GUEST(trap_div);
GUEST(trap_cr0);
GUEST(trap_int81);
GUEST(trap_noncanon);
GUEST_LABEL(trap_noncanon_resume);
GUEST(trap_noncanon_load);
GUEST_LABEL(trap_noncanon_load_insn);
GUEST(trap_int80);
GUEST(trap_own_sigreturn);
GUEST(trap_step);
GUEST(trap_store);
GUEST(trap_load);
GUEST(trap_jump);
GUEST_LABEL(trap_jump_back);
GUEST(trap_spin);
GUEST(trap_fsgs);
GUEST(trap_forge);
GUEST(trap_fpu);
GUEST_LABEL(trap_fpu_fresh);

#define REPORT_NR	1000	/* guest_traps.S: REPORT(1000) */
#define EFLAGS_TF	0x100

_Static_assert(offsetof(struct stub_thread, ucontext) == 32,
    "guest_traps.S trap_forge reads stub_thread.ucontext at 32");

/* Maps a fresh RW data page at va; returns its physical address. */
static uint64_t
data_page(struct vmt *v, uint64_t va)
{
	uint64_t pa = vmt_page();
	vmt_map(v, va, pa, VPTE_USER_RW | VPTE_NX);
	return pa;
}

/* A new vmspace still works: the host survived whatever came before. */
static void
check_fresh_vmspace(void)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_int3));
	vmt_stack(&v);
	CHECK_EQ(vmt_run(&v), T_BPTFLT);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, REPORT_NR);
	vmt_destroy(&v);
}

/*
 * Runs code whose first instruction traps: expects trap want with rip at
 * code + rip_off, then resumes at code + resume_off and expects the
 * guest's report.
 */
static void
trap_case(const char *what, const char *code, size_t len, uint64_t want,
    uint64_t rip_off, uint64_t resume_off)
{
	struct vmt v;
	int before = unit_failed_now();

	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, code, len);
	vmt_stack(&v);
	CHECK_EQ(vmt_run(&v), want);
	CHECK_EQ(v.tf.tf_rip, VMT_CODE + rip_off);
	v.tf.tf_rip = VMT_CODE + resume_off;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, REPORT_NR);
	CHECK_EQ(v.tf.tf_rip, v.tf.tf_rcx);
	if (!before && unit_failed_now())
		fprintf(stderr, "    (in case %s)\n", what);
	vmt_destroy(&v);
}

TEST(trap_privileged_gp)
{
	/* Privileged or I/O instructions in user mode: #GP, rip at the insn. */
	trap_case("hlt", GUEST_CODE(trap_hlt), T_PROTFLT, 0, 1);
	trap_case("cli", GUEST_CODE(trap_cli), T_PROTFLT, 0, 1);
	trap_case("in", GUEST_CODE(trap_in), T_PROTFLT, 0, 2);
	trap_case("out", GUEST_CODE(trap_out), T_PROTFLT, 0, 2);
	trap_case("mov cr0", GUEST_CODE(trap_cr0), T_PROTFLT, 0, 3);
	trap_case("int $0x81", GUEST_CODE(trap_int81), T_PROTFLT, 0, 2);
}

TEST(trap_ud2_int3)
{
	trap_case("ud2", GUEST_CODE(trap_ud2), T_PRIVINFLT, 0, 2);
	/* int3 is a trap: rip is already after it, resume right there. */
	trap_case("int3", GUEST_CODE(trap_int3), T_BPTFLT, 1, 1);
}

TEST(trap_divide)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_div));
	vmt_stack(&v);
	v.tf.tf_rax = 7;
	v.tf.tf_rdx = 0;
	v.tf.tf_rcx = 0;
	CHECK_EQ(vmt_run(&v), T_DIVIDE);
	CHECK_EQ(v.tf.tf_rip, VMT_CODE);
	/* Fix the divisor and retry the instruction: 7 / 2. */
	v.tf.tf_rcx = 2;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, REPORT_NR);
	CHECK_EQ(v.tf.tf_rdx, 1);
	vmt_destroy(&v);
}

TEST(trap_noncanonical)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_noncanon));
	vmt_stack(&v);
	int t = vmt_run(&v);
	/* The host reports #GP; a page fault would be acceptable too. */
	CHECK(t == T_PROTFLT || t == T_PAGEFLT);
	/* The jump faults, not the fetch: rip is at the jmp (or the target). */
	uint64_t jmp = VMT_CODE + GUEST_OFF(trap_noncanon, trap_noncanon_resume) - 2;
	CHECK(v.tf.tf_rip == jmp || v.tf.tf_rip == 0x8000000000000000UL);
	v.tf.tf_rip = VMT_CODE + GUEST_OFF(trap_noncanon, trap_noncanon_resume);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, REPORT_NR);
	vmt_destroy(&v);

	/* A load from a non-canonical address: #GP at the load. */
	uint64_t insn = GUEST_OFF(trap_noncanon_load, trap_noncanon_load_insn);
	trap_case("non-canonical load", GUEST_CODE(trap_noncanon_load),
	    T_PROTFLT, insn, insn + 3);
}

TEST(trap_int80_is_i386_syscall)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_int80));
	vmt_stack(&v);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_err, SYSCALL_ABI_I386);
	CHECK_EQ(v.tf.tf_rax, 20);
	CHECK_EQ(v.tf.tf_rip, VMT_CODE + 7);	/* after mov $20,%eax; int $0x80 */
	v.tf.tf_rax = 1234;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_err, SYSCALL_ABI_X86_64);
	CHECK_EQ(v.tf.tf_rax, REPORT_NR);
	vmt_destroy(&v);
}

TEST(trap_guest_sigreturn_is_syscall)
{
	/* rt_sigreturn from guest code is the guest's system call, not the host's. */
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_own_sigreturn));
	vmt_stack(&v);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, 15);
	CHECK_EQ(v.tf.tf_rip, VMT_CODE + 7);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, REPORT_NR);
	vmt_destroy(&v);
}

TEST(trap_single_step)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_step));
	vmt_stack(&v);
	v.tf.tf_rflags |= EFLAGS_TF;
	CHECK_EQ(vmt_run(&v), T_TRCTRAP);
	CHECK_EQ(v.tf.tf_rip, VMT_CODE + 1);
	CHECK(v.tf.tf_rflags & EFLAGS_TF);
	CHECK_EQ(vmt_run(&v), T_TRCTRAP);
	CHECK_EQ(v.tf.tf_rip, VMT_CODE + 2);
	v.tf.tf_rflags &= ~(uint64_t)EFLAGS_TF;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rax, REPORT_NR);
	vmt_destroy(&v);
}

/* FS and GS bases travel in vf both ways. */
TEST(trap_fs_gs_base)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_fsgs));
	vmt_stack(&v);
	uint64_t *d = PHYS_TO_DMAP(data_page(&v, VMT_DATA));
	d[0] = 0x1111;
	d[1] = 0x2222;
	d[0x100 / 8] = 0x3333;
	d[0x100 / 8 + 1] = 0x4444;
	v.vf.vx_fsbase = VMT_DATA;
	v.vf.vx_gsbase = VMT_DATA;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rbx, 0x1111);
	CHECK_EQ(v.tf.tf_r12, 0x2222);
	if (vmt_host(&v)->cmd->fsgsbase) {
		CHECK_EQ(v.vf.vx_fsbase, VMT_DATA);
		CHECK_EQ(v.vf.vx_gsbase, VMT_DATA);
	}
	v.vf.vx_fsbase = VMT_DATA + 0x100;
	v.vf.vx_gsbase = VMT_DATA + 0x100;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rbx, 0x3333);
	CHECK_EQ(v.tf.tf_r12, 0x4444);
	vmt_destroy(&v);
}

/*
 * A non-canonical FS base from the kernel is an argument error (EINVAL),
 * or is ignored; it must not kill the guest (the stub's wrfsbase faults
 * in its handler, with every signal blocked, and the host kills it).
 */
TEST(trap_fs_base_noncanonical)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_int3));
	vmt_stack(&v);
	v.vf.vx_fsbase = 0x8000000000000000UL;
	errno = 0;
	int rc = vmspace_ctl(&v, VMSPACE_CTL_RUN, &v.tf, &v.vf);
	CHECK((rc == -1 && errno == EINVAL) ||
	    (rc == 0 && v.tf.tf_trapno != T_DEAD));
	if (rc == 0 && v.tf.tf_trapno == T_DEAD)
		fprintf(stderr, "    non-canonical FS base: guest killed (%s)\n",
		    vmt_host(&v)->dead_why ? vmt_host(&v)->dead_why : "?");
	vmt_destroy(&v);
}

/* The guest can read the stub's memory but write none of its text or commands. */
TEST(trap_stub_memory_readonly)
{
	static const uint64_t ro[] = { STUB_TEXT, STUB_RESTORER, STUB_CMD,
	    STUB_BOOT };

	for (size_t i = 0; i < sizeof(ro) / sizeof(ro[0]); i++) {
		struct vmt v;
		REQUIRE(vmt_create(&v, NULL) == 0);
		vmt_code(&v, GUEST_CODE(trap_store));
		vmt_stack(&v);
		v.tf.tf_r15 = ro[i];
		CHECK_EQ(vmt_run(&v), T_PAGEFLT);
		CHECK_EQ(v.tf.tf_addr, ro[i]);
		CHECK(v.tf.tf_err & PGEX_W);
		CHECK_EQ(v.tf.tf_rip, VMT_CODE);
		/* Skip the store: the guest goes on. */
		v.tf.tf_rip = VMT_CODE + 7;
		CHECK_EQ(vmt_run(&v), T_SYSCALL);
		CHECK_EQ(v.tf.tf_rax, REPORT_NR);
		vmt_destroy(&v);
	}

	/* Reading the command page works (it is no secret); it is the seq. */
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_load));
	vmt_stack(&v);
	v.tf.tf_r15 = STUB_CMD;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	struct vmspace_host *vh = vmt_host(&v);
	REQUIRE(vh != NULL);
	CHECK_EQ(v.tf.tf_rbx & 0xffffffff, vh->cmd->seq);
	vmt_destroy(&v);
}

/* The value of field (e.g. "CapEff:") in /proc/pid/status, or ~0. */
static uint64_t
proc_status_hex(pid_t pid, const char *field)
{
	char path[64], line[256];
	unsigned long long v = ~0ULL;
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (f == NULL)
		return v;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, field, strlen(field)) == 0)
			sscanf(line + strlen(field), "%llx", &v);
	fclose(f);
	return v;
}

/*
 * A running stub holds nothing of the vkernel's but what it needs: no
 * fds 0-2 (the host terminal), no capabilities (the vkernel may be
 * root), no way to gain any, and no host stack, auxiliary vector or
 * vdso where the guest could read or dirty them.
 */
TEST(trap_stub_confined)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_load));
	vmt_stack(&v);
	v.tf.tf_r15 = VMT_CODE;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	pid_t pid = vmt_host(&v)->pid;
	char path[64], line[256];
	for (int fd = 0; fd <= 2; fd++) {
		snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, fd);
		CHECK(access(path, F_OK) != 0);
	}
	CHECK_EQ(proc_status_hex(pid, "CapEff:"), 0);
	CHECK_EQ(proc_status_hex(pid, "CapPrm:"), 0);
	CHECK_EQ(proc_status_hex(pid, "CapInh:"), 0);
	CHECK_EQ(proc_status_hex(pid, "CapAmb:"), 0);
	if (geteuid() == 0)	/* only CAP_SETPCAP may shrink the bounding set */
		CHECK_EQ(proc_status_hex(pid, "CapBnd:"), 0);
	CHECK_EQ(proc_status_hex(pid, "NoNewPrivs:"), 1);
	CHECK_EQ(proc_status_hex(pid, "VmStk:"), 0);

	/* Nothing mapped from the stub's control memory to TASK_SIZE_MAX. */
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	FILE *f = fopen(path, "r");
	REQUIRE(f != NULL);
	int above = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long long lo, hi;
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 &&
		    hi > STUB_CTL_END && lo < STUB_HOST_TOP) {
			fprintf(stderr, "    still mapped: %s", line);
			above++;
		}
	}
	fclose(f);
	CHECK_EQ(above, 0);

	/* Where the host's stack (auxv) and vdso were, the guest faults. */
	static const uint64_t gone[] = { STUB_CTL_END, 0x7ffff7ffd000,
	    STUB_HOST_TOP - STUB_PAGE };
	for (size_t i = 0; i < sizeof(gone) / sizeof(gone[0]); i++) {
		vmt_code(&v, GUEST_CODE(trap_load));
		v.tf.tf_rip = VMT_CODE;
		v.tf.tf_r15 = gone[i];
		CHECK_EQ(vmt_run(&v), T_PAGEFLT);
		CHECK_EQ(v.tf.tf_addr, gone[i]);
	}
	vmt_destroy(&v);
}

/*
 * Polled hand-offs (trap_handoff.c, trap_poll_judge): one slow hand-off
 * among fast ones (a tick, a host daemon on the stubs' core) leaves
 * polling on; before, the first slow one turned it off for 100 ms, and a
 * quiet host ran its pipe round trips with futex wakes (15 us, not 8).
 * A second slow one within 16 hand-offs (a core with other work) turns
 * it off, for 100 ms, and it comes back on after that.
 */
TEST(trap_poll_judge_window)
{
	const uint64_t spin = 20000, fast = 3000, slow = 500000, ms = 1000000;
	struct trap_pollstate ps = { 0 };
	uint64_t now = 1000 * ms;

	for (int i = 0; i < 160 + 16; i++) {
		now += 10000;
		trap_poll_judge(&ps, i < 160 && i % 16 == 7 ? slow : fast, spin,
		    now);
		if (ps.off_until > now)
			break;
	}
	CHECK(ps.off_until <= now);		/* 1 slow in 16: still on */
	now += 10000;
	trap_poll_judge(&ps, slow, spin, now);
	CHECK(ps.off_until <= now);		/* 1 slow of 16: on */
	now += 10000;
	trap_poll_judge(&ps, slow, spin, now);
	CHECK(ps.off_until > now);		/* the 2nd: off */
	CHECK(ps.off_until <= now + 100 * ms);
	now += 100 * ms;
	trap_poll_judge(&ps, fast, spin, now);
	CHECK(ps.off_until <= now);		/* on again */
	CHECK_EQ(ps.history, 0u);
}

/*
 * Every task of a spinning stub (its guest thread and its mapper) runs
 * SCHED_BATCH: a CPU waking one on a busy core must not preempt the
 * task running there (trap_handoff.c: the reschedule IPI and the wait
 * behind a spinning stub cost a pipe round trip 15-18 us per hand-off).
 * A stub that does not spin (density: its CPU on its core) keeps the
 * host's default, whose wake-up preemption saves the CPU a sleep.
 */
TEST(trap_stub_sched_batch)
{
	for (int spin = 0; spin < 2; spin++) {
		struct trap_params p = { .fault_around = 8, .stub_core = -1,
		    .spin_ns = spin ? 20000 : 0 };
		struct vmt v;
		REQUIRE(vmt_create(&v, &p) == 0);
		vmt_code(&v, GUEST_CODE(trap_load));
		vmt_stack(&v);
		v.tf.tf_r15 = VMT_CODE;
		CHECK_EQ(vmt_run(&v), T_SYSCALL);
		pid_t pid = vmt_host(&v)->pid;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
		DIR *d = opendir(path);
		REQUIRE(d != NULL);
		int tasks = 0;
		for (struct dirent *de; (de = readdir(d)) != NULL; ) {
			if (de->d_name[0] == '.')
				continue;
			tasks++;
			CHECK_EQ(sched_getscheduler((pid_t)atoi(de->d_name)),
			    spin ? SCHED_BATCH : SCHED_OTHER);
		}
		closedir(d);
		CHECK(tasks >= 2);
		vmt_destroy(&v);
	}
}

/*
 * Jumps into the stub's text at target with the given system-call
 * registers; returns the trap.
 */
struct sysargs {
	uint64_t nr, a0, a1, a2, a3, a4, a5;
};

static int
jump_stub(struct vmt *v, uint64_t target, const struct sysargs *a)
{
	vmt_code(v, GUEST_CODE(trap_jump));
	vmt_stack(v);
	v->tf.tf_r15 = target;
	v->tf.tf_rax = a->nr;
	v->tf.tf_rdi = a->a0;
	v->tf.tf_rsi = a->a1;
	v->tf.tf_rdx = a->a2;
	v->tf.tf_r10 = a->a3;
	v->tf.tf_r8 = a->a4;
	v->tf.tf_r9 = a->a5;
	return vmt_run(v);
}

TEST(trap_stub_write_killed)
{
	struct vmt v;
	int p[2], saved;

	/* The stub inherits our fd 1: make it a pipe for this stub only. */
	fflush(stdout);
	fflush(stderr);
	REQUIRE(pipe2(p, O_CLOEXEC) == 0);
	saved = fcntl(1, F_DUPFD_CLOEXEC, 10);
	REQUIRE(saved >= 0);
	REQUIRE(dup2(p[1], 1) == 1);
	int rc = vmt_create(&v, NULL);
	dup2(saved, 1);
	close(saved);
	close(p[1]);
	REQUIRE(rc == 0);

	/* write(1, code, 16) from the syscall instruction of the restorer. */
	struct sysargs a = { SYS_write, 1, VMT_CODE, 16, 0, 0, 0 };
	CHECK_EQ(jump_stub(&v, STUB_RESTORER + 5, &a), T_DEAD);
	CHECK(vmt_host(&v)->dead);
	CHECK_EQ(vmt_run(&v), T_DEAD);		/* and stays dead */
	vmt_destroy(&v);

	/* The stub is gone with its end of the pipe: EOF, nothing written. */
	char buf[64];
	REQUIRE(fcntl(p[0], F_SETFL, O_NONBLOCK) == 0);
	ssize_t n = read(p[0], buf, sizeof(buf));
	CHECK_EQ(n, 0);
	close(p[0]);
	check_fresh_vmspace();
}

TEST(trap_stub_syscalls_killed)
{
	static const struct {
		const char *what;
		uint64_t target;
		struct sysargs a;
	} cases[] = {
		{ "mmap RAM", STUB_RESTORER + 5, { SYS_mmap, VMT_DATA, 4096,
		    3 /* RW */, 0x11 /* MAP_SHARED|MAP_FIXED */, STUB_RAM_FD, 0 } },
		{ "mprotect stub", STUB_RESTORER + 5, { SYS_mprotect, STUB_CMD,
		    4096, 3, 0, 0, 0 } },
		{ "munmap", STUB_RESTORER + 5, { SYS_munmap, VMT_CODE, 4096,
		    0, 0, 0, 0 } },
		{ "exit_group", STUB_RESTORER + 5, { SYS_exit_group, 0, 0,
		    0, 0, 0, 0 } },
		{ "getpid", STUB_RESTORER + 5, { SYS_getpid, 0, 0, 0, 0, 0, 0 } },
		{ "futex on guest memory", STUB_RESTORER + 5, { SYS_futex,
		    VMT_CODE, FUTEX_WAKE, 1, 0, 0, 0 } },
		{ "futex on a mapper word", STUB_RESTORER + 5, { SYS_futex,
		    STUB_SYNC + offsetof(struct stub_sync, done), FUTEX_WAKE,
		    1, 0, 0, 0 } },
		{ "futex private wake", STUB_RESTORER + 5, { SYS_futex,
		    STUB_THREAD + offsetof(struct stub_thread, reply),
		    FUTEX_WAKE | FUTEX_PRIVATE_FLAG, 1, 0, 0, 0 } },
		{ "futex requeue", STUB_RESTORER + 5, { SYS_futex,
		    STUB_THREAD + offsetof(struct stub_thread, reply),
		    FUTEX_CMP_REQUEUE, 1, 0,
		    STUB_THREAD + offsetof(struct stub_thread, req), 0 } },
		{ "arch_prctl GET_FS", STUB_RESTORER + 5, { SYS_arch_prctl,
		    0x1003, VMT_DATA, 0, 0, 0, 0 } },
		{ "seccomp", STUB_RESTORER + 5, { SYS_seccomp, 1, 0,
		    STUB_BOOT + 16, 0, 0, 0 } },
		/* Only the mapper makes threads and maps their slots. */
		{ "clone a thread", STUB_RESTORER + 5, { SYS_clone,
		    STUB_CLONE_FLAGS, STUB_SLOT_END(3), 0, 0, 0, 0 } },
		{ "mmap a thread slot", STUB_RESTORER + 5, { SYS_mmap,
		    STUB_SLOT(3), STUB_THREAD_SIZE, 3, 0x11, STUB_CTL_FD,
		    STUB_SLOT(3) - STUB_CMD } },
		{ "sigaltstack", STUB_RESTORER + 5, { SYS_sigaltstack, 0, 0,
		    0, 0, 0, 0 } },
		{ "futex on a thread id", STUB_RESTORER + 5, { SYS_futex,
		    STUB_THREAD + offsetof(struct stub_thread, tid), FUTEX_WAKE,
		    1, 0, 0, 0 } },
		/* The mapper's code starts with its seccomp call: killed. */
		{ "mapper entry", STUB_MAPPER, { 0, 0, 0, 0, 0, 0, 0 } },
		/* The process entry: stub_main finds its stack wrong and exits. */
		{ "stub entry", STUB_TEXT, { 0, 0, 0, 0, 0, 0, 0 } },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmt v;
		REQUIRE(vmt_create(&v, NULL) == 0);
		int t = jump_stub(&v, cases[i].target, &cases[i].a);
		if (t != T_DEAD)
			unit_fail(__FILE__, __LINE__, "%s: trap %d, expected T_DEAD",
			    cases[i].what, t);
		vmt_destroy(&v);
		check_fresh_vmspace();
	}
}

/* What the filter allows from the stub's text is harmless. */
TEST(trap_stub_allowed_harmless)
{
	static const struct {
		const char *what;
		struct sysargs a;
		int64_t ret_min, ret_max;
	} cases[] = {
		{ "futex wake reply", { SYS_futex,
		    STUB_THREAD + offsetof(struct stub_thread, reply),
		    FUTEX_WAKE, 1, 0, 0, 0 }, 0, 0 },
		{ "futex wake req", { SYS_futex,
		    STUB_THREAD + offsetof(struct stub_thread, req),
		    FUTEX_WAKE, 1, 0, 0, 0 }, 0, 1 },
		{ "futex wake seq", { SYS_futex,
		    STUB_CMD + offsetof(struct stub_cmd, seq),
		    FUTEX_WAKE, 1, 0, 0, 0 }, 0, 1 },
		/* Allowed, but an unused slot is not even mapped. */
		{ "futex wake an unused slot's reply", { SYS_futex,
		    STUB_SLOT(9) + offsetof(struct stub_thread, reply),
		    FUTEX_WAKE, 1, 0, 0, 0 }, -EFAULT, -EFAULT },
		/* The word is 0 while the guest runs, never 12345. */
		{ "futex wait reply, stale value", { SYS_futex,
		    STUB_THREAD + offsetof(struct stub_thread, reply),
		    FUTEX_WAIT, 12345, 0, 0, 0 }, -EAGAIN, -EAGAIN },
		{ "arch_prctl SET_FS", { SYS_arch_prctl, 0x1002, 0x12345000,
		    0, 0, 0, 0 }, 0, 0 },
		/* A parked thread gives its core away (stub.c, wait_reply). */
		{ "sched_yield", { SYS_sched_yield, 0, 0, 0, 0, 0, 0 }, 0, 0 },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct vmt v;
		int before = unit_failed_now();
		REQUIRE(vmt_create(&v, NULL) == 0);
		/* The syscall returns into the ud2 that follows it in the stub. */
		CHECK_EQ(jump_stub(&v, STUB_RESTORER + 5, &cases[i].a), T_PRIVINFLT);
		CHECK_EQ(v.tf.tf_rip, STUB_RESTORER + 7);
		CHECK((int64_t)v.tf.tf_rax >= cases[i].ret_min &&
		    (int64_t)v.tf.tf_rax <= cases[i].ret_max);
		if (cases[i].a.nr == SYS_arch_prctl && vmt_host(&v)->cmd->fsgsbase)
			CHECK_EQ(v.vf.vx_fsbase, 0x12345000);
		/* Back to guest code: it goes on. */
		v.tf.tf_rip = VMT_CODE + GUEST_OFF(trap_jump, trap_jump_back);
		CHECK_EQ(vmt_run(&v), T_SYSCALL);
		CHECK_EQ(v.tf.tf_rax, REPORT_NR);
		if (!before && unit_failed_now())
			fprintf(stderr, "    (in case %s: rax %lld)\n",
			    cases[i].what, (long long)v.tf.tf_rax);
		vmt_destroy(&v);
	}
}

/*
 * rt_sigreturn from the stub's restorer with a frame the kernel cannot
 * read: the host kernel raises SIGSEGV (si_code SI_KERNEL).  That is no
 * page fault, so it must come back as a fault (or kill the stub); it must
 * not be taken for a page fault at the stale trap number and CR2 of the
 * guest's previous fault and "served", which resumes the guest into the
 * ud2 after the restorer's syscall (T_PRIVINFLT).  Either way the host
 * survives.
 */
TEST(trap_stub_bad_sigreturn)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_jump));
	vmt_stack(&v);
	v.tf.tf_r15 = STUB_RESTORER;
	v.tf.tf_rsp = 0x20000;			/* nothing mapped there */
	int t = vmt_run(&v);
	CHECK(t == T_DEAD || t == T_PROTFLT || t == T_PAGEFLT);
	if (t != T_DEAD && t != T_PROTFLT && t != T_PAGEFLT)
		fprintf(stderr, "    bad sigreturn: trap %d at rip %#lx, host signal %d, "
		    "faults served %lu\n", t, (unsigned long)v.tf.tf_rip,
		    (int)vmt_host(&v)->t0.thr->signo,
		    (unsigned long)vmt_host(&v)->nserved);
	if (t != T_DEAD) {
		v.tf.tf_rip = VMT_CODE + GUEST_OFF(trap_jump, trap_jump_back);
		v.tf.tf_rsp = VMT_STACK - 64;
		CHECK_EQ(vmt_run(&v), T_SYSCALL);
		CHECK_EQ(v.tf.tf_rax, REPORT_NR);
	}
	vmt_destroy(&v);
	check_fresh_vmspace();
}

/*
 * Forged reports: the guest writes the stub's thread page (it can) and
 * posts a request as the stub's handler would.  Pointers to a frame
 * outside the signal stack must get the stub killed, never followed.
 */
struct forge {
	uint64_t addr, val;
};

static int
run_forged(const struct forge *tab, int n, uint64_t uc_off, uint64_t uc_val)
{
	struct vmt v;
	if (vmt_create(&v, NULL) < 0)
		return -1;
	vmt_code(&v, GUEST_CODE(trap_forge));
	vmt_stack(&v);
	uint64_t pa = data_page(&v, VMT_DATA);
	uint64_t *t = PHYS_TO_DMAP(pa);
	for (int i = 0; i < n; i++) {
		t[2 * i] = tab[i].addr;
		t[2 * i + 1] = tab[i].val;
	}
	t[2 * n] = 0;
	v.tf.tf_r15 = VMT_DATA;
	v.tf.tf_r13 = VMT_DATA + 2048;		/* its counter */
	v.tf.tf_r12 = uc_off;
	v.tf.tf_rbx = uc_val;
	int r = vmt_run(&v);
	vmt_destroy(&v);
	return r;
}

#define THR(f)	(STUB_THREAD + offsetof(struct stub_thread, f))

TEST(trap_forged_report_checked)
{
	static const struct {
		const char *what;
		struct forge f;
		uint64_t uc_off, uc_val;
	} bad[] = {
		{ "ucontext in guest memory", { THR(ucontext), VMT_DATA }, 0, 0 },
		{ "ucontext misaligned", { THR(ucontext), STUB_ALTSTACK + 4 }, 0, 0 },
		{ "ucontext across the end", { THR(ucontext), STUB_CTL_END - 8 }, 0, 0 },
		{ "ucontext in the thread page", { THR(ucontext), STUB_THREAD }, 0, 0 },
		{ "siginfo in the command page", { THR(siginfo), STUB_CMD }, 0, 0 },
		{ "siginfo far away", { THR(siginfo), 0xffffffffffff0000UL }, 0, 0 },
		{ "fpregs in guest memory", { THR(signo), SIGSYS },
		    offsetof(ucontext_t, uc_mcontext.fpregs), VMT_DATA },
		{ "fpregs misaligned", { THR(signo), SIGSYS },
		    offsetof(ucontext_t, uc_mcontext.fpregs), STUB_ALTSTACK + 8 },
		{ "fpregs across the end", { THR(signo), SIGSYS },
		    offsetof(ucontext_t, uc_mcontext.fpregs), STUB_CTL_END - 256 },
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int t = run_forged(&bad[i].f, 1, bad[i].uc_off, bad[i].uc_val);
		if (t != T_DEAD)
			unit_fail(__FILE__, __LINE__, "%s: trap %d, expected T_DEAD",
			    bad[i].what, t);
		check_fresh_vmspace();
	}

	/*
	 * A report with the old, valid frame and a signal of the guest's
	 * choosing is taken as what it says; nothing worse than a trap.
	 */
	struct forge sys = { THR(signo), SIGSYS };
	CHECK_EQ(run_forged(&sys, 1, 0, 0), T_SYSCALL);
	struct forge junk = { THR(signo), 12345 };
	CHECK_EQ(run_forged(&junk, 1, 0, 0), T_INTR);
	check_fresh_vmspace();
}

/* A stub killed from outside while parked: T_DEAD, and destroy still works. */
TEST(trap_stub_killed_parked)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_int3));
	vmt_stack(&v);
	CHECK_EQ(vmt_run(&v), T_BPTFLT);
	REQUIRE(kill(vmt_host(&v)->pid, SIGKILL) == 0);
	uint64_t t0 = host_nanotime();
	CHECK_EQ(vmt_run(&v), T_DEAD);
	/* Generous: the backend polls the stub every 20 ms. */
	CHECK(host_nanotime() - t0 < 2000000000UL);
	CHECK_EQ(vmt_run(&v), T_DEAD);
	CHECK_EQ(vmspace_destroy(&v), 0);
	v.created = 0;
	/* FPSAVE on a dead stub is refused, not a crash: the id is gone. */
	CHECK_EQ(vmspace_ctl(&v, VMSPACE_CTL_FPSAVE, NULL, &v.vf), -1);

	/* Killed before it ever ran. */
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_int3));
	vmt_stack(&v);
	REQUIRE(kill(vmt_host(&v)->pid, SIGKILL) == 0);
	CHECK_EQ(vmt_run(&v), T_DEAD);
	CHECK_EQ(vmspace_ctl(&v, VMSPACE_CTL_FPSAVE, NULL, &v.vf), -1);
	CHECK_EQ(errno, ESRCH);
	CHECK_EQ(vmspace_destroy(&v), 0);
	v.created = 0;
	check_fresh_vmspace();
}

struct killer {
	pid_t pid;
	uint64_t delay_ns;
};

static void *
killer_thread(void *arg)
{
	struct killer *k = arg;
	struct timespec ts = { 0, (long)k->delay_ns };
	nanosleep(&ts, NULL);
	kill(k->pid, SIGKILL);
	return NULL;
}

/* Killed from another thread while the guest spins (no CPU: no kick). */
TEST(trap_stub_killed_running)
{
	struct vmt v;
	pthread_t th;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(trap_spin));
	vmt_stack(&v);
	struct killer k = { vmt_host(&v)->pid, 50000000 };
	REQUIRE(pthread_create(&th, NULL, killer_thread, &k) == 0);
	uint64_t t0 = host_nanotime();
	CHECK_EQ(vmt_run(&v), T_DEAD);
	/* 50 ms to the kill, then at most a 20 ms poll: 2 s is generous. */
	CHECK(host_nanotime() - t0 < 2000000000UL);
	pthread_join(th, NULL);
	vmt_destroy(&v);
	check_fresh_vmspace();
}

/*
 * FPU state.  The data page layout is guest_traps.S's trap_fpu.
 */
#define FPU_IN		0
#define FPU_OUT		1024
#define FPU_FRESH	2048
#define FPU_MXCSR	512
#define FPU_FCW		516

struct fpu_pattern {
	uint8_t seed;
	uint32_t mxcsr;
	uint16_t fcw;
};

static const struct fpu_pattern PAT_A = { 0x11, 0xbf80, 0x027f };	/* FZ, round down */
static const struct fpu_pattern PAT_B = { 0x99, 0x5f80, 0x0f7f };	/* round up */

static uint8_t
pat_byte(const struct fpu_pattern *p, int reg, int byte)
{
	return (uint8_t)(p->seed + reg * 32 + byte * 3 + (byte >> 4) * 0x55);
}

static int
have_avx(void)
{
	__builtin_cpu_init();
	return __builtin_cpu_supports("avx");
}

/* Maps the data page at va for a thread with pattern p. */
static uint8_t *
fpu_data(struct vmt *v, uint64_t va, const struct fpu_pattern *p)
{
	uint8_t *d = PHYS_TO_DMAP(data_page(v, va));
	for (int r = 0; r < 16; r++)
		for (int b = 0; b < 32; b++)
			d[FPU_IN + r * 32 + b] = pat_byte(p, r, b);
	memcpy(d + FPU_IN + FPU_MXCSR, &p->mxcsr, 4);
	memcpy(d + FPU_IN + FPU_FCW, &p->fcw, 2);
	memset(d + FPU_OUT, 0xee, 2048);
	return d;
}

/* Checks the registers the guest stored at off against p (NULL: reset state). */
static void
fpu_check(const uint8_t *d, int off, const struct fpu_pattern *p, int avx,
    const char *what)
{
	int before = unit_failed_now();
	int width = avx ? 32 : 16;
	for (int r = 0; r < 16; r++)
		for (int b = 0; b < width; b++) {
			uint8_t want = p ? pat_byte(p, r, b) : 0;
			if (d[off + r * 32 + b] != want) {
				unit_fail(__FILE__, __LINE__,
				    "%s: %cmm%d byte %d is %#x, expected %#x",
				    what, avx ? 'y' : 'x', r, b,
				    d[off + r * 32 + b], want);
				r = 16;
				break;
			}
		}
	uint32_t mxcsr;
	uint16_t fcw;
	memcpy(&mxcsr, d + off + FPU_MXCSR, 4);
	memcpy(&fcw, d + off + FPU_FCW, 2);
	CHECK_EQ(mxcsr, p ? p->mxcsr : 0x1f80);
	CHECK_EQ(fcw, p ? p->fcw : 0x037f);
	if (!before && unit_failed_now())
		fprintf(stderr, "    (in %s)\n", what);
}

TEST(trap_fpu_two_vmspaces)
{
	struct vmt *a = malloc(sizeof(*a)), *b = malloc(sizeof(*b));
	int avx = have_avx();
	REQUIRE(a != NULL && b != NULL);
	REQUIRE(vmt_create(a, NULL) == 0);
	REQUIRE(vmt_create(b, NULL) == 0);
	vmt_code(a, GUEST_CODE(trap_fpu));
	vmt_code(b, GUEST_CODE(trap_fpu));
	vmt_stack(a);
	vmt_stack(b);
	uint8_t *da = fpu_data(a, VMT_DATA, &PAT_A);
	uint8_t *db = fpu_data(b, VMT_DATA, &PAT_B);
	a->tf.tf_r15 = b->tf.tf_r15 = VMT_DATA;
	a->tf.tf_rbx = b->tf.tf_rbx = (uint64_t)avx;

	CHECK_EQ(vmt_run(a), T_SYSCALL);	/* A loaded pattern A */
	CHECK_EQ(a->tf.tf_rax, 1000);
	CHECK_EQ(vmt_run(b), T_SYSCALL);	/* B loaded pattern B */
	CHECK_EQ(b->tf.tf_rax, 1000);
	CHECK_EQ(vmt_run(a), T_SYSCALL);	/* A stored its registers */
	CHECK_EQ(a->tf.tf_rax, 1001);
	fpu_check(da, FPU_OUT, &PAT_A, avx, "vmspace A");
	CHECK_EQ(vmt_run(b), T_SYSCALL);
	CHECK_EQ(b->tf.tf_rax, 1001);
	fpu_check(db, FPU_OUT, &PAT_B, avx, "vmspace B");
	vmt_destroy(a);
	vmt_destroy(b);
	free(a);
	free(b);
}

/* Offset of the YMM_Hi128 component in the standard XSAVE format. */
static unsigned
xsave_ymm_offset(void)
{
	unsigned eax, ebx, ecx, edx;
	if (!__get_cpuid_count(0xd, 2, &eax, &ebx, &ecx, &edx))
		return 0;
	return ebx;
}

/*
 * Two guest threads of one vmspace: the kernel switches between them with
 * FPSAVE and PGEX_FPFAULT, as it will on a context switch.
 */
TEST(trap_fpu_thread_switch)
{
	struct vmt *v = malloc(sizeof(*v));
	struct vextframe *vf2 = aligned_alloc(64, sizeof(*vf2));
	struct trapframe tf2;
	int avx = have_avx();

	REQUIRE(v != NULL && vf2 != NULL);
	memset(vf2, 0, sizeof(*vf2));		/* FS/GS bases 0 */
	REQUIRE(vmt_create(v, NULL) == 0);
	vmt_code(v, GUEST_CODE(trap_fpu));
	vmt_stack(v);
	uint8_t *d1 = fpu_data(v, VMT_DATA, &PAT_A);
	uint8_t *d2 = fpu_data(v, VMT_DATA + PAGE_SIZE, &PAT_B);

	/* Thread 1 loads pattern A and traps. */
	v->tf.tf_r15 = VMT_DATA;
	v->tf.tf_rbx = (uint64_t)avx;
	CHECK_EQ(vmt_run(v), T_SYSCALL);
	CHECK_EQ(v->tf.tf_rax, 1000);
	memset(v->vf.vx_fpu, 0xcc, sizeof(v->vf.vx_fpu));
	REQUIRE(vmspace_ctl(v, VMSPACE_CTL_FPSAVE, NULL, &v->vf) == 0);

	/* The saved image holds pattern A where XSAVE puts it. */
	const uint8_t *img = v->vf.vx_fpu;
	uint16_t fcw;
	uint32_t mxcsr;
	memcpy(&fcw, img + 0, 2);
	memcpy(&mxcsr, img + 24, 4);
	CHECK_EQ(fcw, PAT_A.fcw);
	CHECK_EQ(mxcsr, PAT_A.mxcsr);
	for (int r = 0; r < 16; r++)
		for (int b = 0; b < 16; b++)
			if (img[160 + 16 * r + b] != pat_byte(&PAT_A, r, b)) {
				unit_fail(__FILE__, __LINE__, "FPSAVE xmm%d byte %d", r, b);
				r = 16;
				break;
			}
	unsigned yoff = xsave_ymm_offset();
	if (avx && yoff != 0 && yoff + 256 <= VX_FPU_SIZE) {
		uint64_t bv;
		memcpy(&bv, img + 512, 8);
		CHECK(bv & 4);
		for (int r = 0; r < 16; r++)
			for (int b = 0; b < 16; b++)
				if (img[yoff + 16 * r + b] != pat_byte(&PAT_A, r, 16 + b)) {
					unit_fail(__FILE__, __LINE__,
					    "FPSAVE ymm%d high byte %d", r, b);
					r = 16;
					break;
				}
	}

	/* Thread 2, fresh: must find the reset state, not thread 1's. */
	memset(&tf2, 0, sizeof(tf2));
	vmspace_fpu_init(vf2);
	tf2.tf_rip = VMT_CODE + GUEST_OFF(trap_fpu, trap_fpu_fresh);
	tf2.tf_rsp = VMT_STACK - 2048;
	tf2.tf_rflags = 0x202;
	tf2.tf_r15 = VMT_DATA + PAGE_SIZE;
	tf2.tf_rbx = (uint64_t)avx;
	tf2.tf_xflags = PGEX_FPFAULT;
	REQUIRE(vmspace_ctl(v, VMSPACE_CTL_RUN, &tf2, vf2) == 0);
	CHECK_EQ(tf2.tf_trapno, T_SYSCALL);
	CHECK_EQ(tf2.tf_rax, 1000);
	fpu_check(d2, FPU_FRESH, NULL, avx, "fresh thread 2");
	REQUIRE(vmspace_ctl(v, VMSPACE_CTL_FPSAVE, NULL, vf2) == 0);

	/* Thread 1 again: its own state comes back. */
	v->tf.tf_xflags = PGEX_FPFAULT;
	CHECK_EQ(vmt_run(v), T_SYSCALL);
	CHECK_EQ(v->tf.tf_rax, 1001);
	fpu_check(d1, FPU_OUT, &PAT_A, avx, "thread 1 after the switch");
	REQUIRE(vmspace_ctl(v, VMSPACE_CTL_FPSAVE, NULL, &v->vf) == 0);

	/* Thread 2 again. */
	tf2.tf_xflags = PGEX_FPFAULT;
	REQUIRE(vmspace_ctl(v, VMSPACE_CTL_RUN, &tf2, vf2) == 0);
	CHECK_EQ(tf2.tf_trapno, T_SYSCALL);
	CHECK_EQ(tf2.tf_rax, 1001);
	fpu_check(d2, FPU_OUT, &PAT_B, avx, "thread 2 after the switch");

	vmt_destroy(v);
	free(v);
	free(vf2);
}
