/*
 * What the kernel needs of the VM system to patch system calls
 * (sys/sys_patch.c): the table of what each trampoline entry stands for
 * in an address space, and a way to write program text that never
 * reaches the file.
 *
 * Program text is a private mapping of a file: its pages are the page
 * cache's, shared by every process running the program.  A patch goes
 * into the process's own copy of the page, made as a write fault would
 * make it (vm_fault with VM_FAULT_COPY), so the file, its page cache and
 * the other processes never see it.  Fork shares the copy as any private
 * page (and the table with it); exec starts afresh.
 */
#include "kern/kmem.h"
#include "vm/vm.h"
#include "vm/vm_map.h"
#include "vm/vm_object.h"

struct vm_patch_site {
	uint64_t site;		/* the address of the patched mov */
	uint32_t nr;		/* the call it makes */
};

#define VM_PATCH_NREJECT	64	/* sites found not to match, remembered */

static uint64_t vm_patch_ids;	/* the last table's id */

#define VM_PATCH_NPEND		4	/* sites forked children asked for */

struct vm_patch {
	unsigned n, max;
	uint64_t id;		/* this table's, for children's credit */
	uint64_t from;		/* the id of the table fork copied, or 0 */
	uint64_t pend_rip[VM_PATCH_NPEND];	/* where the syscall ends */
	uint32_t pend_nr[VM_PATCH_NPEND];
	uint64_t reject[VM_PATCH_NREJECT];	/* by address, direct-mapped */
	uint64_t seen[VM_PATCH_NREJECT];	/* sites being counted */
	uint8_t calls[VM_PATCH_NREJECT];	/* ... and their calls so far */
	struct vm_patch_site site[];
};

/*
 * Multiplicative hashing: the sites of one library lie a few dozen bytes
 * apart, and a hash of the low bits put sites 64 bytes apart in one slot.
 */
static unsigned
reject_slot(uint64_t site)
{
	return (unsigned)(((site * 0x9e3779b97f4a7c15ULL) >> 32) %
	    VM_PATCH_NREJECT);
}

bool
vm_patch_rejected(struct vmspace *vm, uint64_t site)
{
	return vm->vm_patch != NULL &&
	    vm->vm_patch->reject[reject_slot(site)] == site + 1;
}

void
vm_patch_reject(struct vmspace *vm, uint64_t site)
{
	if (vm->vm_patch != NULL)
		vm->vm_patch->reject[reject_slot(site)] = site + 1;
}

unsigned
vm_patch_calls(struct vmspace *vm, uint64_t site)
{
	return vm->vm_patch != NULL ? vm_patch_count(vm->vm_patch, site) : 0;
}

unsigned
vm_patch_count(struct vm_patch *p, uint64_t site)
{
	/*
	 * Two ways per set, the one used last first: two sites of one set
	 * called in turn (a read and a write in a loop) each keep their
	 * count; a third site takes the way of the one used longer ago.
	 */
	unsigned i = reject_slot(site) & ~1u;
	if (p->seen[i] != site + 1) {
		uint64_t seen = p->seen[i];
		uint8_t calls = p->calls[i];
		p->calls[i] = p->seen[i + 1] == site + 1 ? p->calls[i + 1] : 0;
		p->seen[i] = site + 1;
		p->seen[i + 1] = seen;
		p->calls[i + 1] = calls;
	}
	if (p->calls[i] < UINT8_MAX)
		p->calls[i]++;
	return p->calls[i];
}

bool
vm_patch_lookup(struct vmspace *vm, unsigned k, uint64_t *site, uint32_t *nr)
{
	struct vm_patch *p = vm->vm_patch;

	if (p == NULL || k >= p->n)
		return false;
	*site = p->site[k].site;
	*nr = p->site[k].nr;
	return true;
}

int
vm_patch_init(struct vmspace *vm, unsigned max)
{
	if (vm->vm_patch != NULL)
		return 0;
	struct vm_patch *p = kmalloc(sizeof(*p) + max * sizeof(p->site[0]),
	    KM_ZERO);
	if (p == NULL)
		return -ENOMEM;
	p->max = max;
	p->id = ++vm_patch_ids;
	vm->vm_patch = p;
	return 0;
}

int
vm_patch_add(struct vmspace *vm, uint64_t site, uint32_t nr, unsigned max)
{
	struct vm_patch *p = vm->vm_patch;

	if (p == NULL) {
		int err = vm_patch_init(vm, max);
		if (err != 0)
			return err;
		p = vm->vm_patch;
	}
	for (unsigned k = 0; k < p->n; k++)
		if (p->site[k].site == site && p->site[k].nr == nr)
			return (int)k;
	if (p->n >= p->max || p->n >= max)
		return -ENOSPC;
	p->site[p->n] = (struct vm_patch_site){ site, nr };
	return (int)p->n++;
}

int
vm_patch_fork(struct vmspace *dst, const struct vmspace *src)
{
	const struct vm_patch *p = src->vm_patch;

	if (p == NULL)
		return 0;
	size_t size = sizeof(*p) + p->max * sizeof(p->site[0]);
	struct vm_patch *q = kmalloc(size, 0);
	if (q == NULL)
		return -ENOMEM;
	memcpy(q, p, size);
	q->from = p->id;
	q->id = ++vm_patch_ids;
	memset(q->pend_rip, 0, sizeof(q->pend_rip));
	/* The child counts its own calls; those it makes credit the parent. */
	memset(q->seen, 0, sizeof(q->seen));
	memset(q->calls, 0, sizeof(q->calls));
	dst->vm_patch = q;
	return 0;
}

struct vm_patch *
vm_patch_origin(struct vmspace *vm, struct vmspace *parent)
{
	struct vm_patch *p = vm->vm_patch, *q;

	if (p == NULL || parent == NULL || parent == vm ||
	    (q = parent->vm_patch) == NULL || p->from != q->id)
		return NULL;
	return q;
}

void
vm_patch_pend(struct vmspace *vm, uint64_t rip, uint32_t nr)
{
	struct vm_patch *p = vm->vm_patch;
	int free = -1;

	if (p == NULL)
		return;
	for (int i = 0; i < VM_PATCH_NPEND; i++) {
		if (p->pend_rip[i] == rip)
			return;
		if (p->pend_rip[i] == 0 && free < 0)
			free = i;
	}
	if (free >= 0) {
		p->pend_rip[free] = rip;
		p->pend_nr[free] = nr;
	}
}

bool
vm_patch_pending(struct vmspace *vm, uint64_t *rip, uint32_t *nr)
{
	struct vm_patch *p = vm->vm_patch;

	if (p == NULL)
		return false;
	for (int i = 0; i < VM_PATCH_NPEND; i++)
		if (p->pend_rip[i] != 0) {
			*rip = p->pend_rip[i];
			*nr = p->pend_nr[i];
			p->pend_rip[i] = 0;
			return true;
		}
	return false;
}

static void undo_near(struct vmspace *vm, struct vm_patch_site *ps);

/*
 * mremap moved [s, t) to `to`: a patched site there moved with its page
 * (the jump is in the page's own copy, which goes along), and its entry
 * must name the new address, or the next jump through it would find no
 * site holding it and the process would die of a SIGSEGV Linux never
 * gives.  The old address holds nothing of ours any more.
 */
void
vm_patch_move(struct vmspace *vm, uint64_t s, uint64_t t, uint64_t to)
{
	struct vm_patch *p = vm->vm_patch;

	if (p == NULL)
		return;
	for (unsigned k = 0; k < p->n; k++) {
		struct vm_patch_site *ps = &p->site[k];
		if (ps->site < s || ps->site >= t)
			continue;
		ps->site = ps->site - s + to;
		if (VM_PATCH_RUNLEN(ps->nr) != 0)
			undo_near(vm, ps);
	}
}

/*
 * A run site's jump is relative: moved, it no longer reaches its entry
 * and would jump into whatever lies as far from the near page.  Its mov
 * goes back (the bytes after it never changed) and the entry is dropped.
 */
static void
undo_near(struct vmspace *vm, struct vm_patch_site *ps)
{
	uint8_t *page = vm_text_page(vm, ps->site);
	uint32_t nr = VM_PATCH_NR(ps->nr);
	uint8_t mov[VM_PATCH_MOVLEN] = { 0xb8 };

	memcpy(mov + 1, &nr, 4);
	if (page != NULL && page[ps->site & PAGE_MASK] == 0xe9 &&
	    (ps->site & PAGE_MASK) + VM_PATCH_MOVLEN <= PAGE_SIZE)
		vm_text_store(page + (ps->site & PAGE_MASK), mov, VM_PATCH_MOVLEN);
	ps->site = 0;
	ps->nr = 0;
}

void
vm_text_store(uint8_t *p, const uint8_t *new, size_t len)
{
	uint8_t *blk = (uint8_t *)((uintptr_t)p & ~(uintptr_t)15);
	size_t off = (size_t)(p - blk);
	uint64_t lo, hi, nlo, nhi;
	uint8_t want[16];
	bool ok;

	if (off + len > 16) {
		memcpy(p, new, len);
		return;
	}
	do {
		memcpy(&lo, blk, 8);
		memcpy(&hi, blk + 8, 8);
		memcpy(want, &lo, 8);
		memcpy(want + 8, &hi, 8);
		memcpy(want + off, new, len);
		memcpy(&nlo, want, 8);
		memcpy(&nhi, want + 8, 8);
		__asm__ volatile ("lock cmpxchg16b %1"
		    : "=@ccz"(ok), "+m"(*(volatile __int128 *)blk), "+a"(lo), "+d"(hi)
		    : "b"(nlo), "c"(nhi) : "memory");
	} while (!ok);
}

void
vm_patch_free(struct vmspace *vm)
{
	kfree(vm->vm_patch);
	vm->vm_patch = NULL;
}

/* The object at the bottom of e's chain is a file's. */
static bool
entry_is_file(const struct vm_map_entry *e)
{
	const struct vm_object *obj = e->object;

	while (obj != NULL && obj->backing_object != NULL)
		obj = obj->backing_object;
	return obj != NULL && obj->type == OBJT_VNODE;
}

uint8_t *
vm_text_page(struct vmspace *vm, uint64_t va)
{
	struct vm_map_entry *e;

	va = rounddown2(va, PAGE_SIZE);
	if (va >= VM_MAX_USER_ADDRESS || !vm_map_lookup_entry(&vm->vm_map, va, &e))
		return NULL;
	if ((e->protection & (VM_PROT_EXECUTE | VM_PROT_WRITE)) != VM_PROT_EXECUTE ||
	    !(e->eflags & MAP_ENTRY_COW) || !entry_is_file(e))
		return NULL;
	if (vm_fault(vm, va, VM_PROT_WRITE | VM_FAULT_COPY) != 0)
		return NULL;
	/* The fault may have slept: look again. */
	if (!vm_map_lookup_entry(&vm->vm_map, va, &e) || e->object == NULL ||
	    e->object->type != OBJT_ANON)
		return NULL;
	vpte_t *pte = pmap_pte(&vm->vm_pmap, va);
	vpte_t v = pte != NULL ? __atomic_load_n(pte, __ATOMIC_ACQUIRE) : 0;
	if (!(v & VPTE_V) || !physmem_valid(v & VPTE_FRAME, PAGE_SIZE))
		return NULL;
	struct vm_page *m = PHYS_TO_VM_PAGE(v & VPTE_FRAME);
	if (m->object != e->object)
		return NULL;
	return PHYS_TO_DMAP(v & VPTE_FRAME);
}
