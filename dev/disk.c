/*
 * The list of disks (see disk.h).
 */
#include <string.h>

#include "dev/disk.h"
#include "kern/kernel.h"

struct disklist disklist = TAILQ_HEAD_INITIALIZER(disklist);
static const struct disk_watcher *disk_watcher;

void
disk_watch(const struct disk_watcher *w)
{
	disk_watcher = w;
}

void
disk_register(struct disk *dk)
{
	KASSERT(disk_lookup(dk->d_name) == NULL, "disk registered twice");
	/* Linux's set_init_blocksize: whole blocks cover the disk. */
	dk->d_bsize = 512;
	while (dk->d_bsize < 4096 && (disk_size(dk) & dk->d_bsize) == 0)
		dk->d_bsize <<= 1;
	TAILQ_INSERT_TAIL(&disklist, dk, d_list);
	if (disk_watcher != NULL)
		disk_watcher->dw_add(dk);
}

void
disk_unregister(struct disk *dk)
{
	KASSERT(dk->d_writes == 0, "disk_unregister: writes in flight");
	KASSERT(dk->d_opens == 0 && dk->d_holder == NULL,
	    "disk_unregister: the disk is in use");
	TAILQ_REMOVE(&disklist, dk, d_list);
	if (disk_watcher != NULL)
		disk_watcher->dw_remove(dk);
}

struct disk *
disk_lookup(const char *name)
{
	struct disk *dk;

	if (strncmp(name, "/dev/", 5) == 0)
		name += 5;
	TAILQ_FOREACH(dk, &disklist, d_list)
		if (strcmp(dk->d_name, name) == 0)
			return dk;
	return NULL;
}

struct disk *
disk_bydev(dev_t dev)
{
	struct disk *dk;

	TAILQ_FOREACH(dk, &disklist, d_list)
		if (dk->d_dev == dev)
			return dk;
	return NULL;
}

int
disk_claim(struct disk *dk, const void *holder)
{
	if (dk->d_holder != NULL && dk->d_holder != holder)
		return -EBUSY;
	dk->d_holder = holder;
	return 0;
}

void
disk_unclaim(struct disk *dk, const void *holder)
{
	if (dk->d_holder == holder)
		dk->d_holder = NULL;
}
