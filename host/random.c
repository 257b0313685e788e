/*
 * Host entropy (see random.h).
 */
#include <errno.h>
#include <sys/random.h>

#include "host/random.h"

int
host_random(void *buf, size_t n)
{
	char *p = buf;
	while (n > 0) {
		/* Reads of up to 256 bytes are never short once seeded. */
		ssize_t got = getrandom(p, n, 0);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -EIO;
		p += got;
		n -= (size_t)got;
	}
	return 0;
}
