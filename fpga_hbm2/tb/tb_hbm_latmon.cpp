/* SPDX-License-Identifier: MIT */
/*
 * tb_hbm_latmon: the latency statistics (sb_hbm_latmon, HIST = 1) against a reference every
 * cycle: 200,000 cycles of random events (latencies 0..2^32-1 with most of them small, on and
 * around the bin edges and the class limits), histogram settings and class limits changed at
 * random, clears; sum, count, min, max, the 16 bins and the three classes.
 *   tb_hbm_latmon [--seed N]
 */
#include "Vsb_hbm_latmon.h"
#include "tb_common.h"

using namespace tb;

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	Vsb_hbm_latmon top;
	Rng rng(seed_arg(argc, argv, 1));
	uint64_t sum = 0, count = 0;
	uint32_t mn = 0xFFFFFFFFu, mx = 0, hist[16] = {0}, cls[3] = {0};

	top.clear = 0;
	top.valid = 0;
	reset_for(top, 3);
	for (int cyc = 0; cyc < 200000 && !g_fail; cyc++) {
		if (rng.chance(1)) {
			top.hist_base = rng.range(0, 100);
			top.hist_shift = rng.range(0, 15);
			top.hit_max = rng.range(0, 80);
			top.closed_max = rng.range(0, 120);
		}
		top.clear = rng.chance(1);
		top.valid = rng.chance(60);
		uint32_t lat = rng.chance(80) ? rng.range(0, 400) : (uint32_t)rng.u64();
		if (rng.chance(20)) /* on a bin edge or a class limit */
			lat =
			    rng.chance(50)
			        ? top.hist_base + (rng.range(0, 16) << top.hist_shift) -
			              rng.range(0, 1)
			        : (rng.chance(50) ? top.hit_max : top.closed_max) + rng.range(0, 1);
		top.lat = lat;
		if (top.valid) {
			uint32_t bin =
			    lat <= top.hist_base
			        ? 0
			        : std::min<uint32_t>(15, (lat - top.hist_base) >> top.hist_shift);

			sum += lat;
			count++;
			mn = std::min(mn, lat);
			mx = std::max(mx, lat);
			hist[bin]++;
			cls[lat <= top.hit_max ? 0 : lat <= top.closed_max ? 1 : 2]++;
		}
		if (top.clear) {
			sum = count = 0;
			mn = 0xFFFFFFFFu;
			mx = 0;
			memset(hist, 0, sizeof(hist));
			memset(cls, 0, sizeof(cls));
		}
		tick(top);
		TB_EQ(top.sum, sum, "sum");
		TB_EQ(top.count, count, "count");
		TB_EQ(top.min, mn, "min");
		TB_EQ(top.max, mx, "max");
		for (int i = 0; i < 16; i++)
			TB_EQ(top.hist[i], hist[i], "histogram bin");
		for (int i = 0; i < 3; i++)
			TB_EQ(top.cls[i], cls[i], "class");
	}
	return finish("tb_hbm_latmon");
}
