/* SPDX-License-Identifier: MIT */
/*
 * Co-simulation of the RTL engine and the C model of the board: both are programmed with the
 * same register writes (the RTL over AXI4-Lite, the model with sb_model_write32(), same
 * generated offsets), run to completion, and their requests compared per port as
 * (type, address, size) for the first 10,000 requests of each port (ro and wo: 10,000
 * iterations; rw: 5,000 reads and their 5,000 write-backs). Cross-port interleaving and the
 * position of rw write-backs depend on timing, so the comparison is per port: the read
 * sequence exactly, the write sequence exactly for wo and as a multiset for rw.
 * Usage: tb_cosim [--seed N] [--profile NAME]
 */
#include <algorithm>
#include <memory>

#include "gups_addrgen.h"
#include "tb_top_bench.h"

extern "C" {
#include "sb_model.h"
}

using namespace tb;

struct Seen {
	std::vector<uint64_t> rd, wr;
	std::vector<unsigned> sizes;
};

static Seen g_model[NPORTS];

static void model_hook(void *ctx, const struct sb_model_request *r)
{
	(void)ctx;
	if (r->port >= NPORTS)
		return;
	(r->write ? g_model[r->port].wr : g_model[r->port].rd).push_back(r->addr);
	g_model[r->port].sizes.push_back(r->flits);
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	const char *profile = nullptr;
	for (int i = 1; i + 1 < argc; i++)
		if (!strcmp(argv[i], "--profile"))
			profile = argv[i + 1];
	const uint64_t N_REQ = 10000;

	struct sb_model *m = nullptr;
	if (sb_model_new(&m, profile, nullptr, 0) < 0) {
		fprintf(stderr, "tb_cosim: cannot create the model\n");
		return 1;
	}
	sb_model_set_request_hook(m, model_hook, nullptr);
	ResponderCfg rc;
	Bench b(seed, rc);
	b.reset();

	/* The same register writes to both. */
	auto wr32 = [&](uint32_t off, uint32_t v) {
		b.write(off, v);
		if (sb_model_write32(m, off, v) < 0)
			fail("model write 0x%x failed", off);
	};
	auto wr64 = [&](uint32_t off, uint64_t v) {
		wr32(off, (uint32_t)v);
		wr32(off + 4, (uint32_t)(v >> 32));
	};
	unsigned type[NPORTS], flits[NPORTS];
	for (unsigned p = 0; p < NPORTS; p++) {
		uint32_t base = port_base(p);
		type[p] = p % 3;
		flits[p] = 1 + (unsigned)((seed + p) % 8);
		bool linear = p % 4 == 3;
		uint64_t iters = type[p] == SB_GUPS_PORT_CONTROL_TYPE_RW ? N_REQ / 2 : N_REQ;
		wr32(base + SB_GUPS_PORT_REQ_SIZE, flits[p]);
		wr64(base + SB_GUPS_PORT_ITER_LIMIT, iters);
		wr64(base + SB_GUPS_PORT_LFSR_SEED, seed * 7919 + p);
		wr64(base + SB_GUPS_PORT_ADDR_MASK, SB_ADDR_MASK & ~(0xFull << (8 + p)));
		wr64(base + SB_GUPS_PORT_ADDR_ANTIMASK, (uint64_t)p << 28);
		wr64(base + SB_GUPS_PORT_LIN_START, 0x100000ull * p);
		wr64(base + SB_GUPS_PORT_LIN_END, 0x100000ull * p + 0x40000);
		wr32(base + SB_GUPS_PORT_LIN_STEP, 0x40 * (p + 1));
		wr32(base + SB_GUPS_PORT_CONTROL,
		     SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_TYPE, type[p]) |
		         SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_MODE, linear) |
		         SB_GUPS_PORT_CONTROL_ENABLE_MASK | SB_GUPS_PORT_CONTROL_START_MASK);
	}

	/* Run both until every port is done. */
	wr32(SB_LAYOUT_IRQ_OFFSET + SB_IRQ_MASK, SB_IRQ_MASK_PORTS_DONE_MASK);
	uint64_t until = b.cyc + 20000000;
	while (!b.top->irq && b.cyc < until)
		b.idle(1000);
	TB_CHECK(b.top->irq, "RTL: every port done");
	for (int i = 0; i < 100000 && !(sb_model_irq_pending(m) & SB_IRQ_PENDING_PORTS_DONE_MASK);
	     i++)
		sb_model_advance(m, 1000000); /* 1 us */
	TB_CHECK(sb_model_irq_pending(m) & SB_IRQ_PENDING_PORTS_DONE_MASK, "model: every port done");

	Seen rtl[NPORTS];
	for (unsigned l = 0; l < NLINKS; l++)
		for (const Req &q : b.resp[l].log) {
			unsigned p = port_of(l, q.tag);
			(q.cmd == CMD_RD ? rtl[p].rd : rtl[p].wr).push_back(q.addr);
			rtl[p].sizes.push_back(q.size);
		}
	uint64_t total = 0;
	for (unsigned p = 0; p < NPORTS; p++) {
		Seen &a = rtl[p], &c = g_model[p];
		TB_CHECK(!c.rd.empty() || !c.wr.empty(), "port %u: the model issued no requests", p);
		TB_EQ(a.rd.size() + a.wr.size(), N_REQ, "RTL requests of the port");
		TB_EQ(c.rd.size() + c.wr.size(), N_REQ, "model requests of the port");
		TB_CHECK(a.rd == c.rd, "port %u: read sequences differ (RTL %zu, model %zu)", p,
		         a.rd.size(), c.rd.size());
		if (type[p] == SB_GUPS_PORT_CONTROL_TYPE_RW) {
			std::sort(a.wr.begin(), a.wr.end());
			std::sort(c.wr.begin(), c.wr.end());
		}
		TB_CHECK(a.wr == c.wr, "port %u: write %s differ (RTL %zu, model %zu)", p,
		         type[p] == SB_GUPS_PORT_CONTROL_TYPE_RW ? "multisets" : "sequences",
		         a.wr.size(), c.wr.size());
		for (unsigned s : c.sizes)
			TB_EQ(s, flits[p], "model request size");
		for (unsigned s : a.sizes)
			TB_EQ(s, flits[p], "RTL request size");
		total += a.rd.size() + a.wr.size();
	}
	printf("tb_cosim: %" PRIu64 " RTL requests compared over %u ports\n", total, NPORTS);
	sb_model_free(m);
	return finish("tb_cosim");
}
