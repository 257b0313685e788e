/*
 * System V semaphores: semget's rules, semctl's commands (SETVAL,
 * GETVAL, SETALL, GETALL, GETPID, GETNCNT, GETZCNT, IPC_STAT, IPC_SET,
 * IPC_RMID), semop all-or-nothing, IPC_NOWAIT, waiting across processes
 * for a value and for zero, semtimedop's timeout, SEM_UNDO applied when
 * a process exits (also when killed), EIDRM to a sleeper when the set is
 * removed, and the errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/sem.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

union semun {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static void
res(const char *what, long r)
{
	printf("%s: %s\n", what, r >= 0 ? "ok" : strerror(errno));
}

static int
op(int id, unsigned short num, short delta, short flg)
{
	struct sembuf sb = { num, delta, flg };
	return semop(id, &sb, 1);
}

static void
vals(const char *what, int id, int n)
{
	unsigned short v[8];
	semctl(id, 0, GETALL, (union semun){ .array = v });
	printf("%s:", what);
	for (int i = 0; i < n; i++)
		printf(" %d", v[i]);
	printf("\n");
}

/* Waits until semaphore num of id has a sleeper counted in cmd. */
static void
await_count(int id, int num, int cmd, int want)
{
	for (int i = 0; i < 2000 && semctl(id, num, cmd) < want; i++)
		usleep(5000);
}

int
main(void)
{
	struct semid_ds ds;
	int key = 0x57000000 | (getpid() & 0xffff);

	setvbuf(stdout, NULL, _IONBF, 0);
	res("nsems 0 private", semget(IPC_PRIVATE, 0, 0600));
	res("nsems too many", semget(IPC_PRIVATE, 32001, 0600));
	res("absent key", semget(key, 1, 0600));
	int id = semget(key, 3, IPC_CREAT | IPC_EXCL | 0600);
	res("create", id);
	res("again with IPC_EXCL", semget(key, 3, IPC_CREAT | IPC_EXCL | 0600));
	res("more than it has", semget(key, 4, 0));
	printf("same id, nsems 0: %d\n", semget(key, 0, 0) == id);
	semctl(id, 0, IPC_STAT, (union semun){ .buf = &ds });
	printf("stat: nsems %lu mode %o otime %ld\n", (unsigned long)ds.sem_nsems,
	    ds.sem_perm.mode, (long)ds.sem_otime);
	vals("fresh", id, 3);

	res("SETVAL", semctl(id, 0, SETVAL, (union semun){ .val = 5 }));
	res("SETVAL too big", semctl(id, 0, SETVAL, (union semun){ .val = 32768 }));
	res("SETVAL negative", semctl(id, 0, SETVAL, (union semun){ .val = -1 }));
	res("SETVAL bad semnum", semctl(id, 3, SETVAL, (union semun){ .val = 1 }));
	printf("GETVAL %d GETPID is me %d\n", semctl(id, 0, GETVAL),
	    semctl(id, 0, GETPID) == getpid());
	unsigned short all[3] = { 1, 2, 3 };
	res("SETALL", semctl(id, 0, SETALL, (union semun){ .array = all }));
	vals("after SETALL", id, 3);

	/* All or nothing. */
	struct sembuf two[2] = { { 0, -1, 0 }, { 1, -5, IPC_NOWAIT } };
	res("second op would block", semop(id, two, 2));
	vals("unchanged", id, 3);
	two[1].sem_op = -2;
	res("both", semop(id, two, 2));
	vals("after both", id, 3);
	res("wait for zero, nonzero, nowait", op(id, 2, 0, IPC_NOWAIT));
	res("to the limit", op(id, 2, 32767, 0));
	res("bad sem_num", op(id, 3, 1, 0));
	res("no ops", semop(id, two, 0));
	res("too many ops", semop(id, two, 501));
	res("bad id", op(id + 1, 0, 1, 0));
	res("bad pointer", semop(id, (struct sembuf *)8, 1));
	semctl(id, 2, SETVAL, (union semun){ .val = 0 });

	/* A child sleeps for a value; we see it in GETNCNT and wake it. */
	pid_t pid = fork();
	if (pid == 0)
		_exit(op(id, 1, -2, 0) == 0 ? 0 : 1);
	await_count(id, 1, GETNCNT, 1);
	printf("GETNCNT %d GETZCNT %d\n", semctl(id, 1, GETNCNT), semctl(id, 1, GETZCNT));
	op(id, 1, 2, 0);
	int st;
	waitpid(pid, &st, 0);
	printf("child woken: status %d, value %d\n", WEXITSTATUS(st), semctl(id, 1, GETVAL));

	/* A child sleeps for zero. */
	semctl(id, 2, SETVAL, (union semun){ .val = 1 });
	pid = fork();
	if (pid == 0)
		_exit(op(id, 2, 0, 0) == 0 ? 0 : 1);
	await_count(id, 2, GETZCNT, 1);
	printf("GETZCNT %d\n", semctl(id, 2, GETZCNT));
	op(id, 2, -1, 0);
	waitpid(pid, &st, 0);
	printf("zero waiter: status %d\n", WEXITSTATUS(st));

	/* semtimedop times out. */
	struct timespec ts = { 0, 30 * 1000 * 1000 };
	struct sembuf down = { 1, -1, 0 };
	res("semtimedop", semtimedop(id, &down, 1, &ts));
	ts.tv_nsec = 1000000000;
	res("semtimedop bad timeout", semtimedop(id, &down, 1, &ts));

	/* SEM_UNDO: given back at exit, and at a kill. */
	semctl(id, 0, SETVAL, (union semun){ .val = 3 });
	pid = fork();
	if (pid == 0) {
		op(id, 0, -2, SEM_UNDO);
		op(id, 1, 4, SEM_UNDO);
		op(id, 1, -1, SEM_UNDO);
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	vals("after a child's undone ops", id, 3);
	pid = fork();
	if (pid == 0) {
		op(id, 0, -3, SEM_UNDO);
		op(id, 2, 1, 0);	/* tells the parent */
		pause();
		_exit(0);
	}
	op(id, 2, -1, 0);
	vals("while the child holds", id, 3);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	vals("after it is killed", id, 3);
	/* SETVAL voids an undo. */
	pid = fork();
	if (pid == 0) {
		op(id, 0, -1, SEM_UNDO);
		semctl(id, 0, SETVAL, (union semun){ .val = 7 });
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	printf("SETVAL then exit: %d\n", semctl(id, 0, GETVAL));

	/* IPC_SET and another user. */
	semctl(id, 0, IPC_STAT, (union semun){ .buf = &ds });
	ds.sem_perm.mode = 0604;
	res("IPC_SET", semctl(id, 0, IPC_SET, (union semun){ .buf = &ds }));
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		printf("other user GETVAL: %d\n", semctl(id, 0, GETVAL));
		res("other user semop", op(id, 0, 1, 0));
		res("other user wait for zero", op(id, 1, 0, IPC_NOWAIT));
		res("other user SETVAL", semctl(id, 0, SETVAL, (union semun){ .val = 1 }));
		res("other user IPC_RMID", semctl(id, 0, IPC_RMID));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	res("bad cmd", semctl(id, 0, 12345));

	/* Removal wakes a sleeper with EIDRM. */
	semctl(id, 1, SETVAL, (union semun){ .val = 0 });
	pid = fork();
	if (pid == 0) {
		int r = op(id, 1, -1, 0);
		_exit(r < 0 && errno == EIDRM ? 0 : 1);
	}
	await_count(id, 1, GETNCNT, 1);
	res("IPC_RMID", semctl(id, 0, IPC_RMID));
	waitpid(pid, &st, 0);
	printf("sleeper got EIDRM: %d\n", WEXITSTATUS(st) == 0);
	res("GETVAL after IPC_RMID", semctl(id, 0, GETVAL));
	res("IPC_RMID again", semctl(id, 0, IPC_RMID));
	return 0;
}
