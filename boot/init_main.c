/*
 * Boot: the kernel's memory, the buffer cache and the disks, the root file
 * system (ext2 on the first disk, or a tmpfs filled from the initramfs),
 * the console, and PID 1, which execs init and runs on the virtual CPUs
 * until it exits.  Its exit is the machine's shutdown (kern_shutdown.c).
 */
#include <stdio.h>

#include "ddb/ddb.h"
#include "dev/console.h"
#include "dev/disk.h"
#include "dev/kmsg.h"
#include "dev/vkd.h"
#include "dev/vke.h"
#include "fs/buf.h"
#include "fs/cdev.h"
#include "fs/initramfs.h"
#include "fs/procfs/procfs.h"
#include "fs/vfs.h"
#include "fs/vnode.h"
#include "host/cpu.h"
#include "host/hostfile.h"
#include "host/physmem.h"
#include "proc/exec.h"
#include "kern/init.h"
#include "kern/signal.h"
#include "kern/uio.h"
#include "kern/ucred.h"
#include "sys/sys_trace.h"
#include "kern/kmem.h"
#include "net/if_vke.h"
#include "net/inet_lwip.h"
#include "sys/sysv_ipc.h"
#include "vm/vm.h"
#include "vm/vm_pageout.h"
#include "vm/vm_vdso.h"

static const struct boot_args *bootargs;

/*
 * Unpacks the host file at path into the root.  The archive is mapped,
 * not copied into RAM: like a boot loader's image, it is only read once,
 * and it may be larger than any kernel allocation.
 */
static int
load_initramfs(const char *path)
{
	void *buf;
	size_t len;
	int error = host_file_map(path, &buf, &len);
	if (error < 0) {
		kprintf(KERN_ERR "initramfs %s: %s\n", path, strerror(-error));
		return error == -ENOENT ? -ENOENT : -EIO;
	}
	error = initramfs_load(rootvnode, buf, len);
	host_file_unmap(buf, len);
	if (error < 0)
		kprintf(KERN_ERR "initramfs %s: cannot load (%d)\n", path, error);
	return error;
}

/* PID 1's first kernel code: open the console, exec init, run it. */
static void
start_init(void *arg)
{
	struct lwp *lp = arg;
	struct proc *p = lp->lwp_proc;
	struct exec_args ea = { 0 };
	int error;

	for (int fd = 0; fd < 3; fd++) {
		error = kern_openat(&p->p_fs, p->p_ucred, AT_FDCWD, "/dev/console",
		    O_RDWR, 0);
		if (error < 0) {
			kprintf(KERN_ERR "init: cannot open /dev/console (%d)\n", error);
			break;
		}
	}
	ea.ea_buf = kmalloc(PAGE_SIZE * 16, 0);
	if (ea.ea_buf == NULL)
		exit1(W_EXITCODE(127, 0));
	for (int i = 0; bootargs->init_argv[i] != NULL; i++) {
		size_t n = strlen(bootargs->init_argv[i]) + 1;
		if (ea.ea_len + n > PAGE_SIZE * 16)
			break;
		memcpy(ea.ea_buf + ea.ea_len, bootargs->init_argv[i], n);
		ea.ea_len += n;
		ea.ea_argc++;
	}
	static const char env[] = "HOME=/\0PATH=/sbin:/bin:/usr/sbin:/usr/bin\0TERM=linux";
	if (ea.ea_len + sizeof(env) <= PAGE_SIZE * 16) {
		memcpy(ea.ea_buf + ea.ea_len, env, sizeof(env));
		ea.ea_len += sizeof(env);
		ea.ea_envc = 3;
	}
	error = kern_execve(lp, bootargs->init_argv[0], &ea);
	/* A bare name ("-- wget ...") is looked up in init's PATH, as a shell would. */
	static const char *const path[] = { "/sbin/", "/bin/", "/usr/sbin/", "/usr/bin/" };
	for (size_t i = 0; error == -ENOENT && strchr(bootargs->init_argv[0], '/') == NULL &&
	    i < sizeof(path) / sizeof(path[0]); i++) {
		char name[256];
		snprintf(name, sizeof(name), "%s%s", path[i], bootargs->init_argv[0]);
		error = kern_execve(lp, name, &ea);
	}
	kfree(ea.ea_buf);
	if (__builtin_expect(strace_enabled, 0))
		strace_init_exec(lp, bootargs->init_argv[0], bootargs->init_argv,
		    (int)ea.ea_envc, error);
	if (error < 0) {
		kprintf(KERN_ERR "init: cannot exec %s (%d)\n", bootargs->init_argv[0], error);
		exit1(W_EXITCODE(127, 0));
	}
	kprintf("init: %s started\n", bootargs->init_argv[0]);
	lwp_main(lp);
}

/* The first process: root, the root directory, a new session. */
static struct proc *
create_init(void)
{
	int error;
	struct ucred *cr = crget();
	struct proc *p = cr != NULL ? proc_alloc(NULL, cr, &error) : NULL;
	if (cr != NULL)
		crfree(cr);
	if (p == NULL)
		return NULL;
	p->p_vmspace = vmspace_alloc();
	snprintf(p->p_comm, sizeof(p->p_comm), "init");
	for (int i = 0; i < RLIM_NLIMITS; i++)
		p->p_rlimit[i].rlim_cur = p->p_rlimit[i].rlim_max = RLIM_INFINITY;
	/* As Linux's init_task: half the system's process limit. */
	p->p_rlimit[RLIMIT_NPROC].rlim_cur = (rlim_t)maxprocs / 2;
	p->p_rlimit[RLIMIT_NPROC].rlim_max = (rlim_t)maxprocs / 2;
	p->p_rlimit[RLIMIT_SIGPENDING] = p->p_rlimit[RLIMIT_NPROC];
	p->p_rlimit[RLIMIT_NOFILE].rlim_cur = 1024;
	p->p_rlimit[RLIMIT_NOFILE].rlim_max = 4096;
	p->p_rlimit[RLIMIT_STACK].rlim_cur = 8 << 20;
	p->p_rlimit[RLIMIT_CORE].rlim_cur = 0;
	/* Only root lowers its nice value or takes a real-time priority. */
	p->p_rlimit[RLIMIT_NICE].rlim_cur = p->p_rlimit[RLIMIT_NICE].rlim_max = 0;
	p->p_rlimit[RLIMIT_RTPRIO].rlim_cur = p->p_rlimit[RLIMIT_RTPRIO].rlim_max = 0;
	if (p->p_vmspace == NULL ||
	    fsproc_init(&p->p_fs, rootvnode) < 0 || sigacts_fork(p, NULL, false) < 0 ||
	    enterpgrp(p, p->p_pid, true) < 0 || lwp_alloc(p, start_init) == NULL)
		return NULL;
	p->p_state = PRS_NORMAL;
	return p;
}

int
kernel_main(const struct boot_args *ba)
{
	bootargs = ba;
	ddb_init();
	vm_page_init();
	kmem_init();
	vm_init();
	vdso_init();
	vfs_init();
	kmsg_init();
	(void)vfs_register(&procfs_vfsops);
	bio_init();
	vm_pageout_start();
	kprintf("vkernel: %lu pages of RAM, %lu free\n",
	    (unsigned long)vmstats.v_page_count, (unsigned long)vmstats.v_free_count);
	/* The network stack, before the network devices add interfaces. */
	if (inet_lwip_start() < 0) {
		kprintf("cannot start the network stack\n");
		return -1;
	}
	if (vkd_attach() < 0) {
		kprintf(KERN_ERR "cannot attach the disks\n");
		return -1;
	}
	/* The first disk is the root, unless an initramfs is given. */
	const char *rootdisk = ba->initramfs == NULL && disk_lookup("vkd0") != NULL ?
	    "vkd0" : NULL;
	if (vfs_mountroot(rootdisk) < 0) {
		kprintf(KERN_ERR "cannot mount the root file system\n");
		return -1;
	}
	if (ba->initramfs != NULL && load_initramfs(ba->initramfs) < 0)
		return -1;
	int error = console_init();
	if (error < 0) {
		kprintf(KERN_ERR "cannot set up the console (%d)\n", error);
		return -1;
	}
	if (vfs_mountboot() < 0 || intr_init() < 0)
		return -1;
	/* The network interfaces -I gave, each a netif of the stack. */
	if (vke_attach() < 0 || if_vke_attach() < 0) {
		kprintf("cannot attach the network interfaces\n");
		return -1;
	}
	shutdown_signals_init();
	sig_init();
	sysv_init();

	proc_limit_init(vmstats.v_free_count);
	initproc = create_init();
	if (initproc == NULL) {
		kprintf(KERN_ERR "cannot create init\n");
		return -1;
	}
	sched_init();
	thread_start(TAILQ_FIRST(&initproc->p_lwps)->lwp_thread);
	if (ba->ddb)
		kdb_enter("boot -D: init is ready to run");
	if (cpu_start(sched_cpu_main, NULL) < 0)
		return -1;
	cpu_join();
	/* Normally a no-op: kern_shutdown synced.  This polls. */
	if (bsync(NULL, 1) < 0)
		kprintf(KERN_ERR "shutdown: some blocks were not written\n");
	return kern_shutdown_status();
}
