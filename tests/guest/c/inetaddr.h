/*
 * IPv4 and IPv6 socket addresses for the guest test programs over IP.
 * Each program is compiled alone (tests/guest/run.sh), so this holds only
 * static inline functions: a program pays for none it does not call.
 */
#ifndef GUEST_INETADDR_H
#define GUEST_INETADDR_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>

/*
 * A sockaddr of family (AF_INET or AF_INET6) for the loopback address,
 * or the wildcard if any, and port (host order); returns its length.
 */
static inline socklen_t
mkaddr(struct sockaddr_storage *ss, int family, int any, int port)
{
	memset(ss, 0, sizeof(*ss));
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)ss;
		sin->sin_family = AF_INET;
		sin->sin_port = htons(port);
		sin->sin_addr.s_addr = htonl(any ? INADDR_ANY : INADDR_LOOPBACK);
		return sizeof(*sin);
	}
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)ss;
	sin6->sin6_family = AF_INET6;
	sin6->sin6_port = htons(port);
	sin6->sin6_addr = any ? in6addr_any : in6addr_loopback;
	return sizeof(*sin6);
}

/* The port (host order) of an AF_INET or AF_INET6 sockaddr. */
static inline int
portof(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ntohs(((const struct sockaddr_in *)ss)->sin_port);
	return ntohs(((const struct sockaddr_in6 *)ss)->sin6_port);
}

#endif
