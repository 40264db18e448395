/* SPDX-License-Identifier: MIT */
/*
 * Trace capture on an HBM2 card (docs/traces-on-the-board.md, "HBM2 cards"): the
 * hbm_trace_record decoder as a pure function, and HBM2 points captured on the simulated U280
 * through the device API (sb_hbm_point_capture) — the record count against the burst / gap
 * settings and the board's own counters, the pseudo channels as subpartitions where the ports'
 * targets put them, addresses within the working sets, sizes, units, latencies, and a complete
 * capture that holds every burst.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "capture_support.h"
#include "sb_regmap.h"
#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/hbm.h"

TestSuite(hbm_capture, .init = tmp_make, .fini = tmp_clean);

#define PC_BYTES (256ull << 20)

static void hbm_record(uint32_t w[8], uint64_t cycle, uint64_t addr, unsigned write, unsigned beats,
                       unsigned id, unsigned port, unsigned resp, uint32_t lat, uint32_t sample,
                       uint32_t seq)
{
	memset(w, 0, 8 * sizeof(*w));
	w[0] = (uint32_t)cycle;
	w[1] = (uint32_t)(cycle >> 32);
	w[2] = (uint32_t)addr;
	w[3] = (uint32_t)(addr >> 32) | write << 2 | beats << 4 | id << 9 | port << 16 | resp << 24;
	w[4] = lat;
	w[5] = sample;
	w[6] = seq;
	w[7] = w[0] ^ w[2] ^ w[3] ^ w[4] ^ 0x53544B42u;
}

Test(hbm_capture, decodes_every_field_of_a_record)
{
	struct sb_capture_rec r;
	uint32_t w[8];

	hbm_record(w, 0x123456789ull, 0x1F0000040ull, 1, 16, 63, 31, 3, 77, 5, 9);
	cr_assert_eq(sb_capture_decode_hbm(w, &r), 0, "%s", sb_error_detail());
	cr_expect_eq(r.cycle, 0x123456789ull);
	cr_expect_eq(r.addr, 0x1F0000040ull);
	cr_expect_eq(r.write, 1);
	cr_expect_eq(r.flits, 16);
	cr_expect_eq(r.bytes, 512);
	cr_expect_eq(r.tag, 63);
	cr_expect_eq(r.port, 31);
	cr_expect_eq(r.errstat, 3);
	cr_expect_eq(r.latency, 77);
	cr_expect_eq(r.sample_id, 5);
	cr_expect_eq(r.seq, 9);
	hbm_record(w, 10, 0x40, 0, 1, 0, 0, 0, 50, 0, 0);
	cr_assert_eq(sb_capture_decode_hbm(w, &r), 0);
	cr_expect_eq(r.bytes, 32);
}

Test(hbm_capture, refuses_bad_records)
{
	struct sb_capture_rec r;
	uint32_t w[8];

	hbm_record(w, 10, 0x40, 0, 4, 0, 0, 0, 50, 0, 0);
	w[2] ^= 0x100; /* overwritten after the check word */
	cr_expect_eq(sb_capture_decode_hbm(w, &r), SB_ERR_PARSE);
	hbm_record(w, 10, 0x40, 0, 0, 0, 0, 0, 50, 0, 0);
	cr_expect_eq(sb_capture_decode_hbm(w, &r), SB_ERR_PARSE);
	hbm_record(w, 10, 0x40, 0, 17, 0, 0, 0, 50, 0, 0);
	cr_expect_eq(sb_capture_decode_hbm(w, &r), SB_ERR_PARSE);
}

/* Capture one point of the simulated U280 into name; the trace comes back in l. */
static void capture_point(const struct sb_hbm_spec *s, const struct sb_capture_config *cfg,
                          const char *name, struct sb_capture_stats *st, struct sb_hbm_result *r,
                          struct loaded *l)
{
	struct sb_capture *cap;
	struct sb_device *dev;
	char path[600];

	tmp_path(path, sizeof(path), name);
	cr_assert_eq(sb_device_open(&dev, "sim:u280"), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_capture_open(&cap, dev, cfg, path), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_hbm_point_capture(dev, s, cap, r), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_capture_close(cap, st), 0, "%s", sb_error_detail());
	sb_device_close(dev);
	load_trace(path, SB_TRACE_SBT, l);
}

/* Port p's records: in PC pc, within [base, base + ws), sized as the bursts, with latency. */
static void check_port_records(const struct loaded *l, unsigned port, unsigned pc, uint64_t base,
                               uint64_t ws, uint32_t size, size_t *count)
{
	*count = 0;
	for (size_t i = 0; i < l->n; i++) {
		const struct sb_trace_record *t = &l->r[i];

		if (t->unit != port)
			continue;
		(*count)++;
		cr_assert_eq(t->subpart, pc, "port %u record %zu in subpartition %u, not pc%u",
		             port, i, t->subpart, pc);
		cr_assert(t->addr >= base && t->addr + t->size <= base + ws,
		          "port %u record %zu at 0x%llx outside [0x%llx, +0x%llx)", port, i,
		          (unsigned long long)t->addr, (unsigned long long)base,
		          (unsigned long long)ws);
		cr_assert_eq(t->size, size);
		cr_assert_eq(t->kind, SB_ACC_READ);
		cr_assert_geq(t->latency, 40, "a read's latency of %u cycles", t->latency);
	}
}

Test(hbm_capture, sampled_local_ports_land_in_their_own_pcs)
{
	struct sb_capture_config cfg;
	struct sb_capture_stats st;
	struct sb_hbm_result *r = malloc(sizeof(*r));
	struct sb_hbm_spec s;
	struct loaded l;
	size_t per_port[4], full = 0, sum = 0;
	uint64_t executed = 0;

	cr_assert_not_null(r);
	sb_hbm_spec_init(&s);
	s.port_mask = 0x0F; /* ports 0..3, 512 B linear reads of their own PCs */
	s.duration_ns = 200000;
	sb_capture_config_init(&cfg);
	cfg.port_mask = 0x0F;
	capture_point(&s, &cfg, "local.sbt", &st, r, &l);

	/* the count: every burst of the capture but the last holds burst_records */
	cr_assert_eq(st.records, l.n);
	cr_assert_eq(st.dropped + st.corrupt + st.late, 0);
	cr_assert_geq(st.bursts, 4);
	cr_assert_eq(l.info.capture.bursts, st.bursts);
	cr_assert_eq(l.info.capture.sampled, 1);
	for (size_t i = 0; i < l.n; i++)
		full += l.r[i].sample < st.bursts - 1;
	cr_expect_eq(full, (st.bursts - 1) * SB_CAPTURE_DEFAULT_BURST,
	             "%zu records in the %llu full bursts", full,
	             (unsigned long long)(st.bursts - 1));
	cr_assert_leq(l.n - full, SB_CAPTURE_DEFAULT_BURST);
	/* executed: the four ports' bursts, as the point counted them (txns of 512 B = one
	 * burst each) over its window plus warm-up and drain */
	for (unsigned k = 0; k < r->nports; k++)
		executed += r->port[k].txns;
	cr_assert_eq(l.info.capture.executed, st.executed);
	cr_assert_gt(st.executed, executed, "executed %llu, the window's %llu",
	             (unsigned long long)st.executed, (unsigned long long)executed);
	cr_assert_lt(st.executed, executed * 13 / 10);
	cr_assert_lt(st.records, st.executed);
	/* 32 subpartitions, pc0..pc31; each port in its own PC, within it */
	cr_assert_eq(l.info.nsubparts, 32);
	cr_assert_str_eq(l.info.subparts[0].name, "pc0");
	cr_assert_str_eq(l.info.subparts[31].name, "pc31");
	cr_assert_str_eq(sb_trace_info_attr(&l.info, "capture.subpartitions"), "pc");
	cr_assert_str_eq(sb_trace_info_attr(&l.info, "hbm.pcs"), "32");
	for (unsigned p = 0; p < 4; p++) {
		check_port_records(&l, p, p, p * PC_BYTES, PC_BYTES, 512, &per_port[p]);
		cr_expect_gt(per_port[p], l.n / 5, "port %u: %zu of %zu records", p, per_port[p],
		             l.n);
		sum += per_port[p];
	}
	cr_assert_eq(sum, l.n, "records of ports outside the point");
	for (size_t i = 1; i < l.n; i++)
		cr_assert_geq(l.r[i].time, l.r[i - 1].time);
	free(l.r);
	free(r);
}

Test(hbm_capture, switched_ports_land_in_their_targets_pcs)
{
	struct sb_capture_config cfg;
	struct sb_capture_stats st;
	struct sb_hbm_result *r = malloc(sizeof(*r));
	struct sb_hbm_spec s;
	struct loaded l;
	size_t n0, n17;

	cr_assert_not_null(r);
	sb_hbm_spec_init(&s);
	s.port_mask = 1u << 0 | 1u << 17; /* port 17: stack 1, PC 17 + 4 = 21 */
	s.target.kind = SB_HBM_TARGET_SHIFT;
	s.target.shift = 4;
	s.random = true;
	s.burst = 64;
	s.ws = 1 << 20;
	s.duration_ns = 50000;
	sb_capture_config_init(&cfg);
	capture_point(&s, &cfg, "shift.sbt", &st, r, &l);
	cr_assert_eq(st.port_mask, UINT32_MAX, "the capture records every port");
	check_port_records(&l, 0, 4, 4 * PC_BYTES, 1 << 20, 64, &n0);
	check_port_records(&l, 17, 21, 21 * PC_BYTES, 1 << 20, 64, &n17);
	cr_assert_gt(n0, 100);
	cr_assert_gt(n17, 100);
	cr_assert_eq(n0 + n17, l.n);
	free(l.r);
	free(r);
}

Test(hbm_capture, a_complete_capture_holds_every_burst)
{
	struct sb_capture_config cfg;
	struct sb_capture_stats st;
	struct sb_hbm_result *r = malloc(sizeof(*r));
	struct sb_hbm_spec s;
	struct loaded l;
	size_t writes = 0;

	cr_assert_not_null(r);
	sb_hbm_spec_init(&s);
	s.port_mask = 1u << 5;
	s.rw = SB_HBM_RW_MIX;
	s.burst = 1024; /* two AXI bursts of 512 B per transaction */
	s.ws = 64 << 10;
	s.duration_ns = 20000;
	s.warmup_ns = 2000;
	sb_capture_config_init(&cfg);
	cfg.burst_records = 0;
	cfg.gap_cycles = 0;
	capture_point(&s, &cfg, "all.sbt", &st, r, &l);
	cr_assert_eq(st.path, SB_CAPTURE_ONCHIP, "the card has no DMA ring");
	cr_assert_eq(st.records, st.executed, "%llu records of %llu bursts",
	             (unsigned long long)st.records, (unsigned long long)st.executed);
	cr_assert_eq(l.info.capture.sampled, 0);
	cr_assert_eq(l.n, st.records);
	cr_assert_gt(l.n, 500);
	for (size_t i = 0; i < l.n; i++) {
		cr_assert_eq(l.r[i].subpart, 5);
		cr_assert_eq(l.r[i].size, 512);
		cr_assert_eq(l.r[i].addr % 512, 0);
		cr_assert(l.r[i].addr >= 5 * PC_BYTES && l.r[i].addr < 5 * PC_BYTES + (64 << 10));
		writes += l.r[i].kind == SB_ACC_WRITE;
	}
	/* mix: 128 of every 256 transactions write */
	cr_assert(writes * 100 >= l.n * 45 && writes * 100 <= l.n * 55, "%zu writes of %zu", writes,
	          l.n);
	free(l.r);
	free(r);
}

Test(hbm_capture, refuses_bank_subpartitions)
{
	struct sb_capture_config cfg;
	struct sb_capture *cap;
	struct sb_device *dev;
	char path[600];

	sb_capture_config_init(&cfg);
	cfg.banks = true;
	cr_assert_eq(sb_device_open(&dev, "sim:u280"), 0);
	cr_assert_eq(sb_capture_open(&cap, dev, &cfg, tmp_path(path, sizeof(path), "b.sbt")),
	             SB_ERR_INVAL);
	cr_assert_not_null(strstr(sb_error_detail(), "pseudo channels"));
	sb_device_close(dev);
}
