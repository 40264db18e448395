/* SPDX-License-Identifier: MIT */
/*
 * tb_hbm_card: the fw_id and hbm_card blocks (sb_hbm_card, N = 32, some identity parameters
 * set, some 0 = the map's values): register access rules of both from the generated table
 * (fw_id.regmap_size is the size of register space 'hbm2'); the two selects do not reach each
 * other's block; cycles every cycle, the low word latching the high one; the temperature pins
 * in hbm_temp; control.start / stop pulse exactly the ports of start_mask, once, one cycle
 * after the write, and nothing on writes with other byte strobes or to other registers.
 *   tb_hbm_card [--seed N]
 */
#include "Vsb_hbm_card.h"
#include "tb_regs.h"

using namespace tb;

struct Bench : RegBusMaster {
	Vsb_hbm_card top;
	Rng rng;
	bool fw = false; /* select fw_id instead of hbm_card */
	uint64_t cycle = 0, start_pulses = 0, stop_pulses = 0;
	uint32_t last_start = 0, last_stop = 0;

	explicit Bench(uint64_t seed) : rng(seed)
	{
	}
	void step()
	{
		drive_bus(top);
		top.reg_sel_fw_id = sel && fw;
		top.reg_sel_card = sel && !fw;
		tick(top);
		cycle++;
		if (top.start_ports) {
			start_pulses++;
			last_start = top.start_ports;
		}
		if (top.stop_ports) {
			stop_pulses++;
			last_stop = top.stop_ports;
		}
	}
	uint32_t rd_data() const
	{
		return top.reg_rd_data;
	}
};

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	Bench b(seed_arg(argc, argv, 1));
	BlockRules fw, card;

	b.top.hbm_temp0 = 47;
	b.top.hbm_temp1 = 52;
	b.top.hbm_cattrip = 2;
	reset_for(b.top, 3);
	fw.next = 0x100;
	fw.reset["build_id"] = 0x20260101;
	fw.reset["regmap_size"] = SB_REGSPACE_HBM2_SIZE;
	card.next = 0x1000;
	card.reset["board_id"] = 0x055C;
	card.reset["mc_config"] = 0x163;
	card.reset["hbm_temp"] = 47 | 52 << 8 | 2 << 16;
	card.volatile_regs.insert("cycles");
	card.avoid["control"] = 0xFFFFFFFFu; /* pulses: checked below */
	b.fw = true;
	check_block_access(b, find_block("fw_id"), fw, 2);
	b.fw = false;
	check_block_access(b, find_block("hbm_card"), card, 3);
	check_deselected(b, find_block("hbm_card"), card);
	b.fw = true;
	check_deselected(b, find_block("fw_id"), fw);
	b.fw = false;

	/* cycles: one per clock; the low word latches the high word */
	uint32_t lo0 = reg_read(b, SB_HBM_CARD_CYCLES_LO);
	uint64_t c0 = b.cycle;
	uint32_t lo1 = reg_read(b, SB_HBM_CARD_CYCLES_LO);
	TB_EQ(lo1 - lo0, b.cycle - c0, "cycles advance one per clock");
	TB_EQ(reg_read(b, SB_HBM_CARD_CYCLES_HI), 0, "cycles high word");

	/* start / stop pulses: the ports of start_mask, once */
	for (int k = 0; k < 200 && !g_fail; k++) {
		uint32_t mask = (uint32_t)b.rng.u64(), strb = rand_strb(b.rng);
		bool start = b.rng.chance(50);
		uint64_t s0 = b.start_pulses, p0 = b.stop_pulses;

		reg_write(b, SB_HBM_CARD_START_MASK, mask);
		if (b.rng.chance(20)) { /* a write elsewhere pulses nothing */
			reg_write(b, SB_HBM_CARD_SCRATCH, 3);
			strb = 0;
		}
		reg_write(b, SB_HBM_CARD_CONTROL,
		          start ? SB_HBM_CARD_CONTROL_START_MASK : SB_HBM_CARD_CONTROL_STOP_MASK,
		          strb);
		bus_idle(b, 3);
		bool fired = (strb & 1) && mask;
		TB_EQ(b.start_pulses - s0, fired && start ? 1 : 0, "start pulses");
		TB_EQ(b.stop_pulses - p0, fired && !start ? 1 : 0, "stop pulses");
		if (fired)
			TB_EQ(start ? b.last_start : b.last_stop, mask,
			      "pulsed ports = start_mask");
	}
	return finish("tb_hbm_card");
}
