/* SPDX-License-Identifier: MIT */
/*
 * The memory-centric analyses' engine state (locality.c), shared with the chunks of a trace
 * analysed apart and absorbed in order (locality_part.c). Not installed.
 */
#ifndef SB_LOCALITY_INTERNAL_H
#define SB_LOCALITY_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "reuse_internal.h"
#include "stackbench/locality.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

#define MAX_LEAVES 65536u
#define LH 18 /* per leaf: accesses by common-ancestor level 0..16, then "new block" */
#define LH_NEW (LH - 1)
#define AHEAD 16

/* One block: one cache line. */
struct bentry {
	uint64_t block;
	uint32_t unit;
	uint32_t used;  /* nonzero: the slot is taken; the window (epoch) of its first access */
	uint32_t epoch; /* window of its last access: its positions are valid in that window */
	uint32_t gpos;  /* position in the trace-wide reuse structure */
	uint32_t spos;  /* position in the subpartition's */
	uint32_t leaf;  /* tree leaf of its last access */
	uint64_t accesses;
	uint64_t finite; /* accesses with a (subpartition) reuse distance */
	uint64_t rd_sum; /* their sum */
	uint64_t first;  /* the trace's access number of its first access (in this engine) */
};

_Static_assert(sizeof(struct bentry) == 64, "a block entry is one cache line");

struct lsp {
	bool init;
	struct bentry *e;
	size_t mask, used;
	unsigned hshift;
	struct rd_tree rd;
	bool left;      /* block = addr << shift (address units larger than blocks) */
	unsigned shift; /* else addr >> shift */
	bool per_unit;
	struct sb_reuse_hist hist;
	uint64_t accesses, bytes;
};

struct leaf {
	uint64_t accesses, bytes, observed;
	int64_t first, last; /* of its accesses */
	int64_t start;       /* of its first window (sampled traces) */
	bool any;
};

struct sb_locality {
	struct sb_locality_options o;
	unsigned bshift;
	struct lsp *sp;
	size_t nsp;
	struct rd_tree grd;
	struct sb_reuse_hist ghist;
	bool started, by_sample;
	bool tany; /* first and last are set */
	uint32_t cur_sample;
	uint32_t epoch; /* current window + 1 */
	int64_t win_first, win_last;
	bool win_any;
	uint32_t lshift; /* leaf = unit >> lshift */
	struct leaf *leaves;
	uint64_t (*lh)[LH];
	uint64_t accesses, skipped, bytes;
	int64_t first, last;
	uint64_t records; /* records fed (every kind) */
	/* a chunk's engine (sb_locality_new_chunk): where it began, the window of its first
	   access */
	struct sb_locality_prefix start;
	uint32_t first_epoch;
};

/* A block of a chunk's part. */
struct lc_pblock {
	uint64_t block, accesses, finite, rd_sum;
	uint64_t first; /* access number of its first access in the chunk */
	uint32_t unit;
	uint32_t first_epoch, last_epoch; /* windows of its first and last access in the chunk */
	uint32_t leaf;                    /* leaf of its last access, at the part's lshift */
	uint32_t rank; /* order of its last access among the last window's blocks, or
	                      UINT32_MAX when it is not in the last window */
	uint16_t sp;
};

/* A leaf of a part that has accesses. */
struct lc_pleaf {
	uint32_t index;
	struct leaf leaf;
	uint64_t lh[LH];
};

struct lc_psp {
	uint64_t accesses, bytes;
	struct sb_reuse_hist hist;
};

struct sb_locality_part {
	struct sb_locality_prefix start, end;
	uint32_t max_leaves, lshift;
	uint32_t first_epoch; /* window of its first access (when it has accesses) */
	uint64_t skipped, bytes;
	bool tany;
	int64_t first, last;
	struct sb_reuse_hist hist;
	uint32_t nsp;
	struct lc_psp *sp;
	size_t nleaves;
	struct lc_pleaf *leaves;
	size_t nblocks;
	struct lc_pblock *blocks; /* in the order of their first access */
};

/* A record decoded ahead of its turn. */
struct lop {
	uint64_t block, h;
	int64_t time;
	uint32_t unit, size, sample;
	uint16_t sp;
	uint8_t skip; /* 1: not an access (flush, reservation fail); 2: bad subpartition */
};

#define HASH_MUL 0x9e3779b97f4a7c15ull

static inline uint64_t lc_bhash(uint64_t block, uint32_t unit)
{
	return (block ^ (uint64_t)unit * 0xc2b2ae3d27d4eb4full) * HASH_MUL;
}

/* Shared by locality.c and locality_part.c. */
int lc_sync_subparts(struct sb_locality *l, const struct sb_trace_info *info);
struct bentry *lc_bget(struct lsp *s, uint64_t block, uint32_t unit, uint64_t h, bool *fresh);
void lc_merge_leaves(struct sb_locality *l);
/* Join leaf src into dst (src's accesses come after dst's). */
void lc_leaf_join(struct leaf *dst, const struct leaf *src);
/* Merge the leaves of arrays of n leaves in pairs (the tree's leaves one level up). */
void lc_merge_leaf_arrays(struct leaf *leaves, uint64_t (*lh)[LH], uint32_t n);
void lc_new_window(struct sb_locality *l, uint32_t sample);
int lc_compact_global(struct sb_locality *l);
int lc_compact_sp(struct sb_locality *l, struct lsp *s);

static inline void lc_hist_add(struct sb_reuse_hist *h, uint64_t d)
{
	h->bins[sb_reuse_bin(d)]++;
	h->finite++;
	h->sum += d;
	h->max = d > h->max ? d : h->max;
}

/* The level of the lowest common ancestor of two leaves (0: the same leaf). */
static inline unsigned lc_level(uint64_t a, uint64_t b)
{
	return 64u - (unsigned)__builtin_clzll((a ^ b) | 1) - ((a ^ b) == 0);
}

#endif /* SB_LOCALITY_INTERNAL_H */
