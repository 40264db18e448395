/* SPDX-License-Identifier: MIT */
/*
 * The bench model on its own: parameters and their errors, the fit and the calibration data
 * (docs/hmc.md §7), dynamics, failure thresholds by traffic type, recovery, the simulated
 * camera and meter.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stackbench/bench_model.h"
#include "stackbench/error.h"
#include "stackbench/flir.h"
#include "stackbench/util.h"

static struct sb_bench_params P;

static void load(void)
{
	cr_assert_eq(sb_bench_params_load(&P, NULL), 0, "%s", sb_error_detail());
}

TestSuite(bench_model, .init = load);

Test(bench_model, default_bench_has_the_four_configurations)
{
	static const char *const names[] = {"Cfg1", "Cfg2", "Cfg3", "Cfg4"};
	static const double idle[] = {43.1, 51.7, 62.3, 71.6},
	                    cooling[] = {19.32, 15.9, 13.9, 10.78};
	static const double volts[] = {12.0, 10.0, 6.5, 6.0}, amps[] = {0.36, 0.29, 0.14, 0.13};

	cr_assert_str_eq(P.name, SB_BENCH_DEFAULT);
	cr_assert_eq(P.ncooling, 4);
	for (unsigned i = 0; i < 4; i++) {
		cr_assert_str_eq(P.cooling[i].name, names[i]);
		cr_assert_float_eq(P.cooling[i].idle_c, idle[i], 1e-9);
		cr_assert_float_eq(P.cooling[i].cooling_power_w, cooling[i], 1e-9);
		cr_assert_float_eq(P.cooling[i].fan_supply_v, volts[i], 1e-9);
		cr_assert_float_eq(P.cooling[i].fan_supply_a, amps[i], 1e-9);
	}
	cr_assert_float_eq(P.machine_idle_w, 100.0, 1e-9);
	cr_assert_str_eq(P.cooling[P.default_cooling].name, "Cfg2");
	cr_assert_eq(sb_bench_find_cooling(&P, "Cfg3"), 2);
	cr_assert_eq(sb_bench_find_cooling(&P, "Cfg9"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "Cfg1, Cfg2, Cfg3, Cfg4"), "%s", sb_error_detail());
}

/* Write the default bench file with one substitution; return the line of the change. */
static int variant(const char *from, const char *to, char *path, size_t size)
{
	char *text, *at;
	size_t len;
	int line = 1;
	FILE *f;

	cr_assert_eq(sb_read_file(P.path, &text, &len), 0);
	at = strstr(text, from);
	cr_assert(at, "'%s' not in the bench file", from);
	for (char *c = text; c < at; c++)
		line += *c == '\n';
	snprintf(path, size, "%s/bench-bad-%d.yaml", P_tmpdir, (int)getpid());
	f = fopen(path, "w");
	cr_assert(f);
	fwrite(text, 1, (size_t)(at - text), f);
	fputs(to, f);
	fputs(at + strlen(from), f);
	fclose(f);
	free(text);
	return line;
}

static void expect_error(const char *from, const char *to, const char *what, int line_offset)
{
	struct sb_bench_params p;
	char path[256], want[320];
	int line = variant(from, to, path, sizeof(path)) + line_offset;

	cr_assert_eq(sb_bench_params_load(&p, path), SB_ERR_PARSE, "'%s' accepted", to);
	snprintf(want, sizeof(want), "'%s' line %d: ", path, line);
	cr_assert(strstr(sb_error_detail(), want), "want '%s' in: %s", want, sb_error_detail());
	cr_assert(strstr(sb_error_detail(), what), "want '%s' in: %s", what, sb_error_detail());
	unlink(path);
}

Test(bench_model, bad_files_name_file_line_and_key)
{
	expect_error("  static_w: 6.5", "  statik_w: 6.5", "unknown key 'statik_w' in 'cube'", 0);
	expect_error("leakage_doubling_c: 20.0", "leakage_doubling_c: 0.0",
	             "key 'leakage_doubling_c'", 0);
	expect_error("mains_v: 120.0", "mains_v: lots", "key 'mains_v'", 0);
	expect_error("  default: Cfg2", "  default: Cfg7", "no cooling configuration 'Cfg7'", 0);
	expect_error("  roi: [84, 40, 40, 40]", "  roi: [150, 40, 40, 40]", "key 'roi'", 0);
	expect_error("    - name: Cfg3", "    - name: Cfg2", "'Cfg2' defined twice", 0);
	expect_error("  write_fail_config: Cfg3", "  write_fail_config: Cfg5",
	             "key 'write_fail_config'", 0);
	expect_error("    b: 1427.5\n", "    b: 1427.5\n    c: 1\n", "unknown key 'c' in 'planck'",
	             1);
}

Test(bench_model, missing_file_and_missing_key)
{
	struct sb_bench_params p;
	char path[256];

	cr_assert_eq(sb_bench_params_load(&p, "no-such-bench"), SB_ERR_NOT_FOUND);
	cr_assert(strstr(sb_error_detail(), "no bench 'no-such-bench'"), "%s", sb_error_detail());
	variant("  static_w: 6.5", "", path, sizeof(path));
	cr_assert_eq(sb_bench_params_load(&p, path), SB_ERR_PARSE);
	cr_assert(strstr(sb_error_detail(), "missing key 'static_w'"), "%s", sb_error_detail());
	cr_assert(strstr(sb_error_detail(), path), "%s", sb_error_detail());
	unlink(path);
}

Test(bench_model, the_file_holds_the_fit)
{
	struct sb_bench_fit f;

	cr_assert_eq(sb_bench_fit(&P, &f), 0, "%s", sb_error_detail());
	cr_assert_float_eq(P.fpga_w, f.fpga_w, 6e-4);
	cr_assert_float_eq(P.cube.read_pj_per_bit, f.read_pj_per_bit, 6e-4);
	cr_assert_float_eq(P.cube.write_pj_per_bit, f.write_pj_per_bit, 6e-4);
	cr_assert_float_eq(P.failure.write_junction_c, f.write_junction_c, 6e-3);
	cr_assert_float_eq(P.failure.read_junction_c, f.read_junction_c, 6e-3);
	for (unsigned c = 0; c < P.ncooling; c++)
		cr_assert_float_eq(P.cooling[c].heatsink_k_per_w, f.heatsink_k_per_w[c], 6e-5);
	cr_assert_gt(f.cooling_g1, 0, "more cooling power, more conductance");
	cr_assert_gt(f.write_pj_per_bit, f.read_pj_per_bit, "writes cost more than reads");
}

Test(bench_model, the_fit_moves_with_the_calibration)
{
	struct sb_bench_params q = P;
	struct sb_bench_fit a, b;

	cr_assert_eq(sb_bench_fit(&q, &a), 0);
	q.cooling[3].idle_c += 2.0; /* a hotter Cfg4 needs a weaker heatsink path */
	cr_assert_eq(sb_bench_fit(&q, &b), 0);
	cr_assert_gt(b.heatsink_k_per_w[3], a.heatsink_k_per_w[3]);
	cr_assert_float_eq(b.fpga_w, a.fpga_w, 1e-3);
	/* In Cfg2, 3 C and 2 W per 15 GB/s fix the heatsink path at 1.5 K/W: a hotter idle
	 * Cfg2 then means more heat, from the FPGA. */
	q = P;
	q.cooling[1].idle_c += 2.0;
	cr_assert_eq(sb_bench_fit(&q, &b), 0);
	cr_assert_float_eq(b.heatsink_k_per_w[1], 1.5, 0.01);
	cr_assert_gt(b.fpga_w, a.fpga_w + 1);
	q = P;
	q.cal.ro_power_slope_w = 1000; /* impossible */
	cr_assert_eq(sb_bench_fit(&q, &b), SB_ERR_RANGE);
}

static const struct sb_bench_check *find_row(const struct sb_bench_check *rows, int n,
                                             const char *prefix)
{
	for (int i = 0; i < n; i++)
		if (!strncmp(rows[i].name, prefix, strlen(prefix)))
			return &rows[i];
	cr_assert_fail("no check '%s'", prefix);
	return NULL;
}

Test(bench_model, model_against_the_calibration_data)
{
	static const char *const cfg[] = {"Cfg1", "Cfg2", "Cfg3", "Cfg4"};
	static const double idle[] = {43.1, 51.7, 62.3, 71.6};
	struct sb_bench_check rows[64];
	int n = sb_bench_check_all(&P, rows, 64);
	char name[80];

	cr_assert_gt(n, 20, "%s", sb_error_detail());
	for (int i = 0; i < n; i++)
		cr_assert(rows[i].ok, "%s: model %g outside [%g, %g]", rows[i].name, rows[i].model,
		          rows[i].lo, rows[i].hi);
	for (int c = 0; c < 4; c++) {
		snprintf(name, sizeof(name), "idle camera temperature, %s", cfg[c]);
		cr_assert_float_eq(find_row(rows, n, name)->model, idle[c], 0.02);
	}
	cr_assert_float_eq(find_row(rows, n, "temperature rise ro")->model, 3.0, 0.02);
	cr_assert_float_eq(find_row(rows, n, "temperature rise rw")->model, 4.0, 0.02);
	cr_assert_gt(find_row(rows, n, "temperature rise wo")->model, 4.5, "wo is steeper");
	cr_assert_float_eq(find_row(rows, n, "device power rise ro")->model, 2.0, 0.02);
	cr_assert_float_eq(find_row(rows, n, "cooling power to hold 50 C, +16 GB/s, mean")->model,
	                   1.5, 0.25);
	cr_assert_float_eq(find_row(rows, n, "camera at the write failure")->model, 75.0, 0.05);
	/* The study: the write limit (about 75 C) is about 10 C below the read limit. */
	cr_assert_float_eq(find_row(rows, n, "camera at the read failure")->model, 75.0 + 10.0,
	                   0.05);
	cr_assert_geq(find_row(rows, n, "smallest junction - camera")->model, 4.5);
	cr_assert_leq(find_row(rows, n, "largest junction - camera")->model, 10.5);
}

Test(bench_model, steady_state_power_and_slopes)
{
	struct sb_bench_steady idle, lo, hi, weak;
	struct sb_bench_rates r5, r20;

	sb_bench_gups_rates(SB_REQ_RO, 128, 5, &r5);
	sb_bench_gups_rates(SB_REQ_RO, 128, 20, &r20);
	/* 128 B reads: 160 bytes on the links per access (docs/hmc.md §2). */
	cr_assert_float_eq(r20.reads, 20e9 / 160, 1);
	cr_assert_float_eq(r20.read_bytes, 20e9 / 160 * 128, 1);
	cr_assert_float_eq(r20.flits, 20e9 / 16, 1);
	cr_assert_eq(sb_bench_steady(&P, 1, NULL, &idle), 0);
	cr_assert_eq(sb_bench_steady(&P, 1, &r5, &lo), 0);
	cr_assert_eq(sb_bench_steady(&P, 1, &r20, &hi), 0);
	cr_assert_eq(sb_bench_steady(&P, 3, &r20, &weak), 0);
	cr_assert_float_eq(hi.spot_c - lo.spot_c, 3.0, 0.01);
	cr_assert_float_eq(hi.meter_w - lo.meter_w, 2.0, 0.01);
	cr_assert_gt(weak.meter_w, hi.meter_w + 1, "weaker cooling, more power");
	cr_assert_float_eq(idle.meter_w, P.machine_idle_w + P.fpga_w + idle.cube_w, 1e-9);
	cr_assert(idle.junction_c - idle.spot_c >= 4.5 && idle.junction_c - idle.spot_c <= 10);
	/* Refresh: twice as often costs refresh_per_s x refresh energy more. */
	r5.refreshes = P.cube.refresh_per_s;
	r20 = r5;
	r20.refreshes *= 2;
	cr_assert_float_eq(sb_bench_cube_power_w(&P, &r20, 60) - sb_bench_cube_power_w(&P, &r5, 60),
	                   P.cube.refresh_per_s * P.cube.refresh_nj * 1e-9, 1e-12);
}

/* Drive a model with constant GUPS traffic for seconds, in steps of dt; stop at a failure. */
static bool drive(struct sb_bench_model *bm, enum sb_req_type type, double bw, double seconds,
                  double dt, struct sb_bench_event *last)
{
	struct sb_bench_rates r;

	sb_bench_gups_rates(type, 128, bw, &r);
	for (double t = 0; t < seconds - 1e-9; t += dt) {
		struct sb_bench_state st;
		struct sb_bench_activity a = {
		    .reads = (uint64_t)(r.reads * dt),
		    .writes = (uint64_t)(r.writes * dt),
		    .read_bytes = (uint64_t)(r.read_bytes * dt),
		    .write_bytes = (uint64_t)(r.write_bytes * dt),
		    .req_flits = (uint64_t)(r.flits * dt / 2),
		    .resp_flits = (uint64_t)(r.flits * dt / 2),
		};

		sb_bench_model_state(bm, &st);
		a.refreshes = (uint64_t)(P.cube.refresh_per_s * dt *
		                         (st.junction_c > P.cube.hot_refresh_c ? 2 : 1));
		sb_bench_model_step(bm, (uint64_t)(dt * 1e9), &a, last);
		if (last->fail)
			return true;
	}
	return false;
}

static struct sb_bench_model *model_in(const char *cooling, uint64_t seed)
{
	struct sb_bench_model *bm;
	struct sb_bench_params q = P;

	q.default_cooling = (unsigned)sb_bench_find_cooling(&P, cooling);
	cr_assert_eq(sb_bench_model_new(&bm, &q, seed), 0, "%s", sb_error_detail());
	return bm;
}

Test(bench_model, a_200_s_run_reaches_steady_state_in_every_configuration)
{
	for (unsigned c = 0; c < P.ncooling; c++) {
		struct sb_bench_model *bm = model_in(P.cooling[c].name, 1);
		struct sb_bench_steady ss;
		struct sb_bench_state st;
		struct sb_bench_event ev;
		struct sb_bench_rates r;
		double at20;

		sb_bench_gups_rates(SB_REQ_RO, 128, 25, &r);
		cr_assert_eq(sb_bench_steady(&P, c, &r, &ss), 0);
		cr_assert_not(drive(bm, SB_REQ_RO, 25, 20, 0.05, &ev));
		sb_bench_model_state(bm, &st);
		at20 = st.spot_c;
		cr_assert_not(drive(bm, SB_REQ_RO, 25, 180, 0.5, &ev));
		sb_bench_model_state(bm, &st);
		cr_assert_float_eq(st.spot_c, ss.spot_c, 0.1, "%s: %.3f vs steady %.3f",
		                   P.cooling[c].name, st.spot_c, ss.spot_c);
		cr_assert_float_eq(st.junction_c, ss.junction_c, 0.1);
		cr_assert_gt(fabs(ss.spot_c - at20), 0.3, "%s: not steady after 20 s",
		             P.cooling[c].name);
		cr_assert_eq(st.t_ns, 200000000000ull);
		sb_bench_model_free(bm);
	}
}

Test(bench_model, write_traffic_fails_near_75_at_the_camera)
{
	const struct {
		const char *cooling;
		enum sb_req_type type;
		double bw;
	} cases[] = {
	    {"Cfg3", SB_REQ_WO, 28},
	    {"Cfg4", SB_REQ_WO, 20},
	    {"Cfg4", SB_REQ_RW, 35},
	};

	for (size_t i = 0; i < SB_ARRAY_SIZE(cases); i++) {
		struct sb_bench_model *bm = model_in(cases[i].cooling, 1);
		struct sb_bench_event ev;
		struct sb_bench_state st;

		cr_assert(drive(bm, cases[i].type, cases[i].bw, 400, 0.05, &ev), "case %zu", i);
		sb_bench_model_state(bm, &st);
		cr_assert(st.failed);
		cr_assert_float_eq(ev.threshold_c, P.failure.write_junction_c, 1e-9);
		cr_assert_geq(ev.junction_c, P.failure.write_junction_c);
		cr_assert_float_eq(st.fail_spot_c, 75.0, 1.0, "case %zu: camera %.2f C at failure",
		                   i, st.fail_spot_c);
		sb_bench_model_free(bm);
	}
}

Test(bench_model, read_traffic_survives_past_80)
{
	struct sb_bench_model *bm = model_in("Cfg4", 1);
	struct sb_bench_event ev;
	struct sb_bench_state st;

	cr_assert_not(drive(bm, SB_REQ_RO, 30, 400, 0.5, &ev));
	sb_bench_model_state(bm, &st);
	cr_assert_gt(st.spot_c, 80.0, "camera %.2f", st.spot_c);
	cr_assert_gt(st.junction_c, P.failure.write_junction_c, "hotter than writes survive");
	cr_assert_float_eq(ev.threshold_c, P.failure.read_junction_c, 1e-9);
	/* Far beyond what the board can do, reads fail too: near 85 at the camera, about 10 C
	 * above the write limit (the study). */
	cr_assert(drive(bm, SB_REQ_RO, 45, 400, 0.05, &ev));
	sb_bench_model_state(bm, &st);
	cr_assert_float_eq(st.fail_spot_c, 75.0 + 10.0, 1.0, "camera %.2f", st.fail_spot_c);
	sb_bench_model_free(bm);
}

Test(bench_model, threshold_follows_the_write_share)
{
	struct sb_bench_model *bm = model_in("Cfg1", 1);
	struct sb_bench_activity a = {.reads = 3000, .writes = 1000};
	struct sb_bench_event ev;
	double mid =
	    P.failure.read_junction_c - (P.failure.read_junction_c - P.failure.write_junction_c) *
	                                    0.25 / P.failure.write_share_full;

	sb_bench_model_step(bm, 1000000, &a, &ev);
	cr_assert_float_eq(ev.threshold_c, mid, 1e-9);
	a = (struct sb_bench_activity){0};
	sb_bench_model_step(bm, 1000000, &a, &ev);
	cr_assert_float_eq(ev.threshold_c, P.failure.read_junction_c, 1e-9, "idle: read threshold");
	sb_bench_model_free(bm);
}

Test(bench_model, a_reset_brings_the_cube_back_only_once_it_has_cooled)
{
	struct sb_bench_model *bm = model_in("Cfg3", 1);
	struct sb_bench_event ev;
	struct sb_bench_state st;
	double waited = 0;

	cr_assert(drive(bm, SB_REQ_WO, 28, 400, 0.05, &ev));
	cr_assert_not(sb_bench_model_cube_reset(bm), "still at the trip point");
	cr_assert(sb_bench_model_failed(bm));
	while (!sb_bench_model_cube_reset(bm)) {
		cr_assert_not(drive(bm, SB_REQ_RO, 0, 1, 0.1, &ev), "idle while failed");
		waited += 1;
		cr_assert_lt(waited, 300, "never cooled");
	}
	sb_bench_model_state(bm, &st);
	cr_assert_gt(waited, 1, "the cooling takes time");
	cr_assert_lt(st.junction_c, P.failure.write_junction_c - P.failure.recover_hysteresis_c);
	cr_assert_not(st.failed);
	cr_assert_eq(st.failures, 1);
	/* An injected failure at a cool moment: latched, and a reset clears it at once. */
	sb_bench_model_note_failure(bm);
	cr_assert(sb_bench_model_failed(bm));
	cr_assert(sb_bench_model_cube_reset(bm));
	sb_bench_model_state(bm, &st);
	cr_assert_eq(st.failures, 2);
	sb_bench_model_free(bm);
}

Test(bench_model, cooling_can_be_switched)
{
	struct sb_bench_model *bm = model_in("Cfg1", 1);
	struct sb_bench_event ev;
	struct sb_bench_state st;

	cr_assert_eq(sb_bench_model_set_cooling(bm, "Cfg4"), 0);
	cr_assert_str_eq(sb_bench_model_cooling(bm)->name, "Cfg4");
	cr_assert_eq(sb_bench_model_set_cooling(bm, "Cfg0"), SB_ERR_NOT_FOUND);
	cr_assert_not(drive(bm, SB_REQ_RO, 0, 200, 0.5, &ev));
	sb_bench_model_state(bm, &st);
	cr_assert_float_eq(st.spot_c, 71.6, 0.1, "idle temperature of the new configuration");
	cr_assert_str_eq(st.cooling, "Cfg4");
	sb_bench_model_free(bm);
}

Test(bench_model, step_hint_is_bounded_and_shrinks_while_heating)
{
	struct sb_bench_model *bm = model_in("Cfg2", 1);
	struct sb_bench_event ev;
	uint64_t idle_hint = sb_bench_model_step_hint_ns(bm);

	cr_assert_eq(idle_hint, (uint64_t)(P.coupling.max_step_s * 1e9));
	cr_assert_not(drive(bm, SB_REQ_WO, 28, 0.2, 0.05, &ev));
	cr_assert_lt(sb_bench_model_step_hint_ns(bm), idle_hint / 10, "heating: short steps");
	cr_assert_geq(sb_bench_model_step_hint_ns(bm), (uint64_t)(P.coupling.min_step_s * 1e9));
	sb_bench_model_free(bm);
}

/* Render a frame and decode it the way a camera driver does. */
static void frame_of(struct sb_bench_model *bm, struct sb_thermal_image *img, uint8_t *buf,
                     size_t cap, int *len)
{
	static struct sb_raw_image raw;
	struct sb_flir_frame f;

	*len = sb_bench_model_camera_frame(bm, buf, cap);
	cr_assert_gt(*len, 0, "%s", sb_error_detail());
	cr_assert_eq(sb_flir_split(buf, (size_t)*len, &f), 0);
	cr_assert_eq(sb_flir_decode_thermal(f.thermal, f.thermal_len, &raw), 0);
	cr_assert_eq(raw.bad_crc, 0);
	cr_assert_eq(raw.width, 160);
	cr_assert_eq(raw.height, 120);
	cr_assert_eq(sb_thermal_from_raw(&raw, &P.camera.planck, img), 160 * 120);
}

Test(bench_model, camera_sees_the_cube_hot_spot_apart_from_the_fpga)
{
	static struct sb_thermal_image img;
	static uint8_t buf[48 * 1024];
	struct sb_bench_model *bm = model_in("Cfg2", 3);
	const struct sb_bench_scene *sc = &P.camera.scene;
	struct sb_roi all = {0}, fpga = {30, 40, 40, 40};
	struct sb_hotspot hs, hf;
	struct sb_bench_state st;
	int len;

	sb_bench_model_state(bm, &st);
	frame_of(bm, &img, buf, sizeof(buf), &len);
	cr_assert_eq(sb_hotspot_find(&img, &all, &hs), 0);
	cr_assert_leq(fabs(hs.x - sc->cube_x), 2, "hot spot at x %u", hs.x);
	cr_assert_leq(fabs(hs.y - sc->cube_y), 2, "hot spot at y %u", hs.y);
	cr_assert_float_eq(hs.max_c, st.spot_c, 0.25);
	cr_assert_eq(sb_hotspot_find(&img, &fpga, &hf), 0);
	cr_assert_leq(fabs(hf.x - sc->fpga_x), 3);
	cr_assert_float_eq(hf.max_c, P.ambient_c + sc->fpga_frac * (st.spot_c - P.ambient_c), 0.3);
	cr_assert_lt(hf.max_c, hs.max_c - 2, "the FPGA is cooler than the cube");
	cr_assert_lt(hs.min_c, P.ambient_c + 0.3 * (st.spot_c - P.ambient_c), "background");
	sb_bench_model_free(bm);
}

Test(bench_model, camera_is_deterministic_per_seed_and_noisy)
{
	static struct sb_thermal_image img;
	static uint8_t a[48 * 1024], b[48 * 1024];
	struct sb_bench_model *m1 = model_in("Cfg2", 7), *m2 = model_in("Cfg2", 7);
	struct sb_bench_model *m3 = model_in("Cfg2", 8);
	struct sb_roi roi = P.camera.roi;
	struct sb_bench_state st;
	double sum = 0, sum2 = 0;
	int la, lb;

	la = sb_bench_model_camera_frame(m1, a, sizeof(a));
	lb = sb_bench_model_camera_frame(m2, b, sizeof(b));
	cr_assert_eq(la, lb);
	cr_assert_eq(memcmp(a, b, (size_t)la), 0, "same seed, same frame");
	lb = sb_bench_model_camera_frame(m3, b, sizeof(b));
	cr_assert_neq(memcmp(a, b, (size_t)la), 0, "another seed, another frame");
	sb_bench_model_state(m1, &st);
	for (int i = 0; i < 100; i++) {
		struct sb_hotspot hs;

		frame_of(m1, &img, a, sizeof(a), &la);
		cr_assert_eq(sb_hotspot_find(&img, &roi, &hs), 0);
		sum += hs.max_c;
		sum2 += hs.max_c * hs.max_c;
	}
	sum /= 100;
	sum2 = sqrt(sum2 / 100 - sum * sum);
	cr_assert_float_eq(sum, st.spot_c, 0.08, "mean %.3f vs %.3f", sum, st.spot_c);
	cr_assert(sum2 > 0.02 && sum2 < 0.12, "frame-to-frame noise %.3f C", sum2);
	sb_bench_model_free(m1);
	sb_bench_model_free(m2);
	sb_bench_model_free(m3);
}

Test(bench_model, meter_reads_mean_power_since_its_last_reading)
{
	struct sb_bench_model *bm = model_in("Cfg2", 5);
	struct sb_bench_meter_reading r;
	struct sb_bench_state s0, s1;
	struct sb_bench_event ev;
	double mean;

	sb_bench_model_state(bm, &s0);
	sb_bench_model_meter(bm, &r);
	cr_assert_float_eq(r.power_w, s0.meter_w, 0.5);
	cr_assert_float_eq(r.power_w, 100 + P.fpga_w + s0.cube_w, 0.5);
	cr_assert_float_eq(r.volts, P.mains_v, 1.0);
	cr_assert_float_eq(r.amps, r.power_w / (r.volts * P.power_factor), 0.0006);
	cr_assert_float_eq(r.power_w * 10, round(r.power_w * 10), 1e-6, "tenths of a watt");
	cr_assert_not(drive(bm, SB_REQ_WO, 25, 10, 0.1, &ev));
	sb_bench_model_state(bm, &s1);
	mean = (s1.energy_j - s0.energy_j) / 10;
	sb_bench_model_meter(bm, &r);
	cr_assert_float_eq(r.power_w, mean, 0.5);
	cr_assert_gt(r.power_w, s0.meter_w + 3, "traffic costs power");
	sb_bench_model_free(bm);
}
