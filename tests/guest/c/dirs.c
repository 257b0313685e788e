/*
 * Files and directories as Linux has them: fstatat of "" with and
 * without AT_EMPTY_PATH, F_GETFL of a directory, getcwd and chdir("..")
 * in a directory that was removed, the arguments of a #! interpreter,
 * and /proc/self/cmdline and comm after an exec.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

int
main(int argc, char **argv)
{
	char buf[4096];
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc > 1 && strcmp(argv[1], "again") == 0) {
		int fd = open("/proc/self/cmdline", O_RDONLY);
		long n = read(fd, buf, sizeof(buf));
		for (long i = 0; i < n; i++)
			if (buf[i] == 0) buf[i] = ' ';
		printf("cmdline after exec: %.*s\n", (int)n, buf);
		close(fd);
		fd = open("/proc/self/comm", O_RDONLY);
		n = read(fd, buf, sizeof(buf));
		printf("comm after exec: %.*s", (int)n, buf);
		return 0;
	}
	struct stat st;
	int d = open(".", O_RDONLY | O_DIRECTORY);
	report("fstatat(dir, \"\", 0)", fstatat(d, "", &st, 0));
	report("fstatat(dir, \"\", AT_EMPTY_PATH)", fstatat(d, "", &st, AT_EMPTY_PATH));
	printf("F_GETFL of a directory: %#o\n", fcntl(d, F_GETFL));
	close(d);
	d = open(".", O_RDONLY);
	printf("F_GETFL of a directory opened without O_DIRECTORY: %#o\n", fcntl(d, F_GETFL));
	close(d);
	int f = open("misc.tmp", O_CREAT | O_RDWR, 0600);
	printf("F_GETFL of a file: %#o\n", fcntl(f, F_GETFL));
	close(f);
	unlink("misc.tmp");

	mkdir("gone", 0700);
	char top[4096];
	getcwd(top, sizeof(top));
	chdir("gone");
	rmdir("../gone");
	report("getcwd in a removed directory", getcwd(buf, sizeof(buf)) ? 0 : -1);
	report("chdir .. from it", chdir(".."));
	getcwd(buf, sizeof(buf));
	printf("back where we were: %d\n", strcmp(buf, top) == 0);

	FILE *s = fopen("script.sh", "w");
	fprintf(s, "#!/bin/echo -n\n");
	fclose(s);
	chmod("script.sh", 0755);
	pid_t pid = fork();
	if (pid == 0) {
		execl("./script.sh", "the-name", "arg1", NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	printf("|\n");
	pid = fork();
	if (pid == 0) {
		/* The path as given, not as the kernel would normalise it. */
		execl(".//./script.sh", "the-name", "arg1", NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	printf("|\n");
	unlink("script.sh");

	char self[4096];
	long n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n] = 0;
	pid = fork();
	if (pid == 0) {
		execl(self, "renamed", "again", NULL);
		_exit(127);
	}
	waitpid(pid, NULL, 0);
	return 0;
}
