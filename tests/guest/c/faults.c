/*
 * Traps become signals: a child that faults is reported to its parent as
 * killed by Linux's signal (SIGILL for ud2, SIGFPE for a divide by zero,
 * SIGTRAP for int3 and single steps, SIGSEGV for privileged instructions,
 * bad addresses, a stack overflow, a corrupt signal frame, SIGBUS for a
 * misaligned access under EFLAGS.AC, SIGABRT for abort()); and a
 * process that catches the trap sees Linux's si_code, si_addr, trap
 * number and error code, and can resume by editing its context.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

/* The faulting instructions, each at a known address. */
__asm__(
	".text\n"
	"do_ud2: .globl ud2_at\nud2_at: ud2\n ret\n"
	"do_div0: xor %ecx, %ecx\n mov $1, %eax\n cltd\n"
	"div0_at: idiv %ecx\n ret\n"
	"do_divovf: mov $-1, %ecx\n mov $0x80000000, %eax\n cltd\n"
	"divovf_at: idiv %ecx\n ret\n"
	"do_int3: int3\n int3_after: ret\n"
	"do_step: pushf\n orl $0x100, (%rsp)\n popf\n nop\n step_after: nop\n ret\n"
	/* SIMD divide by zero, then 0/0, unmasked in MXCSR; x87 1/0 unmasked. */
	"do_ssediv: sub $8, %rsp\n stmxcsr (%rsp)\n andl $~0x200, (%rsp)\n ldmxcsr (%rsp)\n"
	" add $8, %rsp\n xorpd %xmm1, %xmm1\n mov $1, %eax\n cvtsi2sd %eax, %xmm0\n"
	"ssediv_at: divsd %xmm1, %xmm0\n ret\n"
	"do_sseinv: sub $8, %rsp\n stmxcsr (%rsp)\n andl $~0x80, (%rsp)\n ldmxcsr (%rsp)\n"
	" add $8, %rsp\n xorpd %xmm1, %xmm1\n xorpd %xmm0, %xmm0\n"
	"sseinv_at: divsd %xmm1, %xmm0\n ret\n"
	"do_x87div: sub $8, %rsp\n fnstcw (%rsp)\n andw $~0x4, (%rsp)\n fldcw (%rsp)\n"
	" add $8, %rsp\n fld1\n fldz\n fdivrp\n x87div_at: fwait\n ret\n"
	"do_hlt: hlt_at: hlt\n ret\n"
	"do_cli: cli_at: cli\n ret\n"
	"do_inb: xor %edx, %edx\n inb_at: inb %dx, %al\n ret\n"
	"do_movcr0: movcr0_at: mov %cr0, %rax\n ret\n"
	"do_ncanon: movabs $0x8000000000001000, %rax\n ncanon_at: mov (%rax), %eax\n ret\n"
	"do_ssfault: movabs $0x8000000000001000, %rsp\n mov (%rsp), %eax\n ud2\n"
	"do_int30: int30_at: int $0x30\n ret\n"
	"do_kread: movabs $0xffff800000001000, %rax\n kread_at: mov (%rax), %eax\n ret\n"
	"do_null: null_at: mov 0x10, %eax\n ret\n"
	"do_nullw: nullw_at: movl $1, 0x10\n ret\n"
	"do_misal: pushf\n orl $0x40000, (%rsp)\n popf\n lea misbuf+1(%rip), %rax\n"
	"misal_at: mov (%rax), %eax\n pushf\n andl $~0x40000, (%rsp)\n popf\n ret\n"
	"do_badsigret: mov $1, %rsp\n mov $15, %eax\n syscall\n ud2\n"
	"do_zerosigret: sub $2048, %rsp\n mov %rsp, %rdi\n xor %eax, %eax\n mov $256, %ecx\n"
	" rep stosq\n add $8, %rsp\n mov $15, %eax\n syscall\n ud2\n"
	".bss\n.balign 16\nmisbuf: .zero 16\n.text\n"
);
void do_ud2(void), do_div0(void), do_divovf(void), do_int3(void), do_hlt(void);
void do_step(void), do_ssediv(void), do_sseinv(void), do_x87div(void);
void do_ssfault(void), do_int30(void);
void do_cli(void), do_inb(void), do_movcr0(void), do_ncanon(void), do_kread(void);
void do_misal(void), do_null(void), do_nullw(void), do_badsigret(void), do_zerosigret(void);
extern char ud2_at[], div0_at[], divovf_at[], int3_after[], hlt_at[], cli_at[];
extern char step_after[], ssediv_at[], sseinv_at[], x87div_at[], int30_at[];
extern char misal_at[], inb_at[], movcr0_at[], ncanon_at[], kread_at[], null_at[], nullw_at[];

static const char *
signame(int sig)
{
	static char buf[16];
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGILL: return "SIGILL";
	case SIGFPE: return "SIGFPE";
	case SIGBUS: return "SIGBUS";
	case SIGTRAP: return "SIGTRAP";
	case SIGABRT: return "SIGABRT";
	case SIGKILL: return "SIGKILL";
	case SIGSYS: return "SIGSYS";
	}
	snprintf(buf, sizeof(buf), "signal %d", sig);
	return buf;
}

/* Runs fn in a child and reports how the child ended. */
static void
die(const char *what, void (*fn)(void))
{
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		fn();
		_exit(0);
	}
	int status;
	waitpid(pid, &status, 0);
	if (WIFSIGNALED(status))
		printf("%-26s killed by %s\n", what, signame(WTERMSIG(status)));
	else if (WIFEXITED(status))
		printf("%-26s exited %d\n", what, WEXITSTATUS(status));
	else
		printf("%-26s status %#x\n", what, status);
}

static void write_text(void) { *(volatile char *)(uintptr_t)do_ud2 = 0; }
static void jump_null(void) { ((void (*)(void))0)(); }
static void jump_kern(void) { ((void (*)(void))0xffff800000000000UL)(); }
static void
exec_stack(void)
{
	unsigned char code[16] = { 0xc3 };	/* ret, on the (non-executable) stack */
	((void (*)(void))(uintptr_t)code)();
}
static void
exec_heap(void)
{
	unsigned char *code = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	code[0] = 0xc3;
	((void (*)(void))code)();
}
static volatile uintptr_t bad16 = 16;
static volatile int never = -1;
static int
recurse(int n)
{
	volatile char pad[1024];
	pad[0] = (char)n;
	if (n == never)
		return 0;
	return recurse(n + 1) + pad[0];
}
static void
overflow(void)
{
	struct rlimit rl = { 8 << 20, 8 << 20 };	/* never unlimited: the host's memory */
	setrlimit(RLIMIT_STACK, &rl);
	recurse(0);
}
static void do_abort(void) { abort(); }
static void self_kill(void) { kill(getpid(), SIGKILL); }
static void nothing(int sig) { (void)sig; }

/* A signal arriving when the stack pointer points nowhere. */
static void
bad_stack_signal(void)
{
	signal(SIGUSR1, nothing);
	__asm__ volatile(
		"mov %%rsp, %%r12\n"
		"mov $1, %%rsp\n"
		"mov $39, %%eax\n syscall\n"	/* getpid */
		"mov %%eax, %%edi\n mov $10, %%esi\n"
		"mov $62, %%eax\n syscall\n"	/* kill(getpid(), SIGUSR1) */
		"mov %%r12, %%rsp\n"
		::: "rax", "rdi", "rsi", "rcx", "r11", "r12", "memory");
}

/* SA_ONSTACK onto an alternate stack the process may not write. */
static void
bad_altstack_signal(void)
{
	void *p = mmap(NULL, 65536, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	stack_t ss = { .ss_sp = p, .ss_size = 65536 };
	sigaltstack(&ss, NULL);
	struct sigaction sa = { .sa_handler = nothing, .sa_flags = SA_ONSTACK };
	sigaction(SIGUSR1, &sa, NULL);
	kill(getpid(), SIGUSR1);
}

/* A SIGSEGV handler that itself faults. */
static void fault_again(int sig) { (void)sig; *(volatile int *)bad16 = 1; }
static void
segv_in_handler(void)
{
	signal(SIGSEGV, fault_again);
	*(volatile int *)bad16 = 1;
}

/* Every signal blocked, then a fault: Linux kills all the same. */
static void
segv_blocked(void)
{
	sigset_t all;
	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	*(volatile int *)bad16 = 1;
}

/* SIGSEGV ignored, then a fault. */
static void
segv_ignored(void)
{
	signal(SIGSEGV, SIG_IGN);
	*(volatile int *)bad16 = 1;
}

/* Caught traps: what the handler sees. */
static sigjmp_buf env;
static struct {
	int sig, code, trapno;
	long err;
	void *addr;
	greg_t rip;
} seen;
static int skip;		/* bytes to step over and resume, or 0 to longjmp */

static void
catcher(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	seen.sig = sig;
	seen.code = si->si_code;
	seen.addr = si->si_addr;
	seen.rip = uc->uc_mcontext.gregs[REG_RIP];
	seen.trapno = (int)uc->uc_mcontext.gregs[REG_TRAPNO];
	seen.err = uc->uc_mcontext.gregs[REG_ERR];
	if (skip > 0) {
		uc->uc_mcontext.gregs[REG_RIP] += skip;
		return;
	}
	siglongjmp(env, 1);
}

static const char *
where(const void *p, const void *at)
{
	static char buf[32];
	if (p == at)
		return "at";
	if (p == NULL)
		return "0";
	snprintf(buf, sizeof(buf), "%+ld", (long)((const char *)p - (const char *)at));
	return buf;
}

/*
 * Runs fn with the handler installed; addr is the si_addr expected, rip
 * the faulting instruction (NULL: not shown), step how many bytes the
 * handler skips to resume (0: it longjmps out).
 */
static void
catch(const char *what, void (*fn)(void), const void *addr, const void *rip,
    int step, int show_err)
{
	memset(&seen, 0, sizeof(seen));
	skip = step;
	if (sigsetjmp(env, 1) == 0)
		fn();
	printf("%-14s %s code %d addr %s", what, signame(seen.sig), seen.code,
	    where(seen.addr, addr));
	if (rip != NULL)
		printf(" rip %s", where((void *)seen.rip, rip));
	printf(" trapno %d", seen.trapno);
	if (show_err)
		printf(" err %ld", seen.err);
	printf("%s\n", step ? " (resumed)" : "");
}

static char *rodata_page;
static void write_ro(void) { rodata_page[100] = 1; }
static void read_none(void) { (void)*(volatile char *)(rodata_page + 4096 + 200); }

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	die("ud2", do_ud2);
	die("divide by zero", do_div0);
	die("INT_MIN / -1", do_divovf);
	die("int3", do_int3);
	die("hlt", do_hlt);
	die("cli", do_cli);
	die("inb", do_inb);
	die("mov cr0", do_movcr0);
	die("read non-canonical", do_ncanon);
	die("rsp non-canonical (#SS)", do_ssfault);
	die("read kernel half", do_kread);
	die("read 0x10", do_null);
	die("write 0x10", do_nullw);
	die("write own text", write_text);
	die("call 0", jump_null);
	die("call kernel half", jump_kern);
	die("run the stack", exec_stack);
	die("run the heap", exec_heap);
	die("stack overflow", overflow);
	die("misaligned with AC", do_misal);
	die("abort()", do_abort);
	die("kill self SIGKILL", self_kill);
	die("rt_sigreturn, rsp 1", do_badsigret);
	die("rt_sigreturn, zero frame", do_zerosigret);
	die("signal on bad stack", bad_stack_signal);
	die("signal on bad altstack", bad_altstack_signal);
	die("fault in SIGSEGV handler", segv_in_handler);
	die("fault, all blocked", segv_blocked);
	die("fault, SIGSEGV ignored", segv_ignored);

	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = catcher;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	int sigs[] = { SIGSEGV, SIGILL, SIGFPE, SIGTRAP, SIGBUS };
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigaction(sigs[i], &sa, NULL);
	rodata_page = mmap(NULL, 8192, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	mprotect(rodata_page + 4096, 4096, PROT_NONE);

	catch("ud2", do_ud2, ud2_at, ud2_at, 2, 1);
	catch("div0", do_div0, div0_at, div0_at, 2, 1);
	catch("divovf", do_divovf, divovf_at, divovf_at, 2, 1);
	catch("int3", do_int3, NULL, int3_after, 0, 1);
	/* EFLAGS.TF: a trap after the next instruction (the handler runs without TF). */
	catch("single step", do_step, step_after, step_after, 0, 1);
	/* FPU exceptions: si_code from what is unmasked and flagged (the handler starts clean). */
	catch("sse 1/0", do_ssediv, ssediv_at, ssediv_at, 0, 1);
	catch("sse 0/0", do_sseinv, sseinv_at, sseinv_at, 0, 1);
	catch("x87 1/0", do_x87div, x87div_at, x87div_at, 0, 1);
	catch("hlt", do_hlt, NULL, hlt_at, 1, 1);
	catch("inb", do_inb, NULL, inb_at, 1, 1);
	/* A #GP's error code names the IDT gate: 0x30 << 3 | 2. */
	catch("int $0x30", do_int30, NULL, int30_at, 2, 1);
	catch("ncanon", do_ncanon, NULL, ncanon_at, 0, 1);
	/* (The error code of a kernel-half access depends on the host's KPTI.) */
	catch("kread", do_kread, (void *)0xffff800000001000UL, kread_at, 0, 0);
	catch("read 0x10", do_null, (void *)0x10, null_at, 0, 1);
	catch("write 0x10", do_nullw, (void *)0x10, nullw_at, 0, 1);
	catch("write ro", write_ro, rodata_page + 100, NULL, 0, 1);
	catch("read none", read_none, rodata_page + 4096 + 200, NULL, 0, 1);
	catch("misaligned", do_misal, NULL, misal_at, 2, 1);
	skip = 0;
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);

	/* System call numbers that do not exist. */
	long nums[] = { 1000, 100000, -1, 0x7fffffff };
	for (unsigned i = 0; i < sizeof(nums) / sizeof(nums[0]); i++) {
		errno = 0;
		long r = syscall(nums[i], 0, 0, 0, 0, 0, 0);
		printf("syscall %#lx: %ld %s\n", nums[i], r, errno == ENOSYS ? "ENOSYS" : strerror(errno));
	}
	printf("survived\n");
	return 0;
}
