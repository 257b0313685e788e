/*
 * vkd: disks over host image files, after DragonFly's vkd.  Each -r FILE
 * (FILE:ro for a read-only disk) becomes vkd0, vkd1... in dev/disk.h's
 * list.  Transfers run on host helper threads (host/blkio.h) and end
 * with an INTR_DISK interrupt, so the CPU runs other threads meanwhile.
 */
#ifndef DEV_VKD_H
#define DEV_VKD_H

struct disk;

#define VKD_MAXUNITS	16

/*
 * Host side, before boot: opens the image of a -r argument (read-write,
 * or read-only with ":ro" or if we may not write it) and locks it, so
 * that no two vkernels write one image.  The size must be a non-zero
 * multiple of 512 bytes.  Returns 0, or -1 with *why saying what is
 * wrong (the caller prints it and exits).
 */
int vkd_config(const char *spec, const char **why);

/*
 * Creates and registers a disk for each image configured and not yet
 * attached, logging each.  0, or -ENOMEM.
 */
int vkd_attach(void);

/*
 * Takes off the list, stops and closes a disk vkd_attach made, which
 * has no transfer in flight (the caller ran bsync and binvalidate).
 */
void vkd_detach(struct disk *dk);


#endif /* DEV_VKD_H */
