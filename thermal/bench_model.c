/* SPDX-License-Identifier: MIT */
/*
 * The bench model: cube power, the two-node thermal network, thermal failure, and the
 * simulated camera and meter. See stackbench/bench_model.h and docs/bench-model.md.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/bench_metrics.h"
#include "stackbench/bench_model.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

struct rng {
	uint64_t s;
};

struct sb_bench_model {
	struct sb_bench_params p;
	unsigned cooling;
	uint64_t now_ns;
	double tj, ts;          /* junction, heatsink over the cube */
	double cube_w, meter_w; /* at the end of the last step */
	double energy_j;        /* meter energy since the start */
	double dtj_dt;          /* junction rate of the last step, K/s */
	double refresh_per_s;   /* refresh rate of the last step */
	double threshold_c;
	struct {
		bool failed;
		double trip_c;
		unsigned count;
		uint64_t t_ns;
		double tj, ts;
	} fail;
	struct {
		uint64_t t_ns;
		double energy_j;
		bool read;
	} meter;
	struct rng cam_rng, meter_rng;
	struct sb_raw_image *raw; /* camera render buffer */
};

/* ---- noise ------------------------------------------------------------------------------ */

static uint64_t rng_next(struct rng *r)
{
	uint64_t x = (r->s += 0x9E3779B97F4A7C15ull);

	x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
	x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
	return x ^ (x >> 31);
}

/* Uniform in (0, 1). */
static double rng_uniform(struct rng *r)
{
	return ((double)(rng_next(r) >> 11) + 0.5) / 9007199254740992.0;
}

static double rng_normal(struct rng *r, double sigma)
{
	double u = rng_uniform(r), v = rng_uniform(r);

	if (sigma <= 0)
		return 0;
	return sigma * sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/* ---- power ------------------------------------------------------------------------------ */

void sb_bench_gups_rates(enum sb_req_type type, unsigned size, double bw_gbps,
                         struct sb_bench_rates *r)
{
	/* Bytes of one access on the links, both directions (flit accounting). */
	double rd_bytes = sb_read_access_bytes(size), wr_bytes = sb_write_access_bytes(size, false);
	double per, rate;

	memset(r, 0, sizeof(*r));
	if (!(bw_gbps > 0) || size < 16)
		return;
	per = type == SB_REQ_RO ? rd_bytes : type == SB_REQ_WO ? wr_bytes : rd_bytes + wr_bytes;
	rate = bw_gbps * 1e9 / per; /* accesses (rw: read-write pairs) per second */
	if (type != SB_REQ_WO) {
		r->reads = rate;
		r->read_bytes = rate * size;
	}
	if (type != SB_REQ_RO) {
		r->writes = rate;
		r->write_bytes = rate * size;
	}
	r->flits = bw_gbps * 1e9 / 16.0;
}

static double leakage_w(const struct sb_bench_params *p, double tj)
{
	double x = (tj - p->cube.leakage_ref_c) / p->cube.leakage_doubling_c;

	return p->cube.leakage_w * exp2(x < 20 ? x : 20);
}

double sb_bench_cube_power_w(const struct sb_bench_params *p, const struct sb_bench_rates *r,
                             double junction_c)
{
	double traffic = r->flits * 128.0 * p->cube.link_pj_per_bit * 1e-12 +
	                 (r->reads + r->writes) * p->cube.access_nj * 1e-9 +
	                 r->read_bytes * 8.0 * p->cube.read_pj_per_bit * 1e-12 +
	                 r->write_bytes * 8.0 * p->cube.write_pj_per_bit * 1e-12;

	return p->cube.static_w + leakage_w(p, junction_c) +
	       r->refreshes * p->cube.refresh_nj * 1e-9 + traffic;
}

int sb_bench_steady(const struct sb_bench_params *p, unsigned cooling,
                    const struct sb_bench_rates *r, struct sb_bench_steady *out)
{
	const double rjs = p->thermal.junction_to_spot_k_per_w;
	const double ra = p->cooling[cooling].heatsink_k_per_w;
	struct sb_bench_rates rr = {0};
	double tj = p->ambient_c, ts = tj, pc = 0;

	if (r)
		rr = *r;
	for (int i = 0; i < 2000; i++) {
		double next;

		rr.refreshes = p->cube.refresh_per_s * (tj > p->cube.hot_refresh_c ? 2 : 1);
		pc = sb_bench_cube_power_w(p, &rr, tj);
		ts = p->ambient_c + ra * (pc + p->fpga_w);
		next = ts + rjs * pc;
		if (!(next < 400))
			break;
		if (fabs(next - tj) < 1e-9) {
			tj = next;
			out->junction_c = tj;
			out->spot_c = ts;
			out->cube_w = pc;
			out->meter_w = p->machine_idle_w + p->fpga_w + pc;
			return 0;
		}
		tj = 0.5 * (tj + next); /* damped: converges while the leakage loop gain is < 1 */
	}
	return sb_error_set(SB_ERR_RANGE,
	                    "bench '%s': no steady state in cooling '%s' (thermal runaway)",
	                    p->name, p->cooling[cooling].name);
}

/* ---- the dynamic model ------------------------------------------------------------------ */

int sb_bench_model_new(struct sb_bench_model **out, const struct sb_bench_params *p, uint64_t seed)
{
	struct sb_bench_steady st;
	struct sb_bench_model *bm;
	int err;

	bm = calloc(1, sizeof(*bm));
	if (!bm)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the bench model");
	bm->raw = malloc(sizeof(*bm->raw));
	if (!bm->raw) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory for the bench model");
		goto fail_raw;
	}
	bm->p = *p;
	bm->cooling = p->default_cooling;
	if ((err = sb_bench_steady(p, bm->cooling, NULL, &st)) < 0)
		goto fail_steady;
	bm->tj = st.junction_c;
	bm->ts = st.spot_c;
	bm->cube_w = st.cube_w;
	bm->meter_w = st.meter_w;
	bm->threshold_c = p->failure.read_junction_c;
	bm->cam_rng.s = seed * 0x100000001B3ull ^ 0xCA3E8A;
	bm->meter_rng.s = seed * 0x100000001B3ull ^ 0x3E7E8;
	*out = bm;
	return 0;

fail_steady:
	free(bm->raw);
fail_raw:
	free(bm);
	return err;
}

void sb_bench_model_free(struct sb_bench_model *bm)
{
	if (!bm)
		return;
	free(bm->raw);
	free(bm);
}

const struct sb_bench_params *sb_bench_model_params(const struct sb_bench_model *bm)
{
	return &bm->p;
}

int sb_bench_model_set_cooling(struct sb_bench_model *bm, const char *name)
{
	int i = sb_bench_find_cooling(&bm->p, name);

	if (i < 0)
		return i;
	if ((unsigned)i != bm->cooling)
		sb_info("bench: cooling %s -> %s at %.3f s", bm->p.cooling[bm->cooling].name, name,
		        bm->now_ns / 1e9);
	bm->cooling = (unsigned)i;
	return 0;
}

const struct sb_cooling_cfg *sb_bench_model_cooling(const struct sb_bench_model *bm)
{
	return &bm->p.cooling[bm->cooling];
}

uint64_t sb_bench_model_step_hint_ns(const struct sb_bench_model *bm)
{
	const double lo = bm->p.coupling.min_step_s, hi = bm->p.coupling.max_step_s;
	double rate = fabs(bm->dtj_dt), s = hi;

	if (rate > 0)
		s = bm->p.coupling.max_junction_change_c / rate;
	if (s < lo)
		s = lo;
	if (s > hi)
		s = hi;
	return (uint64_t)(s * 1e9);
}

/* Failure threshold of traffic with this share of writes. */
static double threshold(const struct sb_bench_params *p, double write_share)
{
	double k = write_share / p->failure.write_share_full;

	if (k > 1)
		k = 1;
	return p->failure.read_junction_c -
	       (p->failure.read_junction_c - p->failure.write_junction_c) * k;
}

/* Derivatives of the network: junction and heatsink, K/s. */
static void derivs(const struct sb_bench_model *bm, double pc, double tj, double ts, double *dj,
                   double *ds)
{
	const struct sb_bench_params *p = &bm->p;
	double flow = (tj - ts) / p->thermal.junction_to_spot_k_per_w;
	double ra = p->cooling[bm->cooling].heatsink_k_per_w;

	*dj = (pc - flow) / p->thermal.junction_j_per_k;
	*ds = (flow + p->fpga_w - (ts - p->ambient_c) / ra) / p->thermal.heatsink_j_per_k;
}

void sb_bench_model_step(struct sb_bench_model *bm, uint64_t dt_ns,
                         const struct sb_bench_activity *a, struct sb_bench_event *ev)
{
	const struct sb_bench_params *p = &bm->p;
	double dt = dt_ns * 1e-9, tj0 = bm->tj, tmax = bm->tj, h, fixed_w;
	struct sb_bench_rates r;
	uint64_t reqs = a->reads + a->writes;
	unsigned n;

	memset(ev, 0, sizeof(*ev));
	if (!dt_ns)
		return;
	r = (struct sb_bench_rates){
	    .reads = a->reads / dt,
	    .writes = a->writes / dt,
	    .read_bytes = a->read_bytes / dt,
	    .write_bytes = a->write_bytes / dt,
	    .flits = (double)(a->req_flits + a->resp_flits) / dt,
	    .refreshes = a->refreshes / dt,
	};
	bm->threshold_c = threshold(p, reqs ? (double)a->writes / (double)reqs : 0);
	n = (unsigned)ceil(dt / p->coupling.substep_s);
	if (!n)
		n = 1;
	h = dt / n;
	fixed_w = p->machine_idle_w + p->fpga_w;
	for (unsigned i = 0; i < n; i++) {
		double p1 = sb_bench_cube_power_w(p, &r, bm->tj), p2, j1, s1, j2, s2, tj2, ts2;

		/* Heun: Euler predictor, trapezoid corrector. */
		derivs(bm, p1, bm->tj, bm->ts, &j1, &s1);
		tj2 = bm->tj + h * j1;
		ts2 = bm->ts + h * s1;
		p2 = sb_bench_cube_power_w(p, &r, tj2);
		derivs(bm, p2, tj2, ts2, &j2, &s2);
		bm->tj += 0.5 * h * (j1 + j2);
		bm->ts += 0.5 * h * (s1 + s2);
		bm->energy_j += h * (fixed_w + 0.5 * (p1 + p2));
		if (bm->tj > tmax)
			tmax = bm->tj;
	}
	bm->cube_w = sb_bench_cube_power_w(p, &r, bm->tj);
	bm->refresh_per_s = r.refreshes;
	bm->meter_w = fixed_w + bm->cube_w;
	bm->dtj_dt = (bm->tj - tj0) / dt;
	bm->now_ns += dt_ns;
	ev->junction_c = tmax;
	ev->threshold_c = bm->threshold_c;
	if (!bm->fail.failed && tmax >= bm->threshold_c) {
		bm->fail.failed = true;
		bm->fail.trip_c = bm->threshold_c;
		bm->fail.count++;
		bm->fail.t_ns = bm->now_ns;
		bm->fail.tj = tmax;
		bm->fail.ts = bm->ts;
		ev->fail = true;
		sb_info(
		    "bench: thermal failure at %.3f s: junction %.2f C >= %.2f C (camera %.2f C)",
		    bm->now_ns / 1e9, tmax, bm->threshold_c, bm->ts);
	}
}

bool sb_bench_model_failed(const struct sb_bench_model *bm)
{
	return bm->fail.failed;
}

void sb_bench_model_note_failure(struct sb_bench_model *bm)
{
	if (bm->fail.failed)
		return;
	bm->fail.failed = true;
	bm->fail.trip_c = bm->threshold_c;
	bm->fail.count++;
	bm->fail.t_ns = bm->now_ns;
	bm->fail.tj = bm->tj;
	bm->fail.ts = bm->ts;
}

bool sb_bench_model_cube_reset(struct sb_bench_model *bm)
{
	if (!bm->fail.failed)
		return true;
	if (bm->tj >= bm->fail.trip_c - bm->p.failure.recover_hysteresis_c) {
		sb_info("bench: cube reset at %.3f s while the junction is at %.2f C (needs < %.2f "
		        "C): it fails again",
		        bm->now_ns / 1e9, bm->tj,
		        bm->fail.trip_c - bm->p.failure.recover_hysteresis_c);
		return false;
	}
	bm->fail.failed = false;
	return true;
}

void sb_bench_model_state(const struct sb_bench_model *bm, struct sb_bench_state *st)
{
	*st = (struct sb_bench_state){
	    .t_ns = bm->now_ns,
	    .junction_c = bm->tj,
	    .spot_c = bm->ts,
	    .cube_w = bm->cube_w,
	    .meter_w = bm->meter_w,
	    .energy_j = bm->energy_j,
	    .threshold_c = bm->threshold_c,
	    .refresh_per_s = bm->refresh_per_s,
	    .failed = bm->fail.failed,
	    .failures = bm->fail.count,
	    .fail_ns = bm->fail.t_ns,
	    .fail_junction_c = bm->fail.tj,
	    .fail_spot_c = bm->fail.ts,
	    .cooling = bm->p.cooling[bm->cooling].name,
	};
}

/* ---- the simulated camera and meter ----------------------------------------------------- */

static bool inside(const struct sb_roi *r, unsigned x, unsigned y)
{
	return x >= r->x && x < r->x + r->w && y >= r->y && y < r->y + r->h;
}

static double blob(double base, double peak, double dx, double dy, double sigma)
{
	return base + (peak - base) * exp(-(dx * dx + dy * dy) / (2 * sigma * sigma));
}

int sb_bench_model_camera_frame(struct sb_bench_model *bm, uint8_t *buf, size_t cap)
{
	const struct sb_bench_params *p = &bm->p;
	const struct sb_bench_scene *sc = &p->camera.scene;
	struct sb_raw_image *img = bm->raw;
	double rise = bm->ts - p->ambient_c, offset = rng_normal(&bm->cam_rng, p->camera.noise_c);
	double fpga_peak = p->ambient_c + sc->fpga_frac * rise;
	char status[256];

	img->width = p->camera.width;
	img->height = p->camera.height;
	for (unsigned y = 0; y < img->height; y++) {
		for (unsigned x = 0; x < img->width; x++) {
			bool hs = inside(&sc->heatsink, x, y);
			double base =
			    p->ambient_c + (hs ? sc->heatsink_frac : sc->background_frac) * rise;
			double t = base, raw;

			if (hs) {
				double c = blob(base, bm->ts, x - sc->cube_x, y - sc->cube_y,
				                sc->cube_sigma_px);
				double f = blob(base, fpga_peak, x - sc->fpga_x, y - sc->fpga_y,
				                sc->fpga_sigma_px);

				t = c > f ? c : f;
				if (base > t)
					t = base;
			}
			t += offset + rng_normal(&bm->cam_rng, p->camera.pixel_noise_c);
			raw = round(sb_planck_from_c(&p->camera.planck, t));
			if (!(raw >= 0))
				raw = 0;
			if (raw > SB_FLIR_RAW_LIMIT - 1)
				raw = SB_FLIR_RAW_LIMIT - 1;
			img->px[y * img->width + x] = (uint16_t)raw;
		}
	}
	snprintf(status, sizeof(status),
	         "{\"shutterState\":\"ON\",\"shutterTemperature\":%.3f,"
	         "\"usbNotifiedTimestamp\":%.6f,\"ffcState\":\"FFC_VALID_RAD\"}",
	         p->ambient_c + 273.15 + 8.0, bm->now_ns / 1e9);
	return sb_flir_encode(img, status, buf, cap);
}

void sb_bench_model_meter(struct sb_bench_model *bm, struct sb_bench_meter_reading *r)
{
	const struct sb_bench_params *p = &bm->p;
	double w = bm->meter_w;

	if (bm->meter.read && bm->now_ns > bm->meter.t_ns)
		w = (bm->energy_j - bm->meter.energy_j) / ((bm->now_ns - bm->meter.t_ns) * 1e-9);
	bm->meter.read = true;
	bm->meter.t_ns = bm->now_ns;
	bm->meter.energy_j = bm->energy_j;
	r->power_w =
	    sb_quantize(w + rng_normal(&bm->meter_rng, p->meter.noise_w), p->meter.resolution_w);
	r->volts = sb_quantize(p->mains_v + rng_normal(&bm->meter_rng, p->meter.volts_noise_v),
	                       p->meter.volts_resolution_v);
	r->amps =
	    sb_quantize(r->power_w / (r->volts * p->power_factor), p->meter.amps_resolution_a);
}
