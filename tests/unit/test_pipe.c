/*
 * Pipes and fifos: non-blocking rules, EOF, EPIPE, atomic PIPE_BUF
 * writes, FIONREAD, fstat; blocking reads, writes and fifo opens in
 * kernel threads, interrupted sleeps, and poll with and without
 * timeouts.
 */
#include <sys/ioctl.h>

#include "fs/pipe.h"
#include "fs/poll.h"
#include "host/cpu.h"
#include "kern/thread.h"
#include "tests/unit/fstest.h"
#include "tests/unit/unit.h"

TEST(pipe_nonblocking)
{
	struct fst t;
	int fds[2];
	static char buf[PIPE_SIZE + 8192];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_pipe2(&t.p, &t.cr, fds, O_DIRECT), -EINVAL);
	CHECK_EQ(kern_pipe2(&t.p, &t.cr, fds, O_NONBLOCK | O_CLOEXEC), 0);
	CHECK_EQ(fds[0], 0);
	CHECK_EQ(fds[1], 1);
	CHECK_EQ(kern_fcntl(&t.p, fds[0], F_GETFD, 0), FD_CLOEXEC);
	CHECK_EQ(kern_fcntl(&t.p, fds[1], F_GETFL, 0), O_WRONLY | O_NONBLOCK);
	CHECK_EQ(fst_read(&t, fds[0], buf, 10), -EAGAIN);
	CHECK_EQ(fst_write(&t, fds[0], "x", 1), -EBADF);
	CHECK_EQ(fst_read(&t, fds[1], buf, 1), -EBADF);
	CHECK_EQ(kern_lseek(&t.p, fds[0], 0, SEEK_CUR), -ESPIPE);
	CHECK_EQ(fst_pread(&t, fds[0], buf, 1, 0), -ESPIPE);
	CHECK_EQ(fst_pwrite(&t, fds[1], buf, 1, 0), -ESPIPE);

	/* Fill it: 64 KiB go in, then EAGAIN; a big write goes in part. */
	memset(buf, 'p', sizeof(buf));
	CHECK_EQ(fst_write(&t, fds[1], buf, 1000), 1000);
	CHECK_EQ(fst_write(&t, fds[1], buf, PIPE_SIZE), PIPE_SIZE - 1000);
	CHECK_EQ(fst_write(&t, fds[1], buf, 1), -EAGAIN);
	/* A PIPE_BUF write is all or nothing; a bigger one may be split. */
	CHECK_EQ(fst_read(&t, fds[0], buf, 100), 100);
	CHECK_EQ(fst_write(&t, fds[1], buf, PIPE_BUF), -EAGAIN);
	CHECK_EQ(fst_write(&t, fds[1], buf, PIPE_BUF + 1), 100);
	CHECK_EQ(fst_read(&t, fds[0], buf, sizeof(buf)), PIPE_SIZE);
	CHECK_EQ(fst_write(&t, fds[1], buf, PIPE_BUF), PIPE_BUF);
	CHECK_EQ(fst_read(&t, fds[0], buf, sizeof(buf)), PIPE_BUF);
	/* The ring wraps: data comes out in order. */
	for (int round = 0; round < 40; round++) {
		char out[3000], in[3000];
		for (int i = 0; i < 3000; i++)
			out[i] = (char)(round * 7 + i);
		CHECK_EQ(fst_write(&t, fds[1], out, 3000), 3000);
		CHECK_EQ(fst_read(&t, fds[0], in, 3000), 3000);
		CHECK(memcmp(in, out, 3000) == 0);
	}

	struct linux_stat st, st2;
	CHECK_EQ(kern_fstat(&t.p, fds[0], &st), 0);
	CHECK_EQ(kern_fstat(&t.p, fds[1], &st2), 0);
	CHECK_EQ(st.st_mode, S_IFIFO | 0600);
	CHECK_EQ(st.st_ino, st2.st_ino);
	CHECK_EQ(st.st_nlink, 1);

	/* EOF once the writer is gone; EPIPE once the reader is. */
	CHECK_EQ(fst_write(&t, fds[1], "end", 3), 3);
	CHECK_EQ(kern_close(&t.p, fds[1]), 0);
	CHECK_EQ(fst_read(&t, fds[0], buf, 10), 3);
	CHECK_EQ(fst_read(&t, fds[0], buf, 10), 0);
	CHECK_EQ(kern_close(&t.p, fds[0]), 0);
	CHECK_EQ(kern_pipe2(&t.p, &t.cr, fds, 0), 0);
	CHECK_EQ(kern_close(&t.p, fds[0]), 0);
	CHECK_EQ(fst_write(&t, fds[1], "x", 1), -EPIPE);
	CHECK_EQ(kern_close(&t.p, fds[1]), 0);
	CHECK_EQ(fst_end(&t), 0);
}

TEST(pipe_poll_no_wait)
{
	struct fst t;
	int fds[2];
	REQUIRE(fst_begin(&t) == 0);
	CHECK_EQ(kern_pipe2(&t.p, &t.cr, fds, 0), 0);
	struct pollfd pfd[4] = {
		{ .fd = fds[0], .events = POLLIN },
		{ .fd = fds[1], .events = POLLOUT },
		{ .fd = -1, .events = POLLIN },
		{ .fd = 55, .events = POLLIN },
	};
	CHECK_EQ(kern_poll(&t.p, pfd, 4, 0), 2);
	CHECK_EQ(pfd[0].revents, 0);
	CHECK_EQ(pfd[1].revents, POLLOUT);
	CHECK_EQ(pfd[2].revents, 0);
	CHECK_EQ(pfd[3].revents, POLLNVAL);
	CHECK_EQ(fst_write(&t, fds[1], "x", 1), 1);
	CHECK_EQ(kern_poll(&t.p, pfd, 2, 0), 2);
	CHECK_EQ(pfd[0].revents, POLLIN);
	/* Hang-up and error are reported whatever was asked. */
	CHECK_EQ(kern_close(&t.p, fds[1]), 0);
	pfd[0].events = 0;
	CHECK_EQ(kern_poll(&t.p, pfd, 1, 0), 1);
	CHECK_EQ(pfd[0].revents, POLLHUP);
	int fds2[2];
	CHECK_EQ(kern_pipe2(&t.p, &t.cr, fds2, 0), 0);
	CHECK_EQ(kern_close(&t.p, fds2[0]), 0);
	struct pollfd w = { .fd = fds2[1], .events = POLLOUT };
	CHECK_EQ(kern_poll(&t.p, &w, 1, 0), 1);
	CHECK_EQ(w.revents, POLLOUT | POLLERR);
	/* A file on tmpfs is always ready; too many fds is EINVAL. */
	CHECK_EQ(fst_mkfile(&t, "/f", ""), 0);
	struct pollfd f = { .fd = fst_open(&t, "/f", O_RDONLY, 0), .events = POLLIN };
	CHECK_EQ(kern_poll(&t.p, &f, 1, 0), 1);
	CHECK_EQ(kern_poll(&t.p, &f, 1025, 0), -EINVAL);
	CHECK_EQ(fst_end(&t), 0);
}

/* Runs body(arg) as a kernel thread on one CPU until it halts. */
static void
run_kernel(void (*body)(void *), void *arg)
{
	REQUIRE(cpu_configure(1, CPU_PLACE_NONE, 100) == 0);
	sched_init();
	kernel_lock();
	struct thread *td = thread_create("test", body, arg);
	if (td != NULL)
		thread_start(td);
	kernel_unlock();
	REQUIRE(td != NULL);
	REQUIRE(cpu_start(sched_cpu_main, NULL) == 0);
	cpu_join();
}

struct ptest {
	struct fst t;
	int fds[2];
	int done;		/* helper threads finished */
	int64_t ret[4];
	uint64_t elapsed;
	int bad;		/* atomicity violations seen */
	int64_t total;
};

static void
helper_done(struct ptest *pt)
{
	pt->done++;
	wakeup(&pt->done);
}

static void
wait_helpers(struct ptest *pt, int n)
{
	while (pt->done < n)
		tsleep(&pt->done, 0, "join", 0);
}

/* Lets every other thread run until it blocks. */
static void
settle(void)
{
	for (int i = 0; i < 10; i++)
		thread_yield();
}

static void
slow_writer(void *arg)
{
	struct ptest *pt = arg;
	pt->ret[1] = fst_write(&pt->t, pt->fds[1], "wake", 4);
	helper_done(pt);
}

static void
closer(void *arg)
{
	struct ptest *pt = arg;
	pt->ret[1] = kern_close(&pt->t.p, pt->fds[1]);
	helper_done(pt);
}

static void
blocking_read_main(void *arg)
{
	struct ptest *pt = arg;
	char buf[16];
	/* A reader waits for a writer that comes later. */
	thread_start(thread_create("writer", slow_writer, pt));
	pt->ret[0] = fst_read(&pt->t, pt->fds[0], buf, sizeof(buf));
	wait_helpers(pt, 1);
	/* A reader waits for the last writer to close: EOF. */
	thread_start(thread_create("closer", closer, pt));
	pt->ret[2] = fst_read(&pt->t, pt->fds[0], buf, sizeof(buf));
	wait_helpers(pt, 2);
	sched_halt();
}

TEST(pipe_blocking_read_and_eof)
{
	static struct ptest pt;
	memset(&pt, 0, sizeof(pt));
	REQUIRE(fst_begin(&pt.t) == 0);
	REQUIRE(kern_pipe2(&pt.t.p, &pt.t.cr, pt.fds, 0) == 0);
	run_kernel(blocking_read_main, &pt);
	CHECK_EQ(pt.ret[0], 4);
	CHECK_EQ(pt.ret[1], 0);
	CHECK_EQ(pt.ret[2], 0);
	CHECK_EQ(fst_end(&pt.t), 0);
}

static void
atomic_writer(void *arg)
{
	struct ptest *pt = arg;
	static int next;
	char chunk[PIPE_BUF];
	memset(chunk, 'A' + next++, sizeof(chunk));
	for (int i = 0; i < 64; i++)
		if (fst_write(&pt->t, pt->fds[1], chunk, sizeof(chunk)) != PIPE_BUF)
			pt->bad++;
	helper_done(pt);
}

static void
atomic_main(void *arg)
{
	struct ptest *pt = arg;
	static char buf[PIPE_SIZE];
	int64_t got = 0;
	for (int i = 0; i < 3; i++)
		thread_start(thread_create("aw", atomic_writer, pt));
	/* Read in odd sizes; every PIPE_BUF block must be one writer's. */
	static char all[3 * 64 * PIPE_BUF];
	while (got < (int64_t)sizeof(all)) {
		int64_t n = fst_read(&pt->t, pt->fds[0], buf, 1000 + got % 3000);
		if (n <= 0)
			break;
		memcpy(all + got, buf, (size_t)n);
		got += n;
	}
	pt->total = got;
	for (size_t b = 0; b < sizeof(all); b += PIPE_BUF)
		for (size_t i = 1; i < PIPE_BUF; i++)
			if (all[b + i] != all[b]) {
				pt->bad++;
				break;
			}
	wait_helpers(pt, 3);
	sched_halt();
}

TEST(pipe_blocking_atomic_writes)
{
	static struct ptest pt;
	memset(&pt, 0, sizeof(pt));
	REQUIRE(fst_begin(&pt.t) == 0);
	REQUIRE(kern_pipe2(&pt.t.p, &pt.t.cr, pt.fds, 0) == 0);
	run_kernel(atomic_main, &pt);
	CHECK_EQ(pt.total, 3 * 64 * PIPE_BUF);
	CHECK_EQ(pt.bad, 0);
	CHECK_EQ(fst_end(&pt.t), 0);
}

static void
big_writer(void *arg)
{
	struct ptest *pt = arg;
	static char big[3 * PIPE_SIZE];
	pt->ret[1] = fst_write(&pt->t, pt->fds[1], big, sizeof(big));
	pt->ret[2] = fst_write(&pt->t, pt->fds[1], big, 1);
	helper_done(pt);
}

static void
epipe_main(void *arg)
{
	struct ptest *pt = arg;
	char buf[1000];
	thread_start(thread_create("bw", big_writer, pt));
	settle();	/* the writer has filled the pipe and sleeps */
	pt->ret[0] = fst_read(&pt->t, pt->fds[0], buf, sizeof(buf));
	settle();
	kern_close(&pt->t.p, pt->fds[0]);
	wait_helpers(pt, 1);
	sched_halt();
}

TEST(pipe_blocking_write_epipe)
{
	static struct ptest pt;
	memset(&pt, 0, sizeof(pt));
	REQUIRE(fst_begin(&pt.t) == 0);
	REQUIRE(kern_pipe2(&pt.t.p, &pt.t.cr, pt.fds, 0) == 0);
	run_kernel(epipe_main, &pt);
	CHECK_EQ(pt.ret[0], 1000);
	/* What fitted is reported; the next write sees EPIPE. */
	CHECK_EQ(pt.ret[1], PIPE_SIZE + 1000);
	CHECK_EQ(pt.ret[2], -EPIPE);
	CHECK_EQ(fst_end(&pt.t), 0);
}

static void
sleepy_reader(void *arg)
{
	struct ptest *pt = arg;
	char buf[4];
	pt->ret[1] = fst_read(&pt->t, pt->fds[0], buf, sizeof(buf));
	helper_done(pt);
}

static void
eintr_main(void *arg)
{
	struct ptest *pt = arg;
	struct thread *td = thread_create("sr", sleepy_reader, pt);
	thread_start(td);
	settle();
	thread_interrupt(td);		/* as a signal would */
	wait_helpers(pt, 1);
	sched_halt();
}

/* An interrupted read asks for a restart (EINTR if the handler says so). */
TEST(pipe_blocking_read_interrupted)
{
	static struct ptest pt;
	memset(&pt, 0, sizeof(pt));
	REQUIRE(fst_begin(&pt.t) == 0);
	REQUIRE(kern_pipe2(&pt.t.p, &pt.t.cr, pt.fds, 0) == 0);
	run_kernel(eintr_main, &pt);
	CHECK_EQ(pt.ret[1], -ERESTARTSYS);
	CHECK_EQ(fst_end(&pt.t), 0);
}

static void
late_writer(void *arg)
{
	struct ptest *pt = arg;
	settle();
	pt->ret[1] = fst_write(&pt->t, pt->fds[1], "p", 1);
	helper_done(pt);
}

static void
poll_main(void *arg)
{
	struct ptest *pt = arg;
	struct pollfd pfd = { .fd = pt->fds[0], .events = POLLIN };

	/* A timeout with nothing to read: 0 after the time has passed. */
	uint64_t t0 = nanouptime();
	pt->ret[0] = kern_poll(&pt->t.p, &pfd, 1, 20000000);
	pt->elapsed = nanouptime() - t0;
	/* No timeout: woken by a writer. */
	thread_start(thread_create("lw", late_writer, pt));
	pt->ret[2] = kern_poll(&pt->t.p, &pfd, 1, -1);
	pt->ret[3] = pfd.revents;
	wait_helpers(pt, 1);
	sched_halt();
}

TEST(pipe_poll_timeouts_and_wakeups)
{
	static struct ptest pt;
	memset(&pt, 0, sizeof(pt));
	REQUIRE(fst_begin(&pt.t) == 0);
	REQUIRE(kern_pipe2(&pt.t.p, &pt.t.cr, pt.fds, 0) == 0);
	run_kernel(poll_main, &pt);
	CHECK_EQ(pt.ret[0], 0);
	CHECK(pt.elapsed >= 20000000);
	CHECK(pt.elapsed < 2000000000);
	CHECK_EQ(pt.ret[1], 1);
	CHECK_EQ(pt.ret[2], 1);
	CHECK_EQ(pt.ret[3], POLLIN);
	CHECK_EQ(fst_end(&pt.t), 0);
}

static void
poll_sleeper(void *arg)
{
	struct ptest *pt = arg;
	struct pollfd pfd = { .fd = pt->fds[0], .events = POLLIN };
	pt->ret[1] = kern_poll(&pt->t.p, &pfd, 1, 10000000000);
	helper_done(pt);
}

static void
poll_close_main(void *arg)
{
	struct ptest *pt = arg;
	/* A poller interrupted; then one woken by the writer's close. */
	struct thread *td = thread_create("ps", poll_sleeper, pt);
	thread_start(td);
	settle();
	thread_interrupt(td);
	wait_helpers(pt, 1);
	thread_start(thread_create("ps2", poll_sleeper, pt));
	settle();
	kern_close(&pt->t.p, pt->fds[1]);
	wait_helpers(pt, 2);
	sched_halt();
}

TEST(pipe_poll_interrupted_and_hangup)
{
	static struct ptest pt;
	memset(&pt, 0, sizeof(pt));
	REQUIRE(fst_begin(&pt.t) == 0);
	REQUIRE(kern_pipe2(&pt.t.p, &pt.t.cr, pt.fds, 0) == 0);
	run_kernel(poll_close_main, &pt);
	CHECK_EQ(pt.ret[1], 1);		/* the second: POLLHUP */
	CHECK_EQ(fst_end(&pt.t), 0);
}

static void
fifo_writer(void *arg)
{
	struct ptest *pt = arg;
	int fd = fst_open(&pt->t, "/fifo", O_WRONLY, 0);
	pt->ret[1] = fst_write(&pt->t, fd, "via fifo", 8);
	kern_close(&pt->t.p, fd);
	helper_done(pt);
}

static void
fifo_main(void *arg)
{
	struct ptest *pt = arg;
	char buf[16];
	thread_start(thread_create("fw", fifo_writer, pt));
	/* The open waits for the writer's; the read for its data. */
	int fd = fst_open(&pt->t, "/fifo", O_RDONLY, 0);
	pt->ret[0] = fst_read(&pt->t, fd, buf, sizeof(buf));
	pt->ret[2] = fst_read(&pt->t, fd, buf, sizeof(buf));
	wait_helpers(pt, 1);
	kern_close(&pt->t.p, fd);
	sched_halt();
}

TEST(fifo_open_rendezvous)
{
	static struct ptest pt;
	struct linux_stat st;
	memset(&pt, 0, sizeof(pt));
	REQUIRE(fst_begin(&pt.t) == 0);
	struct fst *t = &pt.t;
	REQUIRE(kern_mknodat(&t->p, &t->cr, AT_FDCWD, "/fifo", S_IFIFO | 0644, 0) == 0);
	CHECK_EQ(fst_stat(t, "/fifo", &st), 0);
	CHECK_EQ(st.st_mode, S_IFIFO | 0644);
	/* Non-blocking: a reader opens alone; a writer needs a reader. */
	CHECK_EQ(fst_open(t, "/fifo", O_WRONLY | O_NONBLOCK, 0), -ENXIO);
	int r = fst_open(t, "/fifo", O_RDONLY | O_NONBLOCK, 0);
	CHECK(r >= 0);
	char c;
	CHECK_EQ(fst_read(t, r, &c, 1), 0);	/* no writer: EOF */
	int w = fst_open(t, "/fifo", O_WRONLY | O_NONBLOCK, 0);
	CHECK(w >= 0);
	CHECK_EQ(fst_read(t, r, &c, 1), -EAGAIN);
	CHECK_EQ(fst_write(t, w, "q", 1), 1);
	CHECK_EQ(fst_read(t, r, &c, 1), 1);
	CHECK_EQ(kern_fstat(&t->p, w, &st), 0);
	CHECK_EQ(st.st_mode, S_IFIFO | 0644);
	CHECK_EQ(kern_lseek(&t->p, w, 0, SEEK_SET), -ESPIPE);
	kern_close(&t->p, r);
	kern_close(&t->p, w);
	/* O_RDWR never waits. */
	int rw = fst_open(t, "/fifo", O_RDWR, 0);
	CHECK(rw >= 0);
	CHECK_EQ(fst_write(t, rw, "rw", 2), 2);
	CHECK_EQ(fst_read(t, rw, &c, 1), 1);
	kern_close(&t->p, rw);
	/* Data does not outlive the last close. */
	rw = fst_open(t, "/fifo", O_RDWR | O_NONBLOCK, 0);
	CHECK_EQ(fst_read(t, rw, &c, 1), -EAGAIN);
	kern_close(&t->p, rw);

	run_kernel(fifo_main, &pt);
	CHECK_EQ(pt.ret[0], 8);
	CHECK_EQ(pt.ret[1], 8);
	CHECK_EQ(pt.ret[2], 0);
	CHECK_EQ(fst_end(&pt.t), 0);
}
