/*
 * execve from a thread that is not the leader, while others block in
 * read and nanosleep: the others go, the new image runs with the
 * process's pid as its only thread's tid and one task in
 * /proc/self/task; it then makes threads again and execs from the main
 * thread, with the same result.
 */
#include "thr.h"

static char *self;
static int pipefd[2];

static void *
reader(void *arg)
{
	char c;
	(void)arg;
	read(pipefd[0], &c, 1);
	return NULL;
}

static void *
sleeper(void *arg)
{
	(void)arg;
	thr_sleep_ms(100000);
	return NULL;
}

static void
exec_next(const char *stage)
{
	char pid[32];
	snprintf(pid, sizeof(pid), "%d", (int)getpid());
	execl(self, self, stage, pid, (char *)NULL);
	printf("FAIL execl: %s\n", strerror(errno));
	exit(1);
}

static void *
execer(void *arg)
{
	thr_sleep_ms(20);
	exec_next(arg);
	return NULL;
}

/* Two blocked threads; then exec to stage from a new thread or from main. */
static void
threads_then_exec(const char *stage, int from_thread)
{
	pthread_t t;
	pipe(pipefd);
	thr_create(&t, NULL, reader, NULL);
	thr_create(&t, NULL, sleeper, NULL);
	if (from_thread) {
		thr_create(&t, NULL, execer, (void *)stage);
		thr_join(t);
		printf("FAIL the exec'ing thread returned\n");
		exit(1);
	}
	thr_sleep_ms(20);
	exec_next(stage);
}

/* The checks of a new image: the pid it was given, one thread. */
static void
check_image(const char *stage, const char *pid)
{
	char what[64];
	snprintf(what, sizeof(what), "%s: the same pid", stage);
	EXPECT(getpid(), atoi(pid), what);
	snprintf(what, sizeof(what), "%s: its tid is its pid", stage);
	EXPECT(thr_gettid(), getpid(), what);
	snprintf(what, sizeof(what), "%s: one thread in /proc/self/task", stage);
	EXPECT(thr_ntasks(), 1, what);
}

int
main(int argc, char **argv)
{
	thr_init();
	self = argv[0];
	if (argc == 1) {
		printf("first image: exec from a thread\n");
		threads_then_exec("second", 1);
	} else if (strcmp(argv[1], "second") == 0) {
		check_image(argv[1], argv[2]);
		if (thr_failures)
			return thr_exit_status();
		printf("second image: exec from main, threads blocked\n");
		threads_then_exec("third", 0);
	} else {
		check_image(argv[1], argv[2]);
	}
	return thr_exit_status();
}
