/*
 * Helpers for the disk and buffer-cache tests (see biotest.h).
 */
#include <stdlib.h>
#include <unistd.h>

#include "dev/disk.h"
#include "dev/vkd.h"
#include "fs/buf.h"
#include "host/cpu.h"
#include "kern/init.h"
#include "kern/thread.h"
#include "tests/unit/biotest.h"
#include "tests/unit/unit.h"
#include "tests/unit/vmtest.h"

struct biot_job {
	void (*body)(void *);
	void *arg;
	int ncpu;
};

static void
biot_main(void *arg)
{
	struct biot_job *job = arg;
	bio_init();
	job->body(job->arg);
	if (bio_shutdown() != 0)
		unit_fail(__FILE__, __LINE__, "bio_shutdown failed");
	sched_halt();
}

const char *biot_tmpdir = "/tmp";

int
biot_kernel(int ncpu, void (*body)(void *), void *arg)
{
	struct biot_job job = { body, arg, ncpu };

	if (cpu_configure(ncpu, CPU_PLACE_NONE, 100) < 0)
		return 2;
	/* The kernel's own dispatch (this is a child: its signal handlers
	 * die with it). */
	if (intr_init() < 0)
		return 2;
	kernel_lock();
	struct thread *td = thread_create("biotest", biot_main, &job);
	kernel_unlock();
	if (td == NULL)
		return 2;
	sched_init();
	kernel_lock();
	thread_start(td);
	kernel_unlock();
	if (cpu_start(sched_cpu_main, NULL) < 0)
		return 2;
	cpu_join();
	return unit_failed_now() ? 1 : 0;
}

static int
biot_child(void *arg)
{
	struct biot_job *job = arg;
	return biot_kernel(job->ncpu, job->body, job->arg);
}

void
biot_run(int ncpu, void (*body)(void *), void *arg)
{
	struct biot_job job = { body, arg, ncpu };
	biot_isolated(biot_child, &job);
}

struct biot_isolation {
	int (*fn)(void *);
	void *arg;
};

static int
biot_isolated_child(void *arg)
{
	struct biot_isolation *iso = arg;
	alarm(60);		/* a lost interrupt hangs: fail instead */
	return iso->fn(iso->arg);
}

void
biot_isolated(int (*fn)(void *), void *arg)
{
	struct biot_isolation iso = { fn, arg };
	int rc = vmt_private_child(biot_isolated_child, &iso);
	if (rc != 0)
		unit_fail(__FILE__, __LINE__, "the test's kernel %s (status %d)",
		    rc == 1 ? "found failures" : "failed", rc);
}

int
biot_disk(struct biot_disk *d, uint64_t size, const char *suffix)
{
	char spec[128];
	const char *why;

	snprintf(d->path, sizeof(d->path), "%s/vkdtest.XXXXXX", biot_tmpdir);
	d->fd = mkstemp(d->path);
	d->dk = NULL;
	if (d->fd < 0 || ftruncate(d->fd, (off_t)size) < 0) {
		unit_fail(__FILE__, __LINE__, "image: %s", strerror(errno));
		return -1;
	}
	snprintf(spec, sizeof(spec), "%s%s", d->path, suffix ? suffix : "");
	if (vkd_config(spec, &why) < 0) {
		unit_fail(__FILE__, __LINE__, "vkd_config %s: %s", spec, why);
		return -1;
	}
	if (vkd_attach() < 0 || TAILQ_EMPTY(&disklist)) {
		unit_fail(__FILE__, __LINE__, "vkd_attach failed");
		return -1;
	}
	TAILQ_FOREACH(d->dk, &disklist, d_list)
		if (TAILQ_NEXT(d->dk, d_list) == NULL)
			break;
	return 0;
}

void
biot_disk_free(struct biot_disk *d)
{
	if (d->dk != NULL) {
		(void)bsync(d->dk, 1);
		binvalidate(d->dk);
		vkd_detach(d->dk);
	}
	if (d->fd >= 0) {
		close(d->fd);
		unlink(d->path);
	}
}

int
biot_pread(struct biot_disk *d, void *buf, size_t n, uint64_t off)
{
	return pread(d->fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

int
biot_pwrite(struct biot_disk *d, const void *buf, size_t n, uint64_t off)
{
	return pwrite(d->fd, buf, n, (off_t)off) == (ssize_t)n ? 0 : -1;
}

void
biot_fill(void *buf, size_t n, uint32_t seed)
{
	uint8_t *p = buf;
	uint32_t x = seed * 2654435761u + 1;
	for (size_t i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		p[i] = (uint8_t)(x >> 16);
	}
}
