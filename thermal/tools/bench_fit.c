/* SPDX-License-Identifier: MIT */
/*
 * sb-bench-fit: fit the bench model to its calibration data and compare.
 *
 *   sb-bench-fit [BENCH]           print the fitted values (YAML) and the residual table of
 *                                  the bench file as it is
 *   sb-bench-fit --check [BENCH]   exit 1 unless the file's fitted values equal the fit (to
 *                                  their printed precision) and every check passes
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "stackbench/bench_model.h"
#include "stackbench/error.h"

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

int main(int argc, char **argv)
{
	struct sb_bench_check rows[MAX_ROWS];
	struct sb_bench_params p;
	struct sb_bench_fit f;
	bool check = false, all_ok = true;
	const char *bench = NULL;
	int n;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check"))
			check = true;
		else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			printf("usage: sb-bench-fit [--check] [BENCH]\n");
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
	if (check && !matches(&p, &f)) {
		fprintf(stderr, "sb-bench-fit: the fitted values in '%s' differ from the fit\n",
		        p.path);
		return 1;
	}
	return check && !all_ok ? 1 : 0;
}
