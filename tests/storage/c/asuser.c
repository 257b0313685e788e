/* asuser UID CMD [ARG...]: runs CMD with user and group ids UID. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: asuser uid cmd [arg...]\n");
		return 2;
	}
	gid_t id = (gid_t)atoi(argv[1]);
	if (setgroups(0, NULL) < 0 || setgid(id) < 0 || setuid(id) < 0) {
		perror("asuser");
		return 2;
	}
	execv(argv[2], argv + 2);
	perror(argv[2]);
	return 127;
}
