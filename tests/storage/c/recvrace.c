/*
 * Two readers of one datagram socket while a copy to the guest sleeps:
 * the first reader's buffer is a page of a file mapping not yet read
 * from the disk, so its copy waits for the disk; the second reader,
 * woken meanwhile, must take the next datagram, never the one being
 * copied (which it would free under the first).  Each round two
 * datagrams go in and the two readers must get both, once each: the
 * round's file page goes backwards through FILE (random data, so no
 * holes), a fresh page each round.
 *
 * recvrace FAMILY FILE: FAMILY netlink (one user socket sending to
 * another) or unix (a SOCK_DGRAM socketpair).  Prints "ok   recvrace
 * FAMILY" or "FAIL recvrace FAMILY: why".  Run it on a fresh boot: a
 * page already read would not make the copy wait.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#ifndef AF_NETLINK
#define AF_NETLINK	16
#endif
#define STRIDE		(256 * 1024)	/* past the pager's read-ahead */

struct nl_addr {			/* struct sockaddr_nl */
	uint16_t nl_family;
	uint16_t nl_pad;
	uint32_t nl_pid;
	uint32_t nl_groups;
};

static int rfd, wake[2];
static char second;

/* The second reader: runs once the first is in its recv. */
static void *
reader(void *arg)
{
	char c;

	(void)arg;
	if (read(wake[0], &c, 1) != 1 || recv(rfd, &second, 1, 0) != 1)
		second = '?';
	return NULL;
}

static int
nlsock(struct nl_addr *a)
{
	int fd = socket(AF_NETLINK, SOCK_RAW, 0);
	socklen_t len = sizeof(*a);
	memset(a, 0, sizeof(*a));
	a->nl_family = AF_NETLINK;
	if (fd < 0 || bind(fd, (struct sockaddr *)a, sizeof(*a)) < 0 ||
	    getsockname(fd, (struct sockaddr *)a, &len) < 0)
		return -1;
	return fd;
}

/* The receiving socket in rfd and the sending one in *sfd, connected. */
static int
sockets(const char *family, int *sfd)
{
	struct nl_addr ra, sa;
	int sp[2];

	if (strcmp(family, "unix") == 0) {
		if (socketpair(AF_UNIX, SOCK_DGRAM, 0, sp) < 0)
			return -1;
		rfd = sp[0];
		*sfd = sp[1];
		return 0;
	}
	if ((rfd = nlsock(&ra)) < 0 || (*sfd = nlsock(&sa)) < 0)
		return -1;
	return connect(*sfd, (struct sockaddr *)&ra, sizeof(ra));
}

int
main(int argc, char **argv)
{
	struct stat st;
	int fail = 0, sfd;

	if (argc != 3) {
		fprintf(stderr, "usage: recvrace netlink|unix FILE\n");
		return 2;
	}
	const char *fam = argv[1];
	int fd = open(argv[2], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0 || st.st_size < STRIDE) {
		printf("FAIL recvrace %s: no file to map (%s)\n", fam,
		    strerror(errno));
		return 1;
	}
	char *map = mmap(NULL, st.st_size, PROT_READ | PROT_WRITE, MAP_PRIVATE,
	    fd, 0);
	if (map == MAP_FAILED || sockets(fam, &sfd) < 0 || pipe(wake) < 0) {
		printf("FAIL recvrace %s: setup: %s\n", fam, strerror(errno));
		return 1;
	}
	int rounds = 0;
	for (off_t off = (st.st_size - 1) / STRIDE * STRIDE; off >= 0;
	    off -= STRIDE, rounds++) {
		pthread_t t;
		second = 0;
		if (send(sfd, "A", 1, 0) != 1 || send(sfd, "B", 1, 0) != 1 ||
		    pthread_create(&t, NULL, reader, NULL) != 0) {
			printf("FAIL recvrace %s: round %d: %s\n", fam, rounds,
			    strerror(errno));
			return 1;
		}
		/* The reader is let go, then this thread's copy waits for
		 * the disk: the reader's recv comes while it waits. */
		char *first = map + off;
		if (write(wake[1], "x", 1) != 1 || recv(rfd, first, 1, 0) != 1)
			*first = '?';
		pthread_join(t, NULL);
		char extra;
		ssize_t n = recv(rfd, &extra, 1, MSG_DONTWAIT);
		if (!((*first == 'A' && second == 'B') ||
		    (*first == 'B' && second == 'A')) || n != -1) {
			printf("FAIL recvrace %s: round %d: the readers got %c "
			    "and %c, %s left\n", fam, rounds, *first, second,
			    n == 1 ? "one" : "none");
			fail = 1;
			break;
		}
	}
	if (!fail)
		printf("ok   recvrace %s\n     %d rounds\n", fam, rounds);
	return fail;
}
