/* SPDX-License-Identifier: MIT */
/*
 * tb_hbm_trace: the HBM2 trace block (sb_hbm_trace, built with N = 4 and DEPTH = 16) against a
 * reference of its sampling. The testbench plays four AXI ports: handshakes with free AXI IDs
 * at random, each burst completing after a random latency (the first R beat of a read, B of a
 * write, with a random response) and is the host draining the ring through the register
 * interface while traffic goes on.
 *   sample   burst_len / gap / port_mask: exactly the handshakes the reference takes are
 *            recorded (none dropped at a low rate), each with its handshake time, address,
 *            beats, direction, ID, port, response, latency and sample_id; seq 0, 1, ... in
 *            ring order; check word; records and sample_id registers; the ring drained with
 *            partial releases so that it wraps many times
 *   full     an endless burst into an undrained ring: 16 records (seq 0..15, each one of the
 *            bursts taken), status.full, records + dropped == taken
 *   rate     every port at full rate, drained: queue and ring drops; every record read is a
 *            burst taken, none twice, records + dropped == taken
 *   dma      control.dma: every taken burst dropped and counted, nothing written
 *   reset    control.reset clears the counters and the ring; the configuration stays
 *   tb_hbm_trace [--seed N]
 */
#include <memory>
#include <set>
#include <string>
#include <unordered_map>

#include "Vsb_hbm_trace.h"
#include "sb_regmap.h"
#include "tb_common.h"

using namespace tb;

static const unsigned N = 4, DEPTH = 16, W = SB_HBM_TRACE_RECORD_WORDS;

struct Burst {
	uint64_t hs; /* handshake cycle */
	unsigned port, id, write, beats, resp;
	uint64_t addr;
	uint64_t done; /* completion cycle */
	bool taken;
	uint32_t sample;
};

/* Bits lsb.. of an input of up to 64 bits. */
template <class T> static void setf(T &v, unsigned lsb, unsigned width, uint64_t x)
{
	uint64_t m = ((1ull << width) - 1) << lsb;
	v = (T)(((uint64_t)v & ~m) | (x << lsb & m));
}

static uint64_t key(uint64_t hs, unsigned port, unsigned id)
{
	return hs << 8 | port << 6 | id;
}

struct Bench {
	std::unique_ptr<Vsb_hbm_trace> t;
	Rng rng;
	uint64_t cyc = 0;
	unsigned hs_pct = 10;
	unsigned lat_max = 60;
	/* traffic */
	std::vector<Burst> bursts;
	std::unordered_map<uint64_t, size_t> by_key;
	std::vector<size_t> inflight[N]; /* indices into bursts */
	bool busy[N][64] = {};
	/* the reference of the sampling (the registers as the testbench last wrote them) */
	bool enable = false;
	uint32_t burst_len = SB_TRACE_BURST_LEN_RESET, gap = 0, mask = SB_TRACE_PORT_MASK_RESET;
	uint32_t in_burst = 0, sample = 0;
	uint64_t gap_until = 0;
	uint64_t taken = 0;
	uint32_t ctl_kept = 0;

	explicit Bench(uint64_t seed) : t(new Vsb_hbm_trace), rng(seed)
	{
	}

	void traffic()
	{
		uint32_t hs = 0, rc = 0, bc = 0;
		bool ended = false;

		for (unsigned p = 0; p < N; p++) {
			/* completions: one read and one write at most per port and cycle */
			bool rdone = false, wdone = false;

			for (size_t k = 0; k < inflight[p].size(); k++) {
				Burst &b = bursts[inflight[p][k]];

				if (b.done > cyc || (b.write ? wdone : rdone))
					continue;
				auto put = [&](auto &id, auto &blk, auto &beats, auto &resp,
				               auto &lat) {
					setf(id, p * 6, 6, b.id);
					set_bits(blk.data(), p * 29, 29, b.addr >> 5);
					setf(beats, p * 5, 5, b.beats);
					setf(resp, p * 2, 2, b.resp);
					lat[p] = (uint32_t)(cyc - b.hs);
				};
				if (b.write) {
					wdone = true;
					bc |= 1u << p;
					put(t->bc_id, t->bc_blk, t->bc_beats, t->bc_resp,
					    t->bc_lat);
				} else {
					rdone = true;
					rc |= 1u << p;
					put(t->rc_id, t->rc_blk, t->rc_beats, t->rc_resp,
					    t->rc_lat);
				}
				b.done = cyc; /* one read and one write a cycle: maybe later */
				busy[p][b.id] = false;
				inflight[p].erase(inflight[p].begin() + k);
				k--;
			}
			/* a handshake */
			if (!rng.chance(hs_pct))
				continue;
			unsigned id = rng.range(0, 63);
			if (busy[p][id])
				continue;
			Burst b;
			b.hs = cyc;
			b.port = p;
			b.id = id;
			b.write = rng.range(0, 1);
			b.beats = rng.range(1, 16);
			b.resp = rng.chance(10) ? rng.range(1, 3) : 0;
			b.addr = (rng.u64() & 0x3FFFFFFFFull) & ~31ull;
			b.done = cyc + rng.range(1, lat_max);
			b.taken = false;
			b.sample = 0;
			if (enable && cyc >= gap_until && !ended && (mask >> p & 1)) {
				b.taken = true;
				b.sample = sample;
				taken++;
				if (burst_len && ++in_burst >= burst_len) {
					in_burst = 0;
					sample++;
					ended = true;
					gap_until = cyc + 1 + gap;
				}
			}
			busy[p][id] = true;
			hs |= 1u << p;
			setf(t->hs_id, p * 6, 6, id);
			inflight[p].push_back(bursts.size());
			by_key[key(b.hs, p, id)] = bursts.size();
			bursts.push_back(b);
		}
		t->hs_valid = hs;
		t->rc_valid = rc;
		t->bc_valid = bc;
	}

	void step()
	{
		t->now = cyc;
		traffic();
		tick(*t);
		cyc++;
	}

	void bus_idle()
	{
		t->reg_sel = 0;
		t->reg_wr_en = 0;
		t->reg_rd_en = 0;
	}

	uint32_t read(uint32_t off)
	{
		t->reg_sel = 1;
		t->reg_addr = off;
		t->reg_rd_en = 1;
		step();
		bus_idle();
		t->eval();
		uint32_t v = t->reg_rd_data;
		step(); /* the AXI4-Lite slave never strobes in consecutive cycles */
		return v;
	}

	void write(uint32_t off, uint32_t v)
	{
		t->reg_sel = 1;
		t->reg_addr = off;
		t->reg_wr_data = v;
		t->reg_wr_strb = 0xF;
		t->reg_wr_en = 1;
		step();
		bus_idle();
		step();
	}

	uint64_t read64(uint32_t off)
	{
		uint64_t lo = read(off);
		return lo | (uint64_t)read(off + 4) << 32;
	}

	/* Configure and enable; the reference follows (from the cycle after the write). */
	void start(uint32_t len, uint32_t g, uint32_t m, uint32_t ctl = 0)
	{
		write(SB_TRACE_CONTROL, 0);
		enable = false;
		write(SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK);
		write(SB_TRACE_BURST_LEN, len);
		write(SB_TRACE_GAP, g);
		write(SB_TRACE_PORT_MASK, m);
		burst_len = len;
		gap = g;
		mask = m;
		in_burst = 0;
		sample = 0;
		gap_until = 0;
		taken = 0;
		t->reg_sel = 1;
		t->reg_addr = SB_TRACE_CONTROL;
		t->reg_wr_data = SB_TRACE_CONTROL_ENABLE_MASK | ctl;
		ctl_kept = ctl;
		t->reg_wr_strb = 0xF;
		t->reg_wr_en = 1;
		t->now = cyc;
		traffic(); /* this cycle's handshakes are before the enable */
		tick(*t);
		cyc++;
		bus_idle();
		enable = true;
		step();
	}

	void stop_and_settle()
	{
		t->reg_sel = 1;
		t->reg_addr = SB_TRACE_CONTROL;
		t->reg_wr_data = ctl_kept; /* control.dma applies to the records still to come */
		t->reg_wr_strb = 0xF;
		t->reg_wr_en = 1;
		step(); /* disabled from the next cycle */
		bus_idle();
		enable = false;
		unsigned saved = hs_pct;
		hs_pct = 0;
		for (unsigned i = 0; i < lat_max + 20; i++)
			step();
		hs_pct = saved;
	}

	/* Drain up to `max` records from the ring (reads `count`, then releases part of them). */
	void drain(std::vector<std::vector<uint32_t>> &out, unsigned max)
	{
		uint32_t n = read(SB_TRACE_ONCHIP_COUNT);
		if (n > max)
			n = max;
		write(SB_TRACE_RD_INDEX, 0);
		for (uint32_t r = 0; r < n; r++) {
			std::vector<uint32_t> rec(W);
			for (unsigned w = 0; w < W; w++)
				rec[w] = read(SB_TRACE_RD_DATA);
			out.push_back(rec);
		}
		if (n)
			write(SB_TRACE_RD_RELEASE, n);
	}
};

/* Check each record against the burst it names; returns the index of that burst or -1. */
static long match(Bench &b, const std::vector<uint32_t> &r, std::set<size_t> &seen, uint32_t seq,
                  const char *what)
{
	uint64_t time = r[0] | (uint64_t)r[1] << 32;
	uint32_t w3 = r[3];
	unsigned port = SB_FIELD_GET(SB_HBM_TRACE_RECORD_PORT, w3);
	unsigned id = SB_FIELD_GET(SB_HBM_TRACE_RECORD_ID, w3);

	char f[8][96];

	for (unsigned k = 0; k < 8; k++)
		snprintf(f[k], sizeof(f[k]), "%s: record %u (port %u ID %u) %s", what, seq, port,
		         id,
		         (const char *[]){"check", "seq", "address", "write", "beats", "resp",
		                          "latency", "sample_id"}[k]);
	TB_EQ(r[7], r[0] ^ r[2] ^ r[3] ^ r[4] ^ SB_REGMAP_MAGIC, f[0]);
	TB_EQ(r[6], seq, f[1]);
	auto it = b.by_key.find(key(time, port, id));
	if (it != b.by_key.end()) {
		size_t i = it->second;
		const Burst &x = b.bursts[i];
		TB_CHECK(x.taken, "%s: record of a burst not taken (port %u, cycle %" PRIu64 ")",
		         what, port, time);
		TB_CHECK(!seen.count(i), "%s: burst recorded twice (port %u ID %u)", what, port,
		         id);
		seen.insert(i);
		TB_EQ(r[2], (uint32_t)x.addr, f[2]);
		TB_EQ(SB_FIELD_GET(SB_HBM_TRACE_RECORD_ADDR_HI, w3), x.addr >> 32, f[2]);
		TB_EQ(SB_FIELD_GET(SB_HBM_TRACE_RECORD_WRITE, w3), x.write, f[3]);
		TB_EQ(SB_FIELD_GET(SB_HBM_TRACE_RECORD_BEATS, w3), x.beats, f[4]);
		TB_EQ(SB_FIELD_GET(SB_HBM_TRACE_RECORD_RESP, w3), x.resp, f[5]);
		TB_EQ(r[4], x.done - x.hs, f[6]);
		TB_EQ(r[5], x.sample, f[7]);
		return (long)i;
	}
	fail("%s: record of no burst (port %u ID %u cycle %" PRIu64 ")", what, port, id, time);
	return -1;
}

static void run(Bench &b, const char *what, uint32_t len, uint32_t gap, uint32_t mask,
                unsigned cycles, bool expect_no_drops)
{
	std::vector<std::vector<uint32_t>> recs;
	std::set<size_t> seen;
	size_t from = b.bursts.size();

	uint64_t end = b.cyc + cycles;

	b.start(len, gap, mask);
	while (b.cyc < end && !g_fail) {
		b.drain(recs, b.rng.range(1, 7)); /* partial releases: the ring wraps */
		b.step();
	}
	b.stop_and_settle();
	for (;;) {
		size_t n = recs.size();
		b.drain(recs, DEPTH);
		if (recs.size() == n)
			break;
	}
	uint64_t records = b.read64(SB_TRACE_RECORDS), dropped = b.read64(SB_TRACE_DROPPED);
	std::string w(what);
	TB_EQ(records, recs.size(), (w + ": records vs read").c_str());
	TB_EQ(records + dropped, b.taken, (w + ": records + dropped vs taken").c_str());
	if (expect_no_drops)
		TB_EQ(dropped, 0, (w + ": dropped").c_str());
	TB_EQ(b.read(SB_TRACE_SAMPLE_ID), b.sample, (w + ": sample_id").c_str());
	for (uint32_t i = 0; i < recs.size() && !g_fail; i++)
		match(b, recs[i], seen, i, what);
	if (expect_no_drops)
		for (size_t i = from; i < b.bursts.size() && !g_fail; i++)
			TB_CHECK(!b.bursts[i].taken || seen.count(i),
			         "%s: burst taken but not recorded (port %u ID %u cycle %" PRIu64
			         ")",
			         what, b.bursts[i].port, b.bursts[i].id, b.bursts[i].hs);
	printf("tb_hbm_trace: %s: %zu records, %" PRIu64 " dropped, %u samples\n", what,
	       recs.size(), dropped, b.sample);
	TB_CHECK(recs.size() > DEPTH, "%s: too few records to wrap the ring", what);
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	Bench b(seed_arg(argc, argv, 1));

	b.bus_idle();
	reset_for(*b.t, 3);
	/* the block header and the reset values */
	TB_EQ(b.read(SB_BLK_TYPE), SB_BLK_TRACE_TYPE, "type");
	TB_EQ(b.read(SB_TRACE_RECORD_SIZE), 32, "record_size");
	TB_EQ(b.read(SB_TRACE_ONCHIP_DEPTH), DEPTH, "onchip_depth");
	TB_EQ(b.read(SB_TRACE_BURST_LEN), SB_TRACE_BURST_LEN_RESET, "burst_len reset");
	TB_EQ(b.read(SB_TRACE_PORT_MASK), SB_TRACE_PORT_MASK_RESET, "port_mask reset");
	b.write(SB_TRACE_BUF_ADDR + 4, 0x12345678);
	TB_EQ(b.read(SB_TRACE_BUF_ADDR + 4), 0x12345678, "buf_addr kept");
	TB_EQ(b.read(SB_TRACE_WR_PTR), 0, "wr_ptr (no DMA engine)");

	/* sample: bursts and gaps, ports 0, 1, 3 */
	b.hs_pct = 2;
	run(b, "sample", 5, 60, 0xB, 30000, true);
	/* one endless burst, ports 0 and 2, gap ignored */
	b.hs_pct = 1;
	run(b, "endless", 0, 7, 0x5, 30000, true);
	/* burst_len 1, gap 0: a burst ends at the first taken handshake of a cycle */
	b.hs_pct = 30;
	run(b, "burst of one", 1, 0, 0xF, 20000, false);
	/* full rate: queue and ring drops */
	b.hs_pct = 100;
	b.lat_max = 8;
	run(b, "rate", 0, 0, 0xF, 20000, false);
	b.lat_max = 60;

	/* full: an endless burst, nothing drained */
	{
		std::vector<std::vector<uint32_t>> recs;
		std::set<size_t> seen;

		b.hs_pct = 10;
		b.start(0, 0, 0xF);
		for (unsigned i = 0; i < 2000; i++)
			b.step();
		b.stop_and_settle();
		TB_EQ(b.read(SB_TRACE_ONCHIP_COUNT), DEPTH, "full: onchip_count");
		TB_EQ(SB_FIELD_GET(SB_TRACE_STATUS_FULL, b.read(SB_TRACE_STATUS)), 1,
		      "full: status");
		TB_EQ(b.read64(SB_TRACE_RECORDS), DEPTH, "full: records");
		TB_EQ(b.read64(SB_TRACE_DROPPED), b.taken - DEPTH, "full: dropped");
		b.drain(recs, DEPTH);
		for (uint32_t i = 0; i < recs.size(); i++)
			match(b, recs[i], seen, i, "full");
		TB_EQ(recs.size(), DEPTH, "full: records read");
		b.write(SB_TRACE_RD_RELEASE, 1000); /* more than held: empty */
		TB_EQ(b.read(SB_TRACE_ONCHIP_COUNT), 0, "release of more than held");
		TB_EQ(b.read(SB_TRACE_RD_INDEX), 0, "release sets rd_index 0");
	}
	/* dma: every record dropped */
	{
		b.start(0, 0, 0xF, SB_TRACE_CONTROL_DMA_MASK);
		for (unsigned i = 0; i < 2000; i++)
			b.step();
		b.stop_and_settle();
		TB_EQ(b.read(SB_TRACE_ONCHIP_COUNT), 0, "dma: onchip_count");
		TB_EQ(b.read64(SB_TRACE_RECORDS), 0, "dma: records");
		TB_EQ(b.read64(SB_TRACE_DROPPED), b.taken, "dma: dropped");
		TB_CHECK(b.taken > 100, "dma: %" PRIu64 " bursts taken", b.taken);
	}
	/* reset */
	b.write(SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK);
	TB_EQ(b.read64(SB_TRACE_RECORDS), 0, "reset: records");
	TB_EQ(b.read64(SB_TRACE_DROPPED), 0, "reset: dropped");
	TB_EQ(b.read(SB_TRACE_SAMPLE_ID), 0, "reset: sample_id");
	TB_EQ(b.read(SB_TRACE_PORT_MASK), 0xF, "reset keeps port_mask");
	TB_EQ(b.read(SB_TRACE_CONTROL), 0, "control after reset pulse");
	return finish("tb_hbm_trace");
}