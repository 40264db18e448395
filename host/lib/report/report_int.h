/* SPDX-License-Identifier: MIT */
/*
 * The parts of the report (not installed): the figure table (figures.c), the rows of a figure
 * from the store, grouped and aggregated (data.c), the statistics (stats.c), the data files
 * and gnuplot scripts (plot.c) and the HTML report (html.c). docs/figures.md describes every
 * figure.
 */
#ifndef SB_REPORT_INT_H
#define SB_REPORT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stackbench/output.h"
#include "stackbench/report.h"
#include "stackbench/store.h"

/* --- statistics (stats.c, through GSL) ------------------------------------------------------ */

/* The runs of one point: mean, sample standard deviation, half-width of the 95 % confidence
 * interval of the mean (Student's t with n - 1 degrees of freedom); sd and half are NAN when
 * n < 2. */
struct sb_rpt_summary {
	unsigned n;
	double mean, sd, half;
};

/* The 97.5 % quantile of Student's t with dof degrees of freedom (NAN for 0). */
double sb_rpt_t975(unsigned dof);
void sb_rpt_summarize(const double *v, unsigned n, struct sb_rpt_summary *s);

/* A least-squares line y = intercept + slope x: ok with two distinct x; the standard error of
 * the slope needs three points (NAN otherwise), R² a y that varies (NAN otherwise). */
struct sb_rpt_fit {
	unsigned n;
	bool ok;
	double intercept, slope, slope_se, r2;
};

/* Returns 1 (fitted) or 0 (fewer than two distinct x: f->ok false). */
int sb_rpt_fit_linear(const double *x, const double *y, unsigned n, struct sb_rpt_fit *f);

/* --- the figure table (figures.c) ----------------------------------------------------------- */

enum sb_rpt_style {
	SB_RPT_LINES = 0, /* lines through the means, confidence intervals as error bars */
	SB_RPT_FIT,       /* the means, and a least-squares line per series over every run */
	SB_RPT_TRACE,     /* time series, no aggregation; marked points (marks_sql) */
};

enum sb_rpt_xaxis {
	SB_RPT_X_DATA = 0, /* the data's range */
	SB_RPT_X_CAT,      /* categories (x label column), in the query's order */
	SB_RPT_X_ZERO,     /* from 0 (a quantity with a true zero: bandwidth, time) */
	SB_RPT_X_VALUES,   /* ticks at the data's values (request sizes, group sizes) */
};

struct sb_rpt_fig;

/*
 * A figure. Its query (on the view pts: the points of the selected campaigns with the
 * campaign's name as cname) returns one row per run: panel, series, k (the point within the
 * series: runs with the same panel, series, group and k are repetitions of one point), x,
 * x label, y, y min, y max (a range within the run, or NULL), point label, then the run's
 * campaign id, campaign name, device, duration_ns, ff_skipped_ns and its key without the
 * repetition. One panel per distinct panel, one line per series.
 */
struct sb_rpt_figure_def {
	const char *name, *title, *xlabel, *ylabel;
	const char *what; /* what it shows and from which points (HTML report) */
	const char *sql;
	const char *need; /* why it is skipped when there are not enough x values */
	unsigned min_x;   /* skipped unless a series has this many x values */
	enum sb_rpt_style style;
	enum sb_rpt_xaxis xaxis;
	bool ydata;            /* y axis zoomed on the data (default: from 0) */
	bool xerr;             /* x is measured too: x confidence intervals */
	bool labels;           /* the point label is drawn beside each point */
	bool range;            /* y min and y max drawn as thin dotted lines */
	bool bound;            /* the tag-pool bound (point label = ports) as a line */
	const char *unit;      /* SB_RPT_FIT: unit of the slope */
	double span;           /* SB_RPT_FIT: also the rise over this many GB/s (0: no) */
	const char *span_unit; /* ... in this unit */
	const char *marks_sql; /* SB_RPT_TRACE: rows of the marks, as sql's */
	const char *note;      /* a line the key always says about the data (NULL: none) */
	int (*derive)(struct sb_store *st, const char *view, const struct sb_report_options *o,
	              struct sb_rpt_fig *fig);
	int min_schema;    /* the database's schema version it needs (0: any) */
	bool compare_only; /* drawn only in comparisons (sb_report_compare), not listed else */
	bool unity;        /* a line at y = 1 across every panel (ratios) */
};

extern const struct sb_rpt_figure_def sb_rpt_figures[];
extern const size_t sb_rpt_nfigures;

/* --- the rows of a figure (data.c) ---------------------------------------------------------- */

enum sb_rpt_kind { SB_RPT_DATA = 0, SB_RPT_FITLINE, SB_RPT_MARK, SB_RPT_BOUND };

#define SB_RPT_PANEL_MAX 48
#define SB_RPT_SERIES_MAX 200
#define SB_RPT_KEY_MAX 200

/* A run (as queried) or a point (the mean of its runs). */
struct sb_rpt_row {
	char panel[SB_RPT_PANEL_MAX], series[SB_RPT_SERIES_MAX], k[96], xtic[40], label[48];
	char nkey[SB_RPT_KEY_MAX]; /* the point's key without the repetition */
	double x, y, ylo, yhi, xlo, xhi, ymin, ymax;
	unsigned n, nff; /* runs; runs the simulated bench fast-forwarded */
	unsigned grp;    /* index into the figure's groups */
	unsigned style;  /* index into the figure's styles */
	enum sb_rpt_kind kind;
};

struct sb_rpt_rows {
	struct sb_rpt_row *r;
	unsigned n, cap;
};

/* Runs are never averaged across groups: a campaign, a device, a point duration. */
struct sb_rpt_group {
	int64_t campaign_id;
	char cname[SB_CAMPAIGN_NAME_MAX], device[128];
	int64_t duration_ns;
	bool sim; /* a sim: device: the simulated bench */
};

/* How a series is drawn. */
struct sb_rpt_style_def {
	char series[SB_RPT_SERIES_MAX]; /* the name in the key */
	unsigned colour;                /* index into the palette */
	unsigned dash;                  /* gnuplot dash type */
	unsigned shape;                 /* index into the point shapes */
	bool open;                      /* some of its points were fast-forwarded */
	bool mixed;                     /* ... and some were not */
	bool any_n2;                    /* some of its points have two runs or more */
	bool baseline; /* a reference drawn at the data's extremes (no-mask runs): no points */
	enum sb_rpt_kind kind;
};

/* A fitted line, as the key and the HTML report show it. */
struct sb_rpt_fitted {
	char panel[SB_RPT_PANEL_MAX], series[SB_RPT_SERIES_MAX];
	struct sb_rpt_fit f;
	double x0, x1; /* the runs' x range */
	unsigned grp;
};

/*
 * A set of figures: the campaigns drawn together, and in a comparison the names their series
 * carry and the comparisons (the ratio figure's data).
 */
struct sb_rpt_set {
	const int64_t *ids;
	size_t n;
	const char *const *labels; /* the series name of ids[i] (NULL: "cID NAME") */
	const struct sb_report_comparison *cmps;
	size_t ncmps;
};

/* A figure's data, ready to draw. */
struct sb_rpt_fig {
	const struct sb_rpt_figure_def *d;
	const struct sb_rpt_set *set; /* its set (labels, comparisons) */
	char title[256];
	struct sb_rpt_rows rs; /* rows in data file order: one block per panel, style and kind */
	struct sb_rpt_group *groups;
	unsigned ngroups, groups_cap;
	struct sb_rpt_style_def *styles;
	unsigned nstyles, styles_cap;
	struct sb_rpt_fitted *fits;
	unsigned nfits, fits_cap;
	unsigned n_min, n_max; /* runs per point */
	unsigned npoints, nff; /* points; points with a fast-forwarded run */
	unsigned nsim;         /* groups on the simulated bench */
	unsigned ncat;         /* SB_RPT_X_CAT: categories */
	char why[160];         /* skipped: why */
};

/*
 * The rows of figure d over the view (a WITH clause naming pts), grouped, aggregated, with
 * fits, marks and bounds, styles assigned. Returns 1 (made), 0 (skipped: fig->why) or an
 * SB_ERR_*.
 */
int sb_rpt_figure_data(struct sb_store *st, const char *view, const struct sb_report_options *o,
                       const struct sb_rpt_figure_def *d, const struct sb_rpt_set *set,
                       struct sb_rpt_fig *fig);
void sb_rpt_fig_release(struct sb_rpt_fig *fig);

/* Room for one more element of size bytes in *a (n used, *cap allocated): 0 or SB_ERR_NOMEM. */
int sb_rpt_reserve(void **a, unsigned n, unsigned *cap, size_t size);
/* qsort order of doubles. */
int sb_rpt_cmp_double(const void *a, const void *b);
/* A new zeroed row at the end: NULL when out of memory (the detail is set). */
struct sb_rpt_row *sb_rpt_add_row(struct sb_rpt_rows *rs);
/* The group of a run (added when new): its index, or SB_ERR_NOMEM. */
int sb_rpt_group_of(struct sb_rpt_fig *fig, int64_t campaign_id, const char *cname,
                    const char *device, int64_t duration_ns);
/* The value of token name=... of a point's key ("type=ro size=128 ..."; "" when absent). */
void sb_rpt_key_value(const char *key, const char *name, char *out, size_t size);
/* Text of a cell ("" for NULL). */
const char *sb_rpt_text(const struct sb_cell *c);

/* A fit as text: "+0.201 ± 0.012 °C per GB/s, R² = 0.987" (without the unit: "+0.201 ±
 * 0.012, R² = 0.987"). */
void sb_rpt_fit_text(const struct sb_rpt_figure_def *d, const struct sb_rpt_fit *f, bool unit,
                     char *out, size_t size);

/* --- data files and gnuplot scripts (plot.c) ------------------------------------------------ */

/* What the key says about the data: simulated bench, fast-forwarded points, runs per point;
 * lines separated by '\n'. */
void sb_rpt_note(const struct sb_rpt_fig *fig, char *out, size_t size);
int sb_rpt_write_data(const char *path, const struct sb_rpt_fig *fig);
/* The script drawing base.png, base.svg... (the formats of o, and svg too when extra_svg). */
int sb_rpt_write_script(const char *path, const char *base, const struct sb_rpt_fig *fig,
                        const struct sb_report_options *o, unsigned formats);

/* --- the HTML report (html.c) --------------------------------------------------------------- */

/* One figure as the HTML report shows it. */
struct sb_rpt_html_fig {
	const struct sb_rpt_figure_def *d;
	char title[256];
	char base[256];      /* file name without extension; "" when skipped */
	char svg_path[4096]; /* the SVG in the staging folder */
	char why[160];       /* skipped: why */
	char note[512];      /* the key's note */
	struct sb_rpt_fitted *fits;
	unsigned nfits;
	int64_t campaign_id; /* 0: several (compare) */
};

/* What the HTML report shows. */
struct sb_rpt_html {
	struct sb_store *st;
	const char *path;    /* the page */
	const char *db_text; /* the database(s) it names */
	const int64_t *ids;  /* the campaigns */
	size_t nids;
	const char *const *labels; /* their names in a comparison (NULL: none) */
	const struct sb_rpt_html_fig *figs;
	size_t nfigs;
	const struct sb_report_comparison *cmps; /* the comparisons' tables */
	size_t ncmps;
};

/* Write the HTML report: the campaigns (settings, provenance), the comparisons, the figures
 * (their SVG embedded as data URIs), the points. Returns 0 or SB_ERR_*. */
int sb_rpt_write_html(const struct sb_rpt_html *h);

/* --- making a report (report.c; comparisons: compare.c) ------------------------------------- */

/* A report being made: its options, the staging folder, the figures made so far. */
struct sb_rpt_run {
	struct sb_store *st; /* where the figures' queries run */
	const struct sb_report_options *o;
	const char *prog;
	struct sb_outdir od;
	unsigned formats;
	char out_dir[4096]; /* o->out_dir without a trailing '/' */
	int64_t set_id;     /* the campaign of the set; 0: several */
	const char *prefix;
	const char *view;
	const struct sb_rpt_set *set;
	bool compare; /* draw the figures only comparisons have */
	struct sb_rpt_html_fig *html;
	size_t nhtml, html_cap;
	int made;
};

/* Check the options, find gnuplot, open the output folder (staged). r->st is set by the
 * caller. Returns 0 or an SB_ERR_* (nothing to undo then). */
int sb_rpt_run_begin(struct sb_rpt_run *r, const struct sb_report_options *o);
/* One set of figures of the campaigns set->ids (several: overlaid), named prefix + name. */
int sb_rpt_run_set(struct sb_rpt_run *r, const struct sb_rpt_set *set, const char *prefix);
/* Free what the run holds (not the output folder: commit or abort it first). */
void sb_rpt_run_release(struct sb_rpt_run *r);
/* The campaigns asked for (each must exist; repeats dropped), or every one; free(*ids). */
int sb_rpt_select_campaigns(struct sb_store *st, const struct sb_report_options *o, int64_t **ids,
                            size_t *n);

/* Write s HTML-escaped (& < > " ' as entities, control characters as spaces). */
void sb_rpt_html_text(FILE *f, const char *s);

#endif /* SB_REPORT_INT_H */
