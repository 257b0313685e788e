/*
 * The scheduler's internals, shared by kern_sched.c, kern_synch.c and
 * kern_thread.c.  Other code uses kern/thread.h.
 */
#ifndef KERN_SCHED_H
#define KERN_SCHED_H

#include "kern/thread.h"

/*
 * Puts a new or woken thread on the run queue, wakes an idle CPU for it,
 * and has this CPU's running thread reconsider at its next chance.
 */
void sched_setrunnable(struct thread *td);

/*
 * The run queue (kern_runq.c), shared by the CPUs.  runq_add queues td
 * (new, woken, or yielding if running, by its td_state), placed by its
 * vruntime.  runq_choose takes off the thread owed the CPU most among
 * those that may run on CPU cpuid, or returns NULL if there is none;
 * runq_runnable says whether there is one.  runq_charge counts ns more
 * run by td, which is not on the queue.
 */
void runq_add(struct thread *td);
struct thread *runq_choose(int cpuid);
bool runq_runnable(int cpuid);
void runq_charge(struct thread *td, uint64_t ns);
int runq_length(void);

/*
 * Switches away from curthread, whose state the caller has set: TDS_RUNQ
 * (already queued), TDS_SLEEPING or TDS_DEAD.  Runs the next runnable
 * thread, or this CPU's idle thread.
 */
void mi_switch(void);

/* Bookkeeping right after a switch, on the new thread's stack. */
void sched_switched_in(void);

void thread_switch(struct thread *from, struct thread *to);
void thread_free(struct thread *td);
void thread_init_idle(struct thread *idle, struct vcpu *cpu);

/* Sleep-queue side (kern_synch.c). */
void sleepq_expire(uint64_t now);
uint64_t sleepq_next_deadline(void);

#endif /* KERN_SCHED_H */
