/*
 * vkd: a disk over a host image file (see vkd.h).
 *
 * The image is opened and locked before boot, by vkd_config, so that a
 * bad -r argument stops vkernel with a message before anything runs.
 * vkd_attach makes the kernel's disks of them.  The strategy routine
 * only queues a transfer for the image's helper threads; vkd_intr, the
 * INTR_DISK handler, takes the ended ones and calls biodone.  A host
 * error is logged with the host's reason and the buffer gets -EIO.
 */
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "dev/disk.h"
#include "dev/vkd.h"
#include "fs/buf.h"
#include "host/blkio.h"
#include "host/cpu.h"
#include "kern/interrupt.h"
#include "kern/thread.h"
#include "kern/kmem.h"

#define VKD_NTHREADS	2	/* helper threads per image */

/* An image vkd_config opened: host state, not in RAM. */
struct vkd_image {
	char path[PATH_MAX];
	int fd;				/* -1: the slot is free */
	uint64_t size;
	bool readonly;
	struct vkd_softc *sc;		/* once attached */
};

struct vkd_softc {
	struct disk sc_disk;
	struct vkd_image *sc_image;
	struct blkio *sc_io;
	int sc_inflight;		/* transfers queued, not yet reaped */
};

/* A flush in flight: its waiter's. */
struct vkd_flush {
	bool done;
	int error;
};

static struct vkd_image vkd_images[VKD_MAXUNITS];
static bool vkd_images_ready;

static void
vkd_images_init(void)
{
	if (vkd_images_ready)
		return;
	for (int i = 0; i < VKD_MAXUNITS; i++)
		vkd_images[i].fd = -1;
	vkd_images_ready = true;
}

int
vkd_config(const char *spec, const char **why)
{
	static char msg[160];
	struct vkd_image *im = NULL;

	vkd_images_init();
	for (int i = 0; i < VKD_MAXUNITS && im == NULL; i++)
		if (vkd_images[i].fd < 0)
			im = &vkd_images[i];
	if (im == NULL) {
		snprintf(msg, sizeof(msg), "more than %d disks", VKD_MAXUNITS);
		goto fail;
	}
	size_t n = strlen(spec);
	bool ro = n > 3 && strcmp(spec + n - 3, ":ro") == 0;
	if (ro)
		n -= 3;
	if (n == 0 || n >= sizeof(im->path)) {
		snprintf(msg, sizeof(msg), "bad file name");
		goto fail;
	}
	memcpy(im->path, spec, n);
	im->path[n] = '\0';

	uint64_t size;
	int fd = blkio_image_open(im->path, &ro, &size, DEV_BSIZE, msg,
	    sizeof(msg));
	if (fd >= 0) {
		im->fd = fd;
		im->size = size;
		im->readonly = ro;
		im->sc = NULL;
		return 0;
	}
fail:
	*why = msg;
	return -1;
}

/* The CPU to interrupt when a transfer ends: ours, or the first. */
static int
vkd_cpu(void)
{
	struct vcpu *cpu = cpu_self();
	return cpu != NULL ? cpu->id : 0;
}

static void
vkd_strategy(struct disk *dk, struct buf *bp)
{
	struct vkd_softc *sc = dk->d_softc;
	bool reading = (bp->b_flags & B_READ) != 0;
	uint64_t nsec = bp->b_bcount / DEV_BSIZE;
	int error;

	if (bp->b_bcount == 0 || bp->b_bcount % DEV_BSIZE != 0 ||
	    bp->b_blkno > dk->d_nsectors || nsec > dk->d_nsectors - bp->b_blkno) {
		kprintf("%s: %s of %zu bytes at sector %llu is past the end "
		    "(%llu sectors)\n", dk->d_name, reading ? "read" : "write",
		    bp->b_bcount, (unsigned long long)bp->b_blkno,
		    (unsigned long long)dk->d_nsectors);
		error = -EIO;
	} else if (!reading && dk->d_readonly) {
		kprintf("%s: write at sector %llu: the disk is read-only\n",
		    dk->d_name, (unsigned long long)bp->b_blkno);
		error = -EROFS;
	} else if (blkio_submit(sc->sc_io, reading ? BLKIO_READ : BLKIO_WRITE,
	    bp->b_data, bp->b_bcount, (off_t)(bp->b_blkno * DEV_BSIZE), bp,
	    vkd_cpu()) < 0) {
		kprintf("%s: cannot queue a transfer: host out of memory\n",
		    dk->d_name);
		error = -EIO;
	} else {
		sc->sc_inflight++;
		return;
	}
	bp->b_error = error;
	biodone(bp);
}

/* Completes every transfer of sc that ended. */
static void
vkd_complete(struct vkd_softc *sc)
{
	struct disk *dk = &sc->sc_disk;
	enum blkio_op op;
	void *cookie;
	int error;

	while (blkio_reap(sc->sc_io, &op, &cookie, &error)) {
		sc->sc_inflight--;
		if (op == BLKIO_FLUSH) {
			struct vkd_flush *fl = cookie;
			if (error != 0)
				kprintf("%s: flush of %s failed: %s\n", dk->d_name,
				    sc->sc_image->path, strerror(-error));
			fl->error = error != 0 ? -EIO : 0;
			fl->done = true;
			wakeup(fl);
			continue;
		}
		struct buf *bp = cookie;
		if (error != 0) {
			kprintf("%s: %s error at sector %llu (%zu bytes): %s\n",
			    dk->d_name, op == BLKIO_READ ? "read" : "write",
			    (unsigned long long)bp->b_blkno, bp->b_bcount,
			    strerror(-error));
			bp->b_error = -EIO;
		}
		biodone(bp);
	}
}

static void
vkd_poll(struct disk *dk)
{
	struct vkd_softc *sc = dk->d_softc;
	blkio_wait(sc->sc_io);
	vkd_complete(sc);
}

/* Makes the image's completed writes durable: fdatasync on a helper. */
static int
vkd_flush(struct disk *dk)
{
	struct vkd_softc *sc = dk->d_softc;
	struct vkd_flush fl = { false, 0 };

	if (blkio_submit(sc->sc_io, BLKIO_FLUSH, NULL, 0, 0, &fl,
	    vkd_cpu()) < 0) {
		kprintf("%s: cannot queue a flush: host out of memory\n",
		    dk->d_name);
		return -EIO;
	}
	sc->sc_inflight++;
	while (!fl.done) {
		if (curthread != NULL)
			tsleep(&fl, 0, "vkdflush", 0);
		else
			vkd_poll(dk);
	}
	return fl.error;
}

/* INTR_DISK: completes the transfers that ended (biodone). */
static void
vkd_intr(void *arg, uint32_t bits)
{
	(void)arg, (void)bits;
	for (int i = 0; i < VKD_MAXUNITS; i++)
		if (vkd_images[i].sc != NULL)
			vkd_complete(vkd_images[i].sc);
}

int
vkd_attach(void)
{
	int error = intr_establish(INTR_DISK, vkd_intr, NULL);
	if (error < 0)
		return error;
	vkd_images_init();
	for (int unit = 0; unit < VKD_MAXUNITS; unit++) {
		struct vkd_image *im = &vkd_images[unit];
		if (im->fd < 0 || im->sc != NULL)
			continue;
		struct vkd_softc *sc = kmalloc(sizeof(*sc), KM_ZERO);
		if (sc == NULL)
			return -ENOMEM;
		sc->sc_io = blkio_open(im->fd, VKD_NTHREADS);
		if (sc->sc_io == NULL) {
			kprintf("vkd%d: cannot start its I/O threads: %s\n", unit,
			    strerror(errno));
			kfree(sc);
			return -ENOMEM;
		}
		sc->sc_image = im;
		struct disk *dk = &sc->sc_disk;
		snprintf(dk->d_name, sizeof(dk->d_name), "vkd%d", unit);
		dk->d_dev = makedev(DISK_MAJOR, unit);
		dk->d_nsectors = im->size / DEV_BSIZE;
		dk->d_readonly = im->readonly;
		dk->d_strategy = vkd_strategy;
		dk->d_flush = vkd_flush;
		dk->d_poll = vkd_poll;
		dk->d_softc = sc;
		im->sc = sc;
		disk_register(dk);
		kprintf("%s: %s, %llu sectors (%llu MiB)%s\n", dk->d_name,
		    im->path, (unsigned long long)dk->d_nsectors,
		    (unsigned long long)(im->size >> 20),
		    im->readonly ? ", read-only" : "");
	}
	return 0;
}

void
vkd_detach(struct disk *dk)
{
	struct vkd_softc *sc = dk->d_softc;
	struct vkd_image *im = sc->sc_image;

	KASSERT(sc->sc_inflight == 0, "vkd_detach: transfers in flight");
	disk_unregister(dk);
	blkio_close(sc->sc_io);
	blkio_image_close(im->fd);	/* and the lock goes */
	im->fd = -1;
	im->sc = NULL;
	kfree(sc);
}
