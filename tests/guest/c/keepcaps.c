/*
 * prctl's capability options: PR_SET_KEEPCAPS/PR_GET_KEEPCAPS (a process
 * that leaves root keeps its permitted set; an exec forgets the flag)
 * and PR_CAPBSET_READ/PR_CAPBSET_DROP (the bounding set, inherited and
 * kept across exec, bounds what an exec permits root).  Only capabilities
 * this host's sandbox leaves in its own bounding set are looked at.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "report.h"

struct hdr { uint32_t version; int pid; };
struct data { uint32_t effective, permitted, inheritable; };
#define CAP_CHOWN	0
#define CAP_NET_RAW	13

/* Capability cap in the effective and permitted sets. */
static void
caps(const char *what, int cap)
{
	struct hdr h = { 0x20080522, 0 };
	struct data d[2];
	syscall(SYS_capget, &h, d);
	printf("%s: cap %d effective %d permitted %d\n", what, cap,
	    (d[cap / 32].effective >> (cap % 32)) & 1,
	    (d[cap / 32].permitted >> (cap % 32)) & 1);
}

static void
wait1(pid_t c)
{
	int st;
	waitpid(c, &st, 0);
}

int
main(int argc, char **argv)
{
	if (argc > 1) {	/* after an exec by root with keepcaps and a drop */
		report("exec: keepcaps", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
		report("exec: bset net_raw", prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0, 0, 0));
		report("exec: bset chown", prctl(PR_CAPBSET_READ, CAP_CHOWN, 0, 0, 0));
		caps("exec", CAP_NET_RAW);
		caps("exec", CAP_CHOWN);
		return 0;
	}
	report("keepcaps", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
	report("set keepcaps 2", prctl(PR_SET_KEEPCAPS, 2, 0, 0, 0));
	report("bset read chown", prctl(PR_CAPBSET_READ, CAP_CHOWN, 0, 0, 0));
	report("bset read 64", prctl(PR_CAPBSET_READ, 64, 0, 0, 0));
	report("bset read -1", prctl(PR_CAPBSET_READ, -1L, 0, 0, 0));
	report("bset drop 64", prctl(PR_CAPBSET_DROP, 64, 0, 0, 0));
	report("securebits", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
	report("ambient is_set", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, CAP_CHOWN, 0, 0));
	report("ambient is_set 64", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_IS_SET, 64, 0, 0));
	report("ambient lower", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_CHOWN, 0, 0));
	report("ambient clear_all", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0));
	report("ambient clear_all arg", prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 1, 0, 0));
	report("ambient bad op", prctl(PR_CAP_AMBIENT, 9, 0, 0, 0));
	fflush(stdout);

	/* Keepcaps across leaving root; without it the sets go. */
	for (int keep = 0; keep <= 1; keep++) {
		pid_t c = fork();
		if (c == 0) {
			report("set keepcaps", prctl(PR_SET_KEEPCAPS, keep, 0, 0, 0));
			report("get keepcaps", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
			report("securebits", prctl(PR_GET_SECUREBITS, 0, 0, 0, 0));
			syscall(SYS_setresuid, 1000, 1000, 1000);
			caps(keep ? "user, kept" : "user", CAP_CHOWN);
			report("user: keepcaps", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
			report("user: bset drop", prctl(PR_CAPBSET_DROP, CAP_CHOWN, 0, 0, 0));
			report("user: bset read", prctl(PR_CAPBSET_READ, CAP_CHOWN, 0, 0, 0));
			fflush(stdout);
			_exit(0);
		}
		wait1(c);
	}

	/* A drop: inherited by fork, kept by exec, which permits less. */
	pid_t c = fork();
	if (c == 0) {
		report("drop net_raw", prctl(PR_CAPBSET_DROP, CAP_NET_RAW, 0, 0, 0));
		report("drop again", prctl(PR_CAPBSET_DROP, CAP_NET_RAW, 0, 0, 0));
		report("bset net_raw", prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0, 0, 0));
		caps("before exec", CAP_NET_RAW);
		prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0);
		fflush(stdout);
		pid_t g = fork();
		if (g == 0) {
			report("fork: bset net_raw", prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0, 0, 0));
			report("fork: keepcaps", prctl(PR_GET_KEEPCAPS, 0, 0, 0, 0));
			fflush(stdout);
			execl("/proc/self/exe", argv[0], "x", (char *)NULL);
			_exit(127);
		}
		wait1(g);
		_exit(0);
	}
	wait1(c);
	report("parent: bset net_raw", prctl(PR_CAPBSET_READ, CAP_NET_RAW, 0, 0, 0));
	return 0;
}
