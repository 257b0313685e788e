/*
 * syslog(2) through klogctl, as dmesg uses it: the buffer's size, reading
 * it whole (lines "<level>text", the newest that fit), and the argument
 * checks.  Nothing is cleared: natively this is the host's log.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/klog.h>

static void
report(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 %s\n", what, strerror(errno));
	else
		printf("%s: %ld\n", what, r);
}

/* Whether buf[0..n) is whole lines, each "<digit>...". */
static int
lines_ok(const char *buf, int n)
{
	if (n == 0 || buf[n - 1] != '\n')
		return 0;
	for (int i = 0; i < n; ) {
		if (buf[i] != '<' || buf[i + 1] < '0' || buf[i + 1] > '7' || buf[i + 2] != '>')
			return 0;
		const char *nl = memchr(buf + i, '\n', (size_t)(n - i));
		i = (int)(nl - buf) + 1;
	}
	return 1;
}

static char buf[1 << 20];

int
main(void)
{
	int size = klogctl(10, NULL, 0);
	printf("size of the buffer: %s\n", size > 0 ? "positive" : "not");
	report("open", klogctl(1, NULL, 0));
	report("close", klogctl(0, NULL, 0));
	int n = klogctl(3, buf, sizeof(buf));
	printf("read all: %s, whole lines: %d\n", n > 0 ? "some" : "none",
	    n > 0 && lines_ok(buf, n));
	n = klogctl(3, buf, 4096);
	printf("read the last 4096 bytes: %s, whole lines: %d\n",
	    n > 0 && n <= 4096 ? "some" : "wrong", n > 0 && lines_ok(buf, n));
	report("read all, len 0", klogctl(3, buf, 0));
	report("read all, len -1", klogctl(3, buf, -1));
	report("read all, NULL", klogctl(3, NULL, 100));
	report("read all, bad buffer", klogctl(3, (char *)8, 4096));
	report("read, len 0", klogctl(2, buf, 0));
	report("read, NULL", klogctl(2, NULL, 10));
	report("console level 0", klogctl(8, NULL, 0));
	report("console level 9", klogctl(8, NULL, 9));
	printf("unread: %s\n", klogctl(9, NULL, 0) >= 0 ? "a count" : "error");
	report("type 11", klogctl(11, NULL, 0));
	report("type -1", klogctl(-1, NULL, 0));
	return 0;
}
