/*
 * vkernel: boot.  Parses the options (after DragonFly's vkernel(7) where
 * it has one), brings up the host layer (RAM, virtual CPUs, the event
 * thread) and hands the machine to the kernel.
 *
 * PID 1 is /sbin/init, or the command after "--"; vkernel exits with its
 * status (128 + the signal if it was killed), so it can be scripted.
 * halt and power off exit with 0; a reboot executes the vkernel again
 * with the same arguments, in the same process, as DragonFly's does
 * (docs/vkernel.8).
 */
#include <err.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sysexits.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dev/vkd.h"
#include "dev/vke.h"
#include "host/cpu.h"
#include "host/cons_host.h"
#include "host/hostexit.h"
#include "host/hostfile.h"
#include "host/hostlog.h"
#include "host/intr.h"
#include "host/physmem.h"
#include "host/vmspace_backend.h"
#include "kern/init.h"
#include "kern/kernel.h"
#include "sys/sys_trace.h"

/* Stubs kept ready per CPU, so that fork does not wait for one. */
#define VMSPACE_POOL	4

/* The arguments as given, for a reboot (getopt may permute argv). */
static char **saved_argv;

static void
usage(FILE *f)
{
	fprintf(f,
"usage: vkernel [-Dhv] [-m size] [-i memimage] [-n ncpus] [-l latency|density]\n"
"               [-r diskimage[:ro]]... [-I interface]... [-p pidfile]\n"
"               [-e name=value] [--initramfs file.cpio] [--backend trap]\n"
"               [--strace[=spec]] [--patch=on|off] [-- init [args...]]\n"
"  -h, --help   this list\n"
"  -m size      RAM (k, m, g suffixes; default 256m)\n"
"  -i file      back RAM with this file instead of anonymous memory\n"
"  -n ncpus     virtual CPUs (default 1)\n"
"  -l place     latency: CPUs and guests on separate cores, spinning;\n"
"               density: each CPU and its guests share one core\n"
"  -r image     disk image, vkd0, vkd1... (repeatable; image:ro: read-only)\n"
"  -I if        network interface vke0, vke1... (repeatable):\n"
"               tapN[:addr[/len]] or tapN:hostaddr:addr[/len] (a host tap),\n"
"               slirp[,hostfwd=tcp:[hostaddr]:port-:port][,restrict=on]\n"
"               (user-mode NAT, guest 10.0.2.15); options ,gw=addr,\n"
"               ,dhcp (no address: the guest's udhcpc asks for one)\n"
"  -p file      write the vkernel's pid to file, locked while it runs;\n"
"               removed when it exits\n"
"  -e name=val  kernel environment variable (accepted, not used yet)\n"
"  -v           verbose: every kernel message on standard error as it\n"
"               is logged (else errors only), and host-layer debug lines\n"
"  -D           enter the debugger (ddb) at boot; SIGINT or ~^B enter it later\n"
"  --initramfs f  root file system from a cpio newc archive\n"
"  --backend b  the vmspace backend (trap)\n"
"  --strace[=file=F,trace=LIST]  every guest system call on standard error\n"
"               (or F), as strace prints it; LIST as strace's -e trace=\n"
"  --patch=on|off  rewrite guests' \"mov $nr,%%eax; syscall\" into jumps to a\n"
"               trampoline that needs no host signal (default: on)\n"
"See vkernel(8) (docs/vkernel.8).\n");
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "backend", required_argument, NULL, 'B' },
		{ "initramfs", required_argument, NULL, 'R' },
		{ "help", no_argument, NULL, 'h' },
		{ "strace", optional_argument, NULL, 'S' },
		{ "patch", required_argument, NULL, 'P' },
		{ NULL, 0, NULL, 0 },
	};
	saved_argv = calloc((size_t)argc + 1, sizeof(char *));
	if (saved_argv == NULL)
		err(EX_OSERR, "arguments");
	memcpy(saved_argv, argv, (size_t)argc * sizeof(char *));
	uint64_t ramsize = PHYSMEM_DEFAULT;
	const char *memimage = NULL, *pidfile = NULL, *initramfs = NULL;
	int ncpus = 1, place = CPU_PLACE_LATENCY, patch = -1, c, ddb = 0;
	const char *why;
	int64_t v;

	while ((c = getopt_long(argc, argv, "+Dhvm:i:n:l:r:I:p:e:", longopts,
	    NULL)) != -1) {
		switch (c) {
		case 'm':
			v = physmem_parse_size(optarg);
			if (v <= 0 || (v & (int64_t)PAGE_MASK))
				errx(EX_USAGE, "-m %s: not a size in pages", optarg);
			ramsize = (uint64_t)v;
			break;
		case 'i':
			memimage = optarg;
			break;
		case 'n':
			ncpus = atoi(optarg);
			if (ncpus < 1 || ncpus > MAXCPU)
				errx(EX_USAGE, "-n %s: between 1 and %d", optarg, MAXCPU);
			break;
		case 'l':
			place = cpu_placement_parse(optarg);
			if (place < 0)
				errx(EX_USAGE, "-l %s: latency or density", optarg);
			break;
		case 'r':
			if (vkd_config(optarg, &why) < 0)
				errx(EX_NOINPUT, "-r %s: %s", optarg, why);
			break;
		case 'I':
			if (vke_config(optarg, &why) < 0)
				errx(EX_USAGE, "-I %s: %s", optarg, why);
			break;
		case 'p':
			pidfile = optarg;
			break;
		case 'e':
			if (strchr(optarg, '=') == NULL)
				errx(EX_USAGE, "-e %s: expected name=value", optarg);
			break;
		case 'v':
			host_verbose = 1;
			console_loglevel = CONSOLE_LOGLEVEL_VERBOSE;
			break;
		case 'D':
			ddb = 1;
			break;
		case 'B':
			if (vmspace_backend_select(optarg) < 0)
				errx(EX_USAGE, "--backend %s: no such backend", optarg);
			break;
		case 'R':
			initramfs = optarg;
			break;
		case 'S':
			if (strace_config(optarg != NULL ? optarg : "", &why) < 0)
				errx(EX_USAGE, "--strace=%s: %s", optarg, why);
			break;
		case 'P':
			if (strcmp(optarg, "on") == 0)
				patch = 1;
			else if (strcmp(optarg, "off") == 0)
				patch = 0;
			else
				errx(EX_USAGE, "--patch=%s: on or off", optarg);
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EX_USAGE;
		}
	}

	if (pidfile != NULL) {
		long holder = 0;
		int error = host_pidfile(pidfile, &holder);
		if (error == -EBUSY)
			errx(EX_UNAVAILABLE, "-p %s: held by a running vkernel, pid %ld",
			    pidfile, holder);
		if (error < 0)
			errx(EX_CANTCREAT, "-p %s: %s", pidfile, strerror(-error));
	}
	if (physmem_init(ramsize, memimage) < 0)
		err(EX_OSERR, "RAM of %llu bytes%s%s", (unsigned long long)ramsize,
		    memimage ? " in " : "", memimage ? memimage : "");
	if (cpu_configure(ncpus, place, 100) < 0)
		err(EX_OSERR, "virtual CPUs");
	/*
	 * Patching saves the host signal of each call in both placements,
	 * for a page or two of RAM per process (docs/design.md, "Patched
	 * system calls").
	 */
	vmspace_patch_enable(patch != 0);
	if (intr_start() < 0)
		err(EX_OSERR, "event thread");
	kprintf("vkernel: %llu MiB RAM, %d CPU%s, %s placement, %s backend\n",
	    (unsigned long long)(ramsize >> 20), ncpus, ncpus > 1 ? "s" : "",
	    cpu_placement_name(place), vmspace_backend_name());

	static char *const default_init[] = { "/sbin/init", NULL };
	struct boot_args ba = {
		.initramfs = initramfs,
		.init_argv = optind < argc ? argv + optind : default_init,
		.ddb = ddb,
	};
	if (vmspace_pool(VMSPACE_POOL) < 0)
		warn("no stubs kept ready; each fork will start one");
	int status = kernel_main(&ba);
	vmspace_pool(0);
	intr_stop();
	if (status >= 0 && kern_shutdown_restart()) {
		/* The disks were flushed by the shutdown; exec closes them. */
		host_log("rebooting");
		cons_host_finish();
		int error = host_reexec(saved_argv);
		errx(EX_OSERR, "reboot: cannot execute /proc/self/exe: %s",
		    strerror(-error));
	}
	if (status < 0)
		return EX_SOFTWARE;
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}
