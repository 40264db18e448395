/* SPDX-License-Identifier: MIT */
/*
 * sb_sockprobe: a raw client of stackbenchd's socket for the tests: sends exactly the bytes it
 * is told (malformed lines, huge lines, binary garbage), reads reply lines and prints them.
 *
 *   sb_sockprobe SOCKET ACTION...
 *     --line TEXT       send TEXT and a newline
 *     --raw TEXT        send TEXT as it is (C escapes \n \0 \xHH are decoded)
 *     --big N           send a line of N bytes ('x') and its newline, 64 KiB at a time
 *     --read N          read N lines and print them (fails on timeout or end of stream)
 *     --read-until S    read and print lines until one contains S
 *     --sleep-ms T      wait T ms (a follower that does not read)
 *     --shut-write      shutdown(SHUT_WR)
 *     --parallel N      open N connections, send a status request on each, read each reply
 *                       (prints "parallel: N ok")
 *     --hold N          open N more connections and keep them (idle) until the end; prints
 *                       "hold: K open, R refused" (refused: the daemon answered and closed)
 *     --timeout-ms T    timeout of the reads (default 20000)
 *   sb_sockprobe SOCKET --serve REPLY
 *                       a fake daemon: listen on SOCKET (mode 0777), print every line a
 *                       client sends and answer it with REPLY, until killed
 * Exit 0 when every action succeeded, 1 otherwise (the reason on stderr).
 */
#include <errno.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static int timeout_ms = 20000;
static char rbuf[1 << 20];
static size_t rlen;

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "sb_sockprobe: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	return 1;
}

static int connect_to(const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		fprintf(stderr, "sb_sockprobe: cannot connect to '%s': %s\n", path,
		        strerror(errno));
		exit(1);
	}
	return fd;
}

static int send_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return -1;
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Read one line into out (without newline); 0, or -1 on timeout / end / error. */
static int read_line(int fd, char *out, size_t size)
{
	for (;;) {
		char *nl = memchr(rbuf, '\n', rlen);
		struct pollfd p = {.fd = fd, .events = POLLIN};
		ssize_t n;

		if (nl) {
			size_t len = (size_t)(nl - rbuf), k = len < size - 1 ? len : size - 1;

			memcpy(out, rbuf, k);
			out[k] = '\0';
			memmove(rbuf, nl + 1, rlen - len - 1);
			rlen -= len + 1;
			return 0;
		}
		if (rlen == sizeof(rbuf))
			return -1;
		if (poll(&p, 1, timeout_ms) <= 0)
			return -1;
		n = recv(fd, rbuf + rlen, sizeof(rbuf) - rlen, 0);
		if (n <= 0)
			return -1;
		rlen += (size_t)n;
	}
}

static size_t unescape(const char *s, char *out)
{
	size_t o = 0;

	for (; *s; s++) {
		if (*s != '\\' || !s[1]) {
			out[o++] = *s;
			continue;
		}
		s++;
		if (*s == 'n')
			out[o++] = '\n';
		else if (*s == '0')
			out[o++] = '\0';
		else if (*s == 'x' && s[1] && s[2]) {
			char hex[3] = {s[1], s[2], 0};

			out[o++] = (char)strtoul(hex, NULL, 16);
			s += 2;
		} else
			out[o++] = *s;
	}
	return o;
}

static int parallel(const char *path, int n)
{
	static const char req[] = "{\"v\":1,\"cmd\":\"status\"}\n";
	int *fds = calloc((size_t)n, sizeof(int)), ok = 0;
	char line[65536];

	if (!fds)
		return 1;
	for (int i = 0; i < n; i++)
		fds[i] = connect_to(path);
	for (int i = 0; i < n; i++)
		if (send_all(fds[i], req, sizeof(req) - 1) < 0)
			return fail("cannot send on a connection");
	for (int i = 0; i < n; i++) {
		rlen = 0;
		if (read_line(fds[i], line, sizeof(line)) == 0 && strstr(line, "\"ok\":true"))
			ok++;
		close(fds[i]);
	}
	free(fds);
	printf("parallel: %d ok\n", ok);
	return ok == n ? 0 : 1;
}

/* Idle connections: opened, then checked for a refusal (an answer, or the end). */
static int *held; /* the held connections (reachable: not a leak) */

static int hold(const char *path, int n)
{
	int *fds = held = calloc((size_t)n, sizeof(int)), open_ = 0, refused = 0;

	if (!fds)
		return fail("out of memory");
	for (int i = 0; i < n; i++) {
		fds[i] = connect_to(path);
		nanosleep(&(struct timespec){0, 2000000L}, NULL);
	}
	nanosleep(&(struct timespec){0, 300000000L}, NULL);
	for (int i = 0; i < n; i++) {
		struct pollfd p = {.fd = fds[i], .events = POLLIN};

		if (poll(&p, 1, 0) == 1)
			refused++;
		else
			open_++;
	}
	/* kept open (the array is not freed) until the probe exits */
	printf("hold: %d open, %d refused\n", open_, refused);
	return 0;
}

/* A fake daemon: what a client sends, and a canned answer to each line. */
static int serve(const char *path, const char *reply)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0), fd;

	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
	unlink(path);
	if (l < 0 || bind(l, (struct sockaddr *)&sa, sizeof(sa)) < 0 || chmod(path, 0777) < 0 ||
	    listen(l, 8) < 0)
		return fail("cannot listen on '%s': %s", path, strerror(errno));
	printf("serving\n");
	fflush(stdout);
	while ((fd = accept(l, NULL, NULL)) >= 0) {
		static char line[1 << 20];

		rlen = 0;
		while (read_line(fd, line, sizeof(line)) == 0) {
			printf("got: %.200s\n", line);
			fflush(stdout);
			if (send_all(fd, reply, strlen(reply)) < 0 || send_all(fd, "\n", 1) < 0)
				break;
		}
		close(fd);
	}
	return 0;
}

int main(int argc, char **argv)
{
	static char line[1 << 20];
	int fd;

	if (argc < 2)
		return fail("usage: sb_sockprobe SOCKET ACTION... (see the source)");
	if (argc == 4 && !strcmp(argv[2], "--serve"))
		return serve(argv[1], argv[3]);
	fd = connect_to(argv[1]);
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--shut-write")) {
			shutdown(fd, SHUT_WR);
			continue;
		}
		if (!v)
			return fail("%s needs a value", a);
		i++;
		if (!strcmp(a, "--line")) {
			if (send_all(fd, v, strlen(v)) < 0 || send_all(fd, "\n", 1) < 0)
				return fail("cannot send: %s", strerror(errno));
		} else if (!strcmp(a, "--raw")) {
			size_t n = unescape(v, line);

			if (send_all(fd, line, n) < 0)
				return fail("cannot send: %s", strerror(errno));
		} else if (!strcmp(a, "--big")) {
			unsigned long long n = strtoull(v, NULL, 10);

			memset(line, 'x', 65536);
			while (n) {
				size_t k = n < 65536 ? (size_t)n : 65536;

				if (send_all(fd, line, k) < 0)
					return fail("cannot send the big line: %s",
					            strerror(errno));
				n -= k;
			}
			if (send_all(fd, "\n", 1) < 0)
				return fail("cannot send: %s", strerror(errno));
		} else if (!strcmp(a, "--read")) {
			for (long n = strtol(v, NULL, 10); n > 0; n--) {
				if (read_line(fd, line, sizeof(line)) < 0)
					return fail("no line to read (timeout or end of stream)");
				printf("%s\n", line);
			}
		} else if (!strcmp(a, "--read-until")) {
			do {
				if (read_line(fd, line, sizeof(line)) < 0)
					return fail("no line with '%s'", v);
				printf("%s\n", line);
			} while (!strstr(line, v));
		} else if (!strcmp(a, "--sleep-ms")) {
			struct timespec t = {strtol(v, NULL, 10) / 1000,
			                     strtol(v, NULL, 10) % 1000 * 1000000L};

			nanosleep(&t, NULL);
		} else if (!strcmp(a, "--timeout-ms")) {
			timeout_ms = (int)strtol(v, NULL, 10);
		} else if (!strcmp(a, "--parallel")) {
			if (parallel(argv[1], (int)strtol(v, NULL, 10)))
				return 1;
		} else if (!strcmp(a, "--hold")) {
			hold(argv[1], (int)strtol(v, NULL, 10));
		} else {
			return fail("unknown action '%s'", a);
		}
		fflush(stdout);
	}
	close(fd);
	return 0;
}
