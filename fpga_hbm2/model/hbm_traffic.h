/* SPDX-License-Identifier: MIT */
/*
 * The traffic of one HBM port engine (block hbm_port, docs/regmap.md): which AXI3 bursts it
 * issues, in which order, with which ID and which write data. The one definition shared by the
 * board model (hbm_engine.c), the RTL testbenches (fpga_hbm2/tb) and, through them, the RTL
 * (sb_hbm_gen.sv, sb_hbm_port.sv are bit-exact with it; the co-simulation checks that).
 *
 * Pure integer code, no allocation: a generator state advanced one burst at a time.
 */
#ifndef SB_HBM_TRAFFIC_H
#define SB_HBM_TRAFFIC_H

#include <stdbool.h>
#include <stdint.h>

#define SB_HBM_BEAT_BYTES 32u           /* 256-bit AXI data beat */
#define SB_HBM_MAX_BEATS 16u            /* AXI3 bursts: up to 16 beats */
#define SB_HBM_MAX_BURST 4096u          /* largest transaction */
#define SB_HBM_AXI_PAGE 4096u           /* no AXI burst crosses a multiple of it */
#define SB_HBM_MAX_IDS 64u              /* AXI IDs per port */
#define SB_HBM_ADDR_MASK 0x3FFFFFFFFull /* 34-bit AXI address */
#define SB_HBM_WS_MASK 0x7FFFFFFFFull   /* 35-bit working-set size */

enum { SB_HBM_OP_READ = 0, SB_HBM_OP_WRITE = 1, SB_HBM_OP_MIX = 2 };

/* Configuration latched at a start (the register values, before normalization). */
struct sb_hbm_cfg {
	uint64_t start_addr, ws_size, run_len;
	uint32_t burst_bytes, outstanding, stride, mix_writes, seed;
	uint8_t op;  /* SB_HBM_OP_* (3 behaves as read) */
	bool random; /* control.mode */
};

struct sb_hbm_gen {
	/* normalized configuration */
	uint64_t start, ws, ws_mask, run_len;
	uint64_t align_mask; /* random offsets: aligned to the largest power of two <= burst */
	uint32_t burst, stride, mix, outstanding;
	uint8_t op;
	bool random;
	/* state */
	uint64_t txn;    /* transactions begun */
	uint64_t offset; /* offset of the current transaction */
	uint32_t done;   /* bytes of the current transaction already issued as bursts */
	uint32_t rng;    /* xorshift32 state */
	uint32_t acc;    /* mix accumulator (0..255) */
	bool write;      /* the current transaction writes */
	uint64_t seq;    /* bursts produced */
	uint32_t id;     /* seq mod outstanding, kept as a counter */
};

struct sb_hbm_burst {
	uint64_t addr; /* 34-bit, 32-byte aligned */
	uint64_t seq;  /* burst number since the start */
	uint64_t txn;  /* transaction it belongs to */
	uint8_t beats; /* 1..16 (AxLEN + 1) */
	uint8_t id;    /* seq mod outstanding */
	bool write;
	bool last; /* the last burst of its transaction */
};

static inline uint32_t sb_hbm_xorshift32(uint32_t x)
{
	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

/* Largest power of two <= x (0 for 0). */
static inline uint64_t sb_hbm_pow2_floor(uint64_t x)
{
	while (x & (x - 1))
		x &= x - 1;
	return x;
}

/* Register values as the engine uses them (the RTL normalizes the same way at start). */
static inline void sb_hbm_gen_start(struct sb_hbm_gen *g, const struct sb_hbm_cfg *c)
{
	uint32_t b = c->burst_bytes & ~31u;

	if (b == 0)
		b = 32;
	if (b > SB_HBM_MAX_BURST)
		b = SB_HBM_MAX_BURST;
	g->burst = b;
	g->outstanding = c->outstanding == 0 ? 1 : c->outstanding > 64 ? 64 : c->outstanding;
	g->start = c->start_addr & SB_HBM_ADDR_MASK & ~31ull;
	g->ws = c->ws_size & SB_HBM_WS_MASK;
	g->ws_mask = sb_hbm_pow2_floor(g->ws) - (g->ws ? 1 : 0);
	g->stride = c->stride & ~31u;
	g->align_mask = ~(sb_hbm_pow2_floor(b) - 1);
	g->mix = c->mix_writes > 256 ? 256 : c->mix_writes;
	g->op = c->op == SB_HBM_OP_WRITE ? SB_HBM_OP_WRITE
	        : c->op == SB_HBM_OP_MIX ? SB_HBM_OP_MIX
	                                 : SB_HBM_OP_READ;
	g->random = c->random;
	g->run_len = c->run_len;
	g->rng = c->seed ? c->seed : 1;
	g->txn = 0;
	g->offset = 0;
	g->done = 0;
	g->acc = 0;
	g->seq = 0;
	g->id = 0;
	g->write = false;
	if (g->random) {
		g->rng = sb_hbm_xorshift32(g->rng);
		g->offset = ((uint64_t)g->rng << 5) & g->ws_mask & g->align_mask & ~31ull;
	}
}

/* True while transactions remain (run_len 0: always). */
static inline bool sb_hbm_gen_more(const struct sb_hbm_gen *g)
{
	return g->run_len == 0 || g->txn < g->run_len || g->done != 0;
}

/* Whether transaction number g->txn (about to begin) writes. */
static inline bool sb_hbm_txn_writes(struct sb_hbm_gen *g)
{
	uint32_t a;

	if (g->op != SB_HBM_OP_MIX)
		return g->op == SB_HBM_OP_WRITE;
	/* Bresenham: mix of every 256 transactions write, spread evenly. */
	a = g->acc + g->mix;
	g->acc = a & 255u;
	return a >= 256u;
}

/* The offset of the transaction after the current one. */
static inline void sb_hbm_gen_step(struct sb_hbm_gen *g)
{
	if (g->random) {
		g->rng = sb_hbm_xorshift32(g->rng);
		g->offset = ((uint64_t)g->rng << 5) & g->ws_mask & g->align_mask & ~31ull;
		return;
	}
	g->offset += g->stride;
	if (g->offset >= g->ws)
		g->offset -= g->ws;
	if (g->offset >= g->ws)
		g->offset = 0;
}

/* The next burst (call only while sb_hbm_gen_more()). */
static inline void sb_hbm_gen_next(struct sb_hbm_gen *g, struct sb_hbm_burst *b)
{
	uint64_t addr;
	uint32_t left, to4k, len;

	if (g->done == 0)
		g->write = sb_hbm_txn_writes(g);
	addr = (g->start + g->offset + g->done) & SB_HBM_ADDR_MASK;
	left = g->burst - g->done;
	to4k = 4096u - (uint32_t)(addr & 4095u);
	len = left < to4k ? left : to4k;
	if (len > SB_HBM_MAX_BEATS * SB_HBM_BEAT_BYTES)
		len = SB_HBM_MAX_BEATS * SB_HBM_BEAT_BYTES;
	b->addr = addr;
	b->beats = (uint8_t)(len / SB_HBM_BEAT_BYTES);
	b->write = g->write;
	b->seq = g->seq;
	b->txn = g->txn;
	b->id = (uint8_t)g->id;
	g->id = g->id + 1 == g->outstanding ? 0 : g->id + 1;
	g->seq++;
	g->done += len;
	b->last = g->done == g->burst;
	if (b->last) {
		g->done = 0;
		g->txn++;
		sb_hbm_gen_step(g);
	}
}

static inline uint32_t sb_hbm_rotl32(uint32_t x, unsigned r)
{
	r &= 31;
	return r ? (x << r) | (x >> (32 - r)) : x;
}

/*
 * Word w (0..7) of the 32-byte beat at byte address addr in the write pattern of seed: what
 * every write carries and what a checked read expects.
 */
static inline uint32_t sb_hbm_pattern(uint32_t seed, uint64_t addr, unsigned w)
{
	uint32_t blk = (uint32_t)((addr & SB_HBM_ADDR_MASK) >> 5);

	return seed ^ sb_hbm_rotl32(blk, 3 * w + 1) ^ (0x01010101u * (w + 1));
}

#endif /* SB_HBM_TRAFFIC_H */
