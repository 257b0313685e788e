/*
 * The host CPU's identification (see cpuid.h).
 */
#include <sys/auxv.h>

#include "cpuid.h"

void
host_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4])
{
	uint32_t a = leaf, b, c = subleaf, d;
	__asm__ volatile ("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	r[0] = a;
	r[1] = b;
	r[2] = c;
	r[3] = d;
}

uint64_t
host_auxval(unsigned long type)
{
	return getauxval(type);
}
