/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: sbt data blocks inside a valid container. Input: u32 records (taken modulo 4096,
 * plus 1), u32 field set, u8 subpartitions (modulo 8, plus 1), u8 flags, then the raw columns of
 * one block (uncompressed: the harness compresses them, so the fuzzer mutates the columns
 * themselves, not a zstd frame). The container: the header, a subpartition chunk, the block (a
 * second copy of it when flags bit 0 is set, to cross a block boundary), a capture chunk made
 * of the first raw bytes when bit 1 is set, an attribute when bit 2 is set, and the end chunk
 * with the right total. The review's block-level harness found the wrap-around of sbt times
 * within 20 k executions.
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "fuzz_common.h"

struct buf {
	uint8_t *p;
	size_t n, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
	if (b->n + n > b->cap) {
		b->cap = (b->n + n) * 2 + 256;
		if (!(b->p = realloc(b->p, b->cap)))
			abort();
	}
	memcpy(b->p + b->n, p, n);
	b->n += n;
}

static void u32(struct buf *b, uint32_t v)
{
	uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};

	put(b, x, 4);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void chunk(struct buf *b, char type, const void *p, size_t n)
{
	const uint8_t hdr[4] = {(uint8_t)type, 0, 0, 0};

	put(b, hdr, 4);
	u32(b, (uint32_t)n);
	put(b, p, n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const double tick_hz = 1e9;
	struct buf b = {0};
	struct sb_trace_reader *r;
	uint32_t nrec, fields, nsp, copies;
	uint8_t flags, head[68] = "SBTRACE", sp[8 + 8 * 44] = {0}, *comp;
	const uint8_t *raw;
	size_t rawlen, clen, cap;
	uint64_t bits;

	sb_fuzz_quiet();
	if (size < 10)
		return 0;
	nrec = get32(data) % 4096 + 1;
	fields = get32(data + 4);
	nsp = data[8] % 8 + 1;
	flags = data[9];
	raw = data + 10;
	rawlen = size - 10;
	copies = flags & 1 ? 2 : 1;
	/* the header: sbt 1.1, 52 header bytes, clock, unit, source, field set */
	head[8] = 1;
	head[10] = 1;
	head[12] = 52;
	memcpy(&bits, &tick_hz, 8);
	for (int i = 0; i < 8; i++)
		head[16 + i] = (uint8_t)(bits >> (8 * i));
	memcpy(head + 24, "cycle", 5);
	memcpy(head + 32, "fuzz", 4);
	head[64] = (uint8_t)fields;
	put(&b, head, sizeof(head));
	sp[4] = (uint8_t)nsp;
	for (uint32_t i = 0; i < nsp; i++) {
		uint8_t *e = sp + 8 + 44 * i;

		e[0] = 'v';
		e[1] = (uint8_t)('0' + i);
		e[32] = (uint8_t)(i & 1); /* scratchpads and caches */
		e[33] = (uint8_t)(i == 1);
		e[36] = 1;
		e[40] = (uint8_t)(1u << (i % 4));
	}
	chunk(&b, 'S', sp, 8 + 44 * nsp);
	cap = 12 + ZSTD_compressBound(rawlen);
	if (!(comp = malloc(cap)))
		abort();
	clen = ZSTD_compress(comp + 12, cap - 12, raw, rawlen, 1);
	if (ZSTD_isError(clen))
		abort();
	memcpy(comp, (uint8_t[4]){(uint8_t)nrec, (uint8_t)(nrec >> 8), 0, 0}, 4);
	memcpy(comp + 4,
	       (uint8_t[4]){(uint8_t)rawlen, (uint8_t)(rawlen >> 8), (uint8_t)(rawlen >> 16),
	                    (uint8_t)(rawlen >> 24)},
	       4);
	memcpy(comp + 8,
	       (uint8_t[4]){(uint8_t)fields, (uint8_t)(fields >> 8), (uint8_t)(fields >> 16),
	                    (uint8_t)(fields >> 24)},
	       4);
	for (uint32_t c = 0; c < copies; c++)
		chunk(&b, 'D', comp, 12 + clen);
	free(comp);
	if ((flags & 2) && rawlen >= 76)
		chunk(&b, 'C', raw, 76);
	if (flags & 4)
		chunk(&b, 'A', "board\0fuzz", 10);
	{
		uint8_t total[8] = {0};
		uint64_t t = (uint64_t)nrec * copies;

		for (int i = 0; i < 8; i++)
			total[i] = (uint8_t)(t >> (8 * i));
		chunk(&b, 'E', total, 8);
	}
	if (sb_trace_open_mem(&r, SB_TRACE_SBT, "fuzz.sbt", b.p, b.n, NULL) == 0) {
		sb_fuzz_drain(r, 1);
		sb_trace_reader_free(r);
	}
	free(b.p);
	return 0;
}
