/* SPDX-License-Identifier: MIT */
/*
 * What the top-level testbenches of both designs share (tb_top_bench.h for sb_gups_top,
 * fpga_hbm2/tb/hbm_top_bench.h for sb_hbm_top): Verilated ports of any width as 32-bit words,
 * and the AXI4-Lite master with random valid delays on AW / W / AR and random ready
 * back-pressure on B / R, which checks OKAY responses.
 *
 * AxilMaster<Bench> is a base of the bench (CRTP): the bench has `top` (the Verilated model,
 * with clk and the s_axil_* ports), `rng` (tb::Rng) and `step()` (one clock cycle, ending with
 * clk high).
 */
#ifndef SB_TB_AXIL_H
#define SB_TB_AXIL_H

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tb_common.h"

namespace tb
{

/* A Verilated port of any width as 32-bit words, and back. */
template <std::size_t W> inline void to_words(const VlWide<W> &s, uint32_t *w)
{
	for (std::size_t i = 0; i < W; i++)
		w[i] = s[i];
}
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
inline void to_words(T s, uint32_t *w)
{
	w[0] = (uint32_t)s;
	if (sizeof(T) > 4)
		w[1] = (uint32_t)((uint64_t)s >> 32);
}
template <std::size_t W> inline void from_words(VlWide<W> &s, const uint32_t *w)
{
	for (std::size_t i = 0; i < W; i++)
		s[i] = w[i];
}
template <typename T, typename = std::enable_if_t<std::is_integral_v<T>>>
inline void from_words(T &s, const uint32_t *w)
{
	uint64_t v = w[0] | (sizeof(T) > 4 ? (uint64_t)w[1] << 32 : 0);
	s = (T)v;
}

template <class Bench> struct AxilMaster {
	/* AXI4-Lite write with random delays on AW / W and back-pressure on B. */
	void write(uint32_t a, uint32_t v, uint32_t strb = 0xF)
	{
		Bench &b = static_cast<Bench &>(*this);
		auto &top = b.top;
		unsigned aw_delay = b.rng.range(0, 3), w_delay = b.rng.range(0, 3);
		bool aw_done = false, w_done = false;

		top->s_axil_awaddr = a;
		top->s_axil_wdata = v;
		top->s_axil_wstrb = strb;
		top->s_axil_awprot = 0;
		for (unsigned t = 0; !(aw_done && w_done); t++) {
			top->s_axil_awvalid = !aw_done && t >= aw_delay;
			top->s_axil_wvalid = !w_done && t >= w_delay;
			top->clk = 0;
			top->eval();
			bool aw = top->s_axil_awvalid && top->s_axil_awready;
			bool wd = top->s_axil_wvalid && top->s_axil_wready;
			b.step();
			aw_done |= aw;
			w_done |= wd;
			if (t > 100) {
				fail("AXI-Lite write 0x%x: address / data never accepted", a);
				break;
			}
		}
		top->s_axil_awvalid = 0;
		top->s_axil_wvalid = 0;
		for (unsigned t = 0;; t++) {
			top->s_axil_bready = b.rng.chance(60);
			top->clk = 0;
			top->eval();
			bool bh = top->s_axil_bvalid && top->s_axil_bready;
			if (bh)
				TB_EQ(top->s_axil_bresp, 0, "bresp OKAY");
			b.step();
			if (bh)
				break;
			if (t > 100) {
				fail("AXI-Lite write 0x%x: no response", a);
				break;
			}
		}
		top->s_axil_bready = 0;
	}

	/* AXI4-Lite read with a random delay on AR and back-pressure on R. */
	uint32_t read(uint32_t a)
	{
		Bench &b = static_cast<Bench &>(*this);
		auto &top = b.top;
		unsigned delay = b.rng.range(0, 3);
		uint32_t v = 0;

		top->s_axil_araddr = a;
		top->s_axil_arprot = 0;
		for (unsigned t = 0;; t++) {
			top->s_axil_arvalid = t >= delay;
			top->clk = 0;
			top->eval();
			bool ar = top->s_axil_arvalid && top->s_axil_arready;
			b.step();
			if (ar)
				break;
			if (t > 100) {
				fail("AXI-Lite read 0x%x: address never accepted", a);
				break;
			}
		}
		top->s_axil_arvalid = 0;
		for (unsigned t = 0;; t++) {
			top->s_axil_rready = b.rng.chance(60);
			top->clk = 0;
			top->eval();
			bool rh = top->s_axil_rvalid && top->s_axil_rready;
			if (rh) {
				v = top->s_axil_rdata;
				TB_EQ(top->s_axil_rresp, 0, "rresp OKAY");
			}
			b.step();
			if (rh)
				break;
			if (t > 100) {
				fail("AXI-Lite read 0x%x: no data", a);
				break;
			}
		}
		top->s_axil_rready = 0;
		return v;
	}

	uint64_t read64(uint32_t a)
	{
		uint64_t lo = read(a);
		return lo | (uint64_t)read(a + 4) << 32;
	}

	void write64(uint32_t a, uint64_t v)
	{
		write(a, (uint32_t)v);
		write(a + 4, (uint32_t)(v >> 32));
	}
};

} /* namespace tb */

#endif /* SB_TB_AXIL_H */
