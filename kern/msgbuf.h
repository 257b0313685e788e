/*
 * The kernel's message buffer: every message the kernel logs (kprintf)
 * and every line a process writes to /dev/kmsg, as records in one ring,
 * Linux's printk ring in small: each record has a sequence number (one
 * more than the last, never reused), a time since boot, a level (0
 * emergency .. 7 debug) and a facility (0 the kernel, 1 user), and one
 * message's text.  When the ring is full the oldest records go; a reader
 * keeps the sequence number it wants next and learns that it lost
 * records when the first one left is past it.
 *
 * Readers: syslog(2) and /proc/kmsg (kern_syslog.c), /dev/kmsg
 * (dev/kmsg.c), the debugger.  They format records with msgrec_syslog
 * ("<6>[    1.234567] text", what dmesg reads) or msgrec_kmsg
 * ("6,42,1234567,-;text", /dev/kmsg's).
 *
 * Locking: its own spin lock, so that kprintf works from any kernel
 * code, before the CPUs start and without the big lock.  Readers are
 * woken at the next tick (msgbuf_wakeup), within 10 ms.
 */
#ifndef KERN_MSGBUF_H
#define KERN_MSGBUF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define MSGBUF_SIZE	(128 * 1024)	/* Linux's default log_buf_len */
#define MSG_TEXT_MAX	992		/* a record's text (Linux's LOG_LINE_MAX) */

#define LOG_FAC_KERN	0
#define LOG_FAC_USER	1

struct msgrec {
	uint64_t mr_seq;
	uint64_t mr_ts;			/* nanoseconds since boot */
	uint16_t mr_len;		/* of mr_text, no newline at the end */
	uint8_t mr_level;		/* 0..7 */
	uint8_t mr_facility;
	char mr_text[MSG_TEXT_MAX];
};

/*
 * Stores one record of len bytes of text (cut at MSG_TEXT_MAX), dropping
 * the oldest records to make room; readers are woken at the next tick.
 * Returns its sequence number.
 */
uint64_t msgbuf_append(int facility, int level, const char *text, size_t len);

/*
 * Copies the first record whose sequence number is seq or more into r.
 * Returns 0, or -ENOENT if there is none yet.  r->mr_seq above seq means
 * the records between were lost.
 */
int msgbuf_get(uint64_t seq, struct msgrec *r);

/* The oldest record's sequence number, and the next record's. */
uint64_t msgbuf_first_seq(void);
uint64_t msgbuf_next_seq(void);

/*
 * What readers sleep on (tsleep(msgbuf_chan(), ...)); a new record wakes
 * them.  msgbuf_notify_hook, if set, is called too (with the big lock),
 * for readers that poll.
 */
const void *msgbuf_chan(void);
extern void (*msgbuf_notify_hook)(void);

/*
 * Wakes the readers if records came since the last call.  The tick calls
 * it, with the big lock: kprintf may run where waking is not safe (the
 * scheduler, a panic), so it only notes that a wake-up is owed, as
 * Linux's printk defers its klogd wake-up.
 */
void msgbuf_wakeup(void);

/*
 * r as syslog(2) gives it: each line of its text (a record may hold
 * several) as "<P>[SSSSS.UUUUUU] line\n", P the facility times 8 plus
 * the level.  Writes at most cap bytes to buf (buf may be NULL with cap
 * 0) and returns the whole length, as snprintf.
 */
size_t msgrec_syslog(const struct msgrec *r, char *buf, size_t cap);

/*
 * r as /dev/kmsg gives it: "P,SEQ,USEC,-;text\n", control bytes, bytes
 * above 126 and backslashes in the text as \xNN.  As msgrec_syslog.
 */
size_t msgrec_kmsg(const struct msgrec *r, char *buf, size_t cap);

#endif /* KERN_MSGBUF_H */
