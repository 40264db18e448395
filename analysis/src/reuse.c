/* SPDX-License-Identifier: MIT */
/*
 * Reuse distances in O(log n) per access (reuse_internal.h describes the counting structure),
 * and sb_reuse, the stream-of-keys interface of locality.h.
 */
#include <stdlib.h>
#include <string.h>

#include "reuse_internal.h"
#include "stackbench/error.h"
#include "stackbench/locality.h"
#include "trace_internal.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* --- the counting structure ------------------------------------------------------------------ */

/* Entries of level k (1-based) for W words: one per group of 16^(k-1) words, whole groups. */
static size_t level_len(uint32_t words, unsigned k)
{
	size_t n = words;

	for (unsigned i = 1; i < k; i++)
		n = (n + 15) / 16;
	return (n + 15) & ~(size_t)15;
}

static unsigned levels_for(uint32_t words)
{
	unsigned l = 1;
	uint64_t span = 16;

	while (span < words) {
		span *= 16;
		l++;
	}
	return l;
}

static void rd_free_arrays(struct rd_tree *t)
{
	const uint32_t words = t->cap / 64;

	if (t->words)
		sb_table_free(t->words, words * sizeof(*t->words));
	if (t->l1)
		sb_table_free(t->l1, level_len(words, 1) * sizeof(*t->l1));
	for (unsigned k = 2; k <= RD_MAX_LEVELS; k++)
		if (t->up[k - 1])
			sb_table_free(t->up[k - 1], level_len(words, k) * sizeof(*t->up[k - 1]));
	t->words = NULL;
	t->l1 = NULL;
	memset(t->up, 0, sizeof(t->up));
}

static int rd_alloc(struct rd_tree *t, uint32_t cap)
{
	const uint32_t words = cap / 64;

	t->cap = cap;
	t->levels = levels_for(words);
	t->words = sb_table_alloc(words * sizeof(*t->words));
	t->l1 = sb_table_alloc(level_len(words, 1) * sizeof(*t->l1));
	if (!t->words || !t->l1)
		goto nomem;
	for (unsigned k = 2; k <= t->levels; k++)
		if (!(t->up[k - 1] = sb_table_alloc(level_len(words, k) * sizeof(*t->up[k - 1]))))
			goto nomem;
	return 0;
nomem:
	rd_free_arrays(t);
	return sb_error_set(SB_ERR_NOMEM, "out of memory (reuse distances over %u positions)", cap);
}

int rd_init(struct rd_tree *t, uint32_t cap)
{
	memset(t, 0, sizeof(*t));
	if (cap < 1024)
		cap = 1024;
	return rd_alloc(t, cap);
}

void rd_release(struct rd_tree *t)
{
	rd_free_arrays(t);
}

uint32_t rd_rank(const struct rd_tree *t, uint32_t p)
{
	return (uint32_t)rd_rank_excl(t, p);
}

/* Rebuild the tree from the words before the tail word. */
static void rd_rebuild(struct rd_tree *t)
{
	const uint32_t words = t->cap / 64, tail = t->now >> 6;

	memset(t->l1, 0, level_len(words, 1) * sizeof(*t->l1));
	for (unsigned k = 2; k <= t->levels; k++)
		memset(t->up[k - 1], 0, level_len(words, k) * sizeof(*t->up[k - 1]));
	t->sealed = 0;
	for (uint32_t w = 0; w < tail; w++) {
		const int c = (int)rd_pop64(t->words[w]);

		if (c)
			rd_tree_add(t, w, c);
		t->sealed += (uint64_t)c;
	}
}

int rd_compact_end(struct rd_tree *t)
{
	const uint64_t live = t->live;
	uint32_t cap = t->cap;
	int err;

	while ((uint64_t)cap < 4 * live && cap < (UINT32_C(1) << 31))
		cap *= 2;
	if (live >= cap)
		return sb_error_set(SB_ERR_RANGE, "more than 2^29 distinct blocks in one window");
	if (cap != t->cap) {
		rd_free_arrays(t);
		if ((err = rd_alloc(t, cap)) < 0)
			return err;
	} else {
		memset(t->words, 0, (size_t)(cap / 64) * sizeof(*t->words));
	}
	for (uint64_t w = 0; w < live / 64; w++)
		t->words[w] = ~UINT64_C(0);
	if (live % 64)
		t->words[live / 64] = (UINT64_C(1) << (live % 64)) - 1;
	t->now = (uint32_t)live;
	rd_rebuild(t);
	return 0;
}

void rd_reset(struct rd_tree *t)
{
	const uint32_t words = t->cap / 64, w = t->now >> 6 < words ? t->now >> 6 : words - 1;

	memset(t->words, 0, ((size_t)w + 1) * sizeof(*t->words));
	memset(t->l1, 0, (((size_t)w | 15) + 1) * sizeof(*t->l1));
	for (unsigned k = 2; k <= t->levels; k++) {
		size_t idx = (size_t)w >> (4 * (k - 1));

		memset(t->up[k - 1], 0, ((idx | 15) + 1) * sizeof(*t->up[k - 1]));
	}
	t->now = 0;
	t->live = 0;
	t->sealed = 0;
}

/* --- sb_reuse: distances of a stream of keys ------------------------------------------------- */

struct rentry {
	uint64_t key1; /* key + 1; 0: empty (key UINT64_MAX lives in spare) */
	uint32_t pos;
	uint32_t pad;
};

struct sb_reuse {
	struct rd_tree t;
	struct rentry *e;
	size_t mask, used;
	unsigned hshift;
	bool spare_used;
	struct rentry spare;
};

#define HASH_MUL 0x9e3779b97f4a7c15ull

static inline size_t slot_of(const struct sb_reuse *r, uint64_t key)
{
	return (size_t)((key * HASH_MUL) >> r->hshift);
}

static int table_init(struct sb_reuse *r, size_t cap)
{
	r->e = sb_table_alloc(cap * sizeof(*r->e));
	if (!r->e)
		return sb_error_set(SB_ERR_NOMEM, "out of memory (%zu keys)", cap);
	r->mask = cap - 1;
	r->used = 0;
	r->hshift = 64;
	while (cap > 1) {
		cap >>= 1;
		r->hshift--;
	}
	return 0;
}

int sb_reuse_new(struct sb_reuse **rp)
{
	struct sb_reuse *r = calloc(1, sizeof(*r));
	int err;

	*rp = NULL;
	if (!r)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = table_init(r, 1024)) < 0) {
		free(r);
		return err;
	}
	if ((err = rd_init(&r->t, 4096)) < 0) {
		sb_table_free(r->e, (r->mask + 1) * sizeof(*r->e));
		free(r);
		return err;
	}
	*rp = r;
	return 0;
}

void sb_reuse_free(struct sb_reuse *r)
{
	if (!r)
		return;
	rd_release(&r->t);
	sb_table_free(r->e, (r->mask + 1) * sizeof(*r->e));
	free(r);
}

static int grow(struct sb_reuse *r)
{
	struct sb_reuse n = *r;
	int err;

	if ((err = table_init(&n, (r->mask + 1) * 2)) < 0)
		return err;
	for (size_t i = 0; i <= r->mask; i++) {
		size_t j;

		if (!r->e[i].key1)
			continue;
		for (j = slot_of(&n, r->e[i].key1 - 1); n.e[j].key1; j = (j + 1) & n.mask)
			;
		n.e[j] = r->e[i];
	}
	n.used = r->used;
	sb_table_free(r->e, (r->mask + 1) * sizeof(*r->e));
	r->e = n.e;
	r->mask = n.mask;
	r->hshift = n.hshift;
	return 0;
}

static int compact(struct sb_reuse *r)
{
	for (size_t i = 0; i <= r->mask; i++)
		if (r->e[i].key1)
			r->e[i].pos = rd_rank(&r->t, r->e[i].pos);
	if (r->spare_used)
		r->spare.pos = rd_rank(&r->t, r->spare.pos);
	return rd_compact_end(&r->t);
}

/* The entry of key, inserted if absent (*fresh set); NULL when out of memory. */
static inline struct rentry *lookup(struct sb_reuse *r, uint64_t key, bool *fresh)
{
	const uint64_t k1 = key + 1;
	size_t i;

	if (UNLIKELY(!k1)) {
		*fresh = !r->spare_used;
		r->spare_used = true;
		return &r->spare;
	}
	for (i = slot_of(r, key); r->e[i].key1; i = (i + 1) & r->mask)
		if (r->e[i].key1 == k1) {
			*fresh = false;
			return &r->e[i];
		}
	if (UNLIKELY((r->used + 1) * 10 > (r->mask + 1) * 7)) {
		if (grow(r) < 0)
			return NULL;
		return lookup(r, key, fresh);
	}
	r->e[i].key1 = k1;
	r->used++;
	*fresh = true;
	return &r->e[i];
}

#define AHEAD 16

int sb_reuse_feed(struct sb_reuse *r, const uint64_t *keys, size_t n, uint64_t *dist)
{
	int err;

	for (size_t i = 0; i < n; i++) {
		struct rentry *e;
		bool fresh;

		if (i + AHEAD < n)
			__builtin_prefetch(&r->e[slot_of(r, keys[i + AHEAD])], 1, 3);
		if (UNLIKELY(rd_full(&r->t)) && (err = compact(r)) < 0)
			return err;
		if (UNLIKELY(!(e = lookup(r, keys[i], &fresh))))
			return SB_ERR_NOMEM;
		if (fresh) {
			dist[i] = SB_REUSE_COLD;
		} else {
			dist[i] = rd_after(&r->t, e->pos);
			rd_clear(&r->t, e->pos);
		}
		e->pos = rd_append(&r->t);
	}
	return 0;
}

uint64_t sb_reuse_distinct(const struct sb_reuse *r)
{
	return r->t.live;
}
