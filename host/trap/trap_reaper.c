/*
 * The reaper: host threads that collect killed stubs, so that the
 * virtual CPU whose process exits does not wait in waitpid while the
 * host takes the stub down (a millisecond on average, tens of
 * milliseconds on a loaded host, per process).  The kernel sleeps the
 * exiting thread instead and runs others; the reaper posts INTR_VMSPACE
 * to the CPU that asked once the stub is gone, and only then may the
 * kernel reuse the pages the stub could map (a SIGKILLed stub runs guest
 * code until the host takes its threads off their CPUs).  It also wipes
 * the stubs of exited processes, posting INTR_VMSPACE the same way, and
 * makes them clean for the pool (trap_recycle.c).
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "host/cpu.h"
#include "host/trap/trap.h"

struct reap_req {
	struct vmspace_host *vh;
	struct vcpu *cpu;
	bool recycle;			/* trap_recycle it, not waitpid */
	bool wipe;			/* trap_wipe it, then post */
	bool early;			/* recycle it before its destroy */
	struct reap_req *next;
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t work;		/* requests queued */
	pthread_cond_t done;		/* a stub collected */
	pthread_once_t once;
	bool running;
	struct reap_req *head, **tail;
} reaper = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.work = PTHREAD_COND_INITIALIZER,
	.done = PTHREAD_COND_INITIALIZER,
	.once = PTHREAD_ONCE_INIT,
	.tail = &reaper.head,
};

static void reaper_queue(struct reap_req *r);

static void *
reaper_main(void *arg)
{
	(void)arg;
	/* Started by an exiting CPU's thread: not on its core. */
	(void)cpu_pin_spare(0);
	pthread_mutex_lock(&reaper.lock);
	for (;;) {
		struct reap_req *r = reaper.head;
		if (r == NULL) {
			pthread_cond_wait(&reaper.work, &reaper.lock);
			continue;
		}
		if ((reaper.head = r->next) == NULL)
			reaper.tail = &reaper.head;
		pthread_mutex_unlock(&reaper.lock);
		if (r->wipe) {
			struct vmspace_host *vh = r->vh;
			bool wiped = trap_wipe(vh);
			pthread_mutex_lock(&reaper.lock);
			pthread_cond_broadcast(&reaper.done);
			if (r->cpu != NULL)
				cpu_post(r->cpu, INTR_VMSPACE);
			pthread_mutex_unlock(&reaper.lock);
			/*
			 * The kernel may destroy its vmspace from now on; the
			 * recycle waits behind the wipes queued meanwhile.
			 */
			if (wiped) {
				*r = (struct reap_req){ .vh = vh, .recycle = true,
				    .early = true };
				reaper_queue(r);
			} else {
				free(r);
			}
			pthread_mutex_lock(&reaper.lock);
			continue;
		}
		if (r->recycle) {
			/* Gone already (trap_exit); nobody waits for it. */
			if (r->early)
				trap_recycle_wiped(r->vh);
			else
				trap_recycle(r->vh);
			free(r);
			pthread_mutex_lock(&reaper.lock);
			continue;
		}
		stub_waitpid(r->vh->pid, NULL);
		pthread_mutex_lock(&reaper.lock);
		__atomic_store_n(&r->vh->reaped, 1, __ATOMIC_RELEASE);
		pthread_cond_broadcast(&reaper.done);
		if (r->cpu != NULL)
			cpu_post(r->cpu, INTR_VMSPACE);
		free(r);
	}
	return NULL;
}

/*
 * Two threads take the requests: a recycle mostly waits (for thread 0 to
 * be scheduled and quit, for the new one to boot: 150 us in density, 1-3
 * ms in latency placement on the loaded host), and one thread recycled
 * more slowly than a fork loop forked, which then waited for the pool.
 */
#define REAPERS	2

static void
reaper_start(void)
{
	pthread_t t;
	pthread_attr_t attr;
	if (pthread_attr_init(&attr) != 0)
		return;
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	for (int i = 0; i < REAPERS; i++)
		if (pthread_create(&t, &attr, reaper_main, NULL) == 0)
			reaper.running = true;
	pthread_attr_destroy(&attr);
}

/*
 * Queues r; a wipe goes ahead of the rest: it is short, the dead
 * process's pages wait for it, and so does its stub's recycle.
 */
static void
reaper_queue(struct reap_req *r)
{
	pthread_mutex_lock(&reaper.lock);
	if (r->wipe) {
		struct reap_req **pp = &reaper.head;
		while (*pp != NULL && (*pp)->wipe)
			pp = &(*pp)->next;
		if ((r->next = *pp) == NULL)
			reaper.tail = &r->next;
		*pp = r;
	} else {
		*reaper.tail = r;
		reaper.tail = &r->next;
	}
	pthread_cond_signal(&reaper.work);
	pthread_mutex_unlock(&reaper.lock);
}

int
trap_kill_async(struct vmspace_host *vh, struct vcpu *cpu)
{
	pthread_once(&reaper.once, reaper_start);
	struct reap_req *r = malloc(sizeof(*r));
	if (!reaper.running || r == NULL || vh->pid <= 0 || vh->reaping) {
		free(r);
		errno = ENOSYS;
		return -1;
	}
	trap_kill(vh, NULL);
	*r = (struct reap_req){ .vh = vh, .cpu = cpu };
	vh->reaping = true;
	reaper_queue(r);
	return 0;
}

void
trap_recycle_async(struct vmspace_host *vh)
{
	pthread_once(&reaper.once, reaper_start);
	struct reap_req *r = malloc(sizeof(*r));
	if (!reaper.running || r == NULL) {
		free(r);
		trap_recycle(vh);
		return;
	}
	*r = (struct reap_req){ .vh = vh, .recycle = true };
	reaper_queue(r);
}

int
trap_wipe_async(struct vmspace_host *vh, struct vcpu *cpu)
{
	pthread_once(&reaper.once, reaper_start);
	struct reap_req *r = malloc(sizeof(*r));
	if (!reaper.running || r == NULL) {
		free(r);
		return -1;
	}
	*r = (struct reap_req){ .vh = vh, .cpu = cpu, .wipe = true };
	trap_recycle_early(vh);
	reaper_queue(r);
	return 0;
}

bool
trap_gone(struct vmspace_host *vh)
{
	return __atomic_load_n(&vh->reaped, __ATOMIC_ACQUIRE);
}

void
trap_reaper_wait(struct vmspace_host *vh)
{
	pthread_mutex_lock(&reaper.lock);
	while (!__atomic_load_n(&vh->reaped, __ATOMIC_ACQUIRE))
		pthread_cond_wait(&reaper.done, &reaper.lock);
	pthread_mutex_unlock(&reaper.lock);
}
