/*
 * timerfd: relative, absolute and interval timers on each clock, the
 * counts of expirations (bounded, not timed exactly), gettime, errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define MS	1000000L

static void
arm(int fd, int flags, long value_ns, long interval_ns)
{
	struct itimerspec its = {
		{ interval_ns / 1000000000, interval_ns % 1000000000 },
		{ value_ns / 1000000000, value_ns % 1000000000 },
	};
	if (timerfd_settime(fd, flags, &its, NULL) < 0)
		printf("  settime: %s\n", strerror(errno));
}

int
main(void)
{
	uint64_t n;
	struct itimerspec cur;
	setvbuf(stdout, NULL, _IONBF, 0);

	printf("bad clock: %s\n", timerfd_create(12345, 0) < 0 ? strerror(errno) : "ok");
	printf("bad flags: %s\n", timerfd_create(CLOCK_MONOTONIC, 1) < 0 ? strerror(errno) : "ok");
	printf("cputime clock: %s\n",
	    timerfd_create(CLOCK_PROCESS_CPUTIME_ID, 0) < 0 ? strerror(errno) : "ok");

	static const int clocks[] = { CLOCK_MONOTONIC, CLOCK_REALTIME, CLOCK_BOOTTIME };
	for (int c = 0; c < 3; c++) {
		printf("clock %d\n", clocks[c]);
		int fd = timerfd_create(clocks[c], TFD_NONBLOCK | TFD_CLOEXEC);
		printf("  unarmed read: %s\n", read(fd, &n, 8) < 0 ? strerror(errno) : "data");
		timerfd_gettime(fd, &cur);
		printf("  unarmed value %ld.%09ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);

		/* Relative, one-shot. */
		arm(fd, 0, 30 * MS, 0);
		timerfd_gettime(fd, &cur);
		printf("  armed: left <= 30ms %d, > 0 %d\n",
		    cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec <= 30 * MS,
		    cur.it_value.tv_nsec > 0);
		struct pollfd p = { fd, POLLIN, 0 };
		printf("  poll: %d\n", poll(&p, 1, 5000));
		printf("  read: %zd ", read(fd, &n, 8));
		printf("count %llu\n", (unsigned long long)n);
		timerfd_gettime(fd, &cur);
		printf("  after: value %ld.%09ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);

		/* Absolute: 20 ms from the clock's now. */
		struct timespec now;
		clock_gettime(clocks[c], &now);
		long ns = now.tv_nsec + 20 * MS;
		struct itimerspec abs = { { 0, 0 }, { now.tv_sec + ns / 1000000000, ns % 1000000000 } };
		timerfd_settime(fd, TFD_TIMER_ABSTIME, &abs, NULL);
		poll(&p, 1, 5000);
		printf("  absolute: read %zd count %llu\n", read(fd, &n, 8), (unsigned long long)n);
		/* An absolute time past: at once. */
		abs.it_value.tv_sec = 1;
		timerfd_settime(fd, TFD_TIMER_ABSTIME, &abs, NULL);
		poll(&p, 1, 5000);
		printf("  past: read %zd count %llu\n", read(fd, &n, 8), (unsigned long long)n);

		/* Interval: 10 ms, counted over about 100 ms. */
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		arm(fd, 0, 10 * MS, 10 * MS);
		usleep(100000);
		read(fd, &n, 8);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		/*
		 * Bounds only, the count being the machine's: at least 2, at
		 * most one per 10 ms that went by.
		 */
		long ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / MS;
		printf("  interval: 2 <= count %d, count <= elapsed / 10 ms %d\n",
		    n >= 2, (long)n <= ms / 10 + 1);
		timerfd_gettime(fd, &cur);
		printf("  interval value %ld.%09ld\n", (long)cur.it_interval.tv_sec,
		    cur.it_interval.tv_nsec);
		struct itimerspec old, zero = { { 0, 0 }, { 0, 0 } };
		timerfd_settime(fd, 0, &zero, &old);
		printf("  disarm: old interval %ld.%09ld\n", (long)old.it_interval.tv_sec,
		    old.it_interval.tv_nsec);
		printf("  read after disarm: %s\n", read(fd, &n, 8) < 0 ? strerror(errno) : "data");
		close(fd);
	}

	printf("errors\n");
	int fd = timerfd_create(CLOCK_MONOTONIC, 0);
	struct itimerspec bad = { { 0, 0 }, { 0, 1000000000 } };
	printf("  bad nsec: %s\n", timerfd_settime(fd, 0, &bad, NULL) < 0 ? strerror(errno) : "ok");
	bad.it_value.tv_nsec = 1;
	printf("  bad flags: %s\n", timerfd_settime(fd, 0x100, &bad, NULL) < 0 ? strerror(errno) : "ok");
	printf("  not a timerfd: %s\n", timerfd_gettime(0, &cur) < 0 ? strerror(errno) : "ok");
	printf("  short read: %s\n", read(fd, &n, 4) < 0 ? strerror(errno) : "ok");
	printf("  write: %s\n", write(fd, &n, 8) < 0 ? strerror(errno) : "ok");
	arm(fd, TFD_TIMER_ABSTIME | TFD_TIMER_CANCEL_ON_SET, 0, 0);
	printf("  cancel-on-set disarmed: ok\n");
	/* A blocking read waits for the expiry. */
	arm(fd, 0, 20 * MS, 0);
	/* (read before printing n: printf's arguments are unsequenced) */
	ssize_t got = read(fd, &n, 8);
	printf("  blocking read: %zd count %llu\n", got, (unsigned long long)n);
	close(fd);
	return 0;
}
