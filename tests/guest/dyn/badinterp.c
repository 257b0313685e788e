/*
 * badinterp PROGRAM LDSO: execs copies of the dynamically linked PROGRAM
 * whose PT_INTERP names ./interp, with ./interp missing, garbage, too
 * short, a damaged copy of LDSO (magic, machine, program headers), not
 * executable, a dynamically linked program itself, and a PT_INTERP
 * string without its NUL.  Prints what execve says or how the child
 * ended: Linux's answers; the kernel goes on.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char *
slurp(const char *path, size_t *lenp)
{
	int fd = open(path, O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(path);
		exit(1);
	}
	char *buf = malloc(st.st_size);
	if (buf == NULL || read(fd, buf, st.st_size) != st.st_size) {
		perror(path);
		exit(1);
	}
	close(fd);
	*lenp = st.st_size;
	return buf;
}

static void
spill(const char *path, const void *buf, size_t len, mode_t mode)
{
	unlink(path);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
	if (fd < 0 || write(fd, buf, len) != (ssize_t)len) {
		perror(path);
		exit(1);
	}
	close(fd);
}

/* Runs ./prog; prints execve's error, or how the child ended. */
static void
try(const char *what)
{
	int pfd[2];
	pipe(pfd);
	fflush(stdout);
	pid_t pid = fork();
	if (pid == 0) {
		close(pfd[0]);
		int null = open("/dev/null", O_WRONLY);
		dup2(null, 1);
		fcntl(pfd[1], F_SETFD, FD_CLOEXEC);
		char *argv[] = { "prog", NULL };
		execve("./prog", argv, (char *[]){ NULL });
		int e = errno;
		write(pfd[1], &e, sizeof(e));
		_exit(0);
	}
	close(pfd[1]);
	int e = 0, st;
	ssize_t n = read(pfd[0], &e, sizeof(e));
	close(pfd[0]);
	waitpid(pid, &st, 0);
	if (n == sizeof(e))
		printf("%s: execve: %s\n", what, strerror(e));
	else
		printf("%s: ran (%s)\n", what, WIFEXITED(st) || WIFSIGNALED(st) ?
		    "and ended" : "?");
}

int
main(int argc, char **argv)
{
	size_t plen, llen;
	if (argc != 3) {
		fprintf(stderr, "usage: badinterp PROGRAM LDSO\n");
		return 2;
	}
	char *prog = slurp(argv[1], &plen), *ld = slurp(argv[2], &llen);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)prog;
	Elf64_Phdr *ph = (Elf64_Phdr *)(prog + eh->e_phoff), *interp = NULL;
	for (int i = 0; i < eh->e_phnum; i++)
		if (ph[i].p_type == PT_INTERP)
			interp = &ph[i];
	if (interp == NULL || interp->p_filesz < sizeof("./interp")) {
		fprintf(stderr, "badinterp: %s has no room for ./interp\n", argv[1]);
		return 2;
	}
	memset(prog + interp->p_offset, 0, interp->p_filesz);
	strcpy(prog + interp->p_offset, "./interp");
	spill("prog", prog, plen, 0755);

	unlink("interp");
	try("missing");
	char junk[4096];
	memset(junk, 0x5a, sizeof(junk));
	spill("interp", junk, sizeof(junk), 0755);
	try("garbage");
	spill("interp", ld, 10, 0755);
	try("10 bytes");
	Elf64_Ehdr *leh = (Elf64_Ehdr *)ld;
	leh->e_ident[1] = 'X';
	spill("interp", ld, llen, 0755);
	try("bad magic");
	leh->e_ident[1] = 'E';
	leh->e_machine = EM_AARCH64;
	spill("interp", ld, llen, 0755);
	try("another machine");
	leh->e_machine = EM_X86_64;
	uint16_t phnum = leh->e_phnum;
	leh->e_phnum = 0;
	spill("interp", ld, llen, 0755);
	try("no program headers");
	leh->e_phnum = phnum;
	spill("interp", ld, llen, 0644);
	try("not executable");
	spill("interp", ld, llen, 0755);
	try("intact");
	spill("interp", slurp(argv[1], &plen), plen, 0755);
	try("a dynamic program");
	memset(prog + interp->p_offset, 'x', interp->p_filesz);
	spill("prog", prog, plen, 0755);
	try("no NUL");
	unlink("prog");
	unlink("interp");
	return 0;
}
