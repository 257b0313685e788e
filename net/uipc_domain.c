/*
 * The table of address families.  A family joins by adding its struct
 * domain here.
 */
#include "kern/kernel.h"
#include "net/inet.h"
#include "net/if_packet.h"
#include "net/netlink.h"
#include "net/socketvar.h"
#include "net/un.h"

static const struct domain *const domains[] = {
	&unixdomain,
	&inetdomain,
	&inet6domain,
	&netlinkdomain,
	&packetdomain,
};

const struct protosw *
pffindproto(int family, int type, int protocol, int *error)
{
	for (size_t i = 0; i < nitems(domains); i++) {
		const struct domain *dp = domains[i];
		if (dp->dom_family != family)
			continue;
		if (dp->dom_protocol != NULL &&
		    (type = dp->dom_protocol(type, protocol)) < 0) {
			*error = type;
			return NULL;
		}
		/* protocol 0 is the type's first; a switch entry of 0
		 * takes any protocol dom_protocol let through. */
		for (int j = 0; j < dp->dom_nprotosw; j++) {
			const struct protosw *pr = &dp->dom_protosw[j];
			if (pr->pr_type == type && (protocol == 0 ||
			    pr->pr_protocol == 0 || pr->pr_protocol == protocol))
				return pr;
		}
		*error = -ESOCKTNOSUPPORT;
		return NULL;
	}
	*error = -EAFNOSUPPORT;
	return NULL;
}
