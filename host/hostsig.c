/*
 * Signals to the vkernel process (see hostsig.h).
 */
#include <signal.h>
#include <string.h>

#include "cpu.h"
#include "hostsig.h"

static uint64_t caught;

static void
host_signal_handler(int sig)
{
	__atomic_fetch_or(&caught, 1ULL << sig, __ATOMIC_SEQ_CST);
	struct vcpu *cpu = cpu_get(0);
	if (cpu != NULL)
		cpu_post(cpu, INTR_SIGNAL);
}

int
host_signals_init(void)
{
	static const int sigs[] = { SIGINT, SIGQUIT, SIGTSTP, SIGTERM, SIGHUP,
	    SIGWINCH, SIGCONT };
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = host_signal_handler;
	sigemptyset(&sa.sa_mask);
	for (unsigned i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		/* nohup: an ignored SIGHUP stays ignored. */
		if (sigs[i] == SIGHUP && sigaction(SIGHUP, NULL, &old) == 0 &&
		    old.sa_handler == SIG_IGN)
			continue;
		if (sigaction(sigs[i], &sa, NULL) < 0)
			return -1;
	}
	return 0;
}

uint64_t
host_signals_take(void)
{
	return __atomic_exchange_n(&caught, 0, __ATOMIC_SEQ_CST);
}
