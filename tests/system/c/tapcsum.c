/*
 * Host side of tests/system/net_tap.t (run on the host, in the test's
 * namespace): TCP checksums across a tap with checksum offload.
 *
 *   tapcsum IFNAME HOSTIP GUESTIP GUESTMAC
 *
 * Sends the guest two SYNs to a closed port from the tap's host side
 * through a packet socket, so the host's stack vouches for neither (no
 * checksum state: the guest must verify them): one with its checksum
 * broken, which the guest must drop (no answer), one whole, which the
 * guest answers with a reset.  The reset's checksum is checked as a
 * wire would see it: a partial one (the guest left it to the host) is
 * finished first, as the host's NIC would.  Prints "corrupt: dropped"
 * or "corrupt: answered", then "good: checksum ok", "good: checksum
 * bad" or "good: no answer" (with how the checksum came).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* virtio-net's header, which PACKET_VNET_HDR puts before each frame. */
struct virtio_net_hdr {
	uint8_t flags;
	uint8_t gso_type;
	uint16_t hdr_len, gso_size, csum_start, csum_offset;
};
#define VIRTIO_NET_HDR_F_NEEDS_CSUM	1

static int s;
static int partial;	/* the answer came with its checksum partial */
static struct sockaddr_ll to;
static uint8_t hostmac[6], guestmac[6];
static uint32_t hostip, guestip;

/* RFC 1071's sum of n bytes, added to sum, not folded. */
static uint32_t
sum16(const uint8_t *p, size_t n, uint32_t sum)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (n & 1)
		sum += (uint32_t)p[n - 1] << 8;
	return sum;
}

static uint16_t
fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The TCP checksum of the segment at tcp (len bytes) between src and dst. */
static uint16_t
tcp_sum(const uint8_t *tcp, size_t len, const uint8_t *src, const uint8_t *dst)
{
	uint8_t ph[12];
	memcpy(ph, src, 4);
	memcpy(ph + 4, dst, 4);
	ph[8] = 0;
	ph[9] = 6;
	ph[10] = (uint8_t)(len >> 8);
	ph[11] = (uint8_t)len;
	return fold(sum16(tcp, len, sum16(ph, 12, 0)));
}

/* A SYN to the guest's port 9 from port sport, its checksum broken or not. */
static void
send_syn(uint16_t sport, int broken)
{
	uint8_t f[sizeof(struct virtio_net_hdr) + 14 + 20 + 20];
	uint8_t *e = f + sizeof(struct virtio_net_hdr), *ip = e + 14, *tcp = ip + 20;

	memset(f, 0, sizeof(f));	/* the virtio header: nothing vouched for */
	memcpy(e, guestmac, 6);
	memcpy(e + 6, hostmac, 6);
	e[12] = 0x08;
	ip[0] = 0x45;
	ip[3] = 40;
	ip[4] = (uint8_t)(sport >> 8);
	ip[5] = (uint8_t)sport;
	ip[8] = 64;
	ip[9] = 6;
	memcpy(ip + 12, &hostip, 4);
	memcpy(ip + 16, &guestip, 4);
	uint16_t c = (uint16_t)~fold(sum16(ip, 20, 0));
	ip[10] = (uint8_t)(c >> 8);
	ip[11] = (uint8_t)c;
	tcp[0] = (uint8_t)(sport >> 8);
	tcp[1] = (uint8_t)sport;
	tcp[3] = 9;
	tcp[4] = 0x12;
	tcp[5] = 0x34;
	tcp[12] = 5 << 4;
	tcp[13] = 0x02;		/* SYN */
	tcp[14] = 0xff;
	tcp[15] = 0xff;
	c = (uint16_t)~tcp_sum(tcp, 20, ip + 12, ip + 16);
	if (broken)
		c ^= 0x0100;
	tcp[16] = (uint8_t)(c >> 8);
	tcp[17] = (uint8_t)c;
	if (sendto(s, f, sizeof(f), 0, (struct sockaddr *)&to, sizeof(to)) < 0) {
		perror("tapcsum: sendto");
		exit(2);
	}
}

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * Waits up to secs for the guest's TCP answer to port dport: -1 if none,
 * else 1 if its checksum is right (finished first if partial), 0 if not.
 */
static int
answer(uint16_t dport, double secs)
{
	uint8_t f[70000];
	double end = now() + secs;

	for (double left; (left = end - now()) > 0; ) {
		struct pollfd pfd = { s, POLLIN, 0 };
		if (poll(&pfd, 1, (int)(left * 1000) + 1) <= 0)
			continue;
		ssize_t n = recv(s, f, sizeof(f), 0);
		struct virtio_net_hdr *vh = (struct virtio_net_hdr *)f;
		uint8_t *e = f + sizeof(*vh), *ip = e + 14;
		if (n < (ssize_t)(sizeof(*vh) + 14 + 40) || e[12] != 0x08 || e[13] != 0 ||
		    ip[9] != 6 || memcmp(ip + 12, &guestip, 4) != 0)
			continue;
		size_t hl = (size_t)(ip[0] & 0xf) * 4, len = (size_t)(ip[2] << 8 | ip[3]);
		uint8_t *tcp = ip + hl;
		if ((uint16_t)(tcp[2] << 8 | tcp[3]) != dport || len < hl + 20 ||
		    (size_t)n < sizeof(*vh) + 14 + len)
			continue;
		partial = vh->flags & VIRTIO_NET_HDR_F_NEEDS_CSUM;
		if (partial) {
			/* What the host's NIC would do for a wire. */
			uint8_t *start = e + vh->csum_start;
			size_t k = (size_t)(e + 14 + len - start);
			uint16_t c = (uint16_t)~fold(sum16(start, k, 0));
			start[vh->csum_offset] = (uint8_t)(c >> 8);
			start[vh->csum_offset + 1] = (uint8_t)c;
		}
		return tcp_sum(tcp, len - hl, ip + 12, ip + 16) == 0xffff;
	}
	return -1;
}

static int
parse_mac(const char *a, uint8_t *m)
{
	unsigned v[6];
	if (sscanf(a, "%x:%x:%x:%x:%x:%x", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5]) != 6)
		return -1;
	for (int i = 0; i < 6; i++)
		m[i] = (uint8_t)v[i];
	return 0;
}

int
main(int argc, char **argv)
{
	struct ifreq ifr;
	int one = 1;

	if (argc != 5 || inet_pton(AF_INET, argv[2], &hostip) != 1 ||
	    inet_pton(AF_INET, argv[3], &guestip) != 1 || parse_mac(argv[4], guestmac) < 0) {
		fprintf(stderr, "usage: tapcsum IFNAME HOSTIP GUESTIP GUESTMAC\n");
		return 2;
	}
	s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	if (s < 0 || setsockopt(s, SOL_PACKET, PACKET_VNET_HDR, &one, sizeof(one)) < 0) {
		perror("tapcsum: packet socket");
		return 2;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", argv[1]);
	if (ioctl(s, SIOCGIFINDEX, &ifr) < 0) {
		perror("tapcsum: SIOCGIFINDEX");
		return 2;
	}
	to.sll_family = AF_PACKET;
	to.sll_protocol = htons(ETH_P_ALL);
	to.sll_ifindex = ifr.ifr_ifindex;
	if (bind(s, (struct sockaddr *)&to, sizeof(to)) < 0 ||
	    ioctl(s, SIOCGIFHWADDR, &ifr) < 0) {
		perror("tapcsum: bind");
		return 2;
	}
	memcpy(hostmac, ifr.ifr_hwaddr.sa_data, 6);
	uint16_t base = (uint16_t)(30000 + getpid() % 20000);

	send_syn(base, 1);
	printf("corrupt: %s\n", answer(base, 1.5) < 0 ? "dropped" : "answered");
	send_syn((uint16_t)(base + 1), 0);
	int r = answer((uint16_t)(base + 1), 5);
	printf("good: %s%s\n", r < 0 ? "no answer" : r ? "checksum ok" : "checksum bad",
	    r < 0 ? "" : partial ? " (partial, finished here)" : " (complete)");
	return 0;
}
