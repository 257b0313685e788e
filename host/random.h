/*
 * Host entropy: the host kernel's generator is the machine's, as its
 * clock is (the kernel keeps no pool of its own).
 */
#ifndef HOST_RANDOM_H
#define HOST_RANDOM_H

#include <stddef.h>

/*
 * Fills buf with n random bytes from the host's generator, waiting for it
 * only at boot before it is seeded.  Returns 0, or -EIO if the host
 * refused (buf is then undefined).
 */
int host_random(void *buf, size_t n);

#endif /* HOST_RANDOM_H */
