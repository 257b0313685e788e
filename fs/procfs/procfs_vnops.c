/*
 * procfs vnode operations (see vnode.h for each one's contract) and the
 * open files of its generated files.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "fs/poll.h"
#include "dev/kmsg.h"
#include "fs/procfs/procfs.h"
#include "fs/vfs.h"
#include "kern/proc.h"
#include "kern/uio.h"
#include "kern/kmem.h"

/* readdir cookies: ".", "..", the table, then the numbered entries. */
#define COOKIE_TABLE	2

static inline struct pfsnode *
VTOPN(struct vnode *vp)
{
	return vp->v_data;
}

/* A decimal name ("123") as a number below limit, or -1. */
static long
name_number(const char *name, long limit)
{
	char *end;
	if (name[0] < '0' || name[0] > '9' || (name[0] == '0' && name[1] != '\0'))
		return -1;
	long n = strtol(name, &end, 10);
	return *end == '\0' && n < limit ? n : -1;
}

/* The entry of type t in directory type dir's table. */
static const struct pfsent *
table_entry(enum pfstype dir, enum pfstype t)
{
	size_t n;
	const struct pfsent *tab = procfs_dir_table(dir, &n);
	for (size_t i = 0; i < n; i++)
		if (tab[i].pe_type == t)
			return &tab[i];
	return NULL;
}

static int
procfs_lookup(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	struct pfsnode *pn = VTOPN(dvp);
	struct mount *mp = dvp->v_mount;

	if (strcmp(name, ".") == 0) {
		*vpp = vref(dvp);
		return 0;
	}
	if (strcmp(name, "..") == 0) {
		switch (pn->pn_type) {
		case PFS_SYS_KERNEL:
			return procfs_node_alloc(mp,
			    table_entry(PFS_ROOT, PFS_SYS), PFS_SYS, 0, 0, vpp);
		case PFS_PFDDIR:
		case PFS_PTASKDIR:
			return procfs_node_alloc(mp, NULL, PFS_PID, pn->pn_pid, 0,
			    vpp);
		case PFS_TASK:
			return procfs_node_alloc(mp, table_entry(PFS_PID,
			    PFS_PTASKDIR), PFS_PTASKDIR, pn->pn_pid, 0, vpp);
		default:
			*vpp = vref(mp->mnt_root);
			return 0;
		}
	}
	size_t n;
	const struct pfsent *tab = procfs_dir_table(pn->pn_type, &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(tab[i].pe_name, name) == 0)
			return procfs_node_alloc(mp, &tab[i], tab[i].pe_type,
			    pn->pn_pid, pn->pn_type == PFS_TASK ? pn->pn_fd : 0,
			    vpp);
	if (pn->pn_type == PFS_ROOT) {
		long pid = name_number(name, PID_MAX);
		if (pid > 0)
			return procfs_node_alloc(mp, NULL, PFS_PID, (pid_t)pid, 0,
			    vpp);
	} else if (pn->pn_type == PFS_PFDDIR) {
		long fd = name_number(name, NOFILE_MAX);
		struct proc *p = procfs_proc(pn->pn_pid);
		if (fd >= 0 && p != NULL && procfs_next_fd(p, (int)fd) == fd)
			return procfs_node_alloc(mp, NULL, PFS_PFD, pn->pn_pid,
			    (int)fd, vpp);
	} else if (pn->pn_type == PFS_PTASKDIR) {
		long tid = name_number(name, PID_MAX);
		if (tid > 0)
			return procfs_node_alloc(mp, NULL, PFS_TASK, pn->pn_pid,
			    (int)tid, vpp);
	}
	return -ENOENT;
}

/*
 * The numbered entry at or after index i of directory node pn (a pid of
 * the root, a descriptor of fd/, a thread of task/), or -1 past the last.
 */
static long
next_numbered(struct pfsnode *pn, long i)
{
	if (pn->pn_type == PFS_ROOT) {
		for (i = MAX(i, 1); i < PID_MAX; i++)
			if (procfs_proc((pid_t)i) != NULL)
				return i;
	} else if (pn->pn_type == PFS_PFDDIR) {
		struct proc *p = procfs_proc(pn->pn_pid);
		if (p != NULL && i < NOFILE_MAX)
			return procfs_next_fd(p, (int)i);
	} else if (pn->pn_type == PFS_PTASKDIR) {
		struct proc *p = procfs_proc(pn->pn_pid);
		if (p != NULL)
			return procfs_next_task(p, i);
	}
	return -1;
}

static int
procfs_readdir(struct vnode *vp, struct uio *uio)
{
	struct pfsnode *pn = VTOPN(vp);
	int64_t off = uio->uio_offset;
	int error = 0, count = 0;
	size_t n;
	const struct pfsent *tab = procfs_dir_table(pn->pn_type, &n);
	int64_t numbered = COOKIE_TABLE + (int64_t)n;
	char name[24];

	if (off < 0)
		return -EINVAL;
	while (error == 0) {
		uint64_t ino;
		enum vtype type;
		int64_t next = off + 1;
		if (off == 0) {
			ino = vp->v_ino, type = VDIR;
			strcpy(name, ".");
		} else if (off == 1) {
			/* The parent's number, as lookup of ".." would give. */
			if (pn->pn_type == PFS_PFDDIR ||
			    pn->pn_type == PFS_PTASKDIR)
				ino = procfs_ino(PFS_PID, pn->pn_pid, 0);
			else if (pn->pn_type == PFS_TASK)
				ino = procfs_ino(PFS_PTASKDIR, pn->pn_pid, 0);
			else if (pn->pn_type == PFS_SYS_KERNEL)
				ino = procfs_ino(PFS_SYS, 0, 0);
			else
				ino = vp->v_mount->mnt_root->v_ino;
			type = VDIR;
			strcpy(name, "..");
		} else if (off < numbered) {
			const struct pfsent *e = &tab[off - COOKIE_TABLE];
			ino = procfs_ino(e->pe_type, pn->pn_pid,
			    pn->pn_type == PFS_TASK ? pn->pn_fd : 0);
			type = e->pe_vtype;
			error = vfs_dirent_out(uio, ino, next, vtype_to_dt(type),
			    e->pe_name, strlen(e->pe_name));
			if (error == 0)
				off = next, count++;
			continue;
		} else {
			long i = next_numbered(pn, (long)(off - numbered));
			if (i < 0)
				break;
			if (pn->pn_type == PFS_ROOT)
				ino = procfs_ino(PFS_PID, (pid_t)i, 0), type = VDIR;
			else if (pn->pn_type == PFS_PTASKDIR)
				ino = procfs_ino(PFS_TASK, pn->pn_pid, (int)i),
				type = VDIR;
			else
				ino = procfs_ino(PFS_PFD, pn->pn_pid, (int)i),
				type = VLNK;
			next = numbered + i + 1;
			snprintf(name, sizeof(name), "%ld", i);
		}
		error = vfs_dirent_out(uio, ino, next, vtype_to_dt(type), name,
		    strlen(name));
		if (error == 0)
			off = next, count++;
	}
	uio->uio_offset = off;
	if (error == 1)
		return count == 0 ? -EINVAL : 0;
	return count > 0 ? 0 : error;
}

static int
procfs_readlink(struct vnode *vp, struct uio *uio)
{
	return uiomove(VTOPN(vp)->pn_link, MIN(vp->v_size, uio->uio_resid), uio);
}

/* fd/N stands for the process's open file N. */
static struct file *
procfs_linkfile(struct vnode *vp)
{
	struct pfsnode *pn = VTOPN(vp);
	struct proc *p;

	if (pn->pn_type != PFS_PFD || (p = procfs_proc(pn->pn_pid)) == NULL ||
	    procfs_next_fd(p, pn->pn_fd) != pn->pn_fd)
		return NULL;
	return fhold(p->p_fs.fp_fd->fd_ofiles[pn->pn_fd].fde_file);
}

/* Makes regular file vp's contents into sb. */
static int
procfs_generate(struct vnode *vp, struct sbuf *sb)
{
	struct pfsnode *pn = VTOPN(vp);
	struct proc *p = NULL;

	if (pn->pn_pid != 0 && (p = procfs_proc(pn->pn_pid)) == NULL)
		return -ESRCH;
	if (pn->pn_ent->pe_fill == NULL && pn->pn_ent->pe_tfill == NULL)
		return -EINVAL;		/* a stream (kmsg): read only when open */
	struct lwp *lp = NULL;
	if (pn->pn_ent->pe_tfill != NULL &&
	    (lp = procfs_task(p, pn->pn_fd)) == NULL)
		return -ESRCH;
	sbuf_init(sb);
	int error = lp != NULL ? pn->pn_ent->pe_tfill(sb, p, lp) :
	    pn->pn_ent->pe_fill(sb, p);
	if (error == 0)
		error = sb->sb_error;
	if (error < 0)
		sbuf_free(sb);
	return error;
}

/* Copies the part of sb at the uio's offset. */
static int
sbuf_uiomove(struct sbuf *sb, struct uio *uio)
{
	if (uio->uio_offset < 0)
		return -EINVAL;
	if ((uint64_t)uio->uio_offset >= sb->sb_len)
		return 0;
	size_t off = (size_t)uio->uio_offset;
	return uiomove(sb->sb_buf + off, MIN(sb->sb_len - off, uio->uio_resid),
	    uio);
}

/* Reads without an open file (exec): a snapshot made for this read. */
static int
procfs_read(struct vnode *vp, struct uio *uio)
{
	struct sbuf sb;
	int error = procfs_generate(vp, &sb);
	if (error == 0) {
		error = sbuf_uiomove(&sb, uio);
		sbuf_free(&sb);
	}
	return error;
}

static int
pfile_read(struct file *fp, struct uio *uio)
{
	return sbuf_uiomove(fp->f_data, uio);
}

static int
pfile_write(struct file *fp, struct uio *uio)
{
	(void)fp, (void)uio;
	return -EBADF;		/* opened read-only, always */
}

static int
pfile_poll(struct file *fp, int events, struct pollwaiter *pw)
{
	(void)fp, (void)pw;
	return events & (POLLIN | POLLOUT | POLLRDNORM | POLLWRNORM);
}

static int
pfile_stat(struct file *fp, struct linux_stat *st)
{
	vn_stat(fp->f_vnode, st);
	return 0;
}

static int64_t
pfile_lseek(struct file *fp, int64_t off, int whence)
{
	struct sbuf *sb = fp->f_data;
	int64_t base;

	switch (whence) {
	case SEEK_SET:	base = 0; break;
	case SEEK_CUR:	base = fp->f_offset; break;
	case SEEK_END:	base = (int64_t)sb->sb_len; break;
	default:	return -EINVAL;
	}
	if ((off > 0 && base > INT64_MAX - off) || base + off < 0)
		return -EINVAL;
	fp->f_offset = base + off;
	return fp->f_offset;
}

static void
pfile_close(struct file *fp)
{
	sbuf_free(fp->f_data);
	kfree(fp->f_data);
	vrele(fp->f_vnode);
}

static const struct fileops procfs_fileops = {
	.fo_read = pfile_read,
	.fo_write = pfile_write,
	.fo_poll = pfile_poll,
	.fo_stat = pfile_stat,
	.fo_lseek = pfile_lseek,
	.fo_close = pfile_close,
};

static int
procfs_open(struct vnode *vp, struct file *fp)
{
	if (vp->v_type != VREG)
		return 0;
	if (VTOPN(vp)->pn_type == PFS_KMSG)
		return kmsg_proc_open(fp);
	if (FWRITE(fp))
		return -EACCES;		/* nothing here takes writes */
	struct sbuf *sb = kmalloc(sizeof(*sb), 0);
	if (sb == NULL)
		return -ENOMEM;
	int error = procfs_generate(vp, sb);
	if (error < 0) {
		kfree(sb);
		return error;
	}
	fp->f_data = sb;
	fp->f_ops = &procfs_fileops;
	return 0;
}

static int
procfs_create(struct vnode *dvp, const char *name, const struct vattr *va,
    struct vnode **vpp)
{
	(void)dvp, (void)name, (void)va, (void)vpp;
	return -EACCES;
}

static int
procfs_symlink(struct vnode *dvp, const char *name, const struct vattr *va,
    const char *target, struct vnode **vpp)
{
	(void)target;
	return procfs_create(dvp, name, va, vpp);
}

static int
procfs_link(struct vnode *dvp, const char *name, struct vnode *vp)
{
	(void)dvp, (void)name, (void)vp;
	return -EACCES;
}

static int
procfs_rename(struct vnode *fdvp, const char *fname, struct vnode *fvp,
    struct vnode *tdvp, const char *tname, struct vnode *tvp)
{
	(void)fdvp, (void)fname, (void)fvp, (void)tdvp, (void)tname, (void)tvp;
	return -EACCES;
}

static int
procfs_write(struct vnode *vp, struct uio *uio)
{
	(void)vp, (void)uio;
	return -EACCES;
}

static int
procfs_setattr(struct vnode *vp, const struct vattr *va)
{
	(void)vp, (void)va;
	return -EPERM;
}

static void
procfs_inactive(struct vnode *vp)
{
	if (!(vp->v_flags & VROOT))
		procfs_node_free(vp);
}

const struct vnops procfs_vnops = {
	.vop_lookup = procfs_lookup,
	.vop_create = procfs_create,
	.vop_mkdir = procfs_create,
	.vop_symlink = procfs_symlink,
	.vop_readlink = procfs_readlink,
	.vop_linkfile = procfs_linkfile,
	.vop_link = procfs_link,
	.vop_unlink = procfs_link,
	.vop_rmdir = procfs_link,
	.vop_rename = procfs_rename,
	.vop_read = procfs_read,
	.vop_write = procfs_write,
	.vop_setattr = procfs_setattr,
	.vop_readdir = procfs_readdir,
	.vop_inactive = procfs_inactive,
	.vop_open = procfs_open,
};
