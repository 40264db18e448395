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
