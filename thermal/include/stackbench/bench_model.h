/* SPDX-License-Identifier: MIT */
/*
 * The bench model: temperature, power and cooling of the simulated bench (an AC-510 on its
 * backplane, under a heatsink, with backplane fans, a desk fan, a thermal camera and a power
 * meter). Every parameter comes from a YAML file (thermal/data/NAME.yaml); docs/bench-model.md
 * explains each one, its source, the fit to the calibration data and the residuals.
 *
 * The model is a lumped thermal network of two nodes:
 *
 *   junction (cube die, heat capacity Cj) --R_js-- heatsink over the cube (Cs) --R_a(cooling)-- ambient
 *                 ^ cube power                         ^ FPGA power (constant)
 *
 * The cube's power is a static part, leakage that grows with the junction temperature,
 * refresh (twice as often above 85 C, counted by the board), and traffic: energy per flit on
 * the links, per request (activate/precharge) and per payload bit read or written, from the
 * board's activity counters. The camera sees the heatsink over the cube (R_js * P_cube, 5..10 C,
 * below the junction), with noise, at its resolution. The meter sees the machine's idle power,
 * the FPGA and the cube. When the junction passes the failure threshold of the traffic (write
 * traffic fails lower than read traffic), the model reports a failure; the cube may run again
 * only after a reset, and only once the junction is below the threshold that tripped minus a
 * hysteresis.
 *
 * The model knows nothing of the board model: the sim: transport feeds it activity and
 * applies what it reports (temperature for refresh, thermal failure). It is pure and
 * deterministic: the same seed and the same steps give the same results.
 */
#ifndef STACKBENCH_BENCH_MODEL_H
#define STACKBENCH_BENCH_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/gups.h"
#include "stackbench/radiometry.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_BENCH_DEFAULT "ac510-lab"
#define SB_BENCH_MAX_COOLING 16
#define SB_BENCH_NAME_MAX 32

/* A cooling configuration (backplane fans on a DC supply plus a desk fan at a distance). */
struct sb_cooling_cfg {
	char name[SB_BENCH_NAME_MAX];
	double fan_supply_v, fan_supply_a; /* the backplane fans' DC supply */
	double fan_rpm;                    /* backplane fan speed at that supply */
	double desk_fan_distance_cm;       /* 0: desk fan off */
	double cooling_power_w;            /* power spent on cooling (calibration data) */
	double heatsink_k_per_w;           /* heatsink-to-ambient resistance (fitted) */
	double idle_c;                     /* idle camera temperature (calibration; NAN: none) */
};

/* What the camera sees, in pixels of its frame. */
struct sb_bench_scene {
	struct sb_roi heatsink;                /* the heatsink's outline */
	double heatsink_frac, background_frac; /* of the rise of the hot spot over ambient */
	double cube_x, cube_y, cube_sigma_px;  /* hot spot over the cube */
	double fpga_x, fpga_y, fpga_sigma_px;  /* the FPGA's region */
	double fpga_frac;                      /* FPGA region peak, of the hot spot's rise */
};

/* The calibration targets (docs/hmc.md §7) the fit and the checks use. */
struct sb_bench_calibration {
	unsigned slope_cooling; /* configuration of the slopes (index) */
	double slope_from_gbps, slope_to_gbps;
	unsigned size;           /* request size of the calibration traffic, bytes */
	double ro_power_slope_w; /* device power rise, ro, over the slope range */
	double ro_temp_slope_c, rw_temp_slope_c;
	double hold_c, hold_span_gbps, hold_cooling_w; /* cooling to hold hold_c per span */
	unsigned write_fail_cooling; /* where write traffic fails at write_fail_camera_c */
	double write_fail_camera_c;
	unsigned read_fail_cooling; /* where read traffic would fail at read_fail_camera_c */
	double read_fail_camera_c;
	double read_survive_camera_c;      /* read-only traffic ran without failure up to this */
	double offset_min_c, offset_max_c; /* camera below the junction */
};

struct sb_bench_params {
	char name[64];
	char path[512];
	double ambient_c;
	double machine_idle_w, mains_v, power_factor;
	double fpga_w; /* constant (fitted) */
	struct {
		double static_w;
		double leakage_w, leakage_ref_c, leakage_doubling_c;
		double refresh_nj, refresh_per_s,
		    hot_refresh_c; /* per vault refresh; nominal rate */
		double link_pj_per_bit, access_nj;
		double read_pj_per_bit, write_pj_per_bit; /* fitted */
	} cube;
	struct {
		double junction_to_spot_k_per_w;
		double junction_j_per_k, heatsink_j_per_k;
	} thermal;
	struct {
		double write_junction_c, read_junction_c; /* fitted */
		double write_share_full;                  /* write share of full write threshold */
		double recover_hysteresis_c;
	} failure;
	unsigned ncooling, default_cooling;
	struct sb_cooling_cfg cooling[SB_BENCH_MAX_COOLING];
	struct {
		unsigned width, height;
		double frame_rate_hz;
		double noise_c, pixel_noise_c, resolution_c;
		struct sb_planck planck;
		struct sb_bench_scene scene;
		struct sb_roi roi; /* default region of interest (around the cube) */
	} camera;
	struct {
		double noise_w, resolution_w;
		double volts_noise_v, volts_resolution_v, amps_resolution_a;
	} meter;
	struct {
		double max_step_s, min_step_s, max_junction_change_c, substep_s;
	} coupling;
	struct sb_bench_calibration cal;
};

/*
 * Load bench parameters: a name (found in $STACKBENCH_BENCH_PATH, the source tree's
 * thermal/data, the installed data folder) or a path to a YAML file; NULL or "" is the default
 * bench. Returns 0, SB_ERR_NOT_FOUND, SB_ERR_IO or SB_ERR_PARSE (detail names file, line and
 * key).
 */
int sb_bench_params_load(struct sb_bench_params *p, const char *name_or_path);

/* Index of a cooling configuration; SB_ERR_NOT_FOUND (detail lists the names). */
int sb_bench_find_cooling(const struct sb_bench_params *p, const char *name);

/* Traffic as rates per second. */
struct sb_bench_rates {
	double reads, writes, read_bytes, write_bytes;
	double flits;     /* both directions */
	double refreshes; /* vault refreshes (dynamic model only; the steady state uses nominal) */
};

/* The rates of GUPS traffic of a type and request size at a bandwidth (flit accounting). */
void sb_bench_gups_rates(enum sb_req_type type, unsigned size, double bw_gbps,
                         struct sb_bench_rates *r);

/* Cube power at a junction temperature (refresh from r->refreshes). */
double sb_bench_cube_power_w(const struct sb_bench_params *p, const struct sb_bench_rates *r,
                             double junction_c);

/* Steady state of a cooling configuration under constant traffic (NULL: idle). */
struct sb_bench_steady {
	double junction_c, spot_c, cube_w, meter_w;
};
/* Returns 0, or SB_ERR_RANGE when there is no steady state (thermal runaway). */
int sb_bench_steady(const struct sb_bench_params *p, unsigned cooling,
                    const struct sb_bench_rates *r, struct sb_bench_steady *out);

/* ---- the dynamic model ---------------------------------------------------------------- */

struct sb_bench_model;

/* Activity of one step: deltas of the board's counters. */
struct sb_bench_activity {
	uint64_t reads, writes, read_bytes, write_bytes, req_flits, resp_flits, refreshes;
};

struct sb_bench_event {
	bool fail;          /* the junction passed the threshold in this step */
	double junction_c;  /* hottest junction temperature of the step */
	double threshold_c; /* threshold of the step's traffic */
};

struct sb_bench_state {
	uint64_t t_ns;
	double junction_c, spot_c, cube_w, meter_w, energy_j;
	double threshold_c;   /* failure threshold of the last step's traffic */
	double refresh_per_s; /* the board's refresh rate in the last step (x2 above 85 C) */
	bool failed;
	unsigned failures;
	uint64_t fail_ns;
	double fail_junction_c, fail_spot_c;
	const char *cooling;
};

/*
 * A model starting in the steady idle state of the default cooling configuration. The
 * parameters are copied. Returns 0, SB_ERR_NOMEM, SB_ERR_RANGE (no steady idle state).
 */
int sb_bench_model_new(struct sb_bench_model **out, const struct sb_bench_params *p, uint64_t seed);
void sb_bench_model_free(struct sb_bench_model *bm);

const struct sb_bench_params *sb_bench_model_params(const struct sb_bench_model *bm);

/* Switch the cooling configuration now. SB_ERR_NOT_FOUND (detail lists the names). */
int sb_bench_model_set_cooling(struct sb_bench_model *bm, const char *name);
const struct sb_cooling_cfg *sb_bench_model_cooling(const struct sb_bench_model *bm);

/* The longest step that keeps the junction's change within the coupling bound. */
uint64_t sb_bench_model_step_hint_ns(const struct sb_bench_model *bm);

/* Advance dt_ns with the activity that happened in it. */
void sb_bench_model_step(struct sb_bench_model *bm, uint64_t dt_ns,
                         const struct sb_bench_activity *delta, struct sb_bench_event *ev);

/* Failure handshake with the board. */
bool sb_bench_model_failed(const struct sb_bench_model *bm);
/* The board failed for another reason (an injected failure): latch it. */
void sb_bench_model_note_failure(struct sb_bench_model *bm);
/* The cube was reset: true if it may run again, false if it is still too hot (fails again). */
bool sb_bench_model_cube_reset(struct sb_bench_model *bm);

void sb_bench_model_state(const struct sb_bench_model *bm, struct sb_bench_state *st);

/*
 * The simulated camera: render the current scene as a FLIR One (160x120) USB frame into buf.
 * Returns the frame length or SB_ERR_RANGE (cap too small).
 */
int sb_bench_model_camera_frame(struct sb_bench_model *bm, uint8_t *buf, size_t cap);

/* The simulated meter: mean power since its last reading (instantaneous the first time). */
struct sb_bench_meter_reading {
	double power_w, volts, amps;
};
void sb_bench_model_meter(struct sb_bench_model *bm, struct sb_bench_meter_reading *r);

/* ---- the fit and the checks against the calibration data -------------------------------- */

struct sb_bench_fit {
	double fpga_w, read_pj_per_bit, write_pj_per_bit;
	double write_junction_c, read_junction_c;
	double heatsink_k_per_w[SB_BENCH_MAX_COOLING];
	double cooling_g0, cooling_g1; /* heatsink conductance = g0 + g1 * cooling power (W/K) */
};

/*
 * Fit the parameters marked "fitted" to the calibration data, the others held as given.
 * Returns 0, SB_ERR_RANGE when a target cannot be met, SB_ERR_INVAL (calibration incomplete).
 */
int sb_bench_fit(const struct sb_bench_params *p, struct sb_bench_fit *fit);
void sb_bench_fit_apply(struct sb_bench_params *p, const struct sb_bench_fit *fit);

/* One row of the comparison with the calibration data. */
struct sb_bench_check {
	char name[80];
	const char *unit;
	double target; /* NAN: no single target (a bound or information) */
	double lo, hi; /* acceptance interval (+-inf: none) */
	double model;
	bool ok;
};

/* Compare the model with the calibration data. Returns the number of rows (<= max) or an error. */
int sb_bench_check_all(const struct sb_bench_params *p, struct sb_bench_check *rows, unsigned max);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_BENCH_MODEL_H */
