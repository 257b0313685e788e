/*
 * AT_RANDOM is new bytes at every exec: 300 execs of this program (more
 * than one refill of the kernel's pool of host entropy, 256 execs' worth)
 * each report their 16 bytes through a pipe, and no two are the same, nor
 * all zero.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#define NEXEC	300

static int
cmp16(const void *a, const void *b)
{
	return memcmp(a, b, 16);
}

int
main(int argc, char **argv)
{
	static unsigned char got[NEXEC][16];
	static const unsigned char zero[16];

	if (argc > 1 && strcmp(argv[1], "child") == 0) {
		const void *r = (const void *)getauxval(AT_RANDOM);
		return r != NULL && write(1, r, 16) == 16 ? 0 : 1;
	}
	int bad = 0, n = 0;
	for (; n < NEXEC; n++) {
		int fd[2], st;
		if (pipe(fd) < 0)
			break;
		pid_t c = fork();
		if (c == 0) {
			dup2(fd[1], 1);
			execl("/proc/self/exe", argv[0], "child", (char *)NULL);
			_exit(127);
		}
		close(fd[1]);
		ssize_t k = c > 0 ? read(fd[0], got[n], 16) : -1;
		close(fd[0]);
		if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0 || k != 16)
			break;
		bad += memcmp(got[n], zero, 16) == 0;
	}
	qsort(got, (size_t)n, 16, cmp16);
	int same = 0;
	for (int i = 1; i < n; i++)
		same += memcmp(got[i - 1], got[i], 16) == 0;
	printf("%d execs; all zero: %d; the same as another: %d\n", n, bad, same);
	return n == NEXEC && bad == 0 && same == 0 ? 0 : 1;
}
