/*
 * The kernel log as files: /dev/kmsg (a record per read, lines written
 * become records) and /proc/kmsg (syslog(2)'s READ as a file).
 */
#ifndef DEV_KMSG_H
#define DEV_KMSG_H

struct file;

/* Registers /dev/kmsg (major 1, minor 11).  At boot. */
void kmsg_init(void);

/*
 * Opens /proc/kmsg into fp, whose vnode procfs gave (the file's close
 * releases it): -EPERM without the right to read the log (syslog(2)'s
 * OPEN), else 0 with fp's operations set.
 */
int kmsg_proc_open(struct file *fp);

#endif /* DEV_KMSG_H */
