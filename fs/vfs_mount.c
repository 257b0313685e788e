/*
 * The mount table.  A mount covers a directory vnode (v_mountedhere);
 * lookup crosses from the covered vnode to the mount's root going down and
 * back going up through "..".  The mount holds a reference on the vnode it
 * covers and on its own root.
 */
#include "fs/ext2/ext2_mount.h"
#include "fs/stat.h"
#include "fs/tmpfs/tmpfs.h"
#include "fs/vfs.h"
#include "vm/kmem.h"

struct mountlist mountlist = TAILQ_HEAD_INITIALIZER(mountlist);
struct vnode *rootvnode;

static const struct vfsops *const vfs_list[] = {
	&tmpfs_vfsops,
	&ext2_vfsops,
};

static uint32_t next_anon_minor = 1;

dev_t
vfs_anondev(void)
{
	/* Anonymous device numbers, as Linux gives tmpfs and pipes (0:N). */
	return linux_makedev(0, next_anon_minor++);
}

const struct vfsops *
vfs_byname(const char *name)
{
	for (size_t i = 0; i < nitems(vfs_list); i++)
		if (strcmp(vfs_list[i]->vfs_name, name) == 0)
			return vfs_list[i];
	return NULL;
}

int
vfs_mount(const struct vfsops *ops, struct vnode *covered, const void *data,
    struct mount **mpp)
{
	if (covered == NULL ? rootvnode != NULL : covered->v_mountedhere != NULL)
		return -EBUSY;
	if (covered != NULL && covered->v_type != VDIR)
		return -ENOTDIR;

	struct mount *mp = kmalloc(sizeof(*mp), KM_ZERO);
	if (mp == NULL)
		return -ENOMEM;
	mp->mnt_op = ops;
	mp->mnt_dev = vfs_anondev();
	TAILQ_INIT(&mp->mnt_vnodes);
	int error = ops->vfs_mount(mp, data);
	if (error < 0) {
		kfree(mp);
		return error;
	}
	mp->mnt_root->v_flags |= VROOT;
	if (covered != NULL) {
		mp->mnt_covered = vref(covered);
		covered->v_mountedhere = mp;
	} else {
		rootvnode = vref(mp->mnt_root);
	}
	TAILQ_INSERT_TAIL(&mountlist, mp, mnt_list);
	*mpp = mp;
	return 0;
}

int
vfs_unmount(struct mount *mp)
{
	struct vnode *vp;
	/* The mount's own reference on its root, and rootvnode's. */
	int rootrefs = mp->mnt_covered == NULL ? 2 : 1;

	TAILQ_FOREACH(vp, &mp->mnt_vnodes, v_mntlist) {
		if (vp->v_mountedhere != NULL)
			return -EBUSY;
		if (vp->v_usecount > (vp == mp->mnt_root ? rootrefs : 0))
			return -EBUSY;
	}
	TAILQ_REMOVE(&mountlist, mp, mnt_list);
	if (mp->mnt_covered != NULL) {
		mp->mnt_covered->v_mountedhere = NULL;
		vrele(mp->mnt_covered);
	} else {
		rootvnode->v_usecount--;
		rootvnode = NULL;
	}
	mp->mnt_op->vfs_unmount(mp);
	kfree(mp);
	return 0;
}

int
vfs_mountroot(const char *disk)
{
	struct mount *mp;

	if (disk == NULL)
		return vfs_mount(&tmpfs_vfsops, NULL, NULL, &mp);
	struct ext2_args args = { .ea_disk = disk };
	int error = vfs_mount(&ext2_vfsops, NULL, &args, &mp);
	if (error == 0)
		kprintf("root: ext2 on %s\n", disk);
	return error;
}
