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

#ifdef __cplusplus
extern "C" {
#endif

#define SB_POINT_MAX_PORTS 32
#define SB_STREAM_MAX 28

struct sb_point_spec {
	enum sb_req_type type;
	unsigned size; /* bytes */
	enum sb_addr_gen gen;
	uint64_t mask, antimask; /* address masks applied to every port */
	unsigned ports;          /* ports 0..ports-1 issue */
	uint64_t duration_ns;    /* bench time the ports issue */
	uint64_t iterations;     /* per port; 0 = run for duration_ns */
	unsigned stream;         /* 0: GUPS traffic; 1..28: repeated stream groups on port 0 */
	uint64_t seed;
	bool fast_forward;        /* let the simulator fast-forward steady state */
	bool posted;              /* posted writes */
	unsigned addr_mode_bytes; /* 0: leave the cube's mode; else 32, 64 or 128 */
	/* Called every sample_ns of bench time while the point runs (0: no samples).
	 * Returning nonzero stops the point early. */
	uint64_t sample_ns;
	int (*sample)(void *ctx, uint64_t t_ns, const struct sb_port_counters *total);
	void *sample_ctx;
};

struct sb_point_result {
	unsigned ports;
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
};

/* Defaults: ro, 128 B, random, all ports, 1 ms, no samples, fast-forward on. */
void sb_point_spec_init(struct sb_point_spec *s, unsigned ports);

/*
 * Run a point. Returns 0 (also when the cube failed: r->failed says so and the counters hold
 * what was measured), SB_ERR_THERMAL if the cube was already failed, SB_ERR_INVAL for a bad
 * spec, or a device error.
 */
int sb_point_run(struct sb_device *dev, const struct sb_point_spec *s, struct sb_point_result *r);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_POINT_H */
