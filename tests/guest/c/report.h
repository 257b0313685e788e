/*
 * How the guest test programs print a call's result: "WHAT: N", or
 * "WHAT: -1 STRERROR" for a failure, so that the output inside vkernel
 * and the native one compare line by line (tests/guest/run.sh).  Each
 * program is compiled alone: static inline only.
 */
#ifndef GUEST_REPORT_H
#define GUEST_REPORT_H

#include <errno.h>
#include <stdio.h>
#include <string.h>

static inline void
report(const char *what, long r)
{
	if (r < 0)
		printf("%s: -1 %s\n", what, strerror(errno));
	else
		printf("%s: %ld\n", what, r);
}

#endif
