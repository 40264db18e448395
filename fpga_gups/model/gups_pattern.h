/* SPDX-License-Identifier: MIT */
/*
 * The integrity data pattern of stream GUPS, bit-exact with fpga_gups/rtl/sb_pattern.sv: word w
 * (0..3) of the 16-byte beat stored at the 16-byte block `block` (byte address >> 4, 30 bits)
 * for a seed is xorshift32(seed ^ (block << 2 | w)) with the shifts 13, 17, 5.
 */
#ifndef SB_GUPS_PATTERN_H
#define SB_GUPS_PATTERN_H

#include <stdint.h>

static inline uint32_t sb_pattern_word(uint32_t seed, uint64_t block, unsigned w)
{
	uint32_t x = seed ^ (uint32_t)(((block & 0x3FFFFFFFu) << 2) | (w & 3u));

	x ^= x << 13;
	x ^= x >> 17;
	x ^= x << 5;
	return x;
}

#endif /* SB_GUPS_PATTERN_H */
