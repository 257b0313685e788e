/*
 * Futex keys, wait queues and wakes (see proc/futex_var.h).  Waiters hang on a
 * hash of queues by key; a queue keeps arrival order, so wakes are
 * first come, first served (Linux orders by priority, and all of ours
 * are equal).
 */
#include <time.h>

#include "kern/futex.h"
#include "kern/proc.h"
#include "proc/futex_var.h"
#include "kern/uio.h"
#include "vm/vm.h"
#include "vm/vm_object.h"

#define FUTEX_HASH	256

TAILQ_HEAD(futexq, futex_waiter);

static struct futexq futex_hash[FUTEX_HASH];
static bool futex_hash_ready;
int futex_npi;

static struct futexq *
futex_bucket(const struct futex_key *key)
{
	if (!futex_hash_ready) {
		for (int i = 0; i < FUTEX_HASH; i++)
			TAILQ_INIT(&futex_hash[i]);
		futex_hash_ready = true;
	}
	uint64_t h = (uintptr_t)key->fk_space ^ (key->fk_off * 0x9e3779b97f4a7c15ULL) ^
	    (uint64_t)key->fk_type;
	h ^= h >> 29;
	return &futex_hash[(h * 0xbf58476d1ce4e5b9ULL) >> 56];
}

int
futex_key_get(struct vmspace *vm, uint64_t uaddr, bool shared,
    struct futex_key *key)
{
	if ((uaddr & 3) != 0)
		return -EINVAL;
	if (!user_range_ok(uaddr, sizeof(uint32_t)))
		return -EFAULT;
	*key = (struct futex_key){ vm, uaddr, FK_PRIVATE };
	if (!shared)
		return 0;
	/*
	 * A shared futex is what the memory is: fault the page in, which
	 * also gives a shared anonymous mapping its object.  Private memory
	 * (copy-on-write) is this address space's alone, as Linux keys an
	 * anonymous page by its mm.
	 */
	uint64_t page = uaddr & ~(uint64_t)PAGE_MASK;
	if (page >= VM_MAX_USER_ADDRESS || vm_user_page(vm, page, false) == NULL)
		return -EFAULT;
	struct vm_map_entry *e;
	if (!vm_map_lookup_entry(&vm->vm_map, uaddr, &e))
		return -EFAULT;
	if ((e->eflags & MAP_ENTRY_COW) || e->object == NULL)
		*key = (struct futex_key){ vm, uaddr, FK_MM };
	else
		*key = (struct futex_key){ e->object, e->offset + (uaddr - e->start),
		    FK_OBJECT };
	return 0;
}

void
futex_waiter_init(struct futex_waiter *w, struct lwp *lp,
    const struct futex_key *key, uint32_t bitset, const void *chan)
{
	*w = (struct futex_waiter){ .fw_key = *key, .fw_bitset = bitset,
	    .fw_state = FW_GONE, .fw_lwp = lp, .fw_chan = chan };
}

static void
key_hold(const struct futex_key *key)
{
	if (key->fk_type == FK_OBJECT)
		vm_object_reference((struct vm_object *)key->fk_space);
}

static void
key_drop(const struct futex_key *key)
{
	if (key->fk_type == FK_OBJECT)
		vm_object_deallocate((struct vm_object *)key->fk_space);
}

/* Off its queue; the caller sets the state. */
static void
dequeue(struct futex_waiter *w)
{
	KASSERT(w->fw_state == FW_QUEUED, "futex: dequeue of a waiter not queued");
	TAILQ_REMOVE(futex_bucket(&w->fw_key), w, fw_link);
	if (w->fw_flags & FW_PI)
		futex_npi--;
}

void
futex_queue(struct futex_waiter *w)
{
	KASSERT(kernel_locked(), "futex_queue: big lock not held");
	key_hold(&w->fw_key);
	TAILQ_INSERT_TAIL(futex_bucket(&w->fw_key), w, fw_link);
	w->fw_state = FW_QUEUED;
	if (w->fw_flags & FW_PI)
		futex_npi++;
}

void
futex_wake_waiter(struct futex_waiter *w, int state)
{
	dequeue(w);
	w->fw_state = state;
	wakeup(w->fw_chan);
}

void
futex_unqueue(struct futex_waiter *w)
{
	if (w->fw_state == FW_QUEUED) {
		dequeue(w);
		w->fw_state = FW_GONE;
	}
	struct futex_key key = w->fw_key;
	w->fw_key.fk_type = FK_PRIVATE;		/* holds nothing any more */
	key_drop(&key);
}

void
futex_requeue_waiter(struct futex_waiter *w, const struct futex_key *key)
{
	KASSERT(w->fw_state == FW_QUEUED, "futex: requeue of a waiter not queued");
	/*
	 * The old key's object cannot go with this reference: the
	 * requeuer's own mapping holds it for the whole call.
	 */
	key_hold(key);
	key_drop(&w->fw_key);
	struct futexq *from = futex_bucket(&w->fw_key), *to = futex_bucket(key);
	w->fw_key = *key;
	/*
	 * Within one bucket it keeps its place, as Linux's: a requeue walks
	 * the bucket and must not meet the waiters it moved again.
	 */
	if (from != to) {
		TAILQ_REMOVE(from, w, fw_link);
		TAILQ_INSERT_TAIL(to, w, fw_link);
	}
}

struct futex_waiter *
futex_next(const struct futex_key *key, struct futex_waiter *prev)
{
	struct futex_waiter *w = prev != NULL ? TAILQ_NEXT(prev, fw_link) :
	    TAILQ_FIRST(futex_bucket(key));
	for (; w != NULL; w = TAILQ_NEXT(w, fw_link))
		if (futex_key_eq(&w->fw_key, key))
			return w;
	return NULL;
}

struct futex_waiter *
futex_find_pi(int32_t tid)
{
	struct futex_waiter *w;
	if (futex_npi == 0 || !futex_hash_ready)
		return NULL;
	for (int i = 0; i < FUTEX_HASH; i++)
		TAILQ_FOREACH(w, &futex_hash[i], fw_link)
			if ((w->fw_flags & FW_PI) && w->fw_owner == tid)
				return w;
	return NULL;
}

void
futex_make_pi(struct futex_waiter *w)
{
	KASSERT(w->fw_state == FW_QUEUED && !(w->fw_flags & FW_PI),
	    "futex_make_pi: not a queued plain waiter");
	w->fw_flags = (w->fw_flags & ~FW_REQUEUE_PI) | FW_PI;
	futex_npi++;
}

/* The time on clock (CLOCK_MONOTONIC is the kernel's uptime). */
static int64_t
futex_now(int clock)
{
	if (clock == CLOCK_REALTIME) {
		struct timespec ts;
		nanotime(&ts);
		return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
	}
	return (int64_t)nanouptime();
}

int
futex_sleep(const void *chan, const struct futex_deadline *dl)
{
	uint64_t timo = 0;
	if (dl != NULL) {
		int64_t now = futex_now(dl->fd_clock);
		if (now >= dl->fd_ns)
			return ETIMEDOUT;
		timo = (uint64_t)(dl->fd_ns - now);
	}
	int error = tsleep(chan, PCATCH, "futex", timo);
	/* The deadline is checked again: the realtime clock may have moved. */
	return error == EINTR ? EINTR : 0;
}

int
futex_queue_sleep(struct futex_waiter *w, const struct futex_deadline *dl)
{
	int error;

	futex_queue(w);
	do
		error = futex_sleep(w, dl);
	while (error == 0 && w->fw_state == FW_QUEUED);
	futex_unqueue(w);
	return error;
}

int
futex_wake_key(const struct futex_key *key, int nwake, uint32_t bitset)
{
	struct futex_waiter *w, *next;
	int n = 0;

	for (w = futex_next(key, NULL); w != NULL; w = next) {
		next = futex_next(key, w);
		if (w->fw_flags & (FW_PI | FW_REQUEUE_PI))
			return -EINVAL;
		if (!(w->fw_bitset & bitset))
			continue;
		futex_wake_waiter(w, FW_WOKEN);
		if (++n >= nwake)
			break;
	}
	return n;
}

int
futex_wake(struct vmspace *vm, uint64_t uaddr, int nwake, uint32_t bitset)
{
	struct futex_key key;
	int error = futex_key_get(vm, uaddr, false, &key);
	if (error < 0)
		return error;
	int n = futex_wake_key(&key, nwake, bitset);
	if (n < 0 || n >= MAX(nwake, 1))
		return n;
	if ((error = futex_key_get(vm, uaddr, true, &key)) < 0)
		return error;
	int m = futex_wake_key(&key, nwake - n, bitset);
	return m < 0 ? m : n + m;
}
