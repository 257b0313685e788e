/*
 * umlxstate.so: lets User-Mode Linux 6.1 set its processes' FPU state on
 * a host whose XSAVE area is larger than the one UML was built for.
 *
 * UML 6.1 saves and restores a process's extended state with
 * PTRACE_GETREGSET/PTRACE_SETREGSET(NT_X86_XSTATE) of sizeof(struct
 * _xstate), fixed when it was compiled (2,696 bytes in Debian's build).
 * The host kernel truncates a short GETREGSET but fails a SETREGSET whose
 * length is not exactly its whole user XSAVE size with EFAULT
 * (xstateregs_set, arch/x86/kernel/fpu/regset.c), and on a host with AMX
 * that size is 11,008 bytes (cpuid 0xd): UML dies at its first process
 * ("userspace - ptrace set fp regs failed, errno = 14"). Later UML
 * kernels ask the host for the size.
 *
 * This library, preloaded into UML (bench/kernbench.sh does it only when
 * bench/umlcheck.sh finds UML cannot run without it), pads a short
 * SETREGSET to the host's size and clears, in the XSAVE header, the
 * components that lie past what UML passed: the host then loads them in
 * their initial state. That is exact, not an approximation: the
 * components past UML's size are AMX's tile state, which no process gets
 * without asking the host (arch_prctl ARCH_REQ_XCOMP_PERM), and UML's
 * processes cannot ask, so theirs is always initial. Every other ptrace
 * call goes to the C library's untouched; a SETREGSET costs one copy of
 * 11 KB more, against a ptrace round trip of several microseconds.  The
 * sizes are asked of cpuid once: in a virtual machine each cpuid is an
 * exit to the hypervisor (asked at every call, they made UML's getpid
 * ten times slower).
 */
#define _GNU_SOURCE
#include <cpuid.h>
#include <dlfcn.h>
#include <elf.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/uio.h>

#define XSAVE_HDR_OFF	512	/* the XSAVE header: xstate_bv first */
#define XSAVE_MAX	(64 * 1024)

typedef long ptrace_fn(int, pid_t, void *, void *);

/* The host's whole user XSAVE size (what XCR0 enables), or 0. */
static unsigned int
host_xsave_size(void)
{
	unsigned int a, b, c, d;

	if (!__get_cpuid_count(0xd, 0, &a, &b, &c, &d))
		return 0;
	return b;
}

/* Which enabled components end past `len' bytes of a standard-format area. */
static uint64_t
past(size_t len)
{
	unsigned int a, b, c, d, i, lo, hi;
	uint64_t mask = 0;

	__cpuid_count(0xd, 0, lo, b, c, hi);
	for (i = 2; i < 64; i++) {
		if (!((((uint64_t)hi << 32) | lo) >> i & 1))
			continue;
		__cpuid_count(0xd, i, a, b, c, d);
		if ((size_t)b + a > len)	/* ebx: offset, eax: size */
			mask |= 1ULL << i;
	}
	return mask;
}

long
ptrace(enum __ptrace_request req, ...)
{
	static ptrace_fn *real;
	static unsigned int size;
	static size_t cut;		/* the length `clear' is for */
	static uint64_t clear;
	static _Alignas(64) unsigned char area[XSAVE_MAX];
	va_list ap;
	pid_t pid;
	void *addr, *data;
	struct iovec *iov, big;
	uint64_t bv;

	va_start(ap, req);
	pid = va_arg(ap, pid_t);
	addr = va_arg(ap, void *);
	data = va_arg(ap, void *);
	va_end(ap);
	if (real == NULL) {
		real = (ptrace_fn *)dlsym(RTLD_NEXT, "ptrace");
		size = host_xsave_size();
	}
	iov = data;
	if (req != PTRACE_SETREGSET || (uintptr_t)addr != NT_X86_XSTATE ||
	    iov == NULL || iov->iov_len <= XSAVE_HDR_OFF + 8 ||
	    iov->iov_len >= size || size > sizeof(area))
		return real(req, pid, addr, data);
	/* UML's kernel runs its processes from one host thread: one area. */
	memset(area, 0, size);
	memcpy(area, iov->iov_base, iov->iov_len);
	if (cut != iov->iov_len) {
		cut = iov->iov_len;
		clear = past(cut);
	}
	memcpy(&bv, area + XSAVE_HDR_OFF, 8);
	bv &= ~clear;
	memcpy(area + XSAVE_HDR_OFF, &bv, 8);
	big.iov_base = area;
	big.iov_len = size;
	return real(req, pid, addr, &big);
}
