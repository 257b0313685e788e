/*
 * POSIX timers through the system calls (the libcs' timer_t differ):
 * timer_create's checks and ids, SIGEV_SIGNAL's siginfo (SI_TIMER, id,
 * value, overruns), timer_getoverrun, timer_gettime, SIGEV_NONE,
 * TIMER_ABSTIME, SIGEV_THREAD_ID, the CPU-time clocks, the
 * RLIMIT_SIGPENDING limit, and that timers are not inherited by fork
 * nor kept across exec.  Times are bounded loosely: the machine is busy.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "report.h"

#ifndef SIGEV_THREAD_ID
#define SIGEV_THREAD_ID 4
#endif

/* The kernel's struct sigevent. */
struct ksigevent {
	union sigval value;
	int signo;
	int notify;
	union {
		int tid;
		char pad[48];
	};
};

#define SIG	(SIGRTMIN + 2)

static long
tcreate(int clock, struct ksigevent *ev, int *id)
{
	return syscall(SYS_timer_create, clock, ev, id);
}

static long
tset(int id, int flags, long s, long ns, long is, long ins, struct itimerspec *old)
{
	struct itimerspec v = { { is, ins }, { s, ns } };
	return syscall(SYS_timer_settime, id, flags, &v, old);
}

static long
tget(int id, struct itimerspec *cur)
{
	return syscall(SYS_timer_gettime, id, cur);
}

static struct ksigevent
sev(int notify, int signo, int value)
{
	struct ksigevent e;
	memset(&e, 0, sizeof(e));
	e.notify = notify;
	e.signo = signo;
	e.value.sival_int = value;
	return e;
}

/* Waits (5 s at most) for SIG, blocked, and prints its siginfo. */
static siginfo_t
take(const char *what, int id)
{
	sigset_t s;
	siginfo_t si;
	struct timespec to = { 5, 0 };
	sigemptyset(&s);
	sigaddset(&s, SIG);
	memset(&si, 0, sizeof(si));
	int r = sigtimedwait(&s, &si, &to);
	printf("%s: sig %s code %s timerid %s value %d overrun>0 %d\n", what,
	    r == SIG ? "ok" : "none", si.si_code == SI_TIMER ? "SI_TIMER" : "?",
	    si.si_timerid == id ? "ok" : "wrong", si.si_value.sival_int,
	    si.si_overrun > 0);
	return si;
}

static void
cpu_timer(const char *what, int clock)
{
	int id;
	struct ksigevent e = sev(SIGEV_SIGNAL, SIG, 7);
	report(what, tcreate(clock, &e, &id));
	tset(id, 0, 0, 20000000, 0, 0, NULL);
	sigset_t s, p;
	sigemptyset(&s);
	sigaddset(&s, SIG);
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	volatile unsigned long n = 0;
	do {	/* spin until the signal is pending: 20 ms of CPU */
		for (int i = 0; i < 100000; i++)
			n++;
		sigpending(&p);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!sigismember(&p, SIG) && t.tv_sec - t0.tv_sec < 10);
	struct timespec cpu;
	clock_gettime(clock, &cpu);
	printf("%s: cpu >= 20 ms %d\n", what, cpu.tv_sec > 0 || cpu.tv_nsec >= 20000000);
	take(what, id);
	syscall(SYS_timer_delete, id);
}

int
main(int argc, char **argv)
{
	int id, id2;
	struct itimerspec cur;

	if (argc > 1) {	/* after exec */
		report("after exec: gettime 0", tget(0, &cur));
		return 0;
	}
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, SIG);
	sigprocmask(SIG_BLOCK, &s, NULL);

	struct ksigevent e = sev(SIGEV_SIGNAL, SIG, 42);
	report("bad clock", tcreate(99, &e, &id));
	report("monotonic_raw", tcreate(CLOCK_MONOTONIC_RAW, &e, &id));
	struct ksigevent bad = sev(17, SIG, 0);
	report("bad notify", tcreate(CLOCK_MONOTONIC, &bad, &id));
	bad = sev(SIGEV_SIGNAL, 0, 0);
	report("signal 0", tcreate(CLOCK_MONOTONIC, &bad, &id));
	bad = sev(SIGEV_SIGNAL, 65, 0);
	report("signal 65", tcreate(CLOCK_MONOTONIC, &bad, &id));
	bad = sev(SIGEV_THREAD_ID, SIG, 0);
	bad.tid = getppid();
	report("thread of another", tcreate(CLOCK_MONOTONIC, &bad, &id));
	report("bad id pointer", tcreate(CLOCK_MONOTONIC, &e, (int *)8));
	report("gettime of none", tget(12345, &cur));
	report("delete of none", syscall(SYS_timer_delete, 12345));
	report("getoverrun of none", syscall(SYS_timer_getoverrun, 12345));

	report("create", tcreate(CLOCK_MONOTONIC, &e, &id));
	report("create 2", tcreate(CLOCK_REALTIME, NULL, &id2));
	printf("ids: %d %d\n", id, id2);
	report("bad flags", tset(id, 2, 1, 0, 0, 0, NULL));
	report("bad nsec", tset(id, 0, 0, 1000000000, 0, 0, NULL));
	report("negative", tset(id, 0, -1, 0, 0, 0, NULL));

	/* One-shot, 10 ms. */
	report("set 10ms", tset(id, 0, 0, 10000000, 0, 0, NULL));
	take("one-shot", id);
	tget(id, &cur);
	printf("after one-shot: %ld %ld\n", (long)cur.it_value.tv_sec, cur.it_value.tv_nsec);
	report("getoverrun", syscall(SYS_timer_getoverrun, id));

	/* Periodic, 1 ms, the signal blocked for 100 ms: overruns. */
	tset(id, 0, 0, 1000000, 0, 1000000, NULL);
	usleep(100000);
	siginfo_t si = take("periodic", id);
	long ov = syscall(SYS_timer_getoverrun, id);
	printf("getoverrun matches si_overrun %d, >= 20 %d\n", ov == si.si_overrun,
	    ov >= 20);
	tget(id, &cur);
	printf("periodic gettime: interval %ld value <= 1ms %d\n",
	    cur.it_interval.tv_nsec, cur.it_value.tv_sec == 0 && cur.it_value.tv_nsec <= 1000000);
	struct itimerspec old;
	report("disarm", tset(id, 0, 0, 0, 0, 0, &old));
	printf("old interval %ld\n", old.it_interval.tv_nsec);
	tget(id, &cur);
	printf("disarmed: %ld %ld %ld\n", (long)cur.it_value.tv_sec,
	    cur.it_value.tv_nsec, cur.it_interval.tv_nsec);
	/* What came meanwhile goes. */
	struct timespec z = { 0, 0 };
	while (sigtimedwait(&s, NULL, &z) > 0)
		;

	/* Armed for 10 s: the time left. */
	tset(id, 0, 10, 0, 3, 0, NULL);
	tget(id, &cur);
	printf("10s: left in (9,10] %d interval %ld\n",
	    cur.it_value.tv_sec == 9 || (cur.it_value.tv_sec == 10 && cur.it_value.tv_nsec == 0),
	    (long)cur.it_interval.tv_sec);

	/* TIMER_ABSTIME in the past: at once. */
	report("abstime past", tset(id, TIMER_ABSTIME, 0, 1, 0, 0, NULL));
	take("abstime", id);

	/* The default event: SIGALRM with the id as value. */
	signal(SIGALRM, SIG_IGN);
	sigset_t a;
	sigemptyset(&a);
	sigaddset(&a, SIGALRM);
	sigprocmask(SIG_BLOCK, &a, NULL);
	tset(id2, 0, 0, 1000000, 0, 0, NULL);
	siginfo_t ai;
	struct timespec to = { 5, 0 };
	int r = sigtimedwait(&a, &ai, &to);
	printf("default: %s value is id %d\n", r == SIGALRM ? "SIGALRM" : "none",
	    ai.si_value.sival_int == id2);

	/* SIGEV_NONE: nothing comes, the time runs. */
	int idn;
	struct ksigevent en = sev(SIGEV_NONE, 0, 0);
	report("create none", tcreate(CLOCK_MONOTONIC, &en, &idn));
	/* Armed for 5 s: a guest held off its CPU (a loaded host) for the
	 * 5 ms this once was found it expired already. */
	tset(idn, 0, 5, 0, 0, 0, NULL);
	tget(idn, &cur);
	printf("none armed: %d\n", cur.it_value.tv_sec > 0 || cur.it_value.tv_nsec > 0);
	tset(idn, 0, 0, 5000000, 0, 0, NULL);
	usleep(20000);
	tget(idn, &cur);
	printf("none expired: %ld\n", cur.it_value.tv_nsec);
	tset(idn, 0, 0, 5000000, 0, 3000000, NULL);
	usleep(20000);
	tget(idn, &cur);
	printf("none periodic: in (0,3ms] %d\n", cur.it_value.tv_nsec > 0 &&
	    cur.it_value.tv_nsec <= 3000000);

	/* SIGEV_THREAD_ID: to this thread. */
	int idt;
	struct ksigevent et = sev(SIGEV_THREAD_ID, SIG, 9);
	et.tid = (int)syscall(SYS_gettid);
	report("create thread_id", tcreate(CLOCK_BOOTTIME, &et, &idt));
	tset(idt, 0, 0, 1000000, 0, 0, NULL);
	take("thread_id", idt);

	cpu_timer("process cpu", CLOCK_PROCESS_CPUTIME_ID);
	cpu_timer("thread cpu", CLOCK_THREAD_CPUTIME_ID);

	/* Not inherited by fork; the limit. */
	fflush(stdout);
	pid_t c = fork();
	if (c == 0) {
		report("child: gettime", tget(id, &cur));
		/*
		 * Timers count among the user's pending signals, machine-wide:
		 * only a limit of 0 refuses the first one everywhere.
		 */
		struct rlimit rl = { 0, 0 };
		setrlimit(RLIMIT_SIGPENDING, &rl);
		int x;
		report("child: create past RLIMIT_SIGPENDING", tcreate(CLOCK_MONOTONIC, &e, &x));
		fflush(stdout);
		_exit(0);
	}
	int st;
	waitpid(c, &st, 0);
	report("delete", syscall(SYS_timer_delete, id));
	report("delete again", syscall(SYS_timer_delete, id));
	tset(id2, 0, 100, 0, 0, 0, NULL);
	fflush(stdout);
	c = fork();
	if (c == 0) {
		execl("/proc/self/exe", argv[0], "x", (char *)NULL);
		_exit(127);
	}
	waitpid(c, &st, 0);
	return 0;
}
