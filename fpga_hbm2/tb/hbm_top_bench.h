/* SPDX-License-Identifier: MIT */
/*
 * The harness of sb_hbm_top shared by tb_hbm_top and tb_hbm_cosim: the AXI4-Lite master of
 * fpga_gups/tb/tb_axil.h (random delays and back-pressure), and one AXI3 slave memory
 * (axi3_slave.h) per engine port on the packed port vectors. TB_N (the top's N) is set by the
 * build.
 */
#ifndef SB_HBM_TOP_BENCH_H
#define SB_HBM_TOP_BENCH_H

#include <memory>

#include "Vsb_hbm_top.h"
#include "hbm_expect.h"
#include "tb_axil.h"

#ifndef TB_N
#define TB_N 32
#endif

namespace tb
{

struct TopBench : AxilMaster<TopBench> {
	std::unique_ptr<Vsb_hbm_top> top;
	Rng rng;
	Memory mem;
	Axi3Cfg acfg;
	std::vector<Axi3Slave> slaves;
	AxiPins pins[TB_N];
	uint64_t cyc = 0;

	explicit TopBench(uint64_t seed) : top(new Vsb_hbm_top), rng(seed)
	{
		static const char *names[32] = {
		    "port 0",  "port 1",  "port 2",  "port 3",  "port 4",  "port 5",  "port 6",
		    "port 7",  "port 8",  "port 9",  "port 10", "port 11", "port 12", "port 13",
		    "port 14", "port 15", "port 16", "port 17", "port 18", "port 19", "port 20",
		    "port 21", "port 22", "port 23", "port 24", "port 25", "port 26", "port 27",
		    "port 28", "port 29", "port 30", "port 31"};

		slaves.reserve(TB_N);
		for (unsigned p = 0; p < TB_N; p++)
			slaves.emplace_back(rng, acfg, mem, names[p]);
	}

	void step()
	{
		uint32_t w[TB_N * 8 + 2];

		for (unsigned p = 0; p < TB_N; p++)
			slaves[p].drive(pins[p]);
#define SB_PUT_BIT(sig, field)                                                                     \
	do {                                                                                       \
		uint32_t v_[(TB_N + 31) / 32 + 1] = {0};                                           \
		for (unsigned p = 0; p < TB_N; p++)                                                \
			set_bits(v_, p, 1, pins[p].field);                                         \
		from_words(top->sig, v_);                                                          \
	} while (0)
#define SB_PUT_FIELD(sig, field, width)                                                            \
	do {                                                                                       \
		uint32_t v_[(TB_N * width + 31) / 32 + 1] = {0};                                   \
		for (unsigned p = 0; p < TB_N; p++)                                                \
			set_bits(v_, p *width, width, pins[p].field);                              \
		from_words(top->sig, v_);                                                          \
	} while (0)
		SB_PUT_BIT(m_axi_arready, arready);
		SB_PUT_BIT(m_axi_awready, awready);
		SB_PUT_BIT(m_axi_wready, wready);
		SB_PUT_BIT(m_axi_rvalid, rvalid);
		SB_PUT_BIT(m_axi_rlast, rlast);
		SB_PUT_BIT(m_axi_bvalid, bvalid);
		SB_PUT_FIELD(m_axi_rid, rid, 6);
		SB_PUT_FIELD(m_axi_rresp, rresp, 2);
		SB_PUT_FIELD(m_axi_bid, bid, 6);
		SB_PUT_FIELD(m_axi_bresp, bresp, 2);
#undef SB_PUT_BIT
#undef SB_PUT_FIELD
		for (unsigned p = 0; p < TB_N; p++)
			memcpy(&w[p * 8], pins[p].rdata, 32);
		from_words(top->m_axi_rdata, w);
		top->clk = 0;
		top->eval();
#define SB_GET(sig, field, width)                                                                  \
	do {                                                                                       \
		uint32_t v_[(TB_N * width + 31) / 32 + 2] = {0};                                   \
		to_words(top->sig, v_);                                                            \
		for (unsigned p = 0; p < TB_N; p++)                                                \
			pins[p].field = (decltype(pins[p].field))get_bits(v_, p * width, width);   \
	} while (0)
		SB_GET(m_axi_arvalid, arvalid, 1);
		SB_GET(m_axi_awvalid, awvalid, 1);
		SB_GET(m_axi_wvalid, wvalid, 1);
		SB_GET(m_axi_wlast, wlast, 1);
		SB_GET(m_axi_rready, rready, 1);
		SB_GET(m_axi_bready, bready, 1);
		SB_GET(m_axi_araddr, araddr, 34);
		SB_GET(m_axi_awaddr, awaddr, 34);
		SB_GET(m_axi_arid, arid, 6);
		SB_GET(m_axi_awid, awid, 6);
		SB_GET(m_axi_wid, wid, 6);
		SB_GET(m_axi_arlen, arlen, 4);
		SB_GET(m_axi_awlen, awlen, 4);
		SB_GET(m_axi_arsize, arsize, 3);
		SB_GET(m_axi_awsize, awsize, 3);
		SB_GET(m_axi_arburst, arburst, 2);
		SB_GET(m_axi_awburst, awburst, 2);
		SB_GET(m_axi_wstrb, wstrb, 32);
#undef SB_GET
		to_words(top->m_axi_wdata, w);
		for (unsigned p = 0; p < TB_N; p++) {
			memcpy(pins[p].wdata, &w[p * 8], 32);
			slaves[p].observe(pins[p]);
		}
		top->clk = 1;
		top->eval();
		cyc++;
	}

	void idle(unsigned n)
	{
		while (n--)
			step();
	}

	void reset()
	{
		top->rst = 1;
		top->hbm_temp0 = 41;
		top->hbm_temp1 = 44;
		top->hbm_cattrip = 0;
		idle(4);
		top->rst = 0;
		idle(2);
	}
};

inline uint32_t port_base(unsigned p)
{
	return SB_REGSPACE_HBM2_HBM_PORT_OFFSET + p * SB_REGSPACE_HBM2_HBM_PORT_STRIDE;
}

} /* namespace tb */

#endif /* SB_HBM_TOP_BENCH_H */
