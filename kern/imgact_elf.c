/*
 * The ELF image activator: static executables (ET_EXEC) and static PIE
 * (ET_DYN without an interpreter).  Every header field comes from a file
 * the guest may have written, so each is checked before use.
 *
 * The segments are loaded by reading the file into anonymous memory of the
 * new address space (no page sharing with the file yet): the whole span
 * of the PT_LOAD segments is mapped writable, filled, then each segment's
 * pages get its own protection.
 */
#include <elf.h>
#include <sys/mman.h>

#include "fs/vnode.h"
#include "kern/exec.h"
#include "vm/kmem.h"
#include "vm/vm.h"

/* Linux reads at most a page of program headers. */
#define ELF_MAXPHNUM	(PAGE_SIZE / sizeof(Elf64_Phdr))
#define ET_DYN_BASE	0x555555554000UL	/* where Linux puts static PIE */

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

int
elf_load(struct image *im, struct proc *p)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)im->im_hdr;
	uint64_t filesize = im->im_vp->v_size, lo = UINT64_MAX, hi = 0;
	uint64_t filehi = 0;		/* the end of the segments' file bytes */
	Elf64_Phdr *ph;
	int error;

	(void)p;
	if ((error = elf_check(eh, im->im_hdrlen, filesize)) < 0)
		return error;
	size_t phsize = eh->e_phnum * sizeof(Elf64_Phdr);
	ph = kmalloc(phsize, 0);
	if (ph == NULL)
		return -ENOMEM;
	if ((error = exec_read(im->im_vp, NULL, (uint64_t)ph, phsize,
	    eh->e_phoff)) < 0)
		goto out;

	uint64_t phdr_va = 0;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_INTERP) {
			kprintf("exec: dynamically linked programs are not supported yet\n");
			error = -ENOEXEC;
			goto out;
		}
		if (ph[i].p_type != PT_LOAD)
			continue;
		/* The segment must fit the file, the user range, and itself. */
		if (ph[i].p_filesz > ph[i].p_memsz || ph[i].p_offset > filesize ||
		    ph[i].p_filesz > filesize - ph[i].p_offset ||
		    ph[i].p_vaddr >= VM_MAX_USER_ADDRESS ||
		    ph[i].p_memsz > VM_MAX_USER_ADDRESS - ph[i].p_vaddr ||
		    (ph[i].p_vaddr & PAGE_MASK) != (ph[i].p_offset & PAGE_MASK)) {
			error = -ENOEXEC;
			goto out;
		}
		lo = MIN(lo, rounddown2(ph[i].p_vaddr, PAGE_SIZE));
		hi = MAX(hi, roundup2(ph[i].p_vaddr + ph[i].p_memsz, PAGE_SIZE));
		filehi = MAX(filehi, roundup2(ph[i].p_vaddr + ph[i].p_filesz,
		    PAGE_SIZE));
		if (eh->e_phoff >= ph[i].p_offset &&
		    eh->e_phoff + phsize <= ph[i].p_offset + ph[i].p_filesz)
			phdr_va = ph[i].p_vaddr + (eh->e_phoff - ph[i].p_offset);
	}
	if (lo >= hi) {
		error = -ENOEXEC;
		goto out;
	}
	uint64_t bias = eh->e_type == ET_DYN ? ET_DYN_BASE - lo : 0;
	if (lo + bias < VM_MIN_USER_ADDRESS || hi + bias > VM_MMAP_BASE ||
	    eh->e_entry + bias < lo + bias || eh->e_entry + bias >= hi + bias) {
		error = -ENOEXEC;
		goto out;
	}

	struct vmspace *vm = vmspace_alloc();
	if (vm == NULL) {
		error = -ENOMEM;
		goto out;
	}
	long r = vm_mmap(vm, lo + bias, hi - lo, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0);
	error = r < 0 ? (int)r : 0;
	for (int i = 0; error == 0 && i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD && ph[i].p_filesz > 0)
			error = exec_read(im->im_vp, vm, ph[i].p_vaddr + bias,
			    ph[i].p_filesz, ph[i].p_offset);
	for (int i = 0; error == 0 && i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_LOAD)
			error = vm_mprotect(vm, rounddown2(ph[i].p_vaddr, PAGE_SIZE) + bias,
			    roundup2(ph[i].p_vaddr + ph[i].p_memsz, PAGE_SIZE) -
			    rounddown2(ph[i].p_vaddr, PAGE_SIZE), elf_prot(ph[i].p_flags));
	/* A page where one segment ends and the next begins gets both. */
	for (int i = 0; error == 0 && i < eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD)
			continue;
		uint64_t last = rounddown2(ph[i].p_vaddr + ph[i].p_memsz - 1, PAGE_SIZE);
		for (int j = 0; error == 0 && j < eh->e_phnum; j++)
			if (j != i && ph[j].p_type == PT_LOAD &&
			    rounddown2(ph[j].p_vaddr, PAGE_SIZE) == last &&
			    ph[j].p_vaddr > ph[i].p_vaddr)
				error = vm_mprotect(vm, last + bias, PAGE_SIZE,
				    elf_prot(ph[i].p_flags) | elf_prot(ph[j].p_flags));
	}
	if (error < 0) {
		vmspace_free(vm);
		goto out;
	}
	vm->vm_brk_start = vm->vm_brk = hi + bias;
	vm->vm_image_start = lo + bias;
	vm->vm_image_end = filehi + bias;
	im->im_vmspace = vm;
	im->im_entry = eh->e_entry + bias;
	im->im_phdr = phdr_va != 0 ? phdr_va + bias : 0;
	im->im_phnum = eh->e_phnum;
	im->im_base = bias;
out:
	kfree(ph);
	return error;
}
