/* SPDX-License-Identifier: MIT */
/*
 * Trace replay on the HBM2 board model (block hbm_replay): descriptors written through the
 * registers, the FIFO and the lanes, issue on the ports' masters into the same memory system
 * (latencies equal to the port engines' no-load figures), timed issue, the counters, overflow,
 * refused descriptors, reset, and trace capture of the replayed bursts.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "hbm_bench.h"
#include "stackbench/error.h"

#define RP SB_REGSPACE_HBM2_HBM_REPLAY_OFFSET
#define TR SB_REGSPACE_HBM2_TRACE_OFFSET
#define CYC_PS (1000000000000.0 / 450e6) /* U280 AXI clock */

struct req_log {
	unsigned n;
	struct sb_hbm_model_request q[2048];
};

static void logger(void *ctx, const struct sb_hbm_model_request *q)
{
	struct req_log *l = ctx;

	if (l->n < 2048)
		l->q[l->n++] = *q;
}

static uint64_t cycles_of(uint64_t ps)
{
	return (uint64_t)((double)ps / CYC_PS + 0.5);
}

static void push(struct sb_hbm_model *m, uint64_t time, uint64_t addr, unsigned beats, bool write,
                 unsigned port)
{
	hbm_w32(m, RP + SB_HBM_REPLAY_DESC_W0, (uint32_t)time);
	hbm_w32(m, RP + SB_HBM_REPLAY_DESC_W1, (uint32_t)(time >> 32));
	hbm_w32(m, RP + SB_HBM_REPLAY_DESC_W2, (uint32_t)addr);
	hbm_w32(m, RP + SB_HBM_REPLAY_DESC_W3,
	        SB_FIELD_PREP(SB_HBM_REPLAY_DESC_ADDR_HI, (uint32_t)(addr >> 32)) |
	            SB_FIELD_PREP(SB_HBM_REPLAY_DESC_WRITE, write) |
	            SB_FIELD_PREP(SB_HBM_REPLAY_DESC_BEATS, beats) |
	            SB_FIELD_PREP(SB_HBM_REPLAY_DESC_PORT, port));
}

static void start(struct sb_hbm_model *m, bool timed)
{
	hbm_w32(m, RP + SB_HBM_REPLAY_CONTROL,
	        SB_HBM_REPLAY_CONTROL_ENABLE_MASK | (timed ? SB_HBM_REPLAY_CONTROL_TIMED_MASK : 0));
}

static void advance_us(struct sb_hbm_model *m, uint64_t us)
{
	cr_assert_eq(sb_hbm_model_advance(m, us * 1000000ull), 0);
}

static uint32_t status(struct sb_hbm_model *m)
{
	return hbm_r32(m, RP + SB_HBM_REPLAY_STATUS);
}

Test(hbm_replay, the_block_sits_in_the_chain_with_its_reset_values)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);

	cr_assert_eq(hbm_r32(m, TR + SB_BLK_NEXT), RP, "the trace block links to the replay");
	cr_assert_eq(hbm_r32(m, RP + SB_BLK_TYPE), SB_BLK_HBM_REPLAY_TYPE);
	cr_assert_eq(hbm_r32(m, RP + SB_BLK_VERSION), SB_BLK_HBM_REPLAY_VERSION);
	cr_assert_eq(hbm_r32(m, RP + SB_BLK_NEXT), hbm_port_off(0));
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_FIFO_DEPTH), 512);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_LANE_DEPTH), 4);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_PORT_MASK), 0xFFFFFFFFu);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_LAT_MIN), 0xFFFFFFFFu);
	cr_assert_eq(status(m), SB_HBM_REPLAY_STATUS_IDLE_MASK);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_DESC_W3), 0, "write-only");
	sb_hbm_model_free(m);
}

/* 24 reads of 1..16 beats on port 0, 16 writes of 4 beats on port 3: the counters exact. */
Test(hbm_replay, untimed_bursts_are_issued_and_counted_exactly)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	static struct req_log log;
	uint64_t rd_bytes = 0, wr_bytes = 0, a0 = 0, a3 = 3ull << 28;
	unsigned n0 = 0, n3 = 0;

	log.n = 0;
	sb_hbm_model_set_request_hook(m, logger, &log);
	for (unsigned i = 0; i < 24; i++) {
		unsigned beats = i % 16 + 1;

		push(m, 0, a0 + i * 1024ull, beats, false, 0);
		rd_bytes += beats * 32u;
	}
	for (unsigned i = 0; i < 16; i++) {
		push(m, 0, a3 + i * 128ull, 4, true, 3);
		wr_bytes += 128;
	}
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_FIFO_COUNT), 40, "nothing goes before enable");
	cr_assert(status(m) & SB_HBM_REPLAY_STATUS_BUSY_MASK);
	advance_us(m, 5);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED), 0);
	start(m, false);
	advance_us(m, 20);
	cr_assert_eq(status(m), SB_HBM_REPLAY_STATUS_IDLE_MASK);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PUSHED), 40);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED), 40);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_COMPLETED), 40);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_READS), 24);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_WRITES), 16);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_BYTES), rd_bytes + wr_bytes);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PORT_BURSTS(0)), 24);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PORT_BURSTS(3)), 16);
	for (unsigned p = 0; p < 32; p++)
		if (p != 0 && p != 3)
			cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PORT_BURSTS(p)), 0, "port %u",
			             p);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_BAD), 0);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_ERRORS), 0);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_OVERFLOWS), 0);
	/* the bursts reached the memory system as written, in FIFO order per port */
	cr_assert_eq(log.n, 40);
	for (unsigned i = 0; i < log.n; i++) {
		const struct sb_hbm_model_request *q = &log.q[i];

		if (q->port == 0) {
			cr_assert_eq(q->addr, a0 + n0 * 1024ull);
			cr_assert_eq(q->beats, n0 % 16 + 1);
			cr_assert(!q->write);
			n0++;
		} else {
			cr_assert_eq(q->port, 3);
			cr_assert_eq(q->addr, a3 + n3 * 128ull);
			cr_assert(q->write);
			n3++;
		}
	}
	/* the ports' own counters are the engines': the replay does not touch them */
	cr_assert_eq(hbm_r64(m, hbm_port_off(0) + SB_HBM_PORT_RD_BURSTS), 0);
	{
		uint64_t s = hbm_r64(m, RP + SB_HBM_REPLAY_START_CYCLE),
		         e = hbm_r64(m, RP + SB_HBM_REPLAY_END_CYCLE), last = 0;

		for (unsigned i = 0; i < log.n; i++)
			if (cycles_of(log.q[i].done_ps) > last)
				last = cycles_of(log.q[i].done_ps);
		cr_assert_eq(e, last, "end_cycle %llu, last completion %llu", (unsigned long long)e,
		             (unsigned long long)last);
		cr_assert_gt(e, s);
	}
	sb_hbm_model_free(m);
}

/*
 * One read at a time, far apart (timed): the first opens the row (closed page), the second hits
 * it, the third goes to the next row of the same bank (a miss). Each latency is the model's
 * no-load figure: the hit equals what port 0's own engine sees for 1-outstanding 32 B reads.
 */
Test(hbm_replay, latencies_are_the_memory_systems_no_load_figures)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	static struct req_log log;
	uint32_t lat[3], b = hbm_port_off(0), engine_min;

	log.n = 0;
	sb_hbm_model_set_request_hook(m, logger, &log);
	push(m, 0, 0x1000, 1, false, 0);
	push(m, 300, 0x1000, 1, false, 0);
	push(m, 600, 0x1000 + (1u << 14), 1, false, 0);
	start(m, true);
	advance_us(m, 2);
	cr_assert_eq(log.n, 3);
	for (unsigned i = 0; i < 3; i++)
		lat[i] = (uint32_t)cycles_of(log.q[i].first_ps - log.q[i].time_ps);
	cr_assert_eq(log.q[0].page, SB_HBM_PAGE_CLOSED);
	cr_assert_eq(log.q[1].page, SB_HBM_PAGE_HIT);
	cr_assert_eq(log.q[2].page, SB_HBM_PAGE_MISS);
	cr_assert_lt(lat[1], lat[0]);
	cr_assert_lt(lat[0], lat[2]);
	cr_assert(lat[1] >= 46 && lat[1] <= 50, "hit %u cycles (test_hbm_figures: about 48)",
	          lat[1]);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_LAT_MIN), lat[1]);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_LAT_MAX), lat[2]);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_LAT_SUM), lat[0] + lat[1] + lat[2]);
	cr_log_info("replayed no-load reads: closed %u, hit %u, miss %u cycles", lat[0], lat[1],
	            lat[2]);
	/* port 0's own engine on the same (open) row: its smallest latency is the replay's hit */
	hbm_w32(m, b + SB_HBM_PORT_START_ADDR_LO, 0x1000);
	hbm_w32(m, b + SB_HBM_PORT_BURST_BYTES, 32);
	hbm_w32(m, b + SB_HBM_PORT_STRIDE, 0);
	hbm_w32(m, b + SB_HBM_PORT_OUTSTANDING, 1);
	hbm_w32(m, b + SB_HBM_PORT_RUN_LEN_LO, 50);
	hbm_w32(m, b + SB_HBM_PORT_CONTROL,
	        SB_HBM_PORT_CONTROL_ENABLE_MASK | SB_HBM_PORT_CONTROL_START_MASK);
	advance_us(m, 20);
	engine_min = hbm_r32(m, b + SB_HBM_PORT_RD_LAT_MIN);
	cr_assert_eq(engine_min, lat[1], "engine %u, replay %u", engine_min, lat[1]);
	sb_hbm_model_free(m);
}

/* Timed: no burst before start_cycle + its time; a prefilled FIFO keeps the lag small. */
Test(hbm_replay, timed_bursts_wait_for_their_due_time_and_lag_little)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	static struct req_log log;
	uint64_t s, lag_sum, issued;
	uint32_t lag_max;

	log.n = 0;
	sb_hbm_model_set_request_hook(m, logger, &log);
	for (unsigned i = 0; i < 200; i++)
		push(m, 10 + 40ull * i, (1ull << 28) + i * 64ull, 2, i % 3 == 0, 1);
	advance_us(m, 1);
	start(m, true);
	for (unsigned k = 0; k < 40; k++)
		advance_us(m, 1);
	cr_assert_eq(status(m), SB_HBM_REPLAY_STATUS_IDLE_MASK);
	s = hbm_r64(m, RP + SB_HBM_REPLAY_START_CYCLE);
	cr_assert_gt(s, 400, "start_cycle is the card's cycle when enable was set");
	issued = hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED);
	cr_assert_eq(issued, 200);
	cr_assert_eq(log.n, 200);
	for (unsigned i = 0; i < log.n; i++) {
		uint64_t due = s + 10 + 40ull * i, at = cycles_of(log.q[i].time_ps);

		cr_assert_geq(at, due, "burst %u at cycle %llu, due %llu", i,
		              (unsigned long long)at, (unsigned long long)due);
		cr_assert_leq(at, due + 2, "burst %u late", i);
	}
	lag_sum = hbm_r64(m, RP + SB_HBM_REPLAY_LAG_SUM);
	lag_max = hbm_r32(m, RP + SB_HBM_REPLAY_LAG_MAX);
	cr_log_info("timed replay: lag sum %llu, max %u cycles", (unsigned long long)lag_sum,
	            lag_max);
	cr_assert_leq(lag_max, 2);
	cr_assert_leq(lag_sum, 2 * issued);
	sb_hbm_model_free(m);
}

/* A full lane holds the FIFO's head: a later descriptor for another port waits behind it. */
Test(hbm_replay, a_full_lane_holds_the_fifo_head)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);

	for (unsigned i = 0; i < 5; i++)
		push(m, 4500, i * 32ull, 1, false, 0); /* due at 10 us */
	push(m, 0, 1ull << 28, 1, false, 1);           /* due at once, behind the fifth */
	start(m, true);
	advance_us(m, 5);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED), 0);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_FIFO_COUNT), 2, "four went to lane 0");
	advance_us(m, 10);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED), 6);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PORT_BURSTS(1)), 1);
	cr_assert_geq(hbm_r32(m, RP + SB_HBM_REPLAY_LAG_MAX), 4500 - 50, "port 1's was late");
	sb_hbm_model_free(m);
}

Test(hbm_replay, a_full_fifo_drops_and_counts)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);

	for (unsigned i = 0; i < 515; i++)
		push(m, 0, i * 32ull, 1, false, 0);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_FIFO_COUNT), 512);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_OVERFLOWS), 3);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PUSHED), 512);
	cr_assert(status(m) & SB_HBM_REPLAY_STATUS_OVERFLOW_MASK);
	start(m, false);
	advance_us(m, 20);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_COMPLETED), 512);
	cr_assert(status(m) & SB_HBM_REPLAY_STATUS_IDLE_MASK);
	cr_assert(status(m) & SB_HBM_REPLAY_STATUS_OVERFLOW_MASK, "sticky");
	sb_hbm_model_free(m);
}

/* Skipped: a port outside port_mask, one the card does not have, one whose engine runs, and
 * more than 16 beats. */
Test(hbm_replay, refused_descriptors_are_skipped_and_counted)
{
	const char *opts[] = {"ports=8", NULL};
	struct sb_hbm_model *m = hbm_bench_new("u280", opts);
	uint32_t b2 = hbm_port_off(2);

	hbm_w32(m, b2 + SB_HBM_PORT_RUN_LEN_LO, 0); /* 0: runs until stopped */
	hbm_w32(m, b2 + SB_HBM_PORT_CONTROL,
	        SB_HBM_PORT_CONTROL_ENABLE_MASK | SB_HBM_PORT_CONTROL_START_MASK);
	hbm_w32(m, RP + SB_HBM_REPLAY_PORT_MASK, 0x0D); /* ports 0, 2, 3 */
	push(m, 0, 0x40, 1, false, 0);
	push(m, 0, 0x40, 1, false, 1);      /* not in port_mask */
	push(m, 0, 0x40, 1, false, 9);      /* not on the card */
	push(m, 0, 0x40, 1, false, 2);      /* its own engine runs */
	push(m, 0, 0x40, 17, false, 3);     /* 17 beats */
	push(m, 0, 0xFE0, 2, false, 3);     /* 0xFE0..0x101F: crosses 4 KiB */
	push(m, 0, 0xFC0, 2, false, 3);     /* 0xFC0..0xFFF: ends at it */
	push(m, 0, 3ull << 28, 0, true, 3); /* 0 beats: one */
	start(m, false);
	advance_us(m, 2);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_BAD), 5);
	cr_assert(status(m) & SB_HBM_REPLAY_STATUS_BAD_DESC_MASK);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED), 3);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_BYTES), 128);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PORT_BURSTS(2)), 0);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PORT_BURSTS(3)), 2);
	sb_hbm_model_free(m);
}

Test(hbm_replay, reset_clears_the_fifo_counters_and_status)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);

	push(m, 0, 0x40, 2, false, 0);
	push(m, 0, 0x40, 2, false, 99);
	start(m, false);
	advance_us(m, 2);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_COMPLETED), 1);
	hbm_w32(m, RP + SB_HBM_REPLAY_CONTROL, 0);
	for (unsigned i = 0; i < 10; i++)
		push(m, 0, 0x40, 2, false, 0);
	hbm_w32(m, RP + SB_HBM_REPLAY_CONTROL, SB_HBM_REPLAY_CONTROL_RESET_MASK);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_CONTROL), 0, "reset is a pulse");
	cr_assert_eq(status(m), SB_HBM_REPLAY_STATUS_IDLE_MASK);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_FIFO_COUNT), 0);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PUSHED), 0);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED), 0);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_COMPLETED), 0);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_BYTES), 0);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_LAT_SUM), 0);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_LAT_MIN), 0xFFFFFFFFu);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_LAT_MAX), 0);
	cr_assert_eq(hbm_r32(m, RP + SB_HBM_REPLAY_BAD), 0);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_PORT_BURSTS(0)), 0);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_END_CYCLE), 0);
	sb_hbm_model_free(m);
}

/* Trace capture records replayed bursts as the ports' own: port, address, beats, latency. */
Test(hbm_replay, trace_capture_records_the_replayed_bursts)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	uint32_t rec[SB_HBM_TRACE_RECORD_WORDS];

	hbm_w32(m, TR + SB_TRACE_PORT_MASK, 0xFFFFFFFFu);
	hbm_w32(m, TR + SB_TRACE_BURST_LEN, 0);
	hbm_w32(m, TR + SB_TRACE_CONTROL, SB_TRACE_CONTROL_ENABLE_MASK);
	for (unsigned i = 0; i < 10; i++)
		push(m, 0, (5ull << 28) + i * 512ull, 16, i & 1, 5);
	start(m, false);
	advance_us(m, 5);
	cr_assert_eq(hbm_r32(m, TR + SB_TRACE_ONCHIP_COUNT), 10);
	for (unsigned i = 0; i < 10; i++) {
		for (unsigned w = 0; w < SB_HBM_TRACE_RECORD_WORDS; w++)
			rec[w] = hbm_r32(m, TR + SB_TRACE_RD_DATA);
		cr_assert_eq(rec[SB_HBM_TRACE_RECORD_ADDR_LO_WORD], (5u << 28) + i * 512u);
		cr_assert_eq(SB_FIELD_GET(SB_HBM_TRACE_RECORD_PORT, rec[3]), 5);
		cr_assert_eq(SB_FIELD_GET(SB_HBM_TRACE_RECORD_BEATS, rec[3]), 16);
		cr_assert_eq(SB_FIELD_GET(SB_HBM_TRACE_RECORD_WRITE, rec[3]), i & 1);
		cr_assert_eq(SB_FIELD_GET(SB_HBM_TRACE_RECORD_ID, rec[3]), i, "AXI IDs in turn");
		cr_assert_geq(rec[SB_HBM_TRACE_RECORD_LATENCY_WORD],
		              hbm_r32(m, RP + SB_HBM_REPLAY_LAT_MIN));
	}
	sb_hbm_model_free(m);
}

/* Enable cleared holds the lanes and the FIFO; set again, they go on from then, none earlier. */
Test(hbm_replay, enable_cleared_holds_and_set_again_goes_on)
{
	struct sb_hbm_model *m = hbm_bench_new(NULL, NULL);
	static struct req_log log;
	uint64_t n1, t_on;

	log.n = 0;
	sb_hbm_model_set_request_hook(m, logger, &log);
	for (unsigned i = 0; i < 500; i++)
		push(m, 0, i * 512ull, 16, false, 0);
	start(m, false);
	cr_assert_eq(sb_hbm_model_advance(m, 100000), 0); /* 100 ns */
	hbm_w32(m, RP + SB_HBM_REPLAY_CONTROL, 0);
	n1 = hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED);
	cr_assert(n1 > 0 && n1 < 500, "%llu issued in 100 ns", (unsigned long long)n1);
	advance_us(m, 5);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_ISSUED), n1, "nothing while enable is clear");
	cr_assert(status(m) & SB_HBM_REPLAY_STATUS_BUSY_MASK);
	t_on = sb_hbm_model_now_ps(m);
	start(m, false);
	advance_us(m, 50);
	cr_assert_eq(hbm_r64(m, RP + SB_HBM_REPLAY_COMPLETED), 500);
	cr_assert_eq(log.n, 500);
	for (unsigned i = (unsigned)n1; i < log.n; i++) {
		cr_assert_geq(log.q[i].time_ps, t_on - 2223, "burst %u before enable", i);
		cr_assert_eq(log.q[i].addr, i * 512ull, "FIFO order");
	}
	cr_assert_leq(hbm_r32(m, RP + SB_HBM_REPLAY_LAG_MAX), 600,
	              "the lanes' wait while enable was clear is not lag");
	sb_hbm_model_free(m);
}
