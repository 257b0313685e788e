/*
 * The host-layer benchmark (make bench): what a trap into the vkernel and
 * a page fault cost through the trap backend, in both placements, beside
 * the floor this design cannot beat, measured in the same run: a native
 * getpid, an in-process seccomp SIGSYS trap (its delivery to the handler
 * and its return by rt_sigreturn timed apart, and the same trap resumed
 * by a jump as the stub resumes it: stub_entry.S, stub_sig_resume), and
 * a futex hand-off between two processes.  Figures only; nothing here is
 * asserted.
 *
 * Each figure is the median over runs of each run's median sample (with
 * the range of the run medians), in microseconds.
 */
#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/cpu.h"
#include "host/hostsync.h"
#include "tests/unit/vmtest.h"

#define MAXRUNS		15
#define NSYSCALL	20000
#define NFAULT		2000
#define BENCH_RES	0x20000000UL	/* guest VA of the timing results */
#define SPIN_NS		20000

GUEST(bench_syscalls);
GUEST(bench_touch);

enum { B_GETPID, B_SIGSYS, B_SIGSYS_IN, B_SIGSYS_OUT, B_SIGSYS_JUMP,
	B_SIGSYS_JOUT, B_HANDOFF, B_FLOOR, B_SYSCALL, B_FAULT_FILL,
	B_FAULT_VALID, B_UPGRADE, B_SEQ_READ, B_NFIG };

static const char *const fig_names[B_NFIG] = {
	"native getpid",
	"in-process seccomp SIGSYS trap",
	"  its delivery, syscall to handler",
	"  its rt_sigreturn, handler to caller",
	"SIGSYS trap resumed by a jump, no sigreturn",
	"  its resume (XRSTOR, flags, jmp)",
	"futex hand-off round trip, 2 processes",
	"floor: SIGSYS trap (jump) + hand-off",
	"vmspace syscall round trip",
	"fault, no VPTE -> kernel fills -> resumed",
	"fault on a valid VPTE, served in backend",
	"read->write upgrade (sets VPTE_M)",
	"sequential first read, per page",
};

static int nruns = 5;
static double fig[2][B_NFIG][MAXRUNS];	/* [placement][figure][run], us */
static uint64_t *pool;			/* physical pages for data */
static double tsc_us;

static int
cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Median of n TSC tick samples, in microseconds. */
static double
median_us(uint64_t *s, size_t n)
{
	qsort(s, n, sizeof(*s), cmp_u64);
	return (double)s[n / 2] / tsc_us;
}

static void
pin(int core)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(core, &set);
	sched_setaffinity(0, sizeof(set), &set);
}

static double
bench_getpid(void)
{
	static uint64_t s[NSYSCALL];
	for (int i = 0; i < NSYSCALL; i++) {
		uint64_t t0 = host_rdtsc();
		syscall(SYS_getppid);
		s[i] = host_rdtsc() - t0;
	}
	return median_us(s, NSYSCALL);
}

/*
 * sigsys_jump(uc): the stub's resume without rt_sigreturn, for a frame
 * whose rcx is its rip (stub_entry.S, stub_sig_resume, without its
 * checks and kick): the frame's XSAVE image, the flags rt_sigreturn
 * takes, the registers, a jump through rcx.
 */
void sigsys_jump(void *uc) __attribute__((noreturn));
__asm__(
	".text\n"
	"sigsys_jump:\n"
	"	mov %rdi, %rsp\n"
	"	mov 224(%rsp), %rsi\n"		/* uc_mcontext.fpregs */
	"	mov 472(%rsi), %eax\n"		/* its software bytes' xfeatures */
	"	mov 476(%rsi), %edx\n"
	"	xrstor64 (%rsi)\n"
	"	pushfq\n"
	"	pop %rdx\n"
	"	and $~0x50dd5, %rdx\n"
	"	mov 40+17*8(%rsp), %rax\n"
	"	and $0x50dd5, %rax\n"
	"	or %rdx, %rax\n"
	"	mov %rax, -8(%rsp)\n"
	"	mov 40+0*8(%rsp), %r8\n mov 40+1*8(%rsp), %r9\n"
	"	mov 40+2*8(%rsp), %r10\n mov 40+3*8(%rsp), %r11\n"
	"	mov 40+4*8(%rsp), %r12\n mov 40+5*8(%rsp), %r13\n"
	"	mov 40+6*8(%rsp), %r14\n mov 40+7*8(%rsp), %r15\n"
	"	mov 40+8*8(%rsp), %rdi\n mov 40+9*8(%rsp), %rsi\n"
	"	mov 40+10*8(%rsp), %rbp\n mov 40+11*8(%rsp), %rbx\n"
	"	mov 40+12*8(%rsp), %rdx\n mov 40+13*8(%rsp), %rax\n"
	"	mov 40+16*8(%rsp), %rcx\n"
	"	lea -8(%rsp), %rsp\n"
	"	popfq\n"
	"	mov 40+15*8(%rsp), %rsp\n"
	"	jmp *%rcx\n");

static volatile uint64_t sigsys_in, sigsys_out;
static int sigsys_by_jump;

static void
sigsys_handler(int sig, siginfo_t *si, void *ucp)
{
	(void)sig, (void)si;
	sigsys_in = host_rdtsc();
	((ucontext_t *)ucp)->uc_mcontext.gregs[REG_RAX] = 0;
	sigsys_out = host_rdtsc();
	if (sigsys_by_jump)
		sigsys_jump(ucp);
}

/*
 * A child traps getppid to itself with seccomp and times the round trip,
 * its delivery and its return, resumed by rt_sigreturn, then by a jump
 * (SA_NODEFER and no mask, as the stub's SIGSYS: the handler runs with
 * the caller's mask, which stays).  Fills f[B_SIGSYS..B_SIGSYS_JOUT].
 */
static void
bench_sigsys(double *f)
{
	enum { TOTAL, IN, OUT, NPART };
	uint64_t *s = mmap(NULL, 2 * NPART * NSYSCALL * 8, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		struct sock_filter f[] = {
			BPF_STMT(BPF_LD | BPF_W | BPF_ABS, 0),
			BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
			BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		};
		struct sock_fprog prog = { 4, f };
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = sigsys_handler;
		sa.sa_flags = SA_SIGINFO | SA_NODEFER;
		sigaction(SIGSYS, &sa, NULL);
		pin(0);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0)
			_exit(1);
		for (int m = 0; m < 2; m++) {
			uint64_t *sm = s + m * NPART * NSYSCALL;
			sigsys_by_jump = m;
			for (int i = 0; i < NSYSCALL; i++) {
				uint64_t t0 = host_rdtsc();
				syscall(SYS_getppid);
				uint64_t t1 = host_rdtsc();
				sm[TOTAL * NSYSCALL + i] = t1 - t0;
				sm[IN * NSYSCALL + i] = sigsys_in - t0;
				sm[OUT * NSYSCALL + i] = t1 - sigsys_out;
			}
		}
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	for (int m = 0; m < 2; m++) {
		uint64_t *sm = s + m * NPART * NSYSCALL;
		double *fm = &f[m == 0 ? B_SIGSYS : B_SIGSYS_JUMP];
		for (int p = 0; p < NPART; p++) {
			if (m == 1 && p == IN)
				continue;
			double v = status == 0 ? median_us(sm + p * NSYSCALL, NSYSCALL) : -1;
			*fm++ = v;
		}
	}
	munmap(s, 2 * NPART * NSYSCALL * 8);
}

/* Waits for WW_POSTED on w: spins for spin_ns, then sleeps. */
static void
handoff_wait(uint32_t *w, uint64_t spin_ns)
{
	uint64_t t0 = host_nanotime();
	while (!(__atomic_load_n(w, __ATOMIC_ACQUIRE) & WW_POSTED)) {
		if (host_nanotime() - t0 < spin_ns)
			cpu_relax();
		else
			ww_sleep(w, WW_POSTED, NULL);
	}
	__atomic_store_n(w, 0, __ATOMIC_RELEASE);
}

/* Ping-pong between two processes with the stubs' own wait protocol. */
static double
bench_handoff(enum cpu_placement place)
{
	int other = place == CPU_PLACE_LATENCY ? 1 : 0;
	uint64_t spin = place == CPU_PLACE_LATENCY ? SPIN_NS : 0;
	uint32_t *w = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	static uint64_t s[NSYSCALL];

	w[0] = w[1] = 0;
	pid_t pid = fork();
	if (pid == 0) {
		pin(other);
		for (int i = 0; i < NSYSCALL; i++) {
			handoff_wait(&w[0], spin);
			ww_post(&w[1], WW_POSTED);
		}
		_exit(0);
	}
	pin(0);
	for (int i = 0; i < NSYSCALL; i++) {
		uint64_t t0 = host_rdtsc();
		ww_post(&w[0], WW_POSTED);
		handoff_wait(&w[1], spin);
		s[i] = host_rdtsc() - t0;
	}
	waitpid(pid, NULL, 0);
	munmap(w, 4096);
	return median_us(s, NSYSCALL);
}

static void
bench_vm(struct vmt *v, const char *code, size_t len)
{
	if (vmt_create(v, NULL) < 0) {
		perror("vmspace_create");
		exit(1);
	}
	vmt_code(v, code, len);
	vmt_stack(v);
	for (uint64_t off = 0; off < NFAULT * 8; off += PAGE_SIZE)
		vmt_map(v, BENCH_RES + off, vmt_page(),
		    VPTE_USER_RW | VPTE_A | VPTE_M | VPTE_NX);
}

static double
bench_syscall(void)
{
	static uint64_t s[NSYSCALL];
	struct vmt v;

	bench_vm(&v, GUEST_CODE(bench_syscalls));
	v.tf.tf_rdi = NSYSCALL + 100;
	uint64_t last = 0;
	for (int i = -100; i < NSYSCALL; i++) {
		if (vmt_run(&v) != T_SYSCALL || v.tf.tf_rax != 39)
			abort();
		uint64_t now = host_rdtsc();
		if (i >= 0)
			s[i] = now - last;
		last = now;
		v.tf.tf_rax = 4242;
	}
	vmt_destroy(&v);
	return median_us(s, NSYSCALL);
}

/* Sets up a touch of NFAULT pages from va with stride; returns the vm. */
static void
bench_touch_setup(struct vmt *v, uint64_t va, uint64_t stride, int write)
{
	bench_vm(v, GUEST_CODE(bench_touch));
	v->tf.tf_rdi = va;
	v->tf.tf_rsi = NFAULT;
	v->tf.tf_rdx = stride;
	v->tf.tf_r8 = BENCH_RES;
	v->tf.tf_r9 = (uint64_t)write;
}

/* Runs the touch loop to its final syscall; copies out its samples. */
static void
bench_touch_run(struct vmt *v, uint64_t *s)
{
	int t = vmt_run(v);
	if (t != T_SYSCALL || v->tf.tf_rax != 1000) {
		fprintf(stderr, "bench: unexpected trap %d at %#lx\n", t,
		    (unsigned long)v->tf.tf_addr);
		exit(1);
	}
	for (uint64_t off = 0; off < NFAULT * 8; off += PAGE_SIZE) {
		uint64_t n = NFAULT * 8 - off < PAGE_SIZE ? NFAULT * 8 - off : PAGE_SIZE;
		memcpy((uint8_t *)s + off,
		    PHYS_TO_DMAP(*vmt_pte(v, BENCH_RES + off) & VPTE_FRAME), n);
	}
}

/* First writes with no VPTE: each faults to the "kernel", which fills it. */
static double
bench_fault_fill(void)
{
	static uint64_t s[NFAULT];
	struct vmt v;
	int n = 0;

	bench_touch_setup(&v, VMT_DATA, PAGE_SIZE, 1);
	uint64_t last = host_rdtsc();
	for (;;) {
		int t = vmt_run(&v);
		uint64_t now = host_rdtsc();
		if (t == T_SYSCALL)
			break;
		if (t != T_PAGEFLT || n == NFAULT)
			abort();
		uint64_t page = v.tf.tf_addr & ~PAGE_MASK;
		vmt_map(&v, page, pool[(page - VMT_DATA) / PAGE_SIZE],
		    VPTE_USER_RW | VPTE_A | VPTE_M | VPTE_NX);
		s[n++] = now - last;
		last = now;
	}
	vmt_destroy(&v);
	return median_us(s, (size_t)n);
}

/* Valid VPTEs 64 KiB apart, so fault-around finds nothing to add. */
static double
bench_fault_valid(int upgrade)
{
	const uint64_t stride = 16 * PAGE_SIZE;
	static uint64_t s[NFAULT];
	struct vmt v;

	bench_touch_setup(&v, VMT_DATA, stride, upgrade);
	for (int i = 0; i < NFAULT; i++)
		vmt_map(&v, VMT_DATA + i * stride, pool[i],
		    VPTE_USER_RW | VPTE_NX | (upgrade ? VPTE_A : 0));
	if (upgrade) {
		/* Map them all read-only (a read pass), then time the writes. */
		v.tf.tf_r9 = 0;
		bench_touch_run(&v, s);
		v.tf.tf_rip = VMT_CODE;
		v.tf.tf_rdi = VMT_DATA;
		v.tf.tf_rsi = NFAULT;
		v.tf.tf_rdx = stride;
		v.tf.tf_r8 = BENCH_RES;
		v.tf.tf_r9 = 1;
	}
	bench_touch_run(&v, s);
	vmt_destroy(&v);
	return median_us(s, NFAULT);
}

/* Contiguous pages read in order: fault-around maps 8 per fault. */
static double
bench_seq_read(void)
{
	static uint64_t s[NFAULT];
	struct vmt v;
	uint64_t sum = 0;

	bench_touch_setup(&v, VMT_DATA, PAGE_SIZE, 0);
	for (int i = 0; i < NFAULT; i++)
		vmt_map(&v, VMT_DATA + i * PAGE_SIZE, pool[i], VPTE_USER_RW | VPTE_NX);
	bench_touch_run(&v, s);
	vmt_destroy(&v);
	for (int i = 0; i < NFAULT; i++)
		sum += s[i];
	return (double)sum / NFAULT / tsc_us;	/* the mean is the cost per page */
}

struct bench_arg {
	enum cpu_placement place;
	int col;
};

static void
bench_cpu(struct vcpu *cpu, void *argp)
{
	struct bench_arg *a = argp;
	(void)cpu;
	for (int r = 0; r < nruns; r++) {
		fig[a->col][B_SYSCALL][r] = bench_syscall();
		fig[a->col][B_FAULT_FILL][r] = bench_fault_fill();
		fig[a->col][B_FAULT_VALID][r] = bench_fault_valid(0);
		fig[a->col][B_UPGRADE][r] = bench_fault_valid(1);
		fig[a->col][B_SEQ_READ][r] = bench_seq_read();
	}
}

static void
print_row(const char *name, int f)
{
	printf("%-44s", name);
	for (int col = 0; col < 2; col++) {
		double v[MAXRUNS];
		memcpy(v, fig[col][f], sizeof(v));
		qsort(v, (size_t)nruns, sizeof(double), cmp_double);
		char cell[64];
		snprintf(cell, sizeof(cell), "%.2f [%.2f..%.2f]", v[nruns / 2],
		    v[0], v[nruns - 1]);
		printf(" %-24s", cell);
	}
	printf("\n");
}

static double
med(int col, int f)
{
	double v[MAXRUNS];
	memcpy(v, fig[col][f], sizeof(v));
	qsort(v, (size_t)nruns, sizeof(double), cmp_double);
	return v[nruns / 2];
}

int
main(int argc, char **argv)
{
	static const enum cpu_placement places[2] = { CPU_PLACE_LATENCY,
	    CPU_PLACE_DENSITY };

	if (argc > 1)
		nruns = atoi(argv[1]);
	if (nruns < 1 || nruns > MAXRUNS) {
		fprintf(stderr, "usage: hostbench [runs 1..%d]\n", MAXRUNS);
		return 2;
	}
	cpu_set_t all;
	sched_getaffinity(0, sizeof(all), &all);
	tsc_us = (double)host_tsc_per_us();
	vmt_ram();
	pool = calloc(NFAULT, sizeof(*pool));
	for (int i = 0; i < NFAULT; i++)
		pool[i] = vmt_page();

	for (int col = 0; col < 2; col++) {
		struct bench_arg a = { places[col], col };
		for (int r = 0; r < nruns; r++) {
			pin(0);
			fig[col][B_GETPID][r] = bench_getpid();
			double f[B_NFIG];
			bench_sigsys(f);
			for (int i = B_SIGSYS; i <= B_SIGSYS_JOUT; i++)
				fig[col][i][r] = f[i];
			fig[col][B_HANDOFF][r] = bench_handoff(places[col]);
			fig[col][B_FLOOR][r] = fig[col][B_SIGSYS_JUMP][r] +
			    fig[col][B_HANDOFF][r];
		}
		/* The CPUs are placed among the cores we may use: all of them. */
		sched_setaffinity(0, sizeof(all), &all);
		if (cpu_configure(1, places[col], 0) < 0 ||
		    cpu_start(bench_cpu, &a) < 0) {
			perror("cpu");
			return 1;
		}
		cpu_join();
	}

	printf("host layer, trap backend: median of %d runs [range of run medians], us\n",
	    nruns);
	printf("%-44s %-24s %-24s\n", "", "latency placement", "density placement");
	for (int f = 0; f < B_NFIG; f++)
		print_row(fig_names[f], f);
	printf("%-44s %-24.2f %-24.2f\n", "syscall round trip / floor",
	    med(0, B_SYSCALL) / med(0, B_FLOOR), med(1, B_SYSCALL) / med(1, B_FLOOR));
	return 0;
}
