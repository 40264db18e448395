/* SPDX-License-Identifier: MIT */
/*
 * Hardening of the trace readers and the lifetime engine (issue 17, items 7 and 8), each case
 * written to fail on the code before the fix:
 * - sbt time columns that wrap around (signed overflow; UBSan aborted) and times that go back
 *   within a subpartition (the CSV reader refused the same data; the sbt reader took it);
 * - the sbt writer taking records that go back in time;
 * - times so far apart that a lifetime or a span overflows (a lifetime of -1 cycles);
 * - clocks out of any sane range (1e-300 Hz);
 * - random bytes read as an empty GPGPU-Sim log; lines of unbounded length.
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "analysis_support.h"
#include "stackbench/lifetime.h"
#include "stackbench/log.h"

static char dir[64];

static void setup(void)
{
	sbtest_mkdtemp(dir, sizeof(dir));
	sb_log_set_level(SB_LOG_NONE);
}

static void teardown(void)
{
	sbtest_rmtree(dir);
}

TestSuite(hardening, .init = setup, .fini = teardown);

static void expect_detail(const char *what)
{
	cr_expect(strstr(sb_error_detail(), what), "'%s' not in '%s'", what, sb_error_detail());
}

static int read_sbt(struct sbtest_buf *b, const char *name, size_t *n)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	sbtest_write(path, b->p, b->n);
	free(b->p);
	memset(b, 0, sizeof(*b));
	return sbtest_read_status(SB_TRACE_SBT, path, NULL, n);
}

Test(hardening, sbt_times_that_wrap_around_are_an_error)
{
	struct sbtest_buf b = {0};
	/* INT64_MAX, then a delta of +1: the sum wraps to INT64_MIN */
	const int64_t wrap[] = {INT64_MAX, INT64_MIN};
	const int64_t far[] = {-(INT64_C(1) << 62), (INT64_C(1) << 62) - 1};
	const uint8_t sp[] = {0, 0};
	size_t n;

	sbtest_sbt_header(&b, 1e9, 1);
	sbtest_sbt_times(&b, wrap, sp, 2);
	sbtest_sbt_end(&b, 2);
	cr_expect_eq(read_sbt(&b, "wrap.sbt", &n), SB_ERR_PARSE);
	expect_detail("wrap.sbt' at byte 128: block 0: record 0: time 9223372036854775807 is out "
	              "of range");
	/* the bounds themselves are fine */
	sbtest_sbt_header(&b, 1e9, 1);
	sbtest_sbt_times(&b, (const int64_t[]){-(INT64_C(1) << 62) + 1, (INT64_C(1) << 62) - 1}, sp,
	                 2);
	sbtest_sbt_end(&b, 2);
	cr_expect_eq(read_sbt(&b, "bounds.sbt", &n), 0, "%s", sb_error_detail());
	cr_expect_eq(n, 2);
	sbtest_sbt_header(&b, 1e9, 1);
	sbtest_sbt_times(&b, far, sp, 2);
	sbtest_sbt_end(&b, 2);
	cr_expect_eq(read_sbt(&b, "far.sbt", &n), SB_ERR_PARSE);
	expect_detail("record 0: time -4611686018427387904 is out of range");
}

Test(hardening, sbt_times_going_back_within_a_subpartition_are_an_error)
{
	struct sbtest_buf b = {0};
	size_t n;

	/* back in time in another subpartition is fine: each subpartition is in order */
	sbtest_sbt_header(&b, 1e9, 2);
	sbtest_sbt_times(&b, (const int64_t[]){5, 3, 6}, (const uint8_t[]){0, 1, 0}, 3);
	sbtest_sbt_end(&b, 3);
	cr_expect_eq(read_sbt(&b, "ok.sbt", &n), 0, "%s", sb_error_detail());
	cr_expect_eq(n, 3);
	sbtest_sbt_header(&b, 1e9, 2);
	sbtest_sbt_times(&b, (const int64_t[]){5, 3, 4}, (const uint8_t[]){0, 1, 0}, 3);
	sbtest_sbt_end(&b, 3);
	cr_expect_eq(read_sbt(&b, "back.sbt", &n), SB_ERR_PARSE);
	expect_detail("block 0: record 2: time 4 comes after 5 in subpartition 's0'");
	/* across blocks */
	sbtest_sbt_header(&b, 1e9, 2);
	sbtest_sbt_times(&b, (const int64_t[]){10, 12}, (const uint8_t[]){1, 0}, 2);
	sbtest_sbt_times(&b, (const int64_t[]){12, 9}, (const uint8_t[]){0, 1}, 2);
	sbtest_sbt_end(&b, 4);
	cr_expect_eq(read_sbt(&b, "blocks.sbt", &n), SB_ERR_PARSE);
	expect_detail("block 1: record 1: time 9 comes after 10 in subpartition 's1'");
}

Test(hardening, sbt_writer_refuses_records_going_back_in_time)
{
	struct sb_trace_info info;
	struct sb_trace_writer *w;
	struct sb_trace_record r[3] = {
	    {.time = 7, .subpart = 0}, {.time = 2, .subpart = 1}, {.time = 6, .subpart = 0}};
	char path[128];

	snprintf(path, sizeof(path), "%s/w.sbt", dir);
	sb_trace_info_init(&info, "test", 1e9, "cycle");
	cr_assert_geq(sb_trace_info_subpart(&info, "a", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
	cr_assert_geq(sb_trace_info_subpart(&info, "b", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
	for (int f = 0; f < 2; f++) {
		enum sb_trace_format fmt = f ? SB_TRACE_CSV : SB_TRACE_SBT;

		cr_assert_eq(sb_trace_writer_open(&w, fmt, path, &info), 0, "%s",
		             sb_error_detail());
		cr_expect_eq(sb_trace_write(w, &info, r, 2), 0, "%s", sb_error_detail());
		cr_expect_eq(sb_trace_write(w, &info, r + 2, 1), SB_ERR_INVAL);
		expect_detail("time 6 comes after 7 in subpartition 'a'");
		sb_trace_writer_abort(w);
		/* and times out of range */
		cr_assert_eq(sb_trace_writer_open(&w, fmt, path, &info), 0);
		cr_expect_eq(
		    sb_trace_write(w, &info, &(struct sb_trace_record){.time = INT64_MIN}, 1),
		    SB_ERR_INVAL);
		expect_detail("time -9223372036854775808 is out of range");
		sb_trace_writer_abort(w);
	}
	cr_expect_eq(access(path, F_OK), -1, "an abandoned output leaves nothing");
}

Test(hardening, lifetimes_and_spans_cannot_overflow)
{
	struct sb_trace_info info;
	struct sb_lifetime *eng;
	struct sb_trace_record r[2] = {
	    {.time = INT64_MIN, .addr = 1, .size = 1, .kind = SB_ACC_WRITE},
	    {.time = INT64_MAX, .addr = 1, .size = 1, .kind = SB_ACC_READ}};
	char path[128];

	sb_trace_info_init(&info, "test", 1e9, "cycle");
	cr_assert_geq(sb_trace_info_subpart(&info, "m", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
	cr_assert_eq(sb_lifetime_new(&eng, SB_POLICY_WRITE_ALLOCATE), 0);
	cr_expect_eq(sb_lifetime_feed(eng, &info, r, 2), SB_ERR_RANGE);
	expect_detail("subpartition 'm': time -9223372036854775808 is out of range");
	sb_lifetime_free(eng);
	/* the same through the CSV importer: refused with the file and line */
	snprintf(path, sizeof(path), "%s/far.csv", dir);
	sbtest_write_text(path, "time,addr,kind\n-9223372036854775808,1,write\n"
	                        "9223372036854775807,1,read\n");
	cr_expect_eq(sbtest_read_status(SB_TRACE_CSV, path, NULL, NULL), SB_ERR_PARSE);
	expect_detail("far.csv' line 2: column 'time': time -9223372036854775808 is out of range");
	sbtest_write_text(path, "time_ns,addr,kind\n0,1,write\n9000000000000000,1,read\n");
	cr_expect_eq(sbtest_read_status(SB_TRACE_CSV, path, NULL, NULL), SB_ERR_PARSE);
	expect_detail("far.csv' line 3: column 'time_ns'");
}

Test(hardening, clocks_out_of_range_are_refused)
{
	struct sb_trace_options opt = {.clock_hz = 1e-300};
	struct sbtest_buf b = {0};
	char path[128];
	size_t n;

	snprintf(path, sizeof(path), "%s/clk.csv", dir);
	sbtest_write_text(path, "#@ clock_hz=1e-300\ntime,addr,kind\n0,1,write\n");
	cr_expect_eq(sbtest_read_status(SB_TRACE_CSV, path, NULL, NULL), SB_ERR_PARSE);
	expect_detail("clk.csv' line 1: key 'clock_hz': 1e-300 Hz is out of range (1000 Hz .. "
	              "1e+13 Hz)");
	sbtest_write_text(path, "#@ clock_hz=2e9\ntime,addr,kind\n0,1,write\n");
	cr_expect_eq(sbtest_read_status(SB_TRACE_CSV, path, NULL, &n), 0, "%s", sb_error_detail());
	cr_expect_eq(sbtest_read_status(SB_TRACE_CSV, path, &opt, NULL), SB_ERR_INVAL);
	expect_detail("clock of 1e-300 Hz is out of range");
	sbtest_sbt_header(&b, 1e-300, 1);
	sbtest_sbt_end(&b, 0);
	cr_expect_eq(read_sbt(&b, "clk.sbt", &n), SB_ERR_PARSE);
	expect_detail("clk.sbt' at byte 16: clock 1e-300 Hz is out of range");
}

Test(hardening, random_bytes_are_not_an_empty_gpgpusim_log)
{
	char path[128];
	uint8_t *junk = malloc(1 << 20);
	uint64_t x = 0x2545f4914f6cdd1dull;

	cr_assert(junk);
	for (size_t i = 0; i < (1 << 20); i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		junk[i] = (uint8_t)x;
	}
	snprintf(path, sizeof(path), "%s/junk.log", dir);
	sbtest_write(path, junk, 1 << 20);
	free(junk);
	cr_expect_eq(sbtest_read_status(SB_TRACE_GPGPUSIM, path, NULL, NULL), SB_ERR_PARSE);
	expect_detail("junk.log' line 2: a NUL byte: not a text file");
	/* text without a single access line */
	sbtest_write_text(path, "GPGPU-Sim uArch: performance model\n-kernel name = k\n");
	cr_expect_eq(sbtest_read_status(SB_TRACE_GPGPUSIM, path, NULL, NULL), SB_ERR_PARSE);
	expect_detail("junk.log' holds no GPGPU-Sim cache access line (2 lines read;");
	sbtest_write_text(path, "");
	cr_expect_eq(sbtest_read_status(SB_TRACE_GPGPUSIM, path, NULL, NULL), SB_ERR_PARSE);
	expect_detail("junk.log' holds no GPGPU-Sim cache access line (0 lines read;");
}

Test(hardening, lines_are_bounded)
{
	char path[128];
	int fd;

	/* 40 MB without a newline (a sparse file of zeros, like /dev/zero) */
	snprintf(path, sizeof(path), "%s/long.csv", dir);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ftruncate(fd, 40 << 20), 0);
	close(fd);
	cr_expect_eq(sbtest_read_status(SB_TRACE_CSV, path, NULL, NULL), SB_ERR_PARSE);
	expect_detail("long.csv' line 1: longer than 16777216 bytes");
	cr_expect_eq(sbtest_read_status(SB_TRACE_GPGPUSIM, path, NULL, NULL), SB_ERR_PARSE);
	expect_detail("long.csv' line 1: longer than 16777216 bytes");
}
