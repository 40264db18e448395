/* SPDX-License-Identifier: MIT */
/*
 * Testbench of sb_stream (N = 4 ports) with the behavioural responder (tb_common.h: random
 * command / data back-pressure, random latencies, out-of-order responses, injected ERRSTAT) and
 * port models that become idle a random time after the stream claims them.
 *   access    the stream block against the generated table (header, reset values, storage bits
 *             of control / data_seed / the 28 entries with random byte strobes, 34-bit entry
 *             addresses, read-only status / total_cycles / latencies and entry outcome bits,
 *             go reads 0, holes, deselected accesses ignored)
 *   groups    random groups (count 1..28 with 0 -> 1 and > 28 -> 28, random ports, random
 *             reads / writes, flits 0..15 used as 1..8, integrity on or off): the stream claims
 *             only the chosen port and issues nothing before that port is idle; the entries
 *             go out in order with tag = entry number (writes non-posted), back to back with a
 *             ready controller; each entry's latency equals the responder's (first beat minus
 *             acceptance), total_cycles = first acceptance to last response beat; done, error,
 *             ERRSTAT and mismatch per entry and the status counts equal the model; written data
 *             equals gups_pattern.h; read data corrupted at random is counted exactly
 *   control   go while busy is refused; latencies and done read 0 while in flight; a ports
 *             reset abandons a group (the offered command stays valid until taken, accepted
 *             writes get their data, nothing else is issued, no done); a port number without
 *             a port completes at once; a command is never withdrawn or changed while waiting
 */
#include <memory>

#include "Vsb_stream.h"
#include "gups_pattern.h"
#include "tb_regs.h"

using namespace tb;

static const unsigned NP = 4, NE = SB_STREAM_ENTRY_ADDR_COUNT;

struct Entry {
	uint64_t addr;
	bool write;
	unsigned flits; /* as written, 0..15 */
	unsigned eff() const
	{
		return flits == 0 ? 1 : flits > 8 ? 8 : flits;
	}
};

/* One response beat as the stream saw it. */
struct RspBeat {
	uint64_t cycle;
	unsigned tag, errstat;
	Beat data;
};

struct Bench : RegBusMaster {
	std::unique_ptr<Vsb_stream> top;
	Rng rng;
	Responder resp;
	UPortPins pins;
	uint64_t cyc = 0;
	/* ports: idle a while after the claim */
	unsigned busy_left[NP] = {0};
	bool claimed_p[NP] = {false};
	bool idle_seen = false;     /* the claimed port was idle in a claim cycle */
	std::vector<RspBeat> beats; /* every response beat */
	unsigned corrupt_pct = 0;   /* chance that a read response beat is corrupted */
	uint64_t group_done = 0, rsp_err = 0;
	bool ports_reset = false;

	Bench(uint64_t seed, ResponderCfg rc) : top(new Vsb_stream), rng(seed), resp(rng, rc)
	{
	}

	uint32_t rd_data() const
	{
		return top->reg_rd_data;
	}

	void step()
	{
		top->now = (uint32_t)cyc;
		drive_bus(*top);
		top->reg_sel = sel;
		top->ports_reset = ports_reset;
		top->clk = 0;
		top->eval();
		/* Ports: a claimed port becomes idle after busy_left cycles, others at random. */
		uint32_t idle = 0;
		for (unsigned p = 0; p < NP; p++) {
			bool claimed = top->claim >> p & 1;
			if (claimed && !claimed_p[p])
				busy_left[p] = rng.range(0, 30);
			claimed_p[p] = claimed;
			bool id = claimed ? busy_left[p] == 0 : rng.chance(50);
			if (claimed && busy_left[p])
				busy_left[p]--;
			idle |= (uint32_t)id << p;
		}
		top->port_idle = idle;
		TB_CHECK((top->own & ~top->claim) == 0, "own only a claimed port");
		TB_CHECK(__builtin_popcount(top->claim) <= 1, "one port claimed");
		if (top->own)
			TB_CHECK(idle_seen, "the path switched before the port was idle");
		if (top->m_cmd_valid)
			TB_CHECK(top->own, "a command while the stream does not own a path");
		if (pins.cmd_valid && !pins.cmd_ready) { /* last cycle's command must wait */
			TB_CHECK(top->m_cmd_valid, "command withdrawn before it was taken");
			TB_CHECK(top->m_cmd == pins.cmd && top->m_cmd_addr == pins.addr &&
			             top->m_cmd_size == pins.size && top->m_cmd_tag == pins.tag,
			         "command changed before it was taken");
		}
		cmd_pins(*top, pins);
		resp.drive(pins, cyc);
		if (pins.rsp_valid && rng.chance(corrupt_pct))
			pins.rsp_data.w[rng.range(0, 3)] ^= 1u << rng.range(0, 31);
		top->m_cmd_ready = pins.cmd_ready;
		top->m_wr_ready = pins.wr_ready;
		top->s_rsp_valid = pins.rsp_valid;
		top->s_rsp_tag = pins.rsp_valid ? pins.rsp_tag : rng.range(0, 63);
		for (int i = 0; i < 4; i++)
			top->s_rsp_data[i] = pins.rsp_data.w[i];
		top->s_rsp_errstat = pins.rsp_errstat;
		top->eval();
		pins.wr_valid = top->m_wr_valid;
		for (int i = 0; i < 4; i++)
			pins.wr_data.w[i] = top->m_wr_data[i];
		if (pins.rsp_valid)
			beats.push_back({cyc, pins.rsp_tag, pins.rsp_errstat, pins.rsp_data});
		if (!top->claim)
			idle_seen = false;
		else if (top->claim & idle)
			idle_seen = true;
		top->clk = 1;
		top->eval();
		resp.edge(pins, cyc);
		cyc++;
		group_done += top->group_done;
		rsp_err += top->rsp_err;
	}

	void reset()
	{
		bus(false, 0, false, false, 0, 0);
		drive_bus(*top);
		top->ports_reset = 0;
		reset_for(*top, 3);
	}

	void write_entry(unsigned i, const Entry &e)
	{
		reg_write(*this, SB_STREAM_ENTRY_ADDR_LO(i), (uint32_t)e.addr);
		reg_write(*this, SB_STREAM_ENTRY_ADDR_HI(i), (uint32_t)(e.addr >> 32));
		reg_write(*this, SB_STREAM_ENTRY_CMD(i),
		          SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_WRITE, e.write) |
		              SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_FLITS, e.flits));
	}

	void go(unsigned count, unsigned port, bool integrity)
	{
		reg_write(*this, SB_STREAM_CONTROL,
		          SB_STREAM_CONTROL_GO_MASK |
		              SB_FIELD_PREP(SB_STREAM_CONTROL_COUNT, count) |
		              SB_FIELD_PREP(SB_STREAM_CONTROL_PORT, port) |
		              SB_FIELD_PREP(SB_STREAM_CONTROL_INTEGRITY, integrity));
	}

	bool wait_done(uint64_t max_cycles)
	{
		uint64_t until = cyc + max_cycles;
		while (cyc < until) {
			if (reg_read(*this, SB_STREAM_STATUS) & SB_STREAM_STATUS_DONE_MASK)
				return true;
			bus_idle(*this, 10);
		}
		return false;
	}
};

/* Entry count as the stream uses it. */
static unsigned eff_count(unsigned c)
{
	return c == 0 ? 1 : c > NE ? NE : c;
}

/* One group from a random configuration; checks its outcome against the responder. */
static void group(Bench &b, unsigned count, unsigned port, bool integrity, uint32_t seed,
                  const std::vector<Entry> &ent, bool back_to_back)
{
	unsigned n = eff_count(count);
	char what[160];

	reg_write(b, SB_STREAM_DATA_SEED, seed);
	for (unsigned i = 0; i < ent.size(); i++)
		b.write_entry(i, ent[i]);
	size_t log0 = b.resp.log.size(), beat0 = b.beats.size();
	uint64_t done0 = b.group_done, err0 = b.rsp_err;
	b.go(count, port, integrity);
	TB_CHECK(b.wait_done(100000), "group done");
	bus_idle(b, 5);
	TB_EQ(b.group_done - done0, 1, "one stream_done pulse per group");

	/* The commands: entries in order, tag = entry, writes non-posted. */
	std::vector<Req> cmds(b.resp.log.begin() + (long)log0, b.resp.log.end());
	TB_EQ(cmds.size(), n, "commands issued = entries");
	for (unsigned i = 0; i < cmds.size() && i < n; i++) {
		snprintf(what, sizeof(what), "entry %u command", i);
		TB_EQ(cmds[i].tag, i, what);
		TB_EQ(cmds[i].cmd, ent[i].write ? CMD_WR : CMD_RD, what);
		TB_EQ(cmds[i].addr, ent[i].addr, what);
		TB_EQ(cmds[i].size, ent[i].eff(), what);
		if (back_to_back && i)
			TB_EQ(cmds[i].cycle, cmds[i - 1].cycle + 1, "back to back");
	}
	/* Per entry: latency, outcome. */
	unsigned completed = 0, mism = 0;
	bool any_err = false;
	uint64_t last_beat = 0;
	for (unsigned i = 0; i < n && i < cmds.size(); i++) {
		unsigned need = ent[i].write ? 1 : ent[i].eff(), got = 0, es = 0;
		uint64_t first = 0;
		bool mismatch = false;
		for (size_t k = beat0; k < b.beats.size(); k++) {
			const RspBeat &x = b.beats[k];
			if (x.tag != i || x.cycle < cmds[i].cycle || got == need)
				continue;
			if (got == 0)
				first = x.cycle;
			if (x.errstat)
				es = x.errstat;
			if (integrity && !ent[i].write)
				for (unsigned w = 0; w < 4; w++)
					mismatch |= x.data.w[w] !=
					            sb_pattern_word(seed, ent[i].addr, got, w);
			if (++got == need)
				last_beat = std::max(last_beat, x.cycle);
		}
		snprintf(what, sizeof(what), "entry %u: response beats", i);
		TB_EQ(got, need, what);
		uint32_t c = reg_read(b, SB_STREAM_ENTRY_CMD(i));
		uint32_t expect = SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_WRITE, ent[i].write) |
		                  SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_FLITS, ent[i].flits) |
		                  SB_STREAM_ENTRY_CMD_DONE_MASK |
		                  SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_ERROR, es != 0) |
		                  SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_MISMATCH, mismatch) |
		                  SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_ERRSTAT, es);
		snprintf(what, sizeof(what), "entry %u: cmd word (done, error, mismatch, errstat)",
		         i);
		TB_EQ(c, expect, what);
		snprintf(what, sizeof(what), "entry %u: latency", i);
		TB_EQ(reg_read(b, SB_STREAM_ENTRY_LATENCY(i)), first - cmds[i].cycle, what);
		completed++;
		mism += mismatch;
		any_err |= es != 0;
	}
	uint32_t st = reg_read(b, SB_STREAM_STATUS);
	TB_EQ(st,
	      SB_STREAM_STATUS_DONE_MASK | SB_FIELD_PREP(SB_STREAM_STATUS_ERROR, any_err) |
	          SB_FIELD_PREP(SB_STREAM_STATUS_COMPLETED, completed) |
	          SB_FIELD_PREP(SB_STREAM_STATUS_MISMATCHES, mism),
	      "status (done, error, completed, mismatches)");
	if (!cmds.empty())
		TB_EQ(reg_read(b, SB_STREAM_TOTAL_CYCLES), last_beat - cmds[0].cycle,
		      "total_cycles = first acceptance .. last response beat");
	unsigned errs = 0;
	for (unsigned i = 0; i < n; i++)
		errs += (reg_read(b, SB_STREAM_ENTRY_CMD(i)) & SB_STREAM_ENTRY_CMD_ERROR_MASK) != 0;
	TB_EQ(b.rsp_err - err0, errs, "an rsp_err pulse per entry with an error");
	/* Written data: the pattern of the seed at every block written. */
	for (unsigned i = 0; i < n; i++)
		if (ent[i].write)
			for (unsigned k = 0; k < ent[i].eff(); k++) {
				Beat m = b.resp.mem[(ent[i].addr >> 4) + k];
				for (unsigned w = 0; w < 4; w++)
					if (m.w[w] != sb_pattern_word(seed, ent[i].addr, k, w)) {
						fail("entry %u beat %u: written data differs from "
						     "the pattern",
						     i, k);
						k = 8;
						break;
					}
			}
}

static std::vector<Entry> random_entries(Rng &rng, std::vector<uint64_t> &written)
{
	std::vector<Entry> v;
	for (unsigned i = 0; i < NE; i++) {
		Entry e;
		e.write = rng.chance(40);
		e.flits = rng.chance(80) ? rng.range(1, 8) : rng.range(0, 15);
		/* Reads mostly of blocks written before (pattern matches), some of fresh memory. */
		if (!e.write && !written.empty() && rng.chance(70))
			e.addr = written[rng.range(0, (uint32_t)written.size() - 1)];
		else
			e.addr =
			    (rng.chance(10) ? 0x3FFFFF000ull : 0) | (rng.u64() & 0x3FFFFF80ull);
		if (e.write)
			written.push_back(e.addr);
		v.push_back(e);
	}
	return v;
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	uint64_t seed = seed_arg(argc, argv, 1);
	ResponderCfg rc;
	rc.err_pct = 8;

	{
		/* Register access rules (go is a pulse: never written here). */
		Bench b(seed, rc);
		BlockRules rules;
		rules.next = TB_NEXT;
		b.reset();
		check_block_access(b, find_block("stream"), rules, 1);
		check_deselected(b, find_block("stream"), rules);
		TB_EQ(b.resp.log.size(), 0, "no request from register writes without go");
	}
	{
		/* Random groups, integrity on and off, corrupted reads. */
		Bench b(seed + 1, rc);
		b.reset();
		std::vector<uint64_t> written;
		unsigned mism_total = 0;
		for (int g = 0; g < 120; g++) {
			std::vector<Entry> ent = random_entries(b.rng, written);
			unsigned count = g % 10 == 0 ? (g % 20 ? 0 : 31) : b.rng.range(1, NE);
			b.corrupt_pct = g % 3 == 0 ? 10 : 0;
			/* one seed for every group, so earlier writes keep matching */
			group(b, count, b.rng.range(0, NP - 1), g % 4 != 3,
			      0xC0DE0000u + (uint32_t)seed, ent, false);
			mism_total +=
			    (reg_read(b, SB_STREAM_STATUS) & SB_STREAM_STATUS_MISMATCHES_MASK) >>
			    SB_STREAM_STATUS_MISMATCHES_SHIFT;
		}
		printf(
		    "stream: 120 groups, %zu requests, %zu response beats, %u mismatches counted\n",
		    b.resp.log.size(), b.beats.size(), mism_total);
		TB_CHECK(mism_total > 10, "mismatches occurred");
	}
	{
		/* Back to back: reads only, a controller that is always ready. */
		ResponderCfg fast = rc;
		fast.cmd_ready_pct = 100;
		fast.err_pct = 0;
		Bench b(seed + 2, fast);
		b.reset();
		std::vector<Entry> ent;
		for (unsigned i = 0; i < NE; i++)
			ent.push_back({(uint64_t)i * 0x80, false, b.rng.range(1, 8)});
		group(b, NE, 1, true, 7, ent, true);
	}
	{
		/* go while busy; latencies read 0 in flight; ports reset; a port that is not there. */
		Bench b(seed + 3, rc);
		b.reset();
		std::vector<Entry> ent;
		for (unsigned i = 0; i < 6; i++)
			ent.push_back({(uint64_t)i * 0x100, i % 2 == 1, 2});
		for (unsigned i = 0; i < ent.size(); i++)
			b.write_entry(i, ent[i]);
		b.resp.hold_rsp = true;
		b.go(6, 2, true);
		bus_idle(b, 200);
		TB_EQ(b.resp.log.size(), 6, "six commands issued, no response yet");
		uint32_t st = reg_read(b, SB_STREAM_STATUS);
		TB_EQ(st, SB_STREAM_STATUS_BUSY_MASK, "busy, nothing completed");
		for (unsigned i = 0; i < 6; i++) {
			TB_EQ(reg_read(b, SB_STREAM_ENTRY_LATENCY(i)), 0, "latency 0 in flight");
			TB_EQ(reg_read(b, SB_STREAM_ENTRY_CMD(i)) & SB_STREAM_ENTRY_CMD_DONE_MASK,
			      0, "not done in flight");
		}
		b.go(3, 1, false); /* refused */
		bus_idle(b, 50);
		TB_EQ(b.top->claim, 1u << 2, "still port 2's path after a refused go");
		TB_EQ(b.resp.log.size(), 6, "no command from a refused go");
		b.resp.hold_rsp = false;
		TB_CHECK(b.wait_done(20000), "the first group completes");
		TB_EQ((reg_read(b, SB_STREAM_STATUS) & SB_STREAM_STATUS_COMPLETED_MASK) >>
		          SB_STREAM_STATUS_COMPLETED_SHIFT,
		      6, "the first group's six entries completed");
		TB_EQ(b.group_done, 1, "one group ran");

		/* A ports reset abandons a group in flight: the offered command and the data of the
		 * accepted writes still go out, nothing after them. */
		for (unsigned i = 0; i < 6; i++)
			b.write_entry(i, {(uint64_t)i * 0x100, true, 8});
		b.resp.hold_rsp = true;
		b.resp.cfg.cmd_ready_pct = 10;
		b.resp.cfg.wr_ready_pct = 5;
		size_t log0 = b.resp.log.size();
		b.go(6, 0, false);
		for (int i = 0; i < 5000 && !(b.resp.log.size() >= log0 + 2 && b.top->m_cmd_valid);
		     i++)
			b.step();
		TB_CHECK(b.top->m_cmd_valid && !b.resp.wq.empty(),
		         "a command offered and write data pending at the reset");
		size_t offered = b.resp.log.size() - log0 + 1;
		b.ports_reset = true;
		b.step();
		b.ports_reset = false;
		for (int i = 0; i < 5000 && b.top->claim; i++)
			b.step();
		TB_EQ(b.top->claim, 0, "ports reset: path released");
		TB_EQ(b.resp.log.size() - log0, offered, "the offered command taken, no other");
		TB_EQ(b.resp.wq.size(), 0, "every accepted write got its data");
		TB_EQ(reg_read(b, SB_STREAM_STATUS) &
		          (SB_STREAM_STATUS_BUSY_MASK | SB_STREAM_STATUS_DONE_MASK),
		      0, "ports reset: not busy, not done");
		b.resp.cfg = rc;
		b.resp.hold_rsp = false;
		bus_idle(b, 500); /* the abandoned group's responses are ignored */
		TB_EQ(b.resp.outstanding(), 0, "responses drained");
		TB_EQ(b.group_done, 1, "an abandoned group does not complete");

		/* A port number without a port: done at once, nothing issued. */
		size_t n = b.resp.log.size();
		b.go(4, NP + 3, false);
		TB_CHECK(b.wait_done(200), "no port: done");
		TB_EQ(b.resp.log.size(), n, "no port: nothing issued");
		TB_EQ(b.group_done, 2, "no port: stream_done");
	}
	return finish("tb_stream");
}
