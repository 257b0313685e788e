/*
 * PI futexes, requeue-PI and robust lists: LOCK_PI, TRYLOCK_PI,
 * UNLOCK_PI, LOCK_PI2, WAIT_REQUEUE_PI, CMP_REQUEUE_PI, their errors,
 * the hand-off to a waiter on unlock and on the owner's death, and the
 * robust list's FUTEX_OWNER_DIED, between processes sharing a mapping;
 * then the same through the C library's process-shared robust and
 * priority-inheritance mutexes.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "futextest.h"

/* <linux/futex.h>, which musl-gcc does not see */
enum {
	FUTEX_WAIT, FUTEX_WAKE, FUTEX_FD, FUTEX_REQUEUE, FUTEX_CMP_REQUEUE,
	FUTEX_WAKE_OP, FUTEX_LOCK_PI, FUTEX_UNLOCK_PI, FUTEX_TRYLOCK_PI,
	FUTEX_WAIT_BITSET, FUTEX_WAKE_BITSET, FUTEX_WAIT_REQUEUE_PI,
	FUTEX_CMP_REQUEUE_PI, FUTEX_LOCK_PI2,
};
#define FUTEX_PRIVATE_FLAG	128
#define FUTEX_CLOCK_REALTIME	256
#define FUTEX_WAITERS		0x80000000u
#define FUTEX_OWNER_DIED	0x40000000u
#define FUTEX_TID_MASK		0x3fffffffu

/* Shared between the parent and its children. */
struct shm {
	uint32_t m, c, m2, plain;	/* a PI lock, a condition, another lock, a plain word */
	int32_t tid[4];			/* who is who, for printing */
	int order;			/* turns taken */
	long result[8];			/* what children saw */
	uint32_t seen[8];		/* lock words children saw */
	/* a robust list: head, two entries, each before its lock word */
	struct { uint64_t list; int64_t futex_offset; uint64_t op_pending; } head;
	struct { uint64_t next; uint32_t word; } ent[3];
};

static struct shm *s;

/* A lock word with the tids named: "child|WAITERS|OWNER_DIED". */
static const char *
word(uint32_t w)
{
	static char buf[4][64];
	static int n;
	char *b = buf[n++ % 4];
	int32_t tid = (int32_t)(w & FUTEX_TID_MASK);
	const char *who = "?";
	if (tid == 0)
		who = "0";
	else if (tid == getpid())
		who = "parent";
	else
		for (int i = 0; i < 4; i++)
			if (s->tid[i] == tid)
				who = i == 0 ? "child" : i == 1 ? "child2" : "other";
	snprintf(b, 64, "%s%s%s", who, (w & FUTEX_WAITERS) ? "|WAITERS" : "",
	    (w & FUTEX_OWNER_DIED) ? "|OWNER_DIED" : "");
	return b;
}

#define CHECK(what, call) printf("%-44s %s\n", what, err(call))

static struct timespec
abs_ts(clockid_t c, int ms)
{
	struct timespec ts;
	clock_gettime(c, &ts);
	ts.tv_nsec += (ms % 1000) * 1000000L;
	ts.tv_sec += ms / 1000 + ts.tv_nsec / 1000000000;
	ts.tv_nsec %= 1000000000;
	return ts;
}

/* Waits up to 5 s for (*w & mask) != 0. */
static int
wait_bits(volatile uint32_t *w, uint32_t mask)
{
	for (int i = 0; i < 5000; i++) {
		if (*w & mask)
			return 1;
		usleep(1000);
	}
	return 0;
}

/*
 * Waits up to 5 s for process pid to sleep (in the kernel: state S in
 * /proc/PID/stat), so that it is queued before we go on.
 */
static void
wait_sleeping(pid_t pid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	for (int i = 0; i < 5000; i++) {
		FILE *f = fopen(path, "r");
		size_t n = f != NULL ? fread(buf, 1, sizeof(buf) - 1, f) : 0;
		if (f != NULL)
			fclose(f);
		buf[n] = '\0';
		char *p = strrchr(buf, ')');
		if (p != NULL && p[1] == ' ' && p[2] == 'S')
			return;
		usleep(1000);
	}
}

static pid_t
child(int slot, void (*fn)(void))
{
	pid_t pid = fork();
	if (pid == 0) {
		s->tid[slot] = getpid();
		fn();
		_exit(0);
	}
	s->tid[slot] = pid;
	return pid;
}

static void
reap(pid_t pid)
{
	waitpid(pid, NULL, 0);
}

static void
errors(void)
{
	static uint32_t w;
	static const uint32_t ro __attribute__((aligned(4)));
	struct timespec bad = { 0, -1 };
	char *unmapped = mmap(NULL, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap(unmapped, 4096);

	CHECK("TRYLOCK_PI free", fx(&w, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0));
	printf("  word %s\n", word(w));
	CHECK("LOCK_PI own lock", fx(&w, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	CHECK("TRYLOCK_PI own lock", fx(&w, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0));
	CHECK("LOCK_PI2 own lock", fx(&w, FUTEX_LOCK_PI2, 0, NULL, NULL, 0));
	CHECK("UNLOCK_PI", fx(&w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	printf("  word %s\n", word(w));
	CHECK("UNLOCK_PI free lock", fx(&w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	w = 1;
	CHECK("UNLOCK_PI another's lock", fx(&w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	w = FUTEX_OWNER_DIED;
	CHECK("LOCK_PI_PRIVATE owner died", fx(&w, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0));
	printf("  word %s\n", word(w));
	CHECK("UNLOCK_PI_PRIVATE", fx(&w, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0));
	printf("  word %s\n", word(w));
	w = FUTEX_WAITERS;
	CHECK("LOCK_PI2 tid 0, WAITERS", fx(&w, FUTEX_LOCK_PI2, 0, NULL, NULL, 0));
	printf("  word %s\n", word(w));
	fx(&w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);

	/* An owner that does not exist: a child reaped. */
	pid_t pid = fork();
	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	w = (uint32_t)pid;
	CHECK("LOCK_PI owner gone", fx(&w, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	printf("  waiters bit %d\n", (w & FUTEX_WAITERS) != 0);
	w = (uint32_t)pid;
	CHECK("TRYLOCK_PI owner gone", fx(&w, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0));
	w = 0;
	CHECK("LOCK_PI misaligned", fx((char *)&w + 1, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	CHECK("LOCK_PI unmapped", fx(unmapped, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	CHECK("LOCK_PI_PRIVATE unmapped", fx(unmapped, FUTEX_LOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0));
	CHECK("LOCK_PI read-only", fx((void *)&ro, FUTEX_LOCK_PI, 0, NULL, NULL, 0));
	CHECK("UNLOCK_PI unmapped", fx(unmapped, FUTEX_UNLOCK_PI | FUTEX_PRIVATE_FLAG, 0, NULL, NULL, 0));
	CHECK("LOCK_PI bad timeout", fx(&w, FUTEX_LOCK_PI, 0, &bad, NULL, 0));
	CHECK("LOCK_PI timeout unmapped", fx(&w, FUTEX_LOCK_PI, 0, unmapped, NULL, 0));
	CHECK("LOCK_PI|CLOCK_REALTIME", fx(&w, FUTEX_LOCK_PI | FUTEX_CLOCK_REALTIME, 0, NULL, NULL, 0));
	CHECK("TRYLOCK_PI|CLOCK_REALTIME", fx(&w, FUTEX_TRYLOCK_PI | FUTEX_CLOCK_REALTIME, 0, NULL, NULL, 0));
	CHECK("LOCK_PI2|CLOCK_REALTIME", fx(&w, FUTEX_LOCK_PI2 | FUTEX_CLOCK_REALTIME, 0, NULL, NULL, 0));
	CHECK("UNLOCK_PI", fx(&w, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0));
	/* A plain wait and a PI lock on one word do not mix. */
	w = 0;
	CHECK("WAKE on a free PI word", fx(&w, FUTEX_WAKE, 1, NULL, NULL, 0));

	static uint32_t c, m;
	struct timespec past = { 1, 0 };
	CHECK("WAIT_REQUEUE_PI same word", fx(&c, FUTEX_WAIT_REQUEUE_PI, 0, NULL, &c, 0));
	CHECK("WAIT_REQUEUE_PI value differs", fx(&c, FUTEX_WAIT_REQUEUE_PI, 1, NULL, &m, 0));
	CHECK("WAIT_REQUEUE_PI past deadline", fx(&c, FUTEX_WAIT_REQUEUE_PI, 0, &past, &m, 0));
	CHECK("WAIT_REQUEUE_PI|REALTIME past", fx(&c, FUTEX_WAIT_REQUEUE_PI | FUTEX_CLOCK_REALTIME, 0, &past, &m, 0));
	CHECK("WAIT_REQUEUE_PI misaligned target", fx(&c, FUTEX_WAIT_REQUEUE_PI, 0, NULL, (char *)&m + 2, 0));
	CHECK("WAIT_REQUEUE_PI unmapped target", fx(&c, FUTEX_WAIT_REQUEUE_PI, 0, NULL, unmapped, 0));
	CHECK("CMP_REQUEUE_PI wake 2", fx(&c, FUTEX_CMP_REQUEUE_PI, 2, (void *)1, &m, 0));
	CHECK("CMP_REQUEUE_PI wake 0", fx(&c, FUTEX_CMP_REQUEUE_PI, 0, (void *)1, &m, 0));
	CHECK("CMP_REQUEUE_PI same word", fx(&c, FUTEX_CMP_REQUEUE_PI, 1, (void *)1, &c, 0));
	CHECK("CMP_REQUEUE_PI negative requeue", fx(&c, FUTEX_CMP_REQUEUE_PI, 1, (void *)-1L, &m, 0));
	CHECK("CMP_REQUEUE_PI value differs", fx(&c, FUTEX_CMP_REQUEUE_PI, 1, (void *)1, &m, 1));
	CHECK("CMP_REQUEUE_PI nobody", fx(&c, FUTEX_CMP_REQUEUE_PI, 1, (void *)1, &m, 0));
	printf("  lock word %s\n", word(m));
}

static void
lock_and_report(void)
{
	s->result[0] = fx(&s->m, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	s->seen[0] = s->m;
}

static void
lock_timed_rt(void)
{
	struct timespec t = abs_ts(CLOCK_REALTIME, 30);
	s->result[0] = fx(&s->m, FUTEX_LOCK_PI, 0, &t, NULL, 0);
	t = abs_ts(CLOCK_MONOTONIC, 30);
	s->result[1] = fx(&s->m, FUTEX_LOCK_PI2, 0, &t, NULL, 0);
	t = abs_ts(CLOCK_REALTIME, 30);
	s->result[2] = fx(&s->m, FUTEX_LOCK_PI2 | FUTEX_CLOCK_REALTIME, 0, &t, NULL, 0);
	s->result[3] = fx(&s->m, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
	s->seen[0] = s->m;
	s->result[4] = fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
}

static void
hold_until_waited(void)
{
	fx(&s->m, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
	wait_bits(&s->m, FUTEX_WAITERS);
}

/* Slot i (the tid's index) locks, notes its turn, and unlocks. */
static void
lock_in_turn(void)
{
	int i = s->tid[1] == getpid();
	s->result[2 * i] = fx(&s->m, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	s->seen[i] = s->m;
	s->result[4 + i] = __atomic_fetch_add(&s->order, 1, __ATOMIC_SEQ_CST);
	usleep(20000);
	s->result[2 * i + 1] = fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
}

static void
pi_between_processes(void)
{
	pid_t a, b;
	long r;

	/* An unlock hands the lock to the waiter. */
	s->m = 0;
	fx(&s->m, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
	a = child(0, lock_and_report);
	wait_sleeping(a);
	printf("UNLOCK_PI with a waiter: %s\n", err(fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0)));
	reap(a);
	printf("  waiter's LOCK_PI: %s, saw %s\n", err(s->result[0]), word(s->seen[0]));
	printf("  the dead child's lock: %s\n", word(s->m));
	r = fx(&s->m, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	printf("LOCK_PI on it: %s, word %s\n", err(r), word(s->m));

	/* Timeouts on the three clocks, and TRYLOCK, against a live owner. */
	s->m = 0;
	fx(&s->m, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
	a = child(0, lock_timed_rt);
	reap(a);
	printf("LOCK_PI realtime +30 ms: %s\n", err(s->result[0]));
	printf("LOCK_PI2 monotonic +30 ms: %s\n", err(s->result[1]));
	printf("LOCK_PI2|CLOCK_REALTIME +30 ms: %s\n", err(s->result[2]));
	printf("TRYLOCK_PI held: %s, word %s\n", err(s->result[3]), word(s->seen[0]));
	printf("UNLOCK_PI by another: %s\n", err(s->result[4]));
	r = fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	printf("UNLOCK_PI (no waiters left): %s, word %s\n", err(r), word(s->m));

	/* The owner dies with a waiter and no robust list: the waiter gets it. */
	s->m = 0;
	a = child(0, hold_until_waited);
	while (s->m == 0)
		usleep(1000);
	r = fx(&s->m, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	printf("LOCK_PI, owner dies: %s, word %s\n", err(r), word(s->m));
	reap(a);
	r = fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	printf("UNLOCK_PI: %s, word %s\n", err(r), word(s->m));

	/* Two waiters: in order, each unlock hands over once. */
	s->m = 0;
	s->order = 0;
	fx(&s->m, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
	a = child(0, lock_in_turn);
	wait_sleeping(a);
	b = child(1, lock_in_turn);
	wait_sleeping(b);
	r = fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	printf("UNLOCK_PI, two waiters: %s\n", err(r));
	reap(a);
	reap(b);
	for (int i = 0; i < 2; i++)
		printf("  waiter %d: LOCK_PI %s, saw %s, UNLOCK_PI %s, turn %ld\n", i,
		    err(s->result[2 * i]), word(s->seen[i]), err(s->result[2 * i + 1]),
		    s->result[4 + i]);
	printf("  word %s\n", word(s->m));
}

static void
wait_requeue(void)
{
	s->result[1] = fx(&s->c, FUTEX_WAIT_REQUEUE_PI, 0, NULL, &s->m, 0);
	s->seen[1] = s->m;
	if (s->result[1] == 0)
		s->result[2] = fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
}

static void
wait_requeue_timed(void)
{
	struct timespec t = abs_ts(CLOCK_MONOTONIC, 60);
	s->result[1] = fx(&s->c, FUTEX_WAIT_REQUEUE_PI, 0, &t, &s->m, 0);
}

/* Until a waiter is queued on c: a plain requeue onto itself counts it... */
static long
requeue_pi_when_waiting(uint32_t *m, int nr_requeue)
{
	long r = 0;
	for (int i = 0; i < 5000 && r == 0; i++) {
		r = fx(&s->c, FUTEX_CMP_REQUEUE_PI, 1, (void *)(long)nr_requeue, m, 0);
		if (r == 0)
			usleep(1000);
	}
	return r;
}

static void
requeue_pi(void)
{
	pid_t a;
	long r;

	/* The lock is free: the waiter takes it at the requeue. */
	s->c = 0;
	s->m = 0;
	a = child(0, wait_requeue);
	printf("CMP_REQUEUE_PI, lock free: %ld\n", requeue_pi_when_waiting(&s->m, 0));
	reap(a);
	printf("  waiter: %s, saw %s, its unlock %s\n", err(s->result[1]),
	    word(s->seen[1]), err(s->result[2]));

	/* The lock is held: the waiter moves to it and gets it at the unlock. */
	fx(&s->m, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
	a = child(0, wait_requeue);
	wait_sleeping(a);
	/* Plain operations on a requeue-PI waiter are refused. */
	printf("WAKE of a WAIT_REQUEUE_PI waiter: %s\n", err(fx(&s->c, FUTEX_WAKE, 1, NULL, NULL, 0)));
	printf("REQUEUE of it: %s\n", err(fx(&s->c, FUTEX_REQUEUE, 0, (void *)1, &s->m2, 0)));
	printf("CMP_REQUEUE_PI to another lock: %s\n", err(fx(&s->c, FUTEX_CMP_REQUEUE_PI, 1, (void *)1, &s->m2, 0)));
	printf("CMP_REQUEUE_PI, lock held: %ld\n", requeue_pi_when_waiting(&s->m, 1));
	printf("  lock word %s\n", word(s->m));
	printf("WAKE of the requeued waiter: %s\n", err(fx(&s->m, FUTEX_WAKE, 1, NULL, NULL, 0)));
	printf("UNLOCK_PI: %s\n", err(fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0)));
	reap(a);
	printf("  waiter: %s, saw %s, its unlock %s\n", err(s->result[1]),
	    word(s->seen[1]), err(s->result[2]));

	/* Requeued, then its deadline passes on the lock. */
	s->m = 0;
	fx(&s->m, FUTEX_TRYLOCK_PI, 0, NULL, NULL, 0);
	a = child(0, wait_requeue_timed);
	printf("CMP_REQUEUE_PI, timed waiter: %ld\n", requeue_pi_when_waiting(&s->m, 1));
	reap(a);
	printf("  waiter: %s\n", err(s->result[1]));
	r = fx(&s->m, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	printf("UNLOCK_PI: %s, word %s\n", err(r), word(s->m));

	/* Not requeued before its deadline. */
	a = child(0, wait_requeue_timed);
	reap(a);
	printf("WAIT_REQUEUE_PI +60 ms, nobody requeues: %s\n", err(s->result[1]));
}

/* The robust list in s: entry i's lock word is s->ent[i].word. */
static void
robust_setup(int n, int pending, int pi_mask)
{
	uint64_t h = (uint64_t)(uintptr_t)&s->head;
	s->head.futex_offset = (int64_t)((char *)&s->ent[0].word - (char *)&s->ent[0]);
	s->head.list = h;
	for (int i = n - 1; i >= 0; i--) {
		s->ent[i].next = s->head.list;
		s->head.list = (uint64_t)(uintptr_t)&s->ent[i] | ((pi_mask >> i) & 1);
	}
	s->head.op_pending = pending >= 0 ? (uint64_t)(uintptr_t)&s->ent[pending] : 0;
	syscall(SYS_set_robust_list, &s->head, sizeof(s->head));
}

static void
robust_owner(void)
{
	/* Holds ent[0] (plain) and ent[1] (PI); ent[2] is pending and free. */
	s->ent[0].word = (uint32_t)getpid();
	s->ent[1].word = (uint32_t)getpid();
	s->ent[2].word = 0;
	robust_setup(2, 2, 2);
	void *head;
	size_t len;
	syscall(SYS_get_robust_list, 0, &head, &len);
	s->result[0] = head == &s->head && len == 24;
	wait_bits(&s->ent[1].word, FUTEX_WAITERS);
	usleep(30000);
}

static void
robust_waiter_plain(void)
{
	uint32_t v = s->ent[0].word;
	if (__sync_bool_compare_and_swap(&s->ent[0].word, v, v | FUTEX_WAITERS))
		s->result[1] = fx(&s->ent[0].word, FUTEX_WAIT, v | FUTEX_WAITERS, NULL, NULL, 0);
	s->seen[1] = s->ent[0].word;
}

static void
robust_waiter_pending(void)
{
	s->result[2] = fx(&s->ent[2].word, FUTEX_WAIT, 0, NULL, NULL, 0);
}

static void
robust(void)
{
	uint64_t h = 0;
	size_t len = 0;
	void *head;

	memset(&s->ent, 0, sizeof(s->ent));
	CHECK("set_robust_list len 23", syscall(SYS_set_robust_list, &s->head, 23) < 0 ? -errno : 0);
	CHECK("get_robust_list bad pointer", syscall(SYS_get_robust_list, 0, NULL, &len) < 0 ? -errno : 0);
	CHECK("get_robust_list no such tid", syscall(SYS_get_robust_list, 999999, &h, &len) < 0 ? -errno : 0);
	/* Another user may not read root's list. */
	pid_t u = fork();
	if (u == 0) {
		if (setgid(65534) == 0 && setuid(65534) == 0) {
			CHECK("  get_robust_list of root's, as nobody",
			    syscall(SYS_get_robust_list, getppid(), &h, &len) < 0 ? -errno : 0);
			CHECK("  get_robust_list of its own",
			    syscall(SYS_get_robust_list, 0, &h, &len) < 0 ? -errno : 0);
		}
		_exit(0);
	}
	reap(u);

	pid_t a = child(0, robust_owner);
	while (s->ent[1].word == 0)
		usleep(1000);
	usleep(10000);
	pid_t b = child(1, robust_waiter_plain);
	pid_t c = child(2, robust_waiter_pending);
	wait_sleeping(b);
	wait_sleeping(c);
	long r = syscall(SYS_get_robust_list, a, &head, &len);
	printf("get_robust_list of the owner: %s, its head %d, len %zu\n", err(r < 0 ? -errno : r),
	    head == &s->head, len);
	r = fx(&s->ent[1].word, FUTEX_LOCK_PI, 0, NULL, NULL, 0);
	printf("LOCK_PI on the dying owner's robust PI lock: %s\n", err(r));
	printf("  word %s\n", word(s->ent[1].word));
	reap(a);
	reap(b);
	reap(c);
	printf("owner saw its list: %ld\n", s->result[0]);
	printf("plain waiter: %s, word %s\n", err(s->result[1]), word(s->seen[1]));
	printf("pending waiter: %s\n", err(s->result[2]));
	r = fx(&s->ent[1].word, FUTEX_UNLOCK_PI, 0, NULL, NULL, 0);
	printf("UNLOCK_PI: %s, word %s\n", err(r), word(s->ent[1].word));
}

/* The C library's process-shared mutexes over the same mechanisms. */
struct pshm {
	pthread_mutex_t robust, pi, robust_pi;
	pthread_mutex_t cm;
	pthread_cond_t cv;
	int ready, flag;
};

static struct pshm *ps;

static void
mutex_init(pthread_mutex_t *m, int robust, int pi)
{
	pthread_mutexattr_t a;
	pthread_mutexattr_init(&a);
	pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (robust)
		pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (pi)
		pthread_mutexattr_setprotocol(&a, PTHREAD_PRIO_INHERIT);
	pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
}

static void
libc_mutexes(void)
{
	ps = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	mutex_init(&ps->robust, 1, 0);
	mutex_init(&ps->pi, 0, 1);
	mutex_init(&ps->robust_pi, 1, 1);
	mutex_init(&ps->cm, 0, 0);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setpshared(&ca, PTHREAD_PROCESS_SHARED);
	pthread_cond_init(&ps->cv, &ca);

	/* A child takes the three mutexes and dies. */
	pid_t pid = fork();
	if (pid == 0) {
		pthread_mutex_lock(&ps->robust);
		pthread_mutex_lock(&ps->robust_pi);
		pthread_mutex_lock(&ps->pi);
		__atomic_store_n(&ps->ready, 1, __ATOMIC_SEQ_CST);
		usleep(50000);
		pthread_mutex_unlock(&ps->pi);	/* the parent waits in LOCK_PI by now */
		usleep(20000);
		_exit(0);
	}
	while (!__atomic_load_n(&ps->ready, __ATOMIC_SEQ_CST))
		usleep(1000);
	printf("PI mutex, owner unlocks: %d\n", pthread_mutex_lock(&ps->pi));
	int r = pthread_mutex_lock(&ps->robust);
	printf("robust mutex, owner died: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
	r = pthread_mutex_consistent(&ps->robust);
	printf("  consistent %d", r);
	printf(", unlock %d\n", pthread_mutex_unlock(&ps->robust));
	r = pthread_mutex_lock(&ps->robust_pi);
	printf("robust PI mutex, owner died: %s\n", r == EOWNERDEAD ? "EOWNERDEAD" : strerror(r));
	r = pthread_mutex_consistent(&ps->robust_pi);
	printf("  consistent %d", r);
	printf(", unlock %d\n", pthread_mutex_unlock(&ps->robust_pi));
	pthread_mutex_unlock(&ps->pi);
	waitpid(pid, NULL, 0);

	/* A process-shared condition variable. */
	pid = fork();
	if (pid == 0) {
		pthread_mutex_lock(&ps->cm);
		while (!ps->flag)
			pthread_cond_wait(&ps->cv, &ps->cm);
		pthread_mutex_unlock(&ps->cm);
		_exit(7);
	}
	usleep(30000);
	pthread_mutex_lock(&ps->cm);
	ps->flag = 1;
	pthread_cond_broadcast(&ps->cv);
	pthread_mutex_unlock(&ps->cm);
	int st;
	waitpid(pid, &st, 0);
	printf("condition variable across processes: status %d\n", WEXITSTATUS(st));
}

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	s = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	errors();
	pi_between_processes();
	requeue_pi();
	robust();
	libc_mutexes();
	return 0;
}
