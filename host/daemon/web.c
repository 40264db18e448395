/* SPDX-License-Identifier: MIT */
/*
 * The dashboard's actions (pause, resume, cancel from the page), what http.c asks before it
 * runs one:
 *   - sessions: a random session id (an HttpOnly, SameSite=Strict cookie) and its CSRF token,
 *     made only for a request that carried the dashboard's token, bound to the user on the
 *     other end of the connection, kept in memory (they die with the daemon and its token);
 *   - same origin: Sec-Fetch-Site (when the browser sends it) must be "same-origin", Origin
 *     (else Referer) must name the dashboard itself;
 *   - who acts: the owner of the peer socket (loopback only; the kernel says, peer.c), with
 *     the groups the user database gives;
 *   - the action itself runs on the main thread (the only one that changes jobs): the request
 *     is handed over (sbd_web_pump) and its answer waited for.
 * The rules are the socket's: sbd_peer_allowed, then sbd_control (a user manages their own
 * jobs; root and the daemon's user any).
 */
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "daemon.h"
#include "stackbench/error.h"

#define SESSIONS 128       /* sessions kept */
#define SESSIONS_PER_UID 8 /* of one user (a new one replaces their oldest) */
#define SESSION_S 43200.0  /* a session's life (12 h) */
#define ACTION_WAIT_S 10   /* the main loop answers an action within this */

struct session {
	bool used;
	uid_t uid;
	double created;
	char id[SBD_WEB_SESSION_LEN + 1];
	char csrf[SBD_WEB_CSRF_LEN + 1];
};

static struct session sessions[SESSIONS];
static pthread_mutex_t smu = PTHREAD_MUTEX_INITIALIZER;

bool sbd_web_same_secret(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = (unsigned char)(la != lb);

	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return !diff && lb;
}

static int random_hex(char *out, size_t nhex)
{
	unsigned char r[64];
	static const char hex[] = "0123456789abcdef";

	if (nhex / 2 > sizeof(r) || getrandom(r, nhex / 2, 0) != (ssize_t)(nhex / 2))
		return sb_error_set(SB_ERR_IO, "getrandom: %s", strerror(errno));
	for (size_t i = 0; i < nhex / 2; i++) {
		out[2 * i] = hex[r[i] >> 4];
		out[2 * i + 1] = hex[r[i] & 15];
	}
	out[nhex] = '\0';
	return 0;
}

int sbd_web_session(const char *cookie, uid_t uid, char *id, char *csrf)
{
	struct session *s = NULL, *oldest_uid = NULL, *oldest = NULL, *free_slot = NULL;
	double now = sbd_now();
	unsigned of_uid = 0;
	int e = 0;

	pthread_mutex_lock(&smu);
	for (unsigned i = 0; i < SESSIONS; i++) {
		struct session *x = &sessions[i];

		if (x->used && now - x->created > SESSION_S)
			x->used = false;
		if (!x->used) {
			if (!free_slot)
				free_slot = x;
			continue;
		}
		if (cookie && x->uid == uid && sbd_web_same_secret(cookie, x->id))
			s = x;
		if (x->uid == uid) {
			of_uid++;
			if (!oldest_uid || x->created < oldest_uid->created)
				oldest_uid = x;
		}
		if (!oldest || x->created < oldest->created)
			oldest = x;
	}
	if (!s) {
		s = of_uid >= SESSIONS_PER_UID ? oldest_uid : free_slot ? free_slot : oldest;
		if ((e = random_hex(s->id, SBD_WEB_SESSION_LEN)) == 0 &&
		    (e = random_hex(s->csrf, SBD_WEB_CSRF_LEN)) == 0) {
			s->used = true;
			s->uid = uid;
			s->created = now;
		} else {
			s->used = false;
		}
	}
	if (!e) {
		memcpy(id, s->id, SBD_WEB_SESSION_LEN + 1);
		memcpy(csrf, s->csrf, SBD_WEB_CSRF_LEN + 1);
	}
	pthread_mutex_unlock(&smu);
	return e;
}

const char *sbd_web_csrf_check(const char *cookie, const char *csrf, uid_t uid)
{
	const char *why = "the CSRF token does not match this session (reload the page)";
	double now = sbd_now();

	if (!cookie)
		return "no session: load the page (or GET /api/session) first, with its cookie";
	if (!csrf || !csrf[0])
		return "no CSRF token (the X-CSRF-Token header; GET /api/session gives it)";
	pthread_mutex_lock(&smu);
	for (unsigned i = 0; i < SESSIONS; i++) {
		struct session *x = &sessions[i];

		if (!x->used || now - x->created > SESSION_S || !sbd_web_same_secret(cookie, x->id))
			continue;
		if (x->uid != uid)
			why = "this session belongs to another user";
		else if (sbd_web_same_secret(csrf, x->csrf))
			why = NULL;
		break;
	}
	pthread_mutex_unlock(&smu);
	return why;
}

const char *sbd_web_same_origin(const char *host, const char *origin, const char *referer,
                                const char *fetch_site, char *why, size_t size)
{
	char self[300];
	size_t n;

	if (!host || !host[0] || strlen(host) > 255) {
		snprintf(why, size, "no Host header");
		return why;
	}
	n = (size_t)snprintf(self, sizeof(self), "http://%s", host);
	if (fetch_site && strcmp(fetch_site, "same-origin")) {
		snprintf(why, size, "cross-origin request refused (Sec-Fetch-Site: %.40s)",
		         fetch_site);
		return why;
	}
	if (origin) {
		if (strcmp(origin, self)) {
			snprintf(
			    why, size,
			    "cross-origin request refused (Origin %.200s is not this dashboard, "
			    "%s)",
			    origin, self);
			return why;
		}
		return NULL;
	}
	if (referer) {
		if (strncmp(referer, self, n) || referer[n] != '/') {
			snprintf(why, size,
			         "cross-origin request refused (Referer is not this dashboard, %s)",
			         self);
			return why;
		}
		return NULL;
	}
	snprintf(why, size, "a request that acts must name its origin (an Origin header)");
	return why;
}

int sbd_web_cred(uid_t uid, struct sbd_cred *c)
{
	struct passwd pw, *res = NULL;
	char buf[16384];
	int n = SBD_MAX_GROUPS;

	memset(c, 0, sizeof(*c));
	c->uid = uid;
	c->gid = (gid_t)-1;
	if (getpwuid_r(uid, &pw, buf, sizeof(buf), &res) != 0 || !res)
		return 0; /* known by number only: no groups (the socket serves them) */
	c->gid = pw.pw_gid;
	if (getgrouplist(pw.pw_name, pw.pw_gid, c->groups, &n) < 0)
		n = SBD_MAX_GROUPS;
	c->ngroups = (unsigned)n;
	return 0;
}

/* ---- actions, done by the main thread ---------------------------------------------------- */

struct webreq {
	bool report; /* a report to make (nobody waits for the request itself) */
	struct sbd_cred cred;
	enum sbd_cmd cmd;
	int64_t id;
	bool taken, done, abandoned;
	const char *code;
	char err[512];
	char *job_json;
	struct webreq *next;
};

static struct webreq *inbox;
static pthread_mutex_t wmu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t wcond = PTHREAD_COND_INITIALIZER;

const char *sbd_web_action(struct sbd *d, const struct sbd_cred *cred, enum sbd_cmd cmd, int64_t id,
                           char *err, size_t errsize, char **job_json)
{
	struct webreq *r = calloc(1, sizeof(*r));
	struct timespec until;
	const char *code;

	*job_json = NULL;
	if (!r) {
		snprintf(err, errsize, "out of memory");
		return SBD_E_INTERNAL;
	}
	r->cred = *cred;
	r->cmd = cmd;
	r->id = id;
	pthread_mutex_lock(&wmu);
	r->next = inbox;
	inbox = r;
	pthread_mutex_unlock(&wmu);
	sbd_wake(d);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += ACTION_WAIT_S;
	pthread_mutex_lock(&wmu);
	while (!r->done)
		if (pthread_cond_timedwait(&wcond, &wmu, &until) == ETIMEDOUT)
			break;
	if (!r->done) {
		/* The main loop frees it when it gets to it; if it never took it, take it back. */
		if (!r->taken) {
			for (struct webreq **p = &inbox; *p; p = &(*p)->next)
				if (*p == r) {
					*p = r->next;
					break;
				}
			free(r);
		} else {
			r->abandoned = true;
		}
		pthread_mutex_unlock(&wmu);
		snprintf(err, errsize, "the daemon did not answer within %d s", ACTION_WAIT_S);
		return SBD_E_TIMEOUT;
	}
	pthread_mutex_unlock(&wmu);
	code = r->code;
	snprintf(err, errsize, "%s", r->err);
	*job_json = r->job_json;
	free(r);
	return code;
}

/* ---- finished jobs' reports ----------------------------------------------------------------- */

#define REPORTS_KEPT 8      /* reports kept in memory (the least recently used goes) */
#define REPORT_WAIT_S 150   /* a request waits this long for its report */
#define REPORT_RETRY_S 30.0 /* a failed report is made again after this */

struct report {
	int64_t job; /* 0: free */
	bool pending, ok;
	double made, used;
	char message[512];
	struct sbd_report_file *files;
	unsigned nfiles;
};

static struct report reports[REPORTS_KEPT];

static void report_clear(struct report *r)
{
	for (unsigned i = 0; i < r->nfiles; i++)
		free(r->files[i].data);
	free(r->files);
	memset(r, 0, sizeof(*r));
}

static struct report *report_find(int64_t id)
{
	for (unsigned i = 0; i < REPORTS_KEPT; i++)
		if (reports[i].job == id)
			return &reports[i];
	return NULL;
}

/* Main thread: start the report process of job id (a failure is the report's). */
static void start_report(struct sbd *d, int64_t id)
{
	struct sbd_job *j;
	int e = SB_ERR_NOT_FOUND;

	pthread_mutex_lock(&d->mu);
	for (j = d->jobs; j && j->id != id; j = j->next)
		;
	pthread_mutex_unlock(&d->mu);
	/* The main thread alone changes the jobs: j stays while this runs. */
	if (!j || (e = sbd_proc_report(d, j)) < 0)
		sbd_web_report_done(id, false,
		                    j ? sb_error_detail() : "the job is no longer kept in memory",
		                    NULL, 0);
	sb_error_clear();
}

void sbd_web_report_done(int64_t id, bool ok, const char *message, struct sbd_report_file *files,
                         unsigned nfiles)
{
	struct report *r;

	pthread_mutex_lock(&wmu);
	if ((r = report_find(id)) && r->pending) {
		r->pending = false;
		r->ok = ok;
		r->made = sbd_now();
		snprintf(r->message, sizeof(r->message), "%s", message ? message : "");
		if (ok) {
			r->files = files;
			r->nfiles = nfiles;
			files = NULL;
			nfiles = 0;
		}
	}
	pthread_cond_broadcast(&wcond);
	pthread_mutex_unlock(&wmu);
	for (unsigned i = 0; i < nfiles; i++)
		free(files[i].data);
	free(files);
}

/* The answer from a made report (caller holds wmu). */
static unsigned report_answer(const struct report *r, const char *name, char **data, size_t *len,
                              char *err, size_t errsize)
{
	if (!r->ok) {
		snprintf(err, errsize, "no report: %s", r->message);
		return 500;
	}
	if (!name) {
		cJSON *o = cJSON_CreateObject(), *a;

		cJSON_AddBoolToObject(o, "ok", true);
		cJSON_AddNumberToObject(o, "job", (double)r->job);
		a = cJSON_AddArrayToObject(o, "figures");
		for (unsigned i = 0; i < r->nfiles; i++)
			if (strcmp(r->files[i].name, "report.html"))
				cJSON_AddItemToArray(a, cJSON_CreateString(r->files[i].name));
		*data = cJSON_PrintUnformatted(o);
		cJSON_Delete(o);
		*len = *data ? strlen(*data) : 0;
		return *data ? 200 : 500;
	}
	for (unsigned i = 0; i < r->nfiles; i++)
		if (!strcmp(r->files[i].name, name)) {
			if (!(*data = malloc(r->files[i].len ? r->files[i].len : 1)))
				return 500;
			memcpy(*data, r->files[i].data, r->files[i].len);
			*len = r->files[i].len;
			return 200;
		}
	snprintf(err, errsize, "the report of job %" PRId64 " has no '%s'", r->job, name);
	return 404;
}

unsigned sbd_web_report_file(struct sbd *d, const struct sbd_cred *who, int64_t id,
                             const char *name, char **data, size_t *len, char *err, size_t errsize)
{
	struct timespec until;
	struct sbd_job *j;
	struct report *r;
	unsigned status = 0;
	double now = sbd_now();

	*data = NULL;
	*len = 0;
	pthread_mutex_lock(&d->mu);
	for (j = d->jobs; j && j->id != id; j = j->next)
		;
	if (!j) {
		snprintf(err, errsize,
		         "no job %" PRId64 " (the daemon keeps the latest %d finished)", id,
		         SBD_KEEP_IN_MEMORY);
		status = 404;
	} else if (!sbd_peer_allowed(d, who) ||
	           (who->uid != 0 && who->uid != geteuid() && who->uid != j->owner.uid)) {
		snprintf(err, errsize,
		         "job %" PRId64
		         " belongs to user %lu; only they, root and the daemon's user "
		         "may see its report (it is made with their rights, from their database)",
		         id, (unsigned long)j->owner.uid);
		status = 403;
	} else if (!sbd_job_finished(j->state)) {
		snprintf(err, errsize,
		         "job %" PRId64 " is %s: its report is made when it has ended", id,
		         sbd_job_state_name(j->state));
		status = 409;
	} else if (j->campaign_id <= 0) {
		snprintf(err, errsize, "job %" PRId64 " stored no campaign", id);
		status = 404;
	}
	pthread_mutex_unlock(&d->mu);
	if (status)
		return status;
	pthread_mutex_lock(&wmu);
	r = report_find(id);
	if (r && !r->pending && !r->ok && now - r->made > REPORT_RETRY_S) {
		report_clear(r);
		r = NULL;
	}
	if (!r) {
		struct webreq *q = calloc(1, sizeof(*q));

		/* A free slot, else the least recently used made one. */
		for (unsigned i = 0; i < REPORTS_KEPT && !r; i++)
			if (!reports[i].job)
				r = &reports[i];
		for (unsigned i = 0; i < REPORTS_KEPT && (!r || r->job); i++)
			if (!reports[i].pending && (!r || reports[i].used < r->used))
				r = &reports[i];
		if (!q || !r || r->pending) {
			pthread_mutex_unlock(&wmu);
			free(q);
			snprintf(err, errsize, "every report slot is being made; try again");
			return 503;
		}
		report_clear(r);
		r->job = id;
		r->pending = true;
		q->report = true;
		q->id = id;
		q->next = inbox;
		inbox = q;
		sbd_wake(d);
	}
	r->used = now;
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += REPORT_WAIT_S;
	while ((r = report_find(id)) && r->pending)
		if (pthread_cond_timedwait(&wcond, &wmu, &until) == ETIMEDOUT)
			break;
	if (!r)
		status = (snprintf(err, errsize, "the report was dropped; try again"), 503);
	else if (r->pending)
		status = (snprintf(err, errsize, "the report is still being made; try again"), 503);
	else
		status = report_answer(r, name, data, len, err, errsize);
	pthread_mutex_unlock(&wmu);
	return status;
}

void sbd_web_pump(struct sbd *d)
{
	struct webreq *list, *r;
	bool acted = false;

	pthread_mutex_lock(&wmu);
	list = inbox;
	inbox = NULL;
	for (r = list; r; r = r->next)
		r->taken = true;
	pthread_mutex_unlock(&wmu);
	while ((r = list)) {
		struct sbd_job *j;

		list = r->next;
		if (r->report) {
			start_report(d, r->id);
			free(r);
			continue;
		}
		if (!sbd_peer_allowed(d, &r->cred)) {
			snprintf(
			    r->err, sizeof(r->err),
			    "user %lu may not use this daemon (root, the daemon's user and the "
			    "members of its group may)",
			    (unsigned long)r->cred.uid);
			r->code = SBD_E_NOT_PERMITTED;
		} else {
			r->code = sbd_control(d, &r->cred, r->cmd, r->id, r->err, sizeof(r->err));
		}
		if (!r->code) {
			acted = true;
			pthread_mutex_lock(&d->mu);
			for (j = d->jobs; j && j->id != r->id; j = j->next)
				;
			if (j) {
				cJSON *o = sbd_job_json(j);

				r->job_json = o ? cJSON_PrintUnformatted(o) : NULL;
				cJSON_Delete(o);
			}
			pthread_mutex_unlock(&d->mu);
		}
		pthread_mutex_lock(&wmu);
		if (r->abandoned) {
			cJSON_free(r->job_json);
			free(r);
		} else {
			r->done = true;
		}
		pthread_cond_broadcast(&wcond);
		pthread_mutex_unlock(&wmu);
	}
	if (acted)
		sbd_schedule(d); /* a resumed job may start, a cancelled one's board is free */
}
