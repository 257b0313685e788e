/*
 * tmpfs vnode operations (see vnode.h for each one's contract).
 */
#include "fs/tmpfs/tmpfs.h"
#include "kern/uio.h"
#include "kern/kmem.h"

/* A page of zeros: what a hole reads as.  Only ever read. */
static char zero_page[PAGE_SIZE];

static void
touch_ctime(struct vnode *vp)
{
	vfs_timestamp(&vp->v_ctime);
}

/*
 * Directory vp lost its name.  Its ".." still leads to the directory it
 * was in, as a Linux dentry keeps its parent (chdir("..") from a removed
 * working directory works): it holds that parent until it is freed.
 */
static void
tmpfs_dir_dead(struct vnode *vp)
{
	struct tmpfs_node *tn = VTOTN(vp);
	vp->v_nlink = 0;
	if (!tn->tn_dead && tn->tn_parent != NULL) {
		vref(tn->tn_parent);
		tn->tn_dead = true;
	}
	touch_ctime(vp);
}

static int
tmpfs_lookup(struct vnode *dvp, const char *name, struct vnode **vpp)
{
	if (strcmp(name, ".") == 0) {
		*vpp = vref(dvp);
		return 0;
	}
	if (strcmp(name, "..") == 0) {
		*vpp = vref(VTOTN(dvp)->tn_parent);
		return 0;
	}
	struct tmpfs_dirent *de = tmpfs_dir_lookup(dvp, name);
	if (de == NULL)
		return -ENOENT;
	*vpp = vref(de->td_vnode);
	return 0;
}

/* Makes a node of va's type and names it name in dvp. */
static int
tmpfs_new(struct vnode *dvp, const char *name, const struct vattr *va,
    const char *link, struct vnode **vpp)
{
	struct vnode *vp;
	int error = tmpfs_node_alloc(dvp->v_mount, va, dvp, link, &vp);
	if (error < 0)
		return error;
	struct tmpfs_dirent *de = tmpfs_dirent_alloc(name, vp);
	if (de == NULL) {
		vp->v_usecount = 0;
		tmpfs_node_free(vp);
		return -ENOMEM;
	}
	tmpfs_dir_attach(dvp, de);
	vp->v_nlink = 1;
	if (vp->v_type == VDIR) {
		vp->v_nlink = 2;	/* its entry and its "." */
		dvp->v_nlink++;		/* its ".." */
	}
	*vpp = vp;
	return 0;
}

static int
tmpfs_create(struct vnode *dvp, const char *name, const struct vattr *va,
    struct vnode **vpp)
{
	KASSERT(va->va_type != VDIR && va->va_type != VLNK,
	    "tmpfs_create: type");
	return tmpfs_new(dvp, name, va, NULL, vpp);
}

static int
tmpfs_mkdir(struct vnode *dvp, const char *name, const struct vattr *va,
    struct vnode **vpp)
{
	KASSERT(va->va_type == VDIR, "tmpfs_mkdir: type");
	return tmpfs_new(dvp, name, va, NULL, vpp);
}

static int
tmpfs_symlink(struct vnode *dvp, const char *name, const struct vattr *va,
    const char *target, struct vnode **vpp)
{
	KASSERT(va->va_type == VLNK, "tmpfs_symlink: type");
	return tmpfs_new(dvp, name, va, target, vpp);
}

static int
tmpfs_readlink(struct vnode *vp, struct uio *uio)
{
	return uiomove(VTOTN(vp)->tn_link, MIN(vp->v_size, uio->uio_resid),
	    uio);
}

static int
tmpfs_link(struct vnode *dvp, const char *name, struct vnode *vp)
{
	struct tmpfs_dirent *de = tmpfs_dirent_alloc(name, vp);
	if (de == NULL)
		return -ENOMEM;
	tmpfs_dir_attach(dvp, de);
	vp->v_nlink++;
	touch_ctime(vp);
	return 0;
}

static int
tmpfs_unlink(struct vnode *dvp, const char *name, struct vnode *vp)
{
	struct tmpfs_dirent *de = tmpfs_dir_lookup(dvp, name);
	KASSERT(de != NULL && de->td_vnode == vp, "tmpfs_unlink: no entry");
	tmpfs_dir_detach(dvp, de);
	vp->v_nlink--;
	touch_ctime(vp);
	return 0;
}

static int
tmpfs_rmdir(struct vnode *dvp, const char *name, struct vnode *vp)
{
	struct tmpfs_dirent *de = tmpfs_dir_lookup(dvp, name);
	KASSERT(de != NULL && de->td_vnode == vp, "tmpfs_rmdir: no entry");
	if (!TAILQ_EMPTY(&VTOTN(vp)->tn_dirents))
		return -ENOTEMPTY;
	tmpfs_dir_detach(dvp, de);
	tmpfs_dir_dead(vp);
	dvp->v_nlink--;
	return 0;
}

static int
tmpfs_rename(struct vnode *fdvp, const char *fname, struct vnode *fvp,
    struct vnode *tdvp, const char *tname, struct vnode *tvp)
{
	struct tmpfs_dirent *fde = tmpfs_dir_lookup(fdvp, fname);
	KASSERT(fde != NULL && fde->td_vnode == fvp, "tmpfs_rename: source");
	if (tvp != NULL && tvp->v_type == VDIR &&
	    !TAILQ_EMPTY(&VTOTN(tvp)->tn_dirents))
		return -ENOTEMPTY;
	/* The only allocation first, so that failing changes nothing. */
	struct tmpfs_dirent *nde = tmpfs_dirent_alloc(tname, fvp);
	if (nde == NULL)
		return -ENOMEM;

	if (tvp != NULL) {
		struct tmpfs_dirent *tde = tmpfs_dir_lookup(tdvp, tname);
		KASSERT(tde != NULL && tde->td_vnode == tvp,
		    "tmpfs_rename: target");
		tmpfs_dir_detach(tdvp, tde);
		if (tvp->v_type == VDIR) {
			tmpfs_dir_dead(tvp);
			tdvp->v_nlink--;
		} else {
			tvp->v_nlink--;
			touch_ctime(tvp);
		}
	}
	tmpfs_dir_detach(fdvp, fde);
	tmpfs_dir_attach(tdvp, nde);
	if (fvp->v_type == VDIR && fdvp != tdvp) {
		VTOTN(fvp)->tn_parent = tdvp;
		fdvp->v_nlink--;
		tdvp->v_nlink++;
	}
	touch_ctime(fvp);
	return 0;
}

static int
tmpfs_read(struct vnode *vp, struct uio *uio)
{
	int error = 0;

	if (uio->uio_offset < 0)
		return -EINVAL;
	tmpfs_lock(vp);
	while (uio->uio_resid > 0 && (uint64_t)uio->uio_offset < vp->v_size) {
		uint64_t off = (uint64_t)uio->uio_offset;
		uint64_t poff = off & PAGE_MASK;
		size_t n = MIN(MIN(PAGE_SIZE - poff, uio->uio_resid),
		    vp->v_size - off);
		struct vm_page *m;
		tmpfs_getpage(vp, off / PAGE_SIZE, false, &m);
		char *src = m != NULL ? (char *)VM_PAGE_TO_DMAP(m) + poff :
		    zero_page;
		if ((error = uiomove(src, n, uio)) < 0)
			break;
	}
	tmpfs_unlock(vp);
	vfs_timestamp(&vp->v_atime);
	return error;
}

static int
tmpfs_write(struct vnode *vp, struct uio *uio)
{
	uint64_t resid0 = uio->uio_resid;
	int error = 0;

	if (uio->uio_offset < 0)
		return -EINVAL;
	if ((uint64_t)uio->uio_offset >= TMPFS_MAXFILESIZE)
		return -EFBIG;
	int seals = VTOTN(vp)->tn_seals;
	if (seals & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
		return -EPERM;
	tmpfs_lock(vp);
	while (uio->uio_resid > 0) {
		uint64_t off = (uint64_t)uio->uio_offset;
		uint64_t poff = off & PAGE_MASK;
		size_t n = MIN(PAGE_SIZE - poff, uio->uio_resid);
		/* As Linux's shmem_write_begin: page by page. */
		if ((seals & F_SEAL_GROW) && off + n > vp->v_size) {
			error = -EPERM;
			break;
		}
		struct vm_page *m;
		if ((error = tmpfs_getpage(vp, off / PAGE_SIZE, true, &m)) < 0)
			break;
		error = uiomove((char *)VM_PAGE_TO_DMAP(m) + poff, n, uio);
		if ((uint64_t)uio->uio_offset > vp->v_size)
			vp->v_size = (uint64_t)uio->uio_offset;
		if (error < 0)
			break;
	}
	tmpfs_unlock(vp);
	if (uio->uio_resid != resid0) {
		vfs_timestamp(&vp->v_mtime);
		vp->v_ctime = vp->v_mtime;
	}
	return error;
}

/*
 * fallocate: the pages of [off, off + len) are allocated (zeroed, as a
 * hole reads).  Pages allocated before an -ENOSPC stay, counted in
 * st_blocks (Linux gives them back).
 */
static int
tmpfs_allocate(struct vnode *vp, uint64_t off, uint64_t len, bool keepsize)
{
	uint64_t end = off + len;
	struct vm_page *m;
	int error = 0;

	if (end > TMPFS_MAXFILESIZE)
		return -EFBIG;
	if ((VTOTN(vp)->tn_seals & F_SEAL_GROW) && end > vp->v_size)
		return -EPERM;
	tmpfs_lock(vp);
	for (uint64_t i = off / PAGE_SIZE; i < howmany(end, PAGE_SIZE); i++)
		if ((error = tmpfs_getpage(vp, i, true, &m)) < 0)
			break;
	tmpfs_unlock(vp);
	if (error < 0)
		return error;
	if (!keepsize && end > vp->v_size) {
		vp->v_size = end;
		vfs_timestamp(&vp->v_mtime);
	}
	touch_ctime(vp);
	return 0;
}

/*
 * fallocate's hole punching, as Linux's shmem: the whole pages of
 * [off, off + len) leave the file, its mappings and the mount's budget;
 * the parts of pages at either end are zeroed.  A file sealed against
 * writes refuses (-EPERM).
 */
static int
tmpfs_punch(struct vnode *vp, uint64_t off, uint64_t len)
{
	if (tmpfs_seals(vp) & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE))
		return -EPERM;
	uint64_t end = MIN(off + len, vp->v_size);
	if (off >= end)
		return 0;
	tmpfs_lock(vp);
	uint64_t first = howmany(off, PAGE_SIZE), last = end / PAGE_SIZE;
	for (uint64_t at = off; at < end; ) {
		uint64_t pend = MIN(end, (at / PAGE_SIZE + 1) * PAGE_SIZE);
		bool whole = at % PAGE_SIZE == 0 && pend % PAGE_SIZE == 0;
		struct vm_page *m;
		if (!whole && tmpfs_getpage(vp, at / PAGE_SIZE, false, &m) == 0 &&
		    m != NULL)
			memset((char *)VM_PAGE_TO_DMAP(m) + at % PAGE_SIZE, 0,
			    pend - at);
		at = pend;
	}
	if (first < last)
		tmpfs_punch_pages(vp, first, last);
	tmpfs_unlock(vp);
	vfs_timestamp(&vp->v_mtime);
	touch_ctime(vp);
	return 0;
}

static int
tmpfs_setattr(struct vnode *vp, const struct vattr *va)
{
	int seals = tmpfs_seals(vp);
	if ((va->va_mask & VA_MODE) && (seals & F_SEAL_EXEC) &&
	    ((va->va_mode ^ vp->v_mode) & 0111))
		return -EPERM;
	if (va->va_mask & VA_SIZE) {
		KASSERT(vp->v_type == VREG, "tmpfs_setattr: size of a non-file");
		if ((va->va_size < vp->v_size && (seals & F_SEAL_SHRINK)) ||
		    (va->va_size > vp->v_size && (seals & F_SEAL_GROW)))
			return -EPERM;
		tmpfs_lock(vp);
		int error = tmpfs_truncate(vp, va->va_size);
		tmpfs_unlock(vp);
		if (error < 0)
			return error;
	}
	if (va->va_mask & VA_MODE)
		vp->v_mode = va->va_mode & ~S_IFMT;
	if (va->va_mask & VA_UID)
		vp->v_uid = va->va_uid;
	if (va->va_mask & VA_GID)
		vp->v_gid = va->va_gid;
	if (va->va_mask & VA_ATIME)
		vp->v_atime = va->va_atime;
	if (va->va_mask & VA_MTIME)
		vp->v_mtime = va->va_mtime;
	if (va->va_mask & VA_CTIME)
		vp->v_ctime = va->va_ctime;
	else
		touch_ctime(vp);
	return 0;
}

static int
tmpfs_readdir(struct vnode *vp, struct uio *uio)
{
	struct tmpfs_node *tn = VTOTN(vp);
	int64_t off = uio->uio_offset;
	int error = 0, count = 0;

	if (off < 0)
		return -EINVAL;
	if (off == 0) {
		error = vfs_dirent_out(uio, vp->v_ino, 1, vtype_to_dt(VDIR), ".", 1);
		if (error != 0)
			goto out;
		off = 1, count++;
	}
	if (off == 1) {
		struct vnode *parent = tn->tn_parent != NULL ? tn->tn_parent : vp;
		error = vfs_dirent_out(uio, parent->v_ino, TMPFS_COOKIE_FIRST,
		    vtype_to_dt(VDIR), "..", 2);
		if (error != 0)
			goto out;
		off = TMPFS_COOKIE_FIRST, count++;
	}
	struct tmpfs_dirent *de;
	TAILQ_FOREACH(de, &tn->tn_dirents, td_link) {
		if (de->td_cookie < (uint64_t)off)
			continue;
		struct vnode *cvp = de->td_vnode;
		error = vfs_dirent_out(uio, cvp->v_ino, (int64_t)de->td_cookie + 1,
		    vtype_to_dt(cvp->v_type), de->td_name, de->td_namelen);
		if (error != 0)
			break;
		off = (int64_t)de->td_cookie + 1, count++;
	}
out:
	uio->uio_offset = off;
	vfs_timestamp(&vp->v_atime);
	if (error == 1)
		return count == 0 ? -EINVAL : 0;
	return count > 0 ? 0 : error;
}

static void
tmpfs_inactive(struct vnode *vp)
{
	if (vp->v_nlink == 0)
		tmpfs_node_free(vp);
}

const struct vnops tmpfs_vnops = {
	.vop_lookup = tmpfs_lookup,
	.vop_create = tmpfs_create,
	.vop_mkdir = tmpfs_mkdir,
	.vop_symlink = tmpfs_symlink,
	.vop_readlink = tmpfs_readlink,
	.vop_link = tmpfs_link,
	.vop_unlink = tmpfs_unlink,
	.vop_rmdir = tmpfs_rmdir,
	.vop_rename = tmpfs_rename,
	.vop_read = tmpfs_read,
	.vop_write = tmpfs_write,
	.vop_setattr = tmpfs_setattr,
	.vop_allocate = tmpfs_allocate,
	.vop_punch = tmpfs_punch,
	.vop_readdir = tmpfs_readdir,
	.vop_inactive = tmpfs_inactive,
};
