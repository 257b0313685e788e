/*
 * syslog(2) (glibc's klogctl): reading and clearing the kernel log, as
 * busybox dmesg does.  Reading it whole is open to every user (Linux with
 * dmesg_restrict 0); the rest takes root (CAP_SYSLOG).
 */
#include "sys/syscall.h"
#include "kern/ucred.h"
#include "kern/kmem.h"

/* Linux's SYSLOG_ACTION_* */
enum {
	SYSLOG_CLOSE, SYSLOG_OPEN, SYSLOG_READ, SYSLOG_READ_ALL,
	SYSLOG_READ_CLEAR, SYSLOG_CLEAR, SYSLOG_CONSOLE_OFF, SYSLOG_CONSOLE_ON,
	SYSLOG_CONSOLE_LEVEL, SYSLOG_SIZE_UNREAD, SYSLOG_SIZE_BUFFER,
};

static uint64_t klog_cleared;		/* READ_ALL starts here */
static uint64_t klog_read;		/* READ consumes from here */

/* Copies the log from `from` (whole lines, at most len bytes) out to ubuf. */
static long
syslog_copyout(uint64_t from, uint64_t ubuf, size_t len, uint64_t *next)
{
	char *kbuf = kmalloc(len < KLOG_SIZE ? len : KLOG_SIZE, 0);
	if (kbuf == NULL)
		return -ENOMEM;
	size_t n = klog_copy(from, kbuf, len < KLOG_SIZE ? len : KLOG_SIZE);
	if (next != NULL)
		*next = klog_start(from) + n;
	int error = copyout(kbuf, ubuf, n);
	kfree(kbuf);
	return error < 0 ? error : (long)n;
}

/*
 * syslog(type, buf, len): READ waits for unread text and consumes it;
 * READ_ALL gives the newest whole lines that fit in len since the last
 * CLEAR; the console actions change nothing here (the log goes to the
 * console with -v only).
 */
long
sys_syslog(struct lwp *lp, const uint64_t *args)
{
	int type = (int)args[0];
	int len = (int)args[2];
	uint64_t end = klog_end();

	if (type != SYSLOG_READ_ALL && type != SYSLOG_SIZE_BUFFER &&
	    type != SYSLOG_CLOSE && type != SYSLOG_OPEN &&
	    !cred_is_root(lp->lwp_proc->p_ucred))
		return -EPERM;
	switch (type) {
	case SYSLOG_CLOSE:
	case SYSLOG_OPEN:
	case SYSLOG_CONSOLE_OFF:
	case SYSLOG_CONSOLE_ON:
		return 0;
	case SYSLOG_CONSOLE_LEVEL:
		return len < 1 || len > 8 ? -EINVAL : 0;
	case SYSLOG_SIZE_BUFFER:
		return KLOG_SIZE;
	case SYSLOG_SIZE_UNREAD:
		return (long)(end - klog_start(klog_read));
	case SYSLOG_CLEAR:
		klog_cleared = end;
		return 0;
	case SYSLOG_READ:
		if (args[1] == 0 || len < 0)
			return -EINVAL;
		if (len == 0)
			return 0;
		if (!user_range_ok(args[1], (uint64_t)len))
			return -EFAULT;
		/* kprintf cannot wake anyone (it runs anywhere): look every 100 ms. */
		while (klog_start(klog_read) == klog_end()) {
			if (tsleep(&klog_read, PCATCH, "syslog", 100000000) ==
			    EINTR)
				return -ERESTARTSYS;
		}
		return syslog_copyout(klog_read, args[1], (size_t)len, &klog_read);
	case SYSLOG_READ_ALL:
	case SYSLOG_READ_CLEAR: {
		if (args[1] == 0 || len < 0)
			return -EINVAL;
		if (len == 0)
			return 0;
		uint64_t from = end > (uint64_t)len ? end - (uint64_t)len : 0;
		long r = syslog_copyout(from > klog_cleared ? from : klog_cleared,
		    args[1], (size_t)len, NULL);
		if (r >= 0 && type == SYSLOG_READ_CLEAR)
			klog_cleared = end;
		return r;
	}
	}
	return -EINVAL;
}
