/* SPDX-License-Identifier: MIT */
/*
 * The report end to end on the simulated bench: short campaigns run through the library, then
 * sb_report, then the data files, the gnuplot scripts and the HTML page read back and checked
 * against the database: the means and 95 % confidence intervals of repeated points, campaigns
 * of different durations never averaged, the axes, the palette, the labels, the fits against
 * least squares computed here by hand, the marks of simulated and fast-forwarded data, the
 * formats, and the escaping of hostile names in the HTML page.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report_int.h"
#include "stackbench/campaign.h"
#include "stackbench/error.h"
#include "stackbench/report.h"
#include "stackbench/store.h"

#include "campaign_fixture.h"

static void setup(void)
{
	campaign_fixture_setup("sb-report");
}

static void teardown(void)
{
	campaign_fixture_teardown();
}

TestSuite(report_flow, .init = setup, .fini = teardown, .timeout = 240);

/* Student's t, 97.5 % quantile, 2 degrees of freedom (from a table). */
#define T975_2 4.302652729911275

static bool near(double a, double b, double rel)
{
	return fabs(a - b) <= rel * fmax(fabs(a), fabs(b)) + 1e-12;
}

/* Run a campaign from text: its id. */
static int64_t campaign(const char *text)
{
	struct sb_run_summary sum;
	struct sb_run_options ro = {.jobs = 1};
	struct sb_store_campaign sc;

	sb_campaign_release(&c);
	memset(&c, 0, sizeof(c));
	cr_assert_eq(sb_campaign_load_string(&c, "t.yaml", text, strlen(text)), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_campaign_run(&c, st, &ro, &sum), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_store_campaign_latest(st, c.name, &sc), 0);
	return sc.id;
}

struct figs {
	unsigned made, skipped;
	char names[32][48];
	unsigned n_min[32], n_max[32], formats[32];
};

static void on_figure(void *ctx, const struct sb_report_figure *f)
{
	struct figs *fs = ctx;

	if (f->skipped_why) {
		fs->skipped++;
		return;
	}
	cr_assert_lt(fs->made, 32);
	cr_assert_not_null(f->path);
	snprintf(fs->names[fs->made], sizeof(fs->names[0]), "%s", f->base);
	fs->n_min[fs->made] = f->n_min;
	fs->n_max[fs->made] = f->n_max;
	fs->formats[fs->made++] = f->formats;
}

/* Make the figures into dir/NAME: the number made. */
static int report(const char *name, struct sb_report_options *o, struct figs *fs)
{
	static char out[256];

	memset(fs, 0, sizeof(*fs));
	snprintf(out, sizeof(out), "%s/%s", dir, name);
	o->out_dir = out;
	o->figure = on_figure;
	o->ctx = fs;
	return sb_report(st, o);
}

static char *slurp(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *slurp(const char *fmt, ...)
{
	char path[512], *data = NULL;
	size_t len = 0;
	va_list ap;
	FILE *f;

	va_start(ap, fmt);
	vsnprintf(path, sizeof(path), fmt, ap);
	va_end(ap);
	f = fopen(path, "r");
	cr_assert_not_null(f, "cannot open %s", path);
	cr_assert_geq(getdelim(&data, &len, '\0', f), 0);
	fclose(f);
	return data;
}

static unsigned count(const char *hay, const char *needle)
{
	unsigned n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

/* --- the data file ------------------------------------------------------------------------ */

struct datrow {
	double x, y, ylo, yhi, xlo, xhi, ymin, ymax;
	unsigned n, nff;
	char xtic[64], label[64], panel[64], series[256];
};

struct dat {
	struct datrow r[512];
	unsigned n;
};

/* A field: a number, or a "quoted" string. */
static const char *field(const char *p, char *out, size_t size)
{
	size_t i = 0;

	while (*p == ' ')
		p++;
	if (*p == '"') {
		for (p++; *p && *p != '"'; p++)
			if (i + 1 < size)
				out[i++] = *p;
		p += *p == '"';
	} else {
		for (; *p && *p != ' ' && *p != '\n'; p++)
			if (i + 1 < size)
				out[i++] = *p;
	}
	out[i] = '\0';
	return p;
}

/* The data rows (not the fitted lines, marks or bounds) of a data file. */
static void read_dat(const char *text, struct dat *d)
{
	bool data = false;

	d->n = 0;
	for (const char *line = text; *line;) {
		const char *end = strchr(line, '\n');
		char f[14][256];

		if (!strncmp(line, "# ", 2))
			data = !strncmp(line, "# data", 6) ? true
			       : strncmp(line, "# fit ", 6) && strncmp(line, "# 1 x", 5) &&
			               strncmp(line, "# stack", 7) && strncmp(line, "# one", 5)
			           ? false
			           : data;
		else if (*line != '\n' && data) {
			const char *p = line;
			struct datrow *r = &d->r[d->n];

			cr_assert_lt(d->n, 512);
			for (int k = 0; k < 14; k++)
				p = field(p, f[k], sizeof(f[k]));
			r->x = strtod(f[0], NULL);
			snprintf(r->xtic, sizeof(r->xtic), "%s", f[1]);
			r->y = strtod(f[2], NULL);
			r->ylo = strtod(f[3], NULL);
			r->yhi = strtod(f[4], NULL);
			r->xlo = strtod(f[5], NULL);
			r->xhi = strtod(f[6], NULL);
			r->n = (unsigned)strtoul(f[7], NULL, 10);
			r->nff = (unsigned)strtoul(f[8], NULL, 10);
			r->ymin = strtod(f[9], NULL);
			r->ymax = strtod(f[10], NULL);
			snprintf(r->label, sizeof(r->label), "%s", f[11]);
			snprintf(r->panel, sizeof(r->panel), "%s", f[12]);
			snprintf(r->series, sizeof(r->series), "%s", f[13]);
			d->n++;
		}
		if (!end)
			break;
		line = end + 1;
	}
}

/* --- values from the database ------------------------------------------------------------- */

struct vals {
	double v[64], w[64];
	unsigned n;
};

static int add_vals(void *ctx, unsigned ncol, const struct sb_cell *cells)
{
	struct vals *vs = ctx;

	cr_assert_lt(vs->n, 64);
	vs->v[vs->n] = cells[0].d;
	vs->w[vs->n] = ncol > 1 ? cells[1].d : 0;
	vs->n++;
	return 0;
}

static void query(struct vals *vs, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void query(struct vals *vs, const char *fmt, ...)
{
	char sql[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(sql, sizeof(sql), fmt, ap);
	va_end(ap);
	vs->n = 0;
	cr_assert_geq(sb_store_query(st, sql, 0, add_vals, vs), 0, "%s: %s", sql,
	              sb_error_detail());
}

static void sql_exec(const char *sql)
{
	sqlite3 *h;
	char *err = NULL;

	cr_assert_eq(sqlite3_open(db, &h), SQLITE_OK);
	cr_assert_eq(sqlite3_exec(h, sql, NULL, NULL, &err), SQLITE_OK, "%s: %s", sql, err);
	sqlite3_close(h);
}

/* 12 points: ro, 64 and 128 B, 16bank and all, three runs each. */
static const char *repeated = "name: rep\n"
                              "durations: {bandwidth_s: 0.01}\n"
                              "sample_interval_ms: 2\n"
                              "sweep:\n"
                              "  type: ro\n"
                              "  size: [64, 128]\n"
                              "  pattern: [16bank, all]\n"
                              "  repeat: 3\n";

Test(report_flow, repetitions_are_averaged_with_a_confidence_interval)
{
	struct sb_report_options o = {0};
	struct figs fs;
	struct dat *d = calloc(1, sizeof(*d));
	unsigned spread = 0;
	char *gp;

	cr_assert_not_null(d);
	campaign(repeated);
	cr_assert_gt(report("fig", &o, &fs), 0, "%s", sb_error_detail());
	cr_assert_str_eq(fs.names[0], "pattern_bandwidth");
	cr_assert(fs.n_min[0] == 3 && fs.n_max[0] == 3);
	read_dat(slurp("%s/fig/pattern_bandwidth.dat", dir), d);
	cr_assert_eq(d->n, 4, "2 sizes x 2 patterns");
	for (unsigned i = 0; i < d->n; i++) {
		const struct datrow *r = &d->r[i];
		struct vals vs;
		double mean = 0, ss = 0, half;

		query(&vs,
		      "SELECT bandwidth_gbps FROM points WHERE type = 'ro' AND pattern = '%s' AND "
		      "size_b || ' B random' = '%s' ORDER BY rep",
		      r->xtic, r->series);
		cr_assert_eq(vs.n, 3, "%s %s", r->series, r->xtic);
		for (unsigned k = 0; k < 3; k++)
			mean += vs.v[k] / 3;
		for (unsigned k = 0; k < 3; k++)
			ss += (vs.v[k] - mean) * (vs.v[k] - mean);
		half = T975_2 * sqrt(ss / 2) / sqrt(3);
		cr_assert_eq(r->n, 3);
		cr_assert_str_eq(r->panel, "ro");
		cr_assert(near(r->y, mean, 1e-12), "%s %s: %.17g, expected %.17g", r->series,
		          r->xtic, r->y, mean);
		cr_assert(near(r->yhi - r->y, half, 1e-9),
		          "%s %s: half-width %.17g, expected %.17g", r->series, r->xtic,
		          r->yhi - r->y, half);
		cr_assert(near(r->y - r->ylo, half, 1e-9));
		spread += half > 0;
	}
	cr_assert_gt(spread, 0, "repetitions on sim: have their own seeds: results differ");
	gp = slurp("%s/fig/pattern_bandwidth.gp", dir);
	cr_assert(strstr(gp, "mean of n = 3 runs; bars: 95 % CI (Student''s t)"), "the key says n");
	cr_assert(strstr(gp, "with yerrorbars"));
	free(gp);
	/* latency per pattern at full load; reads in flight against the tag-pool bound */
	read_dat(slurp("%s/fig/pattern_latency.dat", dir), d);
	cr_assert_eq(d->n, 4);
	for (unsigned i = 0; i < d->n; i++) {
		struct vals vs;

		query(
		    &vs,
		    "SELECT avg(latency_avg_ns) FROM points WHERE pattern = '%s' AND size_b || ' B "
		    "random' = '%s'",
		    d->r[i].xtic, d->r[i].series);
		cr_assert(near(d->r[i].y, vs.v[0], 1e-12));
	}
	gp = slurp("%s/fig/occupancy_pattern.dat", dir);
	cr_assert(strstr(gp, "# bound\n-0.4 \"-\" 576 576 576 "), "9 ports x 64 tags");
	cr_assert(strstr(gp, "\"tag-pool bound: 9 ports × 64 tags\"\n"));
	read_dat(gp, d);
	for (unsigned i = 0; i < d->n; i++)
		cr_assert(d->r[i].y > 0 && d->r[i].y <= 576 * 1.001, "%s %s: %g reads in flight",
		          d->r[i].series, d->r[i].xtic, d->r[i].y);
	free(gp);
	free(d);
}

/* One campaign of 10 ms points, one of 40 ms points, the same sweep. */
static const char *short_run = "name: short\n"
                               "durations: {bandwidth_s: 0.01}\n"
                               "sweep: {pattern: [16bank, all]}\n";
static const char *long_run = "name: long\n"
                              "durations: {bandwidth_s: 0.04}\n"
                              "fast_forward: false\n"
                              "sweep: {pattern: [16bank, all]}\n";

/* The data row of a series at an x label. */
static const struct datrow *row_of(const struct dat *d, const char *series, const char *xtic)
{
	for (unsigned i = 0; i < d->n; i++)
		if (!strcmp(d->r[i].series, series) && !strcmp(d->r[i].xtic, xtic))
			return &d->r[i];
	cr_assert_fail("no row '%s' at '%s'", series, xtic);
	return NULL;
}

static double bandwidth(int64_t cid, const char *pattern)
{
	struct vals vs;

	query(&vs, "SELECT bandwidth_gbps FROM points WHERE campaign_id = %lld AND pattern = '%s'",
	      (long long)cid, pattern);
	cr_assert_eq(vs.n, 1);
	return vs.v[0];
}

Test(report_flow, campaigns_of_different_durations_stay_apart)
{
	int64_t a = campaign(short_run), b = campaign(long_run), only[] = {0}, none[] = {99};
	struct sb_report_options o = {0};
	struct dat *d = calloc(1, sizeof(*d));
	char *gp, s1[96], s2[96];
	struct figs fs;

	cr_assert_not_null(d);
	cr_assert_neq(bandwidth(a, "all"), bandwidth(b, "all"), "the durations give other results");
	/* one set of figures per campaign */
	cr_assert_gt(report("each", &o, &fs), 0, "%s", sb_error_detail());
	read_dat(slurp("%s/each/c%lld_pattern_bandwidth.dat", dir, (long long)a), d);
	cr_assert_eq(d->n, 2);
	cr_assert_eq(row_of(d, "128 B random", "all")->y, bandwidth(a, "all"));
	cr_assert_eq(row_of(d, "128 B random", "all")->n, 1);
	read_dat(slurp("%s/each/c%lld_pattern_bandwidth.dat", dir, (long long)b), d);
	cr_assert_eq(row_of(d, "128 B random", "16bank")->y, bandwidth(b, "16bank"));
	/* compared: one figure, a series per campaign, each its own values */
	o.compare = true;
	cr_assert_gt(report("cmp", &o, &fs), 0, "%s", sb_error_detail());
	read_dat(slurp("%s/cmp/pattern_bandwidth.dat", dir), d);
	cr_assert_eq(d->n, 4);
	snprintf(s1, sizeof(s1), "c%lld short 0.01 s | 128 B random", (long long)a);
	snprintf(s2, sizeof(s2), "c%lld long 0.04 s | 128 B random", (long long)b);
	for (const char *p = "16bank"; p; p = strcmp(p, "all") ? "all" : NULL) {
		cr_assert_eq(row_of(d, s1, p)->y, bandwidth(a, p), "%s", p);
		cr_assert_eq(row_of(d, s2, p)->y, bandwidth(b, p), "%s", p);
	}
	/* the same series in two campaigns: one colour, another dash and shape; open symbols
	   for the fast-forwarded campaign only */
	gp = slurp("%s/cmp/pattern_bandwidth.gp", dir);
	{
		char e1[256], e2[256];

		snprintf(e1, sizeof(e1),
		         "keyentry with linespoints lc rgb '#0072b2' dt 1 pt 6 title '%s'", s1);
		snprintf(e2, sizeof(e2),
		         "keyentry with linespoints lc rgb '#0072b2' dt 4 pt 5 title '%s'", s2);
		cr_assert(strstr(gp, e1), "%s", e1);
		cr_assert(strstr(gp, e2), "%s", e2);
	}
	cr_assert(strstr(gp, "open symbols: fast-forwarded runs"));
	free(gp);
	/* one campaign picked */
	only[0] = b;
	o.compare = false;
	o.campaigns = only;
	o.ncampaigns = 1;
	cr_assert_gt(report("one", &o, &fs), 0, "%s", sb_error_detail());
	read_dat(slurp("%s/one/pattern_bandwidth.dat", dir), d);
	cr_assert_eq(d->n, 2);
	cr_assert_eq(row_of(d, "128 B random", "all")->y, bandwidth(b, "all"));
	gp = slurp("%s/one/pattern_bandwidth.gp", dir);
	cr_assert_null(strstr(gp, "fast-forwarded"), "not fast-forwarded: no such mark");
	cr_assert(strstr(gp, "pt 7"), "filled symbols");
	cr_assert(strstr(gp, "n = 1 run per point: no error bars"));
	cr_assert_null(strstr(gp, "yerrorbars"), "one run: no bars");
	free(gp);
	/* a campaign that is not there */
	o.campaigns = none;
	cr_assert_eq(report("none", &o, &fs), SB_ERR_NOT_FOUND);
	free(d);
}

/* 16 series in latency_bandwidth: 2 types x 8 sizes, at 1 and 2 ports. */
static const char *sizes = "name: sizes\n"
                           "durations: {bandwidth_s: 0.004}\n"
                           "fast_forward: false\n"
                           "sweep:\n"
                           "  type: [ro, rw]\n"
                           "  size: {from: 16, to: 128}\n"
                           "  ports: [1, 2]\n";

/* The colour of a key entry ending in title. */
static void colour_of(const char *gp, const char *title, char *out)
{
	char t[160];
	const char *p, *lc;

	snprintf(t, sizeof(t), "title '%s'\n", title);
	p = strstr(gp, t);
	if (!p) {
		snprintf(t, sizeof(t), "title '%s',", title);
		p = strstr(gp, t);
	}
	cr_assert_not_null(p, "no key entry '%s'", title);
	while (p > gp && strncmp(p, "keyentry", 8))
		p--;
	lc = strstr(p, "lc rgb '");
	cr_assert_not_null(lc);
	snprintf(out, 8, "%s", lc + 8);
}

Test(report_flow, axes_palette_and_labels)
{
	struct sb_report_options o = {0};
	struct dat *d = calloc(1, sizeof(*d));
	char *gp, c1[8], c2[8], colours[16][8];
	struct figs fs;
	unsigned ncol = 0;

	cr_assert_not_null(d);
	campaign(sizes);
	cr_assert_geq(report("fig", &o, &fs), 3, "%s", sb_error_detail());
	gp = slurp("%s/fig/latency_bandwidth.gp", dir);
	/* measured bandwidth, never "offered"; a label with the ports at each point */
	cr_assert(strstr(gp, "set label 1 'measured bandwidth (GB/s)'"));
	cr_assert_null(strstr(gp, "offered"));
	cr_assert(strstr(gp, "using 1:3:12 with labels"));
	read_dat(slurp("%s/fig/latency_bandwidth.dat", dir), d);
	cr_assert_eq(d->n, 32);
	for (unsigned i = 0; i < d->n; i++) {
		struct vals vs;

		query(&vs,
		      "SELECT ports FROM points WHERE type || ' ' || size_b || ' B all random' = "
		      "'%s' "
		      "AND bandwidth_gbps = %.17g",
		      d->r[i].series, d->r[i].x);
		cr_assert_eq(vs.n, 1, "%s at %.17g", d->r[i].series, d->r[i].x);
		cr_assert_eq(strtod(d->r[i].label, NULL), vs.v[0], "the label is the port count");
	}
	/* 16 series, 16 colours; ro and rw of one size apart */
	for (int t = 0; t < 2; t++)
		for (int s = 16; s <= 128; s += 16) {
			char title[64], col[8];
			bool seen = false;

			snprintf(title, sizeof(title), "%s %d B all random", t ? "rw" : "ro", s);
			colour_of(gp, title, col);
			for (unsigned k = 0; k < ncol; k++)
				seen = seen || !strcmp(colours[k], col);
			cr_assert(!seen, "colour %s of '%s' repeats", col, title);
			snprintf(colours[ncol++], sizeof(colours[0]), "%s", col);
		}
	colour_of(gp, "ro 112 B all random", c1);
	colour_of(gp, "rw 112 B all random", c2);
	cr_assert_str_neq(c1, c2);
	/* x and y from 0, no offsets; the panels share one y range */
	cr_assert(strstr(gp, "set xrange [0:"));
	free(gp);
	for (unsigned i = 0; i < fs.made; i++) {
		char *panels, *key;

		gp = slurp("%s/fig/%s.gp", dir, fs.names[i]);
		cr_assert(strstr(gp, "SIMULATED BENCH (sim:): not hardware"), "%s", fs.names[i]);
		cr_assert_null(strstr(gp, "set offsets"), "%s", fs.names[i]);
		cr_assert(strstr(gp, "set yrange [0:"), "%s: y from 0", fs.names[i]);
		/* one y range, set before the panels, none between them */
		panels = strstr(gp, "# panel 1");
		key = strstr(gp, "# the key");
		cr_assert(panels && key && panels < key);
		*key = '\0';
		cr_assert_null(strstr(panels, "yrange"), "%s", fs.names[i]);
		cr_assert_null(strstr(panels, "autoscale"), "%s", fs.names[i]);
		free(gp);
	}
	/* request sizes: a tick at each size measured */
	gp = slurp("%s/fig/size_bandwidth.gp", dir);
	cr_assert(strstr(gp, "set xtics (16, 32, 48, 64, 80, 96, 112, 128)"), "ticks at the sizes");
	cr_assert_eq(count(gp, "set title 'ro'"), 2, "a panel per type (PNG and SVG)");
	cr_assert_eq(count(gp, "set title 'rw'"), 2);
	free(gp);
	free(d);
}

/* Least squares by hand over (x, y): slope, its standard error, R². */
static void hand_fit(const struct vals *vs, double *slope, double *se, double *r2)
{
	double mx = 0, my = 0, sxx = 0, sxy = 0, syy = 0, sse = 0, b0;

	for (unsigned i = 0; i < vs->n; i++) {
		mx += vs->v[i] / vs->n;
		my += vs->w[i] / vs->n;
	}
	for (unsigned i = 0; i < vs->n; i++) {
		sxx += (vs->v[i] - mx) * (vs->v[i] - mx);
		sxy += (vs->v[i] - mx) * (vs->w[i] - my);
		syy += (vs->w[i] - my) * (vs->w[i] - my);
	}
	*slope = sxy / sxx;
	b0 = my - *slope * mx;
	for (unsigned i = 0; i < vs->n; i++) {
		double r = vs->w[i] - b0 - *slope * vs->v[i];

		sse += r * r;
	}
	*se = sqrt(sse / (vs->n - 2) / sxx);
	*r2 = 1 - sse / syy;
}

/* The fit line of the data file for a panel and a series. */
static void dat_fit(const char *text, const char *panel, const char *series, double *slope,
                    double *se, double *r2, unsigned *n)
{
	char head[128];
	const char *p;

	snprintf(head, sizeof(head), "# fit \"%s\" \"%s\" slope ", panel, series);
	p = strstr(text, head);
	cr_assert_not_null(p, "no fit %s %s", panel, series);
	cr_assert_eq(sscanf(p + strlen(head), "%lf slope_se %lf intercept %*f r2 %lf n %u", slope,
	                    se, r2, n),
	             4);
}

static const char *thermal = "name: th\n"
                             "kind: thermal\n"
                             "instruments: sim\n"
                             "durations: {thermal_s: 20}\n"
                             "sample_interval_ms: 1000\n"
                             "sweep:\n"
                             "  cooling: [Cfg1, Cfg4]\n"
                             "  type: [ro, wo]\n"
                             "  ports: [0, 2, all]\n"
                             "exclude:\n"
                             "  - {type: wo, ports: 0}\n";

Test(report_flow, thermal_fits_axes_and_failures)
{
	struct sb_report_options o = {0};
	struct figs fs;
	struct vals vs, fail;
	double slope, se, r2, hs, hse, hr2;
	unsigned n;
	char *dat, *gp, title[96];

	campaign(thermal);
	cr_assert_geq(report("fig", &o, &fs), 3, "%s", sb_error_detail());
	dat = slurp("%s/fig/thermal_temperature_bandwidth.dat", dir);
	for (int k = 0; k < 3; k++) {
		const char *cfg = k == 2 ? "Cfg4" : "Cfg1", *type = k == 1 ? "wo" : "ro";

		/* the type's runs and the configuration's idle run */
		query(&vs,
		      "SELECT bandwidth_gbps, temp_c_steady FROM points WHERE cooling = '%s' AND "
		      "failed = 0 AND (type = '%s' OR ports = 0)",
		      cfg, type);
		cr_assert_eq(vs.n, 3, "%s %s", cfg, type);
		hand_fit(&vs, &hs, &hse, &hr2);
		dat_fit(dat, cfg, type, &slope, &se, &r2, &n);
		cr_assert_eq(n, 3);
		cr_assert(near(slope, hs, 1e-9), "%s %s slope %.17g, by hand %.17g", cfg, type,
		          slope, hs);
		cr_assert(near(se, hse, 1e-6), "%s %s standard error %.17g, by hand %.17g", cfg,
		          type, se, hse);
		cr_assert(near(r2, hr2, 1e-9), "%s %s R² %.17g, by hand %.17g", cfg, type, r2, hr2);
		cr_assert_gt(slope, 0, "more bandwidth is warmer");
	}
	free(dat);
	gp = slurp("%s/fig/thermal_temperature_bandwidth.gp", dir);
	cr_assert(strstr(gp, "set xrange [0:"), "bandwidth from 0");
	cr_assert_null(strstr(gp, "set xrange [-"));
	cr_assert(strstr(gp, "lines: least squares over all runs; slopes in °C per GB/s ± standard "
	                     "error"));
	{
		/* temperature is zoomed on the data (°C has no true zero), never below 0 */
		const char *y = strstr(gp, "set yrange [");
		double lo, hi;

		cr_assert_not_null(y);
		cr_assert_eq(sscanf(y, "set yrange [%lf:%lf]", &lo, &hi), 2);
		query(&vs, "SELECT min(temp_c_steady), max(temp_c_steady) FROM points");
		cr_assert(lo > 0 && lo <= vs.v[0] && hi >= vs.w[0], "[%g:%g]", lo, hi);
	}
	free(gp);
	/* the failures: marked, with the temperature in the key, no labels in the plot */
	query(&fail,
	      "SELECT fail_temp_c, fail_t_ns / 1e9 FROM points WHERE failed = 1 ORDER BY idx");
	cr_assert_geq(fail.n, 1, "write traffic fails in Cfg4");
	gp = slurp("%s/fig/thermal_failure_trace.gp", dir);
	cr_assert_null(strstr(gp, "with labels"), "no labels to overlap");
	for (unsigned i = 0; i < fail.n; i++) {
		snprintf(title, sizeof(title), ": failed at %.1f °C, %.0f s'", fail.v[i],
		         fail.w[i]);
		cr_assert(strstr(gp, title), "%s", title);
	}
	cr_assert(strstr(gp, "with points pt 7 ps 1.6"), "the failure is a dot");
	free(gp);
}

/* Decode base64 (no checks beyond the alphabet): the length. */
static size_t unbase64(const char *in, unsigned char *out, size_t size)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned v = 0, bits = 0;
	size_t n = 0;

	for (; *in && *in != '"' && *in != '='; in++) {
		const char *p = strchr(t, *in);

		cr_assert_not_null(p);
		v = v << 6 | (unsigned)(p - t);
		bits += 6;
		if (bits >= 8 && n < size) {
			bits -= 8;
			out[n++] = (unsigned char)(v >> bits);
		}
	}
	return n;
}

static bool has_column(const char *table, const char *col)
{
	struct vals vs;

	query(&vs, "SELECT count(*) FROM pragma_table_info('%s') WHERE name = '%s'", table, col);
	return vs.v[0] > 0;
}

Test(report_flow, html_is_one_escaped_self_contained_page)
{
	struct sb_report_options o = {.html = true};
	struct figs fs;
	char *html, pwned[256];
	const char *img;
	unsigned char *svg = malloc(1 << 22);
	size_t len;
	int made;

	cr_assert_not_null(svg);
	campaign(repeated);
	/* hostile names: markup, quotes, a newline and a gnuplot system() call */
	snprintf(pwned, sizeof(pwned), "%s/PWNED", dir);
	{
		char sql[1024];

		snprintf(
		    sql, sizeof(sql),
		    "UPDATE campaigns SET name = '<script>alert(\"x\")</script> & co'; UPDATE "
		    "points SET type = type || '<i>&\"''' || char(10) || 'system(\"touch %s\")' || "
		    "char(13) || 'print 1', "
		    "key = key || ' <i>&\"''';",
		    pwned);
		sql_exec(sql);
	}
	made = report("page", &o, &fs);
	cr_assert_gt(made, 0, "%s", sb_error_detail());
	cr_assert_neq(access(pwned, F_OK), 0, "a command from the database ran");
	html = slurp("%s/page/report.html", dir);
	cr_assert(!strncmp(html, "<!DOCTYPE html>", 15));
	cr_assert(strstr(html, "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; co"));
	cr_assert(strstr(html, "mask=none/0 &lt;i&gt;&amp;&quot;&#39;</td>"),
	          "the point's key escaped");
	cr_assert_null(strstr(html, "<script"), "no script, hostile or not");
	cr_assert_null(strstr(html, "<i>"));
	cr_assert_null(strstr(html, "src=\"http"), "nothing fetched");
	cr_assert_null(strstr(html, "<link"));
	cr_assert_null(strstr(html, "url("));
	/* every figure, as an SVG data URI */
	cr_assert_eq(count(html, "src=\"data:image/svg+xml;base64,"), (unsigned)made);
	img = strstr(html, "src=\"data:image/svg+xml;base64,");
	len = unbase64(img + strlen("src=\"data:image/svg+xml;base64,"), svg, (1 << 22) - 1);
	svg[len] = '\0';
	cr_assert(strstr((char *)svg, "<svg"), "the image is an SVG");
	cr_assert(strstr((char *)svg, "SIMULATED BENCH"));
	/* the settings, the provenance (or what stands for it), the points */
	cr_assert(strstr(html, "&quot;repetitions&quot;:\t3"), "the normalized configuration");
	if (has_column("campaigns", "provenance"))
		cr_assert(strstr(html, "<th>provenance</th>"));
	else
		cr_assert(strstr(html, "records no campaign provenance column"));
	cr_assert(strstr(html, "<th>stackbench_version</th>"));
	cr_assert(strstr(html, "<td>sim:</td><td>simulated bench</td><td>12</td>"),
	          "the devices, the simulated bench named");
	cr_assert(strstr(html, "Points of campaign"));
	cr_assert_eq(count(html, "<td>cooling=none rep="), 12, "a row per run");
	cr_assert(strstr(html, "95 % CI (Student&#39;s t)"), "each figure's note");
	free(html);
	free(svg);
}

Test(report_flow, paper_formats)
{
	static const char *const magic[][2] = {
	    {"png", "\x89PNG"}, {"svg", "<?xml"}, {"pdf", "%PDF"}, {"eps", "%!PS-Adobe"}};
	struct sb_report_options o = {
	    .formats = SB_REPORT_PNG | SB_REPORT_SVG | SB_REPORT_PDF | SB_REPORT_EPS,
	    .width_in = 3.5,
	    .no_title = true,
	};
	struct figs fs;
	char *gp;

	campaign(short_run);
	cr_assert_gt(report("paper", &o, &fs), 0, "%s", sb_error_detail());
	cr_assert_eq(fs.formats[0], 15u);
	for (int i = 0; i < 4; i++) {
		char *f = slurp("%s/paper/pattern_bandwidth.%s", dir, magic[i][0]);

		cr_assert(!strncmp(f, magic[i][1], strlen(magic[i][1])), "%s", magic[i][0]);
		free(f);
	}
	gp = slurp("%s/paper/pattern_bandwidth.gp", dir);
	cr_assert(strstr(gp, "set terminal pdfcairo size 3.500in,"));
	cr_assert(strstr(gp, "set terminal epscairo size 3.500in,"));
	cr_assert(strstr(gp, "set terminal pngcairo size 1050,"), "300 dpi");
	cr_assert(strstr(gp, "font ',8'"), "8 pt for a paper");
	cr_assert_null(strstr(gp, "set multiplot title"), "no title: captions go in the paper");
	free(gp);
}

Test(report_flow, repeat_is_another_name_of_repetitions)
{
	static const char *a = "sweep: {type: ro, repetitions: 3}\n",
	                  *b = "sweep: {type: ro, repeat: 3}\n",
	                  *both = "sweep:\n  repeat: 3\n  repetitions: 3\n";
	struct sb_campaign x = {0}, y = {0};

	cr_assert_eq(sb_campaign_load_string(&x, "a.yaml", a, strlen(a)), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_campaign_load_string(&y, "a.yaml", b, strlen(b)), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(x.npoints, 3);
	cr_assert_eq(y.npoints, 3);
	cr_assert_str_eq(x.hash, y.hash, "the same campaign");
	/* each repetition its own seed */
	cr_assert_neq(y.points[0].seed, y.points[1].seed);
	sb_campaign_release(&x);
	sb_campaign_release(&y);
	cr_assert_lt(sb_campaign_load_string(&x, "both.yaml", both, strlen(both)), 0);
	cr_assert(strstr(sb_error_detail(), "'both.yaml' line 2: keys 'repeat' and 'repetitions' "
	                                    "name the same axis: give one"),
	          "%s", sb_error_detail());
	sb_campaign_release(&x);
}

/*
 * --compare of two mask sweeps: each campaign's no-mask baseline is a thin line without points
 * (dashed for the first campaign, dotted for the second), its data lines have points, and no
 * baseline shares a dash type with data (issue 23: baselines looked like the other campaign's
 * data).
 */
Test(report_flow, compared_baselines_are_not_data)
{
	static const char *const mask_run = "name: m\ninstruments: none\n"
	                                    "durations: {bandwidth_s: 0.02}\n"
	                                    "sweep: {mask: {width: 8, positions: [4, 16], "
	                                    "baseline: true}}\n";
	int64_t ids[2];
	struct sb_report_options o = {
	    .campaigns = ids, .ncampaigns = 2, .compare = true, .formats = SB_REPORT_PNG};
	struct figs fs;
	char *gp, want[256];

	ids[0] = campaign(mask_run);
	ids[1] = campaign(mask_run);
	cr_assert_gt(report("masks", &o, &fs), 0, "%s", sb_error_detail());
	gp = slurp("%s/masks/mask_bandwidth.gp", dir);
	for (int g = 0; g < 2; g++) {
		snprintf(
		    want, sizeof(want),
		    "keyentry with lines lc rgb '#0072b2' dt %d lw 0.8 title 'c%lld m | ro 128 B, "
		    "no mask'",
		    2 + g, (long long)ids[g]);
		cr_assert(strstr(gp, want), "%s", want);
		snprintf(
		    want, sizeof(want),
		    "keyentry with linespoints lc rgb '#0072b2' dt %d pt %d title 'c%lld m | ro "
		    "128 B, 8-bit mask'",
		    g ? 4 : 1, g ? 4 : 6, (long long)ids[g]);
		cr_assert(strstr(gp, want), "%s", want);
	}
	/* the baselines' plot elements: lines, no points */
	cr_assert_eq(count(gp, "with lines lc rgb '#0072b2' dt 2 lw 0.8 notitle"), 1, "%s", gp);
	cr_assert_eq(count(gp, "with lines lc rgb '#0072b2' dt 3 lw 0.8 notitle"), 1, "%s", gp);
	free(gp);
}
