/* SPDX-License-Identifier: MIT */
/*
 * The counting structure behind reuse distances (reuse.c). Not installed.
 *
 * Every block's last access holds a marker at its position in a bit vector; positions are
 * handed out in increasing order (the append point `now`). The reuse distance of an access to a
 * block whose last access is at position p is the number of markers after p: the distinct other
 * blocks touched since. A 16-ary tree of prefix counts over the words of the bit vector answers
 * "markers before p" with one independent load per level (no dependent chain, unlike a Fenwick
 * tree), and moves a marker with one 16-wide vector add per level. Appends go to the tail word,
 * counted into the tree only when the word is full. When the positions run out, the live
 * markers are renumbered (their rank) and the vector grows to at least four times their count,
 * so that renumbering costs O(1) per access amortized.
 */
#ifndef SB_REUSE_INTERNAL_H
#define SB_REUSE_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define RD_MAX_LEVELS 8 /* 16^8 words: 2^38 positions, more than a uint32_t holds */

struct rd_tree {
	uint64_t *words; /* the bit vector: a marker at each live block's last position */
	uint16_t *l1;    /* per word: markers in the words before it within its group of 16 */
	uint32_t *up[RD_MAX_LEVELS]; /* level k >= 2: per group of 16^(k-1) words, markers in the
	                                groups before it within its parent group */
	unsigned levels;             /* levels of the tree (1 + the up[] levels in use) */
	uint32_t cap;                /* positions (bits), a power of two >= 1024 */
	uint32_t now;                /* the next position handed out */
	uint64_t live;               /* markers set */
	uint64_t sealed; /* markers in words before the tail word (counted in the tree) */
};

int rd_init(struct rd_tree *t, uint32_t cap);
void rd_release(struct rd_tree *t);

/* Forget every marker (a new window of a sampled trace). */
void rd_reset(struct rd_tree *t);

/* Whether the next append needs a renumbering first (rd_compact). */
static inline bool rd_full(const struct rd_tree *t)
{
	return t->now == t->cap;
}

/*
 * Renumbering when full: every live position p a caller holds becomes rd_rank(t, p) (ranks are
 * 0 .. live - 1, in the same order); then rd_compact_end() rebuilds the vector with markers at
 * 0 .. live - 1, grown to at least 4 × live positions (0 or SB_ERR_NOMEM).
 */
uint32_t rd_rank(const struct rd_tree *t, uint32_t p);
int rd_compact_end(struct rd_tree *t);

/* --- the hot operations, inline in the engines (reuse.c has the rest) ---------------------- */

/* Bits set in x: one instruction where the target has it, else a few without a call. */
static inline unsigned rd_pop64(uint64_t x)
{
#ifdef __POPCNT__
	return (unsigned)__builtin_popcountll(x);
#else
	x = x - ((x >> 1) & 0x5555555555555555ull);
	x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
	return (unsigned)((x * 0x0101010101010101ull) >> 56);
#endif
}

/* 16 counters of a group as one vector (two or four SSE registers on any x86-64). */
typedef uint16_t rd_v16w __attribute__((vector_size(32)));
typedef uint32_t rd_v16d __attribute__((vector_size(64)));

/* rd_after16[i], rd_after32[i]: every bit set in the lanes after lane i. */
static const rd_v16w rd_after16[16] = {
    {0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
     0xffff, 0xffff, 0xffff, 0xffff},
    {0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
     0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
     0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
     0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
     0xffff},
    {0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff,
     0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
static const rd_v16d rd_after32[16] = {
    {0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff},
    {0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff,
     0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xffffffff},
    {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};

/* Add d to the prefix counts of the words after w (w sealed). */
static inline void rd_tree_add(struct rd_tree *t, uint32_t w, int d)
{
	{
		uint16_t *g = t->l1 + (w & ~15u);
		rd_v16w v;

		memcpy(&v, g, sizeof(v));
		v += rd_after16[w & 15] & (uint16_t)d;
		memcpy(g, &v, sizeof(v));
	}
	for (unsigned k = 2; k <= t->levels; k++) {
		const uint32_t idx = w >> (4 * (k - 1));
		uint32_t *g = t->up[k - 1] + (idx & ~15u);
		rd_v16d v;

		memcpy(&v, g, sizeof(v));
		v += rd_after32[idx & 15] & (uint32_t)d;
		memcpy(g, &v, sizeof(v));
	}
}

/* Markers in sealed words before word w. */
static inline uint64_t rd_tree_prefix(const struct rd_tree *t, uint32_t w)
{
	uint64_t r = t->l1[w];

	for (unsigned k = 2; k <= t->levels; k++)
		r += t->up[k - 1][w >> (4 * (k - 1))];
	return r;
}

/* Markers before position p. */
static inline uint64_t rd_rank_excl(const struct rd_tree *t, uint32_t p)
{
	const uint32_t w = p >> 6, tail = t->now >> 6;
	const uint64_t below = t->words[w] & ((UINT64_C(1) << (p & 63)) - 1);

	if (w >= tail)
		return t->sealed + (uint64_t)rd_pop64(below);
	return rd_tree_prefix(t, w) + (uint64_t)rd_pop64(below);
}

/* Markers after position p (the reuse distance), p holding a marker. */
static inline uint64_t rd_after(const struct rd_tree *t, uint32_t p)
{
	const uint32_t w = p >> 6, tail = t->now >> 6;

	/* a marker in the tail word: only the tail word's markers can follow it */
	if (w == tail)
		return (uint64_t)rd_pop64(t->words[w] >> (p & 63)) - 1;
	return t->live - rd_rank_excl(t, p) - 1;
}

/* Remove the marker at p. */
static inline void rd_clear(struct rd_tree *t, uint32_t p)
{
	const uint32_t w = p >> 6;

	t->words[w] &= ~(UINT64_C(1) << (p & 63));
	t->live--;
	if (w < t->now >> 6) {
		rd_tree_add(t, w, -1);
		t->sealed--;
	}
}

/* Set a marker at the append point and return its position (the tree must not be full). */
static inline uint32_t rd_append(struct rd_tree *t)
{
	const uint32_t p = t->now++;

	t->words[p >> 6] |= UINT64_C(1) << (p & 63);
	t->live++;
	if ((t->now & 63) == 0) {
		/* the tail word is full: count it into the tree */
		const int c = (int)rd_pop64(t->words[p >> 6]);

		rd_tree_add(t, p >> 6, c);
		t->sealed += (uint64_t)c;
	}
	return p;
}

#endif /* SB_REUSE_INTERNAL_H */
