/* SPDX-License-Identifier: MIT */
/*
 * Fitting the bench model to the calibration data (docs/hmc.md §7) and comparing
 * the two. docs/bench-model.md describes the procedure; sb-bench-fit prints both.
 */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "stackbench/bench_model.h"
#include "stackbench/error.h"

typedef double (*eval_fn)(struct sb_bench_params *q, double x, const void *ctx);

/*
 * Solve f(x) = target for x in [lo, hi] where f increases (NAN where it has no value); a scan
 * finds the bracket, bisection the root. NAN when the target is not reached.
 */
static double solve(struct sb_bench_params *q, eval_fn f, const void *ctx, double lo, double hi,
                    double target)
{
	const int scan = 64;
	double prev = lo;
	bool found = false;

	for (int i = 0; i <= scan; i++) {
		double x = lo + (hi - lo) * i / scan, fx = f(q, x, ctx);

		if (isnan(fx))
			continue;
		if (fx >= target) {
			if (i == 0 || isnan(f(q, prev, ctx)))
				return fx == target ? x : NAN;
			lo = prev;
			hi = x;
			found = true;
			break;
		}
		prev = x;
	}
	if (!found)
		return NAN;
	for (int i = 0; i < 100 && hi - lo > 1e-12 * (1 + fabs(hi)); i++) {
		double mid = 0.5 * (lo + hi), fm = f(q, mid, ctx);

		if (!isnan(fm) && fm < target)
			lo = mid;
		else
			hi = mid;
	}
	return 0.5 * (lo + hi);
}

static int steady_at(const struct sb_bench_params *p, unsigned cooling, enum sb_req_type type,
                     double bw, struct sb_bench_steady *st)
{
	struct sb_bench_rates r;

	sb_bench_gups_rates(type, p->cal.size, bw, &r);
	return sb_bench_steady(p, cooling, bw > 0 ? &r : NULL, st);
}

/* Rise of the camera temperature (power: of the meter) over the slope range; NAN on runaway. */
static double rise(const struct sb_bench_params *p, enum sb_req_type type, bool power)
{
	struct sb_bench_steady a, b;

	if (steady_at(p, p->cal.slope_cooling, type, p->cal.slope_from_gbps, &a) < 0 ||
	    steady_at(p, p->cal.slope_cooling, type, p->cal.slope_to_gbps, &b) < 0)
		return NAN;
	return power ? b.meter_w - a.meter_w : b.spot_c - a.spot_c;
}

static double temp_slope(const struct sb_bench_params *p, enum sb_req_type type)
{
	return rise(p, type, false);
}

static double power_slope(const struct sb_bench_params *p, enum sb_req_type type)
{
	return rise(p, type, true);
}

static double eval_idle(struct sb_bench_params *q, double ra, const void *ctx)
{
	unsigned c = *(const unsigned *)ctx;
	struct sb_bench_steady st;

	q->cooling[c].heatsink_k_per_w = ra;
	return sb_bench_steady(q, c, NULL, &st) < 0 ? NAN : st.spot_c;
}

static double eval_read_energy(struct sb_bench_params *q, double e, const void *ctx)
{
	(void)ctx;
	q->cube.read_pj_per_bit = e;
	return temp_slope(q, SB_REQ_RO);
}

static double eval_write_energy(struct sb_bench_params *q, double e, const void *ctx)
{
	(void)ctx;
	q->cube.write_pj_per_bit = e;
	return temp_slope(q, SB_REQ_RW);
}

/* Everything that depends on the FPGA's power; returns the ro power slope. */
static double eval_fpga(struct sb_bench_params *q, double fpga_w, const void *ctx)
{
	(void)ctx;
	q->fpga_w = fpga_w;
	q->cube.read_pj_per_bit = q->cube.write_pj_per_bit = 0; /* a failed solve left NAN */
	for (unsigned c = 0; c < q->ncooling; c++) {
		if (isnan(q->cooling[c].idle_c))
			continue;
		q->cooling[c].heatsink_k_per_w =
		    solve(q, eval_idle, &c, 1e-3, 20, q->cooling[c].idle_c);
		if (isnan(q->cooling[c].heatsink_k_per_w))
			return NAN;
	}
	q->cube.read_pj_per_bit = solve(q, eval_read_energy, NULL, 0, 2000, q->cal.ro_temp_slope_c);
	if (isnan(q->cube.read_pj_per_bit))
		return NAN;
	q->cube.write_pj_per_bit =
	    solve(q, eval_write_energy, NULL, 0, 2000, q->cal.rw_temp_slope_c);
	if (isnan(q->cube.write_pj_per_bit))
		return NAN;
	return power_slope(q, SB_REQ_RO);
}

struct fail_ctx {
	unsigned cooling;
	enum sb_req_type type;
	bool junction; /* evaluate the junction (else the camera spot) */
};

static double eval_fail_bw(struct sb_bench_params *q, double bw, const void *ctx)
{
	const struct fail_ctx *f = ctx;
	struct sb_bench_steady st;

	if (steady_at(q, f->cooling, f->type, bw, &st) < 0)
		return NAN;
	return f->junction ? st.junction_c : st.spot_c;
}

/*
 * The bandwidth of traffic of a type at which the junction (by_junction) or the camera reaches
 * target_c, and the other temperature there: the camera at a junction threshold, or the
 * junction at a camera temperature. NAN when the target is out of reach.
 */
static double other_at(struct sb_bench_params *q, unsigned cooling, enum sb_req_type type,
                       bool by_junction, double target_c)
{
	struct fail_ctx f = {cooling, type, by_junction};
	struct sb_bench_steady st;
	double bw = solve(q, eval_fail_bw, &f, 0, 500, target_c);

	if (isnan(bw) || steady_at(q, cooling, type, bw, &st) < 0)
		return NAN;
	return by_junction ? st.spot_c : st.junction_c;
}

/* Least squares: heatsink conductance against cooling power. */
static void cooling_law(const struct sb_bench_params *p, double *g0, double *g1)
{
	double sx = 0, sy = 0, sxx = 0, sxy = 0;
	unsigned n = 0;

	for (unsigned c = 0; c < p->ncooling; c++) {
		double x = p->cooling[c].cooling_power_w, y = 1 / p->cooling[c].heatsink_k_per_w;

		if (isnan(p->cooling[c].idle_c))
			continue;
		sx += x;
		sy += y;
		sxx += x * x;
		sxy += x * y;
		n++;
	}
	*g0 = *g1 = NAN;
	if (n < 2 || n * sxx - sx * sx <= 0)
		return;
	*g1 = (n * sxy - sx * sy) / (n * sxx - sx * sx);
	*g0 = (sy - *g1 * sx) / n;
}

int sb_bench_fit(const struct sb_bench_params *p, struct sb_bench_fit *fit)
{
	struct sb_bench_params q = *p;
	const struct sb_bench_calibration *cal = &p->cal;
	unsigned with_idle = 0;

	memset(fit, 0, sizeof(*fit));
	for (unsigned c = 0; c < p->ncooling; c++)
		with_idle += !isnan(p->cooling[c].idle_c);
	if (with_idle < 2 || isnan(p->cooling[cal->slope_cooling].idle_c))
		return sb_error_set(
		    SB_ERR_INVAL,
		    "bench '%s': the fit needs the idle temperature of at least two "
		    "cooling configurations, including '%s'",
		    p->name, p->cooling[cal->slope_cooling].name);
	fit->fpga_w = solve(&q, eval_fpga, NULL, 0, 200, cal->ro_power_slope_w);
	if (isnan(fit->fpga_w) || isnan(eval_fpga(&q, fit->fpga_w, NULL)))
		return sb_error_set(
		    SB_ERR_RANGE,
		    "bench '%s': no FPGA power between 0 and 200 W gives a ro power "
		    "slope of %g W with the calibrated temperatures",
		    p->name, cal->ro_power_slope_w);
	fit->read_pj_per_bit = q.cube.read_pj_per_bit;
	fit->write_pj_per_bit = q.cube.write_pj_per_bit;
	for (unsigned c = 0; c < p->ncooling; c++)
		fit->heatsink_k_per_w[c] = q.cooling[c].heatsink_k_per_w;
	fit->write_junction_c =
	    other_at(&q, cal->write_fail_cooling, SB_REQ_WO, false, cal->write_fail_camera_c);
	fit->read_junction_c =
	    other_at(&q, cal->read_fail_cooling, SB_REQ_RO, false, cal->read_fail_camera_c);
	if (isnan(fit->write_junction_c) || isnan(fit->read_junction_c))
		return sb_error_set(SB_ERR_RANGE,
		                    "bench '%s': the failure temperatures cannot be reached in the "
		                    "configured cooling",
		                    p->name);
	cooling_law(&q, &fit->cooling_g0, &fit->cooling_g1);
	return 0;
}

void sb_bench_fit_apply(struct sb_bench_params *p, const struct sb_bench_fit *fit)
{
	p->fpga_w = fit->fpga_w;
	p->cube.read_pj_per_bit = fit->read_pj_per_bit;
	p->cube.write_pj_per_bit = fit->write_pj_per_bit;
	p->failure.write_junction_c = fit->write_junction_c;
	p->failure.read_junction_c = fit->read_junction_c;
	for (unsigned c = 0; c < p->ncooling; c++)
		p->cooling[c].heatsink_k_per_w = fit->heatsink_k_per_w[c];
}

/* ---- checks ----------------------------------------------------------------------------- */

struct rows {
	struct sb_bench_check *r;
	unsigned n, max;
};

static void row(struct rows *rs, const char *unit, double target, double lo, double hi,
                double model, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static void row(struct rows *rs, const char *unit, double target, double lo, double hi,
                double model, const char *fmt, ...)
{
	struct sb_bench_check *c;
	va_list ap;

	if (rs->n == rs->max)
		return;
	c = &rs->r[rs->n++];
	va_start(ap, fmt);
	vsnprintf(c->name, sizeof(c->name), fmt, ap);
	va_end(ap);
	c->unit = unit;
	c->target = target;
	c->lo = lo;
	c->hi = hi;
	c->model = model;
	c->ok = model >= lo && model <= hi;
}

/* Cooling power to hold the camera at hold_c under traffic, from the cooling law. */
static double hold_power(const struct sb_bench_params *p, enum sb_req_type type, double bw,
                         double g0, double g1)
{
	const double rjs = p->thermal.junction_to_spot_k_per_w, hold = p->cal.hold_c;
	struct sb_bench_rates r;
	double pc = p->cube.static_w, g;

	sb_bench_gups_rates(type, p->cal.size, bw, &r);
	for (int i = 0; i < 200; i++) {
		double tj = hold + rjs * pc;

		r.refreshes = p->cube.refresh_per_s * (tj > p->cube.hot_refresh_c ? 2 : 1);
		pc = sb_bench_cube_power_w(p, &r, tj);
	}
	g = (pc + p->fpga_w) / (hold - p->ambient_c);
	return (g - g0) / g1;
}

/* Offsets junction - camera over the operating range (bandwidths up to 1.5 x the slope end). */
static void offsets(const struct sb_bench_params *p, double *lo, double *hi)
{
	const enum sb_req_type types[] = {SB_REQ_RO, SB_REQ_WO, SB_REQ_RW};
	double top = 1.5 * p->cal.slope_to_gbps;

	*lo = INFINITY;
	*hi = -INFINITY;
	for (unsigned c = 0; c < p->ncooling; c++) {
		for (unsigned t = 0; t < 3; t++) {
			for (double bw = 0; bw <= top + 1e-9; bw += top / 30) {
				double trip = types[t] == SB_REQ_RO ? p->failure.read_junction_c
				                                    : p->failure.write_junction_c;
				struct sb_bench_steady st;

				if (steady_at(p, c, types[t], bw, &st) < 0 || st.junction_c >= trip)
					continue;
				if (st.junction_c - st.spot_c < *lo)
					*lo = st.junction_c - st.spot_c;
				if (st.junction_c - st.spot_c > *hi)
					*hi = st.junction_c - st.spot_c;
			}
		}
	}
}

/* The dynamic model from idle to ro traffic for duration_s; camera error against steady. */
static double settle_error(const struct sb_bench_params *p, unsigned cooling, double bw,
                           double duration_s)
{
	struct sb_bench_params q = *p;
	struct sb_bench_model *bm;
	struct sb_bench_steady st;
	struct sb_bench_rates r;
	struct sb_bench_state s;
	const double dt = 0.1;
	double err;

	q.default_cooling = cooling;
	sb_bench_gups_rates(SB_REQ_RO, p->cal.size, bw, &r);
	if (sb_bench_model_new(&bm, &q, 1) < 0 || sb_bench_steady(&q, cooling, &r, &st) < 0) {
		sb_bench_model_free(bm);
		return NAN;
	}
	for (double t = 0; t < duration_s - 1e-9; t += dt) {
		struct sb_bench_activity a = {
		    .reads = (uint64_t)(r.reads * dt),
		    .read_bytes = (uint64_t)(r.read_bytes * dt),
		    .req_flits = (uint64_t)(r.flits * dt / 2),
		    .resp_flits = (uint64_t)(r.flits * dt / 2),
		};
		struct sb_bench_event ev;

		sb_bench_model_state(bm, &s);
		a.refreshes = (uint64_t)(p->cube.refresh_per_s * dt *
		                         (s.junction_c > p->cube.hot_refresh_c ? 2 : 1));
		sb_bench_model_step(bm, (uint64_t)(dt * 1e9), &a, &ev);
	}
	sb_bench_model_state(bm, &s);
	err = s.spot_c - st.spot_c;
	sb_bench_model_free(bm);
	return err;
}

int sb_bench_check_all(const struct sb_bench_params *p, struct sb_bench_check *out, unsigned max)
{
	const struct sb_bench_calibration *cal = &p->cal;
	const char *scfg = p->cooling[cal->slope_cooling].name;
	const enum sb_req_type types[] = {SB_REQ_RO, SB_REQ_RW, SB_REQ_WO};
	struct sb_bench_params q = *p;
	struct rows rs = {out, 0, max};
	double g0, g1, mean = 0, lo, hi, prev = -INFINITY;
	unsigned order[SB_BENCH_MAX_COOLING], n = 0, weakest = 0;

	for (unsigned c = 0; c < p->ncooling; c++) {
		struct sb_bench_steady st;

		if (isnan(p->cooling[c].idle_c))
			continue;
		if (sb_bench_steady(p, c, NULL, &st) < 0)
			return SB_ERR_RANGE;
		row(&rs, "C", p->cooling[c].idle_c, p->cooling[c].idle_c - 0.05,
		    p->cooling[c].idle_c + 0.05, st.spot_c, "idle camera temperature, %s",
		    p->cooling[c].name);
		order[n++] = c;
		if (p->cooling[c].heatsink_k_per_w > p->cooling[weakest].heatsink_k_per_w)
			weakest = c;
	}
	row(&rs, "C", cal->ro_temp_slope_c, cal->ro_temp_slope_c - 0.05,
	    cal->ro_temp_slope_c + 0.05, temp_slope(p, SB_REQ_RO),
	    "temperature rise ro, %s, %g..%g GB/s", scfg, cal->slope_from_gbps, cal->slope_to_gbps);
	row(&rs, "C", cal->rw_temp_slope_c, cal->rw_temp_slope_c - 0.05,
	    cal->rw_temp_slope_c + 0.05, temp_slope(p, SB_REQ_RW),
	    "temperature rise rw, %s, %g..%g GB/s", scfg, cal->slope_from_gbps, cal->slope_to_gbps);
	row(&rs, "C", NAN, temp_slope(p, SB_REQ_RW) + 0.1, INFINITY, temp_slope(p, SB_REQ_WO),
	    "temperature rise wo, %s (steeper than rw)", scfg);
	row(&rs, "W", cal->ro_power_slope_w, cal->ro_power_slope_w - 0.05,
	    cal->ro_power_slope_w + 0.05, power_slope(p, SB_REQ_RO),
	    "device power rise ro, %s, %g..%g GB/s", scfg, cal->slope_from_gbps,
	    cal->slope_to_gbps);
	row(&rs, "W", NAN, -INFINITY, INFINITY, power_slope(p, SB_REQ_RW),
	    "device power rise rw, %s (information)", scfg);
	row(&rs, "W", NAN, -INFINITY, INFINITY, power_slope(p, SB_REQ_WO),
	    "device power rise wo, %s (information)", scfg);
	/* Weaker cooling (hotter idle) means more power at the same bandwidth. */
	for (unsigned i = 0; i < n; i++) {
		for (unsigned j = i + 1; j < n; j++) {
			if (p->cooling[order[j]].idle_c < p->cooling[order[i]].idle_c) {
				unsigned t = order[i];

				order[i] = order[j];
				order[j] = t;
			}
		}
	}
	for (unsigned i = 0; i < n; i++) {
		struct sb_bench_steady st;

		if (steady_at(p, order[i], SB_REQ_RO, cal->slope_to_gbps, &st) < 0)
			return SB_ERR_RANGE;
		row(&rs, "W", NAN, prev + 0.01, INFINITY, st.meter_w - p->machine_idle_w,
		    "device power, ro at %g GB/s, %s (rises as cooling weakens)",
		    cal->slope_to_gbps, p->cooling[order[i]].name);
		prev = st.meter_w - p->machine_idle_w;
	}
	cooling_law(p, &g0, &g1);
	for (unsigned t = 0; t < 3; t++) {
		double a = hold_power(p, types[t], cal->slope_from_gbps, g0, g1);
		double b =
		    hold_power(p, types[t], cal->slope_from_gbps + cal->hold_span_gbps, g0, g1);

		row(&rs, "W", cal->hold_cooling_w, 0.5 * cal->hold_cooling_w,
		    1.5 * cal->hold_cooling_w, b - a, "cooling power to hold %g C, +%g GB/s of %s",
		    cal->hold_c, cal->hold_span_gbps, sb_req_type_name(types[t]));
		mean += (b - a) / 3;
	}
	row(&rs, "W", cal->hold_cooling_w, 0.75 * cal->hold_cooling_w, 1.25 * cal->hold_cooling_w,
	    mean, "cooling power to hold %g C, +%g GB/s, mean of ro, rw, wo", cal->hold_c,
	    cal->hold_span_gbps);
	row(&rs, "C", cal->write_fail_camera_c, cal->write_fail_camera_c - 0.05,
	    cal->write_fail_camera_c + 0.05,
	    other_at(&q, cal->write_fail_cooling, SB_REQ_WO, true, p->failure.write_junction_c),
	    "camera at the write failure (wo, %s)", p->cooling[cal->write_fail_cooling].name);
	row(&rs, "C", cal->read_fail_camera_c, cal->read_fail_camera_c - 0.05,
	    cal->read_fail_camera_c + 0.05,
	    other_at(&q, cal->read_fail_cooling, SB_REQ_RO, true, p->failure.read_junction_c),
	    "camera at the read failure (ro, %s)", p->cooling[cal->read_fail_cooling].name);
	offsets(p, &lo, &hi);
	row(&rs, "C", cal->offset_min_c, cal->offset_min_c - 0.5, cal->offset_max_c, lo,
	    "smallest junction - camera offset (running, not failed)");
	row(&rs, "C", cal->offset_max_c, cal->offset_min_c, cal->offset_max_c + 0.5, hi,
	    "largest junction - camera offset (running, not failed)");
	for (unsigned c = 0; c < p->ncooling; c++)
		row(&rs, "s", NAN, -INFINITY, INFINITY,
		    p->thermal.heatsink_j_per_k * p->cooling[c].heatsink_k_per_w,
		    "heatsink time constant, %s (information)", p->cooling[c].name);
	row(&rs, "C", 0, -p->camera.resolution_c, p->camera.resolution_c,
	    settle_error(p, weakest, cal->slope_to_gbps + 10, 200),
	    "camera after 200 s of ro %g GB/s from idle, %s, minus steady state",
	    cal->slope_to_gbps + 10, p->cooling[weakest].name);
	return (int)rs.n;
}
