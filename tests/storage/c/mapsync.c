/*
 * mapsync PATH HOW: writes "mapped, HOW\n" into a new file PATH through
 * a MAP_SHARED mapping only, makes it durable by HOW (msync: msync
 * MS_SYNC; fsync: fsync of the descriptor; syncer: munmap and nothing,
 * the syncer's write-back) and prints "ready", then sleeps until killed.
 * The host kills vkernel with SIGKILL and reads the file with debugfs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	char text[64];
	snprintf(text, sizeof(text), "mapped, %s\n", argv[2]);
	size_t len = strlen(text);
	int fd = open(argv[1], O_RDWR | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || ftruncate(fd, (off_t)len) < 0) {
		perror("mapsync: open");
		return 1;
	}
	/* The inode (its size) durable first: only the data are at stake. */
	fsync(fd);
	char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mapsync: mmap");
		return 1;
	}
	memcpy(p, text, len);
	int r = 0;
	if (strcmp(argv[2], "msync") == 0)
		r = msync(p, 4096, MS_SYNC);
	else if (strcmp(argv[2], "fsync") == 0)
		r = fsync(fd);
	else
		r = munmap(p, 4096);
	if (r < 0) {
		perror("mapsync");
		return 1;
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
