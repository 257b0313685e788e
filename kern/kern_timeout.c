/*
 * Callouts: functions run at a time in the future, on the CPU that takes
 * the tick (or wakes from idle for the first deadline).  A list sorted by
 * deadline; the few timers a process has make anything cleverer moot.
 */
#include "kern/sched.h"
#include "kern/timeout.h"

static TAILQ_HEAD(, callout) callouts = TAILQ_HEAD_INITIALIZER(callouts);

void
callout_reset(struct callout *c, uint64_t delta_ns, void (*fn)(void *), void *arg)
{
	struct callout *t;

	callout_stop(c);
	c->c_time = nanouptime() + delta_ns;
	c->c_fn = fn;
	c->c_arg = arg;
	TAILQ_FOREACH(t, &callouts, c_link)
		if (t->c_time > c->c_time)
			break;
	if (t != NULL)
		TAILQ_INSERT_BEFORE(t, c, c_link);
	else
		TAILQ_INSERT_TAIL(&callouts, c, c_link);
	c->c_pending = true;
}

void
callout_stop(struct callout *c)
{
	if (c->c_pending) {
		TAILQ_REMOVE(&callouts, c, c_link);
		c->c_pending = false;
	}
}

void
callout_expire(uint64_t now)
{
	struct callout *c;
	while ((c = TAILQ_FIRST(&callouts)) != NULL && c->c_time <= now) {
		TAILQ_REMOVE(&callouts, c, c_link);
		c->c_pending = false;
		c->c_fn(c->c_arg);	/* may reset c */
	}
}

uint64_t
callout_next(void)
{
	struct callout *c = TAILQ_FIRST(&callouts);
	return c != NULL ? c->c_time : 0;
}
