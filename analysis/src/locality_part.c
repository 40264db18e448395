/* SPDX-License-Identifier: MIT */
/*
 * Chunks of a trace analysed apart and joined exactly (locality.h, docs/locality.md, "Threads
 * and shards").
 *
 * A chunk engine starts where one engine reading the whole trace would be at the chunk's first
 * record (sb_locality_prefix: access numbers, windows), so the positions of its accesses in the
 * time-centric tree and its windows are the trace's own. What it cannot know are the blocks
 * touched before it: their first accesses in the chunk count as cold and as new in the tree.
 * sb_locality_absorb() resolves them against the engine that absorbed every earlier chunk, the
 * way parda (Niu, Ding, Wang, Garcia: "PARDA: A Fast Parallel Reuse Distance Analysis
 * Algorithm", IPDPS 2012) does: the chunk's first accesses, in their order, are accesses of the
 * merged reuse structures (their distance counts the distinct blocks since their previous access
 * before the chunk plus the chunk's distinct blocks before them, exactly the single-pass
 * distance), then the chunk's blocks are moved to the end of the structures in the order of their
 * last accesses, which leaves them as one pass would. The tree's counters of those first
 * accesses move from "new" to the level of their previous access's leaf; per-block counts add.
 */
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"
#include "stackbench/error.h"
#include "trace_internal.h"

void sb_locality_prefix_skim(struct sb_locality_prefix *p, const struct sb_trace_info *info,
                             const struct sb_trace_record *recs, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		const struct sb_trace_record *r = &recs[i];

		p->records++;
		/* as sb_locality_feed(): flushes and reservation fails are not accesses */
		if (r->kind == SB_ACC_FLUSH || r->cache == SB_CACHE_RESERVATION_FAIL)
			continue;
		if (!p->started) {
			p->started = true;
			p->by_sample = (info->fields & SB_FIELD_SAMPLE) || info->capture.sampled;
			p->epoch++;
			p->sample = r->sample;
			p->win_any = false;
		} else if (p->by_sample && r->sample != p->sample) {
			p->epoch++;
			p->sample = r->sample;
			p->win_any = false;
		}
		if (!p->win_any) {
			p->win_any = true;
			p->win_first = p->win_last = r->time;
		}
		p->win_first = r->time < p->win_first ? r->time : p->win_first;
		p->win_last = r->time > p->win_last ? r->time : p->win_last;
		p->accesses++;
	}
}

const struct sb_locality_prefix *sb_locality_part_start(const struct sb_locality_part *part)
{
	return &part->start;
}

const struct sb_locality_prefix *sb_locality_part_end(const struct sb_locality_part *part)
{
	return &part->end;
}

void sb_locality_part_free(struct sb_locality_part *part)
{
	if (!part)
		return;
	free(part->sp);
	free(part->leaves);
	free(part->blocks);
	free(part);
}

static int cmp_first(const void *a, const void *b)
{
	uint64_t x = ((const struct lc_pblock *)a)->first, y = ((const struct lc_pblock *)b)->first;

	return (x > y) - (x < y);
}

int sb_locality_take_part(struct sb_locality *l, struct sb_locality_part **out)
{
	struct sb_locality_part *p = calloc(1, sizeof(*p));
	size_t nb = 0, nl = 0;

	*out = NULL;
	if (!p)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	p->start = l->start;
	p->end = (struct sb_locality_prefix){
	    .records = l->records,
	    .accesses = l->accesses,
	    .epoch = l->epoch,
	    .sample = l->cur_sample,
	    .win_first = l->win_first,
	    .win_last = l->win_last,
	    .started = l->started,
	    .by_sample = l->by_sample,
	    .win_any = l->win_any,
	};
	p->max_leaves = l->o.max_leaves;
	p->lshift = l->lshift;
	p->first_epoch = l->first_epoch;
	p->skipped = l->skipped;
	p->bytes = l->bytes;
	p->tany = l->tany;
	p->first = l->first;
	p->last = l->last;
	p->hist = l->ghist;
	p->nsp = (uint32_t)l->nsp;
	for (uint32_t i = 0; i < l->o.max_leaves; i++)
		nl += l->leaves[i].any || l->leaves[i].observed;
	for (size_t s = 0; s < l->nsp; s++)
		nb += l->sp[s].init ? l->sp[s].used : 0;
	p->sp = calloc(l->nsp ? l->nsp : 1, sizeof(*p->sp));
	p->leaves = calloc(nl ? nl : 1, sizeof(*p->leaves));
	p->blocks = calloc(nb ? nb : 1, sizeof(*p->blocks));
	if (!p->sp || !p->leaves || !p->blocks) {
		sb_locality_part_free(p);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	for (uint32_t i = 0; i < l->o.max_leaves; i++) {
		if (!l->leaves[i].any && !l->leaves[i].observed)
			continue;
		p->leaves[p->nleaves].index = i;
		p->leaves[p->nleaves].leaf = l->leaves[i];
		memcpy(p->leaves[p->nleaves].lh, l->lh[i], sizeof(l->lh[i]));
		p->nleaves++;
	}
	for (size_t s = 0; s < l->nsp; s++) {
		const struct lsp *sp = &l->sp[s];

		p->sp[s].accesses = sp->accesses;
		p->sp[s].bytes = sp->bytes;
		p->sp[s].hist = sp->hist;
		for (size_t i = 0; sp->init && i <= sp->mask; i++) {
			const struct bentry *e = &sp->e[i];
			struct lc_pblock *b = &p->blocks[p->nblocks];

			if (!e->used)
				continue;
			b->block = e->block;
			b->unit = e->unit;
			b->sp = (uint16_t)s;
			b->accesses = e->accesses;
			b->finite = e->finite;
			b->rd_sum = e->rd_sum;
			b->first = e->first;
			b->first_epoch = e->used;
			b->last_epoch = e->epoch;
			b->leaf = e->leaf;
			/* its place in the last window's recency order: the rank of its position */
			b->rank = l->started && e->epoch == l->epoch ? rd_rank(&l->grd, e->gpos)
			                                             : UINT32_MAX;
			p->nblocks++;
		}
	}
	qsort(p->blocks, p->nblocks, sizeof(*p->blocks), cmp_first);
	*out = p;
	return 0;
}

/* The hash of a block's table slot (as locality.c's). */
static uint64_t block_hash(const struct lc_pblock *b)
{
	return lc_bhash(b->block, b->unit);
}

/*
 * Sort keys (rank << 32 | index) by rank: an LSD radix sort of 11-bit digits over the ranks'
 * bits, through tmp. Returns the sorted array (keys or tmp); NULL when out of memory.
 */
static uint64_t *sort_ranks(uint64_t *keys, uint64_t *tmp, size_t n)
{
	enum { BITS = 11, RADIX = 1 << BITS };
	size_t *count = malloc(RADIX * sizeof(*count));
	uint64_t max = 0;

	if (!count)
		return NULL;
	for (size_t i = 0; i < n; i++)
		max |= keys[i];
	for (unsigned shift = 32; shift < 64 && (shift == 32 || max >> shift); shift += BITS) {
		size_t sum = 0;

		memset(count, 0, RADIX * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(keys[i] >> shift) & (RADIX - 1)]++;
		for (size_t d = 0; d < RADIX; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(keys[i] >> shift) & (RADIX - 1)]++] = keys[i];
		{
			uint64_t *t = keys;

			keys = tmp;
			tmp = t;
		}
	}
	free(count);
	return keys;
}

static void reset_windows(struct sb_locality *l)
{
	rd_reset(&l->grd);
	for (size_t i = 0; i < l->nsp; i++)
		if (l->sp[i].init)
			rd_reset(&l->sp[i].rd);
}

/* Append e at the end of both reuse structures (compacting them when full). */
static int append(struct sb_locality *l, struct lsp *s, struct bentry *e)
{
	int err;

	if (rd_full(&l->grd) && (err = lc_compact_global(l)) < 0)
		return err;
	if (rd_full(&s->rd) && (err = lc_compact_sp(l, s)) < 0)
		return err;
	e->gpos = rd_append(&l->grd);
	e->spos = rd_append(&s->rd);
	e->epoch = l->epoch;
	return 0;
}

static bool same_prefix(const struct sb_locality_prefix *a, const struct sb_locality_prefix *b)
{
	if (a->records != b->records || a->accesses != b->accesses || a->started != b->started)
		return false;
	if (!a->started)
		return true;
	return a->epoch == b->epoch && a->by_sample == b->by_sample &&
	       (!a->by_sample || a->sample == b->sample) && a->win_any == b->win_any &&
	       (!a->win_any || (a->win_first == b->win_first && a->win_last == b->win_last));
}

static void hist_join(struct sb_reuse_hist *h, const struct sb_reuse_hist *o)
{
	h->accesses += o->accesses;
	h->cold += o->cold;
	for (unsigned k = 0; k < SB_REUSE_BINS; k++)
		h->bins[k] += o->bins[k];
	h->finite += o->finite;
	h->sum += o->sum;
	h->max = o->max > h->max ? o->max : h->max;
}

int sb_locality_absorb(struct sb_locality *l, const struct sb_trace_info *info,
                       const struct sb_locality_part *p)
{
	const struct sb_locality_prefix here = {
	    .records = l->records,
	    .accesses = l->accesses,
	    .epoch = l->epoch,
	    .sample = l->cur_sample,
	    .win_first = l->win_first,
	    .win_last = l->win_last,
	    .started = l->started,
	    .by_sample = l->by_sample,
	    .win_any = l->win_any,
	};
	const uint64_t chunk_accesses = p->end.accesses - p->start.accesses;
	struct bentry **ent = NULL;
	uint64_t *last = NULL, *order;
	size_t nlast = 0;
	uint32_t sh;
	bool cont;
	int err;

	if (p->max_leaves != l->o.max_leaves || !same_prefix(&p->start, &here) ||
	    p->end.records < p->start.records || p->end.accesses < p->start.accesses)
		return sb_error_set(SB_ERR_MISMATCH,
		                    "a chunk does not begin where the chunks before it end (record "
		                    "%llu, access %llu; it begins at record %llu, access %llu)",
		                    (unsigned long long)l->records, (unsigned long long)l->accesses,
		                    (unsigned long long)p->start.records,
		                    (unsigned long long)p->start.accesses);
	if (p->nsp > info->nsubparts)
		return sb_error_set(SB_ERR_MISMATCH, "a chunk names %u subpartitions of %u", p->nsp,
		                    info->nsubparts);
	if ((err = lc_sync_subparts(l, info)) < 0)
		return err;
	for (size_t i = 0; i < p->nblocks; i++)
		if (p->blocks[i].sp >= p->nsp)
			return sb_error_set(SB_ERR_MISMATCH,
			                    "a chunk's block names subpartition %u",
			                    p->blocks[i].sp);
	/* the tree's leaves at one width: the wider of the two */
	while (l->lshift < p->lshift)
		lc_merge_leaves(l);
	sh = l->lshift - p->lshift;
	for (size_t i = 0; i < p->nleaves; i++) {
		/* leaves of the part merged (sh times) into the engine's, as lc_merge_leaf_arrays */
		const struct lc_pleaf *pl = &p->leaves[i];
		const uint64_t at = (uint64_t)pl->index >> sh;
		struct leaf *lf;

		if (at >= l->o.max_leaves)
			return sb_error_set(SB_ERR_MISMATCH, "a chunk's leaf %u is out of the tree",
			                    pl->index);
		lf = &l->leaves[at];
		lc_leaf_join(lf, &pl->leaf);
		for (unsigned k = 0; k < LH_NEW; k++)
			l->lh[at][k > sh ? k - sh : 0] += pl->lh[k];
		l->lh[at][LH_NEW] += pl->lh[LH_NEW];
	}
	/* counts, histograms (the chunk's first accesses counted cold: resolved below) */
	l->skipped += p->skipped;
	l->bytes += p->bytes;
	if (p->tany) {
		l->first = !l->tany || p->first < l->first ? p->first : l->first;
		l->last = !l->tany || p->last > l->last ? p->last : l->last;
		l->tany = true;
	}
	hist_join(&l->ghist, &p->hist);
	for (uint32_t s = 0; s < p->nsp; s++) {
		l->sp[s].accesses += p->sp[s].accesses;
		l->sp[s].bytes += p->sp[s].bytes;
		hist_join(&l->sp[s].hist, &p->sp[s].hist);
	}
	if (!chunk_accesses)
		goto done;
	if (!(ent = malloc((p->nblocks ? p->nblocks : 1) * sizeof(*ent))) ||
	    !(last = malloc(2 * (p->nblocks ? p->nblocks : 1) * sizeof(*last)))) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	/* every block: its entry; the tree's level of its first access; its counts (an insertion
	   can move the table: entries are looked up again once all are in) */
	for (size_t i = 0; i < p->nblocks; i++) {
		const struct lc_pblock *b = &p->blocks[i];
		const uint64_t leaf =
		    (p->end.by_sample ? b->first_epoch - 1 : b->first) >> l->lshift;
		bool fresh;
		struct bentry *e = lc_bget(&l->sp[b->sp], b->block, b->unit, block_hash(b), &fresh);

		if (!e) {
			err = SB_ERR_NOMEM;
			goto out;
		}
		if (leaf >= l->o.max_leaves) {
			err = sb_error_set(SB_ERR_MISMATCH, "a chunk's block is out of the tree");
			goto out;
		}
		if (fresh) {
			e->used = b->first_epoch;
			e->first = b->first;
			e->epoch = 0; /* no position in the current window */
		} else {
			/* not new: the level of the leaf of its previous access */
			l->lh[leaf][LH_NEW]--;
			l->lh[leaf][lc_level(leaf, e->leaf)]++;
		}
		e->leaf = b->leaf >> sh;
		e->accesses += b->accesses;
		e->finite += b->finite;
		e->rd_sum += b->rd_sum;
		if (b->last_epoch == p->end.epoch && b->rank != UINT32_MAX)
			last[nlast++] = (uint64_t)b->rank << 32 | i;
	}
	for (size_t i = 0; i < p->nblocks; i++) {
		bool fresh;

		ent[i] = lc_bget(&l->sp[p->blocks[i].sp], p->blocks[i].block, p->blocks[i].unit,
		                 block_hash(&p->blocks[i]), &fresh);
	}
	/* the first accesses of the chunk's first window, against the window they continue */
	cont = p->start.started && p->first_epoch == p->start.epoch;
	if (!cont)
		reset_windows(l); /* the chunk begins a window */
	l->epoch = p->first_epoch;
	for (size_t i = 0; cont && i < p->nblocks; i++) {
		const struct lc_pblock *b = &p->blocks[i];
		struct lsp *s = &l->sp[b->sp];
		struct bentry *e = ent[i];

		if (b->first_epoch != p->first_epoch)
			continue;
		if (e->epoch == l->epoch) {
			const uint64_t dg = rd_after(&l->grd, e->gpos),
			               ds = rd_after(&s->rd, e->spos);

			rd_clear(&l->grd, e->gpos);
			rd_clear(&s->rd, e->spos);
			l->ghist.cold--;
			s->hist.cold--;
			lc_hist_add(&l->ghist, dg);
			lc_hist_add(&s->hist, ds);
			e->finite++;
			e->rd_sum += ds;
		}
		if ((err = append(l, s, e)) < 0)
			goto out;
	}
	/* the last window's blocks in the order of their last accesses */
	if (p->end.epoch != p->first_epoch)
		reset_windows(l); /* the chunk ends in another window */
	l->epoch = p->end.epoch;
	if (!(order = sort_ranks(last, last + p->nblocks, nlast))) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto out;
	}
	for (size_t k = 0; k < nlast; k++) {
		const size_t i = (size_t)(order[k] & 0xffffffffu);
		struct bentry *e = ent[i];
		struct lsp *s = &l->sp[p->blocks[i].sp];

		if (k + 8 < nlast)
			__builtin_prefetch(ent[order[k + 8] & 0xffffffffu], 1, 3);
		if (e->epoch == l->epoch) {
			rd_clear(&l->grd, e->gpos);
			rd_clear(&s->rd, e->spos);
		}
		if ((err = append(l, s, e)) < 0)
			goto out;
	}
	/* the other blocks' positions are of an earlier window */
	for (size_t i = 0; i < p->nblocks; i++)
		if (p->blocks[i].last_epoch != p->end.epoch)
			ent[i]->epoch = p->blocks[i].last_epoch;
done:
	if (l->accesses == l->start.accesses && chunk_accesses)
		l->first_epoch = p->first_epoch; /* a chunk's engine absorbing chunks: its first */
	l->records = p->end.records;
	l->accesses = p->end.accesses;
	l->started = p->end.started;
	l->by_sample = p->end.by_sample;
	l->epoch = p->end.epoch;
	l->cur_sample = p->end.sample;
	l->win_any = p->end.win_any;
	l->win_first = p->end.win_first;
	l->win_last = p->end.win_last;
	err = 0;
out:
	free(ent);
	free(last);
	return err;
}
