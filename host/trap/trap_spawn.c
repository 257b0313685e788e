/*
 * Starting and stopping stubs.  A stub is exec'd fresh from the image
 * embedded in the vkernel (a sealed memfd), so it inherits no vkernel
 * memory; its only descriptors are RAM (fd 3) and its control memory
 * (fd 4, closed by the stub once mapped).  It runs without address-space
 * randomisation so that the host's stack and vdso land in the reserved
 * top region, in a session of its own (no terminal signals), and dies
 * with the thread that created it.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/close_range.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/clock.h"
#include "host/cpu.h"
#include "host/hostsync.h"
#include "host/hostlog.h"
#include "host/physmem.h"
#include "host/trap/trap.h"

#ifndef HWCAP2_FSGSBASE
#define HWCAP2_FSGSBASE (1 << 1)
#endif
#ifndef MFD_EXEC
#define MFD_EXEC 0x0010U
#endif

extern const char trap_stub_image[], trap_stub_image_end[];

static int stub_fd = -1;
static pthread_once_t stub_once = PTHREAD_ONCE_INIT;

/* Puts the embedded stub into a sealed, executable memfd, once. */
static void
stub_image_load(void)
{
	size_t len = (size_t)(trap_stub_image_end - trap_stub_image);
	int fd = memfd_create("vkstub", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd < 0 && errno == EINVAL)	/* a host before MFD_EXEC */
		fd = memfd_create("vkstub", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (fd < 0)
		return;
	if (write(fd, trap_stub_image, len) != (ssize_t)len ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE | F_SEAL_SHRINK | F_SEAL_GROW |
	    F_SEAL_SEAL) < 0) {
		close(fd);
		return;
	}
	stub_fd = fd;
}

/*
 * The child side of vfork: only system calls, then exec.  Returns only
 * on failure, with the exit status to use.
 */
static int
stub_child(int ctlfd, int donefd, int stub_core)
{
	char *argv[] = { "vkstub", NULL }, *envp[] = { NULL };
	struct rlimit rl;
	int ram, ctl, done, exe;

	if (personality(0xffffffff) == -1 ||
	    personality(ADDR_NO_RANDOMIZE) == -1)
		return 125;
	rl.rlim_cur = rl.rlim_max = 0;
	(void)setrlimit(RLIMIT_CORE, &rl);
	(void)setsid();
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	/*
	 * It boots (exec, the mapper's birth, the filter) where it takes no
	 * time from a guest if there is such a core; trap_stub_home then
	 * moves it to stub_core.
	 */
	if (stub_core >= 0 && cpu_pin_spare(0) < 0) {
		cpu_set_t set;
		CPU_ZERO(&set);
		CPU_SET(stub_core, &set);
		(void)sched_setaffinity(0, sizeof(set), &set);
	}
	/* Lift all above 4 first, so that no dup2 clobbers another. */
	ram = fcntl(physmem.fd, F_DUPFD, 10);
	ctl = fcntl(ctlfd, F_DUPFD, 10);
	done = fcntl(donefd, F_DUPFD, 10);
	exe = fcntl(stub_fd, F_DUPFD_CLOEXEC, 10);
	if (ram < 0 || ctl < 0 || done < 0 || exe < 0 ||
	    dup2(ram, STUB_RAM_FD) < 0 || dup2(ctl, STUB_CTL_FD) < 0 ||
	    dup2(done, STUB_DONE_FD) < 0)
		return 126;
	/* Nothing else crosses the exec. */
	if (syscall(SYS_close_range, STUB_DONE_FD + 1, ~0U, CLOSE_RANGE_CLOEXEC) < 0)
		return 126;
	if (trap_confine_child() < 0)
		return 119;
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	syscall(SYS_execveat, exe, "", argv, envp, AT_EMPTY_PATH);
	return 127;
}

pid_t
stub_waitpid(pid_t pid, int *status)
{
	pid_t r;
	do
		r = waitpid(pid, status, 0);
	while (r < 0 && errno == EINTR);
	return r;
}

/* vfork in a frame of its own, so that no caller variable is shared. */
static __attribute__((noinline)) pid_t
stub_fork(int ctlfd, int donefd, int stub_core)
{
	pid_t pid = vfork();
	if (pid == 0)
		_exit(stub_child(ctlfd, donefd, stub_core));
	return pid;
}

static const char *
stub_exit_reason(int status)
{
	if (WIFSIGNALED(status))
		return strsignal(WTERMSIG(status));
	switch (WEXITSTATUS(status)) {
	case STUB_EXIT_LAYOUT:	return "stub image or stack outside its region";
	case STUB_EXIT_CTL:	return "stub could not map its control memory";
	case STUB_EXIT_SIGNALS:	return "stub could not install its handlers";
	case STUB_EXIT_MAPPER:	return "stub mapper thread did not start";
	case STUB_EXIT_FILTER:	return "seccomp refused the stub's filter";
	case 119:		return "could not drop the stub's privileges";
	case 125:		return "personality(ADDR_NO_RANDOMIZE) failed";
	case 126:		return "could not pass descriptors to the stub";
	case 127:		return "could not exec the stub";
	default:		return "stub exited";
	}
}

/* Creates the control memory and fills in its read-only part. */
static int
stub_ctl_create(struct vmspace_host *vh, const struct trap_params *p)
{
	int fd = memfd_create("vkstub-ctl", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	if (ftruncate(fd, STUB_CTL_SIZE) < 0)
		goto fail;
	void *m = mmap(NULL, STUB_CTL_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	if (m == MAP_FAILED)
		goto fail;
	vh->ctl = m;
	vh->cmd = m;
	vh->sync = (struct stub_sync *)(vh->ctl + (STUB_SYNC - STUB_CMD));
	vh->thr = (struct stub_thread *)(vh->ctl + (STUB_THREAD - STUB_CMD));
	trap_thread_init(vh, &vh->t0, 0);
	vh->cmd->fsgsbase = (getauxval(AT_HWCAP2) & HWCAP2_FSGSBASE) != 0;
	vh->cmd->spin_tsc = vh->spin_ns * host_tsc_per_us() / 1000;
	vh->cmd->one = 1;
	if (trap_filter_build((struct stub_boot *)(vh->ctl + (STUB_BOOT - STUB_CMD))) < 0) {
		errno = EINVAL;
		goto fail;
	}
	(void)p;
	return fd;
fail:;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

struct vmspace_host *
trap_spawn(const struct trap_params *p)
{
	struct vmspace_host *vh = calloc(1, sizeof(*vh));
	if (vh == NULL)
		return NULL;
	vh->pid = -1;
	vh->pidfd = -1;
	vh->root = TRAP_NO_ROOT;
	vh->lock = (struct host_mutex)HOST_MUTEX_INITIALIZER;
	vh->t0.syscallfd = vh->t0.schedfd = -1;
	vh->donefd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (vh->donefd < 0)
		goto fail;
	vh->params = *p;
	vh->fault_around = p->fault_around;
	vh->spin_ns = (uint64_t)p->spin_ns;
	vh->keep_first = true;		/* trap_keep.c */
	if (trap_hostmap_init(vh, p->hostmap_budget) < 0)
		goto fail;

	pthread_once(&stub_once, stub_image_load);
	if (stub_fd < 0 || physmem.fd < 0) {
		errno = stub_fd < 0 ? ENOEXEC : EINVAL;
		goto fail;
	}
	int ctlfd = stub_ctl_create(vh, p);
	if (ctlfd < 0)
		goto fail;
	vh->threads[0] = &vh->t0;
	vh->t0.core = -1;		/* trap_stub_home pins it */
	vh->slots_used = 1;

	pid_t pid = stub_fork(ctlfd, vh->donefd, p->stub_core);
	int e = errno;
	close(ctlfd);
	if (pid < 0) {
		errno = e;
		goto fail;
	}
	vh->pid = pid;
	vh->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (vh->pidfd < 0) {
		e = errno;
		kill(pid, SIGKILL);
		stub_waitpid(pid, NULL);
		vh->pid = -1;
		errno = e;
		goto fail;
	}
	vh->t0.tid = pid;
	if (trap_wait_report(vh, &vh->t0, true) < 0) {
		int status = 0;
		/* A stub that exited keeps its status through the SIGKILL. */
		trap_kill(vh, "did not boot");
		if (stub_waitpid(pid, &status) == pid)
			host_log("trap: %s", stub_exit_reason(status));
		vh->pid = -1;
		errno = EIO;
		goto fail;
	}
	/* No guest code has run yet: what the stub says is true. */
	vh->mapper_tid = (pid_t)__atomic_load_n(&vh->sync->mapper_tid,
	    __ATOMIC_ACQUIRE);
	trap_stub_home(vh);
	return vh;
fail:
	e = errno;
	trap_reap(vh);
	errno = e;
	return NULL;
}

void
trap_stub_home(struct vmspace_host *vh)
{
	int core = vh->params.stub_core;
	if (core < 0 || vh->t0.core == core)
		return;
	if (cpu_pin_task(vh->t0.tid, core) == 0 &&
	    (vh->mapper_tid <= 0 || cpu_pin_task(vh->mapper_tid, core) == 0))
		vh->t0.core = core;
}

/* True unless the stub process has exited (its pidfd became readable). */
bool
trap_alive(struct vmspace_host *vh)
{
	struct pollfd pfd = { vh->pidfd, POLLIN, 0 };
	int r;

	if (vh->pidfd < 0)
		return false;
	do
		r = poll(&pfd, 1, 0);
	while (r < 0 && errno == EINTR);
	return r == 0;
}

void
trap_kill(struct vmspace_host *vh, const char *why)
{
	bool was = false;
	if (__atomic_compare_exchange_n(&vh->dead, &was, true, false,
	    __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
		vh->dead_why = why;
		if (why != NULL)
			host_debug("trap: stub %d killed: %s", (int)vh->pid, why);
	}
	if (vh->pidfd >= 0)
		syscall(SYS_pidfd_send_signal, vh->pidfd, SIGKILL, NULL, 0);
	/*
	 * CPUs waiting for other threads' reports see it now, not at their
	 * next poll: the slots stay mapped until the reap.
	 */
	int used = __atomic_load_n(&vh->slots_used, __ATOMIC_ACQUIRE);
	for (int n = 0; vh->ctl != NULL && n < used; n++)
		host_futex_wake(&((struct stub_thread *)(vh->ctl + (STUB_SLOT(n) -
		    STUB_CMD)))->req, INT32_MAX);
}

bool
trap_dead(const struct vmspace_host *vh)
{
	return __atomic_load_n(&vh->dead, __ATOMIC_ACQUIRE);
}

/*
 * Returns once the stub's process is gone: every thread of it, the
 * mapper's too, has exited, so nothing runs in its address space and no
 * host mapping of RAM it held can be used again (the pidfd turns readable
 * only when the whole thread group has).  The caller has killed it.
 * Waits as long as the host takes: until then, no page the stub could
 * reach may go to anyone else.
 */
void
trap_wait_gone(struct vmspace_host *vh)
{
	struct pollfd pfd = { vh->pidfd, POLLIN, 0 };
	uint64_t start = host_nanotime();
	bool said = false;

	while (vh->pidfd >= 0 && poll(&pfd, 1, 1000) <= 0) {
		if (!said && host_nanotime() - start > 1000000000UL) {
			host_log("trap: stub %d still not gone after its SIGKILL",
			    (int)vh->pid);
			said = true;
		}
	}
}

/* Kills the stub if it lives, collects it and frees everything. */
void
trap_reap(struct vmspace_host *vh)
{
	if (vh == NULL)
		return;
	if (vh->reaping)
		trap_reaper_wait(vh);
	VMSTAT_ADD(reaps, 1);
	trap_stats_fold(vh);
	if (vh->pidfd >= 0) {
		trap_kill(vh, NULL);
		if (vh->pid > 0 && !vh->reaping)
			stub_waitpid(vh->pid, NULL);
		close(vh->pidfd);
	}
	for (int n = 1; n < STUB_MAXTHREADS; n++) {
		if (vh->threads[n] != NULL) {
			trap_thread_fini(vh->threads[n]);
			free(vh->threads[n]);
		}
	}
	trap_thread_fini(&vh->t0);
	if (vh->ctl != NULL)
		munmap(vh->ctl, STUB_CTL_SIZE);
	if (vh->donefd >= 0)
		close(vh->donefd);
	trap_hostmap_fini(vh);
	free(vh);
}

void
trap_stats_fold(struct vmspace_host *vh)
{
	VMSTAT_ADD(served, __atomic_exchange_n(&vh->nserved, 0, __ATOMIC_RELAXED));
	VMSTAT_ADD(returned,
	    __atomic_exchange_n(&vh->nreturned, 0, __ATOMIC_RELAXED));
	VMSTAT_ADD(mapops, __atomic_exchange_n(&vh->nmapops, 0, __ATOMIC_RELAXED));
	VMSTAT_ADD(sleeps, __atomic_exchange_n(&vh->nsleeps, 0, __ATOMIC_RELAXED));
}
