/* SPDX-License-Identifier: MIT */
/*
 * Figures from the results store: SQL picks and averages the points of each figure, the data
 * and a gnuplot script are written to the output folder, gnuplot draws PNG and SVG.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stackbench/error.h"
#include "stackbench/log.h"
#include "stackbench/report.h"
#include "stackbench/util.h"

/* Points a figure may use: of the campaign(s), finished without a thermal failure. */
#define SEL "(?1 = 0 OR campaign_id = ?1) AND failed = 0"
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
 * A figure: its query returns rows (panel, series, x, xtic, y, ylo, yhi), ordered by panel,
 * series, x; one panel per distinct panel value, one line per series.
 */
struct figure_def {
	const char *name, *title, *xlabel, *ylabel;
	const char *sql;
	const char *need; /* why it is skipped when there are not enough x values */
	unsigned min_x;   /* skipped unless a series has this many x values */
	bool categorical, errorbars, logy;
};

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
        "b.failed = 0 AND b.stream = 0 AND b.mask_lo IS NULL AND m.x IS NOT NULL AND "
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
};

struct row {
	char panel[16], series[64], xtic[24];
	double x, y, ylo, yhi;
};

struct rows {
	struct row *r;
	unsigned n, cap;
};

static int collect(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct rows *rs = ctx;
	struct row *r;

	if (ncol < 7 || c[2].type == SB_CELL_NULL || c[4].type == SB_CELL_NULL)
		return 0;
	if (rs->n == rs->cap) {
		unsigned cap = rs->cap ? rs->cap * 2 : 64;
		struct row *nr = realloc(rs->r, cap * sizeof(*nr));

		if (!nr)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		rs->r = nr;
		rs->cap = cap;
	}
	r = &rs->r[rs->n++];
	snprintf(r->panel, sizeof(r->panel), "%s", c[0].s);
	snprintf(r->series, sizeof(r->series), "%s", c[1].s);
	snprintf(r->xtic, sizeof(r->xtic), "%s", c[3].s);
	r->x = c[2].d;
	r->y = c[4].d;
	r->ylo = c[5].type == SB_CELL_NULL ? r->y : c[5].d;
	r->yhi = c[6].type == SB_CELL_NULL ? r->y : c[6].d;
	return 0;
}

/* Most x values any series has. */
static unsigned max_series_len(const struct rows *rs)
{
	unsigned best = 0, run = 0;

	for (unsigned i = 0; i < rs->n; i++) {
		bool same = i && !strcmp(rs->r[i].panel, rs->r[i - 1].panel) &&
		            !strcmp(rs->r[i].series, rs->r[i - 1].series);

		run = same ? run + 1 : 1;
		if (run > best)
			best = run;
	}
	return best;
}

/* Text in a single-quoted gnuplot string. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
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

static int write_data(const char *path, const struct rows *rs)
{
	FILE *f = fopen(path, "w");

	if (!f)
		return sb_error_set(SB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	fprintf(f, "# x | x label | y | y low | y high | panel | line; one block per line\n");
	for (unsigned i = 0; i < rs->n; i++) {
		const struct row *r = &rs->r[i];

		if (i && (strcmp(r->panel, rs->r[i - 1].panel) ||
		          strcmp(r->series, rs->r[i - 1].series)))
			fprintf(f, "\n\n");
		fprintf(f, "%.17g \"%s\" %.17g %.17g %.17g \"%s\" \"%s\"\n", r->x,
		        r->xtic[0] ? r->xtic : "-", r->y, r->ylo, r->yhi, r->panel, r->series);
	}
	if (fclose(f) != 0)
		return sb_error_set(SB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
}

/*
 * Lines that differ only in addressing mode or by being the no-mask baseline share a colour
 * (the variant is dashed): the colour key is the series name without the mode words and
 * without what follows a comma.
 */
static unsigned colour(char keys[][64], unsigned *nkeys, const char *series)
{
	char key[64];
	size_t j = 0;

	for (const char *p = series; *p && *p != ',' && j + 1 < sizeof(key);) {
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

/* The plot commands of one output (terminal already set). */
static void write_plots(FILE *f, const struct figure_def *d, const struct rows *rs)
{
	char panels[8][16], keys[64][64];
	unsigned np = 0, block = 0, nkeys = 0;

	for (unsigned i = 0; i < rs->n && np < 8; i++)
		if (!np || strcmp(rs->r[i].panel, panels[np - 1]))
			snprintf(panels[np++], sizeof(panels[0]), "%s", rs->r[i].panel);
	fprintf(f, "set xlabel ");
	gp_str(f, d->xlabel);
	fprintf(f, "\nset ylabel ");
	gp_str(f, d->ylabel);
	fprintf(f, "\nset grid\nset yrange [0:*]\n%s\n",
	        np > 1 ? "set key below horizontal height 2"
	               : "set key outside right top vertical");
	if (d->categorical)
		fprintf(f, "set xrange [-0.5:*]\nset xtics rotate by -30\n");
	else
		fprintf(f, "set offsets graph 0.03, graph 0.03, 0, 0\n");
	if (np > 1) {
		fprintf(f, "set multiplot layout 1,%u title ", np);
		gp_str(f, d->title);
		fprintf(f, "\n");
	} else {
		fprintf(f, "set title ");
		gp_str(f, d->title);
		fprintf(f, "\n");
	}
	for (unsigned p = 0, i = 0; p < np; p++) {
		bool first = true;

		if (np > 1) {
			fprintf(f, "set title ");
			gp_str(f, panels[p]);
			fprintf(f, "\n");
		}
		fprintf(f, "plot ");
		while (i < rs->n && !strcmp(rs->r[i].panel, panels[p])) {
			const char *series = rs->r[i].series;
			bool base = strstr(series, "no mask") != NULL;
			bool dashed = base || strstr(series, "linear");

			fprintf(f, "%s'%s.dat' index %u using %s with %s linecolor %u%s%s title ",
			        first ? "" : ", \\\n     ", d->name, block,
			        d->categorical ? "1:3:xtic(2)"
			        : d->errorbars ? "1:3:4:5"
			                       : "1:3",
			        d->errorbars ? "yerrorlines" : "linespoints",
			        colour(keys, &nkeys, series), dashed ? " dashtype 2" : "",
			        base ? " pointtype 0" : "");
			gp_str(f, series);
			first = false;
			while (i < rs->n && !strcmp(rs->r[i].panel, panels[p]) &&
			       !strcmp(rs->r[i].series, series))
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

static int write_script(const char *path, const struct figure_def *d, const struct rows *rs)
{
	unsigned np = count_panels(rs), w = np > 1 ? 560 * np : 1000, h = 600;
	FILE *f = fopen(path, "w");

	if (!f)
		return sb_error_set(SB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	fprintf(f, "# stackbench report: %s (run with: gnuplot %s.gp, in this folder)\n", d->name,
	        d->name);
	fprintf(f, "set terminal pngcairo size %u,%u enhanced font ',10'\nset output '%s.png'\n", w,
	        h, d->name);
	write_plots(f, d, rs);
	fprintf(f, "set output\nreset\n");
	fprintf(f,
	        "set terminal svg size %u,%u enhanced font ',10' background '#ffffff'\n"
	        "set output '%s.svg'\n",
	        w, h, d->name);
	write_plots(f, d, rs);
	fprintf(f, "set output\n");
	if (fclose(f) != 0)
		return sb_error_set(SB_ERR_IO, "cannot write '%s': %s", path, strerror(errno));
	return 0;
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

/* Run gnuplot on a script inside dir; its output goes to gnuplot.log there. */
static int run_gnuplot(const char *prog, const char *dir, const char *script)
{
	char log[4096];
	pid_t pid;
	int status, fd;

	snprintf(log, sizeof(log), "%s/gnuplot.log", dir);
	fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0)
		return sb_error_set(SB_ERR_IO, "cannot write '%s': %s", log, strerror(errno));
	pid = fork();
	if (pid < 0) {
		close(fd);
		return sb_error_set(SB_ERR_IO, "cannot start gnuplot: %s", strerror(errno));
	}
	if (pid == 0) {
		int null = open("/dev/null", O_RDONLY);

		if (null >= 0)
			dup2(null, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (chdir(dir) == 0)
			execlp(prog, prog, script, (char *)NULL);
		_exit(127);
	}
	close(fd);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return sb_error_set(SB_ERR_IO, "waiting for gnuplot: %s", strerror(errno));
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return sb_error_set(SB_ERR_IO, "gnuplot failed on '%s/%s' (exit %d); see '%s'", dir,
		                    script, WIFEXITED(status) ? WEXITSTATUS(status) : -1, log);
	return 0;
}

static int make_dir(const char *dir)
{
	char buf[4096];

	snprintf(buf, sizeof(buf), "%s", dir);
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = '\0';
		if (mkdir(buf, 0755) < 0 && errno != EEXIST)
			return sb_error_set(SB_ERR_IO, "cannot create '%s': %s", buf,
			                    strerror(errno));
		*p = '/';
	}
	if (mkdir(buf, 0755) < 0 && errno != EEXIST)
		return sb_error_set(SB_ERR_IO, "cannot create '%s': %s", buf, strerror(errno));
	return 0;
}

static int one_figure(struct sb_store *st, const struct sb_report_options *o,
                      const struct figure_def *d, const char *prog)
{
	struct rows rs = {0};
	char dat[4096], gp[4096], png[4096], svg[4096], script[256];
	int e;

	if ((e = sb_store_query(st, d->sql, o->campaign_id, collect, &rs)) < 0)
		goto out;
	if (max_series_len(&rs) < d->min_x) {
		if (o->figure)
			o->figure(o->ctx, d->name, NULL, NULL, d->need);
		e = 0;
		goto out;
	}
	if (d->categorical && (e = rank_x(&rs)) < 0)
		goto out;
	snprintf(dat, sizeof(dat), "%s/%s.dat", o->out_dir, d->name);
	snprintf(gp, sizeof(gp), "%s/%s.gp", o->out_dir, d->name);
	snprintf(png, sizeof(png), "%s/%s.png", o->out_dir, d->name);
	snprintf(svg, sizeof(svg), "%s/%s.svg", o->out_dir, d->name);
	snprintf(script, sizeof(script), "%s.gp", d->name);
	if ((e = write_data(dat, &rs)) < 0 || (e = write_script(gp, d, &rs)) < 0 ||
	    (e = run_gnuplot(prog, o->out_dir, script)) < 0)
		goto out;
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
	int e, made = 0;

	if (!find_program(prog))
		return sb_error_set(
		    SB_ERR_NOT_SUPPORTED,
		    "cannot make figures: '%s' not found (install the Debian package "
		    "gnuplot-nox, e.g. with scripts/deps.sh)",
		    prog);
	if (o->campaign_id && (e = sb_store_campaign_get(st, o->campaign_id, &c)) < 0)
		return e;
	if ((e = make_dir(o->out_dir)) < 0)
		return e;
	for (size_t i = 0; i < SB_ARRAY_SIZE(figures); i++) {
		if ((e = one_figure(st, o, &figures[i], prog)) < 0)
			return e;
		made += e;
	}
	return made;
}
