/* SPDX-License-Identifier: MIT */
/*
 * One measurement point: program the ports, run for a time on the bench clock while sampling,
 * stop, drain, read the counters, compute the metrics. The campaign engine and
 * `stackbench point` both run points through this.
 */
#ifndef STACKBENCH_POINT_H
#define STACKBENCH_POINT_H

#include <stdbool.h>
#include <stdint.h>

#include "stackbench/bench_metrics.h"
#include "stackbench/device.h"
#include "stackbench/gups.h"
#include "stackbench/instrument.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_POINT_MAX_PORTS 32
#define SB_STREAM_MAX 28

/* Instruments sampled while a point runs; each may be NULL. */
struct sb_point_instruments {
	struct sb_temp_source *temp;
	struct sb_power_source *power;
	struct sb_cooling *cooling;
};

/* One instrument sample taken while a point runs. */
struct sb_point_sample {
	uint64_t t_ns; /* bench time since the point started */
	bool has_temp, has_power;
	struct sb_temp_reading temp;   /* temp.frame: the whole frame, valid during the call */
	struct sb_power_reading power; /* mean power since the previous sample */
	double heatsink_c; /* the cooling actuator's heatsink thermocouple (NAN: none) */
};

/* What the point knew when it saw the cube fail. */
struct sb_point_failure {
	uint64_t t_ns;                 /* bench time since the start when the failure was seen */
	uint64_t after_ns;             /* ... and it happened after this one (previous check) */
	double temperature_c;          /* hot spot at the failure (NAN without a camera) */
	double power_w;                /* last power reading before it (NAN without a meter) */
	struct sb_port_counters total; /* counters when it was seen: what the point measured */
	uint32_t thermal_events;       /* the cube's thermal-failure count since power-up */
	unsigned errstat;              /* ERRSTAT of the failure */
};

/*
 * Which ports a point with fewer ports than the board uses (small-scale GUPS):
 * FIRST: ports 0..n-1; SPREAD: round robin over the links the ports report
 * (gups_port.info.link), so that the offered load rises evenly on every link.
 */
enum sb_port_order { SB_PORT_ORDER_FIRST, SB_PORT_ORDER_SPREAD };

struct sb_point_spec {
	enum sb_req_type type;
	unsigned size; /* bytes */
	enum sb_addr_gen gen;
	uint64_t mask, antimask; /* address masks applied to every port */
	unsigned ports;          /* number of ports issuing; 0: none (an idle point of GUPS) */
	enum sb_port_order port_order; /* which ports they are */
	uint64_t duration_ns;          /* bench time the ports issue */
	uint64_t iterations;           /* per port; 0 = run for duration_ns */
	unsigned stream; /* 0: GUPS traffic; 1..28: repeated stream groups on port 0 */
	uint64_t seed;
	bool fast_forward;        /* let the simulator fast-forward steady state */
	bool posted;              /* posted writes */
	unsigned addr_mode_bytes; /* 0: leave the cube's mode; else 32, 64 or 128 */
	/* Called every sample_ns of bench time while the point runs (0: no samples).
	 * Returning nonzero stops the point early. */
	uint64_t sample_ns;
	int (*sample)(void *ctx, uint64_t t_ns, const struct sb_port_counters *total);
	void *sample_ctx;
	/* Instruments (optional). The temperature and power sources are sampled at the start,
	 * every inst_sample_ns of bench time (0: duration / 20 within [1 ms, 1 s]) and at the
	 * end; inst_sample, if set, sees every sample (nonzero stops the point). */
	struct sb_point_instruments inst;
	const char *cooling; /* apply this cooling configuration first (needs inst.cooling) */
	/* ... then wait for the actuator's heatsink to settle (window_s 0: do not wait). */
	struct sb_cooling_settle settle;
	uint64_t inst_sample_ns;
	int (*inst_sample)(void *ctx, const struct sb_point_sample *s);
	void *inst_sample_ctx;
	/* When the temperature or power source fails mid-point (disconnect, stall, garbage): the
	 * ports stop first, then the source is reopened for up to reconnect_ms (0: 10 s). */
	unsigned reconnect_ms;
	/* Trace capture (stackbench/capture.h, opened by the caller; NULL: none): started before
	 * the ports, drained while they run, stopped after they drained with the executed count
	 * of the ports it records. The caller closes it. GUPS traffic only. */
	struct sb_capture *capture;
};

struct sb_point_result {
	unsigned ports;
	uint8_t port_id[SB_POINT_MAX_PORTS]; /* the board's port behind port[i] */
	struct sb_port_counters port[SB_POINT_MAX_PORTS];
	struct sb_port_counters total; /* sums; latency min/max over the ports */
	struct sb_bench_metrics metrics;
	uint64_t t_start_ns, duration_ns;
	double clock_hz;
	bool fast_forward; /* the simulator fast-forwarded part of the point */
	uint64_t ff_skipped_ns;
	bool failed; /* the cube failed (thermal) during the point */
	uint64_t t_fail_ns;
	struct sb_hmc_status hmc; /* at the end */
	unsigned stream_groups;   /* stream mode: groups run */
	unsigned mismatches;      /* stream integrity mismatches */
	/* Instruments: has_* says whether the point had them. */
	bool has_temperature, has_power, has_cooling;
	double temperature_c; /* steady state: mean hot spot over the last 10 % of the point */
	double temperature_start_c; /* hot spot before the ports started */
	double temperature_max_c;
	bool temperature_steady; /* the hot spot's mean moved < 0.2 C between the last two tenths */
	double power_w;          /* mean power over the point */
	double power_max_w;      /* highest reading */
	unsigned inst_samples;
	struct sb_cooling_state cooling;   /* the configuration the point ran in */
	struct sb_cooling_settled settled; /* the wait for the heatsink before the point */
	bool rig_fault; /* the cooling rig went into its fail-safe: the point stopped there */
	struct sb_cooling_state rig_state; /* ... what it reported then */
	struct sb_point_failure failure;   /* valid when failed */
	/* An instrument was lost mid-point and came back: the ports were stopped at
	 * inst_lost_ns, the counters and metrics cover the point until then (incomplete). */
	bool inst_lost;
	uint64_t inst_lost_ns;
	char inst_lost_msg[256];
};

/* "first" / "spread" and back (SB_ERR_INVAL naming the choices). */
const char *sb_port_order_name(enum sb_port_order o);
int sb_port_order_parse(const char *s, enum sb_port_order *o);

/* The n ports a point in order o uses, in the order they are counted (ids[0..n-1]). */
int sb_point_port_ids(struct sb_device *dev, enum sb_port_order o, unsigned n, uint8_t *ids);

/* Defaults: ro, 128 B, random, all ports, 1 ms, no samples, no instruments, fast-forward on. */
void sb_point_spec_init(struct sb_point_spec *s, unsigned ports);

/*
 * Run a point. Returns 0 (also when the cube failed: r->failed says so, r->failure says when,
 * how hot and what had been measured, and the counters hold what was measured; and when the
 * cooling rig went into its fail-safe: r->rig_fault, the point stopped at that sample),
 * SB_ERR_THERMAL if the cube was already failed, SB_ERR_STATE if the cooling rig is in its
 * fail-safe before the point, SB_ERR_INVAL for a bad spec (or a cooling
 * configuration without a cooling actuator), SB_ERR_NOT_FOUND for an unknown cooling
 * configuration, or a device or instrument error. An instrument lost mid-point stops the ports
 * first; if it comes back within reconnect_ms the point returns 0 with r->inst_lost set (what
 * was measured until then), otherwise the instrument's error (r holds the same partial data).
 */
int sb_point_run(struct sb_device *dev, const struct sb_point_spec *s, struct sb_point_result *r);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_POINT_H */
