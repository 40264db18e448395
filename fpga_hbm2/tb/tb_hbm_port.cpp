/* SPDX-License-Identifier: MIT */
/*
 * tb_hbm_port: one HBM port engine (sb_hbm_port) against the AXI3 slave memory (random
 * back-pressure, latencies, out-of-order returns, injected SLVERR and corrupted read beats).
 *   - register access rules of block hbm_port from the generated table;
 *   - random configurations (read / write / mix, linear / random, 32 B..4 KB transactions and
 *     sizes that are not multiples of 32, strides, working sets, 0..70 outstanding IDs, seeds):
 *     every AR / AW equals the shared definition's burst sequence (direction, address, beats,
 *     ID) and obeys AXI3 (the slave checks); W data is the pattern; at the end every counter,
 *     the latency sum / count / min / max of reads and writes, the histogram and the classes
 *     equal what the slave saw; errors and mismatches count the injected faults; status done,
 *     idle; never more than `outstanding` bursts in flight;
 *   - enable cleared mid-run stops issue and a set continues the same sequence;
 *   - a start from the card (start_all) and a stop (stop_all).
 *   tb_hbm_port [--seed N]
 */
#include <functional>

#include "Vsb_hbm_port.h"
#include "hbm_expect.h"
#include "tb_regs.h"

using namespace tb;

struct Bench : RegBusMaster {
	Vsb_hbm_port top;
	Rng rng;
	Memory mem;
	Axi3Cfg acfg;
	Axi3Slave slave;
	AxiPins pins;
	bool start_all = false, stop_all = false;
	unsigned max_inflight = 0;

	explicit Bench(uint64_t seed) : rng(seed), slave(rng, acfg, mem, "port")
	{
		top.port_index = 5;
		top.next_offset = 0x1C00;
	}

	void step()
	{
		drive_bus(top);
		top.reg_sel = sel;
		top.start_all = start_all;
		top.stop_all = stop_all;
		slave.drive(pins);
		top.m_axi_arready = pins.arready;
		top.m_axi_awready = pins.awready;
		top.m_axi_wready = pins.wready;
		top.m_axi_rvalid = pins.rvalid;
		top.m_axi_rid = pins.rid;
		top.m_axi_rresp = pins.rresp;
		top.m_axi_rlast = pins.rlast;
		for (int w = 0; w < 8; w++)
			top.m_axi_rdata[w] = pins.rdata[w];
		top.m_axi_bvalid = pins.bvalid;
		top.m_axi_bid = pins.bid;
		top.m_axi_bresp = pins.bresp;
		top.clk = 0;
		top.eval();
		pins.arvalid = top.m_axi_arvalid;
		pins.araddr = top.m_axi_araddr;
		pins.arid = top.m_axi_arid;
		pins.arlen = top.m_axi_arlen;
		pins.arsize = top.m_axi_arsize;
		pins.arburst = top.m_axi_arburst;
		pins.awvalid = top.m_axi_awvalid;
		pins.awaddr = top.m_axi_awaddr;
		pins.awid = top.m_axi_awid;
		pins.awlen = top.m_axi_awlen;
		pins.awsize = top.m_axi_awsize;
		pins.awburst = top.m_axi_awburst;
		pins.wvalid = top.m_axi_wvalid;
		pins.wid = top.m_axi_wid;
		pins.wlast = top.m_axi_wlast;
		pins.wstrb = top.m_axi_wstrb;
		for (int w = 0; w < 8; w++)
			pins.wdata[w] = top.m_axi_wdata[w];
		pins.rready = top.m_axi_rready;
		pins.bready = top.m_axi_bready;
		slave.observe(pins);
		max_inflight = std::max(max_inflight, slave.outstanding());
		top.clk = 1;
		top.eval();
	}

	uint32_t rd_data() const
	{
		return top.reg_rd_data;
	}

	void w(uint32_t off, uint32_t v)
	{
		reg_write(*this, off, v);
	}

	uint32_t r(uint32_t off)
	{
		return reg_read(*this, off);
	}

	bool done()
	{
		return SB_FIELD_GET(SB_HBM_PORT_STATUS_DONE, r(SB_HBM_PORT_STATUS));
	}
};

static void run_to_done(Bench &b, const char *who, uint64_t limit = 3000000)
{
	uint64_t n = 0;

	while (!b.done()) {
		for (int i = 0; i < 50; i++)
			b.step();
		if ((n += 50) > limit) {
			fail("%s: not done after %" PRIu64 " cycles", who, n);
			return;
		}
	}
}

/* One configuration from start to done; everything compared. */
static void one_run(Bench &b, const PortCfg &p, unsigned k, bool via_card)
{
	char who[64];
	size_t from = b.slave.log.size();
	uint32_t st;

	snprintf(who, sizeof(who), "run %u (op %u%s, %u B, %u IDs)", k, p.c.op,
	         p.c.random ? " random" : "", p.c.burst_bytes, p.c.outstanding);
	b.mem.blocks.clear();
	b.mem.fill_seed = p.c.seed;
	program_port([&](uint32_t o, uint32_t v) { b.w(o, v); }, p);
	b.max_inflight = 0;
	if (via_card) {
		/* the card's start: enable and start in the same cycle, op/mode as stored */
		b.w(SB_HBM_PORT_CONTROL, start_word(p) & ~(SB_HBM_PORT_CONTROL_START_MASK |
		                                           SB_HBM_PORT_CONTROL_ENABLE_MASK));
		b.start_all = true;
		b.step();
		b.start_all = false;
	} else {
		b.w(SB_HBM_PORT_CONTROL, start_word(p));
	}
	run_to_done(b, who);
	std::vector<bool> last = check_sequence(b.slave.log, from, p, who);
	TB_EQ(b.slave.log.size() - from, last.size(), who);
	check_counters([&](uint32_t o) { return b.r(o); }, expect(b.slave.log, from, last, p), who);
	check_written(b.mem, b.slave.log, from, p.c.seed, who);
	st = b.r(SB_HBM_PORT_STATUS);
	TB_CHECK(SB_FIELD_GET(SB_HBM_PORT_STATUS_IDLE, st), "%s: not idle when done", who);
	TB_CHECK(!SB_FIELD_GET(SB_HBM_PORT_STATUS_RUNNING, st), "%s: running when done", who);
	TB_CHECK(b.max_inflight <= std::max(1u, std::min(64u, p.c.outstanding)),
	         "%s: %u bursts in flight, outstanding %u", who, b.max_inflight, p.c.outstanding);
	TB_CHECK(SB_FIELD_GET(SB_HBM_PORT_IDS_PEAK, b.r(SB_HBM_PORT_IDS)) <=
	             std::max(1u, std::min(64u, p.c.outstanding)),
	         "%s: ids.peak above outstanding", who);
	TB_CHECK(b.r(SB_HBM_PORT_ACTIVE_CYCLES_LO) > 0, "%s: active_cycles 0", who);
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	Bench b(seed_arg(argc, argv, 1));
	BlockRules rules;
	const struct sb_regmap_block *blk = find_block("hbm_port");
	unsigned k = 0;

	reset_for(b.top, 4);
	/* registers */
	rules.next = 0x1C00;
	rules.reset["info"] = SB_FIELD_PREP(SB_HBM_PORT_INFO_INDEX, 5) |
	                      SB_FIELD_PREP(SB_HBM_PORT_INFO_MAX_OUTSTANDING, 64) |
	                      SB_FIELD_PREP(SB_HBM_PORT_INFO_MAX_BEATS, 16);
	for (const char *v :
	     {"status",     "txns",          "rd_bursts",    "wr_bursts",    "rd_bytes",
	      "wr_bytes",   "active_cycles", "rd_lat_sum",   "rd_lat_count", "rd_lat_min",
	      "rd_lat_max", "wr_lat_sum",    "wr_lat_count", "wr_lat_min",   "wr_lat_max",
	      "errors",     "mismatches",    "ids",          "cls_hit",      "cls_closed",
	      "cls_miss",   "hist"})
		rules.volatile_regs.insert(v);
	check_block_access(b, blk, rules, 3);
	check_deselected(b, blk, rules);
	reset_for(b.top, 4);

	/* random configurations, some with faults */
	for (; k < 60 && !g_fail; k++) {
		PortCfg p = random_cfg(b.rng, 0, 1ull << 33, b.rng.range(1, 120));

		b.acfg.ar_ready_pct = b.rng.range(20, 100);
		b.acfg.aw_ready_pct = b.rng.range(20, 100);
		b.acfg.w_ready_pct = b.rng.range(20, 100);
		b.acfg.lat_min = b.rng.range(1, 10);
		b.acfg.lat_max = b.acfg.lat_min + b.rng.range(0, 200);
		b.acfg.err_pct = b.rng.chance(30) ? 10 : 0;
		b.acfg.corrupt_pct = b.rng.chance(30) ? 5 : 0;
		b.slave.configure(b.acfg);
		one_run(b, p, k, b.rng.chance(25));
	}

	/* enable cleared mid-run: issue stops, the rest follows in sequence after a set */
	if (!g_fail) {
		PortCfg p = random_cfg(b.rng, 0, 1ull << 33, 400);
		size_t from = b.slave.log.size(), n;

		p.c.op = SB_HBM_OP_MIX;
		b.mem.blocks.clear();
		b.mem.fill_seed = p.c.seed;
		program_port([&](uint32_t o, uint32_t v) { b.w(o, v); }, p);
		b.w(SB_HBM_PORT_CONTROL, start_word(p));
		for (int i = 0; i < 300; i++)
			b.step();
		b.w(SB_HBM_PORT_CONTROL, start_word(p) & ~(SB_HBM_PORT_CONTROL_START_MASK |
		                                           SB_HBM_PORT_CONTROL_ENABLE_MASK));
		for (int i = 0; i < 20; i++)
			b.step();
		n = b.slave.log.size();
		for (int i = 0; i < 2000; i++)
			b.step();
		TB_EQ(b.slave.log.size(), n, "no burst issued while enable is clear");
		TB_CHECK(!SB_FIELD_GET(SB_HBM_PORT_STATUS_RUNNING, b.r(SB_HBM_PORT_STATUS)),
		         "running while enable is clear");
		b.w(SB_HBM_PORT_CONTROL, start_word(p) & ~SB_HBM_PORT_CONTROL_START_MASK);
		run_to_done(b, "enable cleared and set");
		std::vector<bool> last =
		    check_sequence(b.slave.log, from, p, "enable cleared and set");
		TB_EQ(last.size(), b.slave.log.size() - from, "bursts after re-enable");
		check_counters([&](uint32_t o) { return b.r(o); },
		               expect(b.slave.log, from, last, p), "enable cleared and set");
	}
	/* stop_all clears enable */
	if (!g_fail) {
		PortCfg p = random_cfg(b.rng, 0, 1ull << 33, 0);
		size_t n;

		program_port([&](uint32_t o, uint32_t v) { b.w(o, v); }, p);
		b.w(SB_HBM_PORT_CONTROL, start_word(p));
		for (int i = 0; i < 500; i++)
			b.step();
		b.stop_all = true;
		b.step();
		b.stop_all = false;
		TB_CHECK(!(b.r(SB_HBM_PORT_CONTROL) & SB_HBM_PORT_CONTROL_ENABLE_MASK),
		         "stop_all left enable set");
		for (int i = 0; i < 3000; i++)
			b.step();
		n = b.slave.log.size();
		for (int i = 0; i < 1000; i++)
			b.step();
		TB_EQ(b.slave.log.size(), n, "no burst after stop_all");
		TB_CHECK(SB_FIELD_GET(SB_HBM_PORT_STATUS_IDLE, b.r(SB_HBM_PORT_STATUS)),
		         "idle after stop_all and drain");
	}
	printf("tb_hbm_port: %u configurations, %zu bursts\n", k, b.slave.log.size());
	return finish("tb_hbm_port");
}
