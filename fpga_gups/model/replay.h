/* SPDX-License-Identifier: MIT */
/*
 * Trace replay in the model (the `replay` block of the register map): descriptors the host
 * writes into a ring in host memory are fetched (DMA: read from the model's DMA windows) into
 * one small queue per port (lane_depth descriptors, filled in ring order; the fetch stops at
 * the first descriptor whose queue is full, as in the RTL) and issued on that port's request
 * path, each not before its due time when control.timed is set.
 *
 * The engine sees the replay as a request source of a port (engine.c: port_schedule,
 * port_step, port_credit): it asks when the port's queue has a request to issue, takes it, and
 * hands the completion back. Everything else (registers, statistics) is in replay.c.
 */
#ifndef SB_MODEL_REPLAY_H
#define SB_MODEL_REPLAY_H

#include <stdbool.h>
#include <stdint.h>

#include "sb_regmap.h"

#define SB_RPL_DEPTH SB_REPLAY_LANE_DEPTH_RESET /* descriptors buffered per port */
#define SB_RPL_TAGS 64     /* requests in flight per port, as the RTL's tag pool */
#define SB_RPL_PORTS 16    /* ports a descriptor can name (4 bits) */
#define SB_RPL_VAULTS 16   /* per-vault statistics */
#define SB_DONE_REPLAY 31u /* sb_done "stream" field of a replayed request */

struct sb_model;
struct sb_port;
struct sb_done;
struct sb_regloc;

struct sb_replay_desc {
	uint64_t due; /* tick it may issue (timed), or when it reached the port's queue */
	uint64_t addr;
	uint8_t write, flits;
};

struct sb_replay_lane {
	struct sb_replay_desc q[SB_RPL_DEPTH];
	unsigned head, count;
	unsigned inflight;
};

struct sb_replay_vault {
	uint64_t requests, lat_sum, lag_sum; /* lat_sum, lag_sum in cycles */
	uint32_t flits, lat_max;
};

struct sb_replay {
	bool enable, timed, error, bad_seen;
	uint32_t port_mask;
	uint64_t ring_addr;
	unsigned ring_log2;
	uint32_t head, tail; /* descriptors fetched / written by the host */
	uint64_t start_tick; /* time 0 of the descriptors */
	uint64_t start_cycle, end_cycle;
	uint64_t issued, completed, reads, writes, lat_sum, lag_sum;
	uint32_t lat_min, lat_max, lag_max, errors, bad;
	bool fetch_stalled; /* a ring entry was not in a DMA window (logged once) */
	struct sb_replay_lane lane[SB_RPL_PORTS];
	struct sb_replay_vault vault[SB_RPL_VAULTS];
};

/* A request the replay gives to the engine. wake: ports whose queue got a first descriptor. */
struct sb_replay_req {
	uint64_t addr;
	uint8_t write, flits;
	uint32_t wake;
};

void sb_replay_init(struct sb_model *m);

/* The port's own generator stops while the replay owns its path. */
bool sb_replay_owns(const struct sb_model *m, const struct sb_port *p);

/* Earliest tick the port's queue can issue (SB_TICK_NEVER: nothing to issue yet). */
uint64_t sb_replay_next(const struct sb_model *m, const struct sb_port *p);

/* Take the port's next request if it may issue at tick t. */
bool sb_replay_take(struct sb_model *m, struct sb_port *p, uint64_t t, struct sb_replay_req *rq);

/* A replayed request completed (response, or declared lost). */
void sb_replay_complete(struct sb_model *m, struct sb_port *p, const struct sb_done *d, bool lost);

/* Registers of the replay block. */
uint64_t sb_replay_read(struct sb_model *m, const struct sb_regloc *l, uint64_t stored);
void sb_replay_write(struct sb_model *m, const struct sb_regloc *l, uint32_t value,
                     uint32_t pulses);

#endif /* SB_MODEL_REPLAY_H */
