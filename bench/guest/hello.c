/*
 * Boot-to-init: an init that prints one line and powers off (as PID 1;
 * vkernel's init may simply exit). bench/bootwatch times the line.
 */
#include <string.h>
#include <sys/reboot.h>
#include <unistd.h>

int
main(void)
{
	static const char line[] = "kbench-init: first line\n";
	if (write(1, line, strlen(line)) < 0)
		return 1;
	if (getpid() == 1)
		reboot(RB_POWER_OFF);
	return 0;
}
