/*
 * The kernel log (panic is kern_debug.c's).  kprintf puts each line of its message into
 * the message buffer (subr_msgbuf.c) as a record of its own, with the
 * level its format starts with (KERN_INFO when it names none), and
 * prints the lines whose level is below console_loglevel on the host's
 * standard error as Linux's console shows them, "[    1.234567] text".
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "host/hostlog.h"
#include "kern/kernel.h"
#include "kern/msgbuf.h"
#include "kern/thread.h"

int console_loglevel = CONSOLE_LOGLEVEL_QUIET;

/* One line on the console; out of line, so its buffer is on the stack only then. */
static __attribute__((noinline)) void
log_console(const char *text, size_t len)
{
	char buf[MSG_TEXT_MAX + 32];
	uint64_t t = sched_uptime();
	int n = snprintf(buf, sizeof(buf), "[%5lu.%06lu] %.*s\n",
	    (unsigned long)(t / 1000000000u), (unsigned long)(t % 1000000000u / 1000),
	    (int)MIN(len, (size_t)MSG_TEXT_MAX), text);
	if (n > 0)
		host_console_log(buf, MIN((size_t)n, sizeof(buf) - 1));
}

void
log_emit(int facility, int level, const char *text, size_t len)
{
	msgbuf_append(facility, level, text, len);
	if (level < __atomic_load_n(&console_loglevel, __ATOMIC_RELAXED))
		log_console(text, len);
}

void
kprintf(const char *fmt, ...)
{
	char buf[MSG_TEXT_MAX + 8];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	const char *s = buf, *end = buf + n;
	int level = LOGLEVEL_INFO;
	/* KERN_<level>; KERN_CONT only says "no level of its own". */
	if (n >= 2 && buf[0] == KERN_SOH[0]) {
		if (buf[1] >= '0' && buf[1] <= '7')
			level = buf[1] - '0';
		s += 2;
	}
	while (s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl != NULL ? nl : end;
		log_emit(LOG_FAC_KERN, level, s, (size_t)(eol - s));
		s = nl != NULL ? nl + 1 : end;
	}
}

bool
klog_ratelimit(struct klog_ratelimit *rl)
{
	uint64_t now = sched_uptime();
	if (rl->begin == 0 || now - rl->begin >= KLOG_INTERVAL * 1000000000UL) {
		if (rl->missed > 0)
			kprintf("(%d lines like the next suppressed)\n", rl->missed);
		rl->begin = now != 0 ? now : 1;
		rl->printed = rl->missed = 0;
	}
	if (rl->printed < KLOG_BURST) {
		rl->printed++;
		return true;
	}
	rl->missed++;
	return false;
}
