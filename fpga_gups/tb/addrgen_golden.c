/* SPDX-License-Identifier: MIT */
/*
 * Golden vectors for the RTL address generator, produced at test time by the C definition
 * (fpga_gups/model/gups_addrgen.h). Prints configurations and the addresses the definition
 * generates for each:
 *     cfg LINEAR SEED START END STEP MASK ANTIMASK FLITS COUNT
 *     ADDR        (COUNT lines, hex)
 * Usage: addrgen_golden [SEED]
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "gups_addrgen.h"

static uint64_t rnd_state;

static uint64_t rnd(void)
{
	rnd_state = sb_lfsr_step(rnd_state);
	return rnd_state;
}

static void emit(int linear, uint64_t seed, uint64_t start, uint64_t end, uint64_t step,
                 uint64_t mask, uint64_t anti, unsigned flits, unsigned count)
{
	struct sb_addrgen g;

	printf("cfg %d %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64 " %" PRIx64
	       " %u %u\n",
	       linear, seed, start, end, step, mask, anti, flits, count);
	sb_addrgen_init(&g, linear, seed, start, end, step, mask, anti, flits);
	for (unsigned i = 0; i < count; i++)
		printf("%" PRIx64 "\n", sb_addrgen_next(&g));
}

int main(int argc, char **argv)
{
	rnd_state = argc > 1 ? strtoull(argv[1], NULL, 0) : 1;
	if (!rnd_state)
		rnd_state = 1;
	/* Fixed cases: seed 0, the map's reset seed, all sizes, wrap, start > end, full width. */
	emit(0, 0, 0, 0, 0, SB_ADDR_MASK, 0, 1, 300);
	emit(0, 0x5EED0001, 0, 0, 0, SB_ADDR_MASK, 0, 8, 300);
	for (unsigned f = 1; f <= 15; f++)
		emit(0, 0x1234567890ABCDEFull + f, 0, 0, 0, SB_ADDR_MASK, 0, f, 100);
	emit(1, 0, 0x1000, 0x1180, 0x80, SB_ADDR_MASK, 0, 8, 50);
	emit(1, 0, 0x3FFFFF000ull, 0x1000, 0x40, SB_ADDR_MASK, 0, 3, 50);
	emit(1, 0, 0x3FFFFFF00ull, SB_ADDR_MASK, 0xFFFFFFFFull, SB_ADDR_MASK, 0, 1, 20);
	emit(0, ~0ull, 0, 0, 0, ~0ull, ~0ull << 34, 2, 100);
	/* Random configurations. */
	for (int i = 0; i < 60; i++) {
		int linear = (int)(rnd() & 1);
		uint64_t start = rnd() & SB_ADDR_MASK, end = rnd() & SB_ADDR_MASK;
		uint64_t step = rnd() & (rnd() & 1 ? 0xFFFull : 0xFFFFFFFFull);
		uint64_t mask = rnd() | (rnd() & 1 ? ~0ull : 0), anti = rnd() & rnd() & rnd();

		if (linear && (rnd() & 1))
			end = start + (rnd() & 0xFFFFF);
		emit(linear, rnd(), start, end, step, mask, anti, (unsigned)(rnd() % 16), 200);
	}
	return 0;
}
