/* SPDX-License-Identifier: MIT */
/*
 * Shared parts of the Verilator testbenches: seeded randomness, checks that count failures,
 * wide-signal helpers and a behavioural HMC user-port responder (random command / data
 * back-pressure, randomized latencies, out-of-order returns, idle cycles between responses,
 * optional lost responses and injected ERRSTAT, a byte-accurate memory).
 */
#ifndef SB_TB_COMMON_H
#define SB_TB_COMMON_H

#include <cinttypes>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "verilated.h"

namespace tb
{

inline int g_fail = 0;

/* Record a failed check; stop after a few so the log stays readable. */
inline void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	if (++g_fail >= 20) {
		fprintf(stderr, "too many failures\n");
		exit(1);
	}
}

#define TB_CHECK(cond, ...)                                                                        \
	do {                                                                                       \
		if (!(cond))                                                                       \
			tb::fail(__VA_ARGS__);                                                     \
	} while (0)

#define TB_EQ(a, b, what)                                                                          \
	do {                                                                                       \
		uint64_t tb_a_ = (uint64_t)(a), tb_b_ = (uint64_t)(b);                             \
		if (tb_a_ != tb_b_)                                                                \
			tb::fail("%s: got 0x%" PRIx64 ", expected 0x%" PRIx64, (what), tb_a_,      \
			         tb_b_);                                                           \
	} while (0)

inline int finish(const char *name)
{
	if (tb::g_fail) {
		fprintf(stderr, "%s: %d check(s) failed\n", name, tb::g_fail);
		return 1;
	}
	printf("%s: all checks passed\n", name);
	return 0;
}

/* One clock cycle of a Verilated model (inputs as they are). */
template <class V> void tick(V &top)
{
	top.clk = 0;
	top.eval();
	top.clk = 1;
	top.eval();
}

/* Hold rst for n cycles, then release it. */
template <class V> void reset_for(V &top, int n)
{
	top.rst = 1;
	while (n-- > 0)
		tick(top);
	top.rst = 0;
}

struct Rng {
	std::mt19937_64 g;
	explicit Rng(uint64_t seed) : g(seed)
	{
	}
	uint64_t u64()
	{
		return g();
	}
	uint32_t range(uint32_t lo, uint32_t hi) /* inclusive */
	{
		return lo + (uint32_t)(g() % ((uint64_t)hi - lo + 1));
	}
	bool chance(unsigned percent)
	{
		return g() % 100 < percent;
	}
};

/* Seed from argv ("--seed N") or the default. */
inline uint64_t seed_arg(int argc, char **argv, uint64_t def)
{
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--seed"))
			return strtoull(argv[i + 1], nullptr, 0);
	return def;
}

/* 128-bit beat as four 32-bit words (word 0 = bits 31..0). */
struct Beat {
	uint32_t w[4] = {0, 0, 0, 0};
	bool operator==(const Beat &o) const
	{
		return !memcmp(w, o.w, sizeof(w));
	}
	bool operator!=(const Beat &o) const
	{
		return !(*this == o);
	}
};

/* Bits [lsb +: width] (width <= 64) of a packed signal given as 32-bit words. */
inline uint64_t get_bits(const uint32_t *words, unsigned lsb, unsigned width)
{
	uint64_t v = 0;

	for (unsigned i = 0; i < width; i++)
		if (words[(lsb + i) / 32] >> ((lsb + i) % 32) & 1)
			v |= 1ull << i;
	return v;
}

inline void set_bits(uint32_t *words, unsigned lsb, unsigned width, uint64_t v)
{
	for (unsigned i = 0; i < width; i++) {
		uint32_t m = 1u << ((lsb + i) % 32);

		if (v >> i & 1)
			words[(lsb + i) / 32] |= m;
		else
			words[(lsb + i) / 32] &= ~m;
	}
}

/* One HMC user port as plain values; the harness copies them to / from the model. */
struct UPortPins {
	/* from the design */
	bool cmd_valid = false;
	unsigned cmd = 0;
	uint64_t addr = 0;
	unsigned size = 0;
	unsigned tag = 0;
	bool wr_valid = false;
	Beat wr_data;
	/* to the design */
	bool cmd_ready = false;
	bool wr_ready = false;
	bool rsp_valid = false;
	unsigned rsp_tag = 0;
	Beat rsp_data;
	unsigned rsp_errstat = 0;
	bool rsp_dinv = false;
};

/* The command signals of a design's user port (m_cmd_valid, m_cmd, m_cmd_addr, m_cmd_size,
 * m_cmd_tag) into the pins. */
template <class V> void cmd_pins(const V &top, UPortPins &u)
{
	u.cmd_valid = top.m_cmd_valid;
	u.cmd = top.m_cmd;
	u.addr = top.m_cmd_addr;
	u.size = top.m_cmd_size;
	u.tag = top.m_cmd_tag;
}

enum { CMD_RD = 0x0, CMD_WR = 0x1, CMD_P_WR = 0x9 };

/* A request as the responder saw it. */
struct Req {
	uint64_t cycle; /* accepted */
	unsigned cmd, size, tag;
	uint64_t addr;
};

struct ResponderCfg {
	unsigned lat_min = 4, lat_max = 60; /* cycles from acceptance to the first beat */
	unsigned cmd_ready_pct = 70;        /* chance per cycle that cmd_ready is high */
	unsigned wr_ready_pct = 70;
	unsigned rsp_idle_pct = 20; /* chance of an idle cycle before a response */
	unsigned drop_pct = 0;      /* responses never sent (lost) */
	unsigned err_pct = 0;       /* responses with an injected ERRSTAT */
	unsigned errstat = 0x21;    /* the ERRSTAT injected */
	unsigned tag_bits = 6;
	/* The vendor controller and the cube as the board model has them (docs/model.md): a data
	 * packet holds the user port pkt_cycles beyond its beats (no response for pkt_cycles
	 * after a read response's last beat, wr_ready low for pkt_cycles after a write's last
	 * data beat), and bounded queues back-pressure the commands: cmd_ready is low while
	 * queue_max commands are outstanding (0: no bound). */
	unsigned pkt_cycles = 0;
	unsigned queue_max = 0;
};

/*
 * The responder. Call drive() before each clock edge (after the design's outputs settled)
 * and it sets the inputs and records the handshakes of this cycle.
 */
struct Responder {
	ResponderCfg cfg;
	Rng &rng;
	std::map<uint64_t, Beat> mem; /* 16-byte blocks by block address */
	struct Pending {
		uint64_t due; /* first beat not before this cycle */
		unsigned tag, beats, sent;
		bool read, drop;
		unsigned errstat;
		uint64_t addr, accepted;
	};
	std::vector<Pending> pend;
	std::deque<Req> wq; /* writes waiting for their data */
	unsigned wbeat = 0;
	int cur = -1;              /* response being sent */
	std::vector<Req> log;      /* every accepted command */
	std::vector<Req> resp_log; /* every response sent (cycle = first beat) */
	uint64_t outstanding_max = 0;
	std::map<unsigned, unsigned> in_flight; /* tag -> count (duplicates are errors) */
	uint64_t lat_sum = 0, lat_count = 0, lat_min = UINT64_MAX, lat_max = 0;
	uint64_t rd_flits = 0, dropped = 0, errors = 0;
	uint64_t reads = 0, writes = 0;
	Beat corrupt_mask;     /* XORed into read data when nonzero */
	bool hold_rsp = false; /* no responses while set */
	uint64_t rsp_free = 0; /* no response starts before this cycle (pkt_cycles) */
	uint64_t wr_free = 0;  /* no write data beat before this cycle (pkt_cycles) */
	uint64_t queue_full_cycles = 0;

	Responder(Rng &r, ResponderCfg c) : cfg(c), rng(r)
	{
	}

	size_t outstanding() const
	{
		size_t n = 0;
		for (const auto &p : pend)
			if (!p.drop)
				n++;
		return n;
	}

	/* Decide the inputs for this cycle (called with the design's outputs for the cycle). */
	void drive(UPortPins &u, uint64_t cycle)
	{
		bool full = cfg.queue_max && outstanding() + wq.size() >= cfg.queue_max;

		u.cmd_ready = rng.chance(cfg.cmd_ready_pct) && !full;
		u.wr_ready = rng.chance(cfg.wr_ready_pct) && !wq.empty() && cycle >= wr_free;
		u.rsp_valid = false;
		u.rsp_dinv = false;
		u.rsp_errstat = 0;
		if (full)
			queue_full_cycles++;
		if (cur < 0 && !hold_rsp && cycle >= rsp_free && !rng.chance(cfg.rsp_idle_pct)) {
			/* Out of order: any due response, chosen at random. */
			std::vector<int> due;
			for (size_t i = 0; i < pend.size(); i++)
				if (pend[i].due <= cycle && !pend[i].drop)
					due.push_back((int)i);
			if (!due.empty())
				cur = due[rng.range(0, (uint32_t)due.size() - 1)];
		}
		if (cur >= 0) {
			Pending &p = pend[cur];
			u.rsp_valid = true;
			u.rsp_tag = p.tag;
			if (p.read) {
				Beat b = read_block((p.addr >> 4) + p.sent);
				for (int i = 0; i < 4; i++)
					b.w[i] ^= corrupt_mask.w[i];
				u.rsp_data = b;
			} else {
				u.rsp_data = Beat();
			}
			if (p.sent + 1 == p.beats)
				u.rsp_errstat = p.errstat;
		}
	}

	Beat read_block(uint64_t blk)
	{
		auto it = mem.find(blk);
		if (it != mem.end())
			return it->second;
		Beat b; /* unwritten memory: a fixed function of the block */
		for (int i = 0; i < 4; i++)
			b.w[i] = (uint32_t)(blk * 0x9E3779B97F4A7C15ull >> (16 + i));
		return b;
	}

	/* Record what happened at the edge that ends this cycle. */
	void edge(const UPortPins &u, uint64_t cycle)
	{
		if (u.cmd_valid && u.cmd_ready) {
			Req r{cycle, u.cmd, u.size, u.tag, u.addr};
			log.push_back(r);
			if (u.addr & 0xF)
				fail("request address 0x%" PRIx64 " not 16-byte aligned", u.addr);
			if (u.size < 1 || u.size > 8)
				fail("request size %u outside 1..8", u.size);
			if (u.cmd == CMD_RD)
				reads++;
			else
				writes++;
			if (u.cmd != CMD_RD)
				wq.push_back(r);
			if (u.cmd != CMD_P_WR) {
				if (in_flight[u.tag]++)
					fail("tag %u issued while outstanding", u.tag);
				Pending p;
				p.tag = u.tag;
				p.read = u.cmd == CMD_RD;
				p.beats = p.read ? u.size : 1;
				p.sent = 0;
				p.addr = u.addr;
				p.accepted = cycle;
				p.due = cycle + rng.range(cfg.lat_min, cfg.lat_max);
				p.drop = false;
				p.errstat = rng.chance(cfg.err_pct) ? cfg.errstat : 0;
				if (rng.chance(cfg.drop_pct)) {
					/* Lost: no response ever comes. */
					dropped++;
					in_flight[u.tag]--;
				} else {
					if (p.read)
						rd_flits += p.beats;
					pend.push_back(p);
					if (outstanding() > outstanding_max)
						outstanding_max = outstanding();
				}
			}
		}
		if (u.wr_valid && u.wr_ready && !wq.empty()) {
			Req &w = wq.front();
			mem[(w.addr >> 4) + wbeat] = u.wr_data;
			if (++wbeat == w.size) {
				wbeat = 0;
				wq.pop_front();
				wr_free = cycle + 1 + cfg.pkt_cycles;
			}
		}
		if (u.rsp_valid && cur >= 0) {
			Pending &p = pend[cur];
			if (p.sent == 0) {
				uint64_t lat = cycle - p.accepted;
				resp_log.push_back(Req{cycle,
				                       p.read ? (unsigned)CMD_RD : (unsigned)CMD_WR,
				                       p.beats, p.tag, p.addr});
				if (p.read) {
					lat_sum += lat;
					lat_count++;
					lat_min = lat < lat_min ? lat : lat_min;
					lat_max = lat > lat_max ? lat : lat_max;
				}
				if (p.errstat)
					errors++;
			}
			if (++p.sent == p.beats) {
				if (p.read)
					rsp_free = cycle + 1 + cfg.pkt_cycles;
				in_flight[p.tag]--;
				pend.erase(pend.begin() + cur);
				cur = -1;
			}
		}
	}
};

} /* namespace tb */

#endif /* SB_TB_COMMON_H */
