/*
 * A guest that will not answer the kick, against a process that wants
 * to run.  Each attacker, as uid 65534, blocks the kick signal with a
 * forged rt_sigreturn made from the stub's own restorer (which the stub's
 * filter allows), then either sleeps in a futex on the stub's words from
 * the stub's own syscall instruction (as the handler's wait for its
 * reply, or on the mapper's command word) or spins.  Meanwhile a ticker
 * sleeps 50 ms at a time and records its worst gap between wake-ups: a
 * virtual CPU held by an attacker does not run it.
 *
 * Prints the attackers' ends and the ticker's figures; exits 0 if every
 * attacker was killed and the worst gap stayed under a second.
 */
#include <fcntl.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../../host/trap/stub_abi.h"

#define NATTACKERS	5
#define TICK_MS		50
#define GAP_LIMIT_MS	1000
#define RESTORER_SYSCALL	(STUB_RESTORER + 5)	/* mov $15,%eax; syscall */

/*
 * The kernel's ucontext, as rt_sigreturn reads it at rsp: flags, link,
 * the signal stack, the registers (struct sigcontext), then the mask.
 */
enum { UC_SS_SP = 2, UC_SS_SIZE = 4, UC_REGS = 5, UC_MASK = 37, UC_WORDS = 40 };
enum { R_RSP = 15, R_RIP = 16, R_EFL = 17, R_CSGSFS = 18, R_FPSTATE = 23 };

static uint64_t frame[UC_WORDS] __attribute__((aligned(4096)));

/*
 * attack_enter(frame): loads the forged frame through the stub's
 * restorer.  The frame resumes at one of the attack_* labels, with the
 * kick blocked; they touch nothing but this page and the stub's, so no
 * fault (whose reply would restore the mask) interrupts them.
 */
void attack_enter(uint64_t *f);
extern char attack_reply[], attack_seq[], attack_spin[];
__asm__(
	".text\n.balign 256\n"
	"attack_enter: mov (%rdi), %rax\n mov %rdi, %rsp\n"
	" movabs $" "0x7fff00001040" ", %rax\n jmp *%rax\n"
	/* The handler's own wait: futex(&reply, FUTEX_WAIT, WW_SLEEPING = 2, 0). */
	"attack_reply: movabs $0x7fff00111004, %rdi\n movl $2, (%rdi)\n"
	" mov $202, %eax\n xor %esi, %esi\n mov $2, %edx\n xor %r10d, %r10d\n"
	" movabs $0x7fff00001045, %rcx\n jmp *%rcx\n"
	/* The mapper's command word, at its current value. */
	"attack_seq: movabs $0x7fff00100000, %rdi\n mov (%rdi), %edx\n"
	" mov $202, %eax\n xor %esi, %esi\n xor %r10d, %r10d\n"
	" movabs $0x7fff00001045, %rcx\n jmp *%rcx\n"
	"attack_spin: jmp attack_spin\n");

_Static_assert(STUB_RESTORER == 0x7fff00001040UL, "attack_enter's restorer");
_Static_assert(RESTORER_SYSCALL == 0x7fff00001045UL, "the restorer's syscall");
_Static_assert(STUB_THREAD + offsetof(struct stub_thread, reply) ==
    0x7fff00111004UL, "attack_reply's word");
_Static_assert(STUB_CMD + offsetof(struct stub_cmd, seq) == 0x7fff00100000UL,
    "attack_seq's word");

static void
attack(char *resume)
{
	memset(frame, 0, sizeof(frame));
	frame[UC_SS_SP] = STUB_ALTSTACK;	/* the stub's: nothing changes */
	frame[UC_SS_SIZE] = STUB_ALTSTACK_SIZE;
	frame[UC_REGS + R_RIP] = (uint64_t)resume;
	frame[UC_REGS + R_RSP] = (uint64_t)frame;
	frame[UC_REGS + R_EFL] = 0x202;
	frame[UC_REGS + R_CSGSFS] = 0x33 | 0x2bUL << 48;	/* cs, ss */
	frame[UC_REGS + R_FPSTATE] = 0;
	frame[UC_MASK] = 1UL << (STUB_SIGKICK - 1);
	attack_enter(frame);
}

static uint64_t
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Sleeps TICK_MS at a time until told to stop; writes its figures. */
static void
ticker(int stop, int out)
{
	struct timespec tick = { 0, TICK_MS * 1000000L };
	uint64_t start = now_ms(), last = start, worst = 0, n = 0;
	char c;

	for (;;) {
		nanosleep(&tick, NULL);
		uint64_t t = now_ms();
		if (t - last > worst)
			worst = t - last;
		last = t;
		n++;
		if (read(stop, &c, 1) >= 0)
			break;
	}
	uint64_t r[3] = { n, worst, last - start };
	(void)!write(out, r, sizeof(r));
	_exit(0);
}

int
main(void)
{
	static char *const modes[] = { attack_reply, attack_seq, attack_spin,
	    attack_reply, attack_seq };
	static const char *const names[] = { "reply", "seq", "spin", "reply",
	    "seq" };
	int stop[2], res[2], killed = 0;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (pipe(stop) < 0 || pipe(res) < 0)
		return 2;
	pid_t tk = fork();
	if (tk == 0) {
		close(stop[1]);
		/* Non-blocking: a read fails until the parent writes. */
		fcntl(stop[0], F_SETFL, O_NONBLOCK);
		ticker(stop[0], res[1]);
	}
	close(stop[0]);
	usleep(300000);
	for (int i = 0; i < NATTACKERS; i++) {
		uint64_t t0 = now_ms();
		pid_t pid = fork();
		if (pid == 0) {
			if (setgid(65534) < 0 || setuid(65534) < 0)
				_exit(3);
			attack(modes[i]);
			_exit(4);
		}
		int st = 0;
		waitpid(pid, &st, 0);
		if (WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL)
			killed++;
		printf("attacker %d (%s): %s %d after %llu ms\n", i + 1, names[i],
		    WIFSIGNALED(st) ? "signal" : "exit",
		    WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st),
		    (unsigned long long)(now_ms() - t0));
	}
	usleep(300000);
	(void)!write(stop[1], "x", 1);
	uint64_t r[3] = { 0, 0, 0 };
	(void)!read(res[0], r, sizeof(r));
	waitpid(tk, NULL, 0);
	printf("ticker: %llu wake-ups in %llu ms, worst gap %llu ms\n",
	    (unsigned long long)r[0], (unsigned long long)r[2],
	    (unsigned long long)r[1]);
	return killed == NATTACKERS && r[1] < GAP_LIMIT_MS ? 0 : 1;
}
