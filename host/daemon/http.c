/* SPDX-License-Identifier: MIT */
/*
 * The dashboard: libmicrohttpd, a thread per connection (at most HTTP_MAX_CONN), GET only.
 *   /, /dashboard.js, /dashboard.css   the page (embedded, assets.h)
 *   /api/status                        the status and the queue (JSON)
 *   /events                            server-sent events: the event ring (samples at most
 *                                      every SSE_SAMPLE_S per board and connection)
 * Bound to a loopback address, requests must name it in Host (no DNS rebinding); any other
 * address needs a token, checked on every request (Authorization: Bearer, ?token= or the
 * cookie set when the page is loaded with ?token=).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <netdb.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "assets.h"
#include "daemon.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

#define HTTP_MAX_CONN 32
#define SSE_KEEPALIVE_S 15
#define SSE_SAMPLE_S 0.1
#define COOKIE "sbd_token"

struct sbd_http {
	struct MHD_Daemon *mhd;
	struct sbd *d;
	bool loopback;
	char token[256];
};

struct sse {
	struct sbd_http *h;
	uint64_t cursor;
	bool started;
	char *pending; /* a message that did not fit the last buffer */
	size_t plen, poff;
	double last_sample[SBD_MAX_BOARDS];
};

static const char *const csp =
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; "
    "img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

static void add_headers(struct MHD_Response *r, const char *type)
{
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Content-Security-Policy", csp);
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

/* Compare without leaking where they differ. */
static bool token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = (unsigned char)(la != lb);

	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return !diff && lb;
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

/* 0: allowed; 1: allowed and the page set the cookie; -1: refused (reply queued in *ret). */
static int check_access(struct sbd_http *h, struct MHD_Connection *conn, enum MHD_Result *ret,
                        bool *set_cookie)
{
	const char *auth, *q, *ck;

	*set_cookie = false;
	if (!h->token[0]) {
		if (host_ok(MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Host")))
			return 0;
		*ret = reply_text(conn, 403,
		                  "stackbenchd: the Host header must name the loopback "
		                  "address the dashboard listens on\n");
		return -1;
	}
	auth = MHD_lookup_connection_value(conn, MHD_HEADER_KIND, "Authorization");
	q = MHD_lookup_connection_value(conn, MHD_GET_ARGUMENT_KIND, "token");
	ck = MHD_lookup_connection_value(conn, MHD_COOKIE_KIND, COOKIE);
	if (auth && !strncmp(auth, "Bearer ", 7) && token_equal(auth + 7, h->token))
		return 0;
	if (q && token_equal(q, h->token)) {
		*set_cookie = true;
		return 0;
	}
	if (ck && token_equal(ck, h->token))
		return 0;
	*ret = reply_text(conn, 401,
	                  "stackbenchd: this dashboard needs its token: open it as "
	                  "/?token=TOKEN (stackbenchd --http-token-file)\n");
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

static ssize_t sse_read(void *cls, uint64_t pos, char *buf, size_t max)
{
	struct sse *s = cls;
	struct sbd *d = s->h->d;
	struct timespec until;
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
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += SSE_KEEPALIVE_S;
	while (!d->stopping && s->cursor >= d->next_seq)
		if (pthread_cond_timedwait(&d->cond, &d->mu, &until) == ETIMEDOUT)
			break;
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
	struct MHD_Response *r;
	enum MHD_Result ret;

	if (!s)
		return MHD_NO;
	s->h = h;
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
		/* First call: headers only. */
		*con_cls = h;
		return MHD_YES;
	}
	if (*upload_size)
		return reply_text(conn, 413, "stackbenchd: no request bodies\n");
	if (strcmp(method, "GET") && strcmp(method, "HEAD"))
		return reply_text(conn, 405, "stackbenchd: GET only\n");
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

int sbd_http_check(const char *http, const char *token)
{
	struct sockaddr_storage ss;
	bool loopback = false;
	socklen_t len;
	int e;

	if (!http[0])
		return 0;
	if ((e = parse_addr(http, &ss, &len, &loopback)) < 0)
		return e;
	if (!loopback && !token[0])
		return sb_error_set(SB_ERR_PERM,
		                    "--http '%s' is not a loopback address: the dashboard would be "
		                    "open to the network; give it a token (--http-token-file FILE)",
		                    http);
	return 0;
}

int sbd_http_start(struct sbd *d)
{
	struct sockaddr_storage ss;
	const union MHD_DaemonInfo *info;
	struct sbd_http *h;
	char addr[INET6_ADDRSTRLEN];
	socklen_t len;
	bool loopback = false;
	int e;

	if (!d->opt.http[0])
		return 0;
	if ((e = sbd_http_check(d->opt.http, d->opt.token)) < 0 ||
	    (e = parse_addr(d->opt.http, &ss, &len, &loopback)) < 0)
		return e;
	if (!(h = calloc(1, sizeof(*h))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	h->d = d;
	h->loopback = loopback;
	snprintf(h->token, sizeof(h->token), "%s", d->opt.token);
	h->mhd =
	    MHD_start_daemon(MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD |
	                         MHD_USE_ERROR_LOG | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0),
	                     0, NULL, NULL, handle, h, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
	                     MHD_OPTION_CONNECTION_LIMIT, (unsigned)HTTP_MAX_CONN,
	                     MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)(HTTP_MAX_CONN / 2),
	                     MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)60,
	                     MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL, MHD_OPTION_END);
	if (!h->mhd) {
		free(h);
		return sb_error_set(
		    SB_ERR_IO, "cannot serve the dashboard on '%s' (address in use?)", d->opt.http);
	}
	info = MHD_get_daemon_info(h->mhd, MHD_DAEMON_INFO_BIND_PORT);
	if (ss.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *)&ss)->sin_addr, addr, sizeof(addr));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)&ss)->sin6_addr, addr, sizeof(addr));
	snprintf(d->http_bound, sizeof(d->http_bound),
	         ss.ss_family == AF_INET6 ? "[%s]:%u" : "%s:%u", addr,
	         info ? (unsigned)info->port : 0u);
	d->http = h;
	sb_info("dashboard on http://%s/%s", d->http_bound, h->token[0] ? "?token=..." : "");
	return 0;
}

void sbd_http_stop(struct sbd *d)
{
	if (!d->http)
		return;
	MHD_stop_daemon(d->http->mhd);
	free(d->http);
	d->http = NULL;
}
