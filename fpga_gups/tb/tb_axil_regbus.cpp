/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_axil_regbus (ADDR_W = 16): an AXI4-Lite master with random valid timing on
 * AW, W and AR (each channel on its own, so address and data of a write arrive in either order;
 * phases from back to back to long idle gaps) and random back-pressure on B and R, against a
 * register-bus memory that answers a read one cycle after reg_rd_en (random values on
 * reg_rd_data in every other cycle). Checks:
 *   - the k-th register write strobe carries the k-th AW address (bits 1..0 cleared) with the
 *     k-th W data and byte strobes; the k-th read strobe the k-th AR address
 *   - the k-th R beat carries the data the register bus gave the k-th read (no reordering,
 *     sampled in the right cycle); B and R count the strobes, never run ahead
 *   - responses are always OKAY (the documented policy: the slave decodes nothing; the top
 *     returns 0xFFFFFFFF for addresses beyond the register space)
 *   - AXI rules on the slave's outputs: BVALID / RVALID stay high with stable RDATA until taken
 *   - a strobe comes at least 2 cycles after a write strobe and 4 after a read strobe (exactly
 *     that back to back); when a read and a write both wait, they alternate
 *   - end to end: writes with random byte strobes, each read back after its response, equal a
 *     byte-merging model of the memory
 */
#include <memory>

#include "Vsb_axil_regbus.h"
#include "tb_common.h"

using namespace tb;

struct Wr {
	uint32_t addr, data, strb;
};

struct Chan {
	bool valid = false;
	unsigned gap = 0;
	size_t next = 0; /* index of the next item to present */
};

struct Phase {
	unsigned gap_max; /* idle cycles between items on AW / W / AR */
	unsigned b_ready_pct, r_ready_pct;
};

struct Bench {
	std::unique_ptr<Vsb_axil_regbus> top;
	Rng rng;
	uint64_t cyc = 0;
	Phase ph{3, 60, 60};
	/* the master's transactions */
	std::vector<Wr> wr;       /* AW i is paired with W i */
	std::vector<uint32_t> rd; /* AR addresses */
	Chan aw, w, ar;
	size_t aw_done = 0, w_done = 0, ar_done = 0;
	/* the register bus side */
	std::map<uint32_t, uint32_t> mem;
	bool rd_en_cycle = false, rd_answer = false;
	uint32_t rd_value = 0;
	std::vector<uint32_t> rd_given; /* data given for read strobe k */
	size_t wr_strobes = 0, rd_strobes = 0, b_count = 0, r_count = 0;
	uint64_t last_strobe = 0;
	bool have_strobe = false, last_was_rd = false;
	uint64_t both_waiting = 0;
	uint64_t min_gap[2] = {UINT64_MAX, UINT64_MAX}; /* after a write / read strobe */
	/* previous cycle's outputs (protocol checks) */
	bool bvalid_p = false, rvalid_p = false, bready_p = false, rready_p = false;
	uint32_t rdata_p = 0;

	explicit Bench(uint64_t seed) : top(new Vsb_axil_regbus), rng(seed)
	{
	}

	void chan_drive(Chan &c, size_t n)
	{
		if (!c.valid && c.next < n) {
			if (c.gap == 0)
				c.valid = true;
			else
				c.gap--;
		}
	}

	void step()
	{
		chan_drive(aw, wr.size());
		chan_drive(w, wr.size());
		chan_drive(ar, rd.size());
		top->s_axil_awvalid = aw.valid;
		top->s_axil_awaddr = aw.valid ? wr[aw.next].addr : (uint32_t)rng.u64() & 0xFFFF;
		top->s_axil_awprot = rng.range(0, 7);
		top->s_axil_wvalid = w.valid;
		top->s_axil_wdata = w.valid ? wr[w.next].data : (uint32_t)rng.u64();
		top->s_axil_wstrb = w.valid ? wr[w.next].strb : rng.range(0, 15);
		top->s_axil_arvalid = ar.valid;
		top->s_axil_araddr = ar.valid ? rd[ar.next] : (uint32_t)rng.u64() & 0xFFFF;
		top->s_axil_arprot = rng.range(0, 7);
		top->s_axil_bready = rng.chance(ph.b_ready_pct);
		top->s_axil_rready = rng.chance(ph.r_ready_pct);
		/* The register bus answers a read in the cycle after its strobe (a block registers
		 * the value at the edge that ends the strobe cycle); random values otherwise. */
		if (rd_en_cycle) {
			rd_value = mem[top->reg_addr];
			rd_given.push_back(rd_value);
		}
		top->reg_rd_data = rd_answer ? rd_value : (uint32_t)rng.u64();
		rd_answer = rd_en_cycle;
		top->clk = 0;
		top->eval();

		/* AXI rules on the slave's outputs. */
		if (bvalid_p && !bready_p)
			TB_CHECK(top->s_axil_bvalid, "BVALID dropped before BREADY");
		if (rvalid_p && !rready_p) {
			TB_CHECK(top->s_axil_rvalid, "RVALID dropped before RREADY");
			TB_EQ(top->s_axil_rdata, rdata_p, "RDATA changed while RVALID waited");
		}
		if (top->s_axil_bvalid)
			TB_EQ(top->s_axil_bresp, 0, "BRESP OKAY");
		if (top->s_axil_rvalid)
			TB_EQ(top->s_axil_rresp, 0, "RRESP OKAY");
		bool aw_hs = top->s_axil_awvalid && top->s_axil_awready;
		bool w_hs = top->s_axil_wvalid && top->s_axil_wready;
		bool ar_hs = top->s_axil_arvalid && top->s_axil_arready;
		bool b_hs = top->s_axil_bvalid && top->s_axil_bready;
		bool r_hs = top->s_axil_rvalid && top->s_axil_rready;
		if (r_hs) {
			if (r_count < rd_given.size())
				TB_EQ(top->s_axil_rdata, rd_given[r_count],
				      "R data of the k-th read");
			else
				fail("R beat %zu before its read reached the register bus",
				     r_count);
			r_count++;
		}
		if (b_hs)
			b_count++;
		bvalid_p = top->s_axil_bvalid;
		rvalid_p = top->s_axil_rvalid;
		rdata_p = top->s_axil_rdata;
		bready_p = top->s_axil_bready;
		rready_p = top->s_axil_rready;
		/* What waits at this edge (for the alternation check of the strobe it makes). */
		bool wr_waiting = std::min(aw_done, w_done) > wr_strobes;
		bool rd_waiting = ar_done > rd_strobes;

		top->clk = 1;
		top->eval();
		cyc++;
		if (aw_hs) {
			aw.valid = false;
			aw.next++;
			aw_done++;
			aw.gap = rng.range(0, ph.gap_max);
		}
		if (w_hs) {
			w.valid = false;
			w.next++;
			w_done++;
			w.gap = rng.range(0, ph.gap_max);
		}
		if (ar_hs) {
			ar.valid = false;
			ar.next++;
			ar_done++;
			ar.gap = rng.range(0, ph.gap_max);
		}
		TB_CHECK(!(top->reg_wr_en && top->reg_rd_en), "one strobe at a time");
		if (top->reg_wr_en || top->reg_rd_en) {
			if (have_strobe)
				TB_CHECK(cyc - last_strobe >= (last_was_rd ? 4u : 2u),
				         "strobe %" PRIu64 " cycles after a %s strobe",
				         cyc - last_strobe, last_was_rd ? "read" : "write");
			if (have_strobe)
				min_gap[last_was_rd] =
				    std::min(min_gap[last_was_rd], cyc - last_strobe);
			if (have_strobe && wr_waiting && rd_waiting) {
				both_waiting++;
				TB_CHECK(top->reg_rd_en != last_was_rd,
				         "a read and a write both waited: they alternate");
			}
			have_strobe = true;
			last_strobe = cyc;
			last_was_rd = top->reg_rd_en;
		}
		if (top->reg_wr_en) {
			if (wr_strobes >= std::min(aw_done, w_done)) {
				fail("write strobe without a write");
			} else {
				const Wr &x = wr[wr_strobes];
				TB_EQ(top->reg_addr, x.addr & ~3u, "write strobe address");
				TB_EQ(top->reg_wr_data, x.data, "write strobe data");
				TB_EQ(top->reg_wr_strb, x.strb, "write strobe byte strobes");
				uint32_t &m = mem[top->reg_addr];
				for (int i = 0; i < 4; i++)
					if (top->reg_wr_strb >> i & 1)
						m = (m & ~(0xFFu << 8 * i)) |
						    (top->reg_wr_data & 0xFFu << 8 * i);
			}
			wr_strobes++;
		}
		rd_en_cycle = top->reg_rd_en;
		if (top->reg_rd_en) {
			if (rd_strobes >= ar_done)
				fail("read strobe without a read");
			else
				TB_EQ(top->reg_addr, rd[rd_strobes] & ~3u, "read strobe address");
			rd_strobes++;
		}
		TB_CHECK(b_count <= wr_strobes, "B before its write strobe");
	}

	void reset()
	{
		reset_for(*top, 3);
	}

	/* Run until every queued transaction has its response. */
	void drain(uint64_t max_cycles)
	{
		uint64_t until = cyc + max_cycles;
		while ((b_count < wr.size() || r_count < rd.size()) && cyc < until)
			step();
		TB_EQ(b_count, wr.size(), "a B response per write");
		TB_EQ(r_count, rd.size(), "an R beat per read");
	}
};

/* Addresses within 64 words spread over the 16-bit space, random low bits. */
static uint32_t rand_addr(Rng &rng)
{
	return (rng.range(0, 63) * 0x3F4 + rng.range(0, 3)) & 0xFFFF;
}

static void traffic(uint64_t seed, Phase ph, unsigned n_wr, unsigned n_rd, const char *name)
{
	Bench b(seed);
	b.ph = ph;
	b.reset();
	for (unsigned i = 0; i < n_wr; i++)
		b.wr.push_back({rand_addr(b.rng), (uint32_t)b.rng.u64(),
		                b.rng.chance(50) ? 0xFu : b.rng.range(0, 15)});
	for (unsigned i = 0; i < n_rd; i++)
		b.rd.push_back(rand_addr(b.rng));
	b.drain(200000);
	printf("%-16s %u writes, %u reads in %" PRIu64 " cycles (%" PRIu64
	       " strobes with both waiting)\n",
	       name, n_wr, n_rd, b.cyc, b.both_waiting);
	if (ph.gap_max == 0 && n_wr && n_rd) {
		TB_CHECK(b.both_waiting > (n_wr + n_rd) / 2, "%s: reads and writes competed", name);
		/* Back to back with ready responses: the fastest the slave goes. */
		TB_EQ(b.min_gap[0], 2, "strobe distance after a write, back to back");
		TB_EQ(b.min_gap[1], 4, "strobe distance after a read, back to back");
	}
}

/* Each write read back after its response, against a byte-merging model. */
static void end_to_end(uint64_t seed)
{
	Bench b(seed);
	std::map<uint32_t, uint32_t> model;
	b.reset();
	for (int i = 0; i < 400; i++) {
		uint32_t a = rand_addr(b.rng);
		Wr x{a, (uint32_t)b.rng.u64(), b.rng.range(0, 15)};
		uint32_t &m = model[a & ~3u];
		for (int j = 0; j < 4; j++)
			if (x.strb >> j & 1)
				m = (m & ~(0xFFu << 8 * j)) | (x.data & 0xFFu << 8 * j);
		b.wr.push_back(x);
		b.drain(1000);
		b.rd.push_back(a ^ b.rng.range(0, 3));
		b.drain(1000);
		TB_EQ(b.rd_given.back(), m, "read-back after write with byte strobes");
	}
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);

	traffic(seed, Phase{3, 60, 60}, 600, 600, "random");
	traffic(seed + 1, Phase{0, 100, 100}, 600, 600, "back to back");
	traffic(seed + 2, Phase{12, 15, 15}, 300, 300, "slow");
	traffic(seed + 3, Phase{0, 100, 30}, 400, 0, "writes only");
	traffic(seed + 4, Phase{0, 30, 100}, 0, 400, "reads only");
	traffic(seed + 5, Phase{1, 80, 20}, 500, 500, "R back-pressure");
	end_to_end(seed + 6);
	return finish("tb_axil_regbus");
}
