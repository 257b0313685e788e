/*
 * Extended attributes, as vkernel answers them: none are kept, as on a
 * Linux file system without them (the host's keeps them, so this runs
 * inside only).  The name is still looked up and the arguments checked.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

static int fails;

static void
expect(const char *what, long r, int err)
{
	int got = r < 0 ? errno : 0;
	if (got == err && (r < 0 || r == 0)) {
		printf("ok %s\n", what);
	} else {
		printf("FAIL %s: %ld (%s), expected %s\n", what, r, strerror(got),
		    strerror(err));
		fails++;
	}
	errno = 0;
}

int
main(void)
{
	static char big[65537];
	char buf[64], longname[300];
	int fd = open("xa.f", O_CREAT | O_RDWR, 0644);
	symlink("xa.f", "xa.l");
	symlink("nowhere", "xa.dangling");

	expect("getxattr", getxattr("xa.f", "user.x", buf, sizeof(buf)), EOPNOTSUPP);
	expect("lgetxattr of a link", lgetxattr("xa.l", "security.selinux", buf,
	    sizeof(buf)), EOPNOTSUPP);
	expect("getxattr through a dangling link", getxattr("xa.dangling", "user.x",
	    buf, sizeof(buf)), ENOENT);
	expect("lgetxattr of a dangling link", lgetxattr("xa.dangling", "user.x",
	    buf, sizeof(buf)), EOPNOTSUPP);
	expect("getxattr of nothing", getxattr("xa.none", "user.x", buf,
	    sizeof(buf)), ENOENT);
	expect("fgetxattr", fgetxattr(fd, "system.posix_acl_access", buf,
	    sizeof(buf)), EOPNOTSUPP);
	expect("fgetxattr bad fd", fgetxattr(99, "user.x", buf, sizeof(buf)), EBADF);
	expect("listxattr is empty", listxattr("xa.f", buf, sizeof(buf)), 0);
	expect("llistxattr is empty", llistxattr("xa.l", buf, sizeof(buf)), 0);
	expect("flistxattr is empty", flistxattr(fd, NULL, 0), 0);
	expect("setxattr", setxattr("xa.f", "user.x", "v", 1, 0), EOPNOTSUPP);
	expect("fsetxattr", fsetxattr(fd, "user.x", "v", 1, XATTR_CREATE), EOPNOTSUPP);
	expect("setxattr bad flags", setxattr("xa.f", "user.x", "v", 1, 4), EINVAL);
	expect("setxattr too big", setxattr("xa.f", "user.x", big, sizeof(big), 0),
	    E2BIG);
	expect("empty name", getxattr("xa.f", "", buf, sizeof(buf)), ERANGE);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	expect("long name", getxattr("xa.f", longname, buf, sizeof(buf)), ERANGE);
	expect("name at a bad address", getxattr("xa.f", (char *)8, buf,
	    sizeof(buf)), EFAULT);
	expect("removexattr", removexattr("xa.f", "user.x"), EOPNOTSUPP);
	expect("fremovexattr", fremovexattr(fd, "user.x"), EOPNOTSUPP);
	int p = open("xa.f", O_PATH);
	expect("fgetxattr of O_PATH", fgetxattr(p, "user.x", buf, sizeof(buf)), EBADF);
	unlink("xa.f");
	unlink("xa.l");
	unlink("xa.dangling");
	return fails != 0;
}
