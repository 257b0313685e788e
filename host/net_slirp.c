/*
 * The slirp back-end (see hostnet.h): libslirp, QEMU's user-mode
 * networking, for users without privileges.  The guest's frames become
 * the host's own sockets (NAT); 10.0.2.2 is the host's loopback.
 *
 * libslirp is not thread-safe, so one host thread of ours owns the
 * instance: it polls slirp's sockets and an eventfd, runs slirp's
 * timers, feeds it the frames the guest sent (queued by hostnet_send
 * from any thread) and queues the frames slirp sends for the guest,
 * posting INTR_DEVICE itself when the receive side is armed.  Both
 * queues are rings of bytes allocated once (struct ring): nothing is
 * allocated per frame, and slirp and the guest read a frame where it
 * lies.
 *
 * Restricted (restrict=on) is ours, not libslirp's `restricted` flag:
 * libslirp's drops every connection the guest opens, the host's loopback
 * included.  Ours lets through only what goes to 10.0.2.2 (the host's
 * loopback, and the far end of every host forward) and ARP: no outside
 * address, no DNS proxy (10.0.2.3), no IPv6.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <slirp/libslirp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "cpu.h"
#include "hostnet.h"

#define SLIRP_RINGSZ	(1 << 20)	/* bytes a queue holds */
/*
 * The link's MTU, both ways (the guest's vke0 takes it): a frame carries
 * a TCP segment of 21845 bytes (the MSS both stacks derive from it), 15
 * times fewer frames, slirp socket writes and interrupts per MB than at
 * 1500.  Why not 64 KiB: slirp's TCP does not scale its window, so 64 KiB
 * is in flight at most, and both TCPs avoid the silly window syndrome
 * by segment sizes:
 *  - lwIP sends only whole segments that fit the window; slirp announces
 *    a reopened window once it grew by two of its segments (or half its
 *    buffer).  With segments past a third of 64 KiB, a window left
 *    smaller than a segment reopens by less than two of them, and lwIP
 *    sat in its persist timer (measured: 1.1-1.3 s stalls at MTU 32807);
 *  - lwIP announces a reopened window once it grew by its MSS (the
 *    smaller of slirp's offer and its own); slirp sends less than a
 *    segment only into half of 64 KiB.  With an MSS past 32 KiB both
 *    wait (measured: 5 s stalls, 0.1 MB/s host->guest at MTU 65517).
 * At a third of 64 KiB, three segments fill the window and a window
 * smaller than one reopens by more than two: neither side waits.
 */
#define SLIRP_MTU	21885
#define SLIRP_SKIP	UINT32_MAX	/* a record's length: wrap to the start */

/*
 * A ring of frames between two threads: records of a 64-bit header (the
 * frame's length) and the frame, 8-byte aligned, one after the other in
 * a buffer allocated once.  A record never wraps: one that does not fit
 * at the end leaves a SLIRP_SKIP header there and goes to the start.
 * head and tail count bytes since the start (tail - head are in use).
 * The lock is held only to move them and to copy a frame in; the one
 * consumer reads the oldest frame where it lies (ring_peek) and frees it
 * after (ring_pop): producers never write where it reads.
 */
struct ring {
	pthread_mutex_t lock;
	size_t head, tail;
	uint8_t *buf;			/* SLIRP_RINGSZ bytes */
};

struct stimer {
	SlirpTimerCb cb;
	void *arg;
	int64_t expire_ms;		/* -1: not armed */
	struct stimer *next;
};

struct sl {
	struct hostnet s_hn;
	Slirp *s_slirp;
	pthread_t s_thread;
	int s_wakefd;			/* eventfd: frames to send, or stop */
	int s_stop;			/* atomic */
	int s_cpu;			/* CPU to interrupt; -1 before start */
	bool s_restricted;
	int s_armed, s_fired;		/* atomic */
	struct stimer *s_timers;
	struct pollfd *s_pfd;
	int s_npfd, s_maxpfd;
	size_t s_framemax;		/* the longest frame, either way */
	struct ring s_out;		/* guest -> slirp */
	struct ring s_in;		/* slirp -> guest */
};

static int
ring_init(struct ring *r)
{
	pthread_mutex_init(&r->lock, NULL);
	r->head = r->tail = 0;
	r->buf = malloc(SLIRP_RINGSZ);
	return r->buf != NULL ? 0 : -1;
}

static size_t
ring_reclen(size_t len)
{
	return 8 + ((len + 7) & ~(size_t)7);
}

/* Appends a frame of n pieces; false if the ring has no room for it. */
static bool
ring_put(struct ring *r, const struct hostnet_seg *seg, int n, bool *was_empty)
{
	size_t len = 0;
	for (int i = 0; i < n; i++)
		len += seg[i].hs_len;
	size_t need = ring_reclen(len);
	pthread_mutex_lock(&r->lock);
	size_t at = r->tail % SLIRP_RINGSZ;
	size_t skip = SLIRP_RINGSZ - at < need ? SLIRP_RINGSZ - at : 0;
	if (SLIRP_RINGSZ - (r->tail - r->head) < skip + need) {
		pthread_mutex_unlock(&r->lock);
		return false;
	}
	if (was_empty != NULL)
		*was_empty = r->tail == r->head;
	if (skip != 0) {
		*(uint64_t *)(r->buf + at) = SLIRP_SKIP;
		at = 0;
	}
	*(uint64_t *)(r->buf + at) = len;
	uint8_t *p = r->buf + at + 8;
	for (int k = 0; k < n; k++) {
		memcpy(p, seg[k].hs_base, seg[k].hs_len);
		p += seg[k].hs_len;
	}
	r->tail += skip + need;
	pthread_mutex_unlock(&r->lock);
	return true;
}

/*
 * The oldest frame, where it lies, and its length; NULL if none.  It
 * stays the consumer's until ring_pop.
 */
static const uint8_t *
ring_peek(struct ring *r, size_t *len)
{
	pthread_mutex_lock(&r->lock);
	if (r->tail == r->head) {
		pthread_mutex_unlock(&r->lock);
		return NULL;
	}
	size_t at = r->head % SLIRP_RINGSZ;
	if (*(uint64_t *)(r->buf + at) == SLIRP_SKIP) {
		r->head += SLIRP_RINGSZ - at;
		at = 0;
	}
	pthread_mutex_unlock(&r->lock);
	*len = (size_t)*(uint64_t *)(r->buf + at);
	return r->buf + at + 8;
}

/* Frees the frame ring_peek returned, of length len. */
static void
ring_pop(struct ring *r, size_t len)
{
	pthread_mutex_lock(&r->lock);
	r->head += ring_reclen(len);
	pthread_mutex_unlock(&r->lock);
}

static bool
ring_empty(struct ring *r)
{
	pthread_mutex_lock(&r->lock);
	bool empty = r->tail == r->head;
	pthread_mutex_unlock(&r->lock);
	return empty;
}

static void
sl_wake(struct sl *s)
{
	uint64_t one = 1;
	if (write(s->s_wakefd, &one, sizeof(one)) < 0) {
		/* The counter is full: the thread is awake anyway. */
	}
}

/* The interrupt, if armed: one post until the kernel re-arms. */
static void
sl_interrupt(struct sl *s)
{
	if (__atomic_exchange_n(&s->s_armed, 0, __ATOMIC_ACQ_REL)) {
		__atomic_store_n(&s->s_fired, 1, __ATOMIC_RELEASE);
		cpu_post_id(s->s_cpu, INTR_DEVICE);
	}
}

static int64_t
sl_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* slirp's callbacks, all on our thread. */

static ssize_t
cb_send_packet(const void *buf, size_t len, void *opaque)
{
	struct sl *s = opaque;
	struct hostnet_seg seg = { buf, len };

	if (len > s->s_framemax || !ring_put(&s->s_in, &seg, 1, NULL))
		return (ssize_t)len;	/* dropped, as a full NIC ring would */
	sl_interrupt(s);
	return (ssize_t)len;
}

static void
cb_guest_error(const char *msg, void *opaque)
{
	(void)opaque;
	fprintf(stderr, "vkernel: slirp: %s\n", msg);
}

static int64_t
cb_clock_get_ns(void *opaque)
{
	struct timespec ts;
	(void)opaque;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void *
cb_timer_new(SlirpTimerCb cb, void *cb_opaque, void *opaque)
{
	struct sl *s = opaque;
	struct stimer *t = calloc(1, sizeof(*t));
	if (t == NULL)
		abort();	/* libslirp cannot take a failure here */
	t->cb = cb;
	t->arg = cb_opaque;
	t->expire_ms = -1;
	t->next = s->s_timers;
	s->s_timers = t;
	return t;
}

static void
cb_timer_free(void *timer, void *opaque)
{
	struct sl *s = opaque;
	for (struct stimer **tp = &s->s_timers; *tp != NULL; tp = &(*tp)->next)
		if (*tp == timer) {
			*tp = ((struct stimer *)timer)->next;
			free(timer);
			return;
		}
}

static void
cb_timer_mod(void *timer, int64_t expire_ms, void *opaque)
{
	(void)opaque;
	((struct stimer *)timer)->expire_ms = expire_ms;
}

static void
cb_register_poll_fd(int fd, void *opaque)
{
	(void)fd, (void)opaque;	/* slirp_pollfds_fill names them each turn */
}

/*
 * slirp says a socket may take more from the guest (for slirp_socket_recv,
 * which we do not use).  slirp runs on our thread only, which fills its
 * poll set again before it sleeps: nothing to wake.
 */
static void
cb_notify(void *opaque)
{
	(void)opaque;
}

static const SlirpCb sl_callbacks = {
	.send_packet = cb_send_packet,
	.guest_error = cb_guest_error,
	.clock_get_ns = cb_clock_get_ns,
	.timer_new = cb_timer_new,
	.timer_free = cb_timer_free,
	.timer_mod = cb_timer_mod,
	.register_poll_fd = cb_register_poll_fd,
	.unregister_poll_fd = cb_register_poll_fd,
	.notify = cb_notify,
};

static int
sl_events_to_poll(int ev)
{
	return (ev & SLIRP_POLL_IN ? POLLIN : 0) |
	    (ev & SLIRP_POLL_OUT ? POLLOUT : 0) |
	    (ev & SLIRP_POLL_PRI ? POLLPRI : 0);
}

static int
cb_add_poll(int fd, int events, void *opaque)
{
	struct sl *s = opaque;
	if (s->s_npfd == s->s_maxpfd) {
		int n = s->s_maxpfd ? s->s_maxpfd * 2 : 32;
		struct pollfd *p = realloc(s->s_pfd, n * sizeof(*p));
		if (p == NULL)
			abort();
		s->s_pfd = p;
		s->s_maxpfd = n;
	}
	s->s_pfd[s->s_npfd] = (struct pollfd){ fd, (short)sl_events_to_poll(events), 0 };
	return s->s_npfd++;
}

static int
cb_get_revents(int idx, void *opaque)
{
	struct sl *s = opaque;
	int r = s->s_pfd[idx].revents;
	return (r & POLLIN ? SLIRP_POLL_IN : 0) | (r & POLLOUT ? SLIRP_POLL_OUT : 0) |
	    (r & POLLPRI ? SLIRP_POLL_PRI : 0) | (r & POLLERR ? SLIRP_POLL_ERR : 0) |
	    (r & POLLHUP ? SLIRP_POLL_HUP : 0);
}

/* Feeds slirp every frame the guest queued. */
static void
sl_output(struct sl *s)
{
	const uint8_t *f;
	size_t len;

	while ((f = ring_peek(&s->s_out, &len)) != NULL) {
		slirp_input(s->s_slirp, f, (int)len);
		ring_pop(&s->s_out, len);
	}
}

static void
sl_run_timers(struct sl *s)
{
	int64_t now = sl_now_ms();
	bool again = true;

	/* A callback may free or add timers: restart the walk after each. */
	while (again) {
		again = false;
		for (struct stimer *t = s->s_timers; t != NULL; t = t->next)
			if (t->expire_ms >= 0 && t->expire_ms <= now) {
				t->expire_ms = -1;
				t->cb(t->arg);
				again = true;
				break;
			}
	}
}

static uint32_t
sl_timeout(struct sl *s)
{
	int64_t now = sl_now_ms(), next = -1;
	for (struct stimer *t = s->s_timers; t != NULL; t = t->next)
		if (t->expire_ms >= 0 && (next < 0 || t->expire_ms < next))
			next = t->expire_ms;
	if (next < 0)
		return 1000;
	return next <= now ? 0 : (uint32_t)(next - now < 1000 ? next - now : 1000);
}

static void *
sl_main(void *arg)
{
	struct sl *s = arg;

	while (!__atomic_load_n(&s->s_stop, __ATOMIC_ACQUIRE)) {
		uint32_t timeout = sl_timeout(s);
		s->s_npfd = 0;
		cb_add_poll(s->s_wakefd, SLIRP_POLL_IN, s);
		slirp_pollfds_fill(s->s_slirp, &timeout, cb_add_poll, s);
		int n = poll(s->s_pfd, s->s_npfd, (int)timeout);
		if (n < 0 && errno != EINTR)
			break;
		if (n > 0 && (s->s_pfd[0].revents & POLLIN)) {
			uint64_t v;
			if (read(s->s_wakefd, &v, sizeof(v)) < 0) {
				/* Nothing to read: someone else's wake-up. */
			}
		}
		sl_output(s);
		slirp_pollfds_poll(s->s_slirp, n < 0, cb_get_revents, s);
		sl_run_timers(s);
	}
	return NULL;
}

static int
sl_start(struct hostnet *hn, struct vcpu *cpu)
{
	struct sl *s = (struct sl *)hn;

	__atomic_store_n(&s->s_cpu, cpu->id, __ATOMIC_RELEASE);
	return hostnet_rearm(hn);
}

/* Restricted: may the guest send this frame (its first piece)? */
static bool
sl_allowed(const struct hostnet_seg *seg)
{
	const uint8_t *f = seg->hs_base;

	if (seg->hs_len < 14)
		return false;
	if (f[12] == 0x08 && f[13] == 0x06)		/* ARP */
		return true;
	if (f[12] != 0x08 || f[13] != 0x00 || seg->hs_len < 14 + 20)
		return false;
	static const uint8_t vhost[4] = { 10, 0, 2, 2 };
	static const uint8_t bcast[4] = { 255, 255, 255, 255 };
	const uint8_t *dst = f + 14 + 16;
	/* DHCP asks by broadcast; slirp's server answers from 10.0.2.2. */
	return memcmp(dst, vhost, 4) == 0 ||
	    (memcmp(dst, bcast, 4) == 0 && f[14 + 9] == 17);
}

static ssize_t
sl_send(struct hostnet *hn, const struct hostnet_seg *seg, int n)
{
	struct sl *s = (struct sl *)hn;
	bool was_empty;
	size_t len = 0;

	for (int i = 0; i < n; i++)
		len += seg[i].hs_len;
	if (s->s_restricted && (n == 0 || !sl_allowed(seg)))
		return (ssize_t)len;	/* filtered: lost, as by a firewall */
	if (len > s->s_framemax)
		return -EMSGSIZE;
	if (!ring_put(&s->s_out, seg, n, &was_empty))
		return -EAGAIN;
	/* The thread drains the whole ring once woken: wake it only once. */
	if (was_empty)
		sl_wake(s);
	return (ssize_t)len;
}

static ssize_t
sl_recv(struct hostnet *hn, void *buf, size_t len)
{
	struct sl *s = (struct sl *)hn;
	size_t n;
	const uint8_t *f = ring_peek(&s->s_in, &n);

	if (f == NULL)
		return -EAGAIN;
	memcpy(buf, f, n < len ? n : len);
	ring_pop(&s->s_in, n);
	return (ssize_t)(n < len ? n : len);
}

static bool
sl_fired(struct hostnet *hn)
{
	struct sl *s = (struct sl *)hn;
	return __atomic_exchange_n(&s->s_fired, 0, __ATOMIC_ACQ_REL) != 0;
}

static int
sl_rearm(struct hostnet *hn)
{
	struct sl *s = (struct sl *)hn;

	if (__atomic_load_n(&s->s_cpu, __ATOMIC_ACQUIRE) < 0) {
		errno = EINVAL;
		return -1;
	}
	__atomic_store_n(&s->s_armed, 1, __ATOMIC_RELEASE);
	/* A frame queued while we were not armed would wait forever. */
	if (!ring_empty(&s->s_in))
		sl_interrupt(s);
	return 0;
}

/* Frees what hostnet_slirp_open made, once the thread is gone. */
static void
sl_free(struct sl *s)
{
	if (s->s_slirp != NULL)
		slirp_cleanup(s->s_slirp);
	while (s->s_timers != NULL)
		cb_timer_free(s->s_timers, s);
	if (s->s_wakefd >= 0)
		close(s->s_wakefd);
	free(s->s_pfd);
	free(s->s_out.buf);
	free(s->s_in.buf);
	free(s);
}

static void
sl_close(struct hostnet *hn)
{
	struct sl *s = (struct sl *)hn;

	__atomic_store_n(&s->s_stop, 1, __ATOMIC_RELEASE);
	sl_wake(s);
	pthread_join(s->s_thread, NULL);
	sl_free(s);
}

static const struct hostnet_ops sl_ops = {
	.start = sl_start,
	.send = sl_send,
	.recv = sl_recv,
	.fired = sl_fired,
	.rearm = sl_rearm,
	.close = sl_close,
};

static struct in_addr
ip4(uint32_t host_order)
{
	return (struct in_addr){ htonl(host_order) };
}

struct hostnet *
hostnet_slirp_open(const struct hostnet_slirp_params *p, char *why,
    size_t whylen)
{
	struct sl *s = calloc(1, sizeof(*s));
	if (s == NULL) {
		snprintf(why, whylen, "out of memory");
		return NULL;
	}
	s->s_hn.hn_ops = &sl_ops;
	s->s_hn.hn_mtu = SLIRP_MTU;
	s->s_framemax = SLIRP_MTU + 18;	/* VKE_FRAMELEN */
	snprintf(s->s_hn.hn_desc, sizeof(s->s_hn.hn_desc), "slirp%s",
	    p->restricted ? " (restricted)" : "");
	s->s_cpu = -1;
	s->s_restricted = p->restricted;
	s->s_wakefd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (s->s_wakefd < 0) {
		snprintf(why, whylen, "eventfd: %s", strerror(errno));
		goto fail;
	}
	if (ring_init(&s->s_out) < 0 || ring_init(&s->s_in) < 0) {
		snprintf(why, whylen, "out of memory");
		goto fail;
	}

	SlirpConfig cfg = {
		.version = 1,
		.in_enabled = true,
		.vnetwork = ip4(0x0a000200),
		.vnetmask = ip4(0xffffff00),
		.vhost = ip4(0x0a000202),
		.vdhcp_start = ip4(0x0a00020f),
		.vnameserver = ip4(0x0a000203),
		.vhostname = "vkernel",
		.if_mtu = SLIRP_MTU,
		.if_mru = SLIRP_MTU,
	};
	s->s_slirp = slirp_new(&cfg, &sl_callbacks, s);
	if (s->s_slirp == NULL) {
		snprintf(why, whylen, "slirp_new failed");
		goto fail;
	}
	for (int i = 0; i < p->nfwd; i++) {
		const struct hostnet_fwd *f = &p->fwd[i];
		if (slirp_add_hostfwd(s->s_slirp, f->udp,
		    (struct in_addr){ f->host_addr }, f->host_port,
		    ip4(0x0a00020f), f->guest_port) < 0) {
			snprintf(why, whylen, "hostfwd %s port %u: %s",
			    f->udp ? "udp" : "tcp", f->host_port, strerror(errno));
			goto fail;
		}
	}

	/* The thread takes no signals: the CPUs' ticks and kicks are not its. */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	int e = pthread_create(&s->s_thread, NULL, sl_main, s);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0) {
		snprintf(why, whylen, "thread: %s", strerror(e));
		goto fail;
	}
	return &s->s_hn;
fail:
	sl_free(s);
	return NULL;
}
