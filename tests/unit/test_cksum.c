/*
 * The Internet checksum lwIP uses (net/inet_cksum.c), against RFC 1071's
 * plain 16-bit loop over the bytes in network order: every length from
 * 0 to 300 at every start alignment, a 64 KiB segment, all-ones data
 * (the carries), and a buffer holding its own checksum summing to 0xffff.
 */
#include <stdint.h>
#include <string.h>

#include "tests/unit/unit.h"

uint16_t inet_cksum(const void *data, int len);	/* lwipopts.h's LWIP_CHKSUM */

/* RFC 1071's sum, folded, in network order; returned as the bytes lie. */
static uint16_t
ref_cksum(const uint8_t *p, size_t n)
{
	uint32_t sum = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	uint8_t be[2] = { (uint8_t)(sum >> 8), (uint8_t)sum };
	uint16_t r;
	memcpy(&r, be, 2);
	return r;
}

TEST(cksum_matches_rfc1071)
{
	static uint8_t buf[65536 + 16];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245 + 12345;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t align = 0; align < 8; align++)
		for (size_t n = 0; n <= 300; n++)
			CHECK_EQ(inet_cksum(buf + align, (int)n), ref_cksum(buf + align, n));
	CHECK_EQ(inet_cksum(buf + 3, 65535), ref_cksum(buf + 3, 65535));
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(inet_cksum(buf + 1, 65536), ref_cksum(buf + 1, 65536));
	CHECK_EQ(inet_cksum(buf, 0), 0);
}

TEST(cksum_of_checksummed_data_is_ffff)
{
	uint8_t pkt[1001];

	for (size_t i = 0; i < sizeof(pkt); i++)
		pkt[i] = (uint8_t)(i * 37 + 11);
	pkt[10] = pkt[11] = 0;
	uint16_t c = (uint16_t)~inet_cksum(pkt, sizeof(pkt));
	memcpy(pkt + 10, &c, 2);
	CHECK_EQ(inet_cksum(pkt, sizeof(pkt)), 0xffff);
}
