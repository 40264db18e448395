/* SPDX-License-Identifier: MIT */
/*
 * The results store: one SQLite database (WAL mode) holding campaigns, their points (one
 * transaction per finished point), the sampled time series and events. The schema and its
 * version are documented in docs/campaigns.md; SB_STORE_SCHEMA_VERSION is the version this
 * build writes and reads.
 */
#ifndef STACKBENCH_STORE_H
#define STACKBENCH_STORE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "stackbench/campaign.h"
#include "stackbench/capture.h"
#include "stackbench/point.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_STORE_SCHEMA_VERSION 8

struct sb_store;

/*
 * Open (creating when missing) a results database and its schema; an older schema is upgraded
 * in one transaction. Returns 0, SB_ERR_DB (cannot open, not a database), SB_ERR_VERSION
 * (written by a newer stackbench: schema version above SB_STORE_SCHEMA_VERSION) or
 * SB_ERR_NOMEM. The detail names the path.
 */
int sb_store_open(struct sb_store **st, const char *path);

/*
 * Open an existing database read-only (list, export, report): SB_ERR_NOT_FOUND if missing. An
 * older schema is read as it is (sb_store_schema_version() says which).
 */
int sb_store_open_readonly(struct sb_store **st, const char *path);

void sb_store_close(struct sb_store *st);

const char *sb_store_path(const struct sb_store *st);

/* The schema version recorded in the database (>= 1), or SB_ERR_DB. */
int sb_store_schema_version(struct sb_store *st);

/* A campaign row. */
struct sb_store_campaign {
	int64_t id;
	char name[SB_CAMPAIGN_NAME_MAX];
	char file[SB_CAMPAIGN_TEXT_MAX];
	char hash[17];
	char status[16];                      /* running, complete */
	unsigned points_total, points_done;   /* points_total: the campaign's, shard or not */
	char created_at[32], finished_at[32]; /* UTC, ISO 8601; "" when not finished */
	/* A shard (docs/cluster.md): shard `shard` of `shards` (0: the whole campaign), holding
	 * shard_points of the campaign's points; status "complete" means the shard is. */
	unsigned shard, shards, shard_points;
};

/* Create a campaign row (status running). */
int sb_store_campaign_create(struct sb_store *st, const struct sb_campaign *c, int64_t *id);

/* Record that the campaign holds one shard of its points: shard of shards, npoints of them. */
int sb_store_campaign_shard(struct sb_store *st, int64_t campaign_id, unsigned shard,
                            unsigned shards, unsigned npoints);

/* Record what created the campaign: a JSON object (stackbench/provenance.h). */
int sb_store_campaign_provenance(struct sb_store *st, int64_t campaign_id, const char *json);

/* The latest campaign of a name: 0, or SB_ERR_NOT_FOUND. */
int sb_store_campaign_latest(struct sb_store *st, const char *name, struct sb_store_campaign *out);

/* The campaign of an id: 0, or SB_ERR_NOT_FOUND. */
int sb_store_campaign_get(struct sb_store *st, int64_t id, struct sb_store_campaign *out);

/*
 * Copy campaign campaign_id of src into dst (one transaction): the campaign (named name; NULL:
 * its own name), its points with their per-port counters and samples, and its events; trace
 * captures are not copied (their files stay beside src). The columns both schemas have are
 * copied, every row gets a new id: *new_id. Returns 0, SB_ERR_NOT_FOUND (no such campaign),
 * SB_ERR_DB.
 */
int sb_store_copy_campaign(struct sb_store *dst, struct sb_store *src, int64_t campaign_id,
                           const char *name, int64_t *new_id);

/* Call fn for every campaign, oldest first. fn returning < 0 stops with that value. */
int sb_store_campaign_list(struct sb_store *st,
                           int (*fn)(void *ctx, const struct sb_store_campaign *c), void *ctx);

/* Mark points of a campaign that are stored: done[index] = true (done has n entries). */
int sb_store_points_done(struct sb_store *st, int64_t campaign_id, bool *done, unsigned n);

/*
 * The runs stored of each point of a campaign (arrays of n entries): attempts[index] = how many
 * runs of the point are stored, ok[index] = one of them did not fail.
 */
int sb_store_points_attempts(struct sb_store *st, int64_t campaign_id, bool *ok, unsigned *attempts,
                             unsigned n);

/* Set a campaign's status ("running", "complete") and, when complete, its finish time. */
int sb_store_campaign_status(struct sb_store *st, int64_t campaign_id, const char *status);

/* Record an event (point_index < 0: not about a point). */
int sb_store_event(struct sb_store *st, int64_t campaign_id, int point_index, const char *kind,
                   const char *message);
/* The same with structured details: data is a JSON text (NULL: none), stored as given. */
int sb_store_event_data(struct sb_store *st, int64_t campaign_id, int point_index, const char *kind,
                        const char *message, const char *data);

/*
 * A finished run of a point, as the engine hands it to the store. From the samples the store
 * derives the point's temperature (start, mean, maximum, and the steady state: the mean hot
 * spot of the samples in the last 10 % of the point's bench time, NULL when the point failed)
 * and power (the time-weighted mean and the maximum of the meter's readings); the failure
 * temperature and power come from result->failure, the cooling state from result->cooling.
 */
struct sb_point_record {
	const struct sb_campaign_point *point;
	unsigned attempt; /* 0: the first run of the point; n: its n-th retry */
	const char *device;
	unsigned worker;
	uint64_t mask, antimask; /* what the ports were given */
	unsigned addr_mode;      /* the cube's mode during the point (bytes) */
	uint64_t duration_ns;    /* what the point was asked to run */
	const struct sb_point_result *result;
	const struct sb_sample *samples;
	unsigned nsamples;
	double wall_s;
	const char *provenance; /* what produced this run: a JSON object (NULL: none) */
	/* An event about this run (kind NULL: none), stored in the same transaction: a thermal
	 * failure is recorded if and only if its point is. */
	struct {
		const char *kind, *message, *data;
	} event;
	/* The run's trace capture (campaign key 'trace'; trace_file NULL: none): the sbt's path
	 * relative to the database's folder, and what the capture did (table point_traces). */
	const char *trace_file;
	const struct sb_capture_stats *trace;
	const struct sb_capture_config *trace_cfg;
	/* An HBM2 card's point (NULL: a GUPS point): what it ran and measured, stored in the
	 * points row (result holds it in the GUPS terms) and in hbm_points. */
	const struct sb_hbm_spec *hbm_spec;
	const struct sb_hbm_result *hbm;
};

/* What the instruments said during a point (see struct sb_point_record); NAN when none. */
struct sb_point_thermal {
	unsigned ntemp, npower; /* samples with a temperature / a power reading */
	double temp_start_c, temp_avg_c, temp_max_c;
	double temp_steady_c; /* mean hot spot of the last 10 % of the point; NAN if it failed */
	double power_avg_w, power_max_w;
};

/* Derive it from a record's samples (what the store writes in the points table). */
void sb_point_thermal_summary(const struct sb_point_record *rec, struct sb_point_thermal *out);

/*
 * Store a finished point, its per-port counters and its samples in one transaction (all or
 * nothing). SB_ERR_EXISTS if the campaign already has that run of the point; SB_ERR_DB
 * otherwise.
 */
int sb_store_point_commit(struct sb_store *st, int64_t campaign_id,
                          const struct sb_point_record *rec);

/* One cell of a query result. */
enum sb_cell_type { SB_CELL_NULL, SB_CELL_INT, SB_CELL_REAL, SB_CELL_TEXT };
struct sb_cell {
	const char *name; /* column name */
	enum sb_cell_type type;
	int64_t i;
	double d;
	const char *s; /* text (also for numbers: SQLite's text of the value) */
};

/*
 * Run a read-only query; ?1 is bound to campaign_id. fn gets every row (cells valid during
 * the call); returning < 0 stops with that value. Returns the number of rows or SB_ERR_DB.
 */
int sb_store_query(struct sb_store *st, const char *sql, int64_t campaign_id,
                   int (*fn)(void *ctx, unsigned ncol, const struct sb_cell *cells), void *ctx);

enum sb_export_format { SB_EXPORT_CSV, SB_EXPORT_JSON };

/* Tables that can be exported to CSV (JSON holds them all). */
enum sb_export_table {
	SB_TABLE_POINTS,
	SB_TABLE_PORTS,
	SB_TABLE_SAMPLES,
	SB_TABLE_EVENTS,
	SB_TABLE_CAMPAIGNS,
	SB_TABLE_POINT_TRACES, /* trace captures (a database that has them) */
	SB_TABLE_HBM_POINTS,   /* HBM2 card's points (schema version 7) */
	SB_TABLE_HBM_PORTS     /* their per-port detail (hbm_point_ports, schema version 8) */
};

/* "points" → SB_TABLE_POINTS... ("point_traces"); SB_ERR_INVAL for an unknown name. */
int sb_export_table_parse(const char *name, enum sb_export_table *t);

/*
 * Export to out: CSV (one table, header row, RFC 4180 quoting, numbers printed so that they
 * read back exactly) or JSON ({"schema_version", "campaigns", "points", "point_ports",
 * "events", "point_traces" when the database has trace captures, and "samples" when samples
 * is set}). campaign_id 0 exports every campaign. Returns 0, SB_ERR_NOT_FOUND (no such
 * campaign; point_traces of a database without trace captures), SB_ERR_IO or SB_ERR_DB.
 */
int sb_store_export(struct sb_store *st, FILE *out, enum sb_export_format fmt,
                    enum sb_export_table table, int64_t campaign_id, bool samples);

/* ---- shards of a campaign (docs/cluster.md) ------------------------------------------- */

/* How far a shard (or the whole campaign) has got in a database. */
struct sb_shard_progress {
	bool found;          /* the database holds the campaign (of this content hash) */
	int64_t campaign_id; /* there */
	unsigned done;       /* points finished (stored without a failure, or out of retries) */
	unsigned total;      /* points of the shard (of the campaign when shards is 0) */
	char status[16];     /* the campaign's status there ("" when not found) */
};

/*
 * Read how far shard `shard` of `shards` (shards 0: the whole campaign) of campaign c has got
 * in the database at path (the latest campaign of c's name there): found false when the file
 * or the campaign is not there. Returns 0, SB_ERR_MISMATCH (the database holds another version
 * of the campaign, by content hash, or another shard of it), or a database error.
 */
int sb_campaign_shard_progress(const struct sb_campaign *c, const char *path, unsigned shard,
                               unsigned shards, struct sb_shard_progress *p);

/* ---- merging the shards of a campaign (docs/cluster.md) ------------------------------- */

struct sb_merge_options {
	const char *campaign; /* the campaign's name in every input (NULL: each input's latest) */
	bool partial;         /* merge although points are missing (the result is resumable) */
};

struct sb_merge_summary {
	int64_t campaign_id; /* the campaign made in the target */
	char name[SB_CAMPAIGN_NAME_MAX], hash[17];
	unsigned inputs;     /* databases read */
	unsigned total;      /* the campaign's points */
	unsigned points;     /* distinct points merged (of total) */
	unsigned runs;       /* runs of points merged (several per point after thermal retries) */
	unsigned duplicates; /* runs present in more than one input with the same results */
	unsigned traces;     /* trace captures copied beside the target */
	bool complete;       /* every point finished: the campaign is complete in the target */
	bool created;        /* the target did not exist before */
};

/*
 * Merge the campaign held by each input database (a shard run with --shard, or any database
 * holding part of the campaign) into one campaign of the target database `into`, exactly:
 * every run of every point once, with its per-port counters, samples, trace capture (the file
 * copied beside the target) and events, and its provenance as it was measured (host, board,
 * Slurm job and task, shard). Refused, with the target untouched: an input that is damaged or
 * truncated (SQLite's quick_check) or not a results database (SB_ERR_DB); inputs holding
 * campaigns of different content hashes (SB_ERR_MISMATCH); a run of a point present in two
 * inputs with different results (SB_ERR_MISMATCH, naming the point, the files and the first
 * value that differs); points missing, unless o->partial (SB_ERR_STATE, naming them); a target
 * that is one of the inputs (SB_ERR_INVAL). Atomic: a target that exists gains the campaign
 * in one transaction; a new one is built under a temporary name and renamed into place.
 */
int sb_store_merge(const char *const *inputs, unsigned n, const char *into,
                   const struct sb_merge_options *o, struct sb_merge_summary *sum);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_STORE_H */
