/*
 * Storage benchmark, run the same natively, inside vkernel and under
 * User-Mode Linux: one "name value" line per figure (milliseconds for a
 * whole operation, microseconds per file), each the median of 3 rounds.
 *
 *   sbench DIR TARBALL BUSYBOX write   64 MiB sequential write + fsync,
 *                                      10,000 files created and deleted,
 *                                      the tarball untarred and re-tarred
 *   sbench DIR - - read                read DIR/seq back (once: the
 *                                      caller makes the cache cold) and
 *                                      check every byte
 *
 *   sbench                             the same, with DIR /data, TARBALL
 *                                      /t/tree.tar, BUSYBOX /bin/busybox
 *                                      and the mode from $sbench (a
 *                                      kernel command line's sbench=read)
 *
 * DIR must exist. As PID 1 (UML's init=, vkernel's init) it syncs and
 * powers the machine off at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SEQ_MIB 64
#define CHUNK (1 << 20)
#define NFILES 10000
#define ROUNDS 3

static const char *dir, *tarball, *busybox;
static int failed;

static double
now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double
med(double *v)
{
	qsort(v, ROUNDS, sizeof(double), cmp);
	return v[ROUNDS / 2];
}

static void
report(const char *name, double v)
{
	printf("%s %.3f\n", name, v);
	fflush(stdout);
}

static void
fail(const char *what, const char *path)
{
	printf("# sbench: %s %s: %s\n", what, path, strerror(errno));
	fflush(stdout);
	failed = 1;
}

/* The pattern at byte offset off (8-byte aligned): never all zero. */
static uint64_t
pattern(uint64_t off)
{
	return (off * 0x9e3779b97f4a7c15ull) ^ 0x5bd1e9955bd1e995ull;
}

static void
fill(uint64_t *buf, uint64_t off)
{
	for (size_t i = 0; i < CHUNK / 8; i++)
		buf[i] = pattern(off + i * 8);
}

/* One sequential write of DIR/seq from scratch, fsync included: ms. */
static double
seq_write(uint64_t *buf)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/seq", dir);
	unlink(path);
	sync();
	double t = now_ms();
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fail("open", path);
		return 0;
	}
	for (uint64_t off = 0; off < (uint64_t)SEQ_MIB * CHUNK; off += CHUNK) {
		fill(buf, off);
		if (write(fd, buf, CHUNK) != CHUNK) {
			fail("write", path);
			break;
		}
	}
	if (fsync(fd) < 0)
		fail("fsync", path);
	close(fd);
	return now_ms() - t;
}

static void
seq_read(uint64_t *buf)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/seq", dir);
	long bad = 0;
	uint64_t off = 0;
	double t = now_ms();
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fail("open", path);
		return;
	}
	for (;;) {
		ssize_t n = read(fd, buf, CHUNK);
		if (n < 0) {
			fail("read", path);
			break;
		}
		if (n == 0)
			break;
		for (size_t i = 0; i < (size_t)n / 8; i++)
			bad += buf[i] != pattern(off + i * 8);
		off += (uint64_t)n;
	}
	close(fd);
	t = now_ms() - t;
	if (off != (uint64_t)SEQ_MIB * CHUNK || bad) {
		printf("# sbench: %s: %llu bytes read, %ld words wrong\n", path,
		    (unsigned long long)off, bad);
		failed = 1;
	}
	report("seq-read-ms", t);
}

/* One round of the small files: create/sync/delete times in *c, *s, *d. */
static void
files(int round, char *block, double *c, double *s, double *d)
{
	char sub[4096], path[4200];
	snprintf(sub, sizeof(sub), "%s/files%d", dir, round);
	if (mkdir(sub, 0755) < 0) {
		fail("mkdir", sub);
		return;
	}
	sync();
	double t = now_ms();
	for (int i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/f%05d", sub, i);
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, block, 4096) != 4096) {
			fail("create", path);
			if (fd >= 0)
				close(fd);
			return;
		}
		close(fd);
	}
	double t1 = now_ms();
	sync();
	double t2 = now_ms();
	for (int i = 0; i < NFILES; i++) {
		snprintf(path, sizeof(path), "%s/f%05d", sub, i);
		if (unlink(path) < 0) {
			fail("unlink", path);
			return;
		}
	}
	double t3 = now_ms();
	rmdir(sub);
	sync();
	*c = (t1 - t) * 1e3 / NFILES;
	*s = t2 - t1;
	*d = (t3 - t2) * 1e3 / NFILES;
}

/* Runs busybox with argv; ms, or -1 if it failed. */
static double
run(char *const argv[])
{
	double t = now_ms();
	pid_t p = fork();
	if (p == 0) {
		execv(busybox, argv);
		_exit(127);
	}
	int st;
	if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
	    WEXITSTATUS(st) != 0) {
		printf("# sbench: busybox %s %s failed\n", argv[1], argv[2]);
		fflush(stdout);
		failed = 1;
		return -1;
	}
	return now_ms() - t;
}

static void
tars(int round, double *x, double *c)
{
	char sub[4096], out[4200];
	snprintf(sub, sizeof(sub), "%s/tree%d", dir, round);
	snprintf(out, sizeof(out), "%s/tree%d.tar", dir, round);
	if (mkdir(sub, 0755) < 0) {
		fail("mkdir", sub);
		return;
	}
	sync();
	*x = run((char *const[]){ "busybox", "tar", "xf", (char *)tarball,
	    "-C", sub, NULL });
	*c = run((char *const[]){ "busybox", "tar", "cf", out, "-C", sub, ".",
	    NULL });
	run((char *const[]){ "busybox", "rm", "-rf", sub, out, NULL });
	sync();
}

int
main(int argc, char **argv)
{
	const char *what = getenv("sbench");
	dir = "/data";
	tarball = "/t/tree.tar";
	busybox = "/bin/busybox";
	if (argc == 5) {
		dir = argv[1];
		tarball = argv[2];
		busybox = argv[3];
		what = argv[4];
	} else if (argc != 1 || what == NULL) {
		printf("# usage: sbench DIR TARBALL BUSYBOX write|read\n");
		what = "none";
		failed = 1;
	}

	uint64_t *buf = malloc(CHUNK);
	char *block = malloc(4096);
	if (buf == NULL || block == NULL)
		return 1;
	memset(block, 'x', 4096);
	if (strcmp(what, "read") == 0) {
		seq_read(buf);
	} else if (strcmp(what, "write") == 0) {
		double v[ROUNDS], c[ROUNDS] = { 0 }, s[ROUNDS] = { 0 },
		    d[ROUNDS] = { 0 };
		for (int r = 0; r < ROUNDS; r++)
			v[r] = seq_write(buf);
		report("seq-write-fsync-ms", med(v));
		for (int r = 0; r < ROUNDS; r++)
			files(r, block, &c[r], &s[r], &d[r]);
		report("create-write-close-us", med(c));
		report("sync-after-create-ms", med(s));
		report("delete-us", med(d));
		for (int r = 0; r < ROUNDS; r++)
			tars(r, &c[r], &d[r]);
		report("untar-ms", med(c));
		report("tar-ms", med(d));
	}
	printf(failed ? "# sbench: FAILED\n" : "sbench: done\n");
	fflush(stdout);
	if (getpid() == 1) {
		sync();
		reboot(RB_POWER_OFF);
	}
	return failed;
}
