/*
 * What the debugger (ddb/) and panic need of the host: reading memory
 * that may not be mapped without faulting, naming code addresses from
 * the program's own symbol table, and leaving at once with the
 * terminal restored.
 */
#ifndef HOST_HOSTDBG_H
#define HOST_HOSTDBG_H

#include <stddef.h>
#include <stdint.h>

/*
 * Copies len bytes at address src of this process into dst, through
 * the host (process_vm_readv on ourselves), so that an address nothing
 * maps gives an error instead of a fault.  Returns 0, or -EFAULT if any
 * byte of the range is not readable.  Safe to call from any thread.
 */
int host_peek(void *dst, uintptr_t src, size_t len);

/*
 * Loads the program's own symbol table (the .symtab of /proc/self/exe,
 * functions and objects) so that host_symbol can name addresses: at
 * boot, before anything may panic.  Idempotent; if the table cannot be
 * read, host_symbol falls back on the dynamic linker's (dladdr).
 */
void host_symbols_init(void);

/*
 * The symbol containing address pc, and pc's offset in it (*off), or
 * NULL if none is known.  The name lives as long as the process.
 */
const char *host_symbol(uintptr_t pc, uintptr_t *off);

/* The address of the symbol name, or 0 if there is none. */
uintptr_t host_symbol_addr(const char *name);

/*
 * Ends the process now with status, the terminal put back first; no
 * atexit handler runs (other threads may be in the middle of anything).
 */
void host_exit_now(int status) __attribute__((noreturn));

#endif /* HOST_HOSTDBG_H */
