/*
 * vke: an ethernet interface over a host back-end (see vke.h).
 *
 * vke_config runs before boot, on the host side of the wall: it parses
 * -I and opens the back-end (the tap device, or slirp's thread), so a
 * bad argument stops vkernel with a message before anything runs.  The
 * softc lives outside the kernel's RAM, like a device's registers: the
 * stack's thread and the CPUs both touch it, through atomics only.
 *
 * Receive: the host event thread (tap) or slirp's thread posts
 * INTR_DEVICE; vke_intr finds the interfaces whose source fired and
 * calls the stack's rxready hook, which drains the frames (the small
 * ones on the CPU, a burst's bulk on the stack's own thread) and re-arms
 * with vke_rxdone.  One interrupt so takes every frame that arrived,
 * not one.  Transmit: vke_transmit hands the frame
 * to the back-end at once (one write for a tap; a copy into slirp's
 * ring), from the stack's thread, without the kernel's lock.
 */
#include <stdio.h>

#include "dev/vke.h"
#include "host/cpu.h"
#include "host/hostnet.h"
#include "host/random.h"
#include "kern/interrupt.h"
#include "kern/kernel.h"

struct vke_softc {
	int sc_unit;
	char sc_name[16];
	uint8_t sc_mac[6];
	struct vke_ifconfig sc_conf;
	struct hostnet *sc_hn;
	void (*sc_rxready)(void *);
	void *sc_rxarg;
	struct vke_stats sc_stats;	/* atomic counters */
};

static struct vke_softc vke_units[VKE_MAXUNITS];
static int vke_nunits;

#define VKE_COUNT(sc, field, n) \
	__atomic_add_fetch(&(sc)->sc_stats.field, (n), __ATOMIC_RELAXED)

/* Parses a dotted quad at *s into *a (network order); advances *s. */
static bool
parse_ip4(const char **s, uint32_t *a)
{
	const char *p = *s;
	uint8_t b[4];

	for (int i = 0; i < 4; i++) {
		unsigned v = 0;
		int digits = 0;
		while (*p >= '0' && *p <= '9' && digits < 4) {
			v = v * 10 + (unsigned)(*p++ - '0');
			digits++;
		}
		if (digits == 0 || v > 255 || (i < 3 && *p++ != '.'))
			return false;
		b[i] = (uint8_t)v;
	}
	memcpy(a, b, 4);
	*s = p;
	return true;
}

static bool
parse_uint(const char **s, unsigned max, unsigned *v)
{
	const char *p = *s;
	unsigned n = 0;

	if (*p < '0' || *p > '9')
		return false;
	while (*p >= '0' && *p <= '9') {
		n = n * 10 + (unsigned)(*p++ - '0');
		if (n > max)
			return false;
	}
	*v = n;
	*s = p;
	return true;
}

static uint32_t
masklen_to_mask(unsigned len)
{
	uint32_t m = len == 0 ? 0 : ~0u << (32 - len);
	uint8_t b[4] = { m >> 24, m >> 16, m >> 8, m };
	uint32_t r;
	memcpy(&r, b, 4);
	return r;
}

/* "[tcp|udp]:[hostaddr]:hostport-[guestaddr]:guestport", QEMU's hostfwd. */
static bool
parse_hostfwd(const char *s, struct hostnet_fwd *f)
{
	unsigned port;
	uint32_t guest;

	memset(f, 0, sizeof(*f));
	if (strncmp(s, "tcp:", 4) == 0)
		s += 4;
	else if (strncmp(s, "udp:", 4) == 0) {
		f->udp = true;
		s += 4;
	} else if (*s == ':')
		s++;
	else
		return false;
	if (*s != ':' && !parse_ip4(&s, &f->host_addr))
		return false;
	if (*s++ != ':' || !parse_uint(&s, 65535, &port) || port == 0)
		return false;
	f->host_port = (uint16_t)port;
	if (*s++ != '-')
		return false;
	if (*s != ':') {
		/* The guest is 10.0.2.15 and nothing else. */
		if (!parse_ip4(&s, &guest) || memcmp(&guest, "\x0a\x00\x02\x0f", 4))
			return false;
	}
	if (*s++ != ':' || !parse_uint(&s, 65535, &port) || port == 0 || *s != '\0')
		return false;
	f->guest_port = (uint16_t)port;
	return true;
}

/* The part before the options: "slirp", or "tapN[:a[:b]][/len]". */
static bool
parse_head(char *head, struct vke_softc *sc, uint32_t *hostaddr,
    bool *slirp)
{
	char *colon = strchr(head, ':');
	unsigned len = 24;
	uint32_t a1 = 0, a2 = 0;

	*slirp = strcmp(head, "slirp") == 0;
	if (colon == NULL)
		return *head != '\0';
	*colon = '\0';
	if (strcmp(head, "slirp") == 0)
		return false;	/* slirp's guest address is slirp's to give */
	const char *p = colon + 1;
	if (!parse_ip4(&p, &a1))
		return false;
	if (*p == ':') {
		p++;
		if (!parse_ip4(&p, &a2))
			return false;
	}
	if (*p == '/') {
		p++;
		if (!parse_uint(&p, 32, &len) || len == 0)
			return false;
	}
	if (*p != '\0' || *head == '\0')
		return false;
	sc->sc_conf.mask = masklen_to_mask(len);
	if (a2 != 0) {
		/* DragonFly's form: the tap's address, then the vke's. */
		*hostaddr = a1;
		sc->sc_conf.addr = a2;
		sc->sc_conf.gw = a1;
	} else
		sc->sc_conf.addr = a1;
	return true;
}

int
vke_config(const char *spec, const char **why)
{
	static char msg[200];
	char buf[256];
	struct hostnet_slirp_params sp = { .restricted = false };
	uint32_t hostaddr = 0;
	bool slirp;

	if (vke_nunits == VKE_MAXUNITS) {
		snprintf(msg, sizeof(msg), "more than %d interfaces", VKE_MAXUNITS);
		goto fail;
	}
	if (strlen(spec) >= sizeof(buf)) {
		snprintf(msg, sizeof(msg), "too long");
		goto fail;
	}
	struct vke_softc *sc = &vke_units[vke_nunits];
	memset(sc, 0, sizeof(*sc));
	strcpy(buf, spec);
	char *opts = strchr(buf, ',');
	if (opts != NULL)
		*opts++ = '\0';
	if (!parse_head(buf, sc, &hostaddr, &slirp)) {
		snprintf(msg, sizeof(msg), "expected tapN[:addr[/len]], "
		    "tapN:hostaddr:addr[/len] or slirp");
		goto fail;
	}
	if (slirp) {
		memcpy(&sc->sc_conf.addr, "\x0a\x00\x02\x0f", 4);
		memcpy(&sc->sc_conf.gw, "\x0a\x00\x02\x02", 4);
		sc->sc_conf.mask = masklen_to_mask(24);
	}
	for (char *o = opts; o != NULL && *o != '\0'; ) {
		char *next = strchr(o, ',');
		if (next != NULL)
			*next++ = '\0';
		const char *v = strchr(o, '=') != NULL ? strchr(o, '=') + 1 : NULL;
		if (strncmp(o, "gw=", 3) == 0) {
			if (!parse_ip4(&v, &sc->sc_conf.gw) || *v != '\0') {
				snprintf(msg, sizeof(msg), "%s: not an address", o);
				goto fail;
			}
		} else if (slirp && strncmp(o, "hostfwd=", 8) == 0) {
			if (sp.nfwd == HOSTNET_MAXFWD ||
			    !parse_hostfwd(v, &sp.fwd[sp.nfwd])) {
				snprintf(msg, sizeof(msg), "%s: expected hostfwd="
				    "[tcp|udp]:[hostaddr]:port-[10.0.2.15]:port "
				    "(at most %d)", o, HOSTNET_MAXFWD);
				goto fail;
			}
			sp.nfwd++;
		} else if (strcmp(o, "dhcp") == 0) {
			/* Up without an address: udhcpc asks for one. */
			sc->sc_conf.addr = sc->sc_conf.mask = sc->sc_conf.gw = 0;
		} else if (slirp && (strcmp(o, "restrict") == 0 ||
		    strcmp(o, "restrict=on") == 0 || strcmp(o, "restrict=off") == 0)) {
			sp.restricted = strcmp(o, "restrict=off") != 0;
		} else {
			snprintf(msg, sizeof(msg), "%s: unknown option", o);
			goto fail;
		}
		o = next;
	}

	char hwhy[160];
	sc->sc_hn = slirp ? hostnet_slirp_open(&sp, hwhy, sizeof(hwhy)) :
	    hostnet_tap_open(buf, hostaddr, sc->sc_conf.mask, hwhy, sizeof(hwhy));
	if (sc->sc_hn == NULL) {
		snprintf(msg, sizeof(msg), "%s", hwhy);
		goto fail;
	}
	sc->sc_unit = vke_nunits;
	snprintf(sc->sc_name, sizeof(sc->sc_name), "vke%d", vke_nunits);
	/* A random, locally administered unicast address, as DragonFly's. */
	if (host_random(sc->sc_mac, sizeof(sc->sc_mac)) < 0)
		memcpy(sc->sc_mac, "\x00\x00\x5e\x00\x53\x00", 6);
	sc->sc_mac[0] = (uint8_t)((sc->sc_mac[0] & 0xfc) | 0x02);
	sc->sc_mac[5] = (uint8_t)(sc->sc_mac[5] + vke_nunits);
	vke_nunits++;
	return 0;
fail:
	*why = msg;
	return -1;
}

/* INTR_DEVICE: hand every interface whose source fired to its stack. */
static void
vke_intr(void *arg, uint32_t bits)
{
	(void)arg, (void)bits;
	for (int i = 0; i < vke_nunits; i++) {
		struct vke_softc *sc = &vke_units[i];
		if (!hostnet_fired(sc->sc_hn))
			continue;
		if (sc->sc_rxready != NULL) {
			sc->sc_rxready(sc->sc_rxarg);
			continue;
		}
		/* Nobody listens: the frames are dropped, as by a NIC down. */
		uint8_t frame[VKE_FRAME_MAX];
		while (hostnet_recv(sc->sc_hn, frame, sizeof(frame)) >= 0)
			VKE_COUNT(sc, rx_dropped, 1);
		(void)hostnet_rearm(sc->sc_hn);
	}
}

int
vke_attach(void)
{
	if (vke_nunits == 0)
		return 0;
	int error = intr_establish(INTR_DEVICE, vke_intr, NULL);
	if (error < 0)
		return error;
	for (int i = 0; i < vke_nunits; i++) {
		struct vke_softc *sc = &vke_units[i];
		const uint8_t *m = sc->sc_mac;
		kprintf("%s: %s, address %02x:%02x:%02x:%02x:%02x:%02x\n",
		    sc->sc_name, sc->sc_hn->hn_desc, m[0], m[1], m[2], m[3],
		    m[4], m[5]);
	}
	return 0;
}

int
vke_count(void)
{
	return vke_nunits;
}

struct vke_softc *
vke_unit(int n)
{
	return n >= 0 && n < vke_nunits ? &vke_units[n] : NULL;
}

const char *
vke_name(const struct vke_softc *sc)
{
	return sc->sc_name;
}

const uint8_t *
vke_macaddr(const struct vke_softc *sc)
{
	return sc->sc_mac;
}

int
vke_mtu(const struct vke_softc *sc)
{
	return MIN(MAX(sc->sc_hn->hn_mtu, 576), VKE_MTU_MAX);
}

const struct vke_ifconfig *
vke_ifconfig(const struct vke_softc *sc)
{
	return &sc->sc_conf;
}

void
vke_getstats(const struct vke_softc *sc, struct vke_stats *st)
{
	const struct vke_stats *s = &sc->sc_stats;
#define LOAD(f) st->f = __atomic_load_n(&s->f, __ATOMIC_RELAXED)
	LOAD(rx_packets); LOAD(rx_bytes); LOAD(rx_errors); LOAD(rx_dropped);
	LOAD(tx_packets); LOAD(tx_bytes); LOAD(tx_errors); LOAD(tx_dropped);
#undef LOAD
}

int
vke_start(struct vke_softc *sc, void (*rxready)(void *), void *arg)
{
	sc->sc_rxarg = arg;
	__atomic_store_n(&sc->sc_rxready, rxready, __ATOMIC_RELEASE);
	/* The first interrupt goes to CPU 0; each re-arm keeps it there. */
	if (hostnet_start(sc->sc_hn, cpu_get(0)) < 0) {
		kprintf("%s: cannot start receiving from %s\n", sc->sc_name,
		    sc->sc_hn->hn_desc);
		return -EIO;
	}
	return 0;
}

bool
vke_csum_offload(const struct vke_softc *sc)
{
	return sc->sc_hn->hn_csum;
}

int
vke_transmit(struct vke_softc *sc, const struct hostnet_seg *seg, int n,
    const struct hostnet_csum *cs)
{
	ssize_t r = hostnet_send_csum(sc->sc_hn, seg, n, cs);

	if (r == -EAGAIN) {
		VKE_COUNT(sc, tx_dropped, 1);
		return (int)r;
	}
	if (r < 0) {
		VKE_COUNT(sc, tx_errors, 1);
		return (int)r;
	}
	VKE_COUNT(sc, tx_packets, 1);
	VKE_COUNT(sc, tx_bytes, (uint64_t)r);
	return 0;
}

ssize_t
vke_receive(struct vke_softc *sc, void *buf, size_t len,
    struct hostnet_csum *cs)
{
	ssize_t r = hostnet_recv_csum(sc->sc_hn, buf, len, cs);

	if (r > 0) {
		VKE_COUNT(sc, rx_packets, 1);
		VKE_COUNT(sc, rx_bytes, (uint64_t)r);
	} else if (r != -EAGAIN) {
		VKE_COUNT(sc, rx_errors, 1);
		/* The stack stops and re-arms: the next interrupt retries. */
		r = -EAGAIN;
	}
	return r;
}

void
vke_rxdrop(struct vke_softc *sc)
{
	VKE_COUNT(sc, rx_dropped, 1);
}

void
vke_rxdone(struct vke_softc *sc)
{
	if (hostnet_rearm(sc->sc_hn) < 0)
		kprintf("%s: cannot re-arm the receive interrupt\n", sc->sc_name);
}
