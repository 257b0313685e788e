/*
 * inotify: the events of a create, write, rename, delete sequence in a
 * watched directory (names, cookies, IN_ISDIR), a file's own watch
 * (IN_ATTRIB, IN_DELETE_SELF, IN_IGNORED), IN_ONESHOT, IN_ONLYDIR,
 * IN_MASK_ADD, inotify_rm_watch, and the errors.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct { unsigned bit; const char *name; } names[] = {
	{ IN_ACCESS, "ACCESS" }, { IN_MODIFY, "MODIFY" }, { IN_ATTRIB, "ATTRIB" },
	{ IN_CLOSE_WRITE, "CLOSE_WRITE" }, { IN_CLOSE_NOWRITE, "CLOSE_NOWRITE" },
	{ IN_OPEN, "OPEN" }, { IN_MOVED_FROM, "MOVED_FROM" }, { IN_MOVED_TO, "MOVED_TO" },
	{ IN_CREATE, "CREATE" }, { IN_DELETE, "DELETE" }, { IN_DELETE_SELF, "DELETE_SELF" },
	{ IN_MOVE_SELF, "MOVE_SELF" }, { IN_IGNORED, "IGNORED" }, { IN_ISDIR, "ISDIR" },
	{ IN_Q_OVERFLOW, "Q_OVERFLOW" },
};

static unsigned last_cookie;

/* Prints the queued events; cookies as "same" or "new". */
static void
drain(int fd, const char *what)
{
	char buf[4096] __attribute__((aligned(8)));
	printf("%s:\n", what);
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno != EAGAIN)
				printf("  read: %s\n", strerror(errno));
			return;
		}
		for (char *p = buf; p < buf + n; ) {
			struct inotify_event *ev = (struct inotify_event *)p;
			printf("  wd %d", ev->wd);
			for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
				if (ev->mask & names[i].bit)
					printf(" %s", names[i].name);
			if (ev->cookie != 0) {
				printf(" cookie %s", ev->cookie == last_cookie ? "same" : "new");
				last_cookie = ev->cookie;
			}
			if (ev->len > 0)
				printf(" name %s (len %u)", ev->name, ev->len);
			printf("\n");
			p += sizeof(*ev) + ev->len;
		}
	}
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	char dir[] = "/tmp/inotifyXXXXXX", path[64], path2[64], sub[64];
	mkdtemp(dir);
	snprintf(path, sizeof(path), "%s/file", dir);
	snprintf(path2, sizeof(path2), "%s/renamed-file-with-a-long-name", dir);
	snprintf(sub, sizeof(sub), "%s/sub", dir);

	printf("bad flags: %s\n", inotify_init1(0x1) < 0 ? strerror(errno) : "ok");
	int in = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	printf("cloexec %d\n", (fcntl(in, F_GETFD) & FD_CLOEXEC) != 0);
	printf("no events: %s\n", inotify_add_watch(in, dir, 0) < 0 ? strerror(errno) : "ok");
	printf("missing: %s\n", inotify_add_watch(in, "/nonexistent", IN_ALL_EVENTS) < 0 ? strerror(errno) : "ok");
	printf("not inotify: %s\n", inotify_add_watch(0, dir, IN_CREATE) < 0 ? strerror(errno) : "ok");
	printf("rm unknown: %s\n", inotify_rm_watch(in, 99) < 0 ? strerror(errno) : "ok");

	int wd = inotify_add_watch(in, dir, IN_CREATE | IN_DELETE | IN_MODIFY |
	    IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO);
	printf("dir wd %d\n", wd);
	printf("same again: %d\n", inotify_add_watch(in, dir, IN_CREATE | IN_DELETE |
	    IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_FROM | IN_MOVED_TO));
	drain(in, "nothing yet");

	int f = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	write(f, "hello", 5);
	write(f, "world", 5);
	struct pollfd p = { in, POLLIN, 0 };
	printf("poll: %d\n", poll(&p, 1, 0));
	int queued = 0;
	ioctl(in, FIONREAD, &queued);
	printf("FIONREAD: %d\n", queued);
	close(f);
	drain(in, "create and write");

	int self = inotify_add_watch(in, path, IN_ATTRIB | IN_DELETE_SELF | IN_ONLYDIR);
	printf("only dir: %s\n", self < 0 ? strerror(errno) : "ok");
	self = inotify_add_watch(in, path, IN_ATTRIB);
	printf("file wd %d\n", self);
	printf("mask add: %d\n", inotify_add_watch(in, path, IN_DELETE_SELF | IN_MASK_ADD));
	printf("mask create: %s\n", inotify_add_watch(in, path, IN_DELETE_SELF | IN_MASK_CREATE) < 0 ? strerror(errno) : "ok");
	chmod(path, 0600);
	drain(in, "chmod");

	rename(path, path2);
	drain(in, "rename");
	mkdir(sub, 0755);
	rmdir(sub);
	drain(in, "mkdir and rmdir");
	unlink(path2);
	drain(in, "unlink");

	f = open(path, O_CREAT | O_WRONLY, 0644);
	close(f);
	int once = inotify_add_watch(in, path, IN_ATTRIB | IN_ONESHOT);
	printf("oneshot wd %d\n", once);
	chmod(path, 0600);
	chmod(path, 0644);
	drain(in, "oneshot");
	printf("rm dir watch: %s\n", inotify_rm_watch(in, wd) == 0 ? "ok" : strerror(errno));
	drain(in, "rm_watch");
	unlink(path);
	drain(in, "unwatched");
	char small[8];
	int w2 = inotify_add_watch(in, dir, IN_CREATE);
	f = open(path, O_CREAT | O_WRONLY, 0644);
	close(f);
	printf("short read: %s\n", read(in, small, sizeof(small)) < 0 ? strerror(errno) : "ok");
	drain(in, "then");
	unlink(path);
	inotify_rm_watch(in, w2);
	rmdir(dir);
	close(in);
	return 0;
}
