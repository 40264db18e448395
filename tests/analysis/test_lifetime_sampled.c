/* SPDX-License-Identifier: MIT */
/*
 * The lifetime core on sampled traces (docs/lifetimes.md, "Sampled traces"):
 * - a lifetime never spans a gap: a value live at the end of its sample is cut (censored),
 *   neither a lifetime nor a zero-read value; the same records without sample ids give the
 *   lifetimes that span the gap;
 * - the sampling density r = records / executed (per subpartition from `executed.NAME`), and
 *   frequencies interpolated by t^ = r t;
 * - the confidence rules: density, events, censored share, lost records;
 * - a window with more writes than the engine remembers (the table is scanned instead).
 */
#include <math.h>

#include "analysis_support.h"
#include "stackbench/lifetime.h"
#include "stackbench/log.h"

#define R SB_ACC_READ
#define W SB_ACC_WRITE

static struct sb_trace_info info;

static void setup(void)
{
	sb_log_set_level(SB_LOG_ERROR);
	sb_trace_info_init(&info, "test", 1e9, "cycle");
	cr_assert_eq(sb_trace_info_subpart(&info, "v0", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
	cr_assert_eq(sb_trace_info_subpart(&info, "v1", SB_SUBPART_SCRATCHPAD, 1, 1), 1);
	info.fields = SB_FIELD_SAMPLE;
}

TestSuite(sampled, .init = setup);

static struct sb_trace_record rec(int64_t t, int sp, uint64_t addr, int kind, uint32_t sample)
{
	return (struct sb_trace_record){.time = t,
	                                .subpart = (uint16_t)sp,
	                                .addr = addr,
	                                .size = 4,
	                                .kind = (uint8_t)kind,
	                                .sample = sample};
}

static void run(const struct sb_trace_info *in, const struct sb_trace_record *t, size_t n,
                struct sb_lifetime_result *res)
{
	struct sb_lifetime *eng;

	cr_assert_eq(sb_lifetime_new(&eng, SB_POLICY_WRITE_ALLOCATE), 0);
	cr_assert_eq(sb_lifetime_feed(eng, in, t, n), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_lifetime_finish(eng, in, res), 0, "%s", sb_error_detail());
	sb_lifetime_free(eng);
}

/* Sample 0: A written at 0 and read at 2, B written at 3, C read at 4; a gap; sample 1: A read
 * at 100, written at 101, read at 105, written again at 106. */
static const struct sb_trace_record gap_trace[] = {
    {.time = 0, .addr = 0xa, .size = 4, .kind = W, .sample = 7},
    {.time = 2, .addr = 0xa, .size = 4, .kind = R, .sample = 7},
    {.time = 3, .addr = 0xb, .size = 4, .kind = W, .sample = 7},
    {.time = 4, .addr = 0xc, .size = 4, .kind = R, .sample = 7},
    {.time = 100, .addr = 0xa, .size = 4, .kind = R, .sample = 9},
    {.time = 101, .addr = 0xa, .size = 4, .kind = W, .sample = 9},
    {.time = 105, .addr = 0xa, .size = 4, .kind = R, .sample = 9},
    {.time = 106, .addr = 0xa, .size = 4, .kind = W, .sample = 9},
};

Test(sampled, a_lifetime_never_spans_a_gap)
{
	struct sb_lifetime_result res;
	struct sb_trace_info complete = info;
	const struct sb_subpart_stats *st;

	run(&info, gap_trace, 8, &res);
	st = &res.subparts[0];
	cr_expect(res.windowed);
	cr_expect_eq(st->windows, 2);
	cr_assert_eq(st->lifetimes, 1, "only A's value of sample 9, overwritten in its sample");
	cr_expect_eq(st->bins[0].ticks, 4);
	cr_expect_eq(st->censored_values, 3, "A at 0, B at 3, A at 106: cut by a window's end");
	cr_expect_eq(st->censored_read_values, 1);
	cr_expect_eq(st->censored_max, 2, "A at 0 lived at least 2 ticks");
	cr_expect_eq(st->zero_read_values, 0, "a cut value is no zero-read value");
	cr_expect_eq(st->orphans, 0);
	cr_expect_eq(st->unbacked_reads, 2, "C at 4; A at 100, written before its sample");
	cr_expect_eq(st->reads, 4);
	/* addresses by the longest lifetime held: B and C none, A 4 (its lower bound 2 below) */
	cr_assert_eq(st->nabins, 2);
	cr_expect_eq(st->abins[0].max_ticks, -1);
	cr_expect_eq(st->abins[0].addresses, 2);
	cr_expect_eq(st->abins[1].max_ticks, 4);
	sb_lifetime_result_release(&res);

	/* without sample ids: A's first value lives from 0 to its read at 100 */
	complete.fields = 0;
	{
		struct sb_trace_record t[8];

		memcpy(t, gap_trace, sizeof(t));
		for (int i = 0; i < 8; i++)
			t[i].sample = 0;
		run(&complete, t, 8, &res);
	}
	st = &res.subparts[0];
	cr_expect(!res.windowed);
	cr_assert_eq(st->lifetimes, 2);
	cr_expect_eq(st->bins[0].ticks, 4);
	cr_expect_eq(st->bins[1].ticks, 100);
	cr_expect_eq(st->zero_read_values, 2, "B and A's last value");
	cr_expect_eq(st->censored_values, 0);
	cr_expect_eq(st->unbacked_reads, 1);
	sb_lifetime_result_release(&res);
}

/* Windows are per subpartition: another subpartition's records do not cut this one's values. */
Test(sampled, windows_follow_each_subpartitions_records)
{
	struct sb_trace_record t[] = {rec(0, 0, 1, W, 1), rec(1, 1, 1, W, 1), rec(2, 0, 1, R, 1),
	                              rec(3, 1, 1, R, 2), rec(4, 0, 1, R, 1), rec(5, 0, 1, W, 1)};
	struct sb_lifetime_result res;

	run(&info, t, 6, &res);
	cr_expect_eq(res.subparts[0].lifetimes, 1, "v0's value lives 0..4 in sample 1");
	cr_expect_eq(res.subparts[0].bins[0].ticks, 4);
	cr_expect_eq(res.subparts[1].lifetimes, 0);
	cr_expect_eq(res.subparts[1].censored_values, 1, "v1's value is cut by sample 2");
	cr_expect_eq(res.subparts[1].unbacked_reads, 1);
	sb_lifetime_result_release(&res);
}

Test(sampled, density_and_interpolated_frequencies)
{
	struct sb_trace_info in = info;
	struct sb_lifetime_result res;
	struct sb_memdev_lib lib;
	struct sb_projection p;
	struct sb_trace_record t[800];

	/* 8 windows of 100 records, one per tick, the subpartitions alternating; each writes
	   and reads addresses 0, 0, 1, 1, 0, ...: 23 lifetimes of 2 ticks per window, the last
	   two values of a window cut */
	for (int i = 0; i < 800; i++) {
		const int k = (i % 100) / 2;

		t[i] = rec(i, i % 2, (uint64_t)(k / 2 % 2), k % 2 ? R : W, (uint32_t)(i / 100));
	}
	in.capture = (struct sb_trace_capture){.sampled = 1,
	                                       .burst_records = 100,
	                                       .gap_ticks = 5000,
	                                       .executed = 80000,
	                                       .captured = 800,
	                                       .bursts = 8};
	cr_assert_eq(sb_trace_info_set_attr(&in, "executed.v1", "4000"), 0);
	run(&in, t, 800, &res);
	cr_expect_eq(res.sampling.density, 0.01, "800 of 80000");
	cr_expect_eq(res.subparts[0].density, 0.01, "the trace's");
	cr_expect_eq(res.subparts[1].density, 0.1, "400 of its 4000 (executed.v1)");
	cr_expect_eq(res.subparts[0].lifetimes, 184);
	cr_expect_eq(res.subparts[0].censored_values, 16);
	cr_expect_eq(res.subparts[0].nbins, 1);
	cr_expect_eq(res.subparts[0].bins[0].ticks, 2, "written, read 2 ticks later");
	sb_memdev_lib_init(&lib);
	cr_assert_eq(sb_memdev_lib_load(&lib, NULL), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_projection_compute(&p, &res, &lib), 0);
	/* v0 writes at 200 time stamps over 800 ticks: 0.25 GHz measured, 25 GHz at r = 0.01 */
	cr_expect_eq(res.subparts[0].write_ticks, 200);
	cr_expect_eq(sb_lifetime_result_ticks(&res), 800);
	cr_expect_eq(p.subparts[0].time_scale, 0.01);
	cr_expect(fabs(p.subparts[0].write_hz - 200.0 / (0.01 * 800) * 1e9) < 1e-3, "%.17g",
	          p.subparts[0].write_hz);
	cr_expect(fabs(p.subparts[1].write_hz - 200.0 / (0.1 * 800) * 1e9) < 1e-3, "%.17g",
	          p.subparts[1].write_hz);
	sb_projection_release(&p);
	sb_memdev_lib_release(&lib);
	/* 184 lifetimes per subpartition: confident by default (density 0.01 >= 0.001) */
	cr_expect(res.subparts[0].confident);
	{
		struct sb_confidence_rules r = res.rules;

		r.min_density = 0.05; /* v0's 0.01 is too little now, v1's 0.1 is not */
		sb_lifetime_judge(&res, &r);
		cr_expect(!res.subparts[0].confident);
		cr_expect(res.subparts[1].confident);
		r.min_density = 0.001;
		r.min_events = 185; /* 184 lifetimes each */
		sb_lifetime_judge(&res, &r);
		cr_expect(!res.subparts[0].confident);
		cr_expect(!res.subparts[1].confident);
	}
	sb_lifetime_result_release(&res);
	/* lost records beyond 1 %, and an unknown executed count: never confident */
	in.capture.lost_records = 10;
	in.capture.captured = 810;
	run(&in, t, 800, &res);
	cr_expect(!res.subparts[0].confident, "10 of 810 records lost");
	sb_lifetime_result_release(&res);
	in.capture.lost_records = 0;
	in.capture.executed = 0;
	in.nattrs = 0;
	run(&in, t, 800, &res);
	cr_expect(isnan(res.sampling.density));
	cr_expect(!res.subparts[0].confident, "density unknown");
	sb_lifetime_result_release(&res);
}

Test(sampled, mostly_censored_values_are_not_confident)
{
	struct sb_trace_record t[300];
	struct sb_lifetime_result res;

	/* 150 values, one per window: each written and read, then cut */
	for (int i = 0; i < 150; i++) {
		t[2 * i] = rec(2 * i, 0, 5, W, (uint32_t)i);
		t[2 * i + 1] = rec(2 * i + 1, 0, 5, R, (uint32_t)i);
	}
	run(&info, t, 300, &res);
	cr_expect_eq(res.subparts[0].lifetimes, 0);
	cr_expect_eq(res.subparts[0].censored_values, 150);
	cr_expect_eq(res.subparts[0].censored_max, 1);
	cr_expect(!res.subparts[0].confident);
	sb_lifetime_result_release(&res);
}

/* A window with more writes than the engine remembers: the table is scanned at its end. */
Test(sampled, a_window_of_many_writes, .timeout = 60)
{
	enum { N = (1 << 20) + 5000 };
	struct sb_trace_record *t = calloc(N + 2, sizeof(*t));
	struct sb_lifetime_result res;

	cr_assert(t);
	for (size_t i = 0; i < N; i++)
		t[i] = rec((int64_t)i, 0, i, W, 1);
	t[N] = rec(N, 0, 3, R, 1);
	t[N + 1] = rec(N + 1, 0, 4, R, 2);
	run(&info, t, N + 2, &res);
	cr_expect_eq(res.subparts[0].censored_values, N, "every value cut at the end of sample 1");
	cr_expect_eq(res.subparts[0].censored_read_values, 1);
	cr_expect_eq(res.subparts[0].censored_max, N - 3);
	cr_expect_eq(res.subparts[0].unbacked_reads, 1, "address 4 in sample 2");
	sb_lifetime_result_release(&res);
	free(t);
}

/*
 * Too few lifetimes (docs/lifetimes.md): the basis of each subpartition (none, few, enough, no
 * accesses), the composition's share placed without enough, and the warnings that say which
 * and why — none once every subpartition with accesses holds min_events lifetimes.
 */
Test(sampled, too_few_lifetimes_are_said)
{
	enum { N = 150 };
	static struct sb_trace_record t[3 * N + 2];
	char w[SB_TRUST_MAX_WARNINGS][SB_TRUST_WARNING_MAX];
	struct sb_lifetime_result res;
	struct sb_lifetime_trust tr;
	size_t n = 0;

	/* v0: N values written, read and overwritten in sample 0 (the overwrites are cut by its
	   end); v1: a read and a write, cut by the gap */
	for (int i = 0; i < N; i++) {
		t[n++] = rec(3 * i, 0, (uint64_t)i, W, 0);
		t[n++] = rec(3 * i + 1, 0, (uint64_t)i, R, 0);
		t[n++] = rec(3 * i + 2, 0, (uint64_t)i, W, 0);
	}
	t[n++] = rec(1000, 1, 5, R, 1);
	t[n++] = rec(1001, 1, 5, W, 1);
	info.capture = (struct sb_trace_capture){.sampled = 1,
	                                         .burst_records = 1024,
	                                         .gap_ticks = 15360,
	                                         .executed = 10 * n,
	                                         .captured = n,
	                                         .bursts = 2,
	                                         .start = 0,
	                                         .end = 20000};
	run(&info, t, n, &res);
	cr_assert_eq(res.subparts[0].lifetimes, N);
	cr_expect_eq(sb_lifetime_basis(&res.subparts[0], &res.rules), SB_BASIS_ENOUGH);
	cr_expect_eq(sb_lifetime_basis(&res.subparts[1], &res.rules), SB_BASIS_NONE);
	sb_lifetime_trust(&res, &tr);
	cr_expect_eq(tr.with_accesses, 2);
	cr_expect_eq(tr.none, 1);
	cr_expect_eq(tr.few, 0);
	cr_expect_eq(tr.lifetimes, N);
	/* capacity: N addresses of 32 bits in v0, one in v1 */
	cr_expect_float_eq(tr.weak_capacity_share, 1.0 / (N + 1), 1e-12);
	cr_assert_eq(sb_lifetime_trust_warnings(&res, w, SB_TRUST_MAX_WARNINGS), 2);
	cr_expect(strstr(w[0], "no lifetime in 1 of 2 subpartitions with accesses (v1)"), "%s",
	          w[0]);
	cr_expect(strstr(w[1], "why: 1 of 1 reads unbacked (no value written earlier in their "
	                       "burst), 1 of 1 values cut by the sampling gaps"),
	          "%s", w[1]);
	cr_expect(strstr(w[1], "gaps (15360 cycles, 15.4 µs)"), "%s", w[1]);
	/* 100 lifetimes required of v0 too: with 200, v0 has too few */
	res.rules.min_events = 200;
	cr_expect_eq(sb_lifetime_basis(&res.subparts[0], &res.rules), SB_BASIS_FEW);
	cr_assert_eq(sb_lifetime_trust_warnings(&res, w, 1), 1);
	cr_expect(strstr(w[0], "fewer than 200 lifetimes in 1 of 2 (v0)"), "%s", w[0]);
	/* enough everywhere: nothing to say */
	res.rules.min_events = 0;
	res.subparts[1].lifetimes = 1;
	cr_expect_eq(sb_lifetime_trust_warnings(&res, w, SB_TRUST_MAX_WARNINGS), 0);
	sb_lifetime_result_release(&res);
	memset(&info.capture, 0, sizeof(info.capture));
}
