/* SPDX-License-Identifier: MIT */
/*
 * The HTML report: one self-contained page (no external CSS, script, font or image: the
 * figures are SVG data URIs) with the campaigns' settings and provenance, every figure with
 * what it shows and its fits, and tables of the points. Every text from the database is
 * escaped; the SVG files are base64-encoded, so nothing in them is read as HTML.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cjson/cJSON.h>

#include "report_int.h"
#include "stackbench/error.h"
#include "stackbench/output.h"
#include "stackbench/util.h"
#include "stackbench/version.h"

/* An SVG larger than this is left out of the page (gnuplot's are a few hundred kB). */
#define SVG_MAX (64u << 20)

void sb_rpt_html_text(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&':
			fputs("&amp;", f);
			break;
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		case '\'':
			fputs("&#39;", f);
			break;
		case '\n':
		case '\t':
			fputc(*s, f);
			break;
		default:
			fputc((unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s, f);
		}
	}
}

static void base64(FILE *f, const unsigned char *p, size_t n)
{
	static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) |
		             (i + 2 < n ? p[i + 2] : 0);

		fputc(t[v >> 18 & 63], f);
		fputc(t[v >> 12 & 63], f);
		fputc(i + 1 < n ? t[v >> 6 & 63] : '=', f);
		fputc(i + 2 < n ? t[v & 63] : '=', f);
	}
}

/* A cell as text: numbers to 10 digits, text escaped, JSON pretty-printed (folded away in
 * the tables of points, where every row has its own). */
static void cell(FILE *f, const struct sb_cell *c, bool json, bool fold)
{
	cJSON *j;
	char *text;

	switch (c->type) {
	case SB_CELL_NULL:
		fputs("<span class=\"null\">NULL</span>", f);
		return;
	case SB_CELL_INT:
		fprintf(f, "%lld", (long long)c->i);
		return;
	case SB_CELL_REAL:
		fprintf(f, "%.10g", c->d);
		return;
	case SB_CELL_TEXT:
		break;
	}
	if (json && (j = cJSON_Parse(c->s))) {
		text = cJSON_Print(j);
		cJSON_Delete(j);
		if (text) {
			fputs(fold ? "<details><summary>JSON</summary><pre>" : "<pre>", f);
			sb_rpt_html_text(f, text);
			fputs(fold ? "</pre></details>" : "</pre>", f);
			cJSON_free(text);
			return;
		}
	}
	sb_rpt_html_text(f, c->s);
}

static bool is_json_column(const char *name)
{
	return !strcmp(name, "config") || !strcmp(name, "provenance") || strstr(name, "_json");
}

/* The campaign row: every column (settings, provenance, times), one per line. */
static int campaign_row(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	FILE *f = ctx;

	fputs("<table class=\"kv\">\n", f);
	for (unsigned i = 0; i < ncol; i++) {
		fputs("<tr><th>", f);
		sb_rpt_html_text(f, c[i].name);
		fputs("</th><td>", f);
		cell(f, &c[i], is_json_column(c[i].name), false);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	return 0;
}

struct table {
	FILE *f;
	unsigned rows;
};

/* A row of a table; the header before the first. */
static int table_row(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct table *t = ctx;

	if (!t->rows++) {
		fputs("<table class=\"rows\">\n<tr>", t->f);
		for (unsigned i = 0; i < ncol; i++) {
			fputs("<th>", t->f);
			sb_rpt_html_text(t->f, c[i].name);
			fputs("</th>", t->f);
		}
		fputs("</tr>\n", t->f);
	}
	fputs("<tr>", t->f);
	for (unsigned i = 0; i < ncol; i++) {
		fputs("<td>", t->f);
		cell(t->f, &c[i], is_json_column(c[i].name), true);
		fputs("</td>", t->f);
	}
	fputs("</tr>\n", t->f);
	return 0;
}

static int table(struct sb_store *st, FILE *f, const char *sql, int64_t id, const char *empty)
{
	struct table t = {.f = f};
	int e = sb_store_query(st, sql, id, table_row, &t);

	if (e < 0)
		return e;
	if (t.rows)
		fputs("</table>\n", f);
	else
		fprintf(f, "<p>%s</p>\n", empty);
	return 0;
}

/* The columns of the points table worth a column in the report, as far as the database has
 * them (older schemas lack some; provenance is new). */
static const char *const point_columns[] = {
    "idx",
    "rep",
    "attempt",
    "key",
    "device",
    "seed",
    "duration_ns",
    "elapsed_ns",
    "bandwidth_gbps",
    "mrps",
    "latency_avg_ns",
    "occupancy",
    "temp_c_steady",
    "power_w_avg",
    "cooling_power_w",
    "failed",
    "fail_temp_c",
    "fast_forward",
    "ff_skipped_ns",
    "wall_s",
    "finished_at",
    "provenance",
};

struct names {
	char list[2048];
};

static int column_name(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct names *n = ctx;

	if (ncol < 1 || c[0].type != SB_CELL_TEXT)
		return 0;
	for (size_t i = 0; i < SB_ARRAY_SIZE(point_columns); i++) {
		size_t len = strlen(n->list);

		if (!strcmp(c[0].s, point_columns[i]) && len + strlen(c[0].s) + 3 < sizeof(n->list))
			snprintf(n->list + len, sizeof(n->list) - len, "%s%s", len ? ", " : "",
			         c[0].s);
	}
	return 0;
}

/* The points of a campaign: the columns the database has, in its order. */
static int points_table(struct sb_store *st, FILE *f, int64_t id)
{
	struct names n = {.list = ""};
	char sql[2600];
	int e;

	if ((e = sb_store_query(st, "SELECT name FROM pragma_table_info('points')", 0, column_name,
	                        &n)) < 0)
		return e;
	if (!n.list[0])
		return 0;
	snprintf(sql, sizeof(sql), "SELECT %s FROM points WHERE campaign_id = ?1 ORDER BY idx%s",
	         n.list, strstr(n.list, "attempt") ? ", attempt" : "");
	return table(st, f, sql, id, "No points stored.");
}

static int has_column(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	(void)ncol;
	*(bool *)ctx = c[0].i > 0;
	return 0;
}

static int campaign_section(struct sb_store *st, FILE *f, int64_t id)
{
	bool prov = false;
	int e;

	fprintf(f, "<section id=\"c%lld\">\n<h2>Campaign %lld</h2>\n", (long long)id,
	        (long long)id);
	if ((e = sb_store_query(st, "SELECT * FROM campaigns WHERE id = ?1", id, campaign_row, f)) <
	    0)
		return e;
	if ((e = sb_store_query(st,
	                        "SELECT count(*) FROM pragma_table_info('campaigns') WHERE name = "
	                        "'provenance'",
	                        0, has_column, &prov)) < 0)
		return e;
	if (!prov)
		fputs("<p class=\"note\">Provenance: this database records no campaign provenance "
		      "column; what it has is above (stackbench version, times, settings with the "
		      "seed and the devices) and per device below.</p>\n",
		      f);
	fputs("<h3>Devices</h3>\n", f);
	if ((e = table(st, f,
	               "SELECT device, CASE WHEN device LIKE 'sim:%' THEN 'simulated bench' ELSE "
	               "'hardware' END AS bench, count(*) AS runs, sum(failed) AS failed, "
	               "sum(ff_skipped_ns > 0) AS fast_forwarded, round(100.0 * sum(ff_skipped_ns) "
	               "/ max(1, sum(elapsed_ns)), 1) AS ff_skipped_percent, min(finished_at) AS "
	               "first_finished, max(finished_at) AS last_finished FROM points WHERE "
	               "campaign_id = ?1 GROUP BY device ORDER BY device",
	               id, "No points stored.")) < 0)
		return e;
	fputs("</section>\n", f);
	return 0;
}

static void figure_section(FILE *f, const struct sb_rpt_html_fig *h)
{
	char *svg = NULL;
	size_t len = 0;

	fprintf(f, "<figure id=\"%s%s\">\n<figcaption><b>", h->base, h->base[0] ? "" : h->d->name);
	sb_rpt_html_text(f, h->base[0] ? h->base : h->d->name);
	fputs("</b>: ", f);
	sb_rpt_html_text(f, h->title);
	fputs("</figcaption>\n", f);
	if (sb_read_file_max(h->svg_path, SVG_MAX, &svg, &len) == 0) {
		fputs("<img alt=\"", f);
		sb_rpt_html_text(f, h->d->name);
		fputs("\" src=\"data:image/svg+xml;base64,", f);
		base64(f, (const unsigned char *)svg, len);
		fputs("\">\n", f);
	} else {
		fprintf(f, "<p class=\"note\">(the SVG could not be read: ");
		sb_rpt_html_text(f, sb_error_detail());
		fputs(")</p>\n", f);
	}
	free(svg);
	fputs("<p>", f);
	sb_rpt_html_text(f, h->d->what);
	fputs("</p>\n<p class=\"note\">", f);
	sb_rpt_html_text(f, h->note);
	fputs("</p>\n", f);
	if (h->nfits) {
		fputs("<table class=\"rows\">\n<tr><th>panel</th><th>series</th><th>slope</th>"
		      "<th>standard error</th><th>R²</th><th>runs</th><th>intercept</th></tr>\n",
		      f);
		for (unsigned i = 0; i < h->nfits; i++) {
			const struct sb_rpt_fit *ft = &h->fits[i].f;

			fputs("<tr><td>", f);
			sb_rpt_html_text(f, h->fits[i].panel);
			fputs("</td><td>", f);
			sb_rpt_html_text(f, h->fits[i].series);
			if (ft->ok)
				fprintf(f, "</td><td>%+.6g ", ft->slope);
			else
				fputs("</td><td>(no fit: fewer than 2 bandwidths) ", f);
			sb_rpt_html_text(f, ft->ok ? h->d->unit : "");
			fprintf(f, "</td><td>%.6g</td><td>%.6g</td><td>%u</td><td>%.6g</td></tr>\n",
			        ft->slope_se, ft->r2, ft->n, ft->intercept);
		}
		fputs("</table>\n", f);
	}
	fputs("</figure>\n", f);
}

static const char style[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:75em;padding:0 1em;color:#222}"
    "h1,h2,h3{font-weight:600}table{border-collapse:collapse;margin:.5em 0;font-size:90%}"
    "th,td{border:1px solid #ccc;padding:.2em .5em;text-align:left;vertical-align:top}"
    "table.rows td{font-variant-numeric:tabular-nums;white-space:nowrap}"
    "pre{margin:0;white-space:pre-wrap}figure{margin:1.5em 0;border-top:1px solid #ddd}"
    "figure img{max-width:100%;height:auto}.note{color:#555}.null{color:#999}"
    ".points{overflow-x:auto}";

/* A ratio as the tables show it ("–" when there is none). */
static void ratio_cell(FILE *f, double r)
{
	if (isnan(r))
		fputs("<td class=\"null\">–</td>", f);
	else
		fprintf(f, "<td>%.4f</td>", r);
}

static void source_row(FILE *f, const char *what, const struct sb_report_source *s)
{
	fputs("<tr><th>", f);
	sb_rpt_html_text(f, what);
	fputs("</th><td>", f);
	sb_rpt_html_text(f, s->label);
	fputs("</td><td>", f);
	sb_rpt_html_text(f, s->model ? "(run by this report)" : s->db);
	fprintf(f, "</td><td>%lld</td><td>", (long long)s->campaign_id);
	sb_rpt_html_text(f, s->name);
	fputs("</td><td>", f);
	sb_rpt_html_text(f, s->hash);
	fputs("</td><td>", f);
	sb_rpt_html_text(f, s->host);
	fputs("</td><td>", f);
	sb_rpt_html_text(f, s->device);
	fputs("</td><td>", f);
	sb_rpt_html_text(f, s->profile);
	fputs("</td><td>", f);
	sb_rpt_html_text(f, s->build);
	fputs("</td></tr>\n", f);
}

/* A comparison: its sources, the summary per metric, the ratio of every point. */
static void comparison_section(FILE *f, const struct sb_report_comparison *c, size_t i)
{
	bool has[SB_REPORT_NMETRICS];

	fprintf(f, "<section id=\"comparison%zu\">\n<h3>", i + 1);
	sb_rpt_html_text(f, c->other.label);
	fputs(" against ", f);
	sb_rpt_html_text(f, c->ref.label);
	fputs("</h3>\n<table class=\"rows\">\n<tr><th></th><th>label</th><th>database</th>"
	      "<th>campaign</th><th>name</th><th>content hash</th><th>host</th><th>device</th>"
	      "<th>profile</th><th>build</th></tr>\n",
	      f);
	source_row(f, "compared", &c->other);
	source_row(f, "reference", &c->ref);
	fputs("</table>\n<p>Ratio = compared / reference, per point (the mean of its runs that "
	      "did not fail, on each side).</p>\n<table class=\"rows\">\n<tr><th>metric</th>"
	      "<th>points</th><th>median ratio</th><th>worst ratio</th><th>at point</th></tr>\n",
	      f);
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++) {
		const struct sb_report_cmp_summary *s = &c->summary[m];

		has[m] = s->n > 0;
		if (!has[m])
			continue;
		fputs("<tr><td>", f);
		sb_rpt_html_text(f, sb_report_metrics[m].name);
		fprintf(f, "</td><td>%u</td>", s->n);
		ratio_cell(f, s->median);
		ratio_cell(f, s->worst);
		fputs("<td>", f);
		sb_rpt_html_text(f, c->points[s->worst_point].label);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n<details><summary>Every point</summary>\n<table class=\"rows\">\n"
	      "<tr><th>#</th><th>point</th>",
	      f);
	for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
		if (has[m]) {
			fputs("<th>", f);
			sb_rpt_html_text(f, sb_report_metrics[m].name);
			fputs("</th>", f);
		}
	fputs("</tr>\n", f);
	for (unsigned p = 0; p < c->npoints; p++) {
		fprintf(f, "<tr><td>%u</td><td>", c->points[p].index);
		sb_rpt_html_text(f, c->points[p].label);
		fputs("</td>", f);
		for (unsigned m = 0; m < SB_REPORT_NMETRICS; m++)
			if (has[m])
				ratio_cell(f, c->points[p].v[m].ratio);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n</details>\n</section>\n", f);
}

int sb_rpt_write_html(const struct sb_rpt_html *h)
{
	struct sb_output out;
	char now[32];
	time_t t = time(NULL);
	struct tm tm;
	FILE *f;
	int e;

	if ((e = sb_output_open(&out, h->path)) < 0)
		return e;
	f = out.f;
	strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&t, &tm));
	fprintf(f,
	        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	        "<title>stackbench report</title>\n<style>%s</style>\n</head>\n<body>\n"
	        "<h1>stackbench report</h1>\n<p>Results database <code>",
	        style);
	sb_rpt_html_text(f, h->db_text);
	fprintf(f, "</code>; report made %s by stackbench %s. Campaigns:", now, sb_version());
	for (size_t i = 0; i < h->nids; i++) {
		fprintf(f, " <a href=\"#c%lld\">%lld</a>", (long long)h->ids[i],
		        (long long)h->ids[i]);
		if (h->labels && h->labels[i]) {
			fputs(" (", f);
			sb_rpt_html_text(f, h->labels[i]);
			fputs(")", f);
		}
	}
	fputs(". Figures, data files and gnuplot scripts are beside this file; docs/figures.md "
	      "explains each figure.</p>\n",
	      f);
	if (h->ncmps) {
		fputs("<section id=\"comparisons\">\n<h2>Comparisons</h2>\n", f);
		for (size_t i = 0; i < h->ncmps; i++)
			comparison_section(f, &h->cmps[i], i);
		fputs("</section>\n", f);
	}
	for (size_t i = 0; i < h->nids; i++)
		if ((e = campaign_section(h->st, f, h->ids[i])) < 0)
			goto fail;
	fputs("<section id=\"figures\">\n<h2>Figures</h2>\n", f);
	for (size_t i = 0; i < h->nfigs; i++)
		if (h->figs[i].base[0])
			figure_section(f, &h->figs[i]);
	fputs("<h3>Not drawn</h3>\n<ul>\n", f);
	for (size_t i = 0; i < h->nfigs; i++) {
		if (h->figs[i].base[0])
			continue;
		fputs("<li><b>", f);
		sb_rpt_html_text(f, h->figs[i].d->name);
		fprintf(f, "</b>%s", h->figs[i].campaign_id ? " (campaign " : "");
		if (h->figs[i].campaign_id)
			fprintf(f, "%lld)", (long long)h->figs[i].campaign_id);
		fputs(": ", f);
		sb_rpt_html_text(f, h->figs[i].why);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n</section>\n", f);
	for (size_t i = 0; i < h->nids; i++) {
		fprintf(f,
		        "<section class=\"points\" id=\"points-c%lld\">\n<h2>Points of campaign "
		        "%lld</h2>\n",
		        (long long)h->ids[i], (long long)h->ids[i]);
		if ((e = points_table(h->st, f, h->ids[i])) < 0)
			goto fail;
		fputs("</section>\n", f);
	}
	fputs("</body>\n</html>\n", f);
	if (ferror(f)) {
		e = sb_error_set(SB_ERR_IO, "cannot write '%s': %s", out.path, strerror(errno));
		goto fail;
	}
	return sb_output_commit(&out);
fail:
	sb_output_abort(&out);
	return e;
}
