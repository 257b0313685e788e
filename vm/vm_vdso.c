/*
 * The vDSO (kern/vdso/vdso.c, built into vdso_image) and the vvar page
 * it reads (kern/vdso/vvar.h).  Each lives in one object of RAM pages
 * made at boot and never freed; every process maps both, so a page of
 * each serves the whole machine.  The guest reaches them as any of its
 * pages: through its vpagetable and the host layer's mapping of RAM.
 */
#include <elf.h>
#include <sys/mman.h>

#include "host/cpu.h"
#include "kern/vclock.h"
#include "kern/vdso/vvar.h"
#include "vm/vm.h"
#include "vm/vm_object.h"
#include "vm/vm_vdso.h"

extern const char vdso_image[], vdso_image_end[];

static struct vm_object *vdso_obj, *vvar_obj;
static uint64_t vdso_len;		/* bytes, page multiple */

/* A new anonymous object holding len bytes of src (zero beyond). */
static struct vm_object *
vdso_object(const char *src, size_t srclen, uint64_t len)
{
	struct vm_object *obj = vm_object_allocate_anon();
	if (obj == NULL)
		panic("vdso_init: no memory");
	for (uint64_t off = 0; off < len; off += PAGE_SIZE) {
		struct vm_page *m = vm_object_page_alloc(obj, off >> PAGE_SHIFT,
		    true);
		if (m == NULL)
			panic("vdso_init: no memory");
		if (off < srclen)
			memcpy(VM_PAGE_TO_DMAP(m), src + off,
			    MIN(PAGE_SIZE, srclen - off));
	}
	return obj;
}

/*
 * getcpu's table: a host core maps to a CPU if that CPU's guests, and
 * no other's, run pinned there (host/cpu.c's placement; a stub follows
 * the CPU that runs it, trap_follow_cpu).  Without pinning (-l none),
 * or with more CPUs than cores, the vDSO asks the kernel.
 */
static void
vdso_cpu_table(struct vvar_data *vd)
{
	for (int i = 0; i < cpu_count(); i++) {
		int core = cpu_get(i)->stub_core;
		if (core < 0 || core >= VVAR_NCORES)
			continue;
		vd->cpu_of_core[core] = vd->cpu_of_core[core] == 0 ?
		    (uint8_t)(i + 1) : 0xff;
	}
	for (int c = 0; c < VVAR_NCORES; c++)
		if (vd->cpu_of_core[c] == 0xff)
			vd->cpu_of_core[c] = 0;
}

void
vdso_init(void)
{
	_Static_assert(sizeof(struct vvar_data) <= PAGE_SIZE, "one vvar page");
	_Static_assert(MAXCPU < 0xff, "CPU numbers fit the getcpu table");
	size_t len = (size_t)(vdso_image_end - vdso_image);
	KASSERT(len >= sizeof(Elf64_Ehdr) &&
	    memcmp(vdso_image, ELFMAG, SELFMAG) == 0, "vdso_init: no image");
	vdso_len = roundup2(len, PAGE_SIZE);
	vdso_obj = vdso_object(vdso_image, len, vdso_len);
	vvar_obj = vdso_object(NULL, 0, PAGE_SIZE);
	struct vvar_data *vd = VM_PAGE_TO_DMAP(vm_object_page_lookup(vvar_obj, 0));
	vdso_cpu_table(vd);
	vclock_init(vd);
}

long
vdso_map(struct vmspace *vm)
{
	if (vdso_obj == NULL)
		return 0;
	/* One hole for both, so the vvar page sits right below the code. */
	long base = vm_mmap(vm, 0, PAGE_SIZE + vdso_len, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS, NULL, 0);
	if (base < 0)
		return base;
	/* Private as Linux's ("r--p"), but never writable: never copied. */
	long r = vm_mmap_maxprot(vm, (uint64_t)base, PAGE_SIZE, PROT_READ,
	    PROT_READ, MAP_PRIVATE | MAP_FIXED, vvar_obj, 0);
	if (r >= 0)
		r = vm_mmap(vm, (uint64_t)base + PAGE_SIZE, vdso_len,
		    PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_FIXED, vdso_obj, 0);
	return r < 0 ? r : base + (long)PAGE_SIZE;
}

const char *
vdso_entry_name(const struct vm_map_entry *e)
{
	for (struct vm_object *obj = e->object; obj != NULL;
	    obj = obj->backing_object) {
		if (obj == vdso_obj)
			return "[vdso]";
		if (obj == vvar_obj)
			return "[vvar]";
	}
	return NULL;
}
