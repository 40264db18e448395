/* SPDX-License-Identifier: MIT */
/*
 * tb_hbm_replay: trace replay (sb_hbm_replay in sb_hbm_top, N = TB_N ports) through the
 * AXI4-Lite slave, against the AXI3 slave memories with random back-pressure and latencies:
 *   - the block in the walk (trace -> hbm_replay -> hbm_port 0) and its reset values;
 *   - a crafted descriptor list (reads and writes, 1..16 beats, every port) untimed: each
 *     port's bursts are its descriptors in order, and every counter equals what the slaves
 *     saw (issued, completed, reads, writes, bytes, lat_sum/min/max, errors with SLVERR
 *     answers, end_cycle, port_bursts); the data written is the port's pattern, and the port's
 *     engine reads it back with check on without a mismatch;
 *   - untimed reads without back-pressure: every lag is one cycle;
 *   - timed: no burst's handshake before start_cycle + time, lag_sum / lag_max by value;
 *   - bad descriptors (port beyond the card, outside port_mask, 17 beats, crossing 4 KB, a
 *     port whose engine is running): skipped, counted in bad, status.bad_desc;
 *   - FIFO full: fifo_count = fifo_depth, overflows, status.overflow; then the 512 run in order;
 *   - control.reset with bursts in flight: FIFO emptied, counters cleared, the bursts in
 *     flight complete uncounted; the next list is counted exactly;
 *   - an engine stopped with bursts in flight: the replay takes other IDs and the engine's
 *     responses still reach the engine.
 * Time: the slaves' cycle numbers are hbm_card.cycles - K; K is taken from end_cycle and must
 * be the same in every run.
 *   tb_hbm_replay [--seed N]
 */
#include "hbm_top_bench.h"

using namespace tb;

static const uint32_t RB = SB_REGSPACE_HBM2_HBM_REPLAY_OFFSET;

struct Desc {
	uint64_t time = 0, addr = 0;
	bool write = false;
	unsigned beats = 1, port = 0;
};

static uint32_t rr(TopBench &b, uint32_t o)
{
	return b.read(RB + o);
}

static uint64_t rr64(TopBench &b, uint32_t o)
{
	return b.read64(RB + o);
}

static void push(TopBench &b, const Desc &d)
{
	b.write(RB + SB_HBM_REPLAY_DESC_W0, (uint32_t)d.time);
	b.write(RB + SB_HBM_REPLAY_DESC_W1, (uint32_t)(d.time >> 32) & 0xFFFF);
	b.write(RB + SB_HBM_REPLAY_DESC_W2, (uint32_t)d.addr);
	b.write(RB + SB_HBM_REPLAY_DESC_W3,
	        SB_FIELD_PREP(SB_HBM_REPLAY_DESC_ADDR_HI, (uint32_t)(d.addr >> 32)) |
	            SB_FIELD_PREP(SB_HBM_REPLAY_DESC_WRITE, d.write) |
	            SB_FIELD_PREP(SB_HBM_REPLAY_DESC_BEATS, d.beats & 31) |
	            SB_FIELD_PREP(SB_HBM_REPLAY_DESC_PORT, d.port));
}

static bool wait_idle(TopBench &b, const char *what)
{
	for (unsigned i = 0; i < 20000; i++) {
		b.idle(50);
		if (rr(b, SB_HBM_REPLAY_STATUS) & SB_HBM_REPLAY_STATUS_IDLE_MASK) {
			bool quiet = true;

			for (auto &s : b.slaves)
				quiet = quiet && s.outstanding() == 0;
			if (quiet)
				return true;
		}
	}
	fail("%s: replay not idle after %" PRIu64 " cycles", what, b.cyc);
	return false;
}

static void set_back_pressure(TopBench &b, bool on, unsigned lat_max, unsigned err_pct)
{
	b.acfg.ar_ready_pct = on ? b.rng.range(30, 90) : 100;
	b.acfg.aw_ready_pct = on ? b.rng.range(30, 90) : 100;
	b.acfg.w_ready_pct = on ? b.rng.range(30, 90) : 100;
	b.acfg.lat_min = 3;
	b.acfg.lat_max = lat_max;
	b.acfg.err_pct = err_pct;
	b.acfg.corrupt_pct = 0;
	b.acfg.r_idle_pct = on ? 10 : 0;
	for (auto &s : b.slaves)
		s.configure(b.acfg);
}

struct Run {
	size_t from[TB_N];
	uint64_t k = 0; /* hbm_card.cycles - slave cycle */
};

static void mark(TopBench &b, Run &r)
{
	for (unsigned p = 0; p < TB_N; p++)
		r.from[p] = b.slaves[p].log.size();
}

/*
 * The bursts since mark() against the (valid) descriptors, and every counter against them.
 * timed: lags from the due times; lag1: untimed without back-pressure, every lag 1; else the
 * untimed lags are only bounded (their reference, the arrival at a lane's head, is internal).
 */
static void check_run(TopBench &b, Run &r, const std::vector<Desc> &d, bool timed, bool lag1,
                      const char *what)
{
	uint64_t issued = 0, reads = 0, writes = 0, bytes = 0, lat_sum = 0, errors = 0;
	uint64_t last_done = 0, lag_sum = 0, lag_max = 0, start;
	uint32_t lat_min = 0xFFFFFFFFu, lat_max = 0;
	size_t at[TB_N];
	char who[128];

	for (unsigned p = 0; p < TB_N; p++)
		at[p] = r.from[p];
	for (size_t i = 0; i < d.size() && !g_fail; i++) {
		const Desc &e = d[i];
		auto &log = b.slaves[e.port].log;

		snprintf(who, sizeof(who), "%s: descriptor %zu (port %u)", what, i, e.port);
		if (at[e.port] >= log.size()) {
			fail("%s: not issued", who);
			return;
		}
		const AxiBurst &s = log[at[e.port]++];
		TB_EQ(s.write, e.write, who);
		TB_EQ(s.addr, e.addr & ~31ull, who);
		TB_EQ(s.beats, e.beats ? e.beats : 1, who);
		TB_CHECK(s.finished, "%s: not finished", who);
		issued++;
		(s.write ? writes : reads)++;
		bytes += 32ull * s.beats;
		lat_sum += s.first - s.hs;
		lat_min = std::min(lat_min, (uint32_t)(s.first - s.hs));
		lat_max = std::max(lat_max, (uint32_t)(s.first - s.hs));
		errors += s.resp != 0;
		last_done = std::max(last_done, s.done);
	}
	for (unsigned p = 0; p < TB_N; p++) {
		snprintf(who, sizeof(who), "%s: port %u bursts", what, p);
		TB_EQ(b.slaves[p].log.size(), at[p], who);
		TB_EQ(rr64(b, SB_HBM_REPLAY_PORT_BURSTS(p)), at[p] - r.from[p], who);
	}
	snprintf(who, sizeof(who), "%s", what);
	r.k = rr64(b, SB_HBM_REPLAY_END_CYCLE) - last_done;
	start = rr64(b, SB_HBM_REPLAY_START_CYCLE);
	if (timed) {
		/* the lag of each burst: handshake (hbm_card.cycles) - due time */
		for (unsigned p = 0; p < TB_N; p++) {
			size_t j = r.from[p];

			for (const Desc &e : d) {
				if (e.port != p)
					continue;
				const AxiBurst &s = b.slaves[p].log[j++];
				uint64_t hs = s.hs + r.k, due = start + e.time;

				TB_CHECK(hs >= due,
				         "%s: port %u burst at 0x%" PRIx64 " issued at %" PRIu64
				         ", due %" PRIu64,
				         what, p, e.addr, hs, due);
				lag_sum += hs - due;
				lag_max = std::max(lag_max, hs - due);
			}
		}
	}
	TB_EQ(rr64(b, SB_HBM_REPLAY_ISSUED), issued, (std::string(what) + ": issued").c_str());
	TB_EQ(rr64(b, SB_HBM_REPLAY_COMPLETED), issued, (std::string(what) + ": completed").c_str());
	TB_EQ(rr64(b, SB_HBM_REPLAY_READS), reads, (std::string(what) + ": reads").c_str());
	TB_EQ(rr64(b, SB_HBM_REPLAY_WRITES), writes, (std::string(what) + ": writes").c_str());
	TB_EQ(rr64(b, SB_HBM_REPLAY_BYTES), bytes, (std::string(what) + ": bytes").c_str());
	TB_EQ(rr64(b, SB_HBM_REPLAY_LAT_SUM), lat_sum, (std::string(what) + ": lat_sum").c_str());
	TB_EQ(rr(b, SB_HBM_REPLAY_LAT_MIN), lat_min, (std::string(what) + ": lat_min").c_str());
	TB_EQ(rr(b, SB_HBM_REPLAY_LAT_MAX), lat_max, (std::string(what) + ": lat_max").c_str());
	TB_EQ(rr(b, SB_HBM_REPLAY_ERRORS), errors, (std::string(what) + ": errors").c_str());
	TB_EQ(!!(rr(b, SB_HBM_REPLAY_STATUS) & SB_HBM_REPLAY_STATUS_ERROR_MASK), errors != 0,
	      (std::string(what) + ": status.error").c_str());
	TB_EQ(rr(b, SB_HBM_REPLAY_FIFO_COUNT), 0, (std::string(what) + ": fifo_count").c_str());
	if (timed) {
		TB_EQ(rr64(b, SB_HBM_REPLAY_LAG_SUM), lag_sum,
		      (std::string(what) + ": lag_sum").c_str());
		TB_EQ(rr(b, SB_HBM_REPLAY_LAG_MAX), lag_max,
		      (std::string(what) + ": lag_max").c_str());
	} else if (lag1) {
		TB_EQ(rr64(b, SB_HBM_REPLAY_LAG_SUM), issued,
		      (std::string(what) + ": lag_sum (1 per burst)").c_str());
		TB_EQ(rr(b, SB_HBM_REPLAY_LAG_MAX), 1, (std::string(what) + ": lag_max").c_str());
	} else {
		/* at least the one cycle of the command register, at most the run's length */
		uint64_t ls = rr64(b, SB_HBM_REPLAY_LAG_SUM), lm = rr(b, SB_HBM_REPLAY_LAG_MAX);

		TB_CHECK(ls >= issued && lm >= 1 && lm <= last_done + r.k - start &&
		             ls <= issued * lm && lm <= ls,
		         "%s: lag_sum %" PRIu64 " / lag_max %" PRIu64 " out of bounds", what, ls,
		         lm);
	}
}

/* Reset the block's state and counters, set port_mask and control. */
static void restart(TopBench &b, uint32_t mask)
{
	b.write(RB + SB_HBM_REPLAY_CONTROL, SB_HBM_REPLAY_CONTROL_RESET_MASK);
	b.write(RB + SB_HBM_REPLAY_PORT_MASK, mask);
}

static void start(TopBench &b, bool timed)
{
	b.write(RB + SB_HBM_REPLAY_CONTROL,
	        SB_HBM_REPLAY_CONTROL_ENABLE_MASK | (timed ? SB_HBM_REPLAY_CONTROL_TIMED_MASK : 0));
}

static void stop(TopBench &b)
{
	b.write(RB + SB_HBM_REPLAY_CONTROL, 0);
}

/* A random descriptor of port p inside its own region, not crossing 4 KB. */
static Desc rand_desc(Rng &rng, unsigned p, bool write, uint64_t span, unsigned max_beats = 16)
{
	Desc d;

	d.port = p;
	d.write = write;
	d.beats = rng.range(1, max_beats);
	d.addr = ((uint64_t)p << 28) + (rng.u64() % span & ~4095ull) +
	         32ull * rng.range(0, 128 - d.beats) + rng.range(0, 31); /* low bits ignored */
	return d;
}

static void check_k(uint64_t &k0, const Run &r, const char *what)
{
	if (k0 == 0)
		k0 = r.k;
	TB_EQ(r.k, k0, (std::string(what) + ": hbm_card.cycles - slave cycle").c_str());
}

int main(int argc, char **argv)
{
	Verilated::commandArgs(argc, argv);
	TopBench b(seed_arg(argc, argv, 1));
	uint64_t k0 = 0;
	const uint32_t seeds[4] = {0x11110000u, 0x2222abcdu, 0x3u, 0x4444f00du};

	b.reset();
	/* the walk and the reset values */
	TB_EQ(b.read(SB_REGSPACE_HBM2_TRACE_OFFSET + SB_BLK_NEXT), RB, "trace.NEXT");
	TB_EQ(rr(b, SB_BLK_TYPE), SB_BLK_HBM_REPLAY_TYPE, "hbm_replay type");
	TB_EQ(rr(b, SB_BLK_VERSION), SB_BLK_HBM_REPLAY_VERSION, "hbm_replay version");
	TB_EQ(rr(b, SB_BLK_NEXT), SB_REGSPACE_HBM2_HBM_PORT_OFFSET, "hbm_replay.NEXT");
	TB_EQ(rr(b, SB_HBM_REPLAY_STATUS), SB_HBM_REPLAY_STATUS_RESET, "status at reset");
	TB_EQ(rr(b, SB_HBM_REPLAY_PORT_MASK), SB_HBM_REPLAY_PORT_MASK_RESET, "port_mask at reset");
	TB_EQ(rr(b, SB_HBM_REPLAY_FIFO_DEPTH), SB_HBM_REPLAY_FIFO_DEPTH_RESET, "fifo_depth");
	TB_EQ(rr(b, SB_HBM_REPLAY_LANE_DEPTH), SB_HBM_REPLAY_LANE_DEPTH_RESET, "lane_depth");
	TB_EQ(rr(b, SB_HBM_REPLAY_LAT_MIN), SB_HBM_REPLAY_LAT_MIN_RESET, "lat_min at reset");
	for (uint32_t o = SB_HBM_REPLAY_PUSHED; o < SB_BLK_HBM_REPLAY_SIZE; o += 4)
		if (o != SB_HBM_REPLAY_LAT_MIN && o != SB_HBM_REPLAY_LANE_DEPTH)
			TB_EQ(rr(b, o), 0, "a counter at reset");
	b.write(RB + SB_HBM_REPLAY_DESC_W1, 0x1234);
	TB_EQ(rr(b, SB_HBM_REPLAY_DESC_W1), 0x1234, "desc_w1 reads back");
	for (unsigned p = 0; p < TB_N; p++)
		b.write(port_base(p) + SB_HBM_PORT_SEED, seeds[p % 4]);

	/* 1. a crafted list, untimed, back-pressure and SLVERR answers: every counter */
	if (!g_fail) {
		std::vector<Desc> d;
		Run r;

		set_back_pressure(b, true, 60, 10);
		restart(b, 0xFFFFFFFFu);
		for (unsigned i = 0; i < 120; i++)
			d.push_back(rand_desc(b.rng, b.rng.range(0, TB_N - 1), b.rng.chance(40), 1 << 20));
		for (unsigned beats = 1; beats <= 16; beats++) { /* every length on port 0 */
			Desc e = rand_desc(b.rng, 0, beats % 2, 1 << 20);

			e.beats = beats;
			e.addr = (e.addr & ~4095ull) + 32ull * (128 - beats);
			d.push_back(e);
		}
		d.back().beats = 0; /* 0 is taken as 1 */
		mark(b, r);
		for (auto &e : d)
			push(b, e);
		for (auto &e : d)
			if (e.beats == 0)
				e.beats = 1;
		TB_EQ(rr(b, SB_HBM_REPLAY_FIFO_COUNT), d.size(), "1: fifo_count before enable");
		TB_EQ(rr64(b, SB_HBM_REPLAY_PUSHED), d.size(), "1: pushed");
		TB_EQ(rr(b, SB_HBM_REPLAY_STATUS) & SB_HBM_REPLAY_STATUS_BUSY_MASK,
		      SB_HBM_REPLAY_STATUS_BUSY_MASK, "1: status.busy");
		b.idle(100);
		for (unsigned p = 0; p < TB_N; p++)
			TB_EQ(b.slaves[p].log.size(), r.from[p], "1: nothing issued before enable");
		start(b, false);
		if (wait_idle(b, "1"))
			check_run(b, r, d, false, false, "1 untimed");
		check_k(k0, r, "1");
		stop(b);
	}

	/* 2. data: each port writes a 16 KB region in bursts of 1..16 beats, then reads it; the
	 * memory holds the port's pattern, and the port's engine reads it back checked */
	if (!g_fail) {
		std::vector<Desc> d;
		Run r;
		const uint64_t region = 16384;

		set_back_pressure(b, true, 40, 0);
		restart(b, 0xFFFFFFFFu);
		b.mem.blocks.clear();
		b.mem.fill_seed = 0x5a5a5a5au;
		for (unsigned p = 0; p < TB_N; p++) {
			uint64_t base = ((uint64_t)p << 28) + 0x100000, a = base;

			while (a < base + region) {
				Desc e;
				uint64_t room = (4096 - (a & 4095)) / 32;

				e.port = p;
				e.write = true;
				e.addr = a;
				e.beats = std::min<unsigned>(b.rng.range(1, 16), (unsigned)room);
				d.push_back(e);
				a += 32ull * e.beats;
			}
			for (a = base; a < base + region; a += 512) {
				Desc e;

				e.port = p;
				e.addr = a;
				e.beats = 16;
				d.push_back(e);
			}
		}
		mark(b, r);
		start(b, false);
		for (auto &e : d) /* while it runs: the FIFO never fills (count < 512) */
			push(b, e);
		if (wait_idle(b, "2"))
			check_run(b, r, d, false, false, "2 data");
		check_k(k0, r, "2");
		stop(b);
		for (unsigned p = 0; p < TB_N && !g_fail; p++) {
			uint64_t base = ((uint64_t)p << 28) + 0x100000;
			PortCfg c;
			char who[64];

			for (uint64_t a = base; a < base + region; a += 32) {
				Block blk = b.mem.get(a);

				for (unsigned w = 0; w < 8; w++)
					if (blk[w] != sb_hbm_pattern(seeds[p % 4], a, w)) {
						fail("2: port %u block 0x%" PRIx64 " word %u: 0x%08x, pattern 0x%08x",
						     p, a, w, blk[w], sb_hbm_pattern(seeds[p % 4], a, w));
						a = base + region;
						break;
					}
			}
			/* the engine reads the region back with check on */
			c.c.op = SB_HBM_OP_READ;
			c.c.burst_bytes = 512;
			c.c.outstanding = 16;
			c.c.stride = 512;
			c.c.start_addr = base;
			c.c.ws_size = region;
			c.c.run_len = region / 512; /* transactions */
			c.c.seed = seeds[p % 4];
			c.check = true;
			program_port([&](uint32_t o, uint32_t v) { b.write(port_base(p) + o, v); }, c);
			b.write(port_base(p) + SB_HBM_PORT_CONTROL, start_word(c));
			for (unsigned i = 0; i < 200; i++) {
				b.idle(100);
				if (b.read(port_base(p) + SB_HBM_PORT_STATUS) & SB_HBM_PORT_STATUS_DONE_MASK)
					break;
			}
			snprintf(who, sizeof(who), "2: port %u engine read-back", p);
			TB_EQ(b.read64(port_base(p) + SB_HBM_PORT_RD_BYTES), region, who);
			TB_EQ(b.read(port_base(p) + SB_HBM_PORT_MISMATCHES), 0, who);
			b.write(port_base(p) + SB_HBM_PORT_CONTROL, 0);
		}
	}

	/* 3. untimed reads, no back-pressure: every lag one cycle */
	if (!g_fail) {
		std::vector<Desc> d;
		Run r;

		set_back_pressure(b, false, 20, 0);
		restart(b, 0xFFFFFFFFu);
		for (unsigned i = 0; i < 100; i++) {
			d.push_back(rand_desc(b.rng, i % TB_N, false, 1 << 20, 2));
		}
		mark(b, r);
		for (auto &e : d)
			push(b, e);
		start(b, false);
		if (wait_idle(b, "3"))
			check_run(b, r, d, false, true, "3 untimed, no back-pressure");
		check_k(k0, r, "3");
		stop(b);
	}

	/* 4. timed, with back-pressure: not before due, lags by value */
	if (!g_fail) {
		std::vector<Desc> d;
		Run r;
		uint64_t t[TB_N] = {0};

		set_back_pressure(b, true, 50, 0);
		restart(b, 0xFFFFFFFFu);
		for (unsigned i = 0; i < 160; i++) {
			unsigned p = b.rng.range(0, TB_N - 1);
			Desc e = rand_desc(b.rng, p, b.rng.chance(30), 1 << 20);

			/* due times ascending per port; some bunched (due at once), some spread */
			t[p] += b.rng.chance(30) ? 0 : b.rng.range(1, 60);
			e.time = 3000 + t[p];
			d.push_back(e);
		}
		d[0].time = 0; /* due at once */
		d[0].port = 0;
		d[0].addr &= (1ull << 28) - 1;
		mark(b, r);
		for (auto &e : d)
			push(b, e);
		start(b, true);
		if (wait_idle(b, "4"))
			check_run(b, r, d, true, false, "4 timed");
		check_k(k0, r, "4");
		stop(b);
	}

	/* 5. bad descriptors among good ones; port 1 outside port_mask */
	if (!g_fail) {
		std::vector<Desc> good, all;
		Run r;
		Desc e;

		set_back_pressure(b, true, 30, 0);
		restart(b, ~2u);
		for (unsigned i = 0; i < 30; i++) {
			unsigned p = b.rng.range(0, TB_N - 1);

			if (p == 1)
				p = 0;
			good.push_back(rand_desc(b.rng, p, b.rng.chance(50), 1 << 20));
			all.push_back(good.back());
			if (i % 6 == 2) {
				e = rand_desc(b.rng, 0, false, 1 << 20);
				switch (i / 6) {
				case 0: e.port = TB_N; break;             /* beyond the card */
				case 1: e.port = 1; break;                /* outside port_mask */
				case 2: e.beats = 17; break;              /* more than 16 beats */
				case 3:                                   /* crosses 4 KB */
					e.beats = 4;
					e.addr = (e.addr & ~4095ull) + 4096 - 64;
					break;
				default: e.port = 200; break;
				}
				all.push_back(e);
			}
		}
		mark(b, r);
		for (auto &x : all)
			push(b, x);
		start(b, false);
		if (wait_idle(b, "5"))
			check_run(b, r, good, false, false, "5 bad descriptors");
		TB_EQ(rr(b, SB_HBM_REPLAY_BAD), all.size() - good.size(), "5: bad");
		TB_EQ(rr(b, SB_HBM_REPLAY_STATUS),
		      SB_HBM_REPLAY_STATUS_IDLE_MASK | SB_HBM_REPLAY_STATUS_BAD_DESC_MASK, "5: status");
		stop(b);
	}

	/* 5b. a port whose engine is running: its descriptors are skipped (bad), others go */
	if (!g_fail) {
		PortCfg c;
		size_t n3 = b.slaves[3].log.size();

		set_back_pressure(b, true, 30, 0);
		restart(b, 0xFFFFFFFFu);
		c.c.op = SB_HBM_OP_READ;
		c.c.burst_bytes = 64;
		c.c.outstanding = 4;
		c.c.stride = 64;
		c.c.start_addr = 2ull << 28;
		c.c.ws_size = 1 << 16;
		c.c.run_len = 0; /* until stopped */
		c.c.seed = seeds[2];
		program_port([&](uint32_t o, uint32_t v) { b.write(port_base(2) + o, v); }, c);
		b.write(port_base(2) + SB_HBM_PORT_CONTROL, start_word(c));
		for (unsigned i = 0; i < 6; i++)
			push(b, rand_desc(b.rng, i % 2 ? 2 : 3, false, 1 << 20));
		start(b, false);
		for (unsigned i = 0; i < 100; i++) {
			b.idle(50);
			if (rr(b, SB_HBM_REPLAY_STATUS) & SB_HBM_REPLAY_STATUS_IDLE_MASK)
				break;
		}
		TB_EQ(rr(b, SB_HBM_REPLAY_BAD), 3, "5b: descriptors of a running engine's port");
		TB_EQ(rr64(b, SB_HBM_REPLAY_PORT_BURSTS(2)), 0, "5b: port 2 bursts");
		TB_EQ(rr64(b, SB_HBM_REPLAY_PORT_BURSTS(3)), 3, "5b: port 3 bursts");
		TB_EQ(b.slaves[3].log.size() - n3, 3, "5b: port 3 bursts seen");
		stop(b);
		b.write(port_base(2) + SB_HBM_PORT_CONTROL, 0);
		wait_idle(b, "5b");
	}

	/* 6. FIFO full: 512 kept, the rest dropped and counted; then they run in order */
	if (!g_fail) {
		std::vector<Desc> d;
		Run r;
		const unsigned depth = SB_HBM_REPLAY_FIFO_DEPTH_RESET;

		set_back_pressure(b, true, 30, 0);
		restart(b, 0xFFFFFFFFu);
		for (unsigned i = 0; i < depth + 3; i++) {
			d.push_back(rand_desc(b.rng, b.rng.range(0, TB_N - 1), b.rng.chance(30), 1 << 22, 4));
		}
		mark(b, r);
		for (auto &e : d)
			push(b, e);
		TB_EQ(rr(b, SB_HBM_REPLAY_FIFO_COUNT), depth, "6: fifo_count full");
		TB_EQ(rr64(b, SB_HBM_REPLAY_PUSHED), depth, "6: pushed");
		TB_EQ(rr(b, SB_HBM_REPLAY_OVERFLOWS), 3, "6: overflows");
		TB_EQ(rr(b, SB_HBM_REPLAY_STATUS),
		      SB_HBM_REPLAY_STATUS_BUSY_MASK | SB_HBM_REPLAY_STATUS_OVERFLOW_MASK, "6: status");
		d.resize(depth);
		start(b, false);
		if (wait_idle(b, "6"))
			check_run(b, r, d, false, false, "6 FIFO full");
		check_k(k0, r, "6");
		stop(b);
	}

	/* 7. control.reset with bursts in flight, then a list counted exactly */
	if (!g_fail) {
		std::vector<Desc> d;
		Run r;
		size_t seen = 0;

		set_back_pressure(b, true, 80, 0);
		restart(b, 0xFFFFFFFFu);
		for (unsigned i = 0; i < 200; i++)
			push(b, rand_desc(b.rng, b.rng.range(0, TB_N - 1), b.rng.chance(50), 1 << 20));
		mark(b, r);
		start(b, false);
		b.idle(150);
		b.write(RB + SB_HBM_REPLAY_CONTROL, SB_HBM_REPLAY_CONTROL_RESET_MASK);
		TB_EQ(rr(b, SB_HBM_REPLAY_FIFO_COUNT), 0, "7: fifo_count after reset");
		TB_EQ(rr(b, SB_HBM_REPLAY_CONTROL), 0, "7: control after reset");
		if (wait_idle(b, "7 (after reset)")) {
			for (unsigned p = 0; p < TB_N; p++)
				seen += b.slaves[p].log.size() - r.from[p];
			TB_CHECK(seen > 0 && seen < 200, "7: %zu of 200 bursts before the reset", seen);
			for (uint32_t o = SB_HBM_REPLAY_PUSHED; o < SB_BLK_HBM_REPLAY_SIZE; o += 4)
				if (o != SB_HBM_REPLAY_LAT_MIN && o != SB_HBM_REPLAY_LANE_DEPTH &&
				    o != SB_HBM_REPLAY_START_CYCLE_LO && o != SB_HBM_REPLAY_START_CYCLE_HI)
					TB_EQ(rr(b, o), 0, "7: a counter after reset and the bursts in flight");
			TB_EQ(rr(b, SB_HBM_REPLAY_LAT_MIN), 0xFFFFFFFFu, "7: lat_min after reset");
			TB_EQ(rr(b, SB_HBM_REPLAY_STATUS), SB_HBM_REPLAY_STATUS_IDLE_MASK, "7: status");
		}
		for (unsigned i = 0; i < 60; i++)
			d.push_back(rand_desc(b.rng, b.rng.range(0, TB_N - 1), b.rng.chance(50), 1 << 20));
		mark(b, r);
		for (auto &e : d)
			push(b, e);
		start(b, false);
		if (wait_idle(b, "7"))
			check_run(b, r, d, false, false, "7 after reset");
		check_k(k0, r, "7");
		stop(b);
	}

	/* 8. an engine stopped with bursts in flight: the replay takes other IDs; the engine's
	 * responses reach the engine (its counters are what its slave saw) */
	if (!g_fail) {
		std::vector<Desc> d;
		Run r;
		PortCfg c;
		size_t eng_from = b.slaves[0].log.size(), eng_n = 0;

		/* latencies longer than the engine's run: every burst of it (IDs from 0 up) is still
		 * in flight when the replay, which takes the lowest free ID, starts */
		set_back_pressure(b, false, 1600, 0);
		b.acfg.lat_min = 1500;
		for (auto &s : b.slaves)
			s.configure(b.acfg);
		restart(b, 1u);
		for (unsigned i = 0; i < 80; i++) /* into the FIFO first: the replay starts at once */
			d.push_back(rand_desc(b.rng, 0, b.rng.chance(50), 1 << 20));
		for (auto &e : d)
			push(b, e);
		c.c.op = SB_HBM_OP_READ;
		c.c.burst_bytes = 128;
		c.c.outstanding = 64;
		c.c.stride = 128;
		c.c.start_addr = 0x2000000;
		c.c.ws_size = 1 << 20;
		c.c.run_len = 0; /* until stopped */
		c.c.seed = seeds[0];
		program_port([&](uint32_t o, uint32_t v) { b.write(port_base(0) + o, v); }, c);
		b.write(port_base(0) + SB_HBM_PORT_CONTROL, start_word(c));
		b.idle(300);
		b.write(port_base(0) + SB_HBM_PORT_CONTROL, 0); /* stop: bursts still in flight */
		b.idle(10); /* its command register empties (AR always ready here) */
		mark(b, r);
		eng_n = r.from[0] - eng_from;
		TB_CHECK(b.slaves[0].outstanding() >= 8 && eng_n == b.slaves[0].outstanding(),
		         "8: %u of %zu engine bursts in flight at the start", b.slaves[0].outstanding(),
		         eng_n);
		start(b, false);
		if (wait_idle(b, "8")) {
			check_run(b, r, d, false, false, "8 after an engine");
			TB_EQ(b.read64(port_base(0) + SB_HBM_PORT_RD_BURSTS), eng_n,
			      "8: the engine's bursts");
			TB_EQ(b.read64(port_base(0) + SB_HBM_PORT_RD_LAT_COUNT), eng_n,
			      "8: the engine's completions");
		}
		set_back_pressure(b, true, 60, 0);
		/* back-pressure again, the replay released: the engine runs on its port */
		if (!g_fail) {
			size_t before = b.slaves[0].log.size();

			stop(b);
			c.c.run_len = 20;
			program_port([&](uint32_t o, uint32_t v) { b.write(port_base(0) + o, v); }, c);
			b.write(port_base(0) + SB_HBM_PORT_CONTROL, start_word(c));
			b.idle(3000);
			TB_EQ(b.slaves[0].log.size() - before, 20, "8: the engine after the replay");
			TB_EQ(b.read64(port_base(0) + SB_HBM_PORT_RD_BURSTS), 20,
			      "8: the engine's bursts after the replay");
		}
		stop(b);
	}
	return finish("tb_hbm_replay");
}
