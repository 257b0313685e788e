/*
 * The tracer's insides, shared by sys_trace.c (lines, filter, signals,
 * exits), sys_trace_args.c (a decoder per argument kind) and
 * sys_trace_xlat.c (names of flags, signals, errors).
 */
#ifndef KERN_SYS_TRACE_VAR_H
#define KERN_SYS_TRACE_VAR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sys/syscall.h"

#define TRACE_STRLEN	32	/* strace's -s: bytes of a string shown */
#define TRACE_ARRAYLEN	32	/* elements of an array shown */
#define TRACE_LINE	4096	/* a line is cut here */
#define SIGRTMIN_KERNEL	32	/* the first real-time signal */

/* A line being built; output past cap is dropped. */
struct tbuf {
	char *buf;
	size_t len, cap;
};

void tb_printf(struct tbuf *tb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void tb_puts(struct tbuf *tb, const char *s);
/* n bytes as strace quotes them: "a\nb\0", every byte \xNN if hex. */
void tb_quote(struct tbuf *tb, const uint8_t *s, size_t n, bool hex);
/* An address: NULL or 0x7ffc.... */
void tb_addr(struct tbuf *tb, uint64_t addr);

/* A value and its name. Tables end with a NULL name. */
struct xlat {
	uint64_t val;
	const char *name;
};

/* v's name in x, or NULL. */
const char *xlat_name(const struct xlat *x, uint64_t v);
/* The value's name, or the number in fmt. */
void tb_xlat(struct tbuf *tb, const struct xlat *x, uint64_t v, const char *fmt);
/* Flags as A|B|0x40; zero as zero (NULL: "0"). */
void tb_flags(struct tbuf *tb, const struct xlat *x, uint64_t v, const char *zero);

/* "SIGINT", "SIGRT_3", or the number; without "SIG" if bare. */
void tb_signame(struct tbuf *tb, int sig, bool bare);
/* [INT TERM], ~[KILL STOP] when most are set. */
void tb_sigset(struct tbuf *tb, uint64_t set);
/* "-1 ENOENT (No such file or directory)" for -error. */
void tb_errno(struct tbuf *tb, long error);
/* st_mode: S_IFREG|0644. */
void tb_mode(struct tbuf *tb, uint32_t mode);

extern const struct xlat xl_open[], xl_at[], xl_access[], xl_prot[],
    xl_maptype[], xl_mapflags[], xl_madv[], xl_whence[], xl_sighow[],
    xl_sa[], xl_clock[], xl_itimer[], xl_wait[], xl_fcntl[], xl_ioctl[],
    xl_archprctl[], xl_rlimit[], xl_poll[], xl_clone[], xl_family[],
    xl_statx[], xl_sicode_chld[], xl_sicode[], xl_sicode_segv[],
    xl_sicode_bus[], xl_sicode_ill[], xl_sicode_fpe[], xl_sicode_trap[],
    xl_prctl[], xl_grnd[], xl_iflag[], xl_oflag[], xl_nldly[], xl_crdly[],
    xl_tabdly[], xl_bsdly[], xl_vtdly[], xl_ffdly[], xl_baud[], xl_cflag[],
    xl_lflag[], xl_tcflsh[], xl_epollop[], xl_epoll[], xl_epflags[],
    xl_efd[], xl_tfd[], xl_tfdset[], xl_sfd[], xl_inflags[], xl_inmask[];

/* len bytes of a buffer: the first TRACE_STRLEN quoted, then ... */
void tb_ubuf(struct tbuf *tb, uint64_t addr, uint64_t len, bool hex);
/* An iovec array of cnt entries; out: only the first left bytes. */
void tb_iov(struct tbuf *tb, uint64_t addr, uint64_t cnt, bool out,
    uint64_t left);
/* A socket address of len bytes: {sa_family=AF_UNIX, sun_path="/s"}. */
void tb_sockaddr(struct tbuf *tb, uint64_t addr, uint64_t len);

/*
 * An argument of a socket kind (AK_SOCKDOM... AK_SOCKOPT,
 * sys_trace_net.c); other is the argument ARG(n) names, ret the result
 * for the kinds printed after the call.
 */
void trace_sockarg(struct tbuf *tb, unsigned kind, uint64_t v, uint64_t other,
    long ret);

/* Whether an argument of this kind is printed after the call returns. */
bool trace_kind_out(unsigned kind);
/*
 * Prints argument i of the call described by se, given all its args
 * and, for an output kind, the call's result.  Returns false if the kind
 * prints nothing (an absent optional argument: no comma either).
 */
bool trace_arg(struct tbuf *tb, const struct sysent *se, int i,
    const uint64_t *args, long ret);

/*
 * fcntl's result r for command cmd: F_GETFL's and F_GETFD's in hex with
 * their flags by name, "= 0x8002 (flags O_RDWR|O_LARGEFILE)"; others
 * in decimal.
 */
void trace_fcntl_result(struct tbuf *tb, uint64_t cmd, long r);

/*
 * What rt_sigreturn (no arguments) reads, as strace shows it: the mask
 * the signal frame at the caller's stack pointer restores, {mask=[INT]}.
 */
void trace_sigframe(struct tbuf *tb);

#endif /* KERN_SYS_TRACE_VAR_H */
