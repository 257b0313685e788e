/*
 * The Internet checksum (RFC 1071) for lwIP (LWIP_CHKSUM, lwipopts.h):
 * every checksum lwIP makes or verifies (IP headers, TCP, UDP, ICMP, and
 * the copies of LWIP_CHECKSUM_ON_COPY) is this sum.  lwIP's own adds 16
 * bits at a time; on a 64 KiB segment that was the largest single item
 * of a tap flow's profile, either way.  Here eight bytes go in per step:
 * their two 32-bit halves into a 64-bit accumulator, which cannot carry
 * out before 2^32 steps (32 GiB).  The one's complement sum does not
 * depend on byte order (RFC 1071, 2(B)), so the words are summed as the
 * host reads them and the folded result is in the data's own order, as
 * lwIP wants it.
 */
#include <stdint.h>
#include <string.h>

#include "lwip/opt.h"

static inline uint64_t
add32(uint64_t sum, uint64_t w)
{
	return sum + (uint32_t)w + (w >> 32);
}

uint16_t
inet_cksum(const void *data, int len)
{
	const uint8_t *p = data;
	size_t n = len > 0 ? (size_t)len : 0;
	uint64_t s0 = 0, s1 = 0, w0, w1;

	for (; n >= 16; p += 16, n -= 16) {
		memcpy(&w0, p, 8);
		memcpy(&w1, p + 8, 8);
		s0 = add32(s0, w0);
		s1 = add32(s1, w1);
	}
	s0 += s1;
	if (n >= 8) {
		memcpy(&w0, p, 8);
		s0 = add32(s0, w0);
		p += 8;
		n -= 8;
	}
	if (n > 0) {
		/* The tail, zero-padded: an odd last byte is a word's first. */
		w0 = 0;
		memcpy(&w0, p, n);
		s0 = add32(s0, w0);
	}
	s0 = (s0 & 0xffffffff) + (s0 >> 32);
	s0 = (s0 & 0xffffffff) + (s0 >> 32);
	s0 = (s0 & 0xffff) + (s0 >> 16);
	s0 = (s0 & 0xffff) + (s0 >> 16);
	return (uint16_t)s0;
}
