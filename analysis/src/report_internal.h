/* SPDX-License-Identifier: MIT */
/* Helpers shared by the reports of the analyses (report.c, locality_report.c). Not installed. */
#ifndef SB_REPORT_INTERNAL_H
#define SB_REPORT_INTERNAL_H

#include <stdint.h>
#include <stdio.h>

#include <cjson/cJSON.h>

#include "stackbench/output.h"
#include "stackbench/sampling.h"

/* A number (null when not finite) / a count. */
void sb_json_num(cJSON *o, const char *key, double v);
void sb_json_u64(cJSON *o, const char *key, uint64_t v);

/* "sampling" and "confidence_rules" of a report: the density and the thresholds applied. */
void sb_json_sampling(cJSON *root, const struct sb_sampling *s,
                      const struct sb_confidence_rules *r);

/* Check for a write error, then commit (or abort) an output. */
int sb_report_commit(struct sb_output *o);

/* The PNG and SVG of one figure in a gnuplot script: terminal, output, body, twice. */
void sb_plot_both(FILE *gp, const char *base, const char *body);
/* Claim BASE.png and BASE.svg in a staged output folder. */
int sb_plot_claim(struct sb_outdir *od, const char *base);

#endif /* SB_REPORT_INTERNAL_H */
