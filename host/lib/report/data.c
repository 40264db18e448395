/* SPDX-License-Identifier: MIT */
/*
 * The rows of a figure: the runs its query returns, grouped by campaign, device and point
 * duration (never averaged across groups), the runs of one point averaged with a confidence
 * interval, fitted lines, marks and the tag-pool bound added, and a style for every series.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "sb_regmap_desc.h"
#include "stackbench/error.h"
#include "stackbench/util.h"

/* Columns of a figure's query (report_int.h). */
enum {
	COL_PANEL,
	COL_SERIES,
	COL_K,
	COL_X,
	COL_XTIC,
	COL_Y,
	COL_YMIN,
	COL_YMAX,
	COL_LABEL,
	COL_CID,
	COL_CNAME,
	COL_DEVICE,
	COL_DURATION,
	COL_FF,
	COL_NKEY,
	NCOL
};

const char *sb_rpt_text(const struct sb_cell *c)
{
	return c->type == SB_CELL_NULL || !c->s ? "" : c->s;
}

int sb_rpt_reserve(void **a, unsigned n, unsigned *cap, size_t size)
{
	unsigned c = *cap ? *cap * 2 : 64;
	void *na;

	if (n < *cap)
		return 0;
	if (!(na = realloc(*a, c * size)))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	*a = na;
	*cap = c;
	return 0;
}

struct sb_rpt_row *sb_rpt_add_row(struct sb_rpt_rows *rs)
{
	struct sb_rpt_row *r;

	if (sb_rpt_reserve((void **)&rs->r, rs->n, &rs->cap, sizeof(rs->r[0])) < 0)
		return NULL;
	r = &rs->r[rs->n++];
	memset(r, 0, sizeof(*r));
	r->ymin = r->ymax = r->xlo = r->xhi = NAN;
	return r;
}

int sb_rpt_group_of(struct sb_rpt_fig *fig, int64_t campaign_id, const char *cname,
                    const char *device, int64_t duration_ns)
{
	struct sb_rpt_group *g;

	for (unsigned i = 0; i < fig->ngroups; i++) {
		g = &fig->groups[i];
		if (g->campaign_id == campaign_id && g->duration_ns == duration_ns &&
		    !strcmp(g->device, device))
			return (int)i;
	}
	if (sb_rpt_reserve((void **)&fig->groups, fig->ngroups, &fig->groups_cap, sizeof(*g)) < 0)
		return SB_ERR_NOMEM;
	g = &fig->groups[fig->ngroups];
	memset(g, 0, sizeof(*g));
	g->campaign_id = campaign_id;
	g->duration_ns = duration_ns;
	snprintf(g->cname, sizeof(g->cname), "%s", cname);
	snprintf(g->device, sizeof(g->device), "%s", device);
	g->sim = !strncmp(device, "sim:", 4);
	fig->nsim += g->sim;
	return (int)fig->ngroups++;
}

void sb_rpt_fig_release(struct sb_rpt_fig *fig)
{
	free(fig->rs.r);
	free(fig->groups);
	free(fig->styles);
	free(fig->fits);
	memset(fig, 0, sizeof(*fig));
}

struct collect_ctx {
	struct sb_rpt_fig *fig;
	struct sb_rpt_rows *rs;
	enum sb_rpt_kind kind;
};

static int collect(void *ctx, unsigned ncol, const struct sb_cell *c)
{
	struct collect_ctx *cc = ctx;
	struct sb_rpt_row *r;
	int g;

	if (ncol < NCOL || c[COL_X].type == SB_CELL_NULL || c[COL_Y].type == SB_CELL_NULL ||
	    !isfinite(c[COL_X].d) || !isfinite(c[COL_Y].d))
		return 0;
	if ((g = sb_rpt_group_of(cc->fig, c[COL_CID].i, sb_rpt_text(&c[COL_CNAME]),
	                         sb_rpt_text(&c[COL_DEVICE]), c[COL_DURATION].i)) < 0)
		return g;
	if (!(r = sb_rpt_add_row(cc->rs)))
		return SB_ERR_NOMEM;
	snprintf(r->panel, sizeof(r->panel), "%s", sb_rpt_text(&c[COL_PANEL]));
	snprintf(r->series, sizeof(r->series), "%s", sb_rpt_text(&c[COL_SERIES]));
	snprintf(r->k, sizeof(r->k), "%s", sb_rpt_text(&c[COL_K]));
	snprintf(r->xtic, sizeof(r->xtic), "%s", sb_rpt_text(&c[COL_XTIC]));
	snprintf(r->label, sizeof(r->label), "%s", sb_rpt_text(&c[COL_LABEL]));
	snprintf(r->nkey, sizeof(r->nkey), "%s", sb_rpt_text(&c[COL_NKEY]));
	r->x = c[COL_X].d;
	r->y = c[COL_Y].d;
	r->ymin = c[COL_YMIN].type == SB_CELL_NULL ? NAN : c[COL_YMIN].d;
	r->ymax = c[COL_YMAX].type == SB_CELL_NULL ? NAN : c[COL_YMAX].d;
	r->n = 1;
	r->nff = c[COL_FF].i > 0;
	r->grp = (unsigned)g;
	r->kind = cc->kind;
	return 0;
}

/* Run a figure query over the view. */
static int query(struct sb_store *st, const char *view, const char *sql, struct collect_ctx *cc)
{
	size_t len = strlen(view) + strlen(sql) + 1;
	char *text = malloc(len);
	int e;

	if (!text)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	snprintf(text, len, "%s%s", view, sql);
	e = sb_store_query(st, text, 0, collect, cc);
	free(text);
	return e < 0 ? e : 0;
}

/* --- ordering ----------------------------------------------------------------------------- */

/* Where a row goes: the first appearance of its panel, series, group and k. */
struct order {
	unsigned panel, series, grp, k, index;
};

static int cmp_order(const void *a, const void *b)
{
	const struct order *x = a, *y = b;

	if (x->panel != y->panel)
		return x->panel < y->panel ? -1 : 1;
	if (x->series != y->series)
		return x->series < y->series ? -1 : 1;
	if (x->grp != y->grp)
		return x->grp < y->grp ? -1 : 1;
	if (x->k != y->k)
		return x->k < y->k ? -1 : 1;
	return x->index < y->index ? -1 : x->index > y->index;
}

/* Rank of s among the first-appearance list names (n so far), added when new. */
static unsigned rank_of(const char **names, unsigned *n, const char *s)
{
	for (unsigned i = 0; i < *n; i++)
		if (!strcmp(names[i], s))
			return i;
	names[*n] = s;
	return (*n)++;
}

static bool same_series(const struct sb_rpt_row *a, const struct sb_rpt_row *b)
{
	return a->grp == b->grp && a->kind == b->kind && !strcmp(a->panel, b->panel) &&
	       !strcmp(a->series, b->series);
}

/*
 * Order the runs by panel, series, group and k, each in the order of its first appearance
 * in the query (which sorts them as the figure wants them), so that the runs of one point are
 * together. k is ranked within its series (traces keep the query's order).
 */
static int order_rows(struct sb_rpt_rows *rs, bool rank_k)
{
	const char **panels = malloc((rs->n + 1) * sizeof(char *));
	const char **series = malloc((rs->n + 1) * sizeof(char *));
	struct order *o = malloc((rs->n + 1) * sizeof(*o));
	struct sb_rpt_row *sorted = malloc((rs->n + 1) * sizeof(*sorted));
	unsigned np = 0, ns = 0;
	int e = SB_ERR_NOMEM;

	if (!panels || !series || !o || !sorted) {
		sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0; i < rs->n; i++) {
		o[i].panel = rank_of(panels, &np, rs->r[i].panel);
		o[i].series = rank_of(series, &ns, rs->r[i].series);
		o[i].grp = rs->r[i].grp;
		o[i].k = 0;
		o[i].index = i;
	}
	qsort(o, rs->n, sizeof(*o), cmp_order);
	for (unsigned i = 0, j; rank_k && i < rs->n; i = j) {
		const char **ks = series; /* reused: the series ranks are taken */
		unsigned nk = 0;

		for (j = i; j < rs->n && o[j].panel == o[i].panel && o[j].series == o[i].series &&
		            o[j].grp == o[i].grp;
		     j++)
			o[j].k = rank_of(ks, &nk, rs->r[o[j].index].k);
		qsort(&o[i], j - i, sizeof(*o), cmp_order);
	}
	for (unsigned i = 0; i < rs->n; i++)
		sorted[i] = rs->r[o[i].index];
	if (rs->n)
		memcpy(rs->r, sorted, rs->n * sizeof(*sorted));
	e = 0;
out:
	free(panels);
	free(series);
	free(o);
	free(sorted);
	return e;
}

/* --- points that differ in an axis the figure does not show ------------------------------ */

void sb_rpt_key_value(const char *key, const char *name, char *out, size_t size)
{
	size_t len = strlen(name);

	out[0] = '\0';
	for (const char *p = key; *p;) {
		size_t tok = strcspn(p, " ");

		if (tok > len && !strncmp(p, name, len) && p[len] == '=') {
			snprintf(out, size, "%.*s", (int)(tok - len - 1), p + len + 1);
			return;
		}
		p += tok;
		p += *p == ' ';
	}
}

/* Names of the key's axes (name=value tokens) whose values differ between a and b, added to
 * names (a space-separated list) when not there. */
static void differing_axes(const char *a, const char *b, char *names, size_t size)
{
	for (const char *p = a; *p;) {
		size_t tok = strcspn(p, " "), eq = strcspn(p, "=");
		char name[32], va[96], vb[96], pad[40];

		if (eq < tok && eq < sizeof(name)) {
			snprintf(name, sizeof(name), "%.*s", (int)eq, p);
			sb_rpt_key_value(a, name, va, sizeof(va));
			sb_rpt_key_value(b, name, vb, sizeof(vb));
			snprintf(pad, sizeof(pad), " %s ", name);
			if (strcmp(va, vb) && !strstr(names, pad) &&
			    strlen(names) + strlen(name) + 2 < size) {
				/* names keeps a leading and a trailing space: " a b " */
				if (!names[0])
					snprintf(names, size, " ");
				strncat(names, name, size - strlen(names) - 1);
				strncat(names, " ", size - strlen(names) - 1);
			}
		}
		p += tok;
		p += *p == ' ';
	}
}

/*
 * Runs with the same panel, series, group and k are repetitions of one point only if they
 * share the point's key (without the repetition). When they do not — the campaign varied an
 * axis the figure does not show — the series is split: the axes that differ are added to its
 * name ("ro 128 B random [ports=4]"), never averaged away. Returns whether it renamed any.
 */
static bool split_mixed(struct sb_rpt_rows *rs)
{
	bool renamed = false;

	for (unsigned i = 0, j; i < rs->n; i = j) {
		char names[256] = "";

		for (j = i; j < rs->n && same_series(&rs->r[j], &rs->r[i]);)
			j++;
		for (unsigned a = i; a + 1 < j; a++)
			if (!strcmp(rs->r[a].k, rs->r[a + 1].k) &&
			    strcmp(rs->r[a].nkey, rs->r[a + 1].nkey))
				differing_axes(rs->r[a].nkey, rs->r[a + 1].nkey, names,
				               sizeof(names));
		if (!names[0])
			continue;
		for (unsigned a = i; a < j; a++) {
			struct sb_rpt_row *r = &rs->r[a];
			char add[160] = "", v[96];
			size_t len = 0;

			for (const char *p = names + 1; *p;) {
				size_t tok = strcspn(p, " ");
				char name[32];

				snprintf(name, sizeof(name), "%.*s", (int)tok, p);
				sb_rpt_key_value(r->nkey, name, v, sizeof(v));
				len += (size_t)snprintf(add + len,
				                        len < sizeof(add) ? sizeof(add) - len : 0,
				                        "%s%s=%s", len ? " " : "", name, v);
				p += tok + 1;
			}
			len = strlen(r->series);
			snprintf(r->series + len, sizeof(r->series) - len, " [%s]", add);
		}
		renamed = true;
	}
	return renamed;
}

/* --- aggregation -------------------------------------------------------------------------- */

/* Fit every series (panel, series, group) over its runs; the fits are kept in fig->fits. */
static int fit_series(struct sb_rpt_fig *fig, const struct sb_rpt_rows *runs)
{
	double *x = malloc((runs->n + 1) * sizeof(double)),
	       *y = malloc((runs->n + 1) * sizeof(double));
	int e = 0;

	if (!x || !y) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0, j; i < runs->n; i = j) {
		struct sb_rpt_fitted *ft;

		double x0 = INFINITY, x1 = -INFINITY;

		for (j = i; j < runs->n && same_series(&runs->r[j], &runs->r[i]); j++) {
			x[j - i] = runs->r[j].x;
			y[j - i] = runs->r[j].y;
			x0 = fmin(x0, x[j - i]);
			x1 = fmax(x1, x[j - i]);
		}
		if ((e = sb_rpt_reserve((void **)&fig->fits, fig->nfits, &fig->fits_cap,
		                        sizeof(fig->fits[0]))) < 0)
			goto out;
		ft = &fig->fits[fig->nfits++];
		snprintf(ft->panel, sizeof(ft->panel), "%s", runs->r[i].panel);
		snprintf(ft->series, sizeof(ft->series), "%s", runs->r[i].series);
		sb_rpt_fit_linear(x, y, j - i, &ft->f);
		ft->x0 = x0;
		ft->x1 = x1;
		ft->grp = runs->r[i].grp;
	}
out:
	free(x);
	free(y);
	return e;
}

/* The mean of the runs of each point, with confidence intervals; into out. */
static int aggregate(const struct sb_rpt_rows *runs, struct sb_rpt_rows *out, bool trace)
{
	double *vx = malloc((runs->n + 1) * sizeof(double)),
	       *vy = malloc((runs->n + 1) * sizeof(double));
	int e = 0;

	if (!vx || !vy) {
		e = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (unsigned i = 0, j; i < runs->n; i = j) {
		const struct sb_rpt_row *a = &runs->r[i];
		struct sb_rpt_summary sx, sy;
		struct sb_rpt_row *r;
		double lo = INFINITY, hi = -INFINITY;
		unsigned nff = 0;

		for (j = i; j < runs->n && same_series(&runs->r[j], a) &&
		            (trace ? j == i : !strcmp(runs->r[j].k, a->k));
		     j++) {
			vx[j - i] = runs->r[j].x;
			vy[j - i] = runs->r[j].y;
			nff += runs->r[j].nff;
			if (!isnan(runs->r[j].ymin))
				lo = fmin(lo, runs->r[j].ymin);
			if (!isnan(runs->r[j].ymax))
				hi = fmax(hi, runs->r[j].ymax);
		}
		if (!(r = sb_rpt_add_row(out))) {
			e = SB_ERR_NOMEM;
			goto out;
		}
		*r = *a;
		sb_rpt_summarize(vx, j - i, &sx);
		sb_rpt_summarize(vy, j - i, &sy);
		r->n = j - i;
		r->nff = nff;
		r->x = sx.mean;
		r->y = sy.mean;
		/* one run: no interval, low = high = the value (the data file's convention) */
		r->ylo = r->n > 1 ? sy.mean - sy.half : sy.mean;
		r->yhi = r->n > 1 ? sy.mean + sy.half : sy.mean;
		r->xlo = r->n > 1 ? sx.mean - sx.half : sx.mean;
		r->xhi = r->n > 1 ? sx.mean + sx.half : sx.mean;
		r->ymin = isinf(lo) ? NAN : lo;
		r->ymax = isinf(hi) ? NAN : hi;
	}
out:
	free(vx);
	free(vy);
	return e;
}

/* --- series names and styles -------------------------------------------------------------- */

/* The name a comparison gives a campaign's series (NULL: none). */
static const char *set_label(const struct sb_rpt_fig *fig, int64_t campaign_id)
{
	for (size_t i = 0; fig->set && fig->set->labels && i < fig->set->n; i++)
		if (fig->set->ids[i] == campaign_id)
			return fig->set->labels[i];
	return NULL;
}

/* What names a group in a figure: the parts that differ between the figure's groups (in a
 * comparison, the campaign's label, which names its source). */
static void group_label(const struct sb_rpt_fig *fig, unsigned g, char *out, size_t size)
{
	const struct sb_rpt_group *a = &fig->groups[g];
	const char *label = set_label(fig, a->campaign_id);
	bool cid = false, dev = false, dur = false;
	size_t len = 0;

	out[0] = '\0';
	for (unsigned i = 0; i < fig->ngroups; i++) {
		cid = cid || fig->groups[i].campaign_id != a->campaign_id;
		dev = dev || strcmp(fig->groups[i].device, a->device);
		dur = dur || fig->groups[i].duration_ns != a->duration_ns;
	}
	if (cid && label)
		len += (size_t)snprintf(out + len, size - len, "%s", label);
	else if (cid)
		len += (size_t)snprintf(out + len, size - len, "c%lld %s",
		                        (long long)a->campaign_id, a->cname);
	if (dev && !label && len < size)
		len += (size_t)snprintf(out + len, size - len, "%s%s", len ? " " : "", a->device);
	if (dur && len < size)
		snprintf(out + len, size - len, "%s%g s", len ? " " : "", a->duration_ns / 1e9);
}

/* The colour key of a series: its name without the addressing-mode words and without what
 * follows a comma or a colon, so that variants (linear, the no-mask baseline) share a colour
 * and are dashed. */
static void colour_key(const char *series, char *key, size_t size)
{
	size_t j = 0;

	for (const char *p = series; *p && *p != ',' && *p != ':' && j + 1 < size;) {
		if (!strncmp(p, "random", 6) || !strncmp(p, "linear", 6)) {
			p += 6;
			continue;
		}
		key[j++] = *p++;
	}
	key[j] = '\0';
}

/* A run's series as the figure names it: the group first when the figure has several. */
static void base_name(const struct sb_rpt_fig *fig, const struct sb_rpt_row *r, char *out,
                      size_t size)
{
	char group[160];

	group_label(fig, r->grp, group, sizeof(group));
	snprintf(out, size, "%s%s%.*s", group, group[0] ? " | " : "", (int)(size - 1), r->series);
}

void sb_rpt_fit_text(const struct sb_rpt_figure_def *d, const struct sb_rpt_fit *f, bool unit,
                     char *out, size_t size)
{
	size_t len = 0;

	out[0] = '\0';
	if (!f->ok) {
		snprintf(out, size, "no fit (n = %u, fewer than 2 distinct x)", f->n);
		return;
	}
	len += (size_t)snprintf(out + len, size - len, "%+.3f", f->slope);
	if (!isnan(f->slope_se) && len < size)
		len += (size_t)snprintf(out + len, size - len, " ± %.3f", f->slope_se);
	if (unit && len < size)
		len += (size_t)snprintf(out + len, size - len, " %s", d->unit);
	if (d->span > 0 && len < size)
		len += (size_t)snprintf(out + len, size - len, " (%+.2f %s per %g GB/s)",
		                        f->slope * d->span, d->span_unit, d->span);
	if (!isnan(f->r2) && len < size)
		snprintf(out + len, size - len, ", R² = %.3f", f->r2);
}

/* Rank of key among keys (n so far), added when new. */
static unsigned rank_key(char (*keys)[SB_RPT_SERIES_MAX], unsigned *n, const char *key)
{
	for (unsigned i = 0; i < *n; i++)
		if (!strcmp(keys[i], key))
			return i;
	snprintf(keys[*n], sizeof(keys[0]), "%s", key);
	return (*n)++;
}

/*
 * Give every row its series' style (added when new): a colour per series (variants — linear
 * addressing, the no-mask baseline — share their series' colour and are dashed; so do the
 * same series of other groups, which also change the point shape), 16 colours before one
 * repeats with another dash type. Data always has points; a no-mask baseline never does (a
 * thin dashed or dotted line), so no campaign's baseline looks like another's data.
 */
static int assign_styles(struct sb_rpt_fig *fig)
{
	/* gnuplot dash types: solid, dashed, dash-dot, dash-dot-dot, then dotted */
	static const unsigned dashes[5] = {1, 2, 4, 5, 3};
	char(*keys)[SB_RPT_SERIES_MAX] = calloc(fig->rs.n + 1, sizeof(*keys));
	unsigned nkeys = 0;
	int e = 0;

	if (!keys)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (unsigned i = 0; i < fig->rs.n; i++) {
		struct sb_rpt_row *r = &fig->rs.r[i];
		struct sb_rpt_style_def *s = NULL;

		for (unsigned k = 0; k < fig->nstyles && !s; k++)
			if (!strcmp(fig->styles[k].series, r->series))
				s = &fig->styles[k];
		if (!s) {
			const char *bar = strstr(r->series, " | ");
			bool baseline = strstr(r->series, "no mask") != NULL;
			bool variant = strstr(r->series, "linear") || baseline;
			char key[SB_RPT_SERIES_MAX];
			unsigned ci;

			if ((e = sb_rpt_reserve((void **)&fig->styles, fig->nstyles,
			                        &fig->styles_cap, sizeof(*s))) < 0)
				goto out;
			colour_key(bar ? bar + 3 : r->series, key, sizeof(key));
			ci = rank_key(keys, &nkeys, key);
			s = &fig->styles[fig->nstyles++];
			memset(s, 0, sizeof(*s));
			snprintf(s->series, sizeof(s->series), "%s", r->series);
			s->kind = r->kind;
			s->colour = ci % 16;
			s->shape = (ci + r->grp) % 5;
			s->dash = dashes[((variant ? 1 : 0) + 2 * (r->grp + ci / 16)) % 5];
			/* a baseline is a reference, not data: a thin line without points, dashed
			   (its campaign's first one) or dotted (the next), whatever the data of
			   the other campaigns use */
			s->baseline = baseline && r->kind == SB_RPT_DATA;
			if (s->baseline)
				s->dash = 2 + r->grp % 2;
		}
		r->style = (unsigned)(s - fig->styles);
		if (r->kind == SB_RPT_DATA) {
			s->open = s->open || r->nff;
			s->mixed = s->mixed || !r->nff;
			s->any_n2 = s->any_n2 || r->n > 1;
		}
	}
	for (unsigned k = 0; k < fig->nstyles; k++)
		fig->styles[k].mixed = fig->styles[k].mixed && fig->styles[k].open;
out:
	free(keys);
	return e;
}

/* --- categories, fitted lines, the tag-pool bound ----------------------------------------- */

int sb_rpt_cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* Categorical x: the order values become positions 0, 1, 2... of the values present. */
static int rank_x(struct sb_rpt_fig *fig)
{
	struct sb_rpt_rows *rs = &fig->rs;
	double *v = malloc((rs->n + 1) * sizeof(*v));
	unsigned n = 0;

	if (!v)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (unsigned i = 0; i < rs->n; i++)
		v[i] = rs->r[i].x;
	qsort(v, rs->n, sizeof(*v), sb_rpt_cmp_double);
	for (unsigned i = 0; i < rs->n; i++)
		if (!n || v[i] != v[n - 1])
			v[n++] = v[i];
	for (unsigned i = 0; i < rs->n; i++) {
		double *at = bsearch(&rs->r[i].x, v, n, sizeof(*v), sb_rpt_cmp_double);

		rs->r[i].x = rs->r[i].xlo = rs->r[i].xhi = (double)(at - v);
	}
	fig->ncat = n;
	free(v);
	return 0;
}

/* A fitted line across the x range of its runs, as two rows after the data. */
static int add_fit_lines(struct sb_rpt_fig *fig)
{
	for (unsigned i = 0; i < fig->nfits; i++) {
		const struct sb_rpt_fitted *ft = &fig->fits[i];

		if (!ft->f.ok)
			continue;
		for (int e = 0; e < 2; e++) {
			struct sb_rpt_row *r = sb_rpt_add_row(&fig->rs);

			if (!r)
				return SB_ERR_NOMEM;
			snprintf(r->panel, sizeof(r->panel), "%s", ft->panel);
			snprintf(r->series, sizeof(r->series), "%s", ft->series);
			r->x = r->xlo = r->xhi = e ? ft->x1 : ft->x0;
			r->y = r->ylo = r->yhi = ft->f.intercept + ft->f.slope * r->x;
			r->n = ft->f.n;
			r->grp = ft->grp;
			r->kind = SB_RPT_FITLINE;
		}
	}
	return 0;
}

/* Tags in a port's read tag pool: the register map's gups_port.info.tag_depth (0: unknown). */
static unsigned tag_depth(void)
{
	for (unsigned b = 0; b < sb_regmap_nblocks; b++) {
		const struct sb_regmap_block *bl = &sb_regmap_blocks[b];

		for (unsigned r = 0; !strcmp(bl->name, "gups_port") && r < bl->nregs; r++)
			for (unsigned f = 0;
			     !strcmp(bl->regs[r].name, "info") && f < bl->regs[r].nfields; f++)
				if (!strcmp(bl->regs[r].fields[f].name, "tag_depth"))
					return bl->regs[r].fields[f].reset;
	}
	return 0;
}

/* The tag-pool bound of each port count (the point label) in each panel: a line across. */
static int add_bounds(struct sb_rpt_fig *fig)
{
	unsigned depth = tag_depth(), n = fig->rs.n;

	for (unsigned i = 0; depth && i < n; i++) {
		const struct sb_rpt_row *a = &fig->rs.r[i];
		char series[SB_RPT_SERIES_MAX];
		bool seen = false;

		if (a->kind != SB_RPT_DATA)
			continue;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = fig->rs.r[j].kind == SB_RPT_DATA &&
			       !strcmp(fig->rs.r[j].panel, a->panel) &&
			       !strcmp(fig->rs.r[j].label, a->label);
		if (seen)
			continue;
		snprintf(series, sizeof(series), "tag-pool bound: %s ports × %u tags", a->label,
		         depth);
		for (int e = 0; e < 2; e++) {
			struct sb_rpt_row *r = sb_rpt_add_row(&fig->rs);

			if (!r)
				return SB_ERR_NOMEM;
			a = &fig->rs.r[i]; /* the rows may have moved */
			snprintf(r->panel, sizeof(r->panel), "%s", a->panel);
			snprintf(r->series, sizeof(r->series), "%s", series);
			r->x = r->xlo = r->xhi = e ? fig->ncat - 1 + 0.4 : -0.4;
			r->y = r->ylo = r->yhi = strtod(a->label, NULL) * depth;
			r->n = 1;
			r->kind = SB_RPT_BOUND;
		}
	}
	return 0;
}

/* --- a figure ----------------------------------------------------------------------------- */

/* Most points any series has. */
static unsigned max_series_len(const struct sb_rpt_rows *rs)
{
	unsigned best = 0, run = 0;

	for (unsigned i = 0; i < rs->n; i++) {
		if (rs->r[i].kind != SB_RPT_DATA)
			continue;
		run = i && same_series(&rs->r[i], &rs->r[i - 1]) ? run + 1 : 1;
		best = run > best ? run : best;
	}
	return best;
}

/* The line y = 1 across each panel (ratios). */
static int add_unity(struct sb_rpt_fig *fig)
{
	unsigned n = fig->rs.n;

	for (unsigned i = 0; i < n; i++) {
		char panel[SB_RPT_PANEL_MAX];
		bool seen = false;

		if (fig->rs.r[i].kind != SB_RPT_DATA)
			continue;
		for (unsigned j = 0; j < i && !seen; j++)
			seen = fig->rs.r[j].kind == SB_RPT_DATA &&
			       !strcmp(fig->rs.r[j].panel, fig->rs.r[i].panel);
		if (seen)
			continue;
		snprintf(panel, sizeof(panel), "%s", fig->rs.r[i].panel);
		for (int e = 0; e < 2; e++) {
			struct sb_rpt_row *r = sb_rpt_add_row(&fig->rs);

			if (!r)
				return SB_ERR_NOMEM;
			snprintf(r->panel, sizeof(r->panel), "%s", panel);
			snprintf(r->series, sizeof(r->series), "ratio 1: no deviation");
			r->x = r->xlo = r->xhi = e ? fig->ncat - 1 + 0.4 : -0.4;
			r->y = r->ylo = r->yhi = 1;
			r->n = 1;
			r->kind = SB_RPT_BOUND;
		}
	}
	return 0;
}

int sb_rpt_figure_data(struct sb_store *st, const char *view, const struct sb_report_options *o,
                       const struct sb_rpt_figure_def *d, const struct sb_rpt_set *set,
                       struct sb_rpt_fig *fig)
{
	struct sb_rpt_rows runs = {0};
	struct collect_ctx cc = {.fig = fig, .rs = &runs, .kind = SB_RPT_DATA};
	bool trace = d->style == SB_RPT_TRACE;
	int e;

	memset(fig, 0, sizeof(*fig));
	fig->d = d;
	fig->set = set;
	snprintf(fig->title, sizeof(fig->title), "%s", d->title);
	if (d->derive) {
		if ((e = d->derive(st, view, o, fig)) < 0)
			goto out;
		runs = fig->rs;
		memset(&fig->rs, 0, sizeof(fig->rs));
	} else if ((e = query(st, view, d->sql, &cc)) < 0) {
		goto out;
	}
	if ((e = order_rows(&runs, !trace)) < 0 ||
	    (!trace && split_mixed(&runs) && (e = order_rows(&runs, true)) < 0))
		goto out;
	/* the group joins the series' name when the figure has several */
	for (unsigned i = 0; i < runs.n; i++) {
		char name[SB_RPT_SERIES_MAX];

		base_name(fig, &runs.r[i], name, sizeof(name));
		memcpy(runs.r[i].series, name, sizeof(name));
	}
	if ((d->style == SB_RPT_FIT && (e = fit_series(fig, &runs)) < 0) ||
	    (e = aggregate(&runs, &fig->rs, trace)) < 0)
		goto out;
	if (max_series_len(&fig->rs) < d->min_x) {
		snprintf(fig->why, sizeof(fig->why), "%s", d->need);
		e = 0;
		goto out;
	}
	if (d->marks_sql) {
		cc.rs = &fig->rs;
		cc.kind = SB_RPT_MARK;
		if ((e = query(st, view, d->marks_sql, &cc)) < 0)
			goto out;
		for (unsigned i = 0; i < fig->rs.n; i++) {
			struct sb_rpt_row *r = &fig->rs.r[i];
			char name[SB_RPT_SERIES_MAX];

			if (r->kind != SB_RPT_MARK)
				continue;
			base_name(fig, r, name, sizeof(name));
			memcpy(r->series, name, sizeof(name));
			r->ylo = r->yhi = r->y;
			r->xlo = r->xhi = r->x;
		}
	}
	if ((e = add_fit_lines(fig)) < 0)
		goto out;
	if ((d->xaxis == SB_RPT_X_CAT && (e = rank_x(fig)) < 0) ||
	    (d->bound && (e = add_bounds(fig)) < 0) || (d->unity && (e = add_unity(fig)) < 0) ||
	    (e = assign_styles(fig)) < 0)
		goto out;
	fig->n_min = UINT32_MAX;
	for (unsigned i = 0; i < fig->rs.n; i++) {
		const struct sb_rpt_row *r = &fig->rs.r[i];

		if (r->kind != SB_RPT_DATA)
			continue;
		fig->npoints++;
		fig->nff += r->nff > 0;
		fig->n_min = r->n < fig->n_min ? r->n : fig->n_min;
		fig->n_max = r->n > fig->n_max ? r->n : fig->n_max;
	}
	e = 1;
out:
	free(runs.r);
	return e;
}
