/* SPDX-License-Identifier: MIT */
/*
 * Figures from the results store, drawn by gnuplot as PNG and SVG (docs/campaigns.md lists
 * them): bandwidth against mask position per request type; bandwidth and MRPS per access
 * pattern and per request size; latency against offered bandwidth; low-load latency against
 * the number of requests in a stream group; and from thermal campaigns, the steady-state
 * temperature and the power against bandwidth (with linear fits), the cooling power needed to
 * hold a temperature, and the temperature of runs that failed. Each figure is made when the
 * store holds the points it needs; the data (.dat) and the gnuplot script (.gp) stay beside
 * the images.
 */
#ifndef STACKBENCH_REPORT_H
#define STACKBENCH_REPORT_H

#include <stdint.h>

#include "stackbench/store.h"

#ifdef __cplusplus
extern "C" {
#endif

struct sb_report_options {
	const char *out_dir; /* created if missing */
	int64_t campaign_id; /* 0: every campaign in the store */
	const char *gnuplot; /* program to run; NULL: "gnuplot" from PATH */
	double hold_c;       /* thermal_cooling_power: temperature held (<= 0: the one most traffic
	                  measured in several cooling configurations passes through) */
	/* Called for every figure: made (png and svg paths) or skipped (why). */
	void (*figure)(void *ctx, const char *name, const char *png, const char *svg,
	               const char *skipped_why);
	void *ctx;
};

/*
 * Make the figures. Returns the number made (0 when the store holds no suitable points),
 * SB_ERR_NOT_SUPPORTED when gnuplot is missing (the detail says which package to install),
 * SB_ERR_NOT_FOUND (no such campaign), SB_ERR_IO (cannot write, gnuplot failed: the detail
 * quotes its log) or SB_ERR_DB.
 */
int sb_report(struct sb_store *st, const struct sb_report_options *o);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_REPORT_H */
