/*
 * Writing file systems back: fsync, fdatasync, sync, syncfs, and the
 * unmount of everything at shutdown.  Memory file systems have no
 * vfs_sync and no vop_fsync: there is nothing to write.
 */
#include "fs/bdev.h"
#include "fs/buf.h"
#include "fs/namei.h"
#include "fs/vfs.h"
#include "kern/thread.h"

int
kern_fsync(struct fsproc *p, int fd, bool datasync)
{
	struct file *fp = fget(p, fd);
	if (fp == NULL)
		return -EBADF;
	int error = -EINVAL;
	if (fp->f_type == DTYPE_VNODE && fp->f_vnode->v_type == VBLK) {
		/* The disk's, not the node's. */
		error = bdev_fsync(fp);
	} else if (fp->f_type == DTYPE_VNODE) {
		struct vnode *vp = fp->f_vnode;
		error = vp->v_op->vop_fsync != NULL ?
		    vp->v_op->vop_fsync(vp, datasync) : 0;
	}
	fdrop(fp);
	return error;
}

/* Syncs mp, waiting; 0 or its error. */
static int
mount_sync(struct mount *mp)
{
	return mp->mnt_op->vfs_sync != NULL ? mp->mnt_op->vfs_sync(mp, true) : 0;
}

/* vfs_sync(mp, wait) of every mount. */
static void
sync_mounts(bool wait)
{
	struct mount *mp;

	/* A mount may go while another sleeps: count, then walk afresh. */
	int n = 0;
	TAILQ_FOREACH(mp, &mountlist, mnt_list)
		n++;
	for (int i = 0; i < n; i++) {
		int j = 0;
		TAILQ_FOREACH(mp, &mountlist, mnt_list)
			if (j++ == i)
				break;
		if (mp == NULL)
			break;
		if (mp->mnt_op->vfs_sync != NULL)
			(void)mp->mnt_op->vfs_sync(mp, wait);
	}
}

void
kern_sync(void)
{
	sync_mounts(true);
	/* And what programs wrote to the disks' block devices. */
	(void)bsync(NULL, 1);
}

void
vfs_writeback(void)
{
	sync_mounts(false);
}

int
kern_syncfs(struct fsproc *p, int fd)
{
	struct vnode *vp;
	int error = getvnode(p, fd, &vp);
	if (error < 0)
		return error;
	error = mount_sync(vp->v_mount);
	vrele(vp);
	return error;
}

/* Unmounts every mount it can; true if one went. */
static bool
unmount_some(void)
{
	struct mount *mp;

	TAILQ_FOREACH(mp, &mountlist, mnt_list)
		if (vfs_unmount(mp) == 0)
			return true;	/* the list changed: start again */
	return false;
}

static bool
disks_mounted(void)
{
	struct mount *mp;

	TAILQ_FOREACH(mp, &mountlist, mnt_list)
		if (mp->mnt_op->vfs_sync != NULL)
			return true;
	return false;
}

void
vfs_shutdown(void)
{
	static int chan;

	/*
	 * Processes killed on the way down close their files as they go;
	 * give them a moment, but only if a disk is still mounted.
	 */
	for (int tries = 0; tries < 100 && disks_mounted(); ) {
		if (unmount_some())
			continue;
		tsleep(&chan, 0, "shutdn", 20 * 1000 * 1000);
		tries++;
	}
	struct mount *mp;
	TAILQ_FOREACH(mp, &mountlist, mnt_list) {
		if (mp->mnt_op->vfs_sync == NULL)
			continue;
		kprintf("vfs: %s still busy at shutdown: synced, not unmounted\n",
		    mp->mnt_op->vfs_name);
		(void)mount_sync(mp);
	}
}
