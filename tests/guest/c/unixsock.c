/*
 * AF_UNIX names and connections: socket types and flags, socketpair,
 * bind to paths (a socket inode: S_IFSOCK, the umask) and abstract
 * names, autobind, listen and its backlog, connect and accept and what
 * each end's getsockname/getpeername say, and the errors: EADDRINUSE,
 * ECONNREFUSED, ENOENT, EPROTOTYPE, EINVAL, ENOTSOCK,
 * EISCONN, EOPNOTSUPP, EACCES without write permission on the inode,
 * EFAULT on hostile pointers.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

static socklen_t
mkaddr(struct sockaddr_un *sun, const char *path, int abstract)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (abstract) {
		size_t n = strlen(path);
		memcpy(sun->sun_path + 1, path, n);
		return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
	}
	strcpy(sun->sun_path, path);
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(path) + 1);
}

static void
show_name(const char *what, int fd, int peer)
{
	struct sockaddr_un sun;
	socklen_t len = sizeof(sun);
	memset(&sun, 0x55, sizeof(sun));
	int r = peer ? getpeername(fd, (struct sockaddr *)&sun, &len) :
	    getsockname(fd, (struct sockaddr *)&sun, &len);
	if (r < 0) {
		printf("%s: -1 %s\n", what, strerror(errno));
		return;
	}
	printf("%s: len %u family %d", what, (unsigned)len, sun.sun_family);
	if (len > offsetof(struct sockaddr_un, sun_path)) {
		if (sun.sun_path[0])
			printf(" path \"%s\"", sun.sun_path);
		else
			printf(" abstract (%u bytes)", (unsigned)(len - 3));
	}
	printf("\n");
}

static void
types(void)
{
	int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET, SOCK_RAW,
	    SOCK_RDM, 0, 99 };
	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "socket type %d", types[i]);
		int fd = socket(AF_UNIX, types[i], 0);
		report(what, fd >= 0 ? 0 : -1);
		if (fd >= 0) {
			int t;
			socklen_t l = sizeof(t);
			getsockopt(fd, SOL_SOCKET, SO_TYPE, &t, &l);
			printf("  SO_TYPE %d len %u\n", t, (unsigned)l);
			close(fd);
		}
	}
	report("protocol PF_UNIX", socket(AF_UNIX, SOCK_STREAM, PF_UNIX) >= 0 ? 0 : -1);
	report("protocol 2", socket(AF_UNIX, SOCK_STREAM, 2));
	report("family 12345", socket(12345, SOCK_STREAM, 0));
	report("bad type flag", socket(AF_UNIX, SOCK_STREAM | 0x100, 0));

	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	printf("flags: O_NONBLOCK %d FD_CLOEXEC %d O_RDWR %d\n",
	    !!(fcntl(fd, F_GETFL) & O_NONBLOCK), fcntl(fd, F_GETFD),
	    (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
	struct stat st;
	fstat(fd, &st);
	printf("fstat: S_ISSOCK %d mode %o\n", S_ISSOCK(st.st_mode),
	    (unsigned)(st.st_mode & 07777));
	int v;
	socklen_t l = sizeof(v);
	getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &v, &l);
	printf("SO_DOMAIN %d\n", v);
	getsockopt(fd, SOL_SOCKET, SO_PROTOCOL, &v, &l);
	printf("SO_PROTOCOL %d\n", v);
	getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &v, &l);
	printf("SO_ACCEPTCONN %d\n", v);
	getsockopt(fd, SOL_SOCKET, SO_ERROR, &v, &l);
	printf("SO_ERROR %d\n", v);
	report("lseek", lseek(fd, 0, SEEK_SET));
	report("pread", pread(fd, &v, 1, 0));
	report("read unconnected", read(fd, &v, 1));
	report("write unconnected", write(fd, &v, 1));
	report("getpeername unconnected", getpeername(fd, NULL, NULL));
	show_name("getsockname unbound", fd, 0);
	report("listen unbound", listen(fd, 1));
	report("accept not listening", accept(fd, NULL, NULL));
	report("shutdown 3", shutdown(fd, 3));
	report("shutdown unconnected", shutdown(fd, SHUT_RDWR));
	close(fd);

	report("not a socket: bind", bind(0, NULL, 0));
	report("bad fd: listen", listen(99, 1));
	int p[2];
	pipe(p);
	report("pipe: getsockname", getsockname(p[0], NULL, NULL));
	report("pipe: sendto", sendto(p[1], "x", 1, 0, NULL, 0));
	close(p[0]);
	close(p[1]);
}

static void
pairs(void)
{
	int types[] = { SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET };
	for (int i = 0; i < 3; i++) {
		int sv[2];
		char buf[16];
		printf("socketpair type %d: %d\n", types[i],
		    socketpair(AF_UNIX, types[i], 0, sv));
		report("  write", write(sv[0], "hello", 5));
		report("  write", write(sv[0], "world", 5));
		report("  read", read(sv[1], buf, sizeof(buf)));
		report("  read back", write(sv[1], "x", 1));
		report("  read", read(sv[0], buf, sizeof(buf)));
		show_name("  getpeername", sv[0], 1);
		show_name("  getsockname", sv[0], 0);
		close(sv[0]);
		report("  read after peer close", read(sv[1], buf, sizeof(buf)));
		close(sv[1]);
	}
	int *volatile bad = (int *)8;
	report("socketpair EFAULT", socketpair(AF_UNIX, SOCK_STREAM, 0, bad));
}

static void
paths(void)
{
	struct sockaddr_un sun;
	socklen_t len;
	struct stat st;

	unlink("s1");
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	len = mkaddr(&sun, "s1", 0);
	mode_t old = umask(022);
	report("bind s1", bind(l, (struct sockaddr *)&sun, len));
	umask(old);
	report("stat s1", stat("s1", &st));
	printf("  S_ISSOCK %d mode %o\n", S_ISSOCK(st.st_mode),
	    (unsigned)(st.st_mode & 07777));
	report("bind again", bind(l, (struct sockaddr *)&sun, len));
	show_name("getsockname", l, 0);
	int c = socket(AF_UNIX, SOCK_STREAM, 0);
	report("connect before listen", connect(c, (struct sockaddr *)&sun, len));
	int o = socket(AF_UNIX, SOCK_STREAM, 0);
	report("bind taken name", bind(o, (struct sockaddr *)&sun, len));
	close(o);
	report("listen", listen(l, 5));
	int v;
	socklen_t vl = sizeof(v);
	getsockopt(l, SOL_SOCKET, SO_ACCEPTCONN, &v, &vl);
	printf("  SO_ACCEPTCONN %d\n", v);
	report("connect", connect(c, (struct sockaddr *)&sun, len));
	report("connect again", connect(c, (struct sockaddr *)&sun, len));
	struct sockaddr_un peer;
	socklen_t plen = sizeof(peer);
	int a = accept(l, (struct sockaddr *)&peer, &plen);
	report("accept", a >= 0 ? 0 : -1);
	printf("  accepted peer len %u\n", (unsigned)plen);
	show_name("server getsockname", a, 0);
	show_name("server getpeername", a, 1);
	show_name("client getsockname", c, 0);
	show_name("client getpeername", c, 1);
	report("client write", write(c, "ping", 4));
	char buf[16] = { 0 };
	report("server read", read(a, buf, sizeof(buf)));
	printf("  \"%s\"\n", buf);
	report("read on listener", read(l, buf, 1));
	report("connect a listener", connect(l, (struct sockaddr *)&sun, len));
	close(a);
	close(c);

	/* Connect through a symlink, to a file that is no socket, to nothing. */
	unlink("s1link");
	symlink("s1", "s1link");
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	len = mkaddr(&sun, "s1link", 0);
	report("connect via symlink", connect(c, (struct sockaddr *)&sun, len));
	close(c);
	a = accept(l, NULL, NULL);
	report("accept without address", a >= 0 ? 0 : -1);
	close(a);
	close(open("plainfile", O_CREAT | O_WRONLY, 0644));
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	len = mkaddr(&sun, "plainfile", 0);
	report("connect to a plain file", connect(c, (struct sockaddr *)&sun, len));
	len = mkaddr(&sun, "nonexistent", 0);
	report("connect to nothing", connect(c, (struct sockaddr *)&sun, len));
	len = mkaddr(&sun, "nodir/x", 0);
	report("bind in a missing dir", bind(c, (struct sockaddr *)&sun, len));
	len = mkaddr(&sun, "s1", 0);
	int d = socket(AF_UNIX, SOCK_DGRAM, 0);
	report("dgram connect to stream", connect(d, (struct sockaddr *)&sun, len));
	int q = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	report("seqpacket connect to stream", connect(q, (struct sockaddr *)&sun, len));
	close(d);
	close(q);
	close(l);
	report("connect after listener closed", connect(c, (struct sockaddr *)&sun, len));
	close(c);
	report("stat after close (file stays)", stat("s1", &st));
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	report("bind over the stale file", bind(c, (struct sockaddr *)&sun, len));
	close(c);
	unlink("s1");
	unlink("s1link");
	unlink("plainfile");

	/* A path filling sun_path, without a NUL: the name is 111 bytes. */
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memset(sun.sun_path, 'L', sizeof(sun.sun_path));
	report("bind a 108-byte path", bind(c, (struct sockaddr *)&sun, sizeof(sun)));
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	getsockname(c, (struct sockaddr *)&ss, &sl);
	printf("  getsockname len %u\n", (unsigned)sl);
	char lp[109] = { 0 };
	memcpy(lp, sun.sun_path, 108);
	unlink(lp);
	close(c);

	/* Address lengths. */
	c = socket(AF_UNIX, SOCK_STREAM, 0);
	report("bind len 1", bind(c, (struct sockaddr *)&sun, 1));
	report("bind len 111", bind(c, (struct sockaddr *)&sun, 111));
	report("bind len -1", bind(c, (struct sockaddr *)&sun, -1));
	report("bind len 200", bind(c, (struct sockaddr *)&sun, 200));
	sun.sun_family = AF_INET;
	report("bind family AF_INET", bind(c, (struct sockaddr *)&sun, len));
	report("bind EFAULT", bind(c, (struct sockaddr *)8, 20));
	report("connect len 2", connect(c, (struct sockaddr *)&sun, 2));
	report("connect EFAULT", connect(c, (struct sockaddr *)8, 20));
	report("getsockname EFAULT", getsockname(c, (struct sockaddr *)8, (socklen_t *)16));
	len = 1000;
	report("getsockname len -1", getsockname(c, (struct sockaddr *)&sun, &(socklen_t){ -1 }));
	close(c);
}

/*
 * connect needs write permission on the socket inode: a 0700 socket of
 * root's refuses another user (the guest runs as root; natively, when
 * not root, the same line is printed as the check cannot be made).
 */
static void
perms(void)
{
	struct sockaddr_un sun;
	socklen_t len = mkaddr(&sun, "s2", 0);
	const char *line = "connect without write permission: -1 EACCES";

	if (getuid() != 0) {
		printf("%s\n", line);
		return;
	}
	unlink("s2");
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	mode_t old = umask(077);
	bind(l, (struct sockaddr *)&sun, len);
	umask(old);
	listen(l, 1);
	pid_t c = fork();
	if (c == 0) {
		if (setuid(65534) < 0)
			_exit(2);
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		_exit(connect(s, (struct sockaddr *)&sun, len) < 0 && errno == EACCES ? 0 : 1);
	}
	int st;
	waitpid(c, &st, 0);
	printf("%s\n", WIFEXITED(st) && WEXITSTATUS(st) == 0 ? line : "connect without write permission: wrong");
	close(l);
	unlink("s2");
}

static void
abstract(void)
{
	struct sockaddr_un sun;
	socklen_t len = mkaddr(&sun, "vk-test-abstract", 1);
	int l = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	report("bind abstract", bind(l, (struct sockaddr *)&sun, len));
	show_name("getsockname", l, 0);
	int o = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	report("bind abstract taken", bind(o, (struct sockaddr *)&sun, len));
	report("bind shorter name", bind(o, (struct sockaddr *)&sun, len - 1));
	close(o);
	report("listen", listen(l, 0));
	int c1 = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
	int c2 = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
	int c3 = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK, 0);
	report("connect 1 (backlog 0)", connect(c1, (struct sockaddr *)&sun, len));
	report("connect 2", connect(c2, (struct sockaddr *)&sun, len));
	report("connect 3", connect(c3, (struct sockaddr *)&sun, len));
	report("send before accept", send(c1, "early", 5, 0));
	int a = accept4(l, NULL, NULL, SOCK_CLOEXEC);
	report("accept4", a >= 0 ? 0 : -1);
	printf("  FD_CLOEXEC %d\n", fcntl(a, F_GETFD));
	char buf[16] = { 0 };
	report("recv", recv(a, buf, sizeof(buf), 0));
	printf("  \"%s\"\n", buf);
	report("connect 3 after accept", connect(c3, (struct sockaddr *)&sun, len));
	close(a);
	close(c1);
	close(c2);
	close(c3);
	close(l);
	len = mkaddr(&sun, "vk-test-abstract", 1);
	int c = socket(AF_UNIX, SOCK_SEQPACKET, 0);
	report("connect after close", connect(c, (struct sockaddr *)&sun, len));
	report("bind free again", bind(c, (struct sockaddr *)&sun, len));
	close(c);

	/* Autobind: an empty address gives a fresh abstract name. */
	c = socket(AF_UNIX, SOCK_DGRAM, 0);
	report("autobind", bind(c, (struct sockaddr *)&sun, sizeof(sa_family_t)));
	show_name("autobound name", c, 0);
	report("bind after autobind", bind(c, (struct sockaddr *)&sun, len));
	close(c);
}

static void
dgrams(void)
{
	struct sockaddr_un sa, sb, from;
	socklen_t la = mkaddr(&sa, "vk-dgram-a", 1), lb = mkaddr(&sb, "vk-dgram-b", 1);
	int a = socket(AF_UNIX, SOCK_DGRAM, 0), b = socket(AF_UNIX, SOCK_DGRAM, 0);
	bind(a, (struct sockaddr *)&sa, la);
	bind(b, (struct sockaddr *)&sb, lb);
	report("sendto b", sendto(a, "one", 3, 0, (struct sockaddr *)&sb, lb));
	report("sendto b", sendto(a, "two!", 4, 0, (struct sockaddr *)&sb, lb));
	char buf[16];
	socklen_t fl = sizeof(from);
	report("recvfrom", recvfrom(b, buf, sizeof(buf), 0, (struct sockaddr *)&from, &fl));
	printf("  from len %u\n", (unsigned)fl);
	report("recv short (truncated)", recv(b, buf, 2, 0));
	report("send unconnected", send(a, "x", 1, 0));
	report("connect b", connect(a, (struct sockaddr *)&sb, lb));
	report("send connected", send(a, "three", 5, 0));
	report("recv MSG_TRUNC", recv(b, buf, 1, MSG_TRUNC));
	int c = socket(AF_UNIX, SOCK_DGRAM, 0);
	report("b connects to c? no: c unbound", connect(b, (struct sockaddr *)&sa, la));
	report("c sends to b (b connected to a)", sendto(c, "x", 1, 0, (struct sockaddr *)&sb, lb));
	close(c);
	struct sockaddr un = { .sa_family = AF_UNSPEC };
	report("disconnect", connect(a, &un, sizeof(un)));
	report("send after disconnect", send(a, "x", 1, 0));
	close(b);
	report("sendto closed", sendto(a, "x", 1, 0, (struct sockaddr *)&sb, lb));
	report("sendto len 2", sendto(a, "x", 1, 0, (struct sockaddr *)&sb, 2));
	close(a);

	/* A connected datagram socket whose peer went away. */
	a = socket(AF_UNIX, SOCK_DGRAM, 0);
	b = socket(AF_UNIX, SOCK_DGRAM, 0);
	bind(b, (struct sockaddr *)&sb, lb);
	connect(a, (struct sockaddr *)&sb, lb);
	close(b);
	report("send to dead peer", send(a, "x", 1, 0));
	report("send again", send(a, "x", 1, 0));
	close(a);

	/* Too big a datagram. */
	int sv[2];
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	static char big[300000];
	report("send 300000", send(sv[0], big, sizeof(big), 0));
	report("send 100000", send(sv[0], big, 100000, 0));
	report("recv 100000", recv(sv[1], big, sizeof(big), 0));
	report("send 0", send(sv[0], big, 0, 0));
	report("recv 0-length", recv(sv[1], big, sizeof(big), MSG_DONTWAIT));
	report("recv empty", recv(sv[1], big, sizeof(big), MSG_DONTWAIT));
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	types();
	pairs();
	paths();
	perms();
	abstract();
	dgrams();
	return 0;
}
