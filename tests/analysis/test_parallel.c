/* SPDX-License-Identifier: MIT */
/*
 * Threads and shards give the result of one engine, exactly (docs/lifetimes.md and
 * docs/locality.md, "Threads and shards"): on random traces (three subpartitions, one a cache
 * private to each unit with every status, flushes and reservation fails, complete and sampled
 * with windows of ~100 records), the JSON reports are compared byte for byte with one engine's:
 * - lifetimes: the addresses split into 1..7 partitions (shards x threads), each applied by its
 *   own engine, the results merged;
 * - locality: the records cut into 1..6 chunks at random places (empty chunks, cuts inside
 *   windows and time stamps), each analysed by an engine started from the skimmed prefix, the
 *   parts absorbed in order (parda's merge);
 * - lifetimes through the runner that uses threads (sb_lifetime_run_source on the trace written
 *   as sbt and CSV, 1..5 threads and 2 shards of 2 threads; locality's runner is checked
 *   through the command in shards.sh);
 * - partials: damaged headers are refused.
 */
#include <math.h>

#include "analysis_support.h"
#include "stackbench/devices.h"
#include "stackbench/lifetime.h"
#include "stackbench/locality.h"
#include "stackbench/log.h"
#include "stackbench/partial.h"
#include "stackbench/util.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

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

TestSuite(parallel, .init = setup);

/* n records in time order per subpartition; wide sets so that tables and trees grow. */
static struct sb_trace_record *make_trace(size_t n, bool sampled, unsigned shape)
{
	struct sb_trace_record *t = calloc(n, sizeof(*t));
	int64_t time = 0;
	uint32_t sample = 0;

	cr_assert(t);
	for (size_t i = 0; i < n; i++) {
		uint64_t x = next_rand();

		if (sampled && x % 97 == 0) { /* a gap */
			sample += 1 + (uint32_t)(x >> 60);
			time += 1000;
		}
		time += (int64_t)(x % 3);
		t[i].time = time;
		t[i].sample = sampled ? sample : 0;
		t[i].subpart = (uint16_t)((x >> 8) % 3);
		t[i].unit = (uint32_t)(x >> 16) % 4;
		t[i].size = 4 << ((x >> 44) % 3);
		t[i].kind = (x >> 20) % 1999 == 0 ? SB_ACC_FLUSH : (uint8_t)((x >> 24) % 3);
		t[i].cache = t[i].subpart == 1 ? (uint8_t)((x >> 28) % 7) : 0;
		x = next_rand(); /* the address's own bits */
		if (shape == 0)  /* a hot set and a wide cold one */
			t[i].addr = x % 5 ? (x >> 8) % 300 : (x >> 8) % 60000;
		else /* streaming with reuse a while later */
			t[i].addr = (i / 4) % 20000 * 8 + (x >> 40) % 16;
	}
	return t;
}

/* --- lifetimes ---------------------------------------------------------------------------- */

static char *lifetime_json(const struct sb_lifetime_result *res)
{
	struct sb_memdev_lib lib;
	struct sb_projection p;
	char *text;

	sb_memdev_lib_init(&lib);
	cr_assert_eq(sb_memdev_lib_load(&lib, SB_DEVICES_DEFAULT), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_memdev_lib_check(&lib), 0);
	cr_assert_eq(sb_projection_compute(&p, res, &lib), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_lifetime_report_json(res, &p, &lib, NULL, &text), 0);
	sb_projection_release(&p);
	sb_memdev_lib_release(&lib);
	return text;
}

static void lifetime_engine(const struct sb_trace_info *info, const struct sb_trace_record *t,
                            size_t n, enum sb_cache_policy pol,
                            const struct sb_lifetime_partition *part,
                            struct sb_lifetime_result *res)
{
	struct sb_lifetime *e;

	cr_assert_eq(sb_lifetime_new(&e, pol), 0);
	if (part)
		cr_assert_eq(sb_lifetime_set_partition(e, part), 0);
	/* irregular batches */
	for (size_t i = 0; i < n;) {
		size_t k = 1 + next_rand() % 3000;

		k = k < n - i ? k : n - i;
		cr_assert_eq(sb_lifetime_feed(e, info, t + i, k), 0, "%s", sb_error_detail());
		i += k;
	}
	cr_assert_eq(sb_lifetime_finish(e, info, res), 0);
	sb_lifetime_free(e);
}

static void check_lifetimes(size_t n, bool sampled, unsigned shape, enum sb_cache_policy pol)
{
	struct sb_trace_info info;
	struct sb_trace_record *t = make_trace(n, sampled, shape);
	struct sb_lifetime_result one;
	char *want;

	sbtest_three_subparts(&info, sampled);
	lifetime_engine(&info, t, n, pol, NULL, &one);
	want = lifetime_json(&one);
	cr_assert(one.subparts[0].lifetimes + one.subparts[1].lifetimes +
	              one.subparts[2].lifetimes >
	          1000);
	for (uint32_t shards = 1; shards <= 3; shards++) {
		for (uint32_t threads = 1; threads <= 3; threads++) {
			struct sb_lifetime_result parts[9], merged;
			size_t np = 0;
			char *got;

			for (uint32_t s = 0; s < shards; s++)
				for (uint32_t th = 0; th < threads; th++) {
					struct sb_lifetime_partition p = {s, shards, th, threads};

					lifetime_engine(&info, t, n, pol, &p, &parts[np++]);
				}
			cr_assert_eq(sb_lifetime_result_merge(&merged, parts, np), 0, "%s",
			             sb_error_detail());
			got = lifetime_json(&merged);
			cr_expect_str_eq(got, want, "%u shards x %u threads (sampled %d, shape %u)",
			                 shards, threads, sampled, shape);
			free(got);
			sb_lifetime_result_release(&merged);
			for (size_t i = 0; i < np; i++)
				sb_lifetime_result_release(&parts[i]);
		}
	}
	free(want);
	sb_lifetime_result_release(&one);
	free(t);
}

Test(parallel, lifetime_partitions_merge_exactly, .timeout = 300)
{
	check_lifetimes(120000, false, 0, SB_POLICY_WRITE_ALLOCATE);
	check_lifetimes(120000, true, 0, SB_POLICY_NO_WRITE_ALLOCATE);
	check_lifetimes(120000, false, 1, SB_POLICY_NO_WRITE_ALLOCATE);
}

/*
 * The runner (sb_lifetime_run_source): the trace written as sbt (and, unsampled, as CSV), read
 * by 1..5 threads, and by 2 shards of 2 threads merged: the report of one engine fed in
 * memory, byte for byte, and the same error as one thread when a record names no subpartition.
 */
static void check_lifetime_runner(size_t n, bool sampled, unsigned shape, enum sb_cache_policy pol)
{
	static const enum sb_trace_format fmts[2] = {SB_TRACE_SBT, SB_TRACE_CSV};
	struct sb_trace_info info;
	struct sb_trace_record *t = make_trace(n, sampled, shape);
	struct sb_lifetime_result one;
	char dir[256], path[300], *want;

	sbtest_three_subparts(&info, sampled);
	lifetime_engine(&info, t, n, pol, NULL, &one);
	want = lifetime_json(&one);
	sbtest_mkdtemp(dir, sizeof(dir));
	for (int f = 0; f < (sampled ? 1 : 2); f++) {
		const char *paths[1] = {path};
		struct sb_trace_source src = {.fmt = fmts[f], .paths = paths, .npaths = 1};
		struct sb_trace_writer *w;

		snprintf(path, sizeof(path), "%s/trace.%s", dir, f ? "csv" : "sbt");
		cr_assert_eq(sb_trace_writer_open(&w, fmts[f], path, &info), 0, "%s",
		             sb_error_detail());
		cr_assert_eq(sb_trace_write(w, &info, t, n), 0, "%s", sb_error_detail());
		cr_assert_eq(sb_trace_writer_close(w), 0);
		for (unsigned threads = 1; threads <= 6; threads++) {
			struct sb_lifetime_run_opts o = {.policy = pol, .threads = threads};
			struct sb_lifetime_result got, parts[2];
			char *text;

			if (threads == 6) { /* 2 shards of 2 threads */
				o.threads = 2;
				o.nshards = 2;
				for (uint32_t sh = 0; sh < 2; sh++) {
					o.shard = sh;
					cr_assert_eq(sb_lifetime_run_source(&src, &o, &parts[sh]),
					             0, "%s", sb_error_detail());
				}
				cr_assert_eq(sb_lifetime_result_merge(&got, parts, 2), 0, "%s",
				             sb_error_detail());
				sb_lifetime_result_release(&parts[0]);
				sb_lifetime_result_release(&parts[1]);
			} else {
				cr_assert_eq(sb_lifetime_run_source(&src, &o, &got), 0, "%s",
				             sb_error_detail());
			}
			text = lifetime_json(&got);
			cr_expect_str_eq(text, want, "%s, %u threads (sampled %d, shape %u)",
			                 f ? "csv" : "sbt", threads, sampled, shape);
			free(text);
			sb_lifetime_result_release(&got);
		}
	}
	sbtest_rmtree(dir);
	free(want);
	sb_lifetime_result_release(&one);
	free(t);
}

Test(parallel, lifetime_runner_threads_give_one_engines_report, .timeout = 300)
{
	check_lifetime_runner(100000, false, 0, SB_POLICY_WRITE_ALLOCATE);
	check_lifetime_runner(100000, true, 0, SB_POLICY_NO_WRITE_ALLOCATE);
	check_lifetime_runner(100000, false, 1, SB_POLICY_NO_WRITE_ALLOCATE);
}

/*
 * A CSV trace damaged at record k (the records before it spread over several batches of the
 * threads' ring): every thread count stops with the error of one thread, naming its line.
 */
static void check_runner_error(size_t n, size_t k)
{
	struct sb_trace_info info;
	struct sb_trace_record *t = make_trace(n, false, 0);
	struct sb_lifetime_result got;
	struct sb_trace_writer *w;
	char dir[256], path[300], want[1024], line[64];
	const char *paths[1] = {path};
	struct sb_trace_source src = {.fmt = SB_TRACE_CSV, .paths = paths, .npaths = 1};
	size_t len, lineno = 1;
	char *text, *p;
	FILE *f;

	sbtest_three_subparts(&info, false);
	sbtest_mkdtemp(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/trace.csv", dir);
	cr_assert_eq(sb_trace_writer_open(&w, SB_TRACE_CSV, path, &info), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_trace_write(w, &info, t, n), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_trace_writer_close(w), 0);
	cr_assert(f = fopen(path, "rb"));
	cr_assert_eq(fseek(f, 0, SEEK_END), 0);
	len = (size_t)ftell(f);
	rewind(f);
	cr_assert(text = malloc(len + 1));
	cr_assert_eq(fread(text, 1, len, f), len);
	fclose(f);
	text[len] = 0;
	/* past the '#' lines and the column names, then k records */
	for (p = text; *p == '#'; lineno++) {
		cr_assert(p = strchr(p, '\n'));
		p++;
	}
	for (size_t i = 0; i <= k; i++, lineno++) {
		cr_assert(p = strchr(p, '\n'));
		p++;
	}
	cr_assert(p[0] >= '0' && p[0] <= '9', "record %zu: %.20s", k, p);
	p[0] = 'x'; /* the time field is no number now; the file keeps its size */
	sbtest_write(path, text, len);
	free(text);
	snprintf(line, sizeof(line), "line %zu", lineno);
	for (unsigned threads = 1; threads <= 4; threads++) {
		struct sb_lifetime_run_opts o = {.policy = SB_POLICY_WRITE_ALLOCATE,
		                                 .threads = threads};
		int err = sb_lifetime_run_source(&src, &o, &got);

		cr_assert_lt(err, 0, "%u threads: the damaged line was not reported", threads);
		if (threads == 1) {
			sb_strlcpy(want, sb_error_detail(), sizeof(want));
			cr_assert(strstr(want, line), "%s (no '%s')", want, line);
		} else {
			cr_expect_str_eq(sb_error_detail(), want, "%u threads", threads);
		}
	}
	sbtest_rmtree(dir);
	free(t);
}

Test(parallel, lifetime_runner_threads_stop_at_a_damaged_line_as_one_thread)
{
	check_runner_error(100000, 0);     /* the first record */
	check_runner_error(100000, 40000); /* batches of the ring already dealt and applied */
	check_runner_error(100000, 99999); /* the last record */
}

Test(parallel, lifetime_merge_refuses_parts_of_other_traces)
{
	struct sb_trace_info info;
	struct sb_trace_record *t = make_trace(20000, false, 0);
	struct sb_lifetime_result parts[2], merged;
	struct sb_lifetime_partition p0 = {0, 2, 0, 1}, p1 = {1, 2, 0, 1};

	sbtest_three_subparts(&info, false);
	lifetime_engine(&info, t, 20000, SB_POLICY_WRITE_ALLOCATE, &p0, &parts[0]);
	lifetime_engine(&info, t, 19000, SB_POLICY_WRITE_ALLOCATE, &p1, &parts[1]);
	cr_expect_eq(sb_lifetime_result_merge(&merged, parts, 2), SB_ERR_MISMATCH);
	sb_lifetime_result_release(&parts[0]);
	sb_lifetime_result_release(&parts[1]);
	free(t);
}

/* --- locality ----------------------------------------------------------------------------- */

static char *locality_json(const struct sb_locality_result *res)
{
	char *text;

	cr_assert_eq(sb_locality_report_json(res, "test", NULL, 0, &text), 0);
	return text;
}

static void feed_batches(struct sb_locality *l, const struct sb_trace_info *info,
                         const struct sb_trace_record *t, size_t n)
{
	for (size_t i = 0; i < n;) {
		size_t k = 1 + next_rand() % 2000;

		k = k < n - i ? k : n - i;
		cr_assert_eq(sb_locality_feed(l, info, t + i, k), 0, "%s", sb_error_detail());
		i += k;
	}
}

static void check_locality(size_t n, bool sampled, unsigned shape, uint32_t leaves)
{
	const struct sb_locality_options opt = {.max_leaves = leaves, .block_bytes = 32};
	struct sb_trace_info info;
	struct sb_trace_record *t = make_trace(n, sampled, shape);
	struct sb_locality_result one;
	struct sb_locality *l;
	char *want;

	sbtest_three_subparts(&info, sampled);
	cr_assert_eq(sb_locality_new(&l, &opt), 0);
	feed_batches(l, &info, t, n);
	cr_assert_eq(sb_locality_finish(l, &info, &one), 0);
	sb_locality_free(l);
	want = locality_json(&one);
	cr_assert(one.reuse.finite > 1000);
	for (int round = 0; round < 8; round++) {
		size_t nchunks = 1 + (size_t)round % 6, cut[8];
		struct sb_locality_prefix start = {0};
		struct sb_locality *m;
		struct sb_locality_result got;
		char *text;

		/* cuts at random places, some chunks empty */
		cut[0] = 0;
		for (size_t c = 1; c < nchunks; c++)
			cut[c] = next_rand() % 5 == 0 ? cut[c - 1] : next_rand() % (n + 1);
		cut[nchunks] = n;
		for (size_t c = 1; c < nchunks; c++)
			for (size_t d = c + 1; d < nchunks; d++)
				if (cut[d] < cut[c]) {
					size_t x = cut[c];

					cut[c] = cut[d];
					cut[d] = x;
				}
		cr_assert_eq(sb_locality_new(&m, &opt), 0);
		for (size_t c = 0; c < nchunks; c++) {
			struct sb_locality *ch;
			struct sb_locality_part *part;

			/* a chunk starts from the skim of every record before it */
			start = (struct sb_locality_prefix){0};
			sb_locality_prefix_skim(&start, &info, t, cut[c]);
			cr_assert_eq(sb_locality_new_chunk(&ch, &opt, &start), 0);
			feed_batches(ch, &info, t + cut[c], cut[c + 1] - cut[c]);
			cr_assert_eq(sb_locality_take_part(ch, &part), 0);
			sb_locality_free(ch);
			cr_assert_eq(sb_locality_absorb(m, &info, part), 0, "%s",
			             sb_error_detail());
			sb_locality_part_free(part);
		}
		cr_assert_eq(sb_locality_finish(m, &info, &got), 0);
		sb_locality_free(m);
		text = locality_json(&got);
		if (strcmp(text, want)) {
			sbtest_write_text("/tmp/i24-want.json", want);
			sbtest_write_text("/tmp/i24-got.json", text);
		}
		cr_expect_str_eq(text, want, "%zu chunks (sampled %d, shape %u, leaves %u)",
		                 nchunks, sampled, shape, leaves);
		free(text);
		sb_locality_result_release(&got);
	}
	free(want);
	sb_locality_result_release(&one);
	free(t);
}

Test(parallel, locality_chunks_merge_exactly, .timeout = 300)
{
	check_locality(150000, false, 0, 1024);
	check_locality(150000, false, 1, 16);
	check_locality(150000, true, 0, 64);
	check_locality(150000, true, 1, 4096);
}

Test(parallel, locality_absorb_refuses_chunks_out_of_order)
{
	struct sb_trace_info info;
	struct sb_trace_record *t = make_trace(10000, false, 0);
	struct sb_locality_prefix start = {0};
	struct sb_locality *ch, *m;
	struct sb_locality_part *part;

	sbtest_three_subparts(&info, false);
	sb_locality_prefix_skim(&start, &info, t, 5000);
	cr_assert_eq(sb_locality_new_chunk(&ch, NULL, &start), 0);
	feed_batches(ch, &info, t + 5000, 5000);
	cr_assert_eq(sb_locality_take_part(ch, &part), 0);
	cr_assert_eq(sb_locality_new(&m, NULL), 0);
	cr_expect_eq(sb_locality_absorb(m, &info, part), SB_ERR_MISMATCH);
	sb_locality_part_free(part);
	sb_locality_free(ch);
	sb_locality_free(m);
	free(t);
}

/* A partial file around a header (and an empty body), as sb_partial_parse reads it. */
static size_t make_partial(uint8_t *out, const char *header)
{
	const size_t hlen = strlen(header);

	memcpy(out, "SBPART\r\n\1\0\0\0", 12);
	for (int i = 0; i < 4; i++)
		out[12 + i] = (uint8_t)(hlen >> (8 * i));
	memcpy(out + 16, header, hlen);
	memset(out + 16 + hlen, 0, 16);
	return 32 + hlen;
}

/* Headers the fuzzer found (tests/fuzz/corpus/partial/regress-*): refused as damaged, no
 * undefined conversion of a missing size, no leak of a header that is JSON but no object. */
Test(parallel, partial_headers_without_sizes_or_objects_are_refused)
{
	static const char *const bad[] = {
	    "false", "[1,2]",
	    "{\"schema\":\"stackbench-partial\",\"major\":1,\"minor\":0,\"analysis\":\"lifetimes\","
	    "\"shard\":0,\"shards\":1,\"format\":\"sbt\",\"inputs\":[\"t.sbt\"],"
	    "\"trace\":{\"fingerprint\":\"0123456789abcdef0123456789abcdef\"},"
	    "\"options\":{\"clock_hz\":0,\"word_bytes\":0,\"block_bytes\":0,"
	    "\"policy\":\"write-allocate\"}}",
	    "{\"schema\":\"stackbench-partial\",\"major\":1,\"minor\":0,\"analysis\":\"lifetimes\","
	    "\"shard\":0,\"shards\":1,\"format\":\"sbt\",\"inputs\":[\"t.sbt\"],"
	    "\"trace\":{\"fingerprint\":\"0123456789abcdef0123456789abcdef\",\"bytes\":-1,"
	    "\"records\":1e300},\"options\":{\"clock_hz\":0,\"word_bytes\":0,\"block_bytes\":0,"
	    "\"policy\":\"write-allocate\"}}"};
	uint8_t file[1024];

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct sb_partial p;

		cr_expect_eq(sb_partial_parse("t.part", file, make_partial(file, bad[i]), &p),
		             SB_ERR_PARSE, "header %zu", i);
		sb_partial_release(&p);
	}
}

/* A body whose stated length is not its frame's (regress-body-length: 32 GiB stated) is
 * refused before anything of that size is allocated; so are truncated and trailing frames. */
Test(parallel, partial_bodies_of_other_lengths_are_refused)
{
	static const char header[] =
	    "{\"schema\":\"stackbench-partial\",\"major\":1,\"minor\":0,\"analysis\":\"lifetimes\","
	    "\"shard\":0,\"shards\":1,\"format\":\"sbt\",\"inputs\":[\"t.sbt\"],"
	    "\"trace\":{\"fingerprint\":\"0123456789abcdef0123456789abcdef\",\"bytes\":1,"
	    "\"records\":1},\"options\":{\"clock_hz\":0,\"word_bytes\":0,\"block_bytes\":0,"
	    "\"policy\":\"write-allocate\"}}";
	const size_t hlen = strlen(header);
	static const uint8_t body[64] = {1, 2, 3};
	uint8_t file[2048];
	size_t z, base = make_partial(file, header);
	const struct {
		uint64_t rawlen;
		long cut;
	} cases[] = {
	    {UINT64_C(1) << 35, 0}, {sizeof(body) - 1, 0}, {sizeof(body), -3}, {sizeof(body), 2}};

	z = ZSTD_compress(file + base, sizeof(file) - base - 8, body, sizeof(body), 3);
	cr_assert(!ZSTD_isError(z));
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sb_partial p;
		const size_t zlen = (size_t)((long)z + cases[i].cut);

		memset(file + base + z, 0, 8);
		for (int b = 0; b < 8; b++) {
			file[16 + hlen + b] = (uint8_t)(cases[i].rawlen >> (8 * b));
			file[24 + hlen + b] = (uint8_t)((uint64_t)zlen >> (8 * b));
		}
		cr_expect_eq(sb_partial_parse("t.part", file, base + zlen, &p), SB_ERR_PARSE,
		             "case %zu", i);
		sb_partial_release(&p);
	}
}
