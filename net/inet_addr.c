/*
 * Socket addresses of AF_INET and AF_INET6 to and from lwIP's, and the
 * errno of lwIP's errors (see inet_pcb.h).  An AF_INET6 socket speaks
 * IPv4 through IPv4-mapped addresses (::ffff:a.b.c.d) as Linux's does.
 */
#include <errno.h>
#include <string.h>

#include "lwip/netif.h"

#include "kern/kernel.h"
#include "net/inet_pcb.h"

static const uint8_t v4mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

int
inet_addr_in(int family, bool v6only, const char *addr, socklen_t len,
    ip_addr_t *ip, uint16_t *port, bool unspec)
{
	uint16_t fam;

	if (len < sizeof(fam))
		return -EINVAL;
	memcpy(&fam, addr, sizeof(fam));
	if (fam == AF_UNSPEC && unspec)
		return 1;
	if (family == AF_INET) {
		struct inet_sockaddr_in sin;
		if (len < sizeof(sin))
			return -EINVAL;
		memcpy(&sin, addr, sizeof(sin));
		if (sin.sin_family != AF_INET)
			return -EAFNOSUPPORT;
		ip_addr_set_ip4_u32_val(*ip, sin.sin_addr);
		*port = lwip_ntohs(sin.sin_port);
		return 0;
	}
	struct inet_sockaddr_in6 sin6 = { 0 };
	if (len < SIN6_LEN_RFC2133)
		return -EINVAL;
	memcpy(&sin6, addr, MIN(len, sizeof(sin6)));
	if (sin6.sin6_family != AF_INET6)
		return -EAFNOSUPPORT;
	*port = lwip_ntohs(sin6.sin6_port);
	if (memcmp(sin6.sin6_addr, v4mapped, sizeof(v4mapped)) == 0) {
		if (v6only)
			return -EINVAL;
		uint32_t a;
		memcpy(&a, sin6.sin6_addr + 12, sizeof(a));
		ip_addr_set_ip4_u32_val(*ip, a);
		return 0;
	}
	uint32_t w[4];
	memcpy(w, sin6.sin6_addr, sizeof(w));
	IP_ADDR6(ip, w[0], w[1], w[2], w[3]);
	/* A link-local address needs its interface (Linux: EINVAL); lwIP
	 * zones it by interface index, as scope_id is. */
	if (ip6_addr_islinklocal(ip_2_ip6(ip))) {
		if (sin6.sin6_scope_id == 0 || sin6.sin6_scope_id > 255)
			return -EINVAL;
		ip6_addr_set_zone(ip_2_ip6(ip), (u8_t)sin6.sin6_scope_id);
	}
	return 0;
}

socklen_t
inet_addr_out(int family, const ip_addr_t *ip, uint16_t port, char *addr)
{
	if (family == AF_INET) {
		struct inet_sockaddr_in sin = { .sin_family = AF_INET,
		    .sin_port = lwip_htons(port) };
		if (ip != NULL && IP_IS_V4(ip))
			sin.sin_addr = ip4_addr_get_u32(ip_2_ip4(ip));
		memcpy(addr, &sin, sizeof(sin));
		return sizeof(sin);
	}
	struct inet_sockaddr_in6 sin6 = { .sin6_family = AF_INET6,
	    .sin6_port = lwip_htons(port) };
	if (ip != NULL && IP_IS_V4(ip)) {
		/* (An unbound dual pcb's address is of neither type: ::.) */
		uint32_t a = ip4_addr_get_u32(ip_2_ip4(ip));
		memcpy(sin6.sin6_addr, v4mapped, sizeof(v4mapped));
		memcpy(sin6.sin6_addr + 12, &a, sizeof(a));
	} else if (ip != NULL && IP_IS_V6(ip)) {
		memcpy(sin6.sin6_addr, ip_2_ip6(ip)->addr, 16);
		if (ip6_addr_has_zone(ip_2_ip6(ip)))
			sin6.sin6_scope_id = ip6_addr_zone(ip_2_ip6(ip));
	}
	memcpy(addr, &sin6, sizeof(sin6));
	return sizeof(sin6);
}

bool
inet_addr_local(const ip_addr_t *ip)
{
	struct netif *nif;

	if (ip_addr_isany(ip))
		return true;
	NETIF_FOREACH(nif) {
		if (IP_IS_V4(ip) && ip4_addr_cmp(ip_2_ip4(ip), netif_ip4_addr(nif)))
			return true;
		if (IP_IS_V6(ip))
			for (int i = 0; i < LWIP_IPV6_NUM_ADDRESSES; i++)
				if (ip6_addr_isvalid(netif_ip6_addr_state(nif, i)) &&
				    ip6_addr_cmp_zoneless(ip_2_ip6(ip),
				    netif_ip6_addr(nif, i)))
					return true;
	}
	return false;
}

int
inet_errno(err_t err)
{
	switch (err) {
	case ERR_OK:		return 0;
	case ERR_MEM:		return ENOMEM;
	case ERR_BUF:		return ENOBUFS;
	case ERR_TIMEOUT:	return ETIMEDOUT;
	case ERR_RTE:		return ENETUNREACH;
	case ERR_INPROGRESS:	return EINPROGRESS;
	case ERR_VAL:		return EINVAL;
	case ERR_WOULDBLOCK:	return EAGAIN;
	case ERR_USE:		return EADDRINUSE;
	case ERR_ALREADY:	return EALREADY;
	case ERR_ISCONN:	return EISCONN;
	case ERR_CONN:		return ENOTCONN;
	case ERR_IF:		return ENETDOWN;
	case ERR_ABRT:		return ECONNABORTED;
	case ERR_RST:		return ECONNRESET;
	case ERR_CLSD:		return ENOTCONN;
	case ERR_ARG:		return EINVAL;
	default:		return EIO;
	}
}

uint8_t
inp_iptype(const struct inpcb *inp)
{
	if (inp->inp_family == AF_INET)
		return IPADDR_TYPE_V4;
	return inp->inp_v6only ? IPADDR_TYPE_V6 : IPADDR_TYPE_ANY;
}
