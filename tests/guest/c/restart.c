/*
 * Interrupted system calls: SA_RESTART restarts them, its absence gives
 * EINTR, a signal that runs no handler (stop and continue, an ignored
 * SIGCHLD) restarts them whatever, and sleeps resume to their deadline.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile int handled;

static void
on_signal(int sig)
{
	(void)sig;
	handled++;
}

static void
catch(int sig, int flags)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sa.sa_flags = flags;
	sigaction(sig, &sa, NULL);
}

/* A one-shot SIGALRM after ms milliseconds. */
static void
alarm_ms(int ms)
{
	struct itimerval it = { { 0, 0 }, { ms / 1000, (ms % 1000) * 1000 } };
	setitimer(ITIMER_REAL, &it, NULL);
}

static double
now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A child that writes one byte into fd after ms milliseconds. */
static pid_t
writer_after(int fd, int ms)
{
	pid_t pid = fork();
	if (pid == 0) {
		usleep(ms * 1000);
		(void)!write(fd, "x", 1);
		_exit(0);
	}
	return pid;
}

static void
pipe_read(int flags, const char *what)
{
	int p[2];
	char c;
	pipe(p);
	handled = 0;
	catch(SIGALRM, flags);
	pid_t pid = writer_after(p[1], 300);
	alarm_ms(50);
	ssize_t n = read(p[0], &c, 1);
	printf("%s: read %zd (%s), handler ran %d\n", what, n,
	    n < 0 ? strerror(errno) : "ok", handled);
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
}

static void
wait_restart(int flags, const char *what)
{
	handled = 0;
	catch(SIGALRM, flags);
	pid_t pid = fork();
	if (pid == 0) {
		usleep(300 * 1000);
		_exit(7);
	}
	alarm_ms(50);
	int status = 0;
	pid_t r = waitpid(pid, &status, 0);
	printf("%s: waitpid %s, handler ran %d\n", what,
	    r == pid ? "reaped the child" : strerror(errno), handled);
	if (r != pid)
		waitpid(pid, NULL, 0);
	else
		printf("  status %d\n", WEXITSTATUS(status));
}

static void
sleep_with_handler(void)
{
	struct timespec req = { 1, 0 }, rem = { 0, 0 };
	handled = 0;
	catch(SIGALRM, SA_RESTART);	/* nanosleep is never restarted */
	alarm_ms(100);
	int r = nanosleep(&req, &rem);
	printf("nanosleep with handler: %d (%s), time left between 0.5 and 1 s: %s\n",
	    r, r < 0 ? strerror(errno) : "ok",
	    rem.tv_sec == 0 && rem.tv_nsec > 500000000 ? "yes" : "no");
}

/* Stopped and continued mid-sleep: no handler runs, the sleep goes on. */
static void
sleep_stopped(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();
	if (pid == 0) {
		usleep(50 * 1000);
		kill(parent, SIGSTOP);
		usleep(50 * 1000);
		kill(parent, SIGCONT);
		_exit(0);
	}
	struct timespec req = { 0, 300 * 1000 * 1000 };
	double t0 = now();
	int r = nanosleep(&req, NULL);
	double dt = now() - t0;
	printf("nanosleep across stop/continue: %d, slept the whole time: %s, "
	    "not twice: %s\n", r, dt >= 0.3 ? "yes" : "no", dt < 0.55 ? "yes" : "no");
	waitpid(pid, NULL, 0);
}

/* SIGCHLD's default is to ignore: a read goes on through it. */
static void
read_through_sigchld(void)
{
	int p[2];
	char c;
	pipe(p);
	signal(SIGCHLD, SIG_DFL);
	pid_t quick = fork();
	if (quick == 0)
		_exit(0);
	pid_t pid = writer_after(p[1], 200);
	ssize_t n = read(p[0], &c, 1);
	printf("read through SIGCHLD: %zd\n", n);
	waitpid(quick, NULL, 0);
	waitpid(pid, NULL, 0);
	close(p[0]);
	close(p[1]);
}

static void
pause_with_handler(void)
{
	handled = 0;
	catch(SIGALRM, SA_RESTART);	/* pause is never restarted */
	alarm_ms(50);
	int r = pause();
	printf("pause: %d (%s), handler ran %d\n", r, strerror(errno), handled);
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	pipe_read(SA_RESTART, "pipe read, SA_RESTART");
	pipe_read(0, "pipe read, no SA_RESTART");
	wait_restart(SA_RESTART, "wait, SA_RESTART");
	wait_restart(0, "wait, no SA_RESTART");
	sleep_with_handler();
	sleep_stopped();
	read_through_sigchld();
	pause_with_handler();
	return 0;
}
