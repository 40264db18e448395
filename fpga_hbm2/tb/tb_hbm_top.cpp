/* SPDX-License-Identifier: MIT */
/*
 * tb_hbm_top: the HBM2 engine's top (sb_hbm_top, N = TB_N engines) through its AXI4-Lite slave:
 *   - the self-describing block list the host walks: fw_id at 0 with the magic, the register
 *     map's hash and the size of register space 'hbm2', then hbm_card, trace, hbm_replay, then
 *     hbm_port 0..N-1,
 *     NEXT ending at 0; each port's info.index; hbm_card.engine (kind, ports, stacks);
 *     hbm_temp from the controller pins; holes read 0, reads beyond the space 0xFFFFFFFF;
 *   - every port programmed at random (own address region), started together through
 *     hbm_card.start_mask / control.start: each port's bursts follow the shared definition,
 *     its counters what its slave saw, its write data the pattern;
 *   - a subset started through start_mask, stopped through control.stop.
 *   tb_hbm_top [--seed N]
 */
#include "hbm_top_bench.h"

using namespace tb;

static void run_all(TopBench &b, const std::vector<PortCfg> &cfg, uint32_t mask, unsigned round)
{
	size_t from[TB_N];
	char who[64];
	uint64_t limit = 2000000;

	for (unsigned p = 0; p < TB_N; p++) {
		from[p] = b.slaves[p].log.size();
		if (!(mask >> p & 1))
			continue;
		program_port([&](uint32_t o, uint32_t v) { b.write(port_base(p) + o, v); }, cfg[p]);
		/* op, mode and check stored; the card's start sets enable and starts */
		b.write(port_base(p) + SB_HBM_PORT_CONTROL,
		        start_word(cfg[p]) &
		            ~(SB_HBM_PORT_CONTROL_START_MASK | SB_HBM_PORT_CONTROL_ENABLE_MASK));
	}
	b.write(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_START_MASK, mask);
	b.write(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CONTROL,
	        SB_HBM_CARD_CONTROL_START_MASK);
	for (;;) {
		bool all = true;

		b.idle(200);
		for (unsigned p = 0; p < TB_N && all; p++)
			if (mask >> p & 1)
				all = SB_FIELD_GET(SB_HBM_PORT_STATUS_DONE,
				                   b.read(port_base(p) + SB_HBM_PORT_STATUS));
		if (all)
			break;
		if (b.cyc > limit) {
			fail("round %u: ports not done after %" PRIu64 " cycles", round, b.cyc);
			return;
		}
	}
	for (unsigned p = 0; p < TB_N && !g_fail; p++) {
		snprintf(who, sizeof(who), "round %u port %u", round, p);
		if (!(mask >> p & 1)) {
			TB_EQ(b.slaves[p].log.size(), from[p], "a port outside start_mask issued");
			continue;
		}
		std::vector<bool> last = check_sequence(b.slaves[p].log, from[p], cfg[p], who);
		TB_EQ(b.slaves[p].log.size() - from[p], last.size(), who);
		check_counters([&](uint32_t o) { return b.read(port_base(p) + o); },
		               expect(b.slaves[p].log, from[p], last, cfg[p]), who);
		check_written(b.mem, b.slaves[p].log, from[p], cfg[p].c.seed, who);
	}
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	TopBench b(seed_arg(argc, argv, 1));
	uint32_t off = 0, v;
	unsigned nblocks = 0;

	b.reset();
	/* the walk */
	TB_EQ(b.read(SB_BLK_TYPE), SB_BLK_FW_ID_TYPE, "fw_id at 0");
	TB_EQ(b.read(SB_FW_ID_MAGIC), SB_REGMAP_MAGIC, "magic");
	TB_EQ(b.read(SB_FW_ID_REGMAP_HASH), SB_REGMAP_HASH, "register-map hash");
	TB_EQ(b.read(SB_FW_ID_REGMAP_SIZE), SB_REGSPACE_HBM2_SIZE, "regmap_size");
	for (;;) {
		uint32_t type = b.read(off + SB_BLK_TYPE), next = b.read(off + SB_BLK_NEXT);

		if (nblocks == 0)
			TB_EQ(type, SB_BLK_FW_ID_TYPE, "block 0");
		else if (nblocks == 1)
			TB_EQ(type, SB_BLK_HBM_CARD_TYPE, "block 1 (hbm_card)");
		else if (nblocks == 2) {
			TB_EQ(type, SB_BLK_TRACE_TYPE, "block 2 (trace)");
			TB_EQ(off, SB_REGSPACE_HBM2_TRACE_OFFSET, "trace offset");
		} else if (nblocks == 3) {
			TB_EQ(type, SB_BLK_HBM_REPLAY_TYPE, "block 3 (hbm_replay)");
			TB_EQ(off, SB_REGSPACE_HBM2_HBM_REPLAY_OFFSET, "hbm_replay offset");
		} else {
			TB_EQ(type, SB_BLK_HBM_PORT_TYPE, "an hbm_port block");
			TB_EQ(off, port_base(nblocks - 4), "hbm_port offset");
			TB_EQ(SB_FIELD_GET(SB_HBM_PORT_INFO_INDEX, b.read(off + SB_HBM_PORT_INFO)),
			      nblocks - 4, "info.index");
		}
		TB_EQ(b.read(off + SB_BLK_VERSION) >> 16, 1, "block major version");
		nblocks++;
		if (!next || nblocks > 40)
			break;
		off = next;
	}
	TB_EQ(nblocks, TB_N + 4, "blocks in the walk");
	v = b.read(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_ENGINE);
	TB_EQ(SB_FIELD_GET(SB_HBM_CARD_ENGINE_KIND, v), SB_HBM_CARD_ENGINE_KIND_HBM2_AXI, "engine");
	TB_EQ(SB_FIELD_GET(SB_HBM_CARD_ENGINE_PORTS, v), TB_N, "engine.ports");
	TB_EQ(SB_FIELD_GET(SB_HBM_CARD_ENGINE_STACKS, v), 2, "engine.stacks");
	v = b.read(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_HBM_TEMP);
	TB_EQ(v, 41 | 44 << 8, "hbm_temp");
	TB_EQ(b.read(0x200), 0, "hole after hbm_card");
	TB_EQ(b.read(SB_REGSPACE_HBM2_TRACE_OFFSET + SB_BLK_TRACE_SIZE), 0, "hole after trace");
	TB_EQ(b.read(SB_REGSPACE_HBM2_HBM_REPLAY_OFFSET + SB_BLK_HBM_REPLAY_SIZE), 0,
	      "hole after hbm_replay");
	TB_EQ(b.read(port_base(TB_N)), 0, "after the last port");
	TB_EQ(b.read(SB_REGSPACE_HBM2_SIZE), 0xFFFFFFFFu, "beyond the register space");
	TB_EQ(b.read(SB_REGSPACE_HBM2_SIZE + 0x100), 0xFFFFFFFFu, "beyond the register space");

	/* traffic: every port, then subsets */
	for (unsigned round = 0; round < 4 && !g_fail; round++) {
		std::vector<PortCfg> cfg;
		uint32_t mask =
		    round == 0 ? (1u << TB_N) - 1 : (uint32_t)b.rng.u64() & ((1u << TB_N) - 1);

		b.acfg.ar_ready_pct = b.rng.range(30, 100);
		b.acfg.aw_ready_pct = b.rng.range(30, 100);
		b.acfg.w_ready_pct = b.rng.range(30, 100);
		b.acfg.lat_max = b.rng.range(5, 120);
		b.acfg.err_pct = round == 2 ? 5 : 0;
		b.acfg.corrupt_pct = round == 3 ? 3 : 0;
		for (auto &s : b.slaves)
			s.configure(b.acfg);
		b.mem.blocks.clear();
		for (unsigned p = 0; p < TB_N; p++) {
			cfg.push_back(
			    random_cfg(b.rng, (uint64_t)p << 28, 1ull << 27, b.rng.range(5, 60)));
			cfg[p].c.ws_size &= (1ull << 26) - 1; /* stay in the port's own region */
			cfg[p].c.seed = 0x1000u + p; /* reads check against their own pattern */
		}
		b.mem.fill_seed = 0;
		/* each port checks reads of its region: blocks there hold its pattern */
		for (unsigned p = 0; p < TB_N; p++)
			cfg[p].check = false;
		run_all(b, cfg, mask, round);
	}
	/* control.stop: the ports of start_mask stop issuing */
	if (!g_fail) {
		std::vector<PortCfg> cfg;
		size_t n[TB_N];

		for (unsigned p = 0; p < TB_N; p++) {
			cfg.push_back(random_cfg(b.rng, (uint64_t)p << 28, 1ull << 27, 0));
			program_port(
			    [&](uint32_t o, uint32_t v2) { b.write(port_base(p) + o, v2); },
			    cfg[p]);
			b.write(port_base(p) + SB_HBM_PORT_CONTROL, start_word(cfg[p]));
		}
		b.idle(500);
		b.write(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_START_MASK,
		        (1u << TB_N) - 1);
		b.write(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CONTROL,
		        SB_HBM_CARD_CONTROL_STOP_MASK);
		b.idle(3000);
		for (unsigned p = 0; p < TB_N; p++)
			n[p] = b.slaves[p].log.size();
		b.idle(1000);
		for (unsigned p = 0; p < TB_N; p++) {
			TB_EQ(b.slaves[p].log.size(), n[p], "no burst after control.stop");
			TB_CHECK(SB_FIELD_GET(SB_HBM_PORT_STATUS_IDLE,
			                      b.read(port_base(p) + SB_HBM_PORT_STATUS)),
			         "port %u idle after stop", p);
		}
	}
	return finish("tb_hbm_top");
}
