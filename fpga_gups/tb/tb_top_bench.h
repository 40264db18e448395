/* SPDX-License-Identifier: MIT */
/*
 * The harness of sb_gups_top shared by tb_top and tb_cosim: the Verilated engine with an
 * AXI4-Lite master (tb_axil.h: random valid delays and ready back-pressure), one behavioural responder
 * per link, and a DMA engine serving the replay's descriptor reads from host memory (dma_mem
 * at bus address dma_bus) with random back-pressure and gaps.
 * Built for sb_gups_top's default parameters (the AC-510) unless TB_LINKS, TB_PORTS_PER_LINK and
 * TB_FIRST_PORT give the values the design was built with (-GLINKS=... and so on).
 */
#ifndef SB_TB_TOP_BENCH_H
#define SB_TB_TOP_BENCH_H

#include <algorithm>
#include <array>
#include <memory>
#include <type_traits>

#include "Vsb_gups_top.h"
#include "tb_axil.h"
#include "tb_common.h"

extern "C" {
#include "sb_regmap.h"
}

namespace tb
{

#ifndef TB_LINKS
#define TB_LINKS 2
#endif
#ifndef TB_PORTS_PER_LINK
#define TB_PORTS_PER_LINK 5
#endif
#ifndef TB_FIRST_PORT
#define TB_FIRST_PORT 1
#endif

constexpr unsigned clog2(unsigned v)
{
	unsigned r = 0;
	while ((1u << r) < v)
		r++;
	return r;
}

/* sb_gups_top's N, LINKS, PORTS_PER_LINK, FIRST_PORT and LTAG_W (6 + clog2(MAX_PER_LINK)). */
static const unsigned NPORTS = 9, NLINKS = TB_LINKS, PORTS_PER_LINK = TB_PORTS_PER_LINK,
                      FIRST_PORT = TB_FIRST_PORT;
static const unsigned LTAG = 6 + clog2(std::min(PORTS_PER_LINK, NPORTS));
static_assert(NLINKS >= 1 && NLINKS <= 16, "TB_LINKS");
/* hmc_link_up with every link in use up (the controller reports 4 links at most). */
static const unsigned LINKS_UP = (1u << std::min(NLINKS, 4u)) - 1;

/* Link of GUPS port p: it is controller user port FIRST_PORT + p of PORTS_PER_LINK per link
 * (AC-510: ports 0-3 on link 0, 4-8 on link 1). */
inline unsigned link_of(unsigned p)
{
	return (FIRST_PORT + p) / PORTS_PER_LINK;
}

inline unsigned first_of(unsigned l)
{
	for (unsigned p = 0; p < NPORTS; p++)
		if (link_of(p) == l)
			return p;
	return NPORTS;
}

struct Bench : AxilMaster<Bench> {
	std::unique_ptr<Vsb_gups_top> top;
	Rng rng;
	std::vector<Responder> resp;
	UPortPins pins[NLINKS];
	uint64_t cyc = 0;
	uint64_t init_starts = 0, cube_resets = 0;
	/* host memory the replay's DMA reads (descriptors, 4 words each) */
	const uint32_t *dma_mem = nullptr;
	uint64_t dma_bus = 0;
	size_t dma_words = 0;
	std::deque<std::array<uint32_t, 4>> dma_q;
	uint64_t dma_reads = 0;

	Bench(uint64_t seed, ResponderCfg c) : top(new Vsb_gups_top), rng(seed)
	{
		c.tag_bits = LTAG;
		for (unsigned l = 0; l < NLINKS; l++)
			resp.emplace_back(rng, c);
	}

	void step()
	{
		top->clk = 0;
		top->eval();
		/* Packed link-major ports: at most 16 links x 128 bits. */
		uint32_t addr[18] = {0}, tag[8] = {0}, cmd[2] = {0}, size[2] = {0}, wdata[64] = {0};
		uint32_t rtag[8] = {0}, res[4] = {0}, rdata[64] = {0};
		uint32_t cready = 0, wready = 0, rvalid = 0, dinv = 0;
		to_words(top->m_hmc_addr, addr);
		to_words(top->m_hmc_tag, tag);
		to_words(top->m_hmc_cmd, cmd);
		to_words(top->m_hmc_size, size);
		to_words(top->m_hmc_wr_data, wdata);
		for (unsigned l = 0; l < NLINKS; l++) {
			UPortPins &u = pins[l];
			u.cmd_valid = top->m_hmc_cmd_valid >> l & 1;
			u.cmd = (unsigned)get_bits(cmd, l * 4, 4);
			u.addr = get_bits(addr, l * 34, 34);
			u.size = (unsigned)get_bits(size, l * 4, 4);
			u.tag = (unsigned)get_bits(tag, l * LTAG, LTAG);
			u.wr_valid = top->m_hmc_wr_valid >> l & 1;
			for (int i = 0; i < 4; i++)
				u.wr_data.w[i] = wdata[l * 4 + i];
			resp[l].drive(u, cyc);
			cready |= (uint32_t)u.cmd_ready << l;
			wready |= (uint32_t)u.wr_ready << l;
			rvalid |= (uint32_t)u.rsp_valid << l;
			dinv |= (uint32_t)u.rsp_dinv << l;
			set_bits(rtag, l * LTAG, LTAG, u.rsp_tag);
			set_bits(res, l * 7, 7, u.rsp_errstat);
			for (int i = 0; i < 4; i++)
				rdata[l * 4 + i] = u.rsp_data.w[i];
		}
		top->m_hmc_cmd_ready = cready;
		top->m_hmc_wr_ready = wready;
		top->s_hmc_rsp_valid = rvalid;
		top->s_hmc_rsp_dinv = dinv;
		from_words(top->s_hmc_rsp_tag, rtag);
		from_words(top->s_hmc_rsp_errstat, res);
		from_words(top->s_hmc_rsp_data, rdata);
		top->m_axis_trace_tready = rng.chance(80);
		top->m_axis_replay_rdreq_tready = rng.chance(80);
		bool dv = !dma_q.empty() && rng.chance(80);
		top->s_axis_replay_desc_tvalid = dv;
		if (dv)
			for (int i = 0; i < 4; i++)
				top->s_axis_replay_desc_tdata[i] = dma_q.front()[i];
		top->eval();
		if (top->m_axis_replay_rdreq_tvalid && top->m_axis_replay_rdreq_tready) {
			uint64_t a = get_bits(&top->m_axis_replay_rdreq_tdata[0], 0, 64);
			unsigned n = (unsigned)get_bits(&top->m_axis_replay_rdreq_tdata[0], 64, 16);
			dma_reads++;
			for (unsigned i = 0; i < n; i++) {
				uint64_t w = (a - dma_bus) / 4 + 4 * i;
				std::array<uint32_t, 4> d = {0, 0, 0, 0};
				if (a < dma_bus || w + 4 > dma_words)
					fail("replay DMA read at 0x%" PRIx64 " outside host memory",
					     a + 16 * i);
				else
					for (int k = 0; k < 4; k++)
						d[k] = dma_mem[w + k];
				dma_q.push_back(d);
			}
		}
		if (dv && top->s_axis_replay_desc_tready)
			dma_q.pop_front();
		top->clk = 1;
		top->eval();
		for (unsigned l = 0; l < NLINKS; l++)
			resp[l].edge(pins[l], cyc);
		init_starts += top->hmc_init_start;
		cube_resets += top->hmc_cube_reset;
		top->hmc_init_done = 0;
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
		top->hmc_link_up = LINKS_UP;
		top->hmc_init_done = 0;
		top->hmc_crc_error = 0;
		top->hmc_link_retry = 0;
		idle(4);
		top->rst = 0;
		idle(2);
	}
};

inline uint32_t port_base(unsigned p)
{
	return SB_LAYOUT_GUPS_PORT_OFFSET + p * SB_LAYOUT_GUPS_PORT_STRIDE;
}

/* Port of a request seen on link l (tag = {port within the link, 6-bit tag}). */
inline unsigned port_of(unsigned l, unsigned tag)
{
	return first_of(l) + (tag >> 6);
}

} /* namespace tb */

#endif /* SB_TB_TOP_BENCH_H */
