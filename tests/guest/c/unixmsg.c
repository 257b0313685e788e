/*
 * AF_UNIX messages: SCM_RIGHTS (a pipe end passed and used, reference
 * counts seen through end of file, MSG_CTRUNC closing what does not
 * fit, MSG_CMSG_CLOEXEC), SCM_CREDENTIALS and SO_PASSCRED, SO_PEERCRED,
 * recvmsg's flags and address, sendmmsg/recvmmsg, hostile msghdrs, and
 * a long chain of sockets in flight inside each other.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

/* Sends one byte with n descriptors. */
static long
send_fds(int s, const int *fds, int n)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov = { "F", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1 };
	if (n > 0) {
		memset(cbuf, 0, sizeof(cbuf));
		m.msg_control = cbuf;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * n);
		struct cmsghdr *c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * n);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * n);
	}
	return sendmsg(s, &m, 0);
}

/*
 * Receives one message with a control buffer of clen bytes; prints its
 * flags and control messages; returns the first descriptor or -1.
 */
static int
recv_show(const char *what, int s, size_t clen, int flags)
{
	char cbuf[512], data[64];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1,
	    .msg_control = clen ? cbuf : NULL, .msg_controllen = clen };
	int first = -1;
	memset(cbuf, 0, sizeof(cbuf));
	long r = recvmsg(s, &m, flags);
	if (r < 0) {
		printf("%s: -1 %s\n", what, strerror(errno));
		return -1;
	}
	printf("%s: %ld flags%s%s%s controllen %zu\n", what, r,
	    (m.msg_flags & MSG_CTRUNC) ? " CTRUNC" : "",
	    (m.msg_flags & MSG_TRUNC) ? " TRUNC" : "",
	    (m.msg_flags & MSG_CMSG_CLOEXEC) ? " CMSG_CLOEXEC" : "",
	    (size_t)m.msg_controllen);
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int n = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			printf("  SCM_RIGHTS %d fds", n);
			for (int i = 0; i < n; i++) {
				int fd;
				memcpy(&fd, CMSG_DATA(c) + i * sizeof(int), sizeof(fd));
				printf(" [cloexec %d]", fcntl(fd, F_GETFD));
				if (first < 0)
					first = fd;
				else
					close(fd);
			}
			printf("\n");
		} else if (c->cmsg_level == SOL_SOCKET &&
		    c->cmsg_type == SCM_CREDENTIALS) {
			struct ucred uc;
			memcpy(&uc, CMSG_DATA(c), sizeof(uc));
			printf("  SCM_CREDENTIALS len %zu pid %s uid %s gid %s\n",
			    (size_t)c->cmsg_len, uc.pid == getpid() ? "mine" : "other",
			    uc.uid == getuid() ? "mine" : "other",
			    uc.gid == getgid() ? "mine" : "other");
		} else {
			printf("  cmsg level %d type %d\n", c->cmsg_level, c->cmsg_type);
		}
	}
	return first;
}

static void
rights(int type)
{
	int sv[2], p[2];
	char buf[32];
	printf("-- SCM_RIGHTS, type %d\n", type);
	socketpair(AF_UNIX, type, 0, sv);
	pipe(p);
	report("send pipe write end", send_fds(sv[0], &p[1], 1));
	close(p[1]);	/* the message holds the only reference now */
	int w = recv_show("recv", sv[1], 64, 0);
	report("write through passed fd", write(w, "via-scm", 7));
	close(w);
	memset(buf, 0, sizeof(buf));
	report("pipe read", read(p[0], buf, sizeof(buf)));
	printf("  \"%s\"\n", buf);
	report("pipe EOF (all write ends closed)", read(p[0], buf, sizeof(buf)));
	close(p[0]);

	/* Three descriptors, room for one: the rest are closed. */
	int p1[2], p2[2], p3[2];
	pipe(p1), pipe(p2), pipe(p3);
	int ws[3] = { p1[1], p2[1], p3[1] };
	report("send 3 fds", send_fds(sv[0], ws, 3));
	close(p1[1]), close(p2[1]), close(p3[1]);
	w = recv_show("recv with room for 1", sv[1], CMSG_SPACE(sizeof(int)), 0);
	close(w);
	report("pipe 1 EOF", read(p1[0], buf, 1));
	report("pipe 2 EOF (closed by truncation)", read(p2[0], buf, 1));
	report("pipe 3 EOF (closed by truncation)", read(p3[0], buf, 1));
	close(p1[0]), close(p2[0]), close(p3[0]);

	/* No control buffer at all; and MSG_CMSG_CLOEXEC. */
	pipe(p1);
	send_fds(sv[0], &p1[1], 1);
	close(p1[1]);
	recv_show("recv without control buffer", sv[1], 0, 0);
	report("pipe EOF", read(p1[0], buf, 1));
	close(p1[0]);
	pipe(p1);
	send_fds(sv[0], &p1[1], 1);
	w = recv_show("recv MSG_CMSG_CLOEXEC", sv[1], 64, MSG_CMSG_CLOEXEC);
	close(w);
	close(p1[0]);
	close(p1[1]);

	/* A peek passes the descriptor again. */
	pipe(p1);
	send_fds(sv[0], &p1[1], 1);
	close(p1[1]);
	w = recv_show("recv MSG_PEEK", sv[1], 64, MSG_PEEK);
	close(w);
	w = recv_show("recv after peek", sv[1], 64, 0);
	close(w);
	report("pipe EOF", read(p1[0], buf, 1));
	close(p1[0]);

	/* Bad descriptors and malformed control data. */
	int bad = 999;
	report("send bad fd", send_fds(sv[0], &bad, 1));
	char cbuf[64] = { 0 };
	struct iovec iov = { "x", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
	    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = (struct cmsghdr *)cbuf;
	c->cmsg_len = 1000;
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	report("cmsg_len past the buffer", sendmsg(sv[0], &m, 0));
	m.msg_controllen = CMSG_SPACE(4);
	c->cmsg_len = CMSG_LEN(4);
	c->cmsg_type = 77;
	report("unknown SOL_SOCKET type", sendmsg(sv[0], &m, 0));
	c->cmsg_level = 12345;
	report("other level ignored", sendmsg(sv[0], &m, 0));
	recv(sv[1], buf, sizeof(buf), 0);
	m.msg_control = (void *)8;
	/* The C libraries may copy the control data: go straight to the kernel. */
	report("control EFAULT", syscall(SYS_sendmsg, sv[0], &m, 0));
	close(sv[0]);
	close(sv[1]);
}

static void
creds(void)
{
	int sv[2], on = 1;
	char buf[8];
	printf("-- credentials\n");
	socketpair(AF_UNIX, SOCK_DGRAM, 0, sv);
	struct ucred uc;
	socklen_t len = sizeof(uc);
	report("SO_PEERCRED", getsockopt(sv[0], SOL_SOCKET, SO_PEERCRED, &uc, &len));
	printf("  len %u pid %s uid %s gid %s\n", (unsigned)len,
	    uc.pid == getpid() ? "mine" : "other", uc.uid == getuid() ? "mine" : "other",
	    uc.gid == getgid() ? "mine" : "other");
	send(sv[0], "a", 1, 0);
	recv_show("recv without SO_PASSCRED", sv[1], 64, 0);
	report("SO_PASSCRED", setsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)));
	int v = 0;
	len = sizeof(v);
	getsockopt(sv[1], SOL_SOCKET, SO_PASSCRED, &v, &len);
	printf("  SO_PASSCRED reads %d\n", v);
	send(sv[0], "b", 1, 0);
	recv_show("recv with SO_PASSCRED", sv[1], 64, 0);
	send(sv[0], "c", 1, 0);
	recv_show("recv with SO_PASSCRED, small buffer", sv[1], 20, 0);

	/* Explicit credentials: our own are accepted. */
	char cbuf[CMSG_SPACE(sizeof(struct ucred))] = { 0 };
	struct iovec iov = { "d", 1 };
	struct msghdr m = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
	    .msg_controllen = sizeof(cbuf) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_CREDENTIALS;
	c->cmsg_len = CMSG_LEN(sizeof(struct ucred));
	uc = (struct ucred){ getpid(), getuid(), getgid() };
	memcpy(CMSG_DATA(c), &uc, sizeof(uc));
	report("send own credentials", sendmsg(sv[0], &m, 0));
	recv_show("recv", sv[1], 64, 0);
	uc.pid = 1;
	memcpy(CMSG_DATA(c), &uc, sizeof(uc));
	long r = sendmsg(sv[0], &m, 0);
	/* Root may claim any process; others get EPERM. */
	printf("send init's pid: %s\n", (geteuid() == 0 ? r == 1 :
	    r < 0 && errno == EPERM) ? "as expected" : "wrong");
	if (r == 1)
		recv(sv[1], buf, sizeof(buf), 0);
	c->cmsg_len = CMSG_LEN(4);
	report("short credentials", sendmsg(sv[0], &m, 0));
	close(sv[0]);
	close(sv[1]);

	/* SO_PEERCRED across fork: the connecter and the listener. */
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	strcpy(sun.sun_path + 1, "vk-peercred");
	socklen_t sl = offsetof(struct sockaddr_un, sun_path) + 12;
	int l = socket(AF_UNIX, SOCK_STREAM, 0);
	bind(l, (struct sockaddr *)&sun, sl);
	listen(l, 1);
	pid_t child = fork();
	if (child == 0) {
		int s = socket(AF_UNIX, SOCK_STREAM, 0);
		connect(s, (struct sockaddr *)&sun, sl);
		struct ucred pc;
		socklen_t pl = sizeof(pc);
		getsockopt(s, SOL_SOCKET, SO_PEERCRED, &pc, &pl);
		char ok = pc.pid == getppid() ? 'P' : 'x';
		write(s, &ok, 1);
		read(s, &ok, 1);
		_exit(0);
	}
	int a = accept(l, NULL, NULL);
	len = sizeof(uc);
	getsockopt(a, SOL_SOCKET, SO_PEERCRED, &uc, &len);
	printf("server sees the child's pid: %d\n", uc.pid == child);
	read(a, buf, 1);
	printf("child sees the listener's pid: %c\n", buf[0]);
	write(a, "k", 1);
	waitpid(child, NULL, 0);
	close(a);
	close(l);
}

static void
names_and_flags(void)
{
	printf("-- recvmsg address and flags\n");
	struct sockaddr_un sa = { .sun_family = AF_UNIX }, from;
	strcpy(sa.sun_path + 1, "vk-msg-a");
	socklen_t la = offsetof(struct sockaddr_un, sun_path) + 9;
	int a = socket(AF_UNIX, SOCK_DGRAM, 0), b = socket(AF_UNIX, SOCK_DGRAM, 0);
	bind(a, (struct sockaddr *)&sa, la);
	sendto(b, "0123456789", 10, 0, (struct sockaddr *)&sa, la);
	char data[4];
	struct iovec iov = { data, sizeof(data) };
	struct msghdr m = { .msg_name = &from, .msg_namelen = sizeof(from),
	    .msg_iov = &iov, .msg_iovlen = 1 };
	report("recvmsg truncated", recvmsg(a, &m, 0));
	printf("  namelen %u flags TRUNC %d\n", (unsigned)m.msg_namelen,
	    !!(m.msg_flags & MSG_TRUNC));
	int on = 1;
	setsockopt(b, SOL_SOCKET, SO_PASSCRED, &on, sizeof(on));
	sendto(b, "x", 1, 0, (struct sockaddr *)&sa, la);
	m.msg_namelen = sizeof(from);
	report("recvmsg from a SO_PASSCRED sender (autobound)", recvmsg(a, &m, 0));
	printf("  namelen %u abstract %d\n", (unsigned)m.msg_namelen, from.sun_path[0] == 0);

	/* sendmmsg, recvmmsg. */
	struct mmsghdr mm[3];
	struct iovec iv[3] = { { "one", 3 }, { "three", 5 }, { "seven!!", 7 } };
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 3; i++) {
		mm[i].msg_hdr.msg_iov = &iv[i];
		mm[i].msg_hdr.msg_iovlen = 1;
		mm[i].msg_hdr.msg_name = &sa;
		mm[i].msg_hdr.msg_namelen = la;
	}
	report("sendmmsg", sendmmsg(b, mm, 3, 0));
	printf("  msg_len %u %u %u\n", mm[0].msg_len, mm[1].msg_len, mm[2].msg_len);
	char bufs[3][16];
	struct iovec rv[3];
	memset(mm, 0, sizeof(mm));
	for (int i = 0; i < 3; i++) {
		rv[i] = (struct iovec){ bufs[i], sizeof(bufs[i]) };
		mm[i].msg_hdr.msg_iov = &rv[i];
		mm[i].msg_hdr.msg_iovlen = 1;
	}
	report("recvmmsg MSG_WAITFORONE", recvmmsg(a, mm, 3, MSG_WAITFORONE, NULL));
	printf("  msg_len %u %u %u\n", mm[0].msg_len, mm[1].msg_len, mm[2].msg_len);
	report("recvmmsg empty, nonblocking", recvmmsg(a, mm, 3, MSG_DONTWAIT, NULL));

	/* Hostile message headers. */
	report("sendmsg NULL msghdr", syscall(SYS_sendmsg, b, NULL, 0));
	report("recvmsg bad msghdr", syscall(SYS_recvmsg, a, 8, 0));
	struct msghdr hm = { .msg_iov = (struct iovec *)8, .msg_iovlen = 1 };
	report("sendmsg bad iovec", syscall(SYS_sendmsg, b, &hm, 0));
	hm.msg_iovlen = 5000;
	report("sendmsg iovlen 5000", syscall(SYS_sendmsg, b, &hm, 0));
	struct iovec bi = { (void *)8, 10 };
	hm = (struct msghdr){ .msg_iov = &bi, .msg_iovlen = 1, .msg_name = &sa,
	    .msg_namelen = la };
	report("sendmsg bad data", syscall(SYS_sendmsg, b, &hm, 0));
	hm.msg_namelen = -1;
	report("sendmsg namelen -1", syscall(SYS_sendmsg, b, &hm, 0));
	report("sendto bad buffer", sendto(b, (void *)8, 10, 0, (struct sockaddr *)&sa, la));
	report("sendmsg to a bad fd", syscall(SYS_sendmsg, 99, NULL, 0));
	report("recvfrom bad buffer", recvfrom(a, (void *)8, 10, MSG_DONTWAIT, NULL, NULL));
	close(a);
	close(b);
}

/*
 * A chain of 2000 socket pairs, each one's end in flight inside the
 * next: closing the last frees them all (no recursion as deep as the
 * chain in the kernel).
 */
static void
chain(void)
{
	int prev[2], ok = 1;
	socketpair(AF_UNIX, SOCK_DGRAM, 0, prev);
	for (int i = 0; i < 2000; i++) {
		int sv[2];
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sv) < 0 ||
		    send_fds(sv[0], &prev[1], 1) != 1)
			ok = 0;
		close(prev[0]);
		close(prev[1]);
		prev[0] = sv[0];
		prev[1] = sv[1];
	}
	close(prev[0]);
	close(prev[1]);
	int sv[2];
	printf("chain of 2000 passed and closed: %d, a new pair: %d\n", ok,
	    socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	rights(SOCK_STREAM);
	rights(SOCK_DGRAM);
	rights(SOCK_SEQPACKET);
	creds();
	names_and_flags();
	chain();
	return 0;
}
