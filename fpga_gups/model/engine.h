/* SPDX-License-Identifier: MIT */
/*
 * The GUPS engine, the FPGA infrastructure, the links and the cube: types shared by the
 * engine's files. Time is kept in ticks of 1/3 ps, so the 187.5 MHz user clock (16000 ticks),
 * link flits (3200 ticks at 15 Gb/s x 8 lanes) and DRAM timings mix without drift.
 */
#ifndef SB_MODEL_ENGINE_H
#define SB_MODEL_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "gups_addrgen.h"

#define SB_TICKS_PER_PS 3ull
#define SB_TICK_NEVER UINT64_MAX

/* ---- calendars: reservations on a slotted resource, allowing gaps ------------------------ */

#define SB_CAL_WORDS 1024 /* 65536 slots of look-ahead */
#define SB_CAL_SLOTS (SB_CAL_WORDS * 64ull)

struct sb_calendar {
	uint64_t slot_ticks; /* length of a slot */
	uint64_t base;       /* absolute slot number of bit 0 of word base_word */
	unsigned base_word;
	uint64_t overflow; /* absolute slot from which everything is taken (beyond the window) */
	uint64_t full;     /* every slot in [base, full) is taken (or in the past) */
	uint64_t bits[SB_CAL_WORDS];
	uint64_t fullw[SB_CAL_WORDS / 64]; /* bit per word of bits[] that is all taken */
};

/* ---- small binary heaps (fixed capacity) ------------------------------------------------- */

struct sb_done {         /* a request outstanding at a port (24 bytes: heap entries move) */
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
	/* outstanding requests, min-heap on t_done */
	/* Outstanding requests: payloads in slots[], a binary min-heap of 8-byte keys
	 * (completion cycle << SB_DONE_IDX_BITS | slot) so that heap moves stay small. */
	struct sb_done *slots;
	uint64_t *heap;
	uint16_t *free_slots;
	unsigned ndone, nfree, cap;
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

/* ---- the cube ---------------------------------------------------------------------------- */

struct sb_vault {
	uint64_t bank_free[16]; /* bank ready for the next activate */
	uint64_t refresh_phase; /* offset of this vault's refresh windows */
	struct sb_calendar bus; /* data bus transfers (tCCD slots) */
	struct sb_calendar act; /* activates (same slots): tRRD and tFAW are checked on it */
	uint64_t *admit;        /* ring of the last vault_queue admission starts */
	unsigned admit_pos;
	uint64_t activates;
};

#define SB_LINK_TOKENS_MAX 4096

struct sb_link {
	uint64_t tx_free;      /* request direction: next free (requests arrive in order) */
	uint64_t in_fwd;       /* cube input: the last packet left the input buffer (in order) */
	uint64_t *tok_free;    /* token ring: when the flit that last held each token left */
	uint64_t tok_count;    /* flits sent so far (position in the token ring) */
	struct sb_calendar rx; /* response direction */
	uint64_t req_flits, resp_flits;
};

/*
 * Division by a constant without a divide instruction (Granlund-Montgomery): exact for
 * dividends below 2^60 ticks (4.4 days of simulated time).
 */
struct sb_divider {
	uint64_t d, m;
	unsigned shift;
};

static inline uint64_t sb_div(const struct sb_divider *v, uint64_t x)
{
	return (uint64_t)(((unsigned __int128)x * v->m) >> v->shift);
}

static inline uint64_t sb_div_up(const struct sb_divider *v, uint64_t x)
{
	uint64_t q = sb_div(v, x);

	return q * v->d == x ? q : q + 1;
}

/* Timing parameters converted to ticks. */
struct sb_timing {
	struct sb_divider div_cycle, div_flit, div_slot, div_trefi, div_trefi_hot;
	unsigned bus_shift; /* log2(bus_bytes) */
	uint64_t cycle, flit;
	uint64_t tx_fixed;    /* TX path latency besides port occupancy and the link */
	uint64_t tx_transmit; /* transmit overhead */
	uint64_t rx_path;
	uint64_t cube_in, cube_out, xbar_local, xbar_remote;
	uint64_t dram_slot; /* tCCD: the grid of column transfers and activates */
	uint64_t trcd, tcl, tcwl, tras, trc, trp, trtp, twr, trfc, trefi;
	unsigned rd_data_slots; /* activate to first read transfer, in dram slots */
	unsigned wr_data_slots;
	unsigned rrd_slots;  /* tRRD in dram slots */
	unsigned faw_slots;  /* tFAW in dram slots */
	unsigned gap_slots;  /* idle bus slots after each access (bus turnaround) */
	unsigned packet_gap; /* extra flit times of a data-carrying packet on a link direction */
	unsigned cmd_cycles; /* a user port takes a command at most every cmd_cycles cycles */
	unsigned tokens;     /* link flow-control tokens (flits) */
	unsigned bus_bytes;
	unsigned search_limit; /* attempts a vault may make to place an access (a fault beyond) */
};

struct sb_engine_stats {
	uint64_t requests; /* simulated one by one */
	uint64_t ff_skipped_ticks;
	uint32_t ff_jumps;
	bool ff_used, ff_active;
};

#endif /* SB_MODEL_ENGINE_H */
