/*
 * execve, once the arguments are in (sys/sys_exec.c): find the image
 * (following "#!" interpreters), build a new address space from it
 * (imgact_elf.c), lay out the stack as Linux does, and switch the process
 * over.  Everything before the switch can fail and leave the process as
 * it was.
 */
#include <elf.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include "fs/namei.h"
#include "kern/uio.h"
#include "fs/vfs.h"
#include "fs/vnode.h"
#include "proc/exec.h"
#include "kern/futex.h"
#include "kern/ptimer.h"
#include "kern/signal.h"
#include "kern/ucred.h"
#include "kern/kmem.h"
#include "vm/vm.h"

#define EXEC_SHELL_DEPTH 5			/* interpreters, as Linux */
#define EXEC_SHELL_LINE	256			/* the "#!" line, as BINPRM_BUF_SIZE */

/* Reads len bytes at off of vp into kbuf (kernel) or, with vm, user memory. */
int
exec_read(struct vnode *vp, struct vmspace *vm, uint64_t buf, size_t len,
    uint64_t off)
{
	struct kiovec iov = { buf, len };
	struct uio uio = { &iov, 1, (int64_t)off, len,
	    vm != NULL ? UIO_USERSPACE : UIO_SYSSPACE, UIO_READ, vm };
	int error = vp->v_op->vop_read(vp, &uio);
	if (error < 0)
		return error;
	return uio.uio_resid == 0 ? 0 : -ENOEXEC;	/* the file is short */
}

int
args_add(struct exec_args *ea, const char *s)
{
	size_t n = strlen(s) + 1;
	if (ea->ea_len + n > EXEC_ARGMAX)
		return -E2BIG;
	memcpy(ea->ea_buf + ea->ea_len, s, n);
	ea->ea_len += n;
	return 0;
}

/*
 * "#!interp [arg]": the interpreter runs with the script's path as an
 * argument in place of argv[0].  Returns 1 if the image is a script
 * (with *interp set), 0 if not.
 */
static int
exec_shell(struct exec_args *ea, const char *hdr, size_t n, const char *path,
    char *interp)
{
	char line[EXEC_SHELL_LINE + 1], *p, *arg = NULL;

	if (n < 2 || hdr[0] != '#' || hdr[1] != '!')
		return 0;
	size_t len = 0;
	while (2 + len < n && len < EXEC_SHELL_LINE - 2 && hdr[2 + len] != '\n')
		len++;
	/* A line longer than Linux reads is no script it would run. */
	if (2 + len < n && hdr[2 + len] != '\n')
		return -ENOEXEC;
	memcpy(line, hdr + 2, len);
	line[len] = '\0';
	for (p = line; *p == ' ' || *p == '\t'; p++)
		;
	if (*p == '\0')
		return -ENOEXEC;
	char *name = p;
	while (*p != '\0' && *p != ' ' && *p != '\t')
		p++;
	if (*p != '\0') {
		*p++ = '\0';
		while (*p == ' ' || *p == '\t')
			p++;
		if (*p != '\0') {
			arg = p;
			for (char *e = p + strlen(p); e > p && (e[-1] == ' ' || e[-1] == '\t'); )
				*--e = '\0';
		}
	}
	snprintf(interp, PATH_MAX, "%s", name);

	/* Rebuild the vector: interp [arg] path argv[1..]. */
	char *old = kmalloc(ea->ea_len, 0);
	if (old == NULL)
		return -ENOMEM;
	memcpy(old, ea->ea_buf, ea->ea_len);
	size_t oldlen = ea->ea_len, skip = ea->ea_argc > 0 ? strlen(old) + 1 : 0;
	long oldargc = ea->ea_argc;
	int error;
	ea->ea_len = 0;
	if ((error = args_add(ea, name)) < 0 ||
	    (arg != NULL && (error = args_add(ea, arg)) < 0) ||
	    (error = args_add(ea, path)) < 0)
		goto out;
	if (oldlen - skip > EXEC_ARGMAX - ea->ea_len) {
		error = -E2BIG;
		goto out;
	}
	memcpy(ea->ea_buf + ea->ea_len, old + skip, oldlen - skip);
	ea->ea_len += oldlen - skip;
	ea->ea_argc = (oldargc > 0 ? oldargc - 1 : 0) + (arg != NULL ? 3 : 2);
	error = 1;
out:
	kfree(old);
	return error;
}

int
exec_lookup(struct proc *p, const char *path, struct vnode **vpp)
{
	struct nameidata nd;
	int error = namei_at(&p->p_fs, p->p_ucred, AT_FDCWD, path, NI_FOLLOW, &nd);
	if (error < 0)
		return error;
	struct vnode *vp = nd.ni_vp;
	nd.ni_vp = NULL;
	namei_done(&nd);
	if (vp->v_type != VREG)
		error = -EACCES;
	else if ((vp->v_mode & 0111) == 0)
		error = -EACCES;
	else
		error = vaccess(vp, X_OK, p->p_ucred);
	if (error < 0) {
		vrele(vp);
		return error;
	}
	*vpp = vp;
	return 0;
}

/*
 * The canonical path of the image exec ran (links followed), for
 * /proc/PID/exe: kmalloc'd, or NULL if it cannot be made.  Called before
 * p_exe changes, as the lookup may pass through /proc/self/exe.
 */
static char *
exec_fullpath(struct proc *p, const char *name)
{
	struct nameidata nd;
	if (namei_at(&p->p_fs, p->p_ucred, AT_FDCWD, name,
	    NI_PARENT | NI_FOLLOW, &nd) < 0)
		return NULL;
	char *buf = kmalloc(PATH_MAX, 0), *path = NULL;
	int len = -1;
	if (buf != NULL && nd.ni_lasttype == NI_LAST_NORM)
		len = vn_fullpath(p->p_fs.fp_pwd->pd_rdir, nd.ni_dvp, NULL, buf,
		    PATH_MAX) - 1;
	if (len > 0 && (size_t)len + 1 + strlen(nd.ni_last) < PATH_MAX) {
		if (len > 1)
			buf[len++] = '/';	/* not after "/" */
		strcpy(buf + len, nd.ni_last);
		if ((path = kmalloc(strlen(buf) + 1, 0)) != NULL)
			strcpy(path, buf);
	}
	namei_done(&nd);
	kfree(buf);
	return path;
}

/*
 * Makes lp the only thread of its process, with the process's own
 * descriptor table and signal actions, for an exec that will succeed:
 * the other threads end (killalllwps) and lp takes the pid as its
 * thread id, as in Linux.  0, -ENOMEM (the threads are gone even so), or
 * -EINTR if another thread ends the process first (lp then ends on its
 * way to user mode).
 */
static int
exec_single(struct lwp *lp)
{
	struct proc *p = lp->lwp_proc;
	int error;

	if (p->p_nlwps > 1) {
		if (killalllwps(lp) < 0)
			return -EINTR;
		p->p_flags &= ~P_WEXIT;
		if (lp->lwp_tid != p->p_pid)
			lwp_settid(lp, p->p_pid);
	}
	if ((error = fsproc_unshare(&p->p_fs, FSP_FILES)) < 0 ||
	    (error = sigacts_unshare(p)) < 0)
		return error;
	return 0;
}

/*
 * Runs the image at path in process p with the arguments in ea.  On
 * success the process has a new address space and registers in lp.
 */
int
kern_execve(struct lwp *lp, const char *path, struct exec_args *ea)
{
	struct proc *p = lp->lwp_proc;
	char *interp = kmalloc(PATH_MAX, 0), *hdr = kmalloc(PAGE_SIZE, 0);
	struct vnode *vp = NULL;
	struct image im;
	int error = -ENOMEM;

	if (interp == NULL || hdr == NULL)
		goto out;
	const char *name = path;
	for (int depth = 0; ; depth++) {
		if ((error = exec_lookup(p, name, &vp)) < 0)
			goto out;
		size_t n = MIN(vp->v_size, PAGE_SIZE);
		if ((error = exec_read(vp, NULL, (uint64_t)hdr, n, 0)) < 0)
			goto out;
		error = exec_shell(ea, hdr, n, name, interp);
		if (error < 0)
			goto out;
		if (error == 0) {
			memset(&im, 0, sizeof(im));
			im.im_vp = vp;
			im.im_name = name;
			im.im_hdr = hdr;
			im.im_hdrlen = n;
			break;
		}
		if (depth == EXEC_SHELL_DEPTH) {
			error = -ELOOP;
			goto out;
		}
		vrele(vp);
		vp = NULL;
		name = interp;
	}

	if ((error = elf_load(&im, p)) < 0)
		goto out;
	if ((error = exec_stack(&im, ea, path)) < 0) {
		vmspace_free(im.im_vmspace);
		goto out;
	}

	/* Capabilities as an exec leaves them (a copy only if they change). */
	struct ucred *cr = NULL, probe = *p->p_ucred;
	cred_exec_caps(&probe);
	if (probe.cr_capeff != p->p_ucred->cr_capeff ||
	    probe.cr_capprm != p->p_ucred->cr_capprm ||
	    probe.cr_keepcaps != p->p_ucred->cr_keepcaps) {
		if ((cr = crdup(&probe)) == NULL) {
			vmspace_free(im.im_vmspace);
			error = -ENOMEM;
			goto out;
		}
	}
	if ((error = exec_single(lp)) < 0) {
		if (cr != NULL)
			crfree(cr);
		vmspace_free(im.im_vmspace);
		goto out;
	}

	/*
	 * Its first instructions, its stack top, its program headers (libc's
	 * start reads them) and its data: entered now and mapped by the host
	 * as it takes over, instead of a fault each through the host.
	 */
	vmspace_enter_first(im.im_vmspace, im.im_start);
	vmspace_touch_first(im.im_vmspace, im.im_sp - 8);
	if (im.im_phdr != 0)
		vmspace_enter_first(im.im_vmspace, im.im_phdr);
	if (im.im_data != 0)
		vmspace_enter_first(im.im_vmspace, im.im_data);

	/* No way back from here. */
	futex_exec(lp);
	struct vmspace *old = p->p_vmspace;
	lwp_unhost(lp);		/* thread 0 of the new vmspace is ours */
	p->p_vmspace = im.im_vmspace;
	vmspace_exec_switch(im.im_vmspace, old);
	fsproc_exec(&p->p_fs);
	sigacts_exec(p);
	ptimer_exit(p);
	const char *base = strrchr(path, '/');
	snprintf(p->p_comm, sizeof(p->p_comm), "%s", base ? base + 1 : path);
	memcpy(lp->lwp_comm, p->p_comm, sizeof(lp->lwp_comm));
	char *exe = exec_fullpath(p, name);
	kfree(p->p_exe);
	p->p_exe = exe;
	memset(&lp->lwp_tf, 0, sizeof(lp->lwp_tf));
	lp->lwp_tf.tf_rip = im.im_start;
	lp->lwp_tf.tf_rsp = im.im_sp;
	lp->lwp_tf.tf_rflags = 0x202;
	lp->lwp_tf.tf_xflags = PGEX_FPFAULT;
	vmspace_fpu_init(lp->lwp_vf);
	lp->lwp_vf->vx_fsbase = lp->lwp_vf->vx_gsbase = 0;
	if (cr != NULL) {
		crfree(p->p_ucred);
		p->p_ucred = cr;
		/* Linux's PER_CLEAR_ON_SETID: ADDR_NO_RANDOMIZE,
		 * ADDR_COMPAT_LAYOUT, MMAP_PAGE_ZERO, READ_IMPLIES_EXEC. */
		p->p_personality &= ~0x0740000u;
	}
	p->p_flags |= P_EXEC;
	p->p_flags &= ~P_NOTDUMPABLE;	/* as Linux for an exec that gains nothing */
	vfork_done(p);
	error = 0;
out:
	if (vp != NULL)
		vrele(vp);
	kfree(interp);
	kfree(hdr);
	return error;
}
