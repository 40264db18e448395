/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer: partial results of sharded analyses (docs/partials.md). Input: one selector byte
 * (bit 0: a locality partial, else a lifetimes one; bit 1: the bytes are a whole file, else
 * the body alone), then the bytes. A body is wrapped in a valid container (the header of its
 * kind, its lengths, a zstd frame made here), so the fuzzer mutates the binary layout itself,
 * not a compressed frame. Whatever parses is then merged as the merge would: a lifetimes
 * partial with itself (twice: every counter added, every histogram joined), a locality partial
 * absorbed and finished into a report's result.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "fuzz_common.h"
#include "stackbench/partial.h"

static const char *const header[2] = {
    "{\"schema\":\"stackbench-partial\",\"major\":1,\"minor\":0,\"analysis\":\"lifetimes\","
    "\"generator\":\"stackbench fuzz\",\"shard\":0,\"shards\":1,\"format\":\"sbt\","
    "\"inputs\":[\"t.sbt\"],\"trace\":{\"fingerprint\":\"0123456789abcdef0123456789abcdef\","
    "\"bytes\":1,\"records\":1},\"options\":{\"clock_hz\":0,\"word_bytes\":0,\"block_bytes\":0,"
    "\"policy\":\"write-allocate\"}}",
    "{\"schema\":\"stackbench-partial\",\"major\":1,\"minor\":0,\"analysis\":\"locality\","
    "\"generator\":\"stackbench fuzz\",\"shard\":0,\"shards\":1,\"format\":\"sbt\","
    "\"inputs\":[\"t.sbt\"],\"trace\":{\"fingerprint\":\"0123456789abcdef0123456789abcdef\","
    "\"bytes\":1,\"records\":1},\"options\":{\"clock_hz\":0,\"word_bytes\":0,\"block_bytes\":0,"
    "\"sorted\":false,\"locality_block_bytes\":64,\"leaves\":64,\"hot_share\":0.1,"
    "\"zoom_fanout\":16,\"zoom_floor_bytes\":64,\"max_regions\":256}}"};

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sb_partial p;
	const uint8_t *file = data + 1;
	uint8_t *made = NULL;
	size_t flen = size ? size - 1 : 0;
	int kind;

	sb_fuzz_quiet();
	if (size < 1)
		return 0;
	kind = data[0] & 1;
	if (!(data[0] & 2)) {
		const size_t hlen = strlen(header[kind]), bound = ZSTD_compressBound(flen);
		size_t z;

		if (!(made = malloc(32 + hlen + bound)))
			abort();
		z = ZSTD_compress(made + 32 + hlen, bound, data + 1, flen, 1);
		if (ZSTD_isError(z))
			abort();
		memcpy(made, "SBPART\r\n\1\0\0\0", 12);
		made[12] = (uint8_t)hlen;
		made[13] = (uint8_t)(hlen >> 8);
		made[14] = 0;
		made[15] = 0;
		memcpy(made + 16, header[kind], hlen);
		put64(made + 16 + hlen, flen);
		put64(made + 24 + hlen, z);
		file = made;
		flen = 32 + hlen + z;
	}
	if (sb_partial_parse("fuzz.part", file, flen, &p) == 0) {
		if (p.meta.kind == SB_PARTIAL_LIFETIMES) {
			struct sb_lifetime_result parts[2] = {p.lifetimes, p.lifetimes}, out;

			if (sb_lifetime_result_merge(&out, parts, 2) == 0)
				sb_lifetime_result_release(&out);
		} else {
			struct sb_locality_result res;

			if (sb_locality_merge(&p.meta.lopt, &p.info, &p.locality, 1,
			                      sb_locality_part_end(p.locality)->records, &res) == 0)
				sb_locality_result_release(&res);
		}
		sb_partial_release(&p);
	}
	free(made);
	return 0;
}
