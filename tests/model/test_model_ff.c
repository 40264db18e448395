/* SPDX-License-Identifier: MIT */
/*
 * Steady-state fast-forward: it agrees with full simulation within 0.5 % on every standard
 * experiment, measures only after a warm-up and over a span of 5 ms, is reported, keeps
 * iteration limits, copes with noisy traffic and frequent samples, and leaves minimum and
 * maximum latency to the requests it simulated (reported as such).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "model_bench.h"
#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/pattern.h"

struct experiment {
	enum sb_req_type type;
	unsigned size;
	char
	    pattern[12]; /* or a mask "LO-HI" when it has a '-' (an array: parameters are copied) */
	bool linear;
};

/* The standard experiments: access patterns x types at 128 B, sizes, linear, the mask sweep. */
static const struct experiment experiments[] = {
    {SB_REQ_RO, 128, "1bank", false},  {SB_REQ_WO, 128, "1bank", false},
    {SB_REQ_RW, 128, "1bank", false},  {SB_REQ_RO, 128, "4bank", false},
    {SB_REQ_RW, 128, "8bank", false},  {SB_REQ_RO, 128, "1vault", false},
    {SB_REQ_RW, 128, "1vault", false}, {SB_REQ_RO, 128, "2vault", false},
    {SB_REQ_RW, 128, "2vault", false}, {SB_REQ_WO, 128, "4vault", false},
    {SB_REQ_RW, 128, "4vault", false}, {SB_REQ_RO, 128, "all", false},
    {SB_REQ_WO, 128, "all", false},    {SB_REQ_RW, 128, "all", false},
    {SB_REQ_RO, 16, "all", false},     {SB_REQ_RO, 64, "all", true},
    {SB_REQ_RW, 32, "all", false},     {SB_REQ_RW, 128, "7-14", false},
    {SB_REQ_WO, 128, "10-17", false},  {SB_REQ_RW, 128, "12-19", false},
};

static struct sb_point_result point(struct sb_device *dev, const struct experiment *e, uint64_t us,
                                    bool ff)
{
	struct sb_point_spec s;
	struct sb_point_result r;
	struct sb_geometry g = {16, 16, 128};

	sb_point_spec_init(&s, 9);
	s.type = e->type;
	s.size = e->size;
	s.gen = e->linear ? SB_GEN_LINEAR : SB_GEN_RANDOM;
	s.duration_ns = us * 1000;
	s.fast_forward = ff;
	if (strchr(e->pattern, '-'))
		cr_assert_eq(sb_mask_range(e->pattern, &s.mask), 0);
	else
		cr_assert_eq(sb_pattern_masks(e->pattern, &g, &s.mask, &s.antimask), 0);
	cr_assert_eq(sb_point_run(dev, &s, &r), 0, "%s", sb_error_detail());
	return r;
}

ParameterizedTestParameters(fast_forward, agrees_with_full_simulation_within_half_a_percent)
{
	return cr_make_param_array(struct experiment, (void *)experiments,
	                           sizeof(experiments) / sizeof(experiments[0]));
}

ParameterizedTest(const struct experiment *e, fast_forward,
                  agrees_with_full_simulation_within_half_a_percent)
{
	struct bench b;
	struct sb_point_result full, ff;
	const uint64_t us = 9000; /* warm-up 1 ms + two 2.5 ms windows, then a jump */

	/* Each from a fresh board: saturated rw settles into one of several interleavings of
	 * its ports' reads and writes, which one depending on where it starts (docs/model.md). */
	bench_open(&b, NULL, NULL, 0);
	full = point(b.dev, e, us, false);
	bench_close(&b);
	bench_open(&b, NULL, NULL, 0);
	ff = point(b.dev, e, us, true);
	cr_assert(!full.fast_forward);
	cr_assert(ff.fast_forward, "%s %u B %d: not fast-forwarded", e->pattern, e->size, e->type);
	cr_assert_gt(ff.ff_skipped_ns, 1000000ull);
	cr_assert_float_eq(ff.metrics.bandwidth_gbps, full.metrics.bandwidth_gbps,
	                   0.005 * full.metrics.bandwidth_gbps,
	                   "%s %u B type %d: %.4f vs %.4f GB/s", e->pattern, e->size, e->type,
	                   ff.metrics.bandwidth_gbps, full.metrics.bandwidth_gbps);
	if (full.total.lat_count)
		cr_assert_float_eq(ff.metrics.lat_avg_ns, full.metrics.lat_avg_ns,
		                   0.005 * full.metrics.lat_avg_ns,
		                   "%s %u B type %d: %.2f vs %.2f ns", e->pattern, e->size, e->type,
		                   ff.metrics.lat_avg_ns, full.metrics.lat_avg_ns);
	bench_close(&b);
}

Test(fast_forward, measures_after_a_warm_up_over_a_span_of_5_ms)
{
	struct bench b;
	const struct experiment e = {SB_REQ_RO, 128, "all", false};
	struct sb_point_result r;

	bench_open(&b, NULL, NULL, 0);
	/* 1 ms warm-up + 2 x 2.5 ms windows: nothing can be skipped in a 5.9 ms point. */
	r = point(b.dev, &e, 5900, true);
	cr_assert(!r.fast_forward);
	cr_assert_eq(r.ff_skipped_ns, 0);
	/* A 20 ms point jumps once the span agrees, after 6 ms at the earliest. */
	r = point(b.dev, &e, 20000, true);
	cr_assert(r.fast_forward);
	cr_assert_leq(r.ff_skipped_ns, 14000000ull);
	cr_assert_gt(r.ff_skipped_ns, 10000000ull);
	bench_close(&b);
}

Test(fast_forward, respects_iteration_limits)
{
	struct bench b;
	struct sb_point_spec s;
	struct sb_point_result r;

	bench_open(&b, NULL, NULL, 0);
	sb_point_spec_init(&s, 9);
	s.iterations = 3000000;
	s.duration_ns = 0;
	cr_assert_eq(sb_point_run(b.dev, &s, &r), 0);
	cr_assert_eq(r.total.reads, 9 * 3000000ull);
	bench_close(&b);
}

static int count_samples(void *ctx, uint64_t t_ns, const struct sb_port_counters *total)
{
	(void)t_ns;
	(void)total;
	(*(unsigned *)ctx)++;
	return 0;
}

Test(fast_forward, copes_with_noisy_traffic_and_frequent_samples)
{
	struct bench b;
	const struct experiment e = {SB_REQ_RO, 128, "all", false};
	struct sb_point_spec s;
	struct sb_point_result ref, ff;
	unsigned samples = 0;

	bench_open(&b, NULL, NULL, 0);
	ref = point(b.dev, &e, 4000, false);
	/* A 20 s point sampled every millisecond still skips nearly all of it. */
	sb_point_spec_init(&s, 9);
	s.duration_ns = 20000000000ull;
	s.sample_ns = 1000000;
	s.sample = count_samples;
	s.sample_ctx = &samples;
	cr_assert_eq(sb_point_run(b.dev, &s, &ff), 0);
	cr_assert_eq(samples, 20000);
	cr_assert_gt(ff.ff_skipped_ns, 19900000000ull, "skipped %llu ns",
	             (unsigned long long)ff.ff_skipped_ns);
	cr_assert_float_eq(ff.metrics.bandwidth_gbps, ref.metrics.bandwidth_gbps,
	                   0.005 * ref.metrics.bandwidth_gbps, "%.4f vs %.4f",
	                   ff.metrics.bandwidth_gbps, ref.metrics.bandwidth_gbps);
	bench_close(&b);
}

Test(fast_forward, leaves_min_and_max_latency_to_the_simulated_requests)
{
	struct bench b;
	const struct experiment e = {SB_REQ_RW, 128, "1bank", false};
	struct sb_point_result full, ff;

	/* The maximum grows with the number of requests seen (a longer tail): over 40 ms of full
	 * simulation it is at least that of the ~6-12 ms a fast-forwarded point simulates, which
	 * is what the point reports (not an extrapolation). */
	bench_open(&b, NULL, NULL, 0);
	full = point(b.dev, &e, 40000, false);
	bench_close(&b);
	bench_open(&b, NULL, NULL, 0);
	ff = point(b.dev, &e, 40000, true);
	cr_assert(ff.fast_forward);
	cr_assert_geq(full.total.lat_max_cycles, ff.total.lat_max_cycles);
	cr_assert_leq(full.total.lat_min_cycles, ff.total.lat_min_cycles);
	cr_assert_gt(ff.total.lat_max_cycles, ff.total.lat_min_cycles);
	bench_close(&b);
}
