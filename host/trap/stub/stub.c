/*
 * The trap backend's stub: a freestanding program (no libc) exec'd fresh
 * for each vmspace.  Its main thread becomes the guest thread: it maps the
 * control memory, installs the signal handlers, starts the mapper thread,
 * moves to its signal stack, unmaps the host's stack (and with it the
 * auxiliary vector) and the vdso, puts itself under the guest filter and
 * traps once (int3), so that the
 * vkernel's first "resume" writes the guest's registers into that first
 * signal frame and rt_sigreturn enters guest code.
 *
 * From then on the handler is the whole stub: every system call (SIGSYS),
 * fault and kick lands in it on the signal stack; it posts the frame's
 * address to the vkernel and waits for the reply.  More guest threads
 * start in stub_thread_main (stub_abi.h, "Threads"); each has a slot of
 * its own, which the handler finds from its signal stack.  The vkernel edits the
 * frame in place, so the registers and FPU state travel through the
 * host's own rt_sigreturn.
 *
 * Built with -ffreestanding -mgeneral-regs-only -fno-stack-protector:
 * every system call is an inline "syscall" in stub text, which is what
 * the filters allow, and the handler never touches the guest's vector
 * registers.
 */
#define STUB_FREESTANDING
#include <stdbool.h>

#include "../../hostsync.h"
#include "../stub_abi.h"

#define SYS_open		2
#define SYS_close		3
#define SYS_exit		60
#define SYS_mmap		9
#define SYS_munmap		11
#define SYS_rt_sigaction	13
#define SYS_rt_sigprocmask	14
#define SYS_sigaltstack		131
#define SYS_sched_setscheduler	144
#define SYS_sched_yield		24
#define SYS_prctl		157
#define SYS_arch_prctl		158
#define SYS_futex		202
#define SYS_set_tid_address	218
#define SYS_exit_group		231
#define SYS_seccomp		317

#define PROT_READ		1
#define PROT_WRITE		2
#define PROT_EXEC		4
#define MAP_SHARED		0x01
#define MAP_PRIVATE		0x02
#define O_RDONLY		0
#define O_CLOEXEC		02000000
#define MAP_FIXED_NOREPLACE	0x100000
#define SA_SIGINFO		0x00000004
#define SA_NODEFER		0x40000000
#define SA_ONSTACK		0x08000000
#define SA_RESTORER		0x04000000
#define SIG_SETMASK		2
#define SCHED_BATCH		3
#define PR_SET_NO_NEW_PRIVS	38
#define ARCH_SET_GS		0x1001
#define ARCH_SET_FS		0x1002
#define FUTEX_WAIT		0
#define FUTEX_WAKE		1

#define SIGILL	4
#define SIGTRAP	5
#define SIGBUS	7
#define SIGFPE	8
#define SIGSEGV	11
#define SIGSYS	31

struct k_sigaction {
	void *handler;
	unsigned long flags;
	void *restorer;
	uint64_t mask;
};

struct k_stack {
	void *sp;
	int flags;
	unsigned long size;
};

void stub_main(uint64_t *sp);
void stub_start_guest(void) __attribute__((noreturn));
void stub_thread_main(void) __attribute__((noreturn));
long stub_clone_mapper(void);
void stub_leave_host_stack(void) __attribute__((noreturn));
void stub_reset(void) __attribute__((noreturn));
extern char stub_restorer[];
extern char __stub_end[];
extern char stub_utrap_restore[], stub_utrap_trap[], stub_utrap_end[];
extern char stub_utrap_table[], stub_utrap_near[];
extern char stub_sig_restart[], stub_sig_jump[];
int stub_utrap_wait(struct stub_thread *t);
void stub_sig_resume(void *uc) __attribute__((noreturn));
void stub_sig_kicked(struct stub_thread *t, void *uc);

static inline long
sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile ("syscall" : "=a"(ret)
	    : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
	    : "rcx", "r11", "memory");
	return ret;
}

#define sys1(n, a)		sys6(n, (long)(a), 0, 0, 0, 0, 0)
#define sys2(n, a, b)		sys6(n, (long)(a), (long)(b), 0, 0, 0, 0)
#define sys3(n, a, b, c)	sys6(n, (long)(a), (long)(b), (long)(c), 0, 0, 0)
#define sys4(n, a, b, c, d)	sys6(n, (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

static __attribute__((noreturn)) void
die(int code)
{
	for (;;)
		sys1(SYS_exit_group, code);
}

/*
 * The slot of the calling thread, from its stack pointer: handlers run on
 * the thread's own signal stack, and a starting thread on its slot's top.
 * A guest can put its stack elsewhere only within its own slot (the host
 * delivers on the thread's signal stack unless it is already on it).
 */
static inline struct stub_thread *
thread_self(void)
{
	uint64_t sp;
	__asm__ volatile ("mov %%rsp, %0" : "=r"(sp));
	uint64_t n = (sp - STUB_THREAD) / STUB_THREAD_SIZE;
	if (sp < STUB_THREAD || n >= STUB_MAXTHREADS)
		die(STUB_EXIT_LAYOUT);
	return (struct stub_thread *)STUB_SLOT(n);
}

#ifdef VK_TRACE
#define STUB_TRACE(t)	((struct stub_trace *)((char *)(t) + STUB_TR_OFF))
#define TRACE_STAMP(t, f)	(STUB_TRACE(t)->f = rdtsc())
#else
#define TRACE_STAMP(t, f)	((void)0)
#endif

static inline const struct stub_cmd *
cmd_page(void)
{
	return (const struct stub_cmd *)STUB_CMD;
}

static inline uint64_t
rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile ("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

/*
 * Waits for the vkernel's reply: spins for cmd->spin_tsc, then sleeps.
 * WW_MAPPER asks this thread to wake the mapper, a hand-off that stays on
 * this thread's core; the mapper shares the core, so we then sleep rather
 * than spin against it.  The mapper ends its batch with the reply itself
 * (WW_POSTED), or with WW_WAKE when the vkernel still has work to do
 * before it replies: then we spin again.  WW_YIELD: our CPU went on to
 * another guest on this core (trap_handoff.c), so we sleep; with WW_POLL
 * we first give the core away (sched_yield) up to STUB_YIELDS times
 * within STUB_YIELD_SPINS spins, looking at the reply between turns.  A
 * guest thread thus yielded is still runnable on this core when the CPU
 * comes back to it after a short block (the other end of a pipe
 * answered): its reply needs no futex wake from the CPU's core, a host
 * system call on the way of every hand-off.  The CPU asks for it only
 * while the core has nothing else to run (trap_handoff.c).
 */
#define STUB_YIELDS	64
#define STUB_YIELD_SPINS	4

static void
wait_reply(struct stub_thread *t, bool consume)
{
	const struct stub_cmd *c = cmd_page();
	uint64_t t0 = rdtsc(), spin = c->spin_tsc;
	unsigned yields = 0;
	bool yielded = false;

	for (;;) {
		uint32_t v = __atomic_load_n(&t->reply, __ATOMIC_ACQUIRE);
		if (v & WW_POSTED) {
			TRACE_STAMP(t, seen);
			if (consume)
				__atomic_store_n(&t->reply, 0, __ATOMIC_RELEASE);
			return;
		}
		if (v & WW_MAPPER) {
			if (__atomic_compare_exchange_n(&t->reply, &v, 0, 0,
			    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
				sys3(SYS_futex, &c->seq, FUTEX_WAKE, 1);
			spin = 0;
			continue;
		}
		if (v & WW_WAKE) {	/* the mapper is done; the vkernel goes on */
			if (__atomic_compare_exchange_n(&t->reply, &v, 0, 0,
			    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
				t0 = rdtsc();
				spin = c->spin_tsc;
				yielded = false;
			}
			continue;
		}
		if (v & WW_YIELD) {
			__atomic_fetch_and(&t->reply, ~(WW_YIELD | WW_POLL),
			    __ATOMIC_SEQ_CST);
			yielded = true;
			yields = v & WW_POLL ? STUB_YIELDS : 0;
			t0 = rdtsc();
			spin = STUB_YIELD_SPINS * c->spin_tsc;
			continue;
		}
		if (rdtsc() - t0 < spin) {
			if (!yielded) {
				__asm__ volatile ("pause");
				continue;
			}
			if (yields > 0) {
				yields--;
				sys1(SYS_sched_yield, 0);
				continue;
			}
		}
		if (v == 0 && !__atomic_compare_exchange_n(&t->reply, &v,
		    WW_SLEEPING, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST))
			continue;
		sys4(SYS_futex, &t->reply, FUTEX_WAIT, WW_SLEEPING, 0);
	}
}

static inline const struct stub_boot *
boot_page(void)
{
	return (const struct stub_boot *)STUB_BOOT;
}

/*
 * Loads the bases the vkernel asked for.  With patching, a guest gs base
 * of 0 (every Linux program's) leaves the host's at the thread's slot,
 * where the trampoline finds its record; the handler reports it as 0.
 */
static void
load_bases(struct stub_thread *t)
{
	if (!t->set_bases)
		return;
	t->set_bases = 0;
	if (cmd_page()->fsgsbase) {
		uint64_t gs = t->set_gsbase;
		if (gs == 0 && boot_page()->utrap)
			gs = (uint64_t)t;
		__asm__ volatile ("wrfsbase %0" : : "r"(t->set_fsbase));
		__asm__ volatile ("wrgsbase %0" : : "r"(gs));
	} else {
		sys2(SYS_arch_prctl, ARCH_SET_FS, t->set_fsbase);
		sys2(SYS_arch_prctl, ARCH_SET_GS, t->set_gsbase);
	}
}

/*
 * Every signal of the guest thread comes here, on the signal stack, with
 * all signals blocked.  A kick the vkernel no longer wants is dropped.
 */
/* The general registers of a signal frame (ucontext_t.uc_mcontext). */
#define UC_GREGS	40
#define UC_SIGMASK	296	/* the host's 8 bytes of uc_sigmask */
enum { G_R8, G_R9, G_R10, G_R11, G_R12, G_R13, G_R14, G_R15, G_RDI, G_RSI,
	G_RBP, G_RBX, G_RDX, G_RAX, G_RCX, G_RSP, G_RIP, G_EFL };

/*
 * A thread's gs base before its first resume: the slot, with patching,
 * as load_bases leaves it for a guest's 0.  The stub's bases are then
 * always those it reports (store_bases), and the vkernel asks it to load
 * only others.
 */
static void
first_bases(struct stub_thread *t)
{
	if (boot_page()->utrap)
		__asm__ volatile ("wrgsbase %0" : : "r"((uint64_t)t));
}

static inline struct stub_utrap *
utrap_record(struct stub_thread *t)
{
	return (struct stub_utrap *)((char *)t + STUB_UT_OFF);
}

static inline void
store_bases(struct stub_thread *t)
{
	uint64_t fs, gs;

	__asm__ volatile ("rdfsbase %0" : "=r"(fs));
	__asm__ volatile ("rdgsbase %0" : "=r"(gs));
	gs = gs == (uint64_t)t ? 0 : gs;
	if (t->fsbase != fs)
		t->fsbase = fs;
	if (t->gsbase != gs)
		t->gsbase = gs;
}

/*
 * Posts the report the caller wrote and waits for the reply (taking it
 * if consume); the bases the vkernel set are loaded, and a thread told
 * to quit exits, or, thread 0 of an exited process, resets.
 */
static void
report(struct stub_thread *t, bool consume)
{
	TRACE_STAMP(t, post);
	if (__atomic_fetch_or(&t->req, WW_POSTED, __ATOMIC_SEQ_CST) & WW_SLEEPING)
		sys3(SYS_futex, &t->req, FUTEX_WAKE, 1);
	wait_reply(t, consume);
	uint32_t quit = t->quit;
	if (quit == STUB_QUIT_RESET && t == (struct stub_thread *)STUB_THREAD)
		stub_reset();
	if (quit != 0)
		for (;;)
			sys1(SYS_exit, 0);
	load_bases(t);
}

/*
 * A kick that interrupted the trampoline (stub_entry.S).  Before the
 * vkernel replied, the trampoline's report stands for the kick's: drop
 * it (the thread reports anyway).  Once it replied, the thread is its
 * resumed guest: the frame becomes that guest (the record's registers,
 * the reply taken), as if the kick had come just after the jump back, so
 * the kick is answered and no stub address ever shows in a guest's
 * state.  Returns true if the kick is to be dropped.
 */
static bool
utrap_kicked(struct stub_thread *t, uint64_t *g)
{
	uint64_t rip = g[G_RIP], rsp = g[G_RSP];
	bool resumed = rip >= (uint64_t)stub_utrap_restore &&
	    rip < (uint64_t)stub_utrap_trap;

	if (!resumed) {
		bool inside = (rip >= STUB_UTRAP_ENTRY0 &&
		    rip < (uint64_t)stub_utrap_end) ||
		    (rsp >= (uint64_t)t + STUB_UT_STACK_LO &&
		    rsp <= (uint64_t)t + STUB_UT_STACK);
		if (!inside)
			return false;
		if (!(__atomic_load_n(&t->reply, __ATOMIC_ACQUIRE) & WW_POSTED) ||
		    rip >= (uint64_t)stub_utrap_trap)
			return true;
	}
	__atomic_store_n(&t->reply, 0, __ATOMIC_RELEASE);
	load_bases(t);
	struct stub_utrap *u = utrap_record(t);
	static const unsigned char from[16] = {
		[UT_RAX] = G_RAX, [UT_RBX] = G_RBX, [UT_RCX] = G_RCX,
		[UT_RDX] = G_RDX, [UT_RSI] = G_RSI, [UT_RDI] = G_RDI,
		[UT_RBP] = G_RBP, [UT_RSP] = G_RSP, [UT_R8] = G_R8,
		[UT_R9] = G_R9, [UT_R10] = G_R10, [UT_R11] = G_R11,
		[UT_R12] = G_R12, [UT_R13] = G_R13, [UT_R14] = G_R14,
		[UT_R15] = G_R15,
	};
	for (int i = 0; i < 16; i++)
		g[from[i]] = u->reg[i];
	g[G_RIP] = u->rip;
	g[G_EFL] = u->rflags;
	u->convert = 0;
	return false;
}

/*
 * A kick that interrupted a SIGSYS handler: SIGSYS blocks nothing
 * (install_handlers), and every other handler blocks the kick.  The
 * handler looks at thread->kick itself before the guest goes on
 * (stub_entry.S, stub_sig_restart), so the kick is dropped, and one
 * that landed in the resume puts the thread back to that look.  One
 * that landed on the resume's last jump finds the guest's state but
 * rip, which is then completed: the kick is the guest's.  Returns true
 * if the kick is to be dropped.
 */
static bool
sig_kicked(struct stub_thread *t, uint64_t *g)
{
	uint64_t rip = g[G_RIP], rsp = g[G_RSP];
	uint64_t lo = (uint64_t)t + STUB_PAGE, hi = (uint64_t)t + STUB_THREAD_SIZE;

	if (rip == (uint64_t)stub_sig_jump) {
		g[G_RIP] = g[G_RCX];
		return false;
	}
	if (rsp < lo || rsp > hi || rip < STUB_BASE || rip >= STUB_IMAGE_END)
		return false;
	if (rip >= (uint64_t)stub_sig_restart && rip < (uint64_t)stub_sig_jump) {
		uint64_t uc = t->ucontext;
		if (uc < lo || uc >= hi || (uc & 15) != 0)
			die(STUB_EXIT_LAYOUT);
		g[G_RSP] = uc;
		g[G_RIP] = (uint64_t)stub_sig_restart;
		g[G_EFL] = 0x202;	/* not the guest's, loaded already: no DF, AC */
	}
	return true;
}

static void
stub_handler(int sig, void *si, void *uc)
{
	struct stub_thread *t = thread_self();
	uint64_t *g = (uint64_t *)((char *)uc + UC_GREGS);

	if (sig == STUB_SIGKICK) {
		if (!__atomic_load_n(&t->kick, __ATOMIC_ACQUIRE) ||
		    sig_kicked(t, g) ||
		    (boot_page()->utrap && utrap_kicked(t, g)))
			return;
	}
	if (sig == SIGSYS && *(uint64_t *)((char *)uc + UC_SIGMASK) != 0)
		t->sigmasked = 1;
	t->signo = (uint64_t)sig;
	t->siginfo = (uint64_t)si;
	t->ucontext = (uint64_t)uc;
	if (cmd_page()->fsgsbase)
		store_bases(t);
	report(t, true);
	if (sig == SIGSYS)
		stub_sig_resume(uc);
}

/*
 * The vkernel kicked a thread whose SIGSYS handler had its reply
 * (stub_entry.S, stub_sig_restart): the frame, as the vkernel left it
 * to resume with, is the guest's state, reported for the kick.
 */
void
stub_sig_kicked(struct stub_thread *t, void *uc)
{
	t->signo = STUB_SIGKICK;
	t->ucontext = (uint64_t)uc;
	if (cmd_page()->fsgsbase)
		store_bases(t);
	report(t, true);
}

/*
 * The trampoline's wait (stub_entry.S), on the top of the slot's signal
 * stack, its record saved: reports a patched system call, with no frame,
 * and waits for the reply as the handler does (the audit sees the same
 * futex wait).  The reply is taken by the caller, so that a kick until
 * then finds it still posted (utrap_kicked).  Returns 1 if the vkernel
 * asks for a signal frame instead of the resume.
 */
int
stub_utrap_wait(struct stub_thread *t)
{
	struct stub_utrap *u = utrap_record(t);

	store_bases(t);
	t->signo = STUB_SIG_UTRAP;
	report(t, false);
	if (__atomic_load_n(&u->convert, __ATOMIC_ACQUIRE)) {
		u->convert = 0;
		return 1;
	}
	return 0;
}

/*
 * The trampoline table (stub_abi.h): one read-only page of pointers below
 * the guest's lowest address, entry k to trampoline entry k, and below
 * it the page of jumps through it that a near jump reaches.  It is a
 * page of our own image (stub_entry.S), mapped from the file we run: the
 * image maps from offset 0 at STUB_BASE.
 */
static void
map_utrap_table(void)
{
	if (!boot_page()->utrap)
		return;
	long fd = sys3(SYS_open, "/proc/self/exe", O_RDONLY | O_CLOEXEC, 0);
	if (fd < 0 || sys6(SYS_mmap, STUB_UTRAP_TABLE, STUB_PAGE, PROT_READ,
	    MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd,
	    (long)((uint64_t)stub_utrap_table - STUB_BASE)) != (long)STUB_UTRAP_TABLE)
		die(STUB_EXIT_CTL);
	if (sys6(SYS_mmap, STUB_UTRAP_NEAR, STUB_PAGE, PROT_READ | PROT_EXEC,
	    MAP_PRIVATE | MAP_FIXED_NOREPLACE, fd,
	    (long)((uint64_t)stub_utrap_near - STUB_BASE)) != (long)STUB_UTRAP_NEAR)
		die(STUB_EXIT_CTL);
	sys1(SYS_close, fd);
}

static void
set_altstack(uint64_t n)
{
	struct k_stack ss = { (void *)STUB_SLOT_ALTSTACK(n), 0, STUB_ALTSTACK_SIZE };

	if (sys2(SYS_sigaltstack, &ss, 0) != 0)
		die(STUB_EXIT_SIGNALS);
}

/*
 * Every handler but SIGSYS's blocks all signals and returns through
 * rt_sigreturn, which restores the guest's mask.  SIGSYS, the one on
 * every unpatched system call, blocks nothing (SA_NODEFER, an empty
 * mask): it runs with the guest's mask and so can resume the guest
 * without rt_sigreturn (stub_entry.S, stub_sig_resume); a kick may land
 * in it (sig_kicked).
 */
static void
install_handlers(void)
{
	static const int sigs[] = { SIGSYS, SIGSEGV, SIGBUS, SIGILL, SIGFPE,
	    SIGTRAP, STUB_SIGKICK };
	struct k_sigaction sa = {
		.handler = (void *)stub_handler,
		.restorer = stub_restorer,
	};

	set_altstack(0);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sa.flags = SA_SIGINFO | SA_ONSTACK | SA_RESTORER;
		sa.mask = ~0UL;
		if (sigs[i] == SIGSYS) {
			sa.flags |= SA_NODEFER;
			sa.mask = 0;
		}
		if (sys4(SYS_rt_sigaction, sigs[i], &sa, 0, 8) != 0)
			die(STUB_EXIT_SIGNALS);
	}
}

static void
start_mapper(void)
{
	struct stub_sync *s = (struct stub_sync *)STUB_SYNC;
	struct { long sec, nsec; } ms = { 0, 1000000 };

	long tid = stub_clone_mapper();
	if (tid <= 0)
		die(STUB_EXIT_MAPPER);
	s->mapper_tid = tid;
	for (int i = 0; i < 5000; i++) {
		if (__atomic_load_n(&s->ready, __ATOMIC_ACQUIRE))
			return;
		sys4(SYS_futex, &s->ready, FUTEX_WAIT, 0, &ms);
	}
	die(STUB_EXIT_MAPPER);
}

/*
 * The last of the start, on the signal stack (stub_entry.S moved us
 * there): the host's stack, with its auxiliary vector (AT_UID, AT_EXECFN,
 * AT_RANDOM...), and the vdso go, so that no host memory but the stub's
 * own stays where the guest could read or dirty it.  Then the filter and
 * the first trap.
 */
void
stub_start_guest(void)
{
	uint64_t none = 0;

	if (sys2(SYS_munmap, STUB_CTL_END, STUB_HOST_TOP - STUB_CTL_END) != 0)
		die(STUB_EXIT_LAYOUT);
	map_utrap_table();
	sys4(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, 8);
	if (sys3(SYS_seccomp, 1, 0, STUB_BOOT) != 0)
		die(STUB_EXIT_FILTER);
	first_bases((struct stub_thread *)STUB_THREAD);
	/* The first trap: the vkernel answers it with the guest's registers. */
	__asm__ volatile ("int3");
	for (;;)
		__asm__ volatile ("ud2");
}

/*
 * A thread the mapper cloned, on the top of its slot (stub_entry.S).  It
 * has the mapper's filter and signal mask; it takes its slot's signal
 * stack, tells its id (cleared by the host when it exits), and parks
 * under the guest filter as thread 0 did.
 */
void
stub_thread_main(void)
{
	struct stub_thread *t = thread_self();
	uint64_t none = 0;

	set_altstack(((uint64_t)t - STUB_THREAD) / STUB_THREAD_SIZE);
	t->tid = (uint32_t)sys1(SYS_set_tid_address, &t->tid);
	sys4(SYS_rt_sigprocmask, SIG_SETMASK, &none, 0, 8);
	if (sys3(SYS_seccomp, 1, 0, STUB_BOOT) != 0)
		die(STUB_EXIT_FILTER);
	first_bases(t);
	__asm__ volatile ("int3");
	for (;;)
		__asm__ volatile ("ud2");
}

void
stub_main(uint64_t *sp)
{
	uint64_t all = ~0UL;

	(void)sp;
	/* Everything of ours must sit in the reserved region. */
	if ((uint64_t)&all < STUB_CTL_END || (uint64_t)__stub_end > STUB_IMAGE_END)
		die(STUB_EXIT_LAYOUT);
	if (sys6(SYS_mmap, STUB_CMD, STUB_CMD_SIZE, PROT_READ,
	    MAP_SHARED | MAP_FIXED_NOREPLACE, STUB_CTL_FD, 0) != (long)STUB_CMD ||
	    sys6(SYS_mmap, STUB_SYNC, STUB_SLOT(1) - STUB_SYNC,
	    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED_NOREPLACE,
	    STUB_CTL_FD, STUB_CMD_SIZE) != (long)STUB_SYNC)
		die(STUB_EXIT_CTL);
	/*
	 * The control memory stays open for the mapper, which maps a slot
	 * when it clones a thread there: the guest can dirty only the slots
	 * in use, not all of them.  Only the mapper's filter lets fd 4 be used.
	 */
	/* Nothing the host placed may stay in the guest's range. */
	sys2(SYS_munmap, 0, STUB_BASE);

	/*
	 * Spinning stubs (latency placement) run SCHED_BATCH: the CPU, on
	 * another core, wakes a stub on a core where another spins, and a
	 * woken batch task does not preempt (no reschedule IPI; the spinner,
	 * told to yield, gives the core over).  Where the CPU shares our
	 * core (density), preemption is what we want: a stub woken by its
	 * CPU takes over at once, and its next report is there before the
	 * CPU's thread would sleep.  Every thread inherits the policy.
	 */
	int prio0 = 0;
	if (cmd_page()->spin_tsc != 0)
		sys3(SYS_sched_setscheduler, 0, SCHED_BATCH, &prio0);
	sys4(SYS_rt_sigprocmask, SIG_SETMASK, &all, 0, 8);
	install_handlers();
	/* A stub killed with the host's SIGKILL wakes the vkernel at once. */
	sys1(SYS_set_tid_address, &((struct stub_thread *)STUB_THREAD)->req);
	if (sys6(SYS_prctl, PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0, 0) != 0)
		die(STUB_EXIT_FILTER);
	start_mapper();
	stub_leave_host_stack();
}
