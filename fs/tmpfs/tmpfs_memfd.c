/*
 * memfd_create and file seals.
 *
 * A memfd (sys/sys_memfd.c) is a regular file of the kernel's own tmpfs
 * mount (Linux's shm_mnt), which is in no one's namespace: it never has
 * a name, lives while a descriptor or mapping holds it, shows in /proc as
 * "/memfd:NAME (deleted)".  Its data are its object's pages as any tmpfs
 * file's (tmpfs_pages.c).
 *
 * Seals (fcntl F_ADD_SEALS, F_GET_SEALS) are kept in the node.  Every
 * tmpfs file has them, as on Linux: a file made by open starts with
 * F_SEAL_SEAL (no seal can be added), a memfd made with
 * MFD_ALLOW_SEALING with none.  write, truncate, fallocate, chmod and
 * mmap check them.
 */
#include <sys/mman.h>

#include "fs/file.h"
#include "fs/tmpfs/tmpfs.h"
#include "fs/vfs.h"
#include "kern/ucred.h"
#include "kern/kmem.h"
#include "vm/vm_object.h"

static struct mount memfd_mount;	/* mounted at the first memfd */

int
tmpfs_seals(struct vnode *vp)
{
	if (vp->v_op != &tmpfs_vnops || vp->v_type != VREG)
		return 0;
	return VTOTN(vp)->tn_seals;
}

const char *
tmpfs_memfd_name(struct vnode *vp)
{
	if (vp->v_op != &tmpfs_vnops || vp->v_type != VREG)
		return NULL;
	return VTOTN(vp)->tn_memfd;
}

int
tmpfs_seal_mmap(struct vnode *vp, int prot, bool shared, int *maxprot)
{
	if (!shared || !(tmpfs_seals(vp) & (F_SEAL_WRITE | F_SEAL_FUTURE_WRITE)))
		return 0;
	/* Linux's memfd_check_seals_mmap: and no mprotect makes it writable. */
	if (prot & PROT_WRITE)
		return -EPERM;
	*maxprot &= ~PROT_WRITE;
	return 0;
}

int
tmpfs_add_seals(struct file *fp, int seals)
{
	struct vnode *vp = fp->f_vnode;

	if (fp->f_type != DTYPE_VNODE || vp == NULL || vp->v_op != &tmpfs_vnops ||
	    vp->v_type != VREG)
		return -EINVAL;
	if (seals & ~(F_SEAL_SEAL | F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
	    F_SEAL_FUTURE_WRITE | F_SEAL_EXEC))
		return -EINVAL;
	if (!FWRITE(fp))
		return -EPERM;
	struct tmpfs_node *tn = VTOTN(vp);
	if (tn->tn_seals & F_SEAL_SEAL)
		return -EPERM;
	/*
	 * Linux refuses F_SEAL_WRITE (EBUSY) while a writable shared mapping
	 * exists; mappings are not counted here, so the seal is taken and
	 * only new mappings and writes see it (logged: a departure).
	 */
	if ((seals & F_SEAL_WRITE) && !(tn->tn_seals & F_SEAL_WRITE) &&
	    vp->v_object != NULL && vp->v_object->ref_count > 1)
		kprintf("memfd: F_SEAL_WRITE while mapped: existing writable "
		    "mappings keep writing\n");
	tn->tn_seals |= seals;
	return 0;
}

int
tmpfs_get_seals(struct file *fp)
{
	struct vnode *vp = fp->f_vnode;

	if (fp->f_type != DTYPE_VNODE || vp == NULL || vp->v_op != &tmpfs_vnops ||
	    vp->v_type != VREG)
		return -EINVAL;
	return VTOTN(vp)->tn_seals;
}

static int
memfd_mount_init(void)
{
	if (memfd_mount.mnt_root != NULL)
		return 0;
	memfd_mount.mnt_op = &tmpfs_vfsops;
	memfd_mount.mnt_source = "tmpfs";
	TAILQ_INIT(&memfd_mount.mnt_vnodes);
	int error = tmpfs_vfsops.vfs_mount(&memfd_mount, NULL);
	if (error < 0)
		return error;
	memfd_mount.mnt_dev = vfs_anondev();
	memfd_mount.mnt_root->v_flags |= VROOT;
	return 0;
}

int
tmpfs_memfd_create(struct fsproc *fsp, const struct ucred *cr,
    const char *name, bool noexec, bool sealing, bool cloexec)
{
	int error;

	if ((error = memfd_mount_init()) < 0)
		return error;
	struct vattr va = { .va_type = VREG, .va_mode = 0777,
	    .va_uid = cr->cr_uid, .va_gid = cr->cr_gid };
	int seals = F_SEAL_SEAL;
	if (noexec) {
		va.va_mode = 0666;
		seals = F_SEAL_EXEC;
	} else if (sealing) {
		seals = 0;
	}
	struct vnode *vp;
	if ((error = tmpfs_node_alloc(&memfd_mount, &va, NULL, NULL, &vp)) < 0)
		return error;
	struct tmpfs_node *tn = VTOTN(vp);
	tn->tn_seals = seals;
	tn->tn_memfd = kmalloc(strlen(name) + 1, 0);
	if (tn->tn_memfd == NULL) {
		vrele(vp);	/* no name, no reference: freed */
		return -ENOMEM;
	}
	strcpy(tn->tn_memfd, name);
	struct file *fp;
	if ((error = vn_open(vp, O_RDWR | O_LARGEFILE, &fp)) < 0)
		return error;
	int fd = fdalloc(fsp, fp, 0, cloexec ? FD_CLOEXEC : 0);
	fdrop(fp);
	return fd;
}
