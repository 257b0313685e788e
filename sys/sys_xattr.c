/*
 * The extended-attribute system calls: the arguments checked as Linux
 * checks them (flags, the name's length, the value's size), then the
 * file layer's answer (fs/vfs_xattr.c: no attributes are kept).
 */
#include "fs/vfs.h"
#include "sys/syscall.h"
#include "kern/uio.h"
#include "kern/kmem.h"

#define P	(&lp->lwp_proc->p_fs)
#define CR	(lp->lwp_proc->p_ucred)

#define XATTR_NAME_MAX	255
#define XATTR_SIZE_MAX	65536
#define XATTR_CREATE	0x1
#define XATTR_REPLACE	0x2

/*
 * Linux's checks of an attribute's name at uname: -ERANGE if empty or
 * longer than XATTR_NAME_MAX, -EFAULT.
 */
static int
check_name(uint64_t uname)
{
	char name[XATTR_NAME_MAX + 1];
	size_t done;
	int error = copyinstr(uname, name, sizeof(name), &done);
	if (error == -ENAMETOOLONG)
		return -ERANGE;
	if (error < 0)
		return error;
	return done <= 1 ? -ERANGE : 0;
}

/* The checks of op's other arguments (args as the path form's). */
static int
check_args(enum xattr_op op, const uint64_t *args)
{
	int error;

	if (op == XATTR_LIST)
		return 0;
	if ((error = check_name(args[1])) < 0)
		return error;
	if (op == XATTR_SET) {
		if (args[4] & ~(uint64_t)(XATTR_CREATE | XATTR_REPLACE))
			return -EINVAL;
		if (args[3] > XATTR_SIZE_MAX)
			return -E2BIG;
	}
	return 0;
}

static long
xattr_path(struct lwp *lp, const uint64_t *args, bool follow, enum xattr_op op)
{
	int error;
	char *path = copyin_path(args[0], &error);
	if (path == NULL)
		return error;
	if ((error = check_args(op, args)) == 0)
		error = kern_xattr_path(P, CR, path, follow, op);
	kfree(path);
	return error;
}

static long
xattr_fd(struct lwp *lp, const uint64_t *args, enum xattr_op op)
{
	int error = check_args(op, args);
	return error < 0 ? error : kern_xattr_fd(P, (int)args[0], op);
}

long
sys_setxattr(struct lwp *lp, const uint64_t *args) { return xattr_path(lp, args, true, XATTR_SET); }
long
sys_lsetxattr(struct lwp *lp, const uint64_t *args) { return xattr_path(lp, args, false, XATTR_SET); }
long
sys_fsetxattr(struct lwp *lp, const uint64_t *args) { return xattr_fd(lp, args, XATTR_SET); }
long
sys_getxattr(struct lwp *lp, const uint64_t *args) { return xattr_path(lp, args, true, XATTR_GET); }
long
sys_lgetxattr(struct lwp *lp, const uint64_t *args) { return xattr_path(lp, args, false, XATTR_GET); }
long
sys_fgetxattr(struct lwp *lp, const uint64_t *args) { return xattr_fd(lp, args, XATTR_GET); }
long
sys_listxattr(struct lwp *lp, const uint64_t *args) { return xattr_path(lp, args, true, XATTR_LIST); }
long
sys_llistxattr(struct lwp *lp, const uint64_t *args) { return xattr_path(lp, args, false, XATTR_LIST); }
long
sys_flistxattr(struct lwp *lp, const uint64_t *args) { return xattr_fd(lp, args, XATTR_LIST); }
long
sys_removexattr(struct lwp *lp, const uint64_t *args) { return xattr_path(lp, args, true, XATTR_REMOVE); }
long
sys_lremovexattr(struct lwp *lp, const uint64_t *args) { return xattr_path(lp, args, false, XATTR_REMOVE); }
long
sys_fremovexattr(struct lwp *lp, const uint64_t *args) { return xattr_fd(lp, args, XATTR_REMOVE); }
