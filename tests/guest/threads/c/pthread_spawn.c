/*
 * vfork and posix_spawn: the vfork child shares the parent's memory and
 * the parent waits until it exits or execs; an exec that fails in the
 * child is seen by the parent; posix_spawn runs a program with its file
 * actions and reports a missing or unexecutable file as its error (not
 * as a child exiting 127).
 */
#include "thr.h"
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>

extern char **environ;

static volatile int shared;
static volatile int child_errno;

static int
status_of(pid_t pid)
{
	int st = -1;
	if (waitpid(pid, &st, 0) != pid)
		return -2;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int
spawn(const char *path, char *const argv[], posix_spawn_file_actions_t *fa, pid_t *pid)
{
	return posix_spawn(pid, path, fa, NULL, argv, environ);
}

int
main(void)
{
	pid_t pid;
	char buf[32] = "";

	thr_init();
	pid = vfork();
	if (pid == 0) {
		shared = 1;
		thr_sleep_ms(50);
		shared = 2;
		_exit(5);
	}
	EXPECT(shared, 2, "vfork: the parent resumes once the child exits, memory shared");
	EXPECT(status_of(pid), 5, "vfork: the child's status");

	pid = vfork();
	if (pid == 0) {
		execl("/nonexistent/program", "program", (char *)NULL);
		child_errno = errno;
		_exit(127);
	}
	EXPECT(child_errno, ENOENT, "vfork: the child's failed exec seen by the parent: ENOENT");
	EXPECT(status_of(pid), 127, "vfork: then it exits 127");

	pid = vfork();
	if (pid == 0) {
		execl("/bin/sh", "sh", "-c", "exit 3", (char *)NULL);
		_exit(127);
	}
	EXPECT(status_of(pid), 3, "vfork and exec: the program's status");

	char *sh_exit[] = { "sh", "-c", "exit 4", NULL };
	EXPECT(spawn("/bin/sh", sh_exit, NULL, &pid), 0, "posix_spawn /bin/sh");
	EXPECT(status_of(pid), 4, "posix_spawn: the program's status");

	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_addopen(&fa, 1, "spawn.out", O_WRONLY | O_CREAT | O_TRUNC, 0644);
	char *sh_echo[] = { "sh", "-c", "echo spawned", NULL };
	EXPECT(spawn("/bin/sh", sh_echo, &fa, &pid), 0, "posix_spawn with its stdout to a file");
	EXPECT(status_of(pid), 0, "posix_spawn: status 0");
	int fd = open("spawn.out", O_RDONLY);
	read(fd, buf, sizeof(buf) - 1);
	close(fd);
	EXPECT(strcmp(buf, "spawned\n"), 0, "the file holds what it wrote");
	posix_spawn_file_actions_destroy(&fa);

	char *none[] = { "program", NULL };
	pid = 0;
	EXPECT(spawn("/nonexistent/program", none, NULL, &pid), ENOENT,
	    "posix_spawn of a missing file: ENOENT");
	EXPECT(posix_spawnp(&pid, "no-such-program-here", NULL, NULL, none, environ), ENOENT,
	    "posix_spawnp of a missing program: ENOENT");
	close(open("noexec", O_WRONLY | O_CREAT | O_TRUNC, 0644));
	EXPECT(spawn("./noexec", none, NULL, &pid), EACCES,
	    "posix_spawn of a file without execute permission: EACCES");
	EXPECT(waitpid(-1, NULL, WNOHANG), -1, "no child left behind by the failures");
	return thr_exit_status();
}
