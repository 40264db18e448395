/* SPDX-License-Identifier: MIT */
/*
 * The integrity data pattern of stream GUPS, bit-exact with the RTL (fpga_gups/rtl/sb_pattern.sv):
 * what a write carries and what a read of the same memory is compared with. The model, the RTL
 * testbenches and host code use this one definition.
 *
 * The data of a 16-byte block depends only on the seed (stream.data_seed) and the block's
 * memory address, so a read of any size sees the data a write of any size left there. Word w
 * (0..3, little-endian within the 16 bytes) of the block at byte address a is
 *     x = seed ^ ((a >> 4) mod 2^30) << 2 | w;  x ^= x << 13;  x ^= x >> 17;  x ^= x << 5
 * (one xorshift32 step: a bijection, cheap in logic). Beat b of a request to address addr is
 * the block at addr + 16 * b.
 */
#ifndef SB_GUPS_PATTERN_H
#define SB_GUPS_PATTERN_H

#include <stdint.h>

/* Word w (0..3) of beat `beat` of a request to byte address addr. */
static inline uint32_t sb_pattern_word(uint32_t seed, uint64_t addr, unsigned beat, unsigned w)
{
	uint32_t block = (uint32_t)(((addr >> 4) + beat) & 0x3FFFFFFFu);
	uint32_t x = seed ^ (block << 2 | (w & 3u));

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

#endif /* SB_GUPS_PATTERN_H */
