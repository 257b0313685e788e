/*
 * The initial stack of a new image, as Linux lays it out: from the top,
 * the file name, the environment and argument strings, the platform
 * string and 16 random bytes; then, 16-byte aligned, argc, argv[], NULL,
 * envp[], NULL, and the auxiliary vector, with Linux's entries in Linux's
 * order (fs/binfmt_elf.c's create_elf_tables, x86-64's ARCH_DLINFO
 * first).  Not given: the rseq entries (no rseq here).
 */
#include <elf.h>
#include <sys/auxv.h>
#include <sys/mman.h>

#include "host/cpuid.h"
#include "host/random.h"
#include "proc/exec.h"
#include "kern/uio.h"
#include "kern/ucred.h"
#include "kern/kmem.h"
#include "vm/vm.h"

#define EXEC_STACK_INIT	(128UL << 10)	/* grows down to RLIMIT_STACK */
#define AUXV_MAX	24

/*
 * AT_HWCAP: the feature flags of cpuid leaf 1, edx, as Linux gives (its
 * boot CPU's).  Read once: under a hypervisor cpuid is a VM exit, 7.5 us
 * on this nested host, a tenth of what an exec took.  Exec runs under
 * the big lock, so the first reading is made once.
 */
static uint64_t
cpu_hwcap(void)
{
	static uint64_t hwcap;
	static bool known;

	if (!known) {
		uint32_t r[4];
		host_cpuid(1, 0, r);
		hwcap = r[3];
		known = true;
	}
	return hwcap;
}

/*
 * AT_RANDOM's 16 bytes, from host entropy fetched a page at a time: a
 * host system call costs a microsecond or more here, every exec made one.
 * Each byte is given once and wiped as it goes.  Under the big lock, as
 * exec runs.  -EIO if the host refuses.
 */
#define EXEC_RANDOM_POOL	PAGE_SIZE

static int
exec_random(uint8_t *buf, size_t n)
{
	static uint8_t pool[EXEC_RANDOM_POOL];
	static size_t left;

	if (left < n) {
		if (host_random(pool, sizeof(pool)) < 0)
			return -EIO;
		left = sizeof(pool);
	}
	left -= n;
	memcpy(buf, pool + left, n);
	memset(pool + left, 0, n);
	return 0;
}

/*
 * AT_SECURE: whether the exec gains privilege, by Linux's rule
 * (cap_bprm_creds_from_file): effective ids other than the real ones,
 * or capabilities for a user who is not root.  cr is the credential as
 * the exec leaves it.
 */
static bool
exec_secure(const struct ucred *cr)
{
	return cr->cr_uid != cr->cr_ruid || cr->cr_gid != cr->cr_rgid ||
	    (cr->cr_ruid != 0 && cr->cr_capeff != 0);
}

uint64_t
exec_stack_max(rlim_t cur)
{
	return cur == RLIM_INFINITY ? VM_STACK_MAX_DEFAULT * 16 :
	    MAX(cur, EXEC_STACK_INIT);
}

int
exec_stack(struct image *im, const struct exec_args *ea, const char *path)
{
	struct vmspace *vm = im->im_vmspace;
	struct ucred cr_after = *curproc->p_ucred;
	const struct ucred *cr = &cr_after;
	cred_exec_caps(&cr_after);
	uint64_t top = VM_USRSTACK;
	vm->vm_stack_max = exec_stack_max(curproc->p_rlimit[RLIMIT_STACK].rlim_cur);
	vm->vm_as_max = curproc->p_rlimit[RLIMIT_AS].rlim_cur;	/* from the stack on */
	long r = vm_mmap(vm, top - EXEC_STACK_INIT, EXEC_STACK_INIT,
	    PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
	    MAP_GROWSDOWN, NULL, 0);
	if (r < 0)
		return (int)r;

	/* The strings: execfn, then argv and envp strings, then platform. */
	size_t pathlen = strlen(path) + 1;
	uint64_t execfn = top - 8 - pathlen;
	uint64_t strings = execfn - ea->ea_len;
	uint64_t platform = strings - 8;		/* "x86_64" */
	uint64_t random = (platform - 16) & ~15UL;
	size_t nptr = 1 + (size_t)ea->ea_argc + 1 + (size_t)ea->ea_envc + 1 +
	    2 * AUXV_MAX;
	uint64_t sp = (random - nptr * 8) & ~15UL;
	if (top - sp > vm->vm_stack_max / 4)		/* as Linux */
		return -E2BIG;

	size_t len = top - sp;
	uint8_t *buf = kmalloc(len, KM_ZERO);
	if (buf == NULL)
		return -ENOMEM;
#define AT(ua)	(buf + ((ua) - sp))
	memcpy(AT(execfn), path, pathlen);
	memcpy(AT(strings), ea->ea_buf, ea->ea_len);
	memcpy(AT(platform), "x86_64", 7);
	if (exec_random(AT(random), 16) < 0)
		memset(AT(random), 0x5a, 16);	/* the host refused: still a value */

	uint64_t *v = (uint64_t *)AT(sp);
	*v++ = (uint64_t)ea->ea_argc;
	uint64_t s = strings;
	vm->vm_arg_start = vm->vm_arg_end = strings;
	for (long i = 0; i < ea->ea_argc + ea->ea_envc; i++) {
		if (i == ea->ea_argc) {
			*v++ = 0;
			vm->vm_arg_end = s;
		}
		*v++ = s;
		s += strlen((char *)AT(s)) + 1;
	}
	if (ea->ea_envc == 0) {
		*v++ = 0;
		vm->vm_arg_end = s;
	}
	vm->vm_env_end = s;
	*v++ = 0;
	/* Either may be absent (0): then the entry is left out, as Linux. */
	const uint64_t aux[][2] = {
		{ AT_SYSINFO_EHDR, im->im_vdso },
		{ AT_MINSIGSTKSZ, host_auxval(AT_MINSIGSTKSZ) },
		{ AT_HWCAP, cpu_hwcap() },
		{ AT_PAGESZ, PAGE_SIZE },
		{ AT_CLKTCK, 100 },
		{ AT_PHDR, im->im_phdr },
		{ AT_PHENT, sizeof(Elf64_Phdr) },
		{ AT_PHNUM, im->im_phnum },
		{ AT_BASE, im->im_interp_base },
		{ AT_FLAGS, 0 },
		{ AT_ENTRY, im->im_entry },
		{ AT_UID, cr->cr_ruid },
		{ AT_EUID, cr->cr_uid },
		{ AT_GID, cr->cr_rgid },
		{ AT_EGID, cr->cr_gid },
		{ AT_SECURE, exec_secure(cr) },
		{ AT_RANDOM, random },
		{ AT_HWCAP2, host_auxval(AT_HWCAP2) },
		{ AT_EXECFN, execfn },
		{ AT_PLATFORM, platform },
		{ AT_NULL, 0 },
	};
	vm->vm_auxv_start = sp + (uint64_t)((uint8_t *)v - buf);
	for (size_t i = 0; i < sizeof(aux) / sizeof(aux[0]); i++) {
		if ((aux[i][0] == AT_SYSINFO_EHDR || aux[i][0] == AT_MINSIGSTKSZ) &&
		    aux[i][1] == 0)
			continue;
		*v++ = aux[i][0];
		*v++ = aux[i][1];
	}
	vm->vm_auxv_end = sp + (uint64_t)((uint8_t *)v - buf);
#undef AT
	int error = vm_copyout(vm, buf, sp, len);
	kfree(buf);
	im->im_sp = sp;
	return error;
}
