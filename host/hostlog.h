/*
 * Messages of the host layer, on the vkernel's standard error.  The
 * kernel proper will have its own log; this is for the layer below it.
 */
#ifndef HOST_HOSTLOG_H
#define HOST_HOSTLOG_H

#include <stddef.h>

extern int host_verbose;	/* -v: also print host_debug messages */

void host_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Writes the kernel's console lines (len bytes, whole lines) to standard
 * error, with one write(2).  While the host terminal is raw and standard
 * error is a terminal (host_log_onlcr), each newline goes out as CR LF,
 * as the terminal's own ONLCR would.  host_log and host_debug do the same.
 */
void host_console_log(const char *buf, size_t len);
extern int host_log_onlcr;
void host_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The system-call trace (--strace): host_trace_open sends it to a new file
 * at path instead of standard error (0, or -errno); host_trace_write
 * writes one whole line with one write(2).
 */
int host_trace_open(const char *path);
void host_trace_write(const char *buf, size_t len);

#endif /* HOST_HOSTLOG_H */
