/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_fifo (WIDTH = 12, DEPTH = 8): random pushes (s_valid) and pops (m_ready) in
 * phases that keep it mostly full, mostly empty or in between, with occasional clears and a
 * reset in the middle, against a queue model. Every cycle: s_ready == not full, m_valid == not
 * empty, m_data == the oldest entry (first word fall through), count == entries; every value
 * pushed comes out once, in order (nothing lost, nothing duplicated); a push into a full FIFO
 * is refused, also when a pop happens in the same cycle.
 */
#include <deque>
#include <memory>

#include "Vsb_fifo.h"
#include "tb_common.h"

using namespace tb;

static const unsigned DEPTH = 8, WIDTH = 12;

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	Rng rng(seed);
	std::unique_ptr<Vsb_fifo> top(new Vsb_fifo);
	std::deque<uint32_t> q;
	uint64_t pushed = 0, popped = 0, refused_full = 0, full_cycles = 0, empty_cycles = 0;
	uint64_t clears = 0;
	uint32_t next = 0; /* pushed values: a sequence, so loss or duplication shows */

	top->clear = 0;
	top->s_valid = 0;
	top->m_ready = 0;
	reset_for(*top, 2);

	for (int phase = 0; phase < 60; phase++) {
		unsigned push_pct = rng.range(0, 100), pop_pct = rng.range(0, 100);
		for (int c = 0; c < 400; c++) {
			bool clear = rng.chance(1) && rng.chance(20);
			bool rst = phase == 30 && c == 0;
			uint32_t v = next & ((1u << WIDTH) - 1);
			top->s_valid = rng.chance(push_pct);
			top->s_data = top->s_valid ? v : (uint32_t)rng.u64() & 0xFFF;
			top->m_ready = rng.chance(pop_pct);
			top->clear = clear;
			top->rst = rst;
			top->clk = 0;
			top->eval();
			TB_EQ(top->s_ready, q.size() < DEPTH, "s_ready == not full");
			TB_EQ(top->m_valid, !q.empty(), "m_valid == not empty");
			TB_EQ(top->count, q.size(), "count");
			if (!q.empty())
				TB_EQ(top->m_data, q.front(), "m_data == oldest entry");
			full_cycles += q.size() == DEPTH;
			empty_cycles += q.empty();
			bool push = top->s_valid && top->s_ready;
			bool pop = top->m_valid && top->m_ready;
			if (top->s_valid && !top->s_ready)
				refused_full++;
			top->clk = 1;
			top->eval();
			if (pop) {
				q.pop_front();
				popped++;
			}
			if (push) {
				q.push_back(v);
				pushed++;
				next++;
			}
			if (clear || rst) {
				q.clear();
				clears++;
			}
			top->clear = 0;
			top->rst = 0;
		}
	}
	/* Drain: every remaining value comes out in order. */
	top->s_valid = 0;
	top->m_ready = 1;
	while (!q.empty()) {
		top->clk = 0;
		top->eval();
		TB_EQ(top->m_valid, 1, "drain: m_valid");
		TB_EQ(top->m_data, q.front(), "drain: order");
		top->clk = 1;
		top->eval();
		q.pop_front();
		popped++;
	}
	top->clk = 0;
	top->eval();
	TB_EQ(top->m_valid, 0, "empty after draining");
	TB_EQ(top->count, 0, "count 0 after draining");
	printf("fifo: %" PRIu64 " pushed, %" PRIu64 " popped, %" PRIu64
	       " refused when full, %" PRIu64 " full / %" PRIu64 " empty cycles, %" PRIu64
	       " clears\n",
	       pushed, popped, refused_full, full_cycles, empty_cycles, clears);
	TB_CHECK(full_cycles > 500 && empty_cycles > 500 && refused_full > 100 && clears > 0,
	         "the phases reached full, empty and clear");
	return finish("tb_fifo");
}
