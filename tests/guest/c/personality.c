/*
 * personality(2) against Linux: a query (0xffffffff) changes nothing,
 * a set returns the old persona, fork and exec keep it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "exec") == 0) {
		printf("after exec: %#x\n", personality(0xffffffff));
		return 0;
	}
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("query: %#x\n", personality(0xffffffff));
	printf("set ADDR_NO_RANDOMIZE, old: %#x\n", personality(ADDR_NO_RANDOMIZE));
	printf("query: %#x\n", personality(0xffffffff));
	printf("set PER_LINUX|UNAME26, old: %#x\n", personality(PER_LINUX | UNAME26));
	printf("set ADDR_NO_RANDOMIZE|STICKY_TIMEOUTS, old: %#x\n",
	    personality(ADDR_NO_RANDOMIZE | STICKY_TIMEOUTS));
	pid_t pid = fork();
	if (pid == 0) {
		printf("in the child: %#x\n", personality(0xffffffff));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	pid = fork();
	if (pid == 0) {
		execl("/proc/self/exe", argv[0], "exec", (char *)NULL);
		_exit(1);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("exec status %d\n", WEXITSTATUS(st));
	printf("back to PER_LINUX, old: %#x\n", personality(PER_LINUX));
	printf("query: %#x\n", personality(0xffffffff));
	return 0;
}
