/* SPDX-License-Identifier: MIT */
/*
 * Trace replay on a board: any trace the analysis reads (a SCALE-Sim run, a GPGPU-Sim log, a
 * CSV, a captured sbt) is turned into HMC request descriptors and issued by the board's replay
 * block (docs/regmap.md, block replay) — in time order at the trace's own pace (scaled by
 * --speed), or as fast as the board accepts — while the board measures latency and queueing.
 * Descriptors go to the board through a ring in host memory that the board reads by DMA
 * (sb_device_dma_alloc), refilled as the board consumes it, so traces of any length stream.
 * The same code drives the simulated board and a real one.
 *
 * From records to requests (pure functions below, tested on their own):
 *   - which records are memory traffic: all reads, writes and fetches (a fill reads memory)
 *     of the trace (of one subpartition when asked: the L2 of a GPGPU-Sim log, whose L1 and
 *     L2 accesses are not both memory traffic); or, for SCALE-Sim (SB_REPLAY_SELECT_DRAM, the
 *     default for that source),
 *     the DRAM traces only: fetches of the ifmap / filter buffers become reads, the ofmap
 *     write-backs (reads of the ofmap buffer) writes; buffer (SRAM) accesses are not replayed;
 *   - the byte address is the record's address times its subpartition's addr_unit_bytes, kept
 *     to the cube's 34 bits (higher bits dropped and counted);
 *   - records of the same time and kind that fall in one aligned 128-byte block become one
 *     request covering the 16-byte blocks they touch (coalescing; off: one request per record
 *     and 128-byte block);
 *   - time: cycles of the board's clock since the first record, times r (the trace's sampling
 *     density, with interpolation: t̂ = r·t), divided by the speed;
 *   - port: the record's unit when the trace has units and that port is used (a captured
 *     trace replays on the ports that issued it), else round robin over the ports used.
 */
#ifndef STACKBENCH_REPLAY_H
#define STACKBENCH_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sb_replay_select {
	SB_REPLAY_SELECT_AUTO = 0, /* DRAM for SCALE-Sim traces, ALL otherwise */
	SB_REPLAY_SELECT_ALL = 1,  /* reads, writes and fetches (as reads) */
	SB_REPLAY_SELECT_DRAM =
	    2, /* SCALE-Sim DRAM traffic: fetches read, ofmap write-backs write */
};

struct sb_replay_config {
	double speed;       /* time scale: 2 = twice as fast; 0 = as fast as the board accepts */
	bool interpolate;   /* sampled traces: t̂ = r·t with r from the trace's capture */
	uint32_t port_mask; /* ports that issue (0: every port of the board) */
	enum sb_replay_select select;
	bool no_coalesce;    /* one request per record (and per 128-byte block it touches) */
	unsigned ring_log2;  /* descriptors in the host ring: 2^ring_log2 (0: 2^16) */
	uint64_t timeout_ns; /* bench time without progress before giving up (0: 1 s) */
	const char *subpart; /* replay only the records of this subpartition (NULL: all), e.g.
	                        the L2 of a GPGPU-Sim log */
};

/* Defaults: speed 1 (the trace's own pace), every port, automatic selection, coalescing. */
void sb_replay_config_init(struct sb_replay_config *c);

/* One request descriptor (replay_desc in the register map). */
struct sb_replay_desc {
	uint64_t time; /* due time, board cycles after the replay started */
	uint64_t addr; /* 34-bit byte address, 16-byte aligned */
	uint8_t write, flits, port;
};

/* Encode a descriptor into the record's 4 little-endian words (pure). */
void sb_replay_desc_encode(const struct sb_replay_desc *d, uint32_t w[4]);

/* Turns trace records into descriptors (the rules above). */
struct sb_replay_builder {
	enum sb_replay_select select;
	bool coalesce;
	double cycles_per_tick; /* board cycles per trace tick, r / speed folded in */
	uint32_t port_mask;
	bool use_unit;                /* ports from the records' units */
	char only[SB_TRACE_NAME_MAX]; /* replay this subpartition only ("": all) */
	int only_subpart;             /* its index; -1 while not seen */
	/* state */
	bool have_first, have_pend;
	int64_t first_time;
	struct {
		int64_t time;
		uint64_t lo, hi; /* byte range [lo, hi) within one 128-byte block */
		uint8_t write;
		uint32_t unit;
	} pend;
	unsigned next_port;
	/* counts */
	uint64_t records, skipped, wrapped;
};

/*
 * Set up a builder for a trace: what to select (AUTO resolved from info->source), the time
 * scale (clock_hz of the board, info->tick_hz, speed > 0 or 0 for untimed, r), the ports.
 * SB_ERR_INVAL when no port is left or the clock is not positive.
 */
int sb_replay_builder_init(struct sb_replay_builder *b, const struct sb_trace_info *info,
                           enum sb_replay_select select, bool coalesce, double clock_hz,
                           double speed, double r, uint32_t port_mask);

/*
 * Feed one record; descriptors it completes are written to out (room for at least 3: a record
 * may close a pending request and span two 128-byte blocks). Returns the number written.
 */
size_t sb_replay_builder_add(struct sb_replay_builder *b, const struct sb_trace_info *info,
                             const struct sb_trace_record *rec, struct sb_replay_desc *out);

/*
 * The first rule above for one record (counted in b->records, b->skipped): 1 when it is memory
 * traffic under the selection, *write its direction; 0 when it is left out. The HBM2 replay
 * (stackbench/hbm_replay.h) uses it for its own descriptors.
 */
int sb_replay_builder_select(struct sb_replay_builder *b, const struct sb_trace_info *info,
                             const struct sb_trace_record *rec, uint8_t *write);

/*
 * Replay only the records of the subpartition named name (looked up in info when the first
 * record arrives, since readers may declare subpartitions as they go). SB_ERR_INVAL if the
 * name is longer than a subpartition name.
 */
int sb_replay_builder_only(struct sb_replay_builder *b, const char *name);

/* Flush the pending request at the end of the trace; returns 0 or 1 descriptor. */
size_t sb_replay_builder_finish(struct sb_replay_builder *b, struct sb_replay_desc *out);

/* The sampling density r of a trace (1 for a complete one), from its capture description. */
double sb_replay_density(const struct sb_trace_info *info);

#define SB_REPLAY_MAX_VAULTS 16

struct sb_replay_vault_result {
	uint64_t requests, data_bytes;
	uint64_t lat_sum_cycles, lag_sum_cycles;
	uint32_t lat_max_cycles;
	double bandwidth_gbps; /* request + response packets (flit accounting) */
	double latency_avg_ns, latency_max_ns, lag_avg_ns;
	double occupancy; /* requests in flight on average (latency sum / duration) */
};

struct sb_replay_result {
	uint64_t records;  /* read from the trace */
	uint64_t skipped;  /* not memory traffic under the selection */
	uint64_t wrapped;  /* addresses beyond 34 bits (high bits dropped) */
	uint64_t requests; /* descriptors given to the board */
	uint64_t issued, completed, reads, writes, errors, bad;
	uint64_t data_flits;
	double density;    /* r of the input (1 if complete) */
	double time_scale; /* board cycles per trace tick */
	bool timed;
	double clock_hz;
	uint64_t start_cycle, end_cycle, duration_cycles;
	uint64_t trace_cycles; /* due time of the last descriptor */
	double duration_ns;
	double bandwidth_gbps, payload_gbps, mrps;
	double latency_avg_ns, latency_min_ns, latency_max_ns;
	double lag_avg_ns, lag_max_ns;
	unsigned nvaults;
	struct sb_replay_vault_result vault[SB_REPLAY_MAX_VAULTS];
	enum sb_replay_select select;
};

/*
 * Replay the records of r on dev. cap (optional, opened by the caller on dev with the ports
 * the replay uses) captures the replay's own requests; it is started and stopped here (its
 * executed count is the replay's issued requests) and closed by the caller. Returns 0,
 * SB_ERR_NOT_FOUND (no replay block), SB_ERR_NOT_SUPPORTED (no DMA buffer), SB_ERR_INVAL (bad
 * configuration), SB_ERR_TIMEOUT (the board stopped making progress), a trace reader error, or
 * a device error.
 */
int sb_replay_run(struct sb_device *dev, struct sb_trace_reader *r,
                  const struct sb_replay_config *cfg, struct sb_capture *cap,
                  struct sb_replay_result *res);

const char *sb_replay_select_name(enum sb_replay_select s);
int sb_replay_select_parse(const char *s, enum sb_replay_select *out);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_REPLAY_H */
