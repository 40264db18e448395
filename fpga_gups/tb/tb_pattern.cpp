/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_pattern (pure logic): the 128-bit beat for random seeds and 16-byte block
 * numbers, and for the corner values (seed 0 / all ones, block 0 / the last block, every single
 * bit), bit-exact with the C definition fpga_gups/model/gups_pattern.h evaluated here at test
 * time: word w of beat b of a request to byte address a, block = (a >> 4) + b mod 2^30.
 */
#include <memory>

#include "Vsb_pattern.h"
#include "gups_pattern.h"
#include "tb_common.h"

using namespace tb;

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	Rng rng(seed);
	std::unique_ptr<Vsb_pattern> top(new Vsb_pattern);
	uint64_t n = 0;

	/* One request beat: the module sees the block number, the C definition the address. */
	auto check = [&](uint32_t s, uint64_t addr, unsigned beat) {
		uint32_t flit = (uint32_t)(((addr >> 4) + beat) & 0x3FFFFFFF);
		top->seed = s;
		top->flit = flit;
		top->eval();
		for (unsigned w = 0; w < 4; w++)
			if (top->data[w] != sb_pattern_word(s, addr, beat, w)) {
				fail("seed 0x%08x addr 0x%09" PRIx64
				     " beat %u word %u: 0x%08x, C gives 0x%08x",
				     s, addr, beat, w, top->data[w],
				     sb_pattern_word(s, addr, beat, w));
				return;
			}
		n++;
	};

	const uint32_t seeds[] = {0, 0xFFFFFFFF, 0x12345678, 1, 0x80000000};
	const uint64_t addrs[] = {0, 0x10, 0x3FFFFFFF0ull, 0x3FFFFFF80ull, 0x200000000ull};
	for (uint32_t s : seeds)
		for (uint64_t a : addrs)
			for (unsigned beat = 0; beat < 8; beat++)
				check(s, a, beat);
	for (unsigned bit = 0; bit < 32; bit++)
		check(1u << bit, 0, 0);
	for (unsigned bit = 4; bit < 34; bit++)
		check(0, 1ull << bit, 0);
	for (int i = 0; i < 200000; i++) {
		uint64_t a = rng.u64() & 0x3FFFFFFF0ull;
		check((uint32_t)rng.u64(), a, rng.range(0, 7));
	}
	/* Different seeds and blocks give different data (the pattern is not degenerate). */
	top->seed = 1;
	top->flit = 0;
	top->eval();
	uint32_t w0 = top->data[0];
	top->seed = 2;
	top->eval();
	TB_CHECK(top->data[0] != w0, "the seed changes the data");
	printf("pattern: %" PRIu64 " beats equal the C definition\n", n);
	return finish("tb_pattern");
}
