/*
 * A forged trap report with a base the host cannot load: the guest writes
 * a non-canonical FS base into its stub's trap record and posts the
 * record itself, as if its handler had.  The kernel must kill that
 * process (SIGKILL) and go on; it once panicked.  The record's layout is
 * the trap backend's (host/trap/stub_abi.h), so this runs inside only.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define STUB_THREAD	0x7fff00111000UL	/* STUB_THREAD in stub_abi.h */
#define REQ_OFF		0
#define FSBASE_OFF	40
#define WW_POSTED	1

int
main(void)
{
	pid_t pid = fork();
	if (pid == 0) {
		volatile uint64_t *fs = (uint64_t *)(STUB_THREAD + FSBASE_OFF);
		uint32_t *req = (uint32_t *)(STUB_THREAD + REQ_OFF);
		/*
		 * A fresh, valid frame to forge over: by syscall(), which no
		 * patch turns into a trampoline's report (sys/sys_patch.c).
		 */
		syscall(SYS_getppid);
		*fs = 0x8000000000000000UL;
		__atomic_fetch_or(req, WW_POSTED, __ATOMIC_SEQ_CST);
		for (;;)
			__asm__ volatile ("pause");
	}
	int status;
	if (waitpid(pid, &status, 0) != pid) {
		printf("FAIL waitpid\n");
		return 1;
	}
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
		printf("FAIL forged base: status %#x, not SIGKILL\n", status);
		return 1;
	}
	printf("ok   forged base: child killed, kernel up\n");
	return 0;
}
