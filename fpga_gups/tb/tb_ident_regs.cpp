/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_ident_regs, built with a mix of identity parameters: some 0 (the map's reset
 * value is used) and some set (the parameter is used), PORTS = 5, HAS_DMA = 0.
 *   access   fw_id and board against the generated table: header words and NEXT, every value
 *            (map reset or parameter), the scratch register's storage with random byte
 *            strobes, read-only registers ignore writes, holes, a block's access does not
 *            reach the other block, deselected accesses ignored
 *   cycles   board.cycles counts every clock from reset, compared every cycle on the port
 *            and in random reads; reading the low word latches the high word (a later high
 *            read returns the latched value even after the counter moved, across a carry
 *            into bit 32)
 */
#include <memory>

#include "Vsb_ident_regs.h"
#include "tb_regs.h"

using namespace tb;

enum { FW_ID = 0, BOARD = 1 };

struct Bench : RegBusMaster {
	std::unique_ptr<Vsb_ident_regs> top;
	Rng rng;
	int blk = FW_ID;    /* the block reg_read / reg_write address */
	uint64_t count = 0; /* the model of board.cycles */

	explicit Bench(uint64_t seed) : top(new Vsb_ident_regs), rng(seed)
	{
	}

	uint32_t rd_data() const
	{
		return top->reg_rd_data;
	}

	void step()
	{
		top->reg_sel_fw_id = sel && blk == FW_ID;
		top->reg_sel_board = sel && blk == BOARD;
		drive_bus(*top);
		tick(*top);
		count = top->rst ? 0 : count + 1;
		TB_EQ(top->cycles, count, "cycles counts every clock");
		if (!(sel && rdn))
			TB_EQ(top->reg_rd_data, 0, "reg_rd_data is 0 without a read");
	}

	void reset()
	{
		bus(false, 0, false, false, 0, 0);
		drive_bus(*top);
		reset_for(*top, 3);
		count = 0;
		TB_EQ(top->cycles, 0, "cycles after reset");
	}
};

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	const struct sb_regmap_block *fw = find_block("fw_id"), *board = find_block("board");
	Bench b(seed);

	b.reset();
	BlockRules rf;
	rf.next = TB_FW_ID_NEXT;
	rf.reset["build_id"] = TB_BUILD_ID; /* set; fw_version stays the map's */
	BlockRules rb;
	rb.next = TB_BOARD_NEXT;
	rb.volatile_regs.insert("cycles");
	rb.reset["port_count"] = TB_PORTS;
	rb.reset["user_clock_hz"] = TB_USER_CLOCK_HZ;
	rb.reset["cube_config"] = TB_CUBE_CONFIG;
	rb.reset["serial"] = TB_SERIAL;
	rb.reset["features"] =
	    SB_BOARD_FEATURES_RESET & ~SB_BOARD_FEATURES_DMA_MASK; /* HAS_DMA 0 */
	b.blk = FW_ID;
	check_block_access(b, fw, rf, 2);
	check_deselected(b, fw, rf);
	b.blk = BOARD;
	check_block_access(b, board, rb, 2);
	check_deselected(b, board, rb);

	/* The scratch register of board is not reachable through fw_id's select. */
	b.blk = BOARD;
	reg_write(b, SB_BOARD_SCRATCH, 0x5A5A5A5A);
	b.blk = FW_ID;
	reg_write(b, SB_BOARD_SCRATCH, 0x12345678);
	TB_EQ(reg_read(b, SB_BOARD_SCRATCH), 0, "board offset read through fw_id");
	b.blk = BOARD;
	TB_EQ(reg_read(b, SB_BOARD_SCRATCH), 0x5A5A5A5A, "scratch unchanged by a fw_id write");

	/* cycles: the value at the read, low word latches the high word. */
	for (int i = 0; i < 200; i++) {
		bus_idle(b, b.rng.range(0, 20));
		b.bus(true, SB_BOARD_CYCLES, false, true, 0, 0);
		uint64_t at = b.count; /* value before the edge that reads */
		b.step();
		b.bus(false, 0, false, false, 0, 0);
		TB_EQ(b.top->reg_rd_data, (uint32_t)at, "cycles low word = count at the read");
		bus_idle(b, b.rng.range(0, 20));
		TB_EQ(reg_read(b, SB_BOARD_CYCLES + 4), (uint32_t)(at >> 32), "latched high word");
	}
	/* Across a carry into bit 32 (the counter is the port register; preset it). */
	b.top->cycles = 0x1FFFFFFF0ull;
	b.count = 0x1FFFFFFF0ull;
	b.bus(true, SB_BOARD_CYCLES, false, true, 0, 0);
	b.step();
	TB_EQ(b.top->reg_rd_data, 0xFFFFFFF0u, "low word before the carry");
	b.bus(false, 0, false, false, 0, 0);
	bus_idle(b, 40);
	TB_EQ(b.top->cycles, 0x200000019ull, "carry into bit 32");
	TB_EQ(reg_read(b, SB_BOARD_CYCLES + 4), 1, "high word latched before the carry");
	TB_EQ(reg_read(b, SB_BOARD_CYCLES + 4), 1, "still the latched word");
	uint32_t lo = reg_read(b, SB_BOARD_CYCLES);
	TB_CHECK(lo < 0x100, "low word after the carry: 0x%x", lo);
	TB_EQ(reg_read(b, SB_BOARD_CYCLES + 4), 2, "high word after the carry");
	b.top->rst = 1;
	b.step(); /* checks cycles == 0 */
	b.top->rst = 0;
	TB_EQ(reg_read(b, SB_BOARD_SCRATCH), 0, "reset clears scratch");
	return finish("tb_ident_regs");
}
