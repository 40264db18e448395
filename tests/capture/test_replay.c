/* SPDX-License-Identifier: MIT */
/*
 * Trace replay: records to descriptors (pure), the model's replay block driven through its
 * registers and a DMA ring, and whole replays on the simulated board (counts per vault,
 * timing, the ring refilled, the replay's own capture).
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "capture_support.h"
#include "sb_regmap.h"
#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/replay.h"

TestSuite(replay, .init = tmp_make, .fini = tmp_clean);

/* ---- descriptors ------------------------------------------------------------------------- */

Test(replay, encodes_descriptors_as_the_register_map_says)
{
	struct sb_replay_desc d = {
	    .time = 0x1122334455ull, .addr = 0x3DEADBEF0ull, .write = 1, .flits = 8, .port = 13};
	uint32_t w[4];

	sb_replay_desc_encode(&d, w);
	cr_expect_eq(w[0], 0x22334455u);
	cr_expect_eq(w[1], 0x11u);
	cr_expect_eq(w[2], 0xDEADBEF0u);
	cr_expect_eq(w[3], 0x3u | 1u << 2 | 8u << 4 | 13u << 8);
}

static void info_with(struct sb_trace_info *info, const char *source, double tick_hz)
{
	sb_trace_info_init(info, source, tick_hz, "cycle");
	cr_assert_eq(sb_trace_info_subpart(info, "ifmap", SB_SUBPART_SCRATCHPAD, 2, 2), 0);
	cr_assert_eq(sb_trace_info_subpart(info, "filter", SB_SUBPART_SCRATCHPAD, 2, 2), 1);
	cr_assert_eq(sb_trace_info_subpart(info, "ofmap", SB_SUBPART_SCRATCHPAD, 2, 2), 2);
}

static struct sb_trace_record rec(int64_t t, unsigned sp, uint64_t addr, unsigned size,
                                  unsigned kind)
{
	struct sb_trace_record r;

	memset(&r, 0, sizeof(r));
	r.time = t;
	r.subpart = (uint16_t)sp;
	r.addr = addr;
	r.size = size;
	r.kind = (uint8_t)kind;
	return r;
}

Test(replay, scalesim_dram_selection_keeps_fills_and_write_backs)
{
	struct sb_trace_info info;
	struct sb_replay_builder b;
	struct sb_replay_desc out[40];
	struct sb_trace_record r;
	size_t n;

	info_with(&info, "scalesim", 1e9);
	/* AUTO on a SCALE-Sim trace is DRAM; 187.5 MHz board, 1 GHz trace, speed 1 */
	cr_assert_eq(
	    sb_replay_builder_init(&b, &info, SB_REPLAY_SELECT_AUTO, true, 187.5e6, 1, 1, 0x3), 0);
	cr_expect_eq(b.select, SB_REPLAY_SELECT_DRAM);
	r = rec(100, 0, 8, 2, SB_ACC_FETCH); /* ifmap fill: a read of bytes 16..17 */
	cr_expect_eq(sb_replay_builder_add(&b, &info, &r, out), 0); /* pending */
	r = rec(200, 0, 8, 2, SB_ACC_READ);                         /* ifmap SRAM read: skipped */
	n = sb_replay_builder_add(&b, &info, &r, out);
	cr_assert_eq(n, 0);
	r = rec(200, 2, 64, 2, SB_ACC_WRITE); /* ofmap SRAM write: skipped */
	cr_assert_eq(sb_replay_builder_add(&b, &info, &r, out), 0);
	r = rec(1000, 2, 64, 2, SB_ACC_READ); /* ofmap write-back: a write */
	n = sb_replay_builder_add(&b, &info, &r, out);
	cr_assert_eq(n, 1); /* the fill went out */
	cr_expect_eq(out[0].time, 0);
	cr_expect_eq(out[0].addr, 16);
	cr_expect_eq(out[0].write, 0);
	cr_expect_eq(out[0].flits, 1);
	n = sb_replay_builder_finish(&b, out);
	cr_assert_eq(n, 1);
	cr_expect_eq(out[0].write, 1);
	cr_expect_eq(out[0].addr, 128);
	cr_expect_eq(out[0].time, 169); /* 900 ticks of 1 ns at 187.5 MHz: 168.75 */
	cr_expect_eq(b.records, 4);
	cr_expect_eq(b.skipped, 2);
}

Test(replay, coalesces_one_time_in_one_128_byte_block)
{
	struct sb_trace_info info;
	struct sb_replay_builder b;
	struct sb_replay_desc out[40];
	struct sb_trace_record r;
	size_t n = 0;

	sb_trace_info_init(&info, "csv", 187.5e6, "cycle");
	cr_assert_eq(sb_trace_info_subpart(&info, "mem", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
	cr_assert_eq(
	    sb_replay_builder_init(&b, &info, SB_REPLAY_SELECT_ALL, true, 187.5e6, 1, 1, 0x1FF), 0);
	/* Time 5: bytes 0..3, 40..47, 100..107 of block 0, then 120..135 crosses into block 1. */
	r = rec(5, 0, 0, 4, SB_ACC_READ);
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	r = rec(5, 0, 40, 8, SB_ACC_READ);
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	r = rec(5, 0, 100, 8, SB_ACC_READ);
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	r = rec(5, 0, 120, 16, SB_ACC_READ);
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	cr_assert_eq(n, 1); /* block 0 closed when the record went into block 1 */
	cr_expect_eq(out[0].addr, 0);
	cr_expect_eq(out[0].flits, 8); /* bytes 0..127 */
	/* A write at the same time does not merge with reads. */
	r = rec(5, 0, 130, 2, SB_ACC_WRITE);
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	cr_assert_eq(n, 2);
	cr_expect_eq(out[1].addr, 128);
	cr_expect_eq(out[1].flits, 1); /* 128..135 */
	cr_expect_eq(out[1].write, 0);
	n += sb_replay_builder_finish(&b, out + n);
	cr_assert_eq(n, 3);
	cr_expect_eq(out[2].write, 1);
	cr_expect_eq(out[2].addr, 128);
	/* Round robin over the ports. */
	cr_expect_eq(out[0].port, 0);
	cr_expect_eq(out[1].port, 1);
	cr_expect_eq(out[2].port, 2);
}

Test(replay, without_coalescing_every_record_is_a_request)
{
	struct sb_trace_info info;
	struct sb_replay_builder b;
	struct sb_replay_desc out[40];
	struct sb_trace_record r;
	size_t n = 0;

	sb_trace_info_init(&info, "csv", 1e9, "cycle");
	info.fields = SB_FIELD_UNIT;
	cr_assert_eq(sb_trace_info_subpart(&info, "mem", SB_SUBPART_SCRATCHPAD, 4, 4), 0);
	cr_assert_eq(
	    sb_replay_builder_init(&b, &info, SB_REPLAY_SELECT_ALL, false, 1e9, 2, 0.5, 0x0C), 0);
	r = rec(1000, 0, 1, 4, SB_ACC_READ); /* bytes 4..7 */
	r.unit = 3;
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	r = rec(1400, 0, 2, 4, SB_ACC_FETCH); /* bytes 8..11: a fill is a read */
	r.unit = 5;                           /* not a used port: round robin */
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	r = rec(1400, 0, 3, 4, SB_ACC_FLUSH);
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	r = rec(2000, 0, 1ull << 40, 4, SB_ACC_WRITE); /* 2^42 bytes: beyond 34 bits */
	r.unit = 2;
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	cr_assert_eq(n, 3);
	cr_expect_eq(out[0].port, 3);
	cr_expect_eq(out[1].port, 2);
	cr_expect_eq(out[2].port, 2);
	/* time: (t - 1000) x 0.5 (density) / 2 (speed) */
	cr_expect_eq(out[0].time, 0);
	cr_expect_eq(out[1].time, 100);
	cr_expect_eq(out[2].time, 250);
	cr_expect_eq(out[2].addr, 0);
	cr_expect_eq(b.wrapped, 1);
	cr_expect_eq(b.skipped, 1);
	cr_expect_eq(sb_replay_builder_finish(&b, out), 0);
	cr_expect_eq(sb_replay_builder_init(&b, &info, SB_REPLAY_SELECT_ALL, false, 1e9, 1, 1, 0),
	             SB_ERR_INVAL);
}

Test(replay, one_subpartition_only)
{
	struct sb_trace_info info;
	struct sb_replay_builder b;
	struct sb_replay_desc out[40];
	struct sb_trace_record r;
	size_t n = 0;

	sb_trace_info_init(&info, "gpgpusim", 1e9, "cycle");
	cr_assert_eq(sb_trace_info_subpart(&info, "L1D", SB_SUBPART_CACHE, 1, 32), 0);
	cr_assert_eq(sb_replay_builder_init(&b, &info, SB_REPLAY_SELECT_AUTO, false, 1e9, 1, 1, 1),
	             0);
	cr_assert_eq(sb_replay_builder_only(&b, "L2"), 0);
	r = rec(1, 0, 0x100, 32, SB_ACC_READ); /* L1D: skipped */
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	/* L2 declared later, as a reader does when it meets it */
	cr_assert_eq(sb_trace_info_subpart(&info, "L2", SB_SUBPART_CACHE, 1, 32), 1);
	r = rec(2, 1, 0x200, 32, SB_ACC_READ);
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	r = rec(3, 0, 0x300, 32, SB_ACC_WRITE);
	n += sb_replay_builder_add(&b, &info, &r, out + n);
	cr_assert_eq(n, 1);
	cr_expect_eq(out[0].addr, 0x200);
	cr_expect_eq(out[0].flits, 2);
	cr_expect_eq(b.skipped, 2);
	cr_expect_eq(sb_replay_builder_only(&b, "a-name-longer-than-thirty-one-chars"),
	             SB_ERR_INVAL);
}

Test(replay, density_comes_from_the_capture)
{
	struct sb_trace_info info;

	sb_trace_info_init(&info, "stackbench-capture", 187.5e6, "cycle");
	cr_expect_eq(sb_replay_density(&info), 1);
	info.capture.sampled = 1;
	info.capture.executed = 1000;
	info.capture.captured = 130;
	info.capture.lost_records = 30;
	cr_expect(fabs(sb_replay_density(&info) - 0.1) < 1e-12);
}

/* ---- the model's replay block -------------------------------------------------------------- */

static uint32_t blk(struct sb_device *dev)
{
	uint32_t off;

	cr_assert_eq(sb_device_find_block(dev, SB_BLK_REPLAY_TYPE, 0, &off), 0);
	return off;
}

static uint32_t rd(struct sb_device *dev, uint32_t off)
{
	uint32_t v;

	cr_assert_eq(sb_device_read32(dev, off, &v), 0);
	return v;
}

static uint64_t rd64(struct sb_device *dev, uint32_t off)
{
	uint64_t v;

	cr_assert_eq(sb_device_read64(dev, off, &v), 0);
	return v;
}

Test(replay, block_issues_descriptors_from_a_host_ring)
{
	struct sb_device *dev;
	struct sb_dma_buf buf;
	uint32_t b, *ring;
	const unsigned n = 40; /* ring of 16: refilled */
	unsigned written = 0;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	b = blk(dev);
	cr_expect_eq(rd(dev, b + SB_REPLAY_STATUS), SB_REPLAY_STATUS_IDLE_MASK);
	cr_expect_eq(rd(dev, b + SB_REPLAY_DESC_SIZE), 16);
	cr_expect_eq(rd(dev, b + SB_REPLAY_LANE_DEPTH), 4);
	cr_assert_eq(sb_device_dma_alloc(dev, 16 * 16, &buf), 0);
	ring = buf.host;
	cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_RESET_MASK),
	             0);
	cr_assert_eq(sb_device_write64(dev, b + SB_REPLAY_RING_ADDR, buf.bus), 0);
	cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_RING_LOG2, 4), 0);
	cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_PORT_MASK, 0x3), 0);
	cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_ENABLE_MASK),
	             0);
	while (written < n || !(rd(dev, b + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_IDLE_MASK)) {
		uint32_t head = rd(dev, b + SB_REPLAY_HEAD);

		while (written < n && written - head < 16) {
			/* Descriptor i: vault i % 4, reads and writes, 1..8 flits; #7 names port 5
			 * (not replayed: skipped and counted). */
			struct sb_replay_desc d = {
			    .time = 0,
			    .addr = (uint64_t)(written % 4) << 7 | 1ull << 20,
			    .write = written % 3 == 0,
			    .flits = (uint8_t)(1 + written % 8),
			    .port = (uint8_t)(written == 7 ? 5 : written % 2)};

			sb_replay_desc_encode(&d, &ring[(written % 16) * 4]);
			written++;
		}
		cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_TAIL, written), 0);
		cr_assert_eq(sb_device_wait_ns(dev, 200), 0);
		cr_assert_lt(sb_device_now_ns(dev), 1000000, "the replay did not finish");
	}
	cr_expect_eq(rd64(dev, b + SB_REPLAY_ISSUED), n - 1);
	cr_expect_eq(rd64(dev, b + SB_REPLAY_COMPLETED), n - 1);
	cr_expect_eq(rd(dev, b + SB_REPLAY_BAD), 1);
	cr_expect(rd(dev, b + SB_REPLAY_STATUS) & SB_REPLAY_STATUS_BAD_DESC_MASK);
	cr_expect_eq(rd(dev, b + SB_REPLAY_HEAD), n);
	{
		uint64_t reads = 0, writes = 0, per_vault[4] = {0}, flits[4] = {0};

		for (unsigned i = 0; i < n; i++) {
			if (i == 7)
				continue;
			if (i % 3 == 0)
				writes++;
			else
				reads++;
			per_vault[i % 4]++;
			flits[i % 4] += 1 + i % 8;
		}
		cr_expect_eq(rd64(dev, b + SB_REPLAY_READS), reads);
		cr_expect_eq(rd64(dev, b + SB_REPLAY_WRITES), writes);
		for (unsigned v = 0; v < 4; v++) {
			cr_expect_eq(rd64(dev, b + SB_REPLAY_VAULT_REQUESTS(v)), per_vault[v],
			             "vault %u", v);
			cr_expect_eq(rd(dev, b + SB_REPLAY_VAULT_FLITS(v)), flits[v], "vault %u",
			             v);
			cr_expect_gt(rd64(dev, b + SB_REPLAY_VAULT_LAT_SUM(v)), 0);
		}
		cr_expect_eq(rd64(dev, b + SB_REPLAY_VAULT_REQUESTS(4)), 0);
	}
	/* Latency: at least the infrastructure's 547 ns (103 cycles). */
	cr_expect_geq(rd(dev, b + SB_REPLAY_LAT_MIN), 103);
	cr_expect_geq(rd(dev, b + SB_REPLAY_LAT_MAX), rd(dev, b + SB_REPLAY_LAT_MIN));
	cr_expect_gt(rd64(dev, b + SB_REPLAY_END_CYCLE), rd64(dev, b + SB_REPLAY_START_CYCLE));
	/* The ports' own counters do not count the replay's requests. */
	{
		uint32_t p0;

		cr_assert_eq(sb_device_find_block(dev, SB_BLK_GUPS_PORT_TYPE, 0, &p0), 0);
		cr_expect_eq(rd64(dev, p0 + SB_GUPS_PORT_READS), 0);
	}
	/* Reset clears counters and pointers. */
	cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_RESET_MASK),
	             0);
	cr_expect_eq(rd64(dev, b + SB_REPLAY_ISSUED), 0);
	cr_expect_eq(rd(dev, b + SB_REPLAY_HEAD), 0);
	cr_expect_eq(rd(dev, b + SB_REPLAY_TAIL), 0);
	cr_expect_eq(rd(dev, b + SB_REPLAY_LAT_MIN), 0xFFFFFFFFu);
	cr_expect_eq(rd(dev, b + SB_REPLAY_STATUS), SB_REPLAY_STATUS_IDLE_MASK);
	sb_device_dma_free(dev, &buf);
	sb_device_close(dev);
}

Test(replay, timed_descriptors_wait_for_their_time)
{
	struct sb_device *dev;
	struct sb_dma_buf buf;
	uint32_t b, *ring;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	b = blk(dev);
	cr_assert_eq(sb_device_dma_alloc(dev, 16 * 16, &buf), 0);
	ring = buf.host;
	for (unsigned i = 0; i < 4; i++) {
		struct sb_replay_desc d = {.time = 1000 * i, .addr = 0x1000ull * i, .flits = 2};

		sb_replay_desc_encode(&d, &ring[i * 4]);
	}
	cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_RESET_MASK),
	             0);
	cr_assert_eq(sb_device_write64(dev, b + SB_REPLAY_RING_ADDR, buf.bus), 0);
	cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_RING_LOG2, 4), 0);
	cr_assert_eq(sb_device_write32(dev, b + SB_REPLAY_TAIL, 4), 0);
	cr_assert_eq(
	    sb_device_write32(dev, b + SB_REPLAY_CONTROL,
	                      SB_REPLAY_CONTROL_ENABLE_MASK | SB_REPLAY_CONTROL_TIMED_MASK),
	    0);
	/* 2000 cycles later (10.7 us): descriptors 0, 1, 2 are due, 3 is not. */
	cr_assert_eq(sb_device_wait_ns(dev, 2000 * 16 / 3 + 10), 0);
	cr_expect_eq(rd64(dev, b + SB_REPLAY_ISSUED), 3);
	cr_assert_eq(sb_device_wait_ns(dev, 10000), 0);
	cr_expect_eq(rd64(dev, b + SB_REPLAY_ISSUED), 4);
	/* Alone on the port, each was issued when due: no lag. */
	cr_expect_eq(rd64(dev, b + SB_REPLAY_LAG_SUM), 0);
	sb_device_dma_free(dev, &buf);
	sb_device_close(dev);
}

/* ---- whole replays ------------------------------------------------------------------------- */

/* Write an sbt trace of n requests: request i reads (or every third writes) 64 bytes in vault
 * i % 3 * 5 at time i * spacing cycles. */
static void write_trace(const char *path, unsigned n, int64_t spacing)
{
	struct sb_trace_writer *w;
	struct sb_trace_info info;
	struct sb_trace_record *r = calloc(n, sizeof(*r));

	cr_assert_not_null(r);
	sb_trace_info_init(&info, "csv", 187.5e6, "cycle");
	cr_assert_eq(sb_trace_info_subpart(&info, "mem", SB_SUBPART_SCRATCHPAD, 1, 16), 0);
	for (unsigned i = 0; i < n; i++) {
		r[i].time = (int64_t)i * spacing;
		r[i].addr = (uint64_t)(i % 3 * 5) << 7 | (uint64_t)i << 12;
		r[i].size = 64;
		r[i].kind = i % 3 == 2 ? SB_ACC_WRITE : SB_ACC_READ;
	}
	cr_assert_eq(sb_trace_writer_open(&w, SB_TRACE_SBT, path, &info), 0);
	cr_assert_eq(sb_trace_write(w, &info, r, n), 0);
	cr_assert_eq(sb_trace_writer_close(w), 0);
	free(r);
}

static void replay_file(const char *path, const struct sb_replay_config *cfg,
                        const char *capture_path, struct sb_replay_result *res,
                        struct sb_capture_stats *cst)
{
	struct sb_trace_reader *r;
	struct sb_capture *cap = NULL;
	struct sb_device *dev;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	cr_assert_eq(sb_trace_open(&r, SB_TRACE_SBT, path, NULL), 0, "%s", sb_error_detail());
	if (capture_path) {
		struct sb_capture_config cc;

		sb_capture_config_init(&cc);
		cc.burst_records = 0;
		cc.gap_cycles = 0;
		cc.port_mask = cfg->port_mask;
		cr_assert_eq(sb_capture_open(&cap, dev, &cc, capture_path), 0, "%s",
		             sb_error_detail());
	}
	cr_assert_eq(sb_replay_run(dev, r, cfg, cap, res), 0, "%s", sb_error_detail());
	if (cap)
		cr_assert_eq(sb_capture_close(cap, cst), 0, "%s", sb_error_detail());
	sb_trace_reader_free(r);
	sb_device_close(dev);
}

Test(replay, replays_every_request_in_its_vault)
{
	struct sb_replay_config cfg;
	struct sb_replay_result res;
	char path[300];
	const unsigned n = 30000;

	write_trace(tmp_path(path, sizeof(path), "in.sbt"), n, 4);
	sb_replay_config_init(&cfg);
	cfg.ring_log2 = 8; /* 256 entries: refilled 100 times over */
	replay_file(path, &cfg, NULL, &res, NULL);
	cr_expect_eq(res.records, n);
	cr_expect_eq(res.requests, n);
	cr_expect_eq(res.issued, n);
	cr_expect_eq(res.completed, n);
	cr_expect_eq(res.writes, n / 3);
	cr_expect_eq(res.reads, n - n / 3);
	cr_expect_eq(res.errors, 0);
	cr_expect_eq(res.data_flits, 4ull * n);
	for (unsigned v = 0; v < 16; v++)
		cr_expect_eq(res.vault[v].requests, v % 5 == 0 && v <= 10 ? n / 3 : 0, "vault %u",
		             v);
	/* Timed at one request per 4 cycles: the board keeps up, so the replay lasts the trace
	 * (plus the last request's latency) and hardly lags. */
	cr_expect(res.timed);
	cr_expect_geq(res.duration_cycles, 4ull * (n - 1));
	cr_expect_lt(res.duration_cycles, 4ull * (n - 1) + 2000);
	cr_expect_lt(res.lag_avg_ns, 50);
	cr_expect_gt(res.latency_min_ns, 547);
	cr_expect(fabs(res.mrps - 187.5 / 4) < 1.0, "%.2f MRPS", res.mrps);
}

Test(replay, as_fast_as_the_board_accepts)
{
	struct sb_replay_config cfg;
	struct sb_replay_result slow, fast;
	char path[300];

	write_trace(tmp_path(path, sizeof(path), "in.sbt"), 20000, 40);
	sb_replay_config_init(&cfg);
	replay_file(path, &cfg, NULL, &slow, NULL);
	cfg.speed = 0;
	replay_file(path, &cfg, NULL, &fast, NULL);
	cr_expect(!fast.timed);
	cr_expect_eq(fast.issued, 20000);
	cr_expect_lt(fast.duration_cycles * 4, slow.duration_cycles,
	             "max speed %llu cycles, trace pace %llu",
	             (unsigned long long)fast.duration_cycles,
	             (unsigned long long)slow.duration_cycles);
	/* Three vaults take it all: queueing shows in the lag. */
	cr_expect_gt(fast.lag_avg_ns, slow.lag_avg_ns);
	cfg.speed = 2; /* twice the pace: half the time */
	replay_file(path, &cfg, NULL, &fast, NULL);
	cr_expect(fabs((double)fast.duration_cycles * 2 - (double)slow.duration_cycles) <
	              0.01 * slow.duration_cycles,
	          "speed 2: %llu cycles, speed 1: %llu", (unsigned long long)fast.duration_cycles,
	          (unsigned long long)slow.duration_cycles);
}

Test(replay, the_replays_own_capture_is_a_measured_trace_of_it)
{
	struct sb_replay_config cfg;
	struct sb_replay_result res;
	struct sb_capture_stats cst;
	struct loaded l;
	char in[300], out[300];
	uint64_t vault_seen[16] = {0}, writes = 0;

	write_trace(tmp_path(in, sizeof(in), "in.sbt"), 5000, 8);
	sb_replay_config_init(&cfg);
	cfg.port_mask = 0x0F;
	replay_file(in, &cfg, tmp_path(out, sizeof(out), "measured.sbt"), &res, &cst);
	load_trace(out, SB_TRACE_SBT, &l);
	cr_assert_eq(l.n, 5000);
	cr_expect_eq(l.info.capture.executed, res.issued);
	cr_expect_eq(l.info.capture.lost_records, 0);
	cr_expect_str_eq(sb_trace_info_attr(&l.info, "capture.executed_by"), "replay issued");
	for (size_t i = 0; i < l.n; i++) {
		cr_assert_lt(l.r[i].unit, 4);
		cr_assert_eq(l.r[i].size, 64);
		cr_assert_gt(l.r[i].latency, 100);
		vault_seen[l.r[i].subpart]++;
		writes += l.r[i].kind == SB_ACC_WRITE;
		if (i)
			cr_assert_geq(l.r[i].time, l.r[i - 1].time);
	}
	cr_expect_eq(vault_seen[0] + vault_seen[5] + vault_seen[10], 5000);
	cr_expect_eq(vault_seen[5], res.vault[5].requests);
	cr_expect_eq(writes, res.writes);
	/* A measured trace replays again: the same requests. */
	{
		struct sb_replay_result again;

		replay_file(out, &cfg, NULL, &again, NULL);
		cr_expect_eq(again.issued, 5000);
		cr_expect_eq(again.writes, res.writes);
		for (unsigned v = 0; v < 16; v++)
			cr_expect_eq(again.vault[v].requests, res.vault[v].requests);
	}
	loaded_free(&l);
}

Test(replay, refuses_a_trace_without_memory_traffic)
{
	struct sb_trace_writer *w;
	struct sb_trace_info info;
	struct sb_trace_record r = rec(0, 0, 0, 1, SB_ACC_FLUSH);
	struct sb_trace_reader *rd;
	struct sb_replay_config cfg;
	struct sb_replay_result res;
	struct sb_device *dev;
	char path[300];

	sb_trace_info_init(&info, "csv", 1e9, "cycle");
	cr_assert_eq(sb_trace_info_subpart(&info, "mem", SB_SUBPART_SCRATCHPAD, 1, 1), 0);
	cr_assert_eq(
	    sb_trace_writer_open(&w, SB_TRACE_SBT, tmp_path(path, sizeof(path), "f.sbt"), &info),
	    0);
	cr_assert_eq(sb_trace_write(w, &info, &r, 1), 0);
	cr_assert_eq(sb_trace_writer_close(w), 0);
	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	cr_assert_eq(sb_trace_open(&rd, SB_TRACE_SBT, path, NULL), 0);
	sb_replay_config_init(&cfg);
	cr_expect_eq(sb_replay_run(dev, rd, &cfg, NULL, &res), SB_ERR_PARSE);
	cr_expect(strstr(sb_error_detail(), "none of its 1 records"), "%s", sb_error_detail());
	sb_trace_reader_free(rd);
	sb_device_close(dev);
}
