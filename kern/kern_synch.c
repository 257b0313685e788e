/*
 * Sleep and wakeup.  Sleeping threads hang on one of a few hashed queues
 * by their wait channel; those with a timeout are also on a list sorted
 * by deadline, which the tick and the idle loop expire.
 */
#include "kern/sched.h"
#include "kern/thread.h"

#define SLEEPQ_HASH	64

static struct threadq sleepq[SLEEPQ_HASH];
static struct threadq timeq = TAILQ_HEAD_INITIALIZER(timeq);
static bool sleepq_ready;

static struct threadq *
sleepq_of(const void *chan)
{
	if (!sleepq_ready) {
		for (int i = 0; i < SLEEPQ_HASH; i++)
			TAILQ_INIT(&sleepq[i]);
		sleepq_ready = true;
	}
	uintptr_t h = (uintptr_t)chan;
	return &sleepq[((h >> 4) ^ (h >> 12)) % SLEEPQ_HASH];
}

/* Takes td off its sleep queue and makes it runnable with error. */
static void
sleepq_remove(struct thread *td, int error)
{
	TAILQ_REMOVE(sleepq_of(td->td_wchan), td, td_runq);
	if (td->td_timeout != 0) {
		TAILQ_REMOVE(&timeq, td, td_timeq);
		td->td_timeout = 0;
	}
	td->td_wchan = NULL;
	td->td_sleep_error = error;
	sched_setrunnable(td);
}

/* What td's pending signals do to its sleeps (SIGPEND_*; 0 if unknown). */
static int
signal_level(struct thread *td)
{
	return sched_signal_hook != NULL ? sched_signal_hook(td) : 0;
}

/*
 * Whether a sleep with flags would be ended by td's signals: a signal
 * posted before the sleep began found nobody asleep to interrupt.
 */
static bool
sleep_interrupted(struct thread *td, int flags)
{
	if (!(flags & (PCATCH | PKILL)))
		return false;
	int level = signal_level(td);
	return level == SIGPEND_FATAL || (level != 0 && (flags & PCATCH));
}

int
tsleep(const void *chan, int flags, const char *wmesg, uint64_t timo_ns)
{
	struct thread *td = curthread;

	KASSERT(chan != NULL, "sleeping on no channel");
	KASSERT(kernel_locked(), "tsleep: big lock not held");
	if (sleep_interrupted(td, flags))
		return EINTR;
	td->td_wchan = chan;
	td->td_wmesg = wmesg;
	td->td_sleep_error = 0;
	td->td_flags &= ~(TDF_SINTR | TDF_SKILL);
	if (flags & PCATCH)
		td->td_flags |= TDF_SINTR;
	else if (flags & PKILL)
		td->td_flags |= TDF_SKILL;
	TAILQ_INSERT_TAIL(sleepq_of(chan), td, td_runq);
	td->td_timeout = 0;
	if (timo_ns != 0) {
		struct thread *t;
		td->td_timeout = nanouptime() + timo_ns;
		TAILQ_FOREACH(t, &timeq, td_timeq)
			if (t->td_timeout > td->td_timeout)
				break;
		if (t != NULL)
			TAILQ_INSERT_BEFORE(t, td, td_timeq);
		else
			TAILQ_INSERT_TAIL(&timeq, td, td_timeq);
	}
	td->td_state = TDS_SLEEPING;
	mi_switch();
	td->td_flags &= ~(TDF_SINTR | TDF_SKILL);
	return td->td_sleep_error;
}

static void
wakeup_n(const void *chan, bool one)
{
	struct threadq *q = sleepq_of(chan);
	struct thread *td, *tmp;

	KASSERT(kernel_locked(), "wakeup: big lock not held");
	TAILQ_FOREACH_SAFE(td, q, td_runq, tmp) {
		if (td->td_wchan != chan)
			continue;
		sleepq_remove(td, 0);
		if (one)
			break;
	}
}

void
wakeup(const void *chan)
{
	wakeup_n(chan, false);
}

void
wakeup_one(const void *chan)
{
	wakeup_n(chan, true);
}

bool
thread_signal_pending(void)
{
	return signal_level(curthread) != 0;
}

/*
 * A signal arrived for td.  Any signal ends a PCATCH sleep (the caller
 * looks again, or its system call ends and the signal is taken); a
 * killable sleep ends only if the signal is fatal.
 */
void
thread_interrupt(struct thread *td)
{
	if (td->td_state != TDS_SLEEPING)
		return;
	if ((td->td_flags & TDF_SINTR) ||
	    ((td->td_flags & TDF_SKILL) && signal_level(td) == SIGPEND_FATAL))
		sleepq_remove(td, EINTR);
}

void
sleepq_expire(uint64_t now)
{
	struct thread *td;
	while ((td = TAILQ_FIRST(&timeq)) != NULL && td->td_timeout <= now)
		sleepq_remove(td, EWOULDBLOCK);
}

uint64_t
sleepq_next_deadline(void)
{
	struct thread *td = TAILQ_FIRST(&timeq);
	return td != NULL ? td->td_timeout : 0;
}
