/*
 * tmpfs data survive memory pressure: a file in /dev/shm (written with
 * write(2), part of it mapped) has no store behind it, so when a child
 * takes memory until it fails (or is killed), the page cache's pageout
 * must not drop the file's pages.  Afterwards the file reads back
 * whole, through read(2) and through the mapping.  The child limits its
 * address space to 200 MB so that natively it stops there; the guest
 * tests give vkernel 128 MiB of RAM, so inside it runs out of RAM first.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define FILE_MB	16
#define STEP	(1 << 20)

static unsigned
word(size_t i)
{
	return (unsigned)(i * 2654435761u) ^ 0x5a5a5a5a;
}

int
main(void)
{
	char path[64];
	static unsigned buf[STEP / sizeof(unsigned)];
	snprintf(path, sizeof(path), "/dev/shm/vk-pressure-%d", getpid());
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0)
		return 1;
	unlink(path);
	for (size_t mb = 0; mb < FILE_MB; mb++) {
		for (size_t i = 0; i < STEP / sizeof(unsigned); i++)
			buf[i] = word(mb * (STEP / sizeof(unsigned)) + i);
		if (write(fd, buf, STEP) != STEP)
			return 2;
	}
	/* The second half also mapped (and read through: mapped, clean). */
	unsigned *map = mmap(NULL, FILE_MB / 2 * STEP, PROT_READ, MAP_SHARED, fd,
	    FILE_MB / 2 * STEP);
	if (map == MAP_FAILED)
		return 3;
	unsigned sum = 0;
	for (size_t i = 0; i < FILE_MB / 2 * STEP / sizeof(unsigned); i += 1024)
		sum += map[i];

	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 200u << 20, 200u << 20 };
		setrlimit(RLIMIT_AS, &rl);
		for (int i = 0; i < 1024; i++) {
			char *p = malloc(STEP);
			if (p == NULL)
				_exit(0);
			memset(p, i, STEP);
		}
		_exit(0);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("child done (%s)\n", WIFEXITED(st) || WTERMSIG(st) == SIGKILL ?
	    "ran out or was killed" : "other");

	size_t bad = 0;
	for (size_t mb = 0; mb < FILE_MB; mb++) {
		if (pread(fd, buf, STEP, (off_t)(mb * STEP)) != STEP)
			return 4;
		for (size_t i = 0; i < STEP / sizeof(unsigned); i++)
			bad += buf[i] != word(mb * (STEP / sizeof(unsigned)) + i);
	}
	size_t base = FILE_MB / 2 * (STEP / sizeof(unsigned));
	for (size_t i = 0; i < FILE_MB / 2 * STEP / sizeof(unsigned); i++)
		bad += map[i] != word(base + i);
	printf("words wrong after pressure: %zu (sum %s)\n", bad,
	    sum != 0 ? "nonzero" : "zero");
	return 0;
}
