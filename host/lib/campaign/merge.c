/* SPDX-License-Identifier: MIT */
/*
 * Merging the shards of a campaign into one campaign (stackbench merge; the last step of a run
 * through Slurm, docs/cluster.md). Two passes. The first reads every input and decides, writing
 * nothing, which runs of which points go into the target: it refuses damaged inputs, inputs of
 * other campaigns, a run present twice with different results, and missing points. The second
 * copies those runs, with their per-port counters, samples, trace captures and events, into the
 * target in one transaction; a target that does not exist yet is built under a temporary name
 * in its folder and renamed into place, so the target is complete or untouched.
 *
 * A run is compared by a 64-bit FNV-1a digest of every value that is a result (everything but
 * row ids, the device URI and worker, wall time, finish time and provenance — where and when it
 * ran, not what it measured), its per-port rows, its samples and its trace capture's figures.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "campaign_trace.h"
#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/output.h"
#include "stackbench/provenance.h"
#include "stackbench/store.h"
#include "stackbench/util.h"
#include "stackbench/version.h"
#include "store_int.h"

/* A run of a point, as first seen in an input. */
struct run {
	unsigned attempt;
	uint64_t digest;
	unsigned src; /* the input */
	int64_t row;  /* points.id there */
	bool failed;
};

/* The runs of one point, and its key (every input must agree on it). */
struct slot {
	struct run *v;
	unsigned n, cap;
	uint64_t key;
};

struct input {
	const char *path;
	int64_t cid; /* the campaign in it */
	unsigned shard, shards;
	unsigned runs, kept; /* runs it holds; runs taken from it */
	char created_at[32];
};

struct merge {
	const char *const *paths;
	unsigned n;
	const struct sb_merge_options *o;
	struct sb_merge_summary *sum;
	struct input *in;
	struct slot *slots;
	unsigned total, retries;
	char name[SB_CAMPAIGN_NAME_MAX], hash[17], kind[16], file[SB_CAMPAIGN_TEXT_MAX];
	char *config, *provenance; /* the first input's campaign */
	/* the second pass */
	sqlite3 *dst;
	int64_t id;       /* the campaign made in the target */
	const char *into; /* the target's final path (trace files go beside it) */
	char **made;      /* trace files made so far (removed on failure) */
	unsigned nmade, capmade;
};

/* Columns that say where or when a run ran, or which row it is, not what it measured. */
static bool not_a_result(const char *col)
{
	static const char *const names[] = {"id",          "campaign_id", "point_id",
	                                    "device",      "worker",      "wall_s",
	                                    "finished_at", "provenance",  "file"};

	for (size_t i = 0; i < SB_ARRAY_SIZE(names); i++)
		if (!strcmp(col, names[i]))
			return true;
	return false;
}

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const unsigned char *p = data;

	for (size_t i = 0; i < n; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

/* Fold the result columns of the current row of s into h: each column's name, type, value. */
static uint64_t digest_row(sqlite3_stmt *s, uint64_t h)
{
	for (int i = 0; i < sqlite3_column_count(s); i++) {
		const char *name = sqlite3_column_name(s, i);
		unsigned char type = (unsigned char)sqlite3_column_type(s, i);
		int64_t v;
		double d;
		int len;

		if (not_a_result(name))
			continue;
		h = fnv(h, name, strlen(name) + 1);
		h = fnv(h, &type, 1);
		switch (type) {
		case SQLITE_INTEGER:
			v = sqlite3_column_int64(s, i);
			h = fnv(h, &v, sizeof(v));
			break;
		case SQLITE_FLOAT:
			d = sqlite3_column_double(s, i);
			h = fnv(h, &d, sizeof(d));
			break;
		case SQLITE_TEXT:
		case SQLITE_BLOB:
			len = sqlite3_column_bytes(s, i);
			h = fnv(h, &len, sizeof(len));
			h = fnv(h, sqlite3_column_blob(s, i), (size_t)len);
			break;
		default:
			break;
		}
	}
	return h;
}

static int db_fail(sqlite3 *db, const char *path, const char *what)
{
	return sb_error_set(SB_ERR_DB, "'%s': %s: %s", path, what, sqlite3_errmsg(db));
}

/* The base name of a path, for messages and the merge event (no machine's folders). */
static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Open an input read-only and check it through (SQLite's quick_check). */
static int open_input(const char *path, struct sb_store **st)
{
	sqlite3_stmt *s;
	sqlite3 *db;
	int e, rc;

	if ((e = sb_store_open_readonly(st, path)) < 0)
		return sb_error_wrap(e,
		                     "cannot read '%s' (damaged, truncated or not a results "
		                     "database?)",
		                     path);
	db = (*st)->db;
	if (sqlite3_prepare_v2(db, "PRAGMA quick_check", -1, &s, NULL) != SQLITE_OK) {
		e = db_fail(db, path, "checking the database");
		goto fail;
	}
	rc = sqlite3_step(s);
	if (rc != SQLITE_ROW || strcmp((const char *)sqlite3_column_text(s, 0), "ok"))
		e = sb_error_set(SB_ERR_DB,
		                 "'%s' is damaged or truncated (SQLite's check: %s): refusing to "
		                 "merge it; run its shard again",
		                 path,
		                 rc == SQLITE_ROW ? (const char *)sqlite3_column_text(s, 0)
		                                  : sqlite3_errmsg(db));
	sqlite3_finalize(s);
	if (e < 0)
		goto fail;
	if ((e = sb_store_schema_version(*st)) < 0)
		goto fail;
	if (e < 2) {
		e = sb_error_set(
		    SB_ERR_VERSION,
		    "'%s' has schema version %d; merge reads version 2 and later (open "
		    "it once with 'stackbench run ... --resume' to upgrade it)",
		    path, e);
		goto fail;
	}
	return 0;
fail:
	sb_store_close(*st);
	*st = NULL;
	return e;
}

static char *column_text(sqlite3_stmt *s, int i)
{
	const char *t = (const char *)sqlite3_column_text(s, i);

	return strdup(t ? t : "");
}

/* The input's campaign: the latest of the name asked for, else its latest. */
static int find_campaign(struct merge *m, unsigned k, struct sb_store *st)
{
	struct input *in = &m->in[k];
	struct sb_store_campaign c;
	sqlite3 *db = st->db;
	sqlite3_stmt *s;
	int e;

	if (m->o->campaign) {
		if ((e = sb_store_campaign_latest(st, m->o->campaign, &c)) < 0)
			return e;
	} else {
		int64_t id = -1;

		if (sqlite3_prepare_v2(db, "SELECT max(id) FROM campaigns", -1, &s, NULL) !=
		    SQLITE_OK)
			return db_fail(db, in->path, "reading campaigns");
		if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_INTEGER)
			id = sqlite3_column_int64(s, 0);
		sqlite3_finalize(s);
		if (id < 0)
			return sb_error_set(SB_ERR_NOT_FOUND, "'%s' holds no campaign", in->path);
		if ((e = sb_store_campaign_get(st, id, &c)) < 0)
			return e;
	}
	in->cid = c.id;
	in->shard = c.shard;
	in->shards = c.shards;
	sb_strlcpy(in->created_at, c.created_at, sizeof(in->created_at));
	if (!k) {
		sb_strlcpy(m->name, c.name, sizeof(m->name));
		sb_strlcpy(m->hash, c.hash, sizeof(m->hash));
		sb_strlcpy(m->file, c.file, sizeof(m->file));
		m->total = c.points_total;
	} else if (strcmp(c.hash, m->hash)) {
		return sb_error_set(
		    SB_ERR_MISMATCH,
		    "'%s' holds campaign '%s' (content hash %s) and '%s' campaign '%s' "
		    "(content hash %s): shards of different campaigns; refusing to "
		    "merge",
		    m->paths[0], m->name, m->hash, in->path, c.name, c.hash);
	} else if (c.points_total != m->total) {
		return sb_error_set(
		    SB_ERR_MISMATCH,
		    "'%s' says campaign '%s' has %u points, '%s' says %u: refusing to "
		    "merge",
		    m->paths[0], m->name, m->total, in->path, c.points_total);
	}
	if (k)
		return 0;
	/* the first input's campaign row: config, kind, provenance; the retries it allows */
	if (sqlite3_prepare_v2(db,
	                       sb_store_schema_version(st) >= 3
	                           ? "SELECT config, kind, provenance FROM campaigns WHERE id = ?1"
	                           : "SELECT config, kind, NULL FROM campaigns WHERE id = ?1",
	                       -1, &s, NULL) != SQLITE_OK)
		return db_fail(db, in->path, "reading the campaign");
	sqlite3_bind_int64(s, 1, c.id);
	e = 0;
	if (sqlite3_step(s) == SQLITE_ROW) {
		cJSON *cfg, *r;

		m->config = column_text(s, 0);
		sb_strlcpy(m->kind, (const char *)sqlite3_column_text(s, 1), sizeof(m->kind));
		if (sqlite3_column_type(s, 2) != SQLITE_NULL)
			m->provenance = column_text(s, 2);
		cfg = m->config ? cJSON_Parse(m->config) : NULL;
		r = cJSON_GetObjectItemCaseSensitive(
		    cJSON_GetObjectItemCaseSensitive(cfg, "recovery"), "retries");
		m->retries = cJSON_IsNumber(r) && r->valuedouble > 0 ? (unsigned)r->valuedouble : 0;
		cJSON_Delete(cfg);
		if (!m->config)
			e = sb_error_set(SB_ERR_NOMEM, "out of memory");
	} else {
		e = db_fail(db, in->path, "reading the campaign");
	}
	sqlite3_finalize(s);
	return e;
}

/* The tables with rows of a run (point_ports, samples, point_traces, hbm_points,
 * hbm_point_ports): digested with it, so that a run is the same only with all of them. */
#define NSUB 5

/* The digest of a run: its point row (current row of p), per-port rows, samples, trace. */
static int digest_run(sqlite3 *db, const char *path, sqlite3_stmt *p, sqlite3_stmt *const sub[NSUB],
                      uint64_t *out)
{
	int64_t row = sqlite3_column_int64(p, 0);
	uint64_t h = digest_row(p, 0xcbf29ce484222325ull);

	for (int k = 0; k < NSUB; k++) {
		int rc;

		if (!sub[k])
			continue;
		sqlite3_reset(sub[k]);
		sqlite3_bind_int64(sub[k], 1, row);
		while ((rc = sqlite3_step(sub[k])) == SQLITE_ROW)
			h = digest_row(sub[k], h);
		if (rc != SQLITE_DONE)
			return db_fail(db, path, "reading a point's counters and samples");
		h = fnv(h, &k, sizeof(k)); /* the tables apart */
	}
	*out = h;
	return 0;
}

static int table_exists(sqlite3 *db, const char *name)
{
	sqlite3_stmt *s;
	int found;

	if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", -1,
	                       &s, NULL) != SQLITE_OK)
		return 0;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return found;
}

/* A trace file named by an input: relative, inside the input's folder, and there. */
static int trace_source(const char *db_path, const char *file, char *abs, size_t size)
{
	char dir[PATH_MAX];
	struct stat sb;

	sb_strlcpy(dir, db_path, sizeof(dir));
	if (!file[0] || file[0] == '/' || strstr(file, "..") || strchr(file, '\n'))
		return sb_error_set(SB_ERR_PARSE, "'%s': trace file '%s' is not a path beside it",
		                    db_path, file);
	if (snprintf(abs, size, "%s/%s", dirname(dir), file) >= (int)size)
		return sb_error_set(SB_ERR_INVAL, "'%s': trace file '%s': path too long", db_path,
		                    file);
	if (stat(abs, &sb) < 0 || !S_ISREG(sb.st_mode))
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "'%s' records the trace capture '%s', which is not there: copy "
		                    "its traces folder beside it",
		                    db_path, abs);
	return 0;
}

/* Tell what differs between two runs that should be the same: the first result column. */
static void describe_difference(struct merge *m, const struct run *a, unsigned bsrc, int64_t brow,
                                char *buf, size_t size)
{
	struct sb_store *sa = NULL, *sb = NULL;
	sqlite3_stmt *x = NULL, *y = NULL;
	static const char sql[] = "SELECT * FROM points WHERE id = ?1";

	snprintf(buf, size, "their per-port counters, samples or trace captures differ");
	if (sb_store_open_readonly(&sa, m->paths[a->src]) < 0 ||
	    sb_store_open_readonly(&sb, m->paths[bsrc]) < 0 ||
	    sqlite3_prepare_v2(sa->db, sql, -1, &x, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(sb->db, sql, -1, &y, NULL) != SQLITE_OK)
		goto out;
	sqlite3_bind_int64(x, 1, a->row);
	sqlite3_bind_int64(y, 1, brow);
	if (sqlite3_step(x) != SQLITE_ROW || sqlite3_step(y) != SQLITE_ROW)
		goto out;
	for (int i = 0; i < sqlite3_column_count(x); i++) {
		const char *name = sqlite3_column_name(x, i);
		const char *u, *v;

		if (not_a_result(name))
			continue;
		for (int j = 0; j < sqlite3_column_count(y); j++) {
			if (strcmp(name, sqlite3_column_name(y, j)))
				continue;
			char nu[32], nv[32];

			u = (const char *)sqlite3_column_text(x, i);
			v = (const char *)sqlite3_column_text(y, j);
			/* numbers as the shortest text that reads back exactly */
			if (sqlite3_column_type(x, i) == SQLITE_FLOAT)
				u = sb_format_double(nu, sizeof(nu), sqlite3_column_double(x, i));
			if (sqlite3_column_type(y, j) == SQLITE_FLOAT)
				v = sb_format_double(nv, sizeof(nv), sqlite3_column_double(y, j));
			if (sqlite3_column_type(x, i) != sqlite3_column_type(y, j) ||
			    strcmp(u ? u : "NULL", v ? v : "NULL")) {
				snprintf(buf, size, "%s is %s in '%s' and %s in '%s'", name,
				         u ? u : "NULL", m->paths[a->src], v ? v : "NULL",
				         m->paths[bsrc]);
				goto out;
			}
		}
	}
out:
	sqlite3_finalize(x);
	sqlite3_finalize(y);
	sb_store_close(sa);
	sb_store_close(sb);
}

/* Record a run of input k (current row of p: id, idx, key, attempt, failed, ...): 1 when the
 * target gets it, 0 for a duplicate. */
static int add_run(struct merge *m, unsigned k, sqlite3_stmt *p, uint64_t digest)
{
	int64_t idx = sqlite3_column_int64(p, 1);
	const char *key = (const char *)sqlite3_column_text(p, 2);
	unsigned attempt = (unsigned)sqlite3_column_int(p, 3);
	uint64_t kh = key ? sb_fnv1a64(key, strlen(key)) : 0;
	struct slot *sl;
	char diff[512];

	if (idx < 0 || (uint64_t)idx >= m->total)
		return sb_error_set(SB_ERR_MISMATCH,
		                    "'%s' holds point %lld of campaign '%s', which has %u points",
		                    m->paths[k], (long long)idx, m->name, m->total);
	sl = &m->slots[idx];
	if (sl->n && sl->key != kh)
		return sb_error_set(SB_ERR_MISMATCH,
		                    "'%s' and '%s' name point %lld differently ('%s'): refusing to "
		                    "merge",
		                    m->paths[sl->v[0].src], m->paths[k], (long long)idx, key);
	sl->key = kh;
	for (unsigned i = 0; i < sl->n; i++) {
		if (sl->v[i].attempt != attempt)
			continue;
		if (sl->v[i].digest == digest) {
			m->sum->duplicates++;
			return 0; /* the same run twice: kept once */
		}
		describe_difference(m, &sl->v[i], k, sqlite3_column_int64(p, 0), diff,
		                    sizeof(diff));
		return sb_error_set(
		    SB_ERR_MISMATCH,
		    "point %lld ('%s'), run %u, is in '%s' and in '%s' with different "
		    "results (%s): refusing to merge; keep one of them",
		    (long long)idx, key ? key : "", attempt + 1, m->paths[sl->v[i].src],
		    m->paths[k], diff);
	}
	if (sl->n == sl->cap) {
		unsigned cap = sl->cap ? 2 * sl->cap : 1;
		struct run *v = realloc(sl->v, cap * sizeof(*v));

		if (!v)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		sl->v = v;
		sl->cap = cap;
	}
	sl->v[sl->n++] = (struct run){attempt, digest, k, sqlite3_column_int64(p, 0),
	                              sqlite3_column_int(p, 4) != 0};
	m->in[k].kept++;
	return 1;
}

/* Pass 1 over input k: which of its runs the target gets. */
static int scan_input(struct merge *m, unsigned k)
{
	struct input *in = &m->in[k];
	struct sb_store *st = NULL;
	sqlite3_stmt *p = NULL, *sub[NSUB] = {NULL};
	sqlite3 *db;
	bool traces;
	int e, rc;

	in->path = m->paths[k];
	if ((e = open_input(in->path, &st)) < 0)
		return e;
	db = st->db;
	if ((e = find_campaign(m, k, st)) < 0)
		goto out;
	if (!k && !(m->slots = calloc(m->total ? m->total : 1, sizeof(*m->slots)))) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	traces = table_exists(db, "point_traces");
	if (sqlite3_prepare_v2(db,
	                       "SELECT id, idx, key, attempt, failed, * FROM points WHERE "
	                       "campaign_id = ?1 ORDER BY idx, attempt",
	                       -1, &p, NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT * FROM point_ports WHERE point_id = ?1 ORDER BY port",
	                       -1, &sub[0], NULL) != SQLITE_OK ||
	    sqlite3_prepare_v2(db, "SELECT * FROM samples WHERE point_id = ?1 ORDER BY seq", -1,
	                       &sub[1], NULL) != SQLITE_OK ||
	    (traces && sqlite3_prepare_v2(db, "SELECT * FROM point_traces WHERE point_id = ?1", -1,
	                                  &sub[2], NULL) != SQLITE_OK) ||
	    (table_exists(db, "hbm_points") &&
	     sqlite3_prepare_v2(db, "SELECT * FROM hbm_points WHERE point_id = ?1", -1, &sub[3],
	                        NULL) != SQLITE_OK) ||
	    (table_exists(db, "hbm_point_ports") &&
	     sqlite3_prepare_v2(db,
	                        "SELECT * FROM hbm_point_ports WHERE point_id = ?1 ORDER BY port",
	                        -1, &sub[4], NULL) != SQLITE_OK)) {
		e = db_fail(db, in->path, "reading points");
		goto out;
	}
	sqlite3_bind_int64(p, 1, in->cid);
	while ((rc = sqlite3_step(p)) == SQLITE_ROW) {
		uint64_t d = 0;

		in->runs++;
		if ((e = digest_run(db, in->path, p, sub, &d)) < 0 || (e = add_run(m, k, p, d)) < 0)
			goto out;
		/* a kept run's trace file must be there to be copied */
		if (e == 1 && traces) {
			char abs[PATH_MAX];

			sqlite3_reset(sub[2]);
			sqlite3_bind_int64(sub[2], 1, sqlite3_column_int64(p, 0));
			if (sqlite3_step(sub[2]) == SQLITE_ROW &&
			    (e = trace_source(in->path,
			                      (const char *)sqlite3_column_text(sub[2], 1), abs,
			                      sizeof(abs))) < 0)
				goto out;
		}
	}
	e = rc == SQLITE_DONE ? 0 : db_fail(db, in->path, "reading points");
out:
	if (e > 0)
		e = 0;
	sqlite3_finalize(p);
	for (int i = 0; i < NSUB; i++)
		sqlite3_finalize(sub[i]);
	sb_store_close(st);
	return e;
}

/* Whether every point is finished (a run without a failure, or every retry used); the first
 * missing ones named in buf. */
static unsigned count_finished(struct merge *m, char *missing, size_t size)
{
	unsigned done = 0, listed = 0;
	size_t len = 0;

	missing[0] = '\0';
	for (unsigned i = 0; i < m->total; i++) {
		const struct slot *sl = &m->slots[i];
		bool ok = sl->n > m->retries;

		for (unsigned r = 0; r < sl->n && !ok; r++)
			ok = !sl->v[r].failed;
		if (ok) {
			done++;
			continue;
		}
		if (listed++ < 8 && len < size)
			len +=
			    (size_t)snprintf(missing + len, size - len, "%s%u", len ? ", " : "", i);
		else if (listed == 9 && len < size)
			len += (size_t)snprintf(missing + len, size - len, ", ...");
	}
	return done;
}

/* --- the second pass: writing ------------------------------------------------------------- */

/* The names of a table's columns, as a malloc'ed array (NULL-terminated). */
static char **table_columns(sqlite3 *db, const char *table)
{
	char sql[128], **v = NULL;
	unsigned n = 0;
	sqlite3_stmt *s;

	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", table);
	if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
		return NULL;
	while (sqlite3_step(s) == SQLITE_ROW) {
		char **w = realloc(v, (n + 2) * sizeof(*v));

		if (!w)
			break;
		v = w;
		v[n++] = column_text(s, 1);
		v[n] = NULL;
	}
	sqlite3_finalize(s);
	return v;
}

static void free_columns(char **v)
{
	for (char **p = v; p && *p; p++)
		free(*p);
	free(v);
}

/*
 * Copying rows of a table from an input to the target: the columns both have, but `skip` (row
 * ids the target gives) and `fixed` (values the caller binds as ?1, ?2, ... of the insert, the
 * copied columns after them). The select takes ?1 in `where`.
 */
struct copier {
	sqlite3_stmt *sel, *ins;
	int nfixed, ncols; /* bound by the caller; copied */
};

static bool in_list(const char *const *list, const char *name)
{
	for (const char *const *p = list; p && *p; p++)
		if (!strcmp(*p, name))
			return true;
	return false;
}

static int copier_make(struct copier *cp, sqlite3 *src, const char *src_path, sqlite3 *dst,
                       const char *table, const char *const *skip, const char *const *fixed,
                       const char *where)
{
	char **sc = table_columns(src, table), **dc = table_columns(dst, table);
	char *sel = NULL, *ins = NULL, *vals = NULL;
	size_t ls = 0, li = 0, lv = 0;
	FILE *fs = open_memstream(&sel, &ls), *fi = open_memstream(&ins, &li),
	     *fv = open_memstream(&vals, &lv);
	int e = 0, n = 0;

	memset(cp, 0, sizeof(*cp));
	if (!sc || !dc || !fs || !fi || !fv) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	fprintf(fs, "SELECT ");
	fprintf(fi, "INSERT INTO %s (", table);
	for (const char *const *f = fixed; f && *f; f++, cp->nfixed++) {
		fprintf(fi, "%s%s", cp->nfixed ? ", " : "", *f);
		fprintf(fv, "%s?%d", cp->nfixed ? ", " : "", cp->nfixed + 1);
	}
	for (char **c = dc; *c; c++) {
		/* our own schema's names, found in the input too: no quoting needed */
		if (!in_list((const char *const *)sc, *c) || in_list(skip, *c) ||
		    in_list(fixed, *c))
			continue;
		fprintf(fs, "%s%s", n ? ", " : "", *c);
		fprintf(fi, "%s%s", n || cp->nfixed ? ", " : "", *c);
		fprintf(fv, "%s?%d", n || cp->nfixed ? ", " : "", cp->nfixed + n + 1);
		n++;
	}
	fclose(fv);
	fv = NULL;
	fprintf(fs, "%s FROM %s WHERE %s", n ? "" : "1", table, where);
	fprintf(fi, ") VALUES (%s)", vals);
	fclose(fs);
	fclose(fi);
	fs = fi = NULL;
	cp->ncols = n;
	if (sqlite3_prepare_v2(src, sel, -1, &cp->sel, NULL) != SQLITE_OK)
		e = db_fail(src, src_path, "reading for the merge");
	else if (sqlite3_prepare_v2(dst, ins, -1, &cp->ins, NULL) != SQLITE_OK)
		e = sb_error_set(SB_ERR_DB, "the target: %s", sqlite3_errmsg(dst));
out:
	if (fs)
		fclose(fs);
	if (fi)
		fclose(fi);
	if (fv)
		fclose(fv);
	free(sel);
	free(ins);
	free(vals);
	free_columns(sc);
	free_columns(dc);
	return e;
}

static void copier_free(struct copier *cp)
{
	sqlite3_finalize(cp->sel);
	sqlite3_finalize(cp->ins);
}

/*
 * Copy the rows cp->sel gives for `where` into the target, the fixed columns bound to the
 * values given (int64 each; text for a fixed value is bound by the caller instead: fix NULL).
 */
static int copier_run(struct copier *cp, sqlite3 *dst, const char *src_path, int64_t where,
                      const int64_t *fix, int64_t *last_id)
{
	int rc;

	sqlite3_reset(cp->sel);
	sqlite3_bind_int64(cp->sel, 1, where);
	while ((rc = sqlite3_step(cp->sel)) == SQLITE_ROW) {
		sqlite3_reset(cp->ins);
		for (int i = 0; fix && i < cp->nfixed; i++)
			sqlite3_bind_int64(cp->ins, i + 1, fix[i]);
		for (int i = 0; i < cp->ncols; i++)
			sqlite3_bind_value(cp->ins, cp->nfixed + i + 1,
			                   sqlite3_column_value(cp->sel, i));
		if (sqlite3_step(cp->ins) != SQLITE_DONE)
			return sb_error_set(SB_ERR_DB, "merging '%s' into the target: %s", src_path,
			                    sqlite3_errmsg(dst));
		if (last_id)
			*last_id = sqlite3_last_insert_rowid(dst);
	}
	if (rc != SQLITE_DONE)
		return sb_error_set(SB_ERR_DB, "reading '%s': %s", src_path,
		                    sqlite3_errmsg(sqlite3_db_handle(cp->sel)));
	return 0;
}

/* Copy a trace file (a hard link when the file system allows) to a new file. */
static int copy_file(const char *from, const char *to)
{
	char buf[65536];
	int in, out, e = 0;
	ssize_t n;

	if (link(from, to) == 0)
		return 0;
	if (errno == EEXIST)
		return sb_error_set(SB_ERR_EXISTS,
		                    "trace file '%s' exists already: refusing to "
		                    "overwrite it",
		                    to);
	if ((in = open(from, O_RDONLY | O_CLOEXEC)) < 0)
		return sb_error_set(sb_errno_code(errno), "cannot read '%s': %s", from,
		                    strerror(errno));
	if ((out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666)) < 0) {
		e = sb_error_set(errno == EEXIST ? SB_ERR_EXISTS : sb_errno_code(errno),
		                 "cannot make '%s': %s", to, strerror(errno));
		close(in);
		return e;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			n = -1;
			break;
		}
	if (n < 0 || fsync(out) < 0)
		e = sb_error_set(SB_ERR_IO, "copying '%s' to '%s': %s", from, to, strerror(errno));
	close(in);
	if (close(out) < 0 && !e)
		e = sb_error_set(SB_ERR_IO, "copying '%s' to '%s': %s", from, to, strerror(errno));
	if (e)
		unlink(to);
	return e;
}

/* The trace capture of a copied run: the file beside the target, the row pointing at it. */
static int copy_trace(struct merge *m, sqlite3 *src, const char *src_path, int64_t row,
                      int64_t new_row, unsigned idx, unsigned attempt)
{
	char from[PATH_MAX], rel[PATH_MAX], to[PATH_MAX];
	struct copier cp;
	sqlite3_stmt *s;
	int e, rc;

	if (sqlite3_prepare_v2(src, "SELECT file FROM point_traces WHERE point_id = ?1", -1, &s,
	                       NULL) != SQLITE_OK)
		return db_fail(src, src_path, "reading trace captures");
	sqlite3_bind_int64(s, 1, row);
	rc = sqlite3_step(s);
	e = rc == SQLITE_ROW ? trace_source(src_path, (const char *)sqlite3_column_text(s, 0), from,
	                                    sizeof(from))
	                     : 0;
	sqlite3_finalize(s);
	if (rc != SQLITE_ROW || e < 0)
		return e;
	if ((e = sb_point_trace_path(m->into, m->id, idx, attempt, rel, sizeof(rel), to,
	                             sizeof(to))) < 0 ||
	    (e = sb_point_trace_mkdir(m->into, rel)) < 0 || (e = copy_file(from, to)) < 0)
		return e;
	if (m->nmade == m->capmade) {
		unsigned cap = m->capmade ? 2 * m->capmade : 16;
		char **v = realloc(m->made, cap * sizeof(*v));

		if (!v) {
			unlink(to);
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		}
		m->made = v;
		m->capmade = cap;
	}
	if (!(m->made[m->nmade] = strdup(to))) {
		unlink(to);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	m->nmade++;
	m->sum->traces++;
	/* the row, pointing at its point in the target and at the file beside the target */
	{
		static const char *const skip[] = {NULL}, *const fixed[] = {"point_id", "file",
		                                                            NULL};

		if ((e = copier_make(&cp, src, src_path, m->dst, "point_traces", skip, fixed,
		                     "point_id = ?1")) < 0)
			return e;
	}
	sqlite3_reset(cp.sel);
	sqlite3_bind_int64(cp.sel, 1, row);
	if (sqlite3_step(cp.sel) == SQLITE_ROW) {
		sqlite3_bind_int64(cp.ins, 1, new_row);
		sqlite3_bind_text(cp.ins, 2, rel, -1, SQLITE_TRANSIENT);
		for (int i = 0; i < cp.ncols; i++)
			sqlite3_bind_value(cp.ins, cp.nfixed + i + 1,
			                   sqlite3_column_value(cp.sel, i));
		if (sqlite3_step(cp.ins) != SQLITE_DONE)
			e = sb_error_set(SB_ERR_DB, "merging a trace capture: %s",
			                 sqlite3_errmsg(m->dst));
	}
	copier_free(&cp);
	return e;
}

/* Whether input k gave the target a run of point idx (its events about it go along). */
static bool gave_point(const struct merge *m, unsigned k, int64_t idx)
{
	const struct slot *sl;

	if (idx < 0 || (uint64_t)idx >= m->total)
		return false;
	sl = &m->slots[idx];
	for (unsigned i = 0; i < sl->n; i++)
		if (sl->v[i].src == k)
			return true;
	return false;
}

/* Pass 2 for input k: its kept runs (rows, ports, samples, traces) and its events. */
static int copy_input(struct merge *m, unsigned k)
{
	static const char *const ids[] = {"id", NULL}, *const campaign[] = {"campaign_id", NULL},
	                         *const point[] = {"point_id", NULL};
	struct input *in = &m->in[k];
	struct copier pts = {0}, ports = {0}, samples = {0}, events = {0}, hbm = {0},
	              hbm_ports = {0};
	struct sb_store *st = NULL;
	sqlite3 *src;
	bool traces, has_hbm, has_hbm_ports;
	int e;

	if ((e = sb_store_open_readonly(&st, in->path)) < 0)
		return e;
	src = st->db;
	traces = table_exists(src, "point_traces") && table_exists(m->dst, "point_traces");
	/* an HBM2 card's points (schema version 7) */
	has_hbm = table_exists(src, "hbm_points") && table_exists(m->dst, "hbm_points");
	/* and their per-port detail (version 8) */
	has_hbm_ports =
	    table_exists(src, "hbm_point_ports") && table_exists(m->dst, "hbm_point_ports");
	if ((e = copier_make(&pts, src, in->path, m->dst, "points", ids, campaign, "id = ?1")) <
	        0 ||
	    (e = copier_make(&ports, src, in->path, m->dst, "point_ports", NULL, point,
	                     "point_id = ?1 ORDER BY port")) < 0 ||
	    (e = copier_make(&samples, src, in->path, m->dst, "samples", NULL, point,
	                     "point_id = ?1 ORDER BY seq")) < 0 ||
	    (e = copier_make(&events, src, in->path, m->dst, "events", ids, campaign, "id = ?1")) <
	        0 ||
	    (has_hbm && (e = copier_make(&hbm, src, in->path, m->dst, "hbm_points", NULL, point,
	                                 "point_id = ?1")) < 0) ||
	    (has_hbm_ports && (e = copier_make(&hbm_ports, src, in->path, m->dst, "hbm_point_ports",
	                                       NULL, point, "point_id = ?1 ORDER BY port")) < 0))
		goto out;
	for (unsigned i = 0; i < m->total && !e; i++) {
		const struct slot *sl = &m->slots[i];

		for (unsigned r = 0; r < sl->n && !e; r++) {
			int64_t new_row = 0;

			if (sl->v[r].src != k)
				continue;
			if ((e = copier_run(&pts, m->dst, in->path, sl->v[r].row, &m->id,
			                    &new_row)) < 0 ||
			    (e = copier_run(&ports, m->dst, in->path, sl->v[r].row, &new_row,
			                    NULL)) < 0 ||
			    (e = copier_run(&samples, m->dst, in->path, sl->v[r].row, &new_row,
			                    NULL)) < 0 ||
			    (has_hbm && (e = copier_run(&hbm, m->dst, in->path, sl->v[r].row,
			                                &new_row, NULL)) < 0) ||
			    (has_hbm_ports && (e = copier_run(&hbm_ports, m->dst, in->path,
			                                      sl->v[r].row, &new_row, NULL)) < 0))
				break;
			if (traces)
				e = copy_trace(m, src, in->path, sl->v[r].row, new_row, i,
				               sl->v[r].attempt);
		}
	}
	if (!e) {
		/* the campaign's events and those about the points it gave, in order */
		sqlite3_stmt *s;
		int rc;

		if (sqlite3_prepare_v2(src,
		                       "SELECT id, point_idx FROM events WHERE campaign_id = ?1 "
		                       "ORDER BY id",
		                       -1, &s, NULL) != SQLITE_OK) {
			e = db_fail(src, in->path, "reading events");
			goto out;
		}
		sqlite3_bind_int64(s, 1, in->cid);
		while (!e && (rc = sqlite3_step(s)) == SQLITE_ROW)
			if (sqlite3_column_type(s, 1) == SQLITE_NULL ||
			    gave_point(m, k, sqlite3_column_int64(s, 1)))
				e = copier_run(&events, m->dst, in->path,
				               sqlite3_column_int64(s, 0), &m->id, NULL);
		if (!e && rc != SQLITE_DONE)
			e = db_fail(src, in->path, "reading events");
		sqlite3_finalize(s);
	}
out:
	copier_free(&pts);
	copier_free(&ports);
	copier_free(&samples);
	copier_free(&events);
	copier_free(&hbm);
	copier_free(&hbm_ports);
	sb_store_close(st);
	return e;
}

/* The merge event's details: the inputs (by file name), the counts, and what merged them. */
static char *merge_data(const struct merge *m)
{
	cJSON *o = cJSON_CreateObject(), *arr = cJSON_AddArrayToObject(o, "sources");
	struct sb_provenance prov;
	char *text;

	for (unsigned k = 0; k < m->n; k++) {
		const struct input *in = &m->in[k];
		cJSON *s = cJSON_CreateObject();
		char shard[32];

		cJSON_AddStringToObject(s, "file", base_name(in->path));
		cJSON_AddNumberToObject(s, "campaign", (double)in->cid);
		if (in->shards) {
			snprintf(shard, sizeof(shard), "%u/%u", in->shard, in->shards);
			cJSON_AddStringToObject(s, "shard", shard);
		} else {
			cJSON_AddNullToObject(s, "shard");
		}
		cJSON_AddNumberToObject(s, "runs", in->runs);
		cJSON_AddNumberToObject(s, "merged", in->kept);
		cJSON_AddItemToArray(arr, s);
	}
	cJSON_AddNumberToObject(o, "points", m->sum->points);
	cJSON_AddNumberToObject(o, "runs", m->sum->runs);
	cJSON_AddNumberToObject(o, "duplicates", m->sum->duplicates);
	cJSON_AddBoolToObject(o, "complete", m->sum->complete);
	sb_provenance_init(&prov);
	sb_provenance_now(prov.finished_at, sizeof(prov.finished_at));
	cJSON_AddItemToObject(o, "provenance", sb_provenance_cjson(&prov));
	text = cJSON_PrintUnformatted(o);
	cJSON_Delete(o);
	return text;
}

static int exec_sql(sqlite3 *db, const char *sql)
{
	if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return sb_error_set(SB_ERR_DB, "the target: %s", sqlite3_errmsg(db));
	return 0;
}

/* The campaign row in the target (its id in m->id). */
static int make_campaign(struct merge *m)
{
	const char *created = m->in[0].created_at;
	sqlite3_stmt *s;
	int e = 0;

	for (unsigned k = 1; k < m->n; k++)
		if (strcmp(m->in[k].created_at, created) < 0)
			created = m->in[k].created_at;
	if (sqlite3_prepare_v2(
	        m->dst,
	        "INSERT INTO campaigns (name, file, hash, config, kind, points_total, status, "
	        "stackbench_version, created_at, finished_at, provenance) VALUES (?1, ?2, ?3, ?4, "
	        "?5, ?6, ?7, ?8, ?9, CASE WHEN ?7 = 'complete' THEN "
	        "strftime('%Y-%m-%dT%H:%M:%fZ','now') END, ?10)",
	        -1, &s, NULL) != SQLITE_OK)
		return sb_error_set(SB_ERR_DB, "the target: %s", sqlite3_errmsg(m->dst));
	sqlite3_bind_text(s, 1, m->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, m->file, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, m->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, m->config, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, m->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 6, (int)m->total);
	/* an incomplete merge (--partial) resumes like an interrupted run */
	sqlite3_bind_text(s, 7, m->sum->complete ? "complete" : "interrupted", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 8, sb_version(), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, created, -1, SQLITE_STATIC);
	if (m->provenance)
		sqlite3_bind_text(s, 10, m->provenance, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 10);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = sb_error_set(SB_ERR_DB, "the target: %s", sqlite3_errmsg(m->dst));
	else
		m->id = sqlite3_last_insert_rowid(m->dst);
	sqlite3_finalize(s);
	return e;
}

/* The merge, in the target's one transaction. */
static int write_target(struct merge *m, struct sb_store *st)
{
	char *data = NULL, msg[256];
	int e;

	m->dst = st->db;
	if ((e = exec_sql(m->dst, "BEGIN IMMEDIATE")) < 0)
		return e;
	if ((e = make_campaign(m)) < 0)
		goto fail;
	m->sum->campaign_id = m->id;
	for (unsigned k = 0; k < m->n; k++)
		if ((e = copy_input(m, k)) < 0)
			goto fail;
	snprintf(msg, sizeof(msg),
	         "merged %u database%s: %u of %u points, %u runs, %u duplicate%s "
	         "dropped",
	         m->n, m->n == 1 ? "" : "s", m->sum->points, m->total, m->sum->runs,
	         m->sum->duplicates, m->sum->duplicates == 1 ? "" : "s");
	if (!(data = merge_data(m))) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((e = sb_store_event_data(st, m->id, -1, "merge", msg, data)) < 0 ||
	    (e = exec_sql(m->dst, "COMMIT")) < 0)
		goto fail;
	cJSON_free(data);
	return 0;
fail:
	cJSON_free(data);
	sqlite3_exec(m->dst, "ROLLBACK", NULL, NULL, NULL);
	return e;
}

static void remove_made(struct merge *m)
{
	for (unsigned i = 0; i < m->nmade; i++) {
		char *slash;

		unlink(m->made[i]);
		/* the folders made for them, when empty */
		if ((slash = strrchr(m->made[i], '/'))) {
			*slash = '\0';
			if (rmdir(m->made[i]) == 0 && (slash = strrchr(m->made[i], '/'))) {
				*slash = '\0';
				rmdir(m->made[i]);
			}
		}
	}
}

/* Rename, refusing to replace a file (link and unlink where the file system has no
 * RENAME_NOREPLACE: NFS). */
static int rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if ((errno == EINVAL || errno == ENOSYS) && link(from, to) == 0) {
		unlink(from);
		return 0;
	}
	return sb_error_set(errno == EEXIST ? SB_ERR_EXISTS : sb_errno_code(errno),
	                    "cannot rename it to '%s': %s", to, strerror(errno));
}

/* A new target: built as DIR/.NAME.merge-XXXXXX, renamed into place when complete. */
static int write_new_target(struct merge *m)
{
	char tmp[PATH_MAX], dir[PATH_MAX], side[PATH_MAX + 8];
	struct sb_store *st = NULL;
	int fd, e;

	sb_strlcpy(dir, m->into, sizeof(dir));
	if (snprintf(tmp, sizeof(tmp), "%s/.%s.merge-XXXXXX", dirname(dir), base_name(m->into)) >=
	    (int)sizeof(tmp))
		return sb_error_set(SB_ERR_INVAL, "'%s': path too long", m->into);
	if ((fd = mkstemp(tmp)) < 0)
		return sb_error_set(sb_errno_code(errno), "cannot make a file beside '%s': %s",
		                    m->into, strerror(errno));
	close(fd);
	if ((e = sb_store_open(&st, tmp)) == 0) {
		e = write_target(m, st);
		sb_store_close(st); /* the last connection: the WAL is folded in and removed */
	}
	if (e == 0 && (e = rename_noreplace(tmp, m->into)) < 0)
		sb_error_wrap(e, "the merged database");
	if (e < 0) {
		unlink(tmp);
		snprintf(side, sizeof(side), "%s-wal", tmp);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", tmp);
		unlink(side);
		return e;
	}
	sb_strlcpy(dir, m->into, sizeof(dir));
	if ((fd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0) {
		fsync(fd);
		close(fd);
	}
	return 0;
}

int sb_store_merge(const char *const *inputs, unsigned n, const char *into,
                   const struct sb_merge_options *o, struct sb_merge_summary *sum)
{
	static const struct sb_merge_options none;
	struct merge m = {.paths = inputs, .n = n, .o = o ? o : &none, .sum = sum, .into = into};
	char missing[256];
	unsigned finished;
	struct stat sb;
	int e = 0;

	memset(sum, 0, sizeof(*sum));
	if (!n)
		return sb_error_set(SB_ERR_INVAL, "nothing to merge");
	if ((e = sb_output_check_inputs(into, inputs, n)) < 0)
		return e;
	if (!(m.in = calloc(n, sizeof(*m.in))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	/* pass 1: read everything, decide, write nothing */
	for (unsigned k = 0; k < n && !e; k++)
		e = scan_input(&m, k);
	if (e < 0)
		goto out;
	sum->inputs = n;
	sum->total = m.total;
	sb_strlcpy(sum->name, m.name, sizeof(sum->name));
	sb_strlcpy(sum->hash, m.hash, sizeof(sum->hash));
	for (unsigned i = 0; i < m.total; i++) {
		sum->points += m.slots[i].n > 0;
		sum->runs += m.slots[i].n;
	}
	finished = count_finished(&m, missing, sizeof(missing));
	sum->complete = finished == m.total;
	if (!sum->complete && !m.o->partial) {
		e = sb_error_set(
		    SB_ERR_STATE,
		    "the inputs hold %u finished of the %u points of campaign '%s' "
		    "(missing or unfinished: %s): run the missing shards (stackbench run "
		    "FILE --shard I/N --resume), or merge with --partial",
		    finished, m.total, m.name, missing);
		goto out;
	}
	/* pass 2 */
	if (stat(into, &sb) == 0) {
		struct sb_store *st;

		if ((e = sb_store_open(&st, into)) == 0) {
			e = write_target(&m, st);
			sb_store_close(st);
		}
	} else if (errno == ENOENT) {
		sum->created = true;
		e = write_new_target(&m);
	} else {
		e = sb_error_set(sb_errno_code(errno), "'%s': %s", into, strerror(errno));
	}
	if (e < 0)
		remove_made(&m);
out:
	for (unsigned i = 0; m.slots && i < m.total; i++)
		free(m.slots[i].v);
	for (unsigned i = 0; i < m.nmade; i++)
		free(m.made[i]);
	free(m.made);
	free(m.slots);
	free(m.in);
	free(m.config);
	free(m.provenance);
	return e;
}
