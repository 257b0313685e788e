/*
 * What every file of the kernel proper includes: basic types, panic and
 * assertions, the kernel log, and the big kernel lock's rule.
 *
 * Locking: until the SMP lock split, one big kernel lock serialises all
 * kernel code; a virtual CPU holds it whenever it runs kernel code and
 * drops it only while a guest runs or the CPU idles.  Functions below
 * assume it unless their comment says otherwise.
 */
#ifndef KERN_KERNEL_H
#define KERN_KERNEL_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "host/physmem.h"

/* The Linux release the machine claims to be (uname, /proc/version). */
#define UNAME_RELEASE	"6.1.0-vkernel"

/* A parameter a function of a table's signature may not need. */
#define __unused	__attribute__((unused))

#define howmany(x, y)	(((x) + ((y) - 1)) / (y))
#define roundup2(x, y)	(((x) + ((y) - 1)) & ~((__typeof__(x))(y) - 1))
#define rounddown2(x, y) ((x) & ~((__typeof__(x))(y) - 1))
#define nitems(a)	(sizeof(a) / sizeof((a)[0]))
#define MIN(a, b)	((a) < (b) ? (a) : (b))
#define MAX(a, b)	((a) > (b) ? (a) : (b))

/*
 * What an interrupted system call returns, Linux's kernel-internal
 * errnos: never seen by a guest.  Signal delivery turns them into EINTR
 * or a restart of the call (kern_sig.c: syscall_restart).
 *   ERESTARTSYS     restart if the handler has SA_RESTART, or no handler ran
 *   ERESTARTNOINTR  always restart
 *   ERESTARTNOHAND  restart only if no handler ran (pause, poll, select)
 *   ERESTART_RESTARTBLOCK  no handler ran: restart_syscall continues it
 *                   with what the lwp saved (nanosleep's deadline)
 */
#define ERESTARTSYS		512
#define ERESTARTNOINTR		513
#define ERESTARTNOHAND		514
#define ERESTART_RESTARTBLOCK	516
/*
 * -EXFSZ: a write or truncate past the caller's RLIMIT_FSIZE; the system
 * call sends SIGXFSZ and gives -EFBIG (a file system's own size limit
 * gives -EFBIG with no signal).
 */
#define EXFSZ			1025
/*
 * -EPIPENOSIG: a broken connection that, unlike a pipe's or a stream
 * socket's, raises no SIGPIPE (Linux's datagram and seqpacket sockets);
 * the system-call layer turns it into -EPIPE.
 */
#define EPIPENOSIG		1026

/*
 * A broken kernel invariant: prints why and a backtrace, and stops the
 * machine.  With the debugger set up (kdb_hook), a panic at a terminal
 * console enters it; otherwise vkernel exits with PANIC_STATUS.  Before
 * the kernel boots (the unit tests) it aborts.
 */
void panic(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
#define PANIC_STATUS	99

/*
 * The debugger (kern_debug.c), which lives above every layer: ddb sets
 * kdb_hook at boot.  kdb_enter stops the machine and enters it, if there
 * is one (a host SIGINT, the console escape, -D); it returns once the
 * debugger says continue.  The hook is called with the big lock held,
 * with why, and with the panic message or NULL; on a panic it returns
 * only if the console cannot take commands.
 */
extern void (*kdb_hook)(const char *why, const char *panicstr);
void kdb_enter(const char *why);

/*
 * Prints a backtrace by the frame pointers, from the frame fp whose
 * return address is pc (0: start at fp's), with pr(arg, line) per frame
 * ("#n 0xADDR name+0xoff"); every word is read through host_peek, so a
 * broken chain ends the walk instead of faulting.  Returns the frames
 * printed.
 */
int kdb_backtrace(uintptr_t fp, uintptr_t pc,
    void (*pr)(void *arg, const char *line), void *arg);

#define KASSERT(cond, msg) do {						\
	if (__builtin_expect(!(cond), 0))				\
		panic("assertion \"%s\" failed at %s:%d: %s", #cond,	\
		    __FILE__, __LINE__, msg);				\
} while (0)

/*
 * The kernel log (dmesg): each line of the message is a record of the
 * message buffer (kern/msgbuf.h), at the level the format starts with
 * (KERN_ERR "text\n"; KERN_INFO without one), and is printed on the
 * console (the host's standard error) when its level is below
 * console_loglevel.  A message without a final newline is a record of
 * its own; KERN_CONT is accepted and names no level.  Works anywhere,
 * before the CPUs start and without the big lock.
 */
void kprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#define KERN_SOH	"\001"
#define KERN_EMERG	KERN_SOH "0"
#define KERN_ALERT	KERN_SOH "1"
#define KERN_CRIT	KERN_SOH "2"
#define KERN_ERR	KERN_SOH "3"
#define KERN_WARNING	KERN_SOH "4"
#define KERN_NOTICE	KERN_SOH "5"
#define KERN_INFO	KERN_SOH "6"
#define KERN_DEBUG	KERN_SOH "7"
#define KERN_CONT	KERN_SOH "c"
#define LOGLEVEL_INFO	6

/*
 * Lines below this level are printed on the console: 4 (errors and
 * worse, Linux's "quiet") by default, 8 (everything) with -v; syslog(2)
 * changes it (dmesg -n).
 */
extern int console_loglevel;
#define CONSOLE_LOGLEVEL_QUIET		4
#define CONSOLE_LOGLEVEL_VERBOSE	8
#define CONSOLE_LOGLEVEL_MIN		1

/*
 * One record of the given facility and level (text without a final
 * newline) into the message buffer, and onto the console as kprintf's
 * lines: what kprintf and /dev/kmsg's writers do with a line.
 */
void log_emit(int facility, int level, const char *text, size_t len);

/*
 * For lines a guest can cause at will (an option vkernel does not
 * support): as Linux's printk_ratelimited, each call site logs at most
 * KLOG_BURST lines every KLOG_INTERVAL seconds, and says how many it
 * suppressed when it logs again, so that a fuzzer cannot flood the log.
 */
#define KLOG_BURST	10
#define KLOG_INTERVAL	5
struct klog_ratelimit {
	uint64_t begin;		/* sched_uptime of the interval's start */
	int printed, missed;
};

/* Whether a call site with state rl may log now (see above). */
bool klog_ratelimit(struct klog_ratelimit *rl);

#define kprintf_ratelimited(...) do {					\
	static struct klog_ratelimit rl_;				\
	if (klog_ratelimit(&rl_))					\
		kprintf(__VA_ARGS__);					\
} while (0)

#endif /* KERN_KERNEL_H */
