/* SPDX-License-Identifier: MIT */
/*
 * A campaign copied from one results database into another: its row, its points with their
 * per-port counters and samples, and its events, in one transaction. The columns both schemas
 * have are copied (an older database lacks some; they take their defaults), every row gets a new
 * id. What `report --db A --db B` and `report --against-model` draw from: one database holding
 * the campaigns they compare.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/store.h"
#include "store_int.h"

#define COPY_MAX_COLS 96

static int db_err(struct sb_store *st, const char *what)
{
	return sb_error_set(SB_ERR_DB, "results database '%s': %s: %s", st->path, what,
	                    sqlite3_errmsg(st->db));
}

/* Whether table has a column of that name in st. */
static int has_column(struct sb_store *st, const char *table, const char *col)
{
	char sql[96];
	sqlite3_stmt *s;
	int found = 0;

	snprintf(sql, sizeof(sql), "PRAGMA table_info(%s)", table);
	if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_err(st, "reading its schema");
	while (!found && sqlite3_step(s) == SQLITE_ROW)
		found = !strcmp((const char *)sqlite3_column_text(s, 1), col);
	sqlite3_finalize(s);
	return found;
}

struct copy {
	struct sb_store *dst, *src;
	const char *table;
	const char *key_col; /* the column that ties a row to its owner (campaign_id, point_id) */
	int64_t new_key;     /* ... its value in dst */
	const char *name;    /* campaigns: the name in dst (NULL: the same) */
	/* Called after each row with its id in src and dst (tables with an id). */
	int (*each)(struct copy *cp, int64_t old_id, int64_t new_id);
	void *ctx;
};

/* Copy the rows of cp->table whose key_col is old_key. */
static int copy_rows(struct copy *cp, int64_t old_key)
{
	char sql[512], ins[2048];
	int map[COPY_MAX_COLS], id_col = -1, ncols, n = 0, e = 0;
	size_t len, vlen = 0;
	char values[COPY_MAX_COLS * 3];
	sqlite3_stmt *s = NULL, *w = NULL;

	snprintf(sql, sizeof(sql), "SELECT * FROM %s WHERE %s = ?1 ORDER BY rowid", cp->table,
	         cp->key_col);
	if (sqlite3_prepare_v2(cp->src->db, sql, -1, &s, NULL) != SQLITE_OK)
		return db_err(cp->src, "reading a campaign");
	sqlite3_bind_int64(s, 1, old_key);
	ncols = sqlite3_column_count(s);
	len = (size_t)snprintf(ins, sizeof(ins), "INSERT INTO %s (", cp->table);
	for (int i = 0; i < ncols && i < COPY_MAX_COLS; i++) {
		const char *col = sqlite3_column_name(s, i);

		if (!strcmp(col, "id")) {
			id_col = i;
			continue;
		}
		if ((e = has_column(cp->dst, cp->table, col)) < 0)
			goto out;
		if (!e)
			continue; /* a column the copy's schema does not have */
		len += (size_t)snprintf(ins + len, len < sizeof(ins) ? sizeof(ins) - len : 0,
		                        "%s%s", n ? ", " : "", col);
		vlen += (size_t)snprintf(values + vlen, sizeof(values) - vlen, "%s?", n ? "," : "");
		map[n++] = i;
	}
	e = 0;
	if (len + vlen + 16 >= sizeof(ins)) {
		e = sb_error_set(SB_ERR_INVAL, "table '%s': too many columns to copy", cp->table);
		goto out;
	}
	snprintf(ins + len, sizeof(ins) - len, ") VALUES (%s)", values);
	if (sqlite3_prepare_v2(cp->dst->db, ins, -1, &w, NULL) != SQLITE_OK) {
		e = db_err(cp->dst, "copying a campaign");
		goto out;
	}
	while ((e = sqlite3_step(s)) == SQLITE_ROW) {
		for (int i = 0; i < n; i++) {
			const char *col = sqlite3_column_name(s, map[i]);

			if (!strcmp(col, cp->key_col))
				sqlite3_bind_int64(w, i + 1, cp->new_key);
			else if (cp->name && !strcmp(col, "name"))
				sqlite3_bind_text(w, i + 1, cp->name, -1, SQLITE_STATIC);
			else
				sqlite3_bind_value(w, i + 1, sqlite3_column_value(s, map[i]));
		}
		if (sqlite3_step(w) != SQLITE_DONE) {
			e = db_err(cp->dst, "copying a campaign");
			goto out;
		}
		sqlite3_reset(w);
		if (cp->each && id_col >= 0 &&
		    (e = cp->each(cp, sqlite3_column_int64(s, id_col),
		                  sqlite3_last_insert_rowid(cp->dst->db))) < 0)
			goto out;
	}
	e = e == SQLITE_DONE ? 0 : db_err(cp->src, "reading a campaign");
out:
	sqlite3_finalize(s);
	sqlite3_finalize(w);
	return e;
}

/* A point copied: its per-port counters and samples follow it. */
static int copy_point_rows(struct copy *cp, int64_t old_id, int64_t new_id)
{
	static const char *const tables[] = {"point_ports", "samples", "hbm_points",
	                                     "hbm_point_ports"};
	int e = 0;

	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]) && e >= 0; i++) {
		/* an HBM2 card's points, when both databases have the table (version 7) */
		if (i == 2 && (!cp->src->has_hbm || !cp->dst->has_hbm))
			continue;
		/* and their per-port detail (version 8) */
		if (i == 3 && (!cp->src->has_hbm_ports || !cp->dst->has_hbm_ports))
			continue;
		struct copy sub = {.dst = cp->dst,
		                   .src = cp->src,
		                   .table = tables[i],
		                   .key_col = "point_id",
		                   .new_key = new_id};

		e = copy_rows(&sub, old_id);
	}
	return e;
}

/* The campaign row copied: its points and events follow it. */
static int copy_campaign_rows(struct copy *cp, int64_t old_id, int64_t new_id)
{
	struct copy points = {.dst = cp->dst,
	                      .src = cp->src,
	                      .table = "points",
	                      .key_col = "campaign_id",
	                      .new_key = new_id,
	                      .each = copy_point_rows};
	struct copy events = {.dst = cp->dst,
	                      .src = cp->src,
	                      .table = "events",
	                      .key_col = "campaign_id",
	                      .new_key = new_id};
	int e;

	*(int64_t *)cp->ctx = new_id;
	if ((e = copy_rows(&points, old_id)) < 0)
		return e;
	return copy_rows(&events, old_id);
}

int sb_store_copy_campaign(struct sb_store *dst, struct sb_store *src, int64_t campaign_id,
                           const char *name, int64_t *new_id)
{
	struct copy cp = {.dst = dst,
	                  .src = src,
	                  .table = "campaigns",
	                  .key_col = "id",
	                  .name = name,
	                  .each = copy_campaign_rows,
	                  .ctx = new_id};
	struct sb_store_campaign c;
	char *msg = NULL;
	int e;

	*new_id = 0;
	if ((e = sb_store_campaign_get(src, campaign_id, &c)) < 0)
		return e;
	if (sqlite3_exec(dst->db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
		return db_err(dst, "copying a campaign");
	/* the campaign's own row: key_col "id" is its id, which the copy does not keep (a new id
	   is given), so it is selected by id and its id column skipped */
	e = copy_rows(&cp, campaign_id);
	if (e >= 0 && !*new_id)
		e = sb_error_set(SB_ERR_NOT_FOUND, "no campaign %lld in '%s'",
		                 (long long)campaign_id, src->path);
	if (e >= 0 && sqlite3_exec(dst->db, "COMMIT", NULL, NULL, &msg) != SQLITE_OK) {
		e = sb_error_set(SB_ERR_DB, "results database '%s': %s", dst->path,
		                 msg ? msg : sqlite3_errmsg(dst->db));
		sqlite3_free(msg);
	}
	if (e < 0) {
		sqlite3_exec(dst->db, "ROLLBACK", NULL, NULL, NULL);
		*new_id = 0;
	}
	return e;
}
