/*
 * The kernel log (panic is kern_debug.c's).  The log is a ring in
 * RAM-independent static storage for now (it must work before the page
 * allocator does); with -v each line also goes to standard error.  Each
 * line is stored as Linux's syslog(2) gives it, "<6>[    1.234567] text"
 * (KERN_INFO, seconds since boot), for dmesg.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "host/hostlog.h"
#include "kern/kernel.h"
#include "kern/thread.h"

static char klog[KLOG_SIZE];
static uint64_t klog_pos;		/* bytes ever written */
static bool klog_midline;		/* the last line has no newline yet */

static void
klog_put(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		klog[(klog_pos + i) % KLOG_SIZE] = s[i];
	klog_pos += n;
}

/* Appends text, each line that begins here with its level and time. */
static void
klog_append(const char *s, size_t n)
{
	while (n > 0) {
		if (!klog_midline) {
			char head[40];
			uint64_t t = sched_uptime();
			int h = snprintf(head, sizeof(head), "<6>[%5lu.%06lu] ",
			    (unsigned long)(t / 1000000000u),
			    (unsigned long)(t % 1000000000u / 1000));
			klog_put(head, (size_t)h);
			klog_midline = true;
		}
		const char *nl = memchr(s, '\n', n);
		size_t len = nl != NULL ? (size_t)(nl - s) + 1 : n;
		klog_put(s, len);
		if (nl != NULL)
			klog_midline = false;
		s += len;
		n -= len;
	}
}

uint64_t
klog_end(void)
{
	return klog_pos;
}

uint64_t
klog_start(uint64_t from)
{
	uint64_t oldest = klog_pos > KLOG_SIZE ? klog_pos - KLOG_SIZE : 0;
	if (from <= oldest) {
		if (oldest == 0)
			return 0;
		/* The ring has cut whatever line held its oldest byte. */
		from = oldest;
		while (from < klog_pos && klog[from % KLOG_SIZE] != '\n')
			from++;
		return from < klog_pos ? from + 1 : from;
	}
	while (from < klog_pos && klog[(from - 1) % KLOG_SIZE] != '\n')
		from++;
	return from;
}

size_t
klog_copy(uint64_t from, char *dst, size_t len)
{
	size_t n = 0;
	for (uint64_t i = klog_start(from); i < klog_pos && n < len; i++)
		dst[n++] = klog[i % KLOG_SIZE];
	return n;
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
