/* SPDX-License-Identifier: MIT */
/*
 * The replay's DMA ring goes through the device API only (sb_device_replay_dma_*), so that a
 * transport whose DMA registers are not host code's to write (dev:, the kernel module) can
 * serve it. Here the simulated board sits behind a transport with the module's rules: register
 * writes to the trace and replay DMA registers are refused, the transport's own operations
 * program them, and the two DMA buffers have purposes. A whole replay, captured by DMA at the
 * same time, runs through it and measures what the plain sim: transport measures. And a
 * transport without DMA buffers (pci:) still refuses the replay.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_transport.h"
#include "sb_regmap.h"
#include "stackbench/capture.h"
#include "stackbench/device.h"
#include "stackbench/error.h"
#include "stackbench/replay.h"
#include "stackbench/trace.h"
#include "stackbench/transport.h"
#include "stackbench/util.h"

/* What the guarded transport saw. */
static struct {
	uint32_t words[6]; /* register words only the transport's operations write */
	unsigned nwords;
	unsigned refused, replay_allocs, setups, submits, trace_setups;
	uint32_t tail;
} g;

static bool guarded(uint32_t offset)
{
	for (unsigned i = 0; i < g.nwords; i++)
		if (offset == g.words[i])
			return true;
	return false;
}

static int guarded_write32(void *priv, uint32_t offset, uint32_t value)
{
	if (guarded(offset)) {
		g.refused++;
		return sb_error_set(SB_ERR_PERM, "register 0x%x is the driver's", offset);
	}
	return sb_transport_sim.write32(priv, offset, value);
}

/* The transport's own register writes, as the module makes them. */
static int own_write64(void *priv, uint32_t offset, uint64_t value)
{
	int err = sb_transport_sim.write32(priv, offset, (uint32_t)value);

	return err < 0 ? err : sb_transport_sim.write32(priv, offset + 4, (uint32_t)(value >> 32));
}

static int guarded_replay_alloc(void *priv, size_t len, struct sb_dma_buf *buf)
{
	g.replay_allocs++;
	return sb_transport_sim.dma_alloc(priv, len, buf);
}

static int guarded_replay_setup(void *priv, const struct sb_dma_buf *buf, unsigned ring_log2)
{
	uint32_t r = SB_LAYOUT_REPLAY_OFFSET;
	int err;

	g.setups++;
	if ((err = sb_transport_sim.write32(priv, r + SB_REPLAY_CONTROL, 0)) < 0 ||
	    (err = own_write64(priv, r + SB_REPLAY_RING_ADDR, buf->bus)) < 0 ||
	    (err = sb_transport_sim.write32(priv, r + SB_REPLAY_RING_LOG2, ring_log2)) < 0)
		return err;
	return sb_transport_sim.write32(priv, r + SB_REPLAY_CONTROL, SB_REPLAY_CONTROL_RESET_MASK);
}

static int guarded_replay_submit(void *priv, struct sb_dma_buf *buf, uint32_t tail)
{
	(void)buf;
	g.submits++;
	g.tail = tail;
	return sb_transport_sim.write32(priv, SB_LAYOUT_REPLAY_OFFSET + SB_REPLAY_TAIL, tail);
}

static int guarded_trace_setup(void *priv, const struct sb_dma_buf *buf)
{
	uint32_t t = SB_LAYOUT_TRACE_OFFSET;
	int err;

	g.trace_setups++;
	if ((err = sb_transport_sim.write32(priv, t + SB_TRACE_CONTROL, 0)) < 0 ||
	    (err = own_write64(priv, t + SB_TRACE_BUF_ADDR, buf->bus)) < 0 ||
	    (err = sb_transport_sim.write32(
	         priv, t + SB_TRACE_BUF_SIZE,
	         (uint32_t)(buf->len / SB_TRACE_RECORD_BYTES * SB_TRACE_RECORD_BYTES))) < 0)
		return err;
	return sb_transport_sim.write32(priv, t + SB_TRACE_CONTROL, SB_TRACE_CONTROL_RESET_MASK);
}

/* The sim: board behind the module's rules. */
static struct sb_device *open_guarded(void)
{
	static struct sb_transport_ops ops;
	static const uint32_t words[] = {
	    SB_LAYOUT_TRACE_OFFSET + SB_TRACE_BUF_ADDR_LO,
	    SB_LAYOUT_TRACE_OFFSET + SB_TRACE_BUF_ADDR_HI,
	    SB_LAYOUT_TRACE_OFFSET + SB_TRACE_BUF_SIZE,
	    SB_LAYOUT_REPLAY_OFFSET + SB_REPLAY_RING_ADDR_LO,
	    SB_LAYOUT_REPLAY_OFFSET + SB_REPLAY_RING_ADDR_HI,
	    SB_LAYOUT_REPLAY_OFFSET + SB_REPLAY_RING_LOG2,
	};
	struct sb_device *dev;
	struct sb_uri uri;
	uint32_t off = 0;
	void *priv;

	memset(&g, 0, sizeof(g));
	memcpy(g.words, words, sizeof(words));
	g.nwords = SB_ARRAY_SIZE(words);
	ops = sb_transport_sim;
	ops.name = "guarded";
	ops.write32 = guarded_write32;
	ops.replay_dma_alloc = guarded_replay_alloc;
	ops.replay_dma_setup = guarded_replay_setup;
	ops.replay_dma_submit = guarded_replay_submit;
	ops.trace_dma_setup = guarded_trace_setup;
	cr_assert_eq(sb_uri_parse("sim:", &uri), 0);
	cr_assert_eq(sb_transport_sim.open(&uri, &priv), 0, "%s", sb_error_detail());
	cr_assert_eq(sb_device_open_transport(&dev, &ops, priv, "guarded:"), 0, "%s",
	             sb_error_detail());
	/* The layout the guard assumes is the board's. */
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_REPLAY_TYPE, 0, &off), 0);
	cr_assert_eq(off, SB_LAYOUT_REPLAY_OFFSET);
	cr_assert_eq(sb_device_find_block(dev, SB_BLK_TRACE_TYPE, 0, &off), 0);
	cr_assert_eq(off, SB_LAYOUT_TRACE_OFFSET);
	return dev;
}

/* An sbt trace of n 32-byte requests spread over vaults and ports, every fourth a write. */
static void make_trace(const char *path, unsigned n)
{
	struct sb_trace_record *recs = calloc(n, sizeof(*recs));
	struct sb_trace_writer *w;
	struct sb_trace_info info;

	cr_assert_not_null(recs);
	sb_trace_info_init(&info, "csv", 187.5e6, "cycle");
	cr_assert_eq(sb_trace_info_subpart(&info, "mem", SB_SUBPART_SCRATCHPAD, 1, 32), 0);
	for (unsigned i = 0; i < n; i++) {
		recs[i].time = 3 * (int64_t)i;
		recs[i].addr = (uint64_t)i * 4096 + (i % 16) * 128;
		recs[i].size = 32;
		recs[i].kind = i % 4 == 3 ? SB_ACC_WRITE : SB_ACC_READ;
	}
	cr_assert_eq(sb_trace_writer_open(&w, SB_TRACE_SBT, path, &info), 0, "%s",
	             sb_error_detail());
	cr_assert_eq(sb_trace_write(w, &info, recs, n), 0);
	cr_assert_eq(sb_trace_writer_close(w), 0);
	free(recs);
}

static void replay(struct sb_device *dev, const char *in, const char *out,
                   struct sb_replay_result *res, struct sb_capture_stats *cst)
{
	struct sb_replay_config cfg;
	struct sb_capture_config cc;
	struct sb_capture *cap = NULL;
	struct sb_trace_reader *r;

	sb_replay_config_init(&cfg);
	cfg.ring_log2 = 6; /* 64 entries: refilled many times */
	cr_assert_eq(sb_trace_open(&r, SB_TRACE_SBT, in, NULL), 0, "%s", sb_error_detail());
	if (out) {
		sb_capture_config_init(&cc);
		cc.burst_records = 0;
		cc.gap_cycles = 0;
		cc.path = SB_CAPTURE_DMA;
		cr_assert_eq(sb_capture_open(&cap, dev, &cc, out), 0, "%s", sb_error_detail());
	}
	cr_assert_eq(sb_replay_run(dev, r, &cfg, cap, res), 0, "%s", sb_error_detail());
	if (cap)
		cr_assert_eq(sb_capture_close(cap, cst), 0, "%s", sb_error_detail());
	sb_trace_reader_free(r);
}

static char *tmp(char *buf, size_t size, const char *name)
{
	snprintf(buf, size, "/tmp/sb-replaydma-%ld-%s", (long)getpid(), name);
	return buf;
}

Test(replay_dma, a_replay_captured_by_dma_never_writes_the_dma_registers)
{
	struct sb_replay_result plain, res;
	struct sb_capture_stats cst;
	struct sb_device *dev;
	char in[128], out[128];
	const unsigned n = 2000;

	make_trace(tmp(in, sizeof(in), "in.sbt"), n);
	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	replay(dev, in, NULL, &plain, NULL);
	sb_device_close(dev);

	dev = open_guarded();
	replay(dev, in, tmp(out, sizeof(out), "out.sbt"), &res, &cst);
	cr_expect_eq(g.refused, 0, "%u register writes refused", g.refused);
	cr_expect_eq(g.replay_allocs, 1);
	cr_expect_eq(g.setups, 1);
	cr_expect_eq(g.trace_setups, 1);
	/* 2000 descriptors through a 64-entry ring: submitted as the board fetched them. */
	cr_expect_geq(g.submits, n / 64, "%u submissions", g.submits);
	cr_expect_eq(g.tail, n);
	cr_expect_eq(res.requests, n);
	cr_expect_eq(res.issued, plain.issued);
	cr_expect_eq(res.reads, plain.reads);
	cr_expect_eq(res.writes, plain.writes);
	cr_expect_eq(res.writes, n / 4);
	cr_expect_eq(res.completed, n);
	cr_expect_eq(res.duration_cycles, plain.duration_cycles);
	/* The capture of the replay, by DMA beside the descriptor ring, holds every request. */
	cr_expect_eq(cst.path, SB_CAPTURE_DMA);
	cr_expect_eq(cst.records, n, "%llu records", (unsigned long long)cst.records);
	cr_expect_eq(cst.executed, n);
	cr_expect_eq(cst.dropped + cst.corrupt + cst.late, 0);
	sb_device_close(dev);
	unlink(in);
	unlink(out);
}

Test(replay_dma, the_guard_refuses_what_the_old_host_code_wrote)
{
	struct sb_device *dev = open_guarded();

	/* What replay.c did before the ring became the device's: refused by the module. */
	cr_expect_eq(sb_device_write64(dev, SB_LAYOUT_REPLAY_OFFSET + SB_REPLAY_RING_ADDR, 0x1000),
	             SB_ERR_PERM);
	cr_expect_eq(sb_device_write32(dev, SB_LAYOUT_REPLAY_OFFSET + SB_REPLAY_RING_LOG2, 12),
	             SB_ERR_PERM);
	cr_expect_eq(g.refused, 2);
	sb_device_close(dev);
}

Test(replay_dma, a_transport_without_dma_buffers_refuses_the_replay)
{
	struct fake *f = fake_new(SB_REGMAP_SIZE);
	struct sb_device *dev;
	struct sb_dma_buf buf;

	fake_fill_regmap(f, 9);
	cr_assert_eq(sb_device_open_transport(&dev, &fake_transport_ops, f, "fake:"), 0, "%s",
	             sb_error_detail());
	cr_expect_eq(sb_device_replay_dma_alloc(dev, 4096, &buf), SB_ERR_NOT_SUPPORTED);
	cr_expect(strstr(sb_error_detail(), "transport has no DMA buffers"), "%s",
	          sb_error_detail());
	cr_expect_null(buf.host);
	sb_device_close(dev);
	fake_free(f);
}

Test(replay_dma, the_ring_must_fit_its_buffer)
{
	struct sb_device *dev;
	struct sb_dma_buf buf;

	cr_assert_eq(sb_device_open(&dev, "sim:"), 0);
	cr_assert_eq(sb_device_replay_dma_alloc(dev, 1024, &buf), 0, "%s", sb_error_detail());
	cr_expect_eq(sb_device_replay_dma_setup(dev, &buf, 7), SB_ERR_RANGE);
	cr_expect(strstr(sb_error_detail(), "a replay ring of 2^7 descriptors in a 1024-byte "
	                                    "buffer"),
	          "%s", sb_error_detail());
	cr_expect_eq(sb_device_replay_dma_setup(dev, &buf, 32), SB_ERR_RANGE);
	cr_expect_eq(sb_device_replay_dma_setup(dev, &buf, 6), 0, "%s", sb_error_detail());
	sb_device_dma_free(dev, &buf);
	sb_device_close(dev);
}
