/*
 * 32-bit (compatibility) mode.  A far return to the 32-bit code segment
 * (0x23) runs code from a page below 4 GiB; a trap there delivers its
 * signal to a handler that runs in 64-bit mode (CS 0x33) with the
 * interrupted CS 0x23 in its ucontext, and sigreturn goes back to 32-bit
 * mode.  Without arguments: what any Linux gives (compared with native).
 *
 * "compat32 inside": the 32-bit system calls, which this host's Linux
 * (IA32 emulation) serves and vkernel must answer as a Linux without it
 * does: int $0x80 is #GP (SIGSEGV, SI_KERNEL, error 0x402, at the
 * instruction), sysenter #GP (SIGSEGV), syscall in compatibility mode
 * #UD on Intel (SIGILL) or -ENOSYS on AMD.  Prints ok/FAIL lines.
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>
#include <unistd.h>

#define LOW	0x20000000UL	/* code page; the 32-bit stack is the next */
#define STR_(x)	#x
#define STR(x)	STR_(x)

/* Offsets in the code page (the blob below is copied there). */
#define OFF_UD2		0x00
#define OFF_HLT		0x10
#define OFF_BACK	0x40	/* 32-bit: far jump to OFF_RET64 */
#define OFF_INT80	0x60
#define OFF_SYSENTER	0x80
#define OFF_SYSCALL	0xa0
#define OFF_RET64	0x100	/* 64-bit: back to run32's caller */
#define OFF_SAVED_SP	0x200

__asm__(
	".pushsection .rodata\n"
	".globl compat_blob, compat_blob_end\n"
	"compat_blob:\n"
	".code32\n"
	"ud2\n"
	".org compat_blob + " STR(OFF_HLT) "\n"
	"hlt\n"
	".org compat_blob + " STR(OFF_BACK) "\n"
	"ljmp $0x33, $" STR(LOW + OFF_RET64) "\n"
	".org compat_blob + " STR(OFF_INT80) "\n"
	"mov $20, %eax\n"
	"int $0x80\n"
	"ljmp $0x33, $" STR(LOW + OFF_RET64) "\n"
	".org compat_blob + " STR(OFF_SYSENTER) "\n"
	"mov $20, %eax\n"
	"mov %esp, %ebp\n"
	"sysenter\n"
	"ljmp $0x33, $" STR(LOW + OFF_RET64) "\n"
	".org compat_blob + " STR(OFF_SYSCALL) "\n"
	"mov $20, %eax\n"
	"syscall\n"
	"mov %eax, " STR(LOW + OFF_SAVED_SP + 8) "\n"
	"ljmp $0x33, $" STR(LOW + OFF_RET64) "\n"
	".org compat_blob + " STR(OFF_RET64) "\n"
	".code64\n"
	"mov " STR(LOW + OFF_SAVED_SP) ", %rsp\n"
	"ret\n"
	"compat_blob_end:\n"
	".popsection\n");
extern const char compat_blob[], compat_blob_end[];

static volatile int calls, got_sig, got_code;
static volatile uint16_t handler_cs, uc_cs, uc_ss;
static volatile uint64_t uc_rip, uc_trapno, uc_err;

static void
handler(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uint16_t cs;

	__asm__ volatile ("mov %%cs, %0" : "=r"(cs));
	if (++calls > 1) {
		static const char msg[] = "FAIL handler entered again\n";
		write(1, msg, sizeof(msg) - 1);
		_exit(1);
	}
	got_sig = sig;
	got_code = si->si_code;
	handler_cs = cs;
	uc_cs = uc->uc_mcontext.gregs[REG_CSGSFS] & 0xffff;
	uc_ss = (uint64_t)uc->uc_mcontext.gregs[REG_CSGSFS] >> 48;
	uc_rip = uc->uc_mcontext.gregs[REG_RIP];
	uc_trapno = uc->uc_mcontext.gregs[REG_TRAPNO];
	uc_err = uc->uc_mcontext.gregs[REG_ERR];
	if (uc_cs == 0x23)	/* resume in 32-bit mode, at the way back */
		uc->uc_mcontext.gregs[REG_RIP] = LOW + OFF_BACK;
	else			/* int $0x80 from 64-bit code: skip it */
		uc->uc_mcontext.gregs[REG_RIP] += 2;
}

/* Runs the 32-bit code at LOW + off on the low stack until it jumps back. */
static void
run32(uint64_t off)
{
	calls = got_sig = got_code = 0;
	uint64_t entry = LOW + off;
	__asm__ volatile (
	    "sub $128, %%rsp\n\t"		/* the red zone */
	    "push %%rbp\n\tpush %%rbx\n\tpush %%r12\n\t"
	    "push %%r13\n\tpush %%r14\n\tpush %%r15\n\t"
	    "lea 1f(%%rip), %%rax\n\tpush %%rax\n\t"
	    "mov %%rsp, " STR(LOW + OFF_SAVED_SP) "\n\t"
	    "mov $" STR(LOW + 0x2000 - 16) ", %%esp\n\t"
	    "pushq $0x23\n\tpush %%rdi\n\tlretq\n"
	    "1:\tpop %%r15\n\tpop %%r14\n\tpop %%r13\n\t"
	    "pop %%r12\n\tpop %%rbx\n\tpop %%rbp\n\t"
	    "add $128, %%rsp"
	    : "+D"(entry)
	    : : "rax", "rcx", "rdx", "rsi", "r8", "r9", "r10", "r11",
	    "memory", "cc");
}

static void
report(const char *what)
{
	printf("%s: signal %d code %d, handler cs %#x, interrupted cs %#x "
	    "ss %#x, trap %lu\n", what, got_sig, got_code, handler_cs, uc_cs,
	    uc_ss, (unsigned long)uc_trapno);
}

static int fails;

static void
check(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	fails += !ok;
}

/* The 32-bit system calls: vkernel's answers (a Linux without IA32). */
static int
inside(void)
{
	unsigned a, b, c, d;
	int intel = __get_cpuid(0, &a, &b, &c, &d) && b == 0x756e6547;

	run32(OFF_INT80);
	check("int $0x80 in 32-bit mode: SIGSEGV SI_KERNEL", got_sig == SIGSEGV &&
	    got_code == SI_KERNEL);
	check("int $0x80: #GP, error 0x402, at the instruction", uc_trapno == 13 &&
	    uc_err == 0x402 && uc_rip == LOW + OFF_INT80 + 5);
	check("int $0x80: handler in 64-bit mode", handler_cs == 0x33 &&
	    uc_cs == 0x23);

	calls = got_sig = 0;
	__asm__ volatile ("int $0x80" : : "a"(20) : "memory");
	check("int $0x80 in 64-bit mode: SIGSEGV, error 0x402",
	    got_sig == SIGSEGV && uc_trapno == 13 && uc_err == 0x402 &&
	    uc_cs == 0x33);

	run32(OFF_SYSENTER);
	if (intel)
		check("sysenter: SIGSEGV", got_sig == SIGSEGV &&
		    handler_cs == 0x33);

	*(volatile uint32_t *)(LOW + OFF_SAVED_SP + 8) = 0;
	run32(OFF_SYSCALL);
	if (intel)
		check("syscall in 32-bit mode (Intel): SIGILL", got_sig == SIGILL &&
		    handler_cs == 0x33 && uc_cs == 0x23);
	else
		check("syscall in 32-bit mode (AMD): -ENOSYS", got_sig == 0 &&
		    *(volatile uint32_t *)(LOW + OFF_SAVED_SP + 8) == (uint32_t)-38);
	return fails != 0;
}

int
main(int argc, char **argv)
{
	static char altstack[65536];
	stack_t ss = { .ss_sp = altstack, .ss_size = sizeof(altstack) };
	struct sigaction sa;

	void *p = mmap((void *)LOW, 0x2000, PROT_READ | PROT_WRITE | PROT_EXEC,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (void *)LOW) {
		perror("mmap");
		return 1;
	}
	memcpy(p, compat_blob, (size_t)(compat_blob_end - compat_blob));
	sigaltstack(&ss, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigaction(SIGILL, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);

	if (argc > 1 && strcmp(argv[1], "inside") == 0)
		return inside();
	run32(OFF_UD2);
	report("ud2 in 32-bit mode");
	run32(OFF_HLT);
	report("hlt in 32-bit mode");
	printf("back in 64-bit mode\n");
	return 0;
}
