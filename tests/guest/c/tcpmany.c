/*
 * A TCP server holding 200 connections at once over 127.0.0.1: a child
 * opens them all (each says its number), the server accepts every one
 * with poll, reads the numbers, and only then answers each with twice
 * its number; the child checks every answer and that each connection
 * then ends (read 0).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define NCONN 200

int
main(void)
{
	setvbuf(stdout, NULL, _IONBF, 0);
	struct sockaddr_in sin = { .sin_family = AF_INET,
	    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sin);
	int l = socket(AF_INET, SOCK_STREAM, 0);
	if (bind(l, (struct sockaddr *)&sin, len) < 0 || listen(l, 256) < 0 ||
	    getsockname(l, (struct sockaddr *)&sin, &len) < 0) {
		perror("listen");
		return 1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		static int fds[NCONN];
		close(l);
		for (int i = 0; i < NCONN; i++) {
			fds[i] = socket(AF_INET, SOCK_STREAM, 0);
			if (connect(fds[i], (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
			    write(fds[i], &i, sizeof(i)) != sizeof(i)) {
				printf("client %d: %s\n", i, strerror(errno));
				_exit(1);
			}
		}
		int good = 0;
		for (int i = 0; i < NCONN; i++) {
			int v = -1;
			char c;
			if (read(fds[i], &v, sizeof(v)) == sizeof(v) && v == 2 * i &&
			    read(fds[i], &c, 1) == 0)
				good++;
			close(fds[i]);
		}
		printf("client: %d answers right\n", good);
		_exit(good == NCONN ? 0 : 1);
	}
	static struct pollfd pfd[NCONN + 1];
	static int num[NCONN];
	int nacc = 0, nread = 0;
	pfd[0] = (struct pollfd){ l, POLLIN, 0 };
	while (nread < NCONN) {
		if (poll(pfd, nacc + 1, 10000) <= 0) {
			printf("server: poll timed out, %d accepted %d read\n", nacc, nread);
			break;
		}
		if ((pfd[0].revents & POLLIN) && nacc < NCONN) {
			int a = accept(l, NULL, NULL);
			if (a < 0) {
				printf("accept: %s\n", strerror(errno));
				break;
			}
			pfd[++nacc] = (struct pollfd){ a, POLLIN, 0 };
			if (nacc == NCONN)
				pfd[0].events = 0;
		}
		for (int i = 1; i <= nacc; i++) {
			if (!(pfd[i].revents & POLLIN))
				continue;
			if (read(pfd[i].fd, &num[i - 1], sizeof(int)) != sizeof(int)) {
				printf("server read: %s\n", strerror(errno));
				return 1;
			}
			pfd[i].events = 0;
			pfd[i].revents = 0;
			nread++;
		}
	}
	printf("server: %d connections open at once\n", nacc);
	for (int i = 1; i <= nacc; i++) {
		int v = 2 * num[i - 1];
		write(pfd[i].fd, &v, sizeof(v));
		close(pfd[i].fd);
	}
	int st;
	waitpid(pid, &st, 0);
	printf("client status %d\n", WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	return 0;
}
