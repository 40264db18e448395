/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_replay (built with N=4, LINKS=2, PORTS_PER_LINK=3, FIRST_PORT=2: lane p is
 * on link (2 + p) / 3, so lane 0 on link 0 and lanes 1, 2, 3 on link 1).
 * The harness plays the host (a descriptor ring it refills through tail / head), the DMA
 * engine (read requests with random back-pressure, descriptors returned with random gaps) and
 * the user-port side of each link as sb_uport_arb and the controller present it: one lane's
 * command taken per link and cycle (random ready), write data in command order, responses out
 * of order with random latencies and injected ERRSTAT, the beats of one response back to back.
 *   regs     register access rules from the table (reset values, storage bits, strobes,
 *            read-only and write-only words, holes, the 64-bit latch); deselected writes
 *   untimed  3000 random descriptors (reads / writes, 1..8 flits, ports in and outside the
 *            mask and the design) through a 32-entry ring: per lane the commands equal its
 *            descriptors in ring order, bad ones skipped and counted; no command before the
 *            port went idle; issued / completed / reads / writes / errors, latency sum / min /
 *            max, per-vault requests, flits, latency sum / max, end_cycle against the
 *            responder's log; every completion on the trace tap with its time and latency;
 *            written data = gups_pattern.h; status idle, head == tail
 *   reset    control.reset clears pointers, counters and statistics
 *   timed    descriptors with times: none accepted before start_cycle + time, lag and
 *            per-vault lag exactly as the accept cycles give, address mapping mode 1
 */
#include <algorithm>
#include <array>
#include <memory>

#include "Vsb_replay.h"
#include "gups_pattern.h"
#include "tb_common.h"
#include "tb_regs.h"

using namespace tb;

static const unsigned N = 4, LINKS = 2, PORTS_PER_LINK = TB_PORTS_PER_LINK,
                      FIRST_PORT = TB_FIRST_PORT;
static const uint64_t RING = 0x7654300000ull;

static unsigned link_of(unsigned p)
{
	return (FIRST_PORT + p) / PORTS_PER_LINK;
}

static unsigned first_of(unsigned l)
{
	for (unsigned p = 0; p < N; p++)
		if (link_of(p) == l)
			return p;
	return N;
}

struct Desc {
	uint64_t time, addr;
	unsigned write, flits, port;
};

struct Acc {
	uint64_t cycle;
	unsigned cmd, size, tag;
	uint64_t addr;
};

struct Trc {
	uint64_t cycle;
	uint64_t addr;
	unsigned write, flits, tag, errstat;
	uint32_t time, latency;
};

struct Bench : RegBusMaster {
	std::unique_ptr<Vsb_replay> t;
	Rng rng;
	uint64_t cyc = 0;
	std::vector<Responder> resp;
	UPortPins pins[LINKS];
	unsigned rr[LINKS] = {0, 0};
	/* host memory: the ring */
	std::vector<std::array<uint32_t, 4>> ring;
	std::deque<std::array<uint32_t, 4>> desc_q; /* DMA data on its way */
	unsigned rdreq_ready_pct = 70, desc_pct = 70;
	uint64_t rdreqs = 0;
	uint32_t idle_mask = 0xF; /* port_idle */
	uint32_t seed = 0x1234ABCD;
	unsigned addr_mode = 2;
	std::vector<Acc> acc[N];
	std::vector<Trc> trc[N];
	unsigned rsp_err_pulses = 0;

	Bench(uint64_t s, ResponderCfg c) : t(new Vsb_replay), rng(s)
	{
		c.tag_bits = 8; /* {lane within the link (up to 3), tag} */
		for (unsigned l = 0; l < LINKS; l++)
			resp.emplace_back(rng, c);
	}

	uint32_t rd_data()
	{
		return t->reg_rd_data;
	}

	void step()
	{
		t->reg_sel = sel;
		drive_bus(*t);
		t->now = cyc;
		t->data_seed = seed;
		t->addr_mode = addr_mode;
		t->port_idle = idle_mask;
		t->m_axis_rdreq_tready = rng.chance(rdreq_ready_pct);
		bool dv = !desc_q.empty() && rng.chance(desc_pct);
		t->s_axis_desc_tvalid = dv;
		if (dv)
			for (int i = 0; i < 4; i++)
				t->s_axis_desc_tdata[i] = desc_q.front()[i];
		t->m_cmd_ready = 0;
		t->m_wr_ready = 0;
		t->s_rsp_valid = 0;
		t->clk = 0;
		t->eval();
		/* Trace taps and error pulses of this cycle (registered outputs). */
		for (unsigned p = 0; p < N; p++)
			if (t->trc_valid >> p & 1) {
				Trc r;
				r.cycle = cyc;
				r.addr = get_bits(&t->trc_addr[0], p * 34, 34);
				r.write = t->trc_write >> p & 1;
				r.flits = (unsigned)(t->trc_flits >> (4 * p) & 0xF);
				r.tag = (unsigned)(t->trc_tag >> (6 * p) & 0x3F);
				r.errstat = (unsigned)(t->trc_errstat >> (7 * p) & 0x7F);
				r.time = (uint32_t)get_bits(&t->trc_time[0], p * 32, 32);
				r.latency = (uint32_t)get_bits(&t->trc_latency[0], p * 32, 32);
				trc[p].push_back(r);
			}
		rsp_err_pulses += __builtin_popcount(t->rsp_err);
		/* Path ownership. */
		for (unsigned p = 0; p < N; p++) {
			bool own = t->own >> p & 1, claim = t->claim >> p & 1;
			TB_CHECK(!own || claim, "lane %u owns the path without claiming it", p);
			TB_CHECK(!(t->m_cmd_valid >> p & 1) || own, "lane %u issues without the path", p);
		}
		/* The links: one lane's command per cycle, write data in command order. */
		uint32_t cready = 0, wready = 0, rvalid = 0;
		uint32_t rtag[1] = {0}, res[1] = {0};
		int chosen[LINKS], wlane[LINKS];
		for (unsigned l = 0; l < LINKS; l++) {
			UPortPins &u = pins[l];
			unsigned f = first_of(l), m = first_of(l + 1) - f;
			chosen[l] = -1;
			for (unsigned i = 0; i < m; i++) {
				unsigned p = f + (rr[l] + i) % m;
				if (t->m_cmd_valid >> p & 1) {
					chosen[l] = (int)p;
					break;
				}
			}
			u.cmd_valid = chosen[l] >= 0;
			if (chosen[l] >= 0) {
				unsigned p = (unsigned)chosen[l];
				u.cmd = (unsigned)(t->m_cmd >> (4 * p) & 0xF);
				u.addr = get_bits(&t->m_cmd_addr[0], p * 34, 34);
				u.size = (unsigned)(t->m_cmd_size >> (4 * p) & 0xF);
				u.tag = (p - f) << 6 | (unsigned)(t->m_cmd_tag >> (6 * p) & 0x3F);
			}
			wlane[l] = resp[l].wq.empty() ? -1 : (int)(f + (resp[l].wq.front().tag >> 6));
			u.wr_valid = wlane[l] >= 0 && (t->m_wr_valid >> wlane[l] & 1);
			if (wlane[l] >= 0)
				for (int i = 0; i < 4; i++)
					u.wr_data.w[i] = t->m_wr_data[wlane[l] * 4 + i];
			resp[l].drive(u, cyc);
			if (chosen[l] >= 0 && u.cmd_ready)
				cready |= 1u << chosen[l];
			if (wlane[l] >= 0 && u.wr_ready)
				wready |= 1u << wlane[l];
			if (u.rsp_valid) {
				unsigned p = f + (u.rsp_tag >> 6);
				rvalid |= 1u << p;
				set_bits(rtag, p * 6, 6, u.rsp_tag & 0x3F);
				set_bits(res, p * 7, 7, u.rsp_errstat);
			}
		}
		t->m_cmd_ready = cready;
		t->m_wr_ready = wready;
		t->s_rsp_valid = rvalid;
		t->s_rsp_tag = rtag[0];
		t->s_rsp_errstat = res[0];
		t->eval();
		for (unsigned p = 0; p < N; p++)
			if ((t->m_cmd_valid & cready) >> p & 1)
				acc[p].push_back(Acc{cyc, (unsigned)(t->m_cmd >> (4 * p) & 0xF),
				                     (unsigned)(t->m_cmd_size >> (4 * p) & 0xF),
				                     (unsigned)(t->m_cmd_tag >> (6 * p) & 0x3F),
				                     get_bits(&t->m_cmd_addr[0], p * 34, 34)});
		/* DMA: a request is served from the ring as it is now; descriptors in order. */
		if (t->m_axis_rdreq_tvalid && t->m_axis_rdreq_tready) {
			uint64_t a = get_bits(&t->m_axis_rdreq_tdata[0], 0, 64);
			unsigned n = (unsigned)get_bits(&t->m_axis_rdreq_tdata[0], 64, 16);
			rdreqs++;
			TB_CHECK(n >= 1 && n <= 8, "DMA request of %u descriptors", n);
			TB_CHECK(a >= RING && (a - RING) % 16 == 0 &&
			             (a - RING) / 16 + n <= ring.size(),
			         "DMA request 0x%" PRIx64 " + %u outside the ring", a, n);
			for (unsigned i = 0; i < n && (a - RING) / 16 + i < ring.size(); i++)
				desc_q.push_back(ring[(a - RING) / 16 + i]);
		}
		if (dv && t->s_axis_desc_tready)
			desc_q.pop_front();
		t->clk = 1;
		t->eval();
		for (unsigned l = 0; l < LINKS; l++)
			resp[l].edge(pins[l], cyc);
		for (unsigned l = 0; l < LINKS; l++)
			if (chosen[l] >= 0 && pins[l].cmd_ready)
				rr[l] = (unsigned)(chosen[l] - first_of(l) + 1);
		cyc++;
	}

	void idle(unsigned n)
	{
		bus(false, 0, false, false, 0, 0);
		while (n--)
			step();
	}

	void wr(uint32_t off, uint32_t v)
	{
		reg_write(*this, off, v);
	}

	uint32_t rd(uint32_t off)
	{
		return reg_read(*this, off);
	}

	uint64_t rd64(uint32_t off)
	{
		uint64_t lo = rd(off);
		return lo | (uint64_t)rd(off + 4) << 32;
	}

	void reset()
	{
		t->rst = 1;
		idle(3);
		t->rst = 0;
		idle(2);
	}
};

static std::array<uint32_t, 4> encode(const Desc &d)
{
	std::array<uint32_t, 4> w;
	w[0] = (uint32_t)d.time;
	w[1] = (uint32_t)(d.time >> 32);
	w[2] = (uint32_t)d.addr;
	w[3] = (uint32_t)(d.addr >> 32 & 3) | d.write << 2 | (d.flits & 0xF) << 4 | d.port << 8;
	return w;
}

/* The host side: fill the ring as the block consumes it until everything completed. */
static void run(Bench &b, const std::vector<Desc> &d, unsigned log2, uint32_t mask, bool timed,
                unsigned idle_delay)
{
	unsigned size = 1u << log2, written = 0;

	b.ring.assign(size, {0, 0, 0, 0});
	b.wr(SB_REPLAY_RING_ADDR, (uint32_t)RING);
	b.wr(SB_REPLAY_RING_ADDR + 4, (uint32_t)(RING >> 32));
	b.wr(SB_REPLAY_RING_LOG2, log2);
	b.wr(SB_REPLAY_PORT_MASK, mask);
	/* Ports busy for a while after the replay claims them. */
	b.idle_mask = 0;
	for (; written < d.size() && written < size; written++)
		b.ring[written % size] = encode(d[written]);
	b.wr(SB_REPLAY_TAIL, written);
	b.wr(SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_ENABLE_MASK | (timed ? SB_REPLAY_CONTROL_TIMED_MASK : 0));
	b.idle(idle_delay);
	TB_EQ(b.acc[0].size() + b.acc[1].size() + b.acc[2].size() + b.acc[3].size(), 0,
	      "no command before the ports are idle");
	b.idle_mask = 0xF;
	for (uint64_t guard = 0; guard < 4000000; guard++) {
		uint32_t head = b.rd(SB_REPLAY_HEAD);
		TB_CHECK(written - head <= size, "head %u beyond tail %u", head, written);
		unsigned before = written;
		while (written < d.size() && written - head < size) {
			b.ring[written % size] = encode(d[written]);
			written++;
		}
		if (written != before)
			b.wr(SB_REPLAY_TAIL, written);
		if (written == d.size() && (b.rd(SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK))
			break;
		b.idle(b.rng.range(0, 40));
	}
	TB_CHECK(b.rd(SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK, "replay idle at the end");
	TB_EQ(b.rd(SB_REPLAY_HEAD), d.size(), "head == tail");
	b.wr(SB_REPLAY_CONTROL, 0);
	b.idle(5);
	TB_EQ(b.t->own, 0, "paths given back");
}

static unsigned vault_of(uint64_t a, unsigned mode)
{
	return (unsigned)(a >> (5 + (mode > 2 ? 2 : mode))) & 0xF;
}

struct Expect {
	uint64_t issued = 0, reads = 0, writes = 0, completed = 0, errors = 0;
	uint64_t lat_sum = 0, lag_sum = 0, end = 0;
	uint32_t lat_min = UINT32_MAX, lat_max = 0, lag_max = 0;
	uint64_t v_req[16] = {}, v_lat[16] = {}, v_lag[16] = {};
	uint32_t v_flits[16] = {}, v_max[16] = {};
};

/*
 * Check the commands, the completions, the trace taps and every statistic against the logs.
 * timed: start is the start cycle and the lag of each command is exact.
 */
static void check_run(Bench &b, const std::vector<Desc> &d, uint32_t mask, bool timed)
{
	Expect e;
	uint64_t start = b.rd64(SB_REPLAY_START_CYCLE), bad = 0;
	std::vector<Desc> lane[N];
	char what[160];

	for (const Desc &x : d) {
		if (x.port >= N || !(mask >> x.port & 1)) {
			bad++;
			continue;
		}
		lane[x.port].push_back(x);
	}
	/* Commands: per lane its descriptors in ring order. */
	for (unsigned p = 0; p < N; p++) {
		TB_EQ(b.acc[p].size(), lane[p].size(), "commands of a lane");
		for (size_t i = 0; i < b.acc[p].size() && i < lane[p].size(); i++) {
			const Acc &a = b.acc[p][i];
			const Desc &x = lane[p][i];
			unsigned fl = x.flits == 0 ? 1 : x.flits > 8 ? 8 : x.flits;
			snprintf(what, sizeof(what), "lane %u command %zu", p, i);
			TB_EQ(a.cmd, x.write ? CMD_WR : CMD_RD, what);
			TB_EQ(a.addr, x.addr, what);
			TB_EQ(a.size, fl, what);
			e.issued++;
			(x.write ? e.writes : e.reads)++;
			unsigned v = vault_of(x.addr, b.addr_mode);
			e.v_req[v]++;
			e.v_flits[v] += fl;
			if (timed) {
				TB_CHECK(a.cycle >= start + x.time,
				         "lane %u command %zu accepted at %" PRIu64 " before it was due (%" PRIu64
				         ")",
				         p, i, a.cycle, start + x.time);
				uint64_t lag = a.cycle - (start + x.time);
				e.lag_sum += lag;
				e.v_lag[v] += lag;
				e.lag_max = std::max<uint32_t>(e.lag_max, (uint32_t)lag);
			}
		}
	}
	/* Completions: pair each response's first beat with the command of its link tag. */
	for (unsigned l = 0; l < LINKS; l++) {
		std::map<unsigned, const Req *> open;
		std::vector<const Req *> ev;
		size_t ia = 0;
		const auto &log = b.resp[l].log;
		for (const Req &r : b.resp[l].resp_log) {
			while (ia < log.size() && log[ia].cycle < r.cycle) {
				open[log[ia].tag] = &log[ia];
				ia++;
			}
			auto it = open.find(r.tag);
			if (it == open.end()) {
				fail("link %u: response to tag %u without a command", l, r.tag);
				continue;
			}
			const Req *c = it->second;
			open.erase(it);
			uint32_t lat = (uint32_t)(r.cycle - c->cycle);
			unsigned v = vault_of(c->addr, b.addr_mode);
			unsigned beats = c->cmd == CMD_RD ? c->size : 1;
			e.completed++;
			e.lat_sum += lat;
			e.lat_min = std::min(e.lat_min, lat);
			e.lat_max = std::max(e.lat_max, lat);
			e.v_lat[v] += lat;
			e.v_max[v] = std::max(e.v_max[v], lat);
			e.end = std::max<uint64_t>(e.end, r.cycle + beats); /* after the last beat */
			/* Its trace record: the lane's, with the accept time and the latency. */
			unsigned p = first_of(l) + (r.tag >> 6);
			bool found = false;
			for (const Trc &t : b.trc[p])
				if (t.time == (uint32_t)c->cycle && t.tag == (r.tag & 63) && t.addr == c->addr) {
					TB_EQ(t.latency, lat, "trace record latency");
					TB_EQ(t.write, c->cmd == CMD_WR, "trace record write");
					TB_EQ(t.flits, c->size, "trace record flits");
					TB_EQ(t.cycle, r.cycle + beats, "trace record one cycle after the last beat");
					found = true;
				}
			TB_CHECK(found, "lane %u: no trace record for the request at %" PRIu64, p, c->cycle);
		}
		e.errors += b.resp[l].errors;
	}
	size_t ntrc = 0;
	for (unsigned p = 0; p < N; p++)
		ntrc += b.trc[p].size();
	TB_EQ(ntrc, e.completed, "one trace record per completion");
	TB_EQ(b.rd64(SB_REPLAY_ISSUED), e.issued, "issued");
	TB_EQ(b.rd64(SB_REPLAY_READS), e.reads, "reads");
	TB_EQ(b.rd64(SB_REPLAY_WRITES), e.writes, "writes");
	TB_EQ(b.rd64(SB_REPLAY_COMPLETED), e.completed, "completed");
	TB_EQ(e.completed, e.issued, "every request completed");
	TB_EQ(b.rd(SB_REPLAY_ERRORS), e.errors, "errors");
	TB_EQ(b.rsp_err_pulses, e.errors, "error reports to hmc_ctrl");
	TB_EQ(!!(b.rd(SB_REPLAY_STATUS) & SB_REPLAY_STATUS_ERROR_MASK), e.errors > 0, "status.error");
	TB_EQ(b.rd(SB_REPLAY_BAD), bad, "bad descriptors");
	TB_EQ(!!(b.rd(SB_REPLAY_STATUS) & SB_REPLAY_STATUS_BAD_DESC_MASK), bad > 0, "status.bad_desc");
	TB_EQ(b.rd64(SB_REPLAY_LAT_SUM), e.lat_sum, "lat_sum");
	TB_EQ(b.rd(SB_REPLAY_LAT_MIN), e.lat_min, "lat_min");
	TB_EQ(b.rd(SB_REPLAY_LAT_MAX), e.lat_max, "lat_max");
	TB_EQ(b.rd64(SB_REPLAY_END_CYCLE), e.end, "end_cycle");
	uint64_t lag_total = 0;
	for (unsigned v = 0; v < 16; v++) {
		snprintf(what, sizeof(what), "vault %u", v);
		TB_EQ(b.rd64(SB_REPLAY_VAULT_REQUESTS(v)), e.v_req[v], what);
		TB_EQ(b.rd(SB_REPLAY_VAULT_FLITS(v)), e.v_flits[v], what);
		TB_EQ(b.rd64(SB_REPLAY_VAULT_LAT_SUM(v)), e.v_lat[v], what);
		TB_EQ(b.rd(SB_REPLAY_VAULT_LAT_MAX(v)), e.v_max[v], what);
		uint64_t vl = b.rd64(SB_REPLAY_VAULT_LAG_SUM(v));
		lag_total += vl;
		if (timed)
			TB_EQ(vl, e.v_lag[v], what);
	}
	TB_EQ(lag_total, b.rd64(SB_REPLAY_LAG_SUM), "per-vault lags add up to lag_sum");
	if (timed) {
		TB_EQ(b.rd64(SB_REPLAY_LAG_SUM), e.lag_sum, "lag_sum");
		TB_EQ(b.rd(SB_REPLAY_LAG_MAX), e.lag_max, "lag_max");
	}
	/* Written data: the pattern of the seed in every block written. */
	for (unsigned l = 0; l < LINKS; l++)
		for (const Req &r : b.resp[l].log)
			if (r.cmd == CMD_WR)
				for (unsigned k = 0; k < r.size; k++) {
					const Beat &m = b.resp[l].mem[(r.addr >> 4) + k];
					for (unsigned w = 0; w < 4; w++)
						if (m.w[w] != sb_pattern_word(b.seed, r.addr, k, w)) {
							fail("data of the write to 0x%" PRIx64 " beat %u", r.addr, k);
							k = r.size;
							break;
						}
				}
	printf("replay: %" PRIu64 " requests (%" PRIu64 " writes), %" PRIu64 " bad, %" PRIu64
	       " errors, %" PRIu64 " DMA reads, latency %u..%u\n",
	       e.issued, e.writes, bad, e.errors, b.rdreqs, e.lat_min, e.lat_max);
}

static std::vector<Desc> random_descs(Rng &rng, unsigned n, bool timed, unsigned ports)
{
	std::vector<Desc> d;
	uint64_t t = 0;
	for (unsigned i = 0; i < n; i++) {
		Desc x;
		if (timed)
			t += rng.chance(30) ? rng.range(0, 40) : 0;
		x.time = t;
		x.addr = (rng.u64() & 0x3FFFFFFF0ull);
		x.write = rng.chance(30);
		x.flits = rng.chance(5) ? rng.range(0, 15) : rng.range(1, 8);
		x.port = rng.range(0, ports - 1);
		d.push_back(x);
	}
	return d;
}

static void test_regs(uint64_t seed)
{
	ResponderCfg rc;
	Bench b(seed, rc);
	BlockRules rules;

	b.reset();
	rules.next = TB_NEXT;
	/* Enabling would start fetching and take the ports; status follows tail. */
	rules.avoid["control"] = SB_REPLAY_CONTROL_ENABLE_MASK;
	rules.volatile_regs.insert("status");
	check_block_access(b, find_block("replay"), rules, 4);
	check_deselected(b, find_block("replay"), rules);
	TB_EQ(b.rdreqs, 0, "no DMA read while disabled");
}

static void test_untimed(uint64_t seed)
{
	ResponderCfg rc;
	rc.err_pct = 3;
	rc.lat_min = 5;
	rc.lat_max = 90;
	Bench b(seed, rc);
	std::vector<Desc> d = random_descs(b.rng, 3000, false, 5); /* port 4: none */

	b.reset();
	run(b, d, 5, 0xB, false, 30); /* lane 2 not in the mask */
	check_run(b, d, 0xB, false);

	/* reset: pointers, counters, statistics */
	b.wr(SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_RESET_MASK);
	TB_EQ(b.rd(SB_REPLAY_HEAD), 0, "reset: head");
	TB_EQ(b.rd(SB_REPLAY_TAIL), 0, "reset: tail");
	TB_EQ(b.rd64(SB_REPLAY_ISSUED), 0, "reset: issued");
	TB_EQ(b.rd64(SB_REPLAY_LAT_SUM), 0, "reset: lat_sum");
	TB_EQ(b.rd(SB_REPLAY_LAT_MIN), 0xFFFFFFFFu, "reset: lat_min");
	TB_EQ(b.rd(SB_REPLAY_BAD), 0, "reset: bad");
	TB_EQ(b.rd64(SB_REPLAY_VAULT_REQUESTS(3)), 0, "reset: vault requests");
	TB_EQ(b.rd(SB_REPLAY_STATUS), SB_REPLAY_STATUS_IDLE_MASK, "reset: status");
}

static void test_timed(uint64_t seed)
{
	ResponderCfg rc;
	rc.lat_min = 20;
	rc.lat_max = 200;
	rc.cmd_ready_pct = 50;
	Bench b(seed, rc);
	std::vector<Desc> d = random_descs(b.rng, 1500, true, 4);

	b.reset();
	b.addr_mode = 1;
	run(b, d, 6, 0xF, true, 10);
	check_run(b, d, 0xF, true);
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);

	test_regs(seed);
	test_untimed(seed + 1);
	test_timed(seed + 2);
	return finish("tb_replay");
}
