/*
 * A file system is free to unmount as soon as the processes that ran a
 * program from it are collected.  An exited process's address space may
 * be released after its parent collects it (vm/vm_vmspace.c: vmreap,
 * while its host stub is wiped), holding its references to the files it
 * mapped a little longer; unmount waits those out (vmspace_drain) rather
 * than say EBUSY.  Each round mounts a tmpfs, copies this program there,
 * runs the copy (which exits at once), and unmounts right after waitpid.
 * Inside vkernel only (it mounts).
 *
 * Usage: umountexit [rounds]; prints ok or FAIL lines, status 1 on FAIL.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define DIR	"/tmp/umountexit"
#define COPY	DIR "/prog"

static int
copy_self(void)
{
	int in = open("/proc/self/exe", O_RDONLY);
	int out = open(COPY, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	struct stat st;
	if (in < 0 || out < 0 || fstat(in, &st) < 0 ||
	    sendfile(out, in, NULL, (size_t)st.st_size) != st.st_size)
		return -1;
	close(in);
	return close(out);
}

int
main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return 0;
	int rounds = argc > 1 ? atoi(argv[1]) : 50, busy = 0;
	mkdir(DIR, 0755);
	for (int r = 0; r < rounds; r++) {
		if (mount("none", DIR, "tmpfs", 0, NULL) < 0 || copy_self() < 0) {
			printf("FAIL round %d: mount or copy: %s\n", r,
			    strerror(errno));
			return 1;
		}
		pid_t p = fork();
		if (p == 0) {
			execl(COPY, COPY, "child", (char *)NULL);
			_exit(127);
		}
		int st;
		if (p < 0 || waitpid(p, &st, 0) != p || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0) {
			printf("FAIL round %d: the copy did not run\n", r);
			return 1;
		}
		if (umount2(DIR, 0) < 0) {
			if (errno != EBUSY) {
				printf("FAIL round %d: umount: %s\n", r,
				    strerror(errno));
				return 1;
			}
			busy++;
			/* Let it go, for the next round. */
			for (int i = 0; i < 1000 && umount2(DIR, 0) < 0; i++)
				usleep(1000);
		}
	}
	printf("%s unmount right after the exit of a program run from it "
	    "(%d of %d busy)\n", busy == 0 ? "ok  " : "FAIL", busy, rounds);
	return busy != 0;
}
