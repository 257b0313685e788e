/*
 * procfs: the kernel's state as files (Linux's /proc).
 *
 * Nothing is stored.  A node is a kind (pfstype) and, below /proc/PID,
 * a pid and for /proc/PID/fd/N a descriptor, for /proc/PID/task/TID a
 * thread id.  Lookup makes a fresh vnode
 * for it, which its last vrele frees; only the root lives as long as the
 * mount.  Inode numbers are computed from (kind, pid, fd), so a file
 * keeps its number across lookups (getcwd finds directories by number).
 *
 * A regular file's contents are made whole when it is opened, into a
 * buffer its open file keeps (Linux's single_open): reads in any number
 * of pieces see one snapshot, and lseek moves within it.  A symlink's
 * target is made at lookup.
 *
 * Locking: the big kernel lock; nothing here sleeps.
 */
#ifndef FS_PROCFS_PROCFS_H
#define FS_PROCFS_PROCFS_H

#include <stdarg.h>

#include "fs/vnode.h"

struct lwp;
struct proc;

#define PROCFS_MAGIC	0x9fa0		/* Linux's statfs f_type */

enum pfstype {
	PFS_ROOT, PFS_SELF, PFS_MOUNTS_LINK,
	PFS_MEMINFO, PFS_UPTIME, PFS_LOADAVG, PFS_FILESYSTEMS, PFS_CPUINFO,
	PFS_STAT, PFS_VERSION, PFS_VMSTAT,
	PFS_SYSVIPC, PFS_SYSVIPC_SHM, PFS_SYSVIPC_SEM, PFS_SYSVIPC_MSG,
	PFS_SYS, PFS_SYS_KERNEL, PFS_PID_MAX, PFS_OSRELEASE,
	PFS_OSTYPE, PFS_KMSG, PFS_PRINTK, PFS_DMESG_RESTRICT,
	PFS_NET, PFS_NET_DEV, PFS_NET_ROUTE, PFS_NET_IF_INET6, PFS_NET_TCP,
	PFS_NET_TCP6, PFS_NET_UDP, PFS_NET_UDP6, PFS_NET_UNIX, PFS_NET_RAW,
	PFS_NET_RAW6, PFS_NET_ICMP, PFS_NET_ICMP6,
	PFS_PID, PFS_PSTAT, PFS_PSTATUS, PFS_PCMDLINE, PFS_PCOMM, PFS_PMAPS,
	PFS_PSMAPS, PFS_PENVIRON, PFS_PMOUNTS, PFS_PCWD, PFS_PEXE, PFS_PROOT,
	PFS_PFDDIR, PFS_PFD, PFS_PTASKDIR, PFS_PAUXV, PFS_PMOUNTINFO,
	PFS_TASK, PFS_TSTAT, PFS_TSTATUS, PFS_TCOMM,	/* tasks' from here on */
};

/* A growing buffer of generated text, in kmalloc'd memory. */
struct sbuf {
	char *sb_buf;
	size_t sb_len, sb_size;
	int sb_error;		/* -ENOMEM once a growth failed */
};

void sbuf_init(struct sbuf *sb);
void sbuf_printf(struct sbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void sbuf_bcat(struct sbuf *sb, const void *data, size_t len);
void sbuf_free(struct sbuf *sb);

/*
 * A file, directory or link of a directory's table.  A regular file's
 * fill makes its contents for process p (NULL outside /proc/PID) as the
 * process looking (curproc, may be NULL); 0 or a negative errno.  A
 * file of /proc/PID/task/TID has tfill instead, for thread lp of p.
 */
struct pfsent {
	const char *pe_name;
	enum pfstype pe_type;
	enum vtype pe_vtype;
	mode_t pe_mode;
	int (*pe_fill)(struct sbuf *sb, struct proc *p);
	int (*pe_tfill)(struct sbuf *sb, struct proc *p, struct lwp *lp);
};

/* The node behind a procfs vnode's v_data. */
struct pfsnode {
	enum pfstype pn_type;
	pid_t pn_pid;		/* 0 outside /proc/PID */
	int pn_fd;		/* PFS_PFD's descriptor; the thread id of
				 * task/TID and its files */
	char *pn_link;		/* a symlink's target, kmalloc'd */
	const struct pfsent *pn_ent;	/* its table entry; NULL for the
					 * root, PID and fd nodes */
};

extern const struct vfsops procfs_vfsops;
extern const struct vnops procfs_vnops;

/* Nodes (procfs_subr.c). */

/*
 * A new vnode of mount mp for a node of type t (pid, fd as above),
 * described by ent (NULL for the root, PID and fd nodes), its times and
 * owner set.  Makes a symlink's target now.  0 or -ENOMEM, -ENOENT (the
 * process or descriptor is gone).
 */
int procfs_node_alloc(struct mount *mp, const struct pfsent *ent,
    enum pfstype t, pid_t pid, int fd, struct vnode **vpp);

/* Frees an unreferenced procfs vnode. */
void procfs_node_free(struct vnode *vp);

/* The inode number of a node. */
uint64_t procfs_ino(enum pfstype t, pid_t pid, int fd);

/* The entries of a directory type's table, and their number. */
const struct pfsent *procfs_dir_table(enum pfstype dir, size_t *n);

/* The process of pid if it exists (zombies included), else NULL. */
struct proc *procfs_proc(pid_t pid);

/* The pid whose /proc/PID directory fp is open on, else 0. */
pid_t procfs_dir_pid(struct file *fp);

/* Thread tid of process p if it lives, else NULL. */
struct lwp *procfs_task(struct proc *p, pid_t tid);

/* The first thread id of p at or above tid, or -1. */
long procfs_next_task(struct proc *p, long tid);

/*
 * Files a layer above procfs makes (procfs_sys.c): System V IPC's
 * /proc/sysvipc/{shm,sem,msg} come from sys/sysv_*.c, which register
 * their generators at boot; a file whose generator is not registered
 * reads empty.
 */
enum procfs_ext { PFX_SYSVIPC_SHM, PFX_SYSVIPC_SEM, PFX_SYSVIPC_MSG, PFX_MAX };
void procfs_register(enum procfs_ext which,
    int (*fill)(struct sbuf *sb, struct proc *p));

/* System-wide files (procfs_sys.c). */
int procfs_meminfo(struct sbuf *sb, struct proc *p);
int procfs_vmstat(struct sbuf *sb, struct proc *p);
int procfs_sysvipc_shm(struct sbuf *sb, struct proc *p);
int procfs_sysvipc_sem(struct sbuf *sb, struct proc *p);
int procfs_sysvipc_msg(struct sbuf *sb, struct proc *p);
int procfs_uptime(struct sbuf *sb, struct proc *p);
int procfs_loadavg(struct sbuf *sb, struct proc *p);
int procfs_filesystems(struct sbuf *sb, struct proc *p);
int procfs_cpuinfo(struct sbuf *sb, struct proc *p);
int procfs_stat(struct sbuf *sb, struct proc *p);
int procfs_version(struct sbuf *sb, struct proc *p);
int procfs_pid_max(struct sbuf *sb, struct proc *p);
int procfs_osrelease(struct sbuf *sb, struct proc *p);
int procfs_ostype(struct sbuf *sb, struct proc *p);
int procfs_printk(struct sbuf *sb, struct proc *p);
int procfs_dmesg_restrict(struct sbuf *sb, struct proc *p);

/* /proc/net (procfs_net.c) */
int procfs_net_dev(struct sbuf *sb, struct proc *p);
int procfs_net_route(struct sbuf *sb, struct proc *p);
int procfs_net_if_inet6(struct sbuf *sb, struct proc *p);
int procfs_net_tcp(struct sbuf *sb, struct proc *p);
int procfs_net_tcp6(struct sbuf *sb, struct proc *p);
int procfs_net_udp(struct sbuf *sb, struct proc *p);
int procfs_net_udp6(struct sbuf *sb, struct proc *p);
int procfs_net_unix(struct sbuf *sb, struct proc *p);
int procfs_net_raw(struct sbuf *sb, struct proc *p);
int procfs_net_raw6(struct sbuf *sb, struct proc *p);
int procfs_net_icmp(struct sbuf *sb, struct proc *p);
int procfs_net_icmp6(struct sbuf *sb, struct proc *p);

/* Per-process files (procfs_proc.c). */
int procfs_pstat(struct sbuf *sb, struct proc *p);
int procfs_pstatus(struct sbuf *sb, struct proc *p);
int procfs_pcmdline(struct sbuf *sb, struct proc *p);
int procfs_penviron(struct sbuf *sb, struct proc *p);
int procfs_pauxv(struct sbuf *sb, struct proc *p);
int procfs_pcomm(struct sbuf *sb, struct proc *p);
int procfs_pmounts(struct sbuf *sb, struct proc *p);
int procfs_pmountinfo(struct sbuf *sb, struct proc *p);
/* /proc/PID/task/TID's: the thread's view of the process's files. */
int procfs_tstat(struct sbuf *sb, struct proc *p, struct lwp *lp);
int procfs_tstatus(struct sbuf *sb, struct proc *p, struct lwp *lp);
int procfs_tcomm(struct sbuf *sb, struct proc *p, struct lwp *lp);

/* /proc/PID/maps and smaps (procfs_maps.c). */
int procfs_pmaps(struct sbuf *sb, struct proc *p);
int procfs_psmaps(struct sbuf *sb, struct proc *p);

/* The root the looking process sees paths from. */
struct vnode *procfs_reader_root(struct proc *p);

/*
 * Appends the path of vp seen from root (or "" if it has none to show);
 * hint: a directory where vp may be found, or NULL.
 */
void procfs_sbuf_path(struct sbuf *sb, struct vnode *root, struct vnode *vp,
    struct vnode *hint);

/*
 * The target of a per-process link (cwd, exe, root, fd/N) of process p into
 * the sbuf.  0, or -ENOENT (no such descriptor).
 */
int procfs_plink(struct sbuf *sb, struct proc *p, enum pfstype t, int fd);

/* The first descriptor of p open at or after fd, or -1. */
int procfs_next_fd(struct proc *p, int fd);

/* The mode of fd/N as Linux shows it: r-x for reading, -wx for writing. */
mode_t procfs_fd_mode(struct proc *p, int fd);

#endif /* FS_PROCFS_PROCFS_H */
