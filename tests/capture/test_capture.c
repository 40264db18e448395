/* SPDX-License-Identifier: MIT */
/*
 * Trace capture (stackbench/capture.h): the record decoder and the address mapping as pure
 * functions, and captures on the simulated board — sampling ratio against the burst / gap
 * settings, complete captures against the board's own counters, the on-chip and DMA paths
 * against each other, losses counted (a buffer nobody drains, corrupt records, records that
 * arrive too late), and records that arrive out of order (as the RTL writes them, at
 * completion) written in time order.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "capture_support.h"
#include "sb_regmap.h"
#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/gups.h"
#include "stackbench/pattern.h"
#include "stackbench/point.h"
#include "stackbench/transport.h"
#include "stackbench/uri.h"

TestSuite(capture, .init = tmp_make, .fini = tmp_clean);

/* ---- pure functions ------------------------------------------------------------------------ */

static void make_record(uint32_t w[8], uint64_t cycle, uint64_t addr, unsigned write,
                        unsigned flits, unsigned tag, unsigned port, unsigned errstat,
                        uint32_t latency, uint32_t sample, uint32_t seq)
{
	memset(w, 0, 8 * sizeof(*w));
	w[0] = (uint32_t)cycle;
	w[1] = (uint32_t)(cycle >> 32);
	w[2] = (uint32_t)addr;
	w[3] = (uint32_t)(addr >> 32) | write << 2 | flits << 4 | tag << 8 | port << 16 |
	       errstat << 24;
	w[4] = latency;
	w[5] = sample;
	w[6] = seq;
	w[7] = w[0] ^ w[2] ^ w[3] ^ w[4] ^ 0x53544B42u;
}

Test(capture, decodes_every_field_of_a_record)
{
	struct sb_capture_rec r;
	uint32_t w[8];

	make_record(w, 0x123456789Aull, 0x3ABCDEF80ull, 1, 8, 0x3F, 7, 0x55, 4321, 17, 99);
	cr_assert_eq(sb_capture_decode(w, &r), 0, "%s", sb_error_detail());
	cr_expect_eq(r.cycle, 0x123456789Aull);
	cr_expect_eq(r.addr, 0x3ABCDEF80ull);
	cr_expect_eq(r.write, 1);
	cr_expect_eq(r.flits, 8);
	cr_expect_eq(r.tag, 0x3F);
	cr_expect_eq(r.port, 7);
	cr_expect_eq(r.errstat, 0x55);
	cr_expect_eq(r.latency, 4321);
	cr_expect_eq(r.sample_id, 17);
	cr_expect_eq(r.seq, 99);
}

Test(capture, rejects_a_broken_check_word_and_bad_sizes)
{
	struct sb_capture_rec r;
	uint32_t w[8];

	make_record(w, 5, 0x80, 0, 2, 1, 0, 0, 10, 0, 0);
	w[2] ^= 0x10; /* one address bit flipped after the check was made */
	cr_expect_eq(sb_capture_decode(w, &r), SB_ERR_PARSE);
	cr_expect(strstr(sb_error_detail(), "check word"));
	make_record(w, 5, 0x80, 0, 0, 1, 0, 0, 10, 0, 0);
	cr_expect_eq(sb_capture_decode(w, &r), SB_ERR_PARSE);
	make_record(w, 5, 0x80, 0, 9, 1, 0, 0, 10, 0, 0);
	cr_expect_eq(sb_capture_decode(w, &r), SB_ERR_PARSE);
	memset(w, 0, sizeof(w)); /* an empty slot is not a record */
	cr_expect_eq(sb_capture_decode(w, &r), SB_ERR_PARSE);
}

Test(capture, maps_addresses_to_vaults_and_banks_in_every_mode)
{
	struct sb_geometry g = {16, 16, 128};
	unsigned v, b;

	sb_capture_map(&g, 0, &v, &b);
	cr_expect(v == 0 && b == 0);
	sb_capture_map(&g, 5ull << 7 | 9ull << 11 | 0x7F, &v, &b); /* bits 10:7, 14:11 */
	cr_expect(v == 5 && b == 9, "vault %u bank %u", v, b);
	g.block_bytes = 32; /* bits 8:5 and 12:9 */
	sb_capture_map(&g, 3ull << 5 | 12ull << 9 | 1ull << 33, &v, &b);
	cr_expect(v == 3 && b == 12, "vault %u bank %u", v, b);
	g.block_bytes = 64;
	g.banks_per_vault = 8; /* Gen1: 3 bank bits from 10 */
	sb_capture_map(&g, 15ull << 6 | 7ull << 10 | 1ull << 13, &v, &b);
	cr_expect(v == 15 && b == 7, "vault %u bank %u", v, b);
}

Test(capture, parses_port_lists)
{
	uint32_t m;

	cr_assert_eq(sb_capture_parse_ports("0,2,5-8", &m), 0);
	cr_expect_eq(m, 0x1E5u);
	cr_assert_eq(sb_capture_parse_ports("31", &m), 0);
	cr_expect_eq(m, 0x80000000u);
	cr_expect_eq(sb_capture_parse_ports("", &m), SB_ERR_INVAL);
	cr_expect_eq(sb_capture_parse_ports("3-1", &m), SB_ERR_INVAL);
	cr_expect_eq(sb_capture_parse_ports("32", &m), SB_ERR_INVAL);
	cr_expect_eq(sb_capture_parse_ports("1,,2", &m), SB_ERR_INVAL);
	cr_expect_eq(sb_capture_parse_ports("1x", &m), SB_ERR_INVAL);
	cr_expect(strstr(sb_error_detail(), "'1x'"));
}

/* ---- captures on the simulated board -------------------------------------------------------- */

struct run {
	struct sb_point_result res;
	struct sb_capture_stats st;
	struct loaded tr;
};

static void geometry(struct sb_device *dev, struct sb_geometry *g)
{
	struct sb_board_info b;
	struct sb_hmc_status hs;

	cr_assert_eq(sb_board_info(dev, &b), 0);
	cr_assert_eq(sb_hmc_status(dev, &hs), 0);
	g->vaults = b.vaults;
	g->banks_per_vault = b.banks_per_vault;
	g->block_bytes = hs.addr_mode_bytes;
}

/* A point with a capture into NAME on dev. */
static void capture_point(struct sb_device *dev, const char *pattern, uint64_t us,
                          const struct sb_capture_config *cfg, const char *name, struct run *out)
{
	struct sb_point_spec spec;
	struct sb_geometry g;
	char path[300];

	memset(out, 0, sizeof(*out));
	geometry(dev, &g);
	sb_point_spec_init(&spec, sb_device_port_count(dev));
	spec.duration_ns = us * 1000;
	cr_assert_eq(sb_pattern_masks(pattern, &g, &spec.mask, &spec.antimask), 0);
	cr_assert_eq(sb_capture_open(&spec.capture, dev, cfg, tmp_path(path, sizeof(path), name)),
	             0, "%s", sb_error_detail());
	cr_assert_eq(sb_point_run(dev, &spec, &out->res), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_capture_close(spec.capture, &out->st), 0, "%s", sb_error_detail());
	load_trace(path, SB_TRACE_SBT, &out->tr);
}

static void expect_time_order(const struct loaded *l)
{
	for (size_t i = 1; i < l->n; i++)
		if (l->r[i].time < l->r[i - 1].time)
			cr_assert_fail("record %zu at %lld before record %zu at %lld", i,
			               (long long)l->r[i].time, i - 1, (long long)l->r[i - 1].time);
}

Test(capture, one_vault_point_samples_as_the_burst_and_gap_say)
{
	struct sb_capture_config cfg;
	struct sb_device *dev;
	struct run x;
	const struct sb_trace_capture *c;
	double lambda, expect, r;
	uint64_t executed;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	sb_capture_config_init(&cfg);
	capture_point(dev, "1vault", 2000, &cfg, "one.sbt", &x);
	executed = x.res.total.reads + x.res.total.writes;
	c = &x.tr.info.capture;
	/* Every record is in vault 0 of the 16 vault subpartitions. */
	cr_assert_eq(x.tr.info.nsubparts, 16);
	cr_expect_str_eq(x.tr.info.subparts[0].name, "vault0");
	cr_expect_str_eq(x.tr.info.subparts[15].name, "vault15");
	for (size_t i = 0; i < x.tr.n; i++)
		cr_assert_eq(x.tr.r[i].subpart, 0, "record %zu in subpartition %u", i,
		             x.tr.r[i].subpart);
	expect_time_order(&x.tr);
	/* The description: the board's own count, nothing lost. */
	cr_expect_eq(c->sampled, 1);
	cr_expect_eq(c->burst_records, 1024);
	cr_expect_eq(c->gap_ticks, 15360);
	cr_expect_eq(c->executed, executed);
	cr_expect_eq(c->lost_records, 0);
	cr_expect_eq(c->lost_bursts, 0);
	cr_expect_eq(c->captured, x.tr.n);
	cr_expect_eq(x.st.records, x.tr.n);
	/* A sampled capture on sim: polls the on-chip buffer (automatic path). */
	cr_expect_eq(x.st.path, SB_CAPTURE_ONCHIP);
	/* Whole bursts: each burst of B = 1024 records takes B / lambda cycles at the ports' rate
	 * lambda, then comes a gap of G = 15360 cycles (plus the cycle that ends the burst): over
	 * the point's D cycles, floor(D / P) periods of P = B / lambda + G + 1 and what the rest
	 * of the point holds of one more burst. (B / (B + lambda G) is the density of a long
	 * capture; a 2 ms point has some 20 periods, so the last one counts.) */
	cr_expect_eq(x.tr.n % 1024, 0, "%zu records", x.tr.n);
	cr_expect_eq(c->bursts, x.tr.n / 1024);
	lambda = (double)executed / (2000e-6 * 187.5e6);
	{
		double d = 2000e-6 * 187.5e6, per = 1024.0 / lambda + 15360.0 + 1.0;
		double full = floor(d / per), rest = lambda * (d - full * per);

		expect = (full * 1024.0 + (rest < 1024 ? rest : 1024)) / (double)executed;
	}
	r = (double)x.tr.n / (double)executed;
	cr_expect(fabs(r - expect) / expect < 0.02, "density %.4f, burst/gap settings say %.4f", r,
	          expect);
	/* Sample ids: each burst its own, in order. */
	for (size_t i = 0; i < x.tr.n; i++)
		cr_assert_eq(x.tr.r[i].sample, i / 1024, "record %zu in burst %u", i,
		             x.tr.r[i].sample);
	/* Provenance. */
	cr_expect_str_eq(sb_trace_info_attr(&x.tr.info, "device.uri"), "sim:");
	cr_expect_str_eq(sb_trace_info_attr(&x.tr.info, "capture.gap_cycles"), "15360");
	cr_expect_str_eq(sb_trace_info_attr(&x.tr.info, "capture.ports"), "0-8");
	cr_expect_str_eq(sb_trace_info_attr(&x.tr.info, "hmc.addr_mode"),
	                 "128 B blocks: vault bits 10:7, bank bits 14:11");
	cr_expect_not_null(sb_trace_info_attr(&x.tr.info, "board.regmap_hash"));
	cr_expect_eq(x.tr.info.tick_hz, 187.5e6);
	cr_expect_str_eq(x.tr.info.time_unit, "cycle");
	loaded_free(&x.tr);
	sb_device_close(dev);
}

Test(capture, complete_capture_has_every_request_the_ports_counted)
{
	struct sb_capture_config cfg;
	struct sb_device *dev;
	struct run x;
	uint64_t per_port[9] = {0}, lat_sum = 0, reads = 0;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	sb_capture_config_init(&cfg);
	cfg.burst_records = 0; /* one endless burst */
	cfg.gap_cycles = 0;
	capture_point(dev, "4vault", 300, &cfg, "all.sbt", &x);
	cr_assert_gt(x.tr.n, 10000);
	cr_expect_eq(x.tr.n, x.res.total.reads + x.res.total.writes);
	cr_expect_eq(x.tr.info.capture.sampled, 0);
	cr_expect_eq(x.tr.info.capture.bursts, 1);
	/* Recording without pause outruns register polling: the automatic path is the DMA ring
	 * where the transport has one, as sim: has. */
	cr_expect_eq(x.st.path, SB_CAPTURE_DMA);
	cr_expect_str_eq(sb_trace_info_attr(&x.tr.info, "capture.path"), "dma");
	expect_time_order(&x.tr);
	for (size_t i = 0; i < x.tr.n; i++) {
		const struct sb_trace_record *t = &x.tr.r[i];

		cr_assert_lt(t->subpart, 4, "4vault: vault %u", t->subpart);
		cr_assert_lt(t->unit, 9);
		cr_assert_eq(t->kind, SB_ACC_READ);
		cr_assert_eq(t->size, 128);
		cr_assert_eq(t->addr % 128, 0);
		per_port[t->unit]++;
		lat_sum += t->latency;
		reads++;
	}
	for (unsigned p = 0; p < 9; p++)
		cr_expect_eq(per_port[p], x.res.port[p].reads, "port %u", p);
	/* The records' latencies are what the ports' monitors summed (issue to first beat). */
	cr_expect_eq(reads, x.res.total.lat_count);
	cr_expect_eq(lat_sum, x.res.total.lat_sum_cycles);
	loaded_free(&x.tr);
	sb_device_close(dev);
}

Test(capture, bank_subpartitions_and_a_port_subset)
{
	struct sb_capture_config cfg;
	struct sb_device *dev;
	struct run x;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	sb_capture_config_init(&cfg);
	cfg.banks = true;
	cfg.gap_cycles = 2000;
	cfg.port_mask = 0x0A; /* ports 1 and 3 */
	capture_point(dev, "2bank", 300, &cfg, "bank.sbt", &x);
	cr_assert_eq(x.tr.info.nsubparts, 256);
	cr_expect_str_eq(x.tr.info.subparts[1].name, "vault0.bank1");
	cr_expect_str_eq(x.tr.info.subparts[17].name, "vault1.bank1");
	cr_assert_gt(x.tr.n, 0);
	for (size_t i = 0; i < x.tr.n; i++) {
		cr_assert(x.tr.r[i].subpart <= 1, "2bank: subpartition %u", x.tr.r[i].subpart);
		cr_assert(x.tr.r[i].unit == 1 || x.tr.r[i].unit == 3, "port %u", x.tr.r[i].unit);
	}
	/* executed counts the recorded ports only. */
	cr_expect_eq(x.tr.info.capture.executed, x.res.port[1].reads + x.res.port[3].reads);
	cr_expect_str_eq(sb_trace_info_attr(&x.tr.info, "capture.ports"), "1,3");
	loaded_free(&x.tr);
	sb_device_close(dev);
}

Test(capture, dma_ring_and_onchip_buffer_give_the_same_trace)
{
	struct sb_capture_config cfg;
	struct sb_device *d1, *d2;
	struct run a, b;

	sb_capture_config_init(&cfg);
	cfg.gap_cycles = 3000;
	cr_assert_eq(sb_device_open(&d1, "sim:"), 0);
	cfg.path = SB_CAPTURE_ONCHIP;
	capture_point(d1, "all", 300, &cfg, "onchip.sbt", &a);
	cr_assert_eq(sb_device_open(&d2, "sim:"), 0);
	cfg.path = SB_CAPTURE_DMA;
	cfg.dma_bytes = 64 * 1024;
	capture_point(d2, "all", 300, &cfg, "dma.sbt", &b);
	cr_expect_eq(a.st.path, SB_CAPTURE_ONCHIP);
	cr_expect_eq(b.st.path, SB_CAPTURE_DMA);
	cr_assert_gt(a.tr.n, 1000);
	cr_assert_eq(a.tr.n, b.tr.n);
	for (size_t i = 0; i < a.tr.n; i++)
		cr_assert(!memcmp(&a.tr.r[i], &b.tr.r[i], sizeof(a.tr.r[i])), "record %zu differs",
		          i);
	cr_expect_eq(b.tr.info.capture.lost_records, 0);
	cr_expect_str_eq(sb_trace_info_attr(&b.tr.info, "capture.path"), "dma");
	loaded_free(&a.tr);
	loaded_free(&b.tr);
	sb_device_close(d1);
	sb_device_close(d2);
}

/* Start a capture and the ports, let time pass without draining: the buffer fills. */
Test(capture, records_the_board_dropped_are_counted_never_hidden)
{
	struct sb_capture_config cfg;
	struct sb_capture_stats st;
	struct sb_capture *cap;
	struct sb_device *dev;
	struct loaded l;
	char path[300];
	uint64_t executed = 0;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	sb_capture_config_init(&cfg);
	cfg.burst_records = 0;
	cfg.gap_cycles = 0;
	cfg.path = SB_CAPTURE_ONCHIP;
	cr_assert_eq(sb_capture_open(&cap, dev, &cfg, tmp_path(path, sizeof(path), "full.sbt")), 0);
	cr_assert_eq(sb_hmc_reset_ports(dev), 0);
	for (unsigned p = 0; p < 9; p++) {
		struct sb_port_config pc = {.type = SB_REQ_RO,
		                            .size = 128,
		                            .mask = SB_ADDR_SPACE_MASK,
		                            .seed = p + 1,
		                            .lin_end = SB_ADDR_SPACE_MASK,
		                            .lin_step = 128};

		cr_assert_eq(sb_gups_port_configure(dev, p, &pc), 0, "%s", sb_error_detail());
	}
	cr_assert_eq(sb_capture_start(cap), 0);
	for (unsigned p = 0; p < 9; p++)
		cr_assert_eq(sb_gups_port_start(dev, p), 0);
	cr_assert_eq(sb_device_wait_ns(dev, 50000), 0); /* ~9000 requests, nobody drains */
	for (unsigned p = 0; p < 9; p++)
		cr_assert_eq(sb_gups_port_stop(dev, p), 0);
	cr_assert_eq(sb_gups_wait_idle(dev, 0x1FF, 1000, 10000000), 0);
	for (unsigned p = 0; p < 9; p++) {
		struct sb_port_counters c;

		cr_assert_eq(sb_gups_port_read(dev, p, &c), 0);
		executed += c.reads + c.writes;
	}
	cr_assert_eq(sb_capture_stop(cap, executed, "test"), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_capture_close(cap, &st), 0);
	load_trace(path, SB_TRACE_SBT, &l);
	cr_expect_eq(l.n, 1024, "the on-chip buffer holds 1024 records, got %zu", l.n);
	cr_expect_eq(l.info.capture.captured, executed);
	cr_expect_eq(l.info.capture.lost_records, executed - 1024);
	cr_expect_eq(st.dropped, executed - 1024);
	cr_expect_geq(l.info.capture.lost_bursts, 1);
	cr_expect_eq(l.info.capture.sampled, 1);
	cr_expect_geq(l.info.nwarnings, 1);
	cr_expect(strstr(l.info.warnings[0], "dropped"), "%s", l.info.warnings[0]);
	loaded_free(&l);
	sb_device_close(dev);
}

/*
 * A transport in front of the simulated board that hands the on-chip records over the way the
 * RTL would: not in issue order. It takes what the board holds when the host reads
 * onchip_count, swaps neighbours, holds every 50th record back until the next drain (and, if
 * asked, every 997th for 40 drains: later than the reorder window), and flips a bit in every
 * 500th (corrupt). rd_index / rd_data / rd_release act on its own queue.
 */
struct wrap {
	void *inner;
	uint32_t trace;
	uint32_t *q, *held, *slow;
	unsigned nq, nheld, nslow, slow_age;
	unsigned rd, seen;
	bool late;
	unsigned swapped, delayed, corrupted, too_late;
};

static struct wrap W;

static int w_read32(void *priv, uint32_t off, uint32_t *v)
{
	struct wrap *w = priv;

	if (off == w->trace + SB_TRACE_ONCHIP_COUNT) {
		uint32_t n, k;

		sb_transport_sim.read32(w->inner, off, &n);
		memcpy(w->q + w->nq * 8, w->held, w->nheld * 32);
		w->nq += w->nheld;
		w->nheld = 0;
		if (w->late && ++w->slow_age == 40) {
			memcpy(w->q + w->nq * 8, w->slow, w->nslow * 32);
			w->nq += w->nslow;
			w->too_late += w->nslow;
			w->nslow = 0;
		}
		sb_transport_sim.write32(w->inner, w->trace + SB_TRACE_RD_INDEX, 0);
		for (k = 0; k < n; k++) {
			uint32_t rec[8];

			for (unsigned i = 0; i < 8; i++)
				sb_transport_sim.read32(w->inner, w->trace + SB_TRACE_RD_DATA,
				                        &rec[i]);
			w->seen++;
			if (w->seen % 500 == 0) {
				rec[2] ^= 0x100;
				w->corrupted++;
			}
			if (w->late && w->seen % 997 == 0 && w->nslow < 64) {
				memcpy(w->slow + w->nslow++ * 8, rec, 32);
				if (w->nslow == 1)
					w->slow_age = 0;
			} else if (w->seen % 50 == 0) {
				memcpy(w->held + w->nheld++ * 8, rec, 32);
				w->delayed++;
			} else {
				memcpy(w->q + w->nq++ * 8, rec, 32);
			}
		}
		sb_transport_sim.write32(w->inner, w->trace + SB_TRACE_RD_RELEASE, n);
		for (k = 0; k + 1 < w->nq; k += 2) {
			uint32_t t[8];

			memcpy(t, w->q + k * 8, 32);
			memcpy(w->q + k * 8, w->q + (k + 1) * 8, 32);
			memcpy(w->q + (k + 1) * 8, t, 32);
			w->swapped++;
		}
		*v = w->nq;
		return 0;
	}
	if (off == w->trace + SB_TRACE_RD_DATA) {
		*v = w->rd < w->nq * 8 ? w->q[w->rd] : 0;
		w->rd++;
		return 0;
	}
	return sb_transport_sim.read32(w->inner, off, v);
}

static int w_write32(void *priv, uint32_t off, uint32_t v)
{
	struct wrap *w = priv;

	if (off == w->trace + SB_TRACE_RD_INDEX) {
		w->rd = v;
		return 0;
	}
	if (off == w->trace + SB_TRACE_RD_RELEASE) {
		unsigned n = v < w->nq ? v : w->nq;

		memmove(w->q, w->q + n * 8, (w->nq - n) * 32);
		w->nq -= n;
		w->rd = 0;
		return 0;
	}
	return sb_transport_sim.write32(w->inner, off, v);
}

static void w_close(void *priv)
{
	struct wrap *w = priv;

	sb_transport_sim.close(w->inner);
	free(w->q);
	free(w->held);
	free(w->slow);
}

static uint32_t w_regspace(void *priv)
{
	return sb_transport_sim.regspace_size(((struct wrap *)priv)->inner);
}

static uint64_t w_now(void *priv)
{
	return sb_transport_sim.now_ns(((struct wrap *)priv)->inner);
}

static int w_wait(void *priv, uint64_t ns)
{
	return sb_transport_sim.wait_ns(((struct wrap *)priv)->inner, ns);
}

static const struct sb_transport_ops wrap_ops = {
    .name = "sim-reordering",
    .close = w_close,
    .read32 = w_read32,
    .write32 = w_write32,
    .regspace_size = w_regspace,
    .now_ns = w_now,
    .wait_ns = w_wait,
};

static struct sb_device *open_wrapped(bool late)
{
	struct sb_device *dev;
	struct sb_uri uri;

	memset(&W, 0, sizeof(W));
	W.late = late;
	W.trace = SB_LAYOUT_TRACE_OFFSET;
	W.q = malloc(4096 * 32);
	W.held = malloc(1024 * 32);
	W.slow = malloc(64 * 32);
	cr_assert(W.q && W.held && W.slow);
	cr_assert_eq(sb_uri_parse("sim:", &uri), 0);
	cr_assert_eq(sb_transport_sim.open(&uri, &W.inner), 0);
	cr_assert_eq(sb_device_open_transport(&dev, &wrap_ops, &W, "sim-reordering"), 0, "%s",
	             sb_error_detail());
	return dev;
}

/* A complete capture of a full-rate point of us microseconds through the reordering board. */
static struct sb_device *reordered_point(bool late, uint64_t us, const char *name, struct run *x)
{
	struct sb_capture_config cfg;
	struct sb_device *dev = open_wrapped(late);

	sb_capture_config_init(&cfg);
	cfg.burst_records = 0;
	cfg.gap_cycles = 0;
	capture_point(dev, "all", us, &cfg, name, x);
	return dev;
}

Test(capture, records_out_of_order_are_written_in_time_order)
{
	struct run x;
	struct sb_device *dev = reordered_point(false, 200, "reorder.sbt", &x);

	cr_assert_gt(W.swapped, 1000);
	cr_assert_gt(W.delayed, 100);
	expect_time_order(&x.tr);
	/* Every record but the corrupt ones is in the trace, none twice. */
	cr_expect_eq(x.st.corrupt, W.corrupted);
	cr_expect_eq(x.st.late, 0);
	cr_expect_eq(x.tr.n + W.corrupted, x.res.total.reads);
	cr_expect_eq(x.tr.info.capture.lost_records, W.corrupted);
	cr_expect_eq(x.tr.info.capture.executed, x.res.total.reads);
	loaded_free(&x.tr);
	sb_device_close(dev);
}

Test(capture, records_later_than_the_window_are_lost_not_reordered)
{
	struct run x;
	struct sb_device *dev = reordered_point(true, 400, "late.sbt", &x);

	cr_assert_gt(W.too_late, 0);
	expect_time_order(&x.tr);
	/* Held back 40 drains: most arrive after their time was written (lost, counted); some,
	 * held through the quick drains at the end, still fit the window. Nothing vanishes. */
	cr_expect_gt(x.st.late, 0);
	cr_expect_leq(x.st.late, W.too_late);
	cr_expect_eq(x.tr.n + W.corrupted + x.st.late + W.nslow, x.res.total.reads,
	             "trace %zu, corrupt %u, late %llu, never given %u, reads %llu", x.tr.n,
	             W.corrupted, (unsigned long long)x.st.late, W.nslow,
	             (unsigned long long)x.res.total.reads);
	cr_expect_eq(x.tr.info.capture.lost_records, W.corrupted + x.st.late);
	cr_expect_geq(x.tr.info.nwarnings, 1);
	loaded_free(&x.tr);
	sb_device_close(dev);
}

Test(capture, refuses_what_it_cannot_do)
{
	struct sb_capture_config cfg;
	struct sb_capture *cap;
	struct sb_device *dev;
	struct sb_point_spec spec;
	struct sb_point_result res;
	char path[300];

	cr_assert_eq(sb_device_open(&dev, "sim:?ports=4"), 0);
	sb_capture_config_init(&cfg);
	cfg.port_mask = 0x30; /* ports 4 and 5: the board has 4 */
	cr_expect_eq(sb_capture_open(&cap, dev, &cfg, tmp_path(path, sizeof(path), "x.sbt")),
	             SB_ERR_INVAL);
	cr_expect(strstr(sb_error_detail(), "none of its 4 ports"), "%s", sb_error_detail());
	cfg.port_mask = 0;
	cr_assert_eq(sb_capture_open(&cap, dev, &cfg, path), 0);
	sb_point_spec_init(&spec, 4);
	spec.stream = 4;
	spec.capture = cap;
	cr_expect_eq(sb_point_run(dev, &spec, &res), SB_ERR_INVAL);
	cr_expect_eq(sb_capture_poll(cap), SB_ERR_STATE);
	sb_capture_abort(cap);
	cr_expect_eq(access(path, F_OK), -1, "an aborted capture leaves no file");
	sb_device_close(dev);
}
