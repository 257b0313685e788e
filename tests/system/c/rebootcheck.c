/* reboot(2)'s argument checks and its permission, then a power-off. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/reboot.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *
result(long r)
{
	static char buf[32];
	if (r == 0)
		return "0";
	snprintf(buf, sizeof(buf), "%s", errno == EINVAL ? "EINVAL" :
	    errno == EPERM ? "EPERM" : strerror(errno));
	return buf;
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	printf("bad magic: %s\n", result(syscall(SYS_reboot, 0xfee1deadU,
	    12345, RB_POWER_OFF, 0)));
	printf("bad command: %s\n", result(syscall(SYS_reboot, 0xfee1deadU,
	    672274793, 0x12345678, 0)));
	pid_t pid = fork();
	if (pid == 0) {
		if (setuid(1000) < 0)
			_exit(1);
		printf("non-root: %s\n", result(syscall(SYS_reboot, 0xfee1deadU,
		    672274793, RB_POWER_OFF, 0)));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("cad off: %s\n", result(reboot(RB_DISABLE_CAD)));
	printf("power off: never returns\n");
	reboot(RB_POWER_OFF);
	printf("power off returned (%s)\n", strerror(errno));
	return 1;
}
