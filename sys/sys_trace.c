/*
 * --strace: the tracer's lines.  The dispatcher calls strace_syscall for
 * every call while strace_enabled is set (one predictable branch when it
 * is not).  A line is built in a buffer of its own, so that a call which
 * sleeps does not hold up the others: the name and input arguments when
 * the call starts (execve's are gone once it succeeds), the output
 * arguments and the result when it returns, and the whole line is written
 * then, with one write on the host, as strace prints a call that blocks
 * when several processes are traced.  Guest memory is read only through
 * copyin (sys_trace_args.c): a bad pointer prints as an address.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "host/hostlog.h"
#include "kern/kernel.h"
#include "kern/signal.h"
#include "sys/sys_trace.h"
#include "sys/sys_trace_var.h"
#include "kern/ucred.h"
#include "kern/kmem.h"

bool strace_enabled;
static uint64_t trace_set[howmany(SYS_MAXSYSCALL, 64)];	/* calls shown */
static bool trace_unknown = true;	/* numbers no call has */

void
tb_puts(struct tbuf *tb, const char *s)
{
	size_t n = strlen(s);
	if (n > tb->cap - tb->len)
		n = tb->cap - tb->len;
	memcpy(tb->buf + tb->len, s, n);
	tb->len += n;
}

void
tb_printf(struct tbuf *tb, const char *fmt, ...)
{
	va_list ap;
	size_t room = tb->cap - tb->len;
	va_start(ap, fmt);
	int n = vsnprintf(tb->buf + tb->len, room + 1, fmt, ap);
	va_end(ap);
	if (n > 0)
		tb->len += (size_t)n < room ? (size_t)n : room;
}

void
tb_addr(struct tbuf *tb, uint64_t addr)
{
	if (addr == 0)
		tb_puts(tb, "NULL");
	else
		tb_printf(tb, "%#lx", (unsigned long)addr);
}

void
tb_quote(struct tbuf *tb, const uint8_t *s, size_t n, bool hex)
{
	tb_puts(tb, "\"");
	for (size_t i = 0; i < n; i++) {
		uint8_t c = s[i];
		const char *esc = NULL;
		switch (c) {
		case '"':  esc = "\\\""; break;
		case '\\': esc = "\\\\"; break;
		case '\f': esc = "\\f"; break;
		case '\n': esc = "\\n"; break;
		case '\r': esc = "\\r"; break;
		case '\t': esc = "\\t"; break;
		case '\v': esc = "\\v"; break;
		}
		if (hex)
			tb_printf(tb, "\\x%02x", c);
		else if (esc != NULL)
			tb_puts(tb, esc);
		else if (c >= ' ' && c < 0x7f)
			tb_printf(tb, "%c", c);
		else if (i + 1 < n && s[i + 1] >= '0' && s[i + 1] <= '7')
			tb_printf(tb, "\\%03o", c);	/* the digit must not join it */
		else
			tb_printf(tb, "\\%o", c);
	}
	tb_puts(tb, "\"");
}

static bool
trace_wanted(uint64_t nr)
{
	if (nr >= SYS_MAXSYSCALL || sysent[nr].sy_name == NULL)
		return trace_unknown;
	return trace_set[nr / 64] & (1ULL << (nr % 64));
}

/* Selects the calls of trace=LIST, strace's -e trace= syntax. */
static int
trace_parse(const char *list, const char **why)
{
	static const struct { const char *name; int flag; } classes[] = {
		{ "%file", SY_FILE }, { "%desc", SY_DESC },
		{ "%process", SY_PROC }, { "%signal", SY_SIG },
		{ "%memory", SY_MEM }, { "%network", SY_NET }, { "%net", SY_NET },
		{ "%ipc", SY_IPC }, { "%creds", SY_CREDS }, { "%clock", SY_CLOCK },
	};
	bool negate = *list == '!';
	char name[64];

	list += negate;
	memset(trace_set, 0, sizeof(trace_set));
	trace_unknown = false;
	while (*list != '\0') {
		size_t n = strcspn(list, ",");
		if (n == 0 || n >= sizeof(name)) {
			*why = "trace=: an empty or overlong name";
			return -1;
		}
		memcpy(name, list, n);
		name[n] = '\0';
		list += n + (list[n] == ',');
		int flag = -1;
		for (size_t i = 0; i < nitems(classes); i++)
			if (strcmp(name, classes[i].name) == 0)
				flag = classes[i].flag;
		bool found = strcmp(name, "none") == 0;
		if (strcmp(name, "all") == 0) {
			memset(trace_set, 0xff, sizeof(trace_set));
			trace_unknown = found = true;
		}
		for (int nr = 0; nr < SYS_MAXSYSCALL; nr++) {
			const struct sysent *se = &sysent[nr];
			if (se->sy_name == NULL)
				continue;
			if (flag >= 0 ? (se->sy_flags & flag) != 0 :
			    strcmp(se->sy_name, name) == 0) {
				trace_set[nr / 64] |= 1ULL << (nr % 64);
				found = true;
			}
		}
		if (!found) {
			*why = "trace=: no such system call or class";
			return -1;
		}
	}
	if (negate) {
		for (size_t i = 0; i < nitems(trace_set); i++)
			trace_set[i] = ~trace_set[i];
		trace_unknown = !trace_unknown;
	}
	return 0;
}

int
strace_config(const char *spec, const char **why)
{
	char path[4096];

	memset(trace_set, 0xff, sizeof(trace_set));
	trace_unknown = true;
	while (*spec != '\0') {
		if (strncmp(spec, "trace=", 6) == 0) {
			if (trace_parse(spec + 6, why) < 0)
				return -1;
			break;
		}
		/* file=F, or the whole spec is a file name. */
		size_t n = strncmp(spec, "file=", 5) == 0 ?
		    strcspn(spec += 5, ",") : strlen(spec);
		if (n == 0 || n >= sizeof(path)) {
			*why = "no file name";
			return -1;
		}
		memcpy(path, spec, n);
		path[n] = '\0';
		if (host_trace_open(path) < 0) {
			*why = "cannot create the file";
			return -1;
		}
		spec += n + (spec[n] == ',');
	}
	strace_enabled = true;
	proc_signal_hook = strace_signal;
	proc_exit_hook = strace_exit;
	return 0;
}

static void
count_tasks(struct proc *p, void *arg)
{
	if (p->p_state == PRS_NORMAL)
		*(int *)arg += p->p_nlwps;
}

/*
 * "[pid 12] " before a line of thread tid, as strace -f prints it: only
 * while it follows more than one task (the live threads of all
 * processes, and others, the one that is exiting), and decided when
 * the line starts, as strace prints the prefix when a call enters.
 */
static void
tb_pid(struct tbuf *tb, pid_t tid, int others)
{
	int n = others;
	proc_foreach(count_tasks, &n);
	if (n > 1)
		tb_printf(tb, "[pid %5d] ", tid);
}

/* Emits a finished line: one host write, so lines never interleave. */
static void
tb_emit(struct tbuf *tb)
{
	tb->buf[tb->len++] = '\n';	/* cap leaves room for it */
	host_trace_write(tb->buf, tb->len);
}

/* Closes the arguments: results line up in column 40, as strace's. */
static void
tb_result(struct tbuf *tb)
{
	tb_puts(tb, ") ");
	while (tb->len < 40)
		tb_puts(tb, " ");
	tb_puts(tb, "= ");
}

/* Prints arguments [from, to) of se. */
static void
trace_args(struct tbuf *tb, const struct sysent *se, int from, int to,
    const uint64_t *args, long ret, bool *first)
{
	for (int i = from; i < to; i++) {
		size_t mark = tb->len;
		if (!*first)
			tb_puts(tb, ", ");
		if (trace_arg(tb, se, i, args, ret))
			*first = false;
		else
			tb->len = mark;
	}
}

long
strace_syscall(struct lwp *lp, uint64_t nr, sy_call_t fn, const uint64_t *args)
{
	if (fn == NULL || !trace_wanted(nr))
		return fn != NULL ? fn(lp, args) : -ENOSYS;
	struct tbuf tb = { kmalloc(TRACE_LINE, 0), 0, TRACE_LINE - 1 };
	if (tb.buf == NULL)
		return fn(lp, args);		/* the line is lost, not the call */

	const struct sysent *se = nr < SYS_MAXSYSCALL && sysent[nr].sy_name != NULL ?
	    &sysent[nr] : NULL;
	int narg = se != NULL ? se->sy_narg : 6, k = 0;
	bool first = true;

	tb_pid(&tb, lp->lwp_tid, 0);
	if (se == NULL) {
		tb_printf(&tb, "syscall_%#lx(", (unsigned long)nr);
		for (int i = 0; i < 6; i++)
			tb_printf(&tb, "%s%#lx", i ? ", " : "", (unsigned long)args[i]);
		k = narg;
	} else {
		tb_printf(&tb, "%s(", se->sy_name);
		if (nr == SYS_rt_sigreturn)
			trace_sigframe(&tb);
		while (k < narg && !trace_kind_out(AK_KIND(se->sy_args[k])))
			k++;
		trace_args(&tb, se, 0, k, args, 0, &first);
	}
	if (se != NULL && (se->sy_flags & SY_NORETURN)) {
		tb_result(&tb);
		tb_puts(&tb, "?");
		tb_emit(&tb);
		kfree(tb.buf);
		return fn(lp, args);
	}

	long r = fn(lp, args);

	if (se != NULL)
		trace_args(&tb, se, k, narg, args, r, &first);
	tb_result(&tb);
	/* execve, rt_sigreturn: rax is set (sigreturn's, an error maybe). */
	long rv = r == -EJUSTRETURN ? (long)lp->lwp_tf.tf_rax : r;
	if (rv < 0 && rv >= -4095)
		tb_errno(&tb, -rv);
	else if (r == -EJUSTRETURN)
		tb_printf(&tb, "%ld", rv);
	else if (se != NULL && se->sy_ret == RV_FCNTL)
		trace_fcntl_result(&tb, args[1], r);
	else if (se != NULL && se->sy_ret == RV_HEX)
		tb_printf(&tb, "%#lx", (unsigned long)r);
	else if (se != NULL && se->sy_ret == RV_OCT)
		tb_printf(&tb, "%#03lo", (unsigned long)r);
	else
		tb_printf(&tb, "%ld", r);
	tb_emit(&tb);
	/* A new process is followed, as strace -f says when it attaches. */
	if (r > 0 && (nr == SYS_clone || nr == SYS_fork || nr == SYS_vfork ||
	    nr == SYS_clone3)) {
		tb.len = 0;
		tb_printf(&tb, "strace: Process %ld attached", r);
		tb_emit(&tb);
	}
	kfree(tb.buf);
	return r;
}

/* The sender of a signal: si_pid=1, si_uid=0 (strace's printsigsource). */
static void
tb_sigsource(struct tbuf *tb, const siginfo_t *si)
{
	tb_printf(tb, ", si_pid=%d, si_uid=%u", si->si_pid, si->si_uid);
}

/* A value sent with the signal (sigqueue): si_int=5, si_ptr=0x5. */
static void
tb_sigval(struct tbuf *tb, const siginfo_t *si)
{
	if (si->si_ptr == NULL)
		return;
	tb_printf(tb, ", si_int=%d, si_ptr=", si->si_int);
	tb_addr(tb, (uint64_t)si->si_ptr);
}

void
strace_signal(struct proc *p, const siginfo_t *si)
{
	char buf[256];
	struct tbuf tb = { buf, 0, sizeof(buf) - 1 };
	int sig = si->si_signo, code = si->si_code;

	tb_pid(&tb, p->p_pid, 0);
	tb_puts(&tb, "--- ");
	tb_signame(&tb, sig, false);
	tb_puts(&tb, " {si_signo=");
	tb_signame(&tb, sig, false);
	tb_puts(&tb, ", si_code=");
	/* As strace: the fields si_code says the sender filled. */
	if (code <= 0) {			/* from user space */
		tb_xlat(&tb, xl_sicode, (uint64_t)(int64_t)code, "%d");
		tb_sigsource(&tb, si);
		if (code != SI_USER && code != SI_TKILL)
			tb_sigval(&tb, si);
	} else if (sig == SIGCHLD) {
		tb_xlat(&tb, xl_sicode_chld, (uint64_t)code, "%d");
		tb_sigsource(&tb, si);
		tb_puts(&tb, ", si_status=");
		if (code == CLD_EXITED)
			tb_printf(&tb, "%d", si->si_status);
		else
			tb_signame(&tb, si->si_status, false);
		tb_printf(&tb, ", si_utime=%lu, si_stime=%lu",
		    (unsigned long)si->si_utime, (unsigned long)si->si_stime);
	} else if (sig == SIGILL || sig == SIGFPE || sig == SIGSEGV ||
	    sig == SIGBUS) {
		tb_xlat(&tb, sig == SIGILL ? xl_sicode_ill : sig == SIGFPE ?
		    xl_sicode_fpe : sig == SIGSEGV ? xl_sicode_segv :
		    xl_sicode_bus, (uint64_t)code, "%d");
		tb_puts(&tb, ", si_addr=");
		tb_addr(&tb, (uint64_t)si->si_addr);
	} else {
		tb_xlat(&tb, sig == SIGTRAP ? xl_sicode_trap : xl_sicode,
		    (uint64_t)code, "%d");
		if (si->si_pid != 0 || si->si_uid != 0)
			tb_sigsource(&tb, si);
		tb_sigval(&tb, si);
	}
	tb_puts(&tb, "} ---");
	tb_emit(&tb);
}

void
strace_exit(struct proc *p, int xstat)
{
	char buf[128];
	struct tbuf tb = { buf, 0, sizeof(buf) - 1 };

	tb_pid(&tb, p->p_pid, 1);	/* p is a zombie already */
	tb_puts(&tb, "+++ ");
	if (WIFSIGNALED(xstat)) {
		tb_puts(&tb, "killed by ");
		tb_signame(&tb, WTERMSIG(xstat), false);
		tb_puts(&tb, WCOREDUMP(xstat) ? " (core dumped) +++" : " +++");
	} else {
		tb_printf(&tb, "exited with %d +++", WEXITSTATUS(xstat));
	}
	tb_emit(&tb);
}

void
strace_init_exec(struct lwp *lp, const char *path, char *const argv[],
    int envc, int error)
{
	char buf[1024];
	struct tbuf tb = { buf, 0, sizeof(buf) - 1 };

	if (!trace_wanted(SYS_execve))
		return;
	tb_pid(&tb, lp->lwp_tid, 0);
	tb_puts(&tb, "execve(");
	tb_quote(&tb, (const uint8_t *)path, strlen(path), false);
	tb_puts(&tb, ", [");
	for (int i = 0; argv[i] != NULL; i++) {
		if (i == TRACE_ARRAYLEN) {
			tb_puts(&tb, ", ...");
			break;
		}
		size_t n = strlen(argv[i]);
		tb_puts(&tb, i > 0 ? ", " : "");
		tb_quote(&tb, (const uint8_t *)argv[i], n < TRACE_STRLEN ? n :
		    TRACE_STRLEN, false);
		if (n > TRACE_STRLEN)
			tb_puts(&tb, "...");
	}
	/* Where envp is on the new stack: after argc, argv and its NULL. */
	uint64_t argc = 0, sp = lp->lwp_tf.tf_rsp;
	if (error == 0 && copyin(sp, &argc, sizeof(argc)) == 0)
		tb_printf(&tb, "], %#lx", (unsigned long)(sp + 16 + 8 * argc));
	else
		tb_puts(&tb, "], NULL");
	tb_printf(&tb, " /* %d var%s */", envc, envc == 1 ? "" : "s");
	tb_result(&tb);
	if (error < 0)
		tb_errno(&tb, -error);
	else
		tb_puts(&tb, "0");
	tb_emit(&tb);
}
