/*
 * The wait lists' wake functions (fs/poll.c) and epoll over them
 * (fs/eventpoll.c): one exclusive waiter per wake-up, the ready list
 * holding only the items that changed, registrations that go with the
 * file's last reference.
 */
#include <sys/epoll.h>

#include "fs/eventpoll.h"
#include "fs/pipe.h"
#include "fs/poll.h"
#include "tests/unit/fstest.h"
#include "tests/unit/unit.h"

static int wakes[3];

static bool
count_wake(struct pollwaiter *pw)
{
	wakes[pw->pw_error]++;		/* the index, for this test only */
	return true;
}

TEST(poll_wakefn_exclusive)
{
	struct selinfo si;
	struct pollwaiter pw[3];

	selinfo_init(&si);
	for (int i = 0; i < 3; i++) {
		pollwaiter_init(&pw[i]);
		pw[i].pw_wakefn = count_wake;
		selrecord(&pw[i], &si);
		pw[i].pw_error = i;
	}
	pw[0].pw_exclusive = pw[1].pw_exclusive = true;
	memset(wakes, 0, sizeof(wakes));
	selwakeup(&si);
	selwakeup(&si);
	/* Records stay across wake-ups; one exclusive waiter each time. */
	CHECK_EQ(wakes[0] + wakes[1], 2);
	CHECK_EQ(wakes[2], 2);
	for (int i = 0; i < 3; i++) {
		pw[i].pw_error = 0;
		pollwaiter_done(&pw[i]);
	}
	CHECK(TAILQ_EMPTY(&si.si_entries));
}

TEST(epoll_ready_list)
{
	struct fst t;
	int fds[64][2];
	struct linux_epoll_event ev[8];

	REQUIRE(fst_begin(&t) == 0);
	int ep = kern_epoll_create(&t.p, 0);
	REQUIRE(ep >= 0);
	for (int i = 0; i < 64; i++) {
		REQUIRE(kern_pipe2(&t.p, &t.cr, fds[i], O_NONBLOCK) == 0);
		struct linux_epoll_event e = { EPOLLIN | EPOLLET, (uint64_t)i };
		CHECK_EQ(kern_epoll_ctl(&t.p, ep, EPOLL_CTL_ADD, fds[i][0], &e), 0);
	}
	CHECK_EQ(kern_epoll_wait(&t.p, ep, ev, 8, 0), 0);
	CHECK_EQ(fst_write(&t, fds[40][1], "x", 1), 1);
	CHECK_EQ(fst_write(&t, fds[3][1], "y", 1), 1);
	/* In the order they became ready; edge-triggered: once. */
	CHECK_EQ(kern_epoll_wait(&t.p, ep, ev, 8, 0), 2);
	CHECK_EQ(ev[0].data, 40);
	CHECK_EQ(ev[1].data, 3);
	CHECK_EQ(kern_epoll_wait(&t.p, ep, ev, 8, 0), 0);
	/* The last close of the read end takes it out of the set. */
	CHECK_EQ(kern_close(&t.p, fds[40][0]), 0);
	struct linux_epoll_event e = { EPOLLIN, 0 };
	CHECK_EQ(kern_epoll_ctl(&t.p, ep, EPOLL_CTL_MOD, fds[40][0], &e), -EBADF);
	CHECK_EQ(fst_write(&t, fds[40][1], "x", 1), -EPIPE);
	CHECK_EQ(kern_epoll_wait(&t.p, ep, ev, 8, 0), 0);
	CHECK_EQ(fst_end(&t), 0);
}
