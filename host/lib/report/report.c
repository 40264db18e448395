/* SPDX-License-Identifier: MIT */
/*
 * Figures from the results store: SQL picks and averages the points of each figure, the data
 * and a gnuplot script are written to the output folder, gnuplot draws PNG and SVG.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/gnuplot.h"
#include "stackbench/log.h"
#include "stackbench/output.h"
#include "stackbench/report.h"
#include "stackbench/util.h"

/* Points a figure may use: of the campaign(s), finished without a thermal failure, with
 * traffic (idle points, 0 ports, only in the thermal figures). */
#define SEL "(?1 = 0 OR campaign_id = ?1) AND failed = 0 AND ports > 0"
/* Full-scale GUPS without an extra mask: the most ports any such point used. */
#define FULL                                                                                       \
	SEL " AND stream = 0 AND mask_lo IS NULL AND ports = (SELECT max(ports) FROM points "      \
	    "WHERE " SEL " AND stream = 0)"
#define PATTERN_ORDER                                                                              \
	"CASE pattern WHEN '1bank' THEN 0 WHEN '2bank' THEN 1 WHEN '4bank' THEN 2 WHEN '8bank' "   \
	"THEN 3 WHEN '16bank' THEN 4 WHEN '1vault' THEN 5 WHEN '2vault' THEN 6 WHEN '4vault' "     \
	"THEN 7 WHEN '8vault' THEN 8 WHEN '16vault' THEN 9 ELSE 10 END"
#define TYPE_ORDER "CASE type WHEN 'ro' THEN 0 WHEN 'wo' THEN 1 ELSE 2 END"
/* A metric per access pattern: panels per type, lines per size and mode. */
#define PATTERN_SQL(metric)                                                                        \
	"SELECT type, size_b || ' B ' || mode, " PATTERN_ORDER ", pattern, avg(" metric            \
	"), NULL, "                                                                                \
	"NULL FROM points WHERE " FULL                                                             \
	" GROUP BY type, size_b, mode, pattern ORDER BY " TYPE_ORDER ", size_b, mode, 3"
/* A metric per request size: panels per type, lines per pattern and mode. */
#define SIZE_SQL(metric)                                                                           \
	"SELECT type, pattern || ' ' || mode, size_b, NULL, avg(" metric "), NULL, NULL FROM "     \
	"points WHERE " FULL " GROUP BY type, pattern, mode, size_b ORDER BY " TYPE_ORDER          \
	", " PATTERN_ORDER ", mode, size_b"

/*
 * Thermal points: finished without a failure, GUPS (not stream), of the campaign(s). An idle
 * point (0 ports, bandwidth 0) belongs to every request type measured in the same campaign:
 * THERMAL_POINTS(cols) selects the traffic points and, once per such type, the idle points,
 * as (cfg, type, cooling_power_w, traffic, x = bandwidth, cols).
 */
#define TSEL "(?1 = 0 OR campaign_id = ?1) AND failed = 0 AND stream = 0"
#define TRAFFIC                                                                                    \
	"size_b || ' B ' || pattern || ' ' || mode || ' ' || ports || ' ports ' || addr_mode_b "   \
	"|| "                                                                                      \
	"' ' || coalesce(mask_lo, '-') || '/' || mask_width"
#define THERMAL_POINTS(cols)                                                                       \
	"SELECT coalesce(cooling_config, cooling) AS cfg, type, cooling_power_w, " TRAFFIC         \
	" AS traffic, bandwidth_gbps AS x, " cols " FROM points WHERE " TSEL " AND ports > 0 "     \
	"UNION ALL SELECT coalesce(i.cooling_config, i.cooling), t.type, i.cooling_power_w, "      \
	"'idle', 0, " cols " FROM points i JOIN (SELECT DISTINCT campaign_id AS cid, type FROM "   \
	"points WHERE " TSEL " AND ports > 0) t ON t.cid = i.campaign_id WHERE (?1 = 0 OR "        \
	"i.campaign_id = ?1) AND i.failed = 0 AND i.ports = 0"
/* Failed runs shown in the failure traces: the first few. */
#define FAILED_RUNS                                                                                \
	"(SELECT id FROM points WHERE (?1 = 0 OR campaign_id = ?1) AND failed = 1 AND stream = 0 " \
	"ORDER BY campaign_id, idx, attempt LIMIT 10)"
#define RUN_LABEL                                                                                  \
	"'c' || p.campaign_id || ' #' || p.idx || ' ' || coalesce(p.cooling_config, p.cooling) "   \
	"|| "                                                                                      \
	"' ' || p.type || ' ' || p.size_b || ' B ' || p.pattern || ' ' || p.ports || ' ports' || " \
	"CASE WHEN p.attempt > 0 THEN ' (run ' || (p.attempt + 1) || ')' ELSE '' END"

struct rows;
struct figure_def;

/* How a figure draws its series. */
enum plot_style {
	PLOT_LINES = 0, /* lines through the points (error bars if errorbars) */
	PLOT_FIT,       /* the points, and a least-squares line per series (slope in the key) */
	PLOT_TRACE,     /* lines without points, and marked points labelled (marks_sql) */
};

/*
 * A figure: its query returns rows (panel, series, x, xtic, y, ylo, yhi), ordered by panel,
 * series, x; one panel per distinct panel value, one line per series. A derived figure
 * computes its rows (and may set its title) instead.
 */
struct figure_def {
	const char *name, *title, *xlabel, *ylabel;
	const char *sql;
	const char *need; /* why it is skipped when there are not enough x values */
	unsigned min_x;   /* skipped unless a series has this many x values */
	bool categorical, errorbars, logy;
	enum plot_style style;
	bool yauto;            /* y axis from the data (default: from 0) */
	const char *unit;      /* PLOT_FIT: unit of the slope */
	double span;           /* PLOT_FIT: also the rise over this many GB/s (0: no) */
	const char *span_unit; /* ... in this unit */
	const char *marks_sql; /* PLOT_TRACE: rows of the marks, as sql's, label in xtic */
	int (*derive)(struct sb_store *st, const struct sb_report_options *o,
	              const struct figure_def *d, struct rows *rs, char *title, size_t size);
	int min_schema; /* the database's schema version it needs (0: any) */
};

static int derive_cooling(struct sb_store *st, const struct sb_report_options *o,
                          const struct figure_def *d, struct rows *rs, char *title, size_t size);

static const struct figure_def figures[] = {
    {
        "mask_bandwidth",
        "Bandwidth against the position of the address mask",
        "lowest address bit forced to 0 by the mask",
        "bandwidth (GB/s)",
        "SELECT '', type || ' ' || size_b || ' B, ' || mask_width || '-bit mask', mask_lo, NULL, "
        "avg(bandwidth_gbps), NULL, NULL, " TYPE_ORDER ", size_b FROM points WHERE " SEL
        " AND stream = 0 AND mask_lo IS NOT NULL GROUP BY type, size_b, mask_width, mask_lo "
        "UNION ALL "
        "SELECT '', type || ' ' || size_b || ' B, no mask', m.x, NULL, avg(bandwidth_gbps), "
        "NULL, NULL, " TYPE_ORDER ", size_b FROM points b, (SELECT min(mask_lo) AS x FROM "
        "points WHERE " SEL " AND mask_lo IS NOT NULL UNION SELECT max(mask_lo) FROM points "
        "WHERE " SEL " AND mask_lo IS NOT NULL) m WHERE (?1 = 0 OR b.campaign_id = ?1) AND "
        "b.failed = 0 AND b.ports > 0 AND b.stream = 0 AND b.mask_lo IS NULL AND m.x IS NOT NULL "
        "AND "
        "b.campaign_id IN (SELECT campaign_id FROM points WHERE mask_lo IS NOT NULL) GROUP BY "
        "type, size_b, m.x ORDER BY 8, 9, 2, 3",
        "no points with a mask",
        1,
        false,
        false,
        false,
    },
    {
        "pattern_bandwidth",
        "Bandwidth per access pattern (full-scale GUPS)",
        "access pattern",
        "bandwidth (GB/s)",
        PATTERN_SQL("bandwidth_gbps"),
        "fewer than 2 access patterns",
        2,
        true,
        false,
        false,
    },
    {
        "pattern_mrps",
        "Request rate per access pattern (full-scale GUPS)",
        "access pattern",
        "request rate (MRPS, million requests/s)",
        PATTERN_SQL("mrps"),
        "fewer than 2 access patterns",
        2,
        true,
        false,
        false,
    },
    {
        "size_bandwidth",
        "Bandwidth per request size (full-scale GUPS)",
        "request size (bytes)",
        "bandwidth (GB/s)",
        SIZE_SQL("bandwidth_gbps"),
        "fewer than 2 request sizes",
        2,
        false,
        false,
        false,
    },
    {
        "size_mrps",
        "Request rate per request size (full-scale GUPS)",
        "request size (bytes)",
        "request rate (MRPS, million requests/s)",
        SIZE_SQL("mrps"),
        "fewer than 2 request sizes",
        2,
        false,
        false,
        false,
    },
    {
        "latency_bandwidth",
        "Read latency against offered bandwidth (small-scale GUPS, 1..N ports)",
        "bandwidth (GB/s)",
        "read latency, average (ns)",
        "SELECT '', type || ' ' || size_b || ' B ' || pattern || ' ' || mode, "
        "avg(bandwidth_gbps), NULL, avg(latency_avg_ns), NULL, NULL FROM points WHERE " SEL
        " AND stream = 0 AND mask_lo IS NULL AND latency_avg_ns IS NOT NULL AND (type, size_b, "
        "pattern, mode) IN (SELECT type, size_b, pattern, mode FROM points WHERE " SEL
        " AND stream = 0 AND mask_lo IS NULL GROUP BY 1, 2, 3, 4 HAVING count(DISTINCT ports) > "
        "1) GROUP BY type, size_b, pattern, mode, ports ORDER BY " TYPE_ORDER
        ", size_b, " PATTERN_ORDER ", mode, ports",
        "fewer than 2 port counts",
        2,
        false,
        false,
        false,
    },
    {
        "stream_latency",
        "Low-load read latency against requests per stream group (min, average, max)",
        "requests per stream group",
        "read latency (ns)",
        "SELECT '', type || ' ' || size_b || ' B', stream, NULL, avg(latency_avg_ns), "
        "min(latency_min_ns), max(latency_max_ns) FROM points WHERE " SEL " AND stream > 0 AND "
        "latency_avg_ns IS NOT NULL GROUP BY type, size_b, stream ORDER BY " TYPE_ORDER
        ", size_b, stream",
        "no stream GUPS points",
        1,
        false,
        true,
        false,
    },
    {
        .name = "thermal_temperature_bandwidth",
        .title = "Steady-state temperature against bandwidth (hot spot, last 10 % of each point)",
        .xlabel = "bandwidth (GB/s)",
        .ylabel = "temperature, camera hot spot (°C)",
        .sql = "SELECT cfg, type, x, NULL, y, NULL, NULL FROM (" THERMAL_POINTS(
            "temp_c_steady AS y") ") WHERE y IS NOT NULL ORDER BY cfg, " TYPE_ORDER ", x",
        .need = "no thermal points (steady-state temperatures) at 2 bandwidths",
        .min_x = 2,
        .style = PLOT_FIT,
        .yauto = true,
        .unit = "°C per GB/s",
        .min_schema = 2,
    },
    {
        .name = "thermal_power_bandwidth",
        .title = "Power against bandwidth per cooling configuration (meter, mean over each point)",
        .xlabel = "bandwidth (GB/s)",
        .ylabel = "power, whole machine (W)",
        .sql = "SELECT type, cfg, x, NULL, y, NULL, NULL FROM (" THERMAL_POINTS(
            "power_w_avg AS y") ") WHERE y IS NOT NULL ORDER BY " TYPE_ORDER ", cfg, x",
        .need = "no thermal points (mean power) at 2 bandwidths",
        .min_x = 2,
        .style = PLOT_FIT,
        .yauto = true,
        .unit = "W per GB/s",
        .min_schema = 2,
    },
    {
        .name = "thermal_cooling_power",
        .title = "Cooling power needed to hold the hot spot",
        .xlabel = "bandwidth (GB/s)",
        .ylabel = "cooling power (W)",
        .sql = "SELECT type, traffic, cooling_power_w, avg(y), avg(x) FROM (" THERMAL_POINTS(
            "temp_c_steady AS y") ") WHERE y IS NOT NULL AND cooling_power_w IS NOT NULL GROUP "
                                  "BY type, traffic, cooling_power_w ORDER BY " TYPE_ORDER
                                  ", traffic, "
                                  "cooling_power_w",
        .need = "no traffic measured in 2 cooling configurations on both sides of a common "
                "temperature, at 2 bandwidths",
        .min_x = 2,
        .style = PLOT_FIT,
        .yauto = true,
        .unit = "W per GB/s",
        .span = 16,
        .span_unit = "W",
        .derive = derive_cooling,
        .min_schema = 2,
    },
    {
        .name = "thermal_failure_trace",
        .title = "Temperature of the runs that ended in a thermal failure (dots: the failure, "
                 "with the hot spot when it was seen)",
        .xlabel = "time since the point started (s)",
        .ylabel = "temperature, camera hot spot (°C)",
        .sql = "SELECT '', " RUN_LABEL ", s.t_ns / 1e9, NULL, s.temp_c, NULL, NULL FROM samples "
               "s JOIN points p ON p.id = s.point_id WHERE p.id IN " FAILED_RUNS
               " AND s.temp_c IS NOT NULL ORDER BY p.campaign_id, p.idx, p.attempt, s.seq",
        .marks_sql =
            "SELECT '', " RUN_LABEL ", p.fail_t_ns / 1e9, printf('%.1f °C', "
            "p.fail_temp_c), p.fail_temp_c, NULL, NULL FROM points p WHERE p.id IN " FAILED_RUNS
            " AND p.fail_temp_c IS NOT NULL",
        .need = "no run with a thermal failure and a temperature trace",
        .min_x = 2,
        .style = PLOT_TRACE,
        .yauto = true,
        .min_schema = 2,
    },
};

enum row_kind { ROW_DATA = 0, ROW_FIT, ROW_MARK };

struct row {
	char panel[SB_AXIS_NAME_MAX], series[80], xtic[40];
	double x, y, ylo, yhi;
	enum row_kind kind;
};

struct rows {
	struct row *r;
	unsigned n, cap;
};

/* A growing array with room for one more element of size bytes (the array, perhaps moved),
 * or NULL when out of memory (the array is kept). */
static void *grow(void *a, unsigned n, unsigned *cap, size_t size)
{
	unsigned c = *cap ? *cap * 2 : 64;
	void *na;

	if (n < *cap)
		return a;
	if (!(na = realloc(a, c * size))) {
		sb_error_set(SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	*cap = c;
	return na;
}

/* A new row at the end (zeroed). */
static struct row *add_row(struct rows *rs)
{
	struct row *r = grow(rs->r, rs->n, &rs->cap, sizeof(rs->r[0]));

	if (!r)
		return NULL;
	rs->r = r;
	memset(&rs->r[rs->n], 0, sizeof(rs->r[0]));
	return &rs->r[rs->n++];
}

static int collect(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct rows *rs = ctx;
	struct row *r;

	if (ncol < 7 || c[2].type == SB_CELL_NULL || c[4].type == SB_CELL_NULL)
		return 0;
	if (!(r = add_row(rs)))
		return SB_ERR_NOMEM;
	snprintf(r->panel, sizeof(r->panel), "%s", c[0].s);
	snprintf(r->series, sizeof(r->series), "%s", c[1].s);
	snprintf(r->xtic, sizeof(r->xtic), "%s", c[3].s);
	r->x = c[2].d;
	r->y = c[4].d;
	r->ylo = c[5].type == SB_CELL_NULL ? r->y : c[5].d;
	r->yhi = c[6].type == SB_CELL_NULL ? r->y : c[6].d;
	return 0;
}

/* Rows of one block of the data file: the same panel, series and kind. */
static bool same_block(const struct row *a, const struct row *b)
{
	return a->kind == b->kind && !strcmp(a->panel, b->panel) && !strcmp(a->series, b->series);
}

/* Most x values any series has. */
static unsigned max_series_len(const struct rows *rs)
{
	unsigned best = 0, run = 0;

	for (unsigned i = 0; i < rs->n; i++) {
		bool same = i && same_block(&rs->r[i], &rs->r[i - 1]);

		if (rs->r[i].kind != ROW_DATA)
			continue;
		run = same ? run + 1 : 1;
		if (run > best)
			best = run;
	}
	return best;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Categorical x: the order values become positions 0, 1, 2... of the values present. */
static int rank_x(struct rows *rs)
{
	double *v = malloc((rs->n ? rs->n : 1) * sizeof(*v));
	unsigned n = 0;

	if (!v)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (unsigned i = 0; i < rs->n; i++)
		v[i] = rs->r[i].x;
	qsort(v, rs->n, sizeof(*v), cmp_double);
	for (unsigned i = 0; i < rs->n; i++)
		if (!n || v[i] != v[n - 1])
			v[n++] = v[i];
	for (unsigned i = 0; i < rs->n; i++) {
		double *at = bsearch(&rs->r[i].x, v, n, sizeof(*v), cmp_double);

		rs->r[i].x = (double)(at - v);
	}
	free(v);
	return 0;
}

/* Finish an output file: commit it, or drop it after a write error. */
static int finish(struct sb_output *o)
{
	if (ferror(o->f)) {
		int e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", o->path, strerror(errno));

		sb_output_abort(o);
		return e;
	}
	return sb_output_commit(o);
}

static int write_data(const char *path, const struct rows *rs)
{
	struct sb_output o;
	FILE *f;
	int e;

	if ((e = sb_output_open(&o, path)) < 0)
		return e;
	f = o.f;
	fprintf(f, "# x | x label | y | y low | y high | panel | line; one block per line\n");
	for (unsigned i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];

		if (i && !same_block(r, &rs->r[i - 1]))
			fprintf(f, "\n\n");
		/* the names come from the database: quoted so that no character of theirs
		   can break the file's lines or fields */
		fprintf(f, "%.17g ", r->x);
		sb_gnuplot_datastr(f, r->xtic[0] ? r->xtic : "-");
		fprintf(f, " %.17g %.17g %.17g ", r->y, r->ylo, r->yhi);
		sb_gnuplot_datastr(f, r->panel);
		fputc(' ', f);
		sb_gnuplot_datastr(f, r->series);
		fputc('\n', f);
	}
	return finish(&o);
}

/*
 * Lines that differ only in addressing mode or by being the no-mask baseline share a colour
 * (the variant is dashed): the colour key is the series name without the mode words and
 * without what follows a comma or a colon (a fitted slope).
 */
static unsigned colour(char keys[][64], unsigned *nkeys, const char *series)
{
	char key[64];
	size_t j = 0;

	for (const char *p = series; *p && *p != ',' && *p != ':' && j + 1 < sizeof(key);) {
		if (!strncmp(p, "random", 6) || !strncmp(p, "linear", 6)) {
			p += 6;
			continue;
		}
		key[j++] = *p++;
	}
	key[j] = '\0';
	for (unsigned i = 0; i < *nkeys; i++)
		if (!strcmp(keys[i], key))
			return i + 1;
	if (*nkeys < 64)
		snprintf(keys[(*nkeys)++], 64, "%s", key);
	return *nkeys;
}

/* One plot element for the block starting at row i: how a kind of row is drawn. */
static void plot_block(FILE *f, const struct figure_def *d, const struct row *r, unsigned block,
                       unsigned lc, bool first)
{
	const char *sep = first ? "" : ", \\\n     ";
	bool base = strstr(r->series, "no mask") != NULL;
	bool dashed = base || strstr(r->series, "linear");

	switch (r->kind) {
	case ROW_FIT:
		fprintf(f, "%s'%s.dat' index %u using 1:3 with lines linecolor %u notitle", sep,
		        d->name, block, lc);
		return;
	case ROW_MARK:
		fprintf(f,
		        "%s'%s.dat' index %u using 1:3 with points pointtype 7 pointsize 1.8 "
		        "linecolor %u notitle, \\\n     '%s.dat' index %u using 1:3:2 with labels "
		        "left offset character 0.8,0.8 notitle",
		        sep, d->name, block, lc, d->name, block);
		return;
	case ROW_DATA:
		break;
	}
	if (d->style == PLOT_FIT)
		fprintf(f,
		        "%s'%s.dat' index %u using 1:3 with points pointtype 7 linecolor %u title ",
		        sep, d->name, block, lc);
	else if (d->style == PLOT_TRACE)
		fprintf(
		    f, "%s'%s.dat' index %u using 1:3 with lines linewidth 1.5 linecolor %u title ",
		    sep, d->name, block, lc);
	else
		fprintf(f, "%s'%s.dat' index %u using %s with %s linecolor %u%s%s title ", sep,
		        d->name, block,
		        d->categorical ? "1:3:xtic(2)"
		        : d->errorbars ? "1:3:4:5"
		                       : "1:3",
		        d->errorbars ? "yerrorlines" : "linespoints", lc,
		        dashed ? " dashtype 2" : "", base ? " pointtype 0" : "");
	sb_gnuplot_str(f, r->series);
}

/* The plot commands of one output (terminal already set). */
static void write_plots(FILE *f, const struct figure_def *d, const char *title,
                        const struct rows *rs)
{
	char panels[8][SB_AXIS_NAME_MAX], keys[64][64];
	unsigned np = 0, block = 0, nkeys = 0;

	for (unsigned i = 0; i < rs->n && np < 8; i++)
		if (!np || strcmp(rs->r[i].panel, panels[np - 1]))
			snprintf(panels[np++], sizeof(panels[0]), "%s", rs->r[i].panel);
	fprintf(f, "set xlabel ");
	sb_gnuplot_str(f, d->xlabel);
	fprintf(f, "\nset ylabel ");
	sb_gnuplot_str(f, d->ylabel);
	/* Long keys (fitted slopes, run labels) and several panels: the key goes below. */
	fprintf(f, "\nset grid\n%s\n%s\n", d->yauto ? "set autoscale y" : "set yrange [0:*]",
	        np > 1 || d->style != PLOT_LINES ? "set key below horizontal height 2"
	                                         : "set key outside right top vertical");
	if (d->categorical)
		fprintf(f, "set xrange [-0.5:*]\nset xtics rotate by -30\n");
	else
		fprintf(f, "set offsets graph 0.03, graph 0.03, graph 0.05, graph 0.05\n");
	if (np > 1) {
		fprintf(f, "set multiplot layout 1,%u title ", np);
		sb_gnuplot_str(f, title);
		fprintf(f, "\n");
	} else {
		fprintf(f, "set title ");
		sb_gnuplot_str(f, title);
		fprintf(f, "\n");
	}
	for (unsigned p = 0, i = 0; p < np; p++) {
		bool first = true;

		if (np > 1) {
			fprintf(f, "set title ");
			sb_gnuplot_str(f, panels[p]);
			fprintf(f, "\n");
		}
		fprintf(f, "plot ");
		while (i < rs->n && !strcmp(rs->r[i].panel, panels[p])) {
			const struct row *r = &rs->r[i];

			plot_block(f, d, r, block, colour(keys, &nkeys, r->series), first);
			first = false;
			while (i < rs->n && same_block(&rs->r[i], r))
				i++;
			block++;
		}
		fprintf(f, "\n");
	}
	if (np > 1)
		fprintf(f, "unset multiplot\n");
}

static unsigned count_panels(const struct rows *rs)
{
	unsigned np = 0;

	for (unsigned i = 0; i < rs->n; i++)
		if (!i || strcmp(rs->r[i].panel, rs->r[i - 1].panel))
			np++;
	return np;
}

static int write_script(const char *path, const struct figure_def *d, const char *title,
                        const struct rows *rs)
{
	unsigned np = count_panels(rs), w = np > 1 ? 560 * np : 1000, h = 600;
	struct sb_output o;
	FILE *f;
	int e;

	if ((e = sb_output_open(&o, path)) < 0)
		return e;
	f = o.f;
	fprintf(f, "# stackbench report: %s (run with: gnuplot %s.gp, in this folder)\n", d->name,
	        d->name);
	fprintf(f, "set terminal pngcairo size %u,%u enhanced font ',10'\nset output '%s.png'\n", w,
	        h, d->name);
	write_plots(f, d, title, rs);
	fprintf(f, "set output\nreset\n");
	fprintf(f,
	        "set terminal svg size %u,%u enhanced font ',10' background '#ffffff'\n"
	        "set output '%s.svg'\n",
	        w, h, d->name);
	write_plots(f, d, title, rs);
	fprintf(f, "set output\n");
	return finish(&o);
}

/* Find prog in PATH (or take it as a path when it has a '/'). */
static bool find_program(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	while (path && *path) {
		size_t len = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)len, len ? path : ".", prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += len + (path[len] == ':');
	}
	return false;
}

/* --- fitted lines, marks, derived rows --------------------------------------------------- */

/* Least squares y = a + b x over rows; false without two distinct x. */
static bool linear_fit(const struct row *r, unsigned n, double *a, double *b, double *lo,
                       double *hi)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0, d;

	*lo = *hi = n ? r[0].x : 0;
	for (unsigned i = 0; i < n; i++) {
		sx += r[i].x;
		sy += r[i].y;
		sxx += r[i].x * r[i].x;
		sxy += r[i].x * r[i].y;
		*lo = r[i].x < *lo ? r[i].x : *lo;
		*hi = r[i].x > *hi ? r[i].x : *hi;
	}
	d = n * sxx - sx * sx;
	if (n < 2 || *hi - *lo <= 0 || d <= 0)
		return false;
	*b = (n * sxy - sx * sy) / d;
	*a = (sy - *b * sx) / n;
	return true;
}

static int copy_row(struct rows *out, const struct row *r, const char *series, enum row_kind k)
{
	struct row *n = add_row(out);

	if (!n)
		return SB_ERR_NOMEM;
	*n = *r;
	snprintf(n->series, sizeof(n->series), "%s", series);
	n->kind = k;
	return 0;
}

static void swap_rows(struct rows *rs, struct rows *out)
{
	free(rs->r);
	*rs = *out;
}

/* PLOT_FIT: the slope goes into each series' name, a fitted line after each series. */
static int add_fits(const struct figure_def *d, struct rows *rs)
{
	struct rows out = {0};

	for (unsigned i = 0, j; i < rs->n; i = j) {
		struct row ends[2];
		char name[sizeof(rs->r[0].series)];
		double a, b, lo, hi;
		bool ok;

		for (j = i; j < rs->n && same_block(&rs->r[j], &rs->r[i]);)
			j++;
		ok = linear_fit(&rs->r[i], j - i, &a, &b, &lo, &hi);
		if (ok && d->span > 0)
			snprintf(name, sizeof(name), "%s: %+.3f %s (%+.2f %s per %g GB/s)",
			         rs->r[i].series, b, d->unit, b * d->span, d->span_unit, d->span);
		else if (ok)
			snprintf(name, sizeof(name), "%s: %+.3f %s", rs->r[i].series, b, d->unit);
		else
			snprintf(name, sizeof(name), "%s", rs->r[i].series);
		for (unsigned k = i; k < j; k++)
			if (copy_row(&out, &rs->r[k], name, ROW_DATA) < 0)
				goto fail;
		if (!ok)
			continue;
		ends[0] = ends[1] = rs->r[i];
		ends[0].x = lo;
		ends[1].x = hi;
		for (int k = 0; k < 2; k++) {
			ends[k].y = ends[k].ylo = ends[k].yhi = a + b * ends[k].x;
			ends[k].xtic[0] = '\0';
			if (copy_row(&out, &ends[k], name, ROW_FIT) < 0)
				goto fail;
		}
	}
	swap_rows(rs, &out);
	return 0;
fail:
	free(out.r);
	return SB_ERR_NOMEM;
}

/* PLOT_TRACE: each series' marks (marks_sql) follow its rows. */
static int add_marks(struct sb_store *st, const struct sb_report_options *o,
                     const struct figure_def *d, struct rows *rs)
{
	struct rows marks = {0}, out = {0};
	int e;

	if ((e = sb_store_query(st, d->marks_sql, o->campaign_id, collect, &marks)) < 0)
		goto out;
	e = SB_ERR_NOMEM;
	for (unsigned i = 0, j; i < rs->n; i = j) {
		for (j = i; j < rs->n && same_block(&rs->r[j], &rs->r[i]); j++)
			if (copy_row(&out, &rs->r[j], rs->r[j].series, ROW_DATA) < 0)
				goto out;
		for (unsigned k = 0; k < marks.n; k++)
			if (!strcmp(marks.r[k].panel, rs->r[i].panel) &&
			    !strcmp(marks.r[k].series, rs->r[i].series) &&
			    copy_row(&out, &marks.r[k], marks.r[k].series, ROW_MARK) < 0)
				goto out;
	}
	swap_rows(rs, &out);
	out.r = NULL;
	e = 0;
out:
	free(out.r);
	free(marks.r);
	return e;
}

/* One traffic in one cooling configuration: its cooling power, temperature and bandwidth. */
struct held {
	char type[8], traffic[96];
	double pc, t, bw;
};

struct helds {
	struct held *h;
	unsigned n, cap;
};

static int collect_held(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct helds *hs = ctx;
	struct held *h;

	if (ncol < 5)
		return 0;
	if (!(h = grow(hs->h, hs->n, &hs->cap, sizeof(hs->h[0]))))
		return SB_ERR_NOMEM;
	hs->h = h;
	h = &hs->h[hs->n++];
	snprintf(h->type, sizeof(h->type), "%s", c[0].s);
	snprintf(h->traffic, sizeof(h->traffic), "%s", c[1].s);
	h->pc = c[2].d;
	h->t = c[3].d;
	h->bw = c[4].d;
	return 0;
}

/* End of the group (same type and traffic) that starts at i. */
static unsigned group_end(const struct helds *hs, unsigned i)
{
	unsigned j = i;

	while (j < hs->n && !strcmp(hs->h[j].type, hs->h[i].type) &&
	       !strcmp(hs->h[j].traffic, hs->h[i].traffic))
		j++;
	return j;
}

/* The temperature most groups bracket (the middle of the best ones), in 0.5 C steps. */
static double auto_hold(const struct helds *hs)
{
	double lo = INFINITY, hi = -INFINITY, best_t = NAN;
	unsigned best = 0, first = 0, last = 0;

	for (unsigned i = 0; i < hs->n; i++) {
		lo = fmin(lo, hs->h[i].t);
		hi = fmax(hi, hs->h[i].t);
	}
	for (unsigned k = 0; lo + k * 0.5 <= hi; k++) {
		double t = floor(lo) + k * 0.5;
		unsigned n = 0;

		for (unsigned i = 0, j; i < hs->n; i = j) {
			double gl = INFINITY, gh = -INFINITY;

			j = group_end(hs, i);
			for (unsigned m = i; m < j; m++) {
				gl = fmin(gl, hs->h[m].t);
				gh = fmax(gh, hs->h[m].t);
			}
			n += j - i > 1 && gl <= t && t <= gh;
		}
		if (n > best) {
			best = n;
			first = last = k;
		} else if (n == best && best && last + 1 == k) {
			last = k;
		}
	}
	if (best)
		best_t = floor(lo) + (first + (last - first) / 2) * 0.5;
	return best_t;
}

static int cmp_row_x(const void *a, const void *b)
{
	const struct row *x = a, *y = b;

	return (x->x > y->x) - (x->x < y->x);
}

/*
 * The cooling power needed to hold the hot spot at a temperature, from the campaign's own
 * measurements: each traffic (type, size, pattern, mode, ports, ...) measured in several
 * cooling configurations gives its steady temperature against the configuration's cooling
 * power; where that passes the temperature held, the cooling power (and the bandwidth) is
 * interpolated linearly between the two configurations around it.
 */
static int derive_cooling(struct sb_store *st, const struct sb_report_options *o,
                          const struct figure_def *d, struct rows *rs, char *title, size_t size)
{
	struct helds hs = {0};
	double hold;
	int e;

	if ((e = sb_store_query(st, d->sql, o->campaign_id, collect_held, &hs)) < 0)
		goto out;
	hold = o->hold_c > 0 ? o->hold_c : auto_hold(&hs);
	snprintf(title, size,
	         "Cooling power needed to hold the hot spot at %.1f °C (interpolated between the "
	         "cooling configurations)",
	         hold);
	for (unsigned i = 0, j; i < hs.n && !isnan(hold); i = j) {
		j = group_end(&hs, i);
		for (unsigned m = i; m + 1 < j; m++) {
			const struct held *a = &hs.h[m], *b = &hs.h[m + 1];
			struct row *r;
			double f;

			if ((a->t - hold) * (b->t - hold) > 0 || a->t == b->t)
				continue;
			f = (a->t - hold) / (a->t - b->t);
			if (!(r = add_row(rs))) {
				e = SB_ERR_NOMEM;
				goto out;
			}
			snprintf(r->series, sizeof(r->series), "%s", a->type);
			r->x = a->bw + f * (b->bw - a->bw);
			r->y = r->ylo = r->yhi = a->pc + f * (b->pc - a->pc);
			break;
		}
	}
	/* Rows come grouped by type; order each type's by bandwidth. */
	for (unsigned i = 0, j; i < rs->n; i = j) {
		for (j = i; j < rs->n && !strcmp(rs->r[j].series, rs->r[i].series);)
			j++;
		qsort(&rs->r[i], j - i, sizeof(rs->r[0]), cmp_row_x);
	}
out:
	free(hs.h);
	return e;
}

static void skipped(const struct sb_report_options *o, const struct figure_def *d, const char *why)
{
	if (o->figure)
		o->figure(o->ctx, d->name, NULL, NULL, why);
}

static int one_figure(struct sb_store *st, const struct sb_report_options *o,
                      const struct figure_def *d, const char *prog, struct sb_outdir *od)
{
	struct rows rs = {0};
	char dat[4096], gp[4096], png[4096], svg[4096], script[256], title[256], why[128];
	int e;

	snprintf(title, sizeof(title), "%s", d->title);
	if (d->min_schema && (e = sb_store_schema_version(st)) < d->min_schema) {
		if (e < 0)
			return e;
		snprintf(why, sizeof(why),
		         "the database has schema version %d (thermal results need %d: run "
		         "'stackbench run' on it once to upgrade)",
		         e, d->min_schema);
		skipped(o, d, why);
		return 0;
	}
	if (d->derive)
		e = d->derive(st, o, d, &rs, title, sizeof(title));
	else
		e = sb_store_query(st, d->sql, o->campaign_id, collect, &rs);
	if (e < 0)
		goto out;
	if (max_series_len(&rs) < d->min_x) {
		skipped(o, d, d->need);
		e = 0;
		goto out;
	}
	if ((d->marks_sql && (e = add_marks(st, o, d, &rs)) < 0) ||
	    (d->style == PLOT_FIT && (e = add_fits(d, &rs)) < 0) ||
	    (d->categorical && (e = rank_x(&rs)) < 0))
		goto out;
	/* the files are made in the staging folder (dat, gp; png and svg by gnuplot) */
	snprintf(script, sizeof(script), "%s.gp", d->name);
	if ((e = sb_outdir_claimf(od, dat, sizeof(dat), "%s.dat", d->name)) < 0 ||
	    (e = sb_outdir_claimf(od, gp, sizeof(gp), "%s.gp", d->name)) < 0 ||
	    (e = sb_outdir_claimf(od, png, sizeof(png), "%s.png", d->name)) < 0 ||
	    (e = sb_outdir_claimf(od, svg, sizeof(svg), "%s.svg", d->name)) < 0)
		goto out;
	if ((e = write_data(dat, &rs)) < 0 || (e = write_script(gp, d, title, &rs)) < 0 ||
	    (e = sb_gnuplot_run(prog, od->stage, script)) < 0)
		goto out;
	/* where they land */
	snprintf(png, sizeof(png), "%s/%s.png", o->out_dir, d->name);
	snprintf(svg, sizeof(svg), "%s/%s.svg", o->out_dir, d->name);
	if (o->figure)
		o->figure(o->ctx, d->name, png, svg, NULL);
	e = 1;
out:
	free(rs.r);
	return e;
}

int sb_report(struct sb_store *st, const struct sb_report_options *o)
{
	const char *prog = o->gnuplot ? o->gnuplot : "gnuplot";
	struct sb_store_campaign c;
	struct sb_outdir od;
	int e, made = 0;

	if (!find_program(prog))
		return sb_error_set(
		    SB_ERR_NOT_SUPPORTED,
		    "cannot make figures: '%s' not found (install the Debian package "
		    "gnuplot-nox, e.g. with scripts/deps.sh)",
		    prog);
	if (o->campaign_id && (e = sb_store_campaign_get(st, o->campaign_id, &c)) < 0)
		return e;
	if ((e = sb_outdir_open(&od, o->out_dir)) < 0)
		return e;
	for (size_t i = 0; i < SB_ARRAY_SIZE(figures); i++) {
		if ((e = one_figure(st, o, &figures[i], prog, &od)) < 0) {
			sb_outdir_abort(&od);
			return e;
		}
		made += e;
	}
	/* the figures appear together, or not at all */
	if ((e = sb_outdir_commit(&od)) < 0)
		return e;
	return made;
}
