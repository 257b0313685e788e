/*
 * The tracer's decoding of socket arguments, as strace prints them:
 * families, types, MSG_* flags, option names, addresses the call fills
 * and struct msghdr with its iovec and control messages.
 */
#include "kern/uio.h"
#include "sys/sys_trace_var.h"

static const struct xlat xl_socktype[] = {
	{ 1, "SOCK_STREAM" }, { 2, "SOCK_DGRAM" }, { 3, "SOCK_RAW" },
	{ 4, "SOCK_RDM" }, { 5, "SOCK_SEQPACKET" }, { 0, NULL }
};
static const struct xlat xl_sockflags[] = {
	{ 02000000, "SOCK_CLOEXEC" }, { 04000, "SOCK_NONBLOCK" }, { 0, NULL }
};
static const struct xlat xl_msgflags[] = {
	{ 0x1, "MSG_OOB" }, { 0x2, "MSG_PEEK" }, { 0x4, "MSG_DONTROUTE" },
	{ 0x8, "MSG_CTRUNC" }, { 0x20, "MSG_TRUNC" }, { 0x40, "MSG_DONTWAIT" },
	{ 0x80, "MSG_EOR" }, { 0x100, "MSG_WAITALL" }, { 0x4000, "MSG_NOSIGNAL" },
	{ 0x8000, "MSG_MORE" }, { 0x10000, "MSG_WAITFORONE" },
	{ 0x40000000, "MSG_CMSG_CLOEXEC" }, { 0, NULL }
};
static const struct xlat xl_shut[] = {
	{ 0, "SHUT_RD" }, { 1, "SHUT_WR" }, { 2, "SHUT_RDWR" }, { 0, NULL }
};
static const struct xlat xl_level[] = {
	{ 1, "SOL_SOCKET" }, { 0, "SOL_IP" }, { 6, "SOL_TCP" }, { 17, "SOL_UDP" },
	{ 41, "SOL_IPV6" }, { 0, NULL }
};
static const struct xlat xl_sockopt[] = {
	{ 1, "SO_DEBUG" }, { 2, "SO_REUSEADDR" }, { 3, "SO_TYPE" },
	{ 4, "SO_ERROR" }, { 5, "SO_DONTROUTE" }, { 6, "SO_BROADCAST" },
	{ 7, "SO_SNDBUF" }, { 8, "SO_RCVBUF" }, { 9, "SO_KEEPALIVE" },
	{ 10, "SO_OOBINLINE" }, { 13, "SO_LINGER" }, { 15, "SO_REUSEPORT" },
	{ 16, "SO_PASSCRED" }, { 17, "SO_PEERCRED" }, { 18, "SO_RCVLOWAT" },
	{ 19, "SO_SNDLOWAT" }, { 20, "SO_RCVTIMEO_OLD" }, { 21, "SO_SNDTIMEO_OLD" },
	{ 30, "SO_ACCEPTCONN" }, { 38, "SO_PROTOCOL" }, { 39, "SO_DOMAIN" },
	{ 0, NULL }
};
static const struct xlat xl_scm[] = {
	{ 1, "SCM_RIGHTS" }, { 2, "SCM_CREDENTIALS" }, { 0, NULL }
};

/* Linux's x86-64 struct msghdr and struct cmsghdr. */
struct tmsghdr {
	uint64_t name;
	int32_t namelen, pad0;
	uint64_t iov, iovlen, control, controllen;
	int32_t flags, pad1;
};
struct tcmsghdr {
	uint64_t len;
	int32_t level, type;
};

/* The control messages: [{cmsg_len=20, ..., cmsg_data=[5]}]. */
static void
tb_cmsgs(struct tbuf *tb, uint64_t addr, uint64_t len)
{
	struct tcmsghdr h;
	uint64_t off = 0;
	int n = 0;

	tb_puts(tb, "[");
	while (off + sizeof(h) <= len && n < TRACE_ARRAYLEN) {
		if (copyin(addr + off, &h, sizeof(h)) < 0 || h.len < sizeof(h) ||
		    h.len > len - off) {
			tb_puts(tb, n ? ", ..." : "...");
			break;
		}
		tb_printf(tb, "%s{cmsg_len=%lu, cmsg_level=", n ? ", " : "",
		    (unsigned long)h.len);
		tb_xlat(tb, xl_level, (uint32_t)h.level, "%#lx");
		tb_puts(tb, ", cmsg_type=");
		if (h.level == 1)
			tb_xlat(tb, xl_scm, (uint32_t)h.type, "%#lx");
		else
			tb_printf(tb, "%#x", (unsigned)h.type);
		uint64_t data = addr + off + sizeof(h), dlen = h.len - sizeof(h);
		if (h.level == 1 && h.type == 1) {		/* SCM_RIGHTS */
			tb_puts(tb, ", cmsg_data=[");
			for (uint64_t i = 0; i + 4 <= dlen && i < 4 * TRACE_ARRAYLEN; i += 4) {
				int32_t fd;
				if (copyin(data + i, &fd, sizeof(fd)) < 0)
					break;
				tb_printf(tb, "%s%d", i ? ", " : "", fd);
			}
			tb_puts(tb, "]}");
		} else if (h.level == 1 && h.type == 2 && dlen >= 12) {
			uint32_t c[3];
			if (copyin(data, c, sizeof(c)) == 0)
				tb_printf(tb, ", cmsg_data={pid=%d, uid=%u, gid=%u}}",
				    (int)c[0], c[1], c[2]);
			else
				tb_puts(tb, "}");
		} else {
			tb_puts(tb, "}");
		}
		off += (h.len + 7) & ~7UL;
		n++;
	}
	tb_puts(tb, "]");
}

/* A struct msghdr; after recvmsg (out) the iovec up to ret bytes. */
static void
tb_msghdr(struct tbuf *tb, uint64_t addr, bool out, long ret)
{
	struct tmsghdr m;
	if (copyin(addr, &m, sizeof(m)) < 0 || (out && ret < 0)) {
		tb_addr(tb, addr);
		return;
	}
	tb_puts(tb, "{msg_name=");
	if (m.name == 0)
		tb_puts(tb, "NULL");
	else if (out && m.namelen == 0)
		tb_addr(tb, m.name);
	else
		tb_sockaddr(tb, m.name, (uint64_t)(uint32_t)m.namelen);
	tb_printf(tb, ", msg_namelen=%d, msg_iov=", m.namelen);
	tb_iov(tb, m.iov, m.iovlen, out, out ? (uint64_t)ret : 0);
	tb_printf(tb, ", msg_iovlen=%lu, msg_control=", (unsigned long)m.iovlen);
	if (m.control == 0 || m.controllen == 0)
		tb_addr(tb, m.control);
	else
		tb_cmsgs(tb, m.control, m.controllen);
	tb_printf(tb, ", msg_controllen=%lu, msg_flags=", (unsigned long)m.controllen);
	tb_flags(tb, xl_msgflags, (uint32_t)m.flags, NULL);
	tb_puts(tb, "}");
}

void
trace_sockarg(struct tbuf *tb, unsigned kind, uint64_t v, uint64_t other,
    long ret)
{
	int32_t len;

	switch (kind) {
	case AK_SOCKDOM:	tb_xlat(tb, xl_family, v, "%lu"); break;
	case AK_SOCKTYPE:
		tb_xlat(tb, xl_socktype, v & 0xf, "%#lx");
		if (v & ~0xfUL) {
			tb_puts(tb, "|");
			tb_flags(tb, xl_sockflags, v & ~0xfUL, NULL);
		}
		break;
	case AK_SOCKFLAGS:	tb_flags(tb, xl_sockflags, v, NULL); break;
	case AK_MSGFLAGS:	tb_flags(tb, xl_msgflags, (uint32_t)v, NULL); break;
	case AK_SHUTHOW:	tb_xlat(tb, xl_shut, v, "%lu"); break;
	case AK_SOCKLEVEL:	tb_xlat(tb, xl_level, (uint32_t)v, "%#lx"); break;
	case AK_SOCKOPT:
		if (other == 1)
			tb_xlat(tb, xl_sockopt, (uint32_t)v, "%lu");
		else
			tb_printf(tb, "%d", (int)v);
		break;
	case AK_MSGHDRIN:	tb_msghdr(tb, v, false, 0); break;
	case AK_MSGHDROUT:	tb_msghdr(tb, v, true, ret); break;
	case AK_SOCKADDROUT:
		if (v == 0)
			tb_puts(tb, "NULL");
		else if (ret < 0 || other == 0 || copyin(other, &len, sizeof(len)) < 0)
			tb_addr(tb, v);
		else
			tb_sockaddr(tb, v, (uint64_t)(uint32_t)len);
		break;
	case AK_SOCKLENOUT:
		if (v == 0)
			tb_puts(tb, "NULL");
		else if (ret < 0 || copyin(v, &len, sizeof(len)) < 0)
			tb_addr(tb, v);
		else
			tb_printf(tb, "[%d]", len);
		break;
	default:
		tb_printf(tb, "%#lx", (unsigned long)v);
	}
}
