/* SPDX-License-Identifier: MIT */
/*
 * The persistent queue: one SQLite database in the state folder (queue.db, WAL, synchronous
 * FULL) with a row per job: its campaign text, target database, owner, state and what resume
 * needs. The main thread and the runners share one serialized connection.
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

#define QUEUE_SCHEMA_VERSION 1

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
    "INSERT OR IGNORE INTO queue_meta VALUES ('schema_version', '1');"
    "CREATE TABLE IF NOT EXISTS jobs ("
    " id INTEGER PRIMARY KEY AUTOINCREMENT,"
    " state TEXT NOT NULL, priority INTEGER NOT NULL, workers INTEGER NOT NULL,"
    " uid INTEGER NOT NULL, gid INTEGER NOT NULL, groups TEXT NOT NULL,"
    " name TEXT NOT NULL, file TEXT NOT NULL, db TEXT NOT NULL, campaign TEXT NOT NULL,"
    " campaign_id INTEGER NOT NULL DEFAULT 0, prev_campaign_id INTEGER NOT NULL DEFAULT -1,"
    " points_done INTEGER NOT NULL DEFAULT 0, points_total INTEGER NOT NULL DEFAULT 0,"
    " submitted_at TEXT NOT NULL, started_at TEXT NOT NULL DEFAULT '',"
    " finished_at TEXT NOT NULL DEFAULT '', message TEXT NOT NULL DEFAULT '');";

int sbd_queue_open(struct sbd_queue **out, const char *state_dir)
{
	struct sbd_queue *q = calloc(1, sizeof(*q));
	sqlite3_stmt *s = NULL;
	int e, version = 0;

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
	if ((e = exec(q, "PRAGMA journal_mode=WAL")) < 0 ||
	    (e = exec(q, "PRAGMA synchronous=FULL")) < 0 || (e = exec(q, schema)) < 0)
		goto fail;
	if (sqlite3_prepare_v2(q->db, "SELECT value FROM queue_meta WHERE key = 'schema_version'",
	                       -1, &s, NULL) == SQLITE_OK &&
	    sqlite3_step(s) == SQLITE_ROW)
		version = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
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

int sbd_queue_load(struct sbd_queue *q, int (*fn)(void *ctx, struct sbd_job *j), void *ctx)
{
	static const char sql[] =
	    "SELECT id, state, priority, workers, uid, gid, groups, name, file, db, campaign, "
	    "campaign_id, prev_campaign_id, points_done, points_total, submitted_at, started_at, "
	    "finished_at, message FROM jobs WHERE state IN ('queued', 'running', 'paused') OR "
	    "id IN (SELECT id FROM jobs WHERE state NOT IN ('queued', 'running', 'paused') ORDER "
	    "BY id DESC LIMIT ?1) ORDER BY id";
	sqlite3_stmt *s;
	int e = 0, r;

	if (sqlite3_prepare_v2(q->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_error(q, "reading the jobs");
	sqlite3_bind_int(s, 1, SBD_KEEP_FINISHED);
	while (!e && (r = sqlite3_step(s)) == SQLITE_ROW) {
		struct sbd_job *j = calloc(1, sizeof(*j));
		const unsigned char *text = sqlite3_column_text(s, 10);
		int len = sqlite3_column_bytes(s, 10);
		char state[16];

		if (!j || !(j->text = malloc((size_t)len + 1))) {
			free(j);
			e = sb_error_set(SB_ERR_NOMEM, "out of memory reading the queue");
			break;
		}
		memcpy(j->text, text ? (const char *)text : "", (size_t)len);
		j->text[len] = '\0';
		j->len = (size_t)len;
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
		j->campaign_id = sqlite3_column_int64(s, 11);
		j->prev_campaign_id = sqlite3_column_int64(s, 12);
		j->done = (unsigned)sqlite3_column_int(s, 13);
		j->total = (unsigned)sqlite3_column_int(s, 14);
		text_col(s, 15, j->submitted_at, sizeof(j->submitted_at));
		text_col(s, 16, j->started_at, sizeof(j->started_at));
		text_col(s, 17, j->finished_at, sizeof(j->finished_at));
		text_col(s, 18, j->message, sizeof(j->message));
		j->eta_s = -1;
		e = fn(ctx, j);
	}
	if (!e && r != SQLITE_DONE)
		e = db_error(q, "reading the jobs");
	sqlite3_finalize(s);
	return e;
}

int sbd_queue_insert(struct sbd_queue *q, struct sbd_job *j)
{
	static const char sql[] =
	    "INSERT INTO jobs (state, priority, workers, uid, gid, groups, name, file, db, "
	    "campaign, points_total, submitted_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
	    "?10, ?11, ?12)";
	char groups[SBD_MAX_GROUPS * 12];
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
	sqlite3_bind_text(s, 10, j->text, (int)j->len, SQLITE_STATIC);
	sqlite3_bind_int(s, 11, (int)j->npoints);
	sqlite3_bind_text(s, 12, j->submitted_at, -1, SQLITE_STATIC);
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
	    "points_done = ?6, points_total = ?7, started_at = ?8, finished_at = ?9, message = ?10 "
	    "WHERE id = ?1";
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
	sqlite3_bind_int(s, 7, (int)j->total);
	sqlite3_bind_text(s, 8, j->started_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, j->finished_at, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 10, j->message, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(q, "saving a job");
	sqlite3_finalize(s);
	return e;
}
