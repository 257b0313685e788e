/*
 * The initramfs loader: archives made by the host's `cpio -H newc -o`
 * from a real directory tree, hand-made archives with hard links and
 * hostile names, and truncated and corrupted archives (every prefix and
 * many byte flips of a small one: errors, never a crash or a leak).
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <unistd.h>

#include "fs/initramfs.h"
#include "kern/uio.h"
#include "tests/unit/fstest.h"
#include "tests/unit/unit.h"

/* Appends one newc entry to a (size cap) at *len. */
static void
newc_add(char *a, size_t *len, size_t cap, const char *name, uint32_t mode,
    uint32_t ino, uint32_t nlink, const char *data, size_t datalen)
{
	char hdr[160];
	size_t namesize = strlen(name) + 1;
	snprintf(hdr, sizeof(hdr),
	    "070701%08X%08X%08X%08X%08X%08X%08zX%08X%08X%08X%08X%08zX%08X",
	    ino, mode, 0u, 0u, nlink, 1234567u, datalen, 0u, 0u, 1u, 3u,
	    namesize, 0u);
	size_t need = 110 + namesize + 3 + datalen + 3;
	if (*len + need > cap)
		abort();
	memcpy(a + *len, hdr, 110);
	*len += 110;
	memcpy(a + *len, name, namesize);
	*len += namesize;
	while (*len % 4)
		a[(*len)++] = 0;
	memcpy(a + *len, data, datalen);
	*len += datalen;
	while (*len % 4)
		a[(*len)++] = 0;
}

static void
newc_trailer(char *a, size_t *len, size_t cap)
{
	newc_add(a, len, cap, "TRAILER!!!", 0, 0, 1, "", 0);
}

/* Runs a shell command and returns its output (malloc'd), or NULL. */
static char *
run_output(const char *cmd, size_t *lenp)
{
	FILE *f = popen(cmd, "r");
	if (f == NULL)
		return NULL;
	size_t cap = 1 << 16, len = 0;
	char *buf = malloc(cap);
	size_t n;
	while (buf != NULL && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap)
			buf = realloc(buf, cap *= 2);
	}
	if (pclose(f) != 0) {
		free(buf);
		return NULL;
	}
	*lenp = len;
	return buf;
}

static bool
have_cpio(void)
{
	return system("command -v cpio >/dev/null 2>&1") == 0;
}

static void
write_host_file(const char *path, const char *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		abort();
	close(fd);
}

static void
set_host_mtime(const char *path, time_t t)
{
	struct timeval tv[2] = { { t, 0 }, { t, 0 } };
	if (lutimes(path, tv) != 0)
		abort();
}

TEST(cpio_host_archive)
{
	if (!have_cpio())
		SKIP("cpio is not installed (apt-get install cpio)");
	char dir[] = "/tmp/vk-cpio-XXXXXX", p[256], q[256], cmd[512];
	REQUIRE(mkdtemp(dir) != NULL);
	static char big[10000];
	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)(i * 31 + 7);
#define P(s) (snprintf(p, sizeof(p), "%s/%s", dir, s), p)
#define Q(s) (snprintf(q, sizeof(q), "%s/%s", dir, s), q)
	REQUIRE(mkdir(P("bin"), 0755) == 0);
	REQUIRE(mkdir(P("etc"), 0700) == 0);
	REQUIRE(mkdir(P("etc/deep"), 0750) == 0);
	write_host_file(P("bin/big"), big, sizeof(big));
	REQUIRE(chmod(P("bin/big"), 04755) == 0);
	write_host_file(P("etc/empty"), "", 0);
	write_host_file(P("etc/deep/hello"), "hello\n", 6);
	REQUIRE(chown(P("etc/deep/hello"), 1234, 5678) == 0);
	REQUIRE(link(P("etc/deep/hello"), Q("bin/hardlink")) == 0);
	REQUIRE(symlink("../etc/deep/hello", P("bin/sym")) == 0);
	REQUIRE(symlink("/nowhere", P("bin/dangling")) == 0);
	REQUIRE(mkfifo(P("etc/fifo"), 0620) == 0);
	REQUIRE(chmod(P("etc/fifo"), 0620) == 0);
	bool devs = mknod(P("etc/null"), S_IFCHR | 0666, makedev(1, 3)) == 0 &&
	    chmod(P("etc/null"), 0666) == 0;
	set_host_mtime(P("etc/deep/hello"), 1000000000);
	set_host_mtime(P("bin/sym"), 1100000000);
	set_host_mtime(P("etc/deep"), 1200000000);
	set_host_mtime(P("etc"), 1300000000);
#undef P
#undef Q
	size_t len;
	snprintf(cmd, sizeof(cmd),
	    "cd %s && find . | LC_ALL=C sort | cpio -H newc -o --quiet", dir);
	char *arc = run_output(cmd, &len);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	REQUIRE(system(cmd) == 0);
	REQUIRE(arc != NULL);

	struct fst t;
	struct linux_stat st, st2;
	static char buf[12000];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(initramfs_load(rootvnode, arc, len), 0);
	free(arc);
	CHECK_EQ(fst_cat(&t, "/bin/big", buf, sizeof(buf)), sizeof(big));
	CHECK(memcmp(buf, big, sizeof(big)) == 0);
	CHECK_EQ(fst_stat(&t, "/bin/big", &st), 0);
	CHECK_EQ(st.st_mode, S_IFREG | 04755);
	CHECK_EQ(fst_stat(&t, "/etc/empty", &st), 0);
	CHECK_EQ(st.st_size, 0);
	CHECK_EQ(fst_cat(&t, "/etc/deep/hello", buf, sizeof(buf)), 6);
	CHECK(strcmp(buf, "hello\n") == 0);
	CHECK_EQ(fst_stat(&t, "/etc/deep/hello", &st), 0);
	CHECK_EQ(st.st_uid, 1234);
	CHECK_EQ(st.st_gid, 5678);
	CHECK_EQ(st.st_mtime_sec, 1000000000);
	CHECK_EQ(st.st_nlink, 2);
	CHECK_EQ(fst_stat(&t, "/bin/hardlink", &st2), 0);
	CHECK_EQ(st2.st_ino, st.st_ino);
	CHECK_EQ(fst_cat(&t, "/bin/sym", buf, sizeof(buf)), 6);
	CHECK_EQ(fst_lstat(&t, "/bin/sym", &st), 0);
	CHECK(S_ISLNK(st.st_mode));
	CHECK_EQ(st.st_mtime_sec, 1100000000);
	CHECK_EQ(kern_readlinkat(&t.p, &t.cr, AT_FDCWD, "/bin/dangling", buf,
	    sizeof(buf)), 8);
	CHECK_EQ(fst_stat(&t, "/etc/fifo", &st), 0);
	CHECK_EQ(st.st_mode, S_IFIFO | 0620);
	CHECK_EQ(fst_stat(&t, "/etc", &st), 0);
	CHECK_EQ(st.st_mode, S_IFDIR | 0700);
	CHECK_EQ(st.st_mtime_sec, 1300000000);
	CHECK_EQ(fst_stat(&t, "/etc/deep", &st), 0);
	CHECK_EQ(st.st_mode, S_IFDIR | 0750);
	CHECK_EQ(st.st_mtime_sec, 1200000000);
	if (devs) {
		CHECK_EQ(fst_stat(&t, "/etc/null", &st), 0);
		CHECK_EQ(st.st_mode, S_IFCHR | 0666);
		CHECK_EQ(st.st_rdev, 0x103);
		int fd = fst_open(&t, "/etc/null", O_RDWR, 0);
		CHECK_EQ(fst_write(&t, fd, "x", 1), 1);
		kern_close(&t.p, fd);
	}
	CHECK_EQ(fst_end(&t), 0);
}

TEST(cpio_crc_format_accepted)
{
	if (!have_cpio())
		SKIP("cpio is not installed (apt-get install cpio)");
	char dir[] = "/tmp/vk-cpio-XXXXXX", cmd[512], p[256];
	REQUIRE(mkdtemp(dir) != NULL);
	snprintf(p, sizeof(p), "%s/f", dir);
	write_host_file(p, "crc", 3);
	size_t len;
	snprintf(cmd, sizeof(cmd), "cd %s && echo f | cpio -H crc -o --quiet", dir);
	char *arc = run_output(cmd, &len);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	REQUIRE(system(cmd) == 0);
	REQUIRE(arc != NULL);
	CHECK(memcmp(arc, "070702", 6) == 0);
	struct fst t;
	char buf[8];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(initramfs_load(rootvnode, arc, len), 0);
	CHECK_EQ(fst_cat(&t, "/f", buf, sizeof(buf)), 3);
	free(arc);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(cpio_hand_made)
{
	static char a[8192];
	size_t len = 0;
	struct fst t;
	struct linux_stat st, st2;
	char buf[64];
	newc_add(a, &len, sizeof(a), ".", S_IFDIR | 0711, 1, 2, "", 0);
	newc_add(a, &len, sizeof(a), "./d", S_IFDIR | 0755, 2, 2, "", 0);
	/* Hard links as cpio writes them: the data with the last name. */
	newc_add(a, &len, sizeof(a), "d/one", S_IFREG | 0600, 7, 3, "", 0);
	newc_add(a, &len, sizeof(a), "d/two", S_IFREG | 0600, 7, 3, "", 0);
	newc_add(a, &len, sizeof(a), "d/three", S_IFREG | 0600, 7, 3, "linked", 6);
	/* ".." cannot climb out of the root. */
	newc_add(a, &len, sizeof(a), "../../escape", S_IFREG | 0644, 9, 1, "e", 1);
	newc_add(a, &len, sizeof(a), "/abs", S_IFLNK | 0777, 10, 1, "d/one", 5);
	/* A later entry of the same name replaces the earlier. */
	newc_add(a, &len, sizeof(a), "d/one2", S_IFREG | 0644, 11, 1, "x", 1);
	newc_add(a, &len, sizeof(a), "d/one2", S_IFDIR | 0755, 12, 2, "", 0);
	newc_add(a, &len, sizeof(a), "dev/null", S_IFCHR | 0666, 13, 1, "", 0);
	newc_trailer(a, &len, sizeof(a));
	/* A second archive after zero padding, as Linux accepts. */
	memset(a + len, 0, 512);
	len += 512;
	newc_add(a, &len, sizeof(a), "second", S_IFREG | 0644, 1, 1, "2nd", 3);
	newc_trailer(a, &len, sizeof(a));

	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_mkdirat(&t.p, &t.cr, AT_FDCWD, "/dev", 0755), 0);
	CHECK_EQ(initramfs_load(rootvnode, a, len), 0);
	CHECK_EQ(fst_stat(&t, "/", &st), 0);
	CHECK_EQ(st.st_mode, S_IFDIR | 0711);
	CHECK_EQ(st.st_mtime_sec, 1234567);
	CHECK_EQ(fst_stat(&t, "/d/one", &st), 0);
	CHECK_EQ(st.st_nlink, 3);
	CHECK_EQ(st.st_size, 6);
	CHECK_EQ(fst_stat(&t, "/d/three", &st2), 0);
	CHECK_EQ(st.st_ino, st2.st_ino);
	CHECK_EQ(fst_cat(&t, "/d/two", buf, sizeof(buf)), 6);
	CHECK(strcmp(buf, "linked") == 0);
	CHECK_EQ(fst_cat(&t, "/escape", buf, sizeof(buf)), 1);
	CHECK_EQ(fst_cat(&t, "/abs", buf, sizeof(buf)), 6);
	CHECK_EQ(fst_stat(&t, "/d/one2", &st), 0);
	CHECK(S_ISDIR(st.st_mode));
	CHECK_EQ(fst_stat(&t, "/dev/null", &st), 0);
	CHECK_EQ(st.st_rdev, 0x103);
	CHECK_EQ(fst_cat(&t, "/second", buf, sizeof(buf)), 3);
	CHECK_EQ(fst_end(&t), 0);
}

/* Loads a[0..len) into a fresh root; returns the result, -1000 on a leak. */
static int
load_fresh(const char *a, size_t len)
{
	struct fst t;
	if (fst_begin(&t) != 0)
		return -2000;
	int r = initramfs_load(rootvnode, a, len);
	return fst_end(&t) == 0 ? r : -1000;
}

TEST(cpio_truncated_at_every_offset)
{
	static char a[4096];
	size_t len = 0;
	newc_add(a, &len, sizeof(a), "dir", S_IFDIR | 0755, 1, 2, "", 0);
	newc_add(a, &len, sizeof(a), "dir/file", S_IFREG | 0644, 2, 1, "contents", 8);
	newc_add(a, &len, sizeof(a), "dir/link", S_IFLNK | 0777, 3, 1, "file", 4);
	newc_add(a, &len, sizeof(a), "fifo", S_IFIFO | 0644, 4, 1, "", 0);
	size_t body = len;
	newc_trailer(a, &len, sizeof(a));
	/* Complete once the trailer's name is in. */
	size_t whole = body + 110 + sizeof("TRAILER!!!");
	CHECK_EQ(load_fresh(a, len), 0);
	int bad = 0;
	for (size_t n = 1; n < len; n++) {
		int r = load_fresh(a, n);
		int want = n >= whole ? 0 : -EINVAL;
		if (r != want) {
			if (bad++ < 5)
				fprintf(stderr, "    prefix %zu: %d, not %d\n", n, r, want);
		}
	}
	CHECK_EQ(bad, 0);
	CHECK_EQ(load_fresh(a, 0), 0);		/* empty: nothing to do */
}

TEST(cpio_corrupted_bytes)
{
	static char a[4096], c[4096];
	size_t len = 0;
	newc_add(a, &len, sizeof(a), "dir", S_IFDIR | 0755, 1, 2, "", 0);
	newc_add(a, &len, sizeof(a), "dir/file", S_IFREG | 0644, 2, 2, "contents", 8);
	newc_add(a, &len, sizeof(a), "dir/hard", S_IFREG | 0644, 2, 2, "contents", 8);
	newc_add(a, &len, sizeof(a), "dir/link", S_IFLNK | 0777, 3, 1, "file", 4);
	newc_add(a, &len, sizeof(a), "dev", S_IFCHR | 0600, 4, 1, "", 0);
	newc_trailer(a, &len, sizeof(a));
	/* Every byte replaced by a few values: any result but a crash or a leak. */
	static const char vals[] = { 0, '0', '7', 'f', 'F', 'g', '/', (char)0xff };
	int leaks = 0, ok = 0;
	for (size_t i = 0; i < len; i++) {
		for (size_t v = 0; v < sizeof(vals); v++) {
			memcpy(c, a, len);
			c[i] = vals[v];
			int r = load_fresh(c, len);
			leaks += r == -1000 || r == -2000;
			ok += r == 0;
		}
	}
	CHECK_EQ(leaks, 0);
	CHECK(ok > 0);

	/* Specific hostile fields. */
	struct {
		size_t at;
		const char *field;
	} cases[] = {
		{ 0, "070703" },		/* magic */
		{ 6, "0000000G" },		/* not hex */
		{ 6 + 8 * 6, "7FFFFFFF" },	/* filesize beyond the buffer */
		{ 6 + 8 * 11, "00000000" },	/* namesize 0 */
		{ 6 + 8 * 11, "FFFFFFFF" },	/* namesize huge */
		{ 6 + 8 * 11, "00000003" },	/* name without its NUL */
		{ 6 + 8 * 1, "0000F1ED" },	/* an unknown file type */
	};
	for (size_t i = 0; i < nitems(cases); i++) {
		memcpy(c, a, len);
		memcpy(c + cases[i].at, cases[i].field, strlen(cases[i].field));
		CHECK_EQ(load_fresh(c, len), -EINVAL);
	}
	/* A symlink whose target holds a NUL. */
	size_t l2 = 0;
	newc_add(c, &l2, sizeof(c), "l", S_IFLNK | 0777, 1, 1, "a\0b", 3);
	newc_trailer(c, &l2, sizeof(c));
	CHECK_EQ(load_fresh(c, l2), -EINVAL);
	/* A file inside a missing directory: the file system's error. */
	l2 = 0;
	newc_add(c, &l2, sizeof(c), "no/such", S_IFREG | 0644, 1, 1, "", 0);
	newc_trailer(c, &l2, sizeof(c));
	CHECK_EQ(load_fresh(c, l2), -ENOENT);
}
