/*
 * The old time-setting calls against Linux, made as system calls (musl
 * makes utime and utimes of utimensat, glibc calls them): utime in
 * seconds, utimes and futimesat in microseconds, no times meaning now,
 * and the errors (a bad microsecond count, a bad pointer, no file).
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

static void
show(const char *path)
{
	struct stat st;
	stat(path, &st);
	printf("  atime %ld.%09ld mtime %ld.%09ld\n", (long)st.st_atim.tv_sec,
	    st.st_atim.tv_nsec, (long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

static void
recent(const char *path)
{
	struct stat st;
	stat(path, &st);
	time_t now = time(NULL);
	printf("  times now: %s\n", st.st_atime >= now - 60 &&
	    st.st_mtime >= now - 60 && st.st_mtime <= now + 60 ? "yes" : "no");
}

int
main(void)
{
	const char *f = "utimes.tmp";
	close(open(f, O_CREAT | O_WRONLY | O_TRUNC, 0644));
	int64_t ub[2] = { 1000000000, 1100000000 };
	report("utime", syscall(SYS_utime, f, ub));
	show(f);
	report("utime now", syscall(SYS_utime, f, NULL));
	recent(f);
	struct timeval tv[2] = { { 1200000000, 250000 }, { 1300000000, 999999 } };
	report("utimes", syscall(SYS_utimes, f, tv));
	show(f);
	report("utimes now", syscall(SYS_utimes, f, NULL));
	recent(f);
	int dir = open(".", O_RDONLY | O_DIRECTORY);
	tv[0].tv_usec = 1;
	report("futimesat", syscall(SYS_futimesat, dir, f, tv));
	show(f);
	tv[1].tv_usec = 1000000;
	report("utimes with 1000000 us", syscall(SYS_utimes, f, tv));
	tv[1].tv_usec = -1;
	report("utimes with -1 us", syscall(SYS_utimes, f, tv));
	report("utime with a bad pointer", syscall(SYS_utime, f, (void *)8));
	report("utimes of no file", syscall(SYS_utimes, "utimes.none", NULL));
	report("utime of a bad path", syscall(SYS_utime, (void *)8, NULL));
	unlink(f);
	return 0;
}
