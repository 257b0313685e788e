/*
 * vkernel's system-call patching, from inside (sys/sys_patch.c):
 *
 *   patchtrap text     a "mov $39,%eax; syscall" called 20 times reads back
 *                      as the jump (the documented deviation: a process
 *                      sees its patched text, by a load, /proc/self/mem
 *                      and process_vm_readv alike), while a fresh exec of
 *                      the same file shows the original bytes (the file
 *                      and its page cache are never written)
 *   patchtrap clean    (run by "text") the site is unpatched before use
 *   patchtrap cp       musl's cancellable-call site (read, write...) is
 *                      patched after 20 reads and writes, keeps its
 *                      syscall, and is right entered halfway: past its
 *                      first mov (the patch's 00 00 faults, the kernel
 *                      sends the thread back to the jump), at its own
 *                      syscall (a restart's way), and with a call the
 *                      trampoline leaves to the signal path (fork)
 *   patchtrap abuse    jumps into the trampoline with forged registers:
 *                      through an unused table entry (SIGSEGV), through
 *                      a used one (the site's own call, nothing else),
 *                      and into every few bytes of the stub's trampoline
 *                      code (a signal, never more), and into every byte of
 *                      the near page's first and last entries (the same);
 *                      the kernel lives on
 *
 * Exit 0 when all holds; "off" as a first argument expects no patching.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <fcntl.h>
#include <unistd.h>

#define TABLE		0xe000UL		/* STUB_UTRAP_TABLE */
#define NEAR		0xd000UL		/* STUB_UTRAP_NEAR */
#define TRAMPOLINE	0x7fff00002000UL	/* STUB_UTRAP_ENTRY0 */
#define TRAMPOLINE_END	0x7fff00004400UL

static const uint8_t pattern[7] = { 0xb8, 39, 0, 0, 0, 0x0f, 0x05 };

__attribute__((noinline)) static long
site_getpid(void)
{
	long r;
	__asm__ volatile ("mov $39, %%eax\n\tsyscall" : "=a"(r) : : "rcx", "r11", "memory");
	return r;
}

/* The site's address: the pattern within the function's first bytes. */
static uint8_t *
find_site(void)
{
	uint8_t *f = (uint8_t *)site_getpid;
	for (int i = 0; i < 64; i++)
		if (memcmp(f + i, pattern, 7) == 0 ||
		    (f[i] == 0xff && f[i + 1] == 0x24 && f[i + 2] == 0x25))
			return f + i;
	return NULL;
}

static int
text(const char *self, int expect_patch)
{
	uint8_t *site = find_site();
	if (site == NULL) {
		printf("no site\n");
		return 1;
	}
	int fails = 0;
	if (memcmp(site, pattern, 7) != 0) {
		printf("site patched before any call\n");
		fails++;
	}
	/* vkernel patches a site at its 16th call. */
	for (int i = 0; i < 20; i++)
		if (site_getpid() != getpid())
			fails++;
	uint8_t load[7], mem[7], vm[7];
	memcpy(load, site, 7);
	int fd = open("/proc/self/mem", O_RDONLY);
	if (fd < 0 || pread(fd, mem, 7, (off_t)(uintptr_t)site) != 7)
		memset(mem, 0, 7);
	if (fd >= 0)
		close(fd);
	struct iovec l = { vm, 7 }, r = { site, 7 };
	if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != 7)
		memset(vm, 0, 7);
	bool patched = load[0] == 0xff && load[1] == 0x24 && load[2] == 0x25 &&
	    load[5] == 0 && load[6] == 0;
	/* Either may be missing (0s): then it shows nothing to compare. */
	static const uint8_t none[7];
	bool mem_ok = memcmp(mem, none, 7) == 0 || memcmp(mem, load, 7) == 0;
	bool vm_ok = memcmp(vm, none, 7) == 0 || memcmp(vm, load, 7) == 0;
	printf("site %s; /proc/self/mem %s; process_vm_readv %s\n",
	    patched ? "patched" : "original",
	    memcmp(mem, none, 7) == 0 ? "unavailable" : mem_ok ? "agrees" : "differs",
	    memcmp(vm, none, 7) == 0 ? "unavailable" : vm_ok ? "agrees" : "differs");
	if (patched != expect_patch || !mem_ok || !vm_ok)
		fails++;
	/* The same file, exec'd afresh, has its original text. */
	pid_t c = fork();
	if (c == 0) {
		execl(self, self, "clean", (char *)NULL);
		_exit(127);
	}
	int st;
	waitpid(c, &st, 0);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		printf("a fresh exec saw patched text\n");
		fails++;
	}
	return fails != 0;
}

/* In a child: registers full of garbage, then a jump to target. */
static int
jump_child(uint64_t target, uint64_t garbage)
{
	pid_t c = fork();
	if (c == 0) {
		alarm(1);
		__asm__ volatile (
		    "mov %1, %%rbx\n\tmov %1, %%rcx\n\tmov %1, %%rdx\n\t"
		    "mov %1, %%rsi\n\tmov %1, %%rdi\n\tmov %1, %%r8\n\t"
		    "mov %1, %%r9\n\tmov %1, %%r10\n\tmov %1, %%r11\n\t"
		    "mov %1, %%r12\n\tmov %1, %%r13\n\tmov %1, %%r14\n\t"
		    "mov %1, %%r15\n\tmov %1, %%rbp\n\tmov %1, %%rsp\n\t"
		    "jmp *%0" : : "a"(target), "r"(garbage) : "memory");
		_exit(0);
	}
	int st;
	if (waitpid(c, &st, 0) != c)
		return -1;
	return WIFSIGNALED(st) ? WTERMSIG(st) : 1000 + WEXITSTATUS(st);
}

/* Through table entry k with a real return address: rax comes back. */
static long
forged_call(unsigned k, uint64_t garbage)
{
	long r = (long)*(volatile uint64_t *)(TABLE + 8 * k);
	__asm__ volatile (
	    "push %%rbp\n\t"
	    "mov %1, %%rdi\n\tmov %1, %%rsi\n\tmov %1, %%rdx\n\t"
	    "mov %1, %%r8\n\tmov %1, %%r9\n\tmov %1, %%r10\n\t"
	    "lea 1f(%%rip), %%rbp\n\tpush %%rbp\n\t"
	    "jmp *%%rax\n"
	    "1:\tpop %%rbp"
	    : "+a"(r) : "r"(garbage)
	    : "rbx", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11",
	      "r12", "r13", "r14", "r15", "memory");
	return r;
}

/* musl's __syscall_cp_c: mov 0x8(%rsp),%r9; mov %rcx,%rdx; syscall */
static const uint8_t cp_pattern[10] = {
	0x4c, 0x8b, 0x4c, 0x24, 0x08, 0x48, 0x89, 0xca, 0x0f, 0x05 };

/*
 * Calls at with rax = nr, rdi = a, rsi = b and rcx = c (which the site
 * moves to rdx), past the red zone.
 */
static long
call_into(const uint8_t *at, long nr, long a, long b, long c)
{
	long r;
	__asm__ volatile ("sub $128, %%rsp\n\tcall *%4\n\tadd $128, %%rsp"
	    : "=a"(r), "+D"(a), "+S"(b), "+c"(c) : "r"(at), "a"(nr)
	    : "rdx", "r8", "r9", "r10", "r11", "memory");
	return r;
}

static int
cp(void)
{
	/* The site, in our own text (the linker's bounds of it). */
	extern uint8_t __executable_start[], etext[];
	uint8_t *site = NULL;
	for (uint8_t *p = __executable_start; p + 10 <= etext && site == NULL; p++)
		if (memcmp(p, cp_pattern, 10) == 0)
			site = p;
	if (site == NULL) {
		printf("cp: no musl site (glibc)\n");
		return 0;
	}
	int fd[2], fails = 0;
	char c = 0;
	if (pipe(fd) < 0)
		return 1;
	for (int i = 0; i < 20; i++)
		if (write(fd[1], &c, 1) != 1 || read(fd[0], &c, 1) != 1)
			fails++;
	bool patched = site[0] == 0xff && site[1] == 0x24 && site[2] == 0x25 &&
	    site[5] == 0 && site[6] == 0 && memcmp(site + 7, cp_pattern + 7, 3) == 0;
	long full = call_into(site, 39, 0, 0, 0),
	    past = call_into(site + 5, 39, 0, 0, 0),
	    sys = call_into(site + 8, 39, 0, 0, 0);
	printf("cp: site %s; getpid through it %s, past its first mov %s, "
	    "at its syscall %s\n", patched ? "patched" : "original",
	    full == getpid() ? "right" : "wrong", past == getpid() ? "right" : "wrong",
	    sys == getpid() ? "right" : "wrong");
	fails += !patched || full != getpid() || past != getpid() || sys != getpid();
	/* write(fd, "xy", 2): rcx becomes rdx, the count */
	long w = call_into(site + 5, 1, fd[1], (long)"xy", 2);
	char got[3] = "";
	printf("cp: write past the first mov %ld, read back %zd\n", w,
	    read(fd[0], got, 2));
	fails += w != 2 || strcmp(got, "xy") != 0;
	long f = call_into(site, 57, 0, 0, 0);	/* fork */
	if (f == 0)
		_exit(7);
	int st = 0;
	waitpid((pid_t)f, &st, 0);
	printf("cp: fork through it %s\n", f > 0 && WIFEXITED(st) &&
	    WEXITSTATUS(st) == 7 ? "right" : "wrong");
	fails += !(f > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 7);
	return fails != 0;
}

static int
abuse(void)
{
	int fails = 0;
	uint8_t *site = find_site();
	for (int i = 0; i < 20; i++)
		(void)site_getpid();
	if (site == NULL || site[0] != 0xff) {
		printf("abuse: the site is not patched\n");
		return 1;
	}
	uint32_t disp;
	memcpy(&disp, site + 3, 4);
	unsigned k = (disp - TABLE) / 8;
	/* A used entry: the site's getpid, from the site, whatever we load. */
	pid_t c = fork();
	if (c == 0)
		_exit(forged_call(k, 0xdeadbeefcafeUL) == getpid() ? 0 : 1);
	int st;
	waitpid(c, &st, 0);
	printf("forged jump through the site's entry: %s\n",
	    WIFEXITED(st) && WEXITSTATUS(st) == 0 ? "the site's own call" : "something else");
	fails += !(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	/* An unused entry, and the table's first bytes as code. */
	int s1 = jump_child(*(uint64_t *)(TABLE + 8 * 383), 0x4141414141414141UL);
	int s2 = jump_child(TABLE + 8 * 511, 0);
	printf("unused entry: signal %d; the table as code: signal %d\n", s1, s2);
	fails += s1 != SIGSEGV || s2 != SIGSEGV;
	/*
	 * An unused entry of musl's site's (the last 128): its first mov
	 * loads from the stack, which faults as the site's own mov would
	 * (rsp non-canonical: #SS, SIGBUS); then the entry names no site.
	 */
	int s3 = jump_child(*(uint64_t *)(TABLE + 8 * 511), 0x4141414141414141UL);
	pid_t c3 = fork();
	if (c3 == 0) {
		(void)forged_call(511, 0x4141414141414141UL);
		_exit(0);
	}
	waitpid(c3, &st, 0);
	int s4 = WIFSIGNALED(st) ? WTERMSIG(st) : 0;
	printf("unused entry of musl's: signal %d, with a stack: signal %d\n", s3, s4);
	fails += s3 != SIGBUS || s4 != SIGSEGV;
	/* Every few bytes of the trampoline, with garbage and with 0. */
	int odd = 0, n = 0;
	for (uint64_t a = TRAMPOLINE + 0x1ff0; a < TRAMPOLINE_END; a += 3) {
		for (int g = 0; g < 2; g++) {
			int s = jump_child(a, g ? 0x7fff00100000UL : 0x1234);
			n++;
			if (s != SIGSEGV && s != SIGILL && s != SIGTRAP && s != SIGKILL &&
			    s != SIGBUS && s != SIGALRM && s != SIGSYS)
				odd++;
		}
	}
	printf("%d jumps into the trampoline: %d ended otherwise than by a signal\n",
	    n, odd);
	fails += odd != 0;
	/* The near page of run sites' jumps: its first and last entries, every byte. */
	odd = n = 0;
	for (uint64_t a = NEAR; a < NEAR + 4096; a++) {
		if (a == NEAR + 64)
			a = NEAR + 4096 - 64;
		int s = jump_child(a, n & 1 ? 0x7fff00100000UL : 0x1234);
		n++;
		if (s != SIGSEGV && s != SIGILL && s != SIGTRAP && s != SIGKILL &&
		    s != SIGBUS && s != SIGALRM && s != SIGSYS)
			odd++;
	}
	printf("%d jumps into the near page: %d ended otherwise than by a signal\n",
	    n, odd);
	fails += odd != 0;
	/* Still alive, and patched calls still right. */
	fails += site_getpid() != getpid();
	return fails != 0;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	int expect = !(argc > 2 && strcmp(argv[2], "off") == 0);
	if (argc > 1 && strcmp(argv[1], "clean") == 0) {
		uint8_t *site = find_site();
		return site != NULL && memcmp(site, pattern, 7) == 0 ? 0 : 1;
	}
	if (argc > 1 && strcmp(argv[1], "abuse") == 0)
		return expect ? abuse() : 0;
	if (argc > 1 && strcmp(argv[1], "cp") == 0)
		return expect ? cp() : 0;
	return text(argv[0], expect);
}
