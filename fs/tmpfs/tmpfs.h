/*
 * tmpfs: a file system in RAM.
 *
 * Every node is a vnode (the attributes) with a tmpfs_node behind v_data
 * (the contents).  A node lives while it has a name (v_nlink > 0) or a
 * reference; the last vrele of an unlinked node frees it.
 *
 * Directories are lists of entries in creation order, each with a cookie
 * that never changes and is never reused in that directory, so readdir
 * offsets stay valid across insertions and removals.  A regular file's
 * data are the pages of its vnode's vm_object (v_object, tmpfs_pages.c):
 * read, write and mmap all use those pages; an index without a page is
 * a hole and reads as zeros.  A memfd is a regular file of the kernel's
 * own tmpfs mount that never had a name (tmpfs_memfd.c); its seals are
 * the node's.
 *
 * Locking: the big kernel lock.  read and write may sleep in the copy
 * (a fault on the user's buffer): a regular file's tmpfs_lock keeps
 * truncation from freeing the page being copied meanwhile.
 */
#ifndef FS_TMPFS_TMPFS_H
#define FS_TMPFS_TMPFS_H

#include <fcntl.h>

#include "fs/vnode.h"

struct file;
struct fsproc;
struct ucred;
struct vm_page;

#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC	0x0020	/* Linux 6.3: chmod may not change x bits */
#endif

#define TMPFS_MAGIC	0x01021994	/* Linux's statfs f_type */
#define TMPFS_MAXFILESIZE ((uint64_t)PAGE_SIZE << 36)	/* 256 TiB, as before */

/* The first cookie of a real entry: 0 is ".", 1 is "..". */
#define TMPFS_COOKIE_FIRST 2

struct tmpfs_dirent {
	TAILQ_ENTRY(tmpfs_dirent) td_link;
	uint64_t td_cookie;
	struct vnode *td_vnode;
	uint16_t td_namelen;
	char td_name[];		/* NUL-terminated */
};

struct tmpfs_node {
	union {
		struct {			/* VDIR */
			TAILQ_HEAD(, tmpfs_dirent) tn_dirents;
			uint64_t tn_nextcookie;
			struct vnode *tn_parent;	/* itself for the root */
			bool tn_dead;		/* removed: holds tn_parent */
		};
		struct {			/* VREG */
			int tn_seals;		/* F_SEAL_* */
			bool tn_locked;		/* tmpfs_lock */
			bool tn_lwanted;
			char *tn_memfd;		/* a memfd's name, kmalloc'd */
		};
		char *tn_link;			/* VLNK: target, kmalloc'd */
	};
};

struct tmpfs_mount {
	uint64_t tm_pages_max;
	uint64_t tm_pages_used;	/* data and tree pages */
	uint64_t tm_nodes;
};

extern const struct vfsops tmpfs_vfsops;
extern const struct vnops tmpfs_vnops;

static inline struct tmpfs_node *
VTOTN(struct vnode *vp)
{
	return vp->v_data;
}

static inline struct tmpfs_mount *
VFSTOTM(struct mount *mp)
{
	return mp->mnt_data;
}

/* Nodes and entries (tmpfs_subr.c). */

/*
 * A new node of type va->va_type with va's mode, owner and rdev, times
 * now, v_nlink 0 (the caller links it), one reference.  A directory's
 * parent is dvp (itself if NULL).  Returns 0 or -ENOMEM, -ENOSPC.
 */
int tmpfs_node_alloc(struct mount *mp, const struct vattr *va,
    struct vnode *dvp, const char *link, struct vnode **vpp);

/* Frees node vp and its contents (it has no references and no names). */
void tmpfs_node_free(struct vnode *vp);

/* The entry called name in directory dvp, or NULL. */
struct tmpfs_dirent *tmpfs_dir_lookup(struct vnode *dvp, const char *name);

/* A new entry name -> vp, not yet in a directory; NULL if out of memory. */
struct tmpfs_dirent *tmpfs_dirent_alloc(const char *name, struct vnode *vp);

/* Appends de to dvp with a fresh cookie; updates dvp's size and times. */
void tmpfs_dir_attach(struct vnode *dvp, struct tmpfs_dirent *de);

/* Removes de from dvp and frees it; updates dvp's size and times. */
void tmpfs_dir_detach(struct vnode *dvp, struct tmpfs_dirent *de);

/*
 * Locks regular file vp's data against other reads, writes, truncations
 * and fallocates (sleeping while another holds it); tmpfs_unlock releases.
 */
void tmpfs_lock(struct vnode *vp);
void tmpfs_unlock(struct vnode *vp);

/* File data (tmpfs_pages.c). */

/* Gives new regular file vp its v_object: 0 or -ENOMEM. */
int tmpfs_obj_alloc(struct vnode *vp);

/*
 * The node of regular file vp is being freed: its pages leave the
 * mount's count (vnode_free then frees its object; nothing maps it, a
 * mapping holding the vnode).
 */
void tmpfs_obj_free(struct vnode *vp);

/*
 * The page pindex of regular file vp in *mp, or NULL for a hole.  With
 * alloc, fills the hole with a zeroed page (-ENOSPC when the mount or
 * RAM is full).  -EFBIG past TMPFS_MAXFILESIZE.
 */
int tmpfs_getpage(struct vnode *vp, uint64_t pindex, bool alloc,
    struct vm_page **mp);

/*
 * Sets the size of regular file vp: frees pages wholly past it, taking
 * them out of every mapping, and zeros the tail of the last one.  -EFBIG
 * past TMPFS_MAXFILESIZE.
 */
int tmpfs_truncate(struct vnode *vp, uint64_t size);
/*
 * Frees vp's pages [first, last), out of every mapping and the mount's
 * budget (a punched hole).  Under tmpfs_lock.
 */
void tmpfs_punch_pages(struct vnode *vp, uint64_t first, uint64_t last);

/* memfd and seals (tmpfs_memfd.c). */

/* The F_SEAL_* of vp: a tmpfs regular file's, else 0. */
int tmpfs_seals(struct vnode *vp);

/* "memfd:NAME" if vp is a memfd, else NULL (for /proc/PID/fd). */
const char *tmpfs_memfd_name(struct vnode *vp);

/*
 * mmap's check of vp's seals: a shared writable mapping of a file sealed
 * against writes is -EPERM, and a shared one loses PROT_WRITE from
 * *maxprot (no mprotect makes it writable).  0 otherwise.
 */
int tmpfs_seal_mmap(struct vnode *vp, int prot, bool shared, int *maxprot);

/*
 * fcntl(F_ADD_SEALS): adds seals to fp's tmpfs file.  -EINVAL (not a
 * tmpfs file, unknown seals), -EPERM (not open for writing, or sealed
 * with F_SEAL_SEAL).
 */
int tmpfs_add_seals(struct file *fp, int seals);

/*
 * A new memfd called name ("memfd:..."), owned by cr, open for reading
 * and writing on fsp's lowest free descriptor: mode 0777 and F_SEAL_SEAL,
 * or with sealing no seals, or with noexec mode 0666 and F_SEAL_EXEC.
 * Returns the descriptor or a negative errno.
 */
int tmpfs_memfd_create(struct fsproc *fsp, const struct ucred *cr,
    const char *name, bool noexec, bool sealing, bool cloexec);

/* fcntl(F_GET_SEALS): the seals of fp's tmpfs file, or -EINVAL. */
int tmpfs_get_seals(struct file *fp);

#endif /* FS_TMPFS_TMPFS_H */
