/*
 * abifuzz SEED COUNT [FIRST]: a fuzzer of the trap backend's ABI, from inside.
 *
 * The stub shares each guest process's host address space (host/trap/
 * stub_abi.h): its text, the read-only command pages, the read-write
 * sync and thread pages and the signal stack all sit above the guest's
 * range, where plain loads, stores and jumps reach them.  Each of COUNT
 * children, as uid 65534 in its own process group, does one hostile thing
 * chosen by SEED and its index:
 *
 *   leap     jump into the stub's text at a random offset (or one of its
 *            entry points, or its syscall instructions) with every
 *            general register, the stack pointer and the flags random
 *   scribble random words into the sync and thread pages and the signal
 *            stack, then trap
 *   forge    post a forged report: a made-up frame on the signal stack
 *            (random registers, FPU pointer and xstate header), the
 *            report word set by hand, the frame rewritten while the
 *            vkernel reads it
 *   sigret   rt_sigreturn through the stub's restorer with a forged
 *            frame: random mask (the kick blocked), code segment, flags,
 *            FPU pointer; resuming in a spin, a futex wait on the stub's
 *            words, or a random address
 *   syscall  system calls with random numbers and arguments, pointers into
 *            the stub's region among them
 *   code     random bytes executed with random registers
 *
 * Each child must die or exit; the parent reaps it (killing it after
 * a few seconds) and counts the outcomes.  FIRST reruns from one child
 * on (the same seed gives the same children); ABIFUZZ_VERBOSE=1 names
 * each child's action.  What is tested is that the
 * kernel survives: the parent finishes and prints its tally, and the
 * machine answers afterwards.
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The stub's layout (host/trap/stub_abi.h); copied, as a guest would. */
#define STUB_BASE	0x00007fff00000000UL
#define STUB_TEXT	(STUB_BASE + 0x1000)
#define STUB_TEXT_SIZE	0x800UL
#define STUB_RESTORER	(STUB_TEXT + 0x40)	/* mov $15,%eax; syscall */
#define STUB_MAPPER	(STUB_TEXT + 0x80)
#define STUB_CMD	(STUB_BASE + 0x100000)
#define STUB_SYNC	(STUB_CMD + 16 * 4096)
#define STUB_THREAD	(STUB_SYNC + 4096)
#define STUB_ALTSTACK	(STUB_THREAD + 4096)
#define STUB_END	(STUB_THREAD + 64 * 4096)

#define SIGKICK		10
#define CHILD_LIMIT_S	2

/* Per child: a xorshift64 sequence from the seed and the child's index. */
static uint64_t rs;

static uint64_t
rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static uint64_t
pick(const uint64_t *v, size_t n)
{
	return v[rnd() % n];
}
#define PICK(...) pick((const uint64_t[]){ __VA_ARGS__ }, \
    sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))

static char stack_area[65536] __attribute__((aligned(64)));

/* A value for a register or an argument: an edge, a stub address, or noise. */
static uint64_t
value(void)
{
	switch (rnd() % 8) {
	case 0: return PICK(0, 1, -1UL, 0x7fffffffffffffffUL, 0x8000000000000000UL,
	    0xffff800000000000UL, 0x00007fffffffffffUL, 4096);
	case 1: return STUB_TEXT + rnd() % STUB_TEXT_SIZE;
	case 2: return STUB_CMD + rnd() % (STUB_END - STUB_CMD);
	case 3: return STUB_THREAD + (rnd() % 16) * 8;
	case 4: return (uint64_t)stack_area + rnd() % sizeof(stack_area);
	case 5: return rnd() & 0xffff;
	case 6: return STUB_BASE - rnd() % 8192;
	default: return rnd();
	}
}

/* leap's registers: rax rbx rcx rdx rsi rdi rbp r8-r15, rsp, flags, rip. */
uint64_t fz_regs[19];

static __attribute__((noreturn)) void
leap(void)
{
	__asm__ volatile(
	    "pushq fz_regs+136(%rip)\n\tpopfq\n\t"
	    "mov fz_regs+8(%rip), %rbx\n\tmov fz_regs+16(%rip), %rcx\n\t"
	    "mov fz_regs+24(%rip), %rdx\n\tmov fz_regs+32(%rip), %rsi\n\t"
	    "mov fz_regs+40(%rip), %rdi\n\tmov fz_regs+48(%rip), %rbp\n\t"
	    "mov fz_regs+56(%rip), %r8\n\tmov fz_regs+64(%rip), %r9\n\t"
	    "mov fz_regs+72(%rip), %r10\n\tmov fz_regs+80(%rip), %r11\n\t"
	    "mov fz_regs+88(%rip), %r12\n\tmov fz_regs+96(%rip), %r13\n\t"
	    "mov fz_regs+104(%rip), %r14\n\tmov fz_regs+112(%rip), %r15\n\t"
	    "mov fz_regs+128(%rip), %rsp\n\tmov fz_regs+0(%rip), %rax\n\t"
	    "jmp *fz_regs+144(%rip)");
	__builtin_unreachable();
}

static void
random_regs(void)
{
	for (int i = 0; i < 16; i++)
		fz_regs[i] = value();
	fz_regs[16] = PICK((uint64_t)stack_area + sizeof(stack_area) - 256,
	    STUB_ALTSTACK + rnd() % (STUB_END - STUB_ALTSTACK), STUB_THREAD,
	    STUB_CMD + 4096, STUB_END, 0, value());
	fz_regs[17] = rnd() & 0x244dd5;	/* CF PF AF ZF SF TF DF OF AC ID ... */
	if (rnd() % 4)
		fz_regs[17] &= ~0x100UL;	/* mostly without single-step */
}

static void
do_leap(void)
{
	random_regs();
	switch (rnd() % 6) {
	case 0: fz_regs[18] = PICK(STUB_TEXT, STUB_RESTORER, STUB_MAPPER); break;
	case 1:	/* the syscall instructions of the restorer and the mapper */
		fz_regs[18] = PICK(STUB_RESTORER + 5, STUB_MAPPER + 0x13);
		fz_regs[0] = PICK(15, 202, 158, 1, 9, 10, 11, 60, 231, rnd() % 450);
		break;
	default: fz_regs[18] = STUB_TEXT + rnd() % STUB_TEXT_SIZE; break;
	}
	leap();
}

/* Traps once more, whatever state the stub words are in. */
static void
trap_somehow(void)
{
	switch (rnd() % 3) {
	case 0: syscall(SYS_getpid); break;
	case 1: *(volatile int *)(uintptr_t)(rnd() & 0xfffff000) = 1; break;
	default: __asm__ volatile("int3"); break;
	}
}

static void
do_scribble(void)
{
	for (int n = 1 + rnd() % 32; n > 0; n--) {
		uint64_t *p;
		switch (rnd() % 4) {
		case 0: p = (uint64_t *)(STUB_SYNC + (rnd() % 16) * 8); break;
		case 1: p = (uint64_t *)(STUB_THREAD + (rnd() % 12) * 8); break;
		case 2: p = (uint64_t *)(STUB_ALTSTACK + (rnd() % (STUB_END -
		    STUB_ALTSTACK)) / 8 * 8); break;
		default: p = (uint64_t *)(STUB_END - 8 - (rnd() % 4096) / 8 * 8); break;
		}
		*p = value();
	}
	trap_somehow();
}

/*
 * A kernel-style signal frame: ucontext then siginfo.  The layout is the
 * host kernel's (struct ucontext, struct sigcontext on x86-64).
 */
struct kframe {
	uint64_t uc_flags, uc_link;
	uint64_t ss_sp, ss_flags, ss_size;
	/* r8-r15 rdi rsi rbp rbx rdx rax rcx rsp rip eflags csgsfs err trapno
	 * oldmask cr2 */
	uint64_t gregs[23];
	uint64_t fpregs;
	uint64_t reserved[8];
	uint64_t sigmask;
};

static void
random_frame(struct kframe *f, uint64_t base)
{
	memset(f, 0, sizeof(*f));
	for (int i = 0; i < 23; i++)
		f->gregs[i] = value();
	f->gregs[17] = rnd() & 0x244dd5 & ~0x100UL;	/* eflags */
	f->gregs[18] = PICK(0x33, 0x23, 0x2b, rnd() & 0xffff) |	/* cs */
	    (rnd() % 2 ? 0 : PICK(0x2b, rnd() & 0xffff) << 48);		/* ss */
	f->uc_flags = PICK(0, 2, 4, 6, rnd());
	f->sigmask = PICK(1UL << (SIGKICK - 1), -1UL, 0, rnd());
	/* The FPU pointer: none, somewhere near the frame, or wild. */
	f->fpregs = PICK(0, base + 1024, base + 1024 + (rnd() % 64), value());
}

static __attribute__((noreturn)) void
spin_then_exit(void)
{
	for (volatile uint64_t i = 0; i < 20000000; i++)
		;
	syscall(SYS_exit, 3);
	for (;;)
		;
}

static void
fill_xstate(uint8_t *x)
{
	memset(x, 0, 1024);
	*(uint32_t *)(x + 24) = 0x1f80;		/* mxcsr */
	*(uint32_t *)(x + 28) = (uint32_t)PICK(0xffff, 0, rnd());
	*(uint32_t *)(x + 464) = (uint32_t)PICK(0x46505853, rnd());	/* magic1 */
	*(uint32_t *)(x + 468) = (uint32_t)PICK(1024, 576, 512, rnd());
	*(uint64_t *)(x + 472) = PICK(3, 7, -1UL, rnd());
	*(uint32_t *)(x + 480) = (uint32_t)PICK(1024, 576, 513, 0x100000, rnd());
	*(uint64_t *)(x + 512) = PICK(3, 7, -1UL, rnd());		/* xstate_bv */
}

static void
do_forge(void)
{
	volatile uint64_t *t = (volatile uint64_t *)STUB_THREAD;
	uint64_t base = STUB_ALTSTACK + (rnd() % 60) * 4096 + (rnd() % 64) * 8;
	struct kframe *f = (struct kframe *)(uintptr_t)base;

	random_frame(f, base);
	fill_xstate((uint8_t *)(uintptr_t)(base + 1024));
	t[1] = PICK(31, 11, 7, 4, 8, 5, SIGKICK, rnd());	/* signo */
	t[2] = PICK(base + 2048, base + 2048 + rnd() % 64, value());	/* siginfo */
	t[3] = PICK(base, base + 4, value());			/* ucontext */
	((volatile uint32_t *)(uintptr_t)(base + 2048))[2] = (uint32_t)PICK(1, 2, 0x80, rnd());
	((volatile uint32_t *)(uintptr_t)(base + 2048))[6] = (uint32_t)PICK(0xc000003e, 0x40000003, rnd());
	__atomic_or_fetch((uint32_t *)STUB_THREAD, 1, __ATOMIC_SEQ_CST);
	/* Keep changing the frame while the vkernel reads it. */
	for (int i = 0; i < 2000; i++) {
		((volatile uint64_t *)f)[rnd() % 64] = value();
		if (rnd() % 64 == 0)
			__atomic_or_fetch((uint32_t *)STUB_THREAD, 1, __ATOMIC_SEQ_CST);
	}
	trap_somehow();
}

/* futex(stub reply word, FUTEX_WAIT, 0) from the stub's own syscall. */
static __attribute__((noreturn)) void
futex_from_stub(void)
{
	__asm__ volatile(
	    "mov $202, %%eax\n\tmov %0, %%rdi\n\txor %%esi, %%esi\n\t"
	    "xor %%edx, %%edx\n\txor %%r10d, %%r10d\n\tjmp *%1"
	    : : "r"(STUB_THREAD + 4), "r"(STUB_RESTORER + 5));
	__builtin_unreachable();
}

static void
do_sigret(void)
{
	uint64_t sp = ((uint64_t)stack_area + sizeof(stack_area) / 2) & ~15UL;
	struct kframe *f = (struct kframe *)(uintptr_t)sp;

	random_frame(f, sp);
	if (f->fpregs == sp + 1024)
		fill_xstate((uint8_t *)(uintptr_t)(sp + 1024));
	if (rnd() % 4)			/* rip */
		f->gregs[16] = PICK((uint64_t)spin_then_exit,
		    (uint64_t)futex_from_stub, (uint64_t)spin_then_exit);
	f->gregs[15] = (uint64_t)stack_area + sizeof(stack_area) - 4096;	/* rsp */
	for (int i = 0; i < 16; i++)
		fz_regs[i] = value();
	fz_regs[0] = 15;
	fz_regs[16] = sp;
	fz_regs[17] = 0x202;
	fz_regs[18] = STUB_RESTORER + PICK(0, 0, 5);
	leap();
}

static void
do_syscalls(void)
{
	for (int n = 1 + rnd() % 16; n > 0; n--) {
		long nr = (long)PICK(rnd() % 336, rnd() % 336, rnd() % 336,
		    424 + rnd() % 30, rnd(), 0x40000000 + rnd() % 336);
		if (nr == SYS_fork || nr == SYS_vfork || nr == SYS_clone ||
		    nr == SYS_clone3)
			continue;	/* one hostile thing per child, no bomb */
		syscall(nr, value(), value(), value(), value(), value(), value());
	}
}

static void
do_code(void)
{
	uint8_t *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		_exit(2);
	for (int i = 0; i < 4096; i++)
		p[i] = (uint8_t)rnd();
	random_regs();
	fz_regs[16] = (uint64_t)stack_area + sizeof(stack_area) - 256;
	fz_regs[18] = (uint64_t)p + rnd() % 4000;
	leap();
}

static const struct action {
	const char *name;
	void (*fn)(void);
} actions[] = {
	{ "leap", do_leap }, { "leap", do_leap }, { "scribble", do_scribble },
	{ "forge", do_forge }, { "forge", do_forge }, { "sigret", do_sigret },
	{ "sigret", do_sigret }, { "syscall", do_syscalls }, { "code", do_code },
};

static __attribute__((noreturn)) void
child(const struct action *a)
{
	setpgid(0, 0);
	if (setgroups(0, NULL) < 0 || setgid(65534) < 0 || setuid(65534) < 0)
		_exit(2);
	a->fn();
	_exit(0);
}

int
main(int argc, char **argv)
{
	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: abifuzz SEED COUNT [FIRST]\n");
		return 2;
	}
	uint64_t seed = strtoull(argv[1], NULL, 0);
	long count = atol(argv[2]), first = argc == 4 ? atol(argv[3]) : 0;
	bool verbose = getenv("ABIFUZZ_VERBOSE") != NULL;
	long exited = 0, killed = 0, stuck = 0, sigs[65] = { 0 };

	for (long i = first; i < count; i++) {
		rs = (seed * 0x9e3779b97f4a7c15UL) ^ (uint64_t)(i + 1) * 0xbf58476d1ce4e5b9UL;
		if (rs == 0)
			rs = 1;
		for (int k = 0; k < 4; k++)
			rnd();
		const struct action *a = &actions[rnd() % (sizeof(actions) /
		    sizeof(actions[0]))];
		if (verbose) {
			printf("abifuzz: child %ld: %s\n", i, a->name);
			fflush(stdout);
		}
		pid_t pid = fork();
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			child(a);
		int st;
		struct timespec t0, now;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			pid_t r = waitpid(pid, &st, WNOHANG);
			if (r == pid)
				break;
			if (r < 0) {
				perror("waitpid");
				return 1;
			}
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (now.tv_sec - t0.tv_sec >= CHILD_LIMIT_S) {
				kill(-pid, SIGKILL);
				kill(pid, SIGKILL);
				stuck++;
				printf("abifuzz: child %ld (%s, pid %d) killed after %d s\n",
				    i, a->name, (int)pid, CHILD_LIMIT_S);
				fflush(stdout);
				t0 = now;
			}
			usleep(2000);
		}
		kill(-pid, SIGKILL);	/* anything it left in its group */
		if (WIFEXITED(st))
			exited++;
		else if (WIFSIGNALED(st)) {
			killed++;
			sigs[WTERMSIG(st) & 63]++;
		}
	}
	printf("abifuzz: seed %llu, %ld children: %ld exited, %ld died of a signal "
	    "(", (unsigned long long)seed, count, exited, killed);
	for (int s = 1; s < 65; s++)
		if (sigs[s])
			printf(" %s:%ld", strsignal(s), sigs[s]);
	printf(" ), %ld stuck\n", stuck);
	return 0;
}
