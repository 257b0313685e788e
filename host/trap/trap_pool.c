/*
 * Ready stubs.  Starting a stub (vfork, exec, boot, two cross-core
 * wake-ups) costs several hundred microseconds, and fork needs one; a
 * keeper thread keeps a few booted stubs ready for each virtual CPU's
 * stub core, so that vmspace_create takes one instead of waiting.  The
 * keeper refills while the CPUs run guests and kernel code, on the cores
 * no CPU is placed on if there are any (cpu_pin_spare), and its stubs
 * boot there too.
 *
 * A ready stub is new, or recycled from a process that exited
 * (trap_recycle.c): as clean as a new one, and made so before it comes
 * here.  A killed stub is still reaped before the pages it could reach
 * are reused (trap_reap, trap_reaper.c): until it is gone, a guest that
 * forged its report could still touch them.  A recycled stub gives the
 * same guarantee differently: its host mappings are dropped, and proven
 * dropped by the mapper, before the kernel frees its pages.
 */
#include <errno.h>
#include <pthread.h>
#include <string.h>
#include <time.h>

#include "host/clock.h"
#include "host/cpu.h"
#include "host/hostlog.h"
#include "host/trap/trap.h"

#define POOL_MAX	8		/* ready stubs per stub core, at most */
#define POOL_WAIT_NS	2000000L	/* for a recycled stub, before a spawn */

struct stub_pool {
	struct trap_params params;	/* how its stubs are made */
	struct vmspace_host *ready[POOL_MAX];
	int nready;
	int nrecycling;			/* wiped stubs on their way back */
};

static struct {
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_cond_t back;		/* a recycled stub came back, or not */
	pthread_t thread;
	bool running, stopping;
	int want;			/* ready stubs per pool */
	int npools;
	struct stub_pool pools[MAXCPU];
	unsigned failures;		/* spawns in a row that failed */
	unsigned ntaken;		/* stubs handed out */
	unsigned nrecycled;		/* stubs that came back (trap_pool_put) */
} keeper = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.wake = PTHREAD_COND_INITIALIZER,
	.back = PTHREAD_COND_INITIALIZER,
};

/* The pool of stubs made with p, or NULL (keeper.lock held). */
static struct stub_pool *
pool_of(const struct trap_params *p)
{
	for (int i = 0; keeper.running && i < keeper.npools; i++) {
		struct stub_pool *sp = &keeper.pools[i];
		if (sp->params.stub_core == p->stub_core &&
		    sp->params.spin_ns == p->spin_ns &&
		    sp->params.fault_around == p->fault_around &&
		    sp->params.hostmap_budget == p->hostmap_budget)
			return sp;
	}
	return NULL;
}

/*
 * Ready stubs sp will have without a spawn: a stub being recycled comes
 * back within a fraction of a spawn's time, so in a fork loop the
 * keeper spawns none (each spawn took a millisecond of CPU, and the
 * recycled stub it displaced from a full pool was killed).
 */
static int
pool_level(const struct stub_pool *sp)
{
	return sp->nready + sp->nrecycling;
}

/* The pool that needs a stub most, or NULL if all are full. */
static struct stub_pool *
pool_neediest(void)
{
	struct stub_pool *best = NULL;
	for (int i = 0; i < keeper.npools; i++) {
		struct stub_pool *sp = &keeper.pools[i];
		if (pool_level(sp) < keeper.want &&
		    (best == NULL || pool_level(sp) < pool_level(best)))
			best = sp;
	}
	return best;
}

static void *
keeper_main(void *arg)
{
	(void)arg;
	(void)cpu_pin_spare(0);
	pthread_mutex_lock(&keeper.lock);
	while (!keeper.stopping) {
		struct stub_pool *sp = pool_neediest();
		if (sp == NULL || keeper.failures >= 3) {
			pthread_cond_wait(&keeper.wake, &keeper.lock);
			continue;
		}
		struct trap_params p = sp->params;
		pthread_mutex_unlock(&keeper.lock);
		struct vmspace_host *vh = trap_spawn(&p);
		int e = errno;
		pthread_mutex_lock(&keeper.lock);
		if (vh == NULL) {
			/* Retried on the next take: no busy loop against the host. */
			if (++keeper.failures == 3)
				host_log("trap: cannot keep stubs ready: %s", strerror(e));
			continue;
		}
		keeper.failures = 0;
		if (keeper.stopping || sp->nready == POOL_MAX) {
			pthread_mutex_unlock(&keeper.lock);
			trap_reap(vh);
			pthread_mutex_lock(&keeper.lock);
			continue;
		}
		sp->ready[sp->nready++] = vh;
	}
	pthread_mutex_unlock(&keeper.lock);
	return NULL;
}

/*
 * Waits (keeper.lock held) until a stub of the pool of p comes back from
 * its recycling, one is known lost, or POOL_WAIT_NS pass; the pool, or
 * NULL if there is none any more.  A recycle takes a fraction of a
 * spawn's time and CPU: in a fork loop on a loaded host the exits'
 * stubs came back a little late, and each take that found the pool empty
 * spawned a stub on the forking CPU's thread (a fifth of them).
 */
static struct stub_pool *
pool_wait_back(const struct trap_params *p, struct stub_pool *sp)
{
	struct timespec until;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_nsec += POOL_WAIT_NS;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	if (sp != NULL && sp->nready == 0 && sp->nrecycling > 0)
		VMSTAT_ADD(pool_waits, 1);
	uint64_t t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	while (sp != NULL && sp->nready == 0 && sp->nrecycling > 0 &&
	    !keeper.stopping) {
		if (pthread_cond_timedwait(&keeper.back, &keeper.lock, &until) != 0)
			break;
		sp = pool_of(p);
	}
	VMSTAT_ADD(pool_wait_ns, host_nanotime() - t0);
	return sp;
}

struct vmspace_host *
trap_pool_take(const struct trap_params *p)
{
	struct vmspace_host *vh = NULL;
	pthread_mutex_lock(&keeper.lock);
	struct stub_pool *sp = pool_wait_back(p, pool_of(p));
	if (sp != NULL) {
		if (sp->nready > 0) {
			vh = sp->ready[--sp->nready];
			keeper.ntaken++;
		}
		keeper.failures = 0;
		if (pool_level(sp) < keeper.want)
			pthread_cond_signal(&keeper.wake);
	}
	pthread_mutex_unlock(&keeper.lock);
	/* One that died waiting (the host's OOM killer, say) is no use. */
	if (vh != NULL && !trap_alive(vh)) {
		trap_reap(vh);
		vh = NULL;
	}
	return vh;
}

/*
 * A recycled stub (trap_recycle.c) joins the ready ones of its pool, up
 * to POOL_MAX: in a fork loop or a burst, exits refill the pool and the
 * keeper need not spawn.
 */
int
trap_pool_put(struct vmspace_host *vh)
{
	int r = -1;
	pthread_mutex_lock(&keeper.lock);
	struct stub_pool *sp = pool_of(&vh->params);
	if (sp != NULL && !keeper.stopping && sp->nready < POOL_MAX) {
		sp->ready[sp->nready++] = vh;
		keeper.nrecycled++;
		pthread_cond_broadcast(&keeper.back);
		r = 0;
	}
	pthread_mutex_unlock(&keeper.lock);
	return r;
}

int
trap_pool_recycling(const struct trap_params *p, int delta)
{
	int nready = 0;
	pthread_mutex_lock(&keeper.lock);
	struct stub_pool *sp = pool_of(p);
	if (sp != NULL) {
		nready = sp->nready;
		sp->nrecycling += delta;
		if (sp->nrecycling < 0)	/* counted before a restart of the pool */
			sp->nrecycling = 0;
		/* One that did not come back leaves the keeper a stub to make. */
		if (delta < 0 && pool_level(sp) < keeper.want)
			pthread_cond_signal(&keeper.wake);
		if (delta < 0)
			pthread_cond_broadcast(&keeper.back);
	}
	pthread_mutex_unlock(&keeper.lock);
	return nready;
}

unsigned
trap_pool_recycled(void)
{
	pthread_mutex_lock(&keeper.lock);
	unsigned n = keeper.nrecycled;
	pthread_mutex_unlock(&keeper.lock);
	return n;
}

bool
trap_pool_running(void)
{
	pthread_mutex_lock(&keeper.lock);
	bool r = keeper.running && !keeper.stopping;
	pthread_mutex_unlock(&keeper.lock);
	return r;
}

int
trap_pool_ready(unsigned *ntaken)
{
	int n = 0;
	pthread_mutex_lock(&keeper.lock);
	if (ntaken != NULL)
		*ntaken = keeper.ntaken;
	for (int i = 0; i < keeper.npools; i++)
		n += keeper.pools[i].nready;
	pthread_mutex_unlock(&keeper.lock);
	return n;
}

/* Stops the keeper and reaps the stubs it kept. */
static void
pool_stop(void)
{
	pthread_mutex_lock(&keeper.lock);
	bool running = keeper.running;
	keeper.stopping = true;
	pthread_cond_signal(&keeper.wake);
	pthread_cond_broadcast(&keeper.back);
	pthread_mutex_unlock(&keeper.lock);
	if (running)
		pthread_join(keeper.thread, NULL);
	for (int i = 0; i < keeper.npools; i++)
		while (keeper.pools[i].nready > 0)
			trap_reap(keeper.pools[i].ready[--keeper.pools[i].nready]);
	keeper.running = keeper.stopping = false;
	keeper.npools = 0;
}

int
trap_pool(int nready)
{
	if (nready < 0 || nready > POOL_MAX) {
		errno = EINVAL;
		return -1;
	}
	pool_stop();
	if (nready == 0)
		return 0;
	keeper.want = nready;
	keeper.failures = 0;
	for (int i = 0; i < cpu_count(); i++) {
		struct vcpu *cpu = cpu_get(i);
		struct trap_params p;
		trap_params_default(&p, cpu);
		int j;
		for (j = 0; j < keeper.npools; j++)
			if (keeper.pools[j].params.stub_core == p.stub_core &&
			    keeper.pools[j].params.spin_ns == p.spin_ns)
				break;
		if (j == keeper.npools)
			keeper.pools[keeper.npools++] = (struct stub_pool){ .params = p };
	}
	keeper.running = true;
	int error = pthread_create(&keeper.thread, NULL, keeper_main, NULL);
	if (error != 0) {
		keeper.running = false;
		keeper.npools = 0;
		errno = error;
		return -1;
	}
	return 0;
}
