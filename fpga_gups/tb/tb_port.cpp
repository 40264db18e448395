/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_gups_port: the port driven through its register block and connected to the
 * behavioural HMC responder (random back-pressure, randomized out-of-order latencies, lost
 * responses, injected ERRSTAT). Checks, per run: the address stream against the C definition
 * (gups_addrgen.h), request types and sizes, rw write-backs only after their read returned,
 * iteration limits, counters, latency min/max/sum/count against what the responder applied,
 * outstanding requests <= 64 (and <= the flow threshold), lost-tag detection and recovery,
 * stop-on-lost, error status, trace taps, and register read-back.
 */
#include <algorithm>
#include <memory>

#include "Vsb_gups_port.h"
#include "gups_addrgen.h"
#include "sb_regmap.h"
#include "tb_common.h"

using namespace tb;

struct Bench {
	std::unique_ptr<Vsb_gups_port> top;
	Rng rng;
	Responder resp;
	UPortPins pins;
	uint64_t cyc = 0;
	uint64_t trc = 0, trc_drops = 0, rsp_errs = 0;

	Bench(uint64_t seed, ResponderCfg c) : top(new Vsb_gups_port), rng(seed), resp(rng, c) {}

	void step()
	{
		top->now = (uint32_t)cyc;
		top->clk = 0;
		top->eval();
		cmd_pins(*top, pins);
		pins.wr_valid = top->m_wr_valid;
		for (int i = 0; i < 4; i++)
			pins.wr_data.w[i] = top->m_wr_data[i];
		resp.drive(pins, cyc);
		top->m_cmd_ready = pins.cmd_ready;
		top->m_wr_ready = pins.wr_ready;
		top->s_rsp_valid = pins.rsp_valid;
		top->s_rsp_tag = pins.rsp_tag;
		for (int i = 0; i < 4; i++)
			top->s_rsp_data[i] = pins.rsp_data.w[i];
		top->s_rsp_errstat = pins.rsp_errstat;
		top->s_rsp_dinv = pins.rsp_dinv;
		top->eval();
		pins.wr_valid = top->m_wr_valid; /* wr_ready does not feed back combinationally */
		top->clk = 1;
		top->eval();
		resp.edge(pins, cyc);
		cyc++;
		trc += top->trc_valid;
		trc_drops += top->trc_drop;
		rsp_errs += top->rsp_err;
		top->reg_wr_en = 0;
		top->reg_rd_en = 0;
		top->ports_reset = 0;
	}

	void idle(unsigned n)
	{
		while (n--)
			step();
	}

	void write(uint32_t off, uint32_t v)
	{
		idle(rng.range(0, 3));
		top->reg_sel = 1;
		top->reg_addr = off;
		top->reg_wr_en = 1;
		top->reg_wr_data = v;
		top->reg_wr_strb = 0xF;
		step();
	}

	void write64(uint32_t off, uint64_t v)
	{
		write(off, (uint32_t)v);
		write(off + 4, (uint32_t)(v >> 32));
	}

	uint32_t read(uint32_t off)
	{
		idle(rng.range(0, 3));
		top->reg_sel = 1;
		top->reg_addr = off;
		top->reg_rd_en = 1;
		step();
		return top->reg_rd_data;
	}

	uint64_t read64(uint32_t off)
	{
		uint64_t lo = read(off);
		return lo | (uint64_t)read(off + 4) << 32;
	}

	void reset(unsigned index = 0, unsigned link = 0, uint32_t next = 0)
	{
		top->info_index = index;
		top->info_link = link;
		top->next_offset = next;
		top->rst = 1;
		top->flow_threshold = SB_HMC_CTRL_FLOW_THRESHOLD_RESET;
		top->data_seed = SB_STREAM_DATA_SEED_RESET;
		top->hold = 0;
		idle(4);
		top->rst = 0;
		idle(2);
	}
};

struct RunCfg {
	unsigned type = SB_GUPS_PORT_CONTROL_TYPE_RO;
	bool linear = false, posted = false;
	unsigned flits = 8;
	uint64_t iters = 400;
	uint64_t seed = 1, start = 0, end = 0, step = 0x80;
	uint64_t mask = SB_ADDR_MASK, anti = 0;
	uint32_t timeout = SB_GUPS_PORT_TAG_TIMEOUT_RESET;
	uint32_t tag_ctrl = SB_GUPS_PORT_TAG_CTRL_RESET;
	uint32_t flow = SB_HMC_CTRL_FLOW_THRESHOLD_RESET;
	/* rw with reads always possible (free tags, a fast responder): no write-back may follow
	 * a write-back until the last read has gone (the port alternates them). */
	bool alternates = false;
};

static void program(Bench &b, const RunCfg &r)
{
	b.top->flow_threshold = r.flow;
	b.write(SB_GUPS_PORT_REQ_SIZE, SB_FIELD_PREP(SB_GUPS_PORT_REQ_SIZE_FLITS, r.flits));
	b.write64(SB_GUPS_PORT_ITER_LIMIT, r.iters);
	b.write64(SB_GUPS_PORT_ADDR_MASK, r.mask);
	b.write64(SB_GUPS_PORT_ADDR_ANTIMASK, r.anti);
	b.write64(SB_GUPS_PORT_LIN_START, r.start);
	b.write64(SB_GUPS_PORT_LIN_END, r.end);
	b.write(SB_GUPS_PORT_LIN_STEP, (uint32_t)r.step);
	b.write64(SB_GUPS_PORT_LFSR_SEED, r.seed);
	b.write(SB_GUPS_PORT_TAG_TIMEOUT, r.timeout);
	b.write(SB_GUPS_PORT_TAG_CTRL, r.tag_ctrl);
	b.write(SB_GUPS_PORT_CONTROL, SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_TYPE, r.type) |
	                                  SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_MODE, r.linear) |
	                                  SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_POSTED, r.posted) |
	                                  SB_GUPS_PORT_CONTROL_ENABLE_MASK |
	                                  SB_GUPS_PORT_CONTROL_START_MASK);
}

/* Wait until status has all bits of `bits`; false on timeout. */
static bool wait_status(Bench &b, uint32_t bits, uint64_t max_cycles)
{
	uint64_t until = b.cyc + max_cycles;

	while (b.cyc < until) {
		if ((b.read(SB_GUPS_PORT_STATUS) & bits) == bits)
			return true;
		b.idle(20);
	}
	return false;
}

/* The addresses the C definition generates for this configuration. */
static std::vector<uint64_t> golden(const RunCfg &r, size_t n)
{
	struct sb_addrgen g;
	std::vector<uint64_t> v;

	sb_addrgen_init(&g, r.linear, r.seed, r.start, r.end, r.step, r.mask, r.anti, r.flits);
	for (size_t i = 0; i < n; i++)
		v.push_back(sb_addrgen_next(&g));
	return v;
}

static const char *type_name(unsigned t)
{
	return t == 0 ? "ro" : t == 1 ? "wo" : "rw";
}

/* One limited run from reset; checks everything a completed run must satisfy. */
static void run_limited(uint64_t seed, const RunCfg &r, ResponderCfg rc, const char *name)
{
	Bench b(seed, rc);
	char what[160];

	b.reset();
	program(b, r);
	bool done = wait_status(b, SB_GUPS_PORT_STATUS_DONE_MASK | SB_GUPS_PORT_STATUS_IDLE_MASK,
	                        400000);
	snprintf(what, sizeof(what), "%s: done and idle", name);
	TB_CHECK(done, "%s", what);
	b.idle(50);

	Responder &p = b.resp;
	std::vector<uint64_t> rd, wr;
	for (const Req &q : p.log) {
		TB_EQ(q.size, r.flits, "request size");
		if (q.cmd == CMD_RD)
			rd.push_back(q.addr);
		else {
			wr.push_back(q.addr);
			TB_EQ(q.cmd, r.posted ? CMD_P_WR : CMD_WR, "write command (posted or not)");
		}
	}
	std::vector<uint64_t> gold = golden(r, r.iters);
	const std::vector<uint64_t> &primary = r.type == SB_GUPS_PORT_CONTROL_TYPE_WO ? wr : rd;
	snprintf(what, sizeof(what), "%s (%s): iterations issued", name, type_name(r.type));
	TB_EQ(primary.size(), r.iters, what);
	for (size_t i = 0; i < primary.size() && i < gold.size(); i++)
		if (primary[i] != gold[i]) {
			fail("%s: request %zu to 0x%" PRIx64 ", the C definition gives 0x%" PRIx64, name,
			     i, primary[i], gold[i]);
			break;
		}
	for (uint64_t a : primary)
		TB_EQ(a, (a & r.mask & SB_ADDR_MASK) | r.anti, "address == (gen & mask) | antimask");
	if (r.type == SB_GUPS_PORT_CONTROL_TYPE_RO)
		TB_EQ(wr.size(), 0, "ro issues no writes");
	if (r.type == SB_GUPS_PORT_CONTROL_TYPE_WO)
		TB_EQ(rd.size(), 0, "wo issues no reads");
	if (r.type == SB_GUPS_PORT_CONTROL_TYPE_RW) {
		/* Each write goes to an address whose read has already returned. */
		std::map<uint64_t, long> avail;
		size_t ri = 0;
		for (const Req &q : p.log) {
			if (q.cmd == CMD_RD)
				continue;
			while (ri < p.resp_log.size() && p.resp_log[ri].cycle < q.cycle) {
				if (p.resp_log[ri].cmd == CMD_RD)
					avail[p.resp_log[ri].addr]++;
				ri++;
			}
			if (avail[q.addr]-- <= 0)
				fail("%s: rw write to 0x%" PRIx64 " before its read returned", name,
				     q.addr);
		}
		std::vector<uint64_t> a = rd, c = wr;
		std::sort(a.begin(), a.end());
		std::sort(c.begin(), c.end());
		TB_CHECK(a == c, "%s: rw writes are the read addresses", name);
		if (r.alternates) {
			size_t last_rd = 0, pairs = 0;
			for (size_t i = 0; i < p.log.size(); i++)
				if (p.log[i].cmd == CMD_RD)
					last_rd = i;
			for (size_t i = 1; i < last_rd; i++) {
				bool w0 = p.log[i - 1].cmd != CMD_RD, w1 = p.log[i].cmd != CMD_RD;
				if (w0 && w1) {
					fail("%s: write-backs %zu and %zu back to back while reads could go",
					     name, i - 1, i);
					break;
				}
				pairs += w0 && !w1;
			}
			TB_CHECK(pairs > r.iters / 2, "%s: %zu write-backs followed by a read of %" PRIu64,
			         name, pairs, r.iters);
		}
	}
	TB_EQ(b.read64(SB_GUPS_PORT_READS), p.reads, "reads counter");
	TB_EQ(b.read64(SB_GUPS_PORT_WRITES), p.writes, "writes counter");
	TB_EQ(b.read64(SB_GUPS_PORT_READ_DATA), p.rd_flits, "read_data counter (flits)");
	TB_EQ(b.read64(SB_GUPS_PORT_LAT_COUNT), p.lat_count, "lat_count");
	TB_EQ(b.read64(SB_GUPS_PORT_LAT_SUM), p.lat_sum, "lat_sum");
	if (p.lat_count) {
		TB_EQ(b.read(SB_GUPS_PORT_LAT_MIN), p.lat_min, "lat_min");
		TB_EQ(b.read(SB_GUPS_PORT_LAT_MAX), p.lat_max, "lat_max");
	}
	TB_CHECK(p.outstanding_max <= 64, "%s: %" PRIu64 " requests outstanding (> 64)", name,
	         p.outstanding_max);
	if (r.flow)
		TB_CHECK(p.outstanding_max <= r.flow, "%s: %" PRIu64 " outstanding > threshold %u",
		         name, p.outstanding_max, r.flow);
	TB_EQ(b.read(SB_GUPS_PORT_LOST_TAGS), p.dropped, "lost_tags == responses lost");
	uint32_t st = b.read(SB_GUPS_PORT_STATUS);
	TB_EQ(st & SB_GUPS_PORT_STATUS_RUNNING_MASK, 0, "not running after done");
	TB_EQ(b.read(SB_GUPS_PORT_TAG_USAGE) & SB_GUPS_PORT_TAG_USAGE_IN_USE_MASK, 0,
	      "no tag in use after done");
	uint32_t peak = (b.read(SB_GUPS_PORT_TAG_USAGE) & SB_GUPS_PORT_TAG_USAGE_PEAK_MASK) >>
	                SB_GUPS_PORT_TAG_USAGE_PEAK_SHIFT;
	bool tagged = !(r.type == SB_GUPS_PORT_CONTROL_TYPE_WO && r.posted);
	TB_CHECK(tagged ? (peak >= 1 && peak <= 64) : peak == 0, "%s: tag peak %u", name, peak);
	TB_CHECK(peak >= p.outstanding_max, "%s: tag peak %u below the %" PRIu64
	         " requests outstanding at the responder", name, peak, p.outstanding_max);
	if (rc.err_pct) {
		TB_EQ(b.rsp_errs, p.errors, "error responses reported");
		TB_CHECK(p.errors == 0 || (st & SB_GUPS_PORT_STATUS_ERROR_MASK), "status.error");
		if (p.errors)
			TB_EQ((st & SB_GUPS_PORT_STATUS_ERRSTAT_MASK) >> SB_GUPS_PORT_STATUS_ERRSTAT_SHIFT,
			      rc.errstat, "status.errstat");
	} else {
		TB_EQ(st & SB_GUPS_PORT_STATUS_ERROR_MASK, 0, "no error without error responses");
	}
	/* One trace record per completed request and per posted write (or a counted drop). */
	uint64_t completions = p.resp_log.size();
	uint64_t posted = r.posted ? wr.size() : 0;
	TB_EQ(b.trc + b.trc_drops, completions + posted, "trace records offered");
	printf("%-28s %-2s %s flits %u: %zu rd %zu wr, lat %" PRIu64 "..%" PRIu64
	       ", max outstanding %" PRIu64 ", lost %" PRIu64 ", %" PRIu64 " cycles\n",
	       name, type_name(r.type), r.linear ? "linear" : "random", r.flits, rd.size(),
	       wr.size(), p.lat_min, p.lat_max, p.outstanding_max, p.dropped, b.cyc);
}

/* Reset values of every register of the block, and read-back of the rw registers. */
static void check_registers(uint64_t seed)
{
	ResponderCfg rc;
	Bench b(seed, rc);

	/* The instance's identity comes from its index / link / next inputs. */
	unsigned index = b.rng.range(0, 255), link = b.rng.range(0, 15);
	uint32_t next = (uint32_t)b.rng.u64() & ~3u;
	b.reset(index, link, next);
	TB_EQ(b.read(SB_BLK_TYPE), SB_BLK_GUPS_PORT_TYPE, "TYPE");
	TB_EQ(b.read(SB_BLK_VERSION), SB_BLK_GUPS_PORT_VERSION, "VERSION");
	TB_EQ(b.read(SB_BLK_NEXT), next, "NEXT (next_offset input)");
	TB_EQ(b.read(SB_GUPS_PORT_INFO),
	      (SB_GUPS_PORT_INFO_RESET & SB_GUPS_PORT_INFO_TAG_DEPTH_MASK) |
	          SB_FIELD_PREP(SB_GUPS_PORT_INFO_INDEX, index) |
	          SB_FIELD_PREP(SB_GUPS_PORT_INFO_LINK, link),
	      "info (index / link inputs, tag depth 64)");
	b.reset();
	TB_EQ(b.read(SB_GUPS_PORT_INFO), SB_GUPS_PORT_INFO_RESET, "info (port 0, link 0)");
	TB_EQ(b.read(SB_GUPS_PORT_CONTROL), SB_GUPS_PORT_CONTROL_RESET, "control reset");
	TB_EQ(b.read(SB_GUPS_PORT_STATUS), SB_GUPS_PORT_STATUS_RESET, "status reset");
	TB_EQ(b.read(SB_GUPS_PORT_REQ_SIZE), SB_GUPS_PORT_REQ_SIZE_RESET, "req_size reset");
	TB_EQ(b.read64(SB_GUPS_PORT_ITER_LIMIT), SB_GUPS_PORT_ITER_LIMIT_RESET, "iter_limit");
	TB_EQ(b.read(SB_GUPS_PORT_TAG_CTRL), SB_GUPS_PORT_TAG_CTRL_RESET, "tag_ctrl reset");
	TB_EQ(b.read(SB_GUPS_PORT_TAG_TIMEOUT), SB_GUPS_PORT_TAG_TIMEOUT_RESET, "tag_timeout");
	TB_EQ(b.read(SB_GUPS_PORT_LAT_MIN), SB_GUPS_PORT_LAT_MIN_RESET, "lat_min reset");
	TB_EQ(b.read64(SB_GUPS_PORT_ADDR_MASK), SB_GUPS_PORT_ADDR_MASK_RESET, "addr_mask reset");
	TB_EQ(b.read64(SB_GUPS_PORT_LIN_END), SB_GUPS_PORT_LIN_END_RESET, "lin_end reset");
	TB_EQ(b.read(SB_GUPS_PORT_LIN_STEP), SB_GUPS_PORT_LIN_STEP_RESET, "lin_step reset");
	TB_EQ(b.read64(SB_GUPS_PORT_LFSR_SEED), SB_GUPS_PORT_LFSR_SEED_RESET, "lfsr_seed reset");
	/* rw read-back: addresses keep bits 33..0, other registers their fields. */
	for (int i = 0; i < 20; i++) {
		uint64_t v = b.rng.u64();
		b.write64(SB_GUPS_PORT_ADDR_ANTIMASK, v);
		TB_EQ(b.read64(SB_GUPS_PORT_ADDR_ANTIMASK), v & SB_ADDR_MASK, "antimask read-back");
		b.write64(SB_GUPS_PORT_ITER_LIMIT, v);
		TB_EQ(b.read64(SB_GUPS_PORT_ITER_LIMIT), v, "iter_limit read-back");
		b.write64(SB_GUPS_PORT_LFSR_SEED, ~v);
		TB_EQ(b.read64(SB_GUPS_PORT_LFSR_SEED), ~v, "lfsr_seed read-back");
		b.write(SB_GUPS_PORT_TAG_CTRL, (uint32_t)v);
		TB_EQ(b.read(SB_GUPS_PORT_TAG_CTRL),
		      (uint32_t)v & (SB_GUPS_PORT_TAG_CTRL_DETECT_MASK |
		                     SB_GUPS_PORT_TAG_CTRL_RECYCLE_MASK |
		                     SB_GUPS_PORT_TAG_CTRL_STOP_ON_LOST_MASK),
		      "tag_ctrl read-back (reset pulse reads 0)");
		b.write(SB_GUPS_PORT_REQ_SIZE, (uint32_t)v);
		TB_EQ(b.read(SB_GUPS_PORT_REQ_SIZE), (uint32_t)v & SB_GUPS_PORT_REQ_SIZE_FLITS_MASK,
		      "req_size read-back");
	}
	/* Byte strobes: only the strobed byte changes. */
	b.write(SB_GUPS_PORT_LIN_STEP, 0x11223344);
	b.top->reg_sel = 1;
	b.top->reg_addr = SB_GUPS_PORT_LIN_STEP;
	b.top->reg_wr_en = 1;
	b.top->reg_wr_data = 0xAABBCCDD;
	b.top->reg_wr_strb = 0x4;
	b.step();
	TB_EQ(b.read(SB_GUPS_PORT_LIN_STEP), 0x11BB3344, "byte strobes");
	/* Read-only registers ignore writes. */
	b.write(SB_GUPS_PORT_LAT_MAX, 0x1234);
	TB_EQ(b.read(SB_GUPS_PORT_LAT_MAX), 0, "lat_max is read-only");
}

/* Unlimited run stopped by clearing enable; the 64-bit counter latch. */
static void run_unlimited(uint64_t seed)
{
	ResponderCfg rc;
	Bench b(seed, rc);
	RunCfg r;

	r.iters = 0;
	r.flits = 2;
	b.reset();
	program(b, r);
	b.idle(3000);
	TB_CHECK(b.read(SB_GUPS_PORT_STATUS) & SB_GUPS_PORT_STATUS_RUNNING_MASK, "running");
	/* The high word read after the low word belongs to the same 64-bit value. */
	uint32_t lo = b.read(SB_GUPS_PORT_READS);
	b.idle(500);
	uint32_t hi = b.read(SB_GUPS_PORT_READS + 4);
	TB_EQ(hi, 0, "latched high word");
	TB_CHECK(lo > 0, "reads counted while running");
	b.write(SB_GUPS_PORT_CONTROL, SB_FIELD_PREP(SB_GUPS_PORT_CONTROL_TYPE, r.type));
	TB_CHECK(wait_status(b, SB_GUPS_PORT_STATUS_IDLE_MASK, 20000), "idle after disable");
	uint32_t st = b.read(SB_GUPS_PORT_STATUS);
	TB_EQ(st & (SB_GUPS_PORT_STATUS_RUNNING_MASK | SB_GUPS_PORT_STATUS_DONE_MASK), 0,
	      "stopped, not done");
	TB_EQ(b.read64(SB_GUPS_PORT_READS), b.resp.reads, "reads after stop");
	TB_EQ(b.read64(SB_GUPS_PORT_LAT_COUNT), b.resp.lat_count, "lat_count after stop");
	size_t n = b.resp.log.size();
	b.idle(500);
	TB_EQ(b.resp.log.size(), n, "no request after disable");
	std::vector<uint64_t> gold = golden(r, n);
	for (size_t i = 0; i < n; i++)
		if (b.resp.log[i].addr != gold[i]) {
			fail("unlimited: request %zu differs from the C definition", i);
			break;
		}
	/* ports_reset clears the counters. */
	b.top->ports_reset = 1;
	b.step();
	b.idle(2);
	TB_EQ(b.read64(SB_GUPS_PORT_READS), 0, "reads cleared by ports reset");
}

/* stop_on_lost: a lost tag stops the port. */
static void run_stop_on_lost(uint64_t seed)
{
	ResponderCfg rc;
	rc.drop_pct = 10;
	Bench b(seed, rc);
	RunCfg r;

	r.iters = 100000;
	r.timeout = 300;
	r.tag_ctrl = SB_GUPS_PORT_TAG_CTRL_DETECT_MASK | SB_GUPS_PORT_TAG_CTRL_STOP_ON_LOST_MASK;
	b.reset();
	program(b, r);
	TB_CHECK(wait_status(b, SB_GUPS_PORT_STATUS_LOST_STOP_MASK | SB_GUPS_PORT_STATUS_IDLE_MASK,
	                     50000),
	         "stop_on_lost: stopped");
	uint32_t st = b.read(SB_GUPS_PORT_STATUS);
	TB_EQ(st & (SB_GUPS_PORT_STATUS_RUNNING_MASK | SB_GUPS_PORT_STATUS_DONE_MASK), 0,
	      "stop_on_lost: not running, not done");
	TB_CHECK(b.read(SB_GUPS_PORT_LOST_TAGS) >= 1, "stop_on_lost: a lost tag counted");
	TB_CHECK(b.resp.reads < r.iters, "stop_on_lost: stopped early");
	/* Without recycle, lost tags stay out of the pool until tag_ctrl.reset. */
	TB_EQ(b.read(SB_GUPS_PORT_TAG_USAGE) & SB_GUPS_PORT_TAG_USAGE_IN_USE_MASK, 0,
	      "stop_on_lost: nothing outstanding");
	b.write(SB_GUPS_PORT_TAG_CTRL, SB_GUPS_PORT_TAG_CTRL_RESET_MASK);
	TB_EQ(b.read(SB_GUPS_PORT_LOST_TAGS), 0, "tag_ctrl.reset clears lost_tags");
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	ResponderCfg rc, lossy, errs, tight;
	RunCfg r;

	lossy.drop_pct = 3;
	errs.err_pct = 10;
	tight.lat_min = 1;
	tight.lat_max = 3;
	tight.cmd_ready_pct = 100;
	tight.wr_ready_pct = 100;
	tight.rsp_idle_pct = 0;

	check_registers(seed);

	const unsigned types[] = {SB_GUPS_PORT_CONTROL_TYPE_RO, SB_GUPS_PORT_CONTROL_TYPE_WO,
	                          SB_GUPS_PORT_CONTROL_TYPE_RW};
	for (unsigned t : types)
		for (int linear = 0; linear < 2; linear++) {
			r = RunCfg();
			r.type = t;
			r.linear = linear;
			r.flits = 1 + (unsigned)((seed + t * 3 + linear) % 8);
			r.seed = linear ? 7 : seed * 0x9E3779B9ull;
			r.start = 0x100000;
			r.end = 0x100000 + 0x80 * 37;
			r.step = 0x80;
			r.mask = SB_ADDR_MASK & ~(0xFFull << 12);
			r.anti = 1ull << 33;
			run_limited(seed + t * 2 + linear, r, rc, "type/mode");
		}
	/* Posted writes, rw and wo. */
	r = RunCfg();
	r.type = SB_GUPS_PORT_CONTROL_TYPE_RW;
	r.posted = true;
	run_limited(seed + 10, r, rc, "rw posted");
	r.type = SB_GUPS_PORT_CONTROL_TYPE_WO;
	run_limited(seed + 11, r, rc, "wo posted");
	r = RunCfg();
	r.type = SB_GUPS_PORT_CONTROL_TYPE_RW;
	r.posted = true;
	r.flits = 1;
	r.iters = 2000;
	r.alternates = true;
	run_limited(seed + 19, r, tight, "rw alternates write-backs and reads");
	/* Seed 0 is replaced by 1; linear wrap with start > end. */
	r = RunCfg();
	r.seed = 0;
	r.flits = 1;
	run_limited(seed + 12, r, rc, "seed 0");
	r = RunCfg();
	r.linear = true;
	r.start = 0x3FFFFF000ull;
	r.end = 0x1000;
	r.step = 0x40;
	r.flits = 3;
	run_limited(seed + 13, r, rc, "linear start > end");
	/* Lost responses: detected, recycled, counted; the run completes. */
	/* (The timeout must exceed the longest latency the responder's queue can cause.) */
	r = RunCfg();
	r.iters = 1500;
	r.flits = 1;
	r.timeout = 2000;
	run_limited(seed + 14, r, lossy, "lost tags recycled");
	/* Error responses. */
	r = RunCfg();
	r.type = SB_GUPS_PORT_CONTROL_TYPE_RW;
	run_limited(seed + 15, r, errs, "error status");
	/* Flow-control threshold and a fast responder (64 tags in use). */
	r = RunCfg();
	r.flow = 8;
	run_limited(seed + 16, r, rc, "flow threshold 8");
	r = RunCfg();
	r.iters = 3000;
	r.flits = 1;
	ResponderCfg slow = tight;
	slow.lat_min = 150;
	slow.lat_max = 200;
	run_limited(seed + 17, r, slow, "64 tags saturated");
	{
		/* With a slow responder the pool is the limit: exactly 64 outstanding. */
		Bench b(seed + 17, slow);
		b.reset();
		program(b, r);
		b.idle(2000);
		TB_EQ(b.resp.outstanding_max, 64, "64 tags in flight with a slow responder");
	}
	run_limited(seed + 18, r, tight, "back-to-back");

	run_unlimited(seed + 19);
	run_stop_on_lost(seed + 20);
	return finish("tb_port");
}
