/*
 * Mapped read, for bench/filebench.sh: map FILE read-only, touch every
 * page and sum every byte; print the time of the whole (open to munmap)
 * and the sum, which must be the same natively and inside:
 *
 *   mapread FILE TAG     prints "mapread-TAG-ms N" and "mapread-sum S"
 *
 * Built with gcc -static, so the figure is the kernel's (faults, page
 * cache, disk) and not the dynamic loader's.  Exit status 1 on an error.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define PAGE 4096

static double
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/*
 * page_sum: the sum of the N bytes at P, eight at a time in 16-bit lanes
 * (a byte loop would take ten times longer than the faults being
 * measured).  P is page-aligned.
 */
static uint64_t
page_sum(const unsigned char *p, size_t n)
{
	const uint64_t m = 0x00ff00ff00ff00ffULL;
	uint64_t sum = 0, lanes;
	size_t i = 0, j;

	while (i + 8 <= n) {
		/* 64 words of 2 x 255 per lane stay under 65,536. */
		lanes = 0;
		for (j = 0; j < 64 && i + 8 <= n; j++, i += 8) {
			uint64_t w = *(const uint64_t *)(p + i);

			lanes += (w & m) + ((w >> 8) & m);
		}
		sum += (lanes & 0xffff) + (lanes >> 16 & 0xffff) +
		    (lanes >> 32 & 0xffff) + (lanes >> 48);
	}
	for (; i < n; i++)
		sum += p[i];
	return sum;
}

int
main(int argc, char **argv)
{
	struct stat st;
	const unsigned char *p;
	uint64_t sum = 0;
	double t0, t1;
	int fd;

	if (argc != 3) {
		fprintf(stderr, "usage: mapread FILE TAG\n");
		return 1;
	}
	t0 = now_ms();
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	p = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	/* In file order, so read-ahead (the host's or the kernel's) can help. */
	for (off_t i = 0; i < st.st_size; i += PAGE)
		sum += page_sum(p + i, st.st_size - i < PAGE ? st.st_size - i : PAGE);
	munmap((void *)p, st.st_size);
	close(fd);
	t1 = now_ms();
	printf("mapread-%s-ms %.1f\n", argv[2], t1 - t0);
	printf("mapread-sum %llu\n", (unsigned long long)sum);
	return 0;
}
