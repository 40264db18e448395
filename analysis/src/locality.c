/* SPDX-License-Identifier: MIT */
/*
 * Memory-centric analyses (locality.h, docs/locality.md). One pass over the records:
 *
 * - every block (of a subpartition, with the unit for caches private to each unit) has one
 *   64-byte entry in its subpartition's open-addressing table: its last positions in the reuse
 *   structures (reuse_internal.h) of the whole trace and of its subpartition, the window and the
 *   tree leaf of its last access, its accesses and the sum of its reuse distances;
 * - reuse distances go into power-of-two histograms (trace-wide and per subpartition);
 * - the time-centric tree: each access counts, for its leaf, the level of the lowest common
 *   ancestor of its leaf and the leaf of the block's previous access ("new" when none). The
 *   footprint of a node at level l is then the count of its leaves' accesses whose level is
 *   above l: exactly the accesses that are the first of their block within the node. Leaves are
 *   merged in pairs when there would be more than max_leaves;
 * - windows: a sampled trace restarts the reuse structures at every change of sample id (what
 *   happened in a gap is unknown), so a block's first access in a window has no distance;
 * - after the pass, zooming walks each subpartition's blocks sorted by address.
 *
 * Decoding runs AHEAD records before applying, prefetching each block's table slot.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "locality_internal.h"
#include "reuse_internal.h"
#include "stackbench/error.h"
#include "stackbench/locality.h"
#include "stackbench/util.h"
#include "trace_internal.h"

/* --- tables ------------------------------------------------------------------------------- */

static int btab_init(struct lsp *s, size_t cap)
{
	s->e = sb_table_alloc(cap * sizeof(*s->e));
	if (!s->e)
		return sb_error_set(SB_ERR_NOMEM, "out of memory (a table of %zu blocks)", cap);
	s->mask = cap - 1;
	s->used = 0;
	s->hshift = 64;
	while (cap > 1) {
		cap >>= 1;
		s->hshift--;
	}
	return 0;
}

static int btab_grow(struct lsp *s)
{
	struct bentry *old = s->e;
	size_t omask = s->mask, used = s->used;
	int err;

	if ((err = btab_init(s, (omask + 1) * 2)) < 0) {
		s->e = old;
		s->mask = omask;
		return err;
	}
	for (size_t i = 0; i <= omask; i++) {
		size_t j;

		if (!old[i].used)
			continue;
		for (j = (size_t)(lc_bhash(old[i].block, old[i].unit) >> s->hshift); s->e[j].used;
		     j = (j + 1) & s->mask)
			;
		s->e[j] = old[i];
	}
	s->used = used;
	sb_table_free(old, (omask + 1) * sizeof(*old));
	return 0;
}

/* The entry of (block, unit), inserted if absent (*fresh); NULL when out of memory. */
static inline struct bentry *bget(struct lsp *s, uint64_t block, uint32_t unit, uint64_t h,
                                  bool *fresh)
{
	size_t i = (size_t)(h >> s->hshift);

	for (; s->e[i].used; i = (i + 1) & s->mask) {
		if (s->e[i].block == block && s->e[i].unit == unit) {
			*fresh = false;
			return &s->e[i];
		}
	}
	if (UNLIKELY((s->used + 1) * 10 > (s->mask + 1) * 7)) {
		if (btab_grow(s) < 0)
			return NULL;
		return bget(s, block, unit, h, fresh);
	}
	s->e[i].block = block;
	s->e[i].unit = unit;
	s->e[i].used = 1;
	s->used++;
	*fresh = true;
	return &s->e[i];
}

struct bentry *lc_bget(struct lsp *s, uint64_t block, uint32_t unit, uint64_t h, bool *fresh)
{
	return bget(s, block, unit, h, fresh);
}

/* --- engine ------------------------------------------------------------------------------- */

static bool pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

int sb_locality_options_resolve(struct sb_locality_options *opt)
{
	struct sb_locality_options o = *opt;

	if (!o.block_bytes)
		o.block_bytes = 64;
	if (!o.max_leaves)
		o.max_leaves = 1024;
	if (o.hot_share == 0)
		o.hot_share = 0.1;
	if (!o.zoom_fanout)
		o.zoom_fanout = 16;
	if (!o.zoom_floor_bytes)
		o.zoom_floor_bytes = o.block_bytes;
	if (!o.max_regions)
		o.max_regions = 256;
	if (o.rules.min_events == 0 && o.rules.min_density == 0 && o.rules.warmup_factor == 0)
		sb_confidence_rules_default(&o.rules);
	if (!pow2(o.block_bytes) || !pow2(o.max_leaves) || o.max_leaves > MAX_LEAVES ||
	    o.max_leaves < 2 || !pow2(o.zoom_fanout) || o.zoom_fanout < 2 ||
	    !(o.hot_share > 0 && o.hot_share <= 1))
		return sb_error_set(
		    SB_ERR_INVAL,
		    "locality: the block size (%u), leaves (%u, 2..65536) and zoom "
		    "fan-out (%u) must be powers of two, the hot share (%g) in (0, 1]",
		    o.block_bytes, o.max_leaves, o.zoom_fanout, o.hot_share);
	*opt = o;
	return 0;
}

int sb_locality_new(struct sb_locality **lp, const struct sb_locality_options *opt)
{
	struct sb_locality *l;
	struct sb_locality_options o = {0};
	int err;

	*lp = NULL;
	if (opt)
		o = *opt;
	if ((err = sb_locality_options_resolve(&o)) < 0)
		return err;
	if (!(l = calloc(1, sizeof(*l))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	l->o = o;
	while ((1u << l->bshift) < o.block_bytes)
		l->bshift++;
	l->leaves = calloc(o.max_leaves, sizeof(*l->leaves));
	l->lh = calloc(o.max_leaves, sizeof(*l->lh));
	if (!l->leaves || !l->lh) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory");
		goto fail;
	}
	if ((err = rd_init(&l->grd, 4096)) < 0)
		goto fail;
	*lp = l;
	return 0;
fail:
	sb_locality_free(l);
	return err;
}

int sb_locality_new_chunk(struct sb_locality **lp, const struct sb_locality_options *opt,
                          const struct sb_locality_prefix *start)
{
	struct sb_locality *l;
	int err;

	if ((err = sb_locality_new(lp, opt)) < 0)
		return err;
	l = *lp;
	l->start = *start;
	l->records = start->records;
	l->accesses = start->accesses;
	l->started = start->started;
	l->by_sample = start->by_sample;
	l->epoch = start->epoch;
	l->cur_sample = start->sample;
	l->win_any = start->win_any;
	l->win_first = start->win_first;
	l->win_last = start->win_last;
	return 0;
}

void sb_locality_free(struct sb_locality *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->nsp; i++) {
		if (l->sp[i].e)
			sb_table_free(l->sp[i].e, (l->sp[i].mask + 1) * sizeof(*l->sp[i].e));
		rd_release(&l->sp[i].rd);
	}
	free(l->sp);
	rd_release(&l->grd);
	free(l->leaves);
	free(l->lh);
	free(l);
}

int lc_sync_subparts(struct sb_locality *l, const struct sb_trace_info *info)
{
	int err;

	if (info->nsubparts > l->nsp) {
		struct lsp *n = realloc(l->sp, info->nsubparts * sizeof(*n));

		if (!n)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		memset(n + l->nsp, 0, (info->nsubparts - l->nsp) * sizeof(*n));
		l->sp = n;
		l->nsp = info->nsubparts;
	}
	for (size_t i = 0; i < l->nsp; i++) {
		struct lsp *s = &l->sp[i];
		const struct sb_trace_subpart *sp = &info->subparts[i];
		uint32_t au = sp->addr_unit_bytes ? sp->addr_unit_bytes : 1;

		if (s->init)
			continue;
		if ((err = btab_init(s, 1024)) < 0 || (err = rd_init(&s->rd, 4096)) < 0)
			return err;
		s->left = au > l->o.block_bytes;
		for (uint32_t r = s->left ? au / l->o.block_bytes : l->o.block_bytes / au; r > 1;
		     r >>= 1)
			s->shift++;
		s->per_unit = sp->per_unit;
		s->init = true;
	}
	return 0;
}

static inline void decode(const struct sb_locality *l, const struct sb_trace_record *r,
                          struct lop *o)
{
	o->time = r->time;
	o->size = r->size;
	o->sample = r->sample;
	o->sp = r->subpart;
	o->skip = r->kind == SB_ACC_FLUSH || r->cache == SB_CACHE_RESERVATION_FAIL;
	if (UNLIKELY(r->subpart >= l->nsp)) {
		o->skip = 2;
		return;
	}
	const struct lsp *s = &l->sp[r->subpart];

	o->block = s->left ? r->addr << s->shift : r->addr >> s->shift;
	o->unit = s->per_unit ? r->unit : 0;
	o->h = lc_bhash(o->block, o->unit);
	__builtin_prefetch(&s->e[(size_t)(o->h >> s->hshift)], 1, 3);
}

/* The window that ends adds its length to its leaf. */
static void close_window(struct sb_locality *l)
{
	struct leaf *lf;

	if (!l->win_any)
		return;
	lf = &l->leaves[(l->epoch - 1) >> l->lshift];
	lf->observed += (uint64_t)(l->win_last - l->win_first) + 1;
	l->win_any = false;
}

void lc_leaf_join(struct leaf *dst, const struct leaf *src)
{
	/* a chunk's engine can close a window whose accesses it did not see: observed time
	   without accesses */
	const uint64_t observed = dst->observed + src->observed;

	if (src->any) {
		if (!dst->any) {
			*dst = *src;
		} else {
			dst->accesses += src->accesses;
			dst->bytes += src->bytes;
			dst->first = src->first < dst->first ? src->first : dst->first;
			dst->last = src->last > dst->last ? src->last : dst->last;
		}
	}
	dst->observed = observed;
}

void lc_merge_leaf_arrays(struct leaf *leaves, uint64_t (*lh)[LH], uint32_t n)
{
	for (uint32_t i = 0; i < n / 2; i++) {
		struct leaf *a = &leaves[2 * i], *b = &leaves[2 * i + 1], m = *a;
		uint64_t h[LH] = {0};

		lc_leaf_join(&m, b);
		for (unsigned c = 0; c < 2; c++) {
			const uint64_t *o = lh[2 * i + c];

			for (unsigned k = 0; k < LH_NEW; k++)
				h[k ? k - 1 : 0] += o[k];
			h[LH_NEW] += o[LH_NEW];
		}
		leaves[i] = m;
		memcpy(lh[i], h, sizeof(h));
	}
	memset(leaves + n / 2, 0, n / 2 * sizeof(*leaves));
	memset(lh + n / 2, 0, n / 2 * sizeof(*lh));
}

/* Merge leaves in pairs: every leaf stands for twice the samples or accesses. */
void lc_merge_leaves(struct sb_locality *l)
{
	lc_merge_leaf_arrays(l->leaves, l->lh, l->o.max_leaves);
	for (size_t s = 0; s < l->nsp; s++)
		for (size_t i = 0; l->sp[s].init && i <= l->sp[s].mask; i++)
			l->sp[s].e[i].leaf >>= 1;
	l->lshift++;
}

/* A new window (sampled traces): the reuse structures start empty. */
void lc_new_window(struct sb_locality *l, uint32_t sample)
{
	close_window(l);
	l->cur_sample = sample;
	l->epoch++;
	rd_reset(&l->grd);
	for (size_t i = 0; i < l->nsp; i++)
		if (l->sp[i].init)
			rd_reset(&l->sp[i].rd);
}

int lc_compact_global(struct sb_locality *l)
{
	for (size_t s = 0; s < l->nsp; s++)
		for (size_t i = 0; l->sp[s].init && i <= l->sp[s].mask; i++) {
			struct bentry *e = &l->sp[s].e[i];

			if (e->used && e->epoch == l->epoch)
				e->gpos = rd_rank(&l->grd, e->gpos);
		}
	return rd_compact_end(&l->grd);
}

int lc_compact_sp(struct sb_locality *l, struct lsp *s)
{
	for (size_t i = 0; i <= s->mask; i++) {
		struct bentry *e = &s->e[i];

		if (e->used && e->epoch == l->epoch)
			e->spos = rd_rank(&s->rd, e->spos);
	}
	return rd_compact_end(&s->rd);
}

static inline __attribute__((always_inline)) int apply(struct sb_locality *l, const struct lop *o)
{
	struct lsp *s;
	struct bentry *e;
	struct leaf *lf;
	uint64_t unit, leaf;
	bool fresh;
	int err;

	if (UNLIKELY(o->skip)) {
		if (o->skip == 2)
			return sb_error_set(SB_ERR_PARSE, "record names subpartition %u of %zu",
			                    o->sp, l->nsp);
		l->skipped++;
		return 0;
	}
	if (UNLIKELY(!sb_trace_time_ok(o->time)))
		return sb_error_set(SB_ERR_RANGE, "time %lld is out of range (|time| < 2^62 ticks)",
		                    (long long)o->time);
	if (UNLIKELY(!l->started)) {
		l->started = true;
		lc_new_window(l, o->sample);
	} else if (UNLIKELY(l->by_sample && o->sample != l->cur_sample)) {
		lc_new_window(l, o->sample);
	}
	if (UNLIKELY(!l->tany)) {
		l->tany = true;
		l->first = l->last = o->time;
	}
	if (UNLIKELY(l->accesses == l->start.accesses))
		l->first_epoch = l->epoch; /* a chunk's first access */
	s = &l->sp[o->sp];
	/* the tree's leaf: by window (sampled) or by access */
	unit = l->by_sample ? l->epoch - 1 : l->accesses;
	while (UNLIKELY((leaf = unit >> l->lshift) >= l->o.max_leaves))
		lc_merge_leaves(l);
	if (UNLIKELY(!(e = bget(s, o->block, o->unit, o->h, &fresh))))
		return SB_ERR_NOMEM;
	if (UNLIKELY(fresh)) {
		e->used = l->epoch; /* the window and access number of its first access */
		e->first = l->accesses;
	}
	if (UNLIKELY(rd_full(&l->grd)) && (err = lc_compact_global(l)) < 0)
		return err;
	if (UNLIKELY(rd_full(&s->rd)) && (err = lc_compact_sp(l, s)) < 0)
		return err;
	l->ghist.accesses++;
	s->hist.accesses++;
	if (e->epoch == l->epoch) {
		const uint64_t dg = rd_after(&l->grd, e->gpos), ds = rd_after(&s->rd, e->spos);

		rd_clear(&l->grd, e->gpos);
		rd_clear(&s->rd, e->spos);
		lc_hist_add(&l->ghist, dg);
		lc_hist_add(&s->hist, ds);
		e->finite++;
		e->rd_sum += ds;
	} else {
		l->ghist.cold++;
		s->hist.cold++;
	}
	e->gpos = rd_append(&l->grd);
	e->spos = rd_append(&s->rd);
	e->epoch = l->epoch;
	e->accesses++;
	/* footprints: the level above which this is the first access of its block in a node */
	l->lh[leaf][fresh ? LH_NEW : lc_level(leaf, e->leaf)]++;
	e->leaf = (uint32_t)leaf;
	lf = &l->leaves[leaf];
	if (!lf->any) {
		lf->any = true;
		lf->first = lf->last = o->time;
		lf->start = l->win_any ? l->win_first : o->time;
	}
	lf->first = o->time < lf->first ? o->time : lf->first;
	lf->last = o->time > lf->last ? o->time : lf->last;
	lf->accesses++;
	lf->bytes += o->size;
	if (!l->win_any) {
		l->win_any = true;
		l->win_first = l->win_last = o->time;
	}
	l->win_first = o->time < l->win_first ? o->time : l->win_first;
	l->win_last = o->time > l->win_last ? o->time : l->win_last;
	l->first = o->time < l->first ? o->time : l->first;
	l->last = o->time > l->last ? o->time : l->last;
	s->accesses++;
	s->bytes += o->size;
	l->accesses++;
	l->bytes += o->size;
	return 0;
}

SB_HOT_CLONES
int sb_locality_feed(struct sb_locality *l, const struct sb_trace_info *info,
                     const struct sb_trace_record *recs, size_t n)
{
	struct lop ring[2 * AHEAD];
	size_t i;
	int err;

	if (info->nsubparts > l->nsp && (err = lc_sync_subparts(l, info)) < 0)
		return err;
	if (!l->started)
		l->by_sample = (info->fields & SB_FIELD_SAMPLE) || info->capture.sampled;
	l->records += n;
	for (i = 0; i < n && i < AHEAD; i++)
		decode(l, &recs[i], &ring[i]);
	for (i = 0; i < n; i++) {
		if (i + AHEAD < n)
			decode(l, &recs[i + AHEAD], &ring[(i + AHEAD) % (2 * AHEAD)]);
		if ((err = apply(l, &ring[i % (2 * AHEAD)])) < 0)
			return err;
	}
	return 0;
}

/* --- results ------------------------------------------------------------------------------ */

/* A block of a subpartition for zooming (units merged). */
struct zblock {
	uint64_t block, accesses, finite, rd_sum;
};

/*
 * Sort blocks by number: an LSD radix sort of 11-bit digits, as many as the largest number
 * has (two for a few million blocks), through tmp (n entries). Returns the sorted array (z or
 * tmp).
 */
static struct zblock *sort_zblocks(struct zblock *z, struct zblock *tmp, size_t n)
{
	enum { BITS = 11, RADIX = 1 << BITS };
	uint64_t max = 0;
	size_t *count = malloc(RADIX * sizeof(*count));

	if (!count) /* the slow way */
		return NULL;
	for (size_t i = 0; i < n; i++)
		max |= z[i].block;
	for (unsigned shift = 0; shift < 64 && (shift == 0 || max >> shift); shift += BITS) {
		size_t sum = 0;

		memset(count, 0, RADIX * sizeof(*count));
		for (size_t i = 0; i < n; i++)
			count[(z[i].block >> shift) & (RADIX - 1)]++;
		for (size_t d = 0; d < RADIX; d++) {
			size_t c = count[d];

			count[d] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(z[i].block >> shift) & (RADIX - 1)]++] = z[i];
		{
			struct zblock *t = z;

			z = tmp;
			tmp = t;
		}
	}
	free(count);
	return z;
}

static int cmp_zblock(const void *a, const void *b)
{
	uint64_t x = ((const struct zblock *)a)->block, y = ((const struct zblock *)b)->block;

	return (x > y) - (x < y);
}

/* A region waiting to be split. */
struct zwork {
	size_t lo, hi;       /* its blocks: z[lo..hi) */
	uint64_t start, end; /* in blocks */
	uint64_t chunk;      /* blocks per chunk of its split */
	uint32_t depth;
	int32_t index; /* its region in res->regions */
};

static int add_region(struct sb_locality_result *res, size_t *cap, const struct sb_hot_region *r)
{
	if (res->nregions == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		struct sb_hot_region *n = realloc(res->regions, nc * sizeof(*n));

		if (!n)
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		res->regions = n;
		*cap = nc;
	}
	res->regions[res->nregions++] = *r;
	return 0;
}

/* A region's numbers from its blocks z[lo..hi). */
static void region_stats(struct sb_hot_region *r, const struct zblock *z, size_t lo, size_t hi)
{
	uint64_t finite = 0, sum = 0;

	r->accesses = 0;
	r->blocks = hi - lo;
	for (size_t i = lo; i < hi; i++) {
		r->accesses += z[i].accesses;
		finite += z[i].finite;
		sum += z[i].rd_sum;
	}
	r->finite = finite;
	r->mean_reuse = finite ? (double)sum / (double)finite : NAN;
}

/*
 * Zoom into subpartition sp: split a region into aligned chunks, keep the runs of touched
 * chunks holding at least hot_share of the region's accesses, and split those further with
 * chunks fan-out times smaller, down to the floor.
 */
static int zoom_subpart(const struct sb_locality *l, struct sb_locality_result *res, uint32_t sp,
                        size_t *cap)
{
	const struct lsp *s = &l->sp[sp];
	const uint64_t B = l->o.block_bytes, fan = l->o.zoom_fanout;
	const uint64_t floor_blocks = l->o.zoom_floor_bytes / B ? l->o.zoom_floor_bytes / B : 1;
	struct zblock *z, *zmem;
	struct zwork *q;
	size_t n = 0, qn = 0, qcap = 64, head = 0;
	int err = 0;

	if (!s->init || !s->used)
		return 0;
	if (!(zmem = malloc(2 * s->used * sizeof(*zmem))) || !(q = malloc(qcap * sizeof(*q)))) {
		free(zmem);
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	}
	z = zmem;
	for (size_t i = 0; i <= s->mask; i++)
		if (s->e[i].used)
			z[n++] = (struct zblock){s->e[i].block, s->e[i].accesses, s->e[i].finite,
			                         s->e[i].rd_sum};
	{
		struct zblock *sorted = sort_zblocks(z, zmem + s->used, n);

		if (sorted)
			z = sorted;
		else
			qsort(z, n, sizeof(*z), cmp_zblock);
	}
	{ /* blocks of several units at one address: one block of the address space */
		size_t k = 0;

		for (size_t i = 0; i < n; i++) {
			if (k && z[k - 1].block == z[i].block) {
				z[k - 1].accesses += z[i].accesses;
				z[k - 1].finite += z[i].finite;
				z[k - 1].rd_sum += z[i].rd_sum;
			} else {
				z[k++] = z[i];
			}
		}
		n = k;
	}
	{
		struct sb_hot_region root = {.subpart = sp, .depth = 0, .parent = -1};
		/* the range of touched blocks (its end saturates at the last block number) */
		const uint64_t rend = z[n - 1].block + (z[n - 1].block != UINT64_MAX);
		uint64_t size = rend - z[0].block, chunk = 1;

		while (chunk < size / fan + (size % fan != 0) && chunk < (UINT64_C(1) << 62))
			chunk *= 2;
		region_stats(&root, z, 0, n);
		root.first = z[0].block * B;
		root.last = rend * B - 1;
		root.share_of_parent = 1;
		root.share_of_total =
		    res->accesses ? (double)root.accesses / (double)res->accesses : 0;
		if ((err = add_region(res, cap, &root)) < 0)
			goto out;
		q[qn++] =
		    (struct zwork){0, n, z[0].block, rend, chunk, 0, (int32_t)res->nregions - 1};
	}
	while (head < qn && res->nregions < l->o.max_regions) {
		struct zwork w = q[head++];
		const uint64_t parent_acc = res->regions[w.index].accesses;
		size_t i = w.lo, run_lo = 0, run_hi = 0;
		uint64_t run_first = 0, run_last = 0;
		bool in_run = false;

		if (w.chunk < floor_blocks)
			continue;
		/* each touched chunk; hot ones that are adjacent form one run */
		while (i <= w.hi) {
			size_t j = i;
			uint64_t acc = 0, c = i < w.hi ? z[i].block / w.chunk : 0;
			bool hot = false;

			if (i < w.hi) {
				while (j < w.hi && z[j].block / w.chunk == c)
					acc += z[j++].accesses;
				hot = (double)acc >= l->o.hot_share * (double)parent_acc;
			}
			if (in_run && (!hot || c != run_last + 1)) {
				/* the run ends: a region (unless it is the whole parent) */
				struct sb_hot_region r = {.subpart = sp, .parent = w.index};
				uint64_t start = run_first * w.chunk,
				         end = (run_last + 1) * w.chunk;
				bool same;

				start = start > w.start ? start : w.start;
				end = end == 0 || end > w.end ? w.end : end;
				same = start == w.start && end == w.end;
				if (!same) {
					region_stats(&r, z, run_lo, run_hi);
					r.depth = w.depth + 1;
					r.first = start * B;
					r.last = end * B - 1;
					r.share_of_parent = (double)r.accesses / (double)parent_acc;
					r.share_of_total =
					    (double)r.accesses / (double)res->accesses;
					if ((err = add_region(res, cap, &r)) < 0)
						goto out;
				}
				if (qn == qcap) {
					struct zwork *nq = realloc(q, 2 * qcap * sizeof(*q));

					if (!nq) {
						err = sb_error_set(SB_ERR_NOMEM, "out of memory");
						goto out;
					}
					q = nq;
					qcap *= 2;
				}
				/* the same range again is split finer without being reported twice */
				q[qn++] =
				    (struct zwork){run_lo,
				                   run_hi,
				                   start,
				                   end,
				                   w.chunk / fan,
				                   same ? w.depth : w.depth + 1,
				                   same ? w.index : (int32_t)res->nregions - 1};
				in_run = false;
				if (res->nregions >= l->o.max_regions)
					break;
			}
			if (hot && !in_run) {
				in_run = true;
				run_lo = i;
				run_first = c;
			}
			if (hot) {
				run_hi = j;
				run_last = c;
			}
			if (i == w.hi)
				break;
			i = j;
		}
	}
out:
	free(q);
	free(zmem);
	return err;
}

/* Footprints and the other numbers of every node of the tree. */
static int build_tree(struct sb_locality *l, struct sb_locality_result *res)
{
	struct sb_locality_tree *t = &res->tree;
	const double hz = res->info.tick_hz;
	uint64_t units, nleaves;
	uint32_t levels = 1;

	t->by_sample = l->by_sample;
	t->leaf_width = UINT64_C(1) << l->lshift;
	if (!l->started)
		return 0;
	units = l->by_sample ? l->epoch : l->accesses;
	nleaves = (units - 1) / t->leaf_width + 1;
	while ((UINT64_C(1) << (levels - 1)) < nleaves)
		levels++;
	t->nlevels = levels;
	t->count = calloc(levels, sizeof(*t->count));
	t->levels = calloc(levels, sizeof(*t->levels));
	if (!t->count || !t->levels)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	for (uint32_t k = 0; k < levels; k++) {
		const uint64_t width = UINT64_C(1) << k, nodes = (nleaves + width - 1) / width;

		t->count[k] = (uint32_t)nodes;
		if (!(t->levels[k] = calloc(nodes, sizeof(**t->levels))))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		for (uint64_t j = 0; j < nodes; j++) {
			struct sb_locality_node *nd = &t->levels[k][j];
			const uint64_t lo = j * width,
			               hi = lo + width < nleaves ? lo + width : nleaves;
			int64_t start = 0;

			for (uint64_t i = lo; i < hi; i++) {
				const struct leaf *lf = &l->leaves[i];

				if (!lf->any)
					continue;
				if (!nd->accesses) {
					nd->first_time = lf->first;
					nd->last_time = lf->last;
					start = lf->start;
				}
				nd->first_time =
				    lf->first < nd->first_time ? lf->first : nd->first_time;
				nd->last_time = lf->last > nd->last_time ? lf->last : nd->last_time;
				nd->accesses += lf->accesses;
				nd->bytes += lf->bytes;
				nd->observed_ticks += lf->observed;
				for (unsigned h = k + 1; h < LH; h++)
					nd->footprint += l->lh[i][h];
			}
			if (!l->by_sample) {
				nd->observed_ticks =
				    nd->accesses ? (uint64_t)(nd->last_time - nd->first_time) + 1
				                 : 0;
				nd->span_ticks = nd->observed_ticks;
			} else if (hi < nleaves && l->leaves[hi].any) {
				nd->span_ticks = (uint64_t)(l->leaves[hi].start - start);
			} else {
				nd->span_ticks = (uint64_t)(nd->last_time - start) + 1 +
				                 res->info.capture.gap_ticks;
			}
			nd->growth =
			    nd->accesses ? (double)nd->footprint / (double)nd->accesses : 0;
			nd->rate_hz = nd->observed_ticks
			                  ? (double)nd->accesses / (double)nd->observed_ticks * hz
			                  : 0;
			nd->footprint_scaled = l->by_sample && nd->observed_ticks
			                           ? (double)nd->footprint *
			                                 (double)nd->span_ticks /
			                                 (double)nd->observed_ticks
			                           : (double)nd->footprint;
			nd->confident = sb_confident(&l->o.rules, &res->sampling,
			                             res->sampling.density, false, nd->accesses);
		}
	}
	return 0;
}

static void hist_confidence(const struct sb_locality *l, const struct sb_locality_result *res,
                            struct sb_reuse_hist *h, double density)
{
	h->confident = sb_confident(&l->o.rules, &res->sampling, density, true, h->finite);
}

int sb_locality_finish(struct sb_locality *l, const struct sb_trace_info *info,
                       struct sb_locality_result *res)
{
	size_t cap = 0;
	int err;

	memset(res, 0, sizeof(*res));
	if ((err = lc_sync_subparts(l, info)) < 0)
		return err;
	close_window(l);
	res->info = *info;
	res->opt = l->o;
	sb_sampling_init(&res->sampling, info, l->accesses + l->skipped,
	                 l->by_sample ? l->epoch : l->started);
	res->accesses = l->accesses;
	res->skipped = l->skipped;
	res->bytes = l->bytes;
	res->first_time = l->first;
	res->last_time = l->last;
	res->reuse = l->ghist;
	hist_confidence(l, res, &res->reuse, res->sampling.density);
	if (!(res->subparts = calloc(l->nsp ? l->nsp : 1, sizeof(*res->subparts))))
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	res->nsubparts = l->nsp;
	for (size_t i = 0; i < l->nsp; i++) {
		struct sb_locality_subpart *o = &res->subparts[i];
		const struct lsp *s = &l->sp[i];

		o->sp = info->subparts[i];
		o->accesses = s->accesses;
		o->bytes = s->bytes;
		o->blocks = s->used;
		o->density =
		    sb_sampling_subpart_density(&res->sampling, info, (uint32_t)i, s->accesses);
		o->reuse = s->hist;
		hist_confidence(l, res, &o->reuse, o->density);
		res->blocks += s->used;
	}
	/* the miss-ratio curve: caches of 1, 2, 4 ... blocks up to the whole footprint */
	{
		uint64_t per_window =
		    res->sampling.windows ? res->accesses / res->sampling.windows : 0;
		size_t k = 0;

		while ((UINT64_C(1) << k) < res->blocks && k < SB_REUSE_BINS - 1)
			k++;
		res->nmrc = res->accesses ? k + 1 : 0;
		if (!(res->mrc = calloc(res->nmrc ? res->nmrc : 1, sizeof(*res->mrc))))
			return sb_error_set(SB_ERR_NOMEM, "out of memory");
		for (size_t c = 0; c < res->nmrc; c++) {
			uint64_t miss = res->reuse.cold;

			/* distance >= 2^c: the bins from c + 1 on */
			for (size_t b = c + 1; b < SB_REUSE_BINS; b++)
				miss += res->reuse.bins[b];
			res->mrc[c].blocks = UINT64_C(1) << c;
			res->mrc[c].ratio = (double)miss / (double)res->accesses;
			res->mrc[c].confident =
			    res->reuse.confident &&
			    (double)per_window >=
			        l->o.rules.warmup_factor * (double)(UINT64_C(1) << c);
		}
	}
	if ((err = build_tree(l, res)) < 0)
		goto fail;
	for (uint32_t i = 0; i < l->nsp && res->nregions < l->o.max_regions; i++)
		if ((err = zoom_subpart(l, res, i, &cap)) < 0)
			goto fail;
	for (size_t i = 0; i < res->nregions; i++)
		res->regions[i].confident = sb_confident(
		    &l->o.rules, &res->sampling, res->subparts[res->regions[i].subpart].density,
		    false, res->regions[i].accesses);
	return 0;
fail:
	sb_locality_result_release(res);
	return err;
}

void sb_locality_result_release(struct sb_locality_result *res)
{
	if (!res)
		return;
	for (uint32_t k = 0; res->tree.levels && k < res->tree.nlevels; k++)
		free(res->tree.levels[k]);
	free(res->tree.levels);
	free(res->tree.count);
	free(res->subparts);
	free(res->mrc);
	free(res->regions);
	memset(res, 0, sizeof(*res));
}

int sb_locality_run(struct sb_trace_reader *r, const struct sb_locality_options *opt,
                    struct sb_locality_result *res)
{
	enum { BATCH = 4096 };
	struct sb_trace_record *buf = malloc(BATCH * sizeof(*buf));
	struct sb_locality *l = NULL;
	int n, err;

	memset(res, 0, sizeof(*res));
	if (!buf)
		return sb_error_set(SB_ERR_NOMEM, "out of memory");
	if ((err = sb_locality_new(&l, opt)) < 0)
		goto out;
	while ((n = sb_trace_read(r, buf, BATCH)) > 0)
		if ((err = sb_locality_feed(l, sb_trace_reader_info(r), buf, (size_t)n)) < 0)
			goto out;
	if (n < 0) {
		err = n;
		goto out;
	}
	err = sb_locality_finish(l, sb_trace_reader_info(r), res);
out:
	sb_locality_free(l);
	free(buf);
	return err;
}
