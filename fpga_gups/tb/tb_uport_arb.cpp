/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_uport_arb (N = 5 ports on one link, 6-bit port tags, 9-bit link tags): five
 * port models issue reads, non-posted and posted writes (random idle cycles, valid held until
 * ready, write beats offered with random gaps) into the arbiter; the behavioural responder
 * (tb_common.h) on the link side applies random command / data back-pressure and answers out
 * of order with random latencies, ERRSTAT and dinv. Checks:
 *   - at most one command taken per cycle, only from a port with a command; the port taken is
 *     exactly the first one with a command after the last one taken (round robin), and a
 *     command is taken whenever the output stage is free (unless the write-data routing is
 *     full); no port waits for more than N - 1 other commands; under full load (every port
 *     always has a read, no back-pressure) one command per cycle in the order 0, 1, 2, 3, 4, 0
 *   - the link's commands are the taken ones in order, with tag = {port, tag}
 *   - write data: the link's beats are the taken writes' beats in command order, each write's
 *     beats together (never interleaved with another port's), each equal to its port's beat;
 *     a port's wr_ready only when its write is at the head
 *   - responses reach the port named by the high tag bits one cycle later with the low tag
 *     bits, data, ERRSTAT and dinv; every port gets exactly the responses to its requests
 */
#include <memory>

#include "Vsb_uport_arb.h"
#include "tb_common.h"

using namespace tb;

static const unsigned N = 5, TAGW = 6, LTAGW = 9, ROUTE_DEPTH = 8;

struct Cmd {
	unsigned port, cmd, size, tag;
	uint64_t addr;
};

struct PortModel {
	bool valid = false;
	Cmd c{};
	std::deque<Beat> beats; /* write beats not yet taken */
	bool wr_valid = false;
	std::map<unsigned, unsigned> out; /* tag -> response beats still due */
	uint64_t issued = 0, rsp_beats = 0;
};

struct Phase {
	unsigned gen_pct, rd_pct, posted_pct, wr_valid_pct;
	unsigned size_max = 8;
};

struct Bench {
	std::unique_ptr<Vsb_uport_arb> top;
	Rng rng;
	Responder resp;
	UPortPins pins;
	PortModel port[N];
	Phase ph{50, 50, 30, 70};
	uint64_t cyc = 0;
	unsigned last = N - 1;                           /* model: last port taken */
	std::deque<Cmd> taken;                           /* taken, not yet on the link */
	std::deque<std::pair<unsigned, Beat>> exp_beats; /* link write beats to come */
	unsigned route = 0;               /* writes taken whose beats are not all out */
	std::deque<unsigned> route_beats; /* beats left per routed write */
	uint64_t waited[N] = {0}, worst_wait = 0, takes = 0, link_beats = 0;
	std::vector<unsigned> take_order;
	uint32_t seq = 0;

	Bench(uint64_t seed, ResponderCfg rc) : top(new Vsb_uport_arb), rng(seed), resp(rng, rc)
	{
		reset_for(*top, 3);
	}

	void gen(unsigned p)
	{
		PortModel &m = port[p];
		if (m.valid || !rng.chance(ph.gen_pct))
			return;
		Cmd c;
		c.port = p;
		c.cmd = rng.chance(ph.rd_pct)       ? CMD_RD
		        : rng.chance(ph.posted_pct) ? CMD_P_WR
		                                    : CMD_WR;
		c.size = rng.range(1, ph.size_max);
		c.addr = rng.u64() & 0x3FFFFFFF0ull;
		c.tag = rng.range(0, (1u << TAGW) - 1);
		if (c.cmd != CMD_P_WR) {
			if (m.out.size() == 1u << TAGW)
				return; /* no free tag */
			while (m.out.count(c.tag))
				c.tag = (c.tag + 1) % (1u << TAGW);
		}
		m.c = c;
		m.valid = true;
		if (c.cmd != CMD_RD)
			for (unsigned i = 0; i < c.size; i++) {
				Beat b;
				b.w[0] = p << 28 | (seq++ & 0xFFFFFFF);
				for (int w = 1; w < 4; w++)
					b.w[w] = (uint32_t)rng.u64();
				m.beats.push_back(b);
			}
	}

	void step()
	{
		uint32_t cmd[1] = {0}, size[1] = {0}, tag[1] = {0}, addr[6] = {0}, wdata[20] = {0};
		uint32_t cvalid = 0, wvalid = 0;
		for (unsigned p = 0; p < N; p++) {
			PortModel &m = port[p];
			gen(p);
			if (!m.wr_valid && !m.beats.empty() && rng.chance(ph.wr_valid_pct))
				m.wr_valid = true;
			cvalid |= (uint32_t)m.valid << p;
			wvalid |= (uint32_t)m.wr_valid << p;
			set_bits(cmd, p * 4, 4, m.valid ? m.c.cmd : rng.range(0, 15));
			set_bits(size, p * 4, 4, m.valid ? m.c.size : rng.range(0, 15));
			set_bits(tag, p * TAGW, TAGW, m.valid ? m.c.tag : rng.range(0, 63));
			set_bits(addr, p * 34, 34, m.valid ? m.c.addr : rng.u64());
			for (int w = 0; w < 4; w++)
				wdata[p * 4 + w] =
				    m.wr_valid ? m.beats.front().w[w] : (uint32_t)rng.u64();
		}
		top->s_cmd_valid = cvalid;
		top->s_cmd = cmd[0];
		top->s_cmd_size = size[0];
		top->s_cmd_tag = tag[0];
		for (int i = 0; i < 6; i++)
			top->s_cmd_addr[i] = addr[i];
		top->s_wr_valid = wvalid;
		for (int i = 0; i < 20; i++)
			top->s_wr_data[i] = wdata[i];
		top->clk = 0;
		top->eval();
		cmd_pins(*top, pins);
		resp.drive(pins, cyc);
		if (pins.rsp_valid)
			pins.rsp_dinv = rng.chance(5);
		top->m_cmd_ready = pins.cmd_ready;
		top->m_wr_ready = pins.wr_ready;
		top->m_rsp_valid = pins.rsp_valid;
		top->m_rsp_tag = pins.rsp_valid ? pins.rsp_tag : rng.range(0, 511);
		for (int i = 0; i < 4; i++)
			top->m_rsp_data[i] = pins.rsp_data.w[i];
		top->m_rsp_errstat = pins.rsp_errstat;
		top->m_rsp_dinv = pins.rsp_dinv;
		top->eval();
		pins.wr_valid = top->m_wr_valid;
		for (int i = 0; i < 4; i++)
			pins.wr_data.w[i] = top->m_wr_data[i];

		/* Commands: one taken, round robin, whenever possible. */
		uint32_t tk = top->s_cmd_ready & cvalid;
		TB_EQ(top->s_cmd_ready & ~cvalid, 0, "cmd_ready only to a port with a command");
		TB_CHECK(__builtin_popcount(tk) <= 1, "one command taken per cycle (0x%x)", tk);
		int rr = -1;
		for (unsigned k = 1; k <= N && rr < 0; k++)
			if (cvalid >> ((last + k) % N) & 1)
				rr = (int)((last + k) % N);
		bool out_free = !top->m_cmd_valid || top->m_cmd_ready;
		bool can = rr >= 0 && out_free && (port[rr].c.cmd == CMD_RD || route < ROUTE_DEPTH);
		TB_EQ(tk, can ? 1u << rr : 0u, "the command taken (round robin, when possible)");
		/* Write data: only the head write's port; the link beat is that port's beat. */
		unsigned head = route_beats.empty() ? N : exp_beats.front().first;
		TB_EQ(top->s_wr_ready, head < N && top->m_wr_ready ? 1u << head : 0u,
		      "wr_ready to the port of the head write only");
		TB_EQ(top->m_wr_valid, head < N && port[head].wr_valid, "m_wr_valid");
		if (top->m_wr_valid)
			TB_CHECK(pins.wr_data == exp_beats.front().second,
			         "link beat %" PRIu64
			         " is not the next beat of the head write (port %u)",
			         link_beats, head);
		bool beat_go = top->m_wr_valid && top->m_wr_ready;
		/* Responses of this cycle, compared at the ports after the edge. */
		bool rv = top->m_rsp_valid;
		unsigned rt = top->m_rsp_tag, res = top->m_rsp_errstat;
		bool rd = top->m_rsp_dinv;
		Beat rdata;
		for (int i = 0; i < 4; i++)
			rdata.w[i] = top->m_rsp_data[i];

		top->clk = 1;
		top->eval();
		resp.edge(pins, cyc);
		cyc++;

		if (tk) {
			unsigned p = (unsigned)__builtin_ctz(tk);
			PortModel &m = port[p];
			taken.push_back(m.c);
			take_order.push_back(p);
			takes++;
			for (unsigned q = 0; q < N; q++)
				if (q != p && (cvalid >> q & 1)) {
					waited[q]++;
					worst_wait = std::max(worst_wait, waited[q]);
				}
			waited[p] = 0;
			last = p;
			if (m.c.cmd != CMD_RD) {
				route++;
				route_beats.push_back(m.c.size);
				/* the port's beats of this write, in its order */
				size_t before = 0;
				for (auto &e : exp_beats)
					before += e.first == p;
				for (unsigned i = 0; i < m.c.size; i++)
					exp_beats.push_back({p, m.beats[before + i]});
			}
			if (m.c.cmd != CMD_P_WR)
				m.out[m.c.tag] = m.c.cmd == CMD_RD ? m.c.size : 1;
			m.valid = false;
			m.issued++;
		}
		if (beat_go) {
			PortModel &m = port[head];
			m.beats.pop_front();
			m.wr_valid = false;
			exp_beats.pop_front();
			link_beats++;
			if (--route_beats.front() == 0) {
				route_beats.pop_front();
				route--;
			}
		}
		/* A command on the link: the oldest taken one, tag {port, tag}. */
		if (pins.cmd_valid && pins.cmd_ready) {
			if (taken.empty()) {
				fail("link command without a taken command");
			} else {
				const Cmd &c = taken.front();
				TB_EQ(pins.cmd, c.cmd, "link cmd");
				TB_EQ(pins.addr, c.addr, "link addr");
				TB_EQ(pins.size, c.size, "link size");
				TB_EQ(pins.tag, c.port << TAGW | c.tag, "link tag = {port, tag}");
				taken.pop_front();
			}
		}
		/* Responses: this cycle's link response at its port after the edge. */
		TB_EQ(top->s_rsp_valid, rv ? 1u << (rt >> TAGW) : 0u,
		      "response to the port of the high tag bits");
		if (rv) {
			unsigned p = rt >> TAGW, t = rt & 63;
			TB_EQ(top->s_rsp_tag, t, "port response tag");
			TB_EQ(top->s_rsp_errstat, res, "port response errstat");
			TB_EQ(top->s_rsp_dinv, rd, "port response dinv");
			for (int i = 0; i < 4; i++)
				TB_EQ(top->s_rsp_data[i], rdata.w[i], "port response data");
			PortModel &m = port[p];
			auto it = m.out.find(t);
			if (it == m.out.end()) {
				fail("port %u: response for tag %u it has not issued", p, t);
			} else {
				m.rsp_beats++;
				if (--it->second == 0)
					m.out.erase(it);
			}
		}
	}

	void run(unsigned n)
	{
		while (n--)
			step();
	}

	/* Stop issuing and let everything complete. */
	void drain()
	{
		ph.gen_pct = 0;
		for (int i = 0; i < 20000; i++) {
			bool busy = !taken.empty() || !exp_beats.empty() || resp.outstanding() > 0;
			for (auto &m : port)
				busy |= m.valid || !m.out.empty();
			if (!busy)
				break;
			step();
		}
		for (unsigned p = 0; p < N; p++)
			TB_EQ(port[p].out.size(), 0, "every request of the port answered");
		TB_EQ(exp_beats.size(), 0, "every write beat sent");
	}
};

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);

	{
		/* Full load: reads on every port, no back-pressure. */
		ResponderCfg rc;
		rc.tag_bits = LTAGW;
		rc.cmd_ready_pct = 100;
		rc.lat_min = 2;
		rc.lat_max = 20;
		rc.rsp_idle_pct = 0;
		Bench b(seed, rc);
		b.ph = Phase{100, 100, 0, 100, 1}; /* 1-flit reads: responses keep up */
		b.run(8);
		size_t from = b.take_order.size();
		b.run(500);
		TB_EQ(b.take_order.size() - from, 500, "full load: one command per cycle");
		for (size_t i = from + 1; i < b.take_order.size(); i++)
			if (b.take_order[i] != (b.take_order[i - 1] + 1) % N) {
				fail("full load: port %u after port %u", b.take_order[i],
				     b.take_order[i - 1]);
				break;
			}
		b.drain();
	}
	const Phase phases[] = {
	    {50, 50, 30, 70}, {100, 30, 50, 40}, {20, 60, 20, 100}, {100, 0, 30, 20}};
	const unsigned cmd_ready[] = {70, 40, 90, 60};
	for (int i = 0; i < 4; i++) {
		ResponderCfg rc;
		rc.tag_bits = LTAGW;
		rc.cmd_ready_pct = cmd_ready[i];
		rc.wr_ready_pct = 50 + 10 * i;
		rc.err_pct = 10;
		Bench b(seed + 1 + i, rc);
		b.ph = phases[i];
		b.run(40000);
		b.drain();
		uint64_t rsp = 0;
		for (auto &m : b.port)
			rsp += m.rsp_beats;
		printf("uport_arb phase %d: %" PRIu64 " commands, %" PRIu64 " write beats, %" PRIu64
		       " response beats, longest wait %" PRIu64 " other commands\n",
		       i, b.takes, b.link_beats, rsp, b.worst_wait);
		TB_CHECK(b.worst_wait <= N - 1, "no starvation");
		for (unsigned p = 0; p < N; p++)
			TB_CHECK(b.port[p].issued > 100, "port %u issued %" PRIu64, p,
			         b.port[p].issued);
	}
	return finish("tb_uport_arb");
}
