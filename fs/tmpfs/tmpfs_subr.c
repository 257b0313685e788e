/*
 * tmpfs nodes, directory entries and file pages (see tmpfs.h).
 */
#include "fs/tmpfs/tmpfs.h"
#include "kern/kmem.h"

#define BOGO_DIRENT_SIZE 20	/* a directory's size per entry, as Linux */

int
tmpfs_node_alloc(struct mount *mp, const struct vattr *va, struct vnode *dvp,
    const char *link, struct vnode **vpp)
{
	struct tmpfs_mount *tm = VFSTOTM(mp);
	struct tmpfs_node *tn = kmalloc(sizeof(*tn), KM_ZERO);
	if (tn == NULL)
		return -ENOMEM;
	struct vnode *vp = vnode_alloc(mp, va->va_type, &tmpfs_vnops);
	if (vp == NULL) {
		kfree(tn);
		return -ENOMEM;
	}
	vp->v_data = tn;
	switch (va->va_type) {
	case VDIR:
		TAILQ_INIT(&tn->tn_dirents);
		tn->tn_nextcookie = TMPFS_COOKIE_FIRST;
		tn->tn_parent = dvp != NULL ? dvp : vp;
		vp->v_size = 2 * BOGO_DIRENT_SIZE;
		break;
	case VLNK: {
		size_t len = strlen(link);
		tn->tn_link = kmalloc(len + 1, 0);
		if (tn->tn_link == NULL) {
			vp->v_usecount = 0;
			vnode_free(vp);
			kfree(tn);
			return -ENOMEM;
		}
		memcpy(tn->tn_link, link, len + 1);
		vp->v_size = len;
		break;
	}
	case VREG:
		tn->tn_seals = F_SEAL_SEAL;	/* a memfd may allow sealing */
		if (tmpfs_obj_alloc(vp) < 0) {
			vp->v_usecount = 0;
			vnode_free(vp);
			kfree(tn);
			return -ENOMEM;
		}
		break;
	case VCHR:
	case VBLK:
		vp->v_rdev = va->va_rdev;
		break;
	default:
		break;
	}
	vp->v_mode = va->va_mode & ~S_IFMT;
	vp->v_uid = va->va_uid;
	vp->v_gid = va->va_gid;
	vfs_timestamp(&vp->v_atime);
	vp->v_mtime = vp->v_ctime = vp->v_atime;
	tm->tm_nodes++;
	*vpp = vp;
	return 0;
}

void
tmpfs_node_free(struct vnode *vp)
{
	struct tmpfs_node *tn = VTOTN(vp);
	struct tmpfs_dirent *de, *tmp;

	switch (vp->v_type) {
	case VDIR:
		/* Only at unmount can a directory still have entries. */
		TAILQ_FOREACH_SAFE(de, &tn->tn_dirents, td_link, tmp)
			kfree(de);
		if (tn->tn_dead)
			vrele(tn->tn_parent);
		break;
	case VREG:
		tmpfs_obj_free(vp);
		kfree(tn->tn_memfd);
		break;
	case VLNK:
		kfree(tn->tn_link);
		break;
	default:
		break;
	}
	VFSTOTM(vp->v_mount)->tm_nodes--;
	kfree(tn);
	vnode_free(vp);
}

struct tmpfs_dirent *
tmpfs_dir_lookup(struct vnode *dvp, const char *name)
{
	struct tmpfs_dirent *de;
	size_t len = strlen(name);

	TAILQ_FOREACH(de, &VTOTN(dvp)->tn_dirents, td_link)
		if (de->td_namelen == len && memcmp(de->td_name, name, len) == 0)
			return de;
	return NULL;
}

struct tmpfs_dirent *
tmpfs_dirent_alloc(const char *name, struct vnode *vp)
{
	size_t len = strlen(name);
	KASSERT(len > 0 && len <= NAME_MAX, "tmpfs_dirent_alloc: bad name");
	struct tmpfs_dirent *de = kmalloc(sizeof(*de) + len + 1, 0);
	if (de == NULL)
		return NULL;
	de->td_vnode = vp;
	de->td_namelen = (uint16_t)len;
	memcpy(de->td_name, name, len + 1);
	return de;
}

void
tmpfs_dir_attach(struct vnode *dvp, struct tmpfs_dirent *de)
{
	struct tmpfs_node *dn = VTOTN(dvp);

	de->td_cookie = dn->tn_nextcookie++;
	TAILQ_INSERT_TAIL(&dn->tn_dirents, de, td_link);
	dvp->v_size += BOGO_DIRENT_SIZE;
	vfs_timestamp(&dvp->v_mtime);
	dvp->v_ctime = dvp->v_mtime;
}

void
tmpfs_dir_detach(struct vnode *dvp, struct tmpfs_dirent *de)
{
	TAILQ_REMOVE(&VTOTN(dvp)->tn_dirents, de, td_link);
	kfree(de);
	dvp->v_size -= BOGO_DIRENT_SIZE;
	vfs_timestamp(&dvp->v_mtime);
	dvp->v_ctime = dvp->v_mtime;
}
