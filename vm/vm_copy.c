/*
 * copyin/copyout: the kernel's accesses to a process's memory (see
 * vm.h).  A process's pages are not mapped in the kernel's address space
 * as user pages; the kernel reaches them through RAM, after walking the
 * process's vpagetable in software as the MMU would.  A page the walk
 * does not allow is faulted in through vm_fault, exactly as if the
 * process had touched it.
 */
#include "vm/vm.h"

uint8_t *
vm_user_page(struct vmspace *vm, uint64_t va, bool write)
{
	vpte_t need = VPTE_V | VPTE_U | (write ? VPTE_RW : 0);

	for (int faulted = 0; ; faulted++) {
		vpte_t *pte = pmap_pte(&vm->vm_pmap, va);
		vpte_t e = pte != NULL ? __atomic_load_n(pte, __ATOMIC_ACQUIRE) : 0;
		if ((e & need) == need && physmem_valid(e & VPTE_FRAME, PAGE_SIZE)) {
			__atomic_or_fetch(pte, VPTE_A | (write ? VPTE_M : 0),
			    __ATOMIC_ACQ_REL);
			return PHYS_TO_DMAP(e & VPTE_FRAME);
		}
		if (faulted)
			panic("vm_user_page: vm_fault left %#lx without access", va);
		if (vm_fault(vm, va, write ? VM_PROT_WRITE : VM_PROT_READ) != 0)
			return NULL;
	}
}

/* True if [uaddr, uaddr + len) lies in user space. */
static bool
user_range(uint64_t uaddr, size_t len)
{
	return uaddr < VM_MAX_USER_ADDRESS && len <= VM_MAX_USER_ADDRESS - uaddr;
}

/* Copies len bytes between kbuf and uaddr, out to the process if write. */
static int
user_copy(struct vmspace *vm, uint64_t uaddr, uint8_t *kbuf, size_t len,
    bool write)
{
	if (len == 0)
		return 0;
	if (!user_range(uaddr, len))
		return -EFAULT;
	while (len > 0) {
		uint64_t off = uaddr & PAGE_MASK;
		size_t n = MIN(len, PAGE_SIZE - off);
		uint8_t *p = vm_user_page(vm, uaddr - off, write);
		if (p == NULL)
			return -EFAULT;
		if (write)
			memcpy(p + off, kbuf, n);
		else
			memcpy(kbuf, p + off, n);
		uaddr += n;
		kbuf += n;
		len -= n;
	}
	return 0;
}

int
vm_copyin(struct vmspace *vm, uint64_t uaddr, void *kbuf, size_t len)
{
	return user_copy(vm, uaddr, kbuf, len, false);
}

int
vm_copyout(struct vmspace *vm, const void *kbuf, uint64_t uaddr, size_t len)
{
	return user_copy(vm, uaddr, (uint8_t *)kbuf, len, true);
}

int
vm_copyinstr(struct vmspace *vm, uint64_t uaddr, char *kbuf, size_t maxlen,
    size_t *done)
{
	size_t copied = 0;
	int err = -ENAMETOOLONG;

	while (copied < maxlen) {
		if (uaddr >= VM_MAX_USER_ADDRESS) {
			err = -EFAULT;
			break;
		}
		uint64_t off = uaddr & PAGE_MASK;
		size_t n = MIN(maxlen - copied, PAGE_SIZE - off);
		const uint8_t *p = vm_user_page(vm, uaddr - off, false);
		if (p == NULL) {
			err = -EFAULT;
			break;
		}
		const uint8_t *nul = memchr(p + off, '\0', n);
		if (nul != NULL)
			n = (size_t)(nul - (p + off)) + 1;
		memcpy(kbuf + copied, p + off, n);
		copied += n;
		uaddr += n;
		if (nul != NULL) {
			err = 0;
			break;
		}
	}
	if (done != NULL)
		*done = copied;
	return err;
}
