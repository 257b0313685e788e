/*
 * The kernel's side of the debugger: the hook ddb/ sets (ddb ranks
 * above every layer, so the layers below reach it through this), the
 * frame-pointer backtrace that both ddb's trace and panic print, and
 * panic itself.
 *
 * The kernel is built with frame pointers (-fno-omit-frame-pointer), so
 * every frame starts with the caller's rbp and the return address: the
 * chain is a linked list up the stack.  A kernel thread's stack is in
 * RAM, a CPU's idle thread's is its host thread's; the walk stops at a
 * zero or non-increasing frame pointer (a new thread's first frame has
 * rbp 0), or at a word the host says is not readable.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "host/cons_host.h"
#include "host/hostdbg.h"
#include "host/hostlog.h"
#include "kern/kernel.h"

#define KDB_MAXFRAMES	48
#define KDB_MAXFRAME	(1UL << 20)	/* no frame of ours is larger */

void (*kdb_hook)(const char *why, const char *panicstr);

void
kdb_enter(const char *why)
{
	if (kdb_hook != NULL)
		kdb_hook(why, NULL);
}

static void
kdb_frame(int n, uintptr_t pc, void (*pr)(void *, const char *), void *arg)
{
	char line[160];
	uintptr_t off;
	/* A return address is after its call: name the call's symbol. */
	const char *name = host_symbol(pc - 1, &off);

	if (name != NULL)
		snprintf(line, sizeof(line), "#%-2d 0x%016lx %s+0x%lx", n,
		    (unsigned long)pc, name, (unsigned long)off + 1);
	else
		snprintf(line, sizeof(line), "#%-2d 0x%016lx ?", n, (unsigned long)pc);
	pr(arg, line);
}

int
kdb_backtrace(uintptr_t fp, uintptr_t pc, void (*pr)(void *, const char *),
    void *arg)
{
	int n = 0;

	if (pc != 0)
		kdb_frame(n++, pc, pr, arg);
	while (fp != 0 && (fp & 7) == 0 && n < KDB_MAXFRAMES) {
		uintptr_t frame[2];	/* the caller's rbp, the return address */
		if (host_peek(frame, fp, sizeof(frame)) < 0 || frame[1] == 0)
			break;
		kdb_frame(n++, frame[1], pr, arg);
		if (frame[0] <= fp || frame[0] - fp > KDB_MAXFRAME)
			break;
		fp = frame[0];
	}
	return n;
}

static void
panic_line(void *arg, const char *line)
{
	(void)arg;
	host_log("  %s", line);
}

/*
 * The debugger first, if the console can take commands (it shows the
 * message and the backtrace itself); then, with the terminal back as it
 * was, the message and the backtrace on standard error; then the exit,
 * PANIC_STATUS, which a script can tell from any status of init's.  A
 * panic while panicking (the debugger's own) exits at once.
 */
void
panic(const char *fmt, ...)
{
	static int panicking;
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (kdb_hook == NULL) {		/* no kernel booted: the unit tests */
		host_log("panic: %s", buf);
		abort();
	}
	if (__atomic_fetch_add(&panicking, 1, __ATOMIC_SEQ_CST) != 0) {
		host_log("panic: %s (while panicking)", buf);
		host_exit_now(PANIC_STATUS);
	}
	kprintf("panic: %s\n", buf);
	kdb_hook("panic", buf);
	/* Once the debugger is left, or if it could not be entered. */
	cons_host_restore();
	host_log("panic: %s", buf);
	kdb_backtrace((uintptr_t)__builtin_frame_address(0), 0, panic_line, NULL);
	host_exit_now(PANIC_STATUS);
}
