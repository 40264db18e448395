/* SPDX-License-Identifier: MIT */
/*
 * Co-simulation of the RTL engine and the C model of the board: both are programmed with the
 * same register writes (the RTL over AXI4-Lite, the model with sb_model_write32(), same
 * generated offsets), run to completion, and their requests compared per port as
 * (type, address, size, link) for the first 10,000 requests of each port (ro and wo: 10,000
 * iterations; rw: 5,000 reads and their 5,000 write-backs). Cross-port interleaving and the
 * position of rw write-backs depend on timing, so the comparison is per port: the read
 * sequence exactly, the write sequence exactly for wo and as a multiset for rw.
 *
 * Links: every port's gups_port.info.link must agree between the two. An RTL request's link is
 * the user port it appeared on, its port the one the RTL's info.link registers put at that
 * position of the link (link tag = {port within the link, tag}); a model request's link is its
 * port's link in the model (the engine routes a port's requests over the link that info.link
 * reports: sb_engine_port_link()). So a port on the wrong link fails as a link mismatch of
 * its requests, and wiring that disagrees with info.link as an address mismatch.
 *
 * Then trace replay: the same descriptor ring in host memory (the model's DMA window, the
 * harness's DMA engine for the RTL), the same replay registers; every port's replayed
 * requests (type, address, link) must agree request for request, and so must the counts the
 * two replay blocks report (issued, reads, writes, skipped descriptors, per-vault requests and
 * data).
 * Usage: tb_cosim [--seed N] [--profile NAME]
 */
#include <algorithm>
#include <memory>

#include "gups_addrgen.h"
#include "tb_top_bench.h"

extern "C" {
#include "profile.h"
#include "sb_model.h"
}

using namespace tb;

/* A request as both sides see it: address and link (type: the list it is in). */
struct Obs {
	uint64_t addr;
	unsigned link;
	bool operator==(const Obs &o) const
	{
		return addr == o.addr && link == o.link;
	}
	bool operator<(const Obs &o) const
	{
		return addr != o.addr ? addr < o.addr : link < o.link;
	}
};

struct Seen {
	std::vector<Obs> rd, wr;
	std::vector<unsigned> sizes;
};

static Seen g_model[NPORTS];
static unsigned g_model_link[NPORTS]; /* the model's gups_port.info.link */

static void model_hook(void *ctx, const struct sb_model_request *r)
{
	(void)ctx;
	if (r->port >= NPORTS)
		return;
	Obs o = {r->addr, g_model_link[r->port]};
	(r->write ? g_model[r->port].wr : g_model[r->port].rd).push_back(o);
	g_model[r->port].sizes.push_back(r->flits);
}

/* Port p's requests, RTL (a) against the model (c): equal, or the first difference reported. */
static void compare(unsigned p, const char *what, const std::vector<Obs> &a,
                    const std::vector<Obs> &c)
{
	if (a == c)
		return;
	size_t i = 0;
	while (i < a.size() && i < c.size() && a[i] == c[i])
		i++;
	if (i < a.size() && i < c.size())
		fail("port %u %s %zu (RTL %zu, model %zu): RTL 0x%" PRIx64 " on link %u, model "
		     "0x%" PRIx64 " on link %u",
		     p, what, i, a.size(), c.size(), a[i].addr, a[i].link, c[i].addr, c[i].link);
	else
		fail("port %u %s: RTL %zu, model %zu (the first %zu agree)", p, what, a.size(),
		     c.size(), i);
}

/* The RTL's requests from mark[l] on, per port: the position within the link (tag >> 6)
 * names the port through the RTL's own info.link (rtl_link). */
static void rtl_requests(const Bench &b, const unsigned *rtl_link, const size_t *mark, Seen *out)
{
	for (unsigned l = 0; l < NLINKS; l++) {
		unsigned first = NPORTS, n = 0;
		for (unsigned p = NPORTS; p-- > 0;)
			if (rtl_link[p] == l) {
				first = p;
				n++;
			}
		for (size_t i = mark[l]; i < b.resp[l].log.size(); i++) {
			const Req &q = b.resp[l].log[i];
			unsigned k = q.tag >> 6;
			if (k >= n) {
				fail("link %u: request with port field %u, the RTL has %u port(s) "
				     "there",
				     l, k, n);
				continue;
			}
			Obs o = {q.addr, l};
			(q.cmd == CMD_RD ? out[first + k].rd : out[first + k].wr).push_back(o);
			out[first + k].sizes.push_back(q.size);
		}
	}
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
	/* The RTL runs against the controller and cube timing the model has: a data packet holds
	 * the user port port_packet_cycles beyond its beats, and bounded queues (a vault's
	 * vault_queue) back-pressure the commands. */
	struct sb_profile prof;
	if (sb_profile_load(&prof, profile ? profile : SB_PROFILE_DEFAULT, nullptr, 0) < 0) {
		fprintf(stderr, "tb_cosim: cannot load the profile\n");
		return 1;
	}
	ResponderCfg rc;
	rc.pkt_cycles = prof.port_packet_cycles;
	rc.queue_max = prof.vault_queue;
	Bench b(seed, rc);
	b.reset();

	/* The ports' links: the same on both sides. */
	unsigned rtl_link[NPORTS];
	for (unsigned p = 0; p < NPORTS; p++) {
		uint32_t info = 0;
		if (sb_model_read32(m, port_base(p) + SB_GUPS_PORT_INFO, &info) < 0)
			fail("model read of gups_port %u info failed", p);
		g_model_link[p] = SB_FIELD_GET(SB_GUPS_PORT_INFO_LINK, info);
		rtl_link[p] =
		    SB_FIELD_GET(SB_GUPS_PORT_INFO_LINK, b.read(port_base(p) + SB_GUPS_PORT_INFO));
		TB_CHECK(rtl_link[p] == g_model_link[p],
		         "port %u: gups_port.info.link RTL %u, model %u", p, rtl_link[p],
		         g_model_link[p]);
		TB_CHECK(rtl_link[p] < NLINKS, "port %u: link %u, the RTL has %u", p, rtl_link[p],
		         NLINKS);
	}

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
	TB_CHECK(sb_model_irq_pending(m) & SB_IRQ_PENDING_PORTS_DONE_MASK,
	         "model: every port done");

	Seen rtl[NPORTS];
	const size_t from_start[NLINKS] = {};
	rtl_requests(b, rtl_link, from_start, rtl);
	uint64_t total = 0;
	for (unsigned p = 0; p < NPORTS; p++) {
		Seen &a = rtl[p], &c = g_model[p];
		TB_CHECK(!c.rd.empty() || !c.wr.empty(), "port %u: the model issued no requests",
		         p);
		TB_EQ(a.rd.size() + a.wr.size(), N_REQ, "RTL requests of the port");
		TB_EQ(c.rd.size() + c.wr.size(), N_REQ, "model requests of the port");
		compare(p, "read", a.rd, c.rd);
		if (type[p] == SB_GUPS_PORT_CONTROL_TYPE_RW) {
			std::sort(a.wr.begin(), a.wr.end());
			std::sort(c.wr.begin(), c.wr.end());
		}
		compare(p, type[p] == SB_GUPS_PORT_CONTROL_TYPE_RW ? "write (sorted)" : "write",
		        a.wr, c.wr);
		for (unsigned s : c.sizes)
			TB_EQ(s, flits[p], "model request size");
		for (unsigned s : a.sizes)
			TB_EQ(s, flits[p], "RTL request size");
		total += a.rd.size() + a.wr.size();
	}
	printf("tb_cosim: %" PRIu64 " RTL requests compared over %u ports; links", total, NPORTS);
	for (unsigned p = 0; p < NPORTS; p++)
		printf(" %u", rtl_link[p]);
	printf(" (ports 0..%u)\n", NPORTS - 1);

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
	const uint32_t mask = 0x1FF & ~(1u << 2); /* port 2 not replayed: its descriptors skipped */
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
	for (int i = 0; i < 200 && !(b.read(R + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK);
	     i++)
		b.idle(2000);
	TB_CHECK(b.read(R + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK, "RTL: replay done");
	for (int i = 0;
	     i < 100000 && !(model_rd(R + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK); i++)
		sb_model_advance(m, 1000000);
	TB_CHECK(model_rd(R + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK, "model: replay done");
	Seen rtl_r[NPORTS], model_r[NPORTS];
	rtl_requests(b, rtl_link, rtl_mark, rtl_r);
	uint64_t replayed = 0;
	for (unsigned p = 0; p < NPORTS; p++) {
		Seen &c = g_model[p];
		model_r[p].rd.assign(c.rd.begin() + (long)model_mark[p][0], c.rd.end());
		model_r[p].wr.assign(c.wr.begin() + (long)model_mark[p][1], c.wr.end());
		compare(p, "replayed read", rtl_r[p].rd, model_r[p].rd);
		compare(p, "replayed write", rtl_r[p].wr, model_r[p].wr);
		TB_CHECK(p == 2 || !rtl_r[p].rd.empty(), "replay port %u issued no read", p);
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
		TB_EQ(b.read64(R + SB_REPLAY_VAULT_REQUESTS(v)),
		      model_rd64(R + SB_REPLAY_VAULT_REQUESTS(v)), "vault requests, RTL vs model");
		TB_EQ(b.read(R + SB_REPLAY_VAULT_FLITS(v)), model_rd(R + SB_REPLAY_VAULT_FLITS(v)),
		      "vault data flits, RTL vs model");
	}
	printf("tb_cosim: controller timing: %u cycles per data packet, queues of %u (full for "
	       "%" PRIu64 " / %" PRIu64 " link-cycles)\n",
	       rc.pkt_cycles, rc.queue_max, b.resp[0].queue_full_cycles,
	       b.resp[1].queue_full_cycles);
	printf("tb_cosim: %" PRIu64 " replayed requests compared over %u ports (%u descriptors, %u "
	       "skipped)\n",
	       replayed, NPORTS, NDESC, b.read(R + SB_REPLAY_BAD));
	sb_model_free(m);
	return finish("tb_cosim");
}
