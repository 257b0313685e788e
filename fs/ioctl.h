/*
 * ioctl commands by declaration, as the direction and size bits of
 * Linux's _IOC numbers (which the old tty and FIO commands lack): each
 * driver lists the commands it knows in a table of struct ioctl_cmd.
 * The system-call layer (kern_ioctl) looks the command up, copies the
 * argument in before the driver runs only if the driver reads it, and
 * out after only if the driver writes it and succeeded: a command that
 * only reads its argument never writes it back, and a command no table
 * lists is -ENOTTY without the driver or the argument being touched.
 * The tables are looked up by command number alone, so a tracer can
 * name and decode a command from them.
 */
#ifndef FS_IOCTL_H
#define FS_IOCTL_H

#include <stddef.h>
#include <stdint.h>

/* What the driver does with the argument (ic_dir). */
#define IOCD_NONE	0	/* no argument (FIOCLEX, TIOCNOTTY) */
#define IOCD_VALUE	1	/* the argument is an int value, not a pointer */
#define IOCD_IN		2	/* reads ic_size bytes at the pointer */
#define IOCD_OUT	4	/* writes ic_size bytes at the pointer */
#define IOCD_INOUT	(IOCD_IN | IOCD_OUT)

#define IOCTL_ARGMAX	128	/* the largest ic_size (struct rtentry) */

struct ioctl_cmd {
	unsigned long ic_cmd;
	const char *ic_name;	/* "TCGETS", for the tracer and the log */
	uint8_t ic_dir;		/* IOCD_* */
	uint16_t ic_size;	/* bytes at the pointer (IOCD_IN, IOCD_OUT) */
};

/* An entry of a table; a table ends with IOCTL_END. */
#define IOCTL_CMD(cmd, dir, size)	{ (cmd), #cmd, (dir), (size) }
#define IOCTL_END			{ 0, NULL, 0, 0 }

/* The entry of table tab (may be NULL) for cmd, or NULL. */
static inline const struct ioctl_cmd *
ioctl_cmd_find(const struct ioctl_cmd *tab, unsigned long cmd)
{
	for (; tab != NULL && tab->ic_name != NULL; tab++)
		if (tab->ic_cmd == cmd)
			return tab;
	return NULL;
}

/* The commands every file has (FIOCLEX, FIONBIO...), in sys_generic.c. */
extern const struct ioctl_cmd fd_ioctls[];

#endif /* FS_IOCTL_H */
