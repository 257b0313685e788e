/*
 * vkernel's patching of run sites, from inside (sys/sys_patch.c): a
 * "mov $nr,%eax", a few register-only instructions, then "syscall".
 *
 *   patchrun run      musl's sigprocmask site ("mov $14,%eax; xor
 *                     %edx,%edx; mov $2,%edi; syscall") and its gettid
 *                     site ("mov $186,%eax; mov %fs:0,%rdx; syscall"),
 *                     in copies of our own, are patched after 20 calls
 *                     (the mov alone becomes "jmp rel32", the bytes after
 *                     it unchanged), and keep doing what they did: the
 *                     mask set, rdx and rdi as the run leaves them, the
 *                     flags of the xor, the thread's id; entered past the
 *                     mov and at the syscall they are still right; a read
 *                     through a run site that a signal interrupts restarts
 *                     with the run's registers and gets its byte
 *   patchrun threads  a run site whose mov crosses 8 bytes is left alone
 *                     while a second thread lives, one that does not is
 *                     patched
 *   patchrun fork     a site only forked children call (once each, as
 *                     _Fork's gettid), and their exit_group, end up
 *                     patched in the parent, whose later children inherit
 *                     it; the children's exit statuses stay right
 *
 * Exit 0 when all holds; "off" as a second argument expects no patching.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The sites: each at a known offset in a function of its own.  run_mask:
 * rt_sigprocmask(SIG_SETMASK, rsi, NULL, 8), musl's bytes; run_tid:
 * gettid with musl's %fs load; run_read: read(rdi, rsi, 1) by "mov
 * $1,%edx"; run_far: getpid with its mov across 8 bytes; run_child:
 * getppid, for children only.  Each returns rax in rax, rdx in rdx.
 */
__asm__(
    ".text\n"
    ".balign 16\n"
    "run_mask:\n\tmov $8, %r10d\n\tnop\n\tnop\n\tnop\n"	/* site at 8 */
    "run_mask_site:\n\tmov $14, %eax\n\txor %edx, %edx\n\tmov $2, %edi\n\tsyscall\n\tret\n"
    ".balign 16\n"
    "run_tid:\n\t"
    "run_tid_site:\n\tmov $186, %eax\n\tmov %fs:0, %rdx\n\tsyscall\n\tret\n"
    ".balign 16\n"
    "run_read:\n\t"
    "run_read_site:\n\tmov $0, %eax\n\tmov $1, %edx\n\tsyscall\n\tret\n"
    ".balign 16\n"
    "run_far:\n\tnop\n\tnop\n\tnop\n\tnop\n\tnop\n"		/* site at 5 */
    "run_far_site:\n\tmov $39, %eax\n\txor %edx, %edx\n\tsyscall\n\tret\n"
    ".balign 16\n"
    "run_near:\n\t"
    "run_near_site:\n\tmov $39, %eax\n\txor %edx, %edx\n\tsyscall\n\tret\n"
    ".balign 16\n"
    "run_child:\n\t"
    "run_child_site:\n\tmov $110, %eax\n\tmov %rdi, %rsi\n\tsyscall\n\tret\n"
    ".balign 16\n"
    "run_exit:\n\t"
    "run_exit_site:\n\tmov $231, %eax\n\tmov %rsi, %rdi\n\tsyscall\n\tud2\n");

extern uint8_t run_mask[], run_mask_site[], run_tid_site[], run_read_site[],
    run_far_site[], run_near_site[], run_child_site[], run_exit_site[];

struct regs {
	long rax, rdx, rdi, rsi, zf;
};

/* Calls at with rax, rdi, rsi, rdx loaded; the registers after. */
static struct regs
call_at(const uint8_t *at, long rax, long rdi, long rsi, long rdx)
{
	struct regs r;
	uint8_t zf;
	__asm__ volatile ("sub $128, %%rsp\n\tcall *%[at]\n\tsetz %[zf]\n\t"
	    "add $128, %%rsp"
	    : "+a"(rax), "+D"(rdi), "+S"(rsi), "+d"(rdx), [zf] "=&r"(zf)
	    : [at] "r"(at)
	    : "rcx", "r8", "r9", "r10", "r11", "memory", "cc");
	r.rax = rax;
	r.rdx = rdx;
	r.rdi = rdi;
	r.rsi = rsi;
	r.zf = zf;
	return r;
}

static const uint8_t mask_bytes[] = { 0xb8, 14, 0, 0, 0, 0x31, 0xd2, 0xbf, 2, 0, 0, 0, 0x0f, 0x05 };
static const uint8_t tid_bytes[] = { 0xb8, 186, 0, 0, 0, 0x64, 0x48, 0x8b, 0x14, 0x25, 0, 0, 0, 0, 0x0f, 0x05 };

/* Patched: a near jump where the mov was, the rest of the site as it was. */
static bool
patched(const uint8_t *site, const uint8_t *orig, size_t len)
{
	return site[0] == 0xe9 && memcmp(site + 5, orig + 5, len - 5) == 0;
}

static bool
original(const uint8_t *site, const uint8_t *orig, size_t len)
{
	return memcmp(site, orig, len) == 0;
}

static long
tid(void)
{
	return syscall(186);
}

static long
fs0(void)
{
	long v;
	__asm__ ("mov %%fs:0, %0" : "=r"(v));
	return v;
}

static void
on_alarm(int sig)
{
	(void)sig;
}

static int
run(bool expect)
{
	int fails = 0;
	sigset_t set, old, now;

	if (!original(run_mask_site, mask_bytes, sizeof(mask_bytes)) ||
	    !original(run_tid_site, tid_bytes, sizeof(tid_bytes))) {
		printf("sites patched before any call\n");
		return 1;
	}
	sigprocmask(SIG_SETMASK, NULL, &old);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	struct regs m = { 0 }, t = { 0 };
	for (int i = 0; i < 20; i++) {
		m = call_at(run_mask, 0, 0, (long)&set, 0x5555);
		t = call_at(run_tid_site, 0, 0, 0, 0x5555);
	}
	sigprocmask(SIG_SETMASK, NULL, &now);
	bool mp = patched(run_mask_site, mask_bytes, sizeof(mask_bytes)),
	    tp = patched(run_tid_site, tid_bytes, sizeof(tid_bytes));
	printf("mask site %s, tid site %s\n", mp ? "patched" : "original",
	    tp ? "patched" : "original");
	fails += mp != expect || tp != expect;
	bool mok = m.rax == 0 && m.rdx == 0 && m.rdi == 2 && m.zf &&
	    sigismember(&now, SIGUSR1);
	bool tok = t.rax == tid() && t.rdx == fs0();
	printf("mask call %s, tid call %s\n", mok ? "right" : "wrong",
	    tok ? "right" : "wrong");
	fails += !mok || !tok;
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* Into the middle: past the mov (rax loaded), at the syscall. */
	struct regs a = call_at(run_tid_site + 5, 186, 0, 0, 0);
	struct regs b = call_at(run_tid_site + 14, 186, 0, 0, 0x77);
	struct regs c = call_at(run_mask_site + 5, 14, 0, (long)&set, 0x5555);
	sigprocmask(SIG_SETMASK, NULL, &now);
	bool mid = a.rax == tid() && a.rdx == fs0() && b.rax == tid() &&
	    b.rdx == 0x77 && c.rax == 0 && c.rdx == 0 && c.rdi == 2 &&
	    sigismember(&now, SIGUSR1);
	printf("entered past the mov and at the syscall: %s\n", mid ? "right" : "wrong");
	fails += !mid;
	sigprocmask(SIG_SETMASK, &old, NULL);
	/* A read through a run site, interrupted by a signal, restarted. */
	int fd[2];
	char ch = 'x';
	if (pipe(fd) < 0)
		return 1;
	for (int i = 0; i < 20; i++)
		if (write(fd[1], "ab", 1) != 1 ||
		    call_at(run_read_site, 0, fd[0], (long)&ch, 99).rax != 1)
			fails++;
	bool rp = run_read_site[0] == 0xe9;
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };
	sigaction(SIGALRM, &sa, NULL);
	pid_t w = fork();
	if (w == 0) {
		usleep(300000);
		_exit(write(fd[1], "z", 1) == 1 ? 0 : 1);
	}
	ualarm(100000, 0);
	ch = 0;
	struct regs r = call_at(run_read_site, 0, fd[0], (long)&ch, 99);
	waitpid(w, NULL, 0);
	printf("read site %s; restarted read: %ld byte '%c'\n",
	    rp ? "patched" : "original", r.rax, ch);
	fails += rp != expect || r.rax != 1 || ch != 'z' || r.rdx != 1;
	return fails != 0;
}

static void *
sleeper(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

static int
threads(bool expect)
{
	pthread_t th;
	int fails = 0;

	if (pthread_create(&th, NULL, sleeper, NULL) != 0)
		return 1;
	for (int i = 0; i < 20; i++) {
		if (call_at(run_far_site, 0, 0, 0, 1).rax != getpid() ||
		    call_at(run_near_site, 0, 0, 0, 1).rax != getpid())
			fails++;
	}
	bool far = run_far_site[0] == 0xe9, near = run_near_site[0] == 0xe9;
	printf("two threads: site across 8 bytes %s, site within %s\n",
	    far ? "patched" : "original", near ? "patched" : "original");
	fails += far || near != expect;
	return fails != 0;
}

static int
forks(bool expect)
{
	int fails = 0;

	for (int i = 0; i < 40; i++) {
		pid_t c = fork();
		if (c == 0) {
			long pp = call_at(run_child_site, 0, 5, 0, 0).rax;
			call_at(run_exit_site, 0, 0, pp == getppid() ? 7 : 8, 0);
			_exit(9);
		}
		int st = 0;
		if (waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 7)
			fails++;
	}
	bool cp = run_child_site[0] == 0xe9, ep = run_exit_site[0] == 0xe9;
	printf("40 children: %d wrong; in the parent the children's site %s, "
	    "their exit_group %s\n", fails, cp ? "patched" : "original",
	    ep ? "patched" : "original");
	return fails != 0 || cp != expect || ep != expect;
}

int
main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	bool expect = !(argc > 2 && strcmp(argv[2], "off") == 0);
	if (argc > 1 && strcmp(argv[1], "threads") == 0)
		return threads(expect);
	if (argc > 1 && strcmp(argv[1], "fork") == 0)
		return forks(expect);
	return run(expect);
}
