/*
 * Address spaces of processes (struct vmspace, see vm.h): creation,
 * sharing, fork and exec, and the VM system's start-up.
 */
#include "kern/kmem.h"
#include "kern/thread.h"
#include "kern/vm_page.h"
#include "vm/vm.h"
#include "vm/vm_map.h"
#include "vm/vm_object.h"
#include "vm/vm_page_ext.h"

static struct kmem_cache *vmspace_cache;

void
vm_init(void)
{
	vm_page_ext_init();
	vm_object_init();
	vm_map_init_cache();
	pmap_init();
	vmspace_cache = kmem_cache_create("vmspace", sizeof(struct vmspace), 0);
	if (vmspace_cache == NULL)
		panic("vm_init: no RAM");
}

/* The placement fields of a new process's address space. */
static void
vmspace_reset(struct vmspace *vm)
{
	vm->vm_brk_start = vm->vm_brk = 0;
	vm->vm_mmap_base = VM_MMAP_BASE;
	vm->vm_stack_max = VM_STACK_MAX_DEFAULT;
	vm->vm_arg_start = vm->vm_arg_end = vm->vm_env_end = 0;
	vm->vm_auxv_start = vm->vm_auxv_end = 0;
	vm->vm_image_start = vm->vm_image_end = 0;
	vm->vm_as_max = UINT64_MAX;
}

struct vmspace *
vmspace_alloc(void)
{
	struct vmspace *vm = kmem_cache_alloc(vmspace_cache, KM_ZERO);
	if (vm == NULL)
		return NULL;
	if (pmap_pinit(&vm->vm_pmap) != 0) {
		kmem_cache_free(vmspace_cache, vm);
		return NULL;
	}
	vm_map_init(&vm->vm_map, &vm->vm_pmap, VM_MIN_USER_ADDRESS,
	    VM_MAX_USER_ADDRESS);
	vm->vm_refcnt = 1;
	vmspace_reset(vm);
	return vm;
}

void
vmspace_ref(struct vmspace *vm)
{
	KASSERT(vm->vm_refcnt > 0, "vmspace_ref: freed vmspace");
	vm->vm_refcnt++;
}

/* What vmspace_free does once vm's host vmspace is gone. */
static void
vmspace_release(struct vmspace *vm)
{
	/* No guest runs or maps anything after this: no invalidations needed. */
	pmap_unhost_finish(&vm->vm_pmap);
	pmap_settle();		/* the pages may be a forking parent's too */
	vm_map_delete(&vm->vm_map, vm_map_min(&vm->vm_map),
	    vm_map_max(&vm->vm_map));
	vm_map_fini(&vm->vm_map);
	pmap_release(&vm->vm_pmap);
	vm_patch_free(vm);
	vm_forkhint_free(vm);
	kmem_cache_free(vmspace_cache, vm);
}

/*
 * Address spaces whose host vmspace is going in the background, released
 * by the vmreap thread once it is gone: an exit need not wait for the
 * host (a stub's wipe, a mapper round trip of 50-60 us, or a killed
 * stub's end) before its parent may collect it.  Only an address space
 * whose every mapping is private waits so (reap_may_wait): its release
 * changes nothing another process can see (no System V segment's attach
 * count, no shared object's pages moving) but the references to the
 * files it mapped and the RAM it frees, which vmspace_drain lets unmount,
 * the free-memory counts and a fault short of RAM wait out.  Its pages
 * stay its own meanwhile, out of every other process's reach.
 */
#define REAP_FREE_PART	4	/* free RAM below 1/4: released at once */

static struct vmspace *reapq;
static struct thread *reap_td;
static char reap_idle;		/* what the thread sleeps on with none queued */

static void
vmreap(void *arg)
{
	(void)arg;
	for (;;) {
		if (reapq == NULL) {
			wakeup(&reapq);		/* vmspace_drain */
			tsleep(&reap_idle, 0, "vmreap", 0);
			continue;
		}
		bool released = false;
		for (struct vmspace **vp = &reapq; *vp != NULL;) {
			struct vmspace *vm = *vp;
			if (!pmap_unhost_gone(&vm->vm_pmap)) {
				vp = &vm->vm_reapnext;
				continue;
			}
			*vp = vm->vm_reapnext;
			vmspace_release(vm);
			released = true;
			break;	/* the release may have slept: from the top */
		}
		if (!released)
			pmap_unhost_sleep("vmreap");
	}
}

/*
 * True if vm's release may wait for its host vmspace in vmreap: in a
 * kernel thread, with RAM to spare (a process that took most of it gives
 * it back before its parent learns it ended, as before).
 */
static bool
reap_may_wait(struct vmspace *vm)
{
	if (curthread == NULL ||
	    vmstats.v_free_count < vmstats.v_page_count / REAP_FREE_PART)
		return false;
	for (struct vm_map_entry *e = VM_MAP_FIRST(&vm->vm_map);
	    e != VM_MAP_END(&vm->vm_map); e = e->next)
		if (e->object != NULL && !(e->eflags & MAP_ENTRY_COW))
			return false;
	return true;
}

/* Queues vm for vmreap; false if that thread cannot start. */
static bool
reap_queue(struct vmspace *vm)
{
	if (reap_td == NULL) {
		reap_td = thread_create("vmreap", vmreap, NULL);
		if (reap_td == NULL)
			return false;
		thread_start(reap_td);
	}
	vm->vm_reapnext = reapq;
	reapq = vm;
	wakeup(&reap_idle);
	return true;
}

void
vmspace_free(struct vmspace *vm)
{
	KASSERT(vm->vm_refcnt > 0, "vmspace_free: freed vmspace");
	if (--vm->vm_refcnt > 0)
		return;
	if (reap_may_wait(vm) && pmap_unhost_start(&vm->vm_pmap) &&
	    !pmap_unhost_gone(&vm->vm_pmap) && reap_queue(vm))
		return;
	pmap_unhost(&vm->vm_pmap);
	vmspace_release(vm);
}

bool
vmspace_drain(void)
{
	bool waited = reapq != NULL;
	while (reapq != NULL)
		tsleep(&reapq, 0, "vmdrain", 10000000);
	return waited;
}

/* The host maps va's group at vm's first run (vmspace_activate). */
static void
first_page(struct vmspace *vm, uint64_t va)
{
	uint64_t g = rounddown2(va, VM_FIRST_GROUP);
	for (int i = 0; i < vm->vm_nfirst; i++)
		if (vm->vm_first[i] == g)
			return;
	if (vm->vm_nfirst < VM_FIRST_PAGES)
		vm->vm_first[vm->vm_nfirst++] = g;
}

/*
 * Whether the page at va of e is a file's own: a private mapping of a
 * file not written there yet (or not in memory), which shows the file's
 * changes until it is written.
 */
static bool
page_of_file(const struct vm_map_entry *e, uint64_t va)
{
	uint64_t pindex = vm_map_entry_pindex(e, va);
	struct vm_object *obj = e->object;
	for (; obj != NULL; obj = obj->backing_object) {
		if (vm_object_page_lookup(obj, pindex) != NULL)
			return obj->type == OBJT_VNODE;
		if (obj->backing_object == NULL)
			break;
	}
	return obj != NULL && obj->type == OBJT_VNODE;
}

void
vmspace_touch_first(struct vmspace *vm, uint64_t va)
{
	struct vm_map_entry *e;

	KASSERT(!vm->vm_pmap.pm_hosted, "vmspace_touch_first: vmspace ran");
	if (va >= VM_MAX_USER_ADDRESS ||
	    !vm_map_lookup_entry(&vm->vm_map, va, &e) ||
	    !(e->eflags & MAP_ENTRY_COW) || !(e->protection & VM_PROT_WRITE))
		return;
	/* A copy made on a guess would end a file page's view of the file. */
	if (page_of_file(e, va)) {
		vmspace_enter_first(vm, va);
		return;
	}
	if (vm_fault(vm, va, VM_PROT_WRITE) == 0)
		first_page(vm, va);
}

void
vmspace_enter_first(struct vmspace *vm, uint64_t va)
{
	struct vm_map_entry *e;

	KASSERT(!vm->vm_pmap.pm_hosted, "vmspace_enter_first: vmspace ran");
	if (va >= VM_MAX_USER_ADDRESS ||
	    !vm_map_lookup_entry(&vm->vm_map, va, &e) ||
	    !(e->protection & VM_PROT_READ))
		return;
	if (vm_fault(vm, va, VM_PROT_READ) == 0)
		first_page(vm, va);
}

void
vmspace_fork_end(struct vmspace *vm)
{
	pmap_defer_end(&vm->vm_pmap);
}

void
vmspace_fork_parent_touch(struct vmspace *vm, uint64_t va)
{
	struct vm_map_entry *e;

	if (va >= VM_MAX_USER_ADDRESS ||
	    !vm_map_lookup_entry(&vm->vm_map, va, &e) ||
	    !(e->eflags & MAP_ENTRY_COW) || !(e->protection & VM_PROT_WRITE))
		return;
	uint64_t page = rounddown2(va, PAGE_SIZE);
	if (vm_fault(vm, page, VM_PROT_WRITE) == 0)
		pmap_prefault(&vm->vm_pmap, page, page + PAGE_SIZE);
}

/*
 * What fork or exec entered for the first run goes with its resume: each
 * page would otherwise cost a fault through the host.
 */
static void
first_map(struct vmspace *vm)
{
	for (int i = 0; vm->vm_pmap.pm_hosted && i < vm->vm_nfirst; i++)
		pmap_prefault(&vm->vm_pmap, vm->vm_first[i],
		    vm->vm_first[i] + VM_FIRST_GROUP);
	vm->vm_nfirst = 0;
}

int
vmspace_activate(struct vmspace *vm)
{
	if (vm->vm_pmap.pm_hosted)
		return 0;
	pmap_settle();		/* a forked child: its parent's protection */
	int error = pmap_host(&vm->vm_pmap);
	first_map(vm);
	return error;
}

void
vmspace_exec_switch(struct vmspace *new, struct vmspace *old)
{
	/*
	 * Keeping the host process saves creating one and destroying the
	 * other, where the host says it does (vmspace_exec_keeps); else, or
	 * if the move fails, old goes as an exit's does and new is hosted
	 * afresh at its first run.
	 */
	if (old->vm_refcnt == 1 && old->vm_pmap.pm_hosted &&
	    pmap_take_host(&new->vm_pmap, &old->vm_pmap) == 0)
		first_map(new);
	vmspace_free(old);
}

void
vmspace_exec(struct vmspace *vm)
{
	KASSERT(vm->vm_refcnt == 1, "vmspace_exec: shared vmspace");
	vm_map_delete(&vm->vm_map, vm_map_min(&vm->vm_map),
	    vm_map_max(&vm->vm_map));
	vm_patch_free(vm);
	vm_forkhint_free(vm);
	vmspace_reset(vm);
}

/*
 * Gives the child map2 its copy of parent entry e.  Write protections the
 * parent's pmap owes widen [*lo, *hi).  Returns 0 or -ENOMEM.
 */
static int
fork_entry(struct vmspace *vm1, struct vm_map_entry *e, struct vm_map *map2,
    uint64_t *lo, uint64_t *hi)
{
	struct vm_object *obj = e->object;
	int eflags = e->eflags;

	if (eflags & MAP_ENTRY_DONTFORK)
		return 0;
	if (eflags & MAP_ENTRY_WIPEONFORK) {
		obj = NULL;
		eflags &= ~MAP_ENTRY_NEEDS_COPY;
	} else if (!(eflags & MAP_ENTRY_COW)) {
		/* Shared: both must see one object, so it must exist now. */
		if (obj == NULL) {
			if ((obj = vm_object_allocate_anon()) == NULL)
				return -ENOMEM;
			vm_map_entry_set_object(&vm1->vm_map, e, obj, e->start);
		}
		obj->flags &= ~OBJ_ONEMAPPING;
	} else if (obj != NULL) {
		/*
		 * Private: both sides keep the object read-only until each
		 * writes and gets a shadow of its own.
		 */
		obj->flags &= ~OBJ_ONEMAPPING;
		e->eflags |= MAP_ENTRY_NEEDS_COPY;
		eflags |= MAP_ENTRY_NEEDS_COPY;
		pmap_protect_deferred(&vm1->vm_pmap, e->start, e->end,
		    (e->protection & ~VM_PROT_WRITE) | VM_PROT_READ, lo, hi);
	}
	if (obj != NULL)
		vm_object_reference(obj);
	int err = vm_map_insert(map2, e->start, e->end, obj,
	    obj != NULL ? e->offset : 0, e->protection, e->max_protection,
	    eflags);
	if (err != 0 && obj != NULL)
		vm_object_deallocate(obj);
	if (err == 0 && e->name != NULL)
		err = vm_map_set_name(map2, e->start, e->end, e->name);
	return err;
}

struct vmspace *
vmspace_fork(struct vmspace *vm1)
{
	struct vm_map *map1 = &vm1->vm_map;
	struct vmspace *vm2 = vmspace_alloc();
	uint64_t lo = UINT64_MAX, hi = 0;
	int err = 0;

	if (vm2 == NULL)
		return NULL;
	for (struct vm_map_entry *e = VM_MAP_FIRST(map1);
	    e != VM_MAP_END(map1) && err == 0; e = e->next)
		err = fork_entry(vm1, e, &vm2->vm_map, &lo, &hi);
	if (err == 0)
		err = vm_patch_fork(vm2, vm1);
	if (err != 0) {
		pmap_invalidate(&vm1->vm_pmap, lo, hi);
		vmspace_free(vm2);
		return NULL;
	}
	/*
	 * Before anyone runs: the parent must not write shared pages.  The
	 * host may do it with the parent's resume (pmap_invalidate_defer):
	 * the child's first run settles it (vmspace_activate), and so does
	 * the release of any address space, which is what could free the
	 * pages (a child's that never ran: they are its parent's only
	 * while the parent shares them).
	 */
	pmap_invalidate_defer(&vm1->vm_pmap, lo, hi);
	vm2->vm_brk_start = vm1->vm_brk_start;
	vm2->vm_brk = vm1->vm_brk;
	vm2->vm_mmap_base = vm1->vm_mmap_base;
	vm2->vm_stack_max = vm1->vm_stack_max;
	vm2->vm_arg_start = vm1->vm_arg_start;
	vm2->vm_arg_end = vm1->vm_arg_end;
	vm2->vm_env_end = vm1->vm_env_end;
	vm2->vm_auxv_start = vm1->vm_auxv_start;
	vm2->vm_auxv_end = vm1->vm_auxv_end;
	vm2->vm_image_start = vm1->vm_image_start;
	vm2->vm_image_end = vm1->vm_image_end;
	vm2->vm_as_max = vm1->vm_as_max;
	return vm2;
}
