/*
 * Shared by the socket system calls (sys_socket.c, sys_socket_msg.c):
 * addresses between user and kernel, as Linux's move_addr_to_kernel and
 * move_addr_to_user.
 */
#ifndef SYS_SYS_SOCKET_H
#define SYS_SYS_SOCKET_H

#include <stdint.h>
#include "net/sockdefs.h"

#include "sys/syscall.h"

/*
 * Copies ulen bytes of address at uaddr into kaddr (SOCKADDR_MAX
 * bytes, zeroed past them): -EINVAL if ulen is negative or too long,
 * -EFAULT.
 */
int sockaddr_in(uint64_t uaddr, uint64_t ulen, char *kaddr, socklen_t *klen);

/*
 * Copies address kaddr (klen bytes) out to uaddr, at most the int at
 * ulenp bytes, and stores klen there: -EFAULT, -EINVAL (negative length).
 */
int sockaddr_out(const char *kaddr, socklen_t klen, uint64_t uaddr,
    uint64_t ulenp);

#endif /* SYS_SYS_SOCKET_H */
