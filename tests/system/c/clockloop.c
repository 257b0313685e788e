/*
 * clockloop N [sys]: N clock_gettime, gettimeofday and time calls
 * through libc (the vDSO), or with "sys" through syscall(2); prints
 * what a clock_gettime cost, and /proc/self/maps's [vdso] and [vvar]
 * lines.  tests/system/vdso.t counts the traps under --strace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static long long
now(void)
{
	struct timespec ts;
	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int
main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	int sys = argc > 2 && strcmp(argv[2], "sys") == 0;
	struct timespec ts;
	struct timeval tv;
	long long t0 = now();
	for (int i = 0; i < n; i++) {
		if (sys)
			syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
		else
			clock_gettime(CLOCK_MONOTONIC, &ts);
	}
	long long t1 = now();
	for (int i = 0; i < n; i++) {
		if (sys) {
			syscall(SYS_gettimeofday, &tv, NULL);
			syscall(SYS_time, NULL);
		} else {
			gettimeofday(&tv, NULL);
			time(NULL);
		}
	}
	printf("clock_gettime%s: %lld ns per call\n", sys ? " (syscall)" : "",
	    (t1 - t0) / (n > 0 ? n : 1));
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strstr(line, "[vdso]") || strstr(line, "[vvar]"))
			fputs(strchr(line, ' ') + 1, stdout);
	return 0;
}
