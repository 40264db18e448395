/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_gups_addrgen: replays the golden vectors of addrgen_golden (the C
 * definition) and checks every address, advancing with random idle cycles and reloading for
 * each configuration. Usage: tb_addrgen VECTORS [--seed N]
 */
#include <memory>

#include "Vsb_gups_addrgen.h"
#include "tb_common.h"

using namespace tb;

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	if (argc < 2) {
		fprintf(stderr, "usage: tb_addrgen VECTORS [--seed N]\n");
		return 2;
	}
	FILE *f = fopen(argv[1], "r");
	if (!f) {
		fprintf(stderr, "tb_addrgen: cannot open '%s'\n", argv[1]);
		return 2;
	}
	Rng rng(seed_arg(argc, argv, 1));
	std::unique_ptr<Vsb_gups_addrgen> t(new Vsb_gups_addrgen);
	auto step = [&]() {
		t->clk = 0;
		t->eval();
		t->clk = 1;
		t->eval();
		t->load = 0;
		t->advance = 0;
	};
	unsigned cfgs = 0, addrs = 0;
	int linear;
	uint64_t seed, start, end, stp, mask, anti;
	unsigned flits, count;
	while (fscanf(f, " cfg %d %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64 " %" SCNx64
	                 " %" SCNx64 " %u %u",
	              &linear, &seed, &start, &end, &stp, &mask, &anti, &flits, &count) == 9) {
		t->linear = linear;
		t->seed = seed;
		t->lin_start = start & 0x3FFFFFFFFull;
		t->lin_end = end & 0x3FFFFFFFFull;
		t->lin_step = (uint32_t)stp;
		t->mask = mask & 0x3FFFFFFFFull;
		t->antimask = anti & 0x3FFFFFFFFull;
		t->flits = flits;
		t->load = 1;
		step();
		/* The configuration inputs may change after the load. */
		t->lin_start = rng.u64();
		t->mask = rng.u64();
		for (unsigned i = 0; i < count; i++) {
			uint64_t expect;
			if (fscanf(f, " %" SCNx64, &expect) != 1) {
				fail("vector file truncated");
				return 1;
			}
			unsigned idle = rng.range(0, 2);
			while (idle--)
				step();
			t->eval();
			if (t->addr != expect) {
				fail("config %u (%s, seed 0x%" PRIx64 ", flits %u) address %u: 0x%" PRIx64
				     ", C definition 0x%" PRIx64,
				     cfgs, linear ? "linear" : "random", seed, flits, i,
				     (uint64_t)t->addr, expect);
				break;
			}
			t->advance = 1;
			step();
			addrs++;
		}
		cfgs++;
	}
	fclose(f);
	TB_CHECK(cfgs >= 70, "only %u configurations read", cfgs);
	printf("tb_addrgen: %u configurations, %u addresses\n", cfgs, addrs);
	return finish("tb_addrgen");
}
