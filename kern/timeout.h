/*
 * Callouts (kern_timeout.c): run fn(arg) once, delta_ns from now.
 */
#ifndef KERN_TIMEOUT_H
#define KERN_TIMEOUT_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/queue.h"

struct callout {
	uint64_t c_time;		/* nanouptime deadline */
	void (*c_fn)(void *);
	void *c_arg;
	bool c_pending;
	TAILQ_ENTRY(callout) c_link;
};

/* (Re)arms c.  A zeroed struct callout is a stopped one. */
void callout_reset(struct callout *c, uint64_t delta_ns, void (*fn)(void *),
    void *arg);
void callout_stop(struct callout *c);

/* Runs the callouts due by now (the scheduler calls it). */
void callout_expire(uint64_t now);

/* The first deadline, or 0 if none. */
uint64_t callout_next(void);

#endif /* KERN_TIMEOUT_H */
