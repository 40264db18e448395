/* SPDX-License-Identifier: MIT */
/*
 * The GUPS port address generator, bit-exact with the RTL (fpga_gups/rtl): the model, the RTL
 * testbenches' golden vectors and the host's pattern code all use this definition.
 *
 * Random mode: a 64-bit xorshift register (Marsaglia's xorshift64 with shifts 13, 7, 17; a
 * linear feedback shift register over GF(2), period 2^64 - 1). It steps once per iteration,
 * before use; a seed of 0 is replaced by 1. The generated address is the low 34 bits of the
 * new state.
 * Linear mode: the generated address is cur; then cur += step, and when cur > end it wraps to
 * start. cur is loaded with start when the port starts.
 * Both modes then clear the low bits so a request of F flits is aligned to its size rounded up
 * to a power of two (16, 32, 64 or 128 bytes), and the address sent is
 *     (generated & mask) | antimask       (all 34-bit).
 */
#ifndef SB_GUPS_ADDRGEN_H
#define SB_GUPS_ADDRGEN_H

#include <stdbool.h>
#include <stdint.h>

#define SB_ADDR_BITS 34
#define SB_ADDR_MASK ((1ull << SB_ADDR_BITS) - 1)

struct sb_addrgen {
	uint64_t state; /* random mode register */
	uint64_t cur;   /* linear mode position */
	uint64_t start, end;
	uint64_t step;
	uint64_t and_mask; /* mask & alignment & 34 bits */
	uint64_t antimask;
	bool linear;
};

/* One step of the random-mode register. */
static inline uint64_t sb_lfsr_step(uint64_t s)
{
	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

/* Alignment in bytes of a request of flits data flits (1..8): 16, 32, 64 or 128. */
static inline uint64_t sb_addrgen_align(unsigned flits)
{
	uint64_t a = 16;

	while (a < 16ull * flits)
		a <<= 1;
	return a;
}

static inline void sb_addrgen_init(struct sb_addrgen *g, bool linear, uint64_t seed, uint64_t start,
                                   uint64_t end, uint64_t step, uint64_t mask, uint64_t antimask,
                                   unsigned flits)
{
	g->linear = linear;
	g->state = seed ? seed : 1;
	g->start = start & SB_ADDR_MASK;
	g->end = end & SB_ADDR_MASK;
	g->step = step;
	g->cur = g->start;
	g->and_mask = mask & SB_ADDR_MASK & ~(sb_addrgen_align(flits) - 1);
	g->antimask = antimask & SB_ADDR_MASK;
}

/* The next address the port sends. */
static inline uint64_t sb_addrgen_next(struct sb_addrgen *g)
{
	uint64_t gen;

	if (g->linear) {
		gen = g->cur;
		g->cur += g->step;
		if (g->cur > g->end)
			g->cur = g->start;
	} else {
		g->state = sb_lfsr_step(g->state);
		gen = g->state;
	}
	return (gen & g->and_mask) | g->antimask;
}

#endif /* SB_GUPS_ADDRGEN_H */
