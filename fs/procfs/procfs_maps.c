/*
 * /proc/PID/maps and /proc/PID/smaps: a process's map entries in Linux's
 * format (show_map_vma), and, for smaps, how much of each is in RAM.
 */
#include "fs/procfs/procfs.h"
#include "fs/vfs.h"
#include "kern/proc.h"
#include "vm/vm.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"
#include "vm/vm_vdso.h"

/*
 * One line of maps, as Linux's show_map_vma: the name, if any, starts at
 * column 73.  A file mapping (private ones too, written or not: the file
 * is at the bottom of the entry's chain) shows the file's device, inode
 * and offset and its path (found from the reader's working directory or
 * the file system's root; a file elsewhere, or removed, has no name to
 * show yet: a file does not remember the path it was opened by).  Shared
 * anonymous memory is Linux's "/dev/zero (deleted)" on device 00:01.
 */
static void
maps_entry(struct sbuf *sb, struct proc *p, struct vmspace *vm,
    struct vm_map_entry *e)
{
	struct vm_object *file = vm_map_entry_file(e);
	struct vnode *vp = file != NULL ? file->handle : NULL;
	bool shm = vp == NULL && !(e->eflags & MAP_ENTRY_COW) &&
	    e->object != NULL;
	uint64_t off = vp != NULL || shm ? e->offset : 0;
	unsigned major = 0, minor = 0;
	unsigned long ino = 0;
	if (vp != NULL) {
		major = linux_major(vp->v_mount->mnt_dev);
		minor = linux_minor(vp->v_mount->mnt_dev);
		ino = vp->v_ino;
	} else if (shm) {
		minor = 1;	/* Linux's internal shmem mount */
		ino = (uint32_t)((uintptr_t)e->object >> 4);
	}
	/*
	 * The image's part mapped from its file is named by the path exec
	 * ran (the file's own lookup may not find it); a private copy of
	 * its pages (anonymous) gets the offsets of a static binary's
	 * segments (laid out in memory as in the file).
	 */
	bool image = !shm && p->p_exe != NULL &&
	    e->start >= vm->vm_image_start && e->start < vm->vm_image_end;
	if (image && vp == NULL)
		off = e->start - vm->vm_image_start;
	size_t len0 = sb->sb_len;
	sbuf_printf(sb, "%08lx-%08lx %c%c%c%c %08lx %02x:%02x %lu ",
	    (unsigned long)e->start, (unsigned long)e->end,
	    (e->protection & VM_PROT_READ) ? 'r' : '-',
	    (e->protection & VM_PROT_WRITE) ? 'w' : '-',
	    (e->protection & VM_PROT_EXECUTE) ? 'x' : '-',
	    (e->eflags & MAP_ENTRY_COW) ? 'p' : 's',
	    (unsigned long)off, major, minor, ino);
	const char *name = e->name;	/* a special mapping's */
	if (name == NULL)
		name = vdso_entry_name(e);	/* [vdso], [vvar] */
	if (name == NULL) {
		if (e->eflags & MAP_ENTRY_GROWSDOWN)
			name = "[stack]";
		else if (vm->vm_brk_start != 0 && e->start <= vm->vm_brk &&
		    e->end > vm->vm_brk_start && vp == NULL && !shm)
			name = "[heap]";
		else if (image)
			name = p->p_exe;
		else if (shm)
			name = "/dev/zero (deleted)";
	}
	if (name != NULL || vp != NULL) {
		size_t len = sb->sb_len - len0;
		if (len < 73)
			sbuf_printf(sb, "%*s", (int)(73 - len), "");
		if (name != NULL)
			sbuf_printf(sb, "%s", name);
		else
			procfs_sbuf_path(sb, procfs_reader_root(p), vp,
			    p->p_fs.fp_pwd != NULL ? p->p_fs.fp_pwd->pd_cdir : NULL);
	}
	sbuf_printf(sb, "\n");
}

int
procfs_pmaps(struct sbuf *sb, struct proc *p)
{
	struct vmspace *vm = p->p_vmspace;
	if (vm == NULL)
		return 0;
	struct vm_map *map = &vm->vm_map;
	for (struct vm_map_entry *e = VM_MAP_FIRST(map); e != VM_MAP_END(map);
	    e = e->next)
		maps_entry(sb, p, vm, e);
	return 0;
}


/* How many pmaps map page m (its pv list). */
static unsigned
mapcount(struct vm_page *m)
{
	unsigned n = 0;
	for (struct pv_entry *pv = VM_PAGE_EXT(m)->pv; pv != NULL; pv = pv->pv_next)
		n++;
	return n;
}

/*
 * The sizes smaps shows for e, in kB, from the pages its pmap maps (as
 * Linux's, which walks the page tables): shared are pages mapped more
 * than once, Pss divides each among its mappings, dirty ones have the
 * modified bit (or were written back to their page), anonymous ones
 * belong to no file.
 */
static void
smaps_sizes(struct sbuf *sb, struct vmspace *vm, struct vm_map_entry *e)
{
	uint64_t rss = 0, pss = 0, anon = 0, referenced = 0;
	uint64_t shared_clean = 0, shared_dirty = 0, priv_clean = 0, priv_dirty = 0;
	const uint64_t nbpdr = 1UL << VPTE_SHIFT(1);

	for (uint64_t va = e->start; va < e->end; va += PAGE_SIZE) {
		vpte_t *pte = pmap_pte(&vm->vm_pmap, va);
		if (pte == NULL) {
			va = rounddown2(va, nbpdr) + nbpdr - PAGE_SIZE;
			continue;
		}
		vpte_t v = __atomic_load_n(pte, __ATOMIC_ACQUIRE);
		if (!(v & VPTE_V))
			continue;
		struct vm_page *m = PHYS_TO_VM_PAGE(v & VPTE_FRAME);
		if (vm_page_untouched(m))
			continue;
		unsigned n = mapcount(m);
		bool dirty = (v & VPTE_M) || (VM_PAGE_EXT(m)->flags & PGX_DIRTY);
		rss += PAGE_SIZE;
		pss += PAGE_SIZE / (n > 0 ? n : 1);
		if (v & VPTE_A)
			referenced += PAGE_SIZE;
		if (m->object != NULL && m->object->type == OBJT_ANON)
			anon += PAGE_SIZE;
		if (n > 1)
			*(dirty ? &shared_dirty : &shared_clean) += PAGE_SIZE;
		else
			*(dirty ? &priv_dirty : &priv_clean) += PAGE_SIZE;
	}
	sbuf_printf(sb, "Size:           %8lu kB\n"
	    "KernelPageSize: %8lu kB\nMMUPageSize:    %8lu kB\n"
	    "Rss:            %8lu kB\nPss:            %8lu kB\n"
	    "Pss_Dirty:      %8lu kB\n"
	    "Shared_Clean:   %8lu kB\nShared_Dirty:   %8lu kB\n"
	    "Private_Clean:  %8lu kB\nPrivate_Dirty:  %8lu kB\n"
	    "Referenced:     %8lu kB\nAnonymous:      %8lu kB\n"
	    "KSM:                   0 kB\nLazyFree:              0 kB\n"
	    "AnonHugePages:         0 kB\nShmemPmdMapped:        0 kB\n"
	    "FilePmdMapped:         0 kB\nShared_Hugetlb:        0 kB\n"
	    "Private_Hugetlb:       0 kB\nSwap:                  0 kB\n"
	    "SwapPss:               0 kB\nLocked:                0 kB\n"
	    "THPeligible:           0\n",
	    (unsigned long)(e->end - e->start) >> 10, PAGE_SIZE >> 10,
	    PAGE_SIZE >> 10, (unsigned long)rss >> 10, (unsigned long)pss >> 10,
	    (unsigned long)(shared_dirty + priv_dirty) >> 10,
	    (unsigned long)shared_clean >> 10, (unsigned long)shared_dirty >> 10,
	    (unsigned long)priv_clean >> 10, (unsigned long)priv_dirty >> 10,
	    (unsigned long)referenced >> 10, (unsigned long)anon >> 10);
	/* Linux's two-letter flags, those that apply here. */
	sbuf_printf(sb, "VmFlags:%s%s%s%s%s%s%s%s%s%s%s\n",
	    (e->protection & VM_PROT_READ) ? " rd" : "",
	    (e->protection & VM_PROT_WRITE) ? " wr" : "",
	    (e->protection & VM_PROT_EXECUTE) ? " ex" : "",
	    (e->eflags & MAP_ENTRY_COW) ? "" : " sh",
	    (e->max_protection & VM_PROT_READ) ? " mr" : "",
	    (e->max_protection & VM_PROT_WRITE) ? " mw" : "",
	    (e->max_protection & VM_PROT_EXECUTE) ? " me" : "",
	    (e->eflags & MAP_ENTRY_COW) ? "" : " ms",
	    (e->eflags & MAP_ENTRY_GROWSDOWN) ? " gd" : "",
	    (e->eflags & MAP_ENTRY_DONTFORK) ? " dc" : "",
	    (e->eflags & MAP_ENTRY_WIPEONFORK) ? " wf" : "");
}

int
procfs_psmaps(struct sbuf *sb, struct proc *p)
{
	struct vmspace *vm = p->p_vmspace;
	if (vm == NULL)
		return 0;
	struct vm_map *map = &vm->vm_map;
	for (struct vm_map_entry *e = VM_MAP_FIRST(map); e != VM_MAP_END(map);
	    e = e->next) {
		maps_entry(sb, p, vm, e);
		smaps_sizes(sb, vm, e);
	}
	return 0;
}
