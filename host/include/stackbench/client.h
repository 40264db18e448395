/* SPDX-License-Identifier: MIT */
/*
 * The stackbenchd socket protocol, client side: where the daemon's socket and state live,
 * connecting, and newline-delimited JSON lines in both directions (docs/daemon-api.md).
 *
 * The line buffer is a pure function (bytes in, lines out, no I/O) that the daemon uses for
 * its requests too: a line longer than its limit is reported once and dropped as it arrives,
 * never buffered whole.
 */
#ifndef STACKBENCH_CLIENT_H
#define STACKBENCH_CLIENT_H

#include <stdbool.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SB_DAEMON_API_VERSION 1            /* "v" of requests, replies and events */
#define SB_DAEMON_LINE_MAX (1024u * 1024u) /* longest request line (a submit's campaign) */
#define SB_DAEMON_SOCKET_NAME "stackbench.sock"
#define SB_DAEMON_SYSTEM_RUNTIME_DIR "/run/stackbench"
#define SB_DAEMON_SYSTEM_STATE_DIR "/var/lib/stackbench"

/*
 * The daemon's default folders: as root /run/stackbench and /var/lib/stackbench; otherwise
 * $XDG_RUNTIME_DIR/stackbench (else the state folder) and $XDG_STATE_HOME/stackbench (else
 * $HOME/.local/state/stackbench, else /tmp/stackbench-UID). Returns 0 or SB_ERR_RANGE (does
 * not fit).
 */
int sb_daemon_runtime_dir(char *buf, size_t size);
int sb_daemon_state_dir(char *buf, size_t size);

/*
 * Whether a user's daemon folder is theirs alone: a folder (not a link) owned by the calling
 * user with no group or other permission bits. 0, or SB_ERR_PERM / SB_ERR_NOT_FOUND with a
 * detail naming the folder, its owner or mode.
 */
int sb_daemon_dir_ok(const char *dir);

/*
 * The socket a client talks to: opt when given, else $STACKBENCH_SOCKET, else the calling
 * user's daemon (sb_daemon_runtime_dir()/stackbench.sock) when that socket exists (its folder
 * must pass sb_daemon_dir_ok(), else SB_ERR_PERM: another user may have made it to pose as
 * the daemon), else the system daemon's /run/stackbench/stackbench.sock. Returns 0,
 * SB_ERR_PERM or SB_ERR_RANGE.
 */
int sb_daemon_socket_path(const char *opt, char *buf, size_t size);

/* ---- line buffer (pure) ------------------------------------------------------------------ */

struct sb_linebuf {
	char *buf;
	size_t len, cap;
	size_t max;      /* longest line accepted (without its newline) */
	bool discarding; /* dropping the rest of a line that was too long */
};

void sb_linebuf_init(struct sb_linebuf *lb, size_t max);
void sb_linebuf_release(struct sb_linebuf *lb);

/*
 * Feed bytes: fn is called for every complete line (NUL-terminated, without its "\n" or
 * "\r\n"; valid during the call) with err 0, and once with line NULL and err SB_ERR_RANGE for a
 * line longer than max (whose bytes are dropped as they arrive, up to its newline). fn
 * returning < 0 stops the feed with that value. Returns 0, fn's value, or SB_ERR_NOMEM.
 */
int sb_linebuf_feed(struct sb_linebuf *lb, const char *data, size_t n,
                    int (*fn)(void *ctx, char *line, size_t len, int err), void *ctx);

/* ---- connection -------------------------------------------------------------------------- */

struct sb_client;

/*
 * Connect to the daemon's socket, and check who serves it (SO_PEERCRED) before anything is
 * sent: root, the calling user, or the system daemon's user (the owner of /run/stackbench).
 * Returns 0, SB_ERR_NOT_FOUND (no daemon listening there; the detail says how to start one or
 * name another socket), SB_ERR_PERM (not allowed to reach the socket, or served by another
 * user), SB_ERR_RANGE (path too long), SB_ERR_IO or SB_ERR_NOMEM.
 */
int sb_client_connect(struct sb_client **c, const char *path);

/* Send one line (a JSON text without newline; the newline is added). 0 or SB_ERR_IO. */
int sb_client_send(struct sb_client *c, const char *line);

/*
 * Read the next line (NUL-terminated, without its newline; valid until the next call),
 * waiting at most timeout_ms (< 0: no limit). Returns its length, SB_ERR_NOT_FOUND at the end
 * of the stream, SB_ERR_TIMEOUT, SB_ERR_RANGE (line longer than SB_DAEMON_LINE_MAX) or
 * SB_ERR_IO.
 */
int sb_client_read(struct sb_client *c, char **line, int timeout_ms);

/* Send a request line and read its reply line (timeout as above). */
int sb_client_request(struct sb_client *c, const char *line, char **reply, int timeout_ms);

/* The socket's file descriptor (to poll it beside others). */
int sb_client_fd(const struct sb_client *c);

void sb_client_close(struct sb_client *c);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_CLIENT_H */
