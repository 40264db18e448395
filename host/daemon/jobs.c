/* SPDX-License-Identifier: MIT */
/*
 * Jobs: a submitted campaign, checked, queued, scheduled on free boards (one engine worker per
 * board), run by a runner thread through the campaign engine into the submitter's database,
 * and controlled (cancel, pause, resume). Resume across restarts: a job that had started
 * continues its own campaign in its database (sb_campaign_run with resume), so a killed
 * daemon loses and repeats no point.
 *
 * A root daemon works on files as the submitter: the runner takes the submitter's
 * file-system identity (setfsuid/setfsgid and the supplementary groups, per thread) to open
 * the database, and keeps it for the whole run of a campaign on simulated boards (whose
 * profiles and bench files are the submitter's to name); boards it owns are opened with its
 * own rights.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "daemon.h"
#include "stackbench/client.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/store.h"

/* ---- who may do what ------------------------------------------------------------------- */

static bool in_groups(const struct sbd_cred *c, gid_t g)
{
	if (c->gid == g)
		return true;
	for (unsigned i = 0; i < c->ngroups; i++)
		if (c->groups[i] == g)
			return true;
	return false;
}

bool sbd_peer_allowed(const struct sbd *d, const struct sbd_cred *c)
{
	return c->uid == 0 || c->uid == geteuid() || (d->have_group && in_groups(c, d->group_gid));
}

/* Cancel, pause and resume: the job's owner, root or the daemon's user. */
static bool may_manage(const struct sbd_cred *peer, const struct sbd_job *j)
{
	return peer->uid == 0 || peer->uid == geteuid() || peer->uid == j->owner.uid;
}

/* Whether c may access a file of mode/owner st for want (R_OK, W_OK, X_OK bits). */
static bool cred_may(const struct sbd_cred *c, const struct stat *st, int want)
{
	int bits;

	if (c->uid == 0)
		return true;
	if (st->st_uid == c->uid)
		bits = (int)(st->st_mode >> 6) & 7;
	else if (in_groups(c, st->st_gid))
		bits = (int)(st->st_mode >> 3) & 7;
	else
		bits = (int)st->st_mode & 7;
	return (bits & want) == want;
}

/*
 * The submitter must be able to write the database (or create it in its folder): checked
 * here for a clear message at submit time. A root daemon also opens it with the submitter's
 * identity (the kernel decides, see become()).
 */
static const char *check_db(const struct sbd_cred *peer, const char *db, char *err, size_t size)
{
	char dir[SBD_DB_MAX];
	const char *slash = strrchr(db, '/');
	struct stat st;

	if (peer->uid == 0 || peer->uid == geteuid())
		return NULL;
	snprintf(dir, sizeof(dir), "%.*s", slash == db ? 1 : (int)(slash - db), db);
	if (stat(dir, &st) < 0 || !S_ISDIR(st.st_mode) || !cred_may(peer, &st, W_OK | X_OK)) {
		snprintf(err, size, "user %lu cannot create files in '%s' (for the database '%s')",
		         (unsigned long)peer->uid, dir, db);
		return SBD_E_NOT_PERMITTED;
	}
	if (lstat(db, &st) == 0 && (!S_ISREG(st.st_mode) || !cred_may(peer, &st, R_OK | W_OK))) {
		snprintf(err, size, "user %lu cannot write the database '%s'",
		         (unsigned long)peer->uid, db);
		return SBD_E_NOT_PERMITTED;
	}
	return NULL;
}

/* The daemon's own supplementary groups, put back after become(). */
static gid_t own_groups[SBD_MAX_GROUPS];
static int own_ngroups = -1;

/*
 * Take the submitter's file-system identity in this thread (a root daemon and another user
 * only): fsuid, fsgid, and the groups with the raw system call, which (unlike glibc's
 * setgroups) changes the calling thread only. Threads started afterwards inherit it.
 * Returns 1 when switched, 0 when not needed, or SB_ERR_PERM.
 */
static int become(const struct sbd_cred *c)
{
	if (geteuid() != 0 || c->uid == 0)
		return 0;
	if (own_ngroups < 0)
		own_ngroups = getgroups(SBD_MAX_GROUPS, own_groups);
	if (syscall(SYS_setgroups, (size_t)c->ngroups, c->groups) < 0)
		return sb_error_set(SB_ERR_PERM, "cannot take the groups of user %lu: %s",
		                    (unsigned long)c->uid, strerror(errno));
	setfsgid(c->gid);
	setfsuid(c->uid);
	if ((uid_t)setfsuid((uid_t)-1) != c->uid || (gid_t)setfsgid((gid_t)-1) != c->gid)
		return sb_error_set(SB_ERR_PERM, "cannot take the identity of user %lu",
		                    (unsigned long)c->uid);
	return 1;
}

static void unbecome(int became)
{
	if (became <= 0)
		return;
	setfsuid(0);
	setfsgid(0);
	if (syscall(SYS_setgroups, (size_t)(own_ngroups > 0 ? own_ngroups : 0), own_groups) < 0)
		sb_warn("cannot restore the daemon's groups: %s", strerror(errno));
}

/* ---- parsing and boards ------------------------------------------------------------------ */

int sbd_job_parse(struct sbd_job *j, char *err, size_t errsize)
{
	struct sb_campaign c;
	int e = sb_campaign_load_string(&c, j->file, j->text, j->len);

	if (e < 0) {
		snprintf(err, errsize, "%s", sb_error_detail());
		return e;
	}
	snprintf(j->name, sizeof(j->name), "%s", c.name);
	j->ndevices = c.ndevices;
	for (unsigned i = 0; i < c.ndevices; i++)
		snprintf(j->device[i], sizeof(j->device[i]), "%s", c.device[i]);
	j->npoints = c.npoints;
	sb_campaign_release(&c);
	return 0;
}

static bool all_sim(const struct sbd_job *j)
{
	for (unsigned i = 0; i < j->ndevices; i++)
		if (strncmp(j->device[i], "sim:", 4))
			return false;
	return true;
}

/* Boards a job needs: one per engine worker (never more than its points). */
static unsigned boards_needed(const struct sbd_job *j)
{
	unsigned n = j->workers ? j->workers : 1;

	return n < j->npoints ? n : j->npoints ? j->npoints : 1;
}

/* A board can run a campaign URI: any simulated board for sim:, the same function or node. */
static bool board_fits(const struct sbd_board *b, const char *uri)
{
	struct sb_uri u;

	if (sb_uri_parse(uri, &u) < 0) {
		sb_error_clear();
		return false;
	}
	if (u.scheme != b->parsed.scheme)
		return false;
	return u.scheme == SB_URI_SIM || !strcmp(u.path, b->parsed.path);
}

/* Choose boards for a job (free ones only, or any to check it could ever run); 0 or -1. */
static int pick_boards(struct sbd *d, const struct sbd_job *j, bool free_only,
                       int out[SBD_MAX_BOARDS])
{
	unsigned need = boards_needed(j);

	for (unsigned i = 0; i < need; i++) {
		const char *uri = j->device[i % j->ndevices];
		bool found = false;

		for (unsigned b = 0; b < d->nboards && !found; b++) {
			bool used = false;

			for (unsigned k = 0; k < i; k++)
				used |= out[k] == (int)b;
			if (!used && (!free_only || !d->boards[b].job) &&
			    board_fits(&d->boards[b], uri)) {
				out[i] = (int)b;
				found = true;
			}
		}
		if (!found)
			return -1;
	}
	return 0;
}

static void list_boards(const struct sbd *d, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < d->nboards && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s'%s'", i ? ", " : "", d->boards[i].uri);
}

/* ---- bookkeeping (caller holds mu) ------------------------------------------------------ */

static void save(struct sbd *d, struct sbd_job *j)
{
	if (sbd_queue_save(d->q, j) < 0)
		sb_warn("%s", sb_error_detail());
}

static void job_event(struct sbd *d, struct sbd_job *j)
{
	cJSON *o = sbd_event_new(d, SBD_EV_JOB), *jj = sbd_job_json(j), *it;

	if (o && jj) {
		cJSON_AddNumberToObject(o, "job", (double)j->id);
		/* The job's fields beside "job" (its id). */
		while ((it = jj->child)) {
			cJSON_DetachItemViaPointer(jj, it);
			if (strcmp(it->string, "id"))
				cJSON_AddItemToObject(o, it->string, it);
			else
				cJSON_Delete(it);
		}
	}
	cJSON_Delete(jj);
	sbd_emit_object(d, SBD_EV_JOB, -1, j->id, o);
}

static void set_state(struct sbd *d, struct sbd_job *j, enum sbd_job_state s)
{
	bool was_active = !sbd_job_finished(j->state);

	j->state = s;
	if (sbd_job_finished(s)) {
		sbd_iso_time(sbd_now(), j->finished_at, sizeof(j->finished_at));
		if (was_active && d->nactive)
			d->nactive--;
	}
	save(d, j);
	job_event(d, j);
}

void sbd_job_free(struct sbd_job *j)
{
	if (!j)
		return;
	free(j->text);
	free(j);
}

/* Keep at most SBD_KEEP_FINISHED finished jobs in memory (the queue database has them all). */
static void trim_finished(struct sbd *d)
{
	unsigned n = 0;

	for (struct sbd_job *j = d->jobs; j; j = j->next)
		n += sbd_job_finished(j->state);
	for (struct sbd_job **pp = &d->jobs; *pp && n > SBD_KEEP_FINISHED;) {
		struct sbd_job *j = *pp;

		if (sbd_job_finished(j->state)) {
			*pp = j->next;
			sbd_job_free(j);
			n--;
		} else {
			pp = &j->next;
		}
	}
}

static void append_job(struct sbd *d, struct sbd_job *j)
{
	struct sbd_job **pp = &d->jobs;

	while (*pp)
		pp = &(*pp)->next;
	*pp = j;
	j->d = d;
	if (!sbd_job_finished(j->state))
		d->nactive++;
}

/* ---- submit ------------------------------------------------------------------------------ */

struct sbd_job *sbd_submit(struct sbd *d, const struct sbd_cred *peer, struct sbd_request *r,
                           const char **code, char *err, size_t errsize)
{
	struct sbd_job *j = calloc(1, sizeof(*j));
	int tmp[SBD_MAX_BOARDS];
	char boards[512];

	*code = NULL;
	if (!j) {
		*code = SBD_E_INTERNAL;
		snprintf(err, errsize, "out of memory");
		return NULL;
	}
	j->text = r->campaign;
	j->len = r->campaign_len;
	r->campaign = NULL;
	snprintf(j->file, sizeof(j->file), "%s", r->file);
	snprintf(j->db, sizeof(j->db), "%s", r->db);
	j->priority = r->priority;
	j->workers = r->workers ? r->workers : 1;
	j->owner = *peer;
	j->state = SBD_QUEUED;
	j->prev_campaign_id = -1;
	j->eta_s = -1;
	j->d = d;
	if (sbd_job_parse(j, err, errsize) < 0) {
		*code = SBD_E_BAD_CAMPAIGN;
		goto fail;
	}
	if (j->workers > j->ndevices && !all_sim(j)) {
		*code = SBD_E_BAD_REQUEST;
		snprintf(err, errsize,
		         "jobs %u needs %u device URIs in 'bench.device'; '%s' lists %u",
		         j->workers, j->workers, j->file, j->ndevices);
		goto fail;
	}
	if ((*code = check_db(peer, j->db, err, errsize)))
		goto fail;
	pthread_mutex_lock(&d->mu);
	if (pick_boards(d, j, false, tmp) < 0) {
		list_boards(d, boards, sizeof(boards));
		*code = SBD_E_NO_BOARD;
		snprintf(err, errsize,
		         "campaign '%s' needs %u board%s for %s'%s'; this daemon owns %s", j->name,
		         boards_needed(j), boards_needed(j) == 1 ? "" : "s",
		         j->ndevices > 1 ? "its URIs, the first " : "", j->device[0], boards);
	} else if (d->nactive >= SBD_MAX_ACTIVE) {
		*code = SBD_E_BUSY;
		snprintf(err, errsize, "%u jobs are waiting or running already (the limit)",
		         d->nactive);
	} else {
		sbd_iso_time(sbd_now(), j->submitted_at, sizeof(j->submitted_at));
		if (sbd_queue_insert(d->q, j) < 0) {
			*code = SBD_E_INTERNAL;
			snprintf(err, errsize, "%s", sb_error_detail());
		} else {
			append_job(d, j);
			job_event(d, j);
			sb_info("job %" PRId64
			        ": campaign '%s' (%u points) from user %lu into '%s'",
			        j->id, j->name, j->npoints, (unsigned long)peer->uid, j->db);
		}
	}
	pthread_mutex_unlock(&d->mu);
	if (!*code)
		return j;
fail:
	sbd_job_free(j);
	return NULL;
}

/* ---- the engine's callbacks (worker threads) --------------------------------------------- */

static void add_num(cJSON *o, const char *name, double v)
{
	if (isfinite(v))
		cJSON_AddNumberToObject(o, name, v);
	else
		cJSON_AddNullToObject(o, name);
}

/* The point's axes, enough for a client to describe it as `stackbench run` does. */
static void add_point(cJSON *o, const struct sb_campaign_point *p)
{
	cJSON *x = cJSON_AddObjectToObject(o, "point");

	if (!x)
		return;
	cJSON_AddStringToObject(x, "cooling", p->cooling);
	cJSON_AddNumberToObject(x, "rep", p->rep);
	cJSON_AddStringToObject(x, "type", sb_req_type_name(p->type));
	cJSON_AddNumberToObject(x, "size", p->size);
	cJSON_AddStringToObject(x, "pattern", p->pattern);
	cJSON_AddStringToObject(x, "mode", p->mode == SB_GEN_LINEAR ? "linear" : "random");
	cJSON_AddNumberToObject(x, "addr_mode", p->addr_mode);
	cJSON_AddNumberToObject(x, "ports", p->ports);
	cJSON_AddBoolToObject(x, "idle", p->idle);
	cJSON_AddNumberToObject(x, "stream", p->stream);
	if (p->mask_lo >= 0)
		cJSON_AddNumberToObject(x, "mask_lo", p->mask_lo);
	else
		cJSON_AddNullToObject(x, "mask_lo");
	cJSON_AddNumberToObject(x, "mask_width", p->mask_width);
}

static void on_progress(void *ctx, const struct sb_run_progress *p)
{
	struct sbd_job *j = ctx;
	struct sbd *d = j->d;
	int bi = p->last && p->worker < j->nboards ? j->board[p->worker] : -1;
	cJSON *o;

	/* Progress inside a long point: the samples tell that already. */
	if (p->in_point)
		return;
	pthread_mutex_lock(&d->mu);
	j->done = p->done;
	j->total = p->total;
	j->eta_s = p->eta_s;
	if (!p->last) {
		/* The campaign exists now: remember it for a resume after a restart. */
		if (j->campaign_id != p->campaign_id) {
			j->campaign_id = p->campaign_id;
			save(d, j);
		}
		if ((o = sbd_event_new(d, SBD_EV_CAMPAIGN))) {
			cJSON_AddNumberToObject(o, "job", (double)j->id);
			cJSON_AddNumberToObject(o, "campaign_id", (double)p->campaign_id);
			cJSON_AddStringToObject(o, "name", j->name);
			cJSON_AddStringToObject(o, "db", j->db);
			cJSON_AddNumberToObject(o, "done", p->done);
			cJSON_AddNumberToObject(o, "total", p->total);
		}
		sbd_emit_object(d, SBD_EV_CAMPAIGN, -1, j->id, o);
		pthread_mutex_unlock(&d->mu);
		return;
	}
	if (bi >= 0)
		d->boards[bi].in_point = false;
	if ((o = sbd_event_new(d, SBD_EV_POINT_FINISHED))) {
		cJSON_AddNumberToObject(o, "job", (double)j->id);
		cJSON_AddStringToObject(o, "board", bi >= 0 ? d->boards[bi].uri : "");
		cJSON_AddStringToObject(o, "device", p->device ? p->device : "");
		cJSON_AddNumberToObject(o, "index", p->last->index);
		cJSON_AddStringToObject(o, "key", p->last->key);
		cJSON_AddNumberToObject(o, "attempt", p->last_attempt);
		cJSON_AddNumberToObject(o, "done", p->done);
		cJSON_AddNumberToObject(o, "total", p->total);
		cJSON_AddNumberToObject(o, "done_run", p->done_run);
		cJSON_AddNumberToObject(o, "elapsed_s", p->elapsed_s);
		add_num(o, "eta_s", p->eta_s >= 0 ? p->eta_s : NAN);
		add_num(o, "bandwidth_gbps", p->last_bandwidth_gbps);
		add_num(o, "mrps", p->last_mrps);
		add_num(o, "latency_avg_ns",
		        p->last_latency_avg_ns > 0 ? p->last_latency_avg_ns : NAN);
		add_num(o, "temp_c", p->last_temp_c);
		add_num(o, "power_w", p->last_power_w);
		cJSON_AddBoolToObject(o, "failed", p->last_failed);
		cJSON_AddBoolToObject(o, "rig_fault", p->last_rig_fault);
		add_point(o, p->last);
	}
	sbd_emit_object(d, SBD_EV_POINT_FINISHED, bi, j->id, o);
	if (p->last_failed && (o = sbd_event_new(d, SBD_EV_FAILURE))) {
		cJSON_AddNumberToObject(o, "job", (double)j->id);
		cJSON_AddStringToObject(o, "board", bi >= 0 ? d->boards[bi].uri : "");
		cJSON_AddNumberToObject(o, "index", p->last->index);
		cJSON_AddStringToObject(o, "key", p->last->key);
		cJSON_AddNumberToObject(o, "attempt", p->last_attempt);
		add_num(o, "temp_c", p->last_temp_c);
		sbd_emit_object(d, SBD_EV_FAILURE, bi, j->id, o);
	}
	pthread_mutex_unlock(&d->mu);
}

/* A number for an event line: %.6g, or null. */
static void num(char *buf, size_t size, double v)
{
	if (isfinite(v))
		snprintf(buf, size, "%.6g", v);
	else
		snprintf(buf, size, "null");
}

static void on_event(void *ctx, const struct sb_run_event *ev)
{
	struct sbd_job *j = ctx;
	struct sbd *d = j->d;
	struct sbd_board *b;
	char bw[32], mr[32], lat[32], tc[32], pw[32], *line;
	double t_s;
	int bi, n;
	cJSON *o;

	if (ev->worker >= j->nboards)
		return;
	bi = j->board[ev->worker];
	b = &d->boards[bi];
	pthread_mutex_lock(&d->mu);
	if (ev->kind == SB_RUN_POINT_START) {
		b->in_point = true;
		b->point = ev->point;
		b->attempt = ev->attempt;
		b->has_sample = false;
		snprintf(b->device, sizeof(b->device), "%s", ev->device);
		if ((o = sbd_event_new(d, SBD_EV_POINT_STARTED))) {
			cJSON_AddNumberToObject(o, "job", (double)j->id);
			cJSON_AddStringToObject(o, "board", b->uri);
			cJSON_AddStringToObject(o, "device", ev->device);
			cJSON_AddNumberToObject(o, "index", ev->point->index);
			cJSON_AddStringToObject(o, "key", ev->point->key);
			cJSON_AddNumberToObject(o, "attempt", ev->attempt);
			add_point(o, ev->point);
		}
		sbd_emit_object(d, SBD_EV_POINT_STARTED, bi, j->id, o);
		pthread_mutex_unlock(&d->mu);
		return;
	}
	/* Samples come fast on the simulated bench: printed directly, numbers only. */
	t_s = (double)ev->sample->t_ns * 1e-9;
	b->has_sample = true;
	b->samples++;
	b->t_s = t_s;
	b->bandwidth_gbps = ev->bandwidth_gbps;
	b->mrps = ev->mrps;
	b->latency_avg_ns = ev->latency_avg_ns;
	b->temp_c = ev->sample->temp_c;
	b->power_w = ev->sample->power_w;
	num(bw, sizeof(bw), ev->bandwidth_gbps);
	num(mr, sizeof(mr), ev->mrps);
	num(lat, sizeof(lat), ev->latency_avg_ns);
	num(tc, sizeof(tc), ev->sample->temp_c);
	num(pw, sizeof(pw), ev->sample->power_w);
	n = snprintf(NULL, 0, "%s", b->uri_json) + 512;
	if ((line = malloc((size_t)n)))
		snprintf(line, (size_t)n,
		         "{\"v\":%d,\"event\":\"sample\",\"seq\":%" PRIu64 ",\"ts_ms\":%.0f,"
		         "\"job\":%" PRId64 ",\"board\":\"%s\",\"index\":%u,\"attempt\":%u,"
		         "\"t_s\":%.9g,\"bandwidth_gbps\":%s,\"mrps\":%s,\"latency_avg_ns\":%s,"
		         "\"temp_c\":%s,\"power_w\":%s}",
		         SB_DAEMON_API_VERSION, d->next_seq, floor(sbd_now() * 1e3), j->id,
		         b->uri_json, ev->point->index, ev->attempt, t_s, bw, mr, lat, tc, pw);
	sbd_emit(d, SBD_EV_SAMPLE, bi, j->id, line);
	pthread_mutex_unlock(&d->mu);
}

/* ---- the runner ---------------------------------------------------------------------------- */

/* Whether to resume (the job's own campaign) or start a campaign; 0 or an error. */
static int decide_resume(struct sbd_job *j, struct sb_store *st, const char *name, bool *resume)
{
	struct sbd *d = j->d;
	struct sb_store_campaign latest;
	int64_t latest_id = 0, prev, own;
	int e = sb_store_campaign_latest(st, name, &latest);

	if (e < 0 && e != SB_ERR_NOT_FOUND)
		return e;
	if (e == 0)
		latest_id = latest.id;
	sb_error_clear();
	pthread_mutex_lock(&d->mu);
	prev = j->prev_campaign_id;
	own = j->campaign_id;
	if (prev < 0) {
		/* First start: anything newer than this in the database will be ours. */
		j->prev_campaign_id = latest_id;
		save(d, j);
	}
	pthread_mutex_unlock(&d->mu);
	*resume = false;
	if (prev < 0)
		return 0;
	if (own > 0) {
		if (latest_id != own)
			return sb_error_set(
			    SB_ERR_MISMATCH,
			    "job %" PRId64 ": its campaign %" PRId64 " is no longer the latest "
			    "campaign '%s' in '%s' (%" PRId64
			    " is); continue it with 'stackbench run "
			    "FILE --db DB --resume' after the other, or submit it again",
			    j->id, own, name, j->db, latest_id);
		*resume = true;
		return 0;
	}
	/* Killed between the campaign's creation and its id being saved. */
	*resume = latest_id > prev;
	return 0;
}

static void *runner(void *arg)
{
	struct sbd_job *j = arg;
	struct sbd *d = j->d;
	struct sb_run_options ro = {
	    .jobs = j->nboards,
	    .progress = on_progress,
	    .progress_ctx = j,
	    .stop = &j->stop,
	    .pause = &j->pause,
	    .event = on_event,
	    .event_ctx = j,
	};
	struct sb_run_summary sum;
	struct sb_store *st = NULL;
	struct sb_campaign c;
	int became, e;
	char msg[1024];

	pthread_setname_np(pthread_self(), "sbd-job");
	msg[0] = '\0';
	if ((became = become(&j->owner)) < 0) {
		e = became;
		goto out;
	}
	if ((e = sb_campaign_load_string(&c, j->file, j->text, j->len)) < 0)
		goto out_become;
	if ((e = sb_store_open(&st, j->db)) < 0)
		goto out_campaign;
	/* Boards the daemon owns are opened with its rights; simulated ones as the submitter. */
	if (!all_sim(j)) {
		unbecome(became);
		became = 0;
	}
	if ((e = decide_resume(j, st, c.name, &ro.resume)) < 0)
		goto out_store;
	sb_info("job %" PRId64 ": %s campaign '%s' in '%s' on %u board%s", j->id,
	        ro.resume ? "resuming" : "starting", c.name, j->db, j->nboards,
	        j->nboards == 1 ? "" : "s");
	e = sb_campaign_run(&c, st, &ro, &sum);
	if (e == 0)
		snprintf(msg, sizeof(msg),
		         "campaign %" PRId64
		         " complete: %u points (%u run now, %u stored before, %u "
		         "with a thermal failure) in %.1f s",
		         sum.campaign_id, sum.total, sum.run, sum.skipped, sum.failed, sum.wall_s);
out_store:
	/* Forget the points before the campaign that holds them goes. */
	pthread_mutex_lock(&d->mu);
	for (unsigned i = 0; i < j->nboards; i++) {
		d->boards[j->board[i]].point = NULL;
		d->boards[j->board[i]].in_point = false;
	}
	pthread_mutex_unlock(&d->mu);
	sb_store_close(st);
out_campaign:
	sb_campaign_release(&c);
out_become:
	unbecome(became);
out:
	if (e < 0)
		snprintf(msg, sizeof(msg), "%s",
		         sb_error_detail()[0] ? sb_error_detail() : sb_strerror(e));
	pthread_mutex_lock(&d->mu);
	j->result = e;
	snprintf(j->message, sizeof(j->message), "%s", msg);
	j->runner_done = true;
	sbd_wake(d);
	pthread_mutex_unlock(&d->mu);
	return NULL;
}

/* ---- scheduling (main thread) -------------------------------------------------------------- */

/* Another running job writes the same campaign of the same database. */
static bool campaign_running(const struct sbd *d, const struct sbd_job *j)
{
	for (const struct sbd_job *o = d->jobs; o; o = o->next)
		if (o != j && o->state == SBD_RUNNING && !strcmp(o->db, j->db) &&
		    !strcmp(o->name, j->name))
			return true;
	return false;
}

static int start_job(struct sbd *d, struct sbd_job *j, const int *boards)
{
	j->nboards = boards_needed(j);
	for (unsigned i = 0; i < j->nboards; i++) {
		j->board[i] = boards[i];
		d->boards[boards[i]].job = j;
		d->boards[boards[i]].in_point = false;
		d->boards[boards[i]].has_sample = false;
	}
	j->stop = j->pause = 0;
	j->cancel_requested = j->pause_requested = j->runner_done = false;
	j->result = 0;
	j->message[0] = '\0';
	j->eta_s = -1;
	if (!j->started_at[0])
		sbd_iso_time(sbd_now(), j->started_at, sizeof(j->started_at));
	j->state = SBD_RUNNING;
	if (pthread_create(&j->thread, NULL, runner, j) != 0) {
		for (unsigned i = 0; i < j->nboards; i++)
			d->boards[boards[i]].job = NULL;
		j->nboards = 0;
		snprintf(j->message, sizeof(j->message), "cannot start a thread for the job");
		set_state(d, j, SBD_FAILED);
		return -1;
	}
	save(d, j);
	job_event(d, j);
	sb_info("job %" PRId64 " '%s' runs on '%s'%s", j->id, j->name, d->boards[boards[0]].uri,
	        j->nboards > 1 ? " and more" : "");
	return 0;
}

static int sched_order(const void *a, const void *b)
{
	const struct sbd_job *x = *(const struct sbd_job *const *)a;
	const struct sbd_job *y = *(const struct sbd_job *const *)b;

	if (x->priority != y->priority)
		return y->priority - x->priority;
	return x->id < y->id ? -1 : x->id > y->id;
}

void sbd_schedule(struct sbd *d)
{
	struct sbd_job **v;
	unsigned n = 0, k = 0;

	pthread_mutex_lock(&d->mu);
	if (d->stopping) {
		pthread_mutex_unlock(&d->mu);
		return;
	}
	for (struct sbd_job *j = d->jobs; j; j = j->next)
		n += j->state == SBD_QUEUED;
	if (n && (v = calloc(n, sizeof(*v)))) {
		for (struct sbd_job *j = d->jobs; j; j = j->next)
			if (j->state == SBD_QUEUED)
				v[k++] = j;
		qsort(v, n, sizeof(*v), sched_order);
		/* By priority; a job whose boards are busy does not hold back one for others. */
		for (unsigned i = 0; i < n; i++) {
			int boards[SBD_MAX_BOARDS];

			if (!campaign_running(d, v[i]) && pick_boards(d, v[i], true, boards) == 0)
				start_job(d, v[i], boards);
		}
		free(v);
	}
	pthread_mutex_unlock(&d->mu);
}

/* The job's runner ended (caller holds mu): its new state. */
static void finish_job(struct sbd *d, struct sbd_job *j)
{
	char detail[sizeof(j->message)];

	for (unsigned i = 0; i < j->nboards; i++) {
		struct sbd_board *b = &d->boards[j->board[i]];

		b->job = NULL;
		b->in_point = false;
		b->point = NULL;
	}
	j->nboards = 0;
	j->eta_s = -1;
	if (j->result == 0) {
		set_state(d, j, SBD_DONE);
	} else if (j->result == SB_ERR_INTERRUPTED && j->cancel_requested) {
		snprintf(detail, sizeof(detail), "%s", j->message);
		snprintf(j->message, sizeof(j->message),
		         "cancelled with %u of %u points stored; the campaign stays resumable in "
		         "'%s' (stackbench run FILE --db DB --resume)",
		         j->done, j->total, j->db);
		set_state(d, j, SBD_CANCELLED);
	} else if (j->result == SB_ERR_INTERRUPTED && j->pause_requested) {
		snprintf(j->message, sizeof(j->message), "paused with %u of %u points stored",
		         j->done, j->total);
		set_state(d, j, SBD_PAUSED);
	} else if (j->result == SB_ERR_INTERRUPTED && d->stopping) {
		/* The daemon stops: the job stays 'running' in the queue and resumes at the next
		 * start. */
		j->state = SBD_QUEUED;
	} else {
		sb_warn("job %" PRId64 " '%s' failed: %s", j->id, j->name, j->message);
		set_state(d, j, SBD_FAILED);
	}
}

bool sbd_reap(struct sbd *d)
{
	bool any = false;

	pthread_mutex_lock(&d->mu);
	for (struct sbd_job *j = d->jobs; j; j = j->next) {
		if (j->state != SBD_RUNNING || !j->runner_done)
			continue;
		/* The runner's last step was to set runner_done: joining it is immediate. */
		pthread_join(j->thread, NULL);
		j->runner_done = false;
		finish_job(d, j);
		any = true;
	}
	trim_finished(d);
	pthread_mutex_unlock(&d->mu);
	return any;
}

const char *sbd_control(struct sbd *d, const struct sbd_cred *peer, enum sbd_cmd cmd, int64_t id,
                        char *err, size_t errsize)
{
	const char *code = NULL;
	struct sbd_job *j;

	pthread_mutex_lock(&d->mu);
	for (j = d->jobs; j && j->id != id; j = j->next)
		;
	if (!j) {
		snprintf(err, errsize, "no job %" PRId64, id);
		code = SBD_E_NOT_FOUND;
		goto out;
	}
	if (!may_manage(peer, j)) {
		snprintf(err, errsize,
		         "job %" PRId64
		         " belongs to user %lu; only they, root and the daemon's user "
		         "may %s it",
		         id, (unsigned long)j->owner.uid, sbd_cmd_name(cmd));
		code = SBD_E_NOT_PERMITTED;
		goto out;
	}
	if (sbd_job_finished(j->state)) {
		snprintf(err, errsize, "job %" PRId64 " is %s already", id,
		         sbd_job_state_name(j->state));
		code = SBD_E_BAD_STATE;
		goto out;
	}
	switch (cmd) {
	case SBD_CMD_CANCEL:
		if (j->state == SBD_RUNNING) {
			/* The point in progress is dropped; the state follows when the runner ends. */
			j->cancel_requested = true;
			j->stop = 1;
		} else {
			snprintf(j->message, sizeof(j->message), "cancelled by user %lu",
			         (unsigned long)peer->uid);
			set_state(d, j, SBD_CANCELLED);
		}
		break;
	case SBD_CMD_PAUSE:
		if (j->state == SBD_PAUSED || j->pause_requested) {
			snprintf(err, errsize, "job %" PRId64 " is paused already", id);
			code = SBD_E_BAD_STATE;
		} else if (j->state == SBD_RUNNING) {
			/* The points in progress finish and are stored; no other starts. */
			j->pause_requested = true;
			j->pause = 1;
			job_event(d, j);
		} else {
			snprintf(j->message, sizeof(j->message), "held by user %lu",
			         (unsigned long)peer->uid);
			set_state(d, j, SBD_PAUSED);
		}
		break;
	case SBD_CMD_RESUME:
		if (j->state == SBD_RUNNING && j->pause_requested) {
			j->pause_requested = false;
			j->pause = 0;
			job_event(d, j);
		} else if (j->state == SBD_PAUSED) {
			j->message[0] = '\0';
			set_state(d, j, SBD_QUEUED);
		} else {
			snprintf(err, errsize, "job %" PRId64 " is %s, not paused", id,
			         sbd_job_state_name(j->state));
			code = SBD_E_BAD_STATE;
		}
		break;
	default:
		snprintf(err, errsize, "not a job command");
		code = SBD_E_BAD_REQUEST;
	}
out:
	pthread_mutex_unlock(&d->mu);
	return code;
}

void sbd_stop_all(struct sbd *d)
{
	pthread_t threads[SBD_MAX_BOARDS];
	unsigned n = 0;

	pthread_mutex_lock(&d->mu);
	d->stopping = true;
	for (struct sbd_job *j = d->jobs; j; j = j->next)
		if (j->state == SBD_RUNNING) {
			/* The current sample ends the point; it is not stored and runs again. */
			j->stop = 1;
			if (n < SBD_MAX_BOARDS)
				threads[n++] = j->thread;
		}
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->mu);
	for (unsigned i = 0; i < n; i++)
		pthread_join(threads[i], NULL);
	pthread_mutex_lock(&d->mu);
	for (struct sbd_job *j = d->jobs; j; j = j->next)
		if (j->state == SBD_RUNNING && j->runner_done) {
			j->runner_done = false;
			finish_job(d, j);
		}
	pthread_mutex_unlock(&d->mu);
}
