/* SPDX-License-Identifier: MIT */
/*
 * Figures from the results store, drawn by gnuplot (docs/figures.md describes each: what it
 * shows, from which points, how they are aggregated, what the error bars are): bandwidth
 * against mask position; bandwidth, request rate, latency and Little's-law occupancy per
 * access pattern; bandwidth and request rate per request size; latency against measured
 * bandwidth; low-load latency against the stream group size; and from thermal campaigns the
 * steady-state temperature and the power against bandwidth (with fits), the cooling power
 * needed to hold a temperature, and the temperature of runs that failed.
 *
 * Runs are grouped by campaign, device and point duration and never averaged across groups;
 * the repetitions of a point are averaged, with a 95 % confidence interval (Student's t).
 * Simulated and fast-forwarded data are marked in every figure. Each figure is made when the
 * store holds the points it needs; its data (.dat) and gnuplot script (.gp) stay beside the
 * images. Everything appears in the output folder at once, or nothing does.
 */
#ifndef STACKBENCH_REPORT_H
#define STACKBENCH_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stackbench/campaign.h"
#include "stackbench/store.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Image formats (a bit set). */
enum sb_report_format {
	SB_REPORT_PNG = 1u << 0,
	SB_REPORT_SVG = 1u << 1,
	SB_REPORT_PDF = 1u << 2, /* gnuplot's pdfcairo */
	SB_REPORT_EPS = 1u << 3, /* gnuplot's epscairo */
};

/* "png,svg,pdf,eps" (any of them, comma-separated) → a bit set. Returns 0 or SB_ERR_INVAL
 * (the detail quotes the unknown name). */
int sb_report_formats_parse(const char *list, unsigned *formats);

/* Figure width for a two-column paper: one column and the full page width (IEEE: 3.5 in and
 * 7.16 in). */
#define SB_REPORT_SINGLE_IN 3.5
#define SB_REPORT_DOUBLE_IN 7.16

/* "single", "double" or "WxH" in inches (e.g. "3.5x2.4"; H may be 0: from the figure) →
 * width and height in inches. Returns 0 or SB_ERR_INVAL. */
int sb_report_size_parse(const char *text, double *width_in, double *height_in);

/* A figure, made or skipped. */
struct sb_report_figure {
	const char *name;        /* "mask_bandwidth", ... */
	const char *base;        /* its file name without extension: name, or cID_name */
	const char *path;        /* made: the output path without extension; NULL when skipped */
	unsigned formats;        /* made: the files path + ".png", ".svg"... that exist */
	int64_t campaign_id;     /* the campaign shown; 0: several (compare) */
	const char *skipped_why; /* skipped: why; NULL when made */
	unsigned n_min, n_max;   /* runs per plotted point */
};

struct sb_report_options {
	const char *out_dir;      /* created if missing */
	const int64_t *campaigns; /* the campaigns to show; none: every campaign in the store */
	size_t ncampaigns;
	/*
	 * false: one set of figures per campaign (named NAME.* with one campaign, cID_NAME.* with
	 * several); true: one set with the campaigns overlaid, their series named by campaign.
	 */
	bool compare;
	unsigned formats;    /* enum sb_report_format bits; 0: PNG and SVG */
	double width_in;     /* figure width in inches (0: screen size, by panels) */
	double height_in;    /* figure height in inches (0: from the width and the panels) */
	double font_pt;      /* 0: 10 on screen size, 8 with a width */
	bool no_title;       /* no figure title (captions go in the paper) */
	bool html;           /* also out_dir/report.html, one self-contained page */
	const char *gnuplot; /* program to run; NULL: "gnuplot" from PATH */
	double hold_c;       /* thermal_cooling_power: temperature held (<= 0: the one most traffic
	                  measured in several cooling configurations passes through) */
	/* Called for every figure of every set: made or skipped. */
	void (*figure)(void *ctx, const struct sb_report_figure *f);
	void *ctx;
};

/* --- comparisons: the board against the model, and across databases ----------------------- */

struct sb_run_progress;

/* The metrics a comparison puts side by side: its key in comparison.json, a name, the unit, and
 * its value as SQL over a run (p: its row of points, h: its row of hbm_points, NULL for a GUPS
 * point). The HBM2-only ones (write latency, the read latencies' classes as shares of the
 * classified reads) have no value on a GUPS point and are left out of its comparison. */
#define SB_REPORT_NMETRICS 9
struct sb_report_metric {
	const char *column, *name, *unit, *sql;
};
extern const struct sb_report_metric sb_report_metrics[SB_REPORT_NMETRICS];

/* One side of a comparison: a campaign, where it comes from and what measured it. */
struct sb_report_source {
	char label[80];          /* the name its series carry in the figures */
	char db[512];            /* the results database it was read from ("" for the model) */
	int64_t campaign_id;     /* its id there (the model: its id in comparison.db) */
	int64_t id;              /* its id in comparison.db */
	char name[64], hash[17]; /* the campaign's name and content hash */
	bool model;              /* run on the model by the report itself */
	/* from its provenance (docs/provenance.md; "" when not recorded) */
	char host[64], device[192], profile[160], build[96], created_at[32];
};

/* A metric of a point on both sides: the means of its runs that did not fail. */
struct sb_report_cmp_value {
	double ref, other;     /* NAN: no run */
	unsigned nref, nother; /* runs averaged */
	double ratio;          /* other / ref; NAN when either is missing or ref is 0 */
};

struct sb_report_cmp_point {
	unsigned index;                /* the point's index in the campaign */
	char key[SB_CAMPAIGN_KEY_MAX]; /* its key without the repetition */
	char label[96]; /* the axes that vary between the points, "type=ro mask=4/8" */
	struct sb_report_cmp_value v[SB_REPORT_NMETRICS];
};

struct sb_report_cmp_summary {
	unsigned n;           /* points with a ratio */
	double median;        /* the median ratio (NAN: none) */
	double worst;         /* the ratio farthest from 1 (as |log ratio|) */
	unsigned worst_point; /* its index into points */
};

/* other against ref, point by point. */
struct sb_report_comparison {
	bool model; /* the measured campaign (other) against its run on the model (ref) */
	struct sb_report_source ref, other;
	unsigned npoints;
	struct sb_report_cmp_point *points;
	struct sb_report_cmp_summary summary[SB_REPORT_NMETRICS];
	char prefix[32]; /* of its figures' names ("" or cID_) */
};

/* What to compare. */
struct sb_report_compare {
	/*
	 * Against the model: each campaign of the first database is run again on the simulated
	 * board (its measured points, same seed, same settings; instruments become sim:) with this
	 * device profile (a name or a .yaml path; NULL or "": the campaign's bench.profile, else the
	 * default) and measured against it. Otherwise the campaigns of the first database are
	 * compared with the latest campaign of the same content hash in each other database.
	 */
	bool model;
	const char *profile;
	/* The model's runs, as the campaign engine reports them (NULL: none). */
	void (*progress)(void *ctx, const struct sb_run_progress *p);
	/* Each comparison when it is ready (NULL: none). */
	void (*comparison)(void *ctx, const struct sb_report_comparison *c);
	void *ctx;
};

/*
 * Compare (struct sb_report_compare): the campaigns compared are copied into comparison.db in
 * the output folder (the model's runs are stored there), every figure is drawn with them
 * overlaid (series named by source), with a figure of the ratios per point; comparison.json
 * (schema stackbench-comparison) holds the tables, and the HTML report (o->html) shows them.
 * stores[0] holds the campaigns compared (o->campaigns selects among them, default all),
 * stores[1..] the other databases. *json (when json is not NULL) gets comparison.json's text
 * (free() it). Returns the number of figures made, or as sb_report(), and SB_ERR_MISMATCH (no
 * campaign of the same hash in the other databases, a stored campaign that does not rebuild),
 * or an error of the model's run (no such profile: SB_ERR_NOT_FOUND; a point the model cannot
 * run: SB_ERR_INVAL).
 * Outputs appear together, or not at all.
 */
int sb_report_compare(struct sb_store *const *stores, size_t nstores,
                      const struct sb_report_compare *cmp, const struct sb_report_options *o,
                      char **json);

/* A comparison as a text table (point by point, then median and worst), to f. */
void sb_report_comparison_print(FILE *f, const struct sb_report_comparison *c);

/*
 * Make the figures. Returns the number made (0 when the store holds no suitable points),
 * SB_ERR_NOT_SUPPORTED when gnuplot is missing (the detail says which package to install),
 * SB_ERR_NOT_FOUND (no such campaign), SB_ERR_INVAL (bad options), SB_ERR_IO (cannot write,
 * gnuplot failed: the detail quotes its log), SB_ERR_NOMEM or SB_ERR_DB.
 */
int sb_report(struct sb_store *st, const struct sb_report_options *o);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_REPORT_H */
