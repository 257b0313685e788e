/*
 * What the host machine and its kernel tell a process about the CPU:
 * the cpuid instruction, and the auxiliary vector the host gave us
 * (values a guest's auxiliary vector repeats, such as AT_HWCAP2 and
 * AT_MINSIGSTKSZ, which describe the machine and the host's signal
 * frames, the ones a guest's FPU state is saved in).
 */
#ifndef HOST_CPUID_H
#define HOST_CPUID_H

#include <stdint.h>

/* cpuid with eax = leaf, ecx = subleaf: r[0..3] are eax, ebx, ecx, edx. */
void host_cpuid(uint32_t leaf, uint32_t subleaf, uint32_t r[4]);

/* The host's auxiliary vector entry of type, or 0 if it has none. */
uint64_t host_auxval(unsigned long type);

#endif /* HOST_CPUID_H */
