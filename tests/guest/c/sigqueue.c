/*
 * Queued signals: real-time signals queue each instance with its value
 * and come lowest-numbered first, standard ones before them; a standard
 * signal pending twice is taken once; the siginfo of kill, raise, tgkill,
 * sigqueue and rt_tgsigqueueinfo; rt_sigqueueinfo's EPERM; the queue's
 * RLIMIT_SIGPENDING (EAGAIN); rt_sigpending.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define RT(n)	(SIGRTMIN + (n))	/* the libc's: 34 or 35 and up */

static pid_t me;
static int order[64], norder;
static siginfo_t infos[64];

static void
handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	if (norder < 64) {
		order[norder] = sig;
		infos[norder++] = *si;
	}
}

static const char *
code_name(int code)
{
	switch (code) {
	case SI_USER:	return "SI_USER";
	case SI_TKILL:	return "SI_TKILL";
	case SI_QUEUE:	return "SI_QUEUE";
	case SI_KERNEL:	return "SI_KERNEL";
	default:	return "?";
	}
}

/* A signal as the reader sees it: RT+n for a real-time one. */
static void
signame(char *buf, size_t len, int sig)
{
	if (sig >= SIGRTMIN)
		snprintf(buf, len, "RT+%d", sig - SIGRTMIN);
	else
		snprintf(buf, len, "%d", sig);
}

static void
show_taken(const char *what)
{
	printf("%s:", what);
	for (int i = 0; i < norder; i++) {
		char n[16];
		signame(n, sizeof(n), order[i]);
		printf(" %s", n);
		if (infos[i].si_code == SI_QUEUE)
			printf("=%d", infos[i].si_value.sival_int);
	}
	printf("\n");
	norder = 0;
}

static void
show_info(const char *what, const siginfo_t *si)
{
	char n[16];
	signame(n, sizeof(n), si->si_signo);
	printf("%s: signo %s, code %s, pid %s, uid %d", what, n,
	    code_name(si->si_code), si->si_pid == me ? "mine" :
	    si->si_pid == 0 ? "0" : "other", (int)si->si_uid);
	if (si->si_code == SI_QUEUE)
		printf(", value %d", si->si_value.sival_int);
	printf("\n");
}

static void
catch(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = handler;
	sa.sa_flags = SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

static void
block(int sig, int how)
{
	sigset_t s;
	sigemptyset(&s);
	sigaddset(&s, sig);
	sigprocmask(how, &s, NULL);
}

static int
queue(pid_t pid, int sig, int value)
{
	union sigval v = { .sival_int = value };
	return sigqueue(pid, sig, v);
}

static void
try(const char *what, long r)
{
	printf("%s: %s\n", what, r < 0 ? strerror(errno) : "ok");
}

int
main(void)
{
	sigset_t all, none, pend;
	setvbuf(stdout, NULL, _IONBF, 0);
	me = getpid();
	sigfillset(&all);
	sigemptyset(&none);

	/* Several real-time signals, several values each, all blocked. */
	for (int i = 0; i < 4; i++)
		catch(RT(i));
	catch(SIGUSR1);
	catch(SIGUSR2);
	sigprocmask(SIG_BLOCK, &all, NULL);
	queue(me, RT(2), 20);
	queue(me, RT(0), 1);
	queue(me, RT(2), 21);
	kill(me, SIGUSR2);
	queue(me, RT(0), 2);
	queue(me, RT(1), 10);
	kill(me, SIGUSR1);
	kill(me, SIGUSR1);	/* coalesces */
	queue(me, RT(0), 3);
	sigpending(&pend);
	printf("pending: USR1 %d, USR2 %d, RT+0 %d, RT+3 %d\n",
	    sigismember(&pend, SIGUSR1), sigismember(&pend, SIGUSR2),
	    sigismember(&pend, RT(0)), sigismember(&pend, RT(3)));
	sigprocmask(SIG_SETMASK, &none, NULL);
	show_taken("taken");

	/* The siginfo of each way to send. */
	sigprocmask(SIG_BLOCK, &all, NULL);
	kill(me, SIGUSR1);
	sigprocmask(SIG_SETMASK, &none, NULL);
	show_info("kill", &infos[0]);
	norder = 0;
	raise(SIGUSR1);
	show_info("raise", &infos[0]);
	norder = 0;
	syscall(SYS_tgkill, me, (pid_t)syscall(SYS_gettid), SIGUSR2);
	show_info("tgkill", &infos[0]);
	norder = 0;
	queue(me, RT(3), 77);
	show_info("sigqueue", &infos[0]);
	norder = 0;
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	si.si_code = SI_QUEUE;
	si.si_pid = me;
	si.si_uid = getuid();
	si.si_value.sival_int = 88;
	try("rt_tgsigqueueinfo", syscall(SYS_rt_tgsigqueueinfo, me,
	    (pid_t)syscall(SYS_gettid), RT(3), &si));
	show_info("rt_tgsigqueueinfo", &infos[0]);
	norder = 0;
	/* A standard signal queued with a value keeps it. */
	queue(me, SIGUSR2, 5);
	show_info("sigqueue USR2", &infos[0]);
	norder = 0;

	/* Claiming the kernel's codes: only to itself. */
	pid_t child = fork();
	if (child == 0) {
		block(SIGUSR1, SIG_BLOCK);
		pause();
		_exit(0);
	}
	si.si_code = SI_USER;
	try("rt_sigqueueinfo SI_USER to self",
	    syscall(SYS_rt_sigqueueinfo, me, SIGUSR1, &si));
	norder = 0;
	try("rt_sigqueueinfo SI_USER to another",
	    syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si));
	si.si_code = SI_TKILL;
	try("rt_sigqueueinfo SI_TKILL to another",
	    syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si));
	si.si_code = SI_KERNEL;
	try("rt_sigqueueinfo SI_KERNEL to another",
	    syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si));
	si.si_code = SI_QUEUE;
	try("rt_sigqueueinfo SI_QUEUE to another",
	    syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, &si));
	try("rt_sigqueueinfo bad signal",
	    syscall(SYS_rt_sigqueueinfo, child, 65, &si));
	try("rt_sigqueueinfo no such process",
	    syscall(SYS_rt_sigqueueinfo, 0x7ffffff0, SIGUSR1, &si));
	try("rt_sigqueueinfo bad info",
	    syscall(SYS_rt_sigqueueinfo, child, SIGUSR1, (void *)16));
	try("rt_tgsigqueueinfo tid 0",
	    syscall(SYS_rt_tgsigqueueinfo, me, 0, SIGUSR1, &si));
	try("rt_tgsigqueueinfo wrong tgid",
	    syscall(SYS_rt_tgsigqueueinfo, child, me, SIGUSR1, &si));
	kill(child, SIGKILL);
	waitpid(child, NULL, 0);

	/*
	 * RLIMIT_SIGPENDING: real-time signals with values stop at the
	 * limit; kill's still goes (without its siginfo); a standard one
	 * too.  In a child of its own user, so that nothing else of the
	 * user's is queued.
	 */
	child = fork();
	if (child == 0) {
		struct rlimit rl = { 5, 5 };
		if (setrlimit(RLIMIT_SIGPENDING, &rl) < 0 || setuid(4321) < 0) {
			perror("setrlimit/setuid");
			_exit(1);
		}
		sigprocmask(SIG_BLOCK, &all, NULL);
		int n = 0;
		while (n < 100 && queue(getpid(), RT(1), n) == 0)
			n++;
		printf("queued past none: %d, then %s\n", n, strerror(errno));
		try("kill of a real-time signal past the limit", kill(getpid(), RT(2)));
		try("sigqueue of a standard one", queue(getpid(), SIGUSR1, 9));
		catch(RT(1));
		catch(RT(2));
		catch(SIGUSR1);
		sigprocmask(SIG_SETMASK, &none, NULL);
		show_taken("taken");
		/* The queue is free again. */
		try("sigqueue after", queue(getpid(), RT(1), 100));
		_exit(0);
	}
	int status;
	waitpid(child, &status, 0);
	printf("child: status %#x\n", status);
	return 0;
}
