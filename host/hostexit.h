/*
 * The ways the vkernel process ends, seen from the host: what must be
 * undone however it ends (the terminal's modes, the pid file), and the
 * re-execution that is a reboot.
 */
#ifndef HOST_HOSTEXIT_H
#define HOST_HOSTEXIT_H

/*
 * Runs fn when a fatal signal (abort, hence panic; a fault; SIGPIPE,
 * SIGALRM...) ends the process, before the signal takes its course
 * under the action it had (the default, or a sanitizer's).  fn must be
 * async-signal safe and may run more than once.  At most 4 functions;
 * the first call installs the handlers.  0, or -1 (too many).
 */
int host_on_fatal(void (*fn)(void));

/*
 * Ends the process at once with status (a panic): the host_on_fatal
 * functions run first, so the terminal and the pid file are left as a
 * fatal signal would leave them.
 */
void host_exit_fatal(int status) __attribute__((noreturn));

/*
 * Reboot: executes this program again (/proc/self/exe, so a rebuilt or
 * deleted binary does not matter) with argv, in this process (same pid,
 * same environment).  Descriptors opened close-on-exec go, and with them
 * the disks' and the RAM file's locks.  Returns only on failure, -errno.
 */
int host_reexec(char *const argv[]);

#endif /* HOST_HOSTEXIT_H */
