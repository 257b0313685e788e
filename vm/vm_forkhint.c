/*
 * What a forked child touches first, learned from its elder siblings.
 * A child's pmap starts empty and its host process maps nothing, so each
 * page it touches costs a fault through the host (a round trip of two
 * hand-offs, 12-20 us here), however resident the page is: a shell's
 * child that runs an applet took ~30 such faults before it exec'd or
 * exited, on the same pages every time.  So the pages a forked child
 * faults on before it execs are noted in its parent's address space (a
 * small set, newest kept), and the next fork enters them in the new
 * child's pmap as those faults would (vm_fault: a read maps the resident
 * page read-only, a write makes the child's copy) and has the host map
 * them with the child's first run (vmspace_activate).  Only a hint: a
 * page that is gone, or was never touched again, costs an entry in the
 * pmap and no more; a wrong hint cannot give a child more than its faults
 * would.
 *
 * The parent too: after each fork its first write to each page it wrote
 * before was a copy-on-write fault through the host (a shell: 3 to 5 per
 * fork, the same pages each time).  The pages it wrote since its last
 * fork are copied for it at the next (vmspace_fork_parent_touch), and
 * mapped by the host with its resume.
 */
#include "kern/kmem.h"
#include "vm/vm.h"
#include "vm/vm_map.h"

#define FORKHINT_PAGES	48	/* a shell's applet child: ~30 */

struct vm_forkhint {
	int refs;		/* the parent's vmspace, and its children's */
	int n, next;		/* pages held; the slot to replace next */
	uint64_t page[FORKHINT_PAGES];	/* page address | VM_PROT_WRITE */
	/* the parent's own writes since its last fork */
	int pn;
	uint64_t ppage[FORKHINT_PAGES];
};

static void
forkhint_rele(struct vm_forkhint *h)
{
	if (h != NULL && --h->refs == 0)
		kfree(h);
}

void
vm_forkhint_fork(struct vmspace *child, struct vmspace *parent)
{
	if (parent->vm_forkhint == NULL) {
		parent->vm_forkhint = kmalloc(sizeof(struct vm_forkhint), KM_ZERO);
		if (parent->vm_forkhint == NULL)
			return;
		parent->vm_forkhint->refs = 1;
	}
	struct vm_forkhint *h = parent->vm_forkhint;
	h->refs++;
	child->vm_forkhint_parent = h;
	for (int i = 0; i < h->n; i++) {
		uint64_t va = h->page[i] & ~(uint64_t)PAGE_MASK;
		if (h->page[i] & VM_PROT_WRITE)
			vmspace_touch_first(child, va);
		else
			vmspace_enter_first(child, va);
	}
}

void
vm_forkhint_rewrite(struct vmspace *parent, bool touch)
{
	struct vm_forkhint *h = parent->vm_forkhint;
	if (h == NULL)
		return;
	for (int i = 0; touch && i < h->pn; i++)
		vmspace_fork_parent_touch(parent, h->ppage[i]);
	h->pn = 0;
}

/* A write of the parent's own, which it may make again after its next fork. */
static void
note_parent(struct vm_forkhint *h, uint64_t page)
{
	for (int i = 0; i < h->pn; i++)
		if (h->ppage[i] == page)
			return;
	if (h->pn < FORKHINT_PAGES)
		h->ppage[h->pn++] = page;
}

void
vm_forkhint_note(struct vmspace *vm, uint64_t va, int type)
{
	if (va >= VM_MAX_USER_ADDRESS)
		return;
	uint64_t page = rounddown2(va, PAGE_SIZE);
	if (vm->vm_forkhint != NULL && (type & VM_PROT_WRITE))
		note_parent(vm->vm_forkhint, page);
	struct vm_forkhint *h = vm->vm_forkhint_parent;
	if (h == NULL)
		return;
	uint64_t w = (type & VM_PROT_WRITE) ? VM_PROT_WRITE : 0;
	for (int i = 0; i < h->n; i++) {
		if ((h->page[i] & ~(uint64_t)PAGE_MASK) == page) {
			h->page[i] |= w;
			return;
		}
	}
	if (h->n < FORKHINT_PAGES) {
		h->page[h->n++] = page | w;
		return;
	}
	h->page[h->next] = page | w;
	h->next = (h->next + 1) % FORKHINT_PAGES;
}

void
vm_forkhint_free(struct vmspace *vm)
{
	forkhint_rele(vm->vm_forkhint);
	forkhint_rele(vm->vm_forkhint_parent);
	vm->vm_forkhint = vm->vm_forkhint_parent = NULL;
}
