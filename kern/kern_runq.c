/*
 * The run queue: fair shares by virtual runtime, on two levels.
 *
 * Runnable threads belong to a share of the CPUs (struct sched_group:
 * one per real uid, made by the process layer; kernel threads are in
 * sched_group0).  Every group with runnable threads gets the same CPU
 * time, whatever the number of its threads, and so does every runnable
 * thread within its group.  Each thread and each group counts the
 * nanoseconds it ran (its vruntime); the CPU goes to the group that ran
 * least, and within it to the thread that ran least.  A fork bomb is then
 * one group: however many processes it makes, the other users keep their
 * share.
 *
 * A thread that slept did not run, so by its vruntime alone it would
 * take the CPU for as long as it slept.  As the BSD schedulers' sleep
 * boost and Linux's placement of waking tasks, a thread or group joining
 * the queue is placed at most SLEEPER_CREDIT behind the least vruntime of
 * its peers (the floor, which never goes back): a sleeper runs ahead of
 * the threads that used their slices, and never more than that ahead.
 * A new thread starts at its group's floor, so forking gains nothing.
 * A thread that yields (or is preempted) goes behind the queued threads
 * of its group: within a group, threads that use their slices take turns.
 *
 * Each queue is a list sorted by vruntime (a few hundred threads at
 * most, each inserted about once a tick: a tree would not pay).
 *
 * The queue is shared by all CPUs: whichever CPU looks next takes the
 * thread owed the CPU most among those its affinity (td_cpumask) allows
 * there, so threads move to whichever CPU is free and no CPU idles while
 * a thread it may run waits.
 *
 * Everything here runs under the big kernel lock.
 */
#include "kern/sched.h"
#include "kern/thread.h"

#define SLEEPER_CREDIT	5000000ULL	/* ns: half a tick at 100 Hz */

struct sched_group sched_group0 = {
	.sg_runq = TAILQ_HEAD_INITIALIZER(sched_group0.sg_runq),
};

/* Groups with runnable threads, least vruntime first. */
static TAILQ_HEAD(, sched_group) groupq = TAILQ_HEAD_INITIALIZER(groupq);
static uint64_t runq_floor;	/* least group vruntime run, never decreasing */
static int runq_len;		/* threads on the queue */

void
sched_group_init(struct sched_group *sg)
{
	*sg = (struct sched_group){ .sg_vruntime = runq_floor };
	TAILQ_INIT(&sg->sg_runq);
}

void
sched_group_fini(struct sched_group *sg)
{
	KASSERT(TAILQ_EMPTY(&sg->sg_runq), "a group with runnable threads ends");
}

void
thread_setgroup(struct thread *td, struct sched_group *sg)
{
	KASSERT(td->td_state != TDS_RUNQ, "regrouping a queued thread");
	/* Level with its new peers: what it ran among the old ones is theirs. */
	td->td_group = sg;
	td->td_vruntime = sg->sg_floor;
}

/* floor - SLEEPER_CREDIT, or 0. */
static uint64_t
credit_below(uint64_t floor)
{
	return floor > SLEEPER_CREDIT ? floor - SLEEPER_CREDIT : 0;
}

/* Puts sg on the group queue behind those that ran as little. */
static void
group_insert(struct sched_group *sg)
{
	struct sched_group *g;
	TAILQ_FOREACH(g, &groupq, sg_link)
		if (g->sg_vruntime > sg->sg_vruntime)
			break;
	if (g != NULL)
		TAILQ_INSERT_BEFORE(g, sg, sg_link);
	else
		TAILQ_INSERT_TAIL(&groupq, sg, sg_link);
}

/* Puts td on its group's queue behind those that ran as little. */
static void
thread_insert(struct sched_group *sg, struct thread *td)
{
	struct thread *t;
	TAILQ_FOREACH(t, &sg->sg_runq, td_runq)
		if (t->td_vruntime > td->td_vruntime)
			break;
	if (t != NULL)
		TAILQ_INSERT_BEFORE(t, td, td_runq);
	else
		TAILQ_INSERT_TAIL(&sg->sg_runq, td, td_runq);
}

void
runq_add(struct thread *td)
{
	struct sched_group *sg = td->td_group;

	KASSERT(kernel_locked(), "runq_add: big lock not held");
	if (td->td_state == TDS_NEW)
		td->td_vruntime = sg->sg_floor;
	else if (td->td_state == TDS_SLEEPING)
		td->td_vruntime = MAX(td->td_vruntime, credit_below(sg->sg_floor));
	else if (!TAILQ_EMPTY(&sg->sg_runq))	/* it yields to its peers */
		td->td_vruntime = MAX(td->td_vruntime,
		    TAILQ_LAST(&sg->sg_runq, threadq)->td_vruntime);
	if (TAILQ_EMPTY(&sg->sg_runq)) {
		sg->sg_vruntime = MAX(sg->sg_vruntime, credit_below(runq_floor));
		group_insert(sg);
	}
	thread_insert(sg, td);
	td->td_state = TDS_RUNQ;
	runq_len++;
}

/* The first queued thread, by group then thread, that may run on cpuid. */
static struct thread *
runq_first(int cpuid)
{
	struct sched_group *sg;
	struct thread *td;

	TAILQ_FOREACH(sg, &groupq, sg_link)
		TAILQ_FOREACH(td, &sg->sg_runq, td_runq)
			if (td->td_cpumask & CPUMASK(cpuid))
				return td;
	return NULL;
}

struct thread *
runq_choose(int cpuid)
{
	KASSERT(kernel_locked(), "runq_choose: big lock not held");
	struct thread *td = runq_first(cpuid);
	if (td == NULL)
		return NULL;
	struct sched_group *sg = td->td_group;
	TAILQ_REMOVE(&sg->sg_runq, td, td_runq);
	if (TAILQ_EMPTY(&sg->sg_runq))
		TAILQ_REMOVE(&groupq, sg, sg_link);
	runq_floor = MAX(runq_floor, sg->sg_vruntime);
	sg->sg_floor = MAX(sg->sg_floor, td->td_vruntime);
	runq_len--;
	return td;
}

bool
runq_runnable(int cpuid)
{
	KASSERT(kernel_locked(), "runq_runnable: big lock not held");
	return runq_len > 0 && runq_first(cpuid) != NULL;
}

void
runq_charge(struct thread *td, uint64_t ns)
{
	struct sched_group *sg = td->td_group;

	td->td_vruntime += ns;
	sg->sg_vruntime += ns;
	/* Its other threads wait in the group's place, which has moved. */
	if (!TAILQ_EMPTY(&sg->sg_runq)) {
		TAILQ_REMOVE(&groupq, sg, sg_link);
		group_insert(sg);
	}
}

int
runq_length(void)
{
	return runq_len;
}
