/* SPDX-License-Identifier: MIT */
/*
 * The persistent queue: one SQLite database in the state folder (queue.db, WAL, synchronous
 * FULL) with a row per job: its campaign text (while it is active: a finished job's is
 * dropped), its devices and points as its check found them, target database, owner, state and
 * what resume needs. Only the main thread uses it. Finished jobs beyond a count or an age are
 * pruned, and the file shrinks with them (auto_vacuum incremental).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "daemon.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

#define QUEUE_SCHEMA_VERSION 2
#define FINISHED "('done', 'failed', 'cancelled')"

struct sbd_queue {
	sqlite3 *db;
	char path[PATH_MAX + 16];
};

static int db_error(struct sbd_queue *q, const char *what)
{
	return sb_error_set(SB_ERR_DB, "queue '%s': %s: %s", q->path, what, sqlite3_errmsg(q->db));
}

static int exec(struct sbd_queue *q, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(q->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int e = sb_error_set(SB_ERR_DB, "queue '%s': %s", q->path, msg ? msg : "error");

		sqlite3_free(msg);
		return e;
	}
	return 0;
}

static const char schema[] =
    "CREATE TABLE IF NOT EXISTS queue_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
    "INSERT OR IGNORE INTO queue_meta VALUES ('schema_version', '2');"
    "CREATE TABLE IF NOT EXISTS jobs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " state TEXT NOT NULL, priority INTEGER NOT NULL, workers INTEGER NOT NULL,"
    " uid INTEGER NOT NULL, gid INTEGER NOT NULL, groups TEXT NOT NULL,"
    " name TEXT NOT NULL, file TEXT NOT NULL, db TEXT NOT NULL, campaign TEXT NOT NULL,"
    " campaign_id INTEGER NOT NULL DEFAULT 0, prev_campaign_id INTEGER NOT NULL DEFAULT -1,"
    " points_done INTEGER NOT NULL DEFAULT 0, points_total INTEGER NOT NULL DEFAULT 0,"
    " submitted_at TEXT NOT NULL, started_at TEXT NOT NULL DEFAULT '',"
    " finished_at TEXT NOT NULL DEFAULT '', message TEXT NOT NULL DEFAULT '',"
    " devices TEXT NOT NULL DEFAULT '', checked INTEGER NOT NULL DEFAULT 0,"
    " umask INTEGER NOT NULL DEFAULT 18);";

/* Version 1 (before issue 21): no devices (the daemon parsed each campaign itself), and every
 * finished job's text kept. Its jobs are checked again before they run. */
static const char migrate_1_2[] = "ALTER TABLE jobs ADD COLUMN devices TEXT NOT NULL DEFAULT '';"
                                  "ALTER TABLE jobs ADD COLUMN checked INTEGER NOT NULL DEFAULT 0;"
                                  "ALTER TABLE jobs ADD COLUMN umask INTEGER NOT NULL DEFAULT 18;"
                                  "UPDATE jobs SET campaign = '' WHERE state IN " FINISHED ";"
                                  "UPDATE queue_meta SET value = '2' WHERE key = 'schema_version';";

static int schema_version(struct sbd_queue *q)
{
	sqlite3_stmt *s = NULL;
	int version = 0;

	if (sqlite3_prepare_v2(q->db, "SELECT value FROM queue_meta WHERE key = 'schema_version'",
	                       -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return version;
}

int sbd_queue_open(struct sbd_queue **out, const char *state_dir)
{
	struct sbd_queue *q = calloc(1, sizeof(*q));
	int e, version;

	*out = NULL;
	if (!q)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	snprintf(q->path, sizeof(q->path), "%s/queue.db", state_dir);
	if (sqlite3_open_v2(q->path, &q->db,
	                    SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_FULLMUTEX,
	                    NULL) != SQLITE_OK) {
		e = db_error(q, "cannot open");
		goto fail;
	}
	sqlite3_busy_timeout(q->db, 10000);
	/* Before the first table: the file gives back the pages of pruned jobs. */
	if ((e = exec(q, "PRAGMA auto_vacuum=INCREMENTAL")) < 0 ||
	    (e = exec(q, "PRAGMA journal_mode=WAL")) < 0 ||
	    (e = exec(q, "PRAGMA synchronous=FULL")) < 0 || (e = exec(q, schema)) < 0)
		goto fail;
	version = schema_version(q);
	if (version == 1) {
		sb_info("queue '%s': from schema version 1 to 2 (its jobs are checked again)",
		        q->path);
		if ((e = exec(q, "BEGIN")) < 0 || (e = exec(q, migrate_1_2)) < 0 ||
		    (e = exec(q, "COMMIT")) < 0 || (e = exec(q, "VACUUM")) < 0)
			goto fail;
		version = schema_version(q);
	}
	if (version != QUEUE_SCHEMA_VERSION) {
		e = sb_error_set(SB_ERR_VERSION,
		                 "queue '%s' has schema version %d; this stackbenchd reads %d",
		                 q->path, version, QUEUE_SCHEMA_VERSION);
		goto fail;
	}
	*out = q;
	return 0;
fail:
	sbd_queue_close(q);
	return e;
}

void sbd_queue_close(struct sbd_queue *q)
{
	if (!q)
		return;
	sqlite3_close(q->db);
	free(q);
}

static void text_col(sqlite3_stmt *s, int col, char *dst, size_t size)
{
	const unsigned char *t = sqlite3_column_text(s, col);

	snprintf(dst, size, "%s", t ? (const char *)t : "");
}

static void groups_text(const struct sbd_cred *c, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < c->ngroups && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%lu", i ? " " : "",
		                      (unsigned long)c->groups[i]);
}

static void groups_parse(const char *t, struct sbd_cred *c)
{
	char *end;

	c->ngroups = 0;
	while (t && *t && c->ngroups < SBD_MAX_GROUPS) {
		unsigned long g = strtoul(t, &end, 10);

		if (end == t)
			break;
		c->groups[c->ngroups++] = (gid_t)g;
		t = end;
	}
}

/* Devices as stored: one URI a line. */
static void devices_parse(const char *t, struct sbd_job *j)
{
	j->ndevices = 0;
	while (t && *t && j->ndevices < SB_CAMPAIGN_MAX_DEVICES) {
		size_t n = strcspn(t, "\n");

		snprintf(j->device[j->ndevices++], sizeof(j->device[0]), "%.*s", (int)n, t);
		t += n + (t[n] == '\n');
	}
}

static void devices_text(const struct sbd_job *j, char *buf, size_t size)
{
	size_t o = 0;

	buf[0] = '\0';
	for (unsigned i = 0; i < j->ndevices && o < size; i++)
		o += (size_t)snprintf(buf + o, size - o, "%s%s", i ? "\n" : "", j->device[i]);
}

int sbd_queue_load(struct sbd_queue *q, int (*fn)(void *ctx, struct sbd_job *j), void *ctx)
{
	static const char sql[] =
	    "SELECT id, state, priority, workers, uid, gid, groups, name, file, db, devices, "
	    "campaign_id, prev_campaign_id, points_done, points_total, submitted_at, started_at, "
	    "finished_at, message, checked, umask FROM jobs WHERE state NOT IN " FINISHED " OR "
	    "id IN (SELECT id FROM jobs WHERE state IN " FINISHED " ORDER BY id DESC LIMIT ?1) "
	    "ORDER BY id";
	sqlite3_stmt *s;
	int e = 0, r;

	if (sqlite3_prepare_v2(q->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_error(q, "reading the jobs");
	sqlite3_bind_int(s, 1, SBD_KEEP_IN_MEMORY);
	while (!e && (r = sqlite3_step(s)) == SQLITE_ROW) {
		struct sbd_job *j = calloc(1, sizeof(*j));
		char state[16];

		if (!j) {
			e = sb_error_set(SB_ERR_NOMEM, "out of memory reading the queue");
			break;
		}
		j->id = sqlite3_column_int64(s, 0);
		text_col(s, 1, state, sizeof(state));
		if (sbd_job_state_parse(state, &j->state) < 0) {
			sb_warn("queue '%s': job %" PRId64 " has an unknown state '%s'; failed",
			        q->path, j->id, state);
			j->state = SBD_FAILED;
		}
		j->priority = sqlite3_column_int(s, 2);
		j->workers = (unsigned)sqlite3_column_int(s, 3);
		j->owner.uid = (uid_t)sqlite3_column_int64(s, 4);
		j->owner.gid = (gid_t)sqlite3_column_int64(s, 5);
		groups_parse((const char *)sqlite3_column_text(s, 6), &j->owner);
		text_col(s, 7, j->name, sizeof(j->name));
		text_col(s, 8, j->file, sizeof(j->file));
		text_col(s, 9, j->db, sizeof(j->db));
		devices_parse((const char *)sqlite3_column_text(s, 10), j);
		j->campaign_id = sqlite3_column_int64(s, 11);
		j->prev_campaign_id = sqlite3_column_int64(s, 12);
		j->done = (unsigned)sqlite3_column_int(s, 13);
		j->total = (unsigned)sqlite3_column_int(s, 14);
		j->npoints = j->total;
		text_col(s, 15, j->submitted_at, sizeof(j->submitted_at));
		text_col(s, 16, j->started_at, sizeof(j->started_at));
		text_col(s, 17, j->finished_at, sizeof(j->finished_at));
		text_col(s, 18, j->message, sizeof(j->message));
		j->checked = sqlite3_column_int(s, 19) && j->ndevices;
		j->umask = (unsigned)sqlite3_column_int(s, 20) & 0777;
		j->eta_s = -1;
		e = fn(ctx, j);
	}
	if (!e && r != SQLITE_DONE)
		e = db_error(q, "reading the jobs");
	sqlite3_finalize(s);
	return e;
}

int sbd_queue_text(struct sbd_queue *q, int64_t id, char **text, size_t *len)
{
	sqlite3_stmt *s;
	int e = 0;

	*text = NULL;
	if (sqlite3_prepare_v2(q->db, "SELECT campaign FROM jobs WHERE id = ?1", -1, &s, NULL) !=
	    SQLITE_OK)
		return db_error(q, "reading a campaign");
	sqlite3_bind_int64(s, 1, id);
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_bytes(s, 0) > 0) {
		*len = (size_t)sqlite3_column_bytes(s, 0);
		if ((*text = malloc(*len + 1))) {
			memcpy(*text, sqlite3_column_text(s, 0), *len);
			(*text)[*len] = '\0';
		} else {
			e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		}
	} else {
		e = sb_error_set(SB_ERR_NOT_FOUND,
		                 "queue '%s': job %" PRId64 " has no campaign text", q->path, id);
	}
	sqlite3_finalize(s);
	return e;
}

int sbd_queue_prune(struct sbd_queue *q, unsigned keep_jobs, unsigned keep_days)
{
	static const char sql[] =
	    "DELETE FROM jobs WHERE state IN " FINISHED " AND (id NOT IN (SELECT id FROM jobs "
	    "WHERE state IN " FINISHED " ORDER BY id DESC LIMIT ?1) OR (?2 > 0 AND finished_at "
	    "< strftime('%Y-%m-%dT%H:%M:%SZ', 'now', '-' || ?2 || ' days')))";
	sqlite3_stmt *s;
	int n, e;

	if (sqlite3_prepare_v2(q->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_error(q, "pruning");
	sqlite3_bind_int(s, 1, (int)keep_jobs);
	sqlite3_bind_int(s, 2, (int)keep_days);
	e = sqlite3_step(s) == SQLITE_DONE ? 0 : db_error(q, "pruning");
	sqlite3_finalize(s);
	if (e < 0)
		return e;
	n = sqlite3_changes(q->db);
	if (n && ((e = exec(q, "PRAGMA incremental_vacuum")) < 0 ||
	          (e = exec(q, "PRAGMA wal_checkpoint(TRUNCATE)")) < 0))
		return e;
	return n;
}

int sbd_queue_insert(struct sbd_queue *q, struct sbd_job *j, const char *text, size_t len)
{
	static const char sql[] =
	    "INSERT INTO jobs (state, priority, workers, uid, gid, groups, name, file, db, "
	    "campaign, points_total, submitted_at, devices, checked, umask) VALUES (?1, ?2, ?3, "
	    "?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, 1, ?14)";
	char groups[SBD_MAX_GROUPS * 12], devices[SB_CAMPAIGN_MAX_DEVICES * SB_CAMPAIGN_TEXT_MAX];
	sqlite3_stmt *s;
	int e = 0;

	if (sqlite3_prepare_v2(q->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_error(q, "storing a job");
	groups_text(&j->owner, groups, sizeof(groups));
	sqlite3_bind_text(s, 1, sbd_job_state_name(j->state), -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 2, j->priority);
	sqlite3_bind_int(s, 3, (int)j->workers);
	sqlite3_bind_int64(s, 4, j->owner.uid);
	sqlite3_bind_int64(s, 5, j->owner.gid);
	sqlite3_bind_text(s, 6, groups, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(s, 7, j->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, j->file, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, j->db, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 10, text, (int)len, SQLITE_STATIC);
	sqlite3_bind_int(s, 11, (int)j->npoints);
	sqlite3_bind_text(s, 12, j->submitted_at, -1, SQLITE_STATIC);
	devices_text(j, devices, sizeof(devices));
	sqlite3_bind_text(s, 13, devices, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 14, (int)j->umask);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(q, "storing a job");
	else
		j->id = sqlite3_last_insert_rowid(q->db);
	sqlite3_finalize(s);
	return e;
}

int sbd_queue_save(struct sbd_queue *q, const struct sbd_job *j)
{
	static const char sql[] =
	    "UPDATE jobs SET state = ?2, priority = ?3, campaign_id = ?4, prev_campaign_id = ?5, "
	    "points_done = ?6, points_total = ?7, started_at = ?8, finished_at = ?9, message = "
	    "?10, "
	    "name = ?11, devices = ?12, checked = ?13, campaign = CASE WHEN ?2 IN " FINISHED
	    " THEN '' ELSE campaign END WHERE id = ?1";
	char devices[SB_CAMPAIGN_MAX_DEVICES * SB_CAMPAIGN_TEXT_MAX];
	sqlite3_stmt *s;
	int e = 0;

	if (sqlite3_prepare_v2(q->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_error(q, "saving a job");
	sqlite3_bind_int64(s, 1, j->id);
	sqlite3_bind_text(s, 2, sbd_job_state_name(j->state), -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 3, j->priority);
	sqlite3_bind_int64(s, 4, j->campaign_id);
	sqlite3_bind_int64(s, 5, j->prev_campaign_id);
	sqlite3_bind_int(s, 6, (int)j->done);
	sqlite3_bind_int(s, 7, (int)(j->total ? j->total : j->npoints));
	sqlite3_bind_text(s, 8, j->started_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, j->finished_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 10, j->message, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 11, j->name, -1, SQLITE_STATIC);
	devices_text(j, devices, sizeof(devices));
	sqlite3_bind_text(s, 12, devices, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, 13, j->checked);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(q, "saving a job");
	sqlite3_finalize(s);
	return e;
}
