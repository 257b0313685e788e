/*
 * syslog(2)'s actions on the message buffer (kern_syslog.c), shared by
 * the system call (sys/sys_syslog.c) and /proc/kmsg: one reading
 * position that READ consumes from, one clear mark that READ_ALL starts
 * at, and the console level.  They work on kernel buffers; the callers
 * copy out.
 */
#ifndef KERN_SYSLOG_H
#define KERN_SYSLOG_H

#include <stdbool.h>
#include <stdint.h>

struct ucred;

/* Linux's SYSLOG_ACTION_* */
enum {
	SYSLOG_ACTION_CLOSE, SYSLOG_ACTION_OPEN, SYSLOG_ACTION_READ,
	SYSLOG_ACTION_READ_ALL, SYSLOG_ACTION_READ_CLEAR, SYSLOG_ACTION_CLEAR,
	SYSLOG_ACTION_CONSOLE_OFF, SYSLOG_ACTION_CONSOLE_ON,
	SYSLOG_ACTION_CONSOLE_LEVEL, SYSLOG_ACTION_SIZE_UNREAD,
	SYSLOG_ACTION_SIZE_BUFFER,
};

/* Who asks: the system call, or /proc/kmsg (checked at its open). */
enum { SYSLOG_FROM_READER, SYSLOG_FROM_PROC };

/*
 * Linux's check_syslog_permissions: 0, or -EPERM when cr lacks
 * CAP_SYSLOG and CAP_SYS_ADMIN for a restricted action.  With
 * dmesg_restrict (1, Debian's default) every action is restricted;
 * without it all but READ_ALL and SIZE_BUFFER.  /proc/kmsg's reads are
 * not checked, only its open.
 */
extern int dmesg_restrict;
int syslog_check(int type, int source, const struct ucred *cr);

/*
 * The action type with buffer kbuf of len bytes (READ, READ_ALL,
 * READ_CLEAR fill it; CONSOLE_LEVEL takes len as the level).  What
 * syslog(2) returns: a count, the bytes read, or a negative errno.
 * READ sleeps (interruptibly: -ERESTARTSYS) until there is something to
 * read; a caller that must not sleep asks SIZE_UNREAD first.  Does not
 * check permissions (syslog_check) nor the user's buffer.
 */
long kern_syslog(int type, char *kbuf, int len, int source);

/* The clear mark: the first record READ_ALL gives (/dev/kmsg's SEEK_DATA). */
uint64_t syslog_clear_seq(void);

#endif /* KERN_SYSLOG_H */
