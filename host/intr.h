/*
 * Device interrupts from host file descriptors: one host event thread
 * (epoll) watches registered fds; when one becomes ready it marks the
 * source fired, posts INTR_DEVICE to the source's CPU and disarms the
 * source until the kernel has consumed the input and re-armed it.  This
 * is the article's "interrupt routine runs as a response to an event
 * notification", with epoll in place of kqueue.
 */
#ifndef HOST_INTR_H
#define HOST_INTR_H

#include <stdbool.h>
#include <stdint.h>

struct vcpu;
struct intr_src;

/* Starts the event thread.  Returns 0, or -1 with errno set. */
int intr_start(void);

/* Stops the event thread and frees every source. */
void intr_stop(void);

/*
 * Watches fd for events (EPOLLIN, EPOLLOUT...) on behalf of cpu.
 * Returns the source, or NULL with errno set.
 */
struct intr_src *intr_register(int fd, uint32_t events, struct vcpu *cpu);

/* Takes the fired mark: true if the source fired since the last call. */
bool intr_fired(struct intr_src *src);

/* Re-arms a source after its input was consumed.  0, or -1 with errno. */
int intr_rearm(struct intr_src *src);

void intr_unregister(struct intr_src *src);

#endif /* HOST_INTR_H */
