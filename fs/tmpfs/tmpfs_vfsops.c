/*
 * tmpfs mounts: the root directory, the page budget, statfs, and freeing
 * everything at unmount.
 */
#include <stdlib.h>

#include "fs/tmpfs/tmpfs.h"
#include "kern/kmem.h"

/*
 * Linux's tmpfs options: size=N with a k, m or g suffix, or N% of RAM;
 * mode=OOOO.  0 or -EINVAL.
 */
static int
tmpfs_options(const char *options, uint64_t *pages, mode_t *mode)
{
	char val[32], *end;

	if (vfs_getopt(options, "size", val, sizeof(val)) == 0) {
		uint64_t n = strtoull(val, &end, 10);
		switch (*end) {
		case 'k': case 'K': n <<= 10; end++; break;
		case 'm': case 'M': n <<= 20; end++; break;
		case 'g': case 'G': n <<= 30; end++; break;
		case '%': n = vmstats.v_page_count * PAGE_SIZE / 100 * n; end++; break;
		}
		if (end == val || *end != '\0' || n == 0)
			return -EINVAL;
		*pages = howmany(n, PAGE_SIZE);
	}
	if (vfs_getopt(options, "mode", val, sizeof(val)) == 0) {
		unsigned long m = strtoul(val, &end, 8);
		if (end == val || *end != '\0' || m > 07777)
			return -EINVAL;
		*mode = (mode_t)m;
	}
	return 0;
}

static int
tmpfs_mount(struct mount *mp, const void *data)
{
	const struct mount_args *ma = data;
	uint64_t pages = vmstats.v_page_count / 2;
	mode_t mode = 01777;
	int error;

	if (ma != NULL && (error = tmpfs_options(ma->ma_options, &pages, &mode)) < 0)
		return error;
	struct tmpfs_mount *tm = kmalloc(sizeof(*tm), KM_ZERO);
	if (tm == NULL)
		return -ENOMEM;
	tm->tm_pages_max = pages;
	mp->mnt_data = tm;

	struct vattr va = { .va_type = VDIR, .va_mode = mode };
	struct vnode *root;
	error = tmpfs_node_alloc(mp, &va, NULL, NULL, &root);
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
