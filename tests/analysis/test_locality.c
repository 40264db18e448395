/* SPDX-License-Identifier: MIT */
/*
 * The memory-centric analyses against brute force, exactly: on random and adversarial traces
 * (three subpartitions, one private to each unit, word- and byte-addressed; flushes and
 * reservation fails among the accesses; sampled traces whose windows restart the distances),
 * the reference recomputes every reuse distance with LRU stacks (trace-wide and per
 * subpartition, per window), every footprint of the interval tree by sorting the blocks of each
 * node, and the numbers of every hot region from its blocks. Zooming is checked on a trace with
 * known hot spots.
 */
#include <math.h>

#include "analysis_support.h"
#include "stackbench/locality.h"
#include "stackbench/log.h"

static uint64_t rng = 0x452821e638d01377ull;

static uint64_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void setup(void)
{
	sb_log_set_level(SB_LOG_ERROR);
}

TestSuite(locality, .init = setup);

/* n records: mostly local, some far, flushes and reservation fails, windows of ~100 records. */
static struct sb_trace_record *make_trace(size_t n, unsigned shape)
{
	struct sb_trace_record *t = calloc(n, sizeof(*t));
	int64_t time = 0;
	uint32_t sample = 0;

	cr_assert(t);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = next_rand();

		if (x % 97 == 0) { /* a gap */
			sample += 1 + (uint32_t)(x >> 60);
			time += 1000;
		}
		time += (int64_t)(x % 3);
		t[i].time = time;
		t[i].sample = sample;
		t[i].subpart = (uint16_t)((x >> 8) % 3);
		t[i].unit = (uint32_t)(x >> 16) % 4;
		t[i].size = 4;
		t[i].kind = (x >> 20) % 50 == 0 ? SB_ACC_FLUSH : (uint8_t)((x >> 24) % 3);
		t[i].cache = t[i].subpart == 1 ? (uint8_t)((x >> 28) % 7) : 0;
		switch (shape) {
		case 0: /* skewed: a hot set and a wide cold one */
			t[i].addr = (x >> 32) % 5 ? (x >> 36) % 300 : (x >> 36) % 40000;
			break;
		case 1: /* streaming through a large range: few reuses */
			t[i].addr = i * 64 + (x >> 40) % 8;
			break;
		default: /* cyclic over a working set larger than any window */
			t[i].addr = (i % 5000) * 16;
			break;
		}
		if (t[i].subpart == 0)
			t[i].addr %= 1u << 20; /* word addresses */
	}
	return t;
}

/* --- the reference ------------------------------------------------------------------------ */

struct rkey {
	uint64_t block;
	uint32_t unit;
	uint16_t sp;
};

static bool key_eq(const struct rkey *a, const struct rkey *b)
{
	return a->block == b->block && a->unit == b->unit && a->sp == b->sp;
}

static struct rkey key_of(const struct sb_trace_info *info, const struct sb_trace_record *r,
                          uint32_t block_bytes)
{
	const struct sb_trace_subpart *sp = &info->subparts[r->subpart];
	struct rkey k = {.sp = r->subpart, .unit = sp->per_unit ? r->unit : 0};

	/* byte address / block size, shifted as the engine documents */
	if (sp->addr_unit_bytes > block_bytes)
		k.block = r->addr * (sp->addr_unit_bytes / block_bytes);
	else
		k.block = r->addr / (block_bytes / sp->addr_unit_bytes);
	return k;
}

static bool is_access(const struct sb_trace_record *r)
{
	return r->kind != SB_ACC_FLUSH && r->cache != SB_CACHE_RESERVATION_FAIL;
}

/* Distances by LRU stacks: one trace-wide (sp < 0) or per subpartition, restarted per window. */
static void ref_distances(const struct rkey *k, const uint32_t *win, size_t n, int sp, uint64_t *d)
{
	struct rkey *stack = malloc((n + 1) * sizeof(*stack));
	size_t depth = 0;
	uint32_t w = UINT32_MAX;

	cr_assert(stack);
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		if (win[i] != w) {
			depth = 0;
			w = win[i];
		}
		if (sp >= 0 && k[i].sp != sp) {
			d[i] = SB_REUSE_COLD - 1; /* not in this stream */
			continue;
		}
		while (j < depth && !key_eq(&stack[j], &k[i]))
			j++;
		d[i] = j < depth ? j : SB_REUSE_COLD;
		if (j == depth)
			depth++;
		memmove(stack + 1, stack, j * sizeof(*stack));
		stack[0] = k[i];
	}
	free(stack);
}

static void expect_hist(const struct sb_reuse_hist *h, const uint64_t *d, size_t n,
                        const char *what)
{
	struct sb_reuse_hist r = {0};

	for (size_t i = 0; i < n; i++) {
		if (d[i] == SB_REUSE_COLD - 1)
			continue;
		r.accesses++;
		if (d[i] == SB_REUSE_COLD) {
			r.cold++;
			continue;
		}
		r.bins[sb_reuse_bin(d[i])]++;
		r.finite++;
		r.sum += d[i];
		r.max = d[i] > r.max ? d[i] : r.max;
	}
	cr_expect_eq(h->accesses, r.accesses, "%s accesses %llu, reference %llu", what,
	             (unsigned long long)h->accesses, (unsigned long long)r.accesses);
	cr_expect_eq(h->cold, r.cold, "%s cold %llu, reference %llu", what,
	             (unsigned long long)h->cold, (unsigned long long)r.cold);
	cr_expect_eq(h->finite, r.finite, "%s finite", what);
	cr_expect_eq(h->sum, r.sum, "%s sum %llu, reference %llu", what, (unsigned long long)h->sum,
	             (unsigned long long)r.sum);
	cr_expect_eq(h->max, r.max, "%s max", what);
	for (size_t b = 0; b < SB_REUSE_BINS; b++)
		cr_expect_eq(h->bins[b], r.bins[b], "%s bin %zu: %llu, reference %llu", what, b,
		             (unsigned long long)h->bins[b], (unsigned long long)r.bins[b]);
}

static int cmp_rkey(const void *a, const void *b)
{
	const struct rkey *x = a, *y = b;

	if (x->sp != y->sp)
		return x->sp < y->sp ? -1 : 1;
	if (x->unit != y->unit)
		return x->unit < y->unit ? -1 : 1;
	return (x->block > y->block) - (x->block < y->block);
}

/* Distinct keys of k[lo..hi). */
static uint64_t distinct(const struct rkey *k, size_t lo, size_t hi)
{
	struct rkey *c = malloc((hi - lo + 1) * sizeof(*c));
	uint64_t n = 0;

	cr_assert(c);
	memcpy(c, k + lo, (hi - lo) * sizeof(*c));
	qsort(c, hi - lo, sizeof(*c), cmp_rkey);
	for (size_t i = 0; i < hi - lo; i++)
		n += i == 0 || !key_eq(&c[i], &c[i - 1]);
	free(c);
	return n;
}

static void check_against_reference(const struct sb_trace_record *t, size_t n, bool sampled,
                                    uint32_t max_leaves, const char *what)
{
	struct sb_locality_options opt = {.max_leaves = max_leaves, .max_regions = 1000};
	struct sb_trace_info info;
	struct sb_locality *l;
	struct sb_locality_result res;
	struct rkey *k = malloc(n * sizeof(*k));
	uint32_t *win = malloc(n * sizeof(*win)), *unit = malloc(n * sizeof(*unit));
	uint64_t *d = malloc(n * sizeof(*d)), *ds = malloc(n * sizeof(*ds));
	size_t m = 0, at = 0;
	uint32_t w = 0, prev_sample = 0;

	cr_assert(k && win && unit && d && ds);
	sbtest_three_subparts(&info, sampled);
	cr_assert_eq(sb_locality_new(&l, &opt), 0, "%s", sb_error_detail());
	while (at < n) {
		size_t b = 1 + next_rand() % 3000;

		b = b > n - at ? n - at : b;
		cr_assert_eq(sb_locality_feed(l, &info, t + at, b), 0, "%s", sb_error_detail());
		at += b;
	}
	cr_assert_eq(sb_locality_finish(l, &info, &res), 0, "%s", sb_error_detail());
	sb_locality_free(l);
	/* the accesses, their windows and their tree units */
	for (size_t i = 0; i < n; i++) {
		if (!is_access(&t[i]))
			continue;
		if (sampled && m > 0 && t[i].sample != prev_sample)
			w++;
		prev_sample = t[i].sample;
		k[m] = key_of(&info, &t[i], 64);
		win[m] = sampled ? w : 0;
		unit[m] = sampled ? w : (uint32_t)m;
		m++;
	}
	cr_expect_eq(res.accesses, m, "%s accesses", what);
	cr_expect_eq(res.skipped, n - m, "%s skipped", what);
	cr_expect_eq(res.sampling.windows, sampled ? w + 1 : 1, "%s windows", what);
	ref_distances(k, win, m, -1, d);
	expect_hist(&res.reuse, d, m, what);
	for (int sp = 0; sp < 3; sp++) {
		char name[64];
		uint64_t blocks;

		snprintf(name, sizeof(name), "%s/%s", what, info.subparts[sp].name);
		ref_distances(k, win, m, sp, ds);
		expect_hist(&res.subparts[sp].reuse, ds, m, name);
		/* the subpartition's blocks */
		{
			struct rkey *c = malloc((m + 1) * sizeof(*c));
			size_t q = 0;

			for (size_t i = 0; i < m; i++)
				if (k[i].sp == sp)
					c[q++] = k[i];
			blocks = distinct(c, 0, q);
			free(c);
		}
		cr_expect_eq(res.subparts[sp].blocks, blocks, "%s blocks", name);
		/* every region of this subpartition from its blocks: accesses, finite, mean */
		for (size_t r = 0; r < res.nregions; r++) {
			const struct sb_hot_region *hr = &res.regions[r];
			uint64_t acc = 0, fin = 0, sum = 0;

			if (hr->subpart != (uint32_t)sp)
				continue;
			for (size_t i = 0; i < m; i++) {
				const uint64_t byte = k[i].block * 64;

				if (k[i].sp != sp || byte < hr->first || byte > hr->last)
					continue;
				acc++;
				if (ds[i] != SB_REUSE_COLD)
					fin++, sum += ds[i];
			}
			cr_expect_eq(hr->accesses, acc, "%s region %zu accesses %llu, ref %llu",
			             name, r, (unsigned long long)hr->accesses,
			             (unsigned long long)acc);
			cr_expect_eq(hr->finite, fin, "%s region %zu finite", name, r);
			if (fin)
				cr_expect_eq(hr->mean_reuse, (double)sum / (double)fin,
				             "%s region %zu mean", name, r);
			if (hr->parent >= 0) {
				const struct sb_hot_region *p = &res.regions[hr->parent];

				cr_expect_geq((double)hr->accesses, 0.1 * (double)p->accesses,
				              "%s region %zu holds less than 10 %% of its parent",
				              name, r);
				cr_expect(hr->first >= p->first && hr->last <= p->last,
				          "%s region %zu outside its parent", name, r);
				cr_expect_eq(hr->depth, p->depth + 1);
			}
		}
	}
	cr_expect_eq(res.blocks, distinct(k, 0, m), "%s blocks", what);
	/* the tree: the leaf width the engine chose, then every node's footprint by brute force */
	{
		const struct sb_locality_tree *tr = &res.tree;
		uint64_t units = sampled ? (uint64_t)w + 1 : m, width = 1;

		while ((units - 1) / width + 1 > max_leaves)
			width *= 2;
		cr_assert_eq(tr->leaf_width, width, "%s leaf width %llu, expected %llu", what,
		             (unsigned long long)tr->leaf_width, (unsigned long long)width);
		cr_assert_eq(tr->by_sample, sampled);
		for (uint32_t lv = 0; lv < tr->nlevels; lv++) {
			const uint64_t span = width << lv;

			for (uint32_t j = 0; j < tr->count[lv]; j++) {
				const struct sb_locality_node *nd = &tr->levels[lv][j];
				size_t lo = 0, hi;

				while (lo < m && unit[lo] < j * span)
					lo++;
				for (hi = lo; hi < m && unit[hi] < (j + 1) * span; hi++)
					;
				cr_expect_eq(nd->accesses, hi - lo, "%s level %u node %u accesses",
				             what, lv, j);
				cr_expect_eq(nd->footprint, distinct(k, lo, hi),
				             "%s level %u node %u footprint %llu, reference %llu",
				             what, lv, j, (unsigned long long)nd->footprint,
				             (unsigned long long)distinct(k, lo, hi));
				cr_expect_eq(nd->growth, hi > lo ? (double)distinct(k, lo, hi) /
				                                       (double)(hi - lo)
				                                 : 0);
			}
		}
		cr_expect_eq(tr->count[tr->nlevels - 1], 1, "one root");
		cr_expect_eq(tr->levels[tr->nlevels - 1][0].footprint, res.blocks);
	}
	sb_locality_result_release(&res);
	free(k);
	free(win);
	free(unit);
	free(d);
	free(ds);
}

Test(locality, matches_brute_force_on_random_traces, .timeout = 240)
{
	for (unsigned shape = 0; shape < 3; shape++) {
		struct sb_trace_record *t = make_trace(12000, shape);
		char what[64];

		for (int sampled = 0; sampled < 2; sampled++) {
			snprintf(what, sizeof(what), "shape %u %s", shape,
			         sampled ? "sampled" : "complete");
			check_against_reference(t, 12000, sampled, shape == 1 ? 4 : 64, what);
		}
		free(t);
	}
}

Test(locality, adversarial_traces, .timeout = 240)
{
	struct sb_trace_record *t = calloc(20000, sizeof(*t));

	cr_assert(t);
	/* one block only; then every access a new block; then addresses at the extremes */
	for (size_t i = 0; i < 20000; i++)
		t[i] = (struct sb_trace_record){.time = (int64_t)i, .subpart = 2, .size = 8};
	check_against_reference(t, 20000, false, 2, "one block");
	for (size_t i = 0; i < 20000; i++)
		t[i].addr = i * 4096;
	check_against_reference(t, 20000, false, 65536, "all new");
	for (size_t i = 0; i < 20000; i++) {
		t[i].addr = i % 3 == 0 ? UINT64_MAX - (i % 5) : i % 3 == 1 ? i % 7 : 1ull << 63;
		t[i].subpart = (uint16_t)(i % 3);
		t[i].sample = (uint32_t)(i / 50);
	}
	check_against_reference(t, 20000, true, 16, "extremes");
	/* a window per access */
	for (size_t i = 0; i < 2000; i++)
		t[i].sample = (uint32_t)i;
	check_against_reference(t, 2000, true, 256, "one access per window");
	free(t);
}

/* One hot 4 kB page in a 1 MB range, a warm 64 kB array, the rest spread thin. */
Test(locality, zooming_finds_the_hot_regions)
{
	struct sb_locality_options opt = {.zoom_floor_bytes = 4096};
	struct sb_trace_info info;
	struct sb_locality_result res;
	struct sb_locality *l;
	struct sb_trace_record *t = calloc(100000, sizeof(*t));
	bool page = false, array = false;

	cr_assert(t);
	sb_trace_info_init(&info, "test", 1e9, "cycle");
	sb_trace_info_subpart(&info, "mem", SB_SUBPART_SCRATCHPAD, 1, 1);
	for (size_t i = 0; i < 100000; i++) {
		uint64_t x = next_rand();

		t[i].time = (int64_t)i;
		t[i].size = 8;
		if (x % 10 < 6)
			t[i].addr = 0x40000 + (x >> 20) % 4096; /* 60 %: the page at 256 kB */
		else if (x % 10 < 9)
			t[i].addr = 0xa0000 + (x >> 20) % 65536; /* 30 %: the array at 640 kB */
		else
			t[i].addr = (x >> 20) % (1u << 20); /* 10 %: anywhere */
	}
	cr_assert_eq(sb_locality_new(&l, &opt), 0);
	cr_assert_eq(sb_locality_feed(l, &info, t, 100000), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_locality_finish(l, &info, &res), 0);
	cr_assert_eq(res.nregions, 4, "the range, the page's 64 kB, the page, the array");
	cr_expect_eq(res.regions[0].depth, 0);
	cr_expect_eq(res.regions[0].accesses, 100000);
	for (size_t r = 1; r < res.nregions; r++) {
		const struct sb_hot_region *h = &res.regions[r];

		cr_expect_geq(h->share_of_parent, 0.1, "region %zu", r);
		if (h->first == 0x40000 && h->last == 0x40fff && h->share_of_total > 0.55)
			page = true;
		if (h->first == 0xa0000 && h->last == 0xaffff && h->share_of_total > 0.25)
			array = true;
	}
	cr_expect(page, "the hot page is found down to its 4 kB");
	cr_expect(array, "the 64 kB array is found");
	sb_locality_result_release(&res);
	sb_locality_free(l);
	free(t);
}
