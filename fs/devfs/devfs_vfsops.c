/*
 * devfs mounts: a tmpfs filled with the devices' nodes (see devfs.h).
 */
#include "dev/disk.h"
#include "fs/cdev.h"
#include "fs/devfs/devfs.h"
#include "fs/tmpfs/tmpfs.h"

/* The links of every Linux /dev: the descriptors of whoever looks. */
static const struct {
	const char *name, *target;
} devfs_links[] = {
	{ "fd", "/proc/self/fd" },
	{ "stdin", "/proc/self/fd/0" },
	{ "stdout", "/proc/self/fd/1" },
	{ "stderr", "/proc/self/fd/2" },
};

static bool
is_devfs(const struct mount *mp)
{
	return mp->mnt_op == &devtmpfs_vfsops || mp->mnt_op == &devfs_vfsops;
}

/* Makes node name of va's type in dir unless it exists. */
static int
devfs_mknode(struct vnode *dir, const char *name, const struct vattr *va,
    const char *target)
{
	struct vnode *vp;
	int error = dir->v_op->vop_lookup(dir, name, &vp);
	if (error == 0) {
		vrele(vp);
		return 0;
	}
	if (error != -ENOENT)
		return error;
	switch (va->va_type) {
	case VDIR:
		error = dir->v_op->vop_mkdir(dir, name, va, &vp);
		break;
	case VLNK:
		error = dir->v_op->vop_symlink(dir, name, va, target, &vp);
		break;
	default:
		error = dir->v_op->vop_create(dir, name, va, &vp);
		break;
	}
	if (error == 0)
		vrele(vp);
	return error;
}

static int
devfs_mkdisk(struct vnode *dir, struct disk *dk)
{
	struct vattr va = { .va_type = VBLK, .va_mode = 0660,
	    .va_rdev = dk->d_dev };
	return devfs_mknode(dir, dk->d_name, &va, NULL);
}

static int
devfs_fill(struct vnode *root)
{
	int error = devfs_populate(root);
	for (size_t i = 0; error == 0 && i < nitems(devfs_links); i++) {
		struct vattr va = { .va_type = VLNK, .va_mode = 0777 };
		error = devfs_mknode(root, devfs_links[i].name, &va,
		    devfs_links[i].target);
	}
	if (error == 0) {
		struct vattr va = { .va_type = VDIR, .va_mode = 01777 };
		error = devfs_mknode(root, "shm", &va, NULL);
	}
	struct disk *dk;
	TAILQ_FOREACH(dk, &disklist, d_list) {
		if (error < 0)
			break;
		error = devfs_mkdisk(root, dk);
	}
	return error;
}

/*
 * Makes the block-device node <dk->d_name> (dk->d_dev, mode 0660) in
 * every mounted devfs (a later mount makes it from the list of disks).
 */
static void
devfs_disk_add(struct disk *dk)
{
	struct mount *mp;
	TAILQ_FOREACH(mp, &mountlist, mnt_list) {
		/* A full devfs misses the node; the disk is still mountable. */
		if (is_devfs(mp) && devfs_mkdisk(mp->mnt_root, dk) < 0)
			kprintf("devfs: no node for %s\n", dk->d_name);
	}
}

/* Removes disk dk's node from every mounted devfs. */
static void
devfs_disk_remove(struct disk *dk)
{
	struct mount *mp;
	TAILQ_FOREACH(mp, &mountlist, mnt_list) {
		struct vnode *dir = mp->mnt_root, *vp;
		if (!is_devfs(mp) || dir->v_op->vop_lookup(dir, dk->d_name, &vp) < 0)
			continue;
		/* Only the disk's own node: a file of that name stays. */
		if (vp->v_type == VBLK && vp->v_rdev == dk->d_dev)
			(void)dir->v_op->vop_unlink(dir, dk->d_name, vp);
		vrele(vp);
	}
}

static const struct disk_watcher devfs_disk_watcher = {
	.dw_add = devfs_disk_add,
	.dw_remove = devfs_disk_remove,
};

static int
devfs_mount(struct mount *mp, const void *data)
{
	const struct mount_args *ma = data;
	struct mount_args tma = {
		.ma_source = ma != NULL ? ma->ma_source : "devtmpfs",
		.ma_options = "mode=0755",
	};
	int error = tmpfs_vfsops.vfs_mount(mp, &tma);
	if (error < 0)
		return error;
	disk_watch(&devfs_disk_watcher);
	if ((error = devfs_fill(mp->mnt_root)) < 0)
		tmpfs_vfsops.vfs_unmount(mp);
	return error;
}

static void
devfs_unmount(struct mount *mp)
{
	tmpfs_vfsops.vfs_unmount(mp);
}

static void
devfs_statfs(struct mount *mp, struct statfs_info *sf)
{
	tmpfs_vfsops.vfs_statfs(mp, sf);
}

const struct vfsops devtmpfs_vfsops = {
	.vfs_name = "devtmpfs",
	.vfs_mount = devfs_mount,
	.vfs_unmount = devfs_unmount,
	.vfs_statfs = devfs_statfs,
};

const struct vfsops devfs_vfsops = {
	.vfs_name = "devfs",
	.vfs_mount = devfs_mount,
	.vfs_unmount = devfs_unmount,
	.vfs_statfs = devfs_statfs,
};
