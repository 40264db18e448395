/* SPDX-License-Identifier: MIT */
/*
 * stackbenchd's socket protocol, version 1 (docs/daemon-api.md): pure functions from a request
 * line to a checked request, and the reply lines. No I/O: the unit tests and the fuzzer call
 * them with anything.
 */
#ifndef SBD_PROTO_H
#define SBD_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SBD_TAG_MAX 64   /* longest "tag" a client may attach to a request */
#define SBD_FILE_MAX 256 /* a submitted campaign's file name (SB_CAMPAIGN_TEXT_MAX) */
#define SBD_DB_MAX 4096  /* a results database path */
#define SBD_PRIORITY_MAX 1000
#define SBD_WORKERS_MAX 16 /* SB_CAMPAIGN_MAX_DEVICES */

enum sbd_cmd {
	SBD_CMD_HELLO,
	SBD_CMD_SUBMIT,
	SBD_CMD_QUEUE,
	SBD_CMD_STATUS,
	SBD_CMD_FOLLOW,
	SBD_CMD_CANCEL,
	SBD_CMD_PAUSE,
	SBD_CMD_RESUME,
	SBD_CMD_DASHBOARD,
	SBD_CMD_COUNT
};

/* Error codes of replies ("error": {"code": ..., "message": ...}). */
#define SBD_E_BAD_JSON "bad_json"       /* not a JSON object */
#define SBD_E_BAD_REQUEST "bad_request" /* a field missing, of the wrong type or range */
#define SBD_E_TOO_LONG                                                                             \
	"too_long" /* a line longer than SB_DAEMON_LINE_MAX, a campaign over the limit */
#define SBD_E_UNKNOWN_COMMAND "unknown_command" /* "cmd" names no command */
#define SBD_E_VERSION "version"                 /* "v" is not a version this daemon speaks */
#define SBD_E_NOT_PERMITTED "not_permitted"     /* the peer may not use the daemon (or job) */
#define SBD_E_NOT_FOUND "not_found"             /* no such job */
#define SBD_E_BAD_STATE "bad_state"             /* the job's state does not allow it */
#define SBD_E_BAD_CAMPAIGN "bad_campaign"       /* the campaign file is refused (file, line) */
#define SBD_E_NO_BOARD "no_board"               /* the campaign needs a board not owned here */
#define SBD_E_BUSY "busy"                       /* too many clients or jobs (a limit) */
#define SBD_E_TIMEOUT "timeout"                 /* the checks as the submitter did not end */
#define SBD_E_INTERNAL "internal"               /* the daemon failed (database, memory) */

struct sbd_request {
	enum sbd_cmd cmd;
	char tag[SBD_TAG_MAX + 1]; /* "" when none */
	bool has_job;
	int64_t job;
	/* submit */
	char *campaign; /* the campaign file's text (malloc'ed) */
	size_t campaign_len;
	char file[SBD_FILE_MAX];
	char db[SBD_DB_MAX];
	char
	    db_dir_id[48]; /* "DEV:INO" of the database's folder as the client sees it ("": none) */
	int priority;
	unsigned workers;
	int umask; /* the submitter's file creation mask (-1: not given) */
	/* queue */
	bool all;
};

/* Name of a command ("submit"). */
const char *sbd_cmd_name(enum sbd_cmd c);

/*
 * Parse and check a request line. Returns 0, or an error code (SBD_E_*) with a message in
 * err (naming the field and quoting what was wrong); r->tag is filled in as far as it could be
 * read. Release r with sbd_request_release() either way.
 */
const char *sbd_request_parse(const char *line, size_t len, struct sbd_request *r, char *err,
                              size_t errsize);

void sbd_request_release(struct sbd_request *r);

/* An error reply line ({"v":1,"ok":false,"error":{...}} + "\n"), malloc'ed (NULL: no memory). */
char *sbd_reply_error(const char *tag, const char *code, const char *message);

/* Escape s as the inside of a JSON string into dst (always terminated; truncated to fit). */
void sbd_json_escape(char *dst, size_t size, const char *s);

#endif /* SBD_PROTO_H */
