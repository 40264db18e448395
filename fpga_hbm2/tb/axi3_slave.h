/* SPDX-License-Identifier: MIT */
/*
 * A behavioural AXI3 slave memory for the HBM2 engine's testbenches: random back-pressure on
 * AR, AW and W, random latencies, read bursts returned out of order across IDs (whole bursts,
 * one beat per cycle, random idle cycles between), write data accepted before or after its
 * address (AXI allows both), B after a random latency, optional SLVERR responses and corrupted
 * read beats, and a memory of 32-byte blocks (never-written blocks hold the write pattern of
 * fill_seed, so a checked read of them matches). It checks the protocol as it goes: AxSIZE 32
 * bytes, INCR, at most 16 beats, no 4 KB crossing, no ID used twice while outstanding, WID of
 * the matching AW, WLAST on the last beat and only there, all byte strobes, RREADY / BREADY.
 *
 * Per cycle: drive() sets the slave's outputs, the design is evaluated with the clock low,
 * observe() takes the handshakes of that cycle, then the clock rises.
 */
#ifndef SB_HBM_AXI3_SLAVE_H
#define SB_HBM_AXI3_SLAVE_H

#include <array>
#include <deque>
#include <map>
#include <vector>

#include "hbm_traffic.h"
#include "tb_common.h"

namespace tb
{

/* One AXI3 port as plain values; the harness copies them to / from the Verilated model. */
struct AxiPins {
	/* from the design */
	bool arvalid = false, awvalid = false, wvalid = false, wlast = false;
	bool rready = false, bready = false;
	uint64_t araddr = 0, awaddr = 0;
	unsigned arid = 0, arlen = 0, arsize = 0, arburst = 0;
	unsigned awid = 0, awlen = 0, awsize = 0, awburst = 0, wid = 0;
	uint32_t wdata[8] = {0};
	uint32_t wstrb = 0;
	/* to the design */
	bool arready = false, awready = false, wready = false;
	bool rvalid = false, rlast = false, bvalid = false;
	unsigned rid = 0, rresp = 0, bid = 0, bresp = 0;
	uint32_t rdata[8] = {0};
};

typedef std::array<uint32_t, 8> Block;

/* Memory of 32-byte blocks, shared by the slaves of a design. */
struct Memory {
	uint32_t fill_seed = 0;
	std::map<uint64_t, Block> blocks;

	Block get(uint64_t addr) const
	{
		auto it = blocks.find(addr >> 5);
		Block b;

		if (it != blocks.end())
			return it->second;
		for (unsigned w = 0; w < 8; w++)
			b[w] = sb_hbm_pattern(fill_seed, addr, w);
		return b;
	}
	void put(uint64_t addr, const uint32_t *d)
	{
		Block b;

		for (unsigned w = 0; w < 8; w++)
			b[w] = d[w];
		blocks[addr >> 5] = b;
	}
};

struct Axi3Cfg {
	unsigned ar_ready_pct = 70, aw_ready_pct = 70, w_ready_pct = 70;
	unsigned lat_min = 3, lat_max = 40; /* handshake (or last W beat) to the first R beat / B */
	unsigned r_idle_pct = 10;
	unsigned err_pct = 0;     /* bursts answered with SLVERR */
	unsigned corrupt_pct = 0; /* read beats with a flipped bit */
};

/* A burst as the slave saw it. */
struct AxiBurst {
	bool write = false;
	uint64_t addr = 0;
	unsigned beats = 0, id = 0;
	uint64_t hs = 0;    /* AR / AW handshake cycle */
	uint64_t first = 0; /* first R beat (reads), B (writes) */
	uint64_t done = 0;  /* RLAST / B */
	unsigned resp = 0;
	unsigned corrupt = 0; /* corrupted beats */
	bool finished = false;
};

class Axi3Slave
{
      public:
	std::vector<AxiBurst> log; /* every AR / AW handshake, in order */

	Axi3Slave(Rng &r, const Axi3Cfg &c, Memory &m, const char *name)
	    : rng(r), cfg(c), mem(m), who(name)
	{
	}

	/* New settings for the next bursts (back-pressure, latencies, faults). */
	void configure(const Axi3Cfg &c)
	{
		cfg = c;
	}

	unsigned outstanding() const
	{
		return (unsigned)(reads.size() + aws.size() + bq.size());
	}

	void drive(AxiPins &p)
	{
		p.arready = rng.chance(cfg.ar_ready_pct);
		p.awready = rng.chance(cfg.aw_ready_pct);
		p.wready = rng.chance(cfg.w_ready_pct);
		/* R: the beat of the burst being returned, or start another that is due */
		p.rvalid = false;
		if (cur < 0 && !rng.chance(cfg.r_idle_pct)) {
			std::vector<int> due;

			for (size_t i = 0; i < reads.size(); i++)
				if (reads[i].ready_at <= now)
					due.push_back((int)i);
			if (!due.empty())
				cur = due[rng.range(0, (uint32_t)due.size() - 1)];
		}
		if (cur >= 0) {
			Pending &r = reads[(size_t)cur];
			AxiBurst &b = log[r.log];
			Block d = mem.get(b.addr + 32ull * r.beat);

			p.rvalid = true;
			p.rid = b.id;
			p.rresp = b.resp;
			p.rlast = r.beat + 1 == b.beats;
			if (r.beat < 16 && (r.corrupt >> r.beat & 1))
				d[rng.range(0, 7)] ^= 1u << rng.range(0, 31);
			for (unsigned w = 0; w < 8; w++)
				p.rdata[w] = d[w];
		}
		/* B: the oldest due response */
		p.bvalid = false;
		for (size_t i = 0; i < bq.size(); i++)
			if (bq[i].ready_at <= now) {
				p.bvalid = true;
				p.bid = log[bq[i].log].id;
				p.bresp = log[bq[i].log].resp;
				bsel = (int)i;
				break;
			}
	}

	void observe(const AxiPins &p)
	{
		if (p.arvalid && p.arready)
			take_cmd(false, p.araddr, p.arid, p.arlen, p.arsize, p.arburst);
		if (p.awvalid && p.awready)
			take_cmd(true, p.awaddr, p.awid, p.awlen, p.awsize, p.awburst);
		if (p.wvalid && p.wready)
			take_w(p);
		if (p.rvalid) {
			TB_CHECK(p.rready, "%s: RREADY low", who);
			if (p.rready)
				r_beat();
		}
		if (p.bvalid) {
			TB_CHECK(p.bready, "%s: BREADY low", who);
			if (p.bready) {
				AxiBurst &b = log[bq[(size_t)bsel].log];

				b.first = b.done = now;
				b.finished = true;
				bq.erase(bq.begin() + bsel);
			}
		}
		match_writes();
		now++;
	}

      private:
	struct Pending {
		size_t log;
		uint64_t ready_at;
		unsigned beat = 0;
		uint32_t corrupt = 0;
	};
	struct WData {
		unsigned id;
		std::vector<Block> beats;
		bool complete = false;
		uint64_t last_cycle = 0;
	};

	Rng &rng;
	Axi3Cfg cfg;
	Memory &mem;
	const char *who;
	uint64_t now = 0;
	std::vector<Pending> reads;
	int cur = -1;
	std::deque<size_t> aws;  /* AW handshakes waiting for their data (log indices) */
	std::deque<WData> wq;    /* write data in order, possibly ahead of its AW */
	std::vector<Pending> bq; /* writes complete, B due */
	int bsel = -1;
	std::map<unsigned, bool> busy_ids;

	unsigned latency()
	{
		return rng.range(cfg.lat_min, cfg.lat_max);
	}

	void take_cmd(bool write, uint64_t addr, unsigned id, unsigned len, unsigned size,
	              unsigned burst)
	{
		AxiBurst b;

		TB_CHECK(size == 5, "%s: AxSIZE %u, expected 5 (32 bytes)", who, size);
		TB_CHECK(burst == 1, "%s: AxBURST %u, expected INCR", who, burst);
		TB_CHECK(len <= 15, "%s: AxLEN %u", who, len);
		TB_CHECK((addr & 31) == 0, "%s: address 0x%" PRIx64 " not 32-byte aligned", who,
		         addr);
		TB_CHECK((addr & ~4095ull) == ((addr + 32ull * (len + 1) - 1) & ~4095ull),
		         "%s: burst at 0x%" PRIx64 " of %u beats crosses 4 KB", who, addr, len + 1);
		TB_CHECK(!busy_ids[id], "%s: ID %u reused while outstanding", who, id);
		busy_ids[id] = true;
		b.write = write;
		b.addr = addr;
		b.beats = len + 1;
		b.id = id;
		b.hs = now;
		b.resp = rng.chance(cfg.err_pct) ? 2 : 0;
		log.push_back(b);
		if (write) {
			aws.push_back(log.size() - 1);
		} else {
			Pending r;

			r.log = log.size() - 1;
			r.ready_at = now + latency();
			for (unsigned i = 0; i <= len; i++)
				if (rng.chance(cfg.corrupt_pct))
					r.corrupt |= 1u << i;
			log.back().corrupt = (unsigned)__builtin_popcount(r.corrupt);
			reads.push_back(r);
		}
	}

	void take_w(const AxiPins &p)
	{
		Block d;

		TB_CHECK(p.wstrb == 0xFFFFFFFFu, "%s: WSTRB 0x%08x", who, p.wstrb);
		if (wq.empty() || wq.back().complete) {
			WData w;

			w.id = p.wid;
			wq.push_back(w);
		}
		WData &w = wq.back();
		TB_CHECK(w.id == p.wid, "%s: WID changed inside a burst (%u, then %u)", who, w.id,
		         p.wid);
		for (unsigned i = 0; i < 8; i++)
			d[i] = p.wdata[i];
		w.beats.push_back(d);
		TB_CHECK(w.beats.size() <= 16, "%s: more than 16 W beats without WLAST", who);
		if (p.wlast) {
			w.complete = true;
			w.last_cycle = now;
		}
	}

	/* A write whose AW and whole data are in: store it, schedule B. */
	void match_writes()
	{
		while (!aws.empty() && !wq.empty() && wq.front().complete) {
			AxiBurst &b = log[aws.front()];
			WData &w = wq.front();
			Pending q;

			TB_CHECK(w.id == b.id, "%s: W data with WID %u for the AW with ID %u", who,
			         w.id, b.id);
			TB_CHECK(w.beats.size() == b.beats,
			         "%s: %zu W beats for AWLEN+1 = %u (WLAST)", who, w.beats.size(),
			         b.beats);
			for (size_t i = 0; i < w.beats.size(); i++)
				mem.put(b.addr + 32 * i, w.beats[i].data());
			q.log = aws.front();
			q.ready_at = std::max(now, b.hs) + latency();
			bq.push_back(q);
			busy_ids[b.id] =
			    false; /* the next use of the ID can only follow B anyway */
			aws.pop_front();
			wq.pop_front();
		}
	}

	void r_beat()
	{
		Pending &r = reads[(size_t)cur];
		AxiBurst &b = log[r.log];

		if (r.beat == 0)
			b.first = now;
		r.beat++;
		if (r.beat == b.beats) {
			b.done = now;
			b.finished = true;
			busy_ids[b.id] = false;
			reads.erase(reads.begin() + cur);
			cur = -1;
		}
	}
};

} /* namespace tb */

#endif /* SB_HBM_AXI3_SLAVE_H */
