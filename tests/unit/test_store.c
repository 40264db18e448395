/* SPDX-License-Identifier: MIT */
/* The results store: schema and its version, one transaction per point, export round trip. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <sqlite3.h>

#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/store.h"

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
	static const char *const tables[] = {"schema_version", "campaigns", "points",
	                                     "point_ports",    "samples",   "events"};
	struct sb_store *st;
	char text[64];

	cr_assert_eq(sb_store_open(&st, db), 0, "%s", sb_error_detail());
	cr_assert_eq(SB_STORE_SCHEMA_VERSION, 1);
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
	cr_assert_eq(sb_store_query(st, "SELECT count(*) FROM schema_version", 0, first_text, text),
	             1);
	cr_assert_str_eq(text, "1");
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
	    sqlite3_exec(raw, "INSERT INTO schema_version VALUES (7, 'later')", NULL, NULL, NULL),
	    SQLITE_OK);
	sqlite3_close(raw);
	cr_assert_eq(sb_store_open(&st, db), SB_ERR_VERSION);
	cr_assert(strstr(sb_error_detail(), "has schema version 7; this stackbench reads up to "
	                                    "version 1"),
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
			                                .power_w = i == 1 ? 12.5 : NAN};
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
	cr_assert_eq(cJSON_GetObjectItem(j, "schema_version")->valueint, SB_STORE_SCHEMA_VERSION);
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
	cr_assert_str_eq(text, "id,campaign_id,point_idx,at,kind,message\n");
	free(text);
	cr_assert_eq(sb_store_export(st, stdout, SB_EXPORT_CSV, SB_TABLE_POINTS, 42, false),
	             SB_ERR_NOT_FOUND);
	sb_store_close(st);
}
