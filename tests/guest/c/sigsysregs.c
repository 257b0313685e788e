/*
 * Registers across system calls that are never patched: the number is
 * loaded from memory, not by "mov $nr,%eax" before the syscall, so
 * vkernel takes each by its host trap (SIGSYS), and resumes by a jump or
 * by rt_sigreturn.  All general registers but rax, rcx and r11, the
 * arithmetic flags and DF, and the vector registers (SSE, AVX, AVX-512
 * and its mask registers, as far as the CPU has them) must come back as
 * they went in; rcx holds the address after the syscall and r11 the
 * flags, as Linux's syscall leaves them.  Then with signals: a handler
 * that clobbers the vector registers interrupts a blocking read (EINTR,
 * and restarted under SA_RESTART), and the interrupted code finds its
 * registers intact; and a timer signals all along a loop of such calls.
 * Output must be Linux's.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

enum { L_SSE, L_AVX, L_AVX512 };

/* The layout regs_syscall knows (offsets in the assembly below). */
struct regs {
	uint64_t nr;			/* 0 */
	uint64_t level;			/* 8 */
	uint64_t flags;			/* 16 */
	uint64_t gin[16];		/* 24: rax..r15, as in g[] below */
	uint64_t gout[16];		/* 152 */
	uint64_t fout;			/* 280 */
	uint64_t after;			/* 288: the address after the syscall */
	uint64_t pad[3];
	uint8_t vin[32][64];		/* 320: zmm0..31 (ymm, xmm: their low parts) */
	uint8_t vout[32][64];		/* 2368 */
	uint64_t kin[8], kout[8];	/* 4416, 4480: k0..7 */
};

enum { RAX, RBX, RCX, RDX, RSI, RDI, RBP, RSP, R8, R9, R10, R11, R12, R13,
	R14, R15 };
static const char *const gname[16] = { "rax", "rbx", "rcx", "rdx", "rsi",
	"rdi", "rbp", "rsp", "r8", "r9", "r10", "r11", "r12", "r13", "r14", "r15" };

_Static_assert(__builtin_offsetof(struct regs, vin) == 320, "layout");
_Static_assert(__builtin_offsetof(struct regs, kin) == 4416, "layout");

void regs_syscall(struct regs *r);

__asm__(
	".text\n.globl regs_syscall\nregs_syscall:\n"
	"push %rbx\n push %rbp\n push %r12\n push %r13\n push %r14\n push %r15\n"
	"push %rdi\n"
	"mov 8(%rdi), %rax\n cmp $2, %rax\n je 2f\n cmp $1, %rax\n je 1f\n"
	"movdqu 320+64*0(%rdi), %xmm0\n movdqu 320+64*1(%rdi), %xmm1\n"
	"movdqu 320+64*2(%rdi), %xmm2\n movdqu 320+64*3(%rdi), %xmm3\n"
	"movdqu 320+64*4(%rdi), %xmm4\n movdqu 320+64*5(%rdi), %xmm5\n"
	"movdqu 320+64*6(%rdi), %xmm6\n movdqu 320+64*7(%rdi), %xmm7\n"
	"movdqu 320+64*8(%rdi), %xmm8\n movdqu 320+64*9(%rdi), %xmm9\n"
	"movdqu 320+64*10(%rdi), %xmm10\n movdqu 320+64*11(%rdi), %xmm11\n"
	"movdqu 320+64*12(%rdi), %xmm12\n movdqu 320+64*13(%rdi), %xmm13\n"
	"movdqu 320+64*14(%rdi), %xmm14\n movdqu 320+64*15(%rdi), %xmm15\n"
	"jmp 3f\n"
	"1:\n"
	"vmovdqu 320+64*0(%rdi), %ymm0\n vmovdqu 320+64*1(%rdi), %ymm1\n"
	"vmovdqu 320+64*2(%rdi), %ymm2\n vmovdqu 320+64*3(%rdi), %ymm3\n"
	"vmovdqu 320+64*4(%rdi), %ymm4\n vmovdqu 320+64*5(%rdi), %ymm5\n"
	"vmovdqu 320+64*6(%rdi), %ymm6\n vmovdqu 320+64*7(%rdi), %ymm7\n"
	"vmovdqu 320+64*8(%rdi), %ymm8\n vmovdqu 320+64*9(%rdi), %ymm9\n"
	"vmovdqu 320+64*10(%rdi), %ymm10\n vmovdqu 320+64*11(%rdi), %ymm11\n"
	"vmovdqu 320+64*12(%rdi), %ymm12\n vmovdqu 320+64*13(%rdi), %ymm13\n"
	"vmovdqu 320+64*14(%rdi), %ymm14\n vmovdqu 320+64*15(%rdi), %ymm15\n"
	"jmp 3f\n"
	"2:\n"
	"vmovdqu64 320+64*0(%rdi), %zmm0\n vmovdqu64 320+64*1(%rdi), %zmm1\n"
	"vmovdqu64 320+64*2(%rdi), %zmm2\n vmovdqu64 320+64*3(%rdi), %zmm3\n"
	"vmovdqu64 320+64*4(%rdi), %zmm4\n vmovdqu64 320+64*5(%rdi), %zmm5\n"
	"vmovdqu64 320+64*6(%rdi), %zmm6\n vmovdqu64 320+64*7(%rdi), %zmm7\n"
	"vmovdqu64 320+64*8(%rdi), %zmm8\n vmovdqu64 320+64*9(%rdi), %zmm9\n"
	"vmovdqu64 320+64*10(%rdi), %zmm10\n vmovdqu64 320+64*11(%rdi), %zmm11\n"
	"vmovdqu64 320+64*12(%rdi), %zmm12\n vmovdqu64 320+64*13(%rdi), %zmm13\n"
	"vmovdqu64 320+64*14(%rdi), %zmm14\n vmovdqu64 320+64*15(%rdi), %zmm15\n"
	"vmovdqu64 320+64*16(%rdi), %zmm16\n vmovdqu64 320+64*17(%rdi), %zmm17\n"
	"vmovdqu64 320+64*18(%rdi), %zmm18\n vmovdqu64 320+64*19(%rdi), %zmm19\n"
	"vmovdqu64 320+64*20(%rdi), %zmm20\n vmovdqu64 320+64*21(%rdi), %zmm21\n"
	"vmovdqu64 320+64*22(%rdi), %zmm22\n vmovdqu64 320+64*23(%rdi), %zmm23\n"
	"vmovdqu64 320+64*24(%rdi), %zmm24\n vmovdqu64 320+64*25(%rdi), %zmm25\n"
	"vmovdqu64 320+64*26(%rdi), %zmm26\n vmovdqu64 320+64*27(%rdi), %zmm27\n"
	"vmovdqu64 320+64*28(%rdi), %zmm28\n vmovdqu64 320+64*29(%rdi), %zmm29\n"
	"vmovdqu64 320+64*30(%rdi), %zmm30\n vmovdqu64 320+64*31(%rdi), %zmm31\n"
	"kmovq 4416+8*1(%rdi), %k1\n kmovq 4416+8*2(%rdi), %k2\n"
	"kmovq 4416+8*3(%rdi), %k3\n kmovq 4416+8*4(%rdi), %k4\n"
	"kmovq 4416+8*5(%rdi), %k5\n kmovq 4416+8*6(%rdi), %k6\n"
	"kmovq 4416+8*7(%rdi), %k7\n"
	"3:\n"
	"mov 24+8*1(%rdi), %rbx\n mov 24+8*3(%rdi), %rdx\n"
	"mov 24+8*4(%rdi), %rsi\n mov 24+8*6(%rdi), %rbp\n"
	"mov 24+8*8(%rdi), %r8\n mov 24+8*9(%rdi), %r9\n"
	"mov 24+8*10(%rdi), %r10\n mov 24+8*12(%rdi), %r12\n"
	"mov 24+8*13(%rdi), %r13\n mov 24+8*14(%rdi), %r14\n"
	"mov 24+8*15(%rdi), %r15\n"
	"mov 0(%rdi), %rax\n"
	"pushq 16(%rdi)\n popfq\n"
	"mov 24+8*5(%rdi), %rdi\n"
	"syscall\n"
	".Lsigsysregs_after:\n"
	"pushfq\n push %rdi\n mov 16(%rsp), %rdi\n"
	"popq 152+8*5(%rdi)\n popq 280(%rdi)\n cld\n"
	"mov %rax, 152+8*0(%rdi)\n mov %rbx, 152+8*1(%rdi)\n"
	"mov %rcx, 152+8*2(%rdi)\n mov %rdx, 152+8*3(%rdi)\n"
	"mov %rsi, 152+8*4(%rdi)\n mov %rbp, 152+8*6(%rdi)\n"
	"mov %rsp, 152+8*7(%rdi)\n"
	"mov %r8, 152+8*8(%rdi)\n mov %r9, 152+8*9(%rdi)\n"
	"mov %r10, 152+8*10(%rdi)\n mov %r11, 152+8*11(%rdi)\n"
	"mov %r12, 152+8*12(%rdi)\n mov %r13, 152+8*13(%rdi)\n"
	"mov %r14, 152+8*14(%rdi)\n mov %r15, 152+8*15(%rdi)\n"
	"lea .Lsigsysregs_after(%rip), %rax\n mov %rax, 288(%rdi)\n"
	"mov 8(%rdi), %rax\n cmp $2, %rax\n je 2f\n cmp $1, %rax\n je 1f\n"
	"movdqu %xmm0, 2368+64*0(%rdi)\n movdqu %xmm1, 2368+64*1(%rdi)\n"
	"movdqu %xmm2, 2368+64*2(%rdi)\n movdqu %xmm3, 2368+64*3(%rdi)\n"
	"movdqu %xmm4, 2368+64*4(%rdi)\n movdqu %xmm5, 2368+64*5(%rdi)\n"
	"movdqu %xmm6, 2368+64*6(%rdi)\n movdqu %xmm7, 2368+64*7(%rdi)\n"
	"movdqu %xmm8, 2368+64*8(%rdi)\n movdqu %xmm9, 2368+64*9(%rdi)\n"
	"movdqu %xmm10, 2368+64*10(%rdi)\n movdqu %xmm11, 2368+64*11(%rdi)\n"
	"movdqu %xmm12, 2368+64*12(%rdi)\n movdqu %xmm13, 2368+64*13(%rdi)\n"
	"movdqu %xmm14, 2368+64*14(%rdi)\n movdqu %xmm15, 2368+64*15(%rdi)\n"
	"jmp 3f\n"
	"1:\n"
	"vmovdqu %ymm0, 2368+64*0(%rdi)\n vmovdqu %ymm1, 2368+64*1(%rdi)\n"
	"vmovdqu %ymm2, 2368+64*2(%rdi)\n vmovdqu %ymm3, 2368+64*3(%rdi)\n"
	"vmovdqu %ymm4, 2368+64*4(%rdi)\n vmovdqu %ymm5, 2368+64*5(%rdi)\n"
	"vmovdqu %ymm6, 2368+64*6(%rdi)\n vmovdqu %ymm7, 2368+64*7(%rdi)\n"
	"vmovdqu %ymm8, 2368+64*8(%rdi)\n vmovdqu %ymm9, 2368+64*9(%rdi)\n"
	"vmovdqu %ymm10, 2368+64*10(%rdi)\n vmovdqu %ymm11, 2368+64*11(%rdi)\n"
	"vmovdqu %ymm12, 2368+64*12(%rdi)\n vmovdqu %ymm13, 2368+64*13(%rdi)\n"
	"vmovdqu %ymm14, 2368+64*14(%rdi)\n vmovdqu %ymm15, 2368+64*15(%rdi)\n"
	"vzeroupper\n jmp 3f\n"
	"2:\n"
	"vmovdqu64 %zmm0, 2368+64*0(%rdi)\n vmovdqu64 %zmm1, 2368+64*1(%rdi)\n"
	"vmovdqu64 %zmm2, 2368+64*2(%rdi)\n vmovdqu64 %zmm3, 2368+64*3(%rdi)\n"
	"vmovdqu64 %zmm4, 2368+64*4(%rdi)\n vmovdqu64 %zmm5, 2368+64*5(%rdi)\n"
	"vmovdqu64 %zmm6, 2368+64*6(%rdi)\n vmovdqu64 %zmm7, 2368+64*7(%rdi)\n"
	"vmovdqu64 %zmm8, 2368+64*8(%rdi)\n vmovdqu64 %zmm9, 2368+64*9(%rdi)\n"
	"vmovdqu64 %zmm10, 2368+64*10(%rdi)\n vmovdqu64 %zmm11, 2368+64*11(%rdi)\n"
	"vmovdqu64 %zmm12, 2368+64*12(%rdi)\n vmovdqu64 %zmm13, 2368+64*13(%rdi)\n"
	"vmovdqu64 %zmm14, 2368+64*14(%rdi)\n vmovdqu64 %zmm15, 2368+64*15(%rdi)\n"
	"vmovdqu64 %zmm16, 2368+64*16(%rdi)\n vmovdqu64 %zmm17, 2368+64*17(%rdi)\n"
	"vmovdqu64 %zmm18, 2368+64*18(%rdi)\n vmovdqu64 %zmm19, 2368+64*19(%rdi)\n"
	"vmovdqu64 %zmm20, 2368+64*20(%rdi)\n vmovdqu64 %zmm21, 2368+64*21(%rdi)\n"
	"vmovdqu64 %zmm22, 2368+64*22(%rdi)\n vmovdqu64 %zmm23, 2368+64*23(%rdi)\n"
	"vmovdqu64 %zmm24, 2368+64*24(%rdi)\n vmovdqu64 %zmm25, 2368+64*25(%rdi)\n"
	"vmovdqu64 %zmm26, 2368+64*26(%rdi)\n vmovdqu64 %zmm27, 2368+64*27(%rdi)\n"
	"vmovdqu64 %zmm28, 2368+64*28(%rdi)\n vmovdqu64 %zmm29, 2368+64*29(%rdi)\n"
	"vmovdqu64 %zmm30, 2368+64*30(%rdi)\n vmovdqu64 %zmm31, 2368+64*31(%rdi)\n"
	"kmovq %k1, 4480+8*1(%rdi)\n kmovq %k2, 4480+8*2(%rdi)\n"
	"kmovq %k3, 4480+8*3(%rdi)\n kmovq %k4, 4480+8*4(%rdi)\n"
	"kmovq %k5, 4480+8*5(%rdi)\n kmovq %k6, 4480+8*6(%rdi)\n"
	"kmovq %k7, 4480+8*7(%rdi)\n"
	"vzeroupper\n"
	"3:\n"
	"pop %rdi\n pop %r15\n pop %r14\n pop %r13\n pop %r12\n pop %rbp\n pop %rbx\n"
	"ret\n");

/* What the CPU has and the system enabled, as a level. */
static int
vector_level(void)
{
	unsigned a, b, c, d;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_OSXSAVE) || !(c & bit_AVX))
		return L_SSE;
	uint32_t lo, hi;
	__asm__ volatile ("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
	if ((lo & 6) != 6)
		return L_SSE;
	if (__get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_AVX512F) &&
	    (lo & 0xe6) == 0xe6)
		return L_AVX512;
	return L_AVX;
}

static int level;
static uint64_t seed = 0x9e3779b97f4a7c15ULL;

static uint64_t
next(void)
{
	seed ^= seed << 13;
	seed ^= seed >> 7;
	seed ^= seed << 17;
	return seed;
}

/* Arithmetic flags and DF: CF PF AF ZF SF DF OF. */
#define FLAGS_CHECKED	0xcd5UL

static void
fill(struct regs *r, long nr, long a0, long a1, long a2)
{
	memset(r, 0, sizeof(*r));
	r->nr = (uint64_t)nr;
	r->level = (uint64_t)level;
	for (int i = 0; i < 16; i++)
		r->gin[i] = next();
	r->gin[RDI] = (uint64_t)a0;
	r->gin[RSI] = (uint64_t)a1;
	r->gin[RDX] = (uint64_t)a2;
	/* A different set of flags each time, IF and bit 1 as they are. */
	r->flags = (next() & FLAGS_CHECKED) | 0x202;
	for (int i = 0; i < 32; i++)
		for (int j = 0; j < 64; j += 8) {
			uint64_t v = next();
			memcpy(&r->vin[i][j], &v, 8);
		}
	for (int i = 1; i < 8; i++)
		r->kin[i] = next();
}

/* The first difference, or NULL. */
static const char *
check(const struct regs *r, long want)
{
	static char why[64];
	static const int vbytes[] = { 16, 32, 64 }, nvec[] = { 16, 16, 32 };

	if ((long)r->gout[RAX] != want) {
		snprintf(why, sizeof(why), "rax %ld, not %ld", (long)r->gout[RAX], want);
		return why;
	}
	for (int i = 0; i < 16; i++) {
		if (i == RAX || i == RCX || i == R11 || i == RSP)
			continue;
		if (r->gout[i] != r->gin[i])
			return gname[i];
	}
	if (r->gout[RCX] != r->after)
		return "rcx (not the return address)";
	if ((r->fout & FLAGS_CHECKED) != (r->flags & FLAGS_CHECKED))
		return "flags";
	if ((r->gout[R11] & FLAGS_CHECKED) != (r->flags & FLAGS_CHECKED))
		return "r11 (not the flags)";
	for (int i = 0; i < nvec[level]; i++)
		if (memcmp(r->vout[i], r->vin[i], (size_t)vbytes[level]) != 0) {
			snprintf(why, sizeof(why), "vector register %d", i);
			return why;
		}
	if (level == L_AVX512)
		for (int i = 1; i < 8; i++)
			if (r->kout[i] != r->kin[i]) {
				snprintf(why, sizeof(why), "mask register k%d", i);
				return why;
			}
	return NULL;
}

static void
report(const char *what, const char *why)
{
	printf("%s: %s\n", what, why == NULL ? "registers intact" : why);
}

static struct regs r;
static int pfd[2];
static volatile int nsig;
static int write_in_handler;

/* Clobbers every vector register the CPU has (and writes a byte if asked). */
static void
on_signal(int sig)
{
	(void)sig;
	nsig++;
	__asm__ volatile ("pcmpeqd %%xmm0, %%xmm0\n pxor %%xmm1, %%xmm1\n"
	    "pxor %%xmm7, %%xmm7\n pxor %%xmm15, %%xmm15" : : :
	    "xmm0", "xmm1", "xmm7", "xmm15");
	if (level >= L_AVX)
		__asm__ volatile ("vpcmpeqd %%ymm2, %%ymm2, %%ymm2\n"
		    "vpcmpeqd %%ymm14, %%ymm14, %%ymm14\n vzeroupper" : : :
		    "xmm2", "xmm14");
	/* Not built for AVX-512: the compiler uses none of these. */
	if (level == L_AVX512)
		__asm__ volatile ("vpternlogd $0xff, %zmm20, %zmm20, %zmm20\n"
		    "vpternlogd $0xff, %zmm31, %zmm31, %zmm31\n"
		    "kxnorq %k1, %k1, %k1\n kxorq %k7, %k7, %k7\n vzeroupper");
	if (write_in_handler)
		(void)!write(pfd[1], "x", 1);
}

static void
handle(int restart)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = restart ? SA_RESTART : 0;
	sigaction(SIGALRM, &sa, NULL);
}

static void
alarm_in(long us, long every)
{
	struct itimerval it = { { 0, every }, { 0, us } };
	setitimer(ITIMER_REAL, &it, NULL);
}

int
main(int argc, char **argv)
{
	char buf[4];
	const char *why = NULL;

	level = vector_level();
	/* "sse" or "avx": test no more than that (the others too, that way). */
	if (argc > 1 && strcmp(argv[1], "sse") == 0)
		level = L_SSE;
	else if (argc > 1 && strcmp(argv[1], "avx") == 0 && level > L_AVX)
		level = L_AVX;

	/* Plain calls, each with other values. */
	for (int i = 0; i < 2000 && why == NULL; i++) {
		fill(&r, SYS_getppid, 0, 0, 0);
		regs_syscall(&r);
		why = check(&r, getppid());
	}
	report("getppid", why);

	/* A blocking read ended by a handler: EINTR. */
	if (pipe(pfd) != 0)
		return 1;
	handle(0);
	alarm_in(20000, 0);
	fill(&r, SYS_read, pfd[0], (long)buf, 1);
	regs_syscall(&r);
	report("read, interrupted", check(&r, -EINTR));
	printf("signals: %d\n", nsig);

	/* The same under SA_RESTART: the handler's byte ends the read. */
	handle(1);
	write_in_handler = 1;
	alarm_in(20000, 0);
	fill(&r, SYS_read, pfd[0], (long)buf, 1);
	regs_syscall(&r);
	report("read, restarted", check(&r, 1));
	printf("signals: %d\n", nsig);
	write_in_handler = 0;

	/* Signalled all along a loop of calls. */
	alarm_in(500, 500);
	why = NULL;
	for (int i = 0; i < 100000 && why == NULL; i++) {
		fill(&r, SYS_getppid, 0, 0, 0);
		regs_syscall(&r);
		why = check(&r, getppid());
	}
	alarm_in(0, 0);
	report("getppid, signalled", why);
	printf("signalled: %s\n", nsig > 3 ? "yes" : "no");
	return 0;
}
