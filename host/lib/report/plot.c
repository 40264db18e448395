/* SPDX-License-Identifier: MIT */
/*
 * A figure's data file and gnuplot script. The script lays the panels out itself (one y range
 * and one x range for all of them, fixed margins, the key below, once for the whole figure),
 * draws each series in its own style and writes every format asked for. Text from the
 * database reaches the script only through sb_gnuplot_str and the data file only through
 * sb_gnuplot_datastr (stackbench/gnuplot.h); enhanced text is off, so no character of a name
 * is markup.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_int.h"
#include "stackbench/error.h"
#include "stackbench/gnuplot.h"
#include "stackbench/output.h"
#include "stackbench/util.h"

/*
 * 16 colours that stay apart on screen and on paper: Okabe and Ito's colour-blind-safe eight
 * (black last) and eight of Paul Tol's, before a colour repeats (with another dash type).
 */
static const char *const palette[16] = {
    "#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#882255", "#117733",
    "#332288", "#aa4499", "#44aa99", "#999933", "#cc6677", "#661100", "#6699cc", "#000000",
};
/* Point shapes: filled and open circle, square, triangle up, triangle down, diamond. */
static const unsigned shape_filled[5] = {7, 5, 9, 11, 13};
static const unsigned shape_open[5] = {6, 4, 8, 10, 12};
#define BOUND_COLOUR "#444444"

/* --- the data file ------------------------------------------------------------------------ */

static bool same_block(const struct sb_rpt_row *a, const struct sb_rpt_row *b)
{
	return a->kind == b->kind && a->style == b->style && !strcmp(a->panel, b->panel);
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

/* A number as the shortest text that reads back exactly (NaN: none), after a space. */
static void num(FILE *f, double v)
{
	char buf[40];

	fprintf(f, " %s", isnan(v) ? "NaN" : sb_format_double(buf, sizeof(buf), v));
}

int sb_rpt_write_data(const char *path, const struct sb_rpt_fig *fig)
{
	static const char *const kinds[] = {"data", "fitted line", "mark", "bound"};
	struct sb_output o;
	FILE *f;
	int e;

	if ((e = sb_output_open(&o, path)) < 0)
		return e;
	f = o.f;
	fprintf(f, "# stackbench report: %s\n", fig->d->name);
	fprintf(f, "# 1 x | 2 x label | 3 y: mean of the point's runs | 4 y low | 5 y high: 95 %% "
	           "confidence interval of the mean (Student's t; low = high = mean with one run)"
	           " | 6 x low | 7 x high (the same for x) | 8 n: runs | 9 runs fast-forwarded | "
	           "10 y min | 11 y max (within the runs; NaN: none) | 12 point label | 13 panel | "
	           "14 series\n");
	for (unsigned i = 0; i < fig->nfits; i++) {
		const struct sb_rpt_fitted *ft = &fig->fits[i];
		char text[160];

		sb_rpt_fit_text(fig->d, &ft->f, true, text, sizeof(text));
		fprintf(f, "# fit ");
		sb_gnuplot_datastr(f, ft->panel);
		fputc(' ', f);
		sb_gnuplot_datastr(f, ft->series);
		fprintf(f, " slope");
		num(f, ft->f.slope);
		fprintf(f, " slope_se");
		num(f, ft->f.slope_se);
		fprintf(f, " intercept");
		num(f, ft->f.intercept);
		fprintf(f, " r2");
		num(f, ft->f.r2);
		fprintf(f, " n %u: %s\n", ft->f.n, text);
	}
	fprintf(f, "# one block per panel, series and kind, separated by two blank lines\n");
	for (unsigned i = 0; i < fig->rs.n; i++) {
		const struct sb_rpt_row *r = &fig->rs.r[i];
		char x[40];

		if (!i || !same_block(r, &fig->rs.r[i - 1]))
			fprintf(f, "%s# %s\n", i ? "\n\n" : "", kinds[r->kind]);
		/* the names come from the database: quoted so that no character of theirs can
		   break the file's lines or fields */
		fputs(sb_format_double(x, sizeof(x), r->x), f);
		fputc(' ', f);
		sb_gnuplot_datastr(f, r->xtic[0] ? r->xtic : "-");
		num(f, r->y);
		num(f, r->ylo);
		num(f, r->yhi);
		num(f, r->xlo);
		num(f, r->xhi);
		fprintf(f, " %u %u", r->n, r->nff);
		num(f, r->ymin);
		num(f, r->ymax);
		fputc(' ', f);
		sb_gnuplot_datastr(f, r->label[0] ? r->label : "-");
		fputc(' ', f);
		sb_gnuplot_datastr(f, r->panel);
		fputc(' ', f);
		sb_gnuplot_datastr(f, r->series);
		fputc('\n', f);
	}
	return finish(&o);
}

/* The style of a series (by name), or NULL. */
static const struct sb_rpt_style_def *style_of(const struct sb_rpt_fig *fig, const char *series)
{
	for (unsigned i = 0; i < fig->nstyles; i++)
		if (!strcmp(fig->styles[i].series, series))
			return &fig->styles[i];
	return NULL;
}

/* A fit's key entry: the panel (when there are several), the series and the fit. */
static void fit_title(const struct sb_rpt_fig *fig, const struct sb_rpt_fitted *ft, bool panels,
                      char *out, size_t size)
{
	char text[160];

	sb_rpt_fit_text(fig->d, &ft->f, false, text, sizeof(text));
	snprintf(out, size, "%s%s%s: %s", panels ? ft->panel : "", panels ? " · " : "", ft->series,
	         text);
}

/* --- what the key says -------------------------------------------------------------------- */

void sb_rpt_note(const struct sb_rpt_fig *fig, char *out, size_t size)
{
	const struct sb_rpt_figure_def *d = fig->d;
	size_t len = 0;

#define ADD(...)                                                                                   \
	do {                                                                                       \
		if (len < size)                                                                    \
			len += (size_t)snprintf(out + len, size - len, __VA_ARGS__);               \
	} while (0)
	out[0] = '\0';
	if (fig->nsim && fig->nsim == fig->ngroups) {
		ADD("SIMULATED BENCH (");
		for (unsigned i = 0, n = 0; i < fig->ngroups; i++) {
			bool dup = false;

			for (unsigned j = 0; j < i; j++)
				dup = dup || !strcmp(fig->groups[j].device, fig->groups[i].device);
			if (!dup)
				ADD("%s%s", n++ ? ", " : "", fig->groups[i].device);
		}
		ADD("): not hardware");
	} else if (fig->nsim) {
		ADD("series on sim: devices: SIMULATED BENCH, not hardware");
	}
	if (fig->nff)
		ADD("%s%s", len ? "\n" : "",
		    d->style == SB_RPT_TRACE
		        ? "fast-forwarded runs (the model skipped steady state)"
		        : "open symbols: fast-forwarded runs");
	if (d->note)
		ADD("%s%s", len ? "\n" : "", d->note);
	else if (d->style != SB_RPT_TRACE && fig->n_max <= 1)
		ADD("%sn = 1 run per point: no error bars", len ? "\n" : "");
	else if (d->style != SB_RPT_TRACE && fig->n_min == fig->n_max)
		ADD("%smean of n = %u runs; bars: 95 %% CI (Student's t)", len ? "\n" : "",
		    fig->n_max);
	else if (d->style != SB_RPT_TRACE)
		ADD("%smean of n = %u..%u runs; bars: 95 %% CI (Student's t) where n >= 2",
		    len ? "\n" : "", fig->n_min, fig->n_max);
	if (d->style == SB_RPT_FIT)
		ADD("%slines: least squares over all runs; slopes in %s ± standard error",
		    len ? "\n" : "", d->unit);
#undef ADD
}

/* --- ranges and layout -------------------------------------------------------------------- */

/* The smallest round step (1, 2, 2.5 or 5 times a power of ten) of at least raw. */
static double nice_at_least(double raw)
{
	double p, m;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	p = pow(10, floor(log10(raw)));
	m = raw / p;
	return (m <= 1 + 1e-9     ? 1
	        : m <= 2 + 1e-9   ? 2
	        : m <= 2.5 + 1e-9 ? 2.5
	        : m <= 5 + 1e-9   ? 5
	                          : 10) *
	       p;
}

/* An axis: the data's extent (what must show), the range and the tick step. */
struct range {
	double data_lo, data_hi, lo, hi, step;
	bool from_zero;
};

/* Round the range to steps of at least span / (ticks - 1). */
static void round_range(struct range *r, unsigned ticks)
{
	double span = r->data_hi - r->data_lo;

	r->step = nice_at_least(span / (ticks > 1 ? ticks - 1 : 1));
	r->lo = floor(r->data_lo / r->step + 1e-9) * r->step;
	r->hi = ceil(r->data_hi / r->step - 1e-9) * r->step;
	if (r->hi <= r->lo)
		r->hi = r->lo + r->step;
}

/* The y extent of every panel: from 0 (unless the data is negative or the figure zooms on the
 * data) to a little above the highest value drawn. */
static struct range y_range(const struct sb_rpt_fig *fig)
{
	double lo = INFINITY, hi = -INFINITY, span;
	struct range r = {0};

	for (unsigned i = 0; i < fig->rs.n; i++) {
		const struct sb_rpt_row *w = &fig->rs.r[i];
		double v[5] = {w->y, w->ylo, w->yhi, fig->d->range ? w->ymin : NAN,
		               fig->d->range ? w->ymax : NAN};

		for (int k = 0; k < 5; k++)
			if (isfinite(v[k])) {
				lo = fmin(lo, v[k]);
				hi = fmax(hi, v[k]);
			}
	}
	if (!isfinite(lo))
		lo = hi = 0;
	r.from_zero = !fig->d->ydata && lo >= 0;
	if (r.from_zero)
		lo = 0;
	span = hi - lo > 0 ? hi - lo : fabs(hi) > 0 ? fabs(hi) : 1;
	if (!r.from_zero)
		lo = lo >= 0 && lo - 0.05 * span < 0 ? 0 : lo - 0.05 * span;
	r.data_lo = lo;
	r.data_hi = hi + 0.05 * span;
	round_range(&r, 6);
	return r;
}

/* The distinct x values of the data (sorted), at most max of them: their number. */
static unsigned x_values(const struct sb_rpt_fig *fig, double *v, unsigned max)
{
	unsigned n = 0, m = 0;

	for (unsigned i = 0; i < fig->rs.n && n < max; i++)
		if (fig->rs.r[i].kind == SB_RPT_DATA)
			v[n++] = fig->rs.r[i].x;
	qsort(v, n, sizeof(*v), sb_rpt_cmp_double);
	for (unsigned i = 0; i < n; i++)
		if (!m || v[i] != v[m - 1])
			v[m++] = v[i];
	return m;
}

/* The x extent of every panel. */
static struct range x_range(const struct sb_rpt_fig *fig)
{
	double lo = INFINITY, hi = -INFINITY;
	struct range r = {0};

	for (unsigned i = 0; i < fig->rs.n; i++) {
		const struct sb_rpt_row *w = &fig->rs.r[i];
		double x[3] = {w->x, w->xlo, w->xhi};

		for (int k = 0; k < 3; k++)
			if (isfinite(x[k])) {
				lo = fmin(lo, x[k]);
				hi = fmax(hi, x[k]);
			}
	}
	if (!isfinite(lo))
		lo = hi = 0;
	r.from_zero = fig->d->xaxis == SB_RPT_X_ZERO && lo >= 0;
	r.data_lo = r.from_zero ? 0 : lo;
	r.data_hi = r.from_zero ? (hi > 0 ? hi * 1.04 : 1) : hi;
	round_range(&r, 6);
	return r;
}

/* The canvas and where its parts go. Lengths in points (1/72 in). */
struct layout {
	double w, h, font;
	unsigned np, cols, rows;
	double left, pw, ph, sx, sy, top; /* first panel's left and top edge, panel size, gaps */
	double panels_h;                  /* from the first panel's top to the last's bottom */
	double key_h, xlabel_h;           /* the key's height at the bottom, the x label's */
	unsigned key_cols, yticks, xticks;
	size_t note_chars; /* longest line of the note */
	double dpi;        /* PNG */
	bool title;
	char panels[16][SB_RPT_PANEL_MAX];
};

/* Key entries (series of data and bounds; fits) and the longest name. */
static unsigned key_entries(const struct sb_rpt_fig *fig, bool panels, size_t *longest)
{
	unsigned n = 0;

	*longest = 0;
	for (unsigned i = 0; fig->d->style == SB_RPT_FIT && i < fig->nfits; i++) {
		char title[SB_RPT_SERIES_MAX + 200];

		fit_title(fig, &fig->fits[i], panels, title, sizeof(title));
		n++;
		*longest = strlen(title) > *longest ? strlen(title) : *longest;
	}
	for (unsigned i = 0; i < fig->nstyles; i++) {
		const struct sb_rpt_style_def *s = &fig->styles[i];

		if ((s->kind != SB_RPT_DATA || fig->d->style == SB_RPT_FIT) &&
		    s->kind != SB_RPT_BOUND)
			continue;
		n++;
		*longest = strlen(s->series) > *longest ? strlen(s->series) : *longest;
	}
	return n;
}

/* Wrap the note's lines at about width characters (spaces become newlines); its lines. */
static unsigned wrap(char *note, size_t width)
{
	unsigned lines = note[0] != '\0';
	char *line = note, *space = NULL;

	for (char *p = note; *p; p++) {
		if (*p == '\n') {
			line = p + 1;
			space = NULL;
			lines++;
			continue;
		}
		if (*p == ' ')
			space = p;
		if ((size_t)(p - line) >= width && space) {
			*space = '\n';
			line = space + 1;
			space = NULL;
			lines++;
		}
	}
	return lines;
}

/* Characters of a text as drawn (UTF-8 continuation bytes do not count). */
static size_t chars(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += ((unsigned char)*s & 0xc0) != 0x80;
	return n;
}

static void plan(struct layout *l, const struct sb_rpt_fig *fig, const struct sb_report_options *o,
                 struct range *y, struct range *x, char *note)
{
	bool paper = o->width_in > 0;
	double axis_b, ptitle, title_h, entry_w, right, ychars, xchars, min_panels;
	size_t longest_xtic = 0, longest;
	unsigned entries, key_rows, nlines;
	char buf[64];

	memset(l, 0, sizeof(*l));
	for (unsigned i = 0; i < fig->rs.n; i++) {
		bool seen = false;

		for (unsigned p = 0; p < l->np && !seen; p++)
			seen = !strcmp(l->panels[p], fig->rs.r[i].panel);
		if (!seen && l->np < 16)
			snprintf(l->panels[l->np++], sizeof(l->panels[0]), "%s",
			         fig->rs.r[i].panel);
		longest_xtic = chars(fig->rs.r[i].xtic) > longest_xtic ? chars(fig->rs.r[i].xtic)
		                                                       : longest_xtic;
	}
	entries = key_entries(fig, l->np > 1, &longest);
	l->font = o->font_pt > 0 ? o->font_pt : paper ? 8 : 10;
	l->title = !o->no_title;
	if (paper)
		l->cols = l->np < 2 ? 1 : o->width_in >= 6 ? (l->np < 4 ? l->np : 4) : 2;
	else
		l->cols = l->np <= 4 ? l->np : (l->np + 1) / 2;
	l->cols = l->cols ? l->cols : 1;
	l->rows = (l->np + l->cols - 1) / l->cols;
	l->rows = l->rows ? l->rows : 1;
	l->w = paper ? o->width_in * 72 : l->np > 1 ? 400.0 * l->cols : 750;
	l->dpi = paper ? 300 : 96;
	/* room for the tick labels, the axis labels, the titles */
	snprintf(buf, sizeof(buf), "%g", fabs(y->hi) > fabs(y->lo) ? y->hi : y->lo);
	ychars = (double)strlen(buf) + (y->step < 1 ? 2 : 0);
	snprintf(buf, sizeof(buf), "%g", fabs(x->hi) > fabs(x->lo) ? x->hi : x->lo);
	xchars = fig->d->xaxis == SB_RPT_X_CAT ? 2 : (double)strlen(buf) + (x->step < 1 ? 2 : 0);
	l->left = l->font * (0.65 * ychars + 3.2);
	right = l->font * (0.31 * xchars + 1);
	l->sx = l->font * (0.62 * xchars + 1);
	axis_b = l->font * 1.9;
	if (fig->d->xaxis == SB_RPT_X_CAT) {
		/* labels rotated by -30 degrees, hanging right of their ticks */
		axis_b += l->font * 0.31 * (double)longest_xtic;
		right = l->font * (0.5 * (double)longest_xtic + 1);
		l->sx = right;
	}
	ptitle = l->np > 1 ? l->font * 2.6 : l->font * 0.8;
	title_h = l->title ? l->font * 2.4 : l->font * 0.5;
	l->xlabel_h = l->font * 1.8;
	/* the key: as many columns as fit the width; the note wrapped to it */
	entry_w = l->font * (0.62 * (double)longest + 5);
	l->key_cols = (unsigned)((l->w - 2 * l->font) / entry_w);
	l->key_cols = l->key_cols < 1 ? 1 : l->key_cols;
	if (entries && l->key_cols > entries)
		l->key_cols = entries;
	key_rows = entries ? (entries + l->key_cols - 1) / l->key_cols : 0;
	nlines = wrap(note, (size_t)((l->w - 2 * l->font) / (0.6 * l->font)));
	l->key_h = l->font * (1.35 * (key_rows + nlines) + 1.5);
	/* the panels: one width, one height; the y label must fit beside them */
	l->sy = axis_b + ptitle;
	l->pw = (l->w - l->left - right - (l->cols - 1) * l->sx) / l->cols;
	if (l->pw < l->font * 6)
		l->pw = l->font * 6;
	l->ph = l->pw * (paper ? 0.7 : l->np > 1 ? 0.8 : 0.5);
	min_panels = 0.6 * l->font * (double)chars(fig->d->ylabel) + 2 * l->font;
	if (l->rows * l->ph + (l->rows - 1) * l->sy < min_panels)
		l->ph = (min_panels - (l->rows - 1) * l->sy) / l->rows;
	if (o->height_in > 0) {
		l->h = o->height_in * 72;
		l->ph = (l->h - title_h - ptitle - (l->rows - 1) * l->sy - axis_b - l->xlabel_h -
		         l->key_h) /
		        l->rows;
		if (l->ph < l->font * 4)
			l->ph = l->font * 4;
	}
	l->top = title_h + ptitle;
	l->panels_h = l->rows * l->ph + (l->rows - 1) * l->sy;
	if (!(o->height_in > 0))
		l->h = l->top + l->panels_h + axis_b + l->xlabel_h + l->key_h;
	/* ticks that fit: y labels a line and a half apart, x labels their width apart */
	l->yticks = (unsigned)(l->ph / (1.8 * l->font)) + 1;
	l->xticks = (unsigned)(l->pw / (l->font * (0.62 * xchars + 1.5))) + 1;
	round_range(y, l->yticks < 6 ? l->yticks : 6);
	round_range(x, l->xticks < 6 ? l->xticks : 6);
}

/* The x axis of every panel: range and ticks (categories come with the data). */
static void x_axis(FILE *f, const struct sb_rpt_fig *fig, const struct layout *l,
                   const struct range *x)
{
	double v[64];
	unsigned nv;

	switch (fig->d->xaxis) {
	case SB_RPT_X_CAT:
		fprintf(f, "set xrange [-0.5:%g]\nset xtics rotate by -30 left\n",
		        fig->ncat ? fig->ncat - 0.5 : 0.5);
		return;
	case SB_RPT_X_VALUES:
		nv = x_values(fig, v, SB_ARRAY_SIZE(v));
		if (nv >= 1) {
			double gap = INFINITY;
			unsigned every = l->xticks > 1 ? (nv + l->xticks - 1) / l->xticks : nv;

			for (unsigned i = 1; i < nv; i++)
				gap = fmin(gap, v[i] - v[i - 1]);
			if (!isfinite(gap))
				gap = v[0] ? fabs(v[0]) : 1;
			fprintf(f, "set xrange [%.10g:%.10g]\nset xtics (", v[0] - gap / 2,
			        v[nv - 1] + gap / 2);
			/* a tick at every value, a label where they fit */
			for (unsigned i = 0; i < nv; i++)
				fprintf(f, i % (every ? every : 1) ? "%s'' %.10g" : "%s%.10g",
				        i ? ", " : "", v[i]);
			fprintf(f, ")\n");
			return;
		}
		break;
	case SB_RPT_X_ZERO:
	case SB_RPT_X_DATA:
		break;
	}
	if (x->from_zero) {
		fprintf(f, "set xrange [0:%.10g]\nset xtics %.10g\n", x->hi, x->step);
	} else {
		double pad = x->data_hi > x->data_lo ? 0.04 * (x->data_hi - x->data_lo) : 1;

		fprintf(f, "set xrange [%.10g:%.10g]\nset xtics %.10g\n", x->data_lo - pad,
		        x->data_hi + pad, x->step);
	}
}

/* --- the script --------------------------------------------------------------------------- */

/* The note as a gnuplot string expression: quoted lines joined by "\n". */
static void note_str(FILE *f, const char *note)
{
	bool first = true;

	for (const char *p = note; first || *p;) {
		size_t n = strcspn(p, "\n");
		char line[512];

		snprintf(line, sizeof(line), "%.*s", (int)(n < sizeof(line) ? n : sizeof(line) - 1),
		         p);
		if (!first)
			fprintf(f, " . \"\\n\" . ");
		sb_gnuplot_str(f, line);
		first = false;
		p += n;
		p += *p == '\n';
	}
}

static unsigned point_type(const struct sb_rpt_style_def *s)
{
	return s->open ? shape_open[s->shape] : shape_filled[s->shape];
}

/* One block's elements. */
static void plot_block(FILE *f, const struct sb_rpt_fig *fig, const char *name,
                       const struct sb_rpt_row *r, unsigned block, double font, bool *first)
{
	const struct sb_rpt_figure_def *d = fig->d;
	const struct sb_rpt_style_def *s = &fig->styles[r->style];
	const char *c = palette[s->colour];

#define SEP() (*first ? (*first = false, "") : ", \\\n     ")
	switch (r->kind) {
	case SB_RPT_FITLINE:
		fprintf(f,
		        "%s'%s.dat' index %u using 1:3 with lines lc rgb '%s' dt %u lw 1.2 notitle",
		        SEP(), name, block, c, s->dash);
		return;
	case SB_RPT_MARK:
		fprintf(f,
		        "%s'%s.dat' index %u using 1:3 with points pt 7 ps 1.6 lc rgb '%s' notitle",
		        SEP(), name, block, c);
		return;
	case SB_RPT_BOUND:
		fprintf(f,
		        "%s'%s.dat' index %u using 1:3 with lines lc rgb '" BOUND_COLOUR
		        "' dt 2 lw 1.5 notitle",
		        SEP(), name, block);
		return;
	case SB_RPT_DATA:
		break;
	}
	if (s->baseline) {
		fprintf(f,
		        "%s'%s.dat' index %u using 1:3 with lines lc rgb '%s' dt %u lw 0.8 notitle",
		        SEP(), name, block, c, s->dash);
		return;
	}
	if (s->any_n2 && d->style != SB_RPT_TRACE) {
		if (d->xerr)
			fprintf(f,
			        "%s'%s.dat' index %u using 1:3:($8 > 1 ? $6 : 1/0):($8 > 1 ? $7 : "
			        "1/0):($8 > 1 ? $4 : 1/0):($8 > 1 ? $5 : 1/0) with xyerrorbars pt "
			        "-1 lc "
			        "rgb '%s' notitle",
			        SEP(), name, block, c);
		else
			fprintf(
			    f,
			    "%s'%s.dat' index %u using 1:3:($8 > 1 ? $4 : 1/0):($8 > 1 ? $5 : 1/0) "
			    "with yerrorbars pt -1 lc rgb '%s' notitle",
			    SEP(), name, block, c);
	}
	if (d->range)
		fprintf(
		    f,
		    "%s'%s.dat' index %u using 1:10 with lines lc rgb '%s' dt 3 lw 0.8 notitle, "
		    "\\\n     '%s.dat' index %u using 1:11 with lines lc rgb '%s' dt 3 lw 0.8 "
		    "notitle",
		    SEP(), name, block, c, name, block, c);
	fprintf(f, "%s'%s.dat' index %u using 1:3%s with %s lc rgb '%s' dt %u", SEP(), name, block,
	        d->xaxis == SB_RPT_X_CAT ? ":xtic(2)" : "",
	        d->style == SB_RPT_FIT     ? "points"
	        : d->style == SB_RPT_TRACE ? "lines"
	                                   : "linespoints",
	        c, s->dash);
	if (d->style == SB_RPT_TRACE)
		fprintf(f, " lw 1.5");
	else
		fprintf(f, " pt %u", point_type(s));
	fprintf(f, " notitle");
	/* the runs not fast-forwarded, filled, over the open symbols */
	if (s->mixed && d->style != SB_RPT_TRACE)
		fprintf(f,
		        "%s'%s.dat' index %u using 1:($9 > 0 ? 1/0 : $3) with points pt %u lc rgb "
		        "'%s' notitle",
		        SEP(), name, block, shape_filled[s->shape], c);
	if (d->labels)
		fprintf(f,
		        "%s'%s.dat' index %u using 1:3:12 with labels offset character 0.5,0.5 "
		        "left font ',%g' tc rgb '%s' notitle",
		        SEP(), name, block, 0.8 * font, c);
#undef SEP
}

/* The key: one entry per series (per panel and series, with the fit, for fitted figures). */
static void key_entries_plot(FILE *f, const struct sb_rpt_fig *fig, bool panels)
{
	for (unsigned i = 0; fig->d->style == SB_RPT_FIT && i < fig->nfits; i++) {
		const struct sb_rpt_style_def *s = style_of(fig, fig->fits[i].series);
		char title[SB_RPT_SERIES_MAX + 200];

		if (!s)
			continue;
		fit_title(fig, &fig->fits[i], panels, title, sizeof(title));
		fprintf(f, ", \\\n     keyentry with linespoints lc rgb '%s' dt %u pt %u title ",
		        palette[s->colour], s->dash, point_type(s));
		sb_gnuplot_str(f, title);
	}
	for (unsigned i = 0; i < fig->nstyles; i++) {
		const struct sb_rpt_style_def *s = &fig->styles[i];

		if (s->kind == SB_RPT_BOUND) {
			fprintf(f, ", \\\n     keyentry with lines lc rgb '" BOUND_COLOUR
			           "' dt 2 lw 1.5 title ");
		} else if (s->kind == SB_RPT_DATA && s->baseline) {
			fprintf(f, ", \\\n     keyentry with lines lc rgb '%s' dt %u lw 0.8 title ",
			        palette[s->colour], s->dash);
		} else if (s->kind == SB_RPT_DATA && fig->d->style != SB_RPT_FIT) {
			fprintf(f, ", \\\n     keyentry with %s lc rgb '%s' dt %u",
			        fig->d->style == SB_RPT_TRACE ? "lines" : "linespoints",
			        palette[s->colour], s->dash);
			if (fig->d->style != SB_RPT_TRACE)
				fprintf(f, " pt %u", point_type(s));
			else
				fprintf(f, " lw 1.5");
			fprintf(f, " title ");
		} else {
			continue;
		}
		sb_gnuplot_str(f, s->series);
	}
}

/* Put the next plot's area at (left, top) points from the canvas' top left corner. */
static void margins(FILE *f, const struct layout *l, double left, double top, double w, double h)
{
	fprintf(f,
	        "set lmargin at screen %.5f\nset rmargin at screen %.5f\nset tmargin at screen "
	        "%.5f\nset bmargin at screen %.5f\n",
	        left / l->w, (left + w) / l->w, 1 - top / l->h, 1 - (top + h) / l->h);
}

/* The figure, for one terminal (already set). */
static void body(FILE *f, const char *base, const struct sb_rpt_fig *fig, const struct layout *l,
                 const struct range *y, const struct range *x, const char *note)
{
	const struct sb_rpt_figure_def *d = fig->d;
	double right_edge = l->left + l->cols * l->pw + (l->cols - 1) * l->sx;

	/* one x label and one y label for all the panels, which share their ranges */
	fprintf(f, "set encoding utf8\nunset key\nset grid\nset bars small\nset label 1 ");
	sb_gnuplot_str(f, d->xlabel);
	fprintf(f, " at screen %.5f,%.5f center\nset label 2 ", (l->left + right_edge) / 2 / l->w,
	        (l->key_h + 0.5 * l->xlabel_h) / l->h);
	sb_gnuplot_str(f, d->ylabel);
	fprintf(f, " at screen %.5f,%.5f center rotate by 90\n", 1.1 * l->font / l->w,
	        1 - (l->top + l->panels_h / 2) / l->h);
	fprintf(f, "set yrange [%.10g:%.10g]\nset ytics %.10g\n", y->lo, y->hi, y->step);
	x_axis(f, fig, l, x);
	fprintf(f, "set multiplot");
	if (l->title) {
		fprintf(f, " title ");
		sb_gnuplot_str(f, fig->title);
	}
	fprintf(f, "\n");
	for (unsigned p = 0; p < l->np; p++) {
		unsigned row = p / l->cols, col = p % l->cols, block = 0;
		bool first = true;

		fprintf(f, "# panel %u\n", p + 1);
		margins(f, l, l->left + col * (l->pw + l->sx), l->top + row * (l->ph + l->sy),
		        l->pw, l->ph);
		/* y tick labels in the first column only */
		fprintf(f, "set format y %s\n", col ? "''" : "'%g'");
		if (l->np > 1) {
			fprintf(f, "set title ");
			sb_gnuplot_str(f, l->panels[p]);
			fprintf(f, "\n");
		}
		fprintf(f, "plot ");
		/* the panel's blocks, numbered as in the data file */
		for (unsigned i = 0; i < fig->rs.n; block++) {
			const struct sb_rpt_row *r = &fig->rs.r[i];

			if (!strcmp(r->panel, l->panels[p]))
				plot_block(f, fig, base, r, block, l->font, &first);
			while (i < fig->rs.n && same_block(&fig->rs.r[i], r))
				i++;
		}
		if (first)
			fprintf(f, "NaN notitle");
		fprintf(f, "\n");
		if (!p)
			fprintf(f, "unset label 1\nunset label 2\n");
	}
	/* the key, once, below the panels: an empty plot the width of the figure (its area
	   reaches up to the x label: gnuplot drops the entries that do not fit in it) */
	fprintf(f,
	        "# the key\nunset title\nunset border\nunset tics\nunset grid\nset xrange [0:1]\n"
	        "set yrange [0:1]\n");
	margins(f, l, l->font, l->h - l->key_h - l->xlabel_h, l->w - 2 * l->font,
	        l->key_h + l->xlabel_h);
	fprintf(f,
	        "set key at screen 0.5,%.5f center top horizontal maxcols %u Left reverse "
	        "samplen 2.5 spacing 1 nobox",
	        (l->key_h - 0.8 * l->font) / l->h, l->key_cols);
	if (note[0]) {
		fprintf(f, " title ");
		note_str(f, note);
	}
	fprintf(f, "\nplot 2 with lines notitle");
	key_entries_plot(f, fig, l->np > 1);
	fprintf(f, "\nunset multiplot\n");
}

int sb_rpt_write_script(const char *path, const char *base, const struct sb_rpt_fig *fig,
                        const struct sb_report_options *o, unsigned formats)
{
	struct sb_output out;
	struct layout l;
	struct range y = y_range(fig), x = x_range(fig);
	char note[512];
	FILE *f;
	int e;

	sb_rpt_note(fig, note, sizeof(note));
	plan(&l, fig, o, &y, &x, note);
	if ((e = sb_output_open(&out, path)) < 0)
		return e;
	f = out.f;
	fprintf(f, "# stackbench report: %s (run with: gnuplot %s.gp, in this folder)\n",
	        fig->d->name, base);
	fprintf(f, "# %.0f x %.0f pt (%.2f x %.2f in), font %g pt\n", l.w, l.h, l.w / 72, l.h / 72,
	        l.font);
	for (unsigned fmt = SB_REPORT_PNG; fmt <= SB_REPORT_EPS; fmt <<= 1) {
		if (!(formats & fmt))
			continue;
		switch (fmt) {
		case SB_REPORT_PNG:
			/* pngcairo draws a font point as 1/96 in at fontscale 1 */
			fprintf(
			    f,
			    "set terminal pngcairo size %.0f,%.0f noenhanced font ',%g' fontscale "
			    "%.4g linewidth %.4g pointscale %.4g background '#ffffff'\n"
			    "set output '%s.png'\n",
			    l.w * l.dpi / 72, l.h * l.dpi / 72, l.font, l.dpi / 96, l.dpi / 72,
			    l.dpi / 96, base);
			break;
		case SB_REPORT_SVG:
			fprintf(f,
			        "set terminal svg size %.0f,%.0f noenhanced font ',%g' background "
			        "'#ffffff'\nset output '%s.svg'\n",
			        l.w, l.h, l.font, base);
			break;
		case SB_REPORT_PDF:
		case SB_REPORT_EPS:
			/* cairo's PostScript terminals: fontscale and linewidth default to 0.5 */
			fprintf(
			    f,
			    "set terminal %s size %.3fin,%.3fin noenhanced font ',%g' fontscale 1 "
			    "linewidth 2 background '#ffffff'\nset output '%s.%s'\n",
			    fmt == SB_REPORT_PDF ? "pdfcairo" : "epscairo", l.w / 72, l.h / 72,
			    l.font, base, fmt == SB_REPORT_PDF ? "pdf" : "eps");
			break;
		}
		body(f, base, fig, &l, &y, &x, note);
		fprintf(f, "set output\nreset\n");
	}
	return finish(&out);
}
