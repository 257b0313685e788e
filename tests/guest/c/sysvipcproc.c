/*
 * /proc/sysvipc/{shm,sem,msg}: the headers, and the line of a segment, a
 * semaphore set and a queue this program makes (the machine may have
 * others), field by field as ipcs reads them; times checked against
 * now, pids against ours.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <time.h>
#include <unistd.h>

#define KEY	0x5eed1234

/* Prints the header and the fields of the line whose first field is KEY. */
static void
show(const char *file, int id, const char *names[], int nf, int pidf[], int timef[])
{
	char path[64], line[512];
	snprintf(path, sizeof(path), "/proc/sysvipc/%s", file);
	FILE *f = fopen(path, "r");
	if (f == NULL) {
		printf("%s: %s\n", path, strerror(errno));
		return;
	}
	if (fgets(line, sizeof(line), f) != NULL)
		printf("%s header: [%s]\n", file, strtok(line, "\n"));
	int found = 0;
	while (fgets(line, sizeof(line), f) != NULL) {
		long v[32];
		int n = 0;
		for (char *t = strtok(line, " \n"); t != NULL && n < 32; t = strtok(NULL, " \n"))
		{
			v[n] = strtol(t, NULL, n == 2 ? 8 : 10);
			n++;
		}
		if (n < 2 || v[0] != KEY)
			continue;
		found++;
		printf("%s: %d fields, id %s", file, n, v[1] == id ? "ok" : "wrong");
		for (int i = 2; i < n && i < nf; i++) {
			if (pidf[i])
				printf(", %s %s", names[i], v[i] == getpid() ? "ours" : v[i] == 0 ? "0" : "other");
			else if (timef[i])
				printf(", %s %s", names[i], v[i] == 0 ? "0" : labs(v[i] - time(NULL)) < 100 ? "now" : "wrong");
			else
				printf(", %s %ld", names[i], i == 2 ? (long)(v[i] & 0777) : v[i]);
		}
		printf("\n");
	}
	printf("%s: %d line(s) of ours\n", file, found);
	fclose(f);
}

int
main(void)
{
	int shm = shmget(KEY, 10000, IPC_CREAT | IPC_EXCL | 0640);
	int sem = semget(KEY, 3, IPC_CREAT | IPC_EXCL | 0600);
	int msg = msgget(KEY, IPC_CREAT | IPC_EXCL | 0620);
	if (shm < 0 || sem < 0 || msg < 0) {
		printf("get: %s\n", strerror(errno));
		return 1;
	}
	char *m = shmat(shm, NULL, 0);
	m[0] = 1;	/* one page resident */
	struct sembuf op = { 1, 2, 0 };
	semop(sem, &op, 1);
	struct { long type; char text[5]; } mb = { 1, "hello" };
	msgsnd(msg, &mb, 5, 0);

	const char *shmn[] = { "key", "id", "perms", "size", "cpid", "lpid", "nattch",
	    "uid", "gid", "cuid", "cgid", "atime", "dtime", "ctime", "rss", "swap" };
	int shmp[16] = { [4] = 1, [5] = 1 }, shmt[16] = { [11] = 1, [12] = 1, [13] = 1 };
	show("shm", shm, shmn, 16, shmp, shmt);
	const char *semn[] = { "key", "id", "perms", "nsems", "uid", "gid", "cuid",
	    "cgid", "otime", "ctime" };
	int semp[10] = { 0 }, semt[10] = { [8] = 1, [9] = 1 };
	show("sem", sem, semn, 10, semp, semt);
	const char *msgn[] = { "key", "id", "perms", "cbytes", "qnum", "lspid", "lrpid",
	    "uid", "gid", "cuid", "cgid", "stime", "rtime", "ctime" };
	int msgp[14] = { [5] = 1, [6] = 1 }, msgt[14] = { [11] = 1, [12] = 1, [13] = 1 };
	show("msg", msg, msgn, 14, msgp, msgt);

	shmdt(m);
	shmctl(shm, IPC_RMID, NULL);
	semctl(sem, 0, IPC_RMID);
	msgctl(msg, IPC_RMID, NULL);
	show("shm", shm, shmn, 16, shmp, shmt);
	return 0;
}
