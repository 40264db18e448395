/* SPDX-License-Identifier: MIT */
/*
 * The hub: the event ring that followers and the dashboard read, and the JSON views of the
 * daemon's state (status, queue, jobs).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "daemon.h"
#include "stackbench/client.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/version.h"

static const char *const state_names[] = {
    [SBD_QUEUED] = "queued", [SBD_RUNNING] = "running", [SBD_PAUSED] = "paused",
    [SBD_DONE] = "done",     [SBD_FAILED] = "failed",   [SBD_CANCELLED] = "cancelled",
};

static const char *const event_names[SBD_EV_COUNT] = {
    [SBD_EV_JOB] = "job",
    [SBD_EV_CAMPAIGN] = "campaign",
    [SBD_EV_POINT_STARTED] = "point_started",
    [SBD_EV_SAMPLE] = "sample",
    [SBD_EV_POINT_FINISHED] = "point_finished",
    [SBD_EV_FAILURE] = "thermal_failure",
};

const char *sbd_job_state_name(enum sbd_job_state s)
{
	return (unsigned)s <= SBD_CANCELLED ? state_names[s] : "?";
}

int sbd_job_state_parse(const char *name, enum sbd_job_state *s)
{
	for (int i = SBD_QUEUED; i <= SBD_CANCELLED; i++)
		if (!strcmp(name, state_names[i])) {
			*s = (enum sbd_job_state)i;
			return 0;
		}
	return SB_ERR_PARSE;
}

bool sbd_job_finished(enum sbd_job_state s)
{
	return s == SBD_DONE || s == SBD_FAILED || s == SBD_CANCELLED;
}

const char *sbd_event_name(enum sbd_event_kind k)
{
	return (unsigned)k < SBD_EV_COUNT ? event_names[k] : "?";
}

double sbd_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

void sbd_iso_time(double t, char *buf, size_t size)
{
	time_t s = (time_t)t;
	struct tm tm;

	if (t <= 0 || !gmtime_r(&s, &tm)) {
		buf[0] = '\0';
		return;
	}
	strftime(buf, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

int sbd_hub_init(struct sbd *d)
{
	pthread_mutex_init(&d->mu, NULL);
	pthread_cond_init(&d->cond, NULL);
	d->next_seq = 1;
	d->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (d->wake_fd < 0)
		return sb_error_set(SB_ERR_IO, "eventfd: cannot make one");
	return 0;
}

void sbd_hub_release(struct sbd *d)
{
	for (unsigned i = 0; i < SBD_RING; i++)
		free(d->ring[i].json);
	if (d->wake_fd >= 0)
		close(d->wake_fd);
	pthread_cond_destroy(&d->cond);
	pthread_mutex_destroy(&d->mu);
}

void sbd_wake(struct sbd *d)
{
	uint64_t one = 1;

	if (write(d->wake_fd, &one, sizeof(one)) < 0) {
		/* The counter is full: the main loop is awake already. */
	}
}

void sbd_emit(struct sbd *d, enum sbd_event_kind kind, int board, int64_t job, char *json)
{
	struct sbd_event *e = &d->ring[d->next_seq % SBD_RING];

	if (!json)
		return;
	free(e->json);
	*e = (struct sbd_event){
	    .seq = d->next_seq++,
	    .kind = kind,
	    .board = board,
	    .job = job,
	    .ts = sbd_now(),
	    .json = json,
	    .len = strlen(json),
	};
	pthread_cond_broadcast(&d->cond);
	/* One wake-up per batch (the main loop clears the flag when it runs); samples only
	 * when a socket client follows (the dashboard's streams wait on the condition). */
	if (!d->wake_pending && (kind != SBD_EV_SAMPLE || d->followers)) {
		d->wake_pending = true;
		sbd_wake(d);
	}
}

uint64_t sbd_ring_oldest(const struct sbd *d)
{
	return d->next_seq > SBD_RING ? d->next_seq - SBD_RING : 1;
}

const struct sbd_event *sbd_ring_get(const struct sbd *d, uint64_t seq)
{
	const struct sbd_event *e;

	if (seq < sbd_ring_oldest(d) || seq >= d->next_seq)
		return NULL;
	e = &d->ring[seq % SBD_RING];
	return e->seq == seq ? e : NULL;
}

cJSON *sbd_event_new(struct sbd *d, enum sbd_event_kind kind)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "v", SB_DAEMON_API_VERSION);
	cJSON_AddStringToObject(o, "event", sbd_event_name(kind));
	cJSON_AddNumberToObject(o, "seq", (double)d->next_seq);
	cJSON_AddNumberToObject(o, "ts_ms", floor(sbd_now() * 1e3));
	return o;
}

void sbd_emit_object(struct sbd *d, enum sbd_event_kind kind, int board, int64_t job, cJSON *o)
{
	char *text;

	if (!o)
		return;
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	/* cJSON_free and free are the same allocator (no hooks are installed). */
	if (text)
		sbd_emit(d, kind, board, job, text);
}

static void add_num_or_null(cJSON *o, const char *name, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

cJSON *sbd_job_json(const struct sbd_job *j)
{
	cJSON *o = cJSON_CreateObject();

	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "id", (double)j->id);
	cJSON_AddStringToObject(o, "state", sbd_job_state_name(j->state));
	cJSON_AddNumberToObject(o, "priority", j->priority);
	cJSON_AddStringToObject(o, "name", j->name);
	cJSON_AddStringToObject(o, "file", j->file);
	cJSON_AddStringToObject(o, "db", j->db);
	cJSON_AddNumberToObject(o, "jobs", j->workers);
	cJSON_AddNumberToObject(o, "uid", j->owner.uid);
	cJSON_AddNumberToObject(o, "points_done", j->done);
	cJSON_AddNumberToObject(o, "points_total", j->total ? j->total : j->npoints);
	if (j->campaign_id > 0)
		cJSON_AddNumberToObject(o, "campaign_id", (double)j->campaign_id);
	else
		cJSON_AddNullToObject(o, "campaign_id");
	add_num_or_null(o, "eta_s", j->state == SBD_RUNNING && j->eta_s >= 0 ? j->eta_s : NAN);
	cJSON_AddStringToObject(o, "submitted_at", j->submitted_at);
	cJSON_AddStringToObject(o, "started_at", j->started_at);
	cJSON_AddStringToObject(o, "finished_at", j->finished_at);
	cJSON_AddStringToObject(o, "message", j->message);
	if (j->state == SBD_RUNNING && j->nboards) {
		cJSON *b = cJSON_AddArrayToObject(o, "boards");

		for (unsigned i = 0; b && i < j->nboards; i++)
			cJSON_AddItemToArray(b, cJSON_CreateString(j->d->boards[j->board[i]].uri));
		/* Its process, running as the submitter (status, and for the submitter's own
		 * tools). */
		if (j->proc)
			cJSON_AddNumberToObject(o, "pid", sbd_proc_pid(j->proc));
	}
	return o;
}

/* Active jobs first (running, then queued and paused by priority, then id), then finished
 * ones, newest first. */
static int job_order(const void *a, const void *b)
{
	const struct sbd_job *x = *(const struct sbd_job *const *)a;
	const struct sbd_job *y = *(const struct sbd_job *const *)b;
	int fx = sbd_job_finished(x->state), fy = sbd_job_finished(y->state);

	if (fx != fy)
		return fx - fy;
	if (fx)
		return x->id < y->id ? 1 : -1;
	if ((x->state == SBD_RUNNING) != (y->state == SBD_RUNNING))
		return x->state == SBD_RUNNING ? -1 : 1;
	if (x->priority != y->priority)
		return y->priority - x->priority;
	return x->id < y->id ? -1 : x->id > y->id;
}

cJSON *sbd_queue_json(struct sbd *d, bool all)
{
	cJSON *arr = cJSON_CreateArray();
	struct sbd_job **v;
	unsigned n = 0, k = 0, shown = 0;

	for (struct sbd_job *j = d->jobs; j; j = j->next)
		n++;
	if (!arr || !(v = calloc(n ? n : 1, sizeof(*v))))
		return arr;
	for (struct sbd_job *j = d->jobs; j; j = j->next)
		v[k++] = j;
	qsort(v, n, sizeof(*v), job_order);
	for (unsigned i = 0; i < n; i++) {
		/* Without "all", the 20 latest finished jobs. */
		if (sbd_job_finished(v[i]->state) && !all && shown++ >= 20)
			break;
		cJSON_AddItemToArray(arr, sbd_job_json(v[i]));
	}
	free(v);
	return arr;
}

static cJSON *board_json(struct sbd *d, unsigned i)
{
	const struct sbd_board *b = &d->boards[i];
	const struct sbd_job *j = b->job;
	cJSON *o = cJSON_CreateObject(), *p, *s;

	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "uri", b->uri);
	cJSON_AddStringToObject(o, "state",
	                        !j                   ? "idle"
	                        : j->pause_requested ? "pausing"
	                                             : "running");
	if (!j) {
		cJSON_AddNullToObject(o, "job");
		return o;
	}
	cJSON_AddNumberToObject(o, "job", (double)j->id);
	cJSON_AddStringToObject(o, "campaign", j->name);
	cJSON_AddStringToObject(o, "device", b->device);
	cJSON_AddNumberToObject(o, "points_done", j->done);
	cJSON_AddNumberToObject(o, "points_total", j->total ? j->total : j->npoints);
	add_num_or_null(o, "eta_s", j->eta_s >= 0 ? j->eta_s : NAN);
	if (b->in_point && (p = cJSON_AddObjectToObject(o, "point"))) {
		cJSON_AddNumberToObject(p, "index", b->point_index);
		cJSON_AddStringToObject(p, "key", b->point_key);
		cJSON_AddNumberToObject(p, "attempt", b->attempt);
	} else {
		cJSON_AddNullToObject(o, "point");
	}
	if (b->has_sample && (s = cJSON_AddObjectToObject(o, "last_sample"))) {
		cJSON_AddNumberToObject(s, "t_s", b->t_s);
		add_num_or_null(s, "bandwidth_gbps", b->bandwidth_gbps);
		add_num_or_null(s, "mrps", b->mrps);
		add_num_or_null(s, "latency_avg_ns", b->latency_avg_ns);
		add_num_or_null(s, "temp_c", b->temp_c);
		add_num_or_null(s, "power_w", b->power_w);
	} else {
		cJSON_AddNullToObject(o, "last_sample");
	}
	return o;
}

cJSON *sbd_status_json(struct sbd *d)
{
	cJSON *o = cJSON_CreateObject(), *dm, *bs, *q;
	unsigned count[SBD_CANCELLED + 1] = {0};

	if (!o)
		return NULL;
	if ((dm = cJSON_AddObjectToObject(o, "daemon"))) {
		cJSON_AddStringToObject(dm, "version", sb_version());
		cJSON_AddNumberToObject(dm, "api", SB_DAEMON_API_VERSION);
		cJSON_AddNumberToObject(dm, "pid", (double)getpid());
		cJSON_AddNumberToObject(dm, "uptime_s", floor(sbd_now() - d->started));
		cJSON_AddStringToObject(dm, "socket", d->opt.socket_path);
		cJSON_AddStringToObject(dm, "state_dir", d->opt.state_dir);
		if (d->http_bound[0])
			cJSON_AddStringToObject(dm, "http", d->http_bound);
		else
			cJSON_AddNullToObject(dm, "http");
		cJSON_AddBoolToObject(dm, "stopping", d->stopping);
	}
	if ((bs = cJSON_AddArrayToObject(o, "boards")))
		for (unsigned i = 0; i < d->nboards; i++)
			cJSON_AddItemToArray(bs, board_json(d, i));
	for (struct sbd_job *j = d->jobs; j; j = j->next)
		count[j->state]++;
	if ((q = cJSON_AddObjectToObject(o, "queue")))
		for (int s = SBD_QUEUED; s <= SBD_CANCELLED; s++)
			cJSON_AddNumberToObject(q, state_names[s], count[s]);
	return o;
}
