/* SPDX-License-Identifier: MIT */
/*
 * The board model's time base, shared by every memory family: time in ticks of 1/3 ps, so the
 * 187.5 MHz user clock (16000 ticks), link flits (3200 ticks at 15 Gb/s x 8 lanes) and DRAM
 * timings (0.8 ns = 2400 ticks) mix without drift, and division by a constant without a
 * divide instruction.
 */
#ifndef SB_MODEL_TIMEBASE_H
#define SB_MODEL_TIMEBASE_H

#include <stdint.h>

#define SB_TICKS_PER_PS 3ull
#define SB_TICK_NEVER UINT64_MAX

/* Internal to the model (not exported from libstackbench): direct calls, no PLT. */
#define SB_MODEL_INTERNAL __attribute__((visibility("hidden")))

static inline uint64_t sb_max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t sb_min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t sb_ceil_div(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static inline uint64_t sb_ns_ticks(double ns)
{
	return (uint64_t)(ns * 1000.0 * SB_TICKS_PER_PS + 0.5);
}

/*
 * Division by a constant without a divide instruction (Granlund-Montgomery): exact for
 * dividends below 2^60 ticks (4.4 days of simulated time).
 */
struct sb_divider {
	uint64_t d, m;
	unsigned shift;
};

static inline void sb_divider_init(struct sb_divider *v, uint64_t d)
{
	unsigned l = 0;

	while ((1ull << l) < d)
		l++;
	v->d = d;
	v->shift = 60 + l;
	v->m = (uint64_t)((((unsigned __int128)1 << v->shift) + d - 1) / d);
}

static inline uint64_t sb_div(const struct sb_divider *v, uint64_t x)
{
	return (uint64_t)(((unsigned __int128)x * v->m) >> v->shift);
}

static inline uint64_t sb_div_up(const struct sb_divider *v, uint64_t x)
{
	uint64_t q = sb_div(v, x);

	return q * v->d == x ? q : q + 1;
}

#endif /* SB_MODEL_TIMEBASE_H */
