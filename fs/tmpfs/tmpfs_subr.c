/*
 * tmpfs nodes, directory entries and file pages (see tmpfs.h).
 */
#include "fs/tmpfs/tmpfs.h"
#include "vm/kmem.h"

#define BOGO_DIRENT_SIZE 20	/* a directory's size per entry, as Linux */
#define RADIX_ENTRIES	(1u << TMPFS_RADIX_SHIFT)
#define RADIX_MASK	(RADIX_ENTRIES - 1)

/* Takes a page from RAM within the mount's budget: its physical address. */
static uint64_t
tmpfs_page_alloc(struct tmpfs_mount *tm)
{
	if (tm->tm_pages_used >= tm->tm_pages_max)
		return 0;
	struct vm_page *m = vm_page_alloc(0, VM_ALLOC_ZERO);
	if (m == NULL)
		return 0;
	tm->tm_pages_used++;
	return VM_PAGE_TO_PHYS(m);
}

static void
tmpfs_page_free(struct tmpfs_mount *tm, uint64_t pa)
{
	vm_page_free(PHYS_TO_VM_PAGE(pa), 0);
	tm->tm_pages_used--;
}

static void tmpfs_free_pages(struct vnode *vp, uint64_t from);

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
		tmpfs_free_pages(vp, 0);
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

static uint64_t *
radix_table(uint64_t pa)
{
	return PHYS_TO_DMAP(pa);
}

int
tmpfs_getpage(struct vnode *vp, uint64_t pindex, bool alloc, uint64_t *pap)
{
	struct tmpfs_node *tn = VTOTN(vp);
	struct tmpfs_mount *tm = VFSTOTM(vp->v_mount);

	*pap = 0;
	if (pindex >= TMPFS_MAXFILESIZE / PAGE_SIZE)
		return -EFBIG;
	/*
	 * Grow the tree until it reaches pindex.  Height 0 is a file of one
	 * page, which tn_radix holds itself: small files need no table.
	 */
	while ((pindex >> (TMPFS_RADIX_SHIFT * tn->tn_height)) != 0) {
		if (!alloc)
			return 0;
		uint64_t top = 0;
		if (tn->tn_radix != 0) {
			if ((top = tmpfs_page_alloc(tm)) == 0)
				return -ENOSPC;
			radix_table(top)[0] = tn->tn_radix;
		}
		tn->tn_radix = top;
		tn->tn_height++;
	}
	uint64_t *slot = &tn->tn_radix;
	for (int level = tn->tn_height; level > 0; level--) {
		if (*slot == 0) {
			if (!alloc)
				return 0;
			if ((*slot = tmpfs_page_alloc(tm)) == 0)
				return -ENOSPC;
		}
		unsigned idx = (pindex >> (TMPFS_RADIX_SHIFT * (level - 1))) &
		    RADIX_MASK;
		slot = &radix_table(*slot)[idx];
	}
	if (*slot == 0 && alloc) {
		if ((*slot = tmpfs_page_alloc(tm)) == 0)
			return -ENOSPC;
		vp->v_blocks += PAGE_SIZE / 512;
	}
	*pap = *slot;
	return 0;
}

/*
 * Frees the pages at and above index from of the subtree at *slot, which
 * covers 512^level pages from base; frees the table itself if it empties.
 */
static void
radix_trunc(struct vnode *vp, uint64_t *slot, int level, uint64_t base,
    uint64_t from)
{
	struct tmpfs_mount *tm = VFSTOTM(vp->v_mount);

	if (*slot == 0)
		return;
	if (level == 0) {
		if (base >= from) {
			tmpfs_page_free(tm, *slot);
			*slot = 0;
			vp->v_blocks -= PAGE_SIZE / 512;
		}
		return;
	}
	uint64_t *t = radix_table(*slot);
	uint64_t span = 1ULL << (TMPFS_RADIX_SHIFT * (level - 1));
	bool empty = true;
	for (unsigned i = 0; i < RADIX_ENTRIES; i++) {
		uint64_t b = base + i * span;
		if (b + span > from)
			radix_trunc(vp, &t[i], level - 1, b, from);
		if (t[i] != 0)
			empty = false;
	}
	if (empty) {
		tmpfs_page_free(tm, *slot);
		*slot = 0;
	}
}

/* Frees the pages of regular file vp at and above index from. */
static void
tmpfs_free_pages(struct vnode *vp, uint64_t from)
{
	struct tmpfs_node *tn = VTOTN(vp);

	radix_trunc(vp, &tn->tn_radix, tn->tn_height, 0, from);
	if (tn->tn_radix == 0)
		tn->tn_height = 0;
}

int
tmpfs_truncate(struct vnode *vp, uint64_t size)
{
	if (size > TMPFS_MAXFILESIZE)
		return -EFBIG;
	if (size < vp->v_size) {
		tmpfs_free_pages(vp, howmany(size, PAGE_SIZE));
		/* Zero the tail so that growing the file again shows zeros. */
		uint64_t pa;
		if ((size & PAGE_MASK) != 0 &&
		    tmpfs_getpage(vp, size / PAGE_SIZE, false, &pa) == 0 &&
		    pa != 0)
			memset((char *)PHYS_TO_DMAP(pa) + (size & PAGE_MASK), 0,
			    PAGE_SIZE - (size & PAGE_MASK));
	}
	vp->v_size = size;
	return 0;
}
