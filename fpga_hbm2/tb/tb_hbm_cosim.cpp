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
 * testbench's slaves) and is not compared. The register space below the ports is the same.
 *
 * Trace capture: each round two ports are recorded (every burst: burst_len 0, gap 0) by both
 * trace blocks, drained through rd_index / rd_data / rd_release while the ports run; their
 * hbm_trace_records must agree record for record — per port in handshake order (the RTL writes
 * a record when the burst completes, the model when it issues it) the same direction,
 * address, beats, AXI ID and port — with check words, seq 0, 1, ... in ring order, sample_id
 * 0, no response error, records == the ports' bursts and nothing dropped on either side.
 *
 * Then trace replay (replay_trip) twice, untimed and timed, on both.
 *   tb_hbm_cosim [--seed N]
 */
#include "hbm_top_bench.h"

extern "C" {
#include "sb_hbm_model.h"
#include "stackbench/error.h"
}

using namespace tb;

/* One hbm_trace_record's words. */
struct Rec {
	uint32_t w[SB_HBM_TRACE_RECORD_WORDS];
};

/* Drain a trace block's on-chip ring (all it holds) through a register read / write pair. */
template <class R, class W> static void drain(R rd, W wr, std::vector<Rec> &out)
{
	uint32_t n = rd(SB_TRACE_ONCHIP_COUNT);

	if (!n)
		return;
	wr(SB_TRACE_RD_INDEX, 0);
	for (uint32_t i = 0; i < n; i++) {
		Rec r;
		for (unsigned k = 0; k < SB_HBM_TRACE_RECORD_WORDS; k++)
			r.w[k] = rd(SB_TRACE_RD_DATA);
		out.push_back(r);
	}
	wr(SB_TRACE_RD_RELEASE, n);
}

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

static size_t total_trace;

/* The records of one port in handshake order. */
static std::vector<const Rec *> port_recs(const std::vector<Rec> &all, unsigned port)
{
	std::vector<const Rec *> v;

	for (const Rec &r : all)
		if (SB_FIELD_GET(SB_HBM_TRACE_RECORD_PORT, r.w[3]) == port)
			v.push_back(&r);
	std::stable_sort(v.begin(), v.end(), [](const Rec *a, const Rec *b) {
		return (a->w[0] | (uint64_t)a->w[1] << 32) < (b->w[0] | (uint64_t)b->w[1] << 32);
	});
	return v;
}

/* A trace block's records of a round: check words, seq, sample_id, responses, the ports
 * recorded, and its counters against the bursts the RTL's slaves saw on those ports. */
template <class R>
static void check_trace(TopBench &b, R rd, const std::vector<Rec> &recs, const char *side,
                        unsigned round, const unsigned tp[2], const size_t *rfrom)
{
	char what[120];
	size_t bursts = 0;

	for (unsigned p = 0; p < TB_N; p++)
		if (p == tp[0] || p == tp[1])
			bursts += b.slaves[p].log.size() - rfrom[p];
	snprintf(what, sizeof(what), "round %u %s trace: records", round, side);
	TB_EQ(recs.size(), bursts, what);
	TB_EQ(rd(SB_TRACE_RECORDS), bursts, what);
	snprintf(what, sizeof(what), "round %u %s trace: dropped", round, side);
	TB_EQ(rd(SB_TRACE_DROPPED), 0, what);
	for (uint32_t i = 0; i < recs.size() && !g_fail; i++) {
		const uint32_t *w = recs[i].w;
		unsigned port = SB_FIELD_GET(SB_HBM_TRACE_RECORD_PORT, w[3]);

		snprintf(what, sizeof(what), "round %u %s trace record %u", round, side, i);
		TB_EQ(w[SB_HBM_TRACE_RECORD_CHECK_WORD],
		      w[0] ^ w[2] ^ w[3] ^ w[4] ^ SB_REGMAP_MAGIC, what);
		TB_EQ(w[SB_HBM_TRACE_RECORD_SEQ_WORD], i, what);
		TB_EQ(w[SB_HBM_TRACE_RECORD_SAMPLE_ID_WORD], 0, what);
		TB_EQ(SB_FIELD_GET(SB_HBM_TRACE_RECORD_RESP, w[3]), 0, what);
		TB_CHECK(port == tp[0] || port == tp[1], "%s: port %u not recorded", what, port);
	}
}

/* The two trace blocks' records of the traced ports, per port in handshake order: the same
 * direction, address, beats, AXI ID and port. */
static void compare_traces(const std::vector<Rec> &rrec, const std::vector<Rec> &mrec,
                           const unsigned tp[2], const char *label)
{
	char who[80];

	for (unsigned j = 0; j < 2 && !g_fail; j++) {
		std::vector<const Rec *> x = port_recs(rrec, tp[j]), y = port_recs(mrec, tp[j]);

		snprintf(who, sizeof(who), "%s trace of port %u", label, tp[j]);
		TB_EQ(x.size(), y.size(), who);
		for (size_t i = 0; i < std::min(x.size(), y.size()); i++) {
			const uint32_t *u = x[i]->w, *v = y[i]->w;
			uint32_t keep = SB_HBM_TRACE_RECORD_ADDR_HI_MASK |
			                SB_HBM_TRACE_RECORD_WRITE_MASK |
			                SB_HBM_TRACE_RECORD_BEATS_MASK |
			                SB_HBM_TRACE_RECORD_ID_MASK | SB_HBM_TRACE_RECORD_PORT_MASK;

			if (u[2] != v[2] || (u[3] & keep) != (v[3] & keep)) {
				fail("%s record %zu: RTL 0x%08x 0x%08x, model 0x%08x 0x%08x", who,
				     i, u[2], u[3], v[2], v[3]);
				break;
			}
		}
		total_trace += x.size();
	}
}

/* Every port's bursts since rfrom / mfrom: the same, in order, on both. */
static void compare_bursts(TopBench &b, ModelLog &ml, const size_t *rfrom, const size_t *mfrom,
                           const char *label)
{
	char who[80];

	for (unsigned p = 0; p < TB_N && !g_fail; p++) {
		const std::vector<AxiBurst> &r = b.slaves[p].log, &mm = ml.port[p];

		snprintf(who, sizeof(who), "%s port %u", label, p);
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
	}
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
	/* trace capture of two ports */
	const uint32_t tr = SB_REGSPACE_HBM2_TRACE_OFFSET;
	unsigned tp[2] = {b.rng.range(0, TB_N - 1), b.rng.range(0, TB_N - 1)};
	uint32_t tmask = 1u << tp[0] | 1u << tp[1];
	std::vector<Rec> rrec, mrec;
	auto rtl_rd = [&](uint32_t o) { return b.read(tr + o); };
	auto rtl_wr = [&](uint32_t o, uint32_t v) { b.write(tr + o, v); };
	auto mod_rd = [&](uint32_t o) { return mread(m, tr + o); };
	auto mod_wr = [&](uint32_t o, uint32_t v) {
		if (sb_hbm_model_write32(m, tr + o, v) < 0)
			fail("model write 0x%x: %s", tr + o, sb_error_detail());
	};

	both(tr + SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK);
	both(tr + SB_TRACE_BURST_LEN, 0);
	both(tr + SB_TRACE_GAP, 0);
	both(tr + SB_TRACE_PORT_MASK, tmask);
	both(tr + SB_TRACE_CONTROL, SB_TRACE_CONTROL_ENABLE_MASK);
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

		b.idle(300);
		drain(rtl_rd, rtl_wr, rrec);
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

		if (sb_hbm_model_advance(m, 500000ull) < 0) /* 0.5 us: the ring keeps up */
			fail("model advance: %s", sb_error_detail());
		drain(mod_rd, mod_wr, mrec);
		for (unsigned p = 0; p < TB_N && all; p++)
			all = SB_FIELD_GET(SB_HBM_PORT_STATUS_DONE,
			                   mread(m, port_base(p) + SB_HBM_PORT_STATUS));
		if (all)
			break;
		if (k > 2000000) {
			fail("round %u: model ports not done", round);
			return;
		}
	}
	both(tr + SB_TRACE_CONTROL, 0);
	b.idle(300); /* the last completions */
	drain(rtl_rd, rtl_wr, rrec);
	drain(mod_rd, mod_wr, mrec);
	check_trace(b, rtl_rd, rrec, "RTL", round, tp, rfrom);
	check_trace(b, mod_rd, mrec, "model", round, tp, rfrom);
	snprintf(who, sizeof(who), "round %u", round);
	compare_traces(rrec, mrec, tp, who);
	compare_bursts(b, ml, rfrom, mfrom, who);
	for (unsigned p = 0; p < TB_N && !g_fail; p++) {
		snprintf(who, sizeof(who), "round %u port %u", round, p);
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

/*
 * Trace replay: the same descriptors (every port, reads and writes of 1..16 beats within the
 * port's stack, not crossing 4 KB; some bad: a port beyond the card, one outside port_mask, 17
 * beats) written into both hbm_replay blocks, untimed or timed (then also more than the FIFO
 * holds: overflows), two ports traced. Both must issue the same bursts per port in order
 * (direction, address, beats, AXI ID: the lanes take IDs in turn), record them alike, and end
 * with the same timing-free counters (pushed, issued, completed, reads, writes, bytes, errors,
 * bad, overflows, fifo_count, port_bursts, status); latencies, lags and cycles depend on the
 * memory's timing, as the ports' do, and are not compared.
 */
static void replay_trip(TopBench &b, struct sb_hbm_model *m, ModelLog &ml, unsigned round,
                        bool timed)
{
	const uint32_t rp = SB_REGSPACE_HBM2_HBM_REPLAY_OFFSET, tr = SB_REGSPACE_HBM2_TRACE_OFFSET;
	size_t rfrom[TB_N], mfrom[TB_N];
	unsigned skip = b.rng.range(0, TB_N - 1), n = timed ? 520 : 400;
	unsigned tp[2] = {b.rng.range(0, TB_N - 1), b.rng.range(0, TB_N - 1)};
	std::vector<Rec> rrec, mrec;
	uint64_t t = 0;
	unsigned good = 0; /* descriptors the FIFO took that are not bad */
	char who[120];
	auto both = [&](uint32_t off, uint32_t v) {
		b.write(off, v);
		if (sb_hbm_model_write32(m, off, v) < 0)
			fail("model write 0x%x: %s", off, sb_error_detail());
	};
	auto rtl_rd = [&](uint32_t o) { return b.read(tr + o); };
	auto rtl_wr = [&](uint32_t o, uint32_t v) { b.write(tr + o, v); };
	auto mod_rd = [&](uint32_t o) { return mread(m, tr + o); };
	auto mod_wr = [&](uint32_t o, uint32_t v) {
		if (sb_hbm_model_write32(m, tr + o, v) < 0)
			fail("model write 0x%x: %s", tr + o, sb_error_detail());
	};

	if (tp[1] == skip || tp[0] == skip)
		skip = (tp[0] + 1) % TB_N == tp[1] ? (tp[1] + 1) % TB_N : (tp[0] + 1) % TB_N;
	for (unsigned p = 0; p < TB_N; p++) {
		rfrom[p] = b.slaves[p].log.size();
		mfrom[p] = ml.port[p].size();
	}
	both(tr + SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK);
	both(tr + SB_TRACE_BURST_LEN, 0);
	both(tr + SB_TRACE_GAP, 0);
	both(tr + SB_TRACE_PORT_MASK, 1u << tp[0] | 1u << tp[1]);
	both(tr + SB_TRACE_CONTROL, SB_TRACE_CONTROL_ENABLE_MASK);
	both(rp + SB_HBM_REPLAY_CONTROL, SB_HBM_REPLAY_CONTROL_RESET_MASK);
	both(rp + SB_HBM_REPLAY_PORT_MASK, ~(1u << skip));
	for (unsigned i = 0; i < n; i++) {
		unsigned p = b.rng.range(0, TB_N - 1), beats = b.rng.range(1, 16);
		uint64_t a = ((uint64_t)(p / 16) << 32) + (b.rng.u64() % (1ull << 31) & ~4095ull) +
		             32ull * b.rng.range(0, 128 - beats) + b.rng.range(0, 31);
		bool w = b.rng.chance(40);

		if (i % 50 == 7)
			p = TB_N + b.rng.range(0, 200); /* beyond the card */
		else if (i % 50 == 17)
			beats = 17;
		else if (i % 50 == 27)
			p = skip;
		good += i < SB_HBM_REPLAY_FIFO_DEPTH_RESET && p < TB_N && p != skip && beats <= 16;
		t += b.rng.chance(50) ? 0 : b.rng.range(0, 40);
		both(rp + SB_HBM_REPLAY_DESC_W0, (uint32_t)t);
		both(rp + SB_HBM_REPLAY_DESC_W1, (uint32_t)(t >> 32));
		both(rp + SB_HBM_REPLAY_DESC_W2, (uint32_t)a);
		both(rp + SB_HBM_REPLAY_DESC_W3,
		     SB_FIELD_PREP(SB_HBM_REPLAY_DESC_ADDR_HI, (uint32_t)(a >> 32)) |
		         SB_FIELD_PREP(SB_HBM_REPLAY_DESC_WRITE, w) |
		         SB_FIELD_PREP(SB_HBM_REPLAY_DESC_BEATS, beats) |
		         SB_FIELD_PREP(SB_HBM_REPLAY_DESC_PORT, p & 0xFF));
	}
	snprintf(who, sizeof(who), "replay %u: fifo_count before enable, RTL vs model", round);
	TB_EQ(b.read(rp + SB_HBM_REPLAY_FIFO_COUNT), mread(m, rp + SB_HBM_REPLAY_FIFO_COUNT), who);
	both(rp + SB_HBM_REPLAY_CONTROL,
	     SB_HBM_REPLAY_CONTROL_ENABLE_MASK | (timed ? SB_HBM_REPLAY_CONTROL_TIMED_MASK : 0));
	for (unsigned k = 0;; k++) {
		b.idle(300);
		drain(rtl_rd, rtl_wr, rrec);
		if (b.read(rp + SB_HBM_REPLAY_STATUS) & SB_HBM_REPLAY_STATUS_IDLE_MASK)
			break;
		if (k > 20000) {
			fail("replay %u: RTL not idle", round);
			return;
		}
	}
	for (unsigned k = 0;; k++) {
		if (sb_hbm_model_advance(m, 500000ull) < 0)
			fail("model advance: %s", sb_error_detail());
		drain(mod_rd, mod_wr, mrec);
		if (mread(m, rp + SB_HBM_REPLAY_STATUS) & SB_HBM_REPLAY_STATUS_IDLE_MASK)
			break;
		if (k > 200000) {
			fail("replay %u: model not idle", round);
			return;
		}
	}
	both(tr + SB_TRACE_CONTROL, 0);
	b.idle(300);
	drain(rtl_rd, rtl_wr, rrec);
	drain(mod_rd, mod_wr, mrec);
	check_trace(b, rtl_rd, rrec, "RTL", round, tp, rfrom);
	check_trace(b, mod_rd, mrec, "model", round, tp, rfrom);
	snprintf(who, sizeof(who), "replay %u", round);
	compare_traces(rrec, mrec, tp, who);
	compare_bursts(b, ml, rfrom, mfrom, who);
	for (uint32_t reg = SB_HBM_REPLAY_STATUS; reg < SB_BLK_HBM_REPLAY_SIZE && !g_fail; reg += 4) {
		if (reg == SB_HBM_REPLAY_START_CYCLE_LO || reg == SB_HBM_REPLAY_START_CYCLE_HI ||
		    reg == SB_HBM_REPLAY_LAT_SUM_LO || reg == SB_HBM_REPLAY_LAT_SUM_HI ||
		    reg == SB_HBM_REPLAY_LAT_MIN || reg == SB_HBM_REPLAY_LAT_MAX ||
		    reg == SB_HBM_REPLAY_LAG_SUM_LO || reg == SB_HBM_REPLAY_LAG_SUM_HI ||
		    reg == SB_HBM_REPLAY_LAG_MAX || reg == SB_HBM_REPLAY_END_CYCLE_LO ||
		    reg == SB_HBM_REPLAY_END_CYCLE_HI)
			continue;
		snprintf(who, sizeof(who), "replay %u: register +0x%x, RTL vs model", round, reg);
		TB_EQ(b.read(rp + reg), mread(m, rp + reg), who);
	}
	snprintf(who, sizeof(who), "replay %u: issued", round);
	TB_EQ(b.read(rp + SB_HBM_REPLAY_ISSUED), good, who);
	TB_EQ(b.read(rp + SB_HBM_REPLAY_ERRORS), 0, "replay: RTL errors");
	printf("tb_hbm_cosim: replay %u (%s): %u bursts, %u bad, %u overflows agree\n", round,
	       timed ? "timed" : "untimed", good, b.read(rp + SB_HBM_REPLAY_BAD),
	       b.read(rp + SB_HBM_REPLAY_OVERFLOWS));
	both(rp + SB_HBM_REPLAY_CONTROL, 0);
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
	/* the walk: fw_id -> hbm_card -> trace -> hbm_replay -> the ports, on both */
	const uint32_t tr = SB_REGSPACE_HBM2_TRACE_OFFSET, rp = SB_REGSPACE_HBM2_HBM_REPLAY_OFFSET;
	TB_EQ(b.read(SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_BLK_NEXT), tr, "RTL hbm_card.NEXT");
	TB_EQ(b.read(tr + SB_BLK_TYPE), SB_BLK_TRACE_TYPE, "RTL: the trace block");
	TB_EQ(b.read(tr + SB_BLK_NEXT), rp, "RTL trace.NEXT");
	TB_EQ(b.read(rp + SB_BLK_TYPE), SB_BLK_HBM_REPLAY_TYPE, "RTL: the hbm_replay block");
	TB_EQ(b.read(rp + SB_BLK_NEXT), SB_REGSPACE_HBM2_HBM_PORT_OFFSET, "RTL hbm_replay.NEXT");
	for (uint32_t off = 0; off < SB_REGSPACE_HBM2_HBM_PORT_OFFSET; off += 4)
		if (off != SB_REGSPACE_HBM2_HBM_CARD_OFFSET + SB_HBM_CARD_CYCLES_LO &&
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
	for (unsigned round = 0; round < 2 && !g_fail; round++)
		replay_trip(b, m, ml, round, round == 1);
	for (unsigned p = 0; p < TB_N; p++)
		total += ml.port[p].size();
	printf("tb_hbm_cosim: %zu bursts over %d ports agree, %zu trace records\n", total, TB_N,
	       total_trace);
	sb_hbm_model_free(m);
	return finish("tb_hbm_cosim");
}
