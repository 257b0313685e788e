/*
 * Guest side of tests/system/net_dhcp.t: AF_PACKET sockets on vke0 (as
 * root, the interface configured), each check as Linux answers it.
 * Prints "FAIL what: why" for each failed check, then "pktsock: N
 * failed".
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <net/ethernet.h>
#include <net/if.h>
#include <netinet/in.h>
#include <netpacket/packet.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define ETH_P_TEST	0x88b5	/* IEEE's local experimental type */

static int nfail;

static void
check(int cond, const char *what)
{
	if (!cond) {
		printf("FAIL %s: errno %d (%s)\n", what, errno, strerror(errno));
		nfail++;
	}
}

/* -1 with errno e: a failed check names both. */
static void
check_err(long r, int e, const char *what)
{
	if (r != -1 || errno != e) {
		printf("FAIL %s: %ld errno %d, expected -1 errno %d\n", what, r,
		    errno, e);
		nfail++;
	}
}

/* The next frame on s within a second: its length, or -1. */
static ssize_t
next_frame(int s, void *buf, size_t len, struct sockaddr_ll *from)
{
	struct pollfd pfd = { .fd = s, .events = POLLIN };
	socklen_t fl = sizeof(*from);

	if (poll(&pfd, 1, 1000) != 1)
		return -1;
	return recvfrom(s, buf, len, 0, (struct sockaddr *)from, &fl);
}

int
main(void)
{
	int ifindex = (int)if_nametoindex("vke0");
	static unsigned char frame[65536];
	unsigned char mac[6];
	struct sockaddr_ll sll, from;
	socklen_t sl;

	check(ifindex > 0, "vke0 has an index");
	check_err(socket(AF_PACKET, SOCK_STREAM, htons(ETH_P_ALL)),
	    ESOCKTNOSUPPORT, "a stream packet socket");

	/* A SOCK_RAW socket hearing everything on vke0. */
	int all = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	check(all >= 0, "socket(AF_PACKET, SOCK_RAW, ETH_P_ALL)");
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = ifindex;
	check_err(bind(all, (struct sockaddr *)&sll, sizeof(sll) - 1), EINVAL,
	    "bind with a short sockaddr_ll");
	sll.sll_family = AF_INET;
	check_err(bind(all, (struct sockaddr *)&sll, sizeof(sll)), EINVAL,
	    "bind with another family");
	sll.sll_family = AF_PACKET;
	sll.sll_ifindex = 999;
	check_err(bind(all, (struct sockaddr *)&sll, sizeof(sll)), ENODEV,
	    "bind to no interface");
	check_err(bind(all, (struct sockaddr *)8, sizeof(sll)), EFAULT,
	    "bind from a bad address");
	sll.sll_ifindex = ifindex;
	check(bind(all, (struct sockaddr *)&sll, sizeof(sll)) == 0,
	    "bind to vke0");
	sl = sizeof(sll);
	memset(&sll, 0, sizeof(sll));
	check(getsockname(all, (struct sockaddr *)&sll, &sl) == 0 &&
	    sl == offsetof(struct sockaddr_ll, sll_addr) + 6 &&
	    sll.sll_family == AF_PACKET && sll.sll_ifindex == ifindex &&
	    sll.sll_protocol == htons(ETH_P_ALL) && sll.sll_halen == 6 &&
	    sll.sll_hatype == 1, "getsockname: vke0, ETH_P_ALL, its address");
	memcpy(mac, sll.sll_addr, 6);

	/* A SOCK_DGRAM socket sends a broadcast frame of a test type. */
	int dg = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_TEST));
	check(dg >= 0, "socket(AF_PACKET, SOCK_DGRAM, ETH_P_TEST)");
	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_TEST);
	sll.sll_ifindex = ifindex;
	sll.sll_halen = 6;
	memset(sll.sll_addr, 0xff, 6);
	check_err(sendto(dg, (void *)8, 60, 0, (struct sockaddr *)&sll,
	    sizeof(sll)), EFAULT, "sendto from a bad buffer");
	check_err(sendto(dg, "x", 1, 0, (struct sockaddr *)&sll, 8), EINVAL,
	    "sendto with a short sockaddr_ll");
	sll.sll_ifindex = 999;
	check_err(sendto(dg, "x", 1, 0, (struct sockaddr *)&sll, sizeof(sll)),
	    ENXIO, "sendto no interface");
	sll.sll_ifindex = ifindex;
	/* One byte past the link's MTU (slirp's is not ethernet's 1500). */
	struct ifreq ifr = { .ifr_name = "vke0" };
	check(ioctl(dg, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu >= 576 &&
	    ifr.ifr_mtu < (int)sizeof(frame), "SIOCGIFMTU on vke0");
	check_err(sendto(dg, frame, (size_t)ifr.ifr_mtu + 1, 0,
	    (struct sockaddr *)&sll, sizeof(sll)), EMSGSIZE, "sendto past the MTU");
	memset(frame, 0, sizeof(frame));
	memcpy(frame, "vkernel packet test", 19);
	check(sendto(dg, frame, 46, 0, (struct sockaddr *)&sll, sizeof(sll)) == 46,
	    "sendto a broadcast frame");
	/* The ETH_P_ALL socket hears it leave, header and all. */
	ssize_t n;
	unsigned char got[2048];
	do
		n = next_frame(all, got, sizeof(got), &from);
	while (n > 14 && !(got[12] == 0x88 && got[13] == 0xb5));
	check(n == 60 && memcmp(got, "\xff\xff\xff\xff\xff\xff", 6) == 0 &&
	    memcmp(got + 6, mac, 6) == 0 && memcmp(got + 14, frame, 46) == 0,
	    "ETH_P_ALL hears the frame go, whole");
	check(from.sll_pkttype == PACKET_OUTGOING &&
	    from.sll_protocol == htons(ETH_P_TEST) &&
	    from.sll_ifindex == ifindex && from.sll_halen == 6 &&
	    memcmp(from.sll_addr, mac, 6) == 0,
	    "recvfrom's sockaddr_ll: outgoing, its type, our address");
	/* SOCK_RAW sends a whole frame through its bound interface. */
	unsigned char raw[60] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	memcpy(raw + 6, mac, 6);
	raw[12] = 0x88, raw[13] = 0xb5;
	check_err(send(all, raw, 10, 0), EINVAL, "SOCK_RAW send shorter than a header");
	check(send(all, raw, sizeof(raw), 0) == sizeof(raw), "SOCK_RAW send a frame");
	int unbound = socket(AF_PACKET, SOCK_RAW, 0);
	check_err(send(unbound, raw, sizeof(raw), 0), ENXIO,
	    "send on an unbound socket");
	/* The sender does not hear its own frame, nor a frame of its type
	 * going out. */
	struct pollfd pfd = { .fd = dg, .events = POLLIN };
	check(poll(&pfd, 1, 100) == 0, "the sender hears nothing");

	/* A received frame: lwIP's ARP for 10.0.2.2 is answered by slirp. */
	int arp = socket(AF_PACKET, SOCK_DGRAM, htons(ETH_P_ARP));
	check(arp >= 0, "socket(AF_PACKET, SOCK_DGRAM, ETH_P_ARP)");
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(9) };
	inet_pton(AF_INET, "10.0.2.2", &to.sin_addr);
	/* A neighbour lwIP does not know yet: 10.0.2.2's entry may be
	 * cached from the DHCP exchange, so ask for a fresh one too. */
	sendto(u, "x", 1, 0, (struct sockaddr *)&to, sizeof(to));
	inet_pton(AF_INET, "10.0.2.3", &to.sin_addr);
	sendto(u, "x", 1, 0, (struct sockaddr *)&to, sizeof(to));
	n = next_frame(arp, got, sizeof(got), &from);
	check(n >= 28 && got[7] == 2 && from.sll_pkttype == PACKET_HOST &&
	    from.sll_protocol == htons(ETH_P_ARP),
	    "SOCK_DGRAM hears an ARP reply to us, without its header");

	/* A bounded queue: frames past SO_RCVBUF are dropped. */
	int small = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
	int rb = 4096;
	setsockopt(small, SOL_SOCKET, SO_RCVBUF, &rb, sizeof(rb));
	for (int i = 0; i < 200; i++)
		sendto(dg, frame, 1000, 0, (struct sockaddr *)&sll, sizeof(sll));
	int queued = 0;
	while (recv(small, got, sizeof(got), MSG_DONTWAIT) > 0)
		queued++;
	check(queued > 0 && queued < 20, "a full queue drops frames");
	printf("queued %d of 200 frames with SO_RCVBUF %d\n", queued, rb);

	/* Without CAP_NET_RAW, EPERM. */
	pid_t pid = fork();
	if (pid == 0) {
		if (setuid(65534) != 0)
			_exit(2);
		int s = socket(AF_PACKET, SOCK_RAW, htons(ETH_P_ALL));
		_exit(s == -1 && errno == EPERM ? 0 : 1);
	}
	int st;
	waitpid(pid, &st, 0);
	check(WIFEXITED(st) && WEXITSTATUS(st) == 0, "EPERM as a user");
	printf("pktsock: %d failed\n", nfail);
	return nfail != 0;
}
