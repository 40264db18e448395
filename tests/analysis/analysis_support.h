/* SPDX-License-Identifier: MIT */
/*
 * Helpers shared by the analysis tests: temporary folders, text files, reading a whole trace,
 * and sbt files made byte by byte (a valid container around whatever block a test needs), so
 * that tests can hand the reader what the writer would never produce.
 */
#ifndef SB_ANALYSIS_SUPPORT_H
#define SB_ANALYSIS_SUPPORT_H

#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "stackbench/error.h"
#include "stackbench/trace.h"

static inline void sbtest_mkdtemp(char *dir, size_t size)
{
	snprintf(dir, size, "/tmp/sb-analysis-XXXXXX");
	cr_assert(mkdtemp(dir));
}

static inline void sbtest_rmtree(const char *dir)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	cr_expect_eq(system(cmd), 0);
}

static inline void sbtest_write(const char *path, const void *data, size_t len)
{
	FILE *f = fopen(path, "wb");

	cr_assert(f, "cannot create %s", path);
	cr_assert_eq(fwrite(data, 1, len, f), len);
	cr_assert_eq(fclose(f), 0);
}

static inline void sbtest_write_text(const char *path, const char *text)
{
	sbtest_write(path, text, strlen(text));
}

/* Read everything: *n records (malloc'ed). Returns the reader's status (0 or an error). */
static inline int sbtest_read_all(struct sb_trace_reader *r, struct sb_trace_record **out,
                                  size_t *n)
{
	size_t cap = 1024;
	int k;

	*n = 0;
	*out = malloc(cap * sizeof(**out));
	cr_assert(*out);
	for (;;) {
		if (*n + 512 > cap) {
			cap *= 2;
			*out = realloc(*out, cap * sizeof(**out));
			cr_assert(*out);
		}
		k = sb_trace_read(r, *out + *n, 512);
		if (k <= 0)
			return k;
		*n += (size_t)k;
	}
}

/* Open path as fmt and read it all; the status of the first failure (or 0), records dropped. */
static inline int sbtest_read_status(enum sb_trace_format fmt, const char *path,
                                     const struct sb_trace_options *opt, size_t *n)
{
	struct sb_trace_reader *r;
	struct sb_trace_record *recs = NULL;
	size_t m = 0;
	int err = sb_trace_open(&r, fmt, path, opt);

	if (err == 0) {
		err = sbtest_read_all(r, &recs, &m);
		sb_trace_reader_free(r);
	}
	free(recs);
	if (n)
		*n = m;
	return err;
}

/* --- sbt made byte by byte ------------------------------------------------------------------ */

struct sbtest_buf {
	uint8_t *p;
	size_t n, cap;
};

static inline void sbtest_put(struct sbtest_buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		b->p = realloc(b->p, b->cap);
		cr_assert(b->p);
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static inline void sbtest_u32(struct sbtest_buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	sbtest_put(b, x, 4);
}

static inline void sbtest_u64(struct sbtest_buf *b, uint64_t v)
{
	sbtest_u32(b, (uint32_t)v);
	sbtest_u32(b, (uint32_t)(v >> 32));
}

static inline void sbtest_varint(struct sbtest_buf *b, uint64_t v)
{
	while (v >= 0x80) {
		uint8_t c = (uint8_t)(v | 0x80);

		sbtest_put(b, &c, 1);
		v >>= 7;
	}
	uint8_t c = (uint8_t)v;

	sbtest_put(b, &c, 1);
}

static inline uint64_t sbtest_zigzag(int64_t v)
{
	return ((uint64_t)v << 1) ^ (uint64_t)(v >> 63);
}

/* The sbt 1.1 header with tick_hz, then a subpartition chunk naming nsp scratchpads s0, s1... */
static inline void sbtest_sbt_header(struct sbtest_buf *b, double tick_hz, uint32_t nsp)
{
	uint8_t body[52] = {0};
	uint64_t bits;

	sbtest_put(b, "SBTRACE\0\x01\0\x01\0", 12);
	sbtest_u32(b, 52);
	memcpy(&bits, &tick_hz, 8);
	for (int i = 0; i < 8; i++)
		body[i] = (uint8_t)(bits >> (8 * i));
	memcpy(body + 8, "cycle", 5);
	memcpy(body + 16, "test", 4);
	sbtest_put(b, body, sizeof(body));
	sbtest_put(b, "S\0\0\0", 4);
	sbtest_u32(b, 8 + 44 * nsp);
	sbtest_u32(b, 0);
	sbtest_u32(b, nsp);
	for (uint32_t i = 0; i < nsp; i++) {
		uint8_t sp[44] = {0};

		snprintf((char *)sp, 32, "s%u", i);
		sp[36] = 1; /* addr_unit_bytes 1 */
		sp[40] = 1; /* block_bytes 1 */
		sbtest_put(b, sp, sizeof(sp));
	}
}

/* A data chunk of n records whose raw (uncompressed) columns are raw[0..len). */
static inline void sbtest_sbt_block(struct sbtest_buf *b, uint32_t n, uint32_t fields,
                                    const void *raw, size_t len)
{
	size_t cap = ZSTD_compressBound(len), clen;
	void *c = malloc(cap);

	cr_assert(c);
	clen = ZSTD_compress(c, cap, raw, len, 1);
	cr_assert(!ZSTD_isError(clen));
	sbtest_put(b, "D\0\0\0", 4);
	sbtest_u32(b, (uint32_t)(12 + clen));
	sbtest_u32(b, n);
	sbtest_u32(b, (uint32_t)len);
	sbtest_u32(b, fields);
	sbtest_put(b, c, clen);
	free(c);
}

/*
 * A block of records with the given times, all in subpartition sp[i], read accesses of one byte
 * at address i: the raw columns as the writer lays them out.
 */
static inline void sbtest_sbt_times(struct sbtest_buf *b, const int64_t *times, const uint8_t *sp,
                                    uint32_t n)
{
	struct sbtest_buf raw = {0};
	uint64_t prev = 0;

	for (uint32_t i = 0; i < n; i++) {
		sbtest_varint(&raw, sbtest_zigzag((int64_t)((uint64_t)times[i] - prev)));
		prev = (uint64_t)times[i];
	}
	sbtest_put(&raw, sp, n);
	for (uint32_t i = 0; i < n; i++)
		sbtest_put(&raw, "\0", 1); /* kind read, no status */
	for (uint32_t i = 0; i < n; i++)
		sbtest_varint(&raw, sbtest_zigzag(i ? 1 : 0)); /* addresses 0, 1, 2 per sp... */
	for (uint32_t i = 0; i < n; i++)
		sbtest_varint(&raw, 1);
	sbtest_sbt_block(b, n, 0, raw.p, raw.n);
	free(raw.p);
}

static inline void sbtest_sbt_end(struct sbtest_buf *b, uint64_t total)
{
	sbtest_put(b, "E\0\0\0", 4);
	sbtest_u32(b, 8);
	sbtest_u64(b, total);
}

/*
 * The description of the random test traces of test_locality.c and test_parallel.c: a
 * scratchpad buffer, a per-unit L1 cache and a vault; sampled: a capture of 200 bursts.
 */
static inline void sbtest_three_subparts(struct sb_trace_info *info, bool sampled)
{
	sb_trace_info_init(info, "test", 1e9, "cycle");
	cr_assert_eq(sb_trace_info_subpart(info, "buf", SB_SUBPART_SCRATCHPAD, 4, 4), 0);
	cr_assert_eq(sb_trace_info_subpart(info, "L1", SB_SUBPART_CACHE, 1, 32), 1);
	cr_assert_eq(sb_trace_info_subpart(info, "vault", SB_SUBPART_SCRATCHPAD, 1, 16), 2);
	info->subparts[1].per_unit = 1;
	info->fields = SB_FIELD_CACHE | SB_FIELD_UNIT | (sampled ? SB_FIELD_SAMPLE : 0);
	if (sampled)
		info->capture = (struct sb_trace_capture){.sampled = 1,
		                                          .burst_records = 100,
		                                          .gap_ticks = 1000,
		                                          .executed = 1000000,
		                                          .captured = 20000,
		                                          .bursts = 200};
}

#endif /* SB_ANALYSIS_SUPPORT_H */
