/*
 * The tap back-end (see hostnet.h): a host tap device opened through
 * /dev/net/tun.  TUNSETIFF attaches to an existing device we may use (a
 * persistent one made by `ip tuntap add ... user U`, or any as root) and
 * creates one if it does not exist and we have CAP_NET_ADMIN; a device
 * we created goes away when vkernel exits.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>	/* not <net/if.h>: -I. finds the kernel's net/ */
#include <linux/if_tun.h>
#include <linux/virtio_net.h>
#include <malloc.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include <unistd.h>

#include "hostnet.h"
#include "intr.h"

struct tap {
	struct hostnet t_hn;
	int t_fd;
	struct intr_src *t_src;
};

static int
tap_start(struct hostnet *hn, struct vcpu *cpu)
{
	struct tap *t = (struct tap *)hn;

	t->t_src = intr_register(t->t_fd, EPOLLIN, cpu);
	return t->t_src != NULL ? 0 : -1;
}

/*
 * Every frame crosses the tap behind virtio-net's header (IFF_VNET_HDR),
 * which carries its checksum state both ways (hostnet_csum).
 */
static ssize_t
tap_send_csum(struct hostnet *hn, const struct hostnet_seg *seg, int n,
    const struct hostnet_csum *cs)
{
	struct tap *t = (struct tap *)hn;
	struct virtio_net_hdr vh = { .gso_type = VIRTIO_NET_HDR_GSO_NONE };
	struct iovec iov[1 + HOSTNET_MAXSEG];
	ssize_t r;

	if (n > HOSTNET_MAXSEG)
		return -EMSGSIZE;
	if (cs != NULL && (cs->hc_flags & HOSTNET_CSUM_PARTIAL)) {
		vh.flags = VIRTIO_NET_HDR_F_NEEDS_CSUM;
		vh.csum_start = cs->hc_start;
		vh.csum_offset = cs->hc_offset;
	}
	iov[0] = (struct iovec){ &vh, sizeof(vh) };
	for (int i = 0; i < n; i++)
		iov[1 + i] = (struct iovec){ (void *)seg[i].hs_base, seg[i].hs_len };

	do
		r = writev(t->t_fd, iov, 1 + n);
	while (r < 0 && errno == EINTR);
	if (r < 0)
		return -errno;
	return r >= (ssize_t)sizeof(vh) ? r - (ssize_t)sizeof(vh) : -EIO;
}

static ssize_t
tap_send(struct hostnet *hn, const struct hostnet_seg *seg, int n)
{
	return tap_send_csum(hn, seg, n, NULL);
}

static ssize_t
tap_recv_csum(struct hostnet *hn, void *buf, size_t len,
    struct hostnet_csum *cs)
{
	struct tap *t = (struct tap *)hn;
	struct virtio_net_hdr vh;
	struct iovec iov[2] = { { &vh, sizeof(vh) }, { buf, len } };
	ssize_t r;

	for (;;) {
		r = readv(t->t_fd, iov, 2);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return errno == EWOULDBLOCK ? -EAGAIN : -errno;
		/*
		 * Only TUN_F_CSUM was offered, so the host segments every
		 * frame itself; one it did not (or too short) is passed over.
		 */
		if (r >= (ssize_t)sizeof(vh) &&
		    vh.gso_type == VIRTIO_NET_HDR_GSO_NONE)
			break;
	}
	cs->hc_flags = 0;
	if (vh.flags & VIRTIO_NET_HDR_F_NEEDS_CSUM) {
		cs->hc_flags = HOSTNET_CSUM_PARTIAL;
		cs->hc_start = vh.csum_start;
		cs->hc_offset = vh.csum_offset;
	} else if (vh.flags & VIRTIO_NET_HDR_F_DATA_VALID)
		cs->hc_flags = HOSTNET_CSUM_VALID;
	return r - (ssize_t)sizeof(vh);
}

static ssize_t
tap_recv(struct hostnet *hn, void *buf, size_t len)
{
	struct hostnet_csum cs;
	return tap_recv_csum(hn, buf, len, &cs);
}

static bool
tap_fired(struct hostnet *hn)
{
	struct tap *t = (struct tap *)hn;
	return t->t_src != NULL && intr_fired(t->t_src);
}

static int
tap_rearm(struct hostnet *hn)
{
	struct tap *t = (struct tap *)hn;
	return t->t_src != NULL ? intr_rearm(t->t_src) : 0;
}

static void
tap_close(struct hostnet *hn)
{
	struct tap *t = (struct tap *)hn;

	if (t->t_src != NULL)
		intr_unregister(t->t_src);
	close(t->t_fd);
	free(t);
}

static const struct hostnet_ops tap_ops = {
	.start = tap_start,
	.send = tap_send,
	.recv = tap_recv,
	.fired = tap_fired,
	.rearm = tap_rearm,
	.close = tap_close,
	.send_csum = tap_send_csum,
	.recv_csum = tap_recv_csum,
};

/* Brings the host interface up, with addr/mask if addr is not 0. */
static int
tap_configure(const char *name, uint32_t addr, uint32_t mask)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int error = 0;

	if (s < 0)
		return -1;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (addr != 0) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ifr.ifr_addr;
		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = addr;
		if (ioctl(s, SIOCSIFADDR, &ifr) < 0)
			error = -1;
		sin->sin_addr.s_addr = mask;
		if (error == 0 && ioctl(s, SIOCSIFNETMASK, &ifr) < 0)
			error = -1;
	}
	if (error == 0 && ioctl(s, SIOCGIFFLAGS, &ifr) < 0)
		error = -1;
	if (error == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		if (ioctl(s, SIOCSIFFLAGS, &ifr) < 0)
			error = -1;
	}
	int saved = errno;
	close(s);
	errno = saved;
	return error;
}

/*
 * The host interface's MTU, which the guest's side takes: an MTU the
 * host raised on a virtual link (ip link set tap0 mtu 65517) gives both
 * sides big frames, and TCP segments of that size.  1500 if unknown.
 */
static int
tap_mtu(const char *name)
{
	struct ifreq ifr;
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	int mtu = 1500;

	if (s < 0)
		return mtu;
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	if (ioctl(s, SIOCGIFMTU, &ifr) == 0 && ifr.ifr_mtu > 0)
		mtu = ifr.ifr_mtu;
	close(s);
	return mtu;
}

/*
 * A tap carries frames of up to 64 KiB, and lwIP takes each from the
 * host's malloc and frees it when the peer acknowledges it, a megabyte
 * later.  glibc's default trims the heap as soon as 128 KiB lie free at
 * its top, so a bulk flow gave pages back and faulted them in again
 * (zeroed) for every frame: a tenth of a sender's time.  Up to this much
 * stays mapped instead.
 */
#define TAP_HEAP_KEEP	(16 << 20)

struct hostnet *
hostnet_tap_open(const char *name, uint32_t addr, uint32_t mask, char *why,
    size_t whylen)
{
	struct ifreq ifr;

	if (strlen(name) == 0 || strlen(name) >= IFNAMSIZ) {
		snprintf(why, whylen, "bad interface name");
		return NULL;
	}
	char sys[64];
	snprintf(sys, sizeof(sys), "/sys/class/net/%s", name);
	bool existed = access(sys, F_OK) == 0;
	int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, whylen, "/dev/net/tun: %s", strerror(errno));
		return NULL;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", name);
	ifr.ifr_flags = IFF_TAP | IFF_NO_PI | IFF_VNET_HDR;
	if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
		int e = errno;
		snprintf(why, whylen, "%s %s: %s", existed ? "cannot attach to" :
		    "cannot create", name, e == EPERM && !existed ?
		    "no such tap device, and only CAP_NET_ADMIN may create one" :
		    e == EPERM ? "not ours (ip tuntap add ... user U)" :
		    strerror(e));
		close(fd);
		return NULL;
	}
	if ((!existed || addr != 0) && tap_configure(name, addr, mask) < 0) {
		snprintf(why, whylen, "%s: cannot configure the host side: %s",
		    name, strerror(errno));
		close(fd);
		return NULL;
	}
	struct tap *t = calloc(1, sizeof(*t));
	if (t == NULL) {
		snprintf(why, whylen, "out of memory");
		close(fd);
		return NULL;
	}
	(void)mallopt(M_TRIM_THRESHOLD, TAP_HEAP_KEEP);
	t->t_hn.hn_ops = &tap_ops;
	/*
	 * Checksum offload: the host takes frames whose TCP checksum the
	 * guest left to it (and a frame for the host itself never needs
	 * it), and hands over its own frames unsummed, or says it verified
	 * them: neither side sums a byte it need not.
	 */
	t->t_hn.hn_csum = ioctl(fd, TUNSETOFFLOAD, TUN_F_CSUM) == 0;
	t->t_hn.hn_mtu = tap_mtu(name);
	snprintf(t->t_hn.hn_desc, sizeof(t->t_hn.hn_desc), "%s%s", name,
	    existed ? "" : " (created)");
	t->t_fd = fd;
	return &t->t_hn;
}
