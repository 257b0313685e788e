/*
 * The message buffer (see msgbuf.h).
 *
 * Records lie in a byte ring at 8-byte aligned offsets, each a header
 * and its text, never split across the ring's end: a record that would
 * be goes to the start, and the space left at the end is skipped (a
 * header with no size marks it when one fits).  Positions are counted
 * from boot and only grow, so the live records are [head, tail) and a
 * byte's place is its position modulo MSGBUF_SIZE.
 *
 * The ring is static, not in RAM: the kernel logs before the page
 * allocator exists, and a panic must still find the log.
 */
#include <stdio.h>

#include "kern/kernel.h"
#include "kern/msgbuf.h"
#include "kern/thread.h"

struct msghdr {
	uint64_t mh_seq;
	uint64_t mh_ts;
	uint16_t mh_len;	/* text bytes */
	uint16_t mh_size;	/* header, text and padding; 0: skip to the start */
	uint8_t mh_level;
	uint8_t mh_facility;
};

#define MSGHDR_SIZE	roundup2(sizeof(struct msghdr), 8)

static _Alignas(8) char msgbuf[MSGBUF_SIZE];
static uint64_t head, tail;		/* positions of the live records */
static uint64_t first_seq, next_seq;	/* their sequence numbers */
static uint64_t hint_seq, hint_pos;	/* a record's position, for readers */
static bool lock_word;
static bool wake_pending;		/* records since the last wake-up */

void (*msgbuf_notify_hook)(void);

static void
msgbuf_lock(void)
{
	while (__atomic_test_and_set(&lock_word, __ATOMIC_ACQUIRE))
		__builtin_ia32_pause();
}

static void
msgbuf_unlock(void)
{
	__atomic_clear(&lock_word, __ATOMIC_RELEASE);
}

static struct msghdr *
hdr_at(uint64_t pos)
{
	return (struct msghdr *)(msgbuf + pos % MSGBUF_SIZE);
}

/* Whether the record at pos is a skip to the ring's start. */
static bool
is_skip(uint64_t pos)
{
	return MSGBUF_SIZE - pos % MSGBUF_SIZE < MSGHDR_SIZE ||
	    hdr_at(pos)->mh_size == 0;
}

/* The position of the next record after the one at pos (not a skip). */
static uint64_t
next_pos(uint64_t pos)
{
	pos += hdr_at(pos)->mh_size;
	if (pos < tail && is_skip(pos))
		pos = roundup2(pos + 1, MSGBUF_SIZE);
	return pos;
}

/* Drops the oldest record. */
static void
drop_oldest(void)
{
	head = next_pos(head);
	first_seq++;
}

uint64_t
msgbuf_append(int facility, int level, const char *text, size_t len)
{
	if (len > MSG_TEXT_MAX)
		len = MSG_TEXT_MAX;
	uint16_t size = (uint16_t)roundup2(MSGHDR_SIZE + len, 8);
	uint64_t ts = sched_uptime();

	msgbuf_lock();
	uint64_t at = tail;
	if (at % MSGBUF_SIZE + size > MSGBUF_SIZE)
		at = roundup2(at + 1, MSGBUF_SIZE);
	while (head < tail && at + size - head > MSGBUF_SIZE)
		drop_oldest();
	if (head == tail)
		head = at;		/* empty: start where this one goes */
	else if (at != tail && MSGBUF_SIZE - tail % MSGBUF_SIZE >= MSGHDR_SIZE)
		hdr_at(tail)->mh_size = 0;	/* the rest of the ring is skipped */
	struct msghdr *h = hdr_at(at);
	*h = (struct msghdr){ .mh_seq = next_seq, .mh_ts = ts,
	    .mh_len = (uint16_t)len, .mh_size = size,
	    .mh_level = (uint8_t)(level & 7), .mh_facility = (uint8_t)facility };
	memcpy((char *)h + MSGHDR_SIZE, text, len);
	tail = at + size;
	uint64_t seq = next_seq++;
	wake_pending = true;
	msgbuf_unlock();
	return seq;
}

int
msgbuf_get(uint64_t seq, struct msgrec *r)
{
	msgbuf_lock();
	if (seq >= next_seq) {
		msgbuf_unlock();
		return -ENOENT;
	}
	uint64_t s = first_seq, pos = head;
	if (seq < first_seq)
		seq = first_seq;
	else if (hint_seq >= first_seq && hint_seq <= seq && hint_seq < next_seq) {
		s = hint_seq;
		pos = hint_pos;
	}
	for (; s < seq; s++)
		pos = next_pos(pos);
	const struct msghdr *h = hdr_at(pos);
	r->mr_seq = h->mh_seq;
	r->mr_ts = h->mh_ts;
	r->mr_len = h->mh_len;
	r->mr_level = h->mh_level;
	r->mr_facility = h->mh_facility;
	memcpy(r->mr_text, (const char *)h + MSGHDR_SIZE, h->mh_len);
	hint_seq = s;
	hint_pos = pos;
	msgbuf_unlock();
	KASSERT(r->mr_seq == seq, "msgbuf_get: the ring lost its order");
	return 0;
}

uint64_t
msgbuf_first_seq(void)
{
	return __atomic_load_n(&first_seq, __ATOMIC_ACQUIRE);
}

uint64_t
msgbuf_next_seq(void)
{
	return __atomic_load_n(&next_seq, __ATOMIC_ACQUIRE);
}

const void *
msgbuf_chan(void)
{
	return msgbuf;
}

void
msgbuf_wakeup(void)
{
	if (!__atomic_exchange_n(&wake_pending, false, __ATOMIC_ACQ_REL))
		return;
	wakeup(msgbuf);
	if (msgbuf_notify_hook != NULL)
		msgbuf_notify_hook();
}

/* Appends to buf what fits of s, counting all of it in *n. */
static void
put(char *buf, size_t cap, size_t *n, const char *s, size_t len)
{
	if (*n < cap)
		memcpy(buf + *n, s, MIN(len, cap - *n));
	*n += len;
}

size_t
msgrec_syslog(const struct msgrec *r, char *buf, size_t cap)
{
	char head[48];
	int hl = snprintf(head, sizeof(head), "<%u>[%5lu.%06lu] ",
	    (unsigned)(r->mr_facility << 3 | r->mr_level),
	    (unsigned long)(r->mr_ts / 1000000000u),
	    (unsigned long)(r->mr_ts % 1000000000u / 1000));
	size_t n = 0;
	const char *s = r->mr_text, *end = s + r->mr_len;
	do {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		const char *eol = nl != NULL ? nl : end;
		put(buf, cap, &n, head, (size_t)hl);
		put(buf, cap, &n, s, (size_t)(eol - s));
		put(buf, cap, &n, "\n", 1);
		s = nl != NULL ? nl + 1 : end;
	} while (s < end);
	return n;
}

size_t
msgrec_kmsg(const struct msgrec *r, char *buf, size_t cap)
{
	char head[64];
	int hl = snprintf(head, sizeof(head), "%u,%llu,%llu,-;",
	    (unsigned)(r->mr_facility << 3 | r->mr_level),
	    (unsigned long long)r->mr_seq,
	    (unsigned long long)(r->mr_ts / 1000));
	size_t n = 0;
	put(buf, cap, &n, head, (size_t)hl);
	for (size_t i = 0; i < r->mr_len; i++) {
		unsigned char c = (unsigned char)r->mr_text[i];
		if (c < ' ' || c >= 127 || c == '\\') {
			char esc[5];
			snprintf(esc, sizeof(esc), "\\x%02x", c);
			put(buf, cap, &n, esc, 4);
		} else {
			put(buf, cap, &n, (const char *)&c, 1);
		}
	}
	put(buf, cap, &n, "\n", 1);
	return n;
}
