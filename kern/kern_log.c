/*
 * The kernel log and panic.  The log is a ring in RAM-independent static
 * storage for now (it must work before the page allocator does); with -v
 * each line also goes to standard error.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "host/hostlog.h"
#include "kern/kernel.h"
#include "kern/thread.h"

#define KLOG_SIZE	16384

static char klog[KLOG_SIZE];
static size_t klog_pos;

static void
klog_append(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		klog[(klog_pos + i) % KLOG_SIZE] = s[i];
	klog_pos += n;
}

void
kprintf(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if ((size_t)n >= sizeof(buf))
		n = sizeof(buf) - 1;
	klog_append(buf, (size_t)n);
	if (host_verbose)
		fputs(buf, stderr);
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

void
panic(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	host_log("panic: %s", buf);
	abort();
}
