/* SPDX-License-Identifier: MIT */
/*
 * Bench metrics of a measured point: bandwidth from flit accounting, request rate, latency.
 *
 * HMC packets are 16-byte flits with one flit of header + tail (docs/hmc.md §2):
 *   read request 1 flit, read response 1 + n flits, write request 1 + n flits, write response
 *   1 flit (none for posted writes), n = payload / 16.
 * Bandwidth = accesses x (request + response packet bytes) / elapsed time.
 */
#ifndef STACKBENCH_BENCH_METRICS_H
#define STACKBENCH_BENCH_METRICS_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Bytes on the links (both directions) for one access of size payload bytes. */
unsigned sb_read_access_bytes(unsigned size);
unsigned sb_write_access_bytes(unsigned size, bool posted);

struct sb_bench_counts {
	uint64_t reads, writes;
	unsigned size;      /* payload bytes per request */
	bool posted;        /* writes were posted */
	double duration_ns; /* time the ports were issuing */
	uint64_t lat_sum_cycles, lat_count;
	uint32_t lat_min_cycles, lat_max_cycles;
	double clock_hz; /* cycles of the latency counters */
};

struct sb_bench_metrics {
	double bandwidth_gbps; /* GB/s = 1e9 bytes per second, both directions */
	double payload_gbps;   /* data payload only */
	double mrps;           /* millions of requests per second */
	double lat_min_ns, lat_avg_ns, lat_max_ns; /* 0 when no latency was measured */
	double occupancy; /* Little's law: mean latency x read rate = reads in flight */
};

/* Compute the metrics; returns 0, or SB_ERR_INVAL for a zero duration or clock. */
int sb_bench_metrics(const struct sb_bench_counts *c, struct sb_bench_metrics *m);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_BENCH_METRICS_H */
