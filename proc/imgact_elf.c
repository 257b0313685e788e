/*
 * The ELF image activator: executables (ET_EXEC), position-independent
 * ones (ET_DYN), and dynamically linked ones of either kind, whose
 * program interpreter (PT_INTERP: ld.so) is loaded beside them and runs
 * first, finding the program through the auxiliary vector (AT_PHDR,
 * AT_ENTRY, AT_BASE), as on Linux.  Every header field comes from a file
 * the guest may have written, so each is checked before use.
 *
 * The segments are private mappings of the file's object
 * (vnode_pager_alloc: with the page cache, the file's own pages, shared
 * until the image writes one), as ld.so's mmaps of libraries are: exec
 * reads nothing but the headers, and pages come in at their first
 * fault.
 */
#include <elf.h>
#include <limits.h>
#include <sys/mman.h>

#include "fs/vnode.h"
#include "fs/vnode_pager.h"
#include "proc/exec.h"
#include "kern/kmem.h"
#include "vm/vm.h"
#include "vm/vm_object.h"
#include "vm/vm_vdso.h"

/* Linux reads at most a page of program headers. */
#define ELF_MAXPHNUM	(PAGE_SIZE / sizeof(Elf64_Phdr))
#define ET_DYN_BASE	0x555555554000UL	/* where Linux puts PIE, unrandomised */

/*
 * Checks the ELF header; -ENOEXEC if it is not an x86-64 executable.
 * Like Linux's, it does not look at e_ident past the magic: a header
 * that claims ELFCLASS32 or big-endian data is read as what e_machine
 * says it is, 64-bit little-endian.
 */
static int
elf_check(const Elf64_Ehdr *eh, size_t hdrlen, uint64_t filesize)
{
	if (hdrlen < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_machine != EM_X86_64 ||
	    (eh->e_type != ET_EXEC && eh->e_type != ET_DYN) ||
	    eh->e_phentsize != sizeof(Elf64_Phdr) ||
	    eh->e_phnum == 0 || eh->e_phnum > ELF_MAXPHNUM ||
	    eh->e_phoff > filesize ||
	    eh->e_phnum * sizeof(Elf64_Phdr) > filesize - eh->e_phoff)
		return -ENOEXEC;
	return 0;
}

/* The host protection of a segment's flags. */
static int
elf_prot(uint32_t flags)
{
	return ((flags & PF_R) ? PROT_READ : 0) |
	    ((flags & PF_W) ? PROT_WRITE : 0) | ((flags & PF_X) ? PROT_EXEC : 0);
}

/* An ELF file's headers and the span of its PT_LOAD segments. */
struct elf_file {
	struct vnode *vp;
	const Elf64_Ehdr *eh;
	Elf64_Phdr *ph;			/* kmalloc'd */
	uint64_t lo, hi;		/* page-aligned span of the segments */
	uint64_t filehi;		/* the end of the segments' file bytes */
	uint64_t phdr_va;		/* where a segment maps the headers; 0 */
	uint64_t data_va;		/* the first writable segment's start; 0 */
};

/*
 * Reads and checks the program headers of vp, whose first hdrlen bytes
 * are hdr: every PT_LOAD must fit the file, the user range and itself.
 * Fills ef (free ef->ph with kfree).  -ENOEXEC for a bad image.
 */
static int
elf_read_headers(struct vnode *vp, const char *hdr, size_t hdrlen,
    struct elf_file *ef)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)hdr;
	uint64_t filesize = vp->v_size;
	int error;

	memset(ef, 0, sizeof(*ef));
	if ((error = elf_check(eh, hdrlen, filesize)) < 0)
		return error;
	size_t phsize = eh->e_phnum * sizeof(Elf64_Phdr);
	Elf64_Phdr *ph = kmalloc(phsize, 0);
	if (ph == NULL)
		return -ENOMEM;
	if ((error = exec_read(vp, NULL, (uint64_t)ph, phsize,
	    eh->e_phoff)) < 0) {
		kfree(ph);
		return error;
	}
	ef->vp = vp;
	ef->eh = eh;
	ef->ph = ph;
	ef->lo = UINT64_MAX;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		/* The segment must fit the file, the user range, and itself. */
		if (ph[i].p_filesz > ph[i].p_memsz || ph[i].p_offset > filesize ||
		    ph[i].p_filesz > filesize - ph[i].p_offset ||
		    ph[i].p_vaddr >= VM_MAX_USER_ADDRESS ||
		    ph[i].p_memsz > VM_MAX_USER_ADDRESS - ph[i].p_vaddr ||
		    (ph[i].p_vaddr & PAGE_MASK) != (ph[i].p_offset & PAGE_MASK)) {
			kfree(ph);
			return -ENOEXEC;
		}
		ef->lo = MIN(ef->lo, rounddown2(ph[i].p_vaddr, PAGE_SIZE));
		ef->hi = MAX(ef->hi, roundup2(ph[i].p_vaddr + ph[i].p_memsz,
		    PAGE_SIZE));
		ef->filehi = MAX(ef->filehi, roundup2(ph[i].p_vaddr +
		    ph[i].p_filesz, PAGE_SIZE));
		if (eh->e_phoff >= ph[i].p_offset &&
		    eh->e_phoff + phsize <= ph[i].p_offset + ph[i].p_filesz)
			ef->phdr_va = ph[i].p_vaddr + (eh->e_phoff - ph[i].p_offset);
		if ((ph[i].p_flags & PF_W) && ef->data_va == 0)
			ef->data_va = ph[i].p_vaddr;
	}
	if (ef->lo >= ef->hi || eh->e_entry < ef->lo || eh->e_entry >= ef->hi) {
		kfree(ph);
		return -ENOEXEC;
	}
	return 0;
}

/*
 * Maps PT_LOAD segment ph at load bias bias, as Linux's elf_load: its
 * file part a private mapping of the file's object obj (copy-on-write:
 * the image shares the file's pages until it writes one), the rest of
 * its last file page zeroed in a private copy if the segment goes on
 * past its file bytes, and the pages beyond (the bss) anonymous.  Each
 * replaces whatever was there, as MAP_FIXED.
 */
static int
elf_map_segment(struct vmspace *vm, struct vm_object *obj,
    const Elf64_Phdr *ph, uint64_t bias)
{
	static const char zeros[PAGE_SIZE];
	int prot = elf_prot(ph->p_flags), error = 0;
	uint64_t start = rounddown2(ph->p_vaddr, PAGE_SIZE) + bias;
	uint64_t fend = ph->p_vaddr + ph->p_filesz + bias;	/* file bytes' end */
	uint64_t fpage = ph->p_filesz > 0 ? roundup2(fend, PAGE_SIZE) : start;
	uint64_t mend = roundup2(ph->p_vaddr + ph->p_memsz, PAGE_SIZE) + bias;
	long r;

	if (ph->p_filesz > 0) {
		bool tail = (fend & PAGE_MASK) != 0 && ph->p_memsz > ph->p_filesz;
		r = vm_mmap(vm, start, fpage - start, tail ? prot | PROT_WRITE :
		    prot, MAP_PRIVATE | MAP_FIXED, obj,
		    rounddown2(ph->p_offset, PAGE_SIZE));
		if (r < 0)
			return (int)r;
		if (tail) {
			/* The next bytes of the file are not the bss's. */
			error = vm_copyout(vm, zeros, fend, fpage - fend);
			if (error == 0 && !(prot & PROT_WRITE))
				error = vm_mprotect(vm, fpage - PAGE_SIZE,
				    PAGE_SIZE, prot);
			if (error < 0)
				return error;
		}
	}
	if (mend > fpage) {
		r = vm_mmap(vm, fpage, mend - fpage, prot,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0);
		if (r < 0)
			return (int)r;
	}
	return 0;
}

/*
 * Maps ef's segments into vm at load bias bias (elf_map_segment).  A
 * page where one segment ends and the next begins shows the later one's
 * mapping, as in Linux, with both segments' protections.
 */
static int
elf_map(struct vmspace *vm, const struct elf_file *ef, uint64_t bias)
{
	const Elf64_Phdr *ph = ef->ph;
	int n = ef->eh->e_phnum, error = 0;
	struct vm_object *obj = vnode_pager_alloc(ef->vp);
	if (obj == NULL)
		return -ENOMEM;
	for (int i = 0; error == 0 && i < n; i++)
		if (ph[i].p_type == PT_LOAD)
			error = elf_map_segment(vm, obj, &ph[i], bias);
	vm_object_deallocate(obj);	/* the mappings hold their own */
	for (int i = 0; error == 0 && i < n; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uint64_t last = rounddown2(ph[i].p_vaddr + ph[i].p_memsz - 1, PAGE_SIZE);
		for (int j = 0; error == 0 && j < n; j++)
			if (j != i && ph[j].p_type == PT_LOAD &&
			    rounddown2(ph[j].p_vaddr, PAGE_SIZE) == last &&
			    ph[j].p_vaddr > ph[i].p_vaddr)
				error = vm_mprotect(vm, last + bias, PAGE_SIZE,
				    elf_prot(ph[i].p_flags) | elf_prot(ph[j].p_flags));
	}
	return error;
}

/*
 * The path in ef's PT_INTERP, kmalloc'd into *pathp (NULL if it has
 * none).  -ENOEXEC for one that is empty, too long or not terminated
 * (Linux's checks).
 */
static int
elf_interp_path(const struct elf_file *ef, char **pathp)
{
	*pathp = NULL;
	for (int i = 0; i < ef->eh->e_phnum; i++) {
		const Elf64_Phdr *ph = &ef->ph[i];
		if (ph->p_type != PT_INTERP)
			continue;
		if (ph->p_filesz < 2 || ph->p_filesz > PATH_MAX ||
		    ph->p_offset > ef->vp->v_size ||
		    ph->p_filesz > ef->vp->v_size - ph->p_offset)
			return -ENOEXEC;
		char *path = kmalloc(ph->p_filesz, 0);
		if (path == NULL)
			return -ENOMEM;
		int error = exec_read(ef->vp, NULL, (uint64_t)path, ph->p_filesz,
		    ph->p_offset);
		if (error == 0 && path[ph->p_filesz - 1] != '\0')
			error = -ENOEXEC;
		if (error < 0) {
			kfree(path);
			return error;
		}
		*pathp = path;
		return 0;
	}
	return 0;
}

/*
 * Loads the program interpreter at path (ld.so) into vm, where the
 * top-down mmap search puts it (an ET_DYN) or where it says (ET_EXEC),
 * as Linux does.  Its own PT_INTERP, if any, is ignored, as Linux does.
 * Returns 0 with *biasp and *entryp set; the errors execve returns:
 * those of the lookup (-ENOENT, -EACCES...), -EIO if it is shorter than
 * an ELF header, -ELIBBAD if it is not an x86-64 ELF file, -ENOEXEC for
 * bad segments (Linux kills the process there: it is past its point of
 * no return), -ENOMEM.
 */
static int
elf_load_interp(struct vmspace *vm, struct proc *p, const char *path,
    uint64_t *biasp, uint64_t *entryp)
{
	struct vnode *vp;
	struct elf_file ef = { 0 };
	int error = exec_lookup(p, path, &vp);
	if (error < 0)
		return error;
	size_t n = MIN(vp->v_size, PAGE_SIZE);
	char *hdr = kmalloc(PAGE_SIZE, 0);
	if (hdr == NULL) {
		error = -ENOMEM;
		goto out;
	}
	if (n < sizeof(Elf64_Ehdr)) {
		error = -EIO;
		goto out;
	}
	if ((error = exec_read(vp, NULL, (uint64_t)hdr, n, 0)) < 0)
		goto out;
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)hdr;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_machine != EM_X86_64) {
		kprintf_ratelimited("exec: interpreter %s is not an x86-64 ELF file\n", path);
		error = -ELIBBAD;
		goto out;
	}
	if ((error = elf_read_headers(vp, hdr, n, &ef)) < 0) {
		kprintf_ratelimited("exec: interpreter %s: bad program headers\n", path);
		if (error == -ENOEXEC && (eh->e_phentsize != sizeof(Elf64_Phdr) ||
		    eh->e_phnum == 0 || eh->e_phnum > ELF_MAXPHNUM))
			error = -ELIBBAD;	/* Linux's load_elf_phdrs */
		goto out;
	}
	uint64_t bias = 0;
	if (eh->e_type == ET_DYN) {
		long r = vm_mmap(vm, 0, ef.hi - ef.lo, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS, NULL, 0);
		if (r < 0) {
			error = (int)r;
			goto out;
		}
		bias = (uint64_t)r - ef.lo;
	} else if (ef.hi > VM_MMAP_BASE || ef.lo < VM_MIN_USER_ADDRESS) {
		error = -ENOEXEC;
		goto out;
	}
	if ((error = elf_map(vm, &ef, bias)) < 0)
		goto out;
	*biasp = bias;
	*entryp = eh->e_entry + bias;
out:
	kfree(ef.ph);
	kfree(hdr);
	vrele(vp);
	return error;
}

int
elf_load(struct image *im, struct proc *p)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->im_hdr;
	struct elf_file ef;
	char *interp = NULL;
	int error;

	if ((error = elf_read_headers(im->im_vp, im->im_hdr, im->im_hdrlen,
	    &ef)) < 0) {
		/* Not ELF at all is for the caller (a shell runs it as a script). */
		if (error == -ENOEXEC && im->im_hdrlen >= SELFMAG &&
		    memcmp(eh->e_ident, ELFMAG, SELFMAG) == 0)
			kprintf_ratelimited("exec: %s: not a valid x86-64 ELF "
			    "executable (ENOEXEC)\n", im->im_name);
		return error;
	}
	if ((error = elf_interp_path(&ef, &interp)) < 0) {
		kprintf_ratelimited("exec: %s: bad PT_INTERP\n", im->im_name);
		goto out;
	}
	/* A PIE with an interpreter goes where Linux's ELF_ET_DYN_BASE puts it. */
	uint64_t bias = eh->e_type == ET_DYN ? ET_DYN_BASE - ef.lo : 0;
	if (ef.lo + bias < VM_MIN_USER_ADDRESS || ef.hi + bias > VM_MMAP_BASE) {
		kprintf_ratelimited("exec: %s: segments outside the user range "
		    "(ENOEXEC)\n", im->im_name);
		error = -ENOEXEC;
		goto out;
	}
	struct vmspace *vm = vmspace_alloc();
	if (vm == NULL) {
		error = -ENOMEM;
		goto out;
	}
	error = elf_map(vm, &ef, bias);
	uint64_t ibias = 0, start = eh->e_entry + bias;
	if (error == 0 && interp != NULL)
		error = elf_load_interp(vm, p, interp, &ibias, &start);
	long vdso = error == 0 ? vdso_map(vm) : 0;
	if (vdso < 0)
		error = (int)vdso;
	if (error < 0) {
		vmspace_free(vm);
		goto out;
	}
	vm->vm_brk_start = vm->vm_brk = ef.hi + bias;
	vm->vm_image_start = ef.lo + bias;
	vm->vm_image_end = ef.filehi + bias;
	im->im_vmspace = vm;
	im->im_entry = eh->e_entry + bias;
	im->im_start = start;
	im->im_phdr = ef.phdr_va != 0 ? ef.phdr_va + bias : 0;
	im->im_data = ef.data_va != 0 ? ef.data_va + bias : 0;
	im->im_phnum = eh->e_phnum;
	im->im_base = bias;
	im->im_interp_base = ibias;
	im->im_vdso = (uint64_t)vdso;
out:
	kfree(interp);
	kfree(ef.ph);
	return error;
}
