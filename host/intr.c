/*
 * The host event thread (see intr.h).  Sources are one-shot in epoll: a
 * ready fd fires once, and fires again only after intr_rearm, so a CPU
 * that is slow to read its console is not flooded with interrupts.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "cpu.h"
#include "intr.h"

struct intr_src {
	int fd;
	uint32_t events;
	struct vcpu *cpu;
	int fired;		/* atomic */
	struct intr_src *next;
};

static int epfd = -1, stopfd = -1;
static pthread_t event_thread;
static pthread_mutex_t src_lock = PTHREAD_MUTEX_INITIALIZER;
static struct intr_src *sources;

static void *
intr_loop(void *arg)
{
	(void)arg;
	for (;;) {
		struct epoll_event ev[16];
		int n = epoll_wait(epfd, ev, 16, -1);
		if (n < 0 && errno != EINTR)
			break;
		for (int i = 0; i < n; i++) {
			struct intr_src *src = ev[i].data.ptr;
			if (src == NULL)
				return NULL;	/* the stop event */
			__atomic_store_n(&src->fired, 1, __ATOMIC_RELEASE);
			cpu_post(src->cpu, INTR_DEVICE);
		}
	}
	return NULL;
}

int
intr_start(void)
{
	epfd = epoll_create1(EPOLL_CLOEXEC);
	stopfd = eventfd(0, EFD_CLOEXEC);
	if (epfd < 0 || stopfd < 0)
		goto fail;
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, stopfd, &ev) < 0)
		goto fail;
	int e = pthread_create(&event_thread, NULL, intr_loop, NULL);
	if (e != 0) {
		errno = e;
		goto fail;
	}
	return 0;
fail:;
	int saved = errno;
	if (epfd >= 0)
		close(epfd);
	if (stopfd >= 0)
		close(stopfd);
	epfd = stopfd = -1;
	errno = saved;
	return -1;
}

void
intr_stop(void)
{
	if (epfd < 0)
		return;
	uint64_t one = 1;
	if (write(stopfd, &one, sizeof(one)) == sizeof(one))
		pthread_join(event_thread, NULL);
	pthread_mutex_lock(&src_lock);
	while (sources != NULL) {
		struct intr_src *s = sources;
		sources = s->next;
		free(s);
	}
	pthread_mutex_unlock(&src_lock);
	close(epfd);
	close(stopfd);
	epfd = stopfd = -1;
}

static int
intr_arm(struct intr_src *src, int op)
{
	struct epoll_event ev = { .events = src->events | EPOLLONESHOT,
	    .data.ptr = src };
	return epoll_ctl(epfd, op, src->fd, &ev);
}

struct intr_src *
intr_register(int fd, uint32_t events, struct vcpu *cpu)
{
	if (epfd < 0 || cpu == NULL) {
		errno = EINVAL;
		return NULL;
	}
	struct intr_src *src = calloc(1, sizeof(*src));
	if (src == NULL)
		return NULL;
	src->fd = fd;
	src->events = events;
	src->cpu = cpu;
	pthread_mutex_lock(&src_lock);
	src->next = sources;
	sources = src;
	pthread_mutex_unlock(&src_lock);
	if (intr_arm(src, EPOLL_CTL_ADD) < 0) {
		src->fd = -1;	/* freed with the others at intr_stop */
		return NULL;
	}
	return src;
}

bool
intr_fired(struct intr_src *src)
{
	return __atomic_exchange_n(&src->fired, 0, __ATOMIC_ACQ_REL) != 0;
}

int
intr_rearm(struct intr_src *src)
{
	if (src->fd < 0) {
		errno = EBADF;
		return -1;
	}
	return intr_arm(src, EPOLL_CTL_MOD);
}

/*
 * The source stays allocated until intr_stop: the event thread may hold
 * an event for it that epoll returned just before the removal.
 */
void
intr_unregister(struct intr_src *src)
{
	(void)epoll_ctl(epfd, EPOLL_CTL_DEL, src->fd, NULL);
	src->fd = -1;
}
