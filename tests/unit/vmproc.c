/*
 * Helpers for tests of the VM system (see vmproc.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "tests/unit/vmproc.h"
#include "kern/kmem.h"

#define VMP_STUCK	64	/* faults at one address without progress */

void
vmp_init(void)
{
	static bool ready;

	vmt_ram();
	if (!ready) {
		vm_init();
		ready = true;
	}
}

int
vmp_create(struct vmp *p)
{
	vmp_init();
	*p = (struct vmp){ 0 };
	if ((p->vm = vmspace_alloc()) == NULL)
		return -1;
	vmspace_fpu_init(&p->vf);
	p->tf.tf_rflags = 0x202;
	p->tf.tf_xflags = PGEX_FPFAULT;
	return 0;
}

void
vmp_destroy(struct vmp *p)
{
	if (p->vm != NULL)
		vmspace_free(p->vm);
	p->vm = NULL;
}

int
vmp_fork(struct vmp *p, struct vmp *child)
{
	*child = *p;
	child->nfaults = 0;
	child->tf.tf_xflags = PGEX_FPFAULT;
	child->vm = vmspace_fork(p->vm);
	return child->vm != NULL ? 0 : -1;
}

int
vmp_load(struct vmp *p, const char *entry)
{
	size_t len = (size_t)(g_vm_end - g_vm_start);
	uint64_t clen = roundup2(len, PAGE_SIZE);
	if (vm_mmap(p->vm, VMP_CODE, clen, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) != (long)VMP_CODE ||
	    vm_copyout(p->vm, g_vm_start, VMP_CODE, len) != 0 ||
	    vm_mprotect(p->vm, VMP_CODE, clen, PROT_READ | PROT_EXEC) != 0)
		return -1;
	uint64_t slen = 4 * PAGE_SIZE;
	if (vm_mmap(p->vm, VMP_STACK - slen, slen, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_GROWSDOWN, NULL, 0) !=
	    (long)(VMP_STACK - slen))
		return -1;
	vmp_goto(p, entry);
	return 0;
}

void
vmp_goto(struct vmp *p, const char *entry)
{
	p->tf.tf_rip = VMP_CODE + (uint64_t)(entry - g_vm_start);
	p->tf.tf_rsp = VMP_STACK - 64;
}

int
vmp_spawn(struct vmp *p, const char *entry)
{
	if (vmp_create(p) < 0)
		return -1;
	if (vmp_load(p, entry) < 0) {
		vmp_destroy(p);
		return -1;
	}
	return 0;
}

int
vmp_run(struct vmp *p)
{
	uint64_t last = ~0UL;
	int repeats = 0;

	for (;;) {
		if (vmspace_activate(p->vm) < 0 ||
		    vmspace_ctl(vmspace_host_id(p->vm), VMSPACE_CTL_RUN, &p->tf,
		    &p->vf) < 0)
			return -1;
		p->tf.tf_xflags = 0;
		if (p->tf.tf_trapno != T_PAGEFLT)
			return (int)p->tf.tf_trapno;
		int err = vm_fault(p->vm, p->tf.tf_addr,
		    vm_fault_type(p->tf.tf_err));
		if (err != 0) {
			p->fault_err = err;
			return T_PAGEFLT;
		}
		p->nfaults++;
		if (p->tf.tf_addr == last && ++repeats > VMP_STUCK) {
			fprintf(stderr, "    vmp_run: stuck faulting at %#lx "
			    "(err %#lx)\n", last, p->tf.tf_err);
			return -1;
		}
		if (p->tf.tf_addr != last)
			repeats = 0;
		last = p->tf.tf_addr;
	}
}

vpte_t
vmp_vpte(struct vmp *p, uint64_t va)
{
	vpte_t *pte = pmap_pte(&p->vm->vm_pmap, va);
	return pte != NULL ? *pte : 0;
}

uint64_t
vmp_pa(struct vmp *p, uint64_t va)
{
	vpte_t e = vmp_vpte(p, va);
	return (e & VPTE_V) ? (e & VPTE_FRAME) : ~0UL;
}

uint64_t
vmp_free_pages(void)
{
	kmem_reclaim();
	return vmstats.v_free_count;
}

int
vmp_anon(struct vmp *p, uint64_t addr, uint64_t len)
{
	return vm_mmap(p->vm, addr, len, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, NULL, 0) == (long)addr ?
	    0 : -1;
}

uint64_t
vmp_peek(struct vmp *p, uint64_t va)
{
	uint64_t v;
	return vm_copyin(p->vm, va, &v, sizeof(v)) == 0 ? v : ~0UL;
}

int
vmp_poke(struct vmp *p, uint64_t va, uint64_t v)
{
	return vm_copyout(p->vm, &v, va, sizeof(v));
}
