/* SPDX-License-Identifier: MIT */
/*
 * The lifetime engine on hand-made traces whose lifetimes are known, one test per pinned rule
 * (docs/lifetimes.md): store start, fetch start, overwrite, program end, zero-read values,
 * unbacked reads, same-time-stamp ordering, both cache policies, orphans, flushes, order
 * statistics, per-unit caches and block granularity.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/lifetime.h"
#include "stackbench/util.h"

#define R SB_ACC_READ
#define W SB_ACC_WRITE
#define F SB_ACC_FETCH
#define X SB_ACC_FLUSH

static struct sb_trace_info info;

/* One scratchpad "spm" (index 0) and one cache "l1" (index 1, 32-byte blocks, per unit). */
static void setup(void)
{
	sb_trace_info_init(&info, "test", 1e9, "cycle");
	cr_assert_eq(sb_trace_info_subpart(&info, "spm", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
	cr_assert_eq(sb_trace_info_subpart(&info, "l1", SB_SUBPART_CACHE, 1, 32), 1);
	info.subparts[1].per_unit = 1;
}

TestSuite(lifetime, .init = setup);

static struct sb_trace_record rec(int64_t t, int sp, uint64_t addr, int kind, int cache)
{
	struct sb_trace_record r;

	memset(&r, 0, sizeof(r));
	r.time = t;
	r.subpart = (uint16_t)sp;
	r.addr = addr;
	r.size = 1;
	r.kind = (uint8_t)kind;
	r.cache = (uint8_t)cache;
	return r;
}

/* Run records through a new engine and fill res. */
static void run(const struct sb_trace_record *recs, size_t n, enum sb_cache_policy policy,
                struct sb_lifetime_result *res)
{
	struct sb_lifetime *eng;

	cr_assert_eq(sb_lifetime_new(&eng, policy), 0);
	cr_assert_eq(sb_lifetime_feed(eng, &info, recs, n), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_lifetime_finish(eng, &info, res), 0, "%s", sb_error_detail());
	sb_lifetime_free(eng);
}

/* The lifetimes of subpartition sp as a sorted list of (ticks x count). */
static void expect_bins(const struct sb_lifetime_result *res, int sp, const int64_t *ticks,
                        const uint64_t *counts, size_t n)
{
	const struct sb_subpart_stats *st = &res->subparts[sp];

	cr_assert_eq(st->nbins, n, "bins %zu, expected %zu", st->nbins, n);
	for (size_t i = 0; i < n; i++) {
		cr_expect_eq(st->bins[i].ticks, ticks[i], "bin %zu: %lld ticks, expected %lld", i,
		             (long long)st->bins[i].ticks, (long long)ticks[i]);
		cr_expect_eq(st->bins[i].count, counts[i]);
	}
}

Test(lifetime, store_starts_a_lifetime_that_ends_at_the_last_read)
{
	struct sb_trace_record t[] = {rec(10, 0, 7, W, 0), rec(15, 0, 7, R, 0),
	                              rec(20, 0, 7, R, 0)};
	struct sb_lifetime_result res;

	run(t, 3, SB_POLICY_WRITE_ALLOCATE, &res);
	const struct sb_subpart_stats *st = &res.subparts[0];

	cr_expect_eq(st->stores, 1);
	cr_expect_eq(st->reads, 2);
	cr_expect_eq(st->lifetimes, 1);
	cr_expect_eq(st->lifetime_accesses, 3);
	cr_expect_eq(st->zero_read_values, 0);
	expect_bins(&res, 0, (int64_t[]){10}, (uint64_t[]){1}, 1);
	sb_lifetime_result_release(&res);
}

Test(lifetime, fetch_starts_a_lifetime)
{
	struct sb_trace_record t[] = {rec(5, 0, 1, F, 0), rec(7, 0, 1, R, 0)};
	struct sb_lifetime_result res;

	run(t, 2, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[0].fetches, 1);
	cr_expect_eq(res.subparts[0].stores, 0);
	cr_expect_eq(res.subparts[0].orphans, 0);
	expect_bins(&res, 0, (int64_t[]){2}, (uint64_t[]){1}, 1);
	sb_lifetime_result_release(&res);
}

Test(lifetime, overwrite_ends_the_previous_value)
{
	struct sb_trace_record t[] = {rec(0, 0, 3, W, 0), rec(4, 0, 3, R, 0), rec(10, 0, 3, F, 0),
	                              rec(13, 0, 3, R, 0), rec(30, 0, 3, R, 0)};
	struct sb_lifetime_result res;

	run(t, 5, SB_POLICY_WRITE_ALLOCATE, &res);
	expect_bins(&res, 0, (int64_t[]){4, 20}, (uint64_t[]){1, 1}, 2);
	cr_expect_eq(res.subparts[0].unique_addresses, 1);
	cr_expect_eq(res.subparts[0].lifetime_accesses, 5);
	sb_lifetime_result_release(&res);
}

Test(lifetime, program_end_invalidates_but_the_lifetime_ends_at_the_last_read)
{
	/* address 1 is read last at 5; the trace goes on to 100 on another address */
	struct sb_trace_record t[] = {rec(0, 0, 1, W, 0), rec(5, 0, 1, R, 0), rec(50, 0, 2, W, 0),
	                              rec(100, 0, 2, R, 0)};
	struct sb_lifetime_result res;

	run(t, 4, SB_POLICY_WRITE_ALLOCATE, &res);
	expect_bins(&res, 0, (int64_t[]){5, 50}, (uint64_t[]){1, 1}, 2);
	cr_expect_eq(res.subparts[0].life.max, 50);
	cr_expect_eq(sb_lifetime_result_ticks(&res), 101);
	sb_lifetime_result_release(&res);
}

Test(lifetime, zero_read_values_are_counted_and_have_no_lifetime)
{
	/* a: stored twice, read once after the second store; b: stored, never read;
	   c: fetched, never read (an orphan as well) */
	struct sb_trace_record t[] = {rec(0, 0, 0xa, W, 0), rec(1, 0, 0xb, W, 0),
	                              rec(2, 0, 0xc, F, 0), rec(5, 0, 0xa, W, 0),
	                              rec(6, 0, 0xa, R, 0)};
	struct sb_lifetime_result res;

	run(t, 5, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[0].zero_read_values, 3);
	cr_expect_eq(res.subparts[0].orphans, 1);
	cr_expect_eq(res.subparts[0].lifetimes, 1);
	expect_bins(&res, 0, (int64_t[]){1}, (uint64_t[]){1}, 1);
	sb_lifetime_result_release(&res);
}

Test(lifetime, unbacked_reads_are_counted_not_dropped)
{
	struct sb_trace_record t[] = {rec(3, 0, 9, R, 0), rec(4, 0, 9, R, 0), rec(5, 0, 9, W, 0),
	                              rec(8, 0, 9, R, 0)};
	struct sb_lifetime_result res;

	run(t, 4, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[0].unbacked_reads, 2);
	cr_expect_eq(res.subparts[0].reads, 3, "unbacked reads are reads");
	cr_expect_eq(res.subparts[0].read_bits, 24);
	expect_bins(&res, 0, (int64_t[]){3}, (uint64_t[]){1}, 1);
	sb_lifetime_result_release(&res);
}

Test(lifetime, writes_before_reads_within_a_time_stamp)
{
	/* the read at 10 comes first in the trace but sees the value written at 10;
	   at 20, the store replaces the value of 0 before the read of 20 happens */
	struct sb_trace_record t[] = {rec(0, 0, 2, W, 0), rec(10, 0, 1, R, 0), rec(10, 0, 1, W, 0),
	                              rec(20, 0, 2, R, 0), rec(20, 0, 2, W, 0)};
	struct sb_lifetime_result res;

	run(t, 5, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[0].unbacked_reads, 0);
	cr_expect_eq(res.subparts[0].zero_read_values, 1, "the value written at 0 is never read");
	expect_bins(&res, 0, (int64_t[]){0}, (uint64_t[]){2}, 1);
	sb_lifetime_result_release(&res);
}

Test(lifetime, time_going_back_is_an_error)
{
	struct sb_trace_record t[] = {rec(10, 0, 1, W, 0), rec(9, 0, 1, R, 0)};
	struct sb_lifetime *eng;

	cr_assert_eq(sb_lifetime_new(&eng, SB_POLICY_WRITE_ALLOCATE), 0);
	cr_expect_eq(sb_lifetime_feed(eng, &info, t, 2), SB_ERR_PARSE);
	cr_expect(strstr(sb_error_detail(), "'spm' goes back in time (9 after 10)"), "%s",
	          sb_error_detail());
	sb_lifetime_free(eng);
}

/* A cache trace: write miss then read hit on line 0; read miss and hits on line 64;
   a reservation fail; a read miss never hit again (line 128). */
static const struct sb_trace_record cache_trace[] = {
    {.time = 0, .subpart = 1, .addr = 0, .size = 32, .kind = W, .cache = SB_CACHE_MISS},
    {.time = 5, .subpart = 1, .addr = 4, .size = 32, .kind = R, .cache = SB_CACHE_HIT},
    {.time = 10, .subpart = 1, .addr = 64, .size = 32, .kind = R, .cache = SB_CACHE_MISS},
    {.time = 11,
     .subpart = 1,
     .addr = 64,
     .size = 32,
     .kind = R,
     .cache = SB_CACHE_RESERVATION_FAIL},
    {.time = 12, .subpart = 1, .addr = 70, .size = 32, .kind = R, .cache = SB_CACHE_HIT_RESERVED},
    {.time = 20, .subpart = 1, .addr = 64, .size = 32, .kind = R, .cache = SB_CACHE_HIT},
    {.time = 30, .subpart = 1, .addr = 128, .size = 32, .kind = R, .cache = SB_CACHE_MISS},
};

Test(lifetime, cache_write_allocate)
{
	struct sb_lifetime_result res;

	run(cache_trace, SB_ARRAY_SIZE(cache_trace), SB_POLICY_WRITE_ALLOCATE, &res);
	const struct sb_subpart_stats *st = &res.subparts[1];

	cr_expect_eq(st->stores, 1, "the write miss allocates and stores");
	cr_expect_eq(st->fetches, 2, "two read misses fill lines");
	cr_expect_eq(st->reads, 3);
	cr_expect_eq(st->skipped, 1);
	cr_expect_eq(st->bypassed, 0);
	cr_expect_eq(st->unbacked_reads, 0);
	cr_expect_eq(st->orphans, 1, "line 128 was filled and never hit");
	cr_expect_eq(st->unique_addresses, 3);
	expect_bins(&res, 1, (int64_t[]){5, 10}, (uint64_t[]){1, 1}, 2);
	cr_expect_eq(st->bins[0].bits, 256);
	sb_lifetime_result_release(&res);
}

Test(lifetime, cache_no_write_allocate)
{
	struct sb_lifetime_result res;

	run(cache_trace, SB_ARRAY_SIZE(cache_trace), SB_POLICY_NO_WRITE_ALLOCATE, &res);
	const struct sb_subpart_stats *st = &res.subparts[1];

	cr_expect_eq(st->stores, 0, "the write miss allocates nothing");
	cr_expect_eq(st->bypassed, 1);
	cr_expect_eq(st->fetches, 2);
	cr_expect_eq(st->unbacked_reads, 1, "the hit on line 0 finds no value in the model");
	cr_expect_eq(st->orphans, 1);
	expect_bins(&res, 1, (int64_t[]){10}, (uint64_t[]){1}, 1);
	sb_lifetime_result_release(&res);
}

Test(lifetime, per_unit_caches_and_block_granularity)
{
	/* SM 0 and SM 1 hold line 0 separately; addresses 0 and 31 are one 32-byte block */
	struct sb_trace_record t[] = {
	    {.time = 0, .subpart = 1, .addr = 0, .size = 32, .kind = R, .cache = SB_CACHE_MISS},
	    {.time = 1,
	     .subpart = 1,
	     .addr = 0,
	     .size = 32,
	     .kind = R,
	     .unit = 1,
	     .cache = SB_CACHE_MISS},
	    {.time = 4, .subpart = 1, .addr = 31, .size = 32, .kind = R, .cache = SB_CACHE_HIT},
	    {.time = 9,
	     .subpart = 1,
	     .addr = 16,
	     .size = 32,
	     .kind = R,
	     .unit = 1,
	     .cache = SB_CACHE_HIT},
	};
	struct sb_lifetime_result res;

	run(t, 4, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[1].unique_addresses, 2);
	cr_expect_eq(res.subparts[1].capacity_bits, 512);
	expect_bins(&res, 1, (int64_t[]){4, 8}, (uint64_t[]){1, 1}, 2);
	sb_lifetime_result_release(&res);
}

Test(lifetime, flush_invalidates_live_values)
{
	struct sb_trace_record t[] = {rec(0, 0, 1, W, 0), rec(3, 0, 1, R, 0), rec(5, 0, 0, X, 0),
	                              rec(6, 0, 1, R, 0)};
	struct sb_lifetime_result res;

	run(t, 4, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[0].flushes, 1);
	cr_expect_eq(res.subparts[0].unbacked_reads, 1);
	expect_bins(&res, 0, (int64_t[]){3}, (uint64_t[]){1}, 1);
	sb_lifetime_result_release(&res);
}

/*
 * Rule 3 with flushes (issue 24 item 4): the events of one time stamp are its writes, then its
 * reads, then its flushes, whatever their order in the trace. A read after a flush of its time
 * stamp reads the value the flush ends; a value written after a flush of its time stamp ends
 * with it. On this trace (tests/data/analysis/flush-order.csv) an engine applying flushes where
 * they stand found lifetimes {0, 3, 5, 9} and 1 unbacked read (b's), and c surviving the flush.
 */
Test(lifetime, flushes_come_after_the_reads_and_writes_of_their_time_stamp)
{
	/* a = 1, b = 2, c = 3, d = 4 */
	struct sb_trace_record t[] = {
	    rec(0, 0, 1, W, 0),  rec(0, 0, 1, R, 0),  rec(3, 0, 2, W, 0),  rec(5, 0, 0, X, 0),
	    rec(5, 0, 2, R, 0),  rec(5, 0, 3, W, 0),  rec(8, 0, 3, R, 0),  rec(10, 0, 4, W, 0),
	    rec(12, 0, 4, R, 0), rec(15, 0, 4, R, 0), rec(19, 0, 4, W, 0), rec(28, 0, 4, R, 0)};
	struct sb_lifetime_result res;

	run(t, 12, SB_POLICY_WRITE_ALLOCATE, &res);
	/* a: 0 (read in its write's time stamp); b: 2 (read at the flush's time stamp, before the
	   flush); c: written at the flush's time stamp, ended by it unread; d: 5, then 9 */
	expect_bins(&res, 0, (int64_t[]){0, 2, 5, 9}, (uint64_t[]){1, 1, 1, 1}, 4);
	cr_expect_eq(res.subparts[0].unbacked_reads, 1); /* c's read at 8 */
	cr_expect_eq(res.subparts[0].zero_read_values, 1);
	cr_expect_eq(res.subparts[0].flushes, 1);
	cr_expect_eq(res.subparts[0].reads, 6);
	cr_expect_eq(res.subparts[0].stores, 5);
	sb_lifetime_result_release(&res);
}

Test(lifetime, flush_then_read_in_one_time_stamp_reads_the_old_value)
{
	struct sb_trace_record t[] = {rec(0, 0, 1, W, 0), rec(5, 0, 0, X, 0), rec(5, 0, 1, R, 0),
	                              rec(9, 0, 1, R, 0)};
	struct sb_lifetime_result res;

	run(t, 4, SB_POLICY_WRITE_ALLOCATE, &res);
	expect_bins(&res, 0, (int64_t[]){5}, (uint64_t[]){1}, 1);
	cr_expect_eq(res.subparts[0].unbacked_reads, 1); /* the read at 9, after the flush */
	sb_lifetime_result_release(&res);
}

Test(lifetime, flush_then_write_in_one_time_stamp_ends_the_new_value)
{
	struct sb_trace_record t[] = {rec(0, 0, 1, W, 0), rec(2, 0, 1, R, 0), rec(4, 0, 0, X, 0),
	                              rec(4, 0, 1, W, 0), rec(9, 0, 1, R, 0)};
	struct sb_lifetime_result res;

	run(t, 5, SB_POLICY_WRITE_ALLOCATE, &res);
	expect_bins(&res, 0, (int64_t[]){2}, (uint64_t[]){1}, 1);
	cr_expect_eq(res.subparts[0].zero_read_values, 1);
	cr_expect_eq(res.subparts[0].unbacked_reads, 1);
	sb_lifetime_result_release(&res);
}

/* Median and p99 as pandas computes them (Series.quantile, linear): values from pandas 1.5.3. */
Test(lifetime, order_statistics_are_those_of_pandas)
{
	/* lifetimes 1..100, one per address */
	struct sb_trace_record t[200];
	struct sb_lifetime_result res;

	for (int i = 0; i < 100; i++)
		t[i] = rec(0, 0, (uint64_t)i, W, 0);
	for (int i = 0; i < 100; i++)
		t[100 + i] = rec(i + 1, 0, (uint64_t)i, R, 0);
	run(t, 200, SB_POLICY_WRITE_ALLOCATE, &res);
	const struct sb_lifetime_summary *l = &res.subparts[0].life;

	cr_expect_eq(l->min, 1);
	cr_expect_eq(l->max, 100);
	cr_expect_eq(l->median, 50.5, "pandas: 50.5");
	cr_expect_eq(l->p99, 99.01, "pandas: 99.01 (%.17g)", l->p99);
	cr_expect_float_eq(l->mean, 50.5, 1e-12);
	cr_expect_eq(res.subparts[0].write_ticks, 1);
	cr_expect_eq(res.subparts[0].read_ticks, 100);
	sb_lifetime_result_release(&res);
}

/* Lifetimes 3, 1, 4, 1, 5, 9, 2, 6 and a single one: pandas gives 3.5 / 8.79 and 7 / 7. */
Test(lifetime, order_statistics_of_few_lifetimes)
{
	static const int life[] = {3, 1, 4, 1, 5, 9, 2, 6};
	struct sb_trace_record t[16];
	struct sb_lifetime_result res;

	for (int i = 0; i < 8; i++) {
		t[i] = rec(0, 0, (uint64_t)i, W, 0);
		t[8 + i] = rec(life[i], 0, (uint64_t)i, R, 0);
	}
	/* the reads in time order (insertion sort) */
	for (int i = 9; i < 16; i++)
		for (int j = i; j > 8 && t[j - 1].time > t[j].time; j--) {
			struct sb_trace_record x = t[j];

			t[j] = t[j - 1];
			t[j - 1] = x;
		}
	run(t, 16, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[0].life.median, 3.5);
	cr_expect_eq(res.subparts[0].life.p99, 8.79, "%.17g", res.subparts[0].life.p99);
	sb_lifetime_result_release(&res);
	t[1] = rec(7, 0, 0, R, 0);
	run(t, 2, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[0].life.median, 7);
	cr_expect_eq(res.subparts[0].life.p99, 7);
	sb_lifetime_result_release(&res);
}

Test(lifetime, many_addresses_grow_the_tables)
{
	enum { N = 100000 };
	struct sb_trace_record *t = malloc(2 * N * sizeof(*t));
	struct sb_lifetime_result res;

	cr_assert(t);
	for (int i = 0; i < N; i++) {
		t[2 * i] = rec(2 * i, 0, (uint64_t)i * 7919, W, 0);
		t[2 * i + 1] = rec(2 * i + 1 + (i % 3), 0, (uint64_t)i * 7919, R, 0);
	}
	/* reads at 2i+1+(i%3) may pass the next write; keep the subpartition in time order */
	for (int i = 0; i < N; i++)
		t[2 * i + 1].time = 2 * i + 1;
	run(t, 2 * N, SB_POLICY_WRITE_ALLOCATE, &res);
	cr_expect_eq(res.subparts[0].unique_addresses, N);
	cr_expect_eq(res.subparts[0].lifetimes, N);
	expect_bins(&res, 0, (int64_t[]){1}, (uint64_t[]){N}, 1);
	free(t);
	sb_lifetime_result_release(&res);
}

Test(lifetime, policy_names)
{
	enum sb_cache_policy p;

	cr_expect_eq(sb_cache_policy_parse("no-write-allocate", &p), 0);
	cr_expect_eq(p, SB_POLICY_NO_WRITE_ALLOCATE);
	cr_expect_str_eq(sb_cache_policy_name(p), "no-write-allocate");
	cr_expect_eq(sb_cache_policy_parse("wa", &p), SB_ERR_INVAL);
}
