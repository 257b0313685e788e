/*
 * Raw sockets of protocols other than ICMP, against Linux (as root):
 * a raw UDP socket hears a UDP datagram sent over the loopback with its
 * IPv4 header (IPv6: without), a raw TCP socket hears a connection's
 * SYN, IP_HDRINCL has the kernel fill in the length, a zero source and
 * identifier and the checksum of a header the program wrote, and the
 * options' rules (ICMP_FILTER on other protocols, IP_HDRINCL on a
 * datagram socket, SO_PROTOCOL).  The host's loopback carries other
 * traffic too, so a raw socket's packets are looked at only if they
 * carry this program's port.
 */
#include <arpa/inet.h>
#include <netinet/icmp6.h>
#include <netinet/in.h>
#include <netinet/ip.h>
#include <netinet/ip_icmp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "inetaddr.h"
#include "report.h"

#ifndef ICMP_FILTER
#define ICMP_FILTER 1		/* linux/icmp.h */
#endif
#ifndef SOL_RAW
#define SOL_RAW 255
#endif

/*
 * Reads raw socket r until a packet whose transport header, at hlen,
 * has destination port dport (both UDP's and TCP's are at 2); its length
 * or -1 if none within 2 s.
 */
static long
recv_port(int r, uint8_t *buf, size_t size, size_t hlen, int dport,
    struct sockaddr_storage *from)
{
	for (int i = 0; i < 200; i++) {
		struct pollfd p = { r, POLLIN, 0 };
		if (poll(&p, 1, 2000) != 1)
			return -1;
		socklen_t len = sizeof(*from);
		long n = recvfrom(r, buf, size, 0, (struct sockaddr *)from, &len);
		if (n < 0)
			return -1;
		if ((size_t)n >= hlen + 4 && ((buf[hlen + 2] << 8) | buf[hlen + 3]) ==
		    dport)
			return n;
	}
	return -1;
}

/* A UDP socket bound to the loopback of family at a free port. */
static int
udp_bound(int family, int *port)
{
	struct sockaddr_storage ss;
	socklen_t len = mkaddr(&ss, family, 0, 0);
	int u = socket(family, SOCK_DGRAM, 0);
	bind(u, (struct sockaddr *)&ss, len);
	getsockname(u, (struct sockaddr *)&ss, &len);
	*port = portof(&ss);
	return u;
}

static void
raw_udp4(void)
{
	uint8_t buf[2048];
	struct sockaddr_storage from, to;
	int port, one = 1, v;
	socklen_t len;

	printf("raw UDP, IPv4\n");
	int r = socket(AF_INET, SOCK_RAW, IPPROTO_UDP);
	report(" socket", r);
	if (r < 0)
		return;
	len = sizeof(v);
	report(" SO_PROTOCOL", getsockopt(r, SOL_SOCKET, SO_PROTOCOL, &v, &len));
	printf("  = %d\n", v);
	int u = udp_bound(AF_INET, &port);
	int s = socket(AF_INET, SOCK_DGRAM, 0);
	socklen_t tolen = mkaddr(&to, AF_INET, 0, port);
	report(" sendto 10 bytes", sendto(s, "raw hello!", 10, 0,
	    (struct sockaddr *)&to, tolen));
	long n = recv_port(r, buf, sizeof(buf), 20, port, &from);
	printf("  raw heard it: %s\n", n > 0 ? "yes" : "no");
	if (n > 0) {
		const struct iphdr *ip = (const struct iphdr *)buf;
		printf("  length %ld, version %d, header %d, protocol %d, total %d,"
		    " payload %.10s\n", n, ip->version, ip->ihl * 4, ip->protocol,
		    ntohs(ip->tot_len), (const char *)buf + 28);
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&from;
		printf("  from %s port %d\n", inet_ntoa(sin->sin_addr),
		    ntohs(sin->sin_port));
	}
	report(" recv on the UDP socket too", recv(u, buf, sizeof(buf),
	    MSG_DONTWAIT));

	len = sizeof(v);
	report(" IP_HDRINCL", getsockopt(r, IPPROTO_IP, IP_HDRINCL, &v, &len));
	printf("  = %d\n", v);
	report(" set IP_HDRINCL", setsockopt(r, IPPROTO_IP, IP_HDRINCL, &one,
	    sizeof(one)));
	len = sizeof(v);
	getsockopt(r, IPPROTO_IP, IP_HDRINCL, &v, &len);
	printf("  now %d\n", v);
	/* IP and UDP headers, with length, source, id and checksum 0. */
	uint8_t pkt[28 + 6] = { 0x45, 0, 0, 0, 0, 0, 0, 0, 64, IPPROTO_UDP };
	inet_pton(AF_INET, "127.0.0.1", pkt + 16);
	pkt[20] = 0x30, pkt[21] = 0x39;			/* port 12345 */
	pkt[22] = (uint8_t)(port >> 8), pkt[23] = (uint8_t)port;
	pkt[25] = 8 + 6;
	memcpy(pkt + 28, "inclhd", 6);
	report(" sendto a header of its own", sendto(r, pkt, sizeof(pkt), 0,
	    (struct sockaddr *)&to, tolen));
	struct pollfd p = { u, POLLIN, 0 };
	poll(&p, 1, 2000);
	len = sizeof(from);
	n = recvfrom(u, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from,
	    &len);
	report(" the UDP socket got", n);
	if (n > 0) {
		const struct sockaddr_in *sin = (const struct sockaddr_in *)&from;
		printf("  %.*s from %s port %d\n", (int)n, (const char *)buf,
		    inet_ntoa(sin->sin_addr), ntohs(sin->sin_port));
	}
	report(" sendto 10 bytes with IP_HDRINCL", sendto(r, pkt, 10, 0,
	    (struct sockaddr *)&to, tolen));
	uint32_t filt = 0;
	report(" ICMP_FILTER on a raw UDP socket", setsockopt(r, SOL_RAW,
	    ICMP_FILTER, &filt, sizeof(filt)));
	report(" IP_HDRINCL on a UDP socket", setsockopt(s, IPPROTO_IP,
	    IP_HDRINCL, &one, sizeof(one)));
	close(r);
	close(s);
	close(u);
}

static void
raw_tcp4(void)
{
	uint8_t buf[2048];
	struct sockaddr_storage ss, from;
	socklen_t len = mkaddr(&ss, AF_INET, 0, 0);

	printf("raw TCP, IPv4\n");
	int r = socket(AF_INET, SOCK_RAW, IPPROTO_TCP);
	report(" socket", r);
	if (r < 0)
		return;
	int l = socket(AF_INET, SOCK_STREAM, 0);
	bind(l, (struct sockaddr *)&ss, len);
	listen(l, 1);
	getsockname(l, (struct sockaddr *)&ss, &len);
	int c = socket(AF_INET, SOCK_STREAM, 0);
	report(" connect", connect(c, (struct sockaddr *)&ss, len));
	long n = recv_port(r, buf, sizeof(buf), 20, portof(&ss), &from);
	printf("  raw heard the SYN: %s\n", n >= 40 && (buf[33] & 0x02) ?
	    "yes" : "no");
	close(c);
	close(l);
	close(r);
}

static void
raw_udp6(void)
{
	uint8_t buf[2048];
	struct sockaddr_storage from, to;
	int port;

	printf("raw UDP, IPv6\n");
	int r = socket(AF_INET6, SOCK_RAW, IPPROTO_UDP);
	report(" socket", r);
	if (r < 0)
		return;
	int u = udp_bound(AF_INET6, &port);
	int s = socket(AF_INET6, SOCK_DGRAM, 0);
	socklen_t tolen = mkaddr(&to, AF_INET6, 0, port);
	report(" sendto 7 bytes", sendto(s, "v6 raw!", 7, 0,
	    (struct sockaddr *)&to, tolen));
	long n = recv_port(r, buf, sizeof(buf), 0, port, &from);
	printf("  raw heard it without the IPv6 header: %s\n",
	    n == 15 && memcmp(buf + 8, "v6 raw!", 7) == 0 ? "yes" : "no");
	uint32_t f[8] = { 0 };
	report(" ICMP6_FILTER on a raw UDP socket", setsockopt(r, IPPROTO_ICMPV6,
	    ICMP6_FILTER, f, sizeof(f)));
	close(r);
	close(s);
	close(u);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	raw_udp4();
	raw_tcp4();
	raw_udp6();
	int v;
	socklen_t len = sizeof(v);
	int r = socket(AF_INET, SOCK_RAW, IPPROTO_RAW);
	report("IPPROTO_RAW socket", r);
	report(" IP_HDRINCL", getsockopt(r, IPPROTO_IP, IP_HDRINCL, &v, &len));
	printf("  = %d\n", v);
	close(r);
	r = socket(AF_INET, SOCK_RAW, 132);	/* SCTP: any number will do */
	report("raw socket of protocol 132", r);
	len = sizeof(v);
	getsockopt(r, SOL_SOCKET, SO_PROTOCOL, &v, &len);
	printf("  SO_PROTOCOL %d\n", v);
	close(r);
	return 0;
}
