/*
 * The files of /proc/PID, in Linux's formats (busybox's ps and top parse
 * stat and status; mount and df read mounts).
 */
#include <stdio.h>

#include "fs/anon_file.h"
#include "fs/procfs/procfs.h"
#include "fs/pipe.h"
#include "fs/tmpfs/tmpfs.h"
#include "fs/vfs.h"
#include "host/cpu.h"
#include "kern/proc.h"
#include "kern/thread.h"
#include "kern/ucred.h"
#include "kern/kmem.h"
#include "vm/vm.h"
#include "vm/vm_object.h"

#define NS_PER_TICK	(1000000000ULL / 100)	/* USER_HZ */

/* The process's first lwp, or NULL (a zombie's are gone). */
static struct lwp *
first_lwp(struct proc *p)
{
	return p->p_state == PRS_ZOMBIE ? NULL : TAILQ_FIRST(&p->p_lwps);
}

/* The state letter of p, as its thread lp (NULL: its first) shows it. */
static char
proc_state(struct proc *p, struct lwp *lp)
{
	if (lp == NULL)
		lp = first_lwp(p);
	if (p->p_state == PRS_ZOMBIE)
		return 'Z';
	if (p->p_flags & P_STOPPED)
		return 'T';
	if (lp == NULL)
		return 'S';
	/*
	 * As Linux: a thread created and not yet run is runnable, and one
	 * asleep where a signal cannot end the sleep (a fault waiting for
	 * a page, a lock) is D; only an interruptible sleep is S, which
	 * is what a program polling for "blocked in futex_wait" expects.
	 */
	switch (lp->lwp_thread->td_state) {
	case TDS_NEW:
	case TDS_RUNQ:
	case TDS_RUNNING:
		return 'R';
	case TDS_SLEEPING:
		return (lp->lwp_thread->td_flags & TDF_SINTR) ? 'S' : 'D';
	default:
		return 'S';
	}
}

static const char *
state_name(char c)
{
	switch (c) {
	case 'R':	return "R (running)";
	case 'D':	return "D (disk sleep)";
	case 'T':	return "T (stopped)";
	case 'Z':	return "Z (zombie)";
	default:	return "S (sleeping)";
	}
}

/* Signal sets of p's thread lp (NULL: its first): pending, blocked, ignored, caught. */
static void
proc_sigsets(struct proc *p, struct lwp *lp, ksigset_t set[4])
{
	if (lp == NULL)
		lp = first_lwp(p);
	memset(set, 0, 4 * sizeof(set[0]));
	set[0] = p->p_siglist | (lp != NULL ? lp->lwp_siglist : 0);
	set[1] = lp != NULL ? lp->lwp_sigmask : 0;
	if (p->p_sigacts == NULL)
		return;
	for (int sig = 1; sig <= LINUX_NSIG; sig++) {
		uint64_t h = p->p_sigacts->ps_act[sig - 1].lsa_handler;
		if (h == (uint64_t)SIG_IGN)
			set[2] |= SIGBIT(sig);
		else if (h != (uint64_t)SIG_DFL)
			set[3] |= SIGBIT(sig);
	}
}

/* The console's number (5:1) for processes of its session, else 0. */
static int
proc_tty(struct proc *p, pid_t *tpgid)
{
	struct session *s = p->p_pgrp != NULL ? p->p_pgrp->pg_session : NULL;

	*tpgid = -1;
	if (s == NULL || initproc == NULL || initproc->p_pgrp == NULL ||
	    s != initproc->p_pgrp->pg_session)
		return 0;
	*tpgid = s->s_fgpgrp != NULL ? s->s_fgpgrp->pg_id :
	    initproc->p_pgrp->pg_id;
	return 5 << 8 | 1;
}

static uint64_t
proc_vsize(struct proc *p)
{
	return p->p_vmspace != NULL ? p->p_vmspace->vm_map.size : 0;
}

static uint64_t
proc_rss(struct proc *p)
{
	return p->p_vmspace != NULL ? p->p_vmspace->vm_pmap.pm_resident : 0;
}

/*
 * stat of process p, or with task set of its thread lp (the thread's id,
 * state and times; NULL task: the process's, through its first thread).
 */
static int
stat_fill(struct sbuf *sb, struct proc *p, struct lwp *task)
{
	struct lwp *lp = task != NULL ? task : first_lwp(p);
	struct vmspace *vm = p->p_vmspace;
	ksigset_t set[4];
	pid_t tpgid;
	int tty = proc_tty(p, &tpgid);
	uint64_t boot = nanouptime() - sched_uptime();
	uint64_t start = p->p_start > boot ? p->p_start - boot : 0;

	proc_sigsets(p, lp, set);
	uint64_t utime, stime;
	if (task != NULL)
		lwp_cputime(task, &utime, &stime);
	else
		proc_cputime(p, &utime, &stime);
	int nice = lp != NULL ? lp->lwp_nice : 0;
	sbuf_printf(sb, "%d (%s) %c %d %d %d %d %d %u 0 0 0 0 %lu %lu %lu %lu "
	    "%d %d %d 0 %lu %lu %lu %lu 0 0 0 0 0 %lu %lu %lu %lu 0 0 0 %d %d "
	    "0 0 0 0 0 0 0 %lu %lu %lu %lu %lu %d\n",
	    task != NULL ? task->lwp_tid : p->p_pid,
	    task != NULL ? task->lwp_comm : p->p_comm,
	    proc_state(p, lp),
	    p->p_pptr != NULL ? p->p_pptr->p_pid : 0,
	    p->p_pgrp != NULL ? p->p_pgrp->pg_id : 0,
	    p->p_pgrp != NULL ? p->p_pgrp->pg_session->s_sid : 0,
	    tty, tpgid, 0u,
	    (unsigned long)(utime / NS_PER_TICK),
	    (unsigned long)(stime / NS_PER_TICK),
	    (unsigned long)(p->p_cutime / NS_PER_TICK),
	    (unsigned long)(p->p_cstime / NS_PER_TICK),
	    20 + nice, nice, p->p_nlwps > 0 ? p->p_nlwps : 1,
	    (unsigned long)(start / NS_PER_TICK),
	    (unsigned long)proc_vsize(p), (unsigned long)proc_rss(p),
	    (unsigned long)RLIM_INFINITY,
	    (unsigned long)set[0], (unsigned long)set[1],
	    (unsigned long)set[2], (unsigned long)set[3],
	    p->p_exitsig,
	    lp != NULL && lp->lwp_thread->td_cpu != NULL ?
	    lp->lwp_thread->td_cpu->id : 0,
	    (unsigned long)(vm != NULL ? vm->vm_brk_start : 0),
	    (unsigned long)(vm != NULL ? vm->vm_arg_start : 0),
	    (unsigned long)(vm != NULL ? vm->vm_arg_end : 0),
	    (unsigned long)(vm != NULL ? vm->vm_arg_end : 0),
	    (unsigned long)(vm != NULL ? vm->vm_env_end : 0),
	    p->p_state == PRS_ZOMBIE ? p->p_xstat : 0);
	return 0;
}

int
procfs_pstat(struct sbuf *sb, struct proc *p)
{
	return stat_fill(sb, p, NULL);
}

int
procfs_tstat(struct sbuf *sb, struct proc *p, struct lwp *lp)
{
	return stat_fill(sb, p, lp);
}

static void
status_kb(struct sbuf *sb, const char *name, uint64_t bytes)
{
	sbuf_printf(sb, "%s\t%8lu kB\n", name, (unsigned long)(bytes / 1024));
}

/* status of process p, or of its thread task (NULL: the process). */
static int
status_fill(struct sbuf *sb, struct proc *p, struct lwp *task)
{
	struct ucred *cr = p->p_ucred;
	ksigset_t set[4];

	proc_sigsets(p, task, set);
	sbuf_printf(sb, "Name:\t%s\nUmask:\t%04o\nState:\t%s\nTgid:\t%d\n"
	    "Ngid:\t0\nPid:\t%d\nPPid:\t%d\nTracerPid:\t0\n"
	    "Uid:\t%d\t%d\t%d\t%d\nGid:\t%d\t%d\t%d\t%d\nFDSize:\t%d\nGroups:\t",
	    task != NULL ? task->lwp_comm : p->p_comm,
	    p->p_fs.fp_pwd != NULL ? p->p_fs.fp_pwd->pd_umask : 0,
	    state_name(proc_state(p, task)), p->p_pid,
	    task != NULL ? task->lwp_tid : p->p_pid, p->p_pptr != NULL ? p->p_pptr->p_pid : 0,
	    cr->cr_ruid, cr->cr_uid, cr->cr_svuid, cr->cr_uid,
	    cr->cr_rgid, cr->cr_gid, cr->cr_svgid, cr->cr_gid,
	    p->p_fs.fp_fd != NULL ? p->p_fs.fp_fd->fd_nfiles : 0);
	for (int i = 0; i < cr->cr_ngroups; i++)
		sbuf_printf(sb, "%d ", cr->cr_groups[i]);
	sbuf_printf(sb, "\n");
	if (p->p_vmspace != NULL) {
		uint64_t rss = proc_rss(p) * PAGE_SIZE;
		status_kb(sb, "VmPeak:", proc_vsize(p));
		status_kb(sb, "VmSize:", proc_vsize(p));
		status_kb(sb, "VmHWM:", rss);
		status_kb(sb, "VmRSS:", rss);
	}
	sbuf_printf(sb, "Threads:\t%d\nSigPnd:\t%016lx\nShdPnd:\t%016lx\n"
	    "SigBlk:\t%016lx\nSigIgn:\t%016lx\nSigCgt:\t%016lx\n",
	    p->p_nlwps > 0 ? p->p_nlwps : 1, (unsigned long)set[0], 0UL,
	    (unsigned long)set[1], (unsigned long)set[2], (unsigned long)set[3]);
	return 0;
}

int
procfs_pstatus(struct sbuf *sb, struct proc *p)
{
	return status_fill(sb, p, NULL);
}

int
procfs_tstatus(struct sbuf *sb, struct proc *p, struct lwp *lp)
{
	return status_fill(sb, p, lp);
}

/* The bytes of p's memory in [start, end) (its argument strings). */
static int
copy_user_range(struct sbuf *sb, struct proc *p, uint64_t start,
    uint64_t end)
{
	if (p->p_vmspace == NULL || start >= end)
		return 0;
	char *buf = kmalloc(PAGE_SIZE, 0);
	if (buf == NULL)
		return -ENOMEM;
	int error = 0;
	for (uint64_t a = start; a < end && error == 0; ) {
		size_t n = MIN(end - a, PAGE_SIZE);
		if ((error = vm_copyin(p->p_vmspace, a, buf, n)) == 0)
			sbuf_bcat(sb, buf, n);
		a += n;
	}
	kfree(buf);
	/* Linux shows what it could read; a process may unmap its stack. */
	return error == -EFAULT ? 0 : error;
}

int
procfs_pcmdline(struct sbuf *sb, struct proc *p)
{
	struct vmspace *vm = p->p_vmspace;
	return vm != NULL ? copy_user_range(sb, p, vm->vm_arg_start,
	    vm->vm_arg_end) : 0;
}

int
procfs_penviron(struct sbuf *sb, struct proc *p)
{
	struct vmspace *vm = p->p_vmspace;
	return vm != NULL ? copy_user_range(sb, p, vm->vm_arg_end,
	    vm->vm_env_end) : 0;
}

/* The auxiliary vector exec laid out, AT_NULL included (kern/exec_stack.c). */
int
procfs_pauxv(struct sbuf *sb, struct proc *p)
{
	struct vmspace *vm = p->p_vmspace;
	return vm != NULL ? copy_user_range(sb, p, vm->vm_auxv_start,
	    vm->vm_auxv_end) : 0;
}

int
procfs_pcomm(struct sbuf *sb, struct proc *p)
{
	sbuf_printf(sb, "%s\n", p->p_comm);
	return 0;
}

int
procfs_tcomm(struct sbuf *sb, struct proc *p, struct lwp *lp)
{
	(void)p;
	sbuf_printf(sb, "%s\n", lp->lwp_comm);
	return 0;
}

struct vnode *
procfs_reader_root(struct proc *p)
{
	struct proc *cur = curproc;
	if (cur != NULL && cur->p_fs.fp_pwd != NULL)
		return cur->p_fs.fp_pwd->pd_rdir;
	return p->p_fs.fp_pwd != NULL ? p->p_fs.fp_pwd->pd_rdir : rootvnode;
}

void
procfs_sbuf_path(struct sbuf *sb, struct vnode *root, struct vnode *vp,
    struct vnode *hint)
{
	char *path = kmalloc(PATH_MAX, 0);
	if (path == NULL) {
		sb->sb_error = -ENOMEM;
		return;
	}
	if (vn_fullpath(root, vp, hint, path, PATH_MAX) > 0)
		sbuf_printf(sb, "%s", path);
	kfree(path);
}

int
procfs_pmounts(struct sbuf *sb, struct proc *p)
{
	struct vnode *root = p->p_fs.fp_pwd != NULL ? p->p_fs.fp_pwd->pd_rdir :
	    rootvnode;
	struct mount *mp;

	TAILQ_FOREACH(mp, &mountlist, mnt_list) {
		sbuf_printf(sb, "%s ", mp->mnt_source);
		procfs_sbuf_path(sb, root, mp->mnt_root, NULL);
		sbuf_printf(sb, " %s %s 0 0\n", mp->mnt_op->vfs_name,
		    (mp->mnt_flags & MNT_RDONLY) ? "ro" : "rw");
	}
	return 0;
}

/*
 * Linux's mountinfo: mount id, parent's id (its own for the root), the
 * st_dev of its files, the root within the file system (always "/":
 * there are no bind mounts), where it is mounted as p sees it, its
 * options, no optional fields, "-", the type, the source and the
 * superblock's options.
 */
int
procfs_pmountinfo(struct sbuf *sb, struct proc *p)
{
	struct vnode *root = p->p_fs.fp_pwd != NULL ? p->p_fs.fp_pwd->pd_rdir :
	    rootvnode;
	struct mount *mp;

	TAILQ_FOREACH(mp, &mountlist, mnt_list) {
		const char *rw = (mp->mnt_flags & MNT_RDONLY) ? "ro" : "rw";
		int parent = mp->mnt_covered != NULL ?
		    mp->mnt_covered->v_mount->mnt_id : mp->mnt_id;
		sbuf_printf(sb, "%d %d %u:%u / ", mp->mnt_id, parent,
		    linux_major(mp->mnt_dev), linux_minor(mp->mnt_dev));
		procfs_sbuf_path(sb, root, mp->mnt_root, NULL);
		sbuf_printf(sb, " %s - %s %s %s\n", rw, mp->mnt_op->vfs_name,
		    mp->mnt_source, rw);
	}
	return 0;
}

int
procfs_next_fd(struct proc *p, int fd)
{
	struct filedesc *fdp = p->p_fs.fp_fd;
	if (fdp == NULL)
		return -1;	/* a zombie's */
	for (; fd >= 0 && fd < fdp->fd_nfiles && fd <= fdp->fd_lastfile; fd++)
		if (fdp->fd_ofiles[fd].fde_file != NULL)
			return fd;
	return -1;
}

mode_t
procfs_fd_mode(struct proc *p, int fd)
{
	if (procfs_next_fd(p, fd) != fd)
		return 0;
	struct file *fp = p->p_fs.fp_fd->fd_ofiles[fd].fde_file;
	return (FREAD(fp) ? 0500 : 0) | (FWRITE(fp) ? 0300 : 0);
}

int
procfs_plink(struct sbuf *sb, struct proc *p, enum pfstype t, int fd)
{
	struct vnode *root = procfs_reader_root(p);

	switch (t) {
	case PFS_PCWD:
	case PFS_PROOT: {
		const struct pwddesc *pd = p->p_fs.fp_pwd;
		if (pd == NULL)
			return -ENOENT;
		procfs_sbuf_path(sb, root, t == PFS_PCWD ? pd->pd_cdir : pd->pd_rdir,
		    NULL);
		return 0;
	}
	case PFS_PEXE:
		if (p->p_exe == NULL)
			return -ENOENT;
		sbuf_printf(sb, "%s", p->p_exe);
		return 0;
	case PFS_PFD: {
		if (procfs_next_fd(p, fd) != fd)
			return -ENOENT;
		struct file *fp = p->p_fs.fp_fd->fd_ofiles[fd].fde_file;
		if (fp->f_type == DTYPE_PIPE) {
			struct pipe *pi = fp->f_data;
			sbuf_printf(sb, "pipe:[%lu]", (unsigned long)pi->pi_ino);
			return 0;
		}
		if (fp->f_type == DTYPE_ANON) {
			sbuf_printf(sb, "anon_inode:%s", anonfile_name(fp));
			return 0;
		}
		const char *memfd = fp->f_vnode != NULL ?
		    tmpfs_memfd_name(fp->f_vnode) : NULL;
		if (memfd != NULL) {
			sbuf_printf(sb, "/%s (deleted)", memfd);
			return 0;
		}
		size_t len0 = sb->sb_len;
		procfs_sbuf_path(sb, root, fp->f_vnode, p->p_fs.fp_pwd->pd_cdir);
		/* Linux always has a path; ours finds some files only. */
		if (sb->sb_len == len0)
			sbuf_printf(sb, "inode:[%lu]",
			    (unsigned long)fp->f_vnode->v_ino);
		return 0;
	}
	default:
		return -ENOENT;
	}
}
