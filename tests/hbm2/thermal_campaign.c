/* SPDX-License-Identifier: MIT */
/*
 * Thermal campaigns on an HBM2 card with the card's own sensors (sensors:, libsensors): the
 * simulated U280 with the described hwmon tree of an Alveo U280
 * (tests/data/hwmon/alveo-u280.umockdev: hbm_temp 51 C, power1 43 W) in a umockdev testbed,
 * run under umockdev-wrapper. The test changes the sensor from the run's event callback, which
 * runs on the worker between two samples: the bench does not move while it does, so what the
 * point sees does not depend on the machine's load.
 *   - limit: the temperature goes to 85 C during the point: the ports stop at the limit (80 C),
 *     the run is stored failed with its samples (51 C before, 85 C at the stop), a thermal_stop
 *     event; the cool-down reads 85 C until the test lowers it to 55 C, then the point runs
 *     again (recovery.retries 1) and completes at 55 C;
 *   - lost: the sensor's device goes away during the second point: the AC-510's rule (an
 *     instrument_lost event, a reconnect for 10 s, then the run stops naming the source), the
 *     first point stays stored.
 *   thermal_campaign TREE.umockdev
 */
#include <glib.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <umockdev.h>
#include <unistd.h>

#include "hwmon_testbed.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/store.h"

#define TEMP "sensors:xclmgmt-*?feature=hbm_temp&poll_ms=20"

static UMockdevTestbed *tb;
static struct sb_temp_source *probe; /* the test's own view of the sensor */

/* What the callback did and saw. */
static struct {
	int scenario; /* 0: limit, 1: lost */
	bool raised, lowered, removed;
	unsigned samples_hot; /* samples of run 1 (attempt 0) at 85 C */
	unsigned cool_readings_hot;
	double cool_last_c;
} seen;

/* Set hbm_temp and wait until the sensor's reader has seen it alone (the test's own source
 * reads it, then a few more polls for the worker's reader). */
static void set_temp(const char *milli, double c)
{
	umockdev_testbed_set_attribute(tb, HWMON, "temp2_input", milli);
	for (int i = 0; i < 200; i++) {
		struct sb_temp_reading t;

		if (sb_temp_source_sample(probe, &t) == 0 && fabs(t.hotspot_c - c) < 1e-9)
			break;
		sleep_ms(20);
	}
	sleep_ms(100);
}

static void on_event(void *ctx, const struct sb_run_event *ev)
{
	(void)ctx;
	if (seen.scenario == 0 && ev->kind == SB_RUN_SAMPLE && ev->attempt == 0) {
		if (ev->sample->temp_c > 84.9)
			seen.samples_hot++;
		if (!seen.raised && ev->sample->t_ns >= 300000000ull) {
			set_temp("85000\n", 85.0);
			seen.raised = true;
		}
	}
	if (seen.scenario == 0 && ev->kind == SB_RUN_COOLDOWN) {
		seen.cool_last_c = ev->sample->temp_c;
		if (ev->sample->temp_c > 84.9)
			seen.cool_readings_hot++;
		/* the cool-down waits while it is hot: lower it after five readings */
		if (seen.cool_readings_hot == 5 && !seen.lowered) {
			set_temp("55000\n", 55.0);
			seen.lowered = true;
		}
	}
	if (seen.scenario == 1 && ev->kind == SB_RUN_SAMPLE && ev->point->index == 1 &&
	    ev->sample->t_ns >= 200000000ull && !seen.removed) {
		umockdev_testbed_remove_device(tb, HWMON);
		for (int i = 0; i < 200; i++) { /* until the reader has seen it go */
			struct sb_temp_reading t;

			if (sb_temp_source_sample(probe, &t) == SB_ERR_IO)
				break;
			sleep_ms(20);
		}
		sleep_ms(100);
		seen.removed = true;
	}
}

static int run(const char *yaml, const char *db, struct sb_run_summary *sum)
{
	struct sb_run_options o = {.jobs = 1, .event = on_event};
	struct sb_campaign c;
	struct sb_store *st;
	int e;

	memset(sum, 0, sizeof(*sum));
	if ((e = sb_campaign_load_string(&c, "t.yaml", yaml, strlen(yaml))) < 0) {
		fprintf(stderr, "load: %s\n", sb_error_detail());
		return e;
	}
	if ((e = sb_store_open(&st, db)) < 0) {
		sb_campaign_release(&c);
		return e;
	}
	e = sb_campaign_run(&c, st, &o, sum);
	sb_store_close(st);
	sb_campaign_release(&c);
	return e;
}

/* One value of a query on db (the first column of the first row), as text ("" if none). */
static void query(const char *db, const char *sql, char *out, size_t size)
{
	char cmd[2048];
	FILE *p;
	size_t n;

	snprintf(cmd, sizeof(cmd), "sqlite3 '%s' \"%s\"", db, sql);
	out[0] = '\0';
	if (!(p = popen(cmd, "r")))
		return;
	n = fread(out, 1, size - 1, p);
	out[n] = '\0';
	while (n && (out[n - 1] == '\n' || out[n - 1] == '\r'))
		out[--n] = '\0';
	pclose(p);
}

/* The query's value on db must be want (what: what it is, for the message). */
static void expect(const char *db, const char *sql, const char *want, const char *what)
{
	char v[1024];

	query(db, sql, v, sizeof(v));
	CHECK(!strcmp(v, want), "%s: '%s', expected '%s'", what, v, want);
}

#define CAMPAIGN                                                                                   \
	"name: hbm2-thermal-test\n"                                                                \
	"kind: thermal\n"                                                                          \
	"bench: {device: \"sim:u280\"}\n"                                                          \
	"instruments:\n"                                                                           \
	"  temperature: \"" TEMP "\"\n"                                                            \
	"  power: \"sensors:xclmgmt-*?feature=power1&poll_ms=20\"\n"                               \
	"durations: {thermal_s: 1}\n"                                                              \
	"sample_interval_ms: 100\n"                                                                \
	"sweep: {outstanding: [1], burst: [32], ports: %s}\n"                                      \
	"recovery: {limit_c: 84.5, resume_c: 55.5, cool_max_s: 3600, retries: 1}\n"

/* The campaign with these ports (a YAML list) into dir/NAME.db (db: its path). */
static int run_ports(const char *dir, const char *ports, const char *name, char db[512],
                     struct sb_run_summary *sum)
{
	char yaml[1024];

	snprintf(yaml, sizeof(yaml), CAMPAIGN, ports);
	snprintf(db, 512, "%s/%s.db", dir, name);
	return run(yaml, db, sum);
}

static void limit_scenario(const char *dir)
{
	struct sb_run_summary sum;
	char db[512];
	int e;

	seen.scenario = 0;
	e = run_ports(dir, "[1]", "limit", db, &sum);
	CHECK(e == 0, "limit campaign: %d %s", e, sb_error_detail());
	CHECK(seen.raised && seen.lowered, "raised %d lowered %d", seen.raised, seen.lowered);
	CHECK(sum.failed == 1 && sum.retried == 1 && sum.recovered == 1,
	      "failed %u retried %u recovered %u", sum.failed, sum.retried, sum.recovered);
	/* run 1: stopped at the limit, before its second; the samples as the sensor said */
	expect(db,
	       "SELECT failed || '/' || fail_temp_c || '/' || (elapsed_ns < 900000000) || '/' || "
	       "temp_c_start FROM points WHERE attempt = 0",
	       "1/85.0/1/51.0", "run 1 failed/fail_temp/stopped early/start");
	expect(db,
	       "SELECT min(s.temp_c) || '/' || max(s.temp_c) || '/' || max(s.power_w) FROM "
	       "samples s JOIN points p ON p.id = s.point_id WHERE p.attempt = 0",
	       "51.0/85.0/43.0", "run 1 samples min/max temperature, power");
	CHECK(seen.samples_hot == 1, "%u samples at 85 C: the point went on past the limit",
	      seen.samples_hot);
	/* the last sample of run 1 is the stop, at 85 C (a mean of 51 and 85 C readings stays
	   below the limit, 84.5 C); all before it below the limit */
	expect(db,
	       "SELECT s.temp_c || '/' || (SELECT count(*) FROM samples x WHERE x.point_id = "
	       "s.point_id AND x.temp_c >= 84.5) FROM samples s JOIN points p ON p.id = "
	       "s.point_id WHERE p.attempt = 0 ORDER BY s.t_ns DESC LIMIT 1",
	       "85.0/1", "run 1: last sample / samples over the limit");
	expect(db,
	       "SELECT json_extract(data, '$.temperature_c') || '/' || "
	       "json_extract(data, '$.limit_c') FROM events WHERE kind = 'thermal_stop'",
	       "85/84.5", "thermal_stop event");
	/* the cool-down read 85 C until the test lowered it, then ended at 55 C */
	CHECK(seen.cool_readings_hot >= 5 && seen.cool_last_c > 55.5,
	      "cool-down: %u hot readings, last %.1f", seen.cool_readings_hot, seen.cool_last_c);
	expect(db,
	       "SELECT json_extract(data, '$.reached_c') || '/' || json_extract(data, "
	       "'$.target_c') || '/' || (json_extract(data, '$.cool_s') >= 5) FROM events "
	       "WHERE kind = 'recovered'",
	       "55/55.5/1", "recovered event reached/target/waited");
	/* run 2: the whole thermal_s at 55 C */
	expect(db,
	       "SELECT failed || '/' || temp_c_max || '/' || (elapsed_ns > 990000000) FROM "
	       "points WHERE attempt = 1",
	       "0/55.0/1", "run 2 failed/temp max/whole");
	expect(db,
	       "SELECT count(*) FROM samples s JOIN points p ON p.id = s.point_id WHERE "
	       "p.attempt = 1",
	       "11", "run 2 samples (0 .. 1 s every 100 ms)");
}

static void lost_scenario(const char *dir)
{
	struct sb_run_summary sum;
	char db[512];
	int e;

	set_temp("51000\n", 51.0);
	seen.scenario = 1;
	e = run_ports(dir, "[1, 2]", "lost", db, &sum);
	CHECK(seen.removed, "the sensor was not removed");
	CHECK(e == SB_ERR_IO || e == SB_ERR_NOT_FOUND || e == SB_ERR_TIMEOUT,
	      "lost sensor: the run ended with %d (%s)", e, sb_error_detail());
	CHECK(strstr(sb_error_detail(), "point 1 '") &&
	          strstr(sb_error_detail(), "the temperature source '" TEMP "' was lost"),
	      "lost sensor: %s", sb_error_detail());
	expect(db, "SELECT group_concat(idx || ':' || failed || ':' || temp_c_max) FROM points",
	       "0:0:51.0", "stored points (point 0 kept, point 1 not stored)");
	expect(db,
	       "SELECT point_idx || '/' || json_extract(data, '$.conn') || '/' || "
	       "(json_extract(data, '$.samples') >= 3) FROM events WHERE kind = "
	       "'instrument_lost'",
	       "1/" TEMP "/1", "instrument_lost event");
}

int main(int argc, char **argv)
{
	char dir[] = "/tmp/sb-hbm2-thermal-XXXXXX", cmd[600];
	struct sb_device *dev = NULL;
	char *tree;
	int e;

	tb = hwmon_testbed(argc, argv, &tree);
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	if ((e = sb_device_open(&dev, "sim:u280")) < 0 ||
	    (e = sb_temp_source_open(&probe, TEMP, dev)) < 0) {
		fprintf(stderr, "setup: %s\n", sb_error_detail());
		return 2;
	}
	limit_scenario(dir);
	lost_scenario(dir);
	sb_temp_source_close(probe);
	sb_device_close(dev);
	g_object_unref(tb);
	free(tree);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", dir);
	if (failures)
		return 1;
	printf("thermal_campaign: ok\n");
	return 0;
}
