/*
 * fsyncloop DIR SEED: appends numbered records to DIR/log, fsync(2) after
 * each, and prints "ack N" on stdout once record N's fsync has returned:
 * from then on record N is the host's to keep.  Between records it does
 * what keeps the file system's metadata moving (a file created, written,
 * renamed and unlinked; a directory made and removed), sized by SEED so
 * that records of every length cross block boundaries.  Runs until it is
 * killed.  A record is "rec N LEN " then LEN - 1 letters (N mod 26) and
 * a newline; the host checks them with debugfs.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static unsigned long rs;

static unsigned long
rnd(void)
{
	rs = rs * 6364136223846793005UL + 1442695040888963407UL;
	return rs >> 33;
}

static void
die(const char *what)
{
	perror(what);
	exit(1);
}

int
main(int argc, char **argv)
{
	static char rec[8192], path[512], tmp[512], tmp2[512], sub[512];
	if (argc != 3) {
		fprintf(stderr, "usage: fsyncloop DIR SEED\n");
		return 2;
	}
	rs = strtoul(argv[2], NULL, 0) | 1;
	snprintf(path, sizeof(path), "%s/log", argv[1]);
	snprintf(tmp, sizeof(tmp), "%s/tmp", argv[1]);
	snprintf(tmp2, sizeof(tmp2), "%s/tmp2", argv[1]);
	snprintf(sub, sizeof(sub), "%s/sub", argv[1]);
	if (mkdir(argv[1], 0755) < 0)
		die("mkdir");
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	int dfd = open(argv[1], O_RDONLY | O_DIRECTORY);
	if (fd < 0 || dfd < 0)
		die("open");
	/* The file's name must survive too: the directory to disk, then sync. */
	if (fsync(fd) < 0 || fsync(dfd) < 0)
		die("fsync");
	sync();
	printf("ready\n");
	fflush(stdout);
	for (unsigned long n = 0;; n++) {
		size_t len = 1 + rnd() % (rnd() % 4 ? 200 : 6000);
		int h = snprintf(rec, sizeof(rec), "rec %lu %zu ", n, len);
		memset(rec + h, 'a' + (int)(n % 26), len - 1);
		rec[h + len - 1] = '\n';
		if (write(fd, rec, (size_t)h + len) != (ssize_t)(h + len))
			die("write");
		if (fsync(fd) < 0)
			die("fsync");
		printf("ack %lu\n", n);
		fflush(stdout);
		switch (rnd() % 4) {
		case 0: {
			int t = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
			if (t >= 0) {
				if (write(t, rec, (size_t)h + len) < 0)
					die("write tmp");
				close(t);
			}
			rename(tmp, tmp2);
			break;
		}
		case 1:
			unlink(tmp2);
			break;
		case 2:
			if (mkdir(sub, 0755) < 0)
				rmdir(sub);
			break;
		}
	}
}
