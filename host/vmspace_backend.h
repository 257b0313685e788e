/*
 * The operations table behind host/vmspace.h.  The generic layer
 * (host/vmspace.c) owns the id registry and checks every argument before
 * a backend sees it: addresses are page aligned and inside the user
 * range, lengths are non-zero, roots are inside RAM.
 */
#ifndef HOST_VMSPACE_BACKEND_H
#define HOST_VMSPACE_BACKEND_H

#include "vmspace.h"

struct vmspace_host;		/* a backend's private per-vmspace state */

struct vmspace_ops {
	const char *name;
	int host_tasks;		/* host tasks (threads) one vmspace takes */
	int thread_tasks;	/* host tasks each guest thread more takes */
	int max_threads;	/* guest threads per vmspace, thread 0 included */
	/* Returns a new vmspace, or NULL with errno set. */
	struct vmspace_host *(*create)(int type, void *data);
	void (*destroy)(struct vmspace_host *vh);
	/* Optional: see vmspace_kill() and vmspace_gone(). */
	int (*kill)(struct vmspace_host *vh, struct vcpu *cpu);
	bool (*gone)(struct vmspace_host *vh);
	/*
	 * See vmspace_thread_create/destroy: n is checked to be in
	 * [1, max_threads); the backend says ENOENT if it has no thread n.
	 */
	int (*thread_create)(struct vmspace_host *vh);
	int (*thread_destroy)(struct vmspace_host *vh, int n);
	/* Thread n (0 <= n < max_threads); ENOENT if there is none. */
	int (*run)(struct vmspace_host *vh, int n, struct trapframe *tf,
	    struct vextframe *vf);
	int (*fpsave)(struct vmspace_host *vh, int n, struct vextframe *vf);
	/*
	 * Optional: thread n, parked, will not be resumed soon: it should
	 * stop spinning for its reply.  Called under the registry's lock
	 * (vh stays valid meanwhile), so it must neither block nor sleep.
	 */
	void (*yield)(struct vmspace_host *vh, int n);
	/* [start, end) becomes governed by the vpagetable. */
	int (*map)(struct vmspace_host *vh, uint64_t start, uint64_t end);
	/* Host translations of [start, end) must go; unmap also ungoverns. */
	int (*inval)(struct vmspace_host *vh, uint64_t start, uint64_t end);
	int (*unmap)(struct vmspace_host *vh, uint64_t start, uint64_t end);
	int (*setmap)(struct vmspace_host *vh, uint64_t root_pa);
	/* Optional: MADV_PREFAULT, a hint. */
	int (*prefault)(struct vmspace_host *vh, uint64_t start, uint64_t end);
	/* Optional: MADV_INVAL_DEFER (1 if deferred) and MADV_SETTLE. */
	int (*inval_defer)(struct vmspace_host *vh, uint64_t start,
	    uint64_t end);
	int (*settle)(struct vmspace_host *vh);
	/* See vmspace_audit(); now is host_nanotime(). */
	void (*audit)(struct vmspace_host *vh, uint64_t now);
	/* See vmspace_pool(). */
	int (*pool)(int nready);
	/* Optional: see vmspace_exec_keeps(); NULL keeps. */
	bool (*exec_keeps)(struct vmspace_host *vh);
};

extern const struct vmspace_ops trap_vmspace_ops;

/*
 * For a backend's run, once the thread it runs has been told to go: if
 * the calling CPU ran another guest thread before this one (a hand-off
 * between guests on one CPU: a pipe, a wait, a futex), that thread,
 * still parked, is told to stop spinning (see vmspace_ops.yield), so
 * that the host core the two share goes to the thread just woken
 * instead of idling it behind a spin.  Nothing if it is gone.
 */
void vmspace_handoff(void);

/* The backend state of vmspace id, or NULL: for tests and the benchmark. */
struct vmspace_host *vmspace_host_of(void *id);

/* Selects the backend by name ("trap"); -1 with ENOENT if unknown. */
int vmspace_backend_select(const char *name);
const char *vmspace_backend_name(void);

/* The counters of vmspace_stats_get, and adding to one if they are on. */
extern struct vmspace_stats vmspace_stats;
#define VMSTAT_ADD(field, v) do {					\
	if (vmspace_stats_enabled())					\
		__atomic_fetch_add(&vmspace_stats.field, (v),		\
		    __ATOMIC_RELAXED);					\
} while (0)

#endif /* HOST_VMSPACE_BACKEND_H */
