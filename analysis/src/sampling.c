/* SPDX-License-Identifier: MIT */
/* Sampling density of a trace and the confidence rules of its results (sampling.h). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/sampling.h"

void sb_confidence_rules_default(struct sb_confidence_rules *r)
{
	r->min_density = 0.001;
	r->min_density_cache = 0.008;
	r->min_events = 100;
	r->warmup_factor = 2;
	r->max_lost_share = 0.01;
	r->max_censored_share = 0.5;
}

void sb_sampling_init(struct sb_sampling *s, const struct sb_trace_info *info, uint64_t records,
                      uint64_t windows)
{
	const struct sb_trace_capture *c = &info->capture;

	memset(s, 0, sizeof(*s));
	s->sampled = c->sampled != 0;
	s->records = records;
	s->windows = windows;
	s->capture = *c;
	if (!s->sampled)
		s->density = 1;
	else
		s->density = c->executed ? (double)records / (double)c->executed : NAN;
	s->lost_share = c->captured ? (double)c->lost_records / (double)c->captured : 0;
}

double sb_sampling_subpart_density(const struct sb_sampling *s, const struct sb_trace_info *info,
                                   uint32_t sp, uint64_t sp_records)
{
	char key[SB_TRACE_ATTR_KEY_MAX + 16];
	const char *v;
	char *end;
	unsigned long long n;

	if (!s->sampled || sp >= info->nsubparts)
		return s->density;
	snprintf(key, sizeof(key), "executed.%s", info->subparts[sp].name);
	if (!(v = sb_trace_info_attr(info, key)))
		return s->density;
	n = strtoull(v, &end, 10);
	if (end == v || *end || n == 0)
		return s->density;
	return (double)sp_records / (double)n;
}

bool sb_confident(const struct sb_confidence_rules *r, const struct sb_sampling *s, double density,
                  bool cache_level, uint64_t events)
{
	const double need = cache_level ? r->min_density_cache : r->min_density;

	if (s->sampled && (isnan(density) || density < need))
		return false;
	if (s->lost_share > r->max_lost_share)
		return false;
	return events >= r->min_events;
}
