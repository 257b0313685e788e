/*
 * /proc/self/maps in Linux's format, compared with Linux: the program
 * makes mappings of each kind (private and shared anonymous memory,
 * split by mprotect, moved by mremap; private and shared mappings of a
 * file, written and not) and prints their lines with
 * what differs between machines normalised: addresses become names and
 * lengths, device numbers "dev" unless 00:00, inodes "ino" unless 0, file
 * paths their last component.  [heap] and [stack] are checked for shape,
 * and smaps's Size and Rss of each mapping.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define PG	4096L

static struct { char *start; const char *name; } known[16];
static int nknown;

static void
note(void *p, const char *name)
{
	known[nknown].start = p;
	known[nknown++].name = name;
}

/* The label of the line starting at a: a known mapping plus pages in. */
static int
label(unsigned long a, char *buf, size_t n)
{
	for (int i = 0; i < nknown; i++) {
		unsigned long s = (unsigned long)known[i].start;
		if (a >= s && a < s + 16 * PG) {
			snprintf(buf, n, "%s+%lu", known[i].name, (a - s) / PG);
			return 1;
		}
	}
	return 0;
}

static void
show(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	int heap = 0, stack = 0, bad = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long s, e, off, ino;
		char perms[8], dev[16], lab[64];
		int n = 0;
		if (sscanf(line, "%lx-%lx %7s %lx %15s %lu %n", &s, &e, perms,
		    &off, dev, &ino, &n) != 6) {
			bad++;
			continue;
		}
		char *name = line + n;
		name[strcspn(name, "\n")] = 0;
		/* The name, if any, starts in column 74 (73 before it). */
		if (*name != 0 && n != 73 && strlen(line) > 73)
			bad++;
		if (strcmp(name, "[heap]") == 0)
			heap = strcmp(perms, "rw-p") == 0 ? 1 : -1;
		if (strcmp(name, "[stack]") == 0)
			stack = strcmp(perms, "rw-p") == 0 ? 1 : -1;
		if (!label(s, lab, sizeof(lab)))
			continue;
		char *base = strrchr(name, '/');
		printf("%s %lu pages %s %08lx %s %s %s\n", lab, (e - s) / PG,
		    perms, off, strcmp(dev, "00:00") == 0 ? dev : "dev",
		    ino == 0 ? "0" : "ino", base != NULL ? base + 1 : name);
	}
	fclose(f);

	/* smaps: each line again, then the sizes; Rss of ours. */
	f = fopen("/proc/self/smaps", "r");
	char lab[64] = "";
	int mine = 0;
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		unsigned long s, e, kb;
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2)
			mine = label(s, lab, sizeof(lab));
		else if (mine && sscanf(line, "Size: %lu kB", &kb) == 1)
			printf("smaps %s: Size %lu kB", lab, kb);
		else if (mine && sscanf(line, "Rss: %lu kB", &kb) == 1)
			printf(", Rss %lu kB\n", kb);
	}
	if (f != NULL)
		fclose(f);
	printf("[heap] %s, [stack] %s, malformed lines %d\n",
	    heap > 0 ? "rw-p" : heap < 0 ? "odd" : "absent",
	    stack > 0 ? "rw-p" : stack < 0 ? "odd" : "absent", bad);
}

/* A free range of n pages, with free pages around it. */
static char *
hole(long n)
{
	char *r = mmap(NULL, (n + 64) * PG, PROT_NONE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(r, (n + 64) * PG);
	return r + 32 * PG;
}

static char *
at(char *where, long pages, int prot, int flags, int fd, long off)
{
	return mmap(where, pages * PG, prot, flags | MAP_FIXED_NOREPLACE, fd,
	    off);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* A heap of one page (musl's sbrk only reads the break). */
	char *brk0 = (char *)syscall(SYS_brk, 0);
	if ((char *)syscall(SYS_brk, brk0 + PG) != brk0 + PG)
		printf("brk failed\n");
	brk0[0] = 1;

	char *a = at(hole(3), 3, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	memset(a, 1, 3 * PG);
	mprotect(a + PG, PG, PROT_READ);
	note(a, "private");

	char *b = at(hole(2), 2, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	note(b, "shared");
	char *b2 = at(hole(3), 3, PROT_READ | PROT_WRITE,
	    MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	b2[0] = 1;
	munmap(b2, PG);
	note(b2, "shared-cut");

	int fd = open("maps.tmp", O_RDWR | O_CREAT | O_TRUNC, 0600);
	char buf[4 * PG];
	memset(buf, 'f', sizeof(buf));
	if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
		printf("write failed\n");
	char *c = at(hole(2), 2, PROT_READ, MAP_PRIVATE, fd, PG);
	note(c, "file-ro");
	char *d = at(hole(3), 3, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	d[PG] = 'w';
	note(d, "file-written");
	int rfd = open("maps.tmp", O_RDONLY);
	char *s = at(hole(1), 1, PROT_READ, MAP_SHARED, rfd, 2 * PG);
	note(s, "file-shared");
	close(rfd);

	char *m = at(hole(2), 2, PROT_READ | PROT_WRITE,
	    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	m[0] = 1;
	char *moved = mremap(m, 2 * PG, 4 * PG, MREMAP_MAYMOVE | MREMAP_FIXED,
	    hole(4));
	note(moved, "moved");
	char *fm = mremap(c, PG, PG, MREMAP_MAYMOVE | MREMAP_FIXED, hole(1));
	note(fm, "file-moved");

	close(fd);
	show();
	unlink("maps.tmp");
	return 0;
}
