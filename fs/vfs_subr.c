/*
 * Vnode lifetime and small helpers shared by the VFS and file systems.
 */
#include <dirent.h>
#include <sys/stat.h>
#include <time.h>

#include "fs/cdev.h"
#include "fs/vfs.h"
#include "fs/vnode_pager.h"
#include "fs/buf.h"
#include "vm/vm_pageout.h"
#include "kern/thread.h"
#include "kern/uio.h"
#include "kern/kmem.h"

static uint64_t next_ino = 1;

uint64_t
vfs_newino(void)
{
	/* Inode numbers are unique machine-wide and never reused. */
	return next_ino++;
}

struct vnode *
vnode_alloc(struct mount *mp, enum vtype type, const struct vnops *ops)
{
	struct vnode *vp = kmalloc(sizeof(*vp), KM_ZERO);
	if (vp == NULL)
		return NULL;
	vp->v_type = type;
	vp->v_op = ops;
	vp->v_mount = mp;
	vp->v_usecount = 1;
	vp->v_ino = vfs_newino();
	TAILQ_INSERT_TAIL(&mp->mnt_vnodes, vp, v_mntlist);
	return vp;
}

void
vnode_free(struct vnode *vp)
{
	KASSERT(vp->v_usecount == 0, "vnode_free: still referenced");
	KASSERT(vp->v_mountedhere == NULL, "vnode_free: a mount point");
	KASSERT(vp->v_fifo == NULL, "vnode_free: an open fifo");
	TAILQ_REMOVE(&vp->v_mount->mnt_vnodes, vp, v_mntlist);
	vnode_pager_free(vp);
	kfree(vp);
}

struct vnode *
vref(struct vnode *vp)
{
	vp->v_usecount++;
	return vp;
}

void
vrele(struct vnode *vp)
{
	if (vp == NULL)
		return;
	KASSERT(vp->v_usecount > 0, "vrele: no reference");
	if (--vp->v_usecount == 0) {
		struct vnode *dotdot = vp->v_dotdot;
		vp->v_dotdot = NULL;
		vp->v_op->vop_inactive(vp);
		vrele(dotdot);
	}
}

void
vfs_timestamp(struct timespec *ts)
{
	nanotime(ts);
}

mode_t
vtype_to_ifmt(enum vtype t)
{
	switch (t) {
	case VREG:	return S_IFREG;
	case VDIR:	return S_IFDIR;
	case VLNK:	return S_IFLNK;
	case VCHR:	return S_IFCHR;
	case VBLK:	return S_IFBLK;
	case VFIFO:	return S_IFIFO;
	case VSOCK:	return S_IFSOCK;
	default:	return 0;
	}
}

enum vtype
ifmt_to_vtype(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:	return VREG;
	case S_IFDIR:	return VDIR;
	case S_IFLNK:	return VLNK;
	case S_IFCHR:	return VCHR;
	case S_IFBLK:	return VBLK;
	case S_IFIFO:	return VFIFO;
	case S_IFSOCK:	return VSOCK;
	default:	return VNON;
	}
}

uint8_t
vtype_to_dt(enum vtype t)
{
	switch (t) {
	case VREG:	return DT_REG;
	case VDIR:	return DT_DIR;
	case VLNK:	return DT_LNK;
	case VCHR:	return DT_CHR;
	case VBLK:	return DT_BLK;
	case VFIFO:	return DT_FIFO;
	case VSOCK:	return DT_SOCK;
	default:	return DT_UNKNOWN;
	}
}

void
vfs_init(void)
{
	dev_mem_init();
	bio_syncer_hook(vfs_writeback);
	vm_pageout_flusher(vfs_writeback);
}

int
vfs_dirent_out(struct uio *uio, uint64_t ino, int64_t next, uint8_t dtype,
    const char *name, size_t namelen)
{
	union {
		struct linux_dirent64 d;
		char buf[roundup2(sizeof(struct linux_dirent64) + NAME_MAX + 1, 8)];
	} rec;
	/* Linux's size: the name starts at byte 19, not after the padding. */
	size_t reclen = roundup2(offsetof(struct linux_dirent64, d_name) +
	    namelen + 1, 8);

	if (reclen > uio->uio_resid)
		return 1;
	memset(&rec, 0, reclen);
	rec.d.d_ino = ino;
	rec.d.d_off = next;
	rec.d.d_reclen = (uint16_t)reclen;
	rec.d.d_type = dtype;
	memcpy(rec.d.d_name, name, namelen);
	return uiomove(&rec, reclen, uio);
}
