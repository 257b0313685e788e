/*
 * LeakSanitizer's view of the kernel (ASan builds only).  The kernel's
 * own allocations live in its RAM (physmem, a shared memfd mapping),
 * which LeakSanitizer does not scan for pointers.  lwIP allocates from
 * the host's malloc, and the kernel keeps the only pointers to what it
 * allocated (a pcb, the receive message of an interface) in that RAM:
 * at exit LeakSanitizer would call them leaks.  Scanning RAM instead
 * would fault in every page of a shared mapping of up to gigabytes, so
 * lwIP's allocations (by its files, built from $(BUILD)/lwip-src) are
 * left out of the leak report; the kernel's own are not malloc's and
 * were never in it.
 */
#ifdef __SANITIZE_ADDRESS__
const char *__lsan_default_suppressions(void);

const char *
__lsan_default_suppressions(void)
{
	return "leak:/lwip-src/src/\n";
}
#endif
