/*
 * procfs nodes: the directory tables, inode numbers, making and freeing
 * vnodes, and the text buffer the files are generated into.
 */
#include <stdio.h>

#include "fs/file.h"
#include "fs/procfs/procfs.h"
#include "kern/proc.h"
#include "kern/ucred.h"
#include "kern/kmem.h"

#define PFS_FILE(name, type, fill) \
	{ name, type, VREG, 0444, fill, NULL }
#define PFS_TFILE(name, type, tfill) \
	{ name, type, VREG, 0444, NULL, tfill }
#define PFS_DIR(name, type) \
	{ name, type, VDIR, 0555, NULL, NULL }
#define PFS_LINK(name, type) \
	{ name, type, VLNK, 0777, NULL, NULL }

static const struct pfsent root_tab[] = {
	PFS_LINK("self", PFS_SELF),
	PFS_LINK("mounts", PFS_MOUNTS_LINK),
	PFS_FILE("meminfo", PFS_MEMINFO, procfs_meminfo),
	PFS_FILE("vmstat", PFS_VMSTAT, procfs_vmstat),
	PFS_FILE("uptime", PFS_UPTIME, procfs_uptime),
	PFS_FILE("loadavg", PFS_LOADAVG, procfs_loadavg),
	PFS_FILE("filesystems", PFS_FILESYSTEMS, procfs_filesystems),
	PFS_FILE("cpuinfo", PFS_CPUINFO, procfs_cpuinfo),
	PFS_FILE("stat", PFS_STAT, procfs_stat),
	PFS_FILE("version", PFS_VERSION, procfs_version),
	{ "kmsg", PFS_KMSG, VREG, 0400, NULL, NULL },	/* dev/kmsg.c */
	PFS_DIR("sys", PFS_SYS),
	PFS_DIR("sysvipc", PFS_SYSVIPC),
	PFS_DIR("net", PFS_NET),
};

static const struct pfsent net_tab[] = {
	PFS_FILE("dev", PFS_NET_DEV, procfs_net_dev),
	PFS_FILE("route", PFS_NET_ROUTE, procfs_net_route),
	PFS_FILE("if_inet6", PFS_NET_IF_INET6, procfs_net_if_inet6),
	PFS_FILE("tcp", PFS_NET_TCP, procfs_net_tcp),
	PFS_FILE("tcp6", PFS_NET_TCP6, procfs_net_tcp6),
	PFS_FILE("udp", PFS_NET_UDP, procfs_net_udp),
	PFS_FILE("udp6", PFS_NET_UDP6, procfs_net_udp6),
	PFS_FILE("unix", PFS_NET_UNIX, procfs_net_unix),
	PFS_FILE("raw", PFS_NET_RAW, procfs_net_raw),
	PFS_FILE("raw6", PFS_NET_RAW6, procfs_net_raw6),
	PFS_FILE("icmp", PFS_NET_ICMP, procfs_net_icmp),
	PFS_FILE("icmp6", PFS_NET_ICMP6, procfs_net_icmp6),
};

static const struct pfsent sysvipc_tab[] = {
	PFS_FILE("shm", PFS_SYSVIPC_SHM, procfs_sysvipc_shm),
	PFS_FILE("sem", PFS_SYSVIPC_SEM, procfs_sysvipc_sem),
	PFS_FILE("msg", PFS_SYSVIPC_MSG, procfs_sysvipc_msg),
};

static const struct pfsent sys_tab[] = {
	PFS_DIR("kernel", PFS_SYS_KERNEL),
};

static const struct pfsent sys_kernel_tab[] = {
	PFS_FILE("pid_max", PFS_PID_MAX, procfs_pid_max),
	PFS_FILE("osrelease", PFS_OSRELEASE, procfs_osrelease),
	PFS_FILE("ostype", PFS_OSTYPE, procfs_ostype),
	PFS_FILE("printk", PFS_PRINTK, procfs_printk),
	PFS_FILE("dmesg_restrict", PFS_DMESG_RESTRICT, procfs_dmesg_restrict),
};

static const struct pfsent pid_tab[] = {
	PFS_FILE("stat", PFS_PSTAT, procfs_pstat),
	PFS_FILE("status", PFS_PSTATUS, procfs_pstatus),
	PFS_FILE("cmdline", PFS_PCMDLINE, procfs_pcmdline),
	PFS_FILE("comm", PFS_PCOMM, procfs_pcomm),
	PFS_FILE("maps", PFS_PMAPS, procfs_pmaps),
	PFS_FILE("smaps", PFS_PSMAPS, procfs_psmaps),
	{ "environ", PFS_PENVIRON, VREG, 0400, procfs_penviron, NULL },
	{ "auxv", PFS_PAUXV, VREG, 0400, procfs_pauxv, NULL },
	PFS_FILE("mounts", PFS_PMOUNTS, procfs_pmounts),
	PFS_FILE("mountinfo", PFS_PMOUNTINFO, procfs_pmountinfo),
	PFS_LINK("cwd", PFS_PCWD),
	PFS_LINK("exe", PFS_PEXE),
	PFS_LINK("root", PFS_PROOT),
	{ "fd", PFS_PFDDIR, VDIR, 0500, NULL, NULL },
	PFS_DIR("task", PFS_PTASKDIR),
};

static const struct pfsent task_tab[] = {
	PFS_TFILE("stat", PFS_TSTAT, procfs_tstat),
	PFS_TFILE("status", PFS_TSTATUS, procfs_tstatus),
	PFS_TFILE("comm", PFS_TCOMM, procfs_tcomm),
};

const struct pfsent *
procfs_dir_table(enum pfstype dir, size_t *n)
{
	switch (dir) {
	case PFS_ROOT:
		*n = nitems(root_tab);
		return root_tab;
	case PFS_SYS:
		*n = nitems(sys_tab);
		return sys_tab;
	case PFS_SYS_KERNEL:
		*n = nitems(sys_kernel_tab);
		return sys_kernel_tab;
	case PFS_SYSVIPC:
		*n = nitems(sysvipc_tab);
		return sysvipc_tab;
	case PFS_NET:
		*n = nitems(net_tab);
		return net_tab;
	case PFS_PID:
		*n = nitems(pid_tab);
		return pid_tab;
	case PFS_TASK:
		*n = nitems(task_tab);
		return task_tab;
	default:
		*n = 0;
		return NULL;
	}
}

uint64_t
procfs_ino(enum pfstype t, pid_t pid, int fd)
{
	/* Descriptors are below 2^20 (NOFILE_MAX), pids below 2^31. */
	return ((uint64_t)pid << 32 | (uint64_t)t << 24 | (uint64_t)fd) + 1;
}

struct proc *
procfs_proc(pid_t pid)
{
	struct proc *p = pid > 0 ? pfind(pid) : NULL;
	return p != NULL && p->p_state != PRS_NEW ? p : NULL;
}

pid_t
procfs_dir_pid(struct file *fp)
{
	if (fp->f_type != DTYPE_VNODE || fp->f_vnode->v_op != &procfs_vnops)
		return 0;
	const struct pfsnode *pn = fp->f_vnode->v_data;
	return pn->pn_type == PFS_PID ? pn->pn_pid : 0;
}

struct lwp *
procfs_task(struct proc *p, pid_t tid)
{
	struct lwp *lp = lwpfind(tid);
	return lp != NULL && lp->lwp_proc == p && p->p_state == PRS_NORMAL ?
	    lp : NULL;
}

long
procfs_next_task(struct proc *p, long tid)
{
	struct lwp *lp;
	long best = -1;

	if (p->p_state != PRS_NORMAL)
		return -1;
	TAILQ_FOREACH(lp, &p->p_lwps, lwp_link)
		if (lp->lwp_tid >= tid && (best < 0 || lp->lwp_tid < best))
			best = lp->lwp_tid;
	return best;
}

/* The target of link node pn into the sbuf. */
static int
procfs_link_target(struct sbuf *sb, struct pfsnode *pn)
{
	struct proc *cur = curproc;

	switch (pn->pn_type) {
	case PFS_SELF:
		if (cur == NULL)
			return -ENOENT;
		sbuf_printf(sb, "%d", cur->p_pid);
		return 0;
	case PFS_MOUNTS_LINK:
		sbuf_printf(sb, "self/mounts");
		return 0;
	default: {
		struct proc *p = procfs_proc(pn->pn_pid);
		if (p == NULL)
			return -ENOENT;
		return procfs_plink(sb, p, pn->pn_type, pn->pn_fd);
	}
	}
}

int
procfs_node_alloc(struct mount *mp, const struct pfsent *ent, enum pfstype t,
    pid_t pid, int fd, struct vnode **vpp)
{
	struct proc *p = NULL;
	enum vtype vt = ent != NULL ? ent->pe_vtype :
	    t == PFS_PFD ? VLNK : VDIR;

	if (pid != 0 && (p = procfs_proc(pid)) == NULL)
		return -ENOENT;
	if (t >= PFS_TASK && procfs_task(p, fd) == NULL)
		return -ENOENT;
	struct pfsnode *pn = kmalloc(sizeof(*pn), KM_ZERO);
	if (pn == NULL)
		return -ENOMEM;
	pn->pn_type = t;
	pn->pn_pid = pid;
	pn->pn_fd = fd;
	pn->pn_ent = ent;
	if (vt == VLNK) {
		struct sbuf sb;
		sbuf_init(&sb);
		int error = procfs_link_target(&sb, pn);
		sbuf_bcat(&sb, "", 1);
		if (error == 0)
			error = sb.sb_error;
		if (error < 0) {
			sbuf_free(&sb);
			kfree(pn);
			return error;
		}
		pn->pn_link = sb.sb_buf;
	}
	struct vnode *vp = vnode_alloc(mp, vt, &procfs_vnops);
	if (vp == NULL) {
		kfree(pn->pn_link);
		kfree(pn);
		return -ENOMEM;
	}
	vp->v_data = pn;
	vp->v_ino = procfs_ino(t, pid, fd);
	vp->v_mode = ent != NULL ? ent->pe_mode :
	    t == PFS_PFD ? procfs_fd_mode(p, fd) : 0555;
	vp->v_nlink = vt == VDIR ? 2 : 1;
	if (vt == VLNK)
		vp->v_size = strlen(pn->pn_link);
	/* A process's files belong to its effective user, as in Linux. */
	if (p != NULL && p->p_ucred != NULL) {
		vp->v_uid = p->p_ucred->cr_uid;
		vp->v_gid = p->p_ucred->cr_gid;
	}
	vfs_timestamp(&vp->v_mtime);
	vp->v_atime = vp->v_ctime = vp->v_mtime;
	*vpp = vp;
	return 0;
}

void
procfs_node_free(struct vnode *vp)
{
	struct pfsnode *pn = vp->v_data;
	kfree(pn->pn_link);
	kfree(pn);
	vnode_free(vp);
}

void
sbuf_init(struct sbuf *sb)
{
	memset(sb, 0, sizeof(*sb));
}

/* Makes room for len more bytes and a NUL; false if memory is short. */
static bool
sbuf_reserve(struct sbuf *sb, size_t len)
{
	if (sb->sb_error < 0)
		return false;
	if (sb->sb_len + len + 1 <= sb->sb_size)
		return true;
	size_t size = MAX(sb->sb_size * 2, 1024);
	while (size < sb->sb_len + len + 1)
		size *= 2;
	char *nb = kmalloc(size, 0);
	if (nb == NULL) {
		sb->sb_error = -ENOMEM;
		return false;
	}
	if (sb->sb_buf != NULL)
		memcpy(nb, sb->sb_buf, sb->sb_len);
	kfree(sb->sb_buf);
	sb->sb_buf = nb;
	sb->sb_size = size;
	return true;
}

void
sbuf_printf(struct sbuf *sb, const char *fmt, ...)
{
	va_list ap;
	char small[256];

	va_start(ap, fmt);
	int n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0 || !sbuf_reserve(sb, (size_t)n))
		return;
	if ((size_t)n < sizeof(small)) {
		memcpy(sb->sb_buf + sb->sb_len, small, (size_t)n + 1);
	} else {
		va_start(ap, fmt);
		vsnprintf(sb->sb_buf + sb->sb_len, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	sb->sb_len += (size_t)n;
}

void
sbuf_bcat(struct sbuf *sb, const void *data, size_t len)
{
	if (!sbuf_reserve(sb, len))
		return;
	memcpy(sb->sb_buf + sb->sb_len, data, len);
	sb->sb_len += len;
}

void
sbuf_free(struct sbuf *sb)
{
	kfree(sb->sb_buf);
	sbuf_init(sb);
}
