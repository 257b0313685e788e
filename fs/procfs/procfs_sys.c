/*
 * The system-wide files of /proc, in Linux's formats (busybox's free,
 * top, uptime and nproc parse them).
 */
#include <cpuid.h>
#include <stdio.h>
#include <time.h>

#include "fs/bio_var.h"
#include "fs/procfs/procfs.h"
#include "kern/syslog.h"
#include "fs/tmpfs/tmpfs.h"
#include "host/cpu.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/vm_page.h"
#include "vm/vm.h"
#include "vm/vm_pageout.h"

#define USER_HZ		100		/* clock ticks of /proc and times(2) */
#define NS_PER_TICK	(1000000000ULL / USER_HZ)

/* Pages held by tmpfs files (and devfs, a tmpfs): Linux's Shmem. */
static uint64_t
shmem_pages(void)
{
	struct mount *mp;
	uint64_t n = 0;

	TAILQ_FOREACH(mp, &mountlist, mnt_list) {
		struct statfs_info sf;
		mp->mnt_op->vfs_statfs(mp, &sf);
		if (sf.f_type == TMPFS_MAGIC)
			n += sf.f_blocks - sf.f_bfree;
	}
	return n;
}

static void
meminfo_line(struct sbuf *sb, const char *name, uint64_t pages)
{
	sbuf_printf(sb, "%-16s%8lu kB\n", name,
	    (unsigned long)(pages * (PAGE_SIZE / 1024)));
}

/*
 * RAM as the page allocator sees it.  Memory the kernel holds (the page
 * array, kmem) is neither free nor available; tmpfs data counts as
 * Shmem and Cached, as in Linux, but cannot be reclaimed.  Files' pages
 * (the page cache) are Cached, the buffer cache (metadata blocks)
 * Buffers; the clean part of both can be reclaimed, so it is available.
 */
int
procfs_meminfo(struct sbuf *sb, struct proc *p)
{
	(void)p;
	vmspace_drain();	/* exited processes' RAM counts as free */
	uint64_t shmem = shmem_pages(), files, filedirty;
	vm_pageout_stats(&files, &filedirty);
	uint64_t bufs = (biostats.bytes + PAGE_SIZE - 1) / PAGE_SIZE;
	uint64_t dirty = (biostats.dirtybytes + PAGE_SIZE - 1) / PAGE_SIZE;
	meminfo_line(sb, "MemTotal:", vmstats.v_page_count);
	meminfo_line(sb, "MemFree:", vmstats.v_free_count);
	meminfo_line(sb, "MemAvailable:", vmstats.v_free_count + bufs - dirty +
	    files - filedirty);
	meminfo_line(sb, "Buffers:", bufs);
	meminfo_line(sb, "Cached:", shmem + files);
	meminfo_line(sb, "SwapCached:", 0);
	meminfo_line(sb, "Active:", 0);
	meminfo_line(sb, "Inactive:", 0);
	meminfo_line(sb, "SwapTotal:", 0);
	meminfo_line(sb, "SwapFree:", 0);
	meminfo_line(sb, "Dirty:", dirty + filedirty);
	meminfo_line(sb, "Writeback:", 0);
	meminfo_line(sb, "Shmem:", shmem);
	meminfo_line(sb, "Slab:", 0);
	meminfo_line(sb, "SReclaimable:", 0);
	meminfo_line(sb, "SUnreclaim:", 0);
	meminfo_line(sb, "CommitLimit:", vmstats.v_page_count);
	return 0;
}

/*
 * Linux's /proc/vmstat, the fields vmstat and similar tools read: the
 * page allocator's and the page cache's counts, disk traffic in KiB
 * (pgpgin, pgpgout: the buffer cache's and the pages' transfers), the
 * pageout daemon's scan (as kswapd's), faults.  There is no swap.
 */
int
procfs_vmstat(struct sbuf *sb, struct proc *p)
{
	(void)p;
	vmspace_drain();	/* exited processes' RAM counts as free */
	uint64_t shmem = shmem_pages(), files, filedirty;
	vm_pageout_stats(&files, &filedirty);
	uint64_t dirty = (biostats.dirtybytes + PAGE_SIZE - 1) / PAGE_SIZE;
	const struct { const char *name; uint64_t v; } f[] = {
		{ "nr_free_pages", vmstats.v_free_count },
		{ "nr_file_pages", files + shmem },
		{ "nr_dirty", filedirty + dirty },
		{ "nr_writeback", 0 },
		{ "nr_shmem", shmem },
		{ "pgpgin", biostats.inbytes / 1024 },
		{ "pgpgout", biostats.outbytes / 1024 },
		{ "pswpin", 0 },
		{ "pswpout", 0 },
		{ "pgalloc_normal", vmcounts.v_pgalloc },
		{ "pgfree", vmcounts.v_pgfree },
		{ "pgfault", vmcounts.v_faults },
		{ "pgscan_kswapd", vmcounts.v_pgscan },
		{ "pgsteal_kswapd", vmcounts.v_pgsteal },
	};
	for (size_t i = 0; i < nitems(f); i++)
		sbuf_printf(sb, "%s %lu\n", f[i].name, (unsigned long)f[i].v);
	return 0;
}

static int (*procfs_ext_fill[PFX_MAX])(struct sbuf *sb, struct proc *p);

void
procfs_register(enum procfs_ext which, int (*fill)(struct sbuf *sb, struct proc *p))
{
	KASSERT(which < PFX_MAX, "procfs_register: no such file");
	procfs_ext_fill[which] = fill;
}

static int
procfs_ext(enum procfs_ext which, struct sbuf *sb, struct proc *p)
{
	return procfs_ext_fill[which] != NULL ? procfs_ext_fill[which](sb, p) : 0;
}

int
procfs_sysvipc_shm(struct sbuf *sb, struct proc *p)
{
	return procfs_ext(PFX_SYSVIPC_SHM, sb, p);
}

int
procfs_sysvipc_sem(struct sbuf *sb, struct proc *p)
{
	return procfs_ext(PFX_SYSVIPC_SEM, sb, p);
}

int
procfs_sysvipc_msg(struct sbuf *sb, struct proc *p)
{
	return procfs_ext(PFX_SYSVIPC_MSG, sb, p);
}

/* Nanoseconds as Linux's "seconds.hundredths". */
static void
print_centis(struct sbuf *sb, uint64_t ns, const char *after)
{
	uint64_t c = ns / 10000000;
	sbuf_printf(sb, "%lu.%02lu%s", (unsigned long)(c / 100),
	    (unsigned long)(c % 100), after);
}

int
procfs_uptime(struct sbuf *sb, struct proc *p)
{
	(void)p;
	uint64_t idle = 0, t[CPUSTATES];
	for (int i = 0; i < cpu_count(); i++) {
		sched_cpu_times(i, t);
		idle += t[CP_IDLE];
	}
	print_centis(sb, sched_uptime(), " ");
	print_centis(sb, idle, "\n");
	return 0;
}

int
procfs_loadavg(struct sbuf *sb, struct proc *p)
{
	(void)p;
	unsigned long avg[3];
	sched_loadavg(avg);
	for (int i = 0; i < 3; i++) {
		/* Rounded to hundredths, as Linux's LOAD_INT/LOAD_FRAC. */
		unsigned long a = avg[i] + (1UL << LOAD_FSHIFT) / 200;
		sbuf_printf(sb, "%lu.%02lu ", a >> LOAD_FSHIFT,
		    ((a & ((1UL << LOAD_FSHIFT) - 1)) * 100) >> LOAD_FSHIFT);
	}
	sbuf_printf(sb, "%d/%d %d\n", sched_nrunning(), nprocs, (int)lastpid);
	return 0;
}

int
procfs_filesystems(struct sbuf *sb, struct proc *p)
{
	(void)p;
	const struct vfsops *ops;
	for (int i = 0; (ops = vfs_byindex(i)) != NULL; i++)
		sbuf_printf(sb, "%s\t%s\n",
		    (ops->vfs_flags & VFCF_REQDEV) ? "" : "nodev", ops->vfs_name);
	return 0;
}

/* The host CPU's identity through cpuid: what every virtual CPU is. */
int
procfs_cpuinfo(struct sbuf *sb, struct proc *p)
{
	(void)p;
	unsigned a, b, c, d;
	char vendor[13] = "", model[49] = "";

	__cpuid(0, a, b, c, d);
	memcpy(vendor, &b, 4);
	memcpy(vendor + 4, &d, 4);
	memcpy(vendor + 8, &c, 4);
	unsigned leaves = __get_cpuid_max(0x80000000, NULL);
	for (unsigned i = 0; leaves >= 0x80000004 && i < 3; i++) {
		__cpuid(0x80000002 + i, a, b, c, d);
		unsigned r[4] = { a, b, c, d };
		memcpy(model + 16 * i, r, 16);
	}
	__cpuid(1, a, b, c, d);
	unsigned family = (a >> 8) & 0xf, mod = (a >> 4) & 0xf;
	if (family == 0xf)
		family += (a >> 20) & 0xff;
	if (family >= 6)
		mod |= ((a >> 16) & 0xf) << 4;
	int n = cpu_count();
	for (int i = 0; i < n; i++) {
		sbuf_printf(sb, "processor\t: %d\nvendor_id\t: %s\n"
		    "cpu family\t: %u\nmodel\t\t: %u\nmodel name\t: %s\n"
		    "stepping\t: %u\nphysical id\t: 0\nsiblings\t: %d\n"
		    "core id\t\t: %d\ncpu cores\t: %d\napicid\t\t: %d\n"
		    "fpu\t\t: yes\nwp\t\t: yes\n\n", i, vendor, family, mod,
		    model, a & 0xf, n, i, n, i);
	}
	return 0;
}

/*
 * One "cpu" line, in ticks: user, nice, system, idle, iowait, irq,
 * softirq, steal, guest, guest_nice.
 */
static void
stat_cpu(struct sbuf *sb, const char *name, const uint64_t t[CPUSTATES])
{
	sbuf_printf(sb, "%s %lu 0 %lu %lu 0 0 0 %lu 0 0\n", name,
	    (unsigned long)(t[CP_USER] / NS_PER_TICK),
	    (unsigned long)(t[CP_SYS] / NS_PER_TICK),
	    (unsigned long)(t[CP_IDLE] / NS_PER_TICK),
	    (unsigned long)(t[CP_STEAL] / NS_PER_TICK));
}

int
procfs_stat(struct sbuf *sb, struct proc *p)
{
	(void)p;
	int n = cpu_count();
	uint64_t up = sched_uptime(), sum[CPUSTATES] = { 0 }, t[CPUSTATES];
	char name[16];

	for (int i = 0; i < n; i++) {
		sched_cpu_times(i, t);
		for (int s = 0; s < CPUSTATES; s++)
			sum[s] += t[s];
	}
	stat_cpu(sb, "cpu ", sum);
	for (int i = 0; i < n; i++) {
		sched_cpu_times(i, t);
		snprintf(name, sizeof(name), "cpu%d", i);
		stat_cpu(sb, name, t);
	}
	struct timespec now;
	nanotime(&now);
	sbuf_printf(sb, "intr 0\nctxt 0\nbtime %lu\nprocesses %lu\n"
	    "procs_running %d\nprocs_blocked 0\n",
	    (unsigned long)(now.tv_sec - (time_t)(up / 1000000000)),
	    (unsigned long)nforks, sched_nrunning());
	return 0;
}

int
procfs_version(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "Linux version %s (vkernel) #1 SMP vkernel\n",
	    UNAME_RELEASE);
	return 0;
}

int
procfs_pid_max(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "%d\n", PID_MAX);
	return 0;
}

int
procfs_osrelease(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "%s\n", UNAME_RELEASE);
	return 0;
}

int
procfs_ostype(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "Linux\n");
	return 0;
}

/* console_loglevel, default_message_loglevel, minimum, default console */
int
procfs_printk(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "%d\t4\t%d\t7\n", console_loglevel, CONSOLE_LOGLEVEL_MIN);
	return 0;
}

int
procfs_dmesg_restrict(struct sbuf *sb, struct proc *p)
{
	(void)p;
	sbuf_printf(sb, "%d\n", dmesg_restrict);
	return 0;
}
