/*
 * eventfd: counter and semaphore modes, the overflow limit, short reads
 * and writes, flags, poll readiness and a blocked reader woken.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/wait.h>
#include <unistd.h>

static void
rd(int fd)
{
	uint64_t v = 0;
	ssize_t n = read(fd, &v, sizeof(v));
	if (n < 0)
		printf("  read: %s\n", strerror(errno));
	else
		printf("  read: %zd bytes, %llu\n", n, (unsigned long long)v);
}

static void
wr(int fd, uint64_t v)
{
	ssize_t n = write(fd, &v, sizeof(v));
	if (n < 0)
		printf("  write %llu: %s\n", (unsigned long long)v, strerror(errno));
	else
		printf("  write %llu: %zd\n", (unsigned long long)v, n);
}

static void
pollit(int fd)
{
	struct pollfd p = { fd, POLLIN | POLLOUT, 0 };
	int n = poll(&p, 1, 0);
	printf("  poll: %d in %d out %d\n", n, !!(p.revents & POLLIN),
	    !!(p.revents & POLLOUT));
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("bad flags: %s\n", eventfd(0, 0x1234) < 0 ? strerror(errno) : "ok");

	printf("counter\n");
	int fd = eventfd(5, EFD_NONBLOCK | EFD_CLOEXEC);
	printf("  cloexec %d nonblock %d\n", (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0,
	    (fcntl(fd, F_GETFL) & O_NONBLOCK) != 0);
	pollit(fd);
	wr(fd, 3);
	rd(fd);
	rd(fd);
	pollit(fd);
	uint32_t small = 1;
	printf("  short write: %s\n", write(fd, &small, 4) < 0 ? strerror(errno) : "ok");
	printf("  short read: %s\n", read(fd, &small, 4) < 0 ? strerror(errno) : "ok");
	char big[16] = { 0 };
	big[0] = 7;
	printf("  long write: %s\n", write(fd, big, sizeof(big)) < 0 ? strerror(errno) : "ok");
	wr(fd, 7);
	printf("  long read: %zd\n", read(fd, big, sizeof(big)));

	printf("overflow\n");
	wr(fd, UINT64_MAX);
	wr(fd, UINT64_MAX - 1);
	pollit(fd);
	wr(fd, 1);
	wr(fd, 0);
	rd(fd);
	close(fd);

	printf("semaphore\n");
	fd = eventfd(2, EFD_SEMAPHORE | EFD_NONBLOCK);
	rd(fd);
	rd(fd);
	rd(fd);
	wr(fd, 3);
	rd(fd);
	close(fd);

	printf("blocking reader\n");
	fd = eventfd(0, 0);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(50000);
		uint64_t v = 42;
		write(fd, &v, sizeof(v));
		_exit(0);
	}
	rd(fd);
	waitpid(pid, NULL, 0);
	close(fd);
	return 0;
}
