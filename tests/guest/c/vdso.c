/*
 * The vDSO and the auxiliary vector, as Linux gives them: the shape of
 * the vector (its entries in Linux's order, values that differ from
 * machine to machine left out), the vDSO's symbols found by walking the
 * ELF image at AT_SYSINFO_EHDR (no dlsym: static programs), its clocks
 * never behind the system call's nor ahead of the next one, from two
 * threads at once (two CPUs), gettimeofday and time between two
 * clock_gettime, clock_getres and getcpu as the system calls say.
 */
#include <elf.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ 51
#endif

static const char *
at_name(unsigned long t)
{
	static const char *names[] = {
		[AT_PHDR] = "AT_PHDR", [AT_PHENT] = "AT_PHENT",
		[AT_PHNUM] = "AT_PHNUM", [AT_PAGESZ] = "AT_PAGESZ",
		[AT_BASE] = "AT_BASE", [AT_FLAGS] = "AT_FLAGS",
		[AT_ENTRY] = "AT_ENTRY", [AT_UID] = "AT_UID",
		[AT_EUID] = "AT_EUID", [AT_GID] = "AT_GID",
		[AT_EGID] = "AT_EGID", [AT_PLATFORM] = "AT_PLATFORM",
		[AT_HWCAP] = "AT_HWCAP", [AT_CLKTCK] = "AT_CLKTCK",
		[AT_SECURE] = "AT_SECURE", [AT_RANDOM] = "AT_RANDOM",
		[AT_HWCAP2] = "AT_HWCAP2", [AT_EXECFN] = "AT_EXECFN",
		[AT_SYSINFO_EHDR] = "AT_SYSINFO_EHDR",
		[AT_MINSIGSTKSZ] = "AT_MINSIGSTKSZ",
	};
	return t < sizeof(names) / sizeof(names[0]) && names[t] ? names[t] : NULL;
}

static unsigned long *auxv;

/* The vector's own value (glibc's getauxval rewrites AT_HWCAP). */
static unsigned long
rawaux(unsigned long type)
{
	for (unsigned long *av = auxv; av[0] != AT_NULL; av += 2)
		if (av[0] == type)
			return av[1];
	return 0;
}

/* The vector's entries in order, from the stack exec built. */
static void
auxv_shape(char **envp)
{
	while (*envp != NULL)
		envp++;
	unsigned long *av = auxv = (unsigned long *)(envp + 1);
	printf("auxv:");
	for (; av[0] != AT_NULL; av += 2) {
		const char *n = at_name(av[0]);
		if (n != NULL)		/* rseq, hwcap3: a newer kernel's */
			printf(" %s", n);
	}
	printf("\n");
	uint32_t a = 1, b, c = 0, d;
	__asm__ volatile ("cpuid" : "+a"(a), "=b"(b), "+c"(c), "=d"(d));
	printf("hwcap is cpuid(1).edx: %d\n", rawaux(AT_HWCAP) == d);
	printf("pagesz %lu clktck %lu flags %lu secure %lu\n",
	    getauxval(AT_PAGESZ), getauxval(AT_CLKTCK), getauxval(AT_FLAGS),
	    getauxval(AT_SECURE));
	printf("ids match: %d\n", getauxval(AT_UID) == getuid() &&
	    getauxval(AT_EUID) == geteuid() && getauxval(AT_GID) == getgid() &&
	    getauxval(AT_EGID) == getegid());
	printf("platform %s\n", (char *)getauxval(AT_PLATFORM));
	const char *fn = (const char *)getauxval(AT_EXECFN);
	printf("execfn names the program: %d\n", fn != NULL &&
	    strstr(fn, "/vdso") != NULL);
	printf("minsigstksz at least 2048: %d\n", getauxval(AT_MINSIGSTKSZ) >= 2048);
	unsigned char *r = (unsigned char *)getauxval(AT_RANDOM);
	int nz = 0;
	for (int i = 0; r != NULL && i < 16; i++)
		nz += r[i] != 0;
	printf("random has bytes: %d\n", nz > 4);

	/* /proc/self/auxv: the same vector, AT_NULL included. */
	static unsigned long buf[128];
	FILE *f = fopen("/proc/self/auxv", "r");
	size_t n = f != NULL ? fread(buf, 1, sizeof(buf), f) : 0;
	size_t len = 0;
	while (auxv[len / sizeof(long)] != AT_NULL)
		len += 2 * sizeof(long);
	len += 2 * sizeof(long);
	printf("/proc/self/auxv is the vector: %d\n", n == len &&
	    memcmp(buf, auxv, len) == 0);
	if (f != NULL)
		fclose(f);
}

/* The vDSO's symbols, by its dynamic section (as musl's vdso.c does). */
static void *
vdso_sym(const char *name, const char *version)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)getauxval(AT_SYSINFO_EHDR);
	if (eh == NULL || memcmp(eh->e_ident, ELFMAG, SELFMAG) != 0)
		return NULL;
	Elf64_Phdr *ph = (Elf64_Phdr *)((char *)eh + eh->e_phoff);
	uintptr_t base = (uintptr_t)-1;
	Elf64_Dyn *dyn = NULL;
	for (int i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && base == (uintptr_t)-1)
			base = (uintptr_t)eh + ph[i].p_offset - ph[i].p_vaddr;
		else if (ph[i].p_type == PT_DYNAMIC)
			dyn = (Elf64_Dyn *)((char *)eh + ph[i].p_offset);
	}
	if (dyn == NULL || base == (uintptr_t)-1)
		return NULL;
	Elf64_Sym *syms = NULL;
	const char *strs = NULL;
	Elf32_Word *hash = NULL;
	Elf64_Half *versym = NULL;
	Elf64_Verdef *verdef = NULL;
	for (; dyn->d_tag != DT_NULL; dyn++) {
		void *p = (void *)(base + dyn->d_un.d_ptr);
		switch (dyn->d_tag) {
		case DT_SYMTAB: syms = p; break;
		case DT_STRTAB: strs = p; break;
		case DT_HASH: hash = p; break;
		case DT_VERSYM: versym = p; break;
		case DT_VERDEF: verdef = p; break;
		}
	}
	if (syms == NULL || strs == NULL || hash == NULL)
		return NULL;
	for (Elf32_Word i = 0; i < hash[1]; i++) {
		if (ELF64_ST_TYPE(syms[i].st_info) != STT_FUNC ||
		    syms[i].st_shndx == SHN_UNDEF ||
		    strcmp(strs + syms[i].st_name, name) != 0)
			continue;
		if (versym == NULL || verdef == NULL)
			return NULL;
		/* Its version's name must be the one asked for. */
		Elf64_Verdef *vd = verdef;
		for (;;) {
			if ((vd->vd_ndx & 0x7fff) == (versym[i] & 0x7fff)) {
				Elf64_Verdaux *aux = (Elf64_Verdaux *)((char *)vd + vd->vd_aux);
				if (strcmp(strs + aux->vda_name, version) != 0)
					return NULL;
				return (void *)(base + syms[i].st_value);
			}
			if (vd->vd_next == 0)
				return NULL;
			vd = (Elf64_Verdef *)((char *)vd + vd->vd_next);
		}
	}
	return NULL;
}

static int (*vcgt)(clockid_t, struct timespec *);
static int (*vcgr)(clockid_t, struct timespec *);
static int (*vgtod)(struct timeval *, void *);
static time_t (*vtime)(time_t *);
static long (*vgetcpu)(unsigned *, unsigned *, void *);

static int64_t
ns(const struct timespec *ts)
{
	return (int64_t)ts->tv_sec * 1000000000 + ts->tv_nsec;
}

static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC,
	CLOCK_MONOTONIC_RAW, CLOCK_REALTIME_COARSE, CLOCK_MONOTONIC_COARSE,
	CLOCK_BOOTTIME };
#define NCLOCKS	(sizeof(clocks) / sizeof(clocks[0]))
#define ROUNDS	5000

/* The latest reading of each clock by either thread. */
static int64_t latest[NCLOCKS];
static int backwards[NCLOCKS];

/*
 * Reads every clock by the vDSO and by the system call in turn: each
 * reading must be at least the latest any thread had before it.
 */
static void *
interleave(void *arg)
{
	(void)arg;
	for (int r = 0; r < ROUNDS; r++) {
		for (unsigned c = 0; c < NCLOCKS; c++) {
			struct timespec ts;
			int64_t before = __atomic_load_n(&latest[c], __ATOMIC_ACQUIRE);
			if (r & 1)
				syscall(SYS_clock_gettime, clocks[c], &ts);
			else
				vcgt(clocks[c], &ts);
			int64_t t = ns(&ts);
			if (t < before)
				__atomic_add_fetch(&backwards[c], 1, __ATOMIC_RELAXED);
			int64_t cur = before;
			while (t > cur && !__atomic_compare_exchange_n(&latest[c],
			    &cur, t, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
				;
		}
	}
	return NULL;
}

int
main(int argc, char **argv, char **envp)
{
	(void)argc; (void)argv;
	setvbuf(stdout, NULL, _IONBF, 0);
	auxv_shape(envp);

	static const char *names[] = { "__vdso_clock_gettime",
	    "__vdso_gettimeofday", "__vdso_time", "__vdso_getcpu",
	    "__vdso_clock_getres", "clock_gettime", "gettimeofday", "time",
	    "getcpu", "clock_getres" };
	for (unsigned i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		printf("%s@LINUX_2.6: %s\n", names[i],
		    vdso_sym(names[i], "LINUX_2.6") ? "found" : "missing");
	vcgt = vdso_sym("__vdso_clock_gettime", "LINUX_2.6");
	vcgr = vdso_sym("__vdso_clock_getres", "LINUX_2.6");
	vgtod = vdso_sym("__vdso_gettimeofday", "LINUX_2.6");
	vtime = vdso_sym("__vdso_time", "LINUX_2.6");
	vgetcpu = vdso_sym("__vdso_getcpu", "LINUX_2.6");
	if (!vcgt || !vcgr || !vgtod || !vtime || !vgetcpu)
		return 1;

	pthread_t t[2];
	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, interleave, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	for (unsigned c = 0; c < NCLOCKS; c++)
		printf("clock %d: never backwards between vdso and syscall: %d\n",
		    (int)clocks[c], backwards[c] == 0);

	/*
	 * The same time as the system call's, but for the time between the
	 * two reads: bounded generously (a loaded host may stall either).
	 */
	int far = 0;
	for (unsigned c = 0; c < NCLOCKS; c++) {
		struct timespec a, b;
		vcgt(clocks[c], &a);
		syscall(SYS_clock_gettime, clocks[c], &b);
		far += ns(&b) - ns(&a) > 500000000 || ns(&b) < ns(&a);
	}
	printf("vdso within 500 ms of the syscall: %d\n", far == 0);

	int bad = 0;
	for (int i = 0; i < 1000; i++) {
		struct timespec a, b;
		struct timeval tv;
		clock_gettime(CLOCK_REALTIME, &a);
		vgtod(&tv, NULL);
		time_t s = vtime(NULL);
		clock_gettime(CLOCK_REALTIME, &b);
		int64_t us = (int64_t)tv.tv_sec * 1000000 + tv.tv_usec;
		bad += us < ns(&a) / 1000 || us > ns(&b) / 1000 ||
		    s < a.tv_sec || s > b.tv_sec;
	}
	printf("gettimeofday and time between two clock_gettime: %d\n", bad == 0);
	struct timeval tv;
	struct timezone tz = { 1, 1 };
	int rz = vgtod(&tv, &tz);
	printf("gettimeofday with a zone: %d %d/%d\n", rz, tz.tz_minuteswest,
	    tz.tz_dsttime);

	for (unsigned c = 0; c < NCLOCKS; c++) {
		struct timespec a = { 7, 7 }, b = { 8, 8 };
		int ra = vcgr(clocks[c], &a);
		int rb = syscall(SYS_clock_getres, clocks[c], &b);
		printf("getres %d: same as the syscall: %d\n", (int)clocks[c],
		    ra == rb && a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec);
	}
	struct timespec ts;
	printf("unknown clock: %d\n", vcgt(12345, &ts));
	printf("cpu-time clock falls back: %d\n",
	    vcgt(CLOCK_PROCESS_CPUTIME_ID, &ts) == 0);

	unsigned cpu = 999, node = 999;
	long r = vgetcpu(&cpu, &node, NULL);
	printf("getcpu: %ld, a cpu we may run on: %d, node %u\n", r,
	    cpu < (unsigned)sysconf(_SC_NPROCESSORS_ONLN), node);
	int same = 0;
	for (int i = 0; i < 100; i++) {
		unsigned a = 1000, b = 2000;
		vgetcpu(&a, NULL, NULL);
		syscall(SYS_getcpu, &b, NULL, NULL);
		same += a == b;
	}
	printf("getcpu mostly agrees with the syscall: %d\n", same >= 50);
	return 0;
}
