/*
 * Host-layer messages (see hostlog.h).  One write per message, so lines
 * from different threads do not interleave.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#include "hostlog.h"

int host_verbose;
int host_log_onlcr;
static int trace_fd = STDERR_FILENO;

void
host_console_log(const char *buf, size_t len)
{
	char out[2048];
	size_t n = 0;

	if (!__atomic_load_n(&host_log_onlcr, __ATOMIC_RELAXED)) {
		(void)!write(STDERR_FILENO, buf, len);
		return;
	}
	for (size_t i = 0; i < len; i++) {
		if (n + 2 > sizeof(out)) {
			(void)!write(STDERR_FILENO, out, n);
			n = 0;
		}
		if (buf[i] == '\n')
			out[n++] = '\r';
		out[n++] = buf[i];
	}
	(void)!write(STDERR_FILENO, out, n);
}

static void
host_vlog(const char *fmt, va_list ap)
{
	char buf[512];
	int n = snprintf(buf, sizeof(buf), "vkernel: ");
	n += vsnprintf(buf + n, sizeof(buf) - (size_t)n - 1, fmt, ap);
	if (n > (int)sizeof(buf) - 2)
		n = (int)sizeof(buf) - 2;
	buf[n++] = '\n';
	host_console_log(buf, (size_t)n);
}

void
host_log(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	host_vlog(fmt, ap);
	va_end(ap);
}

void
host_debug(const char *fmt, ...)
{
	if (!host_verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	host_vlog(fmt, ap);
	va_end(ap);
}

int
host_trace_open(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	trace_fd = fd;
	return 0;
}

void
host_trace_write(const char *buf, size_t len)
{
	(void)!write(trace_fd, buf, len);
}
