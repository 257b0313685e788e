/*
 * The tracer's decoders: one per argument kind of sys/syscall.h, each
 * printing as strace does.  Guest memory is read only through copyin; a
 * pointer that cannot be read prints as its address, as in strace.
 */
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <termios.h>

#include "fs/stat.h"
#include "kern/kernel.h"
#include "sys/sys_trace_var.h"
#include "kern/kmem.h"

struct kiov {
	uint64_t base, len;
};

/*
 * A NUL-terminated string at addr, at most max bytes of it, read a page
 * at a time so that one ending just before an unmapped page reads.
 * Returns its length, max + 1 if it is longer, or -1 if unreadable.
 */
static long
tstr(uint64_t addr, char *buf, size_t max)
{
	size_t got = 0;
	while (got <= max) {
		size_t n = PAGE_SIZE - ((addr + got) & PAGE_MASK);
		if (n > max + 1 - got)
			n = max + 1 - got;
		if (copyin(addr + got, buf + got, n) < 0)
			return -1;
		char *nul = memchr(buf + got, '\0', n);
		if (nul != NULL)
			return nul - buf;
		got += n;
	}
	return (long)max + 1;
}

/* A string argument: "..." (cut at limit, then ...), or its address. */
static void
tb_ustr(struct tbuf *tb, uint64_t addr, size_t limit)
{
	if (addr == 0) {
		tb_puts(tb, "NULL");
		return;
	}
	char *buf = kmalloc(limit + 1, 0);	/* a path is too big for the stack */
	long n = buf != NULL ? tstr(addr, buf, limit) : -1;
	if (n < 0)
		tb_addr(tb, addr);
	else
		tb_quote(tb, (const uint8_t *)buf, (size_t)n > limit ? limit :
		    (size_t)n, false);
	if (n >= 0 && (size_t)n > limit)
		tb_puts(tb, "...");
	kfree(buf);
}

void
tb_ubuf(struct tbuf *tb, uint64_t addr, uint64_t len, bool hex)
{
	uint8_t buf[TRACE_STRLEN];
	size_t n = len < TRACE_STRLEN ? len : TRACE_STRLEN;
	if (copyin(addr, buf, n) < 0) {
		tb_addr(tb, addr);
		return;
	}
	tb_quote(tb, buf, n, hex);
	if (len > TRACE_STRLEN)
		tb_puts(tb, "...");
}

void
tb_iov(struct tbuf *tb, uint64_t addr, uint64_t cnt, bool out, uint64_t left)
{
	struct kiov iov;
	tb_puts(tb, "[");
	for (uint64_t i = 0; i < cnt; i++) {
		if (i == TRACE_ARRAYLEN) {
			tb_puts(tb, ", ...");
			break;
		}
		if (copyin(addr + i * sizeof(iov), &iov, sizeof(iov)) < 0) {
			tb_printf(tb, "%s", i ? ", ..." : "...");
			break;
		}
		uint64_t n = iov.len;
		if (out) {
			n = n < left ? n : left;
			left -= n;
		}
		tb_printf(tb, "%s{iov_base=", i ? ", " : "");
		if (iov.base == 0)
			tb_puts(tb, "NULL");
		else
			tb_ubuf(tb, iov.base, n, false);
		tb_printf(tb, ", iov_len=%lu}", (unsigned long)iov.len);
	}
	tb_puts(tb, "]");
}

static void
tb_openflags(struct tbuf *tb, uint64_t v, bool accmode)
{
	static const char *const acc[] = { "O_RDONLY", "O_WRONLY", "O_RDWR", "O_ACCMODE" };
	if (!accmode) {
		tb_flags(tb, xl_open, v, NULL);
		return;
	}
	tb_puts(tb, acc[v & O_ACCMODE]);
	if (v & ~(uint64_t)O_ACCMODE) {
		tb_puts(tb, "|");
		tb_flags(tb, xl_open, v & ~(uint64_t)O_ACCMODE, NULL);
	}
}

static void
tb_ts(struct tbuf *tb, const char *usec, int64_t sec, int64_t frac)
{
	tb_printf(tb, "{tv_sec=%ld, tv_%s=%ld}", (long)sec, usec, (long)frac);
}

static void
tb_rlim(struct tbuf *tb, uint64_t v)
{
	if (v == UINT64_MAX)
		tb_puts(tb, "RLIM64_INFINITY");
	else if (v > 1024 && v % 1024 == 0)
		tb_printf(tb, "%lu*1024", (unsigned long)(v / 1024));
	else
		tb_printf(tb, "%lu", (unsigned long)v);
}

static void
tb_sigaction(struct tbuf *tb, uint64_t addr)
{
	struct linux_sigaction sa;
	if (copyin(addr, &sa, sizeof(sa)) < 0) {
		tb_addr(tb, addr);
		return;
	}
	tb_puts(tb, "{sa_handler=");
	if (sa.lsa_handler == (uint64_t)SIG_DFL)
		tb_puts(tb, "SIG_DFL");
	else if (sa.lsa_handler == (uint64_t)SIG_IGN)
		tb_puts(tb, "SIG_IGN");
	else
		tb_addr(tb, sa.lsa_handler);
	tb_puts(tb, ", sa_mask=");
	tb_sigset(tb, sa.lsa_mask);
	tb_puts(tb, ", sa_flags=");
	tb_flags(tb, xl_sa, sa.lsa_flags, NULL);
	if (sa.lsa_flags & 0x04000000) {
		tb_puts(tb, ", sa_restorer=");
		tb_addr(tb, sa.lsa_restorer);
	}
	tb_puts(tb, "}");
}

/* An IPv6 address as inet_ntop writes it: the longest zero run as "::". */
static void
tb_in6(struct tbuf *tb, const uint8_t *a)
{
	int best = -1, bestlen = 1, run = 0;
	for (int i = 0; i < 8; i++) {
		run = (a[2 * i] | a[2 * i + 1]) == 0 ? run + 1 : 0;
		if (run > bestlen) {
			bestlen = run;
			best = i - run + 1;
		}
	}
	bool v4mapped = best == 0 && bestlen == 5 && a[10] == 0xff && a[11] == 0xff;
	for (int i = 0; i < 8; i++) {
		if (i == best) {
			tb_puts(tb, i == 0 ? "::" : ":");
			i += bestlen - 1;
			continue;
		}
		if (v4mapped && i == 5) {
			tb_printf(tb, "ffff:%u.%u.%u.%u", a[12], a[13], a[14], a[15]);
			return;
		}
		tb_printf(tb, "%x%s", a[2 * i] << 8 | a[2 * i + 1], i < 7 ? ":" : "");
	}
}

void
tb_sockaddr(struct tbuf *tb, uint64_t addr, uint64_t len)
{
	uint8_t sa[128] = { 0 };
	size_t n = len < sizeof(sa) ? len : sizeof(sa);
	if (len < 2 || copyin(addr, sa, n) < 0) {
		tb_addr(tb, addr);
		return;
	}
	uint16_t family = (uint16_t)(sa[0] | sa[1] << 8);
	tb_puts(tb, "{sa_family=");
	tb_xlat(tb, xl_family, family, "%lu");
	if (family == 1 && n > 2 && sa[2] == 0) {	/* AF_UNIX, abstract */
		tb_puts(tb, ", sun_path=@");
		tb_quote(tb, sa + 3, n - 3, false);
	} else if (family == 1) {			/* AF_UNIX */
		size_t plen = strnlen((char *)sa + 2, n - 2);
		tb_puts(tb, ", sun_path=");
		tb_quote(tb, sa + 2, plen, false);
	} else if (family == 2 && n >= 8) {		/* AF_INET */
		tb_printf(tb, ", sin_port=htons(%u), sin_addr=inet_addr(\"%u.%u.%u.%u\")",
		    sa[2] << 8 | sa[3], sa[4], sa[5], sa[6], sa[7]);
	} else if (family == 10 && n >= 24) {		/* AF_INET6 */
		uint32_t scope = 0;
		if (n >= 28)
			memcpy(&scope, sa + 24, sizeof(scope));
		tb_printf(tb, ", sin6_port=htons(%u), sin6_flowinfo=htonl(%u), "
		    "inet_pton(AF_INET6, \"", sa[2] << 8 | sa[3],
		    (unsigned)(sa[4] << 24 | sa[5] << 16 | sa[6] << 8 | sa[7]));
		tb_in6(tb, sa + 8);
		tb_printf(tb, "\", &sin6_addr), sin6_scope_id=%u", scope);
	} else {
		tb_puts(tb, ", ...");
	}
	tb_puts(tb, "}");
}

static void
tb_wstatus(struct tbuf *tb, uint64_t addr)
{
	int s;
	if (copyin(addr, &s, sizeof(s)) < 0) {
		tb_addr(tb, addr);
		return;
	}
	if (WIFEXITED(s)) {
		tb_printf(tb, "[{WIFEXITED(s) && WEXITSTATUS(s) == %d}]", WEXITSTATUS(s));
	} else if (WIFSIGNALED(s)) {
		tb_puts(tb, "[{WIFSIGNALED(s) && WTERMSIG(s) == ");
		tb_signame(tb, WTERMSIG(s), false);
		tb_puts(tb, WCOREDUMP(s) ? " && WCOREDUMP(s)}]" : "}]");
	} else if (WIFSTOPPED(s)) {
		tb_puts(tb, "[{WIFSTOPPED(s) && WSTOPSIG(s) == ");
		tb_signame(tb, WSTOPSIG(s), false);
		tb_puts(tb, "}]");
	} else if (WIFCONTINUED(s)) {
		tb_puts(tb, "[{WIFCONTINUED(s)}]");
	} else {
		tb_printf(tb, "[%#x]", s);
	}
}

/* execve's argv: ["ls", "/"]; envp: its address and how many. */
static void
tb_argv(struct tbuf *tb, uint64_t addr, bool count)
{
	uint64_t p;
	int i;
	if (addr == 0) {
		tb_puts(tb, "NULL");
		return;
	}
	if (count) {
		for (i = 0; i < 65536; i++)
			if (copyin(addr + 8 * (uint64_t)i, &p, 8) < 0 || p == 0)
				break;
		tb_printf(tb, "%#lx /* %d var%s */", (unsigned long)addr, i,
		    i == 1 ? "" : "s");
		return;
	}
	tb_puts(tb, "[");
	for (i = 0; ; i++) {
		if (copyin(addr + 8 * (uint64_t)i, &p, 8) < 0) {
			tb_printf(tb, "%s%#lx", i ? ", " : "",
			    (unsigned long)(addr + 8 * (uint64_t)i));
			break;
		}
		if (p == 0)
			break;
		if (i == TRACE_ARRAYLEN) {
			tb_puts(tb, ", ...");
			break;
		}
		if (i > 0)
			tb_puts(tb, ", ");
		tb_ustr(tb, p, TRACE_STRLEN);
	}
	tb_puts(tb, "]");
}

/* getdents64's buffer after the call: how many entries came back. */
static void
tb_dirents(struct tbuf *tb, uint64_t addr, long len)
{
	int n = 0;
	for (long off = 0; off < len; n++) {
		uint16_t reclen;
		if (copyin(addr + (uint64_t)off + 16, &reclen, 2) < 0 || reclen == 0)
			break;
		off += reclen;
	}
	tb_printf(tb, "%#lx /* %d entries */", (unsigned long)addr, n);
}

static void
tb_pollfds(struct tbuf *tb, uint64_t addr, uint64_t nfds)
{
	struct { int32_t fd; int16_t events, revents; } pfd;
	tb_puts(tb, "[");
	for (uint64_t i = 0; i < nfds; i++) {
		if (i == TRACE_ARRAYLEN) {
			tb_puts(tb, ", ...");
			break;
		}
		if (copyin(addr + i * sizeof(pfd), &pfd, sizeof(pfd)) < 0)
			break;
		tb_printf(tb, "%s{fd=%d, events=", i ? ", " : "", pfd.fd);
		tb_flags(tb, xl_poll, (uint16_t)pfd.events, NULL);
		tb_puts(tb, "}");
	}
	tb_puts(tb, "]");
}

/* n struct epoll_event at addr: {events=EPOLLIN, data=0x5}. */
static void
tb_epollevents(struct tbuf *tb, uint64_t addr, uint64_t n, bool array)
{
	struct __attribute__((packed)) { uint32_t events; uint64_t data; } ev;
	if (array)
		tb_puts(tb, "[");
	for (uint64_t i = 0; i < n; i++) {
		if (i == TRACE_ARRAYLEN) {
			tb_puts(tb, ", ...");
			break;
		}
		if (copyin(addr + i * sizeof(ev), &ev, sizeof(ev)) < 0) {
			if (i == 0 && !array)
				tb_addr(tb, addr);
			break;
		}
		tb_puts(tb, i ? ", {events=" : "{events=");
		tb_flags(tb, xl_epoll, ev.events, "0");
		tb_printf(tb, ", data=%#lx}", (unsigned long)ev.data);
	}
	if (array)
		tb_puts(tb, "]");
}

/* fcntl's third argument, as its command takes it; false: none. */
static bool
tb_fcntlarg(struct tbuf *tb, uint64_t cmd, uint64_t v)
{
	switch (cmd) {
	case F_GETFD: case F_GETFL: case F_GETOWN: case F_GETSIG:
	case F_GETLEASE: case F_GETPIPE_SZ: case F_GET_SEALS:
		return false;
	case F_SETFD:
		if (v == FD_CLOEXEC)
			tb_puts(tb, "FD_CLOEXEC");
		else
			tb_printf(tb, "%#lx", (unsigned long)v);
		return true;
	case F_SETFL:
		tb_openflags(tb, v, true);
		return true;
	case F_DUPFD: case F_DUPFD_CLOEXEC: case F_SETOWN: case F_SETSIG:
	case F_SETPIPE_SZ: case F_SETLEASE: case F_NOTIFY: case F_ADD_SEALS:
		tb_printf(tb, "%d", (int)v);
		return true;
	}
	tb_addr(tb, v);
	return true;
}

void
trace_fcntl_result(struct tbuf *tb, uint64_t cmd, long r)
{
	if (cmd == F_GETFL) {
		tb_printf(tb, "%#lx (flags ", (unsigned long)r);
		tb_openflags(tb, (uint64_t)r, true);
		tb_puts(tb, ")");
	} else if (cmd == F_GETFD && r != 0) {
		tb_printf(tb, "%#lx (flags ", (unsigned long)r);
		tb_flags(tb, (const struct xlat[]){ { FD_CLOEXEC, "FD_CLOEXEC" },
		    { 0, NULL } }, (uint64_t)r, NULL);
		tb_puts(tb, ")");
	} else {
		tb_printf(tb, "%ld", r);
	}
}

/* The kernel's struct termios (the C library's is longer). */
struct ktermios {
	uint32_t c_iflag, c_oflag, c_cflag, c_lflag;
	uint8_t c_line, c_cc[19];
};

/*
 * {c_iflag=ICRNL|IXON, c_oflag=NL0|CR0|...|OPOST|ONLCR,
 * c_cflag=B38400|CS8|CREAD, c_lflag=ISIG|ICANON|..., ...}, as strace
 * abbreviates a termios.
 */
static void
tb_termios(struct tbuf *tb, uint64_t addr)
{
	static const struct { uint32_t mask; const struct xlat *x; } delays[] = {
		{ NLDLY, xl_nldly }, { CRDLY, xl_crdly }, { TABDLY, xl_tabdly },
		{ BSDLY, xl_bsdly }, { VTDLY, xl_vtdly }, { FFDLY, xl_ffdly },
	};
	struct ktermios t;
	if (copyin(addr, &t, sizeof(t)) < 0) {
		tb_addr(tb, addr);
		return;
	}
	/* No flags print as nothing: "c_iflag=, ", as strace has it. */
	tb_puts(tb, "{c_iflag=");
	tb_flags(tb, xl_iflag, t.c_iflag, "");
	tb_puts(tb, ", c_oflag=");
	for (size_t i = 0; i < nitems(delays); i++) {
		tb_puts(tb, i > 0 ? "|" : "");
		tb_xlat(tb, delays[i].x, t.c_oflag & delays[i].mask, "%#lx");
	}
	uint32_t of = t.c_oflag & ~(NLDLY | CRDLY | TABDLY | BSDLY | VTDLY | FFDLY);
	if (of != 0) {
		tb_puts(tb, "|");
		tb_flags(tb, xl_oflag, of, NULL);
	}
	tb_puts(tb, ", c_cflag=");
	tb_xlat(tb, xl_baud, t.c_cflag & CBAUD, "%#lx");
	tb_printf(tb, "|CS%u", 5 + ((t.c_cflag & CSIZE) >> 4));
	if (t.c_cflag & CIBAUD) {
		tb_puts(tb, "|");
		tb_xlat(tb, xl_baud, (t.c_cflag & CIBAUD) >> 16, "%#lx");	/* IBSHIFT */
		tb_puts(tb, "<<IBSHIFT");
	}
	uint32_t cf = t.c_cflag & ~(CBAUD | CSIZE | CIBAUD);
	if (cf != 0) {
		tb_puts(tb, "|");
		tb_flags(tb, xl_cflag, cf, NULL);
	}
	tb_puts(tb, ", c_lflag=");
	tb_flags(tb, xl_lflag, t.c_lflag, "");
	tb_puts(tb, ", ...}");
}

/* An int the argument points to, "[42]", or its address. */
static void
tb_intp(struct tbuf *tb, uint64_t addr)
{
	int v;
	if (copyin(addr, &v, sizeof(v)) < 0)
		tb_addr(tb, addr);
	else
		tb_printf(tb, "[%d]", v);
}

/*
 * ioctl's third argument, as command cmd takes it, after the call (what
 * a command reads is still there then); false for a command that takes
 * none.  What the call failed to fill is an address, as in strace.
 */
static bool
tb_ioctlarg(struct tbuf *tb, uint64_t cmd, uint64_t v, long ret)
{
	bool out = false;
	switch ((uint32_t)cmd) {
	case TIOCNOTTY: case FIOCLEX: case FIONCLEX:
		return false;
	case TIOCSCTTY:
		tb_printf(tb, "%d", (int)v);
		return true;
	case TCFLSH:
		tb_xlat(tb, xl_tcflsh, v, "%#lx");
		return true;
	case TCGETS:
		out = true;
		/* FALLTHROUGH */
	case TCSETS: case TCSETSW: case TCSETSF:
		if (out && ret < 0)
			tb_addr(tb, v);
		else
			tb_termios(tb, v);
		return true;
	case TIOCGWINSZ:
		out = true;
		/* FALLTHROUGH */
	case TIOCSWINSZ: {
		struct { uint16_t row, col, xpixel, ypixel; } ws;
		if ((out && ret < 0) || copyin(v, &ws, sizeof(ws)) < 0)
			tb_addr(tb, v);
		else
			tb_printf(tb, "{ws_row=%u, ws_col=%u, ws_xpixel=%u, ws_ypixel=%u}",
			    ws.row, ws.col, ws.xpixel, ws.ypixel);
		return true;
	}
	case TIOCGPGRP: case TIOCGSID: case FIONREAD: case TIOCGPTN:
		out = true;
		/* FALLTHROUGH */
	case TIOCSPGRP: case FIONBIO: case TIOCSPTLCK:
		if (out && ret < 0)
			tb_addr(tb, v);
		else
			tb_intp(tb, v);
		return true;
	}
	tb_printf(tb, "%#lx", (unsigned long)v);
	return true;
}

void
trace_sigframe(struct tbuf *tb)
{
	/* The ucontext is at rsp; its uc_sigmask follows the mcontext. */
	uint64_t mask, at = curlwp->lwp_tf.tf_rsp + 296;
	if (copyin(at, &mask, sizeof(mask)) < 0) {
		tb_addr(tb, at);
		return;
	}
	tb_puts(tb, "{mask=");
	tb_sigset(tb, mask);
	tb_puts(tb, "}");
}

static void
tb_clone(struct tbuf *tb, const uint64_t *args)
{
	uint64_t flags = args[0];
	tb_puts(tb, "child_stack=");
	tb_addr(tb, args[1]);
	tb_puts(tb, ", flags=");
	if (flags & ~0xffUL) {
		tb_flags(tb, xl_clone, flags & ~0xffUL, NULL);
		if (flags & 0xff)
			tb_puts(tb, "|");
	}
	if (flags & 0xff || flags == 0)
		tb_signame(tb, (int)(flags & 0xff), false);
	if (flags & 0x100000) {
		tb_puts(tb, ", parent_tid=");
		tb_addr(tb, args[2]);
	}
	if (flags & (0x1000000 | 0x200000)) {
		tb_puts(tb, ", child_tidptr=");
		tb_addr(tb, args[3]);
	}
	if (flags & 0x80000) {
		tb_puts(tb, ", tls=");
		tb_addr(tb, args[4]);
	}
}

/*
 * prctl's arguments, as its option takes them, all printed when it
 * returns (PR_GET_NAME fills its buffer).
 */
static void
tb_prctl(struct tbuf *tb, const uint64_t *args)
{
	tb_xlat(tb, xl_prctl, args[0], "%#lx");
	switch (args[0]) {
	case 15:	/* PR_SET_NAME */
	case 16:	/* PR_GET_NAME */
		tb_puts(tb, ", ");
		tb_ustr(tb, args[1], 16);
		break;
	case 1:		/* PR_SET_PDEATHSIG */
		tb_puts(tb, ", ");
		tb_signame(tb, (int)args[1], false);
		break;
	case 3:		/* PR_GET_DUMPABLE */
	case 37:	/* PR_GET_CHILD_SUBREAPER */
	case 39:	/* PR_GET_NO_NEW_PRIVS */
		break;
	default:
		tb_printf(tb, ", %#lx", (unsigned long)args[1]);
	}
}

bool
trace_kind_out(unsigned kind)
{
	switch (kind) {
	case AK_SOCKADDROUT: case AK_SOCKLENOUT: case AK_MSGHDROUT:
	case AK_OSTR: case AK_OBUF: case AK_OBUFHEX: case AK_IOVOUT:
	case AK_SIGSETOUT: case AK_SIGACTOUT: case AK_STATOUT: case AK_STATXOUT:
	case AK_TSOUT: case AK_TVOUT: case AK_ITVOUT: case AK_UTSOUT:
	case AK_WSTATUS: case AK_PIPEFDS: case AK_RLIMOUT: case AK_DIRENTS:
	case AK_PRCTL: case AK_IOCTLARG: case AK_ITSOUT: case AK_EPOLLEVOUT:
		return true;
	}
	return false;
}

/* An output argument after the call: decoded if it succeeded. */
static void
trace_out(struct tbuf *tb, unsigned kind, uint64_t v, long ret)
{
	union {
		struct linux_stat st;
		struct linux_statx stx;
		int64_t ts[4];
		uint64_t u64[2];
		int32_t fds[2];
		char uts[6][65];
	} u;
	static const size_t size[AK_NKINDS] = {
		[AK_SIGSETOUT] = 8, [AK_STATOUT] = sizeof(struct linux_stat),
		[AK_STATXOUT] = sizeof(struct linux_statx), [AK_TSOUT] = 16,
		[AK_TVOUT] = 16, [AK_ITVOUT] = 32, [AK_UTSOUT] = 6 * 65,
		[AK_PIPEFDS] = 8, [AK_RLIMOUT] = 16, [AK_ITSOUT] = 32,
	};

	if (v == 0) {
		tb_puts(tb, "NULL");
		return;
	}
	if (ret < 0 || (kind == AK_WSTATUS && ret == 0) ||
	    (size[kind] != 0 && copyin(v, &u, size[kind]) < 0)) {
		tb_addr(tb, v);
		return;
	}
	switch (kind) {
	case AK_OSTR:
		tb_ustr(tb, v, PATH_MAX);
		break;
	case AK_OBUF:
	case AK_OBUFHEX:
		tb_ubuf(tb, v, (uint64_t)ret, kind == AK_OBUFHEX);
		break;
	case AK_SIGSETOUT:
		tb_sigset(tb, u.u64[0]);
		break;
	case AK_SIGACTOUT:
		tb_sigaction(tb, v);
		break;
	case AK_STATOUT:
		tb_puts(tb, "{st_mode=");
		tb_mode(tb, u.st.st_mode);
		if (S_ISCHR(u.st.st_mode) || S_ISBLK(u.st.st_mode))
			tb_printf(tb, ", st_rdev=makedev(%#x, %#x), ...}",
			    (unsigned)(((u.st.st_rdev >> 8) & 0xfff) |
			    ((u.st.st_rdev >> 32) & ~0xfffUL)),
			    (unsigned)((u.st.st_rdev & 0xff) |
			    ((u.st.st_rdev >> 12) & ~0xffUL)));
		else
			tb_printf(tb, ", st_size=%ld, ...}", (long)u.st.st_size);
		break;
	case AK_STATXOUT:
		tb_puts(tb, "{stx_mask=");
		tb_flags(tb, xl_statx, u.stx.stx_mask, NULL);
		tb_printf(tb, ", stx_attributes=%#lx, stx_mode=",
		    (unsigned long)u.stx.stx_attributes);
		tb_mode(tb, u.stx.stx_mode);
		tb_printf(tb, ", stx_size=%lu, ...}", (unsigned long)u.stx.stx_size);
		break;
	case AK_TSOUT:
		tb_ts(tb, "nsec", u.ts[0], u.ts[1]);
		break;
	case AK_TVOUT:
		tb_ts(tb, "usec", u.ts[0], u.ts[1]);
		break;
	case AK_ITVOUT:
	case AK_ITSOUT: {
		const char *unit = kind == AK_ITVOUT ? "usec" : "nsec";
		tb_puts(tb, "{it_interval=");
		tb_ts(tb, unit, u.ts[0], u.ts[1]);
		tb_puts(tb, ", it_value=");
		tb_ts(tb, unit, u.ts[2], u.ts[3]);
		tb_puts(tb, "}");
		break;
	}
	case AK_EPOLLEVOUT:
		tb_epollevents(tb, v, (uint64_t)ret, true);
		break;
	case AK_UTSOUT:
		u.uts[0][64] = u.uts[1][64] = '\0';
		tb_puts(tb, "{sysname=");
		tb_quote(tb, (uint8_t *)u.uts[0], strlen(u.uts[0]), false);
		tb_puts(tb, ", nodename=");
		tb_quote(tb, (uint8_t *)u.uts[1], strlen(u.uts[1]), false);
		tb_puts(tb, ", ...}");
		break;
	case AK_WSTATUS:
		tb_wstatus(tb, v);
		break;
	case AK_PIPEFDS:
		tb_printf(tb, "[%d, %d]", u.fds[0], u.fds[1]);
		break;
	case AK_RLIMOUT:
		tb_puts(tb, "{rlim_cur=");
		tb_rlim(tb, u.u64[0]);
		tb_puts(tb, ", rlim_max=");
		tb_rlim(tb, u.u64[1]);
		tb_puts(tb, "}");
		break;
	case AK_DIRENTS:
		tb_dirents(tb, v, ret);
		break;
	default:
		tb_addr(tb, v);
	}
}

bool
trace_arg(struct tbuf *tb, const struct sysent *se, int i,
    const uint64_t *args, long ret)
{
	unsigned kind = AK_KIND(se->sy_args[i]);
	uint64_t v = args[i], other = args[AK_ARG(se->sy_args[i]) % 6];
	union {
		int64_t ts[4];
		uint64_t u64[2];
	} u;

	if (trace_kind_out(kind)) {
		if (kind == AK_PRCTL)
			return i == 0 ? (tb_prctl(tb, args), true) : false;
		if (kind == AK_IOCTLARG)
			return tb_ioctlarg(tb, other, v, ret);
		if (kind == AK_SOCKADDROUT || kind == AK_SOCKLENOUT ||
		    kind == AK_MSGHDROUT) {
			trace_sockarg(tb, kind, v, other, ret);
			return true;
		}
		if (kind == AK_IOVOUT) {
			if (ret < 0)
				tb_addr(tb, v);
			else
				tb_iov(tb, v, other, true, (uint64_t)ret);
		} else {
			trace_out(tb, kind, v, ret);
		}
		return true;
	}
	switch (kind) {
	case AK_INT:	tb_printf(tb, "%d", (int)v); break;
	case AK_UINT:	tb_printf(tb, "%u", (unsigned)v); break;
	case AK_LONG:	tb_printf(tb, "%ld", (long)v); break;
	case AK_ULONG:	tb_printf(tb, "%lu", (unsigned long)v); break;
	case AK_OCT:	tb_printf(tb, "%#03o", (unsigned)v); break;
	case AK_PTR:	tb_addr(tb, v); break;
	case AK_FD:	tb_printf(tb, "%d", (int)v); break;
	case AK_DIRFD:
		if ((int)v == AT_FDCWD)
			tb_puts(tb, "AT_FDCWD");
		else
			tb_printf(tb, "%d", (int)v);
		break;
	case AK_STR:	tb_ustr(tb, v, TRACE_STRLEN); break;
	case AK_PATH:	tb_ustr(tb, v, PATH_MAX); break;
	case AK_IBUF:	tb_ubuf(tb, v, other, false); break;
	case AK_IOVIN:	tb_iov(tb, v, other, false, 0); break;
	case AK_OPENFLAGS: tb_openflags(tb, v, true); break;
	case AK_OFLAGS:	tb_openflags(tb, v, false); break;
	case AK_OPENMODE:
		if (!(other & O_CREAT) && (other & O_TMPFILE) != O_TMPFILE)
			return false;
		tb_printf(tb, "%#03o", (unsigned)v);
		break;
	case AK_ATFLAGS: tb_flags(tb, xl_at, v, NULL); break;
	case AK_ACCESS:	tb_flags(tb, xl_access, v, "F_OK"); break;
	case AK_MODET:	tb_mode(tb, (uint32_t)v); break;
	case AK_PROT:	tb_flags(tb, xl_prot, v, "PROT_NONE"); break;
	case AK_MAPFLAGS:
		tb_xlat(tb, xl_maptype, v & 0xf, "%#lx");
		if (v & ~0xfUL) {
			tb_puts(tb, "|");
			tb_flags(tb, xl_mapflags, v & ~0xfUL, NULL);
		}
		break;
	case AK_MADV:	tb_xlat(tb, xl_madv, v, "%#lx"); break;
	case AK_WHENCE:	tb_xlat(tb, xl_whence, v, "%#lx"); break;
	case AK_SIG:	tb_signame(tb, (int)v, false); break;
	case AK_SIGHOW:	tb_xlat(tb, xl_sighow, v, "%#lx"); break;
	case AK_SIGSETIN:
		if (v != 0 && copyin(v, u.u64, 8) == 0)
			tb_sigset(tb, u.u64[0]);
		else
			tb_addr(tb, v);
		break;
	case AK_SIGACTIN:
		if (v == 0)
			tb_puts(tb, "NULL");
		else
			tb_sigaction(tb, v);
		break;
	case AK_TSIN:
	case AK_TVIN:
	case AK_ITVIN:
	case AK_ITSIN:
		if (v == 0 || copyin(v, u.ts,
		    kind == AK_ITVIN || kind == AK_ITSIN ? 32 : 16) < 0) {
			tb_addr(tb, v);
		} else if (kind == AK_ITVIN || kind == AK_ITSIN) {
			const char *unit = kind == AK_ITVIN ? "usec" : "nsec";
			tb_puts(tb, "{it_interval=");
			tb_ts(tb, unit, u.ts[0], u.ts[1]);
			tb_puts(tb, ", it_value=");
			tb_ts(tb, unit, u.ts[2], u.ts[3]);
			tb_puts(tb, "}");
		} else {
			tb_ts(tb, kind == AK_TSIN ? "nsec" : "usec", u.ts[0], u.ts[1]);
		}
		break;
	case AK_ITWHICH: tb_xlat(tb, xl_itimer, v, "%#lx"); break;
	case AK_CLOCK:	tb_xlat(tb, xl_clock, v, "%#lx"); break;
	case AK_SOCKADDR:
		if (v == 0)
			tb_puts(tb, "NULL");
		else
			tb_sockaddr(tb, v, other);
		break;
	case AK_WAITOPTS: tb_flags(tb, xl_wait, v, NULL); break;
	case AK_GRND:	tb_flags(tb, xl_grnd, v, NULL); break;
	case AK_ARGV:	tb_argv(tb, v, false); break;
	case AK_ENVP:	tb_argv(tb, v, true); break;
	case AK_FCNTLCMD: tb_xlat(tb, xl_fcntl, v, "%#lx"); break;
	case AK_FCNTLARG: return tb_fcntlarg(tb, other, v);
	case AK_IOCTLCMD: tb_xlat(tb, xl_ioctl, (uint32_t)v, "%#lx"); break;
	case AK_ARCHPRCTL: tb_xlat(tb, xl_archprctl, v, "%#lx"); break;
	case AK_RLIMRES: tb_xlat(tb, xl_rlimit, v, "%#lx"); break;
	case AK_RLIMIN:
		if (v == 0 || copyin(v, u.u64, 16) < 0) {
			tb_addr(tb, v);
		} else {
			tb_puts(tb, "{rlim_cur=");
			tb_rlim(tb, u.u64[0]);
			tb_puts(tb, ", rlim_max=");
			tb_rlim(tb, u.u64[1]);
			tb_puts(tb, "}");
		}
		break;
	case AK_POLLFDS: tb_pollfds(tb, v, other); break;
	case AK_SOCKDOM: case AK_SOCKTYPE: case AK_SOCKFLAGS: case AK_MSGFLAGS:
	case AK_MSGHDRIN: case AK_SHUTHOW: case AK_SOCKLEVEL: case AK_SOCKOPT:
		trace_sockarg(tb, kind, v, other, 0);
		break;
	case AK_EPOLLOP: tb_xlat(tb, xl_epollop, v, "%#lx"); break;
	case AK_EPOLLEVIN:
		if (v == 0)
			tb_puts(tb, "NULL");
		else
			tb_epollevents(tb, v, 1, false);
		break;
	case AK_EPFLAGS: tb_flags(tb, xl_epflags, v, "0"); break;
	case AK_EFDFLAGS: tb_flags(tb, xl_efd, v, "0"); break;
	case AK_TFDFLAGS: tb_flags(tb, xl_tfd, v, "0"); break;
	case AK_TFDSETFLAGS: tb_flags(tb, xl_tfdset, v, "0"); break;
	case AK_SFDFLAGS: tb_flags(tb, xl_sfd, v, "0"); break;
	case AK_INFLAGS: tb_flags(tb, xl_inflags, v, "0"); break;
	case AK_INMASK:	tb_flags(tb, xl_inmask, (uint32_t)v, "0"); break;
	case AK_CLONE:
		if (i != 0)
			return false;
		tb_clone(tb, args);
		break;
	default:	tb_printf(tb, "%#lx", (unsigned long)v); break;
	}
	return true;
}
