/*
 * The host's side of the debugger (see hostdbg.h).
 *
 * Names come from the program's own .symtab, read once at boot: the
 * dynamic linker knows only exported symbols (dladdr), and nearly every
 * kernel function is static or at least not exported.  The table is
 * sorted by address and searched by bisection; a position-independent
 * executable is shifted by its load bias, which is the distance between
 * where host_symbols_init is and where the table says it is.
 */
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "host/cons_host.h"
#include "host/hostdbg.h"
#include "host/hostexit.h"

struct hsym {
	uintptr_t addr;
	uintptr_t size;
	uint32_t name;		/* offset in strtab */
};

static struct hsym *syms;
static size_t nsyms;
static char *strtab;
static int loaded;

int
host_peek(void *dst, uintptr_t src, size_t len)
{
	struct iovec local = { dst, len };
	struct iovec remote = { (void *)src, len };

	if (len == 0)
		return 0;
	if (src + len < src)
		return -EFAULT;
	ssize_t n = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
	return n == (ssize_t)len ? 0 : -EFAULT;
}

static int
hsym_cmp(const void *a, const void *b)
{
	const struct hsym *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Copies the named symbols of the .symtab at base (the mapped file). */
static int
symbols_load(const uint8_t *base, size_t size)
{
	const Elf64_Ehdr *eh = (const Elf64_Ehdr *)base;
	if (size < sizeof(*eh) || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0 ||
	    eh->e_ident[EI_CLASS] != ELFCLASS64 || eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    eh->e_shoff > size || (size - eh->e_shoff) / sizeof(Elf64_Shdr) < eh->e_shnum)
		return -1;
	const Elf64_Shdr *sh = (const Elf64_Shdr *)(base + eh->e_shoff);
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_type != SHT_SYMTAB || sh[i].sh_link >= eh->e_shnum)
			continue;
		const Elf64_Shdr *st = &sh[sh[i].sh_link];
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset ||
		    st->sh_offset > size || st->sh_size > size - st->sh_offset ||
		    st->sh_size == 0)
			return -1;
		const Elf64_Sym *s = (const Elf64_Sym *)(base + sh[i].sh_offset);
		size_t n = sh[i].sh_size / sizeof(*s);
		syms = calloc(n, sizeof(*syms));
		strtab = malloc(st->sh_size);
		if (syms == NULL || strtab == NULL)
			return -1;
		memcpy(strtab, base + st->sh_offset, st->sh_size);
		strtab[st->sh_size - 1] = '\0';
		for (size_t k = 0; k < n; k++) {
			int type = ELF64_ST_TYPE(s[k].st_info);
			if ((type != STT_FUNC && type != STT_OBJECT) ||
			    s[k].st_value == 0 || s[k].st_name >= st->sh_size ||
			    s[k].st_shndx == SHN_UNDEF)
				continue;
			syms[nsyms++] = (struct hsym){ s[k].st_value, s[k].st_size,
			    s[k].st_name };
		}
		qsort(syms, nsyms, sizeof(*syms), hsym_cmp);
		return 0;
	}
	return -1;
}

void
host_symbols_init(void)
{
	if (loaded)
		return;
	loaded = 1;
	int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
	struct stat sb;
	if (fd < 0)
		return;
	if (fstat(fd, &sb) == 0 && sb.st_size > 0) {
		void *m = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (m != MAP_FAILED) {
			if (symbols_load(m, (size_t)sb.st_size) < 0)
				nsyms = 0;
			munmap(m, (size_t)sb.st_size);
		}
	}
	close(fd);
	/* The load bias, from a symbol whose address we know. */
	uintptr_t here = (uintptr_t)host_symbols_init, bias = 0;
	for (size_t i = 0; i < nsyms; i++)
		if (strcmp(strtab + syms[i].name, "host_symbols_init") == 0)
			bias = here - syms[i].addr;
	for (size_t i = 0; i < nsyms; i++)
		syms[i].addr += bias;
}

const char *
host_symbol(uintptr_t pc, uintptr_t *off)
{
	size_t lo = 0, hi = nsyms;

	/* The last symbol at or below pc. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		const struct hsym *s = &syms[lo - 1];
		if (pc - s->addr < (s->size != 0 ? s->size : 1)) {
			*off = pc - s->addr;
			return strtab + s->name;
		}
	}
	Dl_info dl;
	if (dladdr((void *)pc, &dl) != 0 && dl.dli_sname != NULL) {
		*off = pc - (uintptr_t)dl.dli_saddr;
		return dl.dli_sname;
	}
	return NULL;
}

uintptr_t
host_symbol_addr(const char *name)
{
	for (size_t i = 0; i < nsyms; i++)
		if (strcmp(strtab + syms[i].name, name) == 0)
			return syms[i].addr;
	return 0;
}

void
host_exit_now(int status)
{
	cons_host_restore();
	host_exit_fatal(status);
}
