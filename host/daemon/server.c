/* SPDX-License-Identifier: MIT */
/*
 * The socket and the main loop: a Unix stream socket (mode 0660, group stackbench when it
 * exists), an epoll loop in the main thread over it, the signals, the job processes' channels
 * and a one-second tick; newline-delimited JSON requests and replies. Every peer is checked
 * with SO_PEERCRED; a refused one gets an error reply to each request. Connections are limited
 * in all, per user and by idleness, with slots kept for root (struct sbd_limits). Lines are
 * bounded (SB_DAEMON_LINE_MAX, dropped as they arrive when longer); replies and events queue
 * per client up to a bound: a follower that does not keep up skips events and is told how many
 * ("dropped"), a client whose replies pile up is disconnected. A submit is answered when its
 * check process ends; the client's later requests wait for it, so replies stay in order.
 * Nothing a client sends stops the loop. A client or process taken out of the loop is freed
 * only after the batch of epoll events that may still name it.
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <systemd/sd-daemon.h>

#include "daemon.h"
#include "stackbench/client.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/version.h"

#define OUT_FOLLOW_HIGH (256u * 1024u) /* stop copying events into a follower's queue here */
#define OUT_MAX (8u * 1024u * 1024u)   /* a client whose replies pile up beyond: closed */
#define READ_CHUNK 65536
#define STOP_MARGIN_S 5.0 /* after the grace period, how long a stop waits for job processes */

struct client {
	int watch; /* SBD_WATCH_CLIENT */
	uint64_t id;
	int fd;
	struct sbd_cred cred;
	bool allowed;
	struct sb_linebuf in;
	char *out;
	size_t out_off, out_len, out_cap;
	uint32_t events; /* registered with epoll */
	bool eof;        /* the peer will send nothing more */
	bool follow;
	int64_t follow_job; /* 0: every job */
	uint64_t cursor;    /* next event seq to send */
	bool closing;       /* close once the output is flushed */
	bool dead;          /* dropped: freed after the current batch of epoll events */
	double active;      /* when it last sent something (idle timeout) */
	bool waiting;       /* a submit's reply is pending: later requests wait */
	char **held;        /* lines received while waiting, in order */
	size_t nheld;
	struct client *next;
};

struct sbd_server {
	struct sbd *d;
	int ep;
	unsigned nclients;
	uint64_t next_id;
	struct client *clients;
	/* Dropped clients, freed once the epoll batch that may still name them is done: a
	 * hang-up of a client dropped by pump_all() can be later in the same batch. */
	struct client *dead;
};

/* ---- output ------------------------------------------------------------------------------ */

static int out_append(struct client *c, const char *data, size_t n)
{
	if (c->out_len - c->out_off + n > OUT_MAX)
		return -1;
	if (c->out_off && c->out_off == c->out_len)
		c->out_off = c->out_len = 0;
	if (c->out_len + n > c->out_cap) {
		size_t cap = c->out_cap ? c->out_cap : 4096;
		char *b;

		if (c->out_off) {
			memmove(c->out, c->out + c->out_off, c->out_len - c->out_off);
			c->out_len -= c->out_off;
			c->out_off = 0;
		}
		while (cap < c->out_len + n)
			cap *= 2;
		if (cap != c->out_cap) {
			if (!(b = realloc(c->out, cap)))
				return -1;
			c->out = b;
			c->out_cap = cap;
		}
	}
	memcpy(c->out + c->out_len, data, n);
	c->out_len += n;
	return 0;
}

static void send_line(struct client *c, char *line)
{
	if (!line || out_append(c, line, strlen(line)) < 0)
		c->closing = true;
	free(line);
}

static void send_error(struct client *c, const char *tag, const char *code, const char *msg)
{
	send_line(c, sbd_reply_error(tag, code, msg));
}

char *sbd_reply_ok(const char *tag, cJSON *o)
{
	cJSON *r = cJSON_CreateObject(), *it;
	char *text, *line = NULL;
	size_t n;

	if (r) {
		cJSON_AddNumberToObject(r, "v", SB_DAEMON_API_VERSION);
		if (tag && *tag)
			cJSON_AddStringToObject(r, "tag", tag);
		cJSON_AddTrueToObject(r, "ok");
		while (o && (it = o->child)) {
			cJSON_DetachItemViaPointer(o, it);
			cJSON_AddItemToObject(r, it->string, it);
		}
	}
	cJSON_Delete(o);
	text = r ? cJSON_PrintUnformatted(r) : NULL;
	cJSON_Delete(r);
	if (text && (line = malloc((n = strlen(text)) + 2))) {
		memcpy(line, text, n);
		memcpy(line + n, "\n", 2);
	}
	cJSON_free(text);
	return line ? line : sbd_reply_error(tag, SBD_E_INTERNAL, "out of memory");
}

/* {"v":1,"tag":...,"ok":true, <fields of o>}: o is taken over. */
static void send_ok(struct client *c, const char *tag, cJSON *o)
{
	send_line(c, sbd_reply_ok(tag, o));
}

/* Copy the events a follower has not seen into its queue, up to the high mark: true when
 * events are left for later (the queue reached the mark first). */
static bool pump(struct sbd_server *s, struct client *c)
{
	struct sbd *d = s->d;
	uint64_t oldest, dropped = 0;
	bool left;

	/* A follower behind on reading keeps its place: once it catches up, one notice says
	 * how many events went by meanwhile. */
	if (!c->follow || c->closing)
		return false;
	if (c->out_len - c->out_off >= OUT_FOLLOW_HIGH)
		return true;
	pthread_mutex_lock(&d->mu);
	oldest = sbd_ring_oldest(d);
	if (c->cursor < oldest) {
		dropped = oldest - c->cursor;
		c->cursor = oldest;
	}
	if (dropped) {
		char line[160];
		int n = snprintf(line, sizeof(line),
		                 "{\"v\":%d,\"event\":\"dropped\",\"count\":%" PRIu64
		                 ",\"next_seq\":%" PRIu64 "}\n",
		                 SB_DAEMON_API_VERSION, dropped, c->cursor);

		if (out_append(c, line, (size_t)n) < 0)
			c->closing = true;
	}
	while (!c->closing && c->cursor < d->next_seq &&
	       c->out_len - c->out_off < OUT_FOLLOW_HIGH) {
		const struct sbd_event *e = sbd_ring_get(d, c->cursor++);

		if (!e || (c->follow_job && e->job != c->follow_job))
			continue;
		if (out_append(c, e->json, e->len) < 0 || out_append(c, "\n", 1) < 0)
			c->closing = true;
	}
	left = !c->closing && c->cursor < d->next_seq;
	pthread_mutex_unlock(&d->mu);
	return left;
}

/* ---- requests ---------------------------------------------------------------------------- */

static void do_follow(struct sbd_server *s, struct client *c, const struct sbd_request *r)
{
	struct sbd *d = s->d;
	cJSON *o = cJSON_CreateObject();
	const struct sbd_job *j = NULL;

	pthread_mutex_lock(&d->mu);
	if (r->has_job) {
		for (j = d->jobs; j && j->id != r->job; j = j->next)
			;
		if (!j) {
			pthread_mutex_unlock(&d->mu);
			cJSON_Delete(o);
			send_error(c, r->tag, SBD_E_NOT_FOUND, "no such job");
			return;
		}
	}
	if (o) {
		cJSON_AddNumberToObject(o, "next_seq", (double)d->next_seq);
		if (j)
			cJSON_AddItemToObject(o, "job", sbd_job_json(j));
	}
	c->follow = true;
	d->followers++;
	c->follow_job = r->has_job ? r->job : 0;
	c->cursor = d->next_seq;
	pthread_mutex_unlock(&d->mu);
	send_ok(c, r->tag, o);
}

static void handle_request(struct sbd_server *s, struct client *c, char *line, size_t len)
{
	struct sbd *d = s->d;
	struct sbd_request r;
	const char *code;
	char err[1024];
	cJSON *o;

	if (c->follow) {
		send_error(c, NULL, SBD_E_BAD_REQUEST,
		           "this connection follows events; open another one for requests");
		return;
	}
	code = sbd_request_parse(line, len, &r, err, sizeof(err));
	/* A peer that may not use the daemon hears only that, whatever it sent. */
	if (!c->allowed) {
		snprintf(
		    err, sizeof(err),
		    "user %lu is not allowed to use stackbenchd (root, its own user and members "
		    "of the group '%s' are%s)",
		    (unsigned long)c->cred.uid, d->opt.group,
		    d->can_switch ? "" : ", when it can run their jobs as them");
		code = SBD_E_NOT_PERMITTED;
	}
	if (code) {
		send_error(c, r.tag, code, err);
		sb_dbg("client uid %lu: %s: %s", (unsigned long)c->cred.uid, code, err);
		sbd_request_release(&r);
		if (!c->allowed)
			c->closing = true;
		return;
	}
	switch (r.cmd) {
	case SBD_CMD_HELLO:
		if ((o = cJSON_CreateObject())) {
			cJSON_AddStringToObject(o, "daemon", "stackbenchd");
			cJSON_AddStringToObject(o, "version", sb_version());
			cJSON_AddNumberToObject(o, "api", SB_DAEMON_API_VERSION);
			cJSON_AddNumberToObject(o, "pid", (double)getpid());
		}
		send_ok(c, r.tag, o);
		break;
	case SBD_CMD_SUBMIT:
		/* Answered when its check (a process as the submitter) ends. */
		if ((code = sbd_submit(d, c->id, &c->cred, &r, err, sizeof(err))))
			send_error(c, r.tag, code, err);
		else
			c->waiting = true;
		break;
	case SBD_CMD_QUEUE:
		if ((o = cJSON_CreateObject())) {
			pthread_mutex_lock(&d->mu);
			cJSON_AddItemToObject(o, "jobs", sbd_queue_json(d, r.all));
			pthread_mutex_unlock(&d->mu);
		}
		send_ok(c, r.tag, o);
		break;
	case SBD_CMD_STATUS:
		pthread_mutex_lock(&d->mu);
		o = sbd_status_json(d);
		pthread_mutex_unlock(&d->mu);
		send_ok(c, r.tag, o);
		break;
	case SBD_CMD_FOLLOW:
		do_follow(s, c, &r);
		break;
	case SBD_CMD_DASHBOARD:
		if ((o = cJSON_CreateObject())) {
			char url[512];

			sbd_http_url(d, url, sizeof(url));
			if (url[0])
				cJSON_AddStringToObject(o, "url", url);
			else
				cJSON_AddNullToObject(o, "url");
		}
		send_ok(c, r.tag, o);
		break;
	case SBD_CMD_CANCEL:
	case SBD_CMD_PAUSE:
	case SBD_CMD_RESUME:
		if ((code = sbd_control(d, &c->cred, r.cmd, r.job, err, sizeof(err)))) {
			send_error(c, r.tag, code, err);
			break;
		}
		if ((o = cJSON_CreateObject())) {
			pthread_mutex_lock(&d->mu);
			for (struct sbd_job *j = d->jobs; j; j = j->next)
				if (j->id == r.job)
					cJSON_AddItemToObject(o, "job", sbd_job_json(j));
			pthread_mutex_unlock(&d->mu);
		}
		send_ok(c, r.tag, o);
		sbd_schedule(d);
		break;
	default:
		send_error(c, r.tag, SBD_E_UNKNOWN_COMMAND, "unknown command");
	}
	sbd_request_release(&r);
}

/* A complete line: handled now, or held while a submit of the client waits for its check. */
static void take_line(struct sbd_server *s, struct client *c, char *line, size_t len)
{
	char **h, *copy;

	if (!c->waiting) {
		handle_request(s, c, line, len);
		return;
	}
	if (!(copy = malloc(len + 1)) || !(h = realloc(c->held, (c->nheld + 1) * sizeof(*h)))) {
		free(copy);
		c->closing = true;
		return;
	}
	memcpy(copy, line, len + 1);
	c->held = h;
	c->held[c->nheld++] = copy;
}

/* The held lines, in order, until one waits again. */
static void run_held(struct sbd_server *s, struct client *c)
{
	size_t i = 0;

	while (i < c->nheld && !c->waiting && !c->closing && !c->dead) {
		char *line = c->held[i++];

		handle_request(s, c, line, strlen(line));
		free(line);
	}
	if (i) {
		memmove(c->held, c->held + i, (c->nheld - i) * sizeof(*c->held));
		c->nheld -= i;
	}
}

struct feed_ctx {
	struct sbd_server *s;
	struct client *c;
};

static int on_line(void *ctx, char *line, size_t len, int err)
{
	struct feed_ctx *f = ctx;
	char msg[96];

	if (err == SB_ERR_RANGE) {
		snprintf(msg, sizeof(msg), "request line longer than %u bytes (dropped)",
		         SB_DAEMON_LINE_MAX);
		send_error(f->c, NULL, SBD_E_TOO_LONG, msg);
		return 0;
	}
	if (len == 0)
		return 0; /* blank lines are ignored */
	take_line(f->s, f->c, line, len);
	/* A refused peer gets one reply, then the connection ends. */
	return f->c->closing ? -1 : 0;
}

/* ---- connections ------------------------------------------------------------------------- */

static void get_cred(int fd, struct sbd_cred *c)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	gid_t groups[SBD_MAX_GROUPS];

	memset(c, 0, sizeof(*c));
	c->uid = (uid_t)-1;
	c->gid = (gid_t)-1;
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == 0) {
		c->pid = uc.pid;
		c->uid = uc.uid;
		c->gid = uc.gid;
	}
	len = sizeof(groups);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERGROUPS, groups, &len) == 0) {
		c->ngroups = len / sizeof(gid_t);
		memcpy(c->groups, groups, c->ngroups * sizeof(gid_t));
	}
	/* More groups than we keep (ERANGE): the primary group and membership by name only. */
}

static void update_events(struct sbd_server *s, struct client *c)
{
	bool want = c->out_len > c->out_off, in = !c->closing && !c->eof;
	uint32_t events = (in ? EPOLLIN : 0) | (want ? EPOLLOUT : 0);
	struct epoll_event ev = {.events = events, .data.ptr = c};

	if (events != c->events && epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0)
		c->events = events;
}

/*
 * Take a client out of the loop: its socket is closed at once, its memory only by
 * free_dead() after the current batch of events (which may hold another event for it).
 */
static void drop_client(struct sbd_server *s, struct client *c)
{
	if (c->dead)
		return;
	for (struct client **pp = &s->clients; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			break;
		}
	if (c->follow) {
		pthread_mutex_lock(&s->d->mu);
		s->d->followers--;
		pthread_mutex_unlock(&s->d->mu);
	}
	epoll_ctl(s->ep, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	c->fd = -1;
	c->dead = true;
	c->next = s->dead;
	s->dead = c;
	s->nclients--;
}

static void free_dead(struct sbd_server *s)
{
	while (s->dead) {
		struct client *c = s->dead;

		s->dead = c->next;
		for (size_t i = 0; i < c->nheld; i++)
			free(c->held[i]);
		free(c->held);
		sb_linebuf_release(&c->in);
		free(c->out);
		free(c);
	}
}

/* Refuse a connection with one error line (why), then close it. */
static void refuse(int fd, const char *msg)
{
	char *line = sbd_reply_error(NULL, SBD_E_BUSY, msg);

	if (line && send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
		sb_dbg("a refused client went away");
	free(line);
	close(fd);
}

/* Whether a new connection of cred fits the limits; else why not in msg. */
static bool fits(struct sbd_server *s, const struct sbd_cred *cred, char *msg, size_t size)
{
	const struct sbd_limits *l = &s->d->opt.limits;
	unsigned mine = 0;

	for (struct client *c = s->clients; c; c = c->next)
		mine += c->cred.uid == cred->uid;
	if (s->nclients >= l->clients) {
		snprintf(msg, size, "too many clients (%u); try again", s->nclients);
		return false;
	}
	if (cred->uid == 0)
		return true;
	if (s->nclients + l->root_reserved >= l->clients) {
		snprintf(msg, size, "too many clients; the last %u connections are kept for root",
		         l->root_reserved);
		return false;
	}
	if (mine >= l->clients_per_user) {
		snprintf(msg, size,
		         "user %lu has %u connections open (the limit per user, --limit "
		         "clients-per-user)",
		         (unsigned long)cred->uid, mine);
		return false;
	}
	return true;
}

static void accept_clients(struct sbd_server *s, int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = {.events = EPOLLIN};
		struct sbd_cred cred;
		struct client *c;
		char msg[160];

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				sb_warn("accept on '%s': %s", s->d->opt.socket_path,
				        strerror(errno));
			return;
		}
		get_cred(fd, &cred);
		if (!fits(s, &cred, msg, sizeof(msg))) {
			sb_dbg("refusing a connection of user %lu: %s", (unsigned long)cred.uid,
			       msg);
			refuse(fd, msg);
			continue;
		}
		if (!(c = calloc(1, sizeof(*c)))) {
			refuse(fd, "out of memory");
			continue;
		}
		c->watch = SBD_WATCH_CLIENT;
		c->id = ++s->next_id;
		c->fd = fd;
		c->events = EPOLLIN;
		c->cred = cred;
		c->active = sbd_now();
		c->allowed = sbd_peer_allowed(s->d, &c->cred);
		if (!c->allowed)
			sb_info("refusing requests of user %lu (PID %ld) on '%s'",
			        (unsigned long)c->cred.uid, (long)c->cred.pid,
			        s->d->opt.socket_path);
		sb_linebuf_init(&c->in, SB_DAEMON_LINE_MAX);
		ev.data.ptr = c;
		if (epoll_ctl(s->ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
			close(fd);
			free(c);
			continue;
		}
		c->next = s->clients;
		s->clients = c;
		s->nclients++;
	}
}

/* Read what is there; false on an error (the client is gone). */
static bool client_read(struct sbd_server *s, struct client *c)
{
	char buf[READ_CHUNK];
	struct feed_ctx f = {s, c};

	/* Bounded per wake-up, so one fast sender does not starve the others; nothing is read
	 * while a submit waits (its lines are held). */
	for (int rounds = 0; rounds < 16 && !c->closing && !c->eof && !c->waiting; rounds++) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n == 0) {
			/* The peer sent all it will: answer what it asked, then close. */
			c->eof = true;
			break;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
		c->active = sbd_now();
		if (sb_linebuf_feed(&c->in, buf, (size_t)n, on_line, &f) < 0 && !c->closing)
			return false;
	}
	return true;
}

/* Write what is queued: < 0 when the client is gone or done, 0 otherwise. */
static int client_write(struct client *c)
{
	while (c->out_len > c->out_off) {
		ssize_t n = send(c->fd, c->out + c->out_off, c->out_len - c->out_off,
		                 MSG_NOSIGNAL | MSG_DONTWAIT);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->out_off += (size_t)n;
	}
	c->out_off = c->out_len = 0;
	/* Done: closing, or the peer hung up and is no follower (nothing more will come) and
	 * waits for no reply. */
	return c->closing || (c->eof && !c->follow && !c->waiting && !c->nheld) ? -1 : 0;
}

/* Top up a follower and write until the kernel takes no more: < 0 when the client is gone.
 * A queue the kernel took whole is topped up again at once: after a follower stalled, no new
 * event may come to do it (the campaign has ended), and its notice and events would wait
 * forever. */
static int feed(struct sbd_server *s, struct client *c)
{
	bool left;

	do {
		left = pump(s, c);
		if (client_write(c) < 0)
			return -1;
	} while (left && c->out_len == c->out_off);
	return 0;
}

static void flush_client(struct sbd_server *s, struct client *c)
{
	if (feed(s, c) < 0) {
		drop_client(s, c);
		return;
	}
	/* While a submit waits, its socket is not read (the kernel holds what comes). */
	if (c->waiting && (c->events & EPOLLIN)) {
		struct epoll_event ev = {.events = c->out_len > c->out_off ? EPOLLOUT : 0,
		                         .data.ptr = c};

		if (epoll_ctl(s->ep, EPOLL_CTL_MOD, c->fd, &ev) == 0)
			c->events = ev.events;
		return;
	}
	if (!c->waiting)
		update_events(s, c);
}

static void serve_client(struct sbd_server *s, struct client *c, uint32_t events)
{
	if (c->dead)
		return;
	/* Gone while its submit is checked: the job is queued all the same, unanswered. */
	if (c->waiting && (events & (EPOLLHUP | EPOLLERR))) {
		drop_client(s, c);
		return;
	}
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !client_read(s, c)) {
		drop_client(s, c);
		return;
	}
	if ((events & EPOLLERR) || (c->eof && c->follow && (events & EPOLLHUP))) {
		drop_client(s, c);
		return;
	}
	flush_client(s, c);
}

void sbd_server_reply(struct sbd *d, uint64_t id, char *line)
{
	struct sbd_server *s = d->server;
	struct client *c;

	for (c = s ? s->clients : NULL; c && c->id != id; c = c->next)
		;
	if (!c || c->dead) {
		free(line);
		return;
	}
	send_line(c, line);
	c->waiting = false;
	c->active = sbd_now();
	run_held(s, c);
	/* Input the kernel held meanwhile. */
	if (!c->waiting && !c->closing && !c->eof && !client_read(s, c)) {
		drop_client(s, c);
		return;
	}
	flush_client(s, c);
}

/* New events: top up every follower. */
static void pump_all(struct sbd_server *s)
{
	for (struct client *c = s->clients, *next; c; c = next) {
		next = c->next;
		if (!c->follow)
			continue;
		if (feed(s, c) < 0)
			drop_client(s, c);
		else
			update_events(s, c);
	}
}

/* Connections that asked nothing for the idle time are closed (followers and clients that
 * wait for a reply are not idle). */
static void close_idle(struct sbd_server *s)
{
	unsigned idle = s->d->opt.limits.idle_s;
	double now = sbd_now();
	char msg[96];

	if (!idle)
		return;
	for (struct client *c = s->clients, *next; c; c = next) {
		next = c->next;
		if (c->follow || c->waiting || c->closing || now - c->active < idle)
			continue;
		snprintf(msg, sizeof(msg), "idle for %u s: closed (--limit idle-s)", idle);
		send_error(c, NULL, SBD_E_TIMEOUT, msg);
		c->closing = true;
		flush_client(s, c);
	}
}

static void notify_status(struct sbd *d)
{
	unsigned running = 0, queued = 0;

	pthread_mutex_lock(&d->mu);
	for (struct sbd_job *j = d->jobs; j; j = j->next) {
		running += j->state == SBD_RUNNING;
		queued += j->state == SBD_QUEUED;
	}
	pthread_mutex_unlock(&d->mu);
	sd_notifyf(0, "STATUS=%u job%s running, %u queued, %u board%s", running,
	           running == 1 ? "" : "s", queued, d->nboards, d->nboards == 1 ? "" : "s");
}

int sbd_server_watch(struct sbd *d, int fd, struct sbd_proc *p, uint32_t events)
{
	struct epoll_event ev = {.events = events, .data.ptr = p};

	if (epoll_ctl(d->server->ep, EPOLL_CTL_MOD, fd, &ev) == 0 ||
	    (errno == ENOENT && epoll_ctl(d->server->ep, EPOLL_CTL_ADD, fd, &ev) == 0))
		return 0;
	return sb_error_set(SB_ERR_IO, "epoll: %s", strerror(errno));
}

void sbd_server_unwatch(struct sbd *d, int fd)
{
	epoll_ctl(d->server->ep, EPOLL_CTL_DEL, fd, NULL);
}

int sbd_server_listen(struct sbd *d, int *out)
{
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	const char *path = d->opt.socket_path;
	mode_t old;
	int fd, e;

	if (strlen(path) >= sizeof(sa.sun_path))
		return sb_error_set(SB_ERR_RANGE, "socket path '%s' is too long", path);
	memcpy(sa.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
		return sb_error_set(SB_ERR_IO, "socket: %s", strerror(errno));
	/* A socket file left by a daemon that died is removed; a live daemon's is not. */
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0) {
		close(fd);
		return sb_error_set(SB_ERR_BUSY, "another stackbenchd is serving '%s'", path);
	}
	if (unlink(path) < 0 && errno != ENOENT) {
		e = sb_error_set(SB_ERR_IO, "cannot remove the old socket '%s': %s", path,
		                 strerror(errno));
		goto fail;
	}
	/* Created 0660 (never briefly wider), then given to the group. */
	old = umask(0117);
	e = bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	umask(old);
	if (e < 0) {
		e = sb_error_set(SB_ERR_IO, "cannot bind '%s': %s", path, strerror(errno));
		goto fail;
	}
	if (d->have_group && chown(path, (uid_t)-1, d->group_gid) < 0)
		sb_warn("cannot give '%s' to the group '%s': %s", path, d->opt.group,
		        strerror(errno));
	if (chmod(path, 0660) < 0)
		sb_warn("cannot make '%s' mode 0660: %s", path, strerror(errno));
	if (listen(fd, 64) < 0) {
		e = sb_error_set(SB_ERR_IO, "cannot listen on '%s': %s", path, strerror(errno));
		goto fail;
	}
	*out = fd;
	return 0;
fail:
	close(fd);
	return e;
}

int sbd_server_run(struct sbd *d, int lfd, int sfd)
{
	struct sbd_server s = {.d = d};
	struct epoll_event ev = {.events = EPOLLIN};
	double last_tick = 0, stop_by = 0;
	bool stopping = false;

	if ((s.ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return sb_error_set(SB_ERR_IO, "epoll: %s", strerror(errno));
	d->server = &s;
	ev.data.ptr = &lfd;
	epoll_ctl(s.ep, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.ptr = &sfd;
	epoll_ctl(s.ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.ptr = &d->wake_fd;
	epoll_ctl(s.ep, EPOLL_CTL_ADD, d->wake_fd, &ev);
	sbd_check_loaded(d);
	sbd_schedule(d);
	notify_status(d);
	/* Stopping: the job processes are told to stop; the loop runs on (their last points
	 * end and are saved as resumable) until they are gone or the grace period is over. */
	while (!stopping || (d->nprocs && sbd_now() < stop_by)) {
		struct epoll_event evs[64];
		int n = epoll_wait(s.ep, evs, 64, 1000);

		if (n < 0 && errno != EINTR) {
			sb_err("epoll_wait: %s", strerror(errno));
			break;
		}
		for (int i = 0; i < n; i++) {
			void *p = evs[i].data.ptr;

			if (p == &lfd) {
				accept_clients(&s, lfd);
			} else if (p == &sfd) {
				struct signalfd_siginfo si;

				while (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					if (si.ssi_signo == SIGCHLD) {
						sbd_proc_reap(d);
						continue;
					}
					if (stopping)
						continue;
					sb_info(
					    "signal %u: stopping (running points stay resumable)",
					    si.ssi_signo);
					sd_notify(0,
					          "STOPPING=1\nSTATUS=stopping: the running points "
					          "end with their current sample");
					stopping = true;
					stop_by = sbd_now() + d->opt.limits.grace_s + STOP_MARGIN_S;
					epoll_ctl(s.ep, EPOLL_CTL_DEL, lfd, NULL);
					sbd_stop_all(d);
				}
			} else if (p == &d->wake_fd) {
				uint64_t v;

				if (read(d->wake_fd, &v, sizeof(v)) < 0) {
					/* Nothing pending: a spurious wake-up. */
				}
				pthread_mutex_lock(&d->mu);
				d->wake_pending = false;
				pthread_mutex_unlock(&d->mu);
				sbd_web_pump(d);
				pump_all(&s);
			} else if (*(const int *)p == SBD_WATCH_PROC) {
				sbd_proc_io(d, p, evs[i].events);
			} else {
				serve_client(&s, p, evs[i].events);
			}
		}
		free_dead(&s);
		sbd_proc_free_dead();
		if (sbd_now() - last_tick >= 1.0) {
			last_tick = sbd_now();
			sbd_tick(d);
			close_idle(&s);
			notify_status(d);
			free_dead(&s);
			sbd_proc_free_dead();
		}
	}
	if (d->nprocs)
		sb_warn("%u job process%s still running at the end of the grace period", d->nprocs,
		        d->nprocs == 1 ? "" : "es");
	while (s.clients)
		drop_client(&s, s.clients);
	free_dead(&s);
	d->server = NULL;
	close(s.ep);
	return 0;
}
