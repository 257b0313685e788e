/*
 * RAM (host/physmem): sizes, arguments, and the -i memory file.  RAM is
 * global and the other tests have it initialised, so everything that
 * re-initialises it runs in a forked child (single-threaded, system calls
 * only), which reports through its exit status or a pipe.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/physmem.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

TEST(physmem_parse_size)
{
	CHECK_EQ(physmem_parse_size("64k"), 64 << 10);
	CHECK_EQ(physmem_parse_size("64K"), 64 << 10);
	CHECK_EQ(physmem_parse_size("256m"), 256UL << 20);
	CHECK_EQ(physmem_parse_size("256M"), 256UL << 20);
	CHECK_EQ(physmem_parse_size("1g"), 1UL << 30);
	CHECK_EQ(physmem_parse_size("2t"), 2UL << 40);
	CHECK_EQ(physmem_parse_size("4096"), 4096);
	CHECK_EQ(physmem_parse_size("0"), 0);
	/* The largest that fits in int64_t, and one more. */
	CHECK_EQ(physmem_parse_size("8589934591g"), 8589934591UL << 30);
	CHECK_EQ(physmem_parse_size("9223372036854775807"), INT64_MAX);

	static const char *const bad[] = {
		"", "12x", "-1", "+1", " 1", "1 ", "k", "1kk", "1k2", "0x10",
		"99999999999999999999g", "99999999999999999999",
		"8589934592g", "9223372036854775808", "18446744073709551615",
		"9007199254740992k",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		errno = 0;
		int64_t v = physmem_parse_size(bad[i]);
		if (v != -1 || errno != EINVAL)
			unit_fail(__FILE__, __LINE__,
			    "physmem_parse_size(\"%s\") = %lld, errno %d; expected -1, EINVAL",
			    bad[i], (long long)v, errno);
	}
	errno = 0;
	CHECK_EQ(physmem_parse_size(NULL), -1);
	CHECK_EQ(errno, EINVAL);
}

TEST(physmem_valid_bounds)
{
	vmt_ram();
	uint64_t size = physmem.size;
	REQUIRE(size >= 2 * PAGE_SIZE);
	CHECK(physmem.base == (uint8_t *)PHYSMEM_BASE);
	CHECK(physmem_valid(0, size));
	CHECK(physmem_valid(size, 0));
	CHECK(physmem_valid(size - PAGE_SIZE, PAGE_SIZE));
	CHECK(!physmem_valid(size, 1));
	CHECK(!physmem_valid(size - PAGE_SIZE, PAGE_SIZE + 1));
	CHECK(!physmem_valid(size + 1, 0));
	CHECK(!physmem_valid(UINT64_MAX, 2));
	CHECK(!physmem_valid(PAGE_SIZE, UINT64_MAX));
	CHECK(!physmem_valid(PAGE_SIZE, UINT64_MAX - PAGE_SIZE + 1));
	CHECK(PHYS_TO_DMAP(PAGE_SIZE) == (void *)(PHYSMEM_BASE + PAGE_SIZE));

	/* Initialised already: a second init is refused and changes nothing. */
	int fd = physmem.fd;
	errno = 0;
	CHECK_EQ(physmem_init(1 << 20, NULL), -1);
	CHECK_EQ(errno, EINVAL);
	CHECK_EQ(physmem.size, size);
	CHECK_EQ(physmem.fd, fd);
}

/* Runs fn in a forked child; returns its exit status (or 200 + signal). */
static int
in_child(int (*fn)(void *), void *arg)
{
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0)
		_exit(fn(arg));
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 200 + WTERMSIG(st);
}

/* Each failed step returns its own number. */
static int
child_args(void *arg)
{
	(void)arg;
	physmem_fini();
	if (physmem.base != NULL || physmem.fd != -1 || physmem.size != 0)
		return 1;
	physmem_fini();				/* twice is harmless */
	errno = 0;
	if (physmem_init(0, NULL) != -1 || errno != EINVAL)
		return 2;
	errno = 0;
	if (physmem_init(PAGE_SIZE + 1, NULL) != -1 || errno != EINVAL)
		return 3;
	errno = 0;
	if (physmem_init(PHYSMEM_MAX + PAGE_SIZE, NULL) != -1 || errno != EINVAL)
		return 4;
	errno = 0;
	if (physmem_init(1 << 20, "/nonexistent-dir/ram") != -1 || errno != ENOENT)
		return 5;
	if (physmem.base != NULL || physmem.fd != -1)
		return 6;
	/* Anonymous RAM at the fixed address, zeroed, writable. */
	if (physmem_init(1 << 20, NULL) != 0)
		return 7;
	if (physmem.base != (uint8_t *)PHYSMEM_BASE || physmem.size != 1 << 20 ||
	    physmem.fd < 0 || physmem.path != NULL)
		return 8;
	if (((volatile uint8_t *)physmem.base)[(1 << 20) - 1] != 0)
		return 9;
	((volatile uint8_t *)physmem.base)[(1 << 20) - 1] = 0x5a;
	if (!(fcntl(physmem.fd, F_GETFD) & FD_CLOEXEC))
		return 10;
	errno = 0;
	if (physmem_init(1 << 20, NULL) != -1 || errno != EINVAL)
		return 11;
	physmem_fini();
	if (physmem.base != NULL)
		return 12;
	/* Again after fini: fresh, zeroed RAM. */
	if (physmem_init(2 << 20, NULL) != 0)
		return 13;
	if (((volatile uint8_t *)physmem.base)[(1 << 20) - 1] != 0)
		return 14;
	physmem_fini();
	return 0;
}

TEST(physmem_init_args)
{
	vmt_ram();
	CHECK_EQ(in_child(child_args, NULL), 0);
	/* Our RAM is untouched by what the child did. */
	CHECK(physmem.base == (uint8_t *)PHYSMEM_BASE);
}

/*
 * The -i memory file.  A child holds RAM on the file and obeys commands
 * on a pipe: 'w' writes a marker into RAM, 'f' finishes RAM, 'q' quits.
 * It answers each with one byte; its first byte is the errno of its
 * physmem_init (0: success).
 */
#define MARK_OFF	4096
#define MARK		0x5a5a5a5a5a5a5a5aUL

struct holder {
	const char *path;
	int cmd, reply;		/* the child's ends */
};

static int
child_hold(void *arg)
{
	struct holder *h = arg;
	char c;

	physmem_fini();
	errno = 0;
	c = physmem_init(1 << 20, h->path) == 0 ? 0 : (char)errno;
	if (write(h->reply, &c, 1) != 1 || c != 0)
		return 1;
	while (read(h->cmd, &c, 1) == 1) {
		switch (c) {
		case 'w':
			*(volatile uint64_t *)(physmem.base + MARK_OFF) = MARK;
			break;
		case 'f':
			physmem_fini();
			break;
		case 'q':
			return 0;
		}
		if (write(h->reply, &c, 1) != 1)
			return 2;
	}
	return 3;
}

struct holder_proc {
	pid_t pid;
	int cmd, reply;		/* our ends */
};

/* Starts a holder child; returns the errno of its physmem_init, or -1. */
static int
holder_start(struct holder_proc *hp, const char *path)
{
	int c2p[2], p2c[2];
	char c;

	if (pipe2(c2p, O_CLOEXEC) < 0 || pipe2(p2c, O_CLOEXEC) < 0)
		return -1;
	fflush(stdout);
	fflush(stderr);
	hp->pid = fork();
	if (hp->pid < 0)
		return -1;
	if (hp->pid == 0) {
		struct holder h = { path, p2c[0], c2p[1] };
		_exit(child_hold(&h));
	}
	close(p2c[0]);
	close(c2p[1]);
	hp->cmd = p2c[1];
	hp->reply = c2p[0];
	if (read(hp->reply, &c, 1) != 1)
		return -1;
	return (unsigned char)c;
}

static bool
holder_cmd(struct holder_proc *hp, char c)
{
	char r;
	return write(hp->cmd, &c, 1) == 1 && read(hp->reply, &r, 1) == 1 && r == c;
}

static int
holder_end(struct holder_proc *hp)
{
	char c = 'q';
	int st = -1;
	/* The child may be gone already: no SIGPIPE for us. */
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;
	sigaction(SIGPIPE, &ign, &old);
	(void)!write(hp->cmd, &c, 1);
	sigaction(SIGPIPE, &old, NULL);
	close(hp->cmd);
	close(hp->reply);
	while (waitpid(hp->pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 200 + WTERMSIG(st);
}

/* True if every byte of [off, off+len) of the file is zero. */
static bool
file_zero(int fd, off_t off, size_t len)
{
	static char buf[65536];
	while (len > 0) {
		size_t n = len < sizeof(buf) ? len : sizeof(buf);
		if (pread(fd, buf, n, off) != (ssize_t)n)
			return false;
		for (size_t i = 0; i < n; i++)
			if (buf[i] != 0)
				return false;
		off += (off_t)n;
		len -= n;
	}
	return true;
}

TEST(physmem_memory_file)
{
	char path[] = "/tmp/vkernel-ram-XXXXXX";
	struct holder_proc a, b;
	struct stat st;
	uint64_t v;

	vmt_ram();
	int fd = mkstemp(path);
	REQUIRE(fd >= 0);
	/* Old contents, longer than RAM: all of it must go. */
	static char junk[1 << 16];
	memset(junk, 0xaa, sizeof(junk));
	for (int i = 0; i < 32; i++)
		REQUIRE(write(fd, junk, sizeof(junk)) == sizeof(junk));

	REQUIRE(holder_start(&a, path) == 0);
	REQUIRE(fstat(fd, &st) == 0);
	CHECK_EQ(st.st_size, 1 << 20);
	CHECK_EQ(st.st_blocks, 0);		/* emptied to holes */
	CHECK(file_zero(fd, 0, 1 << 20));

	/* RAM is the file. */
	CHECK(holder_cmd(&a, 'w'));
	CHECK(pread(fd, &v, 8, MARK_OFF) == 8 && v == MARK);

	/* A second kernel on the same file: EWOULDBLOCK, and the file is kept. */
	CHECK_EQ(holder_start(&b, path), EWOULDBLOCK);
	CHECK_EQ(holder_end(&b), 1);
	REQUIRE(fstat(fd, &st) == 0);
	CHECK_EQ(st.st_size, 1 << 20);
	CHECK(pread(fd, &v, 8, MARK_OFF) == 8 && v == MARK);

	/* physmem_fini: RAM does not outlive the kernel, and the lock goes. */
	CHECK(holder_cmd(&a, 'f'));
	REQUIRE(fstat(fd, &st) == 0);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(holder_start(&b, path), 0);
	REQUIRE(fstat(fd, &st) == 0);
	CHECK_EQ(st.st_size, 1 << 20);
	CHECK(file_zero(fd, 0, 1 << 20));
	CHECK_EQ(holder_end(&b), 0);

	/* A holder that exits without fini releases the lock too. */
	CHECK_EQ(holder_start(&b, path), 0);
	CHECK_EQ(holder_end(&b), 0);
	CHECK_EQ(holder_start(&b, path), 0);
	CHECK_EQ(holder_end(&b), 0);

	CHECK_EQ(holder_end(&a), 0);
	close(fd);
	unlink(path);

	/* Created if missing, with mode 0600. */
	char dir[] = "/tmp/vkernel-ramdir-XXXXXX";
	REQUIRE(mkdtemp(dir) != NULL);
	char fresh[sizeof(dir) + 8];
	snprintf(fresh, sizeof(fresh), "%s/ram", dir);
	CHECK_EQ(holder_start(&b, fresh), 0);
	CHECK(stat(fresh, &st) == 0 && st.st_size == 1 << 20 &&
	    (st.st_mode & 0777) == 0600);
	CHECK_EQ(holder_end(&b), 0);
	unlink(fresh);
	rmdir(dir);
}
