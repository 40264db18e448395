/* SPDX-License-Identifier: MIT */
/*
 * Thermal campaigns on the simulated bench, end to end through the engine and the store:
 * steady-state temperatures against the calibration data, power and cooling, a forced thermal
 * failure (write traffic in the weakest cooling) recovered with every point accounted for,
 * retries (and their resume), a cool-down that cannot succeed, instruments named in the file,
 * and the thermal figures.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/bench_model.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/report.h"
#include "stackbench/store.h"
#include "stackbench/util.h"

#include "campaign_fixture.h"

static void setup(void)
{
	campaign_fixture_setup("sb-thermal");
}

static void teardown(void)
{
	campaign_fixture_teardown();
}

TestSuite(campaign_thermal, .init = setup, .fini = teardown, .timeout = 240);

static void load(const char *text)
{
	cr_assert_eq(sb_campaign_load_string(&c, "thermal.yaml", text, strlen(text)), 0, "%s",
	             sb_error_detail());
}

static int to_double(void *ctx, unsigned ncol, const struct sb_cell *cells)
{
	cr_assert_eq(ncol, 1);
	*(double *)ctx = cells[0].type == SB_CELL_NULL ? NAN : cells[0].d;
	return 0;
}

static double value(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The one value a query returns (NAN for NULL). */
static double value(const char *fmt, ...)
{
	char sql[1024];
	double v = NAN;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	cr_assert_eq(sb_store_query(st, sql, 0, to_double, &v), 1, "%s: %s", sql,
	             sb_error_detail());
	return v;
}

/* Steady-state hot spot of a point: cooling configuration, type, ports ("0": idle). */
static double steady(const char *cfg, const char *type, int ports)
{
	return value("SELECT temp_c_steady FROM points WHERE cooling = '%s' AND type = '%s' AND "
	             "ports = %d AND failed = 0",
	             cfg, type, ports);
}

static const char *const cfgs[] = {"Cfg1", "Cfg2", "Cfg3", "Cfg4"};

struct figures {
	unsigned made;
	char names[16][40];
};

static void on_figure(void *ctx, const struct sb_report_figure *fig)
{
	struct figures *f = ctx;

	if (fig->path && f->made < 16)
		snprintf(f->names[f->made++], sizeof(f->names[0]), "%s", fig->name);
}

static char *read_all(const char *path)
{
	char *data = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");

	cr_assert_not_null(f, "%s", path);
	cr_assert_gt(getdelim(&data, &len, '\0', f), 0, "%s", path);
	fclose(f);
	return data;
}

static bool file_has(const char *name, const char *text)
{
	char path[256];
	char *data;
	bool found;

	snprintf(path, sizeof(path), "%s/fig/%s", dir, name);
	data = read_all(path);
	found = strstr(data, text) != NULL;
	free(data);
	return found;
}

/* Least-squares slope of (bandwidth, steady temperature) of ro in a configuration, idle
 * included: what the figure's key must print. */
static int add_xy(void *ctx, unsigned ncol, const struct sb_cell *x)
{
	double *s = ctx;

	cr_assert_eq(ncol, 2);
	s[0] += 1;
	s[1] += x[0].d;
	s[2] += x[1].d;
	s[3] += x[0].d * x[0].d;
	s[4] += x[0].d * x[1].d;
	return 0;
}

static double ro_slope(const char *cfg)
{
	char sql[256];
	double s[5] = {0};

	snprintf(sql, sizeof(sql),
	         "SELECT bandwidth_gbps, temp_c_steady FROM points WHERE cooling = '%s' AND type = "
	         "'ro' AND failed = 0",
	         cfg);
	cr_assert_eq(sb_store_query(st, sql, 0, add_xy, s), 3);
	return (s[0] * s[4] - s[1] * s[2]) / (s[0] * s[3] - s[1] * s[1]);
}

/*
 * Idle, 2 ports and all 9 ports of ro (and 2 and 9 of wo) in each configuration, 200 s each:
 * the idle temperatures are the calibration's, more bandwidth is warmer, weaker cooling is
 * warmer and costs power; write traffic fails in the weak configurations and the campaign
 * goes on. Then the thermal figures.
 */
Test(campaign_thermal, steady_state_matches_the_calibration_and_figures)
{
	struct sb_bench_params *bp = malloc(sizeof(*bp));
	struct figures figs = {0};
	struct sb_report_options ro = {.figure = on_figure, .ctx = &figs};
	struct sb_run_summary sum;
	char out[128], legend[96];

	cr_assert_not_null(bp);
	cr_assert_eq(sb_bench_params_load(bp, NULL), 0, "%s", sb_error_detail());
	load("kind: thermal\n"
	     "instruments: sim\n"
	     "durations: {thermal_s: 200}\n"
	     "sample_interval_ms: 1000\n"
	     "sweep:\n"
	     "  cooling: [Cfg1, Cfg2, Cfg3, Cfg4]\n"
	     "  type: [ro, wo]\n"
	     "  ports: [0, 2, all]\n"
	     "exclude:\n"
	     "  - {type: wo, ports: 0}\n");
	cr_assert_eq(c.npoints, 20);
	cr_assert_eq(sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(value("SELECT count(DISTINCT idx) FROM points"), 20, "every point stored");
	for (unsigned i = 0; i < 4; i++) {
		const struct sb_cooling_cfg *cc = &bp->cooling[sb_bench_find_cooling(bp, cfgs[i])];

		cr_assert_float_eq(steady(cfgs[i], "ro", 0), cc->idle_c, 0.5,
		                   "%s idle: %.2f C, calibration %.1f C", cfgs[i],
		                   steady(cfgs[i], "ro", 0), cc->idle_c);
		cr_assert_lt(steady(cfgs[i], "ro", 0), steady(cfgs[i], "ro", 2), "%s", cfgs[i]);
		cr_assert_lt(steady(cfgs[i], "ro", 2), steady(cfgs[i], "ro", 9),
		             "%s: more bandwidth is warmer", cfgs[i]);
		cr_assert_eq(value("SELECT count(*) FROM points WHERE cooling = '%s' AND "
		                   "cooling_config = '%s' AND cooling_power_w = %.17g AND "
		                   "fan_supply_v = %.17g",
		                   cfgs[i], cfgs[i], cc->cooling_power_w, cc->fan_supply_v),
		             value("SELECT count(*) FROM points WHERE cooling = '%s'", cfgs[i]),
		             "the cooling state of every point");
		if (!i)
			continue;
		for (int p = 0; p <= 9; p += p ? 7 : 2)
			cr_assert_gt(steady(cfgs[i], "ro", p), steady(cfgs[i - 1], "ro", p) + 5,
			             "%s is weaker than %s (ro, %d ports)", cfgs[i], cfgs[i - 1],
			             p);
		cr_assert_gt(value("SELECT power_w_avg FROM points WHERE cooling = '%s' AND type = "
		                   "'ro' AND ports = 9",
		                   cfgs[i]),
		             value("SELECT power_w_avg FROM points WHERE cooling = '%s' AND type = "
		                   "'ro' AND ports = 9",
		                   cfgs[i - 1]),
		             "weaker cooling: more power at the same bandwidth (leakage)");
	}
	/* docs/hmc.md §7: ro in Cfg2, +3 C and +2 W per 15 GB/s. */
	cr_assert_float_eq((steady("Cfg2", "ro", 9) - steady("Cfg2", "ro", 2)) /
	                       (value("SELECT bandwidth_gbps FROM points WHERE cooling = 'Cfg2' "
	                              "AND type = 'ro' AND ports = 9") -
	                        value("SELECT bandwidth_gbps FROM points WHERE cooling = 'Cfg2' "
	                              "AND type = 'ro' AND ports = 2")) *
	                       15,
	                   3.0, 0.3);
	cr_assert_gt(steady("Cfg1", "wo", 9) - steady("Cfg1", "wo", 2),
	             steady("Cfg1", "ro", 9) - steady("Cfg1", "ro", 2), "writes heat more");
	/* The steady state is the mean hot spot of the last 10 % of the point's samples. */
	cr_assert_eq(value("SELECT count(*) FROM points p WHERE failed = 0 AND abs(temp_c_steady - "
	                   "(SELECT avg(temp_c) FROM samples s WHERE s.point_id = p.id AND s.t_ns "
	                   ">= 0.9 * p.elapsed_ns)) > 1e-9"),
	             0);
	/* Samples: t = 0..200 s every second, hot spot, power (not at t = 0), volts, amps. */
	cr_assert_eq(value("SELECT count(*) FROM samples s JOIN points p ON p.id = s.point_id "
	                   "WHERE p.failed = 0"),
	             201 * value("SELECT count(*) FROM points WHERE failed = 0"));
	cr_assert_eq(value("SELECT count(*) FROM samples WHERE temp_c IS NULL OR volts_v NOT "
	                   "BETWEEN 110 AND 130 OR amps_a NOT BETWEEN 0.9 AND 1.2 OR (seq > 0 AND "
	                   "power_w IS NULL) OR (seq = 0 AND power_w IS NOT NULL)"),
	             0);
	/* The heat carries over: a point starts where the one before it ended (or the
	 * recovery's cool-down left the bench, after a failure). */
	cr_assert_eq(value("SELECT count(*) FROM points a JOIN points b ON b.idx = a.idx + 1 "
	                   "WHERE a.failed = 0 AND abs(b.temp_c_start - (SELECT temp_c FROM "
	                   "samples WHERE point_id = a.id ORDER BY seq DESC LIMIT 1)) > 0.3"),
	             0);
	/* Write traffic at full bandwidth fails in Cfg3 and Cfg4; the campaign went on. */
	cr_assert_geq(sum.failed, 2);
	cr_assert_eq(sum.recovered, sum.failed);
	cr_assert_eq(value("SELECT count(*) FROM points WHERE failed = 1 AND type = 'wo' AND "
	                   "cooling IN ('Cfg3', 'Cfg4')"),
	             sum.failed);
	cr_assert_eq(value("SELECT count(*) FROM points WHERE failed = 1 AND type = 'ro'"), 0,
	             "read-only traffic survives past 80 C");
	cr_assert_gt(steady("Cfg4", "ro", 9), 80);

	/* The figures. */
	snprintf(out, sizeof(out), "%s/fig", dir);
	ro.out_dir = out;
	cr_assert_geq(sb_report(st, &ro), 4, "%s", sb_error_detail());
	cr_assert_str_eq(figs.names[figs.made - 4], "thermal_temperature_bandwidth");
	cr_assert_str_eq(figs.names[figs.made - 3], "thermal_power_bandwidth");
	cr_assert_str_eq(figs.names[figs.made - 2], "thermal_cooling_power");
	cr_assert_str_eq(figs.names[figs.made - 1], "thermal_failure_trace");
	snprintf(legend, sizeof(legend), "Cfg2 · ro: %+.3f ± ", ro_slope("Cfg2"));
	cr_assert(file_has("thermal_temperature_bandwidth.gp", legend),
	          "the fitted slope in the key: %s", legend);
	cr_assert(file_has("thermal_temperature_bandwidth.dat", "# fit \"Cfg2\" \"ro\" slope 0."));
	cr_assert(file_has("thermal_temperature_bandwidth.svg", "bandwidth (GB/s)"));
	cr_assert(file_has("thermal_temperature_bandwidth.svg", "temperature, camera hot spot"));
	cr_assert(file_has("thermal_temperature_bandwidth.gp", "set title 'Cfg4'"),
	          "a panel per configuration");
	cr_assert(file_has("thermal_power_bandwidth.svg", "power, whole machine (W)"));
	cr_assert(file_has("thermal_power_bandwidth.dat", "# fit \"ro\" \"Cfg1\" slope "));
	cr_assert(file_has("thermal_cooling_power.svg", "cooling power (W)"));
	cr_assert(file_has("thermal_cooling_power.gp", "to hold the hot spot at "));
	cr_assert(file_has("thermal_cooling_power.dat", " W per 16 GB/s), R² = "));
	cr_assert(file_has("thermal_failure_trace.svg", "time since the point started (s)"));
	{
		char mark[80];
		double t = value("SELECT fail_t_ns / 1e9 FROM points WHERE failed = 1 ORDER BY idx "
		                 "LIMIT 1"),
		       temp = value("SELECT fail_temp_c FROM points WHERE failed = 1 ORDER BY idx "
		                    "LIMIT 1");

		char xs[40], ys[40];

		snprintf(mark, sizeof(mark), "%s \"-\" %s ", sb_format_double(xs, sizeof(xs), t),
		         sb_format_double(ys, sizeof(ys), temp));
		cr_assert(file_has("thermal_failure_trace.dat", mark), "the failure marked: %s",
		          mark);
		snprintf(mark, sizeof(mark), ": failed at %.1f °C, %.0f s'", temp, t);
		cr_assert(file_has("thermal_failure_trace.gp", mark), "in the key: %s", mark);
	}
	cr_assert(file_has("thermal_failure_trace.png", "PNG"));
	free(bp);
}

/* cooling: Cfg2 then Cfg4, wo then ro; 60 s points: wo fails in Cfg4 within ~25 s. */
static const char *forced = "name: forced\n"
                            "kind: thermal\n"
                            "instruments: sim\n"
                            "durations: {thermal_s: 60}\n"
                            "sample_interval_ms: 1000\n"
                            "sweep:\n"
                            "  cooling: [Cfg2, Cfg4]\n"
                            "  type: [wo, ro]\n";

Test(campaign_thermal, forced_failure_is_recovered_and_every_point_accounted_for)
{
	struct sb_run_summary sum;
	double fail_c;

	load(forced);
	cr_assert_eq(sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sum.total, 4);
	cr_assert_eq(sum.run, 4);
	cr_assert_eq(sum.failed, 1);
	cr_assert_eq(sum.recovered, 1);
	cr_assert_eq(sum.retried, 0);
	cr_assert_eq(value("SELECT count(*) FROM campaigns WHERE status = 'complete' AND "
	                   "points_total = 4"),
	             1);
	cr_assert_eq(value("SELECT count(*) FROM points"), 4, "one run per point");
	cr_assert_eq(value("SELECT group_concat(idx) FROM points WHERE failed = 1"), 2,
	             "Cfg4 wo failed");
	/* The failed point: partial counters, its failure, its samples up to it. */
	fail_c = value("SELECT fail_temp_c FROM points WHERE idx = 2");
	cr_assert(fail_c > 74 && fail_c < 76, "write traffic fails near 75 C: %.1f C", fail_c);
	cr_assert_eq(value("SELECT count(*) FROM points WHERE idx = 2 AND cooling_config = 'Cfg4' "
	                   "AND elapsed_ns < duration_ns AND fail_t_ns = elapsed_ns AND writes > "
	                   "1e8 AND reads = 0 AND temp_c_steady IS NULL AND fail_power_w > 100"),
	             1);
	cr_assert_eq(value("SELECT count(*) FROM samples s JOIN points p ON p.id = s.point_id "
	                   "WHERE p.idx = 2"),
	             value("SELECT elapsed_ns / 1000000000 + 1 + (elapsed_ns %% 1000000000 != 0) "
	                   "FROM points WHERE idx = 2"),
	             "one sample a second, and one when the failure was seen");
	cr_assert_eq(value("SELECT s.writes FROM samples s JOIN points p ON p.id = s.point_id "
	                   "WHERE p.idx = 2 ORDER BY s.seq DESC LIMIT 1"),
	             value("SELECT writes FROM points WHERE idx = 2"),
	             "the last sample holds the counters at the failure");
	/* The event: time, temperature, point, counters so far. */
	cr_assert_eq(
	    value("SELECT count(*) FROM events e JOIN points p ON p.idx = e.point_idx "
	          "WHERE e.kind = 'thermal_failure' AND p.idx = 2 AND "
	          "abs(json_extract(e.data, '$.temperature_c') - p.fail_temp_c) < 1e-9 AND "
	          "json_extract(e.data, '$.writes') = p.writes AND "
	          "json_extract(e.data, '$.t_s') * 1e9 = p.fail_t_ns AND "
	          "json_extract(e.data, '$.cooling') = 'Cfg4' AND e.message LIKE "
	          "'%%thermal failure %% into point 2 ''cooling=Cfg4 rep=0 type=wo%%'"),
	    1);
	/* The recovery, after the failure: its steps, cooled by the margin in the strongest
	 * configuration, the point's configuration put back. */
	cr_assert_eq(
	    value("SELECT count(*) FROM events WHERE kind = 'recovered' AND point_idx = 2 "
	          "AND id > (SELECT id FROM events WHERE kind = 'thermal_failure') AND "
	          "message LIKE '%%ports stopped, cooling Cfg1, cooled from %%, cube reset, "
	          "transceivers reset, initialized, cooling Cfg4 restored%%' AND "
	          "json_extract(data, '$.cooling') = 'Cfg1' AND json_extract(data, "
	          "'$.reached_c') <= json_extract(data, '$.target_c') AND "
	          "abs(json_extract(data, '$.target_c') - (json_extract(data, '$.fail_c') "
	          "- 5)) < 1e-9"),
	    1);
	cr_assert_float_eq(value("SELECT json_extract(data, '$.fail_c') FROM events WHERE kind = "
	                         "'recovered'"),
	                   fail_c, 1e-9);
	/* The cube serves again: the next point ran whole, from the cooled bench. */
	cr_assert_eq(value("SELECT count(*) FROM points WHERE idx = 3 AND failed = 0 AND "
	                   "bandwidth_gbps > 22 AND elapsed_ns = 60000000000"),
	             1);
	cr_assert_leq(value("SELECT temp_c_start FROM points WHERE idx = 3"),
	              value("SELECT json_extract(data, '$.reached_c') FROM events WHERE kind = "
	                    "'recovered'") +
	                  0.3);
}

struct stopper {
	volatile sig_atomic_t flag;
};

/* Stop after the first run that failed. */
static void stop_on_failure(void *ctx, const struct sb_run_progress *p)
{
	struct stopper *s = ctx;

	if (p->last && p->last_failed)
		s->flag = 1;
}

/* Cfg4, wo at full bandwidth (20.8 GB/s): fails every time (120 s points: from the Cfg2 idle
 * temperature the camera passes 75 C after about a minute). */
static const char *always = "name: always\n"
                            "kind: thermal\n"
                            "instruments: sim\n"
                            "durations: {thermal_s: 120}\n"
                            "sample_interval_ms: 1000\n"
                            "recovery: {retries: 2}\n"
                            "sweep: {cooling: Cfg4, type: [wo, ro]}\n";

Test(campaign_thermal, retries_store_every_run_and_resume)
{
	struct stopper s = {0};
	struct sb_run_options o = {
	    .progress = stop_on_failure, .progress_ctx = &s, .stop = &s.flag};
	struct sb_run_summary sum;

	load(always);
	/* Stopped after the first failed run: that run is stored, the point is not finished. */
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), SB_ERR_INTERRUPTED, "%s",
	             sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM points"), 1);
	cr_assert_eq(value("SELECT attempt FROM points"), 0);
	/* Resume: the point's two retries run, then the next point. */
	o.progress = NULL;
	o.resume = true;
	s.flag = 0;
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), 0, "%s", sb_error_detail());
	cr_assert(sum.resumed);
	cr_assert_eq(sum.failed, 2);
	cr_assert_eq(sum.retried, 2);
	cr_assert_eq(value("SELECT count(*) FROM points WHERE idx = 0 AND failed = 1"), 3,
	             "the first run and its 2 retries, each stored");
	cr_assert_eq(value("SELECT count(DISTINCT attempt) + max(attempt) FROM points WHERE idx = "
	                   "0"),
	             3 + 2);
	cr_assert_eq(value("SELECT count(*) FROM points WHERE idx = 1 AND failed = 0"), 1,
	             "then the campaign went on");
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind = 'thermal_failure'"), 3);
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind = 'recovered'"), 3);
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind = 'retry' AND point_idx = 0 AND "
	                   "message LIKE '%%runs again (run _ of 3)'"),
	             2);
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind = 'thermal_failure' AND "
	                   "json_extract(data, '$.attempt') = 2"),
	             1);
	cr_assert_eq(value("SELECT count(*) FROM campaigns WHERE status = 'complete'"), 1);
	/* Resuming the complete campaign runs nothing: retries used up count as done. */
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), 0);
	cr_assert_eq(sum.run, 0);
	cr_assert_eq(sum.skipped, 2);
}

Test(campaign_thermal, without_retries_a_failed_point_runs_once)
{
	struct sb_run_summary sum;
	char text[512];

	snprintf(text, sizeof(text), "%s", always);
	memcpy(strstr(text, "retries: 2"), "retries: 0", 10);
	load(text);
	cr_assert_eq(sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sum.failed, 1);
	cr_assert_eq(sum.retried, 0);
	cr_assert_eq(value("SELECT count(*) FROM points"), 2);
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind = 'retry'"), 0);
}

/*
 * A retry that succeeds: ro at full bandwidth (22.5 GB/s) heats Cfg4 past 78 C in 120 s, so the
 * write traffic after it fails at once (the junction is above the write threshold); the recovery cools the bench
 * (twice: the first reset finds the cube still too hot) and the retry runs whole.
 */
Test(campaign_thermal, a_retry_from_a_cooler_start_succeeds)
{
	struct sb_run_summary sum;

	load("name: retry\nkind: thermal\ninstruments: sim\ndurations: {thermal_s: 120}\n"
	     "sample_interval_ms: 1000\nrecovery: {retries: 1}\n"
	     "sweep: {cooling: Cfg4, type: [ro, wo], pattern: [all, 1bank]}\n"
	     "only: [{type: ro, pattern: all}, {type: wo, pattern: 1bank}]\n");
	cr_assert_eq(sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sum.failed, 1);
	cr_assert_eq(sum.retried, 1);
	cr_assert_eq(value("SELECT count(*) FROM points WHERE idx = 1 AND attempt = 0 AND failed = "
	                   "1 AND fail_temp_c > 78"),
	             1, "failed at once, hot from the ro point");
	cr_assert_eq(value("SELECT count(*) FROM points WHERE idx = 1 AND attempt = 1 AND failed = "
	                   "0 AND elapsed_ns = 120000000000 AND temp_c_steady IS NOT NULL"),
	             1, "the retry ran whole");
	cr_assert_eq(value("SELECT json_extract(data, '$.rounds') FROM events WHERE kind = "
	                   "'recovered'"),
	             2);
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind = 'recovered' AND message LIKE "
	                   "'%%failed again at once (still too hot), cooled from %%'"),
	             1);
}

/*
 * Cooling kept in Cfg4 during the recovery: its idle hot spot (71.6 C) is above the target
 * (5 C below the ~75 C failure), so the cool-down times out; the run stops (resumable) with
 * the failed point stored and the failure recorded.
 */
Test(campaign_thermal, a_cool_down_that_cannot_succeed_stops_the_run)
{
	struct sb_run_summary sum;
	int e;

	load("name: keep\nkind: thermal\ninstruments: sim\ndurations: {thermal_s: 60}\n"
	     "sample_interval_ms: 1000\nrecovery: {cooling: keep, cool_max_s: 30}\n"
	     "sweep: {cooling: Cfg4, type: [wo, ro]}\n");
	e = sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum);
	cr_assert_eq(e, SB_ERR_TIMEOUT, "%d: %s", e, sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "after 30 s of cooling; the recovery waits for"), "%s",
	          sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "recovery.cool_max_s"), "%s", sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM points WHERE failed = 1"), 1);
	cr_assert_eq(
	    value("SELECT count(*) FROM events WHERE kind = 'recovery_failed' AND "
	          "json_extract(data, '$.cool_s') = 30 AND json_extract(data, '$.cooling') "
	          "= ''"),
	    1);
	/* stopped by an error: marked so (resumable), not left "running" */
	cr_assert_eq(value("SELECT count(*) FROM campaigns WHERE status = 'error'"), 1);
}

/* Instruments named in the file are opened on each worker's board; a bad option is reported
 * with the file, line and key, and nothing runs. */
Test(campaign_thermal, instrument_errors_name_the_file_line_key)
{
	struct sb_run_summary sum;

	load("name: roi\ninstruments:\n  temperature: \"sim:?roi=150,100,40,40\"\n");
	cr_assert_eq(sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "'thermal.yaml' line 3: key 'temperature': on 'sim:': "
	                                    "cannot open temperature source "
	                                    "'sim:?roi=150,100,40,40'"),
	          "%s", sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "not inside the 160x120 frame"), "%s",
	          sb_error_detail());
	sb_campaign_release(&c);
	load("name: rate\ninstruments:\n  power: \"sim:?rate=2\"\n");
	cr_assert_eq(sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum), SB_ERR_URI);
	cr_assert(strstr(sb_error_detail(), "'thermal.yaml' line 3: key 'power': on 'sim:': "),
	          "%s", sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "unknown option 'rate'"), "%s", sb_error_detail());
	sb_campaign_release(&c);
	load("name: bench\ninstruments: sim\nbench: {device: \"sim:?bench=nosuchbench\"}\n");
	cr_assert_lt(sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum), 0);
	cr_assert(strstr(sb_error_detail(), "nosuchbench"), "%s", sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM campaigns"), 0, "nothing ran");
}

/* A bandwidth campaign with instruments: every point on a fresh simulated board, the
 * instruments opened again on it. */
Test(campaign_thermal, bandwidth_campaign_with_instruments)
{
	struct sb_run_summary sum;

	load("name: bw\ninstruments:\n  temperature: \"sim:?roi=all\"\n  power: \"sim:\"\n"
	     "durations: {bandwidth_s: 0.02}\nsample_interval_ms: 5\nsweep: {type: [ro, wo]}\n");
	cr_assert_eq(sb_campaign_run(&c, st, &(struct sb_run_options){0}, &sum), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM samples"), 2 * 5, "t = 0, 5, 10, 15, 20 ms");
	cr_assert_eq(value("SELECT count(*) FROM samples WHERE temp_c BETWEEN 45 AND 60"), 10,
	             "the hot spot of the whole frame, Cfg2 idle + 20 ms of traffic");
	cr_assert_eq(value("SELECT count(*) FROM points WHERE power_w_avg > 100 AND temp_c_steady "
	                   "IS NOT NULL AND cooling_config IS NULL"),
	             2, "no cooling actuator: no cooling state");
}
