/* SPDX-License-Identifier: MIT */
/*
 * Sampled traces in the analyses: the sampling density of a trace and the confidence rules that
 * flag results computed from too little data (docs/locality.md, "Sampling and confidence";
 * docs/lifetimes.md, "Sampled traces"). Both the lifetime core and the memory-centric analyses
 * report the density with every result and a confidence flag computed by these rules.
 */
#ifndef STACKBENCH_SAMPLING_H
#define STACKBENCH_SAMPLING_H

#include <stdbool.h>
#include <stdint.h>

#include "stackbench/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Thresholds a result must meet to be presented as a fact; results below them are flagged
 * (`confident: false`), never dropped. Defaults from the published thresholds for sampled
 * memory traces of a CPU hierarchy: cache-level results need a sampling density above 0.008
 * (errors under 10 %), memory-level ones above 0.001 (errors under 30 %), and a cache of C
 * lines a warm-up of 2 C accesses.
 */
struct sb_confidence_rules {
	double min_density;       /* memory-level results (default 0.001) */
	double min_density_cache; /* cache-level results: reuse distances, miss ratios and the
	                              lifetimes of cache subpartitions (default 0.008) */
	uint64_t min_events;      /* the fewest events a statistic is computed from (default 100) */
	double warmup_factor;     /* a cache of C blocks needs this × C accesses per window
	                              (default 2) */
	double max_lost_share;    /* records lost / captured beyond which nothing is confident
	                              (default 0.01) */
	double max_censored_share; /* lifetimes: values cut by a gap / all values beyond which the
	                              lifetimes are not confident (default 0.5) */
};

void sb_confidence_rules_default(struct sb_confidence_rules *r);

/* How complete a trace is. */
struct sb_sampling {
	bool sampled;      /* the trace is a sample (its capture says so) */
	double density;    /* r = records / accesses executed: 1 for a complete trace, NaN when a
	                          sampled trace does not say how many accesses were executed */
	uint64_t records;  /* records in the trace */
	uint64_t windows;  /* sample windows: runs of records of one sample id */
	double lost_share; /* records lost / captured (0 when nothing was lost) */
	struct sb_trace_capture capture;
};

/* The sampling of a trace of `records` records read in `windows` windows. */
void sb_sampling_init(struct sb_sampling *s, const struct sb_trace_info *info, uint64_t records,
                      uint64_t windows);

/*
 * The density of subpartition sp (sp_records records in the trace): sp_records / N when the
 * trace has the attribute `executed.NAME` = N (the capture's per-vault counters), otherwise the
 * trace's density (a time-based sample is the same fraction of every subpartition).
 */
double sb_sampling_subpart_density(const struct sb_sampling *s, const struct sb_trace_info *info,
                                   uint32_t sp, uint64_t sp_records);

/*
 * Whether a result is confident: density at or above the threshold of its level (cache or
 * memory), at least min_events events, and the lost share within bounds.
 */
bool sb_confident(const struct sb_confidence_rules *r, const struct sb_sampling *s, double density,
                  bool cache_level, uint64_t events);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_SAMPLING_H */
