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

/* Markers after position p (the reuse distance), p holding a marker. */
uint64_t rd_after(const struct rd_tree *t, uint32_t p);

/* Remove the marker at p. */
void rd_clear(struct rd_tree *t, uint32_t p);

/* Set a marker at the append point and return its position (the tree must not be full). */
uint32_t rd_append(struct rd_tree *t);

/*
 * Renumbering when full: every live position p a caller holds becomes rd_rank(t, p) (ranks are
 * 0 .. live - 1, in the same order); then rd_compact_end() rebuilds the vector with markers at
 * 0 .. live - 1, grown to at least 4 × live positions (0 or SB_ERR_NOMEM).
 */
uint32_t rd_rank(const struct rd_tree *t, uint32_t p);
int rd_compact_end(struct rd_tree *t);

#endif /* SB_REUSE_INTERNAL_H */
