/* SPDX-License-Identifier: MIT */
/* Internals shared by the files of the board model. */
#ifndef SB_MODEL_INTERNAL_H
#define SB_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "hmc.h"
#include "profile.h"
#include "regfile.h"
#include "replay.h"
#include "sb_model.h"

#define SB_MODEL_DMA_MAX 4
#define SB_MAX_PORTS 9
#define SB_PORT_LEAVES 16 /* SB_MAX_PORTS rounded up to a power of two */
#define SB_MAX_VAULTS 16
#define SB_STREAM_ENTRIES 28
#define SB_TAG_DEPTH 64u /* reads a GUPS port can have in flight (its tag pool) */

struct sb_model_dma {
	void *host;
	size_t len;
	uint64_t bus;
};

/* Memory contents kept for stream GUPS integrity checks: 16-byte blocks written by streams. */
struct sb_mem_entry {
	uint64_t block; /* address >> 4, +1 (0 = empty slot) */
	uint32_t data[4];
};

struct sb_memory {
	struct sb_mem_entry *tab;
	size_t cap, used;
	uint32_t power_seed; /* contents of never-written blocks; changes when contents are lost */
};

struct sb_stream_entry {
	uint64_t addr;
	uint8_t write, flits;
	bool issued, done, error, mismatch;
	uint8_t errstat;
	uint32_t latency;
};

struct sb_trace {
	bool enable, dma;
	uint32_t burst_len, gap, port_mask, buf_size;
	uint64_t buf_addr;
	uint32_t in_burst;  /* records in the current burst */
	uint64_t gap_until; /* tick when the next burst may start */
	uint32_t sample_id;
	uint64_t records, dropped;
	uint32_t wr_ptr;
	bool wrapped;
	uint32_t *onchip; /* onchip_depth records, a ring from onchip_head */
	uint32_t onchip_depth, onchip_count, onchip_head;
	uint32_t rd_index;
};

struct sb_model {
	struct sb_profile prof;
	struct sb_regfile rf;
	uint64_t now; /* ticks */
	uint32_t blk_board, blk_hmc, blk_irq, blk_trace, blk_stream, blk_sim, blk_replay;
	uint32_t blk_port[SB_MAX_PORTS];
	struct {
		bool ready, thermal_fail, error, init_busy, in_reset;
		uint32_t errstat;
		uint64_t init_done; /* ticks */
		uint64_t fail_tick; /* SB_TICK_NEVER: no failure */
		uint32_t crc_errors, link_retries, error_responses, thermal_events;
	} hmc;
	struct sb_model_dma dma[SB_MODEL_DMA_MAX];
	sb_model_request_fn req_hook;
	void *req_hook_ctx;

	/* engine (family-neutral) */
	struct sb_timing tm;
	unsigned nports;
	unsigned flow_limit; /* outstanding requests per port (hmc_ctrl.flow_threshold) */
	struct sb_port port[SB_MAX_PORTS];
	/* Each port's t_next (NEVER beyond nports) and a winner tree over them: port_win[k] is
	 * the port with the earliest t_next under node k (ties: the lowest port), leaves at
	 * SB_PORT_LEAVES + i, the root at 1. sb_engine_set_next() keeps both. */
	uint64_t port_next[SB_PORT_LEAVES];
	uint8_t port_win[2 * SB_PORT_LEAVES];
	/* the memory family: the HMC controller, links and cube (hmc.h) */
	struct sb_hmc cube;
	double temp_c; /* cube temperature from the bench (refresh rate) */
	bool hot;
	uint64_t refresh_base; /* refreshes counted up to refresh_t0 */
	uint64_t refresh_t0;   /* tick the refresh rate last changed */
	struct sb_engine_stats st;
	char
	    fault[192]; /* set when the engine cannot go on: sb_engine_run reports it as an error */
	struct sb_memory mem;
	struct sb_trace trace;
	struct sb_replay replay; /* replay.c */
	struct {
		struct sb_stream_entry e[SB_STREAM_ENTRIES];
		unsigned count, port, completed, mismatches;
		bool busy, done, error, integrity;
		uint32_t seed;
		uint64_t t_first, t_last;
	} stream;
	/* fast-forward */
	struct {
		bool enable;
		bool dirty;           /* a register write since the last complete window */
		bool warming;         /* the current "window" is the warm-up: it is not measured */
		uint64_t warmup;      /* ticks (ff_warmup_us) */
		uint64_t base_window; /* ticks (ff_window_us) */
		uint64_t window;      /* current window: grows while noisy traffic does not agree */
		uint64_t w_len;       /* length of the last complete window */
		uint32_t tol_ppm;
		unsigned need;  /* converged windows required */
		uint64_t w_end; /* end of the current window (SB_TICK_NEVER: not measuring) */
		unsigned agree, misses;
		double last_rate, last_lat;
	} ff;
	/* activity for the bench model; its value at the start of the fast-forward window and its
	 * increment over the last complete window */
	struct sb_model_activity act, ff_act, ff_dact;
};

uint64_t sb_model_cycles(const struct sb_model *m);
void sb_model_raise_irq(struct sb_model *m, uint32_t bits);
void *sb_model_dma_ptr(struct sb_model *m, uint64_t bus_addr, size_t len);

/* engine.c: the run loop, set-up, thermal failure and cube reset (family-neutral). */
int sb_engine_init(struct sb_model *m);
void sb_engine_release(struct sb_model *m);
int sb_engine_run(struct sb_model *m, uint64_t until);
void sb_engine_cube_reset(struct sb_model *m);
void sb_engine_thermal_fail(struct sb_model *m, uint64_t tick);
void sb_engine_wake(struct sb_model *m);

/* ports.c: the GUPS ports. */
SB_MODEL_INTERNAL int sb_ports_init(struct sb_model *m);
SB_MODEL_INTERNAL void sb_ports_release(struct sb_model *m);
SB_MODEL_INTERNAL void sb_port_schedule(struct sb_model *m, struct sb_port *p);
SB_MODEL_INTERNAL void sb_port_step(struct sb_model *m, struct sb_port *p);
SB_MODEL_INTERNAL void sb_port_issue(struct sb_model *m, struct sb_port *p, uint64_t t, bool write,
                                     uint64_t addr, unsigned flits, unsigned stream);
void sb_engine_settle(struct sb_model *m, uint64_t now);
uint64_t sb_engine_port_read(struct sb_model *m, unsigned port, uint32_t reg, uint64_t stored);
void sb_engine_port_write(struct sb_model *m, unsigned port, uint32_t reg, uint32_t pulses);
void sb_engine_ports_reset(struct sb_model *m);
void sb_engine_drop_inflight(struct sb_model *m, uint64_t tick, uint64_t announce);
unsigned sb_engine_port_link(const struct sb_model *m, unsigned port);
void sb_engine_done_rebuild(struct sb_model *m, struct sb_port *p);
struct sb_done *sb_engine_done_at(struct sb_port *p, unsigned k);
void sb_engine_flow_update(struct sb_model *m);

/*
 * The cycle after the response's first beat reached the port: where the latency monitors (GUPS
 * ports and stream entries, like the RTL) stop. t_done is after the last beat; a read response
 * has one beat per flit of data, a write response one beat.
 */
static inline uint64_t sb_done_first_beat(const struct sb_model *m, const struct sb_done *d)
{
	unsigned beats = done_write(d) ? 1 : done_flits(d);

	return d->t_done - (uint64_t)(beats - 1) * m->prof.port_flit_cycles * m->tm.cycle;
}

/* ff.c: steady-state fast-forward */
void sb_engine_ff_begin(struct sb_model *m, uint64_t t);
int sb_engine_ff_try(struct sb_model *m, uint64_t t, uint64_t until);
/* At the start of an advance: jump at once when the steady state of the last advance holds. */
void sb_engine_ff_resume(struct sb_model *m, uint64_t now, uint64_t until);

/* stream.c: stream GUPS and the memory contents it checks. */
SB_MODEL_INTERNAL void sb_stream_issue(struct sb_model *m, struct sb_port *p, uint64_t t);
SB_MODEL_INTERNAL void sb_stream_complete(struct sb_model *m, const struct sb_done *d, bool lost);
SB_MODEL_INTERNAL void sb_mem_write(struct sb_memory *mem, uint64_t addr, unsigned flits,
                                    uint32_t seed, bool always);
SB_MODEL_INTERNAL void sb_mem_clear(struct sb_memory *mem, uint32_t new_power_seed);
uint64_t sb_engine_stream_read(struct sb_model *m, const struct sb_regloc *l, uint64_t stored);
void sb_engine_stream_write(struct sb_model *m, const struct sb_regloc *l, uint32_t pulses);

/* trace.c: trace capture */
SB_MODEL_INTERNAL void sb_trace_record(struct sb_model *m, const struct sb_port *p,
                                       const struct sb_done *d, unsigned tag);
uint64_t sb_engine_trace_read(struct sb_model *m, const struct sb_regloc *l, uint64_t stored);
void sb_engine_trace_write(struct sb_model *m, const struct sb_regloc *l, uint32_t value,
                           uint32_t pulses);

/* Port i's next time is t: update the winner tree on the path from its leaf to the root (the
 * left child, the lower ports, wins ties). */
static inline void sb_engine_set_next(struct sb_model *m, unsigned i, uint64_t t)
{
	m->port_next[i] = t;
	for (unsigned k = (SB_PORT_LEAVES + i) >> 1; k; k >>= 1) {
		unsigned l = m->port_win[2 * k], r = m->port_win[2 * k + 1];

		m->port_win[k] = (uint8_t)(m->port_next[r] < m->port_next[l] ? r : l);
	}
}

#endif /* SB_MODEL_INTERNAL_H */
