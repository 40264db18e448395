/* SPDX-License-Identifier: MIT */
/* Default paths and the client connection of the stackbenchd protocol (stackbench/client.h). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "stackbench/client.h"
#include "stackbench/error.h"

struct sb_client {
	int fd;
	char *buf; /* received bytes: buf[off..len) not returned yet */
	size_t off, len, cap;
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
};

/* buf = a + b; SB_ERR_RANGE when it does not fit. */
static int put(char *buf, size_t size, const char *what, const char *a, const char *b)
{
	int n = snprintf(buf, size, "%s%s", a, b);

	if (n < 0 || (size_t)n >= size)
		return sb_error_set(SB_ERR_RANGE, "the %s path '%s%s' is too long", what, a, b);
	return 0;
}

static int user_dir(char *buf, size_t size, const char *what, const char *xdg_var,
                    const char *home_sub)
{
	const char *xdg = getenv(xdg_var), *home = getenv("HOME");
	char tmp[64];

	if (xdg && xdg[0] == '/')
		return put(buf, size, what, xdg, "/stackbench");
	if (home_sub && home && home[0] == '/')
		return put(buf, size, what, home, home_sub);
	/* Last resort: another user can make this name first (sb_daemon_dir_ok refuses it). */
	snprintf(tmp, sizeof(tmp), "/tmp/stackbench-%lu", (unsigned long)getuid());
	return put(buf, size, what, tmp, "");
}

int sb_daemon_runtime_dir(char *buf, size_t size)
{
	if (geteuid() == 0)
		return put(buf, size, "runtime", SB_DAEMON_SYSTEM_RUNTIME_DIR, "");
	/* Without $XDG_RUNTIME_DIR, the state folder under $HOME (no one else can make it). */
	if (!getenv("XDG_RUNTIME_DIR") || getenv("XDG_RUNTIME_DIR")[0] != '/')
		return sb_daemon_state_dir(buf, size);
	return user_dir(buf, size, "runtime", "XDG_RUNTIME_DIR", NULL);
}

int sb_daemon_state_dir(char *buf, size_t size)
{
	if (geteuid() == 0)
		return put(buf, size, "state", SB_DAEMON_SYSTEM_STATE_DIR, "");
	return user_dir(buf, size, "state", "XDG_STATE_HOME", "/.local/state/stackbench");
}

int sb_daemon_dir_ok(const char *dir)
{
	struct stat sb;

	if (lstat(dir, &sb) < 0)
		return sb_error_set(sb_errno_code(errno), "'%s': %s", dir, strerror(errno));
	if (!S_ISDIR(sb.st_mode))
		return sb_error_set(SB_ERR_PERM, "'%s' is not a folder", dir);
	if (sb.st_uid != getuid())
		return sb_error_set(SB_ERR_PERM,
		                    "'%s' belongs to user %lu, not to you (user %lu): another user "
		                    "made it; remove it, or set XDG_RUNTIME_DIR or --socket",
		                    dir, (unsigned long)sb.st_uid, (unsigned long)getuid());
	if (sb.st_mode & 077)
		return sb_error_set(SB_ERR_PERM,
		                    "'%s' has mode %04o: a daemon's private folder must be 0700 "
		                    "(chmod 700 '%s')",
		                    dir, (unsigned)(sb.st_mode & 07777), dir);
	return 0;
}

int sb_daemon_socket_path(const char *opt, char *buf, size_t size)
{
	const char *env = getenv("STACKBENCH_SOCKET");
	char dir[4096];
	struct stat sb;
	int e;

	if (opt && *opt)
		return put(buf, size, "socket", opt, "");
	if (env && *env)
		return put(buf, size, "socket", env, "");
	if ((e = sb_daemon_runtime_dir(dir, sizeof(dir))) < 0 ||
	    (e = put(buf, size, "socket", dir, "/" SB_DAEMON_SOCKET_NAME)) < 0)
		return e;
	/* The user's own daemon: only in a folder that is theirs alone. */
	if (stat(buf, &sb) == 0 && S_ISSOCK(sb.st_mode)) {
		if (geteuid() == 0 || (e = sb_daemon_dir_ok(dir)) == 0)
			return 0;
		return sb_error_wrap(e, "refusing the socket '%s'", buf);
	}
	return put(buf, size, "socket", SB_DAEMON_SYSTEM_RUNTIME_DIR, "/" SB_DAEMON_SOCKET_NAME);
}

/* Whether the daemon on the other end may be talked to: root, ourselves, or the system
 * daemon's user (the owner of /run/stackbench, which only root can make). */
static int check_peer(struct sb_client *c)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	struct stat sb;

	if (getsockopt(c->fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) < 0)
		return sb_error_set(SB_ERR_IO, "'%s': cannot tell who serves it: %s", c->path,
		                    strerror(errno));
	if (uc.uid == 0 || uc.uid == getuid() || uc.uid == geteuid())
		return 0;
	if (lstat(SB_DAEMON_SYSTEM_RUNTIME_DIR, &sb) == 0 && S_ISDIR(sb.st_mode) &&
	    sb.st_uid == uc.uid)
		return 0;
	return sb_error_set(SB_ERR_PERM,
	                    "'%s' is served by user %lu (PID %ld), neither root, you nor the "
	                    "system daemon's user: not sending it anything",
	                    c->path, (unsigned long)uc.uid, (long)uc.pid);
}

int sb_client_connect(struct sb_client **out, const char *path)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	struct sb_client *c;
	int e;

	*out = NULL;
	if (strlen(path) >= sizeof(sa.sun_path))
		return sb_error_set(SB_ERR_RANGE,
		                    "socket path '%s' is too long (at most %zu bytes)", path,
		                    sizeof(sa.sun_path) - 1);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if (!(c = calloc(1, sizeof(*c))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	snprintf(c->path, sizeof(c->path), "%s", path);
	if ((c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0) {
		e = sb_error_set(SB_ERR_IO, "cannot make a socket: %s", strerror(errno));
		goto fail;
	}
	if (connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int err = errno;

		if (err == ENOENT || err == ECONNREFUSED || err == ENOTDIR)
			e = sb_error_set(SB_ERR_NOT_FOUND,
			                 "no stackbenchd is listening on '%s' (%s); start one with "
			                 "'stackbenchd' or name its socket with --socket PATH or "
			                 "$STACKBENCH_SOCKET",
			                 path, strerror(err));
		else if (err == EACCES || err == EPERM)
			e = sb_error_set(SB_ERR_PERM,
			                 "not allowed to connect to '%s' (%s): the daemon serves "
			                 "root, its own user and the group 'stackbench'",
			                 path, strerror(err));
		else
			e = sb_error_set(SB_ERR_IO, "cannot connect to '%s': %s", path,
			                 strerror(err));
		goto fail;
	}
	if ((e = check_peer(c)) < 0)
		goto fail;
	*out = c;
	return 0;
fail:
	sb_client_close(c);
	return e;
}

int sb_client_send(struct sb_client *c, const char *line)
{
	size_t len = strlen(line), off = 0;

	while (off <= len) {
		const char *p = off < len ? line + off : "\n";
		size_t n = off < len ? len - off : 1;
		ssize_t w = send(c->fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return sb_error_set(SB_ERR_IO, "cannot send to '%s': %s", c->path,
			                    strerror(errno));
		off += (size_t)w;
		if (off > len)
			break;
	}
	return 0;
}

int sb_client_read(struct sb_client *c, char **line, int timeout_ms)
{
	for (;;) {
		char *start = c->buf + c->off;
		char *nl = c->len > c->off ? memchr(start, '\n', c->len - c->off) : NULL;
		struct pollfd p = {.fd = c->fd, .events = POLLIN};
		ssize_t n;
		int r;

		if (nl) {
			*nl = '\0';
			c->off = (size_t)(nl - c->buf) + 1;
			*line = start;
			return (int)(nl - start);
		}
		if (c->len - c->off > SB_DAEMON_LINE_MAX)
			return sb_error_set(SB_ERR_RANGE,
			                    "a line from '%s' is longer than %u bytes", c->path,
			                    SB_DAEMON_LINE_MAX);
		/* Keep the partial line at the start, with room for more. */
		if (c->off) {
			memmove(c->buf, start, c->len - c->off);
			c->len -= c->off;
			c->off = 0;
		}
		if (c->cap - c->len < 4096) {
			size_t cap = c->cap ? c->cap * 2 : 16384;
			char *b = realloc(c->buf, cap);

			if (!b)
				return sb_error_set(SB_ERR_NOMEM, "out of memory");
			c->buf = b;
			c->cap = cap;
		}
		r = poll(&p, 1, timeout_ms);
		if (r < 0 && errno == EINTR)
			return sb_error_set(SB_ERR_INTERRUPTED, "interrupted");
		if (r < 0)
			return sb_error_set(SB_ERR_IO, "poll: %s", strerror(errno));
		if (r == 0)
			return sb_error_set(SB_ERR_TIMEOUT, "no answer from '%s' within %d ms",
			                    c->path, timeout_ms);
		n = recv(c->fd, c->buf + c->len, c->cap - c->len - 1, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return sb_error_set(SB_ERR_IO, "cannot read from '%s': %s", c->path,
			                    strerror(errno));
		if (n == 0)
			return sb_error_set(SB_ERR_NOT_FOUND, "'%s' closed the connection",
			                    c->path);
		c->len += (size_t)n;
	}
}

int sb_client_request(struct sb_client *c, const char *line, char **reply, int timeout_ms)
{
	int e = sb_client_send(c, line);
	/* A refused peer may be closed before its request is read: its reply is still there. */
	int r = sb_client_read(c, reply, timeout_ms);

	return r >= 0 || e >= 0 ? r : e;
}

int sb_client_fd(const struct sb_client *c)
{
	return c->fd;
}

void sb_client_close(struct sb_client *c)
{
	if (!c)
		return;
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c);
}
