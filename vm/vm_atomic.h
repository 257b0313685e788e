/*
 * Atomic operations on 32-bit words of a process's memory, for futexes.
 * The kernel reaches a process's page through RAM (vm_user_page), and
 * RAM is the very memory the host maps into the guest, so a locked
 * instruction on the kernel's address is atomic against guest threads
 * running on other CPUs at the same time.
 *
 * Each function takes a 4-byte aligned user address and returns 0, or
 * -EFAULT when the process may not make the access (no mapping, outside
 * user space, protections): reads need read access, the others write
 * access (a write fault breaks copy-on-write first, as a store would).
 *
 * Locking: the big kernel lock (faults may sleep).
 */
#ifndef VM_VM_ATOMIC_H
#define VM_VM_ATOMIC_H

#include <stdint.h>

struct vmspace;

/* The operations of FUTEX_WAKE_OP, with Linux's FUTEX_OP_* numbers. */
enum vm_atomic_op {
	VM_ATOMIC_SET,		/* *p = arg */
	VM_ATOMIC_ADD,		/* *p += arg */
	VM_ATOMIC_OR,		/* *p |= arg */
	VM_ATOMIC_ANDN,		/* *p &= ~arg */
	VM_ATOMIC_XOR,		/* *p ^= arg */
};

/* *val = the word at uaddr. */
int vm_atomic_load32(struct vmspace *vm, uint64_t uaddr, uint32_t *val);

/*
 * Compare and exchange: if the word at uaddr is expect it becomes new.
 * *cur is what the word held (expect if the exchange happened).
 */
int vm_atomic_cmpxchg32(struct vmspace *vm, uint64_t uaddr, uint32_t expect,
    uint32_t new, uint32_t *cur);

/* Applies op with arg to the word at uaddr; *old is its value before. */
int vm_atomic_op32(struct vmspace *vm, uint64_t uaddr, enum vm_atomic_op op,
    uint32_t arg, uint32_t *old);

#endif /* VM_VM_ATOMIC_H */
