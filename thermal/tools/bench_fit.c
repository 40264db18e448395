/* SPDX-License-Identifier: MIT */
/*
 * sb-bench-fit: fit the bench model to its calibration data and compare.
 *
 *   sb-bench-fit [BENCH]           print the fitted values (YAML) and the residual table of
 *                                  the bench file as it is
 *   sb-bench-fit --check [BENCH]   exit 1 unless the file's fitted values equal the fit (to
 *                                  their printed precision) and every check passes
 *   sb-bench-fit --sim [BENCH]     measure the calibration figures on the simulated bench
 *                                  (board + bench through the sim: instruments, 200 s
 *                                  points) and print them with the wall time of each point
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "stackbench/bench_model.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/instrument.h"
#include "stackbench/point.h"

#define MAX_ROWS 64

static void print_fit(const struct sb_bench_params *p, const struct sb_bench_fit *f)
{
	printf("# fitted values for '%s' (paste into the bench file)\n", p->path);
	printf("fpga.power_w: %.3f\n", f->fpga_w);
	printf("cube.read_pj_per_bit: %.3f\n", f->read_pj_per_bit);
	printf("cube.write_pj_per_bit: %.3f\n", f->write_pj_per_bit);
	printf("failure.write_junction_c: %.2f\n", f->write_junction_c);
	printf("failure.read_junction_c: %.2f\n", f->read_junction_c);
	for (unsigned c = 0; c < p->ncooling; c++)
		printf("cooling.%s.heatsink_k_per_w: %.4f\n", p->cooling[c].name,
		       f->heatsink_k_per_w[c]);
	printf("# cooling law: conductance = %.4f + %.5f * cooling power (W/K)\n", f->cooling_g0,
	       f->cooling_g1);
}

static bool close_to(double a, double b, double tol)
{
	return fabs(a - b) <= tol;
}

/* The file's fitted values equal the fit to the precision printed above. */
static bool matches(const struct sb_bench_params *p, const struct sb_bench_fit *f)
{
	bool ok = close_to(p->fpga_w, f->fpga_w, 6e-4) &&
	          close_to(p->cube.read_pj_per_bit, f->read_pj_per_bit, 6e-4) &&
	          close_to(p->cube.write_pj_per_bit, f->write_pj_per_bit, 6e-4) &&
	          close_to(p->failure.write_junction_c, f->write_junction_c, 6e-3) &&
	          close_to(p->failure.read_junction_c, f->read_junction_c, 6e-3);

	for (unsigned c = 0; c < p->ncooling; c++)
		ok = ok && close_to(p->cooling[c].heatsink_k_per_w, f->heatsink_k_per_w[c], 6e-5);
	return ok;
}

static double wall_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One point on a fresh simulated bench: type, ports, seconds, cooling. */
static int sim_point(const char *bench, const char *cooling, enum sb_req_type type, unsigned ports,
                     double seconds, struct sb_point_result *r, double *wall)
{
	struct sb_point_instruments in = {0};
	struct sb_point_spec spec;
	struct sb_device *dev;
	char uri[600];
	double t0;
	int err;

	snprintf(uri, sizeof(uri), "sim:?cooling=%s%s%s", cooling, bench ? "&bench=" : "",
	         bench ? bench : "");
	if ((err = sb_device_open(&dev, uri)) < 0)
		return err;
	if ((err = sb_temp_source_open(&in.temp, "sim:", dev)) < 0 ||
	    (err = sb_power_source_open(&in.power, "sim:", dev)) < 0)
		goto out;
	sb_point_spec_init(&spec, ports);
	spec.type = type;
	spec.duration_ns = (uint64_t)(seconds * 1e9);
	spec.inst = in;
	t0 = wall_s();
	err = sb_point_run(dev, &spec, r);
	*wall = wall_s() - t0;
out:
	sb_temp_source_close(in.temp);
	sb_power_source_close(in.power);
	sb_device_close(dev);
	return err;
}

static void print_point(const char *what, const char *cooling, const struct sb_point_result *r,
                        double wall)
{
	printf("| %s | %s | %.2f | %.1f | %.1f | %s | %.2f |\n", what, cooling,
	       r->metrics.bandwidth_gbps, r->temperature_c, r->power_w, r->failed ? "yes" : "no",
	       wall);
}

/* The calibration figures measured end to end on the simulated bench. */
static int sim_figures(const struct sb_bench_params *p, const char *bench)
{
	const struct sb_bench_calibration *cal = &p->cal;
	const char *scfg = p->cooling[cal->slope_cooling].name;
	const struct {
		enum sb_req_type type;
		unsigned lo, hi; /* ports for the low and high bandwidth */
		double target;   /* temperature rise per 15 GB/s, NAN: none */
	} slopes[] = {
	    {SB_REQ_RO, 1, 6, cal->ro_temp_slope_c},
	    {SB_REQ_RW, 4, 9, cal->rw_temp_slope_c},
	    {SB_REQ_WO, 2, 6, NAN},
	};
	struct sb_point_result a, b;
	double wa, wb;
	int err;

	printf("\n## Measured on the simulated bench (200 s points, sim: camera and meter)\n\n");
	printf("| point | cooling | GB/s | camera C | meter W | failed | wall s |\n");
	printf("|---|---|---|---|---|---|---|\n");
	for (unsigned c = 0; c < p->ncooling; c++) {
		if ((err = sim_point(bench, p->cooling[c].name, SB_REQ_RO, 1, 200, &a, &wa)) < 0)
			return err;
		print_point("ro, 1 port", p->cooling[c].name, &a, wa);
		printf("|  idle camera before it: %.1f C (calibration %.1f C) | | | | | | |\n",
		       a.temperature_start_c, p->cooling[c].idle_c);
	}
	for (size_t i = 0; i < sizeof(slopes) / sizeof(slopes[0]); i++) {
		double dbw, dt, dp;

		if ((err = sim_point(bench, scfg, slopes[i].type, slopes[i].lo, 200, &a, &wa)) <
		        0 ||
		    (err = sim_point(bench, scfg, slopes[i].type, slopes[i].hi, 200, &b, &wb)) < 0)
			return err;
		print_point(sb_req_type_name(slopes[i].type), scfg, &a, wa);
		print_point(sb_req_type_name(slopes[i].type), scfg, &b, wb);
		dbw = b.metrics.bandwidth_gbps - a.metrics.bandwidth_gbps;
		dt = (b.temperature_c - a.temperature_c) / dbw * 15;
		dp = (b.power_w - a.power_w) / dbw * 15;
		printf("|  %s: %.2f C and %.2f W per 15 GB/s", sb_req_type_name(slopes[i].type), dt,
		       dp);
		if (!isnan(slopes[i].target))
			printf(" (calibration %.1f C: residual %+.2f C)", slopes[i].target,
			       dt - slopes[i].target);
		if (slopes[i].type == SB_REQ_RO)
			printf(" (calibration %.1f W: residual %+.2f W)", cal->ro_power_slope_w,
			       dp - cal->ro_power_slope_w);
		printf(" | | | | | | |\n");
	}
	for (unsigned c = 0; c < p->ncooling; c++) {
		for (int t = 0; t < 2; t++) {
			enum sb_req_type type = t ? SB_REQ_RO : SB_REQ_WO;

			if ((err = sim_point(bench, p->cooling[c].name, type, 9, 200, &a, &wa)) < 0)
				return err;
			print_point(t ? "ro, 9 ports" : "wo, 9 ports", p->cooling[c].name, &a, wa);
			if (a.failed)
				printf(
				    "|  failed at %.0f s, camera %.1f C (calibration: writes fail "
				    "near %.0f C) | | | | | | |\n",
				    a.failure.t_ns / 1e9, a.failure.temperature_c,
				    cal->write_fail_camera_c);
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sb_bench_check rows[MAX_ROWS];
	struct sb_bench_params p;
	struct sb_bench_fit f;
	bool check = false, sim = false, all_ok = true;
	const char *bench = NULL;
	int n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check"))
			check = true;
		else if (!strcmp(argv[i], "--sim"))
			sim = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: sb-bench-fit [--check | --sim] [BENCH]\n");
			return 0;
		} else
			bench = argv[i];
	}
	if (sb_bench_params_load(&p, bench) < 0 || sb_bench_fit(&p, &f) < 0) {
		fprintf(stderr, "sb-bench-fit: %s\n", sb_error_detail());
		return 2;
	}
	print_fit(&p, &f);
	n = sb_bench_check_all(&p, rows, MAX_ROWS);
	if (n < 0) {
		fprintf(stderr, "sb-bench-fit: %s\n", sb_error_detail());
		return 2;
	}
	printf("\n| check | target | model | residual | accepted | ok |\n");
	printf("|---|---|---|---|---|---|\n");
	for (int i = 0; i < n; i++) {
		const struct sb_bench_check *r = &rows[i];
		char target[32] = "-", res[32] = "-", acc[48];

		if (!isnan(r->target)) {
			snprintf(target, sizeof(target), "%.2f %s", r->target, r->unit);
			snprintf(res, sizeof(res), "%+.3f", r->model - r->target);
		}
		if (isinf(r->lo) && isinf(r->hi))
			snprintf(acc, sizeof(acc), "-");
		else if (isinf(r->hi))
			snprintf(acc, sizeof(acc), ">= %.2f", r->lo);
		else
			snprintf(acc, sizeof(acc), "%.2f .. %.2f", r->lo, r->hi);
		printf("| %s | %s | %.3f %s | %s | %s | %s |\n", r->name, target, r->model, r->unit,
		       res, acc, r->ok ? "yes" : "NO");
		all_ok = all_ok && r->ok;
	}
	if (sim && sim_figures(&p, bench) < 0) {
		fprintf(stderr, "sb-bench-fit: %s\n", sb_error_detail());
		return 2;
	}
	if (check && !matches(&p, &f)) {
		fprintf(stderr, "sb-bench-fit: the fitted values in '%s' differ from the fit\n",
		        p.path);
		return 1;
	}
	return check && !all_ok ? 1 : 0;
}
