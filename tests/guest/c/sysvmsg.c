/*
 * System V message queues: msgget's rules, sending and receiving by type
 * (0, a type, MSG_EXCEPT, the lowest up to -type), MSG_NOERROR and E2BIG,
 * IPC_NOWAIT both ways, a full queue (msg_qbytes) blocking a sender until
 * a receiver in another process drains it, IPC_STAT/IPC_SET, EIDRM to a
 * sleeping receiver, another user's access, and the limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/wait.h>
#include <unistd.h>

struct msg {
	long type;
	char text[9000];
};

static void
res(const char *what, long r)
{
	printf("%s: %s\n", what, r >= 0 ? "ok" : strerror(errno));
}

static int
snd(int id, long type, const char *text, int flg)
{
	struct msg m = { .type = type };
	strcpy(m.text, text);
	return msgsnd(id, &m, strlen(text), flg);
}

static void
rcv(const char *what, int id, size_t size, long type, int flg)
{
	struct msg m;
	memset(&m, 0, sizeof(m));
	ssize_t n = msgrcv(id, &m, size, type, flg);
	if (n < 0)
		printf("%s: %s\n", what, strerror(errno));
	else
		printf("%s: type %ld, %zd bytes, %.*s\n", what, m.type, n, (int)n,
		    m.text);
}

static void
stat(int id)
{
	struct msqid_ds ds;
	if (msgctl(id, IPC_STAT, &ds) < 0) {
		printf("stat: %s\n", strerror(errno));
		return;
	}
	printf("stat: qnum %lu cbytes %lu qbytes %lu mode %o\n",
	    (unsigned long)ds.msg_qnum, (unsigned long)ds.__msg_cbytes,
	    (unsigned long)ds.msg_qbytes, ds.msg_perm.mode);
}

int
main(void)
{
	int key = 0x58000000 | (getpid() & 0xffff);
	struct msqid_ds ds;
	struct msg m = { .type = 1 };

	setvbuf(stdout, NULL, _IONBF, 0);
	res("absent key", msgget(key, 0600));
	int id = msgget(key, IPC_CREAT | IPC_EXCL | 0600);
	res("create", id);
	res("again with IPC_EXCL", msgget(key, IPC_CREAT | IPC_EXCL | 0600));
	printf("same id: %d\n", msgget(key, 0) == id);
	stat(id);

	snd(id, 3, "three", 0);
	snd(id, 1, "one", 0);
	snd(id, 2, "two", 0);
	snd(id, 1, "one-b", 0);
	stat(id);
	rcv("type 2", id, 100, 2, 0);
	rcv("except 1", id, 100, 1, MSG_EXCEPT);
	rcv("lowest up to 5", id, 100, -5, 0);
	rcv("any", id, 100, 0, 0);
	rcv("empty, nowait", id, 100, 0, IPC_NOWAIT);
	snd(id, 7, "a longer message", 0);
	rcv("too small", id, 4, 0, 0);
	rcv("MSG_NOERROR", id, 4, 0, MSG_NOERROR);
	stat(id);

	res("type 0", snd(id, 0, "x", 0));
	res("too long", msgsnd(id, &m, 8193, 0));
	res("negative size", msgsnd(id, &m, (size_t)-1, 0));
	res("bad id", snd(id + 1, 1, "x", 0));
	res("bad pointer", msgsnd(id, (void *)8, 1, 0));
	res("receive bad id", msgrcv(id + 1, &m, 10, 0, IPC_NOWAIT));
	res("empty message", msgsnd(id, &m, 0, 0));
	rcv("it", id, 100, 0, 0);

	/* A full queue: IPC_NOWAIT says so, a sender blocks until drained. */
	memset(m.text, 'z', 8192);
	int sent = 0;
	while (msgsnd(id, &m, 8192, IPC_NOWAIT) == 0)
		sent++;
	printf("full after %d, errno %s\n", sent, strerror(errno));
	pid_t pid = fork();
	if (pid == 0) {
		/* Blocks until the parent drains one. */
		_exit(msgsnd(id, &m, 8192, 0) == 0 ? 0 : 1);
	}
	usleep(50000);
	rcv("drain one", id, 3, 0, MSG_NOERROR);
	int st;
	waitpid(pid, &st, 0);
	printf("blocked sender: status %d\n", WEXITSTATUS(st));
	stat(id);
	while (msgrcv(id, &m, sizeof(m.text), 0, IPC_NOWAIT) >= 0)
		;

	/* A receiver in another process wakes for its type only. */
	pid = fork();
	if (pid == 0) {
		struct msg r;
		ssize_t n = msgrcv(id, &r, sizeof(r.text), 9, 0);
		_exit(n == 4 && r.type == 9 ? 0 : 1);
	}
	usleep(20000);
	snd(id, 8, "other", 0);
	snd(id, 9, "mine", 0);
	waitpid(pid, &st, 0);
	printf("typed receiver: status %d\n", WEXITSTATUS(st));
	rcv("left", id, 100, 0, 0);

	/* IPC_SET. */
	msgctl(id, IPC_STAT, &ds);
	ds.msg_qbytes = 100;
	ds.msg_perm.mode = 0620;
	res("IPC_SET", msgctl(id, IPC_SET, &ds));
	stat(id);
	res("bigger than qbytes", msgsnd(id, &m, 101, IPC_NOWAIT));
	pid = fork();
	if (pid == 0) {
		if (setgid(65534) < 0 || setuid(65534) < 0)
			_exit(1);
		res("other user send", snd(id, 1, "hi", IPC_NOWAIT));
		res("other user receive", msgrcv(id, &m, 10, 0, IPC_NOWAIT));
		res("other user IPC_STAT", msgctl(id, IPC_STAT, &ds));
		res("other user IPC_RMID", msgctl(id, IPC_RMID, NULL));
		_exit(0);
	}
	waitpid(pid, NULL, 0);
	rcv("from the other user", id, 100, 0, IPC_NOWAIT);

	/* Removal wakes a sleeping receiver with EIDRM. */
	pid = fork();
	if (pid == 0) {
		ssize_t n = msgrcv(id, &m, 10, 0, 0);
		_exit(n < 0 && errno == EIDRM ? 0 : 1);
	}
	usleep(50000);
	res("IPC_RMID", msgctl(id, IPC_RMID, NULL));
	waitpid(pid, &st, 0);
	printf("receiver got EIDRM: %d\n", WEXITSTATUS(st) == 0);
	stat(id);
	res("bad cmd", msgctl(0, 12345, &ds));

	struct msginfo mi;
	msgctl(0, IPC_INFO, (struct msqid_ds *)&mi);
	printf("msgmax %d msgmnb %d msgmni %d\n", mi.msgmax, mi.msgmnb, mi.msgmni);
	return 0;
}
