/* SPDX-License-Identifier: MIT */
/*
 * Trace replay on an HBM2 card (docs/hbm2.md, "Replay"): the records of a trace become burst
 * descriptors (hbm_replay_desc in the register map) that the host writes through the
 * hbm_replay block's registers into its on-chip FIFO — the card has no DMA engine — keeping
 * the FIFO filled while the block issues each descriptor as one AXI3 burst on its port's
 * master, in time order or as fast as the ports accept. The selection, time scale and
 * interpolation are the AC-510 replay's (stackbench/replay.h); the rest differs:
 *   - one record is one burst: its bytes (the record's size, else its subpartition's block)
 *     must be 1..16 beats of 32 bytes, 32-byte aligned, within one 4 KiB page (AXI3), and its
 *     address below 2^34; a record that is not is refused, named by its number, before the
 *     card is touched (sb_hbm_replay_check);
 *   - port: the record's unit when the trace has units and that port is used (a trace
 *     captured on an HBM2 card replays on the ports that issued it; a unit the card does not
 *     have is refused), else round robin over the ports used;
 *   - a trace captured on an HMC board (its subpartitions vaults or banks) is refused.
 */
#ifndef STACKBENCH_HBM_REPLAY_H
#define STACKBENCH_HBM_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/replay.h"
#include "stackbench/trace.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_HBM_REPLAY_MAX_PORTS 32

/* One burst descriptor (hbm_replay_desc). */
struct sb_hbm_replay_desc {
	uint64_t time; /* due, AXI cycles after start_cycle (48 bits) */
	uint64_t addr; /* 34-bit AXI address, 32-byte aligned */
	uint8_t beats, port, write;
};

/* Encode into the record's 4 little-endian words (pure). */
void sb_hbm_replay_desc_encode(const struct sb_hbm_replay_desc *d, uint32_t w[4]);

/* Records to descriptors (the rules above). */
struct sb_hbm_replay_map {
	struct sb_replay_builder b; /* selection, time scale, first time (its ports unused) */
	uint32_t port_mask;
	unsigned ports; /* the card's */
	bool use_unit, hbm_trace;
	unsigned next_port;
	uint64_t index; /* records seen: the number of the next one is index + 1 */
	uint64_t port_requests[SB_HBM_REPLAY_MAX_PORTS];
};

/*
 * Set up for a trace on a card with `ports` ports and an AXI clock of clock_hz. SB_ERR_INVAL
 * for no port left or a bad configuration; SB_ERR_PARSE for a trace captured on an HMC board.
 */
int sb_hbm_replay_map_init(struct sb_hbm_replay_map *m, const struct sb_trace_reader *r,
                           const struct sb_replay_config *cfg, double clock_hz, unsigned ports,
                           double density);

/* One record: 1 with *d set, 0 when it is not replayed, SB_ERR_PARSE naming it when it cannot
 * be one burst. */
int sb_hbm_replay_map_add(struct sb_hbm_replay_map *m, const struct sb_trace_reader *r,
                          const struct sb_trace_record *rec, struct sb_hbm_replay_desc *d);

/*
 * Read the whole trace and refuse it (SB_ERR_PARSE, naming the first record that cannot be
 * replayed) without touching the card beyond reading its identity; descriptors is set to the
 * descriptors it makes. The reader is consumed: open the trace again to replay it.
 */
int sb_hbm_replay_check(struct sb_device *dev, struct sb_trace_reader *r,
                        const struct sb_replay_config *cfg, uint64_t *descriptors);

struct sb_hbm_replay_result {
	uint64_t records, skipped; /* read from the trace; not memory traffic (selection) */
	uint64_t requests;         /* descriptors written to the card */
	uint64_t issued, completed, reads, writes, bytes, errors, bad;
	double density, time_scale, clock_hz;
	bool timed;
	enum sb_replay_select select;
	uint64_t start_cycle, end_cycle, duration_cycles, trace_cycles;
	double duration_ns, bandwidth_gbps; /* payload bytes over the duration (GB = 1e9 B) */
	double latency_min_ns, latency_avg_ns, latency_max_ns, lag_avg_ns, lag_max_ns;
	unsigned ports;                                  /* the card's */
	uint64_t port_bursts[SB_HBM_REPLAY_MAX_PORTS];   /* issued, per the block */
	uint64_t port_requests[SB_HBM_REPLAY_MAX_PORTS]; /* written, per the host */
	uint32_t fifo_depth;
	double host_s; /* host (wall-clock) time of the run: register writes and polling */
};

/*
 * Replay r on an HBM2 card: stop the ports' own engines, reset the block, fill its FIFO,
 * enable it (timed when cfg->speed > 0), keep the FIFO filled on the bench clock, wait for
 * idle, read the counters. cap (optional, opened by the caller on dev) captures the replayed
 * bursts; started and stopped here. SB_ERR_NOT_FOUND: no hbm_replay block; SB_ERR_PARSE: a
 * record that cannot be replayed (the replay is stopped); SB_ERR_TIMEOUT; device errors.
 */
int sb_hbm_replay_run(struct sb_device *dev, struct sb_trace_reader *r,
                      const struct sb_replay_config *cfg, struct sb_capture *cap,
                      struct sb_hbm_replay_result *res);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_HBM_REPLAY_H */
