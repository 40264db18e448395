/* SPDX-License-Identifier: MIT */
/*
 * Figures from the results store: which campaigns, one set of figures per campaign (or one
 * set comparing them), each figure's data and gnuplot script written to a staging folder,
 * gnuplot run there, and everything moved into the output folder together. The figure table
 * is figures.c; the rows data.c; the scripts plot.c; the HTML page html.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_int.h"
#include "stackbench/error.h"
#include "stackbench/gnuplot.h"
#include "stackbench/log.h"
#include "stackbench/output.h"
#include "stackbench/util.h"

int sb_report_formats_parse(const char *list, unsigned *formats)
{
	static const char *const names[] = {"png", "svg", "pdf", "eps"};

	*formats = 0;
	for (const char *p = list; *p;) {
		size_t len = strcspn(p, ",");
		bool found = false;

		for (size_t i = 0; i < SB_ARRAY_SIZE(names) && !found; i++)
			if (len == strlen(names[i]) && !strncmp(p, names[i], len)) {
				*formats |= 1u << i;
				found = true;
			}
		if (!found)
			return sb_error_set(
			    SB_ERR_INVAL,
			    "unknown figure format '%.*s' in '%s' (known: png, svg, "
			    "pdf, eps)",
			    (int)(len < 32 ? len : 32), p, list);
		p += len;
		p += *p == ',';
	}
	if (!*formats)
		return sb_error_set(SB_ERR_INVAL,
		                    "no figure format in '%s' (known: png, svg, pdf, eps)", list);
	return 0;
}

int sb_report_size_parse(const char *text, double *width_in, double *height_in)
{
	char w[32];
	const char *x = strchr(text, 'x');

	*height_in = 0;
	if (!strcmp(text, "single")) {
		*width_in = SB_REPORT_SINGLE_IN;
		return 0;
	}
	if (!strcmp(text, "double")) {
		*width_in = SB_REPORT_DOUBLE_IN;
		return 0;
	}
	if (!x || (size_t)(x - text) >= sizeof(w))
		goto bad;
	snprintf(w, sizeof(w), "%.*s", (int)(x - text), text);
	if (sb_parse_double(w, "width", width_in) < 0 ||
	    sb_parse_double(x + 1, "height", height_in) < 0 || !(*width_in >= 1) ||
	    *width_in > 40 || *height_in < 0 || *height_in > 40 || (*height_in && *height_in < 1))
		goto bad;
	return 0;
bad:
	return sb_error_set(SB_ERR_INVAL,
	                    "figure size '%s': single, double or WxH in inches (1..40, H 0: from "
	                    "the figure), e.g. 3.5x2.5",
	                    text);
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

struct ids {
	int64_t *v;
	size_t n;
};

static int add_id(void *ctx, const struct sb_store_campaign *c)
{
	struct ids *ids = ctx;
	int64_t *v = realloc(ids->v, (ids->n + 1) * sizeof(*v));

	if (!v)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	ids->v = v;
	ids->v[ids->n++] = c->id;
	return 0;
}

int sb_rpt_select_campaigns(struct sb_store *st, const struct sb_report_options *o, int64_t **out,
                            size_t *n)
{
	struct sb_store_campaign c;
	struct ids ids = {0};
	int e = 0;

	if (!o->ncampaigns)
		e = sb_store_campaign_list(st, add_id, &ids);
	for (size_t i = 0; i < o->ncampaigns && e >= 0; i++) {
		bool dup = false;

		for (size_t j = 0; j < ids.n; j++)
			dup = dup || ids.v[j] == o->campaigns[i];
		if (dup)
			continue;
		if ((e = sb_store_campaign_get(st, o->campaigns[i], &c)) >= 0)
			e = add_id(&ids, &c);
	}
	if (e < 0) {
		free(ids.v);
		ids.v = NULL;
		ids.n = 0;
	}
	*out = ids.v;
	*n = ids.n;
	return e < 0 ? e : 0;
}

/* The view every figure query reads: the points of the campaigns of a set. */
static char *make_view(const int64_t *ids, size_t n)
{
	size_t size = 224 + n * 24, len;
	char *v = malloc(size);

	if (!v) {
		sb_error_set(SB_ERR_NOMEM, "out of memory");
		return NULL;
	}
	len = (size_t)snprintf(v, size,
	                       "WITH pts AS (SELECT p.*, c.name AS cname, instr(c.config, "
	                       "'\"engine\":\"hbm2\"') > 0 AS hbm FROM points p JOIN "
	                       "campaigns c ON c.id = p.campaign_id WHERE p.campaign_id IN (");
	for (size_t i = 0; i < n; i++)
		len += (size_t)snprintf(v + len, size - len, "%s%lld", i ? "," : "",
		                        (long long)ids[i]);
	snprintf(v + len, size - len, "%s)) ", n ? "" : "NULL");
	return v;
}

static const char *const extensions[] = {"png", "svg", "pdf", "eps"};

static void report_figure(struct sb_rpt_run *r, const struct sb_rpt_figure_def *d, const char *base,
                          const char *path, const struct sb_rpt_fig *fig, const char *why)
{
	struct sb_report_figure rf = {
	    .name = d->name,
	    .base = base,
	    .path = path,
	    .formats = path ? r->formats : 0,
	    .campaign_id = r->set_id,
	    .skipped_why = why,
	    .n_min = fig ? fig->n_min : 0,
	    .n_max = fig ? fig->n_max : 0,
	};

	if (r->o->figure)
		r->o->figure(r->o->ctx, &rf);
}

/* The HTML report's record of a figure (made when base is not ""). */
static int html_add(struct sb_rpt_run *r, const struct sb_rpt_figure_def *d, const char *base,
                    const struct sb_rpt_fig *fig, const char *why)
{
	struct sb_rpt_html_fig *h;

	if (!r->o->html)
		return 0;
	if (r->nhtml == r->html_cap) {
		size_t cap = r->html_cap ? r->html_cap * 2 : 16;

		if (!(h = realloc(r->html, cap * sizeof(*h))))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		r->html = h;
		r->html_cap = cap;
	}
	h = &r->html[r->nhtml++];
	memset(h, 0, sizeof(*h));
	h->d = d;
	h->campaign_id = r->set_id;
	snprintf(h->why, sizeof(h->why), "%s", why ? why : "");
	if (!base)
		return 0;
	snprintf(h->base, sizeof(h->base), "%s", base);
	snprintf(h->title, sizeof(h->title), "%s", fig->title);
	snprintf(h->svg_path, sizeof(h->svg_path), "%s/%s.svg", r->od.stage, base);
	sb_rpt_note(fig, h->note, sizeof(h->note));
	if (fig->nfits) {
		if (!(h->fits = malloc(fig->nfits * sizeof(*h->fits))))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		memcpy(h->fits, fig->fits, fig->nfits * sizeof(*h->fits));
		h->nfits = fig->nfits;
	}
	return 0;
}

static int one_figure(struct sb_rpt_run *r, const struct sb_rpt_figure_def *d)
{
	struct sb_rpt_fig fig = {0};
	char base[128], dat[4096], gp[4096], img[4096], script[160], why[160], path[4096];
	unsigned formats = r->formats | (r->o->html ? SB_REPORT_SVG : 0);
	int e;

	if (d->compare_only && !r->compare)
		return 0;
	snprintf(base, sizeof(base), "%s%s", r->prefix, d->name);
	if (d->min_schema && (e = sb_store_schema_version(r->st)) < d->min_schema) {
		if (e < 0)
			return e;
		snprintf(why, sizeof(why),
		         "the database has schema version %d (thermal results need %d: run "
		         "'stackbench run' on it once to upgrade)",
		         e, d->min_schema);
		report_figure(r, d, base, NULL, NULL, why);
		return html_add(r, d, NULL, NULL, why);
	}
	if ((e = sb_rpt_figure_data(r->st, r->view, r->o, d, r->set, &fig)) < 0)
		goto out;
	if (!e) {
		report_figure(r, d, base, NULL, &fig, fig.why);
		e = html_add(r, d, NULL, NULL, fig.why);
		goto out;
	}
	/* the files are made in the staging folder (dat, gp; the images by gnuplot); an SVG
	   made only for the HTML page stays unclaimed and goes with the staging folder */
	snprintf(script, sizeof(script), "%s.gp", base);
	if ((e = sb_outdir_claimf(&r->od, dat, sizeof(dat), "%s.dat", base)) < 0 ||
	    (e = sb_outdir_claimf(&r->od, gp, sizeof(gp), "%s.gp", base)) < 0)
		goto out;
	for (unsigned i = 0; i < SB_ARRAY_SIZE(extensions); i++)
		if ((r->formats & 1u << i) &&
		    (e = sb_outdir_claimf(&r->od, img, sizeof(img), "%s.%s", base, extensions[i])) <
		        0)
			goto out;
	if ((e = sb_rpt_write_data(dat, &fig)) < 0 ||
	    (e = sb_rpt_write_script(gp, base, &fig, r->o, formats)) < 0 ||
	    (e = sb_gnuplot_run(r->prog, r->od.stage, script)) < 0)
		goto out;
	snprintf(path, sizeof(path), "%s/%s", r->out_dir, base);
	report_figure(r, d, base, path, &fig, NULL);
	if ((e = html_add(r, d, base, &fig, NULL)) < 0)
		goto out;
	r->made++;
	e = 0;
out:
	sb_rpt_fig_release(&fig);
	return e;
}

int sb_rpt_run_set(struct sb_rpt_run *r, const struct sb_rpt_set *set, const char *prefix)
{
	char *view = make_view(set->ids, set->n);
	int e = 0;

	if (!view)
		return SB_ERR_NOMEM;
	r->view = view;
	r->prefix = prefix;
	r->set = set;
	r->set_id = set->n == 1 ? set->ids[0] : 0;
	for (size_t i = 0; i < sb_rpt_nfigures && e >= 0; i++)
		e = one_figure(r, &sb_rpt_figures[i]);
	free(view);
	r->view = NULL;
	r->set = NULL;
	return e;
}

int sb_rpt_run_begin(struct sb_rpt_run *r, const struct sb_report_options *o)
{
	size_t len;
	int e;

	memset(r, 0, sizeof(*r));
	r->o = o;
	r->prog = o->gnuplot ? o->gnuplot : "gnuplot";
	if (!find_program(r->prog))
		return sb_error_set(
		    SB_ERR_NOT_SUPPORTED,
		    "cannot make figures: '%s' not found (install the Debian package "
		    "gnuplot-nox, e.g. with scripts/deps.sh)",
		    r->prog);
	if (!o->out_dir || !*o->out_dir)
		return sb_error_set(SB_ERR_INVAL, "no output folder for the figures");
	r->formats = o->formats ? o->formats : SB_REPORT_PNG | SB_REPORT_SVG;
	if (r->formats & ~(unsigned)(SB_REPORT_PNG | SB_REPORT_SVG | SB_REPORT_PDF | SB_REPORT_EPS))
		return sb_error_set(SB_ERR_INVAL, "unknown figure formats 0x%x", r->formats);
	if (o->width_in < 0 || o->height_in < 0 || o->font_pt < 0 || o->font_pt > 72 ||
	    (o->height_in > 0 && !(o->width_in > 0)))
		return sb_error_set(SB_ERR_INVAL,
		                    "figure size %g x %g in, font %g pt: a height needs a width; "
		                    "sizes >= 0, the font at most 72 pt",
		                    o->width_in, o->height_in, o->font_pt);
	/* the folder as the paths printed name it: "out/x.png", never "out//x.png" */
	snprintf(r->out_dir, sizeof(r->out_dir), "%s", o->out_dir);
	for (len = strlen(r->out_dir); len > 1 && r->out_dir[len - 1] == '/';)
		r->out_dir[--len] = '\0';
	if ((e = sb_outdir_open(&r->od, r->out_dir)) < 0)
		return e;
	return 0;
}

void sb_rpt_run_release(struct sb_rpt_run *r)
{
	for (size_t i = 0; i < r->nhtml; i++)
		free(r->html[i].fits);
	free(r->html);
	r->html = NULL;
	r->nhtml = r->html_cap = 0;
}

int sb_report(struct sb_store *st, const struct sb_report_options *o)
{
	struct sb_rpt_run r;
	int64_t *ids = NULL;
	size_t n = 0;
	char html[4096];
	int e;

	if ((e = sb_rpt_run_begin(&r, o)) < 0)
		return e;
	r.st = st;
	if ((e = sb_rpt_select_campaigns(st, o, &ids, &n)) < 0)
		goto fail;
	if (o->compare || n <= 1) {
		struct sb_rpt_set set = {.ids = ids, .n = n};

		e = sb_rpt_run_set(&r, &set, "");
	} else {
		for (size_t i = 0; i < n && e >= 0; i++) {
			struct sb_rpt_set set = {.ids = &ids[i], .n = 1};
			char prefix[32];

			snprintf(prefix, sizeof(prefix), "c%lld_", (long long)ids[i]);
			e = sb_rpt_run_set(&r, &set, prefix);
		}
	}
	if (e >= 0 && o->html &&
	    (e = sb_outdir_claimf(&r.od, html, sizeof(html), "report.html")) >= 0) {
		struct sb_rpt_html h = {.st = st,
		                        .path = html,
		                        .db_text = sb_store_path(st),
		                        .ids = ids,
		                        .nids = n,
		                        .figs = r.html,
		                        .nfigs = r.nhtml};

		e = sb_rpt_write_html(&h);
	}
	if (e < 0)
		goto fail;
	/* the figures appear together, or not at all */
	if ((e = sb_outdir_commit(&r.od)) >= 0)
		e = r.made;
	goto out;
fail:
	sb_outdir_abort(&r.od);
out:
	sb_rpt_run_release(&r);
	free(ids);
	return e;
}
