/*
 * The message buffer as only vkernel's can be tested (natively these
 * would write into and clear the host's log): a line written to
 * /dev/kmsg comes back as a record with the writer's level and the user
 * facility; a blocked reader and poll wake for a new record; syslog(2)
 * READ consumes what SIZE_UNREAD counts; a reader the ring overran gets
 * EPIPE once and goes on from the oldest record; writes past ten an
 * open in five seconds are taken and dropped (Linux's ratelimit).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/wait.h>
#include <unistd.h>

static int fails;

static void
check(const char *what, int ok)
{
	printf("%s %s\n", ok ? "ok  " : "FAIL", what);
	fails += !ok;
}

/* Writes text as one line to /dev/kmsg through an open of its own. */
static int
kmsg_write(const char *text)
{
	int fd = open("/dev/kmsg", O_WRONLY);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* Reads records from fd until one contains text; its line in buf. */
static int
find(int fd, const char *text, char *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(fd, buf, len - 1);
		if (n < 0)
			return -1;
		buf[n] = '\0';
		if (strstr(buf, text) != NULL)
			return 0;
	}
}

int
main(void)
{
	static char buf[8192];
	unsigned prio;
	unsigned long long seq, usec;

	/* A round trip, with a level and without. */
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	check("open /dev/kmsg", fd >= 0);
	lseek(fd, 0, SEEK_END);
	check("at the end, EAGAIN", read(fd, buf, sizeof(buf)) < 0 && errno == EAGAIN);
	check("write <3>", kmsg_write("<3>kmsgring: an error\n") == 0);
	check("write plain", kmsg_write("kmsgring: plain") == 0);
	check("write <26> (daemon, crit)", kmsg_write("<26>kmsgring: daemon\n") == 0);
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	check("record 1: 11 (user, err)", sscanf(buf, "%u,%llu,%llu,-;", &prio, &seq, &usec) == 3 &&
	    prio == 11 && strcmp(strchr(buf, ';'), ";kmsgring: an error\n") == 0);
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	unsigned long long seq2;
	check("record 2: 12 (user, warning), next sequence number",
	    sscanf(buf, "%u,%llu,", &prio, &seq2) == 2 && prio == 12 && seq2 == seq + 1 &&
	    strstr(buf, ";kmsgring: plain\n") != NULL);
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	check("record 3: 26 (daemon, crit)", sscanf(buf, "%u,", &prio) == 1 && prio == 26);
	n = klogctl(3, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	check("syslog(2) shows it as <11>[...] text", strstr(buf, "<11>[") != NULL &&
	    strstr(buf, "] kmsgring: an error\n") != NULL);
	lseek(fd, 0, SEEK_SET);
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	/* The boot's first record, unless a run before this one overran it. */
	unsigned long long seq0 = ~0ULL;
	check("SEEK_SET: the oldest record",
	    sscanf(buf, "%u,%llu,", &prio, &seq0) == 2 && seq0 < seq &&
	    (seq0 != 0 || strncmp(buf, "6,0,0,-;vkernel: ", 17) == 0));

	/* A blocked reader, and poll, wake for a new record. */
	int bfd = open("/dev/kmsg", O_RDONLY);
	lseek(bfd, 0, SEEK_END);
	struct pollfd pfd = { bfd, POLLIN, 0 };
	check("poll: nothing yet", poll(&pfd, 1, 0) == 0);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(200000);
		_exit(kmsg_write("kmsgring: wake up\n") < 0);
	}
	check("poll wakes", poll(&pfd, 1, 5000) == 1 && (pfd.revents & POLLIN));
	n = read(bfd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	check("the blocked read gets it", strstr(buf, "kmsgring: wake up") != NULL);
	waitpid(pid, NULL, 0);
	pid = fork();
	if (pid == 0) {
		usleep(200000);
		_exit(kmsg_write("kmsgring: read me\n") < 0);
	}
	n = read(bfd, buf, sizeof(buf) - 1);	/* blocks */
	buf[n > 0 ? n : 0] = '\0';
	check("a blocking read waits for a record", strstr(buf, "kmsgring: read me") != NULL);
	waitpid(pid, NULL, 0);

	/* syslog READ consumes. */
	long unread = klogctl(9, NULL, 0);
	check("SIZE_UNREAD counts the log", unread > 100);
	n = klogctl(2, buf, 10);
	check("READ of 10 bytes gives a piece of a line", n == 10 && buf[0] == '<');
	check("and consumes it", klogctl(9, NULL, 0) == unread - 10);
	n = klogctl(2, buf, sizeof(buf));
	check("READ goes on with the rest of that line", n > 0 && buf[0] != '<');
	check("it consumed all", n == unread - 10 || (n < unread - 10 &&
	    klogctl(9, NULL, 0) == unread - 10 - n));

	/* dmesg -c, then the log is empty to READ_ALL. */
	check("READ_CLEAR", klogctl(4, buf, sizeof(buf)) > 0);
	check("READ_ALL after it: empty", klogctl(3, buf, sizeof(buf)) == 0);
	kmsg_write("kmsgring: after the clear\n");
	n = klogctl(3, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	check("READ_ALL: only the new line", n > 0 && strstr(buf, "after the clear") != NULL &&
	    strchr(buf, '\n') == buf + n - 1);
	check("SEEK_DATA: where the clear was", lseek(bfd, 0, SEEK_DATA) == 0 &&
	    read(bfd, buf, sizeof(buf)) > 0 && strstr(buf, "after the clear") != NULL);

	/* Ratelimit: 10 writes an open, the rest taken and dropped. */
	int wfd = open("/dev/kmsg", O_WRONLY);
	int taken = 0;
	for (int i = 0; i < 15; i++) {
		char line[64];
		int len = snprintf(line, sizeof(line), "kmsgring: burst %d\n", i);
		taken += write(wfd, line, (size_t)len) == len;
	}
	close(wfd);
	check("15 writes taken", taken == 15);
	lseek(bfd, 0, SEEK_SET);
	check("the tenth logged", find(bfd, "burst 9\n", buf, sizeof(buf)) == 0);
	check("the eleventh not", fcntl(bfd, F_SETFL, O_NONBLOCK) == 0 &&
	    find(bfd, "burst 10\n", buf, sizeof(buf)) < 0 && errno == EAGAIN);

	/* Overrun: fill the ring past an old reader's position. */
	lseek(fd, 0, SEEK_SET);
	char big[900];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	for (int i = 0; i < 200; i++) {
		int w = open("/dev/kmsg", O_WRONLY);
		for (int j = 0; j < 5; j++)
			(void)!write(w, big, strlen(big));
		close(w);
	}
	check("an overrun reader gets EPIPE", read(fd, buf, sizeof(buf)) < 0 && errno == EPIPE);
	n = read(fd, buf, sizeof(buf) - 1);
	buf[n > 0 ? n : 0] = '\0';
	check("then the oldest record", n > 0 && sscanf(buf, "%u,%llu,", &prio, &seq) == 2 &&
	    seq > 0);
	check("READ_ALL still whole lines", (n = klogctl(3, buf, sizeof(buf))) > 0 &&
	    buf[0] == '<' && buf[n - 1] == '\n');
	check("SIZE_BUFFER", klogctl(10, NULL, 0) == 128 * 1024);
	return fails != 0;
}
