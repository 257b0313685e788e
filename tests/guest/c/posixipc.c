/*
 * POSIX shared memory and named semaphores (files in /dev/shm mapped
 * MAP_SHARED): shm_open + mmap across fork and across an unrelated
 * open, sem_open semaphores that block and wake across processes
 * (futexes on a shared page of a file), a process-shared unnamed
 * semaphore in shm_open memory, and the errors of O_EXCL and unlink.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define ROUNDS 200

int
main(void)
{
	char shmname[64], semname[64], semname2[64];
	snprintf(shmname, sizeof(shmname), "/vk-posixipc-%d", getpid());
	snprintf(semname, sizeof(semname), "/vk-posixipc-a-%d", getpid());
	snprintf(semname2, sizeof(semname2), "/vk-posixipc-b-%d", getpid());

	int fd = shm_open(shmname, O_RDWR | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		printf("shm_open: %s\n", strerror(errno));
		return 1;
	}
	printf("again with O_EXCL: %s\n",
	    shm_open(shmname, O_RDWR | O_CREAT | O_EXCL, 0600) < 0 ?
	    strerror(errno) : "ok");
	if (ftruncate(fd, 65536) < 0)
		return 2;
	long *counter = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED,
	    fd, 0);
	if (counter == MAP_FAILED)
		return 3;
	sem_t *unnamed = (sem_t *)(counter + 64);
	sem_init(unnamed, 1, 0);

	sem_t *ping = sem_open(semname, O_CREAT | O_EXCL, 0600, 0);
	sem_t *pong = sem_open(semname2, O_CREAT | O_EXCL, 0600, 0);
	if (ping == SEM_FAILED || pong == SEM_FAILED) {
		printf("sem_open: %s\n", strerror(errno));
		return 4;
	}
	printf("sem_open O_EXCL again: %s\n",
	    sem_open(semname, O_CREAT | O_EXCL, 0600, 0) == SEM_FAILED ?
	    strerror(errno) : "ok");

	/* Ping-pong: each side waits (sleeping on a futex) for the other. */
	pid_t pid = fork();
	if (pid == 0) {
		/* The child opens the semaphores by name, as another program would. */
		sem_t *a = sem_open(semname, 0), *b = sem_open(semname2, 0);
		int sfd = shm_open(shmname, O_RDWR, 0);
		long *c = mmap(NULL, 65536, PROT_READ | PROT_WRITE, MAP_SHARED, sfd, 0);
		if (a == SEM_FAILED || b == SEM_FAILED || c == MAP_FAILED)
			_exit(1);
		for (int i = 0; i < ROUNDS; i++) {
			sem_wait(a);
			c[0]++;
			sem_post(b);
		}
		sem_post((sem_t *)(c + 64));
		_exit(0);
	}
	for (int i = 0; i < ROUNDS; i++) {
		counter[0]++;
		sem_post(ping);
		sem_wait(pong);
	}
	sem_wait(unnamed);	/* the child's last post, on the unnamed one */
	int status;
	waitpid(pid, &status, 0);
	printf("child status %d, counter %ld (want %d)\n", WEXITSTATUS(status),
	    counter[0], 2 * ROUNDS);

	/* A wait that times out, and one woken by another process. */
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_nsec += 50 * 1000 * 1000;
	if (ts.tv_nsec >= 1000000000) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000;
	}
	printf("timedwait: %s\n", sem_timedwait(ping, &ts) < 0 ?
	    strerror(errno) : "ok");
	printf("trywait: %s\n", sem_trywait(ping) < 0 ? strerror(errno) : "ok");
	pid = fork();
	if (pid == 0) {
		usleep(20000);
		sem_post(ping);
		_exit(0);
	}
	printf("woken: %s\n", sem_wait(ping) < 0 ? strerror(errno) : "ok");
	waitpid(pid, NULL, 0);
	int v = -1;
	sem_getvalue(ping, &v);
	printf("value %d\n", v);

	struct stat st;
	fstat(fd, &st);
	printf("shm size %lld mode %o\n", (long long)st.st_size, st.st_mode & 0777);
	sem_close(ping);
	sem_close(pong);
	int u1 = sem_unlink(semname), u2 = sem_unlink(semname2);
	int u3 = sem_unlink(semname);
	printf("sem_unlink: %d %d, again: %s\n", u1, u2, u3 < 0 ? strerror(errno) : "ok");
	u1 = shm_unlink(shmname);
	u2 = shm_unlink(shmname);
	printf("shm_unlink: %d, again: %s\n", u1, u2 < 0 ? strerror(errno) : "ok");
	printf("open after unlink: %s\n", shm_open(shmname, O_RDWR, 0) < 0 ?
	    strerror(errno) : "ok");
	printf("mapping still there: %ld\n", counter[0]);
	return 0;
}
