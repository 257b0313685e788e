/*
 * tmpfs mounts: the root directory, the page budget, statfs, and freeing
 * everything at unmount.
 */
#include "fs/tmpfs/tmpfs.h"
#include "vm/kmem.h"

static int
tmpfs_mount(struct mount *mp, const void *data)
{
	const struct tmpfs_args *args = data;
	struct tmpfs_mount *tm = kmalloc(sizeof(*tm), KM_ZERO);
	if (tm == NULL)
		return -ENOMEM;
	tm->tm_pages_max = vmstats.v_page_count / 2;
	if (args != NULL && args->ta_size != 0)
		tm->tm_pages_max = howmany(args->ta_size, PAGE_SIZE);
	mp->mnt_data = tm;

	struct vattr va = {
		.va_type = VDIR,
		.va_mode = args != NULL && args->ta_mode != 0 ?
		    args->ta_mode : 01777,
	};
	struct vnode *root;
	int error = tmpfs_node_alloc(mp, &va, NULL, NULL, &root);
	if (error < 0) {
		kfree(tm);
		return error;
	}
	root->v_nlink = 2;
	mp->mnt_root = root;
	return 0;
}

static void
tmpfs_unmount(struct mount *mp)
{
	struct vnode *vp;

	mp->mnt_root->v_usecount = 0;
	while ((vp = TAILQ_FIRST(&mp->mnt_vnodes)) != NULL) {
		KASSERT(vp->v_usecount == 0, "tmpfs_unmount: busy vnode");
		tmpfs_node_free(vp);
	}
	KASSERT(VFSTOTM(mp)->tm_pages_used == 0, "tmpfs_unmount: pages leak");
	kfree(mp->mnt_data);
}

static void
tmpfs_statfs(struct mount *mp, struct statfs_info *sf)
{
	struct tmpfs_mount *tm = VFSTOTM(mp);

	memset(sf, 0, sizeof(*sf));
	sf->f_type = TMPFS_MAGIC;
	sf->f_bsize = PAGE_SIZE;
	sf->f_blocks = tm->tm_pages_max;
	sf->f_bfree = sf->f_bavail = tm->tm_pages_max - tm->tm_pages_used;
	/* Nodes cost memory, not a table: allow one per page, as Linux. */
	sf->f_files = tm->tm_pages_max;
	sf->f_ffree = tm->tm_pages_max > tm->tm_nodes ?
	    tm->tm_pages_max - tm->tm_nodes : 0;
	sf->f_namelen = NAME_MAX;
}

const struct vfsops tmpfs_vfsops = {
	.vfs_name = "tmpfs",
	.vfs_mount = tmpfs_mount,
	.vfs_unmount = tmpfs_unmount,
	.vfs_statfs = tmpfs_statfs,
};
