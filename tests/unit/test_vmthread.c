/*
 * Several guest threads in one vmspace (vmspace_thread_create): each
 * runs from its own registers and reports its own traps, threads run at
 * once from different host threads, a kick ends only the thread it is
 * for, an invalidation from a third thread leaves no stale translation,
 * a dead stub gives T_DEAD to every thread, and the number of threads is
 * bounded.  Guest code is in guest_threads.S.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "host/clock.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

GUEST(thr_report);
GUEST(thr_add);
GUEST(thr_spin);
GUEST(thr_load);

#define SYS_REPORT	1000

/* A guest thread's registers: its own stack below the others'. */
struct gthread {
	struct vmt *v;
	int n;
	struct trapframe tf;
	struct vextframe vf;
};

static void
gthread_init(struct gthread *g, struct vmt *v, int n, uint64_t rip)
{
	g->v = v;
	g->n = n;
	g->tf = (struct trapframe){ .tf_rip = rip, .tf_rflags = 0x202,
	    .tf_rsp = VMT_STACK - 64 - (uint64_t)n * 1024 };
	vmspace_fpu_init(&g->vf);
}

static int
gthread_run(struct gthread *g)
{
	if (vmspace_thread_ctl(g->v, g->n, VMSPACE_CTL_RUN, &g->tf, &g->vf) < 0)
		return -1;
	g->tf.tf_xflags = 0;
	return (int)g->tf.tf_trapno;
}

/* Host tasks of the stub: its /proc/PID/task entries. */
static int
stub_tasks(pid_t pid)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "re");
	if (f == NULL)
		return -1;
	char line[256];
	int n = -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

TEST(vmthread_create_run_destroy)
{
	struct vmt v;
	REQUIRE(vmt_create(&v, NULL) == 0);
	vmt_code(&v, GUEST_CODE(thr_report));
	vmt_stack(&v);
	pid_t pid = vmt_host(&v)->pid;
	CHECK_EQ(stub_tasks(pid), 2);

	int n = vmspace_thread_create(&v);
	CHECK_EQ(n, 1);
	CHECK_EQ(stub_tasks(pid), 3);
	struct gthread g;
	gthread_init(&g, &v, n, VMT_CODE);
	g.tf.tf_rdi = 0x1234;
	g.tf.tf_rsi = 0x5678;
	CHECK_EQ(gthread_run(&g), T_SYSCALL);
	CHECK_EQ(g.tf.tf_rax, SYS_REPORT);
	CHECK_EQ(g.tf.tf_rdi, 0x1234);
	CHECK_EQ(g.tf.tf_rsi, 0x5678);
	CHECK_EQ(g.tf.tf_rdx, 1);

	/* Thread 0 is another thread: its own registers and count. */
	v.tf.tf_rdi = 0xaaaa;
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rdi, 0xaaaa);
	CHECK_EQ(v.tf.tf_rdx, 1);
	CHECK_EQ(gthread_run(&g), T_SYSCALL);
	CHECK_EQ(g.tf.tf_rdi, 0x1234);
	CHECK_EQ(g.tf.tf_rdx, 2);
	CHECK_EQ(vmt_run(&v), T_SYSCALL);
	CHECK_EQ(v.tf.tf_rdx, 2);

	/* A second thread, then the first goes; its number comes back. */
	int m = vmspace_thread_create(&v);
	CHECK_EQ(m, 2);
	CHECK_EQ(vmspace_thread_destroy(&v, n), 0);
	CHECK_EQ(stub_tasks(pid), 3);
	errno = 0;
	CHECK_EQ(vmspace_thread_ctl(&v, n, VMSPACE_CTL_RUN, &g.tf, &g.vf), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK_EQ(vmspace_thread_create(&v), n);
	gthread_init(&g, &v, n, VMT_CODE);
	g.tf.tf_rdi = 0x4321;
	CHECK_EQ(gthread_run(&g), T_SYSCALL);
	CHECK_EQ(g.tf.tf_rdi, 0x4321);
	CHECK_EQ(g.tf.tf_rdx, 1);
	CHECK_EQ(stub_tasks(pid), 4);

	/* Bad numbers. */
	errno = 0;
	CHECK_EQ(vmspace_thread_destroy(&v, 0), -1);
	CHECK_EQ(errno, EINVAL);
	errno = 0;
	CHECK_EQ(vmspace_thread_destroy(&v, 77), -1);
	CHECK_EQ(errno, ENOENT);
	errno = 0;
	CHECK_EQ(vmspace_thread_destroy(&v, -1), -1);
	CHECK_EQ(errno, ENOENT);
	errno = 0;
	CHECK_EQ(vmspace_thread_create((void *)&errno), -1);
	CHECK_EQ(errno, ENOENT);
	CHECK(!vmt_host(&v)->dead);
	vmt_destroy(&v);
}
