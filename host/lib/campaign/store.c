/* SPDX-License-Identifier: MIT */
/*
 * The results store on SQLite: schema (versioned), campaigns, one transaction per finished
 * point, queries, and CSV/JSON export. See docs/campaigns.md for the schema.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/store.h"
#include "stackbench/util.h"
#include "stackbench/version.h"
#include "store_int.h"

#define NOW_SQL "strftime('%Y-%m-%dT%H:%M:%fZ','now')"

/* The columns of the points table in schema version 1 (kept in version 2, in this order). */
#define POINTS_COLUMNS_V1                                                                          \
	" id INTEGER PRIMARY KEY,"                                                                 \
	" campaign_id INTEGER NOT NULL REFERENCES campaigns(id),"                                  \
	" idx INTEGER NOT NULL,"                                                                   \
	" key TEXT NOT NULL,"                                                                      \
	" cooling TEXT NOT NULL,"                                                                  \
	" rep INTEGER NOT NULL,"                                                                   \
	" type TEXT NOT NULL,"                                                                     \
	" size_b INTEGER NOT NULL,"                                                                \
	" pattern TEXT NOT NULL,"                                                                  \
	" mode TEXT NOT NULL,"                                                                     \
	" addr_mode_b INTEGER NOT NULL,"                                                           \
	" ports INTEGER NOT NULL,"                                                                 \
	" stream INTEGER NOT NULL,"                                                                \
	" mask_lo INTEGER,"                                                                        \
	" mask_width INTEGER NOT NULL,"                                                            \
	" mask TEXT NOT NULL,"                                                                     \
	" antimask TEXT NOT NULL,"                                                                 \
	" seed TEXT NOT NULL,"                                                                     \
	" device TEXT NOT NULL,"                                                                   \
	" worker INTEGER NOT NULL,"                                                                \
	" duration_ns INTEGER NOT NULL,"                                                           \
	" elapsed_ns INTEGER NOT NULL,"                                                            \
	" reads INTEGER NOT NULL,"                                                                 \
	" writes INTEGER NOT NULL,"                                                                \
	" read_data_bytes INTEGER NOT NULL,"                                                       \
	" bandwidth_gbps REAL NOT NULL,"                                                           \
	" payload_gbps REAL NOT NULL,"                                                             \
	" mrps REAL NOT NULL,"                                                                     \
	" latency_min_ns REAL,"                                                                    \
	" latency_avg_ns REAL,"                                                                    \
	" latency_max_ns REAL,"                                                                    \
	" occupancy REAL,"                                                                         \
	" lost_tags INTEGER NOT NULL,"                                                             \
	" stream_groups INTEGER NOT NULL,"                                                         \
	" mismatches INTEGER NOT NULL,"                                                            \
	" failed INTEGER NOT NULL,"                                                                \
	" fail_t_ns INTEGER,"                                                                      \
	" fast_forward INTEGER NOT NULL,"                                                          \
	" ff_skipped_ns INTEGER NOT NULL,"                                                         \
	" temp_c_avg REAL,"                                                                        \
	" temp_c_max REAL,"                                                                        \
	" power_w_avg REAL,"                                                                       \
	" wall_s REAL NOT NULL,"                                                                   \
	" finished_at TEXT NOT NULL,"

/* Schema version 1. Every change bumps SB_STORE_SCHEMA_VERSION and adds a migration. */
static const char schema_v1[] =
    "CREATE TABLE schema_version ("
    " version INTEGER NOT NULL,"
    " applied_at TEXT NOT NULL);"
    "CREATE TABLE campaigns ("
    " id INTEGER PRIMARY KEY,"
    " name TEXT NOT NULL,"
    " file TEXT NOT NULL,"
    " hash TEXT NOT NULL,"
    " config TEXT NOT NULL,"
    " kind TEXT NOT NULL,"
    " points_total INTEGER NOT NULL,"
    " status TEXT NOT NULL,"
    " stackbench_version TEXT NOT NULL,"
    " created_at TEXT NOT NULL,"
    " finished_at TEXT);"
    "CREATE TABLE points (" POINTS_COLUMNS_V1 " UNIQUE (campaign_id, idx),"
    " UNIQUE (campaign_id, key));"
    "CREATE TABLE point_ports ("
    " point_id INTEGER NOT NULL REFERENCES points(id),"
    " port INTEGER NOT NULL,"
    " reads INTEGER NOT NULL,"
    " writes INTEGER NOT NULL,"
    " read_data_bytes INTEGER NOT NULL,"
    " latency_min_ns REAL,"
    " latency_avg_ns REAL,"
    " latency_max_ns REAL,"
    " tag_peak INTEGER NOT NULL,"
    " lost_tags INTEGER NOT NULL,"
    " PRIMARY KEY (point_id, port));"
    "CREATE TABLE samples ("
    " point_id INTEGER NOT NULL REFERENCES points(id),"
    " seq INTEGER NOT NULL,"
    " t_ns INTEGER NOT NULL,"
    " reads INTEGER NOT NULL,"
    " writes INTEGER NOT NULL,"
    " read_data_bytes INTEGER NOT NULL,"
    " lat_sum_cycles INTEGER NOT NULL,"
    " lat_count INTEGER NOT NULL,"
    " bandwidth_gbps REAL,"
    " mrps REAL,"
    " latency_avg_ns REAL,"
    " temp_c REAL,"
    " power_w REAL,"
    " PRIMARY KEY (point_id, seq));"
    "CREATE TABLE events ("
    " id INTEGER PRIMARY KEY,"
    " campaign_id INTEGER NOT NULL REFERENCES campaigns(id),"
    " point_idx INTEGER,"
    " at TEXT NOT NULL,"
    " kind TEXT NOT NULL,"
    " message TEXT NOT NULL);"
    "CREATE INDEX points_campaign ON points (campaign_id, idx);"
    "CREATE INDEX events_campaign ON events (campaign_id);";

/*
 * Schema version 2 (thermal campaigns): points gain the attempt (a failed point may run again;
 * every run is kept), the thermal results and the cooling state; samples gain the meter's
 * volts and amps; events gain structured data (JSON). The points table is rebuilt because its
 * uniqueness now includes the attempt.
 */
static const char *const points_added_v2[] = {
    "attempt INTEGER NOT NULL DEFAULT 0",
    "temp_c_start REAL",
    "temp_c_steady REAL",
    "power_w_max REAL",
    "fail_temp_c REAL",
    "fail_power_w REAL",
    "cooling_config TEXT",
    "fan_supply_v REAL",
    "fan_supply_a REAL",
    "fan_rpm REAL",
    "desk_fan_distance_cm REAL",
    "cooling_power_w REAL",
};

static const char migrate_v2_tail[] = "INSERT INTO points_v2 SELECT * FROM points;"
                                      "DROP TABLE points;"
                                      "ALTER TABLE points_v2 RENAME TO points;"
                                      "CREATE INDEX points_campaign ON points (campaign_id, idx);"
                                      "ALTER TABLE samples ADD COLUMN volts_v REAL;"
                                      "ALTER TABLE samples ADD COLUMN amps_a REAL;"
                                      "ALTER TABLE events ADD COLUMN data TEXT;"
                                      "INSERT INTO schema_version VALUES (2, " NOW_SQL ");";

static int db_error(struct sb_store *st, const char *what)
{
	return sb_error_set(SB_ERR_DB, "results database '%s': %s: %s", st->path, what,
	                    sqlite3_errmsg(st->db));
}

static int exec(struct sb_store *st, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		int e = sb_error_set(SB_ERR_DB, "results database '%s': %s", st->path,
		                     msg ? msg : sqlite3_errmsg(st->db));

		sqlite3_free(msg);
		return e;
	}
	return 0;
}

/*
 * Statements SQLite may answer with SQLITE_BUSY without waiting in the busy handler (changing
 * the journal mode of a database another process is opening, to avoid a deadlock): retried for
 * up to the busy timeout.
 */
static int exec_retry(struct sb_store *st, const char *sql)
{
	for (int i = 0;; i++) {
		int rc = sqlite3_exec(st->db, sql, NULL, NULL, NULL);

		if (rc == SQLITE_OK)
			return 0;
		if ((rc != SQLITE_BUSY && rc != SQLITE_LOCKED) || i == 1000)
			return sb_error_set(SB_ERR_DB, "results database '%s': %s", st->path,
			                    sqlite3_errmsg(st->db));
		usleep(10000);
	}
}

static int prepare(struct sb_store *st, const char *sql, sqlite3_stmt **stmt)
{
	if (sqlite3_prepare_v2(st->db, sql, -1, stmt, NULL) != SQLITE_OK)
		return db_error(st, "preparing a statement");
	return 0;
}

int sb_store_schema_version(struct sb_store *st)
{
	sqlite3_stmt *s;
	int v = SB_ERR_DB;

	if (prepare(st, "SELECT max(version) FROM schema_version", &s) < 0)
		return SB_ERR_DB;
	if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_INTEGER)
		v = sqlite3_column_int(s, 0);
	else
		sb_error_set(SB_ERR_DB, "results database '%s': no schema version", st->path);
	sqlite3_finalize(s);
	return v;
}

static int table_exists(struct sb_store *st, const char *name)
{
	sqlite3_stmt *s;
	int found;

	if (prepare(st, "SELECT 1 FROM sqlite_master WHERE type='table' AND name=?1", &s) < 0)
		return SB_ERR_DB;
	sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
	found = sqlite3_step(s) == SQLITE_ROW;
	sqlite3_finalize(s);
	return found;
}

static int count_tables(struct sb_store *st)
{
	sqlite3_stmt *s;
	int n = 0;

	if (prepare(st, "SELECT count(*) FROM sqlite_master WHERE type='table'", &s) < 0)
		return SB_ERR_DB;
	if (sqlite3_step(s) == SQLITE_ROW)
		n = sqlite3_column_int(s, 0);
	sqlite3_finalize(s);
	return n;
}

/* Append text to a growing SQL buffer; false when out of memory. */
static bool sql_add(char **buf, size_t *len, const char *text)
{
	size_t n = strlen(text);
	char *b = realloc(*buf, *len + n + 1);

	if (!b)
		return false;
	memcpy(b + *len, text, n + 1);
	*buf = b;
	*len += n;
	return true;
}

/*
 * Version 1 to 2: run inside the caller's transaction, with foreign keys off (the points table
 * is rebuilt).
 */
static int migrate_v2(struct sb_store *st)
{
	char *sql = NULL;
	size_t len = 0;
	bool ok = true;
	int e;

	for (size_t i = 0; i < SB_ARRAY_SIZE(points_added_v2); i++)
		ok = ok && sql_add(&sql, &len, "ALTER TABLE points ADD COLUMN ") &&
		     sql_add(&sql, &len, points_added_v2[i]) && sql_add(&sql, &len, ";");
	ok = ok && sql_add(&sql, &len, "CREATE TABLE points_v2 (" POINTS_COLUMNS_V1);
	for (size_t i = 0; i < SB_ARRAY_SIZE(points_added_v2); i++)
		ok = ok && sql_add(&sql, &len, points_added_v2[i]) && sql_add(&sql, &len, ",");
	ok = ok &&
	     sql_add(&sql, &len,
	             " UNIQUE (campaign_id, idx, attempt), UNIQUE (campaign_id, key, attempt));") &&
	     sql_add(&sql, &len, migrate_v2_tail);
	if (!ok) {
		free(sql);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	e = exec(st, sql);
	free(sql);
	return e < 0 ? sb_error_wrap(e, "upgrading to schema version 2") : 0;
}

/* Version 2 to 3: the provenance of every campaign and of every run of a point (JSON objects,
 * stackbench/provenance.h). Inside the caller's transaction. */
static int migrate_v3(struct sb_store *st)
{
	int e = exec(st, "ALTER TABLE campaigns ADD COLUMN provenance TEXT;"
	                 "ALTER TABLE points ADD COLUMN provenance TEXT;"
	                 "INSERT INTO schema_version VALUES (3, " NOW_SQL ");");

	return e < 0 ? sb_error_wrap(e, "upgrading to schema version 3") : 0;
}

/* Version 3 to 4 (the cooling rig): samples gain the cooling actuator's heatsink thermocouple.
 * Inside the caller's transaction. */
static int migrate_v4(struct sb_store *st)
{
	int e = exec(st, "ALTER TABLE samples ADD COLUMN heatsink_c REAL;"
	                 "INSERT INTO schema_version VALUES (4, " NOW_SQL ");");

	return e < 0 ? sb_error_wrap(e, "upgrading to schema version 4") : 0;
}

/*
 * Version 4 to 5 (trace capture, issue 14): the table of the runs' trace captures. Inside the
 * caller's transaction.
 */
static const char migrate_v5_sql[] = "CREATE TABLE point_traces ("
                                     " point_id INTEGER PRIMARY KEY REFERENCES points(id),"
                                     " file TEXT NOT NULL," /* relative to the database's folder */
                                     " path TEXT NOT NULL," /* onchip or dma */
                                     " burst_records INTEGER NOT NULL,"
                                     " gap_cycles INTEGER NOT NULL,"
                                     " port_mask INTEGER NOT NULL,"
                                     " subpartitions TEXT NOT NULL," /* vault, bank or pc (HBM2) */
                                     " records INTEGER NOT NULL,"
                                     " executed INTEGER NOT NULL,"
                                     " density REAL NOT NULL,"
                                     " captured INTEGER NOT NULL,"
                                     " lost_records INTEGER NOT NULL,"
                                     " bursts INTEGER NOT NULL,"
                                     " lost_bursts INTEGER NOT NULL,"
                                     " cycles INTEGER NOT NULL);"
                                     "INSERT INTO schema_version VALUES (5, " NOW_SQL ");";

/*
 * Version 5 to 6 (shards, docs/cluster.md): a campaign may hold one shard of its points, run
 * apart and merged later. Inside the caller's transaction.
 */
static const char migrate_v6_sql[] = "ALTER TABLE campaigns ADD COLUMN shard INTEGER;"
                                     "ALTER TABLE campaigns ADD COLUMN shards INTEGER;"
                                     "ALTER TABLE campaigns ADD COLUMN shard_points INTEGER;"
                                     "INSERT INTO schema_version VALUES (6, " NOW_SQL ");";

/* What an HBM2 card's point measured, in hbm_points (version 7) and per port in
 * hbm_point_ports (version 8): transactions, payload bytes and GB/s, read latency (AR to the
 * first R beat) and write latency (AW to B) in ns, the read latencies' classes. */
#define HBM_MEASURED_COLUMNS                                                                       \
	" txns INTEGER NOT NULL,"                                                                  \
	" rd_bytes INTEGER NOT NULL,"                                                              \
	" wr_bytes INTEGER NOT NULL,"                                                              \
	" gbps REAL NOT NULL,"                                                                     \
	" rd_lat_avg_ns REAL, rd_lat_min_ns REAL, rd_lat_max_ns REAL,"                             \
	" wr_lat_avg_ns REAL, wr_lat_min_ns REAL, wr_lat_max_ns REAL,"                             \
	" cls_hit INTEGER NOT NULL, cls_closed INTEGER NOT NULL, cls_miss INTEGER NOT NULL,"

/*
 * Version 6 to 7 (HBM2 cards, docs/hbm2.md): an HBM2 card's point is a row of points (its
 * counters in the GUPS point's terms: docs/campaigns.md) and a row of hbm_points with what
 * only an HBM2 point has: the engine's settings, the controller it ran with, the stacks'
 * temperature, write latency, the read latencies' classes and histogram. Inside the caller's
 * transaction.
 */
static const char migrate_v7_sql[] =
    "CREATE TABLE hbm_points ("
    " point_id INTEGER PRIMARY KEY REFERENCES points(id),"
    " op TEXT NOT NULL,"            /* read, write, mix */
    " mix_writes INTEGER NOT NULL," /* of 256 */
    " mode TEXT NOT NULL,"          /* linear, random */
    " burst_b INTEGER NOT NULL,"
    " stride_b INTEGER NOT NULL," /* 0: the burst */
    " ws_b INTEGER NOT NULL,"     /* 0: the target's */
    " outstanding INTEGER NOT NULL,"
    " target TEXT NOT NULL,"   /* local, shiftN, stack */
    " port_set TEXT NOT NULL," /* as the campaign names it: all, N, 0-3,8 */
    " port_mask INTEGER NOT NULL,"
    " nports INTEGER NOT NULL,"
    " policy TEXT NOT NULL," /* asked: keep or an address map */
    " page TEXT NOT NULL,"
    " refresh TEXT NOT NULL,"
    " temp_set_c REAL,"           /* the simulated stacks' temperature asked (NULL: keep) */
    " mc_addr_map TEXT NOT NULL," /* what the controller ran */
    " mc_page TEXT NOT NULL,"
    " mc_refresh TEXT NOT NULL,"
    " stack_temp_c REAL NOT NULL," /* hbm_card.hbm_temp at the end */
    " warmup_ns INTEGER NOT NULL,"
    " window_ns INTEGER NOT NULL,"
    " axi_clock_hz REAL NOT NULL," HBM_MEASURED_COLUMNS
    " hit_max INTEGER NOT NULL, closed_max INTEGER NOT NULL,"
    " hist TEXT NOT NULL," /* JSON array of the 16 bins */
    " hist_base INTEGER NOT NULL, hist_shift INTEGER NOT NULL,"
    " errors INTEGER NOT NULL, mismatches INTEGER NOT NULL);"
    "INSERT INTO schema_version VALUES (7, " NOW_SQL ");";

/*
 * Version 7 to 8 (HBM2 cards' per-port detail): hbm_point_ports, one row per port of an HBM2
 * card's point with what point_ports cannot hold: the port's PC, write latency, the read
 * latencies' classes and histogram (the point's hist_base / hist_shift), its ID peak. The
 * HBM2 points stored before have no rows there (their per-port detail was not kept). Inside the
 * caller's transaction. A port's pc is the first PC of its working set; hist a JSON array of
 * the 16 bins.
 */
#define HBM_PORT_COLUMNS                                                                           \
	" point_id INTEGER NOT NULL REFERENCES points(id),"                                        \
	" port INTEGER NOT NULL,"                                                                  \
	" pc INTEGER NOT NULL," HBM_MEASURED_COLUMNS " hist TEXT NOT NULL,"                        \
	" ids_peak INTEGER NOT NULL,"                                                              \
	" errors INTEGER NOT NULL, mismatches INTEGER NOT NULL,"
static const char migrate_v8_sql[] =
    "CREATE TABLE hbm_point_ports (" HBM_PORT_COLUMNS " PRIMARY KEY (point_id, port));"
    "INSERT INTO schema_version VALUES (8, " NOW_SQL ");";

/*
 * Create the schema in an empty database, or upgrade an older one, inside one write
 * transaction: every check happens under the write lock, so two processes opening a fresh (or
 * an old) database at once cannot both create (or upgrade) it — the second waits, then finds
 * the work done.
 */
static int schema_write(struct sb_store *st)
{
	bool fresh;
	int e, v;

	/* foreign keys cannot change inside a transaction: off now, on again after it */
	if ((e = exec(st, "PRAGMA foreign_keys=OFF")) < 0 ||
	    (e = exec_retry(st, "BEGIN IMMEDIATE")) < 0)
		goto out;
	if ((e = table_exists(st, "schema_version")) < 0)
		goto rollback;
	fresh = !e;
	if (fresh) {
		if ((e = count_tables(st)) < 0)
			goto rollback;
		if (e) {
			e = sb_error_set(SB_ERR_DB,
			                 "'%s' has tables but no schema_version: not a stackbench "
			                 "results database",
			                 st->path);
			goto rollback;
		}
		/* A new database is made the way an old one is upgraded: one path, always run. */
		if ((e = exec(st, schema_v1)) < 0 ||
		    (e = exec(st, "INSERT INTO schema_version VALUES (1, " NOW_SQL ")")) < 0)
			goto rollback;
	}
	if ((v = sb_store_schema_version(st)) < 0) {
		e = v;
		goto rollback;
	}
	if (v > SB_STORE_SCHEMA_VERSION) {
		e = sb_error_set(SB_ERR_VERSION,
		                 "results database '%s' has schema version %d; this stackbench "
		                 "reads up to version %d (upgrade stackbench)",
		                 st->path, v, SB_STORE_SCHEMA_VERSION);
		goto rollback;
	}
	if (v < SB_STORE_SCHEMA_VERSION && !fresh)
		sb_info("results database '%s': upgrading schema version %d to %d", st->path, v,
		        SB_STORE_SCHEMA_VERSION);
	if (v < 2) {
		if ((e = migrate_v2(st)) < 0)
			goto rollback;
		v = 2;
	}
	if (v < 3) {
		if ((e = migrate_v3(st)) < 0)
			goto rollback;
		v = 3;
	}
	if (v < 4) {
		if ((e = migrate_v4(st)) < 0)
			goto rollback;
		v = 4;
	}
	if (v < 5) {
		if ((e = exec(st, migrate_v5_sql)) < 0) {
			sb_error_wrap(e, "upgrading to schema version 5");
			goto rollback;
		}
		v = 5;
	}
	if (v < 6) {
		if ((e = exec(st, migrate_v6_sql)) < 0) {
			sb_error_wrap(e, "upgrading to schema version 6");
			goto rollback;
		}
		v = 6;
	}
	if (v < 7) {
		if ((e = exec(st, migrate_v7_sql)) < 0) {
			sb_error_wrap(e, "upgrading to schema version 7");
			goto rollback;
		}
		v = 7;
	}
	if (v < 8) {
		if ((e = exec(st, migrate_v8_sql)) < 0) {
			sb_error_wrap(e, "upgrading to schema version 8");
			goto rollback;
		}
		v = 8;
	}
	if ((e = exec(st, "COMMIT")) < 0)
		goto rollback;
	st->version = v;
	e = exec(st, "PRAGMA foreign_keys=ON");
	return e;
rollback:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
out:
	sqlite3_exec(st->db, "PRAGMA foreign_keys=ON", NULL, NULL, NULL);
	return e;
}

/* Whether the database has the point_traces table (sets st->has_traces). */
static int find_point_traces(struct sb_store *st)
{
	int e = table_exists(st, "point_traces");

	if (e < 0)
		return e;
	st->has_traces = e;
	if ((e = table_exists(st, "hbm_points")) < 0)
		return e;
	st->has_hbm = e;
	if ((e = table_exists(st, "hbm_point_ports")) < 0)
		return e;
	st->has_hbm_ports = e;
	return 0;
}

/* Check the version of an existing database opened for reading (an older one is read as it
 * is). */
static int schema_read(struct sb_store *st)
{
	int e, v;

	if ((e = table_exists(st, "schema_version")) < 0)
		return e;
	if (!e)
		return sb_error_set(SB_ERR_DB, "'%s' is not a stackbench results database",
		                    st->path);
	v = sb_store_schema_version(st);
	if (v < 0)
		return v;
	if (v > SB_STORE_SCHEMA_VERSION)
		return sb_error_set(SB_ERR_VERSION,
		                    "results database '%s' has schema version %d; this stackbench "
		                    "reads up to version %d (upgrade stackbench)",
		                    st->path, v, SB_STORE_SCHEMA_VERSION);
	st->version = v;
	return 0;
}

static int open_store(struct sb_store **out, const char *path, bool writable)
{
	struct sb_store *st;
	int flags = writable ? SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE : SQLITE_OPEN_READONLY;
	int e;

	*out = NULL;
	if (!writable && access(path, F_OK) != 0)
		return sb_error_set(SB_ERR_NOT_FOUND, "results database '%s' does not exist", path);
	st = calloc(1, sizeof(*st));
	if (!st || !(st->path = strdup(path))) {
		free(st);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	/*
	 * Readers open read-write when they may, with query_only set: a read-only connection to a
	 * WAL database leaves its -wal and -shm files behind, the last read-write one removes them.
	 * A database the user cannot write is opened read-only.
	 */
	if (!writable && access(path, W_OK) == 0 &&
	    sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_FULLMUTEX, NULL) ==
	        SQLITE_OK &&
	    exec(st, "PRAGMA query_only=ON") == 0) {
		/* opened */
	} else {
		if (st->db) {
			sqlite3_close(st->db);
			st->db = NULL;
		}
		if (sqlite3_open_v2(path, &st->db, flags | SQLITE_OPEN_FULLMUTEX, NULL) !=
		    SQLITE_OK) {
			e = db_error(st, "cannot open");
			goto fail;
		}
	}
	sqlite3_busy_timeout(st->db, 10000);
	if (writable) {
		/* WAL: readers (export, report) run beside a campaign; synchronous FULL: a
		 * committed point survives a power cut, not only a kill. */
		if ((e = exec_retry(st, "PRAGMA journal_mode=WAL")) < 0 ||
		    (e = exec(st, "PRAGMA synchronous=FULL")) < 0)
			goto fail;
	}
	if ((e = exec(st, "PRAGMA foreign_keys=ON")) < 0 ||
	    (e = writable ? schema_write(st) : schema_read(st)) < 0 ||
	    (e = find_point_traces(st)) < 0)
		goto fail;
	*out = st;
	return 0;
fail:
	sb_store_close(st);
	return e;
}

int sb_store_open(struct sb_store **st, const char *path)
{
	return open_store(st, path, true);
}

int sb_store_open_readonly(struct sb_store **st, const char *path)
{
	return open_store(st, path, false);
}

void sb_store_close(struct sb_store *st)
{
	if (!st)
		return;
	sqlite3_close(st->db);
	free(st->path);
	free(st);
}

const char *sb_store_path(const struct sb_store *st)
{
	return st->path;
}

int sb_store_campaign_create(struct sb_store *st, const struct sb_campaign *c, int64_t *id)
{
	sqlite3_stmt *s;
	int e = 0;

	if ((e = prepare(st,
	                 "INSERT INTO campaigns (name, file, hash, config, kind, points_total, "
	                 "status, stackbench_version, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, "
	                 "'running', ?7, " NOW_SQL ")",
	                 &s)) < 0)
		return e;
	sqlite3_bind_text(s, 1, c->name, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 2, c->file, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 3, c->hash, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, c->normalized, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 5, c->kind == SB_CAMPAIGN_THERMAL ? "thermal" : "bandwidth", -1,
	                  SQLITE_STATIC);
	sqlite3_bind_int(s, 6, (int)c->npoints);
	sqlite3_bind_text(s, 7, sb_version(), -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(st, "creating the campaign");
	else
		*id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	return e;
}

int sb_store_campaign_provenance(struct sb_store *st, int64_t campaign_id, const char *json)
{
	sqlite3_stmt *s;
	int e;

	if ((e = prepare(st, "UPDATE campaigns SET provenance = ?2 WHERE id = ?1", &s)) < 0)
		return e;
	sqlite3_bind_int64(s, 1, campaign_id);
	sqlite3_bind_text(s, 2, json, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(st, "storing the campaign's provenance");
	sqlite3_finalize(s);
	return e;
}

/* The campaign columns campaign_row() reads; a database before version 6 has no shards. */
int sb_store_campaign_shard(struct sb_store *st, int64_t campaign_id, unsigned shard,
                            unsigned shards, unsigned npoints)
{
	sqlite3_stmt *s;
	int e;

	if ((e = prepare(st,
	                 "UPDATE campaigns SET shard = ?2, shards = ?3, shard_points = ?4 WHERE "
	                 "id = ?1",
	                 &s)) < 0)
		return e;
	sqlite3_bind_int64(s, 1, campaign_id);
	sqlite3_bind_int(s, 2, (int)shard);
	sqlite3_bind_int(s, 3, (int)shards);
	sqlite3_bind_int(s, 4, (int)npoints);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(st, "recording the campaign's shard");
	sqlite3_finalize(s);
	return e;
}

#define CAMPAIGN_COLS_(shards)                                                                     \
	"SELECT c.id, c.name, c.file, c.hash, c.status, c.points_total, "                          \
	"(SELECT count(DISTINCT idx) FROM points p WHERE p.campaign_id = c.id), c.created_at, "    \
	"coalesce(c.finished_at, ''), " shards " FROM campaigns c "
#define CAMPAIGN_COLS_V5 CAMPAIGN_COLS_("0, 0, 0")
#define CAMPAIGN_COLS                                                                              \
	CAMPAIGN_COLS_("coalesce(c.shard, 0), coalesce(c.shards, 0), coalesce(c.shard_points, 0)")

/* The campaigns query of what follows: sql with the columns of the database's version. */
static int campaign_prepare(struct sb_store *st, const char *tail, sqlite3_stmt **s)
{
	char sql[1024];

	snprintf(sql, sizeof(sql), "%s%s", st->version >= 6 ? CAMPAIGN_COLS : CAMPAIGN_COLS_V5,
	         tail);
	return prepare(st, sql, s);
}

static void campaign_row(sqlite3_stmt *s, struct sb_store_campaign *c)
{
	memset(c, 0, sizeof(*c));
	c->id = sqlite3_column_int64(s, 0);
	snprintf(c->name, sizeof(c->name), "%s", (const char *)sqlite3_column_text(s, 1));
	snprintf(c->file, sizeof(c->file), "%s", (const char *)sqlite3_column_text(s, 2));
	snprintf(c->hash, sizeof(c->hash), "%s", (const char *)sqlite3_column_text(s, 3));
	snprintf(c->status, sizeof(c->status), "%s", (const char *)sqlite3_column_text(s, 4));
	c->points_total = (unsigned)sqlite3_column_int(s, 5);
	c->points_done = (unsigned)sqlite3_column_int(s, 6);
	snprintf(c->created_at, sizeof(c->created_at), "%s",
	         (const char *)sqlite3_column_text(s, 7));
	snprintf(c->finished_at, sizeof(c->finished_at), "%s",
	         (const char *)sqlite3_column_text(s, 8));
	c->shard = (unsigned)sqlite3_column_int(s, 9);
	c->shards = (unsigned)sqlite3_column_int(s, 10);
	c->shard_points = (unsigned)sqlite3_column_int(s, 11);
}

static int campaign_one(struct sb_store *st, const char *sql, const char *text, int64_t id,
                        struct sb_store_campaign *out)
{
	sqlite3_stmt *s;
	int e, rc;

	if ((e = campaign_prepare(st, sql, &s)) < 0)
		return e;
	if (text)
		sqlite3_bind_text(s, 1, text, -1, SQLITE_STATIC);
	else
		sqlite3_bind_int64(s, 1, id);
	rc = sqlite3_step(s);
	if (rc == SQLITE_ROW) {
		campaign_row(s, out);
		e = 0;
	} else if (rc == SQLITE_DONE) {
		e = text
		        ? sb_error_set(SB_ERR_NOT_FOUND, "no campaign '%s' in '%s'", text, st->path)
		        : sb_error_set(SB_ERR_NOT_FOUND, "no campaign %lld in '%s'", (long long)id,
		                       st->path);
	} else {
		e = db_error(st, "reading campaigns");
	}
	sqlite3_finalize(s);
	return e;
}

int sb_store_campaign_latest(struct sb_store *st, const char *name, struct sb_store_campaign *out)
{
	return campaign_one(st, "WHERE c.name = ?1 ORDER BY c.id DESC LIMIT 1", name, 0, out);
}

int sb_store_campaign_get(struct sb_store *st, int64_t id, struct sb_store_campaign *out)
{
	return campaign_one(st, "WHERE c.id = ?1", NULL, id, out);
}

int sb_store_campaign_list(struct sb_store *st,
                           int (*fn)(void *ctx, const struct sb_store_campaign *c), void *ctx)
{
	struct sb_store_campaign c;
	sqlite3_stmt *s;
	int e, rc;

	if ((e = campaign_prepare(st, "ORDER BY c.id", &s)) < 0)
		return e;
	e = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		campaign_row(s, &c);
		if ((e = fn(ctx, &c)) < 0)
			break;
	}
	if (e >= 0 && rc != SQLITE_DONE)
		e = db_error(st, "listing campaigns");
	sqlite3_finalize(s);
	return e < 0 ? e : 0;
}

int sb_store_points_attempts(struct sb_store *st, int64_t campaign_id, bool *ok, unsigned *attempts,
                             unsigned n)
{
	sqlite3_stmt *s;
	int e, rc;

	memset(ok, 0, n * sizeof(*ok));
	memset(attempts, 0, n * sizeof(*attempts));
	if ((e = prepare(st,
	                 "SELECT idx, count(*), max(failed = 0) FROM points WHERE campaign_id = ?1 "
	                 "GROUP BY idx",
	                 &s)) < 0)
		return e;
	sqlite3_bind_int64(s, 1, campaign_id);
	e = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		int64_t i = sqlite3_column_int64(s, 0);

		if (i < 0 || (uint64_t)i >= n) {
			e = sb_error_set(
			    SB_ERR_MISMATCH,
			    "campaign %lld in '%s' has point %lld; the file has %u points",
			    (long long)campaign_id, st->path, (long long)i, n);
			break;
		}
		attempts[i] = (unsigned)sqlite3_column_int(s, 1);
		ok[i] = sqlite3_column_int(s, 2) != 0;
	}
	if (!e && rc != SQLITE_DONE)
		e = db_error(st, "reading points");
	sqlite3_finalize(s);
	return e;
}

int sb_store_points_done(struct sb_store *st, int64_t campaign_id, bool *done, unsigned n)
{
	unsigned *attempts = calloc(n ? n : 1, sizeof(*attempts));
	bool *ok = calloc(n ? n : 1, sizeof(*ok));
	int e = SB_ERR_NOMEM;

	if (!attempts || !ok)
		sb_error_set(SB_ERR_NOMEM, "out of memory");
	else if ((e = sb_store_points_attempts(st, campaign_id, ok, attempts, n)) == 0)
		for (unsigned i = 0; i < n; i++)
			done[i] = done[i] || attempts[i];
	free(attempts);
	free(ok);
	return e;
}

int sb_store_campaign_status(struct sb_store *st, int64_t campaign_id, const char *status)
{
	sqlite3_stmt *s;
	int e = 0;

	if ((e = prepare(st,
	                 "UPDATE campaigns SET status = ?2, finished_at = CASE WHEN ?2 = "
	                 "'complete' THEN " NOW_SQL " ELSE NULL END WHERE id = ?1",
	                 &s)) < 0)
		return e;
	sqlite3_bind_int64(s, 1, campaign_id);
	sqlite3_bind_text(s, 2, status, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(st, "updating the campaign");
	sqlite3_finalize(s);
	return e;
}

int sb_store_event(struct sb_store *st, int64_t campaign_id, int point_index, const char *kind,
                   const char *message)
{
	return sb_store_event_data(st, campaign_id, point_index, kind, message, NULL);
}

int sb_store_event_data(struct sb_store *st, int64_t campaign_id, int point_index, const char *kind,
                        const char *message, const char *data)
{
	sqlite3_stmt *s;
	int e = 0;

	if ((e = prepare(st,
	                 "INSERT INTO events (campaign_id, point_idx, at, kind, message, data) "
	                 "VALUES (?1, ?2, " NOW_SQL ", ?3, ?4, ?5)",
	                 &s)) < 0)
		return e;
	if (data)
		sqlite3_bind_text(s, 5, data, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(s, 5);
	sqlite3_bind_int64(s, 1, campaign_id);
	if (point_index >= 0)
		sqlite3_bind_int(s, 2, point_index);
	else
		sqlite3_bind_null(s, 2);
	sqlite3_bind_text(s, 3, kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, message, -1, SQLITE_STATIC);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(st, "recording an event");
	sqlite3_finalize(s);
	return e;
}

/* --- committing a point -------------------------------------------------------------------- */

static void bind_hex(sqlite3_stmt *s, int col, uint64_t v)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "0x%09llx", (unsigned long long)v);
	sqlite3_bind_text(s, col, buf, -1, SQLITE_TRANSIENT);
}

static void bind_opt(sqlite3_stmt *s, int col, bool have, double v)
{
	if (have && isfinite(v))
		sqlite3_bind_double(s, col, v);
	else
		sqlite3_bind_null(s, col);
}

void sb_point_thermal_summary(const struct sb_point_record *rec, struct sb_point_thermal *ts)
{
	const struct sb_point_result *r = rec->result;
	uint64_t from = r->duration_ns - r->duration_ns / 10;
	double tsum = 0, ssum = 0, energy = 0, metered = 0, last = NAN;
	unsigned sn = 0;

	*ts = (struct sb_point_thermal){.temp_max_c = -INFINITY, .power_max_w = -INFINITY};
	for (unsigned i = 0; i < rec->nsamples; i++) {
		const struct sb_sample *x = &rec->samples[i];

		if (isfinite(x->temp_c)) {
			if (!ts->ntemp++)
				ts->temp_start_c = x->temp_c;
			tsum += x->temp_c;
			ts->temp_max_c = fmax(ts->temp_max_c, x->temp_c);
			last = x->temp_c;
			if (x->t_ns >= from) {
				ssum += x->temp_c;
				sn++;
			}
		}
		/* A reading is the mean since the previous sample: weight it by that interval. */
		if (isfinite(x->power_w) && i && x->t_ns > rec->samples[i - 1].t_ns) {
			double dt = (double)(x->t_ns - rec->samples[i - 1].t_ns);

			energy += x->power_w * dt;
			metered += dt;
			ts->power_max_w = fmax(ts->power_max_w, x->power_w);
			ts->npower++;
		}
	}
	ts->temp_avg_c = ts->ntemp ? tsum / ts->ntemp : NAN;
	/* The steady state: the last tenth of the point (the last reading if none fell in it). */
	ts->temp_steady_c = r->failed ? NAN : sn ? ssum / sn : last;
	ts->power_avg_w = metered > 0 ? energy / metered : NAN;
}

static void bind_text_opt(sqlite3_stmt *s, int col, bool have, const char *v)
{
	if (have)
		sqlite3_bind_text(s, col, v, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(s, col);
}

static int insert_point(struct sb_store *st, int64_t campaign_id, const struct sb_point_record *rec,
                        int64_t *point_id)
{
	static const char sql[] =
	    "INSERT INTO points (campaign_id, idx, key, cooling, rep, type, size_b, pattern, mode, "
	    "addr_mode_b, ports, stream, mask_lo, mask_width, mask, antimask, seed, device, "
	    "worker, duration_ns, elapsed_ns, reads, writes, read_data_bytes, bandwidth_gbps, "
	    "payload_gbps, mrps, latency_min_ns, latency_avg_ns, latency_max_ns, occupancy, "
	    "lost_tags, stream_groups, mismatches, failed, fail_t_ns, fast_forward, ff_skipped_ns, "
	    "temp_c_avg, temp_c_max, power_w_avg, wall_s, attempt, temp_c_start, temp_c_steady, "
	    "power_w_max, fail_temp_c, fail_power_w, cooling_config, fan_supply_v, fan_supply_a, "
	    "fan_rpm, desk_fan_distance_cm, cooling_power_w, provenance, finished_at) VALUES (?1, "
	    "?2, "
	    "?3, ?4, "
	    "?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, "
	    "?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, ?39, "
	    "?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48, ?49, ?50, ?51, ?52, ?53, ?54, "
	    "?55, " NOW_SQL ")";
	const struct sb_campaign_point *p = rec->point;
	const struct sb_point_result *r = rec->result;
	const struct sb_bench_metrics *m = &r->metrics;
	const struct sb_cooling_state *cs = &r->cooling;
	struct sb_point_thermal ts;
	bool lat = r->total.lat_count > 0, fail = r->failed;
	sqlite3_stmt *s;
	int e = 0, rc;

	sb_point_thermal_summary(rec, &ts);
	if ((e = prepare(st, sql, &s)) < 0)
		return e;
	sqlite3_bind_int64(s, 1, campaign_id);
	sqlite3_bind_int(s, 2, (int)p->index);
	sqlite3_bind_text(s, 3, p->key, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 4, p->cooling, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 5, (int)p->rep);
	/* an HBM2 card's point: the operation and (pattern) the target */
	sqlite3_bind_text(s, 6,
	                  rec->hbm ? sb_hbm_rw_name(rec->hbm_spec->rw) : sb_req_type_name(p->type),
	                  -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 7, (int)p->size);
	sqlite3_bind_text(s, 8, p->pattern, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, 9, p->mode == SB_GEN_LINEAR ? "linear" : "random", -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 10, (int)rec->addr_mode);
	sqlite3_bind_int(s, 11, (int)r->ports);
	sqlite3_bind_int(s, 12, (int)p->stream);
	if (p->mask_lo >= 0)
		sqlite3_bind_int(s, 13, p->mask_lo);
	else
		sqlite3_bind_null(s, 13);
	sqlite3_bind_int(s, 14, (int)p->mask_width);
	bind_hex(s, 15, rec->mask);
	bind_hex(s, 16, rec->antimask);
	{
		char seed[24];

		snprintf(seed, sizeof(seed), "0x%016llx", (unsigned long long)p->seed);
		sqlite3_bind_text(s, 17, seed, -1, SQLITE_TRANSIENT);
	}
	sqlite3_bind_text(s, 18, rec->device, -1, SQLITE_STATIC);
	sqlite3_bind_int(s, 19, (int)rec->worker);
	sqlite3_bind_int64(s, 20, (sqlite3_int64)rec->duration_ns);
	sqlite3_bind_int64(s, 21, (sqlite3_int64)r->duration_ns);
	sqlite3_bind_int64(s, 22, (sqlite3_int64)r->total.reads);
	sqlite3_bind_int64(s, 23, (sqlite3_int64)r->total.writes);
	sqlite3_bind_int64(s, 24, (sqlite3_int64)(r->total.read_data_flits * 16));
	sqlite3_bind_double(s, 25, m->bandwidth_gbps);
	sqlite3_bind_double(s, 26, m->payload_gbps);
	sqlite3_bind_double(s, 27, m->mrps);
	bind_opt(s, 28, lat, m->lat_min_ns);
	bind_opt(s, 29, lat, m->lat_avg_ns);
	bind_opt(s, 30, lat, m->lat_max_ns);
	bind_opt(s, 31, lat, m->occupancy);
	sqlite3_bind_int64(s, 32, r->total.lost_tags);
	sqlite3_bind_int(s, 33, (int)r->stream_groups);
	sqlite3_bind_int(s, 34, (int)r->mismatches);
	sqlite3_bind_int(s, 35, fail);
	if (fail)
		sqlite3_bind_int64(s, 36, (sqlite3_int64)(r->t_fail_ns - r->t_start_ns));
	else
		sqlite3_bind_null(s, 36);
	sqlite3_bind_int(s, 37, r->fast_forward);
	sqlite3_bind_int64(s, 38, (sqlite3_int64)r->ff_skipped_ns);
	bind_opt(s, 39, ts.ntemp, ts.temp_avg_c);
	bind_opt(s, 40, ts.ntemp, ts.temp_max_c);
	bind_opt(s, 41, ts.npower, ts.power_avg_w);
	sqlite3_bind_double(s, 42, rec->wall_s);
	sqlite3_bind_int(s, 43, (int)rec->attempt);
	bind_opt(s, 44, ts.ntemp, ts.temp_start_c);
	bind_opt(s, 45, ts.ntemp, ts.temp_steady_c);
	bind_opt(s, 46, ts.npower, ts.power_max_w);
	bind_opt(s, 47, fail, r->failure.temperature_c);
	bind_opt(s, 48, fail, r->failure.power_w);
	bind_text_opt(s, 49, r->has_cooling, cs->name);
	bind_opt(s, 50, r->has_cooling, cs->fan_supply_v);
	bind_opt(s, 51, r->has_cooling, cs->fan_supply_a);
	bind_opt(s, 52, r->has_cooling, cs->fan_rpm);
	bind_opt(s, 53, r->has_cooling, cs->desk_fan_distance_cm);
	bind_opt(s, 54, r->has_cooling, cs->cooling_power_w);
	bind_text_opt(s, 55, rec->provenance != NULL, rec->provenance);
	rc = sqlite3_step(s);
	if (rc == SQLITE_CONSTRAINT)
		e = sb_error_set(SB_ERR_EXISTS,
		                 "campaign %lld in '%s' already has point %u ('%s'), run %u",
		                 (long long)campaign_id, st->path, p->index, p->key, rec->attempt);
	else if (rc != SQLITE_DONE)
		e = db_error(st, "storing a point");
	else
		*point_id = sqlite3_last_insert_rowid(st->db);
	sqlite3_finalize(s);
	return e;
}

static int insert_ports(struct sb_store *st, int64_t point_id, const struct sb_point_result *r)
{
	sqlite3_stmt *s;
	double ns = r->clock_hz > 0 ? 1e9 / r->clock_hz : 0;
	int e;

	if ((e = prepare(st,
	                 "INSERT INTO point_ports VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10)",
	                 &s)) < 0)
		return e;
	for (unsigned i = 0; i < r->ports && !e; i++) {
		const struct sb_port_counters *c = &r->port[i];
		bool lat = c->lat_count > 0;

		sqlite3_bind_int64(s, 1, point_id);
		sqlite3_bind_int(s, 2, (int)r->port_id[i]);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)c->reads);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)c->writes);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)(c->read_data_flits * 16));
		bind_opt(s, 6, lat, c->lat_min_cycles * ns);
		bind_opt(s, 7, lat,
		         lat ? (double)c->lat_sum_cycles / (double)c->lat_count * ns : 0);
		bind_opt(s, 8, lat, c->lat_max_cycles * ns);
		sqlite3_bind_int(s, 9, (int)c->tag_peak);
		sqlite3_bind_int(s, 10, (int)c->lost_tags);
		if (sqlite3_step(s) != SQLITE_DONE)
			e = db_error(st, "storing per-port counters");
		sqlite3_reset(s);
	}
	sqlite3_finalize(s);
	return e;
}

static int insert_samples(struct sb_store *st, int64_t point_id, const struct sb_point_record *rec)
{
	const struct sb_point_result *r = rec->result;
	const struct sb_campaign_point *p = rec->point;
	struct sb_sample prev = {0};
	sqlite3_stmt *s;
	int e;

	if ((e = prepare(st,
	                 "INSERT INTO samples (point_id, seq, t_ns, reads, writes, "
	                 "read_data_bytes, lat_sum_cycles, lat_count, bandwidth_gbps, mrps, "
	                 "latency_avg_ns, temp_c, power_w, volts_v, amps_a, heatsink_c) VALUES "
	                 "(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
	                 &s)) < 0)
		return e;
	for (unsigned i = 0; i < rec->nsamples && !e; i++) {
		const struct sb_sample *x = &rec->samples[i];
		/* Metrics over the interval since the previous sample (flit accounting). */
		struct sb_bench_counts bc = {
		    .reads = x->reads - prev.reads,
		    .writes = x->writes - prev.writes,
		    .size = p->size,
		    .duration_ns = (double)(x->t_ns - prev.t_ns),
		    .lat_sum_cycles = x->lat_sum_cycles - prev.lat_sum_cycles,
		    .lat_count = x->lat_count - prev.lat_count,
		    .clock_hz = r->clock_hz,
		};
		struct sb_bench_metrics m;
		bool ok = sb_bench_metrics(&bc, &m) == 0;

		sqlite3_bind_int64(s, 1, point_id);
		sqlite3_bind_int(s, 2, (int)i);
		sqlite3_bind_int64(s, 3, (sqlite3_int64)x->t_ns);
		sqlite3_bind_int64(s, 4, (sqlite3_int64)x->reads);
		sqlite3_bind_int64(s, 5, (sqlite3_int64)x->writes);
		sqlite3_bind_int64(s, 6, (sqlite3_int64)(x->read_data_flits * 16));
		sqlite3_bind_int64(s, 7, (sqlite3_int64)x->lat_sum_cycles);
		sqlite3_bind_int64(s, 8, (sqlite3_int64)x->lat_count);
		bind_opt(s, 9, ok, m.bandwidth_gbps);
		bind_opt(s, 10, ok, m.mrps);
		bind_opt(s, 11, ok && bc.lat_count, m.lat_avg_ns);
		bind_opt(s, 12, true, x->temp_c);
		bind_opt(s, 13, true, x->power_w);
		bind_opt(s, 14, true, x->volts_v);
		bind_opt(s, 15, true, x->amps_a);
		bind_opt(s, 16, true, x->heatsink_c);
		if (sqlite3_step(s) != SQLITE_DONE)
			e = db_error(st, "storing samples");
		sqlite3_reset(s);
		prev = *x;
	}
	sqlite3_finalize(s);
	return e;
}

/* A JSON array of n histogram bins into buf. */
static void hist_json(char *buf, size_t size, const uint64_t *bins, unsigned n)
{
	size_t len = (size_t)snprintf(buf, size, "[");

	for (unsigned b = 0; b < n && len < size; b++)
		len += (size_t)snprintf(buf + len, size - len, "%s%llu", b ? "," : "",
		                        (unsigned long long)bins[b]);
	if (len < size)
		snprintf(buf + len, size - len, "]");
}

/* An HBM2 card's point, port by port (table hbm_point_ports): latencies in ns of the AXI
 * clock, as the point's totals. */
static int insert_hbm_ports(struct sb_store *st, int64_t point_id, const struct sb_hbm_result *h)
{
	double cyc_ns = h->axi_clock_hz > 0 ? 1e9 / h->axi_clock_hz : 0;
	char hist[SB_HBM_HIST_BINS * 22 + 4];
	sqlite3_stmt *s;
	int e;

	if (!st->has_hbm_ports)
		return sb_error_set(SB_ERR_DB, "results database '%s' has no hbm_point_ports table",
		                    st->path);
	if ((e = prepare(st,
	                 "INSERT INTO hbm_point_ports VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, "
	                 "?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
	                 &s)) < 0)
		return e;
	for (unsigned k = 0; k < h->nports && k < SB_HBM_MAX_PORTS && e >= 0; k++) {
		const struct sb_hbm_port_result *p = &h->port[k];
		uint64_t bins[SB_HBM_HIST_BINS];
		bool rd = p->rd_lat_count > 0, wr = p->wr_lat_count > 0;
		int i = 1;

		for (unsigned b = 0; b < SB_HBM_HIST_BINS; b++)
			bins[b] = p->hist[b];
		hist_json(hist, sizeof(hist), bins, SB_HBM_HIST_BINS);
		sqlite3_reset(s);
		sqlite3_bind_int64(s, i++, point_id);
		sqlite3_bind_int(s, i++, (int)p->port);
		sqlite3_bind_int(s, i++, (int)p->pc);
		sqlite3_bind_int64(s, i++, (int64_t)p->txns);
		sqlite3_bind_int64(s, i++, (int64_t)p->rd_bytes);
		sqlite3_bind_int64(s, i++, (int64_t)p->wr_bytes);
		sqlite3_bind_double(s, i++, p->gbps);
		bind_opt(s, i++, rd,
		         rd ? (double)p->rd_lat_sum / (double)p->rd_lat_count * cyc_ns : 0);
		bind_opt(s, i++, rd, p->rd_lat_min * cyc_ns);
		bind_opt(s, i++, rd, p->rd_lat_max * cyc_ns);
		bind_opt(s, i++, wr,
		         wr ? (double)p->wr_lat_sum / (double)p->wr_lat_count * cyc_ns : 0);
		bind_opt(s, i++, wr, p->wr_lat_min * cyc_ns);
		bind_opt(s, i++, wr, p->wr_lat_max * cyc_ns);
		sqlite3_bind_int64(s, i++, p->cls_hit);
		sqlite3_bind_int64(s, i++, p->cls_closed);
		sqlite3_bind_int64(s, i++, p->cls_miss);
		sqlite3_bind_text(s, i++, hist, -1, SQLITE_TRANSIENT);
		sqlite3_bind_int64(s, i++, p->ids_peak);
		sqlite3_bind_int64(s, i++, p->errors);
		sqlite3_bind_int64(s, i++, p->mismatches);
		if (sqlite3_step(s) != SQLITE_DONE)
			e = db_error(st, "storing an HBM2 point's ports");
	}
	sqlite3_finalize(s);
	return e < 0 ? e : 0;
}

/* An HBM2 card's point: what only it has (table hbm_points). */
static int insert_hbm(struct sb_store *st, int64_t point_id, const struct sb_point_record *rec)
{
	static const char *const pages[] = {"keep", "open", "closed"};
	static const char *const refreshes[] = {"keep", "all_bank", "single_bank"};
	const struct sb_hbm_spec *sp = rec->hbm_spec;
	const struct sb_hbm_result *h = rec->hbm;
	char target[24], hist[SB_HBM_HIST_BINS * 22 + 4];
	sqlite3_stmt *s;
	int e, i = 1;
	bool rd = h->rd_bytes > 0, wr = h->wr_bytes > 0;

	if (!st->has_hbm)
		return sb_error_set(SB_ERR_DB, "results database '%s' has no hbm_points table",
		                    st->path);
	if ((e = prepare(st,
	                 "INSERT INTO hbm_points VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	                 "?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, "
	                 "?25, ?26, ?27, ?28, ?29, ?30, ?31, ?32, ?33, ?34, ?35, ?36, ?37, ?38, "
	                 "?39, ?40, ?41, ?42, ?43)",
	                 &s)) < 0)
		return e;
	hist_json(hist, sizeof(hist), h->hist, SB_HBM_HIST_BINS);
	sqlite3_bind_int64(s, i++, point_id);
	sqlite3_bind_text(s, i++, sb_hbm_rw_name(sp->rw), -1, SQLITE_STATIC);
	sqlite3_bind_int(s, i++, (int)sp->mix_writes);
	sqlite3_bind_text(s, i++, sp->random ? "random" : "linear", -1, SQLITE_STATIC);
	sqlite3_bind_int(s, i++, (int)sp->burst);
	sqlite3_bind_int64(s, i++, sp->stride);
	sqlite3_bind_int64(s, i++, (int64_t)sp->ws);
	sqlite3_bind_int(s, i++, (int)sp->outstanding);
	sqlite3_bind_text(s, i++, sb_hbm_target_text(&sp->target, target, sizeof(target)), -1,
	                  SQLITE_TRANSIENT);
	sqlite3_bind_text(s, i++, rec->point->port_set, -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, i++, sp->port_mask);
	sqlite3_bind_int(s, i++, (int)h->nports);
	sqlite3_bind_text(s, i++,
	                  sp->addr_map < 0 ? "keep" : sb_hbm_map_text((unsigned)sp->addr_map), -1,
	                  SQLITE_STATIC);
	sqlite3_bind_text(s, i++, pages[sp->closed_page + 1], -1, SQLITE_STATIC);
	sqlite3_bind_text(s, i++, refreshes[sp->refresh + 1], -1, SQLITE_STATIC);
	bind_opt(s, i++, sp->temp_c > 0, sp->temp_c);
	sqlite3_bind_text(s, i++, sb_hbm_map_text(h->mc.addr_map), -1, SQLITE_STATIC);
	sqlite3_bind_text(s, i++, h->mc.closed_page ? "closed" : "open", -1, SQLITE_STATIC);
	sqlite3_bind_text(s, i++, h->mc.refresh ? "single_bank" : "all_bank", -1, SQLITE_STATIC);
	sqlite3_bind_double(s, i++, h->temp_c);
	sqlite3_bind_int64(s, i++, (int64_t)sp->warmup_ns);
	sqlite3_bind_int64(s, i++, (int64_t)h->window_ns);
	sqlite3_bind_double(s, i++, h->axi_clock_hz);
	sqlite3_bind_int64(s, i++, (int64_t)h->txns);
	sqlite3_bind_int64(s, i++, (int64_t)h->rd_bytes);
	sqlite3_bind_int64(s, i++, (int64_t)h->wr_bytes);
	sqlite3_bind_double(s, i++, h->gbps);
	bind_opt(s, i++, rd, h->rd_lat_avg_ns);
	bind_opt(s, i++, rd, h->rd_lat_min_ns);
	bind_opt(s, i++, rd, h->rd_lat_max_ns);
	bind_opt(s, i++, wr, h->wr_lat_avg_ns);
	bind_opt(s, i++, wr, h->wr_lat_min_ns);
	bind_opt(s, i++, wr, h->wr_lat_max_ns);
	sqlite3_bind_int64(s, i++, (int64_t)h->cls_hit);
	sqlite3_bind_int64(s, i++, (int64_t)h->cls_closed);
	sqlite3_bind_int64(s, i++, (int64_t)h->cls_miss);
	sqlite3_bind_int(s, i++, (int)h->hit_max);
	sqlite3_bind_int(s, i++, (int)h->closed_max);
	sqlite3_bind_text(s, i++, hist, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(s, i++, (int)h->hist_base);
	sqlite3_bind_int(s, i++, (int)h->hist_shift);
	sqlite3_bind_int64(s, i++, h->errors);
	sqlite3_bind_int64(s, i++, h->mismatches);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(st, "storing an HBM2 point");
	sqlite3_finalize(s);
	if (e < 0)
		return e;
	return insert_hbm_ports(st, point_id, h);
}

/* The run's trace capture (table point_traces). */
static int insert_trace(struct sb_store *st, int64_t point_id, const struct sb_point_record *rec)
{
	const struct sb_capture_stats *t = rec->trace;
	const struct sb_capture_config *c = rec->trace_cfg;
	sqlite3_stmt *s;
	int e = 0, i = 1;

	if (!st->has_traces)
		return sb_error_set(SB_ERR_DB, "results database '%s' has no point_traces table",
		                    st->path);
	if ((e = prepare(
	         st,
	         "INSERT INTO point_traces VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, "
	         "?11, ?12, ?13, ?14, ?15)",
	         &s)) < 0)
		return e;
	sqlite3_bind_int64(s, i++, point_id);
	sqlite3_bind_text(s, i++, rec->trace_file, -1, SQLITE_STATIC);
	sqlite3_bind_text(s, i++, t->path == SB_CAPTURE_DMA ? "dma" : "onchip", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, i++, c->burst_records);
	sqlite3_bind_int64(s, i++, c->gap_cycles);
	sqlite3_bind_int64(s, i++, t->port_mask);
	/* an HBM2 trace's subpartitions are its pseudo channels (docs/hbm2.md, Traces) */
	sqlite3_bind_text(s, i++, rec->hbm ? "pc" : c->banks ? "bank" : "vault", -1, SQLITE_STATIC);
	sqlite3_bind_int64(s, i++, (int64_t)t->records);
	sqlite3_bind_int64(s, i++, (int64_t)t->executed);
	sqlite3_bind_double(s, i++, t->density);
	sqlite3_bind_int64(s, i++, (int64_t)t->captured);
	sqlite3_bind_int64(s, i++, (int64_t)(t->dropped + t->corrupt + t->late));
	sqlite3_bind_int64(s, i++, (int64_t)t->bursts);
	sqlite3_bind_int64(s, i++, (int64_t)t->lost_bursts);
	sqlite3_bind_int64(s, i++, (int64_t)t->cycles);
	if (sqlite3_step(s) != SQLITE_DONE)
		e = db_error(st, "storing a point's trace capture");
	sqlite3_finalize(s);
	return e;
}

int sb_store_point_commit(struct sb_store *st, int64_t campaign_id,
                          const struct sb_point_record *rec)
{
	int64_t point_id = 0;
	int e;

	if ((e = exec(st, "BEGIN IMMEDIATE")) < 0)
		return e;
	if ((e = insert_point(st, campaign_id, rec, &point_id)) < 0 ||
	    (e = insert_ports(st, point_id, rec->result)) < 0 ||
	    (e = insert_samples(st, point_id, rec)) < 0)
		goto fail;
	if (rec->event.kind &&
	    (e = sb_store_event_data(st, campaign_id, (int)rec->point->index, rec->event.kind,
	                             rec->event.message, rec->event.data)) < 0)
		goto fail;
	if (rec->trace_file && (e = insert_trace(st, point_id, rec)) < 0)
		goto fail;
	if (rec->hbm && (e = insert_hbm(st, point_id, rec)) < 0)
		goto fail;
	if ((e = exec(st, "COMMIT")) < 0)
		goto fail;
	return 0;
fail:
	sqlite3_exec(st->db, "ROLLBACK", NULL, NULL, NULL);
	return e;
}

/* --- queries and export -------------------------------------------------------------------- */

int sb_store_query(struct sb_store *st, const char *sql, int64_t campaign_id,
                   int (*fn)(void *ctx, unsigned ncol, const struct sb_cell *cells), void *ctx)
{
	struct sb_cell *cells = NULL;
	sqlite3_stmt *s;
	unsigned ncol;
	int e, rc, rows = 0;

	if ((e = prepare(st, sql, &s)) < 0)
		return e;
	if (sqlite3_bind_parameter_count(s) >= 1)
		sqlite3_bind_int64(s, 1, campaign_id);
	ncol = (unsigned)sqlite3_column_count(s);
	cells = calloc(ncol ? ncol : 1, sizeof(*cells));
	if (!cells) {
		sqlite3_finalize(s);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	e = 0;
	while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
		for (unsigned i = 0; i < ncol; i++) {
			struct sb_cell *c = &cells[i];

			c->name = sqlite3_column_name(s, (int)i);
			switch (sqlite3_column_type(s, (int)i)) {
			case SQLITE_INTEGER:
				c->type = SB_CELL_INT;
				break;
			case SQLITE_FLOAT:
				c->type = SB_CELL_REAL;
				break;
			case SQLITE_NULL:
				c->type = SB_CELL_NULL;
				break;
			default:
				c->type = SB_CELL_TEXT;
				break;
			}
			c->i = sqlite3_column_int64(s, (int)i);
			c->d = sqlite3_column_double(s, (int)i);
			c->s = (const char *)sqlite3_column_text(s, (int)i);
			if (!c->s)
				c->s = "";
		}
		rows++;
		if (fn && (e = fn(ctx, ncol, cells)) < 0)
			break;
	}
	if (e >= 0 && rc != SQLITE_ROW && rc != SQLITE_DONE)
		e = db_error(st, "querying");
	free(cells);
	sqlite3_finalize(s);
	return e < 0 ? e : rows;
}

static const char *const table_names[] = {"points",    "ports",        "samples",    "events",
                                          "campaigns", "point_traces", "hbm_points", "hbm_ports"};

/* The rows of each table, ?1 = campaign id (0 = all); per-point rows carry the point's index
 * and run (attempt, 0 in a version-1 database read as it is). */
#define PORT_ROWS(attempt)                                                                         \
	"SELECT p.campaign_id, p.idx AS point_idx, " attempt " AS attempt, pp.* FROM point_ports " \
	"pp JOIN points p ON p.id = pp.point_id WHERE (?1 = 0 OR p.campaign_id = ?1) ORDER BY "    \
	"p.campaign_id, p.idx, p.id, pp.port"
#define SAMPLE_ROWS(attempt)                                                                       \
	"SELECT p.campaign_id, p.idx AS point_idx, " attempt " AS attempt, s.* FROM samples s "    \
	"JOIN points p ON p.id = s.point_id WHERE (?1 = 0 OR p.campaign_id = ?1) ORDER BY "        \
	"p.campaign_id, p.idx, p.id, s.seq"
#define POINT_ROWS                                                                                 \
	"SELECT * FROM points WHERE (?1 = 0 OR campaign_id = ?1) ORDER BY campaign_id, idx, id"
#define EVENT_ROWS "SELECT * FROM events WHERE (?1 = 0 OR campaign_id = ?1) ORDER BY id"
#define CAMPAIGN_ROWS                                                                              \
	"SELECT c.*, (SELECT count(DISTINCT idx) FROM points p WHERE p.campaign_id = c.id) AS "    \
	"points_done FROM campaigns c WHERE (?1 = 0 OR c.id = ?1) ORDER BY c.id"
#define TRACE_ROWS                                                                                 \
	"SELECT p.campaign_id, p.idx AS point_idx, p.attempt AS attempt, t.* FROM point_traces t " \
	"JOIN points p ON p.id = t.point_id WHERE (?1 = 0 OR p.campaign_id = ?1) ORDER BY "        \
	"p.campaign_id, p.idx, p.id"
#define HBM_ROWS                                                                                   \
	"SELECT p.campaign_id, p.idx AS point_idx, p.attempt AS attempt, h.* FROM hbm_points h "   \
	"JOIN points p ON p.id = h.point_id WHERE (?1 = 0 OR p.campaign_id = ?1) ORDER BY "        \
	"p.campaign_id, p.idx, p.id"
#define HBM_PORT_ROWS                                                                              \
	"SELECT p.campaign_id, p.idx AS point_idx, p.attempt AS attempt, hp.* FROM "               \
	"hbm_point_ports hp JOIN points p ON p.id = hp.point_id WHERE (?1 = 0 OR p.campaign_id = " \
	"?1) ORDER BY p.campaign_id, p.idx, p.id, hp.port"
static const char *const table_sql[2][8] = {
    {POINT_ROWS, PORT_ROWS("0"), SAMPLE_ROWS("0"), EVENT_ROWS, CAMPAIGN_ROWS, TRACE_ROWS, HBM_ROWS,
     HBM_PORT_ROWS},
    {POINT_ROWS, PORT_ROWS("p.attempt"), SAMPLE_ROWS("p.attempt"), EVENT_ROWS, CAMPAIGN_ROWS,
     TRACE_ROWS, HBM_ROWS, HBM_PORT_ROWS},
};

static const char *table_query(const struct sb_store *st, enum sb_export_table t)
{
	return table_sql[st->version >= 2][t];
}

int sb_export_table_parse(const char *name, enum sb_export_table *t)
{
	for (size_t i = 0; i < SB_ARRAY_SIZE(table_names); i++) {
		if (!strcmp(name, table_names[i])) {
			*t = (enum sb_export_table)i;
			return 0;
		}
	}
	return sb_error_set(SB_ERR_INVAL,
	                    "unknown table '%s' (expected points, ports, samples, events, "
	                    "campaigns, point_traces, hbm_points, hbm_ports)",
	                    name);
}

struct csv_ctx {
	FILE *out;
	bool header;
};

static void csv_text(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static int csv_row(void *ctx, unsigned ncol, const struct sb_cell *cells)
{
	struct csv_ctx *c = ctx;

	if (!c->header) {
		for (unsigned i = 0; i < ncol; i++) {
			if (i)
				fputc(',', c->out);
			csv_text(c->out, cells[i].name);
		}
		fputc('\n', c->out);
		c->header = true;
	}
	for (unsigned i = 0; i < ncol; i++) {
		if (i)
			fputc(',', c->out);
		switch (cells[i].type) {
		case SB_CELL_NULL:
			break;
		case SB_CELL_INT:
			fprintf(c->out, "%lld", (long long)cells[i].i);
			break;
		case SB_CELL_REAL: {
			char num[32];

			fputs(sb_format_double(num, sizeof(num), cells[i].d), c->out);
			break;
		}
		case SB_CELL_TEXT:
			csv_text(c->out, cells[i].s);
			break;
		}
	}
	fputc('\n', c->out);
	return ferror(c->out) ? sb_error_set(SB_ERR_IO, "writing the export: %s", strerror(errno))
	                      : 0;
}

static bool is_json_column(const char *name)
{
	return !strcmp(name, "config") || !strcmp(name, "provenance") || !strcmp(name, "data") ||
	       !strcmp(name, "hist");
}

static int json_row(void *ctx, unsigned ncol, const struct sb_cell *cells)
{
	cJSON *arr = ctx, *o = cJSON_CreateObject();

	if (!o)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (unsigned i = 0; i < ncol; i++) {
		const struct sb_cell *c = &cells[i];

		switch (c->type) {
		case SB_CELL_NULL:
			cJSON_AddNullToObject(o, c->name);
			break;
		case SB_CELL_INT:
			cJSON_AddNumberToObject(o, c->name, (double)c->i);
			break;
		case SB_CELL_REAL:
			cJSON_AddNumberToObject(o, c->name, c->d);
			break;
		case SB_CELL_TEXT: {
			/* columns that hold JSON (the campaign's config, provenance, event data)
			   are objects in the export, not strings of JSON */
			cJSON *j = NULL;

			if (is_json_column(c->name) && (j = cJSON_Parse(c->s)) &&
			    (cJSON_IsObject(j) || cJSON_IsArray(j)))
				cJSON_AddItemToObject(o, c->name, j);
			else {
				cJSON_Delete(j);
				cJSON_AddStringToObject(o, c->name, c->s);
			}
			break;
		}
		}
	}
	cJSON_AddItemToArray(arr, o);
	return 0;
}

static int export_json(struct sb_store *st, FILE *out, int64_t campaign_id, bool samples)
{
	static const struct {
		const char *key;
		enum sb_export_table table;
	} parts[] = {
	    {"campaigns", SB_TABLE_CAMPAIGNS},   {"points", SB_TABLE_POINTS},
	    {"point_ports", SB_TABLE_PORTS},     {"events", SB_TABLE_EVENTS},
	    {"samples", SB_TABLE_SAMPLES},       {"point_traces", SB_TABLE_POINT_TRACES},
	    {"hbm_points", SB_TABLE_HBM_POINTS}, {"hbm_point_ports", SB_TABLE_HBM_PORTS},
	};
	cJSON *o = cJSON_CreateObject();
	char *text;
	int e = 0;

	if (!o)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	/* every JSON document of the tool names its schema and a "MAJOR.MINOR" version; the
	   results' major version is the database's schema version */
	cJSON_AddStringToObject(o, "schema", "stackbench-results");
	{
		char v[16];

		snprintf(v, sizeof(v), "%d.0", st->version);
		cJSON_AddStringToObject(o, "schema_version", v);
	}
	cJSON_AddStringToObject(o, "stackbench_version", sb_version());
	for (size_t i = 0; i < SB_ARRAY_SIZE(parts) && e >= 0; i++) {
		cJSON *arr;

		if ((parts[i].table == SB_TABLE_SAMPLES && !samples) ||
		    (parts[i].table == SB_TABLE_POINT_TRACES && !st->has_traces) ||
		    (parts[i].table == SB_TABLE_HBM_POINTS && !st->has_hbm) ||
		    (parts[i].table == SB_TABLE_HBM_PORTS && !st->has_hbm_ports))
			continue;
		arr = cJSON_AddArrayToObject(o, parts[i].key);
		e = sb_store_query(st, table_query(st, parts[i].table), campaign_id, json_row, arr);
	}
	if (e < 0) {
		cJSON_Delete(o);
		return e;
	}
	text = cJSON_Print(o);
	cJSON_Delete(o);
	if (!text)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	e = fputs(text, out) < 0 || fputc('\n', out) < 0
	        ? sb_error_set(SB_ERR_IO, "writing the export: %s", strerror(errno))
	        : 0;
	cJSON_free(text);
	return e;
}

int sb_store_export(struct sb_store *st, FILE *out, enum sb_export_format fmt,
                    enum sb_export_table table, int64_t campaign_id, bool samples)
{
	struct sb_store_campaign c;
	struct csv_ctx ctx = {.out = out};
	int e;

	if (campaign_id && (e = sb_store_campaign_get(st, campaign_id, &c)) < 0)
		return e;
	if (fmt == SB_EXPORT_JSON)
		return export_json(st, out, campaign_id, samples);
	if (table == SB_TABLE_POINT_TRACES && !st->has_traces)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "results database '%s' has no trace captures (point_traces)",
		                    st->path);
	if (table == SB_TABLE_HBM_POINTS && !st->has_hbm)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "results database '%s' has no HBM2 points (hbm_points: schema "
		                    "version 7)",
		                    st->path);
	if (table == SB_TABLE_HBM_PORTS && !st->has_hbm_ports)
		return sb_error_set(SB_ERR_NOT_FOUND,
		                    "results database '%s' has no HBM2 per-port detail "
		                    "(hbm_point_ports: schema version 8)",
		                    st->path);
	e = sb_store_query(st, table_query(st, table), campaign_id, csv_row, &ctx);
	if (e < 0)
		return e;
	if (!ctx.header) {
		/* No rows: still the header, so that readers see the columns. */
		sqlite3_stmt *s;

		if ((e = prepare(st, table_query(st, table), &s)) < 0)
			return e;
		for (int i = 0; i < sqlite3_column_count(s); i++) {
			if (i)
				fputc(',', out);
			csv_text(out, sqlite3_column_name(s, i));
		}
		fputc('\n', out);
		sqlite3_finalize(s);
	}
	if (fflush(out) != 0)
		return sb_error_set(SB_ERR_IO, "writing the export: %s", strerror(errno));
	return 0;
}
