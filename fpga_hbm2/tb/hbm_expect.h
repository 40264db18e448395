/* SPDX-License-Identifier: MIT */
/*
 * What an HBM port engine must have done: its burst sequence from the shared definition
 * (hbm_traffic.h) and its counters and latency statistics computed from what the AXI3 slave
 * saw (axi3_slave.h). Shared by the engine's testbenches.
 */
#ifndef SB_HBM_EXPECT_H
#define SB_HBM_EXPECT_H

#include <functional>
#include <string>
#include <vector>

#include "axi3_slave.h"
#include "hbm_traffic.h"

extern "C" {
#include "sb_regmap.h"
}

namespace tb
{

/* One port's programming (register values) and what follows from it. */
struct PortCfg {
	struct sb_hbm_cfg c = {};
	bool check = false;
	uint32_t lat_class = SB_HBM_PORT_LAT_CLASS_RESET, hist_cfg = SB_HBM_PORT_HIST_CFG_RESET;
};

/* A random configuration: sizes, strides, working sets, the mix, outstanding IDs. */
inline PortCfg random_cfg(Rng &rng, uint64_t base, uint64_t span, uint64_t run_len)
{
	static const uint32_t bursts[] = {32,  64,  96,   128,  256,  480,
	                                  512, 544, 1024, 2048, 4096, 4064};
	PortCfg p;

	p.c.op = (uint8_t)rng.range(0, 3);
	p.c.random = rng.chance(40);
	p.c.burst_bytes = rng.chance(70) ? bursts[rng.range(0, 11)] : rng.range(0, 5000);
	p.c.outstanding = rng.chance(20) ? rng.range(0, 70) : rng.range(1, 64);
	p.c.stride = rng.chance(50) ? p.c.burst_bytes : rng.range(0, 9000);
	p.c.mix_writes = rng.range(0, 300);
	p.c.seed = rng.chance(10) ? 0 : (uint32_t)rng.u64();
	p.c.start_addr = base + (rng.u64() % span) & ~(rng.chance(50) ? 4095ull : 31ull);
	p.c.ws_size = rng.chance(20) ? rng.u64() % span : 1ull << rng.range(12, 24);
	p.c.run_len = run_len;
	p.check = rng.chance(50);
	p.lat_class = rng.range(5, 40) | (uint32_t)rng.range(41, 90) << 16;
	p.hist_cfg = rng.range(0, 30) | rng.range(0, 4) << 16;
	return p;
}

/* Program a port's registers through a write function (byte offset within the block). */
inline void program_port(const std::function<void(uint32_t, uint32_t)> &w, const PortCfg &p)
{
	w(SB_HBM_PORT_BURST_BYTES, p.c.burst_bytes);
	w(SB_HBM_PORT_OUTSTANDING, p.c.outstanding);
	w(SB_HBM_PORT_START_ADDR_LO, (uint32_t)p.c.start_addr);
	w(SB_HBM_PORT_START_ADDR_HI, (uint32_t)(p.c.start_addr >> 32));
	w(SB_HBM_PORT_WS_SIZE_LO, (uint32_t)p.c.ws_size);
	w(SB_HBM_PORT_WS_SIZE_HI, (uint32_t)(p.c.ws_size >> 32));
	w(SB_HBM_PORT_STRIDE, p.c.stride);
	w(SB_HBM_PORT_MIX_WRITES, p.c.mix_writes);
	w(SB_HBM_PORT_RUN_LEN_LO, (uint32_t)p.c.run_len);
	w(SB_HBM_PORT_RUN_LEN_HI, (uint32_t)(p.c.run_len >> 32));
	w(SB_HBM_PORT_SEED, p.c.seed);
	w(SB_HBM_PORT_LAT_CLASS, p.lat_class);
	w(SB_HBM_PORT_HIST_CFG, p.hist_cfg);
}

/* The control word that starts the port with this configuration. */
inline uint32_t start_word(const PortCfg &p)
{
	return SB_HBM_PORT_CONTROL_ENABLE_MASK | SB_HBM_PORT_CONTROL_START_MASK |
	       SB_FIELD_PREP(SB_HBM_PORT_CONTROL_OP, p.c.op) |
	       SB_FIELD_PREP(SB_HBM_PORT_CONTROL_MODE, p.c.random) |
	       SB_FIELD_PREP(SB_HBM_PORT_CONTROL_CHECK, p.check);
}

/* The configuration as the registers store it (valid bits only). */
inline struct sb_hbm_cfg stored(const struct sb_hbm_cfg &c)
{
	struct sb_hbm_cfg s = c;

	s.start_addr &= SB_HBM_ADDR_MASK;
	s.ws_size &= SB_HBM_WS_MASK;
	return s;
}

/*
 * The bursts log[from..] against the generator: direction, address, beats and ID in order.
 * Returns the bursts' `last` flags (for the transaction count).
 */
inline std::vector<bool> check_sequence(const std::vector<AxiBurst> &log, size_t from,
                                        const PortCfg &p, const char *who)
{
	struct sb_hbm_gen g;
	struct sb_hbm_cfg c = stored(p.c);
	std::vector<bool> last;
	char what[160];

	sb_hbm_gen_start(&g, &c);
	for (size_t i = from; i < log.size(); i++) {
		struct sb_hbm_burst b;

		if (!sb_hbm_gen_more(&g)) {
			fail("%s: burst %zu beyond the run length", who, i - from);
			break;
		}
		sb_hbm_gen_next(&g, &b);
		snprintf(what, sizeof(what), "%s: burst %zu write", who, i - from);
		TB_EQ(log[i].write, b.write, what);
		snprintf(what, sizeof(what), "%s: burst %zu address", who, i - from);
		TB_EQ(log[i].addr, b.addr, what);
		snprintf(what, sizeof(what), "%s: burst %zu beats", who, i - from);
		TB_EQ(log[i].beats, b.beats, what);
		snprintf(what, sizeof(what), "%s: burst %zu ID", who, i - from);
		TB_EQ(log[i].id, b.id, what);
		last.push_back(b.last);
		if (g_fail)
			break;
	}
	return last;
}

struct Expect {
	uint64_t txns = 0, rd_bursts = 0, wr_bursts = 0, rd_bytes = 0, wr_bytes = 0;
	uint64_t rd_sum = 0, rd_count = 0, wr_sum = 0, wr_count = 0;
	uint32_t rd_min = 0xFFFFFFFFu, rd_max = 0, wr_min = 0xFFFFFFFFu, wr_max = 0;
	uint32_t errors = 0, mismatches = 0;
	uint32_t hist[16] = {0}, cls[3] = {0};
};

/* The counters after every burst of log[from..] completed. */
inline Expect expect(const std::vector<AxiBurst> &log, size_t from, const std::vector<bool> &last,
                     const PortCfg &p)
{
	Expect e;
	uint32_t base = p.hist_cfg & 0xFFFF, shift = p.hist_cfg >> 16 & 15;
	uint32_t hit = p.lat_class & 0xFFFF, closed = p.lat_class >> 16;

	for (size_t i = from; i < log.size(); i++) {
		const AxiBurst &b = log[i];

		if (b.write) {
			uint32_t lat = (uint32_t)(b.done - b.hs);

			e.wr_bursts++;
			e.wr_bytes += 32ull * b.beats;
			e.wr_sum += lat;
			e.wr_count++;
			e.wr_min = std::min(e.wr_min, lat);
			e.wr_max = std::max(e.wr_max, lat);
		} else {
			uint32_t lat = (uint32_t)(b.first - b.hs), bin;

			e.rd_bursts++;
			e.rd_bytes += 32ull * b.beats;
			e.rd_sum += lat;
			e.rd_count++;
			e.rd_min = std::min(e.rd_min, lat);
			e.rd_max = std::max(e.rd_max, lat);
			bin = lat <= base ? 0 : std::min(15u, (lat - base) >> shift);
			e.hist[bin]++;
			e.cls[lat <= hit ? 0 : lat <= closed ? 1 : 2]++;
			if (p.check)
				e.mismatches += b.corrupt;
		}
		e.errors += b.resp != 0;
		if (i - from < last.size() && last[i - from])
			e.txns++;
	}
	return e;
}

/* Compare a port's registers (read through r, byte offsets within the block) with e. */
inline void check_counters(const std::function<uint32_t(uint32_t)> &r, const Expect &e,
                           const char *who)
{
	auto r64 = [&](uint32_t off) { return (uint64_t)r(off) | (uint64_t)r(off + 4) << 32; };
	char what[160];

#define SB_HBM_EQ(reg, val)                                                                        \
	do {                                                                                       \
		snprintf(what, sizeof(what), "%s: %s", who, #reg);                                 \
		TB_EQ(reg, val, what);                                                             \
	} while (0)
	SB_HBM_EQ(r64(SB_HBM_PORT_TXNS), e.txns);
	SB_HBM_EQ(r64(SB_HBM_PORT_RD_BURSTS), e.rd_bursts);
	SB_HBM_EQ(r64(SB_HBM_PORT_WR_BURSTS), e.wr_bursts);
	SB_HBM_EQ(r64(SB_HBM_PORT_RD_BYTES), e.rd_bytes);
	SB_HBM_EQ(r64(SB_HBM_PORT_WR_BYTES), e.wr_bytes);
	SB_HBM_EQ(r64(SB_HBM_PORT_RD_LAT_SUM), e.rd_sum);
	SB_HBM_EQ(r64(SB_HBM_PORT_RD_LAT_COUNT), e.rd_count);
	SB_HBM_EQ(r(SB_HBM_PORT_RD_LAT_MIN), e.rd_min);
	SB_HBM_EQ(r(SB_HBM_PORT_RD_LAT_MAX), e.rd_max);
	SB_HBM_EQ(r64(SB_HBM_PORT_WR_LAT_SUM), e.wr_sum);
	SB_HBM_EQ(r64(SB_HBM_PORT_WR_LAT_COUNT), e.wr_count);
	SB_HBM_EQ(r(SB_HBM_PORT_WR_LAT_MIN), e.wr_min);
	SB_HBM_EQ(r(SB_HBM_PORT_WR_LAT_MAX), e.wr_max);
	SB_HBM_EQ(r(SB_HBM_PORT_ERRORS), e.errors);
	SB_HBM_EQ(r(SB_HBM_PORT_MISMATCHES), e.mismatches);
	for (unsigned i = 0; i < 16; i++) {
		snprintf(what, sizeof(what), "%s: hist[%u]", who, i);
		TB_EQ(r(SB_HBM_PORT_HIST(i)), e.hist[i], what);
	}
	SB_HBM_EQ(r(SB_HBM_PORT_CLS_HIT), e.cls[0]);
	SB_HBM_EQ(r(SB_HBM_PORT_CLS_CLOSED), e.cls[1]);
	SB_HBM_EQ(r(SB_HBM_PORT_CLS_MISS), e.cls[2]);
#undef SB_HBM_EQ
}

/* Every W beat the slave stored is the write pattern of the port's seed. */
inline void check_written(const Memory &m, const std::vector<AxiBurst> &log, size_t from,
                          uint32_t seed, const char *who)
{
	for (size_t i = from; i < log.size(); i++) {
		if (!log[i].write)
			continue;
		for (unsigned k = 0; k < log[i].beats; k++) {
			uint64_t a = log[i].addr + 32ull * k;
			Block d = m.get(a);

			for (unsigned w = 0; w < 8; w++)
				if (d[w] != sb_hbm_pattern(seed, a, w)) {
					fail("%s: write data at 0x%" PRIx64
					     " word %u: 0x%08x, pattern "
					     "0x%08x",
					     who, a, w, d[w], sb_hbm_pattern(seed, a, w));
					return;
				}
		}
	}
}

} /* namespace tb */

#endif /* SB_HBM_EXPECT_H */
