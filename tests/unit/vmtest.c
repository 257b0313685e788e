/*
 * Test helpers for the host layer (see vmtest.h).  RAM is managed by the
 * kernel's own allocators, vm_page and kmem.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/vmspace_backend.h"
#include "tests/unit/vmtest.h"
#include "kern/kmem.h"
#include "kern/vm_page.h"

#define VMT_RAM		(128UL << 20)

void
vmt_ram(void)
{
	static bool ready;

	if (physmem.base == NULL && physmem_init(VMT_RAM, NULL) < 0)
		abort();
	if (!ready) {
		vm_page_init();
		kmem_init();
		ready = true;
	}
}

uint64_t
vmt_page(void)
{
	vmt_ram();
	struct vm_page *m = vm_page_alloc(0, VM_ALLOC_ZERO);
	if (m == NULL)
		abort();
	return VM_PAGE_TO_PHYS(m);
}

uint64_t
vmt_block(int order)
{
	vmt_ram();
	struct vm_page *m = vm_page_alloc(order, VM_ALLOC_ZERO);
	if (m == NULL)
		abort();
	return VM_PAGE_TO_PHYS(m);
}

int
vmt_private_child(int (*fn)(void *), void *arg)
{
	vmt_ram();
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		/* The same contents, copy-on-write: the parent sees nothing. */
		if (mmap(physmem.base, physmem.size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_FIXED, physmem.fd, 0) != physmem.base)
			_exit(126);
		_exit(fn(arg));
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

int
vmt_create(struct vmt *v, const struct trap_params *p)
{
	memset(v, 0, sizeof(*v));
	vmt_ram();
	v->root = vmt_page();
	if (vmspace_create(v, VMSPACE_TYPE_DEFAULT, (void *)p) < 0)
		return -1;
	v->created = 1;
	if (vmspace_mmap(v, (void *)0, VM_MAX_USER_ADDRESS, PROT_READ |
	    PROT_WRITE | PROT_EXEC, MAP_VPAGETABLE, -1, 0) < 0 ||
	    vmspace_mcontrol(v, NULL, 0, MADV_SETMAP, (void *)v->root) < 0)
		return -1;
	vmspace_fpu_init(&v->vf);
	v->tf.tf_rflags = 0x202;
	v->tf.tf_xflags = PGEX_FPFAULT;
	return 0;
}

void
vmt_destroy(struct vmt *v)
{
	if (v->created)
		vmspace_destroy(v);
	v->created = 0;
}

vpte_t *
vmt_map(struct vmt *v, uint64_t va, uint64_t pa, uint64_t flags)
{
	uint64_t table = v->root;
	for (int l = VPTE_LEVELS - 1; l > 0; l--) {
		vpte_t *p = (vpte_t *)PHYS_TO_DMAP(table) + VPTE_INDEX(va, l);
		if (!(*p & VPTE_V))
			*p = vmt_page() | VPTE_V | VPTE_U | VPTE_RW;
		table = *p & VPTE_FRAME;
	}
	vpte_t *leaf = (vpte_t *)PHYS_TO_DMAP(table) + VPTE_INDEX(va, 0);
	*leaf = pa | flags;
	return leaf;
}

vpte_t *
vmt_pte(struct vmt *v, uint64_t va)
{
	uint64_t table = v->root;
	for (int l = VPTE_LEVELS - 1; l > 0; l--) {
		vpte_t e = ((vpte_t *)PHYS_TO_DMAP(table))[VPTE_INDEX(va, l)];
		if (!(e & VPTE_V))
			return NULL;
		table = e & VPTE_FRAME;
	}
	return (vpte_t *)PHYS_TO_DMAP(table) + VPTE_INDEX(va, 0);
}

void
vmt_code(struct vmt *v, const char *code, size_t len)
{
	for (size_t off = 0; off < len; off += PAGE_SIZE) {
		uint64_t pa = vmt_page();
		size_t n = len - off < PAGE_SIZE ? len - off : PAGE_SIZE;
		memcpy(PHYS_TO_DMAP(pa), code + off, n);
		vmt_map(v, VMT_CODE + off, pa, VPTE_V | VPTE_U);
	}
	v->tf.tf_rip = VMT_CODE;
}

void
vmt_stack(struct vmt *v)
{
	for (int i = 1; i <= 4; i++)
		vmt_map(v, VMT_STACK - i * PAGE_SIZE, vmt_page(),
		    VPTE_USER_RW | VPTE_NX);
	v->tf.tf_rsp = VMT_STACK - 64;
}

int
vmt_run(struct vmt *v)
{
	if (vmspace_ctl(v, VMSPACE_CTL_RUN, &v->tf, &v->vf) < 0)
		return -1;
	v->tf.tf_xflags = 0;
	return (int)v->tf.tf_trapno;
}

struct vmspace_host *
vmt_host(struct vmt *v)
{
	return vmspace_host_of(v);
}
