/*
 * The end of the vkernel process (see hostexit.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "host/hostexit.h"

#define NFATAL_FN	4

static const int fatal_sigs[] = {
	SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGPIPE, SIGALRM,
	SIGUSR2, SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF, SIGSYS,
};
static struct sigaction old_act[NSIG];
static void (*fatal_fn[NFATAL_FN])(void);
static int nfatal_fn;

/*
 * A fatal signal: the functions first, then the signal's own course
 * under the action it had.  A fault the CPU raised happens again on
 * return; any other is sent again.
 */
static void
fatal_run(void)
{
	for (int i = 0; i < __atomic_load_n(&nfatal_fn, __ATOMIC_ACQUIRE); i++)
		fatal_fn[i]();
}

static void
fatal_handler(int sig, siginfo_t *si, void *uc)
{
	(void)uc;
	fatal_run();
	sigaction(sig, &old_act[sig], NULL);
	bool fault = sig == SIGSEGV || sig == SIGBUS || sig == SIGILL ||
	    sig == SIGFPE;
	if (!fault || si == NULL || si->si_code <= 0)
		raise(sig);
}

static void
fatal_install(void)
{
	for (unsigned i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++) {
		struct sigaction sa;
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = fatal_handler;
		sa.sa_flags = SA_SIGINFO;
		sigemptyset(&sa.sa_mask);
		int sig = fatal_sigs[i];
		if (sigaction(sig, NULL, &old_act[sig]) < 0 ||
		    old_act[sig].sa_handler == SIG_IGN)
			continue;
		/*
		 * A handler someone else put there (a sanitizer's) is chained
		 * to for the faults and abort, which end the process anyway;
		 * on the others (a profiler's SIGPROF) it is left alone.
		 */
		if (old_act[sig].sa_handler != SIG_DFL && sig != SIGSEGV &&
		    sig != SIGBUS && sig != SIGILL && sig != SIGFPE && sig != SIGABRT)
			continue;
		(void)sigaction(sig, &sa, NULL);
	}
}

int
host_on_fatal(void (*fn)(void))
{
	if (nfatal_fn == NFATAL_FN)
		return -1;
	fatal_fn[nfatal_fn] = fn;
	__atomic_store_n(&nfatal_fn, nfatal_fn + 1, __ATOMIC_RELEASE);
	if (nfatal_fn == 1)
		fatal_install();
	return 0;
}

int
host_reexec(char *const argv[])
{
	fflush(NULL);
	execv("/proc/self/exe", argv);
	return -errno;
}

void
host_exit_fatal(int status)
{
	fatal_run();
	_exit(status);
}
