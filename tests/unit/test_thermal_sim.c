/* SPDX-License-Identifier: MIT */
/*
 * The simulated bench coupled to the board, end to end through the device API and the sim:
 * instruments: idle temperatures, temperature and power against bandwidth, thermal failure by
 * request type during 200 s points, recovery only after cooling, a forced failure with its
 * partial counters.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sb_regmap.h"
#include "stackbench/bench_model.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/gups.h"
#include "stackbench/instrument.h"
#include "stackbench/point.h"

struct bench {
	struct sb_device *dev;
	struct sb_point_instruments in;
};

static void bench_open(struct bench *b, const char *cooling)
{
	char uri[64];

	snprintf(uri, sizeof(uri), "sim:?cooling=%s", cooling);
	cr_assert_eq(sb_device_open(&b->dev, uri), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_temp_source_open(&b->in.temp, "sim:", b->dev), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_power_source_open(&b->in.power, "sim:", b->dev), 0);
	cr_assert_eq(sb_cooling_open(&b->in.cooling, "sim:", b->dev), 0);
}

static void bench_close(struct bench *b)
{
	sb_temp_source_close(b->in.temp);
	sb_power_source_close(b->in.power);
	sb_cooling_close(b->in.cooling);
	sb_device_close(b->dev);
}

/* A thermal point: type, ports, seconds. */
static void thermal_point(struct bench *b, enum sb_req_type type, unsigned ports, double s,
                          struct sb_point_result *r)
{
	struct sb_point_spec spec;

	sb_point_spec_init(&spec, ports);
	spec.type = type;
	spec.duration_ns = (uint64_t)(s * 1e9);
	spec.inst = b->in;
	cr_assert_eq(sb_point_run(b->dev, &spec, r), 0, "%s", sb_error_detail());
}

Test(thermal_sim, idle_temperature_of_each_configuration)
{
	static const char *const cfg[] = {"Cfg1", "Cfg2", "Cfg3", "Cfg4"};
	static const double idle[] = {43.1, 51.7, 62.3, 71.6};

	for (int i = 0; i < 4; i++) {
		struct sb_temp_reading r;
		struct bench b;
		double sum = 0;

		bench_open(&b, cfg[i]);
		for (int k = 0; k < 10; k++) {
			cr_assert_eq(sb_device_wait_ns(b.dev, 1000000000ull), 0);
			cr_assert_eq(sb_temp_source_sample(b.in.temp, &r), 0);
			sum += r.hotspot_c;
		}
		cr_assert_float_eq(sum / 10, idle[i], 0.1, "%s: %.2f C", cfg[i], sum / 10);
		bench_close(&b);
	}
}

/* Temperature and power against bandwidth over ~5..20 GB/s in Cfg2 (docs/hmc.md §7). */
Test(thermal_sim, temperature_and_power_slopes_in_cfg2)
{
	struct sb_point_result lo, hi, rwlo, rwhi;
	struct bench b;
	double dbw, slope_t, slope_p;

	bench_open(&b, "Cfg2");
	thermal_point(&b, SB_REQ_RO, 1, 200, &lo);
	thermal_point(&b, SB_REQ_RO, 6, 200, &hi);
	thermal_point(&b, SB_REQ_RW, 4, 200, &rwlo);
	thermal_point(&b, SB_REQ_RW, 9, 200, &rwhi);
	bench_close(&b);
	cr_assert(lo.has_temperature && lo.has_power && lo.has_cooling);
	cr_assert_str_eq(lo.cooling.name, "Cfg2");
	cr_assert(lo.temperature_steady && hi.temperature_steady, "200 s reach steady state");
	cr_assert_not(lo.failed || hi.failed || rwlo.failed || rwhi.failed);
	dbw = hi.metrics.bandwidth_gbps - lo.metrics.bandwidth_gbps;
	cr_assert_gt(dbw, 12, "%.2f .. %.2f GB/s", lo.metrics.bandwidth_gbps,
	             hi.metrics.bandwidth_gbps);
	slope_t = (hi.temperature_c - lo.temperature_c) / dbw * 15;
	slope_p = (hi.power_w - lo.power_w) / dbw * 15;
	cr_assert_float_eq(slope_t, 3.0, 0.3, "ro: %.2f C per 15 GB/s", slope_t);
	cr_assert_float_eq(slope_p, 2.0, 0.25, "ro: %.2f W per 15 GB/s", slope_p);
	dbw = rwhi.metrics.bandwidth_gbps - rwlo.metrics.bandwidth_gbps;
	slope_t = (rwhi.temperature_c - rwlo.temperature_c) / dbw * 15;
	cr_assert_float_eq(slope_t, 4.0, 0.3, "rw: %.2f C per 15 GB/s", slope_t);
	cr_assert_float_eq(lo.temperature_start_c, 51.7, 0.2, "starts from Cfg2 idle");
	cr_assert_gt(hi.temperature_max_c, hi.temperature_start_c + 2);
	cr_assert_gt(hi.inst_samples, 150, "sampled on the bench clock: %u", hi.inst_samples);
}

Test(thermal_sim, write_traffic_fails_near_75_and_keeps_its_counters)
{
	struct sb_point_result r;
	struct sb_point_spec spec;
	struct bench b;

	bench_open(&b, "Cfg1");
	sb_point_spec_init(&spec, 9);
	spec.type = SB_REQ_WO;
	spec.duration_ns = 200000000000ull;
	spec.inst = b.in;
	spec.cooling = "Cfg4"; /* the point applies it */
	cr_assert_eq(sb_point_run(b.dev, &spec, &r), 0, "%s", sb_error_detail());
	cr_assert_str_eq(r.cooling.name, "Cfg4");
	cr_assert(r.failed, "wo in Cfg4 fails");
	cr_assert_float_eq(r.failure.temperature_c, 75.0, 1.5, "camera %.1f C at the failure",
	                   r.failure.temperature_c);
	cr_assert_gt(r.failure.t_ns, 5000000000ull);
	cr_assert_lt(r.failure.t_ns, 200000000000ull);
	cr_assert_leq(r.failure.t_ns - r.failure.after_ns, 1000000000ull, "seen within a second");
	cr_assert_gt(r.failure.total.writes, 1000000000ull, "what was measured is kept");
	cr_assert_eq(r.failure.total.writes, r.total.writes, "nothing served after the failure");
	cr_assert_eq(r.failure.thermal_events, 1);
	cr_assert_eq(r.duration_ns, r.failure.t_ns, "the point stopped at the failure");
	cr_assert(r.hmc.thermal_fail);
	cr_assert_gt(r.failure.power_w, 115);
	/* Recovery: refused while hot, accepted after cooling on the bench clock. */
	cr_assert_eq(sb_hmc_recover(b.dev, 100000000), SB_ERR_THERMAL, "%s", sb_error_detail());
	cr_assert_eq(sb_point_run(b.dev, &spec, &r), SB_ERR_THERMAL);
	cr_assert_eq(sb_device_wait_ns(b.dev, 60000000000ull), 0);
	cr_assert_eq(sb_hmc_recover(b.dev, 100000000), 0, "%s", sb_error_detail());
	spec.type = SB_REQ_RO;
	spec.duration_ns = 1000000;
	cr_assert_eq(sb_point_run(b.dev, &spec, &r), 0, "%s", sb_error_detail());
	cr_assert_not(r.failed);
	cr_assert_gt(r.total.reads, 100000);
	bench_close(&b);
}

/* The board's refresh rate seen by the bench in the last step. */
static double refresh_rate(struct bench *b, double *junction_c)
{
	struct sb_bench_model *bm;
	struct sb_bench_state st;

	cr_assert_eq(sb_device_bench(b->dev, &bm), 0);
	sb_bench_model_state(bm, &st);
	*junction_c = st.junction_c;
	return st.refresh_per_s;
}

Test(thermal_sim, read_traffic_survives_past_80_and_refreshes_twice_as_often_above_85)
{
	struct sb_point_result r;
	struct bench b;
	double tj, cool, hot;

	bench_open(&b, "Cfg4");
	cr_assert_eq(sb_device_wait_ns(b.dev, 1000000000ull), 0);
	cool = refresh_rate(&b, &tj);
	cr_assert_lt(tj, 85.0);
	cr_assert_float_eq(cool, 16 / 7.8e-6, 16 / 7.8e-6 * 0.01, "16 vaults every tREFI: %g/s",
	                   cool);
	thermal_point(&b, SB_REQ_RO, 9, 200, &r);
	cr_assert_not(r.failed);
	cr_assert_gt(r.temperature_c, 80.0, "ro in Cfg4: %.1f C", r.temperature_c);
	cr_assert_gt(r.metrics.bandwidth_gbps, 22, "full-scale ro (22.5 GB/s in the model)");
	cr_assert_eq(sb_device_wait_ns(b.dev, 100000000ull), 0);
	hot = refresh_rate(&b, &tj);
	cr_assert_gt(tj, 85.0, "junction %.1f C", tj);
	cr_assert_float_eq(hot, 2 * cool, cool * 0.02, "the board refreshes twice as often: %g/s",
	                   hot);
	bench_close(&b);
}

/* Inject a thermal failure through the simulator's register block after 50 ms. */
static int inject(void *ctx, const struct sb_point_sample *s)
{
	struct sb_device *dev = ctx;
	uint32_t sim;

	if (s->t_ns < 50000000)
		return 0;
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_SIM_CTRL_TYPE, 0, &sim), 0);
	cr_assert_eq(sb_device_write32(dev, sim + SB_SIM_CTRL_CONTROL,
	                               SB_SIM_CTRL_CONTROL_FF_ENABLE_MASK |
	                                   SB_SIM_CTRL_CONTROL_INJECT_THERMAL_MASK),
	             0);
	return 0;
}

Test(thermal_sim, forced_failure_reports_partial_counters)
{
	struct sb_point_result full, r;
	struct sb_point_spec spec;
	struct bench b;

	bench_open(&b, "Cfg2");
	sb_point_spec_init(&spec, 9);
	spec.duration_ns = 200000000;
	spec.inst = b.in;
	spec.inst_sample_ns = 10000000;
	cr_assert_eq(sb_point_run(b.dev, &spec, &full), 0);
	cr_assert_not(full.failed);
	spec.inst_sample = inject;
	spec.inst_sample_ctx = b.dev;
	cr_assert_eq(sb_point_run(b.dev, &spec, &r), 0, "%s", sb_error_detail());
	cr_assert(r.failed);
	cr_assert_geq(r.failure.t_ns, 50000000);
	cr_assert_leq(r.failure.t_ns, 70000000, "seen at the next check: %llu ns",
	              (unsigned long long)r.failure.t_ns);
	cr_assert_gt(r.failure.total.reads, full.total.reads / 5);
	cr_assert_lt(r.failure.total.reads, full.total.reads / 2, "partial: %llu of %llu",
	             (unsigned long long)r.failure.total.reads,
	             (unsigned long long)full.total.reads);
	cr_assert_float_eq(r.failure.temperature_c, full.temperature_start_c, 1.0,
	                   "a forced failure at a cool moment");
	/* Injected at a cool moment: the reset brings the cube back at once. */
	cr_assert_eq(sb_hmc_recover(b.dev, 100000000), 0, "%s", sb_error_detail());
	bench_close(&b);
}

Test(thermal_sim, cooling_without_a_rig_is_refused)
{
	struct sb_point_result r;
	struct sb_point_spec spec;
	struct sb_device *dev;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	sb_point_spec_init(&spec, 9);
	spec.cooling = "Cfg3";
	cr_assert_eq(sb_point_run(dev, &spec, &r), SB_ERR_INVAL);
	cr_assert(strstr(sb_error_detail(), "needs a cooling actuator"), "%s", sb_error_detail());
	spec.cooling = NULL;
	cr_assert_eq(sb_point_run(dev, &spec, &r), 0);
	cr_assert_not(r.has_temperature);
	cr_assert(isnan(r.temperature_c));
	cr_assert(isnan(r.power_w));
	sb_device_close(dev);
}
