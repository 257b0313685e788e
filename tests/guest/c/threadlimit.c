/*
 * Threads count as tasks: a user's threads stop at RLIMIT_NPROC as its
 * processes do (pthread_create gives EAGAIN), and ending them makes
 * room again.  RLIMIT_NPROC counts every task of the real uid, on the
 * whole host when run natively: as nobody, other nobody processes there
 * (another run of this test among them) made the first thread fail.  So
 * the bomber takes a uid of its own: one no account has, made unique
 * among concurrent runs by the bomber's pid.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#define LIMIT	8
#define UID_BASE 1000000000	/* above any account's uid and below (uid_t)-1 */

static int go;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void *
waiter(void *arg)
{
	pthread_mutex_lock(&mu);
	while (!go)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	return arg;
}

static int
bomb(void)
{
	struct rlimit rl = { LIMIT, LIMIT };
	pthread_t t[64];
	int n = 0, err = 0;
	uid_t uid = UID_BASE + (uid_t)getpid();

	if (setgid(uid) < 0 || setuid(uid) < 0 || setrlimit(RLIMIT_NPROC, &rl) < 0)
		return 1;
	while (n < 64 && (err = pthread_create(&t[n], NULL, waiter, NULL)) == 0)
		n++;
	printf("thread creation failed with EAGAIN: %s\n", err == EAGAIN ? "yes" : strerror(err));
	/* The uid's tasks: the main thread and these (no other has the uid). */
	printf("threads made: %d of a limit of %d tasks\n", n, LIMIT);
	fflush(stdout);
	pid_t c = fork();
	printf("fork at the limit: %s\n", c < 0 ? strerror(errno) : "succeeded");
	if (c == 0)
		_exit(0);
	if (c > 0)
		waitpid(c, NULL, 0);
	pthread_mutex_lock(&mu);
	go = 1;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	err = pthread_create(&t[0], NULL, waiter, NULL);
	printf("after joining, a thread again: %s\n", err == 0 ? "yes" : strerror(err));
	if (err == 0)
		pthread_join(t[0], NULL);
	fflush(stdout);
	return 0;
}

int
main(void)
{
	fflush(stdout);
	pid_t c = fork();
	if (c == 0)
		_exit(bomb());
	int st;
	waitpid(c, &st, 0);
	printf("bomber exited %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
