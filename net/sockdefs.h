/*
 * Linux's socket ABI on x86-64: the numbers of families, types, flags
 * and options the socket layer and its system calls speak.  The host's
 * <sys/socket.h> is not used: its struct ucred would collide with the
 * kernel's credentials.
 */
#ifndef NET_SOCKDEFS_H
#define NET_SOCKDEFS_H

#include <sys/un.h>	/* struct sockaddr_un, sa_family_t */
#include <unistd.h>	/* socklen_t */

#define AF_UNSPEC	0
#define AF_UNIX		1
#define PF_UNIX		AF_UNIX
#define AF_PACKET	17

#define SOCK_STREAM	1
#define SOCK_DGRAM	2
#define SOCK_RAW	3
#define SOCK_SEQPACKET	5
#define SOCK_TYPE_MASK	0xf
#define SOCK_MAX	11		/* types are below it (else EINVAL) */
#define SOCK_NONBLOCK	04000		/* O_NONBLOCK */
#define SOCK_CLOEXEC	02000000	/* O_CLOEXEC */

#define MSG_OOB		0x1
#define MSG_PEEK	0x2
#define MSG_DONTROUTE	0x4
#define MSG_CTRUNC	0x8
#define MSG_TRUNC	0x20
#define MSG_DONTWAIT	0x40
#define MSG_EOR		0x80
#define MSG_WAITALL	0x100
#define MSG_NOSIGNAL	0x4000
#define MSG_WAITFORONE	0x10000
#define MSG_CMSG_CLOEXEC 0x40000000

#define SOL_SOCKET	1
#define SO_DEBUG	1
#define SO_REUSEADDR	2
#define SO_TYPE		3
#define SO_ERROR	4
#define SO_DONTROUTE	5
#define SO_BROADCAST	6
#define SO_SNDBUF	7
#define SO_RCVBUF	8
#define SO_KEEPALIVE	9
#define SO_OOBINLINE	10
#define SO_LINGER	13
#define SO_PASSCRED	16
#define SO_PEERCRED	17
#define SO_RCVLOWAT	18
#define SO_SNDLOWAT	19
#define SO_RCVTIMEO	20	/* SO_RCVTIMEO_OLD: a struct timeval */
#define SO_SNDTIMEO	21
#define SO_ACCEPTCONN	30
#define SO_PROTOCOL	38
#define SO_DOMAIN	39

/* SO_LINGER's value (the host's struct linger lives in <sys/socket.h>). */
struct linux_linger {
	int l_onoff;
	int l_linger;
};

#define SCM_RIGHTS	1
#define SCM_CREDENTIALS	2

#define SHUT_RD		0
#define SHUT_WR		1
#define SHUT_RDWR	2

#endif /* NET_SOCKDEFS_H */
