/*
 * sendfile: from a file to a file and to a pipe, at an offset it
 * advances or at the input's own offset, short at end of file, and its
 * errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "report.h"

int
main(void)
{
	static char big[200000], back[200000];
	for (int i = 0; i < (int)sizeof(big); i++)
		big[i] = (char)(i * 13);
	int in = open("sf.in", O_CREAT | O_RDWR | O_TRUNC, 0600);
	write(in, big, sizeof(big));
	int out = open("sf.out", O_CREAT | O_RDWR | O_TRUNC, 0600);
	off_t off = 1000;
	report("file to file, 150000 at 1000", sendfile(out, in, &off, 150000));
	printf("offset now %lld, input's own %lld\n", (long long)off,
	    (long long)lseek(in, 0, SEEK_CUR));
	pread(out, back, 150000, 0);
	printf("same bytes: %d\n", memcmp(back, big + 1000, 150000) == 0);
	report("past the end", sendfile(out, in, &off, 100000));
	report("at the end", sendfile(out, in, &off, 100));
	lseek(in, 199990, SEEK_SET);
	report("at the input's offset", sendfile(out, in, NULL, 100));
	printf("input's offset now %lld\n", (long long)lseek(in, 0, SEEK_CUR));
	report("count 0", sendfile(out, in, NULL, 0));

	int p[2];
	pipe(p);
	off = 0;
	report("file to pipe", sendfile(p[1], in, &off, 5000));
	report("read it back", read(p[0], back, sizeof(back)));
	report("from a pipe", sendfile(out, p[0], NULL, 10));
	int ro = open("sf.in", O_RDONLY);
	report("to a read-only fd", sendfile(ro, in, NULL, 10));
	int wo = open("sf.in", O_WRONLY);
	report("from a write-only fd", sendfile(out, wo, NULL, 10));
	int ap = open("sf.out", O_WRONLY | O_APPEND);
	report("to an O_APPEND fd", sendfile(ap, in, NULL, 10));
	report("bad in fd", sendfile(out, 99, NULL, 10));
	report("bad out fd", sendfile(99, in, NULL, 10));
	report("bad offset pointer", sendfile(out, in, (off_t *)8, 10));
	off = -1;
	report("negative offset", sendfile(out, in, &off, 10));
	close(p[0]);
	off = 0;
	report("to a pipe with no reader (SIGPIPE ignored)", (signal(SIGPIPE, SIG_IGN), sendfile(p[1], in, &off, 10)));
	unlink("sf.in");
	unlink("sf.out");
	return 0;
}
