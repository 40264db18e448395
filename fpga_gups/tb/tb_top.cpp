/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_gups_top (9 ports; 2 links, ports 0-3 on link 0 and 4-8 on link 1, or the
 * link parameters tb_top_bench.h is built with): the whole design through its AXI4-Lite slave
 * (random valid delays and ready back-pressure) with a behavioural responder on each link.
 *   regs     every register of every block against the generated table (reset values, header
 *            words and NEXT chain, each port's info.link, read-back of rw registers, pulse /
 *            wo bits reading 0, 64-bit latch, holes, reads beyond the register space)
 *   traffic  all 9 ports at once with mixed types and sizes: every request on its port's link,
 *            per-port address streams against the C definition, counters, tags unique per
 *            port, round-robin sharing of a link
 *   stream   a group of writes then reads with integrity on: the data written equals
 *            gups_pattern.h, no mismatches; corrupted read data is counted as mismatches
 *   status   thermal-failure and error ERRSTAT, irq status / mask / pending and the irq pin,
 *            cube reset / init handshake, stats reset, link down
 *   trace    records of one port captured through the top and read back over the bus
 */
#include <algorithm>
#include <memory>
#include <set>

#include "tb_top_bench.h"
#include "gups_addrgen.h"
#include "gups_pattern.h"
#include "tb_common.h"

extern "C" {
#include "sb_regmap_table.c"
}

using namespace tb;

/* ------------------------------------------------------------------------------------------ */

static bool is_addr_reg(const char *block, const char *reg)
{
	static const char *const names[][2] = {{"gups_port", "addr_mask"},
	                                       {"gups_port", "addr_antimask"},
	                                       {"gups_port", "lin_start"},
	                                       {"gups_port", "lin_end"},
	                                       {"stream", "entry_addr"}};
	for (auto &n : names)
		if (!strcmp(block, n[0]) && !strcmp(reg, n[1]))
			return true;
	return false;
}

static void test_regs(uint64_t seed)
{
	ResponderCfg rc;
	Bench b(seed, rc);
	char what[200];
	std::set<uint32_t> covered;

	b.reset();
	/* Header words and the NEXT chain in layout order. */
	std::vector<std::pair<unsigned, uint32_t>> inst; /* block index, offset */
	for (unsigned i = 0; i < sb_regmap_nlayout; i++) {
		/* Blocks only the simulated board has are not in the design. */
		if (sb_regmap_blocks[sb_regmap_layout[i].block].sim_only)
			continue;
		for (unsigned n = 0; n < sb_regmap_layout[i].count; n++)
			inst.push_back({sb_regmap_layout[i].block,
			                sb_regmap_layout[i].offset + n * sb_regmap_layout[i].stride});
	}
	for (size_t k = 0; k < inst.size(); k++) {
		const struct sb_regmap_block *blk = &sb_regmap_blocks[inst[k].first];
		uint32_t base = inst[k].second;
		snprintf(what, sizeof(what), "%s@0x%x TYPE", blk->name, base);
		TB_EQ(b.read(base + SB_BLK_TYPE), blk->type, what);
		snprintf(what, sizeof(what), "%s@0x%x VERSION", blk->name, base);
		TB_EQ(b.read(base + SB_BLK_VERSION), blk->version, what);
		snprintf(what, sizeof(what), "%s@0x%x NEXT", blk->name, base);
		TB_EQ(b.read(base + SB_BLK_NEXT), k + 1 < inst.size() ? inst[k + 1].second : 0, what);
		for (uint32_t h = 0; h < 12; h += 4)
			covered.insert(base + h);
		for (unsigned r = 0; r < blk->nregs; r++) {
			const struct sb_regmap_reg *reg = &blk->regs[r];
			for (unsigned e = 0; e < reg->count; e++)
				for (unsigned w = 0; w < reg->width / 32u; w++) {
					uint32_t off = base + reg->offset + e * reg->stride + 4 * w;
					uint64_t expect = (uint32_t)(reg->reset >> (32 * w));
					covered.insert(off);
					if (reg->access == SB_ACC_WO)
						expect = 0;
					expect &= ~reg->pulse_mask[w];
					if (!strcmp(blk->name, "gups_port") && !strcmp(reg->name, "info")) {
						unsigned p = (base - SB_LAYOUT_GUPS_PORT_OFFSET) /
						             SB_LAYOUT_GUPS_PORT_STRIDE;
						expect = (expect & ~(SB_GUPS_PORT_INFO_INDEX_MASK |
						                     SB_GUPS_PORT_INFO_LINK_MASK)) |
						         SB_FIELD_PREP(SB_GUPS_PORT_INFO_INDEX, p) |
						         SB_FIELD_PREP(SB_GUPS_PORT_INFO_LINK, link_of(p));
					}
					/* The links up: the map's reset value is the AC-510's two. */
					if (!strcmp(blk->name, "hmc_ctrl") &&
					    !strcmp(reg->name, "link_status"))
						expect = LINKS_UP;
					uint32_t got = b.read(off);
					if (!strcmp(blk->name, "board") && !strcmp(reg->name, "cycles")) {
						if (w == 0)
							TB_CHECK(got > 0, "board.cycles counts");
						continue;
					}
					snprintf(what, sizeof(what), "%s@0x%x.%s[%u] word %u reset",
					         blk->name, base, reg->name, e, w);
					TB_EQ(got, expect, what);
				}
		}
	}
	/* Holes read 0; beyond the register space 0xFFFFFFFF. */
	for (int i = 0; i < 200; i++) {
		uint32_t off = b.rng.range(0, SB_REGMAP_SIZE / 4 - 1) * 4;
		if (covered.count(off))
			continue;
		snprintf(what, sizeof(what), "hole 0x%x reads 0", off);
		TB_EQ(b.read(off), 0, what);
	}
	TB_EQ(b.read(SB_REGMAP_SIZE), 0xFFFFFFFFu, "beyond the register space");
	TB_EQ(b.read(0xFFFC), 0xFFFFFFFFu, "end of the BAR");

	/* rw registers: random values read back through the write masks (not pulse bits). */
	for (size_t k = 0; k < inst.size(); k++) {
		const struct sb_regmap_block *blk = &sb_regmap_blocks[inst[k].first];
		uint32_t base = inst[k].second;
		for (unsigned r = 0; r < blk->nregs; r++) {
			const struct sb_regmap_reg *reg = &blk->regs[r];
			if (reg->access != SB_ACC_RW)
				continue;
			unsigned e = b.rng.range(0, reg->count - 1);
			uint64_t v = b.rng.u64(), expect = 0;
			for (unsigned w = 0; w < reg->width / 32u; w++) {
				uint32_t m = reg->write_mask[w] & ~reg->pulse_mask[w];
				/* Keep the ports idle and the trace in its on-chip mode. */
				if (!strcmp(reg->name, "control") && !strcmp(blk->name, "gups_port"))
					m &= ~SB_GUPS_PORT_CONTROL_ENABLE_MASK;
				/* ... and the replay off (it would fetch descriptors and take the ports). */
				if (!strcmp(reg->name, "control") && !strcmp(blk->name, "replay"))
					m &= ~SB_REPLAY_CONTROL_ENABLE_MASK;
				uint32_t word = (uint32_t)(v >> (32 * w)) & m;
				expect |= (uint64_t)word << (32 * w);
				b.write(base + reg->offset + e * reg->stride + 4 * w, word);
			}
			if (is_addr_reg(blk->name, reg->name))
				expect &= SB_ADDR_MASK;
			uint64_t got = b.read(base + reg->offset + e * reg->stride);
			if (reg->width == 64)
				got |= (uint64_t)b.read(base + reg->offset + e * reg->stride + 4) << 32;
			snprintf(what, sizeof(what), "%s@0x%x.%s[%u] read-back", blk->name, base,
			         reg->name, e);
			TB_EQ(got, expect, what);
		}
	}
	/* Read-only registers ignore writes. */
	b.write(SB_LAYOUT_FW_ID_OFFSET + SB_FW_ID_MAGIC, 0);
	TB_EQ(b.read(SB_LAYOUT_FW_ID_OFFSET + SB_FW_ID_MAGIC), SB_FW_ID_MAGIC_RESET, "magic ro");
	/* 64-bit latch: the high word read later is the one latched with the low word. */
	uint32_t c0 = b.read(SB_LAYOUT_BOARD_OFFSET + SB_BOARD_CYCLES);
	b.idle(100);
	uint32_t c1 = b.read(SB_LAYOUT_BOARD_OFFSET + SB_BOARD_CYCLES);
	TB_CHECK(c1 > c0 + 100, "cycles advance");
	/* Byte strobes. */
	b.write(SB_LAYOUT_BOARD_OFFSET + SB_BOARD_SCRATCH, 0x11223344);
	b.write(SB_LAYOUT_BOARD_OFFSET + SB_BOARD_SCRATCH, 0xAABBCCDD, 0x9);
	TB_EQ(b.read(SB_LAYOUT_BOARD_OFFSET + SB_BOARD_SCRATCH), 0xAA2233DD, "AXI write strobes");
}

/* ------------------------------------------------------------------------------------------ */

struct PortRun {
	unsigned type, flits;
	bool linear, posted;
	uint64_t seed, iters;
};

static void start_port(Bench &b, unsigned p, const PortRun &r)
{
	uint32_t base = port_base(p);
	b.write(base + SB_GUPS_PORT_REQ_SIZE, r.flits);
	b.write64(base + SB_GUPS_PORT_ITER_LIMIT, r.iters);
	b.write64(base + SB_GUPS_PORT_LFSR_SEED, r.seed);
	b.write64(base + SB_GUPS_PORT_LIN_START, 0x1000 * (p + 1));
	b.write64(base + SB_GUPS_PORT_LIN_END, 0x1000 * (p + 1) + 0x80 * 50);
	b.write(base + SB_GUPS_PORT_CONTROL,
	        SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_TYPE, r.type) |
	            SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_MODE, r.linear) |
	            SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_POSTED, r.posted) |
	            SB_GUPS_PORT_CONTROL_ENABLE_MASK | SB_GUPS_PORT_CONTROL_START_MASK);
}

static void test_traffic(uint64_t seed)
{
	ResponderCfg rc;
	rc.lat_min = 10;
	rc.lat_max = 80;
	Bench b(seed, rc);
	PortRun runs[NPORTS];
	char what[160];

	b.reset();
	b.write(SB_LAYOUT_IRQ_OFFSET + SB_IRQ_MASK, SB_IRQ_MASK_PORTS_DONE_MASK);
	for (unsigned p = 0; p < NPORTS; p++) {
		runs[p] = PortRun{p % 3, 1 + (unsigned)((seed + p) % 8), p % 4 == 3, p == 7,
		                  seed * 1000 + p, 200 + 20 * p};
		start_port(b, p, runs[p]);
	}
	uint64_t until = b.cyc + 400000;
	while (!b.top->irq && b.cyc < until)
		b.idle(100);
	TB_CHECK(b.top->irq, "traffic: ports_done interrupt");
	TB_CHECK(b.read(SB_LAYOUT_IRQ_OFFSET + SB_IRQ_STATUS) & SB_IRQ_STATUS_PORTS_DONE_MASK,
	         "irq.status.ports_done");
	b.write(SB_LAYOUT_IRQ_OFFSET + SB_IRQ_STATUS, SB_IRQ_STATUS_PORTS_DONE_MASK);
	TB_EQ(b.read(SB_LAYOUT_IRQ_OFFSET + SB_IRQ_STATUS) & SB_IRQ_STATUS_PORTS_DONE_MASK, 0,
	      "irq.status w1c");
	TB_CHECK(!b.top->irq, "irq pin low after clearing");
	b.idle(100);

	std::vector<uint64_t> rd[NPORTS], wr[NPORTS];
	uint64_t rflits[NPORTS] = {0}, nresp_rd[NPORTS] = {0};
	for (unsigned l = 0; l < NLINKS; l++) {
		for (const Req &q : b.resp[l].log) {
			unsigned p = port_of(l, q.tag);
			TB_CHECK(p < NPORTS && link_of(p) == l, "request of port %u on link %u", p, l);
			if (p >= NPORTS)
				continue;
			TB_EQ(q.size, runs[p].flits, "request size of its port");
			(q.cmd == CMD_RD ? rd : wr)[p].push_back(q.addr);
		}
		for (const Req &q : b.resp[l].resp_log)
			if (q.cmd == CMD_RD) {
				rflits[port_of(l, q.tag)] += q.size;
				nresp_rd[port_of(l, q.tag)]++;
			}
	}
	for (unsigned p = 0; p < NPORTS; p++) {
		const PortRun &r = runs[p];
		uint32_t base = port_base(p);
		struct sb_addrgen g;
		sb_addrgen_init(&g, r.linear, r.seed, 0x1000 * (p + 1), 0x1000 * (p + 1) + 0x80 * 50,
		                SB_GUPS_PORT_LIN_STEP_RESET, SB_GUPS_PORT_ADDR_MASK_RESET, 0, r.flits);
		std::vector<uint64_t> &prim = r.type == SB_GUPS_PORT_CONTROL_TYPE_WO ? wr[p] : rd[p];
		snprintf(what, sizeof(what), "port %u iterations", p);
		TB_EQ(prim.size(), r.iters, what);
		for (size_t i = 0; i < prim.size(); i++) {
			uint64_t e = sb_addrgen_next(&g);
			if (prim[i] != e) {
				fail("port %u request %zu: 0x%" PRIx64 ", C definition 0x%" PRIx64, p, i,
				     prim[i], e);
				break;
			}
		}
		snprintf(what, sizeof(what), "port %u reads", p);
		TB_EQ(b.read64(base + SB_GUPS_PORT_READS), rd[p].size(), what);
		snprintf(what, sizeof(what), "port %u writes", p);
		TB_EQ(b.read64(base + SB_GUPS_PORT_WRITES), wr[p].size(), what);
		snprintf(what, sizeof(what), "port %u read_data", p);
		TB_EQ(b.read64(base + SB_GUPS_PORT_READ_DATA), rflits[p], what);
		snprintf(what, sizeof(what), "port %u lat_count", p);
		TB_EQ(b.read64(base + SB_GUPS_PORT_LAT_COUNT), nresp_rd[p], what);
		if (nresp_rd[p])
			TB_CHECK(b.read(base + SB_GUPS_PORT_LAT_MIN) >= rc.lat_min,
			         "port %u lat_min below the responder's minimum", p);
		uint32_t st = b.read(base + SB_GUPS_PORT_STATUS);
		TB_CHECK((st & SB_GUPS_PORT_STATUS_DONE_MASK) && (st & SB_GUPS_PORT_STATUS_IDLE_MASK),
		         "port %u done and idle", p);
		printf("traffic port %u link %u %s flits %u: %zu rd %zu wr\n", p, link_of(p),
		       r.type == 0 ? "ro" : r.type == 1 ? "wo" : "rw", r.flits, rd[p].size(),
		       wr[p].size());
	}
	/* Round-robin sharing: while every port of a link is running, none is starved (a port may
	 * skip turns while its own tags or write data hold it back). */
	for (unsigned l = 0; l < NLINKS; l++) {
		const std::vector<Req> &log = b.resp[l].log;
		unsigned f = first_of(l), m = first_of(l + 1) - f;
		std::vector<uint64_t> first(m, UINT64_MAX), last(m, 0);
		for (const Req &q : log) {
			unsigned k = q.tag >> 6;
			first[k] = std::min(first[k], q.cycle);
			last[k] = std::max(last[k], q.cycle);
		}
		uint64_t from = *std::max_element(first.begin(), first.end());
		uint64_t to = *std::min_element(last.begin(), last.end());
		std::vector<unsigned> busy;
		for (const Req &q : log)
			if (q.cycle >= from && q.cycle <= to)
				busy.push_back(q.tag >> 6);
		size_t window = 16 * m, worst = 0, at = 0;
		for (size_t i = 0; i + window <= busy.size(); i++) {
			std::set<unsigned> seen(busy.begin() + (long)i, busy.begin() + (long)(i + window));
			if (m - seen.size() > worst) {
				worst = m - seen.size();
				at = i;
			}
		}
		TB_CHECK(busy.size() > 8 * m, "link %u: ports overlapped (%zu requests)", l,
		         busy.size());
		TB_CHECK(
		    worst == 0,
		    "link %u: %zu of its %u ports absent from requests %zu..%zu of %zu while all "
		    "ran (every port of a busy link issues within 16 rounds)",
		    l, worst, m, at, at + window - 1, busy.size());
	}
}

/* ------------------------------------------------------------------------------------------ */

static void test_stream(uint64_t seed)
{
	ResponderCfg rc;
	Bench b(seed, rc);
	const unsigned port = 4, n = 12; /* on the AC-510 the first port of link 1 */
	const uint32_t S = SB_LAYOUT_STREAM_OFFSET, seed_v = 0xC0FFEE11;
	uint64_t addr[n];

	b.reset();
	b.write(S + SB_STREAM_DATA_SEED, seed_v);
	for (unsigned i = 0; i < n; i++) {
		unsigned half = n / 2, k = i % half;
		addr[i] = 0x200000 + 0x400 * k + 0x10 * (k % 3);
		uint32_t e = S + SB_STREAM_ENTRY_ADDR(i);
		b.write64(e, addr[i]);
		b.write(S + SB_STREAM_ENTRY_CMD(i),
		        SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_WRITE, i < half) |
		            SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_FLITS, 1 + k % 8));
	}
	/* A busy port first: the group waits until it drained. */
	start_port(b, port, PortRun{SB_GUPS_PORT_CONTROL_TYPE_RO, 2, false, false, 5, 100});
	uint32_t ctl = SB_FIELD_PREP(SB_STREAM_CONTROL_COUNT, n) |
	               SB_FIELD_PREP(SB_STREAM_CONTROL_PORT, port) |
	               SB_STREAM_CONTROL_INTEGRITY_MASK;
	for (int pass = 0; pass < 2; pass++) {
		/* Writes must complete before the reads are issued: run the halves as two groups. */
		uint64_t from = b.resp[link_of(port)].log.size();
		b.write(S + SB_STREAM_CONTROL, ctl | SB_STREAM_CONTROL_GO_MASK);
		uint64_t until = b.cyc + 100000;
		while ((b.read(S + SB_STREAM_STATUS) & SB_STREAM_STATUS_DONE_MASK) == 0 && b.cyc < until)
			b.idle(50);
		uint32_t st = b.read(S + SB_STREAM_STATUS);
		TB_CHECK(st & SB_STREAM_STATUS_DONE_MASK, "stream pass %d done", pass);
		TB_EQ((st & SB_STREAM_STATUS_COMPLETED_MASK) >> SB_STREAM_STATUS_COMPLETED_SHIFT, n,
		      "stream completed entries");
		TB_EQ((st & SB_STREAM_STATUS_MISMATCHES_MASK) >> SB_STREAM_STATUS_MISMATCHES_SHIFT,
		      pass == 0 ? 0 : n / 2, "stream mismatches");
		TB_CHECK(b.read(S + SB_STREAM_TOTAL_CYCLES) > 0, "stream total_cycles");
		/* The group's requests: in entry order, right sizes, on the port's path. */
		const std::vector<Req> &log = b.resp[link_of(port)].log;
		std::vector<Req> mine;
		for (size_t i = from; i < log.size(); i++)
			if (port_of(link_of(port), log[i].tag) == port)
				mine.push_back(log[i]);
		/* The port's own requests surround the group's: find the group. */
		size_t at = 0;
		while (at < mine.size() && !(mine[at].addr == addr[0] && (mine[at].tag & 63) == 0 &&
		                             mine[at].cmd == (unsigned)CMD_WR))
			at++;
		mine.erase(mine.begin(), mine.begin() + (long)at);
		if (mine.size() > n)
			mine.resize(n);
		for (size_t i = 0; i < mine.size(); i++)
			TB_CHECK(mine[i].cycle - mine[0].cycle <= 2 * n + 200,
			         "stream entries issued back to back");
		TB_EQ(mine.size(), n, "stream requests issued");
		for (unsigned i = 0; i < n && i < mine.size(); i++) {
			TB_EQ(mine[i].addr, addr[i], "stream entry address");
			TB_EQ(mine[i].tag & 63, i, "stream tag = entry");
			TB_EQ(mine[i].cmd, i < n / 2 ? CMD_WR : CMD_RD, "stream entry command");
			uint32_t c = b.read(S + SB_STREAM_ENTRY_CMD(i));
			TB_CHECK(c & SB_STREAM_ENTRY_CMD_DONE_MASK, "entry %u done", i);
			TB_EQ(!!(c & SB_STREAM_ENTRY_CMD_MISMATCH_MASK), pass == 1 && i >= n / 2,
			      "entry mismatch flag");
			uint32_t lat = b.read(S + SB_STREAM_ENTRY_LATENCY(i));
			TB_CHECK(lat >= rc.lat_min && lat < 10000, "entry %u latency %u", i, lat);
		}
		if (pass == 0) {
			/* The data written is the C pattern of (seed, address, beat). */
			Responder &r = b.resp[link_of(port)];
			for (unsigned i = 0; i < n / 2; i++)
				for (unsigned beat = 0; beat < 1 + i % 8; beat++) {
					Beat d = r.read_block((addr[i] >> 4) + beat);
					for (unsigned w = 0; w < 4; w++)
						TB_EQ(d.w[w], sb_pattern_word(seed_v, addr[i], beat, w),
						      "written data == gups_pattern.h");
				}
			/* Second pass: corrupt every read beat. */
			r.corrupt_mask.w[2] = 0x100;
		}
	}
	TB_CHECK(b.read(SB_LAYOUT_IRQ_OFFSET + SB_IRQ_STATUS) & SB_IRQ_STATUS_STREAM_DONE_MASK,
	         "irq stream_done");
	/* The port got its path back and finished its run. */
	uint64_t until = b.cyc + 50000;
	while (!(b.read(port_base(port) + SB_GUPS_PORT_STATUS) & SB_GUPS_PORT_STATUS_DONE_MASK) &&
	       b.cyc < until)
		b.idle(50);
	TB_EQ(b.read64(port_base(port) + SB_GUPS_PORT_READS), 100, "port run after the stream");
}

/* ------------------------------------------------------------------------------------------ */

static void test_status(uint64_t seed)
{
	ResponderCfg rc;
	rc.err_pct = 100;
	rc.errstat = 0x01; /* thermal */
	Bench b(seed, rc);
	const uint32_t H = SB_LAYOUT_HMC_CTRL_OFFSET, I = SB_LAYOUT_IRQ_OFFSET;

	b.reset();
	b.write(I + SB_IRQ_MASK, SB_IRQ_MASK_THERMAL_MASK);
	start_port(b, 0, PortRun{SB_GUPS_PORT_CONTROL_TYPE_RO, 1, false, false, 3, 5});
	b.idle(2000);
	uint32_t st = b.read(H + SB_HMC_CTRL_STATUS);
	TB_CHECK(st & SB_HMC_CTRL_STATUS_THERMAL_FAIL_MASK, "thermal_fail");
	TB_CHECK(st & SB_HMC_CTRL_STATUS_ERROR_MASK, "error");
	TB_EQ((st & SB_HMC_CTRL_STATUS_ERRSTAT_MASK) >> SB_HMC_CTRL_STATUS_ERRSTAT_SHIFT, 1,
	      "status.errstat");
	TB_EQ(b.read(H + SB_HMC_CTRL_ERROR_RESPONSES), 5, "error_responses");
	TB_EQ(b.read(H + SB_HMC_CTRL_THERMAL_EVENTS), 1, "thermal_events");
	TB_EQ(b.read(I + SB_IRQ_PENDING),
	      SB_IRQ_STATUS_THERMAL_MASK, "irq pending = thermal (link_error masked)");
	TB_CHECK(b.read(I + SB_IRQ_STATUS) & SB_IRQ_STATUS_LINK_ERROR_MASK, "irq link_error");
	TB_CHECK(b.top->irq, "irq pin");
	uint32_t ps = b.read(port_base(0) + SB_GUPS_PORT_STATUS);
	TB_CHECK(ps & SB_GUPS_PORT_STATUS_ERROR_MASK, "port status.error");
	/* Cube reset clears the flags and needs an init. */
	b.write(H + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_CUBE_MASK);
	TB_EQ(b.cube_resets, 1, "hmc_cube_reset pulse");
	st = b.read(H + SB_HMC_CTRL_STATUS);
	TB_EQ(st, SB_HMC_CTRL_STATUS_IN_RESET_MASK, "after cube reset: in_reset only");
	b.write(H + SB_HMC_CTRL_CONTROL, SB_HMC_CTRL_CONTROL_INIT_MASK);
	TB_EQ(b.init_starts, 1, "hmc_init_start pulse");
	TB_CHECK(b.read(H + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_INIT_BUSY_MASK, "init_busy");
	b.top->hmc_init_done = 1;
	b.step();
	TB_EQ(b.read(H + SB_HMC_CTRL_STATUS), SB_HMC_CTRL_STATUS_READY_MASK, "ready after init");
	TB_EQ(b.read(H + SB_HMC_CTRL_THERMAL_EVENTS), 1, "thermal_events kept");
	b.write(H + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_STATS_MASK);
	TB_EQ(b.read(H + SB_HMC_CTRL_ERROR_RESPONSES), 0, "stats reset");
	/* A link going down. */
	b.write(I + SB_IRQ_STATUS, 0xFFFFFFFF);
	b.top->hmc_link_up = 1;
	b.idle(3);
	TB_EQ(b.read(H + SB_HMC_CTRL_LINK_STATUS), 1, "link_status");
	TB_EQ(b.read(H + SB_HMC_CTRL_STATUS) & SB_HMC_CTRL_STATUS_READY_MASK, 0, "not ready");
	TB_CHECK(b.read(I + SB_IRQ_STATUS) & SB_IRQ_STATUS_LINK_ERROR_MASK, "link down event");
	/* Ports reset clears the port. */
	b.write(H + SB_HMC_CTRL_RESET, SB_HMC_CTRL_RESET_PORTS_MASK);
	TB_EQ(b.read64(port_base(0) + SB_GUPS_PORT_READS), 0, "ports reset clears counters");
	TB_EQ(b.read(port_base(0) + SB_GUPS_PORT_STATUS), SB_GUPS_PORT_STATUS_RESET, "port status");
}

/* ------------------------------------------------------------------------------------------ */

static void test_trace(uint64_t seed)
{
	ResponderCfg rc;
	Bench b(seed, rc);
	const uint32_t T = SB_LAYOUT_TRACE_OFFSET;
	const unsigned port = 3, burst = 16, bursts = 3;

	b.reset();
	b.write(T + SB_TRACE_BURST_LEN, burst);
	b.write(T + SB_TRACE_GAP, 300);
	b.write(T + SB_TRACE_PORT_MASK, 1u << port);
	b.write(T + SB_TRACE_CONTROL, SB_TRACE_CONTROL_ENABLE_MASK);
	start_port(b, 2, PortRun{SB_GUPS_PORT_CONTROL_TYPE_RO, 1, false, false, 9, 400});
	start_port(b, port, PortRun{SB_GUPS_PORT_CONTROL_TYPE_RW, 2, false, false, 11, 400});
	uint64_t until = b.cyc + 100000;
	while (b.read(T + SB_TRACE_SAMPLE_ID) < bursts && b.cyc < until)
		b.idle(50);
	b.write(T + SB_TRACE_CONTROL, 0);
	uint32_t count = b.read(T + SB_TRACE_ONCHIP_COUNT);
	TB_CHECK(count >= bursts * burst, "trace: %u records held", count);
	TB_EQ(b.read64(T + SB_TRACE_RECORDS), count, "trace.records");
	b.write(T + SB_TRACE_RD_INDEX, 0);
	std::set<std::pair<uint64_t, unsigned>> issued; /* (address, tag) of port 3's requests */
	for (const Req &q : b.resp[link_of(port)].log)
		if (port_of(link_of(port), q.tag) == port)
			issued.insert({q.addr, q.tag & 63});
	for (unsigned i = 0; i < count; i++) {
		uint32_t w[8];
		for (unsigned k = 0; k < 8; k++)
			w[k] = b.read(T + SB_TRACE_RD_DATA);
		TB_EQ(w[7], w[0] ^ w[2] ^ w[3] ^ w[4] ^ SB_REGMAP_MAGIC, "record check word");
		TB_EQ((w[3] >> 16) & 0xFF, port, "record port");
		TB_EQ(w[6], i, "record seq");
		TB_EQ(w[5], i / burst, "record sample_id (bursts of burst_len)");
		TB_EQ((w[3] >> 4) & 0xF, 2, "record flits");
		uint64_t a = w[2] | (uint64_t)(w[3] & 3) << 32;
		TB_CHECK(issued.count({a, (w[3] >> 8) & 0xFF}), "record %u matches a request", i);
		TB_CHECK(w[4] >= rc.lat_min, "record latency");
	}
	TB_EQ(b.read(T + SB_TRACE_RD_DATA), 0, "beyond the records reads 0");
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);

	test_regs(seed);
	test_traffic(seed);
	test_stream(seed);
	test_status(seed);
	test_trace(seed);
	return finish("tb_top");
}
