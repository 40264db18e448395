/* SPDX-License-Identifier: MIT */
/*
 * The campaign engine on the simulated bench: a whole small campaign with value checks, the
 * same results with several workers, stop and resume, a changed file refused, bad points
 * refused before anything runs.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/bench_metrics.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/report.h"
#include "stackbench/store.h"

#include "campaign_fixture.h"

static void setup(void)
{
	campaign_fixture_setup("sb-run");
}

static void teardown(void)
{
	campaign_fixture_teardown();
}

TestSuite(campaign_run, .init = setup, .fini = teardown, .timeout = 240);

/* 2 types x 3 patterns, 20 ms points sampled every millisecond. */
static const char *small = "name: small\n"
                           "durations: {bandwidth_s: 0.02}\n"
                           "sample_interval_ms: 1\n"
                           "sweep:\n"
                           "  type: [ro, rw]\n"
                           "  pattern: [1bank, 16bank, 16vault]\n";

static void load(const char *text)
{
	cr_assert_eq(sb_campaign_load_string(&c, "small.yaml", text, strlen(text)), 0, "%s",
	             sb_error_detail());
}

static int run(unsigned jobs, struct sb_run_summary *sum)
{
	struct sb_run_options o = {.jobs = jobs};

	return sb_campaign_run(&c, st, &o, sum);
}

static int to_double(void *ctx, unsigned ncol, const struct sb_cell *cells)
{
	cr_assert_eq(ncol, 1);
	*(double *)ctx = cells[0].d;
	return 0;
}

static double value(const char *sql)
{
	double v = NAN;

	cr_assert_eq(sb_store_query(st, sql, 0, to_double, &v), 1, "%s: %s", sql,
	             sb_error_detail());
	return v;
}

static double bw(const char *type, const char *pattern)
{
	char sql[256];

	snprintf(sql, sizeof(sql),
	         "SELECT bandwidth_gbps FROM points WHERE type = '%s' AND pattern = '%s'", type,
	         pattern);
	return value(sql);
}

/* Bandwidth from flit accounting, recomputed from the stored counters. */
static int check_flits(void *ctx, unsigned ncol, const struct sb_cell *x)
{
	/* size_b, reads, writes, elapsed_ns, bandwidth_gbps */
	double bytes = (double)x[1].i * sb_read_access_bytes((unsigned)x[0].i) +
	               (double)x[2].i * sb_write_access_bytes((unsigned)x[0].i, false);

	(void)ctx;
	cr_assert_eq(ncol, 5);
	cr_assert_gt(x[1].i + x[2].i, 0);
	cr_assert_float_eq(x[4].d, bytes / (double)x[3].i, 1e-9 * x[4].d);
	return 0;
}

Test(campaign_run, small_campaign_values)
{
	struct sb_run_summary sum;
	struct sb_store_campaign info;

	load(small);
	cr_assert_eq(c.npoints, 6);
	cr_assert_eq(run(1, &sum), 0, "%s", sb_error_detail());
	cr_assert_eq(sum.total, 6);
	cr_assert_eq(sum.run, 6);
	cr_assert_eq(sum.skipped, 0);
	cr_assert_eq(sum.campaign_id, 1);
	cr_assert_eq(sb_store_campaign_get(st, 1, &info), 0);
	cr_assert_str_eq(info.status, "complete");
	cr_assert_eq(info.points_done, 6);
	/* The structure shows: more banks, then more vaults, give more bandwidth. */
	for (int t = 0; t < 2; t++) {
		const char *type = t ? "rw" : "ro";

		cr_assert_lt(bw(type, "1bank"), bw(type, "16bank"), "%s: 1bank < 16bank", type);
		cr_assert_lt(bw(type, "16bank"), bw(type, "16vault"), "%s: 16bank < 16vault", type);
	}
	cr_assert_gt(bw("rw", "16vault"), bw("ro", "16vault"),
	             "rw uses both link directions: more bandwidth than ro");
	cr_assert_eq(value("SELECT count(*) FROM points WHERE elapsed_ns = 20000000 AND "
	                   "duration_ns = 20000000 AND ports = 9 AND failed = 0"),
	             6);
	cr_assert_eq(sb_store_query(st,
	                            "SELECT size_b, reads, writes, elapsed_ns, bandwidth_gbps FROM "
	                            "points",
	                            0, check_flits, NULL),
	             6);
	cr_assert_eq(value("SELECT count(*) FROM points WHERE type = 'rw' AND abs(reads - writes) "
	                   "> 0.05 * reads"),
	             0, "rw: a write of the same address follows every read");
	cr_assert_eq(value("SELECT count(*) FROM points WHERE type = 'ro' AND writes = 0 AND "
	                   "latency_avg_ns > latency_min_ns AND latency_min_ns > 500"),
	             3);
	/* Time series: one sample per millisecond of bench time, counters never go back. */
	cr_assert_eq(value("SELECT count(*) FROM samples"), 6 * 20);
	cr_assert_eq(value("SELECT max(t_ns) FROM samples"), 20000000);
	cr_assert_eq(value("SELECT count(*) FROM samples a JOIN samples b ON a.point_id = "
	                   "b.point_id AND b.seq = a.seq + 1 WHERE b.reads < a.reads OR b.t_ns - "
	                   "a.t_ns != 1000000"),
	             0);
	cr_assert_eq(value("SELECT count(*) FROM samples s JOIN points p ON p.id = s.point_id "
	                   "WHERE s.reads > p.reads"),
	             0);
	/* The last millisecond of a 16-vault ro point runs at the point's bandwidth. */
	cr_assert_float_eq(value("SELECT s.bandwidth_gbps FROM samples s JOIN points p ON p.id = "
	                         "s.point_id WHERE p.type = 'ro' AND p.pattern = '16vault' AND "
	                         "s.seq = 19"),
	                   bw("ro", "16vault"), 0.02 * bw("ro", "16vault"));
	cr_assert_eq(value("SELECT count(*) FROM point_ports"), 6 * 9);
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind IN ('start', 'complete')"), 2);
}

/* Per-port counters of every point, one line each, without the row ids. */
static int row_text(void *ctx, unsigned ncol, const struct sb_cell *x)
{
	FILE *f = ctx;

	for (unsigned i = 0; i < ncol; i++)
		fprintf(f, "%s ", x[i].s);
	fputc('\n', f);
	return 0;
}

static char *results(int64_t id)
{
	static const char sql[] =
	    "SELECT p.idx, p.key, p.seed, p.reads, p.writes, p.bandwidth_gbps, p.mrps, "
	    "p.latency_min_ns, p.latency_avg_ns, p.latency_max_ns, pp.port, pp.reads, pp.writes, "
	    "pp.latency_avg_ns FROM points p JOIN point_ports pp ON pp.point_id = p.id WHERE "
	    "p.campaign_id = ?1 ORDER BY p.idx, pp.port";
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	cr_assert_gt(sb_store_query(st, sql, id, row_text, out), 0);
	fclose(out);
	return buf;
}

Test(campaign_run, results_do_not_depend_on_jobs)
{
	struct sb_run_summary s1, s3;
	char *a, *b;

	load(small);
	cr_assert_eq(run(1, &s1), 0, "%s", sb_error_detail());
	/* A new campaign of the same file (no --resume), on three simulated boards. */
	cr_assert_eq(run(3, &s3), 0, "%s", sb_error_detail());
	cr_assert_eq(s3.campaign_id, 2);
	cr_assert_eq(s3.run, 6);
	cr_assert_eq(value("SELECT count(DISTINCT worker) FROM points WHERE campaign_id = 2"), 3);
	a = results(1);
	b = results(2);
	cr_assert_str_eq(a, b, "the same points give the same results with 1 and 3 workers");
	free(a);
	free(b);
}

struct stopper {
	volatile sig_atomic_t flag;
	unsigned after;
};

static void stop_after(void *ctx, const struct sb_run_progress *p)
{
	struct stopper *s = ctx;

	if (p->done_run >= s->after)
		s->flag = 1;
}

Test(campaign_run, stop_and_resume)
{
	struct stopper s = {.after = 2};
	struct sb_run_options o = {.progress = stop_after, .progress_ctx = &s, .stop = &s.flag};
	struct sb_run_summary sum;
	char *whole, *resumed;

	load(small);
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), SB_ERR_INTERRUPTED);
	cr_assert(
	    strstr(sb_error_detail(), "campaign 1 'small' interrupted with 2 of 6 points stored"),
	    "%s", sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM points"), 2);
	/* not left "running": waiting for a resume */
	cr_assert_eq(value("SELECT count(*) FROM campaigns WHERE status = 'interrupted'"), 1);
	/* Resume: the 4 others run, none again. */
	s.flag = 0;
	s.after = 100;
	o.resume = true;
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), 0, "%s", sb_error_detail());
	cr_assert(sum.resumed);
	cr_assert_eq(sum.campaign_id, 1);
	cr_assert_eq(sum.skipped, 2);
	cr_assert_eq(sum.run, 4);
	cr_assert_eq(value("SELECT count(*) FROM points"), 6);
	cr_assert_eq(value("SELECT count(DISTINCT idx) FROM points"), 6);
	cr_assert_eq(value("SELECT count(*) FROM campaigns"), 1);
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind = 'interrupted'"), 1);
	cr_assert_eq(value("SELECT count(*) FROM events WHERE kind = 'resume'"), 1);
	/* Resuming a complete campaign runs nothing. */
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), 0);
	cr_assert_eq(sum.run, 0);
	cr_assert_eq(sum.skipped, 6);
	/* And the results equal those of an uninterrupted run. */
	o.resume = false;
	o.progress = NULL;
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), 0);
	whole = results(2);
	resumed = results(1);
	cr_assert_str_eq(whole, resumed);
	free(whole);
	free(resumed);
}

Test(campaign_run, changed_file_is_not_resumed)
{
	struct stopper s = {.after = 1};
	struct sb_run_options o = {.progress = stop_after, .progress_ctx = &s, .stop = &s.flag};
	struct sb_run_summary sum;

	load(small);
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), SB_ERR_INTERRUPTED);
	sb_campaign_release(&c);
	load("name: small\n"
	     "durations: {bandwidth_s: 0.03}\n"
	     "sample_interval_ms: 1\n"
	     "sweep:\n"
	     "  type: [ro, rw]\n"
	     "  pattern: [1bank, 16bank, 16vault]\n");
	s.flag = 0;
	o.resume = true;
	cr_assert_eq(sb_campaign_run(&c, st, &o, &sum), SB_ERR_MISMATCH);
	cr_assert(strstr(sb_error_detail(), "campaign file 'small.yaml' has changed since campaign "
	                                    "1 'small' started"),
	          "%s", sb_error_detail());
	cr_assert(strstr(sb_error_detail(), "refusing to resume"));
	cr_assert_eq(value("SELECT count(*) FROM points"), 1, "nothing ran");
}

Test(campaign_run, bad_points_run_nothing)
{
	struct sb_run_summary sum;

	load("sweep:\n  ports: [4, 12]\n");
	cr_assert_eq(run(1, &sum), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "needs 12 ports; 'sim:' has 9"), "%s",
	          sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM campaigns"), 0, "nothing stored");
	sb_campaign_release(&c);
	load("bench: {device: \"pci:0000:00:00.0\"}\n");
	cr_assert_eq(run(2, &sum), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "--jobs 2 needs 2 device URIs in 'bench.device'"), "%s",
	          sb_error_detail());
	sb_campaign_release(&c);
	load("bench: {device: \"sim:nosuchprofile\"}\n");
	cr_assert_eq(run(1, &sum), SB_ERR_NOT_FOUND, "%s", sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM campaigns"), 0);
}

/* port_order: spread runs the points' ports round robin over the links, and stores them. */
Test(campaign_run, spread_ports_are_stored_by_their_number)
{
	struct sb_run_summary sum;

	load("durations: {bandwidth_s: 0.001}\nport_order: spread\nsweep:\n  ports: [2, 3]\n");
	cr_assert_eq(run(1, &sum), 0, "%s", sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM point_ports pp JOIN points p ON p.id = "
	                   "pp.point_id WHERE p.ports = 2 AND pp.port IN (0, 4) AND pp.reads > 0"),
	             2);
	cr_assert_eq(
	    value("SELECT count(*) FROM point_ports pp JOIN points p ON p.id = "
	          "pp.point_id WHERE p.ports = 3 AND pp.port IN (0, 1, 4) AND pp.reads > 0"),
	    3);
}

Test(campaign_run, stream_latency)
{
	struct sb_run_summary sum;

	load("durations: {stream_groups: 50}\nsweep:\n  stream: [2, 16]\n  size: [32]\n");
	cr_assert_eq(run(1, &sum), 0, "%s", sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM points WHERE stream_groups = 50 AND ports = 1 AND "
	                   "mismatches = 0"),
	             2);
	cr_assert_eq(value("SELECT reads FROM points WHERE stream = 16"), 50 * 16);
	cr_assert_gt(value("SELECT latency_avg_ns FROM points WHERE stream = 16"),
	             value("SELECT latency_avg_ns FROM points WHERE stream = 2"),
	             "more requests in a group wait longer");
	cr_assert_eq(value("SELECT count(*) FROM samples"), 0, "stream points are not sampled");
}

struct figures {
	unsigned made;
	char names[12][32];
};

static void on_figure(void *ctx, const struct sb_report_figure *fig)
{
	struct figures *f = ctx;

	if (!strncmp(fig->name, "thermal_", 8) || !strncmp(fig->name, "hbm_", 4)) {
		/* No instruments in this campaign, no HBM2 card: the thermal and HBM2 figures say
		 * why they are not drawn. */
		cr_assert_null(fig->path, "%s", fig->name);
		cr_assert(fig->skipped_why && strstr(fig->skipped_why, "no "), "%s: %s", fig->name,
		          fig->skipped_why);
		return;
	}
	cr_assert_not_null(fig->path, "figure %s skipped: %s", fig->name, fig->skipped_why);
	cr_assert_eq(fig->formats, SB_REPORT_PNG | SB_REPORT_SVG);
	cr_assert_lt(f->made, 12);
	snprintf(f->names[f->made++], sizeof(f->names[0]), "%s", fig->name);
}

static bool file_has(const char *path, const char *text)
{
	char *data = NULL;
	size_t len = 0;
	FILE *f = fopen(path, "r");
	bool found;

	cr_assert_not_null(f, "%s", path);
	cr_assert_eq(getdelim(&data, &len, '\0', f) > 0, true);
	fclose(f);
	found = strstr(data, text) != NULL;
	free(data);
	return found;
}

Test(campaign_run, report_draws_every_figure)
{
	struct figures figs = {0};
	struct sb_report_options o = {.figure = on_figure, .ctx = &figs};
	struct sb_run_summary sum;
	char out[128], path[256];

	/* Just enough points of each kind, 1 ms each. */
	load("durations: {bandwidth_s: 0.001, stream_groups: 20}\n"
	     "sample_interval_ms: 0.5\n"
	     "sweep:\n"
	     "  type: [ro, rw]\n"
	     "  size: [64, 128]\n"
	     "  pattern: [16bank, all]\n"
	     "  ports: [4, all]\n"
	     "  stream: [0, 2]\n"
	     "  mask: {width: 8, positions: 20, baseline: true}\n"
	     "exclude:\n"
	     "  - {stream: 2, ports: 4}\n"
	     "  - {stream: 2, mask: 20}\n"
	     "  - {stream: 2, pattern: 16bank}\n"
	     "  - {mask: 20, ports: 4}\n");
	cr_assert_eq(c.npoints, 28);
	cr_assert_eq(run(1, &sum), 0, "%s", sb_error_detail());
	snprintf(out, sizeof(out), "%s/fig", dir);
	o.out_dir = out;
	cr_assert_eq(sb_report(st, &o), 9, "%s", sb_error_detail());
	cr_assert_str_eq(figs.names[0], "mask_bandwidth");
	cr_assert_str_eq(figs.names[3], "pattern_latency");
	cr_assert_str_eq(figs.names[4], "occupancy_pattern");
	cr_assert_str_eq(figs.names[8], "stream_latency");
	snprintf(path, sizeof(path), "%s/pattern_bandwidth.svg", out);
	cr_assert(file_has(path, "bandwidth (GB/s)"), "y axis with its unit");
	cr_assert(file_has(path, "access pattern"));
	cr_assert(file_has(path, "16bank"), "categorical x axis");
	snprintf(path, sizeof(path), "%s/size_mrps.svg", out);
	cr_assert(file_has(path, "request size (bytes)"));
	cr_assert(file_has(path, "MRPS"));
	snprintf(path, sizeof(path), "%s/latency_bandwidth.svg", out);
	cr_assert(file_has(path, "read latency, average (ns)"));
	snprintf(path, sizeof(path), "%s/stream_latency.dat", out);
	cr_assert(file_has(path, "\"ro\" \"64 B\""), "a panel per type, a line per size");
	snprintf(path, sizeof(path), "%s/size_bandwidth.png", out);
	cr_assert(file_has(path, "PNG"));
	/* No gnuplot: a clear error, nothing drawn. */
	o.gnuplot = "/nonexistent/gnuplot";
	cr_assert_eq(sb_report(st, &o), SB_ERR_NOT_SUPPORTED);
	cr_assert(strstr(sb_error_detail(), "'/nonexistent/gnuplot' not found (install the Debian "
	                                    "package gnuplot-nox"));
}

Test(campaign_run, thermal_kind_runs_thermal_duration)
{
	struct sb_run_summary sum;

	load("kind: thermal\n"
	     "durations: {bandwidth_s: 0.001, thermal_s: 0.004}\n"
	     "sample_interval_ms: 1\n"
	     "sweep: {type: [ro, rw]}\n");
	cr_assert_eq(run(1, &sum), 0, "%s", sb_error_detail());
	cr_assert_eq(value("SELECT count(*) FROM points WHERE duration_ns = 4000000 AND elapsed_ns "
	                   "= 4000000 AND failed = 0"),
	             2);
	cr_assert_eq(value("SELECT count(*) FROM samples"), 8);
	cr_assert_eq(value("SELECT count(*) FROM campaigns WHERE kind = 'thermal'"), 1);
	cr_assert_eq(value("SELECT count(*) FROM samples WHERE temp_c IS NULL AND power_w IS NULL"),
	             8, "no instruments: no temperature or power");
}
