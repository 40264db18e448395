/* SPDX-License-Identifier: MIT */
/*
 * The lifetime engine at scale against a plain reference implementation of the pinned rules
 * (docs/lifetimes.md), kept here: a generated trace of ~1 M records over three subpartitions
 * (a byte scratchpad with >100 K distinct addresses and the key UINT64_MAX, a word scratchpad
 * with 8-byte blocks, a per-unit cache with every status), same-time reads before writes,
 * flushes anywhere in a time stamp, gaps that make lifetimes longer than 65,536 ticks,
 * records fed in irregular batches. The reference works differently from the engine: per
 * subpartition it applies each time stamp's writes, then its reads, then its flushes, whatever
 * their order in the trace;
 * addresses are indices into the sorted set of keys; lifetimes are kept in a list and sorted,
 * and the order statistics are read from that list. Every count, both histograms and the
 * statistics must match exactly, under both cache policies; and once more read as a sampled
 * trace (sample ids that change with time): the reference then cuts every live value where its
 * subpartition's sample id changes and at the end, counting the censored values.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/util.h"

enum { NREC = 1000000, NSP = 3 };

/* Actions of the reference (rule 7 written out). */
enum ref_act { R_READ, R_STORE, R_FETCH, R_FLUSH, R_SKIP, R_BYPASS };

static enum ref_act ref_action(const struct sb_trace_record *r, bool nwa)
{
	switch (r->cache) {
	case SB_CACHE_RESERVATION_FAIL:
		return R_SKIP;
	case SB_CACHE_MISS:
	case SB_CACHE_SECTOR_MISS:
		if (r->kind == SB_ACC_READ)
			return R_FETCH;
		if (r->kind == SB_ACC_WRITE && nwa)
			return R_BYPASS;
		break;
	default:
		break;
	}
	switch (r->kind) {
	case SB_ACC_READ:
		return R_READ;
	case SB_ACC_FETCH:
		return R_FETCH;
	case SB_ACC_FLUSH:
		return R_FLUSH;
	default:
		return R_STORE;
	}
}

struct ref_addr {
	bool live, fetched, held;
	int64_t start, last, max_life;
	uint64_t nreads, rbits, wbits;
	uint32_t bits, max_bits;
};

struct ref_life {
	int64_t ticks;
	uint64_t bits, accesses;
};

struct ref_sp {
	struct sb_subpart_stats st; /* counters only */
	uint64_t *keys;             /* sorted distinct keys */
	size_t nkeys;
	struct ref_addr *a;
	struct ref_life *life;
	size_t nlife;
};

static uint64_t ref_key(const struct sb_trace_subpart *sp, const struct sb_trace_record *r)
{
	uint32_t shift = 0;

	for (uint32_t ratio = sp->block_bytes / sp->addr_unit_bytes; ratio > 1; ratio >>= 1)
		shift++;
	return (r->addr >> shift) | (sp->per_unit ? (uint64_t)r->unit << 48 : 0);
}

static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

static int cmp_life(const void *x, const void *y)
{
	int64_t a = ((const struct ref_life *)x)->ticks, b = ((const struct ref_life *)y)->ticks;

	return (a > b) - (a < b);
}

static int cmp_abin(const void *x, const void *y)
{
	int64_t a = ((const struct sb_address_bin *)x)->max_ticks;
	int64_t b = ((const struct sb_address_bin *)y)->max_ticks;

	return (a > b) - (a < b);
}

static struct ref_addr *ref_find(struct ref_sp *s, uint64_t key)
{
	const uint64_t *k = bsearch(&key, s->keys, s->nkeys, sizeof(key), cmp_u64);

	cr_assert(k);
	return &s->a[k - s->keys];
}

static void ref_end(struct ref_sp *s, struct ref_addr *a)
{
	if (!a->live)
		return;
	a->live = false;
	if (a->nreads == 0) {
		s->st.zero_read_values++;
		s->st.orphans += a->fetched;
		return;
	}
	int64_t life = a->last - a->start;

	s->st.lifetimes++;
	s->st.lifetime_accesses += 1 + a->nreads;
	s->life[s->nlife++] = (struct ref_life){life, a->bits, 1 + a->nreads};
	if (!a->held || life > a->max_life)
		a->max_life = life;
	a->held = true;
}

/* The end of a window: a live value is cut (censored), its observed length a lower bound. */
static void ref_cut_all(struct ref_sp *s)
{
	for (size_t k = 0; k < s->nkeys; k++) {
		struct ref_addr *a = &s->a[k];

		if (!a->live)
			continue;
		a->live = false;
		s->st.censored_values++;
		if (a->nreads) {
			int64_t seen = a->last - a->start;

			s->st.censored_read_values++;
			if (seen > s->st.censored_max)
				s->st.censored_max = seen;
			if (!a->held || seen > a->max_life)
				a->max_life = seen;
			a->held = true;
		}
	}
	s->st.windows++;
}

/* One subpartition's records (indices idx[0..n)), in trace order. */
static void ref_run_sp(struct ref_sp *s, const struct sb_trace_subpart *sp,
                       const struct sb_trace_record *t, const size_t *idx, size_t n, bool nwa,
                       bool windowed)
{
	size_t nk = 0;

	s->keys = malloc((n ? n : 1) * sizeof(*s->keys));
	s->life = malloc((n ? n : 1) * sizeof(*s->life));
	cr_assert(s->keys && s->life);
	for (size_t i = 0; i < n; i++) {
		enum ref_act a = ref_action(&t[idx[i]], nwa);

		if (a == R_READ || a == R_STORE || a == R_FETCH)
			s->keys[nk++] = ref_key(sp, &t[idx[i]]);
	}
	qsort(s->keys, nk, sizeof(*s->keys), cmp_u64);
	s->nkeys = 0;
	for (size_t i = 0; i < nk; i++)
		if (!s->nkeys || s->keys[i] != s->keys[s->nkeys - 1])
			s->keys[s->nkeys++] = s->keys[i];
	s->a = calloc(s->nkeys ? s->nkeys : 1, sizeof(*s->a));
	cr_assert(s->a);
	if (n) {
		s->st.first_time = t[idx[0]].time;
		s->st.last_time = t[idx[n - 1]].time;
	}
	/* time stamps: their writes, then their reads, then their flushes (rule 3) */
	for (size_t g = 0; g < n;) {
		const int64_t now = t[idx[g]].time;
		size_t end = g;
		bool wrote = false, read = false, flush = false;

		while (end < n && t[idx[end]].time == now)
			end++;
		if (windowed && g > 0 && t[idx[g]].sample != t[idx[g - 1]].sample)
			ref_cut_all(s);
		for (int pass = 0; pass < 2; pass++) { /* the writes, then the reads */
			for (size_t i = g; i < end; i++) {
				const struct sb_trace_record *r = &t[idx[i]];
				enum ref_act act = ref_action(r, nwa);
				uint32_t bits = r->size * 8u;

				if (pass == 0 && act == R_SKIP)
					s->st.skipped++;
				if (pass == 0 && act == R_BYPASS)
					s->st.bypassed++;
				if (pass == 0 && act == R_FLUSH) {
					s->st.flushes++;
					flush = true;
				}
				if (pass == 0 && (act == R_STORE || act == R_FETCH)) {
					struct ref_addr *a = ref_find(s, ref_key(sp, r));

					ref_end(s, a);
					a->live = true;
					a->fetched = act == R_FETCH;
					a->start = a->last = now;
					a->nreads = 0;
					a->bits = bits;
					a->wbits += bits;
					a->max_bits = bits > a->max_bits ? bits : a->max_bits;
					s->st.fetches += act == R_FETCH;
					s->st.stores += act == R_STORE;
					s->st.write_bits += bits;
					wrote = true;
				}
				if (pass == 1 && act == R_READ) {
					struct ref_addr *a = ref_find(s, ref_key(sp, r));

					a->rbits += bits;
					a->max_bits = bits > a->max_bits ? bits : a->max_bits;
					s->st.reads++;
					s->st.read_bits += bits;
					read = true;
					if (!a->live) {
						s->st.unbacked_reads++;
						continue;
					}
					a->nreads++;
					a->last = now;
				}
			}
		}
		if (flush) /* every live value ends */
			for (size_t k = 0; k < s->nkeys; k++)
				ref_end(s, &s->a[k]);
		s->st.write_ticks += wrote;
		s->st.read_ticks += read;
		g = end;
	}
	if (windowed && n)
		ref_cut_all(s);               /* the end of the capture */
	for (size_t k = 0; k < s->nkeys; k++) /* program end */
		ref_end(s, &s->a[k]);
	qsort(s->life, s->nlife, sizeof(*s->life), cmp_life);
}

/* Check the engine's statistics of one subpartition against the reference. */
static void check_sp(const struct ref_sp *s, const struct sb_subpart_stats *st)
{
	const char *name = st->sp.name;
	size_t nb = 0;

#define SAME(f)                                                                                    \
	cr_expect_eq(st->f, s->st.f, "'%s' " #f ": %llu, reference %llu", name,                    \
	             (unsigned long long)st->f, (unsigned long long)s->st.f)
	SAME(reads);
	SAME(windows);
	SAME(censored_values);
	SAME(censored_read_values);
	SAME(censored_max);
	SAME(stores);
	SAME(fetches);
	SAME(flushes);
	SAME(read_bits);
	SAME(write_bits);
	SAME(lifetimes);
	SAME(lifetime_accesses);
	SAME(zero_read_values);
	SAME(orphans);
	SAME(unbacked_reads);
	SAME(skipped);
	SAME(bypassed);
	SAME(read_ticks);
	SAME(write_ticks);
	SAME(first_time);
	SAME(last_time);
#undef SAME
	cr_expect_eq(st->unique_addresses, s->nkeys, "'%s' unique_addresses", name);
	/* the lifetime histogram: one bin per distinct lifetime, ascending */
	for (size_t i = 0; i < s->nlife; nb++) {
		struct sb_lifetime_bin b = {s->life[i].ticks, 0, 0, 0};

		for (; i < s->nlife && s->life[i].ticks == b.ticks; i++) {
			b.count++;
			b.bits += s->life[i].bits;
			b.accesses += s->life[i].accesses;
		}
		cr_assert_lt(nb, st->nbins, "'%s': fewer bins than the reference", name);
		cr_expect(!memcmp(&st->bins[nb], &b, sizeof(b)),
		          "'%s' bin %zu: %lld ticks x %llu, reference %lld x %llu", name, nb,
		          (long long)st->bins[nb].ticks, (unsigned long long)st->bins[nb].count,
		          (long long)b.ticks, (unsigned long long)b.count);
	}
	cr_expect_eq(st->nbins, nb, "'%s' bins", name);
	/* order statistics on the sorted list itself; median and p99 interpolated linearly
	   between ranks, as pandas does (h = (n - 1) q), to the last few bits */
	if (s->nlife) {
		const size_t n = s->nlife;
		long double sum = 0;

		for (size_t i = 0; i < n; i++)
			sum += (long double)s->life[i].ticks;
		cr_expect_eq(st->life.min, s->life[0].ticks);
		cr_expect_eq(st->life.max, s->life[n - 1].ticks);
		for (int k = 0; k < 2; k++) {
			const double q = k ? 0.99 : 0.5, h = (double)(n - 1) * q;
			const size_t lo = (size_t)h, hi = lo + 1 < n ? lo + 1 : n - 1;
			const double a = (double)s->life[lo].ticks, b = (double)s->life[hi].ticks;
			const double want = a + (b - a) * (h - (double)lo);
			const double got = k ? st->life.p99 : st->life.median;

			cr_expect(fabs(got - want) <= 1e-9 * (fabs(want) + 1),
			          "'%s' q %g: %.17g, "
			          "reference %.17g",
			          name, q, got, want);
		}
		cr_expect_eq(st->life.mean, (double)(sum / (long double)n), "'%s' mean", name);
	}
}

/* The address histogram: addresses grouped by the longest lifetime they held (-1: none). */
static void check_abins(const struct ref_sp *s, const struct sb_subpart_stats *st)
{
	struct sb_address_bin *ab = calloc(s->nkeys ? s->nkeys : 1, sizeof(*ab));
	size_t n = 0;
	uint64_t capacity = 0;

	cr_assert(ab);
	for (size_t k = 0; k < s->nkeys; k++) {
		const struct ref_addr *a = &s->a[k];

		ab[k] = (struct sb_address_bin){a->held ? a->max_life : -1, 1, a->max_bits,
		                                a->rbits, a->wbits};
		capacity += a->max_bits;
	}
	qsort(ab, s->nkeys, sizeof(*ab), cmp_abin);
	for (size_t k = 0; k < s->nkeys; n++) {
		struct sb_address_bin b = ab[k++];

		for (; k < s->nkeys && ab[k].max_ticks == b.max_ticks; k++) {
			b.addresses++;
			b.bits += ab[k].bits;
			b.read_bits += ab[k].read_bits;
			b.write_bits += ab[k].write_bits;
		}
		cr_assert_lt(n, st->nabins, "'%s': fewer address bins than the reference",
		             st->sp.name);
		cr_expect(!memcmp(&st->abins[n], &b, sizeof(b)), "'%s' address bin %zu (%lld)",
		          st->sp.name, n, (long long)b.max_ticks);
	}
	cr_expect_eq(st->nabins, n, "'%s' address bins", st->sp.name);
	cr_expect_eq(st->capacity_bits, capacity, "'%s' capacity_bits", st->sp.name);
	free(ab);
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t below(uint64_t n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng % n;
}

/* The trace: see the file comment. */
static void make_trace(struct sb_trace_info *info, struct sb_trace_record *t, bool windowed)
{
	uint64_t recent[NSP][64] = {{0}};
	int64_t now = 0;

	sb_trace_info_init(info, "test", 1e9, "cycle");
	cr_assert_eq(sb_trace_info_subpart(info, "spm", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
	cr_assert_eq(sb_trace_info_subpart(info, "wbuf", SB_SUBPART_SCRATCHPAD, 2, 8), 1);
	cr_assert_eq(sb_trace_info_subpart(info, "l1", SB_SUBPART_CACHE, 1, 32), 2);
	info->subparts[2].per_unit = 1;
	info->fields = windowed ? SB_FIELD_SAMPLE : 0;
	for (size_t i = 0; i < NREC; i++) {
		struct sb_trace_record *r = &t[i];
		uint64_t p = below(100000);
		int sp = (int)below(NSP);

		memset(r, 0, sizeof(*r));
		/* mostly the same or the next few ticks; now and then a long gap */
		now += p < 60000   ? 0
		       : p < 99990 ? (int64_t)below(4)
		                   : 70000 + (int64_t)below(200000);
		r->time = now;
		r->sample = windowed ? (uint32_t)(now >> 12) : 0; /* a window: 4096 ticks at most */
		r->subpart = (uint16_t)sp;
		r->size = sp == 2 ? 32 : 1 + (uint32_t)below(8);
		p = below(1000);
		r->kind = p < 300 ? SB_ACC_WRITE : p < 420 ? SB_ACC_FETCH : SB_ACC_READ;
		if (sp == 0) {
			r->addr = below(2) ? recent[0][below(64)] : below(150000);
			if (below(20000) == 0)
				r->addr = UINT64_MAX;
			/* a flush among the accesses of its time stamp (rule 3: after them all) */
			if (below(2000) == 0 && i && t[i - 1].subpart == 0 && t[i - 1].time == now)
				r->kind = SB_ACC_FLUSH;
		} else if (sp == 1) {
			r->addr = below(2) ? recent[1][below(64)] : below(200000);
		} else {
			static const uint8_t status[] = {
			    SB_CACHE_HIT,      SB_CACHE_HIT,          SB_CACHE_HIT,
			    SB_CACHE_HIT,      SB_CACHE_HIT_RESERVED, SB_CACHE_MISS,
			    SB_CACHE_MISS,     SB_CACHE_SECTOR_MISS,  SB_CACHE_RESERVATION_FAIL,
			    SB_CACHE_MSHR_HIT, SB_CACHE_NONE};

			r->kind = below(4) ? SB_ACC_READ : SB_ACC_WRITE;
			r->addr =
			    below(2) ? recent[2][below(64)] : below(1u << 20) * 32 + below(32);
			r->unit = (uint32_t)below(8);
			r->cache = status[below(SB_ARRAY_SIZE(status))];
		}
		if (r->kind != SB_ACC_READ)
			recent[sp][below(64)] = r->addr;
	}
}

static void check_policy(enum sb_cache_policy policy, bool windowed)
{
	static const size_t batch[] = {1, 2, 31, 33, 64, 4096, 777, 10000, 5};
	struct sb_trace_record *t = malloc(NREC * sizeof(*t));
	size_t *idx = malloc(NREC * sizeof(*idx)), n[NSP] = {0}, off = 0, longest = 0;
	struct sb_trace_info info;
	struct sb_lifetime *eng;
	struct sb_lifetime_result res;
	struct ref_sp ref[NSP];
	uint64_t addresses = 0;

	cr_assert(t && idx);
	make_trace(&info, t, windowed);
	cr_assert_eq(sb_lifetime_new(&eng, policy), 0);
	for (size_t i = 0, k = 0; i < NREC; k++) {
		size_t m = batch[k % SB_ARRAY_SIZE(batch)];

		m = m < NREC - i ? m : NREC - i;
		cr_assert_eq(sb_lifetime_feed(eng, &info, t + i, m), 0, "%s", sb_error_detail());
		i += m;
	}
	cr_assert_eq(sb_lifetime_finish(eng, &info, &res), 0, "%s", sb_error_detail());
	sb_lifetime_free(eng);
	cr_assert_eq(res.nsubparts, NSP);
	cr_expect_eq(res.records, NREC);
	cr_expect_eq(res.first_time, t[0].time);
	cr_expect_eq(res.last_time, t[NREC - 1].time);

	memset(ref, 0, sizeof(ref));
	for (int sp = 0; sp < NSP; sp++) {
		for (size_t i = 0; i < NREC; i++)
			if (t[i].subpart == sp)
				idx[off + n[sp]++] = i;
		ref_run_sp(&ref[sp], &info.subparts[sp], t, idx + off, n[sp],
		           policy == SB_POLICY_NO_WRITE_ALLOCATE, windowed);
		off += n[sp];
		check_sp(&ref[sp], &res.subparts[sp]);
		check_abins(&ref[sp], &res.subparts[sp]);
		addresses += ref[sp].nkeys;
		if (ref[sp].nlife && ref[sp].life[ref[sp].nlife - 1].ticks > 65536)
			longest++;
		free(ref[sp].keys);
		free(ref[sp].a);
		free(ref[sp].life);
	}
	/* the trace exercises what it is meant to */
	cr_expect_gt(addresses, 200000, "distinct addresses: %llu", (unsigned long long)addresses);
	if (windowed) /* windows of 4096 ticks: many values cut */
		cr_expect_gt(res.subparts[0].censored_read_values, 1000);
	else
		cr_expect_eq(longest, NSP,
		             "lifetimes beyond the direct histogram in every subpartition");
	cr_expect_gt(res.subparts[0].flushes, 0);
	cr_expect_gt(res.subparts[0].unbacked_reads, 0);
	cr_expect_gt(res.subparts[0].orphans, 0);
	cr_expect_gt(res.subparts[2].skipped, 0);
	cr_expect_eq(res.subparts[2].bypassed > 0, policy == SB_POLICY_NO_WRITE_ALLOCATE);
	sb_lifetime_result_release(&res);
	free(idx);
	free(t);
}

Test(lifetime_reference, write_allocate_matches_the_reference, .timeout = 120)
{
	check_policy(SB_POLICY_WRITE_ALLOCATE, false);
}

Test(lifetime_reference, no_write_allocate_matches_the_reference, .timeout = 120)
{
	check_policy(SB_POLICY_NO_WRITE_ALLOCATE, false);
}

Test(lifetime_reference, a_sampled_trace_matches_the_reference, .timeout = 120)
{
	check_policy(SB_POLICY_WRITE_ALLOCATE, true);
}
