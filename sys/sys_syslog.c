/*
 * syslog(2) (glibc's klogctl): the kernel log as dmesg reads it.  The
 * actions are kern_syslog's (kern/kern_syslog.c); this checks the caller
 * and its buffer, as Linux's do_syslog, and copies the text out.
 */
#include "kern/kmem.h"
#include "kern/msgbuf.h"
#include "kern/syslog.h"
#include "kern/ucred.h"
#include "sys/syscall.h"

/* syslog(type, buf, len) */
long
sys_syslog(struct lwp *lp, const uint64_t *args)
{
	int type = (int)args[0];
	uint64_t ubuf = args[1];
	int len = (int)args[2];

	int error = syslog_check(type, SYSLOG_FROM_READER, lp->lwp_proc->p_ucred);
	if (error < 0)
		return error;
	if (type != SYSLOG_ACTION_READ && type != SYSLOG_ACTION_READ_ALL &&
	    type != SYSLOG_ACTION_READ_CLEAR)
		return kern_syslog(type, NULL, len, SYSLOG_FROM_READER);
	if (ubuf == 0 || len < 0)
		return -EINVAL;
	if (len == 0)
		return 0;
	if (!user_range_ok(ubuf, (uint64_t)len))
		return -EFAULT;
	/*
	 * The kernel's records hold one line each, whose text as syslog
	 * gives it is at most twice the record's size in the ring, so 1 MiB
	 * holds the whole log; only lines written to /dev/kmsg with
	 * newlines inside can make more, and READ_ALL then gives the newest
	 * that fit.
	 */
	size_t blen = MIN((size_t)len, (size_t)1 << 20);
	char *kbuf = kmalloc(blen, 0);
	if (kbuf == NULL)
		return -ENOMEM;
	long n = kern_syslog(type, kbuf, (int)blen, SYSLOG_FROM_READER);
	if (n > 0 && copyout(kbuf, ubuf, (size_t)n) < 0)
		n = -EFAULT;
	kfree(kbuf);
	return n;
}
