/*
 * syslog(2)'s actions (see syslog.h), after Linux's do_syslog.
 *
 * Locking: the big kernel lock (the reading position and the clear
 * mark); the message buffer has its own.
 */
#include "kern/kernel.h"
#include "kern/kmem.h"
#include "kern/msgbuf.h"
#include "kern/syslog.h"
#include "kern/thread.h"
#include "kern/ucred.h"

#define CAP_SYS_ADMIN	21
#define CAP_SYSLOG	34

int dmesg_restrict = 1;

static uint64_t syslog_seq;		/* READ's next record */
static size_t syslog_partial;		/* bytes of it READ already gave */
static uint64_t clear_seq;		/* READ_ALL's first record */
static int saved_console_loglevel = -1;	/* CONSOLE_OFF's, -1: none */

int
syslog_check(int type, int source, const struct ucred *cr)
{
	if (source == SYSLOG_FROM_PROC && type != SYSLOG_ACTION_OPEN)
		return 0;
	bool restricted = dmesg_restrict || (type != SYSLOG_ACTION_READ_ALL &&
	    type != SYSLOG_ACTION_SIZE_BUFFER);
	if (restricted && !(cr->cr_capeff & (1ULL << CAP_SYSLOG)) &&
	    !(cr->cr_capeff & (1ULL << CAP_SYS_ADMIN)))
		return -EPERM;
	return 0;
}

/*
 * Copies bytes [skip, skip + n) of r's syslog text to dst.  Returns 0 or
 * -ENOMEM.
 */
static int
copy_text(const struct msgrec *r, size_t skip, char *dst, size_t n)
{
	if (skip == 0) {
		msgrec_syslog(r, dst, n);
		return 0;
	}
	size_t len = msgrec_syslog(r, NULL, 0);
	char *tmp = kmalloc(len, 0);
	if (tmp == NULL)
		return -ENOMEM;
	msgrec_syslog(r, tmp, len);
	memcpy(dst, tmp + skip, n);
	kfree(tmp);
	return 0;
}

/* READ: whole records while they fit, or a piece of the first. */
static long
syslog_read(char *kbuf, size_t len)
{
	struct msgrec r;
	size_t n = 0;

	while (msgbuf_get(syslog_seq, &r) < 0) {
		if (tsleep(msgbuf_chan(), PCATCH, "syslog", 0) == EINTR)
			return -ERESTARTSYS;
	}
	while (n < len && msgbuf_get(syslog_seq, &r) == 0) {
		if (r.mr_seq != syslog_seq) {	/* the ring overran us */
			syslog_seq = r.mr_seq;
			syslog_partial = 0;
		}
		size_t tl = msgrec_syslog(&r, NULL, 0) - syslog_partial;
		size_t take = tl <= len - n ? tl : n == 0 ? len : 0;
		if (take == 0)
			break;
		int error = copy_text(&r, syslog_partial, kbuf + n, take);
		if (error < 0)
			return n > 0 ? (long)n : error;
		if (take == tl) {
			syslog_seq++;
			syslog_partial = 0;
		} else {
			syslog_partial += take;
		}
		n += take;
	}
	return (long)n;
}

/*
 * READ_ALL: the newest records since the clear mark that fit in len,
 * oldest first; with clear, the mark moves past them.
 */
static long
syslog_read_all(char *kbuf, size_t len, bool clear)
{
	struct msgrec r;
	uint64_t from = MAX(clear_seq, msgbuf_first_seq());
	uint64_t end = msgbuf_next_seq();
	size_t total = 0, n = 0;

	for (uint64_t s = from; s < end && msgbuf_get(s, &r) == 0; s = r.mr_seq + 1)
		total += msgrec_syslog(&r, NULL, 0);
	while (total > len && from < end && msgbuf_get(from, &r) == 0) {
		total -= msgrec_syslog(&r, NULL, 0);
		from = r.mr_seq + 1;
	}
	uint64_t s = from;
	for (; s < end && msgbuf_get(s, &r) == 0; s = r.mr_seq + 1) {
		size_t tl = msgrec_syslog(&r, NULL, 0);
		if (tl > len - n)
			break;
		msgrec_syslog(&r, kbuf + n, tl);
		n += tl;
	}
	if (clear)
		clear_seq = s;
	return (long)n;
}

/* SIZE_UNREAD: what READ would give now (for /proc/kmsg, records). */
static long
syslog_size_unread(int source)
{
	struct msgrec r;
	uint64_t end = msgbuf_next_seq();
	long n = 0;

	if (syslog_seq < msgbuf_first_seq()) {
		syslog_seq = msgbuf_first_seq();
		syslog_partial = 0;
	}
	if (source == SYSLOG_FROM_PROC)
		return (long)(end - syslog_seq);
	for (uint64_t s = syslog_seq; s < end && msgbuf_get(s, &r) == 0;
	    s = r.mr_seq + 1)
		n += (long)msgrec_syslog(&r, NULL, 0);
	return n - (long)syslog_partial;
}

uint64_t
syslog_clear_seq(void)
{
	return clear_seq;
}

long
kern_syslog(int type, char *kbuf, int len, int source)
{
	switch (type) {
	case SYSLOG_ACTION_CLOSE:
	case SYSLOG_ACTION_OPEN:
		return 0;
	case SYSLOG_ACTION_READ:
		return syslog_read(kbuf, (size_t)len);
	case SYSLOG_ACTION_READ_ALL:
	case SYSLOG_ACTION_READ_CLEAR:
		return syslog_read_all(kbuf, (size_t)len,
		    type == SYSLOG_ACTION_READ_CLEAR);
	case SYSLOG_ACTION_CLEAR:
		clear_seq = msgbuf_next_seq();
		return 0;
	case SYSLOG_ACTION_CONSOLE_OFF:
		if (saved_console_loglevel == -1)
			saved_console_loglevel = console_loglevel;
		console_loglevel = CONSOLE_LOGLEVEL_MIN;
		return 0;
	case SYSLOG_ACTION_CONSOLE_ON:
		if (saved_console_loglevel != -1) {
			console_loglevel = saved_console_loglevel;
			saved_console_loglevel = -1;
		}
		return 0;
	case SYSLOG_ACTION_CONSOLE_LEVEL:
		if (len < 1 || len > 8)
			return -EINVAL;
		console_loglevel = MAX(len, CONSOLE_LOGLEVEL_MIN);
		saved_console_loglevel = -1;	/* and the console is on again */
		return 0;
	case SYSLOG_ACTION_SIZE_UNREAD:
		return syslog_size_unread(source);
	case SYSLOG_ACTION_SIZE_BUFFER:
		return MSGBUF_SIZE;
	}
	return -EINVAL;
}
