/*
 * Kernel threads: creation, the switch between them, exit.
 *
 * A new thread's stack holds a frame that cpu_switch "returns" into:
 * six zeroed callee-saved registers, with r12 = the thread, and
 * thread_trampoline as the return address, which calls thread_run.
 */
#include <stdio.h>

#include "host/cpu.h"
#include "kern/sched.h"
#include "kern/thread.h"
#include "kern/kmem.h"
#include "kern/vm_page.h"

#ifdef __SANITIZE_ADDRESS__
#include <sanitizer/common_interface_defs.h>
#endif

#define KSTACK_CANARY	0x6b737461636b2121ULL	/* "kstack!!" */

void cpu_switch(uint64_t *old_sp, uint64_t new_sp);
void thread_trampoline(void);
void thread_run(struct thread *td) __attribute__((noreturn));

/* Every thread thread_create made and thread_free did not free yet. */
static struct threadq allthreads = TAILQ_HEAD_INITIALIZER(allthreads);

struct thread *
thread_create(const char *name, void (*fn)(void *), void *arg)
{
	struct thread *td = kmalloc(sizeof(*td), KM_ZERO);
	if (td == NULL)
		return NULL;
	struct vm_page *m = vm_page_alloc(KSTACK_ORDER, 0);
	if (m == NULL) {
		kfree(td);
		return NULL;
	}
	td->td_kstack = PHYS_TO_DMAP(VM_PAGE_TO_PHYS(m));
	td->td_kstack_size = KSTACK_SIZE;
	td->td_asan_bottom = td->td_kstack;
	td->td_asan_size = KSTACK_SIZE;
	*(uint64_t *)td->td_kstack = KSTACK_CANARY;
	td->td_func = fn;
	td->td_arg = arg;
	td->td_state = TDS_NEW;
	td->td_group = &sched_group0;
	td->td_cpumask = CPUMASK_ALL;
	snprintf(td->td_name, sizeof(td->td_name), "%s", name);

	/*
	 * The frame cpu_switch pops: r15 r14 r13 r12 rbx rbp, then rip.  The
	 * trampoline is entered with rsp 16-byte aligned, so that its call
	 * gives thread_run the alignment the ABI promises a function.
	 */
	uint64_t *sp = (uint64_t *)(td->td_kstack + KSTACK_SIZE) - 9;
	memset(sp, 0, 9 * sizeof(*sp));
	sp[3] = (uint64_t)td;			/* r12 */
	sp[6] = (uint64_t)thread_trampoline;
	td->td_sp = (uint64_t)sp;
	TAILQ_INSERT_TAIL(&allthreads, td, td_allq);
	return td;
}

void
thread_start(struct thread *td)
{
	KASSERT(td->td_state == TDS_NEW, "thread started twice");
	sched_setrunnable(td);
}

/* Frees a dead thread's stack and structure.  Not on that stack. */
void
thread_free(struct thread *td)
{
	KASSERT(td->td_state == TDS_DEAD && td != curthread, "freeing a live thread");
	TAILQ_REMOVE(&allthreads, td, td_allq);
	vm_page_free(PHYS_TO_VM_PAGE((uint64_t)(td->td_kstack - physmem.base)),
	    KSTACK_ORDER);
	kfree(td);
}

/*
 * Switches this CPU from the running thread `from` to `to`.  Returns when
 * some CPU switches back to `from`.
 */
void
thread_switch(struct thread *from, struct thread *to)
{
	if (from->td_kstack != NULL && *(uint64_t *)from->td_kstack != KSTACK_CANARY)
		panic("kernel stack overflow in thread %s", from->td_name);
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_start_switch_fiber(from->td_state == TDS_DEAD ? NULL :
	    &from->td_asan_fake, to->td_asan_bottom, to->td_asan_size);
#endif
	cpu_switch(&from->td_sp, to->td_sp);
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_finish_switch_fiber(from->td_asan_fake, NULL, NULL);
#endif
	sched_switched_in();
}

void
thread_run(struct thread *td)
{
#ifdef __SANITIZE_ADDRESS__
	__sanitizer_finish_switch_fiber(NULL, NULL, NULL);
#endif
	sched_switched_in();
	td->td_func(td->td_arg);
	thread_exit();
}

void
thread_exit(void)
{
	struct thread *td = curthread;
	KASSERT(!(td->td_flags & TDF_IDLE), "an idle thread exits");
	td->td_state = TDS_DEAD;
	mi_switch();
	panic("a dead thread ran again");
}

void
thread_foreach(void (*fn)(struct thread *td, void *arg), void *arg)
{
	struct thread *td;

	TAILQ_FOREACH(td, &allthreads, td_allq)
		fn(td, arg);
}

/* The host stack of a CPU's host thread, for AddressSanitizer. */
void
thread_init_idle(struct thread *idle, struct vcpu *cpu)
{
	memset(idle, 0, sizeof(*idle));
	idle->td_flags = TDF_IDLE;
	idle->td_state = TDS_RUNNING;
	idle->td_cpu = cpu;
	idle->td_switched_at = nanouptime();
	snprintf(idle->td_name, sizeof(idle->td_name), "idle%d", cpu->id);
	void *addr;
	size_t size;
	if (cpu_thread_stack(&addr, &size) == 0) {
		idle->td_asan_bottom = addr;
		idle->td_asan_size = size;
	}
}
