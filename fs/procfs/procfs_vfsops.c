/*
 * procfs mounts: the root directory and statfs.  Every other node is
 * freed at its last vrele, so at unmount only the root is left.
 */
#include "fs/procfs/procfs.h"

static int
procfs_mount(struct mount *mp, const void *data)
{
	(void)data;
	return procfs_node_alloc(mp, NULL, PFS_ROOT, 0, 0, &mp->mnt_root);
}

static void
procfs_unmount(struct mount *mp)
{
	struct vnode *root = mp->mnt_root;

	KASSERT(TAILQ_FIRST(&mp->mnt_vnodes) == root &&
	    TAILQ_NEXT(root, v_mntlist) == NULL, "procfs_unmount: busy vnode");
	root->v_usecount = 0;
	procfs_node_free(root);
}

static void
procfs_statfs(struct mount *mp, struct statfs_info *sf)
{
	(void)mp;
	memset(sf, 0, sizeof(*sf));
	sf->f_type = PROCFS_MAGIC;
	sf->f_bsize = PAGE_SIZE;
	sf->f_namelen = NAME_MAX;
}

const struct vfsops procfs_vfsops = {
	.vfs_name = "proc",
	.vfs_flags = VFCF_SYNTHETIC,
	.vfs_mount = procfs_mount,
	.vfs_unmount = procfs_unmount,
	.vfs_statfs = procfs_statfs,
};
