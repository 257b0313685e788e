/*
 * Process-directed signals with threads: kill() to the process goes to
 * the one thread that does not block it; when all block it, it is
 * pending for all and sigwaitinfo in one takes it (SI_USER, the
 * sender's pid); a fatal signal, to the process or to one thread, ends
 * the whole process.
 */
#include "thr.h"
#include <semaphore.h>
#include <signal.h>
#include <sys/wait.h>

#define NTHR	4

static volatile pid_t handler_tid;
static volatile sig_atomic_t got;
static pid_t tids[NTHR];
static sem_t ready, proceed;
static int open_one;
static pthread_barrier_t looked;

static void
handler(int sig)
{
	(void)sig;
	handler_tid = thr_gettid();
	got = 1;
}

/*
 * Thread id: all block SIGUSR1 (as main does); thread open_one waits in
 * sigsuspend with it open, the others in sem_wait.
 */
static void *
member(void *arg)
{
	int id = (int)(long)arg;
	sigset_t empty;
	tids[id] = thr_gettid();
	sem_post(&ready);
	if (id == open_one) {
		sigemptyset(&empty);
		while (!got)
			sigsuspend(&empty);
	} else {
		sem_wait(&proceed);
	}
	return NULL;
}

/* All block SIGUSR2: each reports whether it is pending; then 1 takes it. */
static void *
all_blocked(void *arg)
{
	int id = (int)(long)arg;
	sigset_t set, pend;
	siginfo_t si;
	long r = 0;
	sem_post(&ready);
	sem_wait(&proceed);
	sigpending(&pend);
	r |= sigismember(&pend, SIGUSR2);
	pthread_barrier_wait(&looked);
	if (id == 1) {
		sigemptyset(&set);
		sigaddset(&set, SIGUSR2);
		if (sigwaitinfo(&set, &si) == SIGUSR2)
			r |= (si.si_code == SI_USER && si.si_pid == getpid()) << 1;
	}
	return (void *)r;
}

static void *
forever(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

/* A child of four threads, ended by SIGTERM: to the process or to one. */
static int
fatal(int to_thread)
{
	int p[2], st = -1;
	pipe(p);
	pid_t pid = fork();
	if (pid == 0) {
		pthread_t t[NTHR];
		for (int i = 0; i < NTHR; i++)
			thr_create(&t[i], NULL, forever, NULL);
		write(p[1], "x", 1);
		if (to_thread)
			pthread_kill(t[2], SIGTERM);
		for (;;)
			pause();
	}
	char c;
	read(p[0], &c, 1);
	if (!to_thread)
		kill(pid, SIGTERM);
	waitpid(pid, &st, 0);
	close(p[0]);
	close(p[1]);
	return WIFSIGNALED(st) ? WTERMSIG(st) : -1;
}

int
main(void)
{
	pthread_t t[NTHR];
	sigset_t set;

	thr_init();
	sem_init(&ready, 0, 0);
	sem_init(&proceed, 0, 0);
	signal(SIGUSR1, handler);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	for (open_one = 0; open_one < NTHR; open_one += 3) {
		got = 0;
		handler_tid = 0;
		for (long i = 0; i < NTHR; i++)
			thr_create(&t[i], NULL, member, (void *)i);
		for (int i = 0; i < NTHR; i++)
			sem_wait(&ready);
		thr_sleep_ms(20);
		kill(getpid(), SIGUSR1);
		thr_join(t[open_one]);
		for (int i = 0; i < NTHR - 1; i++)
			sem_post(&proceed);
		for (int i = 0; i < NTHR; i++)
			if (i != open_one)
				thr_join(t[i]);
		printf("kill to the process, thread %d alone open: handled by thread %d\n",
		    open_one, handler_tid == tids[open_one] ? open_one : -1);
	}

	pthread_barrier_init(&looked, NULL, NTHR);
	for (long i = 0; i < NTHR; i++)
		thr_create(&t[i], NULL, all_blocked, (void *)i);
	for (int i = 0; i < NTHR; i++)
		sem_wait(&ready);
	kill(getpid(), SIGUSR2);
	for (int i = 0; i < NTHR; i++)
		sem_post(&proceed);
	long seen = 0, r1 = 0;
	for (int i = 0; i < NTHR; i++) {
		long r = (long)thr_join(t[i]);
		seen += r & 1;
		if (i == 1)
			r1 = r;
	}
	EXPECT(seen, NTHR, "all blocking: pending for each thread");
	EXPECT(r1 & 2, 2, "sigwaitinfo in one takes it: SI_USER, our pid");
	sigpending(&set);
	EXPECT(sigismember(&set, SIGUSR2), 0, "then pending no more");

	EXPECT(fatal(0), SIGTERM, "SIGTERM to a process of four threads ends it");
	EXPECT(fatal(1), SIGTERM, "SIGTERM to one of its threads ends it");
	return thr_exit_status();
}
