/*
 * show mount, show vnode, show buf: the file systems and the buffer
 * cache.  Addresses given are looked up on the kernel's own lists
 * before anything is read through them.
 */
#include <stdlib.h>

#include "ddb/ddb.h"
#include "dev/disk.h"
#include "fs/bio_var.h"
#include "fs/buf.h"
#include "fs/vfs.h"
#include "fs/vnode.h"

void
db_show_mount(int argc, char **argv)
{
	struct mount *mp;

	(void)argc, (void)argv;
	db_printf("%-14s %3s %-8s %-14s %-14s %-6s %s\n", "MOUNT", "ID", "TYPE",
	    "ROOT", "COVERED", "FLAGS", "SOURCE");
	TAILQ_FOREACH(mp, &mountlist, mnt_list) {
		int nvnodes = 0;
		struct vnode *vp;
		TAILQ_FOREACH(vp, &mp->mnt_vnodes, v_mntlist)
			nvnodes++;
		db_printf("%14p %3d %-8s %14p %14p %-6s %s (%d vnodes)\n", (void *)mp,
		    mp->mnt_id, mp->mnt_op != NULL ? mp->mnt_op->vfs_name : "?",
		    (void *)mp->mnt_root, (void *)mp->mnt_covered,
		    (mp->mnt_flags & MNT_RDONLY) ? "ro" : "rw",
		    mp->mnt_source != NULL ? mp->mnt_source : "-", nvnodes);
	}
}

static struct vnode *
db_find_vnode(uintptr_t addr)
{
	struct mount *mp;
	struct vnode *vp;

	TAILQ_FOREACH(mp, &mountlist, mnt_list)
		TAILQ_FOREACH(vp, &mp->mnt_vnodes, v_mntlist)
			if ((uintptr_t)vp == addr)
				return vp;
	return NULL;
}

void
db_show_vnode(int argc, char **argv)
{
	static const char *const types[] = { "VNON", "VREG", "VDIR", "VLNK",
	    "VCHR", "VBLK", "VFIFO", "VSOCK" };
	uintptr_t addr;

	if (argc < 2) {
		db_printf("usage: show vnode 0xVNODE (show mount: the roots)\n");
		return;
	}
	if (!db_addr(argv[1], &addr))
		return;
	struct vnode *vp = db_find_vnode(addr);
	if (vp == NULL) {
		db_printf("%#lx: no vnode of a mounted file system\n", (unsigned long)addr);
		return;
	}
	db_printf("vnode %p %s ino %lu mode %o uid %u gid %u nlink %u\n", (void *)vp,
	    (unsigned)vp->v_type < nitems(types) ? types[vp->v_type] : "?",
	    (unsigned long)vp->v_ino, (unsigned)vp->v_mode, (unsigned)vp->v_uid,
	    (unsigned)vp->v_gid, (unsigned)vp->v_nlink);
	db_printf("  size %lu usecount %d flags %#x mount %p mountedhere %p\n",
	    (unsigned long)vp->v_size, vp->v_usecount, vp->v_flags,
	    (void *)vp->v_mount, (void *)vp->v_mountedhere);
	db_printf("  object %p data %p\n", (void *)vp->v_object, vp->v_data);
}

static void
db_print_buf(const struct buf *bp)
{
	db_printf("%14p %-6s %10lu %6zu %#6x %5d %14p\n", (const void *)bp,
	    bp->b_disk != NULL ? bp->b_disk->d_name : "?",
	    (unsigned long)bp->b_blkno, bp->b_bcount, bp->b_flags, bp->b_error,
	    bp->b_data);
}

void
db_show_buf(int argc, char **argv)
{
	struct buf *bp;
	uintptr_t addr = 0;

	if (argc > 1 && !db_addr(argv[1], &addr))
		return;
	db_printf("buffer cache: %zu buffers, %zu KiB of %zu, %zu dirty (%zu KiB)\n",
	    biostats.nbufs, biostats.bytes >> 10, biostats.maxbytes >> 10,
	    biostats.ndirty, biostats.dirtybytes >> 10);
	db_printf("%-14s %-6s %10s %6s %6s %5s %s\n", "BUF", "DISK", "BLKNO", "BYTES",
	    "FLAGS", "ERROR", "DATA");
	int shown = 0;
	/* The dirty ones, then the clean ones: the busy are on neither. */
	TAILQ_FOREACH(bp, &bufdirty, b_freelist)
		if (addr == 0 ? shown++ < 40 : (uintptr_t)bp == addr)
			db_print_buf(bp);
	TAILQ_FOREACH(bp, &bufclean, b_freelist)
		if (addr == 0 ? shown++ < 40 : (uintptr_t)bp == addr)
			db_print_buf(bp);
	if (addr == 0 && shown > 40)
		db_printf("(%d more not shown)\n", shown - 40);
	db_printf("flags: 1 busy, 4 cached, 8 delayed write, 0x40 error\n");
}
