/* SPDX-License-Identifier: MIT */
/*
 * The socket: a Unix stream socket (mode 0660, group stackbench when it exists), an epoll
 * loop in the main thread, newline-delimited JSON requests and replies. Every peer is checked
 * with SO_PEERCRED; a refused one gets an error reply to each request. Lines are bounded
 * (SB_DAEMON_LINE_MAX, dropped as they arrive when longer); replies and events queue per
 * client up to a bound: a follower that does not keep up skips events and is told how many
 * ("dropped"), a client whose replies pile up is disconnected. Nothing a client sends stops
 * the loop.
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

struct client {
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
	struct client *next;
};

struct server {
	struct sbd *d;
	int ep;
	unsigned nclients;
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

/* {"v":1,"tag":...,"ok":true, <fields of o>}: o is taken over. */
static void send_ok(struct client *c, const char *tag, cJSON *o)
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
	if (!line) {
		send_error(c, tag, SBD_E_INTERNAL, "out of memory");
		return;
	}
	send_line(c, line);
}

/* Copy the events a follower has not seen into its queue, up to the high mark. */
static void pump(struct server *s, struct client *c)
{
	struct sbd *d = s->d;
	uint64_t oldest, dropped = 0;

	/* A follower behind on reading keeps its place: once it catches up, one notice says
	 * how many events went by meanwhile. */
	if (!c->follow || c->closing || c->out_len - c->out_off >= OUT_FOLLOW_HIGH)
		return;
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
	pthread_mutex_unlock(&d->mu);
}

/* ---- requests ---------------------------------------------------------------------------- */

static void do_follow(struct server *s, struct client *c, const struct sbd_request *r)
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

static void handle_request(struct server *s, struct client *c, char *line, size_t len)
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
		    "of the group '%s' are)",
		    (unsigned long)c->cred.uid, d->opt.group);
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
	case SBD_CMD_SUBMIT: {
		struct sbd_job *j = sbd_submit(d, &c->cred, &r, &code, err, sizeof(err));

		if (!j) {
			send_error(c, r.tag, code, err);
			break;
		}
		if ((o = cJSON_CreateObject())) {
			pthread_mutex_lock(&d->mu);
			cJSON_AddItemToObject(o, "job", sbd_job_json(j));
			pthread_mutex_unlock(&d->mu);
		}
		send_ok(c, r.tag, o);
		sbd_schedule(d);
		break;
	}
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

struct feed_ctx {
	struct server *s;
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
	handle_request(f->s, f->c, line, len);
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

static void update_events(struct server *s, struct client *c)
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
static void drop_client(struct server *s, struct client *c)
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

static void free_dead(struct server *s)
{
	while (s->dead) {
		struct client *c = s->dead;

		s->dead = c->next;
		sb_linebuf_release(&c->in);
		free(c->out);
		free(c);
	}
}

static void accept_clients(struct server *s, int lfd)
{
	for (;;) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct epoll_event ev = {.events = EPOLLIN};
		struct client *c;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				sb_warn("accept on '%s': %s", s->d->opt.socket_path,
				        strerror(errno));
			return;
		}
		if (s->nclients >= SBD_MAX_CLIENTS || !(c = calloc(1, sizeof(*c)))) {
			char *line =
			    sbd_reply_error(NULL, SBD_E_BUSY, "too many clients; try again");

			if (line && send(fd, line, strlen(line), MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
				sb_dbg("a refused client went away");
			free(line);
			close(fd);
			continue;
		}
		c->fd = fd;
		c->events = EPOLLIN;
		get_cred(fd, &c->cred);
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
static bool client_read(struct server *s, struct client *c)
{
	char buf[READ_CHUNK];
	struct feed_ctx f = {s, c};

	/* Bounded per wake-up, so one fast sender does not starve the others. */
	for (int rounds = 0; rounds < 16 && !c->closing && !c->eof; rounds++) {
		ssize_t n = recv(c->fd, buf, sizeof(buf), 0);

		if (n == 0) {
			/* The peer sent all it will: answer what it asked, then close. */
			c->eof = true;
			break;
		}
		if (n < 0)
			return errno == EAGAIN || errno == EINTR;
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
	/* Done: closing, or the peer hung up and is no follower (nothing more will come). */
	return c->closing || (c->eof && !c->follow) ? -1 : 0;
}

static void serve_client(struct server *s, struct client *c, uint32_t events)
{
	if (c->dead)
		return;
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !client_read(s, c)) {
		drop_client(s, c);
		return;
	}
	if ((events & EPOLLERR) || (c->eof && c->follow && (events & EPOLLHUP))) {
		drop_client(s, c);
		return;
	}
	pump(s, c);
	if (client_write(c) < 0) {
		drop_client(s, c);
		return;
	}
	update_events(s, c);
}

/* New events: top up every follower. */
static void pump_all(struct server *s)
{
	for (struct client *c = s->clients, *next; c; c = next) {
		next = c->next;
		if (!c->follow)
			continue;
		pump(s, c);
		if (client_write(c) < 0)
			drop_client(s, c);
		else
			update_events(s, c);
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
	struct server s = {.d = d};
	struct epoll_event ev = {.events = EPOLLIN};
	bool running = true;

	if ((s.ep = epoll_create1(EPOLL_CLOEXEC)) < 0)
		return sb_error_set(SB_ERR_IO, "epoll: %s", strerror(errno));
	ev.data.ptr = &lfd;
	epoll_ctl(s.ep, EPOLL_CTL_ADD, lfd, &ev);
	ev.data.ptr = &sfd;
	epoll_ctl(s.ep, EPOLL_CTL_ADD, sfd, &ev);
	ev.data.ptr = &d->wake_fd;
	epoll_ctl(s.ep, EPOLL_CTL_ADD, d->wake_fd, &ev);
	sbd_schedule(d);
	notify_status(d);
	while (running) {
		struct epoll_event evs[64];
		int n = epoll_wait(s.ep, evs, 64, -1);

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

				if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					sb_info(
					    "signal %u: stopping (running points stay resumable)",
					    si.ssi_signo);
					running = false;
				}
			} else if (p == &d->wake_fd) {
				uint64_t v;

				if (read(d->wake_fd, &v, sizeof(v)) < 0) {
					/* Nothing pending: a spurious wake-up. */
				}
				pthread_mutex_lock(&d->mu);
				d->wake_pending = false;
				pthread_mutex_unlock(&d->mu);
				if (sbd_reap(d)) {
					sbd_schedule(d);
					notify_status(d);
				}
				pump_all(&s);
			} else {
				serve_client(&s, p, evs[i].events);
			}
		}
		free_dead(&s);
	}
	sd_notify(0, "STOPPING=1\nSTATUS=stopping: the running points end with their "
	             "current sample");
	while (s.clients)
		drop_client(&s, s.clients);
	free_dead(&s);
	close(s.ep);
	return 0;
}
