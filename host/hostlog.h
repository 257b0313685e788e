/*
 * Messages of the host layer, on the vkernel's standard error.  The
 * kernel proper will have its own log; this is for the layer below it.
 */
#ifndef HOST_HOSTLOG_H
#define HOST_HOSTLOG_H

extern int host_verbose;	/* -v: also print host_debug messages */

void host_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void host_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* HOST_HOSTLOG_H */
