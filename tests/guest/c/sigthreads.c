/*
 * Signals and threads: pthread_kill reaches the thread named (SI_TKILL);
 * a signal to the process goes to the one thread that does not block it;
 * sigwaitinfo in one thread takes a signal sent to the process; each
 * thread's pending set is its own plus the process's; SIGSTOP stops every
 * thread of a process and SIGCONT resumes them all; tgkill with the
 * wrong process is ESRCH.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NTHREADS	3

static pid_t tids[NTHREADS];
static pthread_t threads[NTHREADS];
static volatile pid_t handled_by;
static volatile int handled_code;
static pthread_barrier_t barrier;
static volatile int done, waited;

static pid_t
gettid_(void)
{
	return (pid_t)syscall(SYS_gettid);
}

static int
which(pid_t tid)
{
	for (int i = 0; i < NTHREADS; i++)
		if (tids[i] == tid)
			return i;
	return tid == getpid() ? -1 : -2;
}

static void
handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	handled_code = si->si_code;
	handled_by = gettid_();
}

static void
block(int how, int sig)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	pthread_sigmask(how, &s, NULL);
}

/* Waits up to 5 s for the handler to run; the thread's index, or -3. */
static int
wait_handled(void)
{
	for (int i = 0; i < 5000 && handled_by == 0; i++)
		usleep(1000);
	int r = handled_by ? which(handled_by) : -3;
	handled_by = 0;
	return r;
}

static void *
worker(void *arg)
{
	int i = (int)(long)arg;
	tids[i] = gettid_();
	/* Thread 1 alone takes SIGUSR1 sent to the process. */
	if (i == 1)
		block(SIG_UNBLOCK, SIGUSR1);
	pthread_barrier_wait(&barrier);
	/* Thread 2 waits for SIGUSR2, which every thread blocks. */
	if (i == 2) {
		sigset_t s;
		siginfo_t si;
		sigemptyset(&s);
		sigaddset(&s, SIGUSR2);
		int sig = sigwaitinfo(&s, &si);
		printf("thread 2 sigwaitinfo: %s, code %s\n", sig == SIGUSR2 ?
		    "SIGUSR2" : "?", si.si_code == SI_USER ? "SI_USER" : "?");
		waited = 1;
	}
	while (!done)
		usleep(1000);
	return NULL;
}

/* Is sig pending for the calling thread? */
static int
pending(int sig)
{
	sigset_t s;
	sigpending(&s);
	return sigismember(&s, sig);
}

static void *
pending_worker(void *arg)
{
	(void)arg;
	printf("other thread: USR1 pending %d, USR2 pending %d\n",
	    pending(SIGUSR1), pending(SIGUSR2));
	return NULL;
}

/* A child of several spinning threads, counting in shared memory. */
static volatile unsigned long *counts;

static void *
spinner(void *arg)
{
	int i = (int)(long)arg;
	for (;;)
		counts[i]++;
	return NULL;
}

static void
group_stop(void)
{
	counts = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED |
	    MAP_ANONYMOUS, -1, 0);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t t;
		for (long i = 1; i < NTHREADS; i++)
			pthread_create(&t, NULL, spinner, (void *)i);
		spinner((void *)0);
	}
	/* All spin before the stop. */
	for (int i = 0; i < NTHREADS; i++)
		while (counts[i] == 0)
			usleep(1000);
	kill(pid, SIGSTOP);
	int status;
	waitpid(pid, &status, WUNTRACED);
	printf("stopped: %d\n", WIFSTOPPED(status) && WSTOPSIG(status) == SIGSTOP);
	unsigned long before[NTHREADS];
	memcpy(before, (void *)counts, sizeof(before));
	usleep(100000);
	int still = 1;
	for (int i = 0; i < NTHREADS; i++)
		still &= counts[i] == before[i];
	printf("every thread still while stopped: %d\n", still);
	kill(pid, SIGCONT);
	waitpid(pid, &status, WCONTINUED);
	printf("continued: %d\n", WIFCONTINUED(status));
	int moved = 0;
	for (int t = 0; t < 5000 && moved != NTHREADS; t++) {
		moved = 0;
		for (int i = 0; i < NTHREADS; i++)
			moved += counts[i] != before[i];
		usleep(1000);
	}
	printf("threads running again: %d of %d\n", moved, NTHREADS);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	printf("killed: %d\n", WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
}

int
main(void)
{
	struct sigaction sa;
	setvbuf(stdout, NULL, _IONBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	/* Every thread blocks SIGUSR1 and SIGUSR2 but as it says. */
	block(SIG_BLOCK, SIGUSR1);
	block(SIG_BLOCK, SIGUSR2);
	pthread_barrier_init(&barrier, NULL, NTHREADS + 1);
	for (long i = 0; i < NTHREADS; i++)
		pthread_create(&threads[i], NULL, worker, (void *)i);
	pthread_barrier_wait(&barrier);

	/* To the process: the thread that does not block it. */
	kill(getpid(), SIGUSR1);
	printf("kill SIGUSR1: handled by thread %d\n", wait_handled());
	kill(getpid(), SIGUSR1);
	printf("again: handled by thread %d\n", wait_handled());
	/* sigwaitinfo in thread 2 takes a signal sent to the process. */
	kill(getpid(), SIGUSR2);
	for (int i = 0; i < 5000 && !waited; i++)
		usleep(1000);
	/* To each thread: that one (SIGTERM, which none blocks). */
	for (int i = 0; i < NTHREADS; i++) {
		pthread_kill(threads[i], SIGTERM);
		int by = wait_handled();
		printf("pthread_kill thread %d: handled by %d, %s\n", i, by,
		    handled_code == SI_TKILL ? "SI_TKILL" : "?");
	}

	/* Pending: the thread's own and the process's. */
	pthread_t t;
	block(SIG_BLOCK, SIGTERM);
	syscall(SYS_tgkill, getpid(), gettid_(), SIGUSR1);
	kill(getpid(), SIGUSR2);	/* blocked by all: the process's */
	printf("main: USR1 pending %d, USR2 pending %d\n", pending(SIGUSR1),
	    pending(SIGUSR2));
	pthread_create(&t, NULL, pending_worker, NULL);
	pthread_join(t, NULL);
	sigset_t usr2;
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	printf("main takes USR2: %d\n", sigwaitinfo(&usr2, NULL) == SIGUSR2);
	sigset_t none;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	printf("main, unblocked: handled by thread %d\n", wait_handled());

	pid_t other = fork();
	if (other == 0) {
		pause();
		_exit(0);
	}
	printf("tgkill, wrong process: %s\n", syscall(SYS_tgkill, other, tids[0], 0) < 0 ?
	    strerror(errno) : "ok");
	kill(other, SIGKILL);
	waitpid(other, NULL, 0);
	printf("tgkill, right process: %s\n", syscall(SYS_tgkill, getpid(), tids[0], 0) < 0 ?
	    strerror(errno) : "ok");
	done = 1;
	for (int i = 0; i < NTHREADS; i++)
		pthread_join(threads[i], NULL);

	group_stop();
	return 0;
}
