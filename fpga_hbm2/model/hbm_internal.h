/* SPDX-License-Identifier: MIT */
/* Internals shared by the files of the HBM2 board model. */
#ifndef SB_HBM_INTERNAL_H
#define SB_HBM_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "hbm_mem.h"
#include "hbm_profile.h"
#include "hbm_regs.h"
#include "hbm_traffic.h"
#include "sb_hbm_model.h"

/* A burst an engine issued, until it is accounted (slot = its AXI ID). */
struct hbm_flight {
	uint64_t t_issue, t_first, t_done;
	uint8_t beats, resp;
	bool write, last;
	bool live; /* issued since the last start and not yet accounted */
};

/* One port's traffic engine (block hbm_port). */
struct hbm_port {
	unsigned idx;
	uint32_t blk; /* register offset of the block */
	struct sb_hbm_gen gen;
	struct sb_hbm_burst next;
	bool have_next;
	bool enabled, started;
	uint64_t t_next;   /* next issue attempt (SB_HBM_NEVER: nothing to do) */
	uint64_t w_free;   /* the W channel is free from here */
	uint64_t wfifo[4]; /* end of the W data of the last four writes (the W FIFO) */
	unsigned wpos;
	struct hbm_flight fl[SB_HBM_MAX_IDS];
	uint64_t live; /* bit per slot: live */
	uint64_t t_start, t_last_done;
	/* latched at start */
	uint32_t hit_max, closed_max, hist_base, hist_shift;
	/* counters, as the registers show them */
	uint64_t txns, rd_bursts, wr_bursts, rd_bytes, wr_bytes;
	uint64_t rd_lat_sum, rd_lat_count, wr_lat_sum, wr_lat_count;
	uint32_t rd_lat_min, rd_lat_max, wr_lat_min, wr_lat_max;
	uint32_t errors, resp_last, ids_peak;
	uint32_t hist[16], cls[3];
};

/* The trace block (hbm_trace.c): capture state and the on-chip ring of hbm_trace_records. */
struct hbm_trace {
	bool enable, dma;
	uint32_t burst_len, gap, port_mask;
	uint32_t in_burst;  /* records in the current burst */
	uint64_t gap_until; /* tick when the next burst may start */
	uint32_t sample_id;
	uint64_t records, dropped;
	uint32_t *onchip; /* depth records, a ring from head */
	uint32_t depth, count, head, rd_index;
};

/* Trace replay (hbm_replay.c): one descriptor (block hbm_replay, record hbm_replay_desc). */
struct hbm_rdesc {
	uint64_t time; /* due, AXI cycles after start_cycle */
	uint64_t addr;
	uint8_t port, beats;
	bool write;
};

#define HBM_REPLAY_FIFO_DEPTH 512u /* hbm_replay.fifo_depth */
#define HBM_REPLAY_LANE_DEPTH 4u   /* hbm_replay.lane_depth */

/* A port's lane: the descriptors handed to it, its master's next AXI ID, its bursts in flight. */
struct hbm_rlane {
	struct hbm_rdesc d[HBM_REPLAY_LANE_DEPTH];
	unsigned head, n;
	uint64_t t_head;  /* tick the head descriptor reached the head of the lane */
	uint64_t t_free;  /* the master takes its next burst from here (one per AXI cycle) */
	uint64_t t_next;  /* tick the head can go (SB_HBM_NEVER: nothing to issue) */
	uint32_t next_id; /* AXI IDs in turn, as the engines' */
	struct hbm_flight fl[SB_HBM_MAX_IDS];
	uint64_t live;
};

struct hbm_replay {
	bool enable, timed;
	uint32_t port_mask;
	uint32_t w[3]; /* desc_w0..desc_w2 as written */
	struct hbm_rdesc fifo[HBM_REPLAY_FIFO_DEPTH];
	unsigned head, count;
	uint64_t t_start; /* tick of start_cycle */
	uint64_t t_next;  /* the earliest lane's t_next (SB_HBM_NEVER: none) */
	uint64_t pushed, start_cycle, issued, completed, reads, writes, bytes;
	uint64_t lat_sum, lag_sum, end_cycle;
	uint32_t lat_min, lat_max, lag_max, errors, bad, overflows;
	bool st_error, st_bad, st_overflow;
	uint64_t port_bursts[SB_HBM_MAX_PORTS];
	struct hbm_rlane lane[SB_HBM_MAX_PORTS];
};

struct sb_hbm_model {
	struct sb_hbm_profile prof;
	const struct sb_regmap_board *board;
	struct sb_hbm_regs rf;
	struct hbm_mem mem;
	uint32_t blk_fw, blk_card, blk_sim, blk_trace, blk_replay;
	unsigned nports;
	struct hbm_port port[SB_HBM_MAX_PORTS];
	/* tournament tree over the ports' t_next: node i holds the smallest key (t_next << 5 |
	 * port, hbm_engine.c) of its subtree; the leaves are 32..63 */
	uint64_t tn[2 * SB_HBM_MAX_PORTS];
	uint64_t now;                       /* ticks */
	uint64_t now_ps;                    /* the exact sum of the advances */
	struct sb_hbm_mc_config mc_pending; /* hbm_sim.mc_config, applied at the next start */
	double temp_c, temp_override_c;
	sb_hbm_request_fn hook;
	void *hook_ctx;
	uint64_t reads, writes, read_bytes, write_bytes;
	struct hbm_trace trace;
	struct hbm_replay replay;
};

/* hbm_engine.c */
void hbm_engine_init(struct sb_hbm_model *m);
void hbm_engine_start(struct sb_hbm_model *m, unsigned port);
void hbm_engine_enable(struct sb_hbm_model *m, unsigned port, bool enable);
/* Issue burst b on the port's master at tick t: the W channel, the memory system, trace
 * capture, the request hook (the port's own counters are the caller's). */
void hbm_engine_issue(struct sb_hbm_model *m, unsigned port, const struct sb_hbm_burst *b,
                      uint64_t t, struct hbm_result *r);
/* The earliest tick from t on at which the port's master takes b (its ID free of the engine's
 * bursts, a place in the W FIFO). */
uint64_t hbm_engine_ready(const struct sb_hbm_model *m, unsigned port, const struct sb_hbm_burst *b,
                          uint64_t t);
/* The port's own engine has bursts to issue (started, enabled, not finished). */
bool hbm_engine_running(const struct sb_hbm_model *m, unsigned port);
/* Issue every burst due before `until` (ticks), the replay's among them. */
void hbm_engine_run(struct sb_hbm_model *m, uint64_t until);
/* Account the bursts of a port completed by now. */
void hbm_engine_sync(struct sb_hbm_model *m, unsigned port);
/* The port's status bits (block hbm_port, register status) at now. */
uint32_t hbm_engine_status(struct sb_hbm_model *m, unsigned port);
uint32_t hbm_engine_in_use(const struct sb_hbm_model *m, unsigned port);
uint64_t hbm_engine_active_cycles(const struct sb_hbm_model *m, unsigned port);

/* hbm_trace.c */
int hbm_trace_init(struct sb_hbm_model *m);
void hbm_trace_release(struct sb_hbm_model *m);
/* Record burst b of port, issued at tick t, if the capture takes it (trace.enable is set). */
void hbm_trace_record(struct sb_hbm_model *m, unsigned port, const struct sb_hbm_burst *b,
                      uint64_t t, const struct hbm_result *r);
uint64_t hbm_trace_read(struct sb_hbm_model *m, uint32_t reg, uint64_t stored);
void hbm_trace_write(struct sb_hbm_model *m, uint32_t reg, uint32_t value, uint32_t pulses);

/* hbm_replay.c */
void hbm_replay_init(struct sb_hbm_model *m);
/* Issue the lane head due at replay.t_next. */
void hbm_replay_step(struct sb_hbm_model *m);
/* Descriptors in the FIFO or the lanes, or replayed bursts in flight, at now. */
bool hbm_replay_busy(struct sb_hbm_model *m);
uint64_t hbm_replay_read(struct sb_hbm_model *m, uint32_t reg, uint64_t stored);
void hbm_replay_write(struct sb_hbm_model *m, uint32_t reg, uint32_t value, uint32_t pulses);

#endif /* SB_HBM_INTERNAL_H */
