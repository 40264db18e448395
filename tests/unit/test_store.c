/* SPDX-License-Identifier: MIT */
/*
 * The results store: schema and its version (and the upgrade of a version-1 database), one
 * transaction per point, runs of a point, thermal summaries, events with data, export round
 * trip.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/store.h"
#include "stackbench/util.h"

static char dir[64];
static char db[128];

static void setup(void)
{
	snprintf(dir, sizeof(dir), "/tmp/sb-store-XXXXXX");
	cr_assert_not_null(mkdtemp(dir));
	snprintf(db, sizeof(db), "%s/r.db", dir);
}

static void teardown(void)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_assert_eq(system(cmd), 0);
}

TestSuite(store, .init = setup, .fini = teardown);

static int first_text(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	cr_assert_geq(ncol, 1);
	snprintf(ctx, 64, "%s", c[0].s);
	return 0;
}

Test(store, schema_and_version)
{
	static const char *const tables[] = {"schema_version", "campaigns",      "points",
	                                     "point_ports",    "samples",        "events",
	                                     "hbm_points",     "hbm_point_ports"};
	struct sb_store *st;
	char text[64];

	cr_assert_eq(sb_store_open(&st, db), 0, "%s", sb_error_detail());
	cr_assert_eq(SB_STORE_SCHEMA_VERSION, 8);
	cr_assert_eq(sb_store_schema_version(st), SB_STORE_SCHEMA_VERSION);
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++) {
		char sql[128];

		snprintf(sql, sizeof(sql),
		         "SELECT count(*) FROM sqlite_master WHERE type='table' AND name='%s'",
		         tables[i]);
		cr_assert_eq(sb_store_query(st, sql, 0, first_text, text), 1);
		cr_assert_str_eq(text, "1", "table %s", tables[i]);
	}
	cr_assert_eq(sb_store_query(st, "PRAGMA journal_mode", 0, first_text, text), 1);
	cr_assert_str_eq(text, "wal");
	sb_store_close(st);
	/* Reopening keeps the version (no second schema). */
	cr_assert_eq(sb_store_open(&st, db), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_store_query(st, "SELECT group_concat(version) FROM schema_version", 0,
	                            first_text, text),
	             1);
	cr_assert_str_eq(text, "1,2,3,4,5,6,7,8",
	                 "made as version 1, upgraded to 2, 3, 4, 5, 6, 7 and 8, once");
	sb_store_close(st);
}

Test(store, newer_schema_is_refused)
{
	struct sb_store *st;
	sqlite3 *raw;

	cr_assert_eq(sb_store_open(&st, db), 0);
	sb_store_close(st);
	cr_assert_eq(sqlite3_open(db, &raw), SQLITE_OK);
	cr_assert_eq(
	    sqlite3_exec(raw, "INSERT INTO schema_version VALUES (9, 'later')", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(raw);
	cr_assert_eq(sb_store_open(&st, db), SB_ERR_VERSION);
	cr_assert(strstr(sb_error_detail(), "has schema version 9; this stackbench reads up to "
	                                    "version 8"),
	          "%s", sb_error_detail());
	cr_assert_null(st);
}

Test(store, foreign_database_is_refused)
{
	struct sb_store *st;
	sqlite3 *raw;

	cr_assert_eq(sqlite3_open(db, &raw), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(raw, "CREATE TABLE mine (x)", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(raw);
	cr_assert_eq(sb_store_open(&st, db), SB_ERR_DB);
	cr_assert(strstr(sb_error_detail(), "not a stackbench results database"));
}

Test(store, missing_database_readonly)
{
	struct sb_store *st;

	cr_assert_eq(sb_store_open_readonly(&st, db), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "does not exist"));
}

/* A campaign of two points, stored with made-up results. */
static const char *yaml = "name: rt\nsweep: {type: [ro, rw]}\n";

static void fake_result(struct sb_point_result *r, unsigned k)
{
	memset(r, 0, sizeof(*r));
	r->ports = 2;
	r->port_id[1] = 1;
	r->clock_hz = 187.5e6;
	r->duration_ns = 20000000000ull;
	r->port[0].reads = 1000 + k;
	r->port[1].reads = 2000;
	r->port[0].lat_count = r->port[0].reads;
	r->port[0].lat_sum_cycles = 3 * r->port[0].reads;
	r->port[0].lat_min_cycles = 2;
	r->port[0].lat_max_cycles = 9;
	r->total.reads = 3000 + k;
	r->total.lat_count = r->port[0].lat_count;
	r->total.lat_sum_cycles = r->port[0].lat_sum_cycles;
	r->metrics.bandwidth_gbps = 1.0 / 3.0 + k;
	r->metrics.mrps = 29.999749432 * (k + 1);
	r->metrics.lat_avg_ns = 3072.0258709588365;
	r->metrics.lat_min_ns = 661.33333333333326;
	r->metrics.lat_max_ns = 8554.6666666666661;
}

static void store_two(struct sb_store *st, struct sb_campaign *c, int64_t *id)
{
	struct sb_sample samples[3];

	cr_assert_eq(sb_campaign_load_string(c, "a,\"b\".yaml", yaml, strlen(yaml)), 0);
	cr_assert_eq(sb_store_campaign_create(st, c, id), 0, "%s", sb_error_detail());
	for (unsigned k = 0; k < 2; k++) {
		struct sb_point_result r;
		struct sb_point_record rec = {
		    .point = &c->points[k],
		    .device = "sim:",
		    .mask = 0x3ffffffffull,
		    .addr_mode = 128,
		    .duration_ns = 20000000000ull,
		    .result = &r,
		    .samples = samples,
		    .nsamples = 3,
		    .wall_s = 0.25,
		};

		fake_result(&r, k);
		for (unsigned i = 0; i < 3; i++)
			samples[i] = (struct sb_sample){.t_ns = (i + 1) * 1000000ull,
			                                .reads = (i + 1) * 100,
			                                .temp_c = NAN,
			                                .power_w = i == 1 ? 12.5 : NAN,
			                                .volts_v = NAN,
			                                .amps_a = NAN};
		cr_assert_eq(sb_store_point_commit(st, *id, &rec), 0, "%s", sb_error_detail());
	}
}

static int count(struct sb_store *st, const char *sql)
{
	char text[64];

	cr_assert_eq(sb_store_query(st, sql, 0, first_text, text), 1, "%s", sb_error_detail());
	return (int)strtol(text, NULL, 10);
}

Test(store, one_transaction_per_point)
{
	struct sb_campaign c;
	struct sb_store *st;
	struct sb_point_result r;
	struct sb_store_campaign info;
	bool done[2] = {false, false};
	int64_t id;

	cr_assert_eq(sb_store_open(&st, db), 0);
	store_two(st, &c, &id);
	cr_assert_eq(count(st, "SELECT count(*) FROM points"), 2);
	cr_assert_eq(count(st, "SELECT count(*) FROM samples"), 6);
	cr_assert_eq(count(st, "SELECT count(*) FROM point_ports"), 4);
	cr_assert_eq(count(st, "SELECT count(*) FROM samples WHERE power_w = 12.5"), 2);
	cr_assert_eq(count(st, "SELECT count(*) FROM points WHERE power_w_avg = 12.5 AND "
	                       "temp_c_avg IS NULL"),
	             2);
	/* The same point again: refused, and nothing of it is written. */
	fake_result(&r, 0);
	{
		struct sb_point_record rec = {
		    .point = &c.points[0], .device = "sim:", .result = &r};

		cr_assert_eq(sb_store_point_commit(st, id, &rec), SB_ERR_EXISTS);
	}
	cr_assert_eq(count(st, "SELECT count(*) FROM points"), 2);
	cr_assert_eq(count(st, "SELECT count(*) FROM point_ports"), 4);
	cr_assert_eq(sb_store_points_done(st, id, done, 2), 0);
	cr_assert(done[0] && done[1]);
	cr_assert_eq(sb_store_campaign_latest(st, "rt", &info), 0);
	cr_assert_eq(info.id, id);
	cr_assert_eq(info.points_done, 2);
	cr_assert_str_eq(info.status, "running");
	cr_assert_eq(sb_store_campaign_status(st, id, "complete"), 0);
	cr_assert_eq(sb_store_campaign_get(st, id, &info), 0);
	cr_assert_str_eq(info.status, "complete");
	cr_assert_neq(info.finished_at[0], '\0');
	cr_assert_eq(sb_store_campaign_latest(st, "other", &info), SB_ERR_NOT_FOUND);
	sb_campaign_release(&c);
	sb_store_close(st);
}

static char *export_text(struct sb_store *st, enum sb_export_format f, enum sb_export_table t,
                         bool samples)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert_not_null(out);
	cr_assert_eq(sb_store_export(st, out, f, t, 0, samples), 0, "%s", sb_error_detail());
	fclose(out);
	return buf;
}

Test(store, json_round_trip)
{
	struct sb_campaign c;
	struct sb_store *st;
	cJSON *j, *points, *p;
	char *text;
	int64_t id;
	unsigned k = 0;

	cr_assert_eq(sb_store_open(&st, db), 0);
	store_two(st, &c, &id);
	text = export_text(st, SB_EXPORT_JSON, SB_TABLE_POINTS, true);
	j = cJSON_Parse(text);
	cr_assert_not_null(j);
	cr_assert_str_eq(cJSON_GetObjectItem(j, "schema_version")->valuestring, "8.0");
	cr_assert_str_eq(cJSON_GetObjectItem(j, "schema")->valuestring, "stackbench-results");
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "campaigns")), 1);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "samples")), 6);
	cr_assert_eq(cJSON_GetArraySize(cJSON_GetObjectItem(j, "point_ports")), 4);
	cr_assert_str_eq(
	    cJSON_GetObjectItem(cJSON_GetArrayItem(cJSON_GetObjectItem(j, "campaigns"), 0), "file")
	        ->valuestring,
	    "a,\"b\".yaml");
	points = cJSON_GetObjectItem(j, "points");
	cr_assert_eq(cJSON_GetArraySize(points), 2);
	cJSON_ArrayForEach(p, points)
	{
		struct sb_point_result r;

		fake_result(&r, k);
		/* Exactly the doubles that went in. */
		cr_assert_eq(cJSON_GetObjectItem(p, "bandwidth_gbps")->valuedouble,
		             r.metrics.bandwidth_gbps);
		cr_assert_eq(cJSON_GetObjectItem(p, "mrps")->valuedouble, r.metrics.mrps);
		cr_assert_eq(cJSON_GetObjectItem(p, "latency_avg_ns")->valuedouble,
		             r.metrics.lat_avg_ns);
		cr_assert_eq(cJSON_GetObjectItem(p, "reads")->valuedouble, (double)r.total.reads);
		cr_assert_str_eq(cJSON_GetObjectItem(p, "key")->valuestring, c.points[k].key);
		cr_assert_str_eq(cJSON_GetObjectItem(p, "type")->valuestring, k ? "rw" : "ro");
		cr_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "mask_lo")));
		cr_assert(cJSON_IsNull(cJSON_GetObjectItem(p, "temp_c_avg")));
		k++;
	}
	cJSON_Delete(j);
	free(text);
	sb_campaign_release(&c);
	sb_store_close(st);
}

/* Split one CSV line (RFC 4180 quoting) into fields; returns the count. */
static unsigned csv_fields(const char *line, char fields[][128], unsigned max)
{
	unsigned n = 0;

	while (n < max) {
		size_t j = 0;
		bool q = *line == '"';

		if (q)
			line++;
		for (; *line && (q || (*line != ',' && *line != '\n')); line++) {
			if (q && *line == '"') {
				if (line[1] == '"') {
					line++;
				} else {
					q = false;
					continue;
				}
			}
			if (j + 1 < 128)
				fields[n][j++] = *line;
		}
		fields[n++][j] = '\0';
		if (*line != ',')
			break;
		line++;
	}
	return n;
}

Test(store, csv_round_trip)
{
	char f[64][128], head[64][128];
	struct sb_campaign c;
	struct sb_store *st;
	char *text, *line;
	unsigned nh, bw = 0, rd = 0, key = 0, rows = 0;
	int64_t id;

	cr_assert_eq(sb_store_open(&st, db), 0);
	store_two(st, &c, &id);
	text = export_text(st, SB_EXPORT_CSV, SB_TABLE_POINTS, false);
	nh = csv_fields(text, head, 64);
	cr_assert_gt(nh, 40);
	for (unsigned i = 0; i < nh; i++) {
		bw = !strcmp(head[i], "bandwidth_gbps") ? i : bw;
		rd = !strcmp(head[i], "reads") ? i : rd;
		key = !strcmp(head[i], "key") ? i : key;
	}
	cr_assert(bw && rd && key);
	for (line = strchr(text, '\n') + 1; *line; line = strchr(line, '\n') + 1) {
		struct sb_point_result r;

		fake_result(&r, rows);
		cr_assert_eq(csv_fields(line, f, 64), nh);
		cr_assert_eq(strtod(f[bw], NULL), r.metrics.bandwidth_gbps, "%s", f[bw]);
		cr_assert_eq(strtoull(f[rd], NULL, 10), r.total.reads);
		cr_assert_str_eq(f[key], c.points[rows].key);
		rows++;
	}
	cr_assert_eq(rows, 2);
	free(text);
	/* Quoting: a file name with a comma and quotes reads back whole. */
	text = export_text(st, SB_EXPORT_CSV, SB_TABLE_CAMPAIGNS, false);
	nh = csv_fields(text, head, 64);
	cr_assert_eq(csv_fields(strchr(text, '\n') + 1, f, 64), nh);
	for (unsigned i = 0; i < nh; i++)
		if (!strcmp(head[i], "file"))
			cr_assert_str_eq(f[i], "a,\"b\".yaml");
	free(text);
	sb_campaign_release(&c);
	sb_store_close(st);
}

Test(store, csv_header_without_rows)
{
	struct sb_store *st;
	char *text;

	cr_assert_eq(sb_store_open(&st, db), 0);
	text = export_text(st, SB_EXPORT_CSV, SB_TABLE_EVENTS, false);
	cr_assert_str_eq(text, "id,campaign_id,point_idx,at,kind,message,data\n");
	free(text);
	cr_assert_eq(sb_store_export(st, stdout, SB_EXPORT_CSV, SB_TABLE_POINTS, 42, false),
	             SB_ERR_NOT_FOUND);
	sb_store_close(st);
}

/* ---- thermal results, runs of a point, events with data ---------------------------------- */

/* A point of 10 s sampled every second: t = 0..10 s, hot spot 50 + t, power 100 + t. */
static void thermal_samples(struct sb_sample *x)
{
	for (unsigned i = 0; i <= 10; i++)
		x[i] = (struct sb_sample){.t_ns = i * 1000000000ull,
		                          .temp_c = 50.0 + i,
		                          .power_w = i ? 100.0 + i : NAN,
		                          .volts_v = 120.0,
		                          .amps_a = 1.0};
}

Test(store, thermal_summary_definitions)
{
	struct sb_sample x[11];
	struct sb_point_result r = {.duration_ns = 10000000000ull};
	struct sb_point_record rec = {.result = &r, .samples = x, .nsamples = 11};
	struct sb_point_thermal th;

	thermal_samples(x);
	sb_point_thermal_summary(&rec, &th);
	cr_assert_eq(th.ntemp, 11);
	cr_assert_eq(th.npower, 10, "the reading at t = 0 covers the time before the point");
	cr_assert_float_eq(th.temp_start_c, 50, 1e-12);
	cr_assert_float_eq(th.temp_max_c, 60, 1e-12);
	cr_assert_float_eq(th.temp_avg_c, 55, 1e-12);
	/* The last 10 % of 10 s: the samples at 9 and 10 s. */
	cr_assert_float_eq(th.temp_steady_c, 59.5, 1e-12);
	cr_assert_float_eq(th.power_avg_w, 105.5, 1e-12, "time-weighted mean of 101..110 W");
	cr_assert_float_eq(th.power_max_w, 110, 1e-12);
	/* Unequal intervals weigh each reading by its interval. */
	x[10].t_ns = 19000000000ull;
	r.duration_ns = 19000000000ull;
	sb_point_thermal_summary(&rec, &th);
	cr_assert_float_eq(th.power_avg_w,
	                   (101 + 102 + 103 + 104 + 105 + 106 + 107 + 108 + 109 + 110.0 * 10) / 19,
	                   1e-9);
	cr_assert_float_eq(th.temp_steady_c, 60, 1e-12, "only the sample at 19 s is in 17.1..19");
	/* A failed point has no steady state. */
	r.failed = true;
	sb_point_thermal_summary(&rec, &th);
	cr_assert(isnan(th.temp_steady_c));
	cr_assert_float_eq(th.temp_max_c, 60, 1e-12);
}

static double num(struct sb_store *st, const char *sql)
{
	char text[64];

	cr_assert_eq(sb_store_query(st, sql, 0, first_text, text), 1, "%s: %s", sql,
	             sb_error_detail());
	return strtod(text, NULL);
}

Test(store, runs_of_a_point_and_events_with_data)
{
	struct sb_campaign c;
	struct sb_store *st;
	struct sb_sample x[11];
	struct sb_point_result r;
	struct sb_store_campaign info;
	bool ok[2];
	unsigned attempts[2];
	int64_t id;
	char *text;

	cr_assert_eq(sb_store_open(&st, db), 0);
	cr_assert_eq(sb_campaign_load_string(&c, "r.yaml", yaml, strlen(yaml)), 0);
	cr_assert_eq(sb_store_campaign_create(st, &c, &id), 0, "%s", sb_error_detail());
	thermal_samples(x);
	for (unsigned a = 0; a < 2; a++) {
		struct sb_point_record rec = {.point = &c.points[0],
		                              .attempt = a,
		                              .device = "sim:",
		                              .result = &r,
		                              .samples = x,
		                              .nsamples = a ? 11 : 6,
		                              .duration_ns = 10000000000ull};

		fake_result(&r, 0);
		r.duration_ns = a ? 10000000000ull : 5000000000ull;
		r.failed = !a;
		r.t_start_ns = 1000;
		r.t_fail_ns = 1000 + 5000000000ull;
		r.failure.temperature_c = 55.0;
		r.failure.power_w = 105.0;
		r.has_cooling = true;
		snprintf(r.cooling.name, sizeof(r.cooling.name), "Cfg4");
		r.cooling.fan_supply_v = 6.0;
		r.cooling.cooling_power_w = 10.78;
		cr_assert_eq(sb_store_point_commit(st, id, &rec), 0, "run %u: %s", a,
		             sb_error_detail());
	}
	cr_assert_eq(sb_store_points_attempts(st, id, ok, attempts, 2), 0);
	cr_assert_eq(attempts[0], 2);
	cr_assert(ok[0], "the second run did not fail");
	cr_assert_eq(attempts[1], 0);
	cr_assert(!ok[1]);
	cr_assert_eq(sb_store_campaign_get(st, id, &info), 0);
	cr_assert_eq(info.points_done, 1, "points, not runs");
	/* The failed run: partial, with its failure; the second: a steady state. */
	cr_assert_eq(num(st, "SELECT count(*) FROM points WHERE attempt = 0 AND failed = 1 AND "
	                     "fail_t_ns = 5000000000 AND fail_temp_c = 55 AND fail_power_w = 105 "
	                     "AND temp_c_steady IS NULL AND temp_c_max = 55 AND elapsed_ns = "
	                     "5000000000"),
	             1);
	cr_assert_eq(num(st, "SELECT temp_c_steady FROM points WHERE attempt = 1"), 59.5);
	cr_assert_eq(num(st, "SELECT power_w_avg FROM points WHERE attempt = 1"), 105.5);
	cr_assert_eq(num(st, "SELECT count(*) FROM points WHERE cooling_config = 'Cfg4' AND "
	                     "fan_supply_v = 6 AND cooling_power_w = 10.78 AND fail_temp_c IS "
	                     "NULL AND attempt = 1"),
	             1);
	cr_assert_eq(num(st, "SELECT count(*) FROM samples WHERE volts_v = 120 AND amps_a = 1"),
	             17);
	cr_assert_eq(num(st, "SELECT count(*) FROM samples WHERE seq = 0 AND power_w IS NULL"), 2);
	/* The same run twice is refused. */
	{
		struct sb_point_record rec = {
		    .point = &c.points[0], .attempt = 1, .device = "sim:", .result = &r};

		cr_assert_eq(sb_store_point_commit(st, id, &rec), SB_ERR_EXISTS);
		cr_assert(strstr(sb_error_detail(), "run 1"), "%s", sb_error_detail());
	}
	/* Events keep their data as given. */
	cr_assert_eq(sb_store_event_data(st, id, 0, "thermal_failure", "hot",
	                                 "{\"temperature_c\":74.8,\"writes\":12}"),
	             0);
	cr_assert_eq(num(st, "SELECT json_extract(data, '$.temperature_c') FROM events WHERE kind "
	                     "= 'thermal_failure'"),
	             74.8);
	text = export_text(st, SB_EXPORT_CSV, SB_TABLE_POINTS, false);
	cr_assert(strstr(text, ",attempt,temp_c_start,temp_c_steady,power_w_max,fail_temp_c,"
	                       "fail_power_w,cooling_config,fan_supply_v,fan_supply_a,fan_rpm,"
	                       "desk_fan_distance_cm,cooling_power_w,provenance\n"),
	          "units in the column names: %.400s", text);
	free(text);
	text = export_text(st, SB_EXPORT_CSV, SB_TABLE_SAMPLES, false);
	cr_assert(strstr(text, ",temp_c,power_w,volts_v,amps_a,heatsink_c\n"), "%.300s", text);
	free(text);
	sb_campaign_release(&c);
	sb_store_close(st);
}

/* Load the version-1 dump into a new file. */
static void make_v1(void)
{
	char *sql = NULL;
	size_t len = 0;
	sqlite3 *raw;

	cr_assert_eq(sb_read_file(SB_TEST_DATA_DIR "/results-v1.sql", &sql, &len), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sqlite3_open(db, &raw), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(raw, sql, NULL, NULL, NULL), SQLITE_OK, "%s",
	             sqlite3_errmsg(raw));
	sqlite3_close(raw);
	free(sql);
}

Test(store, version_1_is_read_then_upgraded_and_resumed)
{
	/* The file the version-1 campaign ran (its content hash is in the dump). */
	static const char v1[] = "name: old\n"
	                         "durations: {bandwidth_s: 0.002}\n"
	                         "sample_interval_ms: 1\n"
	                         "sweep:\n"
	                         "  type: [ro, rw]\n"
	                         "  pattern: [16vault, all]\n";
	struct sb_run_options o = {.resume = true};
	struct sb_run_summary sum;
	struct sb_campaign c;
	struct sb_store *st;
	char *text;

	make_v1();
	/* Read-only: read as it is. */
	cr_assert_eq(sb_store_open_readonly(&st, db), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_store_schema_version(st), 1);
	text = export_text(st, SB_EXPORT_JSON, SB_TABLE_POINTS, false);
	cr_assert(strstr(text, "\"schema_version\":\t\"1.0\","), "%.200s", text);
	free(text);
	sb_store_close(st);
	/* Writable: upgraded in place, nothing lost. */
	cr_assert_eq(sb_store_open(&st, db), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_store_schema_version(st), 8);
	/* version 7: the HBM2 points' table, empty; version 8: their ports' */
	cr_assert_eq(num(st, "SELECT count(*) FROM hbm_points"), 0);
	cr_assert_eq(num(st, "SELECT count(*) FROM hbm_point_ports"), 0);
	/* version 6: campaigns hold the whole campaign unless run as a shard */
	cr_assert_eq(
	    num(st, "SELECT count(*) FROM campaigns WHERE shard IS NULL AND shards IS NULL"), 1);
	cr_assert_eq(num(st, "SELECT count(*) FROM points WHERE attempt = 0"), 3);
	/* version 3: provenance columns, empty for what was measured before */
	cr_assert_eq(num(st, "SELECT count(*) FROM points WHERE provenance IS NULL"), 3);
	cr_assert_eq(num(st, "SELECT count(*) FROM campaigns WHERE provenance IS NULL"), 1);
	cr_assert_eq(num(st, "SELECT count(*) FROM samples WHERE volts_v IS NULL"), 6);
	cr_assert_eq(num(st, "SELECT count(*) FROM point_ports"), 27);
	cr_assert_eq(num(st, "SELECT count(*) FROM events WHERE data IS NULL"), 1);
	cr_assert_eq(num(st, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	cr_assert_eq(num(st, "SELECT count(*) FROM sqlite_master WHERE name = 'points_campaign'"),
	             1);
	/* The campaign of the old version resumes: same content hash, the one missing point. */
	cr_assert_eq(sb_campaign_load_string(&c, "v1.yaml", v1, sizeof(v1) - 1), 0);
	cr_assert_str_eq(c.hash, "c4306a50059c0717", "hashes of older campaigns are kept");
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), 0, "%s", sb_error_detail());
	cr_assert(sum.resumed);
	cr_assert_eq(sum.skipped, 3);
	cr_assert_eq(sum.run, 1);
	cr_assert_eq(num(st, "SELECT count(DISTINCT idx) FROM points WHERE campaign_id = 1"), 4);
	cr_assert_eq(num(st, "SELECT count(*) FROM campaigns WHERE status = 'complete'"), 1);
	sb_campaign_release(&c);
	sb_store_close(st);
}

/*
 * Processes opening one database at once, all started together: with the schema checked outside
 * the write transaction, all but one failed with "table schema_version already exists" on a
 * fresh file (issue 17, item 9), or with a duplicate column when upgrading a version-1 file.
 */
static void open_concurrently(unsigned nproc)
{
	int go[2];
	pid_t pids[16];

	cr_assert_leq(nproc, 16);
	cr_assert_eq(pipe(go), 0);
	for (unsigned i = 0; i < nproc; i++) {
		pids[i] = fork();
		cr_assert_geq(pids[i], 0);
		if (pids[i] == 0) {
			struct sb_store *st;
			char c;
			int e;

			close(go[1]);
			/* all start at the same instant: when the pipe is closed */
			if (read(go[0], &c, 1) < 0)
				_exit(3);
			e = sb_store_open(&st, db);
			if (e < 0) {
				fprintf(stderr, "child %u: %s\n", i, sb_error_detail());
				_exit(1);
			}
			e = sb_store_schema_version(st);
			sb_store_close(st);
			_exit(e == SB_STORE_SCHEMA_VERSION ? 0 : 2);
		}
	}
	close(go[0]);
	close(go[1]);
	for (unsigned i = 0; i < nproc; i++) {
		int status;

		cr_assert_eq(waitpid(pids[i], &status, 0), pids[i]);
		cr_expect(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %u: status %d", i,
		          status);
	}
}

Test(store, concurrent_opens_of_a_fresh_database)
{
	for (int round = 0; round < 5; round++) {
		unlink(db);
		open_concurrently(8);
	}
}

Test(store, concurrent_upgrades_of_a_version_1_database)
{
	for (int round = 0; round < 3; round++) {
		char wal[160];

		unlink(db);
		snprintf(wal, sizeof(wal), "%s-wal", db);
		unlink(wal);
		make_v1();
		open_concurrently(6);
	}
}

/* Run an HBM2 card's campaign (sim:u280) into the store. */
static void run_hbm(struct sb_store *st, const char *text)
{
	struct sb_run_options o = {0};
	struct sb_run_summary sum;
	struct sb_campaign c;

	cr_assert_eq(sb_campaign_load_string(&c, "hbm.yaml", text, strlen(text)), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), 0, "%s", sb_error_detail());
	sb_campaign_release(&c);
}

/*
 * Version 7 to 8: an HBM2 card's points gain their per-port detail (hbm_point_ports). A
 * version-7 database (a version-8 one with the table and its version taken out) is read as it
 * is, then upgraded in place: its HBM2 point is kept (without per-port rows: they were not
 * stored), and the next run stores a row per port whose sums are the point's totals.
 */
Test(store, version_7_hbm_points_upgraded_to_per_port_detail)
{
	static const char first[] = "name: a\nbench: {device: \"sim:u280\"}\n"
	                            "durations: {warmup_us: 2, window_us: 20}\n"
	                            "sweep: {ports: 2, op: mix, burst: 64}\n";
	static const char second[] = "name: b\nbench: {device: \"sim:u280\"}\n"
	                             "durations: {warmup_us: 2, window_us: 20}\n"
	                             "sweep: {ports: 0-2, op: mix, burst: 64}\n";
	struct sb_store *st;
	sqlite3 *raw;
	char *text;

	cr_assert_eq(sb_store_open(&st, db), 0, "%s", sb_error_detail());
	run_hbm(st, first);
	sb_store_close(st);
	cr_assert_eq(sqlite3_open(db, &raw), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(raw,
	                          "DROP TABLE hbm_point_ports; DELETE FROM schema_version WHERE "
	                          "version = 8",
	                          NULL, NULL, NULL),
	             SQLITE_OK, "%s", sqlite3_errmsg(raw));
	sqlite3_close(raw);
	/* read-only: version 7 as it is, no per-port detail to export */
	cr_assert_eq(sb_store_open_readonly(&st, db), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_store_schema_version(st), 7);
	text = export_text(st, SB_EXPORT_JSON, SB_TABLE_POINTS, false);
	cr_assert(strstr(text, "\"hbm_points\"") && !strstr(text, "hbm_point_ports"), "%.300s",
	          text);
	free(text);
	{
		FILE *f = tmpfile();

		cr_assert_eq(sb_store_export(st, f, SB_EXPORT_CSV, SB_TABLE_HBM_PORTS, 0, false),
		             SB_ERR_NOT_FOUND);
		cr_assert(strstr(sb_error_detail(), "hbm_point_ports: schema version 8"), "%s",
		          sb_error_detail());
		fclose(f);
	}
	sb_store_close(st);
	/* writable: upgraded, the old point kept */
	cr_assert_eq(sb_store_open(&st, db), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_store_schema_version(st), 8);
	cr_assert_eq(num(st, "SELECT count(*) FROM hbm_points"), 1);
	cr_assert_eq(num(st, "SELECT count(*) FROM hbm_point_ports"), 0);
	cr_assert_eq(num(st, "SELECT count(*) FROM pragma_foreign_key_check"), 0);
	/* a new point: one row per port (0, 1, 2), summing to the point's totals */
	run_hbm(st, second);
	{
		char ports[64];

		cr_assert_eq(sb_store_query(st,
		                            "SELECT group_concat(port) FROM (SELECT port FROM "
		                            "hbm_point_ports ORDER BY port)",
		                            0, first_text, ports),
		             1);
		cr_assert_str_eq(ports, "0,1,2");
	}
#define OF_B "FROM hbm_points h JOIN points p ON p.id = h.point_id WHERE h.port_set = '0-2'"
#define PORTS_B "FROM hbm_point_ports hp WHERE hp.point_id = h.point_id"
	cr_assert_eq(num(st, "SELECT count(*) FROM hbm_point_ports WHERE txns > 0 AND rd_bytes > 0 "
	                     "AND wr_bytes > 0 AND wr_lat_avg_ns > 0 AND rd_lat_avg_ns > 0"),
	             3, "every port read and wrote");
	cr_assert_eq(num(st, "SELECT h.txns - (SELECT sum(txns) " PORTS_B ") " OF_B), 0);
	cr_assert_eq(num(st, "SELECT h.wr_bytes - (SELECT sum(wr_bytes) " PORTS_B ") " OF_B), 0);
	cr_assert_eq(num(st, "SELECT h.cls_hit + h.cls_closed + h.cls_miss - (SELECT sum(cls_hit "
	                     "+ cls_closed + cls_miss) " PORTS_B ") " OF_B),
	             0);
	cr_assert_eq(
	    num(st, "SELECT h.wr_lat_min_ns - (SELECT min(wr_lat_min_ns) " PORTS_B ") " OF_B), 0);
	cr_assert_eq(
	    num(st, "SELECT h.rd_lat_max_ns - (SELECT max(rd_lat_max_ns) " PORTS_B ") " OF_B), 0);
	cr_assert_eq(num(st,
	                 "SELECT (SELECT sum(j.value) FROM hbm_points h, json_each(h.hist) j WHERE "
	                 "h.port_set = '0-2') - (SELECT sum(j.value) FROM hbm_point_ports, "
	                 "json_each(hist) j)"),
	             0, "the ports' histograms add up to the point's");
	cr_assert_gt(num(st, "SELECT sum(j.value) FROM hbm_point_ports, json_each(hist) j"), 0);
	/* the per-port write latencies average (weighted by the ports' writes) to the point's:
	   within rounding */
	cr_assert_lt(
	    fabs(num(st, "SELECT h.wr_lat_avg_ns - (SELECT sum(wr_lat_avg_ns * wr_bytes) / "
	                 "sum(wr_bytes) " PORTS_B ") " OF_B)),
	    1e-6);
	text = export_text(st, SB_EXPORT_CSV, SB_TABLE_HBM_PORTS, false);
	cr_assert(!strncmp(text, "campaign_id,point_idx,attempt,point_id,port,pc,txns,", 52),
	          "%.200s", text);
	free(text);
#undef OF_B
#undef PORTS_B
	sb_store_close(st);
}
