/*
 * Atomic operations on words of a process's memory (see vm_atomic.h).
 */
#include "vm/vm.h"
#include "vm/vm_atomic.h"

/* The kernel's pointer to the aligned word at uaddr, or NULL. */
static uint32_t *
user_word(struct vmspace *vm, uint64_t uaddr, bool write)
{
	if ((uaddr & 3) != 0 || uaddr >= VM_MAX_USER_ADDRESS)
		return NULL;
	uint8_t *page = vm_user_page(vm, uaddr & ~(uint64_t)PAGE_MASK, write);
	return page != NULL ? (uint32_t *)(page + (uaddr & PAGE_MASK)) : NULL;
}

int
vm_atomic_load32(struct vmspace *vm, uint64_t uaddr, uint32_t *val)
{
	uint32_t *p = user_word(vm, uaddr, false);
	if (p == NULL)
		return -EFAULT;
	*val = __atomic_load_n(p, __ATOMIC_SEQ_CST);
	return 0;
}

int
vm_atomic_cmpxchg32(struct vmspace *vm, uint64_t uaddr, uint32_t expect,
    uint32_t new, uint32_t *cur)
{
	uint32_t *p = user_word(vm, uaddr, true);
	if (p == NULL)
		return -EFAULT;
	__atomic_compare_exchange_n(p, &expect, new, false, __ATOMIC_SEQ_CST,
	    __ATOMIC_SEQ_CST);
	*cur = expect;
	return 0;
}

int
vm_atomic_op32(struct vmspace *vm, uint64_t uaddr, enum vm_atomic_op op,
    uint32_t arg, uint32_t *old)
{
	uint32_t *p = user_word(vm, uaddr, true);
	if (p == NULL)
		return -EFAULT;
	switch (op) {
	case VM_ATOMIC_SET:
		*old = __atomic_exchange_n(p, arg, __ATOMIC_SEQ_CST);
		break;
	case VM_ATOMIC_ADD:
		*old = __atomic_fetch_add(p, arg, __ATOMIC_SEQ_CST);
		break;
	case VM_ATOMIC_OR:
		*old = __atomic_fetch_or(p, arg, __ATOMIC_SEQ_CST);
		break;
	case VM_ATOMIC_ANDN:
		*old = __atomic_fetch_and(p, ~arg, __ATOMIC_SEQ_CST);
		break;
	case VM_ATOMIC_XOR:
		*old = __atomic_fetch_xor(p, arg, __ATOMIC_SEQ_CST);
		break;
	}
	return 0;
}
