/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_trace (built with DEPTH=64): random record offers from the ports (random
 * idle cycles, collisions, port-side drops) against the burst / gap sampling.
 *   bursts   record i belongs to burst i / burst_len; every record of burst k+1 was offered
 *            at least `gap` cycles after burst k completed, and the first offer eligible after
 *            the gap is recorded; record contents, check word, seq equal what was offered
 *   full     an endless burst into the full on-chip buffer: records + dropped == offers
 *   ring     the host drains the on-chip ring (rd_release) while records keep coming: every
 *            record read exactly once in seq order (partial releases re-read the rest from
 *            index 0), records + dropped == offers, a release of more than held empties it
 *   dma      records on the AXI4-Stream with back-pressure: tuser = buf_addr + wr_ptr, wr_ptr
 *            wraps at buf_size (status.wrapped), records + dropped == offers
 */
#include <memory>

#include "Vsb_trace.h"
#include "sb_regmap.h"
#include "tb_common.h"

using namespace tb;

static const unsigned N = 9, DEPTH = 64;

struct Offer {
	uint64_t cycle;
	unsigned port;
	uint64_t addr;
	unsigned write, flits, tag, errstat;
	uint32_t time, latency;
};

/* Bits of a 33..64-bit port. */
static void set_q(QData &q, unsigned lsb, unsigned width, uint64_t v)
{
	uint32_t w[2] = {(uint32_t)q, (uint32_t)(q >> 32)};
	set_bits(w, lsb, width, v);
	q = w[0] | (uint64_t)w[1] << 32;
}

struct Bench {
	std::unique_ptr<Vsb_trace> t;
	Rng rng;
	uint64_t cyc = 0;
	unsigned offer_pct = 8;     /* per port and cycle */
	uint32_t active_ports = 0x0F;
	unsigned drop_pct = 0;      /* port-side drops */
	bool offering = false;
	std::vector<Offer> offers;
	std::vector<uint64_t> burst_done;
	uint64_t port_drops = 0;
	std::vector<std::pair<uint64_t, std::vector<uint32_t>>> axis; /* (tuser, words) */
	unsigned tready_pct = 50;

	Bench(uint64_t seed) : t(new Vsb_trace), rng(seed) {}

	void step()
	{
		uint32_t valid = 0, drop = 0;
		if (offering)
			for (unsigned p = 0; p < N; p++) {
				if (!(active_ports >> p & 1))
					continue;
				if (rng.chance(drop_pct)) {
					drop |= 1u << p;
					continue;
				}
				if (!rng.chance(offer_pct))
					continue;
				Offer o;
				o.cycle = cyc;
				o.port = p;
				o.addr = rng.u64() & 0x3FFFFFFF0ull;
				o.write = rng.range(0, 1);
				o.flits = rng.range(1, 8);
				o.tag = rng.range(0, 63);
				o.errstat = rng.chance(10) ? rng.range(1, 127) : 0;
				o.latency = rng.range(0, 500);
				o.time = (uint32_t)(cyc - (cyc > o.latency ? o.latency : cyc));
				valid |= 1u << p;
				set_bits(&t->trc_addr[0], p * 34, 34, o.addr);
				set_q(t->trc_flits, p * 4, 4, o.flits);
				set_q(t->trc_tag, p * 6, 6, o.tag);
				set_q(t->trc_errstat, p * 7, 7, o.errstat);
				set_bits(&t->trc_time[0], p * 32, 32, o.time);
				set_bits(&t->trc_latency[0], p * 32, 32, o.latency);
				uint32_t w = t->trc_write;
				set_bits(&w, p, 1, o.write);
				t->trc_write = w;
				offers.push_back(o);
			}
		t->trc_valid = valid;
		t->trc_drop = drop;
		port_drops += __builtin_popcount(drop);
		t->now = cyc;
		t->m_axis_tready = rng.chance(tready_pct);
		t->clk = 0;
		t->eval();
		bool beat = t->m_axis_tvalid && t->m_axis_tready;
		if (beat) {
			std::vector<uint32_t> w(8);
			for (int i = 0; i < 8; i++)
				w[i] = t->m_axis_tdata[i];
			axis.push_back({t->m_axis_tuser, w});
		}
		t->clk = 1;
		t->eval();
		cyc++;
		if (t->burst_done)
			burst_done.push_back(cyc); /* high during cycle cyc */
		t->reg_wr_en = 0;
		t->reg_rd_en = 0;
	}

	void write(uint32_t off, uint32_t v)
	{
		t->reg_sel = 1;
		t->reg_addr = off;
		t->reg_wr_en = 1;
		t->reg_wr_data = v;
		t->reg_wr_strb = 0xF;
		step();
		step();
	}

	uint32_t read(uint32_t off)
	{
		t->reg_sel = 1;
		t->reg_addr = off;
		t->reg_rd_en = 1;
		step();
		uint32_t v = t->reg_rd_data;
		step();
		step();
		return v;
	}

	uint64_t read64(uint32_t off)
	{
		uint64_t lo = read(off);
		return lo | (uint64_t)read(off + 4) << 32;
	}

	void reset()
	{
		t->rst = 1;
		step();
		step();
		t->rst = 0;
		step();
	}

	std::vector<std::vector<uint32_t>> records()
	{
		std::vector<std::vector<uint32_t>> v;
		unsigned n = read(SB_TRACE_ONCHIP_COUNT);
		write(SB_TRACE_RD_INDEX, 0);
		for (unsigned i = 0; i < n; i++) {
			std::vector<uint32_t> w(8);
			for (int k = 0; k < 8; k++)
				w[k] = read(SB_TRACE_RD_DATA);
			v.push_back(w);
		}
		return v;
	}
};

/* The offer a record came from (same port, address, tag, time); -1 if none. */
static long find_offer(const std::vector<Offer> &offers, const std::vector<uint32_t> &w)
{
	unsigned port = (w[3] >> 16) & 0xFF, tag = (w[3] >> 8) & 0xFF;
	uint64_t addr = w[2] | (uint64_t)(w[3] & 3) << 32;
	for (size_t i = 0; i < offers.size(); i++) {
		const Offer &o = offers[i];
		if (o.port == port && o.addr == addr && o.tag == tag && o.time == w[0])
			return (long)i;
	}
	return -1;
}

static void check_record(const std::vector<Offer> &offers, const std::vector<uint32_t> &w,
                         unsigned i)
{
	TB_EQ(w[7], w[0] ^ w[2] ^ w[3] ^ w[4] ^ SB_REGMAP_MAGIC, "check word");
	TB_EQ(w[6], i, "seq");
	TB_EQ(w[1], 0, "time_hi");
	long k = find_offer(offers, w);
	if (k < 0) {
		fail("record %u matches no offer", i);
		return;
	}
	const Offer &o = offers[(size_t)k];
	TB_EQ((w[3] >> 2) & 1, o.write, "record write");
	TB_EQ((w[3] >> 4) & 0xF, o.flits, "record flits");
	TB_EQ((w[3] >> 24) & 0x7F, o.errstat, "record errstat");
	TB_EQ(w[4], o.latency, "record latency");
}

static void test_bursts(uint64_t seed)
{
	Bench b(seed);
	const unsigned burst = 10, gap = 150;

	b.reset();
	b.write(SB_TRACE_BURST_LEN, burst);
	b.write(SB_TRACE_GAP, gap);
	b.write(SB_TRACE_PORT_MASK, 0x07); /* port 3 offers but is not recorded */
	b.write(SB_TRACE_CONTROL, SB_TRACE_CONTROL_ENABLE_MASK);
	b.offering = true;
	while (b.burst_done.size() < 5)
		b.step();
	b.offering = false;
	b.write(SB_TRACE_CONTROL, 0);
	for (int i = 0; i < 10; i++)
		b.step();
	auto recs = b.records();
	TB_CHECK(recs.size() >= 5 * burst, "%zu records for 5 bursts", recs.size());
	/* Stopped in the gap after the last burst: sample_id is that burst's number. */
	TB_EQ(b.read(SB_TRACE_SAMPLE_ID), recs.size() / burst - 1, "sample_id");
	for (unsigned i = 0; i < recs.size(); i++) {
		const std::vector<uint32_t> &w = recs[i];
		check_record(b.offers, w, i);
		unsigned k = i / burst;
		TB_EQ(w[5], k, "record in burst i / burst_len");
		TB_CHECK(((w[3] >> 16) & 0xFF) < 3, "record of a masked port");
		long o = find_offer(b.offers, w);
		if (o < 0)
			continue;
		uint64_t at = b.offers[(size_t)o].cycle;
		if (k < b.burst_done.size())
			TB_CHECK(at < b.burst_done[k], "record %u offered before its burst ended", i);
		if (k > 0)
			TB_CHECK(at >= b.burst_done[k - 1] + gap,
			         "record %u offered at %" PRIu64 " inside the gap after %" PRIu64, i, at,
			         b.burst_done[k - 1]);
	}
	/* The first eligible offer after each gap is recorded first in the next burst. */
	for (size_t k = 0; k + 1 < b.burst_done.size() && (k + 1) * burst < recs.size(); k++) {
		uint64_t open = b.burst_done[k] + gap;
		for (const Offer &o : b.offers)
			if (o.cycle >= open && o.port < 3) {
				TB_EQ(find_offer(b.offers, recs[(k + 1) * burst]) >= 0 &&
				          b.offers[(size_t)find_offer(b.offers, recs[(k + 1) * burst])].cycle ==
				              o.cycle,
				      1, "first eligible offer after the gap starts the burst");
				break;
			}
	}
	TB_EQ(b.read64(SB_TRACE_RECORDS), recs.size(), "records");
	printf("bursts: %zu records in %zu bursts, dropped %" PRIu64 "\n", recs.size(),
	       b.burst_done.size(), b.read64(SB_TRACE_DROPPED));
}

static uint64_t eligible(const Bench &b, uint32_t mask)
{
	uint64_t n = 0;
	for (const Offer &o : b.offers)
		n += mask >> o.port & 1;
	return n;
}

static void test_full(uint64_t seed)
{
	Bench b(seed);

	b.reset();
	b.active_ports = 0x1FF;
	b.offer_pct = 20;
	b.drop_pct = 1;
	b.write(SB_TRACE_BURST_LEN, 0);
	b.write(SB_TRACE_CONTROL, SB_TRACE_CONTROL_ENABLE_MASK);
	b.offering = true;
	for (int i = 0; i < 2000; i++)
		b.step();
	b.offering = false;
	for (int i = 0; i < 20; i++)
		b.step();
	TB_EQ(b.read(SB_TRACE_ONCHIP_COUNT), DEPTH, "buffer full");
	TB_CHECK(b.read(SB_TRACE_STATUS) & SB_TRACE_STATUS_FULL_MASK, "status.full");
	uint64_t rec = b.read64(SB_TRACE_RECORDS), drop = b.read64(SB_TRACE_DROPPED);
	TB_EQ(rec, DEPTH, "records when full");
	TB_EQ(rec + drop, eligible(b, 0x1FF) + b.port_drops, "records + dropped == offers");
	auto recs = b.records();
	for (unsigned i = 0; i < recs.size(); i++)
		check_record(b.offers, recs[i], i);
	TB_EQ(b.read(SB_TRACE_RD_DATA), 0, "reads past the records give 0");
	b.write(SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK);
	TB_EQ(b.read(SB_TRACE_ONCHIP_COUNT), 0, "reset empties the buffer");
	TB_EQ(b.read64(SB_TRACE_DROPPED), 0, "reset clears dropped");
	printf("full: %" PRIu64 " records, %" PRIu64 " dropped\n", rec, drop);
}

static void test_ring(uint64_t seed)
{
	Bench b(seed);
	uint32_t next_seq = 0;

	b.reset();
	b.active_ports = 0x1FF;
	b.offer_pct = 1;
	b.write(SB_TRACE_BURST_LEN, 0);
	b.write(SB_TRACE_CONTROL, SB_TRACE_CONTROL_ENABLE_MASK);
	b.offering = true;
	for (int round = 0; round < 60; round++) {
		for (unsigned i = b.rng.range(0, 300); i; i--)
			b.step();
		if (round == 40)
			b.offering = false;
		unsigned n = b.read(SB_TRACE_ONCHIP_COUNT);
		TB_CHECK(n <= DEPTH, "onchip_count %u", n);
		/* Read what is held (more may arrive meanwhile), release a random part of it. */
		unsigned take = b.rng.chance(30) ? b.rng.range(0, n) : n;
		b.write(SB_TRACE_RD_INDEX, 0);
		for (unsigned i = 0; i < n; i++) {
			std::vector<uint32_t> w(8);
			for (int k = 0; k < 8; k++)
				w[k] = b.read(SB_TRACE_RD_DATA);
			if (i < take) {
				TB_EQ(w[6], next_seq, "ring: records in seq order, each once");
				check_record(b.offers, w, next_seq);
				next_seq++;
			}
		}
		b.write(SB_TRACE_RD_RELEASE, take);
		TB_EQ(b.read(SB_TRACE_RD_INDEX), 0, "rd_release resets rd_index");
	}
	b.write(SB_TRACE_CONTROL, 0);
	unsigned left = b.read(SB_TRACE_ONCHIP_COUNT);
	b.write(SB_TRACE_RD_INDEX, 0);
	for (unsigned i = 0; i < left; i++) {
		std::vector<uint32_t> w(8);
		for (int k = 0; k < 8; k++)
			w[k] = b.read(SB_TRACE_RD_DATA);
		TB_EQ(w[6], next_seq, "ring: the rest in seq order");
		next_seq++;
	}
	b.write(SB_TRACE_RD_RELEASE, 0xFFFFFFFFu); /* more than held: empties it */
	TB_EQ(b.read(SB_TRACE_ONCHIP_COUNT), 0, "released everything");
	uint64_t rec = b.read64(SB_TRACE_RECORDS), drop = b.read64(SB_TRACE_DROPPED);
	TB_EQ(rec, next_seq, "every record read once");
	TB_EQ(rec + drop, eligible(b, 0x1FF), "records + dropped == offers");
	TB_CHECK(rec > 3 * DEPTH, "the ring wrapped (%" PRIu64 " records)", rec);
	printf("ring: %" PRIu64 " records read while capturing, %" PRIu64 " dropped\n", rec, drop);
}

static void test_dma(uint64_t seed)
{
	Bench b(seed);
	const uint64_t buf = 0x12345678000ull;
	const uint32_t size = 32 * 40;

	b.reset();
	b.active_ports = 0x1FF;
	b.offer_pct = 5;
	b.write(SB_TRACE_BURST_LEN, 0);
	b.write(SB_TRACE_BUF_ADDR, (uint32_t)buf);
	b.write(SB_TRACE_BUF_ADDR + 4, (uint32_t)(buf >> 32));
	b.write(SB_TRACE_BUF_SIZE, size);
	b.write(SB_TRACE_CONTROL, SB_TRACE_CONTROL_ENABLE_MASK | SB_TRACE_CONTROL_DMA_MASK);
	b.offering = true;
	for (int i = 0; i < 3000; i++)
		b.step();
	b.offering = false;
	for (int i = 0; i < 50; i++)
		b.step();
	uint64_t rec = b.read64(SB_TRACE_RECORDS), drop = b.read64(SB_TRACE_DROPPED);
	TB_EQ(b.axis.size(), rec, "records on the stream");
	TB_EQ(rec + drop, eligible(b, 0x1FF), "records + dropped == offers");
	TB_EQ(b.read(SB_TRACE_ONCHIP_COUNT), 0, "nothing on chip in DMA mode");
	for (size_t i = 0; i < b.axis.size(); i++) {
		TB_EQ(b.axis[i].first, buf + (i * 32) % size, "tuser = buf_addr + wr_ptr");
		check_record(b.offers, b.axis[i].second, (unsigned)i);
	}
	TB_EQ(b.read(SB_TRACE_WR_PTR), (rec * 32) % size, "wr_ptr");
	TB_EQ(!!(b.read(SB_TRACE_STATUS) & SB_TRACE_STATUS_WRAPPED_MASK), rec * 32 >= size,
	      "status.wrapped");
	printf("dma: %" PRIu64 " records, %" PRIu64 " dropped\n", rec, drop);
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);

	test_bursts(seed);
	test_full(seed + 1);
	test_dma(seed + 2);
	test_ring(seed + 3);
	return finish("tb_trace");
}
