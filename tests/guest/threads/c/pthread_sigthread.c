/*
 * Thread-directed signals: pthread_kill and tgkill run the handler in
 * the thread named (SI_TKILL), a signal sent to a thread that blocks it
 * stays pending for that thread alone until sigwait takes it, a new
 * thread inherits its creator's mask, and pthread_kill with signal 0
 * checks a live thread.
 */
#include "thr.h"
#include <semaphore.h>
#include <signal.h>

static volatile pid_t handler_tid;
static volatile int handler_code;
static volatile sig_atomic_t got;
static sem_t ready, proceed;
static pid_t target_tid;

static void
handler(int sig, siginfo_t *si, void *uc)
{
	(void)sig;
	(void)uc;
	handler_tid = thr_gettid();
	handler_code = si->si_code;
	got = 1;
}

/* Blocks SIGUSR1, then waits for it in sigsuspend. */
static void *
suspender(void *arg)
{
	sigset_t set, empty;
	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	target_tid = thr_gettid();
	sem_post(&ready);
	sigemptyset(&empty);
	while (!got)
		sigsuspend(&empty);
	return NULL;
}

/* Blocks SIGUSR2; once told, reports what is pending and takes it. */
static void *
blocker(void *arg)
{
	sigset_t set, pend;
	int sig = 0;
	long r = 0;
	(void)arg;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	sem_post(&ready);
	sem_wait(&proceed);
	sigpending(&pend);
	r |= sigismember(&pend, SIGUSR2) << 0;
	r |= (sigwait(&set, &sig) == 0 && sig == SIGUSR2) << 1;
	sigpending(&pend);
	r |= !sigismember(&pend, SIGUSR2) << 2;
	return (void *)r;
}

static void *
report_mask(void *arg)
{
	sigset_t cur;
	(void)arg;
	pthread_sigmask(SIG_BLOCK, NULL, &cur);
	return (void *)(long)(sigismember(&cur, SIGUSR1) * 2 + sigismember(&cur, SIGUSR2));
}

/* Starts a suspender and sends it SIGUSR1: pthread_kill (how 0) or tgkill. */
static void
aim(int how)
{
	pthread_t t;
	handler_tid = 0;
	got = 0;
	thr_create(&t, NULL, suspender, NULL);
	sem_wait(&ready);
	if (how == 0)
		pthread_kill(t, SIGUSR1);
	else
		syscall(SYS_tgkill, getpid(), target_tid, SIGUSR1);
	thr_join(t);
}

int
main(void)
{
	struct sigaction sa;
	pthread_t t;
	sigset_t set, pend;

	thr_init();
	sem_init(&ready, 0, 0);
	sem_init(&proceed, 0, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGUSR1, &sa, NULL);

	aim(0);
	CHECK(handler_tid == target_tid, "pthread_kill: the handler runs in the thread named");
	EXPECT(handler_code, SI_TKILL, "pthread_kill: si_code SI_TKILL");
	aim(1);
	CHECK(handler_tid == target_tid, "tgkill: the handler runs in the thread named");
	EXPECT(handler_code, SI_TKILL, "tgkill: si_code SI_TKILL");

	thr_create(&t, NULL, blocker, NULL);
	sem_wait(&ready);
	EXPECT(pthread_kill(t, 0), 0, "pthread_kill, signal 0, of a live thread");
	EXPECT(pthread_kill(t, SIGUSR2), 0, "pthread_kill of a thread that blocks it");
	thr_sleep_ms(20);
	sigpending(&pend);
	EXPECT(sigismember(&pend, SIGUSR2), 0, "not pending for the other threads");
	sem_post(&proceed);
	EXPECT((long)thr_join(t), 7, "pending for it, sigwait takes it, then not pending");

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	thr_create(&t, NULL, report_mask, NULL);
	EXPECT((long)thr_join(t), 2, "a new thread inherits its creator's mask");
	pthread_sigmask(SIG_UNBLOCK, &set, NULL);
	thr_create(&t, NULL, report_mask, NULL);
	EXPECT((long)thr_join(t), 0, "and its unblocking");
	return thr_exit_status();
}
