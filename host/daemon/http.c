/* SPDX-License-Identifier: MIT */
/*
 * The dashboard: libmicrohttpd, a thread per connection.
 *   /, /dashboard.js, /dashboard.css   the page (embedded, assets.h)
 *   /api/status                        the status and the queue (JSON)
 *   /api/session                       the page's session cookie and CSRF token, who acts
 *   POST /api/jobs/ID/ACTION           pause, resume, cancel (web.c decides who may)
 *   /api/jobs/ID/report, /jobs/ID/report, /jobs/ID/figures/NAME.png
 *                                      a finished job's report, made as its submitter
 *   /events                            server-sent events: the event ring (samples at most
 *                                      every SSE_SAMPLE_S per board and connection)
 * Every request on every address needs the daemon's token (made at start unless given; written
 * for root and the group; `stackbench dashboard` prints the URL with it): Authorization:
 * Bearer, ?token= or the cookie set when the page is loaded with ?token=. Bound to a loopback
 * address, requests must also name it in Host (no DNS rebinding).
 *
 * Connections are accepted here (a thread), not by libmicrohttpd, so that each counts against
 * its client: on a loopback address the user that owns the peer socket (the kernel says, peer.c),
 * elsewhere the address. One client holds at most http-per-client of the http-clients
 * connections: one user's event streams cannot take the dashboard from the others.
 *
 * Actions (pause, resume, cancel one's jobs from the page) are POSTs decided on their headers
 * (the body is never read): the token as above, then same origin, the user on the other end of
 * a loopback connection, and the CSRF token of the session GET /api/session gave (web.c).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "assets.h"
#include "daemon.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

#define SSE_KEEPALIVE_S 15
#define SSE_PEER_CHECK_S 1 /* how often a waiting event stream looks whether its client left */
#define REQUEST_MAX 32768  /* a request's line and headers */
#define SSE_SAMPLE_S 0.1
#define COOKIE "sbd_token"
#define SESSION_COOKIE "sbd_session"

/* Connections handed to libmicrohttpd whose thread has not reported them yet: their share,
 * by descriptor (open, so unique, until libmicrohttpd closes it after reporting it). */
#define PENDING_MAX 64

/* A client's share of the connections: a user (loopback) or an address. */
struct share {
	char key[64];
	unsigned n;
};

struct sbd_http {
	struct MHD_Daemon *mhd;
	struct sbd *d;
	bool loopback;
	char token[256];
	int lfd;     /* the listening socket */
	int stop_fd; /* eventfd: the acceptor ends */
	pthread_t acceptor;
	bool acceptor_running;
	pthread_mutex_t mu; /* the shares */
	unsigned total;
	struct share *shares; /* http_clients of them at most */
	struct {
		int fd;
		struct share *share;
	} pending[PENDING_MAX];
};

struct sse {
	struct sbd_http *h;
	uint64_t cursor;
	bool started;
	char *pending; /* a message that did not fit the last buffer */
	size_t plen, poff;
	double last_sample[SBD_MAX_BOARDS];
	int fd; /* the connection's socket (-1: unknown), to see a client that left */
};

static const char *const csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/* A finished job's HTML report: its figures are inside it (data: URIs), its style inline; no
 * script runs in it (sandbox), nothing is fetched. */
static const char *const report_csp = "sandbox; default-src 'none'; img-src data:; "
                                      "style-src 'unsafe-inline'; base-uri 'none'; "
                                      "form-action 'none'; frame-ancestors 'none'";

static void add_headers_csp(struct MHD_Response *r, const char *type, const char *policy)
{
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Content-Security-Policy", policy);
}

static void add_headers(struct MHD_Response *r, const char *type)
{
	add_headers_csp(r, type, csp);
}

static enum MHD_Result reply(struct MHD_Connection *conn, unsigned status, const char *type,
                             const void *data, size_t len, bool copy, const char *cookie)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(
	    len, (void *)data, copy ? MHD_RESPMEM_MUST_COPY : MHD_RESPMEM_PERSISTENT);
	enum MHD_Result ret;

	if (!r)
		return MHD_NO;
	add_headers(r, type);
	if (cookie)
		MHD_add_response_header(r, "Set-Cookie", cookie);
	ret = MHD_queue_response(conn, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *conn, unsigned status, const char *msg)
{
	return reply(conn, status, "text/plain; charset=utf-8", msg, strlen(msg), true, NULL);
}

/* Host header names the loopback address (an attacker's domain resolving to it does not). */
static bool host_ok(const char *host)
{
	static const char *const names[] = {"127.0.0.1", "localhost", "[::1]"};

	if (!host)
		return false;
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		size_t n = strlen(names[i]);

		if (!strncmp(host, names[i], n) && (host[n] == '\0' || host[n] == ':'))
			return true;
	}
	return false;
}

/* 0: allowed; -1: refused (reply queued in *ret); *set_cookie when ?token= came (the page). */
static int check_access(struct sbd_http *h, struct MHD_Connection *conn, enum MHD_Result *ret,
                        bool *set_cookie)
{
	const char *auth, *q, *ck;

	*set_cookie = false;
	if (h->loopback && !host_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host"))) {
		*ret = reply_text(conn, 403,
		                  "stackbenchd: the Host header must name the loopback "
		                  "address the dashboard listens on\n");
		return -1;
	}
	auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	q = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");
	ck = MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, COOKIE);
	if (auth && !strncmp(auth, "Bearer ", 7) && sbd_web_same_secret(auth + 7, h->token))
		return 0;
	if (q && sbd_web_same_secret(q, h->token)) {
		*set_cookie = true;
		return 0;
	}
	if (ck && sbd_web_same_secret(ck, h->token))
		return 0;
	*ret = reply_text(conn, 401,
	                  "stackbenchd: this dashboard needs its token: open the URL that "
	                  "'stackbench dashboard' prints (/?token=TOKEN)\n");
	return -1;
}

static char *status_text(struct sbd *d)
{
	cJSON *o;
	char *text;

	pthread_mutex_lock(&d->mu);
	o = sbd_status_json(d);
	if (o) {
		cJSON_AddItemToObject(o, "jobs", sbd_queue_json(d, false));
		cJSON_AddNumberToObject(o, "next_seq", (double)d->next_seq);
	}
	pthread_mutex_unlock(&d->mu);
	text = o ? cJSON_PrintUnformatted(o) : NULL;
	cJSON_Delete(o);
	return text;
}

/* ---- server-sent events ------------------------------------------------------------------ */

/* Copy pending bytes into buf; the count. */
static size_t take_pending(struct sse *s, char *buf, size_t max)
{
	size_t n = s->plen - s->poff < max ? s->plen - s->poff : max;

	memcpy(buf, s->pending + s->poff, n);
	s->poff += n;
	if (s->poff == s->plen) {
		free(s->pending);
		s->pending = NULL;
		s->plen = s->poff = 0;
	}
	return n;
}

/*
 * Put a message into buf at *o: 1 when it went in, 2 when it went out through pending (too
 * big for an empty buffer; the rest follows on the next calls), 0 when it must wait for the
 * next buffer (nothing taken).
 */
static int put(struct sse *s, char *buf, size_t max, size_t *o, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static int put(struct sse *s, char *buf, size_t max, size_t *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf + *o, max - *o, fmt, ap);
	va_end(ap);
	if (n >= 0 && (size_t)n < max - *o) {
		*o += (size_t)n;
		return 1;
	}
	if (*o)
		return 0;
	va_start(ap, fmt);
	n = vasprintf(&s->pending, fmt, ap);
	va_end(ap);
	if (n < 0) {
		s->pending = NULL;
		return 2; /* out of memory: the message is lost, the stream goes on */
	}
	s->plen = (size_t)n;
	s->poff = 0;
	*o = take_pending(s, buf, max);
	return 2;
}

/*
 * Whether the client of an event stream closed its end (or shut down its sending side: an
 * event stream's client has nothing more to send). A stream waiting for events writes only
 * every SSE_KEEPALIVE_S, and the write that finds the socket closed may be the second one: a
 * closed stream would otherwise hold its user's share of the connections for up to half a
 * minute (a dashboard reloaded a few times in that while was refused).
 */
static bool sse_peer_gone(const struct sse *s)
{
	struct pollfd p = {.fd = s->fd, .events = POLLRDHUP};

	if (s->fd < 0)
		return false;
	return poll(&p, 1, 0) == 1 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *s = cls;
	struct sbd *d = s->h->d;
	struct timespec until, keepalive;
	size_t o = 0;

	(void)pos;
	if (s->pending)
		return (ssize_t)take_pending(s, buf, max);
	if (!s->started) {
		char *text = status_text(d);

		s->started = true;
		pthread_mutex_lock(&d->mu);
		s->cursor = d->next_seq;
		pthread_mutex_unlock(&d->mu);
		/* status_text ran just before: an event between the two is sent twice at worst,
		 * which the page tolerates (it replaces state). */
		put(s, buf, max, &o, "retry: 2000\nevent: status\ndata: %s\n\n",
		    text ? text : "{}");
		free(text);
		return (ssize_t)o;
	}
	pthread_mutex_lock(&d->mu);
	clock_gettime(CLOCK_REALTIME, &keepalive);
	keepalive.tv_sec += SSE_KEEPALIVE_S;
	while (!d->stopping && s->cursor >= d->next_seq) {
		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += SSE_PEER_CHECK_S;
		if (until.tv_sec > keepalive.tv_sec ||
		    (until.tv_sec == keepalive.tv_sec && until.tv_nsec > keepalive.tv_nsec))
			until = keepalive;
		if (pthread_cond_timedwait(&d->cond, &d->mu, &until) != ETIMEDOUT)
			continue;
		if (sse_peer_gone(s)) {
			pthread_mutex_unlock(&d->mu);
			return MHD_CONTENT_READER_END_WITH_ERROR;
		}
		if (until.tv_sec == keepalive.tv_sec && until.tv_nsec == keepalive.tv_nsec)
			break;
	}
	if (d->stopping) {
		pthread_mutex_unlock(&d->mu);
		return MHD_CONTENT_READER_END_OF_STREAM;
	}
	if (s->cursor >= d->next_seq) {
		pthread_mutex_unlock(&d->mu);
		put(s, buf, max, &o, ": keep-alive\n\n");
		return (ssize_t)o;
	}
	if (s->cursor < sbd_ring_oldest(d)) {
		uint64_t n = sbd_ring_oldest(d) - s->cursor;

		s->cursor = sbd_ring_oldest(d);
		put(s, buf, max, &o, "event: dropped\ndata: {\"count\":%" PRIu64 "}\n\n", n);
	}
	while (s->cursor < d->next_seq && !s->pending) {
		const struct sbd_event *e = sbd_ring_get(d, s->cursor);

		if (e && e->kind == SBD_EV_SAMPLE && e->board >= 0 && e->board < SBD_MAX_BOARDS) {
			/* A browser plots a few samples a second, not the simulator's thousands. */
			if (e->ts - s->last_sample[e->board] < SSE_SAMPLE_S) {
				s->cursor++;
				continue;
			}
		}
		if (e && !put(s, buf, max, &o, "id: %" PRIu64 "\nevent: %s\ndata: %s\n\n", e->seq,
		              sbd_event_name(e->kind), e->json))
			break;
		if (e && e->kind == SBD_EV_SAMPLE && e->board >= 0 && e->board < SBD_MAX_BOARDS)
			s->last_sample[e->board] = e->ts;
		s->cursor++;
	}
	pthread_mutex_unlock(&d->mu);
	return (ssize_t)o;
}

static void sse_free(void *cls)
{
	struct sse *s = cls;

	free(s->pending);
	free(s);
}

static enum MHD_Result serve_events(struct sbd_http *h, struct MHD_Connection *conn)
{
	struct sse *s = calloc(1, sizeof(*s));
	const union MHD_ConnectionInfo *ci;
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!s)
		return MHD_NO;
	s->h = h;
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	s->fd = ci ? ci->connect_fd : -1;
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 16384, sse_read, s, sse_free);
	if (!r) {
		free(s);
		return MHD_NO;
	}
	add_headers(r, "text/event-stream");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- actions: POST /api/jobs/ID/{pause,resume,cancel} -------------------------------------- */

static enum MHD_Result reply_json(struct MHD_Connection *conn, unsigned status, cJSON *o,
                                  const char *cookie)
{
	char *text = o ? cJSON_PrintUnformatted(o) : NULL;
	enum MHD_Result ret;

	cJSON_Delete(o);
	if (!text)
		return reply_text(conn, 500, "stackbenchd: out of memory\n");
	ret = reply(conn, status, "application/json", text, strlen(text), true, cookie);
	cJSON_free(text);
	return ret;
}

static enum MHD_Result reply_error(struct MHD_Connection *conn, unsigned status, const char *code,
                                   const char *msg)
{
	cJSON *o = cJSON_CreateObject(), *e = cJSON_AddObjectToObject(o, "error");

	cJSON_AddBoolToObject(o, "ok", false);
	cJSON_AddStringToObject(e, "code", code);
	cJSON_AddStringToObject(e, "message", msg);
	return reply_json(conn, status, o, NULL);
}

/* The HTTP status of a socket API error code. */
static unsigned status_of(const char *code)
{
	if (!strcmp(code, SBD_E_NOT_PERMITTED))
		return 403;
	if (!strcmp(code, SBD_E_NOT_FOUND))
		return 404;
	if (!strcmp(code, SBD_E_BAD_STATE))
		return 409;
	if (!strcmp(code, SBD_E_BAD_REQUEST))
		return 400;
	return 503;
}

/* "/api/jobs/ID/ACTION" → id and command; false when url is not one. */
static bool action_path(const char *url, int64_t *id, enum sbd_cmd *cmd)
{
	static const struct {
		const char *name;
		enum sbd_cmd cmd;
	} acts[] = {
	    {"pause", SBD_CMD_PAUSE}, {"resume", SBD_CMD_RESUME}, {"cancel", SBD_CMD_CANCEL}};
	const char *p = url + 10;
	char *end;
	long long v;

	if (strncmp(url, "/api/jobs/", 10) || *p < '1' || *p > '9')
		return false;
	errno = 0;
	v = strtoll(p, &end, 10);
	if (errno || *end != '/' || v <= 0)
		return false;
	for (size_t i = 0; i < sizeof(acts) / sizeof(acts[0]); i++)
		if (!strcmp(end + 1, acts[i].name)) {
			*id = v;
			*cmd = acts[i].cmd;
			return true;
		}
	return false;
}

/* Who is on the other end: the owner of the peer socket (loopback only); false: unknown. */
static bool peer_uid(struct sbd_http *h, struct MHD_Connection *conn, uid_t *uid)
{
	const union MHD_ConnectionInfo *ci =
	    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

	if (!h->loopback || !ci || sbd_peer_uid(ci->connect_fd, uid) < 0) {
		sb_error_clear();
		return false;
	}
	return true;
}

/* GET /api/session: the page's session (a cookie) and its CSRF token, and who the user is. */
static enum MHD_Result serve_session(struct sbd_http *h, struct MHD_Connection *conn)
{
	char id[SBD_WEB_SESSION_LEN + 1], csrf[SBD_WEB_CSRF_LEN + 1], cookie[128];
	struct sbd_cred c;
	cJSON *o;
	uid_t uid;

	if (!peer_uid(h, conn, &uid)) {
		o = cJSON_CreateObject();
		cJSON_AddBoolToObject(o, "can_act", false);
		cJSON_AddStringToObject(o, "why",
		                        "actions are served on a loopback address only (the daemon "
		                        "knows who acts only there)");
		return reply_json(conn, 200, o, NULL);
	}
	if (sbd_web_session(MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, SESSION_COOKIE), uid,
	                    id, csrf) < 0)
		return reply_text(conn, 500, "stackbenchd: cannot make a session\n");
	snprintf(cookie, sizeof(cookie), SESSION_COOKIE "=%s; Path=/; HttpOnly; SameSite=Strict",
	         id);
	sbd_web_cred(uid, &c);
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "can_act", sbd_peer_allowed(h->d, &c));
	cJSON_AddStringToObject(o, "csrf", csrf);
	cJSON_AddNumberToObject(o, "uid", uid);
	cJSON_AddBoolToObject(o, "manage_all", uid == 0 || uid == geteuid());
	return reply_json(conn, 200, o, cookie);
}

/*
 * A POST, decided on its headers (its body is never read): the token (check_access), no body,
 * same origin, a user known on loopback, the session's CSRF token, then the socket's rules.
 */
static enum MHD_Result serve_post(struct sbd_http *h, struct MHD_Connection *conn, const char *url)
{
	const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Content-Length");
	const char *why;
	char err[512], *job_json;
	enum MHD_Result ret;
	struct sbd_cred c;
	enum sbd_cmd cmd;
	bool set_cookie;
	int64_t id;
	uid_t uid;
	cJSON *o;

	if (check_access(h, conn, &ret, &set_cookie) < 0)
		return ret;
	if ((cl && strcmp(cl, "0")) ||
	    MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Transfer-Encoding"))
		return reply_error(conn, 413, "too_long", "an action has no request body");
	if ((why = sbd_web_same_origin(
	         MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host"),
	         MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Origin"),
	         MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Referer"),
	         MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Sec-Fetch-Site"), err,
	         sizeof(err))))
		return reply_error(conn, 403, "cross_origin", why);
	if (!peer_uid(h, conn, &uid))
		return reply_error(conn, 403, SBD_E_NOT_PERMITTED,
		                   "actions are served on a loopback address only (the daemon "
		                   "knows who acts only there): use stackbench cancel, pause or "
		                   "resume");
	if ((why = sbd_web_csrf_check(
	         MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, SESSION_COOKIE),
	         MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "X-CSRF-Token"), uid)))
		return reply_error(conn, 403, "csrf", why);
	if (!action_path(url, &id, &cmd))
		return reply_error(conn, 404, SBD_E_NOT_FOUND,
		                   "no such action (POST /api/jobs/ID/pause, resume or cancel)");
	sbd_web_cred(uid, &c);
	if ((why = sbd_web_action(h->d, &c, cmd, id, err, sizeof(err), &job_json)))
		return reply_error(conn, status_of(why), why, err);
	sb_info("dashboard: user %lu: %s job %" PRId64, (unsigned long)uid, sbd_cmd_name(cmd), id);
	o = cJSON_CreateObject();
	cJSON_AddBoolToObject(o, "ok", true);
	cJSON_AddItemToObject(o, "job", job_json ? cJSON_Parse(job_json) : cJSON_CreateNull());
	cJSON_free(job_json);
	return reply_json(conn, 200, o, NULL);
}

/* ---- finished jobs' reports ------------------------------------------------------------------ */

/*
 * GET /api/jobs/ID/report (its figures' names), /jobs/ID/report (the HTML report),
 * /jobs/ID/figures/NAME.png: made as the job's submitter (web.c, jobmain.c), for its owner,
 * root or the daemon's user on loopback. 0: url is none of them.
 */
static enum MHD_Result serve_report(struct sbd_http *h, struct MHD_Connection *conn,
                                    const char *url, bool *handled)
{
	const char *rest, *name = NULL, *type = "application/json";
	char err[512], *data, *end;
	struct MHD_Response *r;
	enum MHD_Result ret;
	struct sbd_cred c;
	unsigned status;
	bool api = false;
	long long id;
	size_t len;
	uid_t uid;

	*handled = false;
	if (!strncmp(url, "/api/jobs/", 10))
		rest = url + 10, api = true;
	else if (!strncmp(url, "/jobs/", 6))
		rest = url + 6;
	else
		return MHD_NO;
	if (*rest < '1' || *rest > '9')
		return MHD_NO;
	errno = 0;
	id = strtoll(rest, &end, 10);
	if (errno || id <= 0)
		return MHD_NO;
	if (!strcmp(end, "/report")) {
		if (!api)
			name = "report.html", type = "text/html; charset=utf-8";
	} else if (!api && !strncmp(end, "/figures/", 9) && end[9] && !strchr(end + 9, '/')) {
		name = end + 9;
		type = "image/png";
	} else {
		return MHD_NO;
	}
	*handled = true;
	if (!peer_uid(h, conn, &uid))
		return reply_error(conn, 403, SBD_E_NOT_PERMITTED,
		                   "reports are served on a loopback address only (the daemon "
		                   "knows who asks only there)");
	sbd_web_cred(uid, &c);
	status = sbd_web_report_file(h->d, &c, id, name, &data, &len, err, sizeof(err));
	if (status != 200)
		return reply_error(conn, status,
		                   status == 403   ? SBD_E_NOT_PERMITTED
		                   : status == 404 ? SBD_E_NOT_FOUND
		                   : status == 409 ? SBD_E_BAD_STATE
		                                   : SBD_E_INTERNAL,
		                   err);
	if (!(r = MHD_create_response_from_buffer(len, data, MHD_RESPMEM_MUST_FREE))) {
		free(data);
		return MHD_NO;
	}
	add_headers_csp(r, type, name && !strcmp(name, "report.html") ? report_csp : csp);
	ret = MHD_queue_response(conn, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- requests ------------------------------------------------------------------------------ */

static enum MHD_Result handle(void *cls, struct MHD_Connection *conn, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls)
{
	struct sbd_http *h = cls;
	enum MHD_Result ret = MHD_NO;
	char cookie[sizeof(h->token) + 64];
	bool set_cookie;

	(void)version;
	(void)upload;
	if (!*con_cls) {
		/* First call: headers only. A POST is answered now: its body is never read. */
		*con_cls = h;
		if (!strcmp(method, "POST"))
			return serve_post(h, conn, url);
		return MHD_YES;
	}
	if (*upload_size)
		return reply_text(conn, 413, "stackbenchd: no request bodies\n");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply_text(conn, 405, "stackbenchd: GET, HEAD or POST only\n");
	if (check_access(h, conn, &ret, &set_cookie) < 0)
		return ret;
	snprintf(cookie, sizeof(cookie), COOKIE "=%s; Path=/; HttpOnly; SameSite=Strict", h->token);
	if (!strcmp(url, "/"))
		url = "/index.html";
	if (!strcmp(url, "/api/status")) {
		char *text = status_text(h->d);

		if (!text)
			return reply_text(conn, 500, "stackbenchd: out of memory\n");
		ret = reply(conn, 200, "application/json", text, strlen(text), true, NULL);
		cJSON_free(text);
		return ret;
	}
	if (!strcmp(url, "/api/session"))
		return serve_session(h, conn);
	{
		bool handled;

		ret = serve_report(h, conn, url, &handled);
		if (handled)
			return ret;
	}
	if (!strcmp(url, "/events"))
		return serve_events(h, conn);
	for (const struct sbd_asset *a = sbd_assets; a->path; a++)
		if (!strcmp(url, a->path))
			return reply(conn, 200, a->type, a->data, a->len, false,
			             set_cookie ? cookie : NULL);
	return reply_text(conn, 404, "stackbenchd: no such page\n");
}

static void mhd_log(void *cls, const char *fmt, va_list ap)
{
	char msg[512];

	(void)cls;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	msg[strcspn(msg, "\n")] = '\0';
	sb_dbg("dashboard: %s", msg);
}

/* Parse "ADDR:PORT" ("[v6]:PORT" too) into a socket address. */
static int parse_addr(const char *text, struct sockaddr_storage *ss, socklen_t *len, bool *loopback)
{
	char host[128], *colon;
	const char *port;
	struct addrinfo hints = {.ai_family = AF_UNSPEC,
	                         .ai_socktype = SOCK_STREAM,
	                         .ai_flags = AI_NUMERICSERV | AI_PASSIVE},
	                *res;
	int e;

	snprintf(host, sizeof(host), "%s", text);
	if (host[0] == '[') {
		char *end = strchr(host, ']');

		if (!end || end[1] != ':')
			return sb_error_set(SB_ERR_INVAL, "--http '%s': expected [ADDR]:PORT",
			                    text);
		*end = '\0';
		port = end + 2;
		memmove(host, host + 1, strlen(host + 1) + 1);
	} else {
		if (!(colon = strrchr(host, ':')))
			return sb_error_set(SB_ERR_INVAL, "--http '%s': expected ADDR:PORT", text);
		*colon = '\0';
		port = colon + 1;
	}
	if ((e = getaddrinfo(host, port, &hints, &res)) != 0)
		return sb_error_set(SB_ERR_INVAL, "--http '%s': %s", text, gai_strerror(e));
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*len = res->ai_addrlen;
	freeaddrinfo(res);
	if (ss->ss_family == AF_INET)
		*loopback = (ntohl(((struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	else
		*loopback = IN6_IS_ADDR_LOOPBACK(&((struct sockaddr_in6 *)ss)->sin6_addr);
	return 0;
}

int sbd_http_check(const char *http)
{
	struct sockaddr_storage ss;
	bool loopback = false;
	socklen_t len;

	if (!http[0])
		return 0;
	return parse_addr(http, &ss, &len, &loopback);
}

/* ---- connections and their shares ---------------------------------------------------------- */

/* Who a connection counts against: "uid N" on loopback (the kernel says whose the peer
 * socket is), else its address. */
static void client_key(int fd, const struct sockaddr_storage *ss, char *key, size_t size)
{
	char addr[INET6_ADDRSTRLEN] = "?";
	uid_t uid;

	if (sbd_peer_uid(fd, &uid) == 0) {
		snprintf(key, size, "uid %lu", (unsigned long)uid);
		return;
	}
	sb_error_clear();
	if (ss->ss_family == AF_INET)
		inet_ntop(AF_INET, &((const struct sockaddr_in *)ss)->sin_addr, addr, sizeof(addr));
	else if (ss->ss_family == AF_INET6)
		inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)ss)->sin6_addr, addr,
		          sizeof(addr));
	snprintf(key, size, "address %s", addr);
}

/* Take a share for key; NULL when the client (or the dashboard) has all it may have. */
static struct share *take_share(struct sbd_http *h, const char *key)
{
	const struct sbd_limits *l = &h->d->opt.limits;
	struct share *free_slot = NULL, *s = NULL;

	pthread_mutex_lock(&h->mu);
	for (unsigned i = 0; i < l->http_clients && !s; i++) {
		if (h->shares[i].n && !strcmp(h->shares[i].key, key))
			s = &h->shares[i];
		else if (!h->shares[i].n && !free_slot)
			free_slot = &h->shares[i];
	}
	if (!s && free_slot) {
		s = free_slot;
		snprintf(s->key, sizeof(s->key), "%s", key);
	}
	if (!s || h->total >= l->http_clients || s->n >= l->http_per_client)
		s = NULL;
	else {
		s->n++;
		h->total++;
	}
	pthread_mutex_unlock(&h->mu);
	return s;
}

static void give_share(struct sbd_http *h, struct share *s)
{
	pthread_mutex_lock(&h->mu);
	if (s->n)
		s->n--;
	if (h->total)
		h->total--;
	pthread_mutex_unlock(&h->mu);
}

/* Park a share for the connection on fd until its thread reports it; false when full. */
static bool park(struct sbd_http *h, int fd, struct share *s)
{
	bool ok = false;

	pthread_mutex_lock(&h->mu);
	for (unsigned i = 0; i < PENDING_MAX && !ok; i++)
		if (!h->pending[i].share) {
			h->pending[i].fd = fd;
			h->pending[i].share = s;
			ok = true;
		}
	pthread_mutex_unlock(&h->mu);
	return ok;
}

static struct share *unpark(struct sbd_http *h, int fd)
{
	struct share *s = NULL;

	pthread_mutex_lock(&h->mu);
	for (unsigned i = 0; i < PENDING_MAX && !s; i++)
		if (h->pending[i].share && h->pending[i].fd == fd) {
			s = h->pending[i].share;
			h->pending[i].share = NULL;
		}
	pthread_mutex_unlock(&h->mu);
	return s;
}

static void on_connection(void *cls, struct MHD_Connection *conn, void **socket_context,
                          enum MHD_ConnectionNotificationCode code)
{
	struct sbd_http *h = cls;

	if (code == MHD_CONNECTION_NOTIFY_STARTED) {
		const union MHD_ConnectionInfo *ci =
		    MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);

		*socket_context = ci ? unpark(h, ci->connect_fd) : NULL;
	} else if (*socket_context) {
		give_share(h, *socket_context);
		*socket_context = NULL;
	}
}

#define LINGER_MAX 64 /* refused connections waiting for their client's end */
#define LINGER_S 0.5  /* ... at most this long */

/* A refused connection: its answer sent, the connection is closed once the client has sent
 * what it will (closing on unread bytes would reset it before the answer is read). */
struct lingering {
	int fd;
	double until;
};

static void refuse_http(struct lingering *l, unsigned *n, int fd)
{
	static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Type: text/plain"
	                           "\r\nConnection: close\r\n\r\nstackbenchd: this client has "
	                           "all the dashboard connections it may have\n";
	char drain[4096];

	while (recv(fd, drain, sizeof(drain), MSG_DONTWAIT) > 0)
		;
	if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 || *n == LINGER_MAX) {
		close(fd);
		return;
	}
	shutdown(fd, SHUT_WR);
	l[*n].fd = fd;
	l[(*n)++].until = sbd_now() + LINGER_S;
}

static void *acceptor(void *arg)
{
	struct sbd_http *h = arg;
	struct lingering l[LINGER_MAX];
	struct pollfd p[2 + LINGER_MAX];
	unsigned n = 0;

	for (;;) {
		double now = sbd_now(), first = 0;
		int timeout = -1, r;

		p[0] = (struct pollfd){.fd = h->lfd, .events = POLLIN};
		p[1] = (struct pollfd){.fd = h->stop_fd, .events = POLLIN};
		for (unsigned i = 0; i < n; i++) {
			p[2 + i] = (struct pollfd){.fd = l[i].fd, .events = POLLIN};
			if (!first || l[i].until < first)
				first = l[i].until;
		}
		if (n)
			timeout = first > now ? (int)((first - now) * 1e3) + 1 : 0;
		if ((r = poll(p, 2 + n, timeout)) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		/* Refused connections whose clients are done, or whose time is up. */
		for (unsigned i = n; i-- > 0;) {
			char drain[4096];
			ssize_t k = 0;

			if (p[2 + i].revents)
				while ((k = recv(l[i].fd, drain, sizeof(drain), MSG_DONTWAIT)) > 0)
					;
			if ((p[2 + i].revents && k <= 0 && errno != EAGAIN) ||
			    sbd_now() >= l[i].until) {
				close(l[i].fd);
				l[i] = l[--n];
			}
		}
		if (p[0].revents & POLLIN) {
			struct sockaddr_storage ss;
			socklen_t len = sizeof(ss);
			struct share *s;
			char key[64];
			int fd;

			if ((fd = accept4(h->lfd, (struct sockaddr *)&ss, &len, SOCK_CLOEXEC)) < 0)
				continue;
			client_key(fd, &ss, key, sizeof(key));
			if (!(s = take_share(h, key))) {
				sb_dbg(
				    "dashboard: refusing a connection of %s (its share is taken)",
				    key);
				refuse_http(l, &n, fd);
				continue;
			}
			if (!park(h, fd, s)) {
				give_share(h, s);
				refuse_http(l, &n, fd);
				continue;
			}
			/* Refused by libmicrohttpd (it closed fd): never reported, not counted. */
			if (MHD_add_connection(h->mhd, fd, (struct sockaddr *)&ss, len) !=
			        MHD_YES &&
			    unpark(h, fd))
				give_share(h, s);
		}
	}
	for (unsigned i = 0; i < n; i++)
		close(l[i].fd);
	return NULL;
}

void sbd_http_url(const struct sbd *d, char *buf, size_t size)
{
	char host[160];

	buf[0] = '\0';
	if (!d->http)
		return;
	snprintf(host, sizeof(host), "%s", d->http_bound);
	/* A wildcard address: the browser goes to this host's name. */
	if (!strncmp(host, "0.0.0.0:", 8) || !strncmp(host, "[::]:", 5)) {
		char name[64] = "localhost";

		gethostname(name, sizeof(name) - 1);
		snprintf(buf, size, "http://%s:%s/?token=%s", name, strrchr(host, ':') + 1,
		         d->http->token);
		return;
	}
	snprintf(buf, size, "http://%s/?token=%s", host, d->http->token);
}

int sbd_http_start(struct sbd *d)
{
	struct sockaddr_storage ss, bound;
	socklen_t len = 0, blen = sizeof(bound);
	struct sbd_http *h;
	char addr[INET6_ADDRSTRLEN];
	bool loopback = false;
	int e, one = 1;

	if (!d->opt.http[0])
		return 0;
	if ((e = parse_addr(d->opt.http, &ss, &len, &loopback)) < 0)
		return e;
	if (!(h = calloc(1, sizeof(*h))) ||
	    !(h->shares = calloc(d->opt.limits.http_clients, sizeof(*h->shares)))) {
		free(h);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	h->d = d;
	h->loopback = loopback;
	h->stop_fd = -1;
	pthread_mutex_init(&h->mu, NULL);
	snprintf(h->token, sizeof(h->token), "%s", d->opt.token);
	if ((h->lfd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0)) < 0 ||
	    setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
	    bind(h->lfd, (struct sockaddr *)&ss, len) < 0 || listen(h->lfd, 64) < 0 ||
	    getsockname(h->lfd, (struct sockaddr *)&bound, &blen) < 0) {
		e = sb_error_set(SB_ERR_IO, "cannot serve the dashboard on '%s': %s", d->opt.http,
		                 strerror(errno));
		goto fail;
	}
	h->mhd = MHD_start_daemon(
	    MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
	        MHD_USE_NO_LISTEN_SOCKET | MHD_USE_ITC | MHD_USE_ERROR_LOG |
	        (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
	    0, NULL, NULL, handle, h, MHD_OPTION_CONNECTION_LIMIT,
	    (unsigned)d->opt.limits.http_clients + 1, MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)REQUEST_MAX, MHD_OPTION_NOTIFY_CONNECTION,
	    on_connection, h, MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
	if (!h->mhd || (h->stop_fd = eventfd(0, EFD_CLOEXEC)) < 0) {
		e = sb_error_set(SB_ERR_IO, "cannot serve the dashboard on '%s'", d->opt.http);
		goto fail;
	}
	if (pthread_create(&h->acceptor, NULL, acceptor, h) != 0) {
		e = sb_error_set(SB_ERR_IO, "cannot start the dashboard's thread");
		goto fail;
	}
	h->acceptor_running = true;
	if (bound.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&bound)->sin_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&bound)->sin6_addr, addr,
		          sizeof(addr));
	snprintf(d->http_bound, sizeof(d->http_bound),
	         bound.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", addr,
	         (unsigned)ntohs(bound.ss_family == AF_INET6
	                             ? ((struct sockaddr_in6 *)&bound)->sin6_port
	                             : ((struct sockaddr_in *)&bound)->sin_port));
	d->http = h;
	sb_info("dashboard on http://%s/?token=... (stackbench dashboard prints the URL)",
	        d->http_bound);
	return 0;
fail:
	if (h->mhd)
		MHD_stop_daemon(h->mhd);
	if (h->lfd >= 0)
		close(h->lfd);
	if (h->stop_fd >= 0)
		close(h->stop_fd);
	pthread_mutex_destroy(&h->mu);
	free(h->shares);
	free(h);
	return e;
}

void sbd_http_stop(struct sbd *d)
{
	struct sbd_http *h = d->http;
	uint64_t one = 1;

	if (!h)
		return;
	if (h->acceptor_running) {
		if (write(h->stop_fd, &one, sizeof(one)) < 0)
			sb_warn("cannot stop the dashboard's thread: %s", strerror(errno));
		pthread_join(h->acceptor, NULL);
	}
	MHD_stop_daemon(h->mhd);
	close(h->lfd);
	close(h->stop_fd);
	pthread_mutex_destroy(&h->mu);
	free(h->shares);
	free(h);
	d->http = NULL;
}
