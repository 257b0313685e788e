/*
 * mount(2), umount2(2), statfs(2) and fstatfs(2): the errors Linux gives,
 * without mounting anything (the program also runs natively).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define BAD	((void *)16)

static void
show(const char *what, int r)
{
	printf("%s: %d %s\n", what, r, r < 0 ? strerror(errno) : "");
}

int
main(void)
{
	struct statfs sf;

	show("mount bad type", mount("none", ".", BAD, 0, NULL));
	show("mount bad target", mount("none", BAD, "tmpfs", 0, NULL));
	show("mount bad source", mount(BAD, ".", "tmpfs", 0, NULL));
	show("mount bad data", mount("none", ".", "tmpfs", 0, BAD));
	show("mount missing dir", mount("none", "/nonexistent/dir", "tmpfs", 0, NULL));
	show("mount unknown type", mount("none", ".", "nosuchfs", 0, NULL));
	show("umount not a mount", umount2(".", 0));
	show("umount bad flags", umount2(".", 0x100));
	show("umount bad path", umount2(BAD, 0));
	show("umount missing", umount("/nonexistent"));

	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		if (setuid(65534) < 0)
			_exit(1);
		show("user mount", mount("none", "/", "tmpfs", 0, NULL));
		show("user umount", umount("/"));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);

	int r = statfs("/proc", &sf);
	show("statfs /proc", r);
	printf("proc magic %#lx\n", (unsigned long)sf.f_type);
	r = statfs(".", &sf);
	printf("statfs . %d bsize>0 %d namelen %ld\n", r, sf.f_bsize > 0,
	    (long)sf.f_namelen);
	/* musl's wrappers clear the buffer first: straight to the kernel. */
	show("statfs bad buffer", (int)syscall(SYS_statfs, "/", BAD));
	show("fstatfs bad buffer", (int)syscall(SYS_fstatfs, 0, BAD));
	show("statfs bad path", statfs(BAD, &sf));
	show("statfs missing", statfs("/nonexistent", &sf));
	show("fstatfs bad fd", fstatfs(99, &sf));
	r = fstatfs(0, &sf);
	printf("fstatfs 0 %d\n", r);
	return 0;
}
