/*
 * Signals sent to the vkernel process itself: the terminal's ^C, ^\ and
 * ^Z while the console is in cooked mode, SIGTERM and SIGHUP, and the
 * terminal's SIGWINCH and SIGCONT.  They are noted
 * and posted to CPU 0 as INTR_SIGNAL; the kernel takes them with
 * host_signals_take and decides (the console's foreground processes get
 * the terminal's, SIGTERM shuts down).
 */
#ifndef HOST_HOSTSIG_H
#define HOST_HOSTSIG_H

#include <stdint.h>

/*
 * Catches SIGINT, SIGQUIT, SIGTSTP, SIGTERM, SIGHUP (unless ignored),
 * SIGWINCH and SIGCONT.  0 or -1 with errno.
 */
int host_signals_init(void);

/* The signals caught since the last call, as a mask of 1 << signo. */
uint64_t host_signals_take(void);

#endif /* HOST_HOSTSIG_H */
