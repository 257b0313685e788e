/*
 * show map, show pte, show page: a process's address space from the map
 * down to the vpagetable, and a page of RAM.
 */
#include <stdio.h>
#include <stdlib.h>

#include "ddb/ddb.h"
#include "fs/vnode.h"
#include "kern/proc.h"
#include "kern/vm_page.h"
#include "vm/pmap.h"
#include "vm/vm.h"
#include "vm/vm_map.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"

static struct vmspace *
db_vmspace(const char *arg)
{
	long pid;
	if (!db_number(arg, &pid))
		return NULL;
	struct proc *p = pfind((pid_t)pid);
	if (p == NULL || p->p_vmspace == NULL) {
		db_printf("%ld: no such process, or it has no address space\n", pid);
		return NULL;
	}
	return p->p_vmspace;
}

static void
db_prot(char *s, int prot)
{
	s[0] = (prot & VM_PROT_READ) ? 'r' : '-';
	s[1] = (prot & VM_PROT_WRITE) ? 'w' : '-';
	s[2] = (prot & VM_PROT_EXECUTE) ? 'x' : '-';
	s[3] = '\0';
}

/* An object and what backs it, down the shadow chain. */
static void
db_print_object(const struct vm_object *obj)
{
	for (int depth = 0; obj != NULL && depth < 8; depth++) {
		db_printf("%s%p %s ref %d pages %lu", depth ? " -> " : "",
		    (const void *)obj, obj->type == OBJT_VNODE ? "vnode" : "anon",
		    obj->ref_count, (unsigned long)obj->resident_page_count);
		if (obj->type == OBJT_VNODE && obj->handle != NULL) {
			const struct vnode *vp = obj->handle;
			db_printf(" (vnode %p ino %lu)", obj->handle,
			    (unsigned long)vp->v_ino);
		}
		obj = obj->backing_object;
	}
}

void
db_show_map(int argc, char **argv)
{
	if (argc < 2) {
		db_printf("usage: show map PID\n");
		return;
	}
	struct vmspace *vm = db_vmspace(argv[1]);
	if (vm == NULL)
		return;
	struct vm_map *map = &vm->vm_map;
	db_printf("map %p: %lu entries, %lu KiB, pmap %p (root %#lx, %lu resident)\n",
	    (void *)map, (unsigned long)map->nentries, (unsigned long)(map->size >> 10),
	    (void *)map->pmap, (unsigned long)vm->vm_pmap.pm_root,
	    (unsigned long)vm->vm_pmap.pm_resident);
	db_printf("%-16s %-16s %-4s %-4s %-5s %-10s %s\n", "START", "END", "PROT",
	    "MAX", "FLAGS", "OFFSET", "OBJECT");
	for (const struct vm_map_entry *e = map->header.next; e != &map->header;
	    e = e->next) {
		char prot[4], max[4];
		db_prot(prot, e->protection);
		db_prot(max, e->max_protection);
		db_printf("%016lx %016lx %-4s %-4s %c%c%c   %-10lx ",
		    (unsigned long)e->start, (unsigned long)e->end, prot, max,
		    (e->eflags & MAP_ENTRY_COW) ? 'p' : 's',
		    (e->eflags & MAP_ENTRY_NEEDS_COPY) ? 'n' : '-',
		    (e->eflags & MAP_ENTRY_GROWSDOWN) ? 'g' : '-',
		    (unsigned long)e->offset);
		if (e->object == NULL)
			db_printf("none");
		else
			db_print_object(e->object);
		if (e->name != NULL)
			db_printf(" %s", e->name);
		db_printf("\n");
	}
	db_printf("flags: p private (copy-on-write), s shared, n needs copy, g grows down\n");
}

static void
db_pte_bits(vpte_t pte)
{
	db_printf("%s%s%s%s%s%s%s",
	    (pte & VPTE_V) ? " V" : " -", (pte & VPTE_RW) ? " RW" : " RO",
	    (pte & VPTE_U) ? " U" : "", (pte & VPTE_A) ? " A" : "",
	    (pte & VPTE_M) ? " M" : "", (pte & VPTE_PS) ? " PS" : "",
	    (pte & VPTE_NX) ? " NX" : "");
}

void
db_show_pte(int argc, char **argv)
{
	static const char *const level_name[VPTE_LEVELS] = { "PT", "PD", "PDPT", "PML4" };
	uintptr_t va;

	if (argc < 3) {
		db_printf("usage: show pte PID ADDR\n");
		return;
	}
	struct vmspace *vm = db_vmspace(argv[1]);
	if (vm == NULL || !db_addr(argv[2], &va))
		return;
	uint64_t table = vm->vm_pmap.pm_root;
	db_printf("va %#lx in pmap %p:\n", (unsigned long)va, (void *)&vm->vm_pmap);
	for (int l = VPTE_LEVELS - 1; l >= 0; l--) {
		if (!physmem_valid(table, PAGE_SIZE) || (table & PAGE_MASK) != 0) {
			db_printf("  table %#lx is not a page of RAM\n", (unsigned long)table);
			return;
		}
		unsigned idx = VPTE_INDEX(va, l);
		vpte_t pte = __atomic_load_n(&((vpte_t *)PHYS_TO_DMAP(table))[idx],
		    __ATOMIC_RELAXED);
		db_printf("  %-4s %#10lx[%3u] = %016lx", level_name[l],
		    (unsigned long)table, idx, (unsigned long)pte);
		db_pte_bits(pte);
		db_printf("\n");
		if (!(pte & VPTE_V)) {
			db_printf("  not mapped\n");
			return;
		}
		if (l == 0 || (pte & VPTE_PS)) {
			uint64_t mask = (1UL << VPTE_SHIFT(l)) - 1;
			db_printf("  page %#lx, byte at pa %#lx\n",
			    (unsigned long)(pte & VPTE_FRAME & ~mask),
			    (unsigned long)((pte & VPTE_FRAME & ~mask) | (va & mask)));
			return;
		}
		table = pte & VPTE_FRAME;
	}
}

void
db_show_page(int argc, char **argv)
{
	uintptr_t pa;

	if (argc < 2) {
		db_printf("usage: show page PA\n");
		return;
	}
	if (!db_addr(argv[1], &pa))
		return;
	if (!physmem_valid(pa, 1) || pa >= physmem.size) {
		db_printf("%#lx: not in RAM (%#lx bytes)\n", (unsigned long)pa,
		    (unsigned long)physmem.size);
		return;
	}
	struct vm_page *m = PHYS_TO_VM_PAGE(pa & ~(uint64_t)PAGE_MASK);
	db_printf("page %p pa %#lx: flags %#x%s%s%s queue %u order %u wire %u hold %u act %u\n",
	    (void *)m, (unsigned long)VM_PAGE_TO_PHYS(m), m->flags,
	    (m->flags & PG_FREE) ? " free" : "", (m->flags & PG_RESERVED) ? " reserved" : "",
	    (m->flags & PG_KMEM) ? " kmem" : "", m->queue, m->order, m->wire_count,
	    m->hold_count, m->act_count);
	if (m->flags & (PG_FREE | PG_RESERVED | PG_KMEM))
		return;
	db_printf("  object %p pindex %lu\n", (void *)m->object,
	    (unsigned long)m->pindex);
	struct vm_page_ext *x = VM_PAGE_EXT(m);
	db_printf("  %s%s mapped at:", (x->flags & PGX_DIRTY) ? "dirty " : "",
	    (x->flags & PGX_REFERENCED) ? "referenced " : "");
	int n = 0;
	for (const struct pv_entry *pv = x->pv; pv != NULL && n < 16; pv = pv->pv_next, n++)
		db_printf(" %p:%#lx", (void *)pv->pv_pmap, (unsigned long)pv->pv_va);
	db_printf("%s\n", n == 0 ? " nowhere" : "");
}
