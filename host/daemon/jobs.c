/* SPDX-License-Identifier: MIT */
/*
 * Jobs: a submitted campaign, checked by a process running as the submitter, queued,
 * scheduled on free boards (one engine worker per board), run by a job process of its own
 * (proc.c, jobmain.c) into the submitter's database, and controlled (cancel, pause, resume).
 * Resume across restarts: a job that had started continues its own campaign in its database,
 * so a killed daemon loses and repeats no point.
 *
 * This is the main process's side: it decides from what the processes report and never opens
 * what a request names.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "daemon.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

#define PRUNE_EVERY_S 3600.0

/* Submits whose checks run (not in the queue yet). */
static struct sbd_job *checking;

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

/* Root, the daemon's own user, and the group's members when their jobs can run as them. */
bool sbd_peer_allowed(const struct sbd *d, const struct sbd_cred *c)
{
	return c->uid == 0 || c->uid == geteuid() ||
	       (d->can_switch && d->have_group && in_groups(c, d->group_gid));
}

/* Cancel, pause and resume: the job's owner, root or the daemon's user. */
static bool may_manage(const struct sbd_cred *peer, const struct sbd_job *j)
{
	return peer->uid == 0 || peer->uid == geteuid() || peer->uid == j->owner.uid;
}

/* ---- boards -------------------------------------------------------------------------------- */

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

	if (!j->ndevices)
		return -1;
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
	free(j);
}

void sbd_trim_finished(struct sbd *d)
{
	unsigned n = 0;

	for (struct sbd_job *j = d->jobs; j; j = j->next)
		n += sbd_job_finished(j->state);
	for (struct sbd_job **pp = &d->jobs; *pp && n > SBD_KEEP_IN_MEMORY;) {
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

/* Active jobs of a user, with their submits being checked. */
static unsigned active_of(const struct sbd *d, uid_t uid)
{
	unsigned n = 0;

	for (const struct sbd_job *j = d->jobs; j; j = j->next)
		n += !sbd_job_finished(j->state) && j->owner.uid == uid;
	for (const struct sbd_job *j = checking; j; j = j->next)
		n += j->owner.uid == uid;
	return n;
}

/* ---- submit -------------------------------------------------------------------------------- */

const char *sbd_submit(struct sbd *d, uint64_t client, const struct sbd_cred *peer,
                       struct sbd_request *r, char *err, size_t errsize)
{
	const struct sbd_limits *l = &d->opt.limits;
	struct sbd_job *j;
	unsigned mine;
	int e;

	if (r->campaign_len > l->campaign_bytes) {
		snprintf(err, errsize,
		         "the campaign is %zu bytes; this daemon takes at most %u "
		         "(--limit campaign-bytes)",
		         r->campaign_len, l->campaign_bytes);
		return SBD_E_TOO_LONG;
	}
	pthread_mutex_lock(&d->mu);
	mine = active_of(d, peer->uid);
	e = d->stopping ? -1 : (int)d->nactive;
	pthread_mutex_unlock(&d->mu);
	if (e < 0) {
		snprintf(err, errsize, "the daemon is stopping");
		return SBD_E_BUSY;
	}
	if (mine >= l->jobs_per_user) {
		snprintf(err, errsize,
		         "user %lu has %u jobs waiting or running (the limit per user, --limit "
		         "jobs-per-user)",
		         (unsigned long)peer->uid, mine);
		return SBD_E_BUSY;
	}
	if ((unsigned)e >= SBD_MAX_ACTIVE) {
		snprintf(err, errsize, "%d jobs are waiting or running already (the limit)", e);
		return SBD_E_BUSY;
	}
	if (!(j = calloc(1, sizeof(*j)))) {
		snprintf(err, errsize, "out of memory");
		return SBD_E_INTERNAL;
	}
	snprintf(j->file, sizeof(j->file), "%s", r->file);
	snprintf(j->db, sizeof(j->db), "%s", r->db);
	j->priority = r->priority;
	j->workers = r->workers ? r->workers : 1;
	j->owner = *peer;
	j->umask = r->umask >= 0 ? (unsigned)r->umask : 022;
	j->state = SBD_QUEUED;
	j->prev_campaign_id = -1;
	j->eta_s = -1;
	j->d = d;
	/* The campaign's files and the database are the submitter's: a process of theirs reads
	 * them, with a time limit (sbd_job_proc_done() answers). */
	if ((e = sbd_proc_start(d, j, SBD_PROC_CHECK, client, r->tag, r->db_dir_id, r->campaign,
	                        r->campaign_len)) < 0) {
		snprintf(err, errsize, "%s", sb_error_detail());
		free(j);
		return SBD_E_INTERNAL;
	}
	j->next = checking;
	checking = j;
	return NULL;
}

static char *error_line(const char *tag, const char *code, const char *msg)
{
	return sbd_reply_error(tag, code, msg);
}

/* A submit's checks passed: the job is queued (or refused on what the main process knows). */
static void submit_checked(struct sbd *d, struct sbd_job *j, uint64_t client, const char *tag,
                           const char *text, size_t len)
{
	int tmp[SBD_MAX_BOARDS];
	char boards[512], err[1024];
	const char *code = NULL;
	cJSON *o;

	pthread_mutex_lock(&d->mu);
	if (j->workers > j->ndevices && !all_sim(j)) {
		code = SBD_E_BAD_REQUEST;
		snprintf(err, sizeof(err),
		         "jobs %u needs %u device URIs in 'bench.device'; '%s' lists %u",
		         j->workers, j->workers, j->file, j->ndevices);
	} else if (pick_boards(d, j, false, tmp) < 0) {
		list_boards(d, boards, sizeof(boards));
		code = SBD_E_NO_BOARD;
		snprintf(err, sizeof(err),
		         "campaign '%s' needs %u board%s for %s'%s'; this daemon owns %s", j->name,
		         boards_needed(j), boards_needed(j) == 1 ? "" : "s",
		         j->ndevices > 1 ? "its URIs, the first " : "", j->device[0], boards);
	} else {
		j->checked = true;
		sbd_iso_time(sbd_now(), j->submitted_at, sizeof(j->submitted_at));
		if (sbd_queue_insert(d->q, j, text, len) < 0) {
			code = SBD_E_INTERNAL;
			snprintf(err, sizeof(err), "%s", sb_error_detail());
		} else {
			append_job(d, j);
			job_event(d, j);
			sb_info("job %" PRId64
			        ": campaign '%s' (%u points) from user %lu into '%s'",
			        j->id, j->name, j->npoints, (unsigned long)j->owner.uid, j->db);
		}
	}
	if (!code && (o = cJSON_CreateObject()))
		cJSON_AddItemToObject(o, "job", sbd_job_json(j));
	pthread_mutex_unlock(&d->mu);
	if (code) {
		sbd_server_reply(d, client, error_line(tag, code, err));
		free(j);
		return;
	}
	sbd_server_reply(d, client, sbd_reply_ok(tag, o));
	sbd_schedule(d);
}

/* How a process ended, in words: for a job that failed without saying why. */
static void describe_end(const struct sbd_proc_end *end, char *buf, size_t size)
{
	if (WIFSIGNALED(end->status))
		snprintf(buf, size, "its process was killed by signal %d (%s)%s",
		         WTERMSIG(end->status), strsignal(WTERMSIG(end->status)),
		         end->killed ? ", by the daemon" : "");
	else
		snprintf(buf, size, "its process ended (exit status %d) without a result",
		         WEXITSTATUS(end->status));
}

/* The job's process ended (caller holds mu): its new state. */
static void finish_job(struct sbd *d, struct sbd_job *j, const struct sbd_proc_end *end)
{
	char detail[sizeof(j->message)];

	for (unsigned i = 0; i < j->nboards; i++) {
		struct sbd_board *b = &d->boards[j->board[i]];

		b->job = NULL;
		b->in_point = false;
	}
	j->nboards = 0;
	j->eta_s = -1;
	if (end->ended && end->result == 0) {
		snprintf(j->message, sizeof(j->message), "%s", end->message);
		set_state(d, j, SBD_DONE);
	} else if (j->cancel_requested) {
		snprintf(j->message, sizeof(j->message),
		         "cancelled with %u of %u points stored; the campaign stays resumable in "
		         "'%s' (stackbench run FILE --db DB --resume)%s",
		         j->done, j->total, j->db,
		         end->killed ? " (it did not stop in its grace period: killed)" : "");
		set_state(d, j, SBD_CANCELLED);
	} else if (j->pause_requested && end->ended && end->result == SB_ERR_INTERRUPTED) {
		snprintf(j->message, sizeof(j->message), "paused with %u of %u points stored",
		         j->done, j->total);
		set_state(d, j, SBD_PAUSED);
	} else if (d->stopping && !(end->ended && end->result != SB_ERR_INTERRUPTED)) {
		/* The daemon stops: the job stays 'running' in the queue and resumes at the next
		 * start. */
		j->state = SBD_QUEUED;
	} else {
		if (end->ended || end->code)
			snprintf(detail, sizeof(detail), "%s", end->message);
		else
			describe_end(end, detail, sizeof(detail));
		snprintf(j->message, sizeof(j->message), "%s", detail);
		sb_warn("job %" PRId64 " '%s' failed: %s", j->id, j->name, j->message);
		set_state(d, j, SBD_FAILED);
	}
	j->cancel_requested = j->pause_requested = false;
}

void sbd_job_proc_done(struct sbd *d, struct sbd_job *j, enum sbd_proc_mode mode, uint64_t client,
                       const char *tag, struct sbd_proc_end *end, char *text, size_t len)
{
	char msg[sizeof(end->message) + 64];
	bool submit = mode == SBD_PROC_CHECK && !j->id;

	if (submit) {
		for (struct sbd_job **pp = &checking; *pp; pp = &(*pp)->next)
			if (*pp == j) {
				*pp = j->next;
				break;
			}
		j->next = NULL;
	}
	if (mode == SBD_PROC_RUN) {
		pthread_mutex_lock(&d->mu);
		finish_job(d, j, end);
		sbd_trim_finished(d);
		pthread_mutex_unlock(&d->mu);
		sbd_schedule(d);
	} else if (end->checked && !end->code) {
		if (submit) {
			submit_checked(d, j, client, tag, text, len);
		} else {
			/* A job of an older queue, checked now. */
			pthread_mutex_lock(&d->mu);
			j->checked = true;
			save(d, j);
			pthread_mutex_unlock(&d->mu);
			sbd_schedule(d);
		}
	} else {
		if (end->code)
			snprintf(msg, sizeof(msg), "%s", end->message);
		else
			describe_end(end, msg, sizeof(msg));
		if (submit) {
			sbd_server_reply(
			    d, client,
			    error_line(tag, end->code ? end->code : SBD_E_INTERNAL, msg));
			free(j);
		} else {
			pthread_mutex_lock(&d->mu);
			snprintf(j->message, sizeof(j->message), "cannot read its campaign: %s",
			         msg);
			set_state(d, j, SBD_FAILED);
			pthread_mutex_unlock(&d->mu);
		}
	}
	free(text);
}

void sbd_job_first_start(struct sbd *d, struct sbd_job *j, int64_t prev_campaign_id)
{
	j->prev_campaign_id = prev_campaign_id;
	save(d, j);
}

void sbd_job_campaign(struct sbd *d, struct sbd_job *j, int64_t campaign_id)
{
	if (j->campaign_id != campaign_id) {
		j->campaign_id = campaign_id;
		save(d, j);
	}
}

void sbd_check_loaded(struct sbd *d)
{
	for (struct sbd_job *j = d->jobs; j; j = j->next) {
		char *text;
		size_t len;
		int e;

		if (j->checked || sbd_job_finished(j->state))
			continue;
		if ((e = sbd_queue_text(d->q, j->id, &text, &len)) == 0) {
			e = sbd_proc_start(d, j, SBD_PROC_CHECK, 0, NULL, NULL, text, len);
			free(text);
		}
		if (e < 0) {
			pthread_mutex_lock(&d->mu);
			snprintf(j->message, sizeof(j->message), "cannot check its campaign: %s",
			         sb_error_detail());
			set_state(d, j, SBD_FAILED);
			pthread_mutex_unlock(&d->mu);
		}
	}
}

/* ---- scheduling ------------------------------------------------------------------------------ */

/* Another running job writes the same campaign of the same database. */
static bool campaign_running(const struct sbd *d, const struct sbd_job *j)
{
	for (const struct sbd_job *o = d->jobs; o; o = o->next)
		if (o != j && o->state == SBD_RUNNING && !strcmp(o->db, j->db) &&
		    !strcmp(o->name, j->name))
			return true;
	return false;
}

/* Start a job's process on boards (caller holds mu). */
static void start_job(struct sbd *d, struct sbd_job *j, const int *boards)
{
	char *text = NULL;
	size_t len = 0;
	int e;

	j->nboards = boards_needed(j);
	for (unsigned i = 0; i < j->nboards; i++) {
		j->board[i] = boards[i];
		d->boards[boards[i]].job = j;
		d->boards[boards[i]].in_point = false;
		d->boards[boards[i]].has_sample = false;
	}
	j->cancel_requested = j->pause_requested = false;
	j->message[0] = '\0';
	j->eta_s = -1;
	if ((e = sbd_queue_text(d->q, j->id, &text, &len)) == 0)
		e = sbd_proc_start(d, j, SBD_PROC_RUN, 0, NULL, NULL, text, len);
	free(text);
	if (e < 0) {
		for (unsigned i = 0; i < j->nboards; i++)
			d->boards[boards[i]].job = NULL;
		j->nboards = 0;
		snprintf(j->message, sizeof(j->message), "cannot start its process: %s",
		         sb_error_detail());
		set_state(d, j, SBD_FAILED);
		return;
	}
	if (!j->started_at[0])
		sbd_iso_time(sbd_now(), j->started_at, sizeof(j->started_at));
	j->state = SBD_RUNNING;
	save(d, j);
	job_event(d, j);
	sb_info("job %" PRId64 " '%s' runs on '%s'%s as user %lu (process %ld)", j->id, j->name,
	        d->boards[boards[0]].uri, j->nboards > 1 ? " and more" : "",
	        (unsigned long)j->owner.uid, (long)sbd_proc_pid(j->proc));
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
		n += j->state == SBD_QUEUED && j->checked;
	if (n && (v = calloc(n, sizeof(*v)))) {
		for (struct sbd_job *j = d->jobs; j; j = j->next)
			if (j->state == SBD_QUEUED && j->checked)
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

/*
 * A job cancelled without a process (queued or paused): its campaign's notify: command runs
 * in a process as the submitter, given the campaign's text (still kept: the job is not finished
 * yet). The main process does not parse the campaign: a text that cannot hold the key is the
 * only one spared the process.
 */
static void notify_cancelled(struct sbd *d, struct sbd_job *j)
{
	char *text;
	size_t len;

	if (!j->checked || sbd_queue_text(d->q, j->id, &text, &len) < 0) {
		sb_error_clear();
		return;
	}
	if (memmem(text, len, "notify", 6) &&
	    sbd_proc_start(d, j, SBD_PROC_NOTIFY, 0, NULL, NULL, text, len) < 0)
		sb_warn("job %" PRId64 ": cannot start its notify process: %s", j->id,
		        sb_error_detail());
	free(text);
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
			/* The point in progress is dropped; the state follows when its process
			 * ends (SIGTERM now, SIGKILL after the grace period). */
			j->cancel_requested = true;
			sbd_proc_stop(d, j->proc);
		} else {
			notify_cancelled(d, j);
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
			sbd_proc_pause(j->proc, true);
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
			sbd_proc_pause(j->proc, false);
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
	pthread_mutex_lock(&d->mu);
	d->stopping = true;
	for (struct sbd_job *j = d->jobs; j; j = j->next)
		if (j->proc)
			sbd_proc_stop(d, j->proc);
	pthread_cond_broadcast(&d->cond);
	pthread_mutex_unlock(&d->mu);
	for (struct sbd_job *j = checking; j; j = j->next)
		sbd_proc_stop(d, j->proc);
	sbd_proc_stop_reports();
}

void sbd_tick(struct sbd *d)
{
	static double last_prune;
	double now = sbd_now();
	int n;

	sbd_proc_tick(d);
	if (now - last_prune < PRUNE_EVERY_S)
		return;
	last_prune = now;
	if ((n = sbd_queue_prune(d->q, d->opt.limits.keep_jobs, d->opt.limits.keep_days)) < 0)
		sb_warn("%s", sb_error_detail());
	else if (n)
		sb_info("queue: %d finished job%s dropped (--limit keep-jobs, keep-days)", n,
		        n == 1 ? "" : "s");
}
