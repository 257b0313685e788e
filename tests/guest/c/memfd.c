/*
 * memfd_create and file seals: flags and names, /proc/self/fd links, the
 * default seals, each seal against write, truncate, fallocate and mmap,
 * F_SEAL_SEAL, sharing a memfd's pages with a child, and punching holes
 * (fallocate FALLOC_FL_PUNCH_HOLE) under a mapping.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef MFD_NOEXEC_SEAL
#define MFD_NOEXEC_SEAL 0x0008U
#define MFD_EXEC 0x0010U
#endif
#ifndef F_SEAL_EXEC
#define F_SEAL_EXEC 0x0020
#endif

static int
mfd(const char *name, unsigned flags)
{
	return (int)syscall(SYS_memfd_create, name, flags);
}

static void
res(const char *what, long r)
{
	printf("%s: %s\n", what, r >= 0 ? "ok" : strerror(errno));
}

int
main(void)
{
	char link[64], target[300];

	int fd = mfd("first", MFD_CLOEXEC);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	ssize_t n = readlink(link, target, sizeof(target) - 1);
	target[n > 0 ? n : 0] = '\0';
	printf("link: %s\n", target);
	printf("cloexec: %d\n", (fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	printf("flags O_RDWR: %d\n", (fcntl(fd, F_GETFL) & O_ACCMODE) == O_RDWR);
	struct stat st;
	fstat(fd, &st);
	printf("mode %o size %lld nlink %d\n", st.st_mode, (long long)st.st_size,
	    (int)st.st_nlink);
	printf("seals without sealing: %#x\n", fcntl(fd, F_GET_SEALS));
	res("add seal without sealing", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
	close(fd);

	res("unknown flag", mfd("x", 0x100));
	res("exec and noexec", mfd("x", MFD_EXEC | MFD_NOEXEC_SEAL));
	char longname[300];
	memset(longname, 'a', sizeof(longname));
	longname[249] = '\0';
	fd = mfd(longname, 0);
	res("249-byte name", fd);
	close(fd);
	longname[249] = 'a';
	longname[250] = '\0';
	res("250-byte name", mfd(longname, 0));
	res("bad name pointer", mfd((const char *)8, 0));

	fd = mfd("noexec", MFD_NOEXEC_SEAL);
	fstat(fd, &st);
	printf("noexec: mode %o seals %#x\n", st.st_mode, fcntl(fd, F_GET_SEALS));
	res("noexec chmod +x", fchmod(fd, 0755));
	res("noexec chmod rw", fchmod(fd, 0600));
	close(fd);

	fd = mfd("sealed", MFD_ALLOW_SEALING);
	printf("seals with sealing: %#x\n", fcntl(fd, F_GET_SEALS));
	res("write 8192", write(fd, memset(longname, 'b', 300), 300));
	ftruncate(fd, 8192);
	res("unknown seal", fcntl(fd, F_ADD_SEALS, 0x1000));

	res("add shrink", fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK));
	res("shrink", ftruncate(fd, 4096));
	res("grow", ftruncate(fd, 16384));
	res("add grow", fcntl(fd, F_ADD_SEALS, F_SEAL_GROW));
	res("grow sealed", ftruncate(fd, 32768));
	res("same size", ftruncate(fd, 16384));
	res("write inside", pwrite(fd, "in", 2, 100));
	res("write past end", pwrite(fd, "out", 3, 16383));
	res("fallocate past end", fallocate(fd, 0, 16000, 8192));
	res("fallocate keep size", fallocate(fd, FALLOC_FL_KEEP_SIZE, 16000, 8192));

	char *sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	res("shared writable map before write seal", sh == MAP_FAILED ? -1 : 0);
	munmap(sh, 4096);
	res("add write", fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE));
	printf("seals: %#x\n", fcntl(fd, F_GET_SEALS));
	res("write sealed", pwrite(fd, "x", 1, 0));
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	res("shared writable map", sh == MAP_FAILED ? -1 : 0);
	sh = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	res("shared read-only map", sh == MAP_FAILED ? -1 : 0);
	res("mprotect it writable", mprotect(sh, 4096, PROT_READ | PROT_WRITE));
	char *pr = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	res("private writable map", pr == MAP_FAILED ? -1 : 0);
	pr[0] = 'P';
	printf("private write: %c, file keeps %c\n", pr[0], sh[0]);
	res("add seal", fcntl(fd, F_ADD_SEALS, F_SEAL_SEAL));
	res("add after seal", fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK));
	close(fd);

	/* Future-write: the existing mapping writes on, new ones may not. */
	fd = mfd("future", MFD_ALLOW_SEALING);
	ftruncate(fd, 4096);
	sh = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	res("add future write", fcntl(fd, F_ADD_SEALS, F_SEAL_FUTURE_WRITE));
	sh[0] = 'F';
	char c = 0;
	pread(fd, &c, 1, 0);
	printf("old mapping still writes: %c\n", c);
	res("write after future seal", pwrite(fd, "y", 1, 0));
	res("new shared writable map",
	    mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) ==
	    MAP_FAILED ? -1 : 0);

	/* A child sees and changes the same pages. */
	pid_t pid = fork();
	if (pid == 0) {
		sh[1] = 'C';
		_exit(sh[0] == 'F' ? 0 : 1);
	}
	int status;
	waitpid(pid, &status, 0);
	printf("child: %d, parent sees %c\n", WEXITSTATUS(status), sh[1]);

	/* Seals of an ordinary file and of a tmpfs file. */
	int p[2];
	pipe(p);
	res("get seals of a pipe", fcntl(p[0], F_GET_SEALS));
	char path[64];
	snprintf(path, sizeof(path), "/dev/shm/vk-memfd-%d", getpid());
	int tf = open(path, O_RDWR | O_CREAT, 0600);
	unlink(path);
	printf("tmpfs file seals: %#x\n", fcntl(tf, F_GET_SEALS));
	res("add to tmpfs file", fcntl(tf, F_ADD_SEALS, F_SEAL_WRITE));

	/* A hole punched under a shared mapping reads as zeros through it. */
	long ps = sysconf(_SC_PAGESIZE);
	int hf = mfd("holes", MFD_ALLOW_SEALING);
	ftruncate(hf, 4 * ps);
	char *hm = mmap(NULL, 4 * ps, PROT_READ | PROT_WRITE, MAP_SHARED, hf, 0);
	memset(hm, 'h', 4 * ps);
	res("punch page 1", fallocate(hf, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
	    ps, ps));
	res("punch a partial range", fallocate(hf,
	    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 2 * ps + 100, 50));
	res("punch without keep size", fallocate(hf, FALLOC_FL_PUNCH_HOLE, 0, ps));
	char b = 'x';
	pread(hf, &b, 1, ps + 7);
	struct stat hst;
	fstat(hf, &hst);
	printf("after punch: map %d %d %d %d, read %d, size %lld\n", hm[0],
	    hm[ps + 7], hm[2 * ps + 120], hm[2 * ps + 150], b,
	    (long long)hst.st_size);
	munmap(hm, 4 * ps);	/* (a writable shared mapping: EBUSY) */
	res("seal writes", fcntl(hf, F_ADD_SEALS, F_SEAL_WRITE));
	res("punch a write-sealed file", fallocate(hf,
	    FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, 0, ps));
	return 0;
}
