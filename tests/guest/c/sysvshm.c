/*
 * System V shared memory: shmget's key rules and errors, shmat across
 * fork (one copy of the pages), shm_nattch through attach, fork, detach
 * and exit, SHM_RDONLY, attaching at an address (SHM_RND, SHM_REMAP),
 * shmdt's errors, IPC_STAT/IPC_SET/SHM_LOCK, IPC_RMID while attached
 * (SHM_DEST, destroyed at the last detach), permissions of another user,
 * and the limits IPC_INFO gives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/shm.h>
#include <sys/wait.h>
#include <unistd.h>

static sigjmp_buf jb;

static void
onsegv(int sig)
{
	(void)sig;
	siglongjmp(jb, 1);
}

static void
res(const char *what, long r)
{
	printf("%s: %s\n", what, r >= 0 ? "ok" : strerror(errno));
}

static long
nattch(int id)
{
	struct shmid_ds ds;
	if (shmctl(id, IPC_STAT, &ds) < 0)
		return -errno;
	return (long)ds.shm_nattch;
}

int
main(void)
{
	struct shmid_ds ds;
	int key = 0x56000000 | (getpid() & 0xffff);

	setvbuf(stdout, NULL, _IONBF, 0);	/* forks below */

	res("size 0", shmget(IPC_PRIVATE, 0, 0600));
	res("too big", shmget(IPC_PRIVATE, (size_t)-1, 0600));
	res("absent key", shmget(key, 4096, 0600));
	int id = shmget(key, 10000, IPC_CREAT | IPC_EXCL | 0600);
	res("create", id);
	res("create again with IPC_EXCL", shmget(key, 10000, IPC_CREAT | IPC_EXCL | 0600));
	printf("same id by key: %d\n", shmget(key, 5000, 0) == id);
	res("bigger than the segment", shmget(key, 20000, 0));
	shmctl(id, IPC_STAT, &ds);
	printf("stat: size %zu nattch %lu mode %o cpid ok %d key ok %d\n",
	    ds.shm_segsz, (unsigned long)ds.shm_nattch, ds.shm_perm.mode,
	    ds.shm_cpid == getpid(), ds.shm_perm.__key == key);

	char *p = shmat(id, NULL, 0);
	res("attach", p == (void *)-1 ? -1 : 0);
	printf("zeros: %d %d, nattch %ld\n", p[0], p[9999], nattch(id));
	strcpy(p, "parent");
	pid_t pid = fork();
	if (pid == 0) {
		char *q = shmat(id, NULL, 0);
		printf("child: inherited sees %s, new attach sees %s, nattch %ld\n",
		    p, q, nattch(id));
		strcpy(q + 100, "child");
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("parent sees %s, nattch after child exit %ld\n", p + 100, nattch(id));

	/* Read-only attach. */
	char *ro = shmat(id, NULL, SHM_RDONLY);
	printf("read-only sees %s\n", ro);
	signal(SIGSEGV, onsegv);
	if (sigsetjmp(jb, 1) == 0) {
		ro[0] = 'x';
		printf("read-only write: no fault\n");
	} else {
		printf("read-only write: SIGSEGV\n");
	}
	res("mprotect read-only attach writable", mprotect(ro, 4096, PROT_READ | PROT_WRITE));
	res("shmdt read-only", shmdt(ro));
	res("shmdt again", shmdt(ro));
	res("shmdt unaligned", shmdt(p + 1));
	res("shmdt of no segment", shmdt(&ds));

	/* At an address. */
	char *area = mmap(NULL, 8 * 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(area, 8 * 4096);
	char *at = shmat(id, area + 4096 + 123, 0);
	res("unaligned without SHM_RND", at == (void *)-1 ? -1 : 0);
	at = shmat(id, area + 4096 + 123, SHM_RND);
	printf("SHM_RND: at the page %d, sees %s\n", at == area + 4096, at);
	res("over it without SHM_REMAP",
	    shmat(id, area + 4096, 0) == (void *)-1 ? -1 : 0);
	at = shmat(id, area + 4096, SHM_REMAP);
	printf("SHM_REMAP: %d, nattch %ld\n", at == area + 4096, nattch(id));
	res("SHM_REMAP without an address", shmat(id, NULL, SHM_REMAP) == (void *)-1 ? -1 : 0);
	res("shmdt", shmdt(at));
	res("bad id", shmat(id + 1, NULL, 0) == (void *)-1 ? -1 : 0);
	res("negative id", shmat(-1, NULL, 0) == (void *)-1 ? -1 : 0);

	/* IPC_SET, SHM_LOCK. */
	ds.shm_perm.mode = 0640;
	res("IPC_SET", shmctl(id, IPC_SET, &ds));
	res("SHM_LOCK", shmctl(id, SHM_LOCK, NULL));
	shmctl(id, IPC_STAT, &ds);
	printf("mode %o\n", ds.shm_perm.mode);
	res("SHM_UNLOCK", shmctl(id, SHM_UNLOCK, NULL));
	res("bad cmd", shmctl(id, 12345, &ds));
	res("IPC_STAT to a bad buffer", shmctl(id, IPC_STAT, (void *)8));

	/* Another user: no access to a 0640 segment of root's. */
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		res("other user: shmget", shmget(key, 0, 0600));
		res("other user: shmget read", shmget(key, 0, 0400));
		res("other user: shmat", shmat(id, NULL, 0) == (void *)-1 ? -1 : 0);
		res("other user: IPC_STAT", shmctl(id, IPC_STAT, &ds));
		res("other user: IPC_RMID", shmctl(id, IPC_RMID, NULL));
		fflush(stdout);
		_exit(0);
	}
	waitpid(pid, NULL, 0);

	/* Removal while attached: it lives on until the last detach. */
	pid = fork();
	if (pid == 0) {
		usleep(100000);
		_exit(p[100] == 'c' ? 0 : 1);
	}
	res("IPC_RMID attached", shmctl(id, IPC_RMID, NULL));
	shmctl(id, IPC_STAT, &ds);
	printf("after IPC_RMID: mode %o key %d nattch %lu\n", ds.shm_perm.mode,
	    ds.shm_perm.__key, (unsigned long)ds.shm_nattch);
	res("by key after IPC_RMID", shmget(key, 0, 0));
	char *again = shmat(id, NULL, 0);
	printf("attach after IPC_RMID sees: %s\n", again == (void *)-1 ? "error" : again);
	shmdt(again);
	int st;
	waitpid(pid, &st, 0);
	printf("child status %d, nattch %ld\n", WEXITSTATUS(st), nattch(id));
	res("last shmdt", shmdt(p));
	res("IPC_STAT after last detach", shmctl(id, IPC_STAT, &ds));

	/* Removal of an unattached one is at once. */
	id = shmget(IPC_PRIVATE, 4096, 0600);
	res("IPC_RMID unattached", shmctl(id, IPC_RMID, NULL));
	res("IPC_STAT", shmctl(id, IPC_STAT, &ds));

	struct shminfo si;
	shmctl(0, IPC_INFO, (struct shmid_ds *)&si);
	printf("shmmax %lu shmmni %lu shmmin %lu\n", (unsigned long)si.shmmax,
	    (unsigned long)si.shmmni, (unsigned long)si.shmmin);
	return 0;
}
