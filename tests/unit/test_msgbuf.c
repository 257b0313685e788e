/*
 * The message buffer (kern/subr_msgbuf.c): records of every size come
 * back whole and in order while the ring wraps many times over, the
 * oldest go first, a reader behind the oldest is moved to it; and the
 * two formats, syslog(2)'s and /dev/kmsg's (with its escapes).
 */
#include <stdio.h>

#include "kern/kernel.h"
#include "kern/msgbuf.h"
#include "tests/unit/unit.h"

/* The text of record number i of the test: its length varies with i. */
static size_t
text_of(uint64_t i, char *buf)
{
	size_t len = (size_t)(i * 7919 % (MSG_TEXT_MAX + 1));
	int n = snprintf(buf, MSG_TEXT_MAX + 1, "rec %llu ", (unsigned long long)i);
	for (size_t j = (size_t)n; j < len; j++)
		buf[j] = (char)('a' + (i + j) % 26);
	return len < (size_t)n ? (size_t)n : len;
}

TEST(msgbuf_wraps_in_order)
{
	static char text[MSG_TEXT_MAX + 1];
	static struct msgrec r;
	uint64_t base = msgbuf_next_seq(), last_first = msgbuf_first_seq();
	const uint64_t n = 3000;	/* about 11 times round the ring */

	for (uint64_t i = 0; i < n; i++) {
		size_t len = text_of(i, text);
		CHECK_EQ(msgbuf_append(LOG_FAC_USER, (int)(i % 8), text, len), base + i);
		uint64_t first = msgbuf_first_seq();
		CHECK(first >= last_first);
		last_first = first;
		/* What is live fits the ring: the newest record always is. */
		REQUIRE(msgbuf_get(base + i, &r) == 0);
		CHECK_EQ(r.mr_len, len);
		CHECK(memcmp(r.mr_text, text, len) == 0);
	}
	CHECK_EQ(msgbuf_next_seq(), base + n);
	uint64_t first = msgbuf_first_seq();
	CHECK(first > base + n - MSGBUF_SIZE / (MSG_TEXT_MAX / 4));
	CHECK(first < base + n - 100);
	/* Every live record, in order, from a cold start and with the hint. */
	for (uint64_t s = first; s < base + n; s++) {
		REQUIRE(msgbuf_get(s, &r) == 0);
		CHECK_EQ(r.mr_seq, s);
		size_t len = text_of(s - base, text);
		CHECK_EQ(r.mr_len, len);
		CHECK_EQ(r.mr_level, (s - base) % 8);
		CHECK_EQ(r.mr_facility, LOG_FAC_USER);
		if (memcmp(r.mr_text, text, len) != 0) {
			unit_fail(__FILE__, __LINE__, "record %llu's text",
			    (unsigned long long)s);
			return;
		}
	}
	/* Behind the oldest: the oldest; past the newest: nothing. */
	REQUIRE(msgbuf_get(base, &r) == 0);
	CHECK_EQ(r.mr_seq, first);
	CHECK(msgbuf_get(base + n, &r) == -ENOENT);
}

TEST(msgbuf_formats)
{
	struct msgrec r = { .mr_seq = 42, .mr_ts = 1234567891234ULL, .mr_level = 3,
	    .mr_facility = 1 };
	const char text[] = "one\ntwo \\ \x01\xff";
	memcpy(r.mr_text, text, sizeof(text) - 1);
	r.mr_len = sizeof(text) - 1;
	char buf[256];

	size_t n = msgrec_syslog(&r, buf, sizeof(buf));
	buf[n] = '\0';
	CHECK(strcmp(buf, "<11>[ 1234.567891] one\n<11>[ 1234.567891] two \\ \x01\xff\n") == 0);
	CHECK_EQ(msgrec_syslog(&r, NULL, 0), n);
	CHECK_EQ(msgrec_syslog(&r, buf, 5), n);		/* cut, whole length */
	n = msgrec_kmsg(&r, buf, sizeof(buf));
	buf[n] = '\0';
	CHECK(strcmp(buf, "11,42,1234567891,-;one\\x0atwo \\x5c \\x01\\xff\n") == 0);
	r.mr_len = 0;
	n = msgrec_syslog(&r, buf, sizeof(buf));
	buf[n] = '\0';
	CHECK(strcmp(buf, "<11>[ 1234.567891] \n") == 0);
}
