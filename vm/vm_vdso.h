/*
 * The vDSO and the vvar page (vm_vdso.c): mapped into every new image
 * by exec, inherited by fork as any mapping.
 */
#ifndef VM_VM_VDSO_H
#define VM_VM_VDSO_H

#include <stdint.h>

struct vmspace;
struct vm_map_entry;

/*
 * Puts the vDSO image and the vvar page in RAM and starts the clock
 * (vclock_init).  Call once at boot, under the big lock, after vm_init
 * and cpu_configure.  Panics if RAM cannot hold two pages.
 */
void vdso_init(void);

/*
 * Maps the vvar page (read-only for good: the kernel writes it) and the
 * vDSO just above it (read+exec, private: a debugger's breakpoint gets
 * a copy) into vm where top-down mmap puts them, as Linux does after the
 * interpreter.  Returns the vDSO's address (AT_SYSINFO_EHDR), 0 if
 * there is no vDSO (vdso_init did not run), or -ENOMEM.
 */
long vdso_map(struct vmspace *vm);

/*
 * "[vdso]" or "[vvar]" if map entry e shows the vDSO or the vvar page
 * (or a private copy of its pages), NULL otherwise: the name
 * /proc/PID/maps gives the entry.  Survives clipping, fork and
 * copy-on-write, as it looks at the objects, not the addresses.
 */
const char *vdso_entry_name(const struct vm_map_entry *e);

#endif /* VM_VM_VDSO_H */
