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

struct sb_hbm_model {
	struct sb_hbm_profile prof;
	const struct sb_regmap_board *board;
	struct sb_hbm_regs rf;
	struct hbm_mem mem;
	uint32_t blk_fw, blk_card, blk_sim, blk_trace;
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
};

/* hbm_engine.c */
void hbm_engine_init(struct sb_hbm_model *m);
void hbm_engine_start(struct sb_hbm_model *m, unsigned port);
void hbm_engine_enable(struct sb_hbm_model *m, unsigned port, bool enable);
/* Issue every burst due before `until` (ticks). */
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

#endif /* SB_HBM_INTERNAL_H */
