/*
 * Thread identity: all threads share the pid and parent pid, each has
 * its own tid, the main thread's tid is the pid; /proc/self/task lists
 * each thread, /proc/self/status counts them, and each thread's
 * /proc/self/task/TID/stat shows the name it gave itself with
 * PR_SET_NAME.
 */
#include "thr.h"
#include <fcntl.h>
#include <sys/prctl.h>

#define NTHR	4

static pthread_barrier_t bar;
static pid_t tids[NTHR];
static long bad;
static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;

static int
status_threads(void)
{
	char line[256];
	int n = -1;
	FILE *f = fopen("/proc/self/status", "r");
	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "Threads: %d", &n) == 1)
			break;
	fclose(f);
	return n;
}

/* The comm field of /proc/self/task/TID/stat, or "" */
static void
task_comm(pid_t tid, char *comm, size_t len)
{
	char path[64], buf[256] = "";
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY);
	comm[0] = 0;
	if (fd < 0)
		return;
	read(fd, buf, sizeof(buf) - 1);
	close(fd);
	char *a = strchr(buf, '('), *b = strrchr(buf, ')');
	if (a && b && b > a && (size_t)(b - a) <= len) {
		memcpy(comm, a + 1, b - a - 1);
		comm[b - a - 1] = 0;
	}
}

static void *
member(void *arg)
{
	int id = (int)(long)arg;
	long b = 0;
	char name[16];
	tids[id] = thr_gettid();
	b |= (getpid() == tids[id]) << 0;
	snprintf(name, sizeof(name), "member%d", id);
	prctl(PR_SET_NAME, name);
	pthread_barrier_wait(&bar);
	pthread_barrier_wait(&bar);
	pthread_mutex_lock(&m);
	bad |= b;
	pthread_mutex_unlock(&m);
	return (void *)(long)getppid();
}

int
main(void)
{
	pthread_t t[NTHR];
	char comm[32], what[64];

	thr_init();
	pthread_barrier_init(&bar, NULL, NTHR + 1);
	for (long i = 0; i < NTHR; i++)
		thr_create(&t[i], NULL, member, (void *)i);
	pthread_barrier_wait(&bar);
	EXPECT(thr_gettid(), getpid(), "main's tid is the pid");
	int distinct = 1;
	for (int i = 0; i < NTHR; i++)
		for (int j = 0; j < i; j++)
			distinct &= tids[i] != tids[j];
	CHECK(distinct, "each thread has a tid of its own");
	EXPECT(thr_ntasks(), NTHR + 1, "/proc/self/task lists five");
	EXPECT(status_threads(), NTHR + 1, "/proc/self/status: Threads: 5");
	for (int i = 0; i < NTHR; i++) {
		task_comm(tids[i], comm, sizeof(comm));
		snprintf(what, sizeof(what), "/proc/self/task/TID/stat of thread %d: member%d", i, i);
		CHECK(strncmp(comm, "member", 6) == 0 && comm[6] == '0' + i && comm[7] == 0, what);
	}
	pthread_barrier_wait(&bar);
	int same_ppid = 1;
	for (int i = 0; i < NTHR; i++)
		same_ppid &= (long)thr_join(t[i]) == (long)getppid();
	CHECK(same_ppid, "all share the parent pid");
	EXPECT(bad, 0, "no thread's tid is the pid");
	return thr_exit_status();
}
