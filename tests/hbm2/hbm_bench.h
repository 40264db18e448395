/* SPDX-License-Identifier: MIT */
/*
 * A bench for the HBM2 board model's tests: a model (profile u280 unless named), ports
 * programmed through the register map the way a host does, and a measurement window after a
 * warm-up. Bandwidth in GB/s (10^9 B/s) of payload; latencies in AXI-clock cycles.
 */
#ifndef SB_TEST_HBM_BENCH_H
#define SB_TEST_HBM_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "hbm_traffic.h"
#include "sb_hbm_model.h"
#include "sb_regmap.h"

struct hbm_port_prog {
	bool on;
	uint8_t op; /* SB_HBM_OP_* */
	bool random;
	uint32_t burst, stride, outstanding, mix;
	uint64_t start, ws;
};

struct hbm_meas {
	double gbps[32], total_gbps;
	double rd_lat_mean[32]; /* cycles */
	uint32_t rd_lat_min[32], rd_lat_max[32];
	uint64_t rd_bytes[32], wr_bytes[32], errors[32];
};

/* A model with options "key=value" (NULL-terminated list, or NULL). Fails the test on error. */
struct sb_hbm_model *hbm_bench_new(const char *profile, const char *const *opts);

/* A port's program: own pseudo channel (port p at p x 256 MiB), whole PC as working set. */
struct hbm_port_prog hbm_prog_own(unsigned port, uint8_t op, bool random, uint32_t burst);

/* Program the ports, start them together, run warm_us, measure over meas_us. */
void hbm_bench_run(struct sb_hbm_model *m, const struct hbm_port_prog *prog, unsigned nports,
                   uint64_t warm_us, uint64_t meas_us, struct hbm_meas *out);

uint32_t hbm_r32(struct sb_hbm_model *m, uint32_t off);
uint64_t hbm_r64(struct sb_hbm_model *m, uint32_t off);
void hbm_w32(struct sb_hbm_model *m, uint32_t off, uint32_t v);
uint32_t hbm_port_off(unsigned port);

#endif /* SB_TEST_HBM_BENCH_H */
