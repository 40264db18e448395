/* SPDX-License-Identifier: MIT */
/*
 * tb_hbm_cosim: the Verilated HBM2 engine (sb_hbm_top, 32 ports) and the HBM2 board model
 * (sb_hbm_model, profile u280) get the same register writes — every port programmed at random
 * (read / write / mix, linear / random, transaction sizes, strides, working sets within the
 * port's stack, 1..64 IDs), started together through hbm_card — and must issue the same
 * bursts: per port, in order, the same direction, address, beats and AXI ID (the model's
 * request hook against what the RTL's AXI3 slaves accepted); at the end the same transaction,
 * burst and byte counters, no errors, and done on both. Then the same for ports started one by
 * one through their own control registers. Timing differs (the model's memory system, the
 * testbench's slaves) and is not compared. The register space below the ports is the same,
 * but for the model's trace block, which the RTL does not have yet.
 *   tb_hbm_cosim [--seed N]
 */
#include "hbm_top_bench.h"

extern "C" {
#include "sb_hbm_model.h"
#include "stackbench/error.h"
}

using namespace tb;

struct ModelLog {
	std::vector<AxiBurst> port[32];
};

static void model_hook(void *ctx, const struct sb_hbm_model_request *q)
{
	ModelLog *l = (ModelLog *)ctx;
	AxiBurst b;

	b.write = q->write;
	b.addr = q->addr;
	b.beats = q->beats;
	b.id = q->id;
	TB_CHECK(q->resp == 0, "model: port %u burst %" PRIu64 " answered with error %u", q->port,
	         q->seq, q->resp);
	l->port[q->port].push_back(b);
}

static uint32_t mread(struct sb_hbm_model *m, uint32_t off)
{
	uint32_t v = 0;

	if (sb_hbm_model_read32(m, off, &v) < 0)
		fail("model read 0x%x: %s", off, sb_error_detail());
	return v;
}

static void round_trip(TopBench &b, struct sb_hbm_model *m, ModelLog &ml, unsigned round,
                       bool via_card)
{
	std::vector<PortCfg> cfg;
	size_t rfrom[TB_N], mfrom[TB_N];
	char who[80];

	for (unsigned p = 0; p < TB_N; p++) {
		/* within the port's stack: the model answers the other stack with DECERR */
		cfg.push_back(
		    random_cfg(b.rng, (uint64_t)(p / 16) << 32, 1ull << 31, b.rng.range(10, 80)));
		cfg[p].c.ws_size &= (1ull << 31) - 1;
		rfrom[p] = b.slaves[p].log.size();
		mfrom[p] = ml.port[p].size();
	}
	auto both = [&](uint32_t off, uint32_t v) {
		b.write(off, v);
		if (sb_hbm_model_write32(m, off, v) < 0)
			fail("model write 0x%x: %s", off, sb_error_detail());
	};
	for (unsigned p = 0; p < TB_N; p++) {
		program_port([&](uint32_t o, uint32_t v) { both(port_base(p) + o, v); }, cfg[p]);
		if (via_card)
			both(port_base(p) + SB_HBM_PORT_CONTROL,
			     start_word(cfg[p]) & ~(SB_HBM_PORT_CONTROL_START_MASK |
			                            SB_HBM_PORT_CONTROL_ENABLE_MASK));
		else
			both(port_base(p) + SB_HBM_PORT_CONTROL, start_word(cfg[p]));
	}
	if (via_card) {
		both(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_START_MASK, 0xFFFFFFFFu);
		both(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CONTROL,
		     SB_HBM_CARD_CONTROL_START_MASK);
	}
	/* the RTL until every port is done, the model likewise */
	for (;;) {
		bool all = true;

		b.idle(500);
		for (unsigned p = 0; p < TB_N && all; p++)
			all = SB_FIELD_GET(SB_HBM_PORT_STATUS_DONE,
			                   b.read(port_base(p) + SB_HBM_PORT_STATUS));
		if (all)
			break;
		if (b.cyc > 20000000) {
			fail("round %u: RTL ports not done", round);
			return;
		}
	}
	for (unsigned k = 0;; k++) {
		bool all = true;

		if (sb_hbm_model_advance(m, 100000000ull) < 0) /* 100 us */
			fail("model advance: %s", sb_error_detail());
		for (unsigned p = 0; p < TB_N && all; p++)
			all = SB_FIELD_GET(SB_HBM_PORT_STATUS_DONE,
			                   mread(m, port_base(p) + SB_HBM_PORT_STATUS));
		if (all)
			break;
		if (k > 10000) {
			fail("round %u: model ports not done", round);
			return;
		}
	}
	for (unsigned p = 0; p < TB_N && !g_fail; p++) {
		const std::vector<AxiBurst> &r = b.slaves[p].log, &mm = ml.port[p];

		snprintf(who, sizeof(who), "round %u port %u", round, p);
		TB_EQ(r.size() - rfrom[p], mm.size() - mfrom[p], who);
		for (size_t i = 0; i < std::min(r.size() - rfrom[p], mm.size() - mfrom[p]); i++) {
			const AxiBurst &x = r[rfrom[p] + i], &y = mm[mfrom[p] + i];

			if (x.write != y.write || x.addr != y.addr || x.beats != y.beats ||
			    x.id != y.id) {
				fail("%s burst %zu: RTL %s 0x%" PRIx64
				     " %u beats ID %u, model %s 0x%" PRIx64 " %u beats ID %u",
				     who, i, x.write ? "write" : "read", x.addr, x.beats, x.id,
				     y.write ? "write" : "read", y.addr, y.beats, y.id);
				break;
			}
		}
		/* the counters that do not depend on timing */
		for (uint32_t reg : {SB_HBM_PORT_TXNS, SB_HBM_PORT_RD_BURSTS, SB_HBM_PORT_WR_BURSTS,
		                     SB_HBM_PORT_RD_BYTES, SB_HBM_PORT_WR_BYTES,
		                     SB_HBM_PORT_RD_LAT_COUNT, SB_HBM_PORT_WR_LAT_COUNT}) {
			uint64_t rv = b.read(port_base(p) + reg) |
			              (uint64_t)b.read(port_base(p) + reg + 4) << 32;
			uint64_t mv = mread(m, port_base(p) + reg) |
			              (uint64_t)mread(m, port_base(p) + reg + 4) << 32;
			char what[120];

			snprintf(what, sizeof(what), "%s: counter at +0x%x, RTL vs model", who,
			         reg);
			TB_EQ(rv, mv, what);
		}
		TB_EQ(b.read(port_base(p) + SB_HBM_PORT_ERRORS), 0, "RTL errors");
		TB_EQ(mread(m, port_base(p) + SB_HBM_PORT_ERRORS), 0, "model errors");
	}
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	TopBench b(seed_arg(argc, argv, 1));
	struct sb_hbm_model *m;
	ModelLog ml;
	size_t total = 0;

	if (sb_hbm_model_new(&m, "u280", NULL, 0) < 0) {
		fprintf(stderr, "tb_hbm_cosim: %s\n", sb_error_detail());
		return 1;
	}
	sb_hbm_model_set_request_hook(m, model_hook, &ml);
	b.reset();
	for (unsigned p = 0; p < TB_N; p++) /* the identity both report */
		TB_EQ(b.read(port_base(p) + SB_HBM_PORT_INFO),
		      mread(m, port_base(p) + SB_HBM_PORT_INFO), "hbm_port.info RTL vs model");
	/* The model's trace block (trace capture, docs/traces-on-the-board.md) is not in the RTL
	 * yet: the RTL's walk goes from hbm_card to the first port, where the model's goes from
	 * hbm_card to the trace block and on from there to the first port. */
	const uint32_t tr = SB_REGSPACE_HBM2_TRACE_OFFSET,
	               card_next = SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_BLK_NEXT;
	TB_EQ(mread(m, card_next), tr, "model: hbm_card.NEXT is the trace block");
	TB_EQ(mread(m, tr + SB_BLK_TYPE), SB_BLK_TRACE_TYPE, "model: the trace block");
	TB_EQ(b.read(card_next), mread(m, tr + SB_BLK_NEXT),
	      "RTL hbm_card.NEXT vs the model's walk after its trace block");
	for (uint32_t off = 0; off < SB_REGSPACE_HBM2_HBM_PORT_OFFSET; off += 4)
		if (off != card_next && (off < tr || off >= tr + SB_BLK_TRACE_SIZE) &&
		    off != SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CYCLES_LO &&
		    off != SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CYCLES_HI &&
		    off != SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_FEATURES &&
		    off != SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_HBM_TEMP &&
		    off != SB_FW_ID_BUILD_ID) {
			char what[80];

			snprintf(what, sizeof(what), "register 0x%x RTL vs model", off);
			TB_EQ(b.read(off), mread(m, off), what);
		}
	b.acfg.lat_max = 60;
	for (auto &s : b.slaves)
		s.configure(b.acfg);
	for (unsigned round = 0; round < 4 && !g_fail; round++)
		round_trip(b, m, ml, round, round % 2 == 0);
	for (unsigned p = 0; p < TB_N; p++)
		total += ml.port[p].size();
	printf("tb_hbm_cosim: %zu bursts over %d ports agree\n", total, TB_N);
	sb_hbm_model_free(m);
	return finish("tb_hbm_cosim");
}
