/* SPDX-License-Identifier: MIT */
/*
 * The family-neutral part of the board model's engine: the GUPS ports (tag pools, outstanding
 * requests, rw write-backs, counters), the user-clock timing and the engine statistics. The
 * memory family behind the ports (hmc.h: the FPGA's HMC controller, the links and the cube) is
 * apart, so that another family can sit behind the same ports.
 */
#ifndef SB_MODEL_ENGINE_H
#define SB_MODEL_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "calendar.h"
#include "gups_addrgen.h"
#include "timebase.h"

/* ---- outstanding requests of a port ------------------------------------------------------ */

struct sb_done {         /* a request outstanding at a port (24 bytes; its key moves, not it) */
	uint64_t t_done; /* response reaches the port (SB_TICK_NEVER: lost) */
	uint64_t t_issue;
	uint64_t info; /* addr 0..33, write 34, flits 35..38, errstat 39..46,
			       * stream entry + 1 47..51, tag 52..57 */
};

#define SB_DONE_LOST 0xFFu /* errstat value marking a request declared lost */
#define SB_DONE_IDX_BITS 11
#define SB_DONE_MAX (1u << SB_DONE_IDX_BITS)
#define SB_DONE_NEVER_CYCLES ((1ull << (64 - SB_DONE_IDX_BITS)) - 1)

static inline uint64_t sb_done_info(uint64_t addr, unsigned write, unsigned flits, unsigned errstat,
                                    unsigned stream, unsigned tag)
{
	return (addr & 0x3FFFFFFFFull) | (uint64_t)(write & 1) << 34 |
	       (uint64_t)(flits & 15) << 35 | (uint64_t)(errstat & 0xFF) << 39 |
	       (uint64_t)(stream & 31) << 47 | (uint64_t)(tag & 63) << 52;
}

static inline uint64_t done_addr(const struct sb_done *d)
{
	return d->info & 0x3FFFFFFFFull;
}

static inline unsigned done_write(const struct sb_done *d)
{
	return (unsigned)(d->info >> 34) & 1;
}

static inline unsigned done_flits(const struct sb_done *d)
{
	return (unsigned)(d->info >> 35) & 15;
}

static inline unsigned done_errstat(const struct sb_done *d)
{
	return (unsigned)(d->info >> 39) & 0xFF;
}

static inline void done_set_errstat(struct sb_done *d, unsigned e)
{
	d->info = (d->info & ~(0xFFull << 39)) | (uint64_t)(e & 0xFF) << 39;
}

static inline unsigned done_stream(const struct sb_done *d)
{
	return (unsigned)(d->info >> 47) & 31;
}

static inline unsigned done_tag(const struct sb_done *d)
{
	return (unsigned)(d->info >> 52) & 63;
}

struct sb_wb { /* an rw write-back waiting for its read */
	uint64_t t_ready;
	uint64_t addr;
};

/* ---- ports ------------------------------------------------------------------------------- */

enum { SB_TYPE_RO = 0, SB_TYPE_WO = 1, SB_TYPE_RW = 2 };

struct sb_port {
	unsigned idx, link;
	/* configuration latched at start */
	uint8_t type, flits;
	bool posted, linear;
	uint64_t iter_limit;
	struct sb_addrgen gen;
	/* state */
	bool enabled;      /* control.enable */
	bool started;      /* a start happened since reset */
	bool stopped_lost; /* stopped on a lost tag */
	bool last_wb;      /* rw: the last request was a write-back (the arbiter alternates) */
	uint64_t iters;
	uint64_t t_free;       /* the port takes its next command from here */
	uint64_t t_pkt;        /* ... and an rw write-back, which only waits for the last flits */
	struct sb_calendar rx; /* the port's response interface: one data beat (flit) per cycle */
	uint64_t t_next;       /* next time the port has something to do (SB_TICK_NEVER: nothing) */
	unsigned tags;         /* reads outstanding */
	uint64_t tag_used;     /* tag pool: bit t set while tag t is out */
	unsigned outstanding;  /* non-posted requests outstanding */
	/* Outstanding requests: payloads in slots[], and their 8-byte keys (completion cycle <<
	 * SB_DONE_IDX_BITS | slot, all distinct) in ascending order in keys[khead, khead + ndone)
	 * of an array of 2 * cap: responses mostly complete in issue order, so a new key goes at
	 * or near the end and the earliest leaves from the front, both O(1) (a binary heap took
	 * log n moves per completion). */
	struct sb_done *slots;
	uint64_t *keys;
	uint16_t *free_slots;
	unsigned ndone, khead, nfree, cap;
	/* rw write-backs, min-heap on t_ready */
	struct sb_wb *wb;
	unsigned nwb;
	/* counters (as the registers show them) */
	uint64_t reads, writes, read_data;
	uint64_t lat_sum, lat_count; /* lat_sum in ticks */
	uint64_t lat_min, lat_max;   /* ticks */
	uint64_t tag_max_life;       /* ticks */
	uint32_t tag_peak, lost;
	uint32_t errstat;
	bool error;
	/* stream group in progress on this port */
	unsigned stream_left;
	/* fast-forward bookkeeping: counters at the start of the current window */
	uint64_t w_reads, w_writes, w_read_data, w_lat_sum, w_lat_count, w_iters;
	/* ... and the increments over the last complete window */
	uint64_t d_reads, d_writes, d_read_data, d_lat_sum, d_lat_count, d_iters;
};

/* The user clock of the FPGA design, in ticks, and what the ports take from it. */
struct sb_timing {
	struct sb_divider div_cycle;
	uint64_t cycle;
	unsigned cmd_cycles; /* a user port takes a command at most every cmd_cycles cycles */
};

struct sb_engine_stats {
	uint64_t requests; /* simulated one by one */
	uint64_t ff_skipped_ticks;
	uint32_t ff_jumps;
	bool ff_used, ff_active;
};

#endif /* SB_MODEL_ENGINE_H */
