/*
 * Read-write locks: three readers hold the lock at once (they meet at a
 * barrier while holding it), a writer is refused while they do (EBUSY)
 * and readers are refused while a writer holds it (EBUSY, ETIMEDOUT);
 * two writers and two readers: readers never see a half-made update.
 */
#include "thr.h"

#define NREAD	3
#define ROUNDS	50000

static pthread_rwlock_t rw = PTHREAD_RWLOCK_INITIALIZER;
static pthread_barrier_t held, release;
static long a, b, torn;

static void *
holding_reader(void *arg)
{
	(void)arg;
	pthread_rwlock_rdlock(&rw);
	pthread_barrier_wait(&held);
	pthread_barrier_wait(&release);
	pthread_rwlock_unlock(&rw);
	return NULL;
}

/* Tries the lock while main holds it for writing. */
static void *
refused_reader(void *arg)
{
	long r = 0;
	(void)arg;
	struct timespec dl = thr_deadline(CLOCK_REALTIME, 50);
	r |= (pthread_rwlock_tryrdlock(&rw) == EBUSY) << 0;
	r |= (pthread_rwlock_trywrlock(&rw) == EBUSY) << 1;
	r |= (pthread_rwlock_timedrdlock(&rw, &dl) == ETIMEDOUT) << 2;
	r |= thr_passed(CLOCK_REALTIME, dl) << 3;
	return (void *)r;
}

static void *
writer(void *arg)
{
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_rwlock_wrlock(&rw);
		a++;
		b++;
		pthread_rwlock_unlock(&rw);
	}
	return NULL;
}

static void *
checker(void *arg)
{
	long bad = 0;
	(void)arg;
	for (int i = 0; i < ROUNDS; i++) {
		pthread_rwlock_rdlock(&rw);
		bad += a != b;
		pthread_rwlock_unlock(&rw);
	}
	return (void *)bad;
}

int
main(void)
{
	pthread_t t[NREAD + 1];

	thr_init();
	pthread_barrier_init(&held, NULL, NREAD + 1);
	pthread_barrier_init(&release, NULL, NREAD + 1);
	for (int i = 0; i < NREAD; i++)
		thr_create(&t[i], NULL, holding_reader, NULL);
	pthread_barrier_wait(&held);
	CHECK(1, "three readers hold the lock at once");
	EXPECT(pthread_rwlock_trywrlock(&rw), EBUSY, "trywrlock while readers hold it: EBUSY");
	EXPECT(pthread_rwlock_tryrdlock(&rw), 0, "tryrdlock while readers hold it");
	pthread_rwlock_unlock(&rw);
	pthread_barrier_wait(&release);
	for (int i = 0; i < NREAD; i++)
		thr_join(t[i]);

	EXPECT(pthread_rwlock_wrlock(&rw), 0, "wrlock");
	EXPECT((long)thr_join((thr_create(&t[0], NULL, refused_reader, NULL), t[0])), 15,
	    "while written: tryrdlock, trywrlock EBUSY, timedrdlock ETIMEDOUT after the deadline");
	EXPECT(pthread_rwlock_unlock(&rw), 0, "unlock");

	thr_create(&t[0], NULL, writer, NULL);
	thr_create(&t[1], NULL, writer, NULL);
	thr_create(&t[2], NULL, checker, NULL);
	thr_create(&t[3], NULL, checker, NULL);
	thr_join(t[0]);
	thr_join(t[1]);
	torn = (long)thr_join(t[2]) + (long)thr_join(t[3]);
	EXPECT(a, 2 * ROUNDS, "two writers: every update made");
	EXPECT(torn, 0, "two readers: no half-made update seen");
	return thr_exit_status();
}
