/*
 * Helpers for tests of the VM system (vm/): a "process" is a vmspace and
 * the registers of one guest thread, run through the host layer with
 * every page fault served by vm_fault, the loop the kernel's trap handler
 * will run.  Guest programs are in guest_vm.S.
 */
#ifndef TESTS_UNIT_VMPROC_H
#define TESTS_UNIT_VMPROC_H

#include <stdint.h>

#include "tests/unit/vmtest.h"
#include "vm/vm.h"

#define VMP_CODE	0x400000UL	/* where guest code goes */
#define VMP_STACK	0x7ff000000UL	/* top of the guest stack */
#define VMP_DATA	0x10000000UL	/* a free area for data */

/* System calls the guest programs report with (tf_rax). */
#define VMP_SYS_LOAD	1000
#define VMP_SYS_STORE	1001
#define VMP_SYS_DONE	1002

struct vmp {
	struct vmspace *vm;
	struct trapframe tf;
	struct vextframe vf;
	int fault_err;		/* vm_fault's error for a returned T_PAGEFLT */
	uint64_t nfaults;	/* faults vm_fault served */
};

/* RAM, vm_page, kmem and the VM system, once per test program. */
void vmp_init(void);

/* A process with an empty address space; 0 or -1. */
int vmp_create(struct vmp *p);
void vmp_destroy(struct vmp *p);

/* fork: child gets a vmspace_fork of p's and p's registers; 0 or -1. */
int vmp_fork(struct vmp *p, struct vmp *child);

/* The guest programs of guest_vm.S, all mapped together. */
extern const char g_vm_start[], g_vm_end[];
GUEST(vm_load);
GUEST(vm_store);
GUEST(vm_fill);
GUEST(vm_sum);
GUEST(vm_stack);
GUEST(vm_jump);

/*
 * Maps the guest programs read-execute at VMP_CODE (written with
 * vm_copyout while writable) and a MAP_GROWSDOWN stack of four pages
 * below VMP_STACK, and points the registers at the program entry (one
 * of g_vm_*) and the stack.  0 or -1.
 */
int vmp_load(struct vmp *p, const char *entry);

/* Points p's next run at the start of program entry. */
void vmp_goto(struct vmp *p, const char *entry);

/* A new process with the programs loaded, starting at entry: 0 or -1. */
int vmp_spawn(struct vmp *p, const char *entry);

/*
 * Runs the thread until it traps with anything but a page fault vm_fault
 * serves: returns the trap number, T_PAGEFLT with p->fault_err set if
 * vm_fault refused the fault, or -1 if the host layer failed or faults
 * repeat without progress.
 */
int vmp_run(struct vmp *p);

/* The physical address va maps to in p's vpagetable, or ~0 if none. */
uint64_t vmp_pa(struct vmp *p, uint64_t va);

/* p's leaf VPTE for va (0 if none). */
vpte_t vmp_vpte(struct vmp *p, uint64_t va);

/* Free pages of RAM with kmem's spare slabs returned: a baseline. */
uint64_t vmp_free_pages(void);

/* Anonymous private read-write memory at addr (MAP_FIXED): 0 or -1. */
int vmp_anon(struct vmp *p, uint64_t addr, uint64_t len);

/* A qword of the process's memory through vm_copyin (~0 on -EFAULT). */
uint64_t vmp_peek(struct vmp *p, uint64_t va);

/* Writes a qword with vm_copyout: 0 or -EFAULT. */
int vmp_poke(struct vmp *p, uint64_t va, uint64_t v);

#endif /* TESTS_UNIT_VMPROC_H */
