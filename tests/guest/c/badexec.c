/*
 * execve of garbage: files that are not programs, ELF files cut short or
 * with corrupt headers, scripts whose interpreter is missing or loops,
 * argument lists past the limits.  Each fails with Linux's errno, or,
 * where Linux gets past the point of no return, the child dies of the
 * signal Linux gives it; the parent goes on.  Some headers Linux finds
 * bad only after the point of no return (SIGSEGV) vkernel refuses before
 * it (ENOEXEC): for those either is shown as one result.  The files are
 * written at run time into the current directory (from a copy of this
 * program).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static char *img;		/* this program's file */
static size_t imglen;

static const char *
ename(int e)
{
	static char buf[32];
	switch (e) {
	case ENOEXEC: return "ENOEXEC";
	case EACCES: return "EACCES";
	case ENOENT: return "ENOENT";
	case ENOTDIR: return "ENOTDIR";
	case EIO: return "EIO";
	case ELOOP: return "ELOOP";
	case EINVAL: return "EINVAL";
	case E2BIG: return "E2BIG";
	case ETXTBSY: return "ETXTBSY";
	case ENOMEM: return "ENOMEM";
	case EFAULT: return "EFAULT";
	case EISDIR: return "EISDIR";
	case ENAMETOOLONG: return "ENAMETOOLONG";
	case EPERM: return "EPERM";
	}
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

/* Stands for an argv of NULL (run takes NULL for a default argv). */
static char *null_argv[1];

/*
 * Runs path in a child with argv/envp and says how that went; with
 * late_sig, ENOEXEC and death by late_sig are one result.
 */
static void
run_as(const char *what, const char *path, char **argv, char **envp, int late_sig)
{
	static char *dargv[] = { NULL, "ran", NULL };
	static char *denvp[] = { "PATH=/bin", NULL };
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return;
	if (argv == NULL) {
		dargv[0] = (char *)path;
		argv = dargv;
	}
	if (envp == NULL)
		envp = denvp;
	pid_t pid = fork();
	if (pid == 0) {
		struct rlimit rl = { 8 << 20, 8 << 20 };	/* argument space: 2 MiB */
		setrlimit(RLIMIT_STACK, &rl);
		/* The system call itself: glibc's execve may not take NULL. */
		syscall(SYS_execve, path, argv == null_argv ? NULL : argv, envp);
		int e = errno;
		write(pfd[1], &e, sizeof(e));
		_exit(0);
	}
	close(pfd[1]);
	int e = 0, status;
	ssize_t n = read(pfd[0], &e, sizeof(e));
	close(pfd[0]);
	waitpid(pid, &status, 0);
	if (late_sig != 0 && ((n == sizeof(e) && e == ENOEXEC) || (n != sizeof(e) &&
	    WIFSIGNALED(status) && WTERMSIG(status) == late_sig)))
		printf("%-26s ENOEXEC or killed by %d\n", what, late_sig);
	else if (n == sizeof(e))
		printf("%-26s %s\n", what, ename(e));
	else if (WIFEXITED(status))
		printf("%-26s ran, exit %d\n", what, WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		printf("%-26s killed by %d\n", what, WTERMSIG(status));
	else
		printf("%-26s status %#x\n", what, status);
}

static void
run(const char *what, const char *path, char **argv, char **envp)
{
	run_as(what, path, argv, envp, 0);
}

/* A file Linux execs past the point of no return and then kills with sig. */
static void
run_late(const char *what, const char *path, int sig)
{
	run_as(what, path, NULL, NULL, sig);
}

static void
put(const char *name, const void *data, size_t len, mode_t mode)
{
	unlink(name);
	int fd = open(name, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || write(fd, data, len) != (ssize_t)len)
		printf("cannot write %s\n", name);
	close(fd);
	chmod(name, mode);
}

/* A copy of this program with edit applied to its headers. */
static void
elf(const char *name, size_t len, void (*edit)(char *))
{
	char *c = malloc(imglen);
	memcpy(c, img, imglen);
	if (edit != NULL)
		edit(c);
	put(name, c, len, 0755);
	free(c);
}

#define EH(c)	((Elf64_Ehdr *)(c))
#define PH(c, i) ((Elf64_Phdr *)((c) + EH(c)->e_phoff) + (i))

static Elf64_Phdr *
firstload(char *c)
{
	for (int i = 0; i < EH(c)->e_phnum; i++)
		if (PH(c, i)->p_type == PT_LOAD)
			return PH(c, i);
	return NULL;
}

/* The PT_LOAD that holds the entry point. */
static Elf64_Phdr *
textload(char *c)
{
	for (int i = 0; i < EH(c)->e_phnum; i++) {
		Elf64_Phdr *p = PH(c, i);
		if (p->p_type == PT_LOAD && EH(c)->e_entry >= p->p_vaddr &&
		    EH(c)->e_entry < p->p_vaddr + p->p_memsz)
			return p;
	}
	return NULL;
}

static void e_phoff_huge(char *c) { EH(c)->e_phoff = 0xffffff00; }
static void e_phoff_wrap(char *c) { EH(c)->e_phoff = ~0UL - 8; }
static void e_phnum_0(char *c) { EH(c)->e_phnum = 0; }
static void e_phnum_big(char *c) { EH(c)->e_phnum = 0xffff; }
static void e_phnum_past(char *c) { EH(c)->e_phnum = 200; }
static void e_phentsize(char *c) { EH(c)->e_phentsize = 32; }
static void e_machine(char *c) { EH(c)->e_machine = EM_AARCH64; }
static void e_class(char *c) { c[EI_CLASS] = ELFCLASS32; }
static void e_data(char *c) { c[EI_DATA] = ELFDATA2MSB; }
static void e_magic(char *c) { c[1] = 'X'; }
static void e_type_rel(char *c) { EH(c)->e_type = ET_REL; }
static void e_type_core(char *c) { EH(c)->e_type = ET_CORE; }
static void e_entry_low(char *c) { EH(c)->e_entry = 0x10; }
static void e_entry_kern(char *c) { EH(c)->e_entry = 0xffff800000000000UL; }
static void e_entry_ncan(char *c) { EH(c)->e_entry = 1UL << 63 >> 16 << 16 | 0x1000; }
static void no_loads(char *c)
{
	for (int i = 0; i < EH(c)->e_phnum; i++)
		if (PH(c, i)->p_type == PT_LOAD)
			PH(c, i)->p_type = PT_NULL;
}
static void text_noexec(char *c) { textload(c)->p_flags = PF_R; }
static void filesz_gt_memsz(char *c) { firstload(c)->p_filesz = firstload(c)->p_memsz + 0x10000; }
static void vaddr_kern(char *c) { textload(c)->p_vaddr = 0xffff800000000000UL; }
static void memsz_huge(char *c) { textload(c)->p_memsz = 1UL << 62; }
static void offset_past_eof(char *c) { textload(c)->p_offset += 0x10000000; }
static void vaddr_unaligned(char *c) { textload(c)->p_vaddr += 0x10; }

int
main(int argc, char **argv)
{
	if (argc > 1) {		/* the copy that was meant to run */
		printf("ran\n");
		return 7;
	}
	if (argc == 0 || argv[0][0] == '\0') {	/* run with an empty argv */
		printf("ran with argc %d, argv[0] \"%s\"\n", argc,
		    argc > 0 ? argv[0] : "(none)");
		return 7;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	int fd = open(argv[0], O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) < 0)
		return 1;
	imglen = (size_t)st.st_size;
	img = malloc(imglen);
	if (read(fd, img, imglen) != (ssize_t)imglen)
		return 1;
	close(fd);
	mkdir("bx", 0755);
	if (chdir("bx") < 0)
		return 1;

	/* Not programs at all. */
	put("empty", "", 0, 0755);
	run("empty file", "./empty", NULL, NULL);
	put("text", "echo hello\n", 11, 0755);
	run("text without #!", "./text", NULL, NULL);
	put("onebyte", "#", 1, 0755);
	run("one byte", "./onebyte", NULL, NULL);
	put("binary", "\x7f" "ELX\0\0\0\0", 8, 0755);
	run("binary junk", "./binary", NULL, NULL);
	run("directory", ".", NULL, NULL);
	run("directory /", "/", NULL, NULL);
	run("missing", "./missing", NULL, NULL);
	run("through a file", "./empty/x", NULL, NULL);
	run("empty path", "", NULL, NULL);
	elf("noperm", imglen, NULL);
	chmod("noperm", 0644);
	run("not executable", "./noperm", NULL, NULL);

	/* ELF files: whole, cut short, with corrupt headers. */
	elf("good", imglen, NULL);
	run("good copy", "./good", NULL, NULL);
	/* An empty argv becomes { "" }, as Linux does. */
	static char *empty_argv[] = { NULL };
	run("argv NULL", "./good", null_argv, NULL);
	run("argv empty", "./good", empty_argv, NULL);
	elf("trunc64", 64, NULL);
	run("first 64 bytes", "./trunc64", NULL, NULL);
	elf("trunc100", 100, NULL);
	run("first 100 bytes", "./trunc100", NULL, NULL);
	elf("trunc16", 16, NULL);
	run("first 16 bytes", "./trunc16", NULL, NULL);
	elf("phoffhuge", imglen, e_phoff_huge);
	run("e_phoff past EOF", "./phoffhuge", NULL, NULL);
	elf("phoffwrap", imglen, e_phoff_wrap);
	run("e_phoff wraps", "./phoffwrap", NULL, NULL);
	elf("phnum0", imglen, e_phnum_0);
	run("e_phnum 0", "./phnum0", NULL, NULL);
	elf("phnumbig", imglen, e_phnum_big);
	run("e_phnum 65535", "./phnumbig", NULL, NULL);
	elf("phnumpast", 4096, e_phnum_past);
	run("e_phnum past EOF", "./phnumpast", NULL, NULL);
	elf("phentsize", imglen, e_phentsize);
	run("e_phentsize 32", "./phentsize", NULL, NULL);
	elf("machine", imglen, e_machine);
	run("e_machine aarch64", "./machine", NULL, NULL);
	elf("class", imglen, e_class);
	run("ELFCLASS32", "./class", NULL, NULL);
	elf("data", imglen, e_data);
	run("big-endian", "./data", NULL, NULL);
	elf("magic", imglen, e_magic);
	run("bad magic", "./magic", NULL, NULL);
	elf("rel", imglen, e_type_rel);
	run("ET_REL", "./rel", NULL, NULL);
	elf("core", imglen, e_type_core);
	run("ET_CORE", "./core", NULL, NULL);
	elf("noloads", imglen, no_loads);
	run_late("no PT_LOAD", "./noloads", SIGSEGV);
	elf("filesz", imglen, filesz_gt_memsz);
	run_late("p_filesz > p_memsz", "./filesz", SIGSEGV);
	elf("vaddrkern", imglen, vaddr_kern);
	run_late("p_vaddr kernel half", "./vaddrkern", SIGSEGV);
	elf("memszhuge", imglen, memsz_huge);
	run_late("p_memsz 2^62", "./memszhuge", SIGSEGV);
	elf("unaligned", imglen, vaddr_unaligned);
	run_late("p_vaddr != p_offset mod", "./unaligned", SIGSEGV);
	elf("entrylow", imglen, e_entry_low);
	run_late("e_entry 0x10", "./entrylow", SIGSEGV);
	elf("entrykern", imglen, e_entry_kern);
	run_late("e_entry kernel half", "./entrykern", SIGSEGV);
	elf("entryncan", imglen, e_entry_ncan);
	run_late("e_entry non-canonical", "./entryncan", SIGSEGV);
	elf("noexec", imglen, text_noexec);
	run("text not PF_X", "./noexec", NULL, NULL);
	elf("offeof", imglen, offset_past_eof);
	run_late("p_offset past EOF", "./offeof", SIGBUS);

	/* (Not tried: a file open for writing, whose ETXTBSY Linux 6.11 dropped.) */

	/* Scripts. */
	put("nointerp", "#!/nonexistent/interp\n", 22, 0755);
	run("#! missing interpreter", "./nointerp", NULL, NULL);
	put("blank", "#!\n", 3, 0755);
	run("#! nothing", "./blank", NULL, NULL);
	put("spaces", "#!   \t  \n", 9, 0755);
	run("#! only blanks", "./spaces", NULL, NULL);
	char longline[400];
	memset(longline, 'a', sizeof(longline));
	memcpy(longline, "#!/", 3);
	put("longline", longline, sizeof(longline), 0755);
	run("#! 400 bytes, no newline", "./longline", NULL, NULL);
	put("loop", "#!./loop\n", 9, 0755);
	run("#! itself", "./loop", NULL, NULL);
	put("loopa", "#!./loopb\n", 10, 0755);
	put("loopb", "#!./loopa\n", 10, 0755);
	run("#! each other", "./loopa", NULL, NULL);
	put("totext", "#!./text\n", 9, 0755);
	run("#! text file", "./totext", NULL, NULL);
	put("toempty", "#!./empty\n", 10, 0755);
	run("#! empty file", "./toempty", NULL, NULL);
	put("todir", "#!/\n", 4, 0755);
	run("#! directory", "./todir", NULL, NULL);
	put("tonoperm", "#!./noperm\n", 11, 0755);
	run("#! not executable", "./tonoperm", NULL, NULL);
	put("togarbage", "#!./magic\n", 10, 0755);
	run("#! bad ELF", "./togarbage", NULL, NULL);
	put("togood", "#!./good\n", 9, 0755);
	run("#! good copy", "./togood", NULL, NULL);
	char chain[5][16];
	put("chain0", "#!./good\n", 9, 0755);
	for (int i = 1; i < 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "chain%d", i);
		int n = snprintf(chain[i], sizeof(chain[i]), "#!./chain%d\n", i - 1);
		put(name, chain[i], (size_t)n, 0755);
	}
	run("#! 4 deep", "./chain3", NULL, NULL);
	run("#! 5 deep", "./chain4", NULL, NULL);

	/* Arguments past the limits (MAX_ARG_STRLEN 128 KiB; a quarter of the stack). */
	char *big = malloc(200000);
	memset(big, 'x', 200000);
	char *av[24] = { "./good", big, NULL };
	char *nul_env[] = { NULL };
	big[131071] = 0;
	run("arg of 131071 bytes", "./good", av, nul_env);
	big[131071] = 'x';
	big[131072] = 0;
	run("arg of 131072 bytes", "./good", av, nul_env);
	char *ev[] = { big, NULL };
	run("env of 131072 bytes", "./good", NULL, ev);
	big[100000] = 0;
	for (int i = 1; i < 16; i++)
		av[i] = big;
	av[16] = NULL;
	run("15 args of 100000", "./good", av, nul_env);
	for (int i = 1; i < 23; i++)
		av[i] = big;
	av[23] = NULL;
	run("22 args of 100000", "./good", av, nul_env);
	free(big);

	/* Clean up; the shell still works. */
	static const char *names[] = { "empty", "text", "onebyte", "binary", "noperm", "good",
	    "trunc64", "trunc100", "trunc16", "phoffhuge", "phoffwrap", "phnum0", "phnumbig",
	    "phnumpast", "phentsize", "machine", "class", "data", "magic", "rel", "core",
	    "noloads", "filesz", "vaddrkern", "memszhuge", "unaligned", "entrylow",
	    "entrykern", "entryncan", "offeof", "noexec", "nointerp", "blank", "spaces",
	    "longline", "loop", "loopa", "loopb", "totext", "toempty", "todir", "tonoperm",
	    "togarbage", "togood", "chain0", "chain1", "chain2", "chain3", "chain4" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (unlink(names[i]) < 0)
			printf("no %s\n", names[i]);
	chdir("..");
	if (rmdir("bx") < 0)
		printf("bx not empty\n");
	char *sh[] = { "sh", "-c", "echo shell fine", NULL };
	run("sh after all that", "/bin/sh", sh, NULL);
	return 0;
}
