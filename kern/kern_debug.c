/*
 * The kernel's side of the debugger: the hook ddb/ sets (ddb ranks
 * above every layer, so the layers below reach it through this), and
 * the frame-pointer backtrace that both ddb's trace and panic print.
 *
 * The kernel is built with frame pointers (-fno-omit-frame-pointer), so
 * every frame starts with the caller's rbp and the return address: the
 * chain is a linked list up the stack.  A kernel thread's stack is in
 * RAM, a CPU's idle thread's is its host thread's; the walk stops at a
 * zero or non-increasing frame pointer (a new thread's first frame has
 * rbp 0), or at a word the host says is not readable.
 */
#include <stdio.h>

#include "host/hostdbg.h"
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
