/*
 * capget and capset: the version probe, versions 1 and 3, bad pids, and
 * the sets as the uids change (root, seteuid away and back, setuid to a
 * user for good), and root dropping them all.  Only a few capabilities are shown: which ones a root
 * shell holds depends on how the host started it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

struct hdr { uint32_t version; int pid; };
struct data { uint32_t eff, prm, inh; };

#define V1 0x19980330
#define V3 0x20080522

static void
show(const char *what, uint32_t version, int pid)
{
	struct hdr h = { version, pid };
	struct data d[2];
	memset(d, 0x5a, sizeof(d));
	long r = syscall(SYS_capget, &h, d);
	if (r < 0) {
		printf("%s: -1 %s (version %#x)\n", what, strerror(errno), h.version);
		return;
	}
	/* CAP_CHOWN 0, CAP_KILL 5, CAP_SETUID 7, CAP_SYS_ADMIN 21, and inh */
	printf("%s: eff chown=%d kill=%d setuid=%d sysadmin=%d prm chown=%d "
	    "setuid=%d inh=%#x", what, d[0].eff & 1, d[0].eff >> 5 & 1,
	    d[0].eff >> 7 & 1, d[0].eff >> 21 & 1, d[0].prm & 1,
	    d[0].prm >> 7 & 1, d[0].inh);
	if (version == V1)
		printf(" d1=%s", d[1].eff == 0x5a5a5a5a ? "untouched" : "written");
	printf("\n");
}

int
main(void)
{
	struct hdr h = { 0x1234, 0 };
	long r = syscall(SYS_capget, &h, NULL);
	printf("probe: %ld version %#x\n", r, h.version);
	h.version = 0x1234;
	struct data d[2];
	r = syscall(SYS_capget, &h, d);
	printf("bad version: %ld %s version %#x\n", r, r < 0 ? strerror(errno) : "",
	    h.version);
	r = syscall(SYS_capget, (void *)8, d);
	printf("bad header: %ld %s\n", r, r < 0 ? strerror(errno) : "");
	show("root v3", V3, 0);
	show("root v1", V1, 0);
	show("self by pid", V3, getpid());
	show("pid -1", V3, -1);
	show("no such pid", V3, 99999);

	/* Confirming the sets one has is allowed; adding to them is not. */
	h.version = V3;
	h.pid = 0;
	syscall(SYS_capget, &h, d);
	r = syscall(SYS_capset, &h, d);
	printf("capset same: %ld %s\n", r, r < 0 ? strerror(errno) : "");
	h.pid = 99999;
	r = syscall(SYS_capset, &h, d);
	printf("capset other pid: %ld %s\n", r, r < 0 ? strerror(errno) : "");

	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		if (seteuid(1000) < 0)
			return 1;
		show("seteuid 1000", V3, 0);
		if (seteuid(0) < 0)
			return 2;
		show("seteuid back", V3, 0);
		if (setresuid(1000, 1000, 1000) < 0)
			return 3;
		show("setuid 1000", V3, 0);
		struct hdr h2 = { V3, 0 };
		struct data full[2] = { { 1, 1, 0 }, { 0, 0, 0 } };
		r = syscall(SYS_capset, &h2, full);
		printf("capset raise: %ld %s\n", r, r < 0 ? strerror(errno) : "");
		fflush(stdout);
		return 0;
	}
	int st;
	waitpid(c, &st, 0);
	printf("child: %d\n", WEXITSTATUS(st));

	/*
	 * Root drops every capability: a file of another user's becomes
	 * closed to it, and nothing brings a capability back.
	 */
	int fd = open("caps.tmp", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || fchown(fd, 1000, 1000) < 0)
		return 1;
	close(fd);
	fflush(stdout);
	c = fork();
	if (c == 0) {
		struct hdr h2 = { V3, 0 };
		struct data none[2] = { { 0, 0, 0 }, { 0, 0, 0 } };
		r = syscall(SYS_capset, &h2, none);
		printf("capset drop all: %ld %s\n", r, r < 0 ? strerror(errno) : "");
		show("dropped", V3, 0);
		fd = open("caps.tmp", O_RDONLY);
		printf("open another's 0600 file: %s\n", fd >= 0 ? "ok" : strerror(errno));
		struct data back[2] = { { 1, 1, 0 }, { 0, 0, 0 } };
		r = syscall(SYS_capset, &h2, back);
		printf("capset take back: %ld %s\n", r, r < 0 ? strerror(errno) : "");
		fflush(stdout);
		return 0;
	}
	waitpid(c, &st, 0);
	printf("child: %d\n", WEXITSTATUS(st));
	fd = open("caps.tmp", O_RDONLY);
	printf("root opens it: %s\n", fd >= 0 ? "ok" : strerror(errno));
	unlink("caps.tmp");
	return 0;
}
