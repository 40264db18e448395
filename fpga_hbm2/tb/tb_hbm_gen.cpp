/* SPDX-License-Identifier: MIT */
/*
 * tb_hbm_gen: the burst generator (sb_hbm_gen) bit-exact with the shared definition
 * (hbm_traffic.h) over 400 random configurations (every op, linear and random, transaction
 * sizes 0..5000 bytes, strides 0..2^20, working sets 0..2^35 and powers of two, start addresses
 * up to the top of the 34-bit space, 0..70 outstanding IDs, mixes 0..300, seed 0) with random
 * back-pressure: every burst's address, beats, direction, ID and last flag; `more` falls when
 * run_len transactions were produced and never earlier; the output holds while not taken.
 *   tb_hbm_gen [--seed N]
 */
#include "Vsb_hbm_gen.h"
#include "hbm_traffic.h"
#include "tb_common.h"

using namespace tb;

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	Vsb_hbm_gen top;
	Rng rng(seed_arg(argc, argv, 1));
	uint64_t total = 0;

	reset_for(top, 3);
	for (unsigned k = 0; k < 400 && !g_fail; k++) {
		struct sb_hbm_cfg c = {};
		struct sb_hbm_gen g;
		unsigned n = 0, stall = 0, held = 0;
		uint64_t prev_addr = 0;
		bool prev_valid = false;

		c.op = (uint8_t)rng.range(0, 3);
		c.random = rng.chance(50);
		c.burst_bytes = rng.chance(30) ? 32u << rng.range(0, 7) : rng.range(0, 5000);
		c.outstanding = rng.range(0, 70);
		c.stride = rng.chance(50) ? rng.range(0, 1 << 20) : c.burst_bytes;
		c.mix_writes = rng.range(0, 300);
		c.seed = rng.chance(10) ? 0 : (uint32_t)rng.u64();
		c.start_addr = rng.u64() & SB_HBM_ADDR_MASK;
		if (rng.chance(10))
			c.start_addr = SB_HBM_ADDR_MASK - rng.range(0, 8192);
		c.ws_size = rng.chance(40) ? 1ull << rng.range(0, 34) : rng.u64() & SB_HBM_WS_MASK;
		if (rng.chance(5))
			c.ws_size = 0;
		c.run_len = rng.range(1, 300);
		sb_hbm_gen_start(&g, &c);
		top.cfg_start = c.start_addr;
		top.cfg_ws = c.ws_size;
		top.cfg_run_len = c.run_len;
		top.cfg_burst = c.burst_bytes;
		top.cfg_outst = c.outstanding;
		top.cfg_stride = c.stride;
		top.cfg_mix = c.mix_writes;
		top.cfg_seed = c.seed;
		top.cfg_op = c.op;
		top.cfg_random = c.random;
		top.start = 1;
		top.o_ready = 0;
		tick(top);
		top.start = 0;
		/* the configuration inputs change: what start latched must stay */
		top.cfg_burst = (uint32_t)rng.u64();
		top.cfg_start = rng.u64();
		while (!g_fail) {
			top.o_ready = rng.chance(60);
			top.clk = 0;
			top.eval();
			if (prev_valid && top.o_valid) {
				if (top.o_addr != prev_addr && held)
					fail("config %u: output changed while not taken", k);
			}
			if (top.o_valid && top.o_ready) {
				struct sb_hbm_burst b;

				if (!sb_hbm_gen_more(&g)) {
					fail("config %u: burst %u beyond run_len", k, n);
					break;
				}
				sb_hbm_gen_next(&g, &b);
				if (top.o_addr != b.addr || top.o_beats != b.beats ||
				    top.o_write != b.write || top.o_id != b.id ||
				    top.o_last != b.last)
					fail("config %u (op %u%s burst %u outst %u stride %u ws "
					     "0x%" PRIx64 "): burst %u RTL addr 0x%" PRIx64
					     " beats %u w %u id %u last %u, "
					     "C addr 0x%" PRIx64 " beats %u w %u id %u last %u",
					     k, c.op, c.random ? " random" : "", c.burst_bytes,
					     c.outstanding, c.stride, c.ws_size, n,
					     (uint64_t)top.o_addr, top.o_beats, top.o_write,
					     top.o_id, top.o_last, b.addr, b.beats, b.write, b.id,
					     b.last);
				n++;
				held = 0;
			} else if (top.o_valid) {
				held++;
			}
			prev_valid = top.o_valid;
			prev_addr = top.o_addr;
			top.clk = 1;
			top.eval();
			if (!top.o_valid && !top.more) {
				if (sb_hbm_gen_more(&g))
					fail("config %u: more fell after %u bursts, C has more", k,
					     n);
				break;
			}
			if (++stall > 100000) {
				fail("config %u: stuck after %u bursts", k, n);
				break;
			}
		}
		total += n;
	}
	printf("tb_hbm_gen: %" PRIu64 " bursts compared\n", total);
	return finish("tb_hbm_gen");
}
