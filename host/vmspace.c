/*
 * The host-layer entry points (vmspace.h): the registry of vmspace ids,
 * the checks every argument goes through, and the dispatch to the
 * selected backend.  mcontrol() on the kernel's own RAM is here too.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/param.h>
#include <sys/resource.h>
#include <unistd.h>
#include <limits.h>

#include "clock.h"
#include "cpu.h"
#include "physmem.h"
#include "vmspace.h"
#include "vmspace_backend.h"

#define VMSPACE_HASH	256

struct vmspace_ent {
	void *id;
	struct vmspace_host *vh;
	struct vmspace_ent *next;
};

static const struct vmspace_ops *backend = &trap_vmspace_ops;
static struct vmspace_ent *vmspace_hash[VMSPACE_HASH];
static pthread_mutex_t vmspace_lock = PTHREAD_MUTEX_INITIALIZER;

int
vmspace_backend_select(const char *name)
{
	if (strcmp(name, trap_vmspace_ops.name) == 0) {
		backend = &trap_vmspace_ops;
		return 0;
	}
	errno = ENOENT;
	return -1;
}

const char *
vmspace_backend_name(void)
{
	return backend->name;
}

static struct vmspace_ent **
vmspace_slot(void *id)
{
	uintptr_t h = (uintptr_t)id;
	h ^= h >> 17;
	h *= 0x9e3779b97f4a7c15ULL;
	struct vmspace_ent **pp = &vmspace_hash[(h >> 56) % VMSPACE_HASH];
	while (*pp != NULL && (*pp)->id != id)
		pp = &(*pp)->next;
	return pp;
}

static struct vmspace_host *
vmspace_lookup(void *id)
{
	pthread_mutex_lock(&vmspace_lock);
	struct vmspace_ent *e = *vmspace_slot(id);
	pthread_mutex_unlock(&vmspace_lock);
	if (e == NULL) {
		errno = ENOENT;
		return NULL;
	}
	return e->vh;
}

struct vmspace_host *
vmspace_host_of(void *id)
{
	return vmspace_lookup(id);
}

/* Checks a page-aligned, non-empty user range; returns its end or 0. */
static uint64_t
user_range(void *start, size_t len)
{
	uint64_t s = (uint64_t)start;
	if ((s & PAGE_MASK) || (len & PAGE_MASK) || len == 0 ||
	    s >= VM_MAX_USER_ADDRESS || len > VM_MAX_USER_ADDRESS - s) {
		errno = EINVAL;
		return 0;
	}
	return s + len;
}

/* Looks up id and checks the range; returns the range's end, or 0. */
static uint64_t
vmspace_range(void *id, void *start, size_t len, struct vmspace_host **vhp)
{
	*vhp = vmspace_lookup(id);
	return *vhp != NULL ? user_range(start, len) : 0;
}

struct vmspace_stats vmspace_stats;

bool
vmspace_stats_enabled(void)
{
	static int on = -1;	/* not looked up yet; a race looks twice */
	int v = __atomic_load_n(&on, __ATOMIC_RELAXED);
	if (v < 0) {
		v = getenv("VKERNEL_FORKSTAT") != NULL;
		__atomic_store_n(&on, v, __ATOMIC_RELAXED);
	}
	return v;
}

void
vmspace_stats_get(struct vmspace_stats *s)
{
	const uint64_t *from = (const uint64_t *)&vmspace_stats;
	uint64_t *to = (uint64_t *)s;
	for (size_t i = 0; i < sizeof(*s) / sizeof(uint64_t); i++)
		to[i] = __atomic_load_n(&from[i], __ATOMIC_RELAXED);
}

int
vmspace_create(void *id, int type, void *data)
{
	if (id == NULL) {
		errno = EINVAL;
		return -1;
	}
	struct vmspace_ent *e = malloc(sizeof(*e));
	if (e == NULL)
		return -1;
	pthread_mutex_lock(&vmspace_lock);
	int exists = *vmspace_slot(id) != NULL;
	pthread_mutex_unlock(&vmspace_lock);
	if (exists) {
		free(e);
		errno = EEXIST;
		return -1;
	}
	e->id = id;
	uint64_t t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	e->vh = backend->create(type, data);
	VMSTAT_ADD(creates, 1);
	VMSTAT_ADD(create_ns, host_nanotime() - t0);
	if (e->vh == NULL) {
		int err = errno;
		free(e);
		errno = err;
		return -1;
	}
	pthread_mutex_lock(&vmspace_lock);
	struct vmspace_ent **pp = vmspace_slot(id);
	e->next = NULL;
	*pp = e;
	pthread_mutex_unlock(&vmspace_lock);
	return 0;
}

int
vmspace_destroy(void *id)
{
	pthread_mutex_lock(&vmspace_lock);
	struct vmspace_ent **pp = vmspace_slot(id), *e = *pp;
	if (e != NULL)
		*pp = e->next;
	pthread_mutex_unlock(&vmspace_lock);
	if (e == NULL) {
		errno = ENOENT;
		return -1;
	}
	uint64_t t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	backend->destroy(e->vh);
	VMSTAT_ADD(destroys, 1);
	VMSTAT_ADD(destroy_ns, host_nanotime() - t0);
	free(e);
	return 0;
}

int
vmspace_kill(void *id, struct vcpu *cpu)
{
	struct vmspace_host *vh = vmspace_lookup(id);
	if (vh == NULL)
		return -1;
	if (backend->kill == NULL) {
		errno = ENOSYS;
		return -1;
	}
	uint64_t t0 = vmspace_stats_enabled() ? host_nanotime() : 0;
	int r = backend->kill(vh, cpu);
	VMSTAT_ADD(kills, 1);
	VMSTAT_ADD(kill_ns, host_nanotime() - t0);
	return r;
}

bool
vmspace_gone(void *id)
{
	struct vmspace_host *vh = vmspace_lookup(id);
	return vh == NULL || (backend->gone != NULL && backend->gone(vh));
}

int
vmspace_pool(int nready)
{
	if (backend->pool == NULL) {
		errno = ENOSYS;
		return -1;
	}
	return backend->pool(nready);
}

bool
vmspace_exec_keeps(void *id)
{
	struct vmspace_host *vh = vmspace_lookup(id);
	return vh != NULL && (backend->exec_keeps == NULL || backend->exec_keeps(vh));
}

int
vmspace_rekey(void *id, void *newid)
{
	if (newid == NULL) {
		errno = EINVAL;
		return -1;
	}
	pthread_mutex_lock(&vmspace_lock);
	struct vmspace_ent **pp = vmspace_slot(id), *e = *pp;
	int error = e == NULL ? ENOENT : *vmspace_slot(newid) != NULL ? EEXIST : 0;
	if (error == 0) {
		*pp = e->next;
		e->id = newid;
		e->next = NULL;
		*vmspace_slot(newid) = e;
	}
	pthread_mutex_unlock(&vmspace_lock);
	if (error != 0) {
		errno = error;
		return -1;
	}
	return 0;
}

/* True if va is a canonical 48-bit address (bits 63..47 all equal). */
static bool
canonical(uint64_t va)
{
	return (uint64_t)((int64_t)(va << 16) >> 16) == va;
}

int
vmspace_thread_create(void *id)
{
	struct vmspace_host *vh = vmspace_lookup(id);
	if (vh == NULL)
		return -1;
	return backend->thread_create(vh);
}

int
vmspace_thread_destroy(void *id, int n)
{
	struct vmspace_host *vh = vmspace_lookup(id);
	if (vh == NULL)
		return -1;
	if (n <= 0 || n >= backend->max_threads) {
		errno = n == 0 ? EINVAL : ENOENT;
		return -1;
	}
	return backend->thread_destroy(vh, n);
}

int
vmspace_ctl(void *id, int cmd, struct trapframe *tf, struct vextframe *vf)
{
	return vmspace_thread_ctl(id, 0, cmd, tf, vf);
}

/*
 * Remembers which guest thread the calling CPU runs now, and, if it ran
 * another before, that one for vmspace_handoff.  Only where guests spin
 * for their replies (latency placement): in density nothing spins.
 */
static void
handoff_note(void *id, int n)
{
	struct vcpu *cpu = cpu_self();

	if (cpu == NULL || cpu->spin_ns == 0)
		return;
	cpu->handoff_id = NULL;
	if (cpu->run_id != NULL && (cpu->run_id != id || cpu->run_n != n)) {
		cpu->handoff_id = cpu->run_id;
		cpu->handoff_n = cpu->run_n;
	}
	cpu->run_id = id;
	cpu->run_n = n;
}

void
vmspace_handoff(void)
{
	struct vcpu *cpu = cpu_self();

	if (cpu == NULL || cpu->handoff_id == NULL || backend->yield == NULL)
		return;
	/* Under the lock: vmspace_destroy takes it out of the registry first. */
	pthread_mutex_lock(&vmspace_lock);
	struct vmspace_ent *e = *vmspace_slot(cpu->handoff_id);
	if (e != NULL)
		backend->yield(e->vh, cpu->handoff_n);
	pthread_mutex_unlock(&vmspace_lock);
	cpu->handoff_id = NULL;
}

int
vmspace_thread_ctl(void *id, int n, int cmd, struct trapframe *tf,
    struct vextframe *vf)
{
	struct vmspace_host *vh = vmspace_lookup(id);
	if (vh == NULL)
		return -1;
	if (n < 0 || n >= backend->max_threads) {
		errno = ENOENT;
		return -1;
	}
	switch (cmd) {
	case VMSPACE_CTL_RUN:
		if (tf == NULL || ((tf->tf_xflags & PGEX_FPFAULT) && vf == NULL))
			break;
		/* Any base wrfsbase takes: a canonical address. */
		if (vf != NULL && (!canonical(vf->vx_fsbase) ||
		    !canonical(vf->vx_gsbase)))
			break;
		handoff_note(id, n);
		return backend->run(vh, n, tf, vf);
	case VMSPACE_CTL_FPSAVE:
		if (vf == NULL)
			break;
		return backend->fpsave(vh, n, vf);
	}
	errno = EINVAL;
	return -1;
}

int
vmspace_mmap(void *id, void *start, size_t len, int prot, int flags, int fd,
    off_t offset)
{
	struct vmspace_host *vh;
	uint64_t end = vmspace_range(id, start, len, &vh);
	if (end == 0)
		return -1;
	/* The vpagetable decides protections and pages; RAM is the only object. */
	if (!(flags & MAP_VPAGETABLE) || (prot & ~(PROT_READ | PROT_WRITE |
	    PROT_EXEC)) || (fd != -1 && fd != physmem.fd) || offset != 0) {
		errno = EINVAL;
		return -1;
	}
	return backend->map(vh, (uint64_t)start, end);
}

int
vmspace_munmap(void *id, void *start, size_t len)
{
	struct vmspace_host *vh;
	uint64_t end = vmspace_range(id, start, len, &vh);
	if (end == 0)
		return -1;
	return backend->unmap(vh, (uint64_t)start, end);
}

int
vmspace_mcontrol(void *id, void *start, size_t len, int adv, void *val)
{
	struct vmspace_host *vh = vmspace_lookup(id);
	if (vh == NULL)
		return -1;
	switch (adv) {
	case MADV_SETMAP: {
		uint64_t root = (uint64_t)val;
		if ((root & PAGE_MASK) || !physmem_valid(root, PAGE_SIZE))
			break;
		return backend->setmap(vh, root);
	}
	case MADV_INVAL: {
		uint64_t end = user_range(start, len);
		if (end == 0)
			return -1;
		return backend->inval(vh, (uint64_t)start, end);
	}
	case MADV_PREFAULT: {
		uint64_t end = user_range(start, len);
		if (end == 0)
			return -1;
		return backend->prefault != NULL ?
		    backend->prefault(vh, (uint64_t)start, end) : 0;
	}
	case MADV_INVAL_DEFER: {
		uint64_t end = user_range(start, len);
		if (end == 0)
			return -1;
		if (backend->inval_defer == NULL)
			return backend->inval(vh, (uint64_t)start, end);
		return backend->inval_defer(vh, (uint64_t)start, end);
	}
	case MADV_SETTLE:
		return backend->settle != NULL ? backend->settle(vh) : 0;
	}
	errno = EINVAL;
	return -1;
}

/*
 * Advice on the kernel's own RAM.  MADV_DONTNEED gives the pages back to
 * the host (they read as zero afterwards); MADV_WILLNEED populates them;
 * MADV_NOSYNC is what a memory file is anyway.
 */
int
mcontrol(void *start, size_t len, int adv, void *val)
{
	uint64_t off = (uint64_t)start - (uint64_t)physmem.base;
	(void)val;
	if (physmem.base == NULL || (uint64_t)start < (uint64_t)physmem.base ||
	    (off & PAGE_MASK) || (len & PAGE_MASK) || len == 0 ||
	    !physmem_valid(off, len)) {
		errno = EINVAL;
		return -1;
	}
	switch (adv) {
	case MADV_DONTNEED:
		return fallocate(physmem.fd, FALLOC_FL_PUNCH_HOLE |
		    FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len);
	case MADV_WILLNEED:
		return madvise(start, len, MADV_WILLNEED);
	case MADV_NOSYNC:
		return 0;
	}
	errno = EINVAL;
	return -1;
}

void
vmspace_audit(void)
{
	uint64_t now = host_nanotime();

	pthread_mutex_lock(&vmspace_lock);
	for (int i = 0; i < VMSPACE_HASH; i++)
		for (struct vmspace_ent *e = vmspace_hash[i]; e != NULL; e = e->next)
			backend->audit(e->vh, now);
	pthread_mutex_unlock(&vmspace_lock);
}

/* The first number in file, or -1. */
static long
host_sysctl(const char *file)
{
	char buf[64];
	int fd = open(file, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

/* Host tasks we may still take (three quarters of the room), or LONG_MAX. */
static long
host_task_room(void)
{
	long pid_max = host_sysctl("/proc/sys/kernel/pid_max");
	long threads_max = host_sysctl("/proc/sys/kernel/threads-max");
	long used = -1, room = LONG_MAX;
	char buf[128];
	struct rlimit rl;

	/* /proc/loadavg's fourth field: runnable/total tasks on the host. */
	int fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		const char *slash = n > 0 ? (buf[n] = '\0', strchr(buf, '/')) : NULL;
		if (slash != NULL)
			used = strtol(slash + 1, NULL, 10);
	}
	if (used < 0)
		used = 0;
	if (pid_max > 0)
		room = MIN(room, pid_max - used);
	if (threads_max > 0)
		room = MIN(room, threads_max - used);
	/* RLIMIT_NPROC counts all our uid's tasks; root is exempt from it. */
	if (geteuid() != 0 && getrlimit(RLIMIT_NPROC, &rl) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY)
		room = MIN(room, (long)rl.rlim_cur - used / 4);
	return room == LONG_MAX ? LONG_MAX : room * 3 / 4;
}

int
vmspace_max(void)
{
	long room = host_task_room();
	if (room == LONG_MAX)
		return INT_MAX;
	room /= backend->host_tasks;
	return (int)MAX(MIN(room, (long)INT_MAX), 0L);
}

int
vmspace_thread_max(void)
{
	long room = host_task_room();
	if (room == LONG_MAX)
		return INT_MAX;
	room /= backend->thread_tasks;
	return (int)MAX(MIN(room, (long)INT_MAX), 0L);
}

void
vmspace_fpu_init(struct vextframe *vf)
{
	uint16_t fcw = 0x37f;
	uint32_t mxcsr = 0x1f80;
	uint64_t xstate_bv = 3;		/* x87 and SSE, at their reset values */

	memset(vf->vx_fpu, 0, sizeof(vf->vx_fpu));
	memcpy(vf->vx_fpu + 0, &fcw, sizeof(fcw));
	memcpy(vf->vx_fpu + 24, &mxcsr, sizeof(mxcsr));
	memcpy(vf->vx_fpu + 512, &xstate_bv, sizeof(xstate_bv));
}
