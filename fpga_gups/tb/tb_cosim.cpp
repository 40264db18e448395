/* SPDX-License-Identifier: MIT */
/*
 * Co-simulation of the RTL engine and the C model of the board: both are programmed with the
 * same register writes (the RTL over AXI4-Lite, the model with sb_model_write32(), same
 * generated offsets), run to completion, and their requests compared per port as
 * (type, address, size) for the first 10,000 requests of each port (ro and wo: 10,000
 * iterations; rw: 5,000 reads and their 5,000 write-backs). Cross-port interleaving and the
 * position of rw write-backs depend on timing, so the comparison is per port: the read
 * sequence exactly, the write sequence exactly for wo and as a multiset for rw.
 *
 * Then trace replay: the same descriptor ring in host memory (the model's DMA window, the
 * harness's DMA engine for the RTL), the same replay registers; every port's replayed
 * requests (type, address, size) must agree request for request, and so must the counts the
 * two replay blocks report (issued, reads, writes, skipped descriptors, per-vault requests and
 * data).
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

	/* ---- trace replay ---- */
	const unsigned LOG2 = 15, NDESC = 9 * 1500;
	std::vector<uint32_t> ring((1u << LOG2) * 4, 0);
	uint64_t bus = 0;
	if (sb_model_dma_map(m, ring.data(), ring.size() * 4, &bus) < 0)
		fail("model DMA window");
	b.dma_mem = ring.data();
	b.dma_bus = bus;
	b.dma_words = ring.size();
	Rng rr(seed * 31 + 7);
	const uint32_t mask = 0x1FF & ~(1u << 4); /* port 4 not replayed: its descriptors skipped */
	for (unsigned i = 0; i < NDESC; i++) {
		uint64_t t = i / 3, addr = rr.u64() & 0x3FFFFFFF0ull;
		unsigned port = rr.chance(2) ? 9 + rr.range(0, 6) : rr.range(0, 8);
		unsigned write = rr.chance(35), flits = rr.range(1, 8);
		ring[4 * i] = (uint32_t)t;
		ring[4 * i + 1] = (uint32_t)(t >> 32);
		ring[4 * i + 2] = (uint32_t)addr;
		ring[4 * i + 3] = (uint32_t)(addr >> 32 & 3) | write << 2 | flits << 4 | port << 8;
	}
	size_t rtl_mark[NLINKS], model_mark[NPORTS][2];
	for (unsigned l = 0; l < NLINKS; l++)
		rtl_mark[l] = b.resp[l].log.size();
	for (unsigned p = 0; p < NPORTS; p++) {
		model_mark[p][0] = g_model[p].rd.size();
		model_mark[p][1] = g_model[p].wr.size();
	}
	const uint32_t R = SB_LAYOUT_REPLAY_OFFSET;
	wr32(R + SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_RESET_MASK);
	wr64(R + SB_REPLAY_RING_ADDR, bus);
	wr32(R + SB_REPLAY_RING_LOG2, LOG2);
	wr32(R + SB_REPLAY_PORT_MASK, mask);
	wr32(R + SB_REPLAY_TAIL, NDESC);
	wr32(R + SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_ENABLE_MASK | SB_REPLAY_CONTROL_TIMED_MASK);
	auto model_rd = [&](uint32_t off) {
		uint32_t v = 0;
		sb_model_read32(m, off, &v);
		return v;
	};
	auto model_rd64 = [&](uint32_t off) {
		uint64_t lo = model_rd(off);
		return lo | (uint64_t)model_rd(off + 4) << 32;
	};
	for (int i = 0; i < 200 && !(b.read(R + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK); i++)
		b.idle(2000);
	TB_CHECK(b.read(R + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK, "RTL: replay done");
	for (int i = 0; i < 100000 && !(model_rd(R + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK);
	     i++)
		sb_model_advance(m, 1000000);
	TB_CHECK(model_rd(R + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK, "model: replay done");
	Seen rtl_r[NPORTS], model_r[NPORTS];
	for (unsigned l = 0; l < NLINKS; l++)
		for (size_t i = rtl_mark[l]; i < b.resp[l].log.size(); i++) {
			const Req &q = b.resp[l].log[i];
			unsigned p = port_of(l, q.tag);
			(q.cmd == CMD_RD ? rtl_r[p].rd : rtl_r[p].wr).push_back(q.addr);
			rtl_r[p].sizes.push_back(q.size);
		}
	uint64_t replayed = 0;
	for (unsigned p = 0; p < NPORTS; p++) {
		Seen &c = g_model[p];
		model_r[p].rd.assign(c.rd.begin() + (long)model_mark[p][0], c.rd.end());
		model_r[p].wr.assign(c.wr.begin() + (long)model_mark[p][1], c.wr.end());
		TB_CHECK(rtl_r[p].rd == model_r[p].rd, "replay port %u: read sequences differ (RTL %zu, "
		         "model %zu)", p, rtl_r[p].rd.size(), model_r[p].rd.size());
		TB_CHECK(rtl_r[p].wr == model_r[p].wr, "replay port %u: write sequences differ (RTL %zu, "
		         "model %zu)", p, rtl_r[p].wr.size(), model_r[p].wr.size());
		TB_CHECK(p == 4 || !rtl_r[p].rd.empty(), "replay port %u issued no read", p);
		replayed += rtl_r[p].rd.size() + rtl_r[p].wr.size();
	}
	/* The RTL sizes are per request in issue order; the model's hook keeps them mixed with the
	 * GUPS phase: compare the sizes through the per-vault data counts instead. */
	const uint32_t regs[] = {SB_REPLAY_ISSUED, SB_REPLAY_READS, SB_REPLAY_WRITES,
	                         SB_REPLAY_COMPLETED};
	for (uint32_t r : regs)
		TB_EQ(b.read64(R + r), model_rd64(R + r), "replay counter, RTL vs model");
	TB_EQ(b.read(R + SB_REPLAY_BAD), model_rd(R + SB_REPLAY_BAD), "skipped descriptors");
	TB_EQ(b.read64(R + SB_REPLAY_ISSUED), replayed, "issued = requests seen");
	for (unsigned v = 0; v < 16; v++) {
		TB_EQ(b.read64(R + SB_REPLAY_VAULT_REQUESTS(v)), model_rd64(R + SB_REPLAY_VAULT_REQUESTS(v)),
		      "vault requests, RTL vs model");
		TB_EQ(b.read(R + SB_REPLAY_VAULT_FLITS(v)), model_rd(R + SB_REPLAY_VAULT_FLITS(v)),
		      "vault data flits, RTL vs model");
	}
	printf("tb_cosim: %" PRIu64 " replayed requests agree over %u ports (%u descriptors, %u "
	       "skipped)\n",
	       replayed, NPORTS, NDESC, b.read(R + SB_REPLAY_BAD));
	sb_model_free(m);
	return finish("tb_cosim");
}
