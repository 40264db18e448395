/* SPDX-License-Identifier: MIT */
/*
 * The model tests' bench: a board model the test owns, driven through the device API over a
 * transport on the model (so host code runs exactly as on hardware), and a point runner.
 */
#ifndef SB_TEST_MODEL_BENCH_H
#define SB_TEST_MODEL_BENCH_H

#include <stdbool.h>
#include <stdint.h>

#include "sb_model.h"
#include "stackbench/device.h"
#include "stackbench/point.h"

struct bench {
	struct sb_model *m;
	struct sb_device *dev;
};

/* Open a model (profile name or path, NULL: the default) and a device on it; asserts. */
void bench_open(struct bench *b, const char *profile, const struct sb_model_opt *opts,
                size_t nopts);
void bench_close(struct bench *b);

/* A point: type, size, pattern (sb_pattern_masks names, "all"), ports, bench time in us,
 * linear addressing, fast-forward. Asserts that it runs. */
struct sb_point_result bench_run(struct sb_device *dev, enum sb_req_type type, unsigned size,
                                 const char *pattern, unsigned ports, uint64_t us, bool linear,
                                 bool ff);

/* The same with the ports chosen in order o (small-scale GUPS). */
struct sb_point_result bench_run_order(struct sb_device *dev, enum sb_req_type type, unsigned size,
                                       const char *pattern, unsigned ports, uint64_t us,
                                       enum sb_port_order o);

/* Bandwidth (GB/s, flit accounting) of a full-scale point of 1 ms, fully simulated. */
double bench_bw(struct sb_device *dev, enum sb_req_type type, unsigned size, const char *pattern);

/* Mean latency (ns) of stream groups of n requests of size bytes on port 0 (reads). */
struct sb_point_result bench_stream(struct sb_device *dev, unsigned n, unsigned size, uint64_t mask,
                                    uint64_t antimask);

/* Write a sim_ctrl register. */
void bench_sim_write(struct sb_device *dev, uint32_t reg, uint32_t v);

/* Write a copy of the default profile to path with "key: value" lines replaced (pairs of
 * key, value strings, NULL-terminated). */
void bench_profile_variant(const char *path, ...);

#endif
