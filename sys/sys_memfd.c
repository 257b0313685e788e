/*
 * memfd_create: the argument rules; the file is tmpfs's
 * (fs/tmpfs/tmpfs_memfd.c).
 */
#include <linux/memfd.h>

#include "fs/tmpfs/tmpfs.h"
#include "kern/proc.h"
#include "sys/syscall.h"

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL	0x0008U
#define MFD_EXEC	0x0010U
#endif
#define MFD_NAME_PREFIX	"memfd:"
#define MFD_NAME_MAX	(NAME_MAX - (sizeof(MFD_NAME_PREFIX) - 1))

/*
 * memfd_create(name, flags): a new anonymous tmpfs file open for reading
 * and writing.  As Linux 6.3 on: MFD_NOEXEC_SEAL makes it mode 0666 with
 * F_SEAL_EXEC (and allows sealing), MFD_EXEC or neither 0777; both is
 * EINVAL, as are unknown flags and a name longer than 249 bytes.
 * MFD_HUGETLB is refused (EINVAL: no huge pages are reserved).
 */
long
sys_memfd_create(struct lwp *lp, const uint64_t *args)
{
	unsigned flags = (unsigned)args[1];
	char name[sizeof(MFD_NAME_PREFIX) + MFD_NAME_MAX];
	size_t done;

	if (args[1] > UINT32_MAX ||
	    (flags & ~(MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_NOEXEC_SEAL | MFD_EXEC)))
		return -EINVAL;
	if ((flags & MFD_NOEXEC_SEAL) && (flags & MFD_EXEC))
		return -EINVAL;
	strcpy(name, MFD_NAME_PREFIX);
	int error = copyinstr(args[0], name + sizeof(MFD_NAME_PREFIX) - 1,
	    MFD_NAME_MAX + 1, &done);
	if (error == -ENAMETOOLONG)
		return -EINVAL;
	if (error < 0)
		return error;
	struct proc *p = lp->lwp_proc;
	return tmpfs_memfd_create(&p->p_fs, p->p_ucred, name,
	    (flags & MFD_NOEXEC_SEAL) != 0, (flags & MFD_ALLOW_SEALING) != 0,
	    (flags & MFD_CLOEXEC) != 0);
}
