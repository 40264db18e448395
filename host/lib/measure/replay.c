/* SPDX-License-Identifier: MIT */
/*
 * Trace replay through the device API (stackbench/replay.h): records become descriptors
 * (sb_replay_builder, pure), descriptors go into a host ring the board's replay block fetches
 * by DMA, and the host keeps the ring filled on the bench clock while the board issues them.
 * The ring is the device's (sb_device_replay_dma_*): on dev: the kernel module's replay buffer,
 * whose address only the module programs.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/gups.h"
#include "stackbench/log.h"
#include "stackbench/replay.h"

#define ADDR_BITS 34
#define WINDOW 128u      /* bytes: a request never crosses an aligned 128-byte block */
#define MAX_RECORD 4096u /* bytes of one record replayed (larger ones are cut) */
#define READ_BATCH 4096  /* records read from the trace at a time */

void sb_replay_config_init(struct sb_replay_config *c)
{
	memset(c, 0, sizeof(*c));
	c->speed = 1;
}

const char *sb_replay_select_name(enum sb_replay_select s)
{
	switch (s) {
	case SB_REPLAY_SELECT_ALL:
		return "all";
	case SB_REPLAY_SELECT_DRAM:
		return "dram";
	default:
		return "auto";
	}
}

int sb_replay_select_parse(const char *s, enum sb_replay_select *out)
{
	if (!strcmp(s, "auto"))
		*out = SB_REPLAY_SELECT_AUTO;
	else if (!strcmp(s, "all"))
		*out = SB_REPLAY_SELECT_ALL;
	else if (!strcmp(s, "dram"))
		*out = SB_REPLAY_SELECT_DRAM;
	else
		return sb_error_set(SB_ERR_INVAL, "record selection '%s': auto, all or dram", s);
	return 0;
}

void sb_replay_desc_encode(const struct sb_replay_desc *d, uint32_t w[4])
{
	w[SB_REPLAY_DESC_TIME_LO_WORD] = (uint32_t)d->time;
	w[SB_REPLAY_DESC_TIME_HI_WORD] = (uint32_t)(d->time >> 32);
	w[SB_REPLAY_DESC_ADDR_LO_WORD] = (uint32_t)d->addr;
	w[SB_REPLAY_DESC_ADDR_HI_WORD] =
	    ((uint32_t)(d->addr >> 32) << SB_REPLAY_DESC_ADDR_HI_SHIFT &
	     SB_REPLAY_DESC_ADDR_HI_MASK) |
	    ((uint32_t)d->write << SB_REPLAY_DESC_WRITE_SHIFT & SB_REPLAY_DESC_WRITE_MASK) |
	    ((uint32_t)d->flits << SB_REPLAY_DESC_FLITS_SHIFT & SB_REPLAY_DESC_FLITS_MASK) |
	    ((uint32_t)d->port << SB_REPLAY_DESC_PORT_SHIFT & SB_REPLAY_DESC_PORT_MASK);
}

double sb_replay_density(const struct sb_trace_info *info)
{
	const struct sb_trace_capture *c = &info->capture;
	uint64_t kept;

	if (!c->sampled || !c->executed || c->lost_records > c->captured)
		return 1;
	kept = c->captured - c->lost_records;
	return kept >= c->executed ? 1 : (double)kept / (double)c->executed;
}

/* ---- records to descriptors ---------------------------------------------------------------- */

int sb_replay_builder_init(struct sb_replay_builder *b, const struct sb_trace_info *info,
                           enum sb_replay_select select, bool coalesce, double clock_hz,
                           double speed, double r, uint32_t port_mask)
{
	memset(b, 0, sizeof(*b));
	if (select == SB_REPLAY_SELECT_AUTO)
		select = !strncmp(info->source, "scalesim", 8) ? SB_REPLAY_SELECT_DRAM
		                                               : SB_REPLAY_SELECT_ALL;
	b->select = select;
	b->coalesce = coalesce;
	b->port_mask = port_mask & ((1u << 16) - 1); /* a descriptor names ports 0..15 */
	b->use_unit = info->fields & SB_FIELD_UNIT;
	b->only_subpart = -1;
	if (!b->port_mask)
		return sb_error_set(SB_ERR_INVAL, "replay: no port to issue requests on");
	if (!(clock_hz > 0) || !(info->tick_hz > 0) || !(r > 0) || speed < 0)
		return sb_error_set(SB_ERR_INVAL,
		                    "replay: clock %g Hz, trace ticks %g Hz, density %g, speed %g",
		                    clock_hz, info->tick_hz, r, speed);
	b->cycles_per_tick = speed > 0 ? clock_hz / info->tick_hz * r / speed : 0;
	return 0;
}

static unsigned pick_port(struct sb_replay_builder *b, uint32_t unit)
{
	if (b->use_unit && unit < 16 && (b->port_mask >> unit & 1))
		return unit;
	for (unsigned i = 0; i < 16; i++) {
		unsigned p = (b->next_port + i) % 16;

		if (b->port_mask >> p & 1) {
			b->next_port = p + 1;
			return p;
		}
	}
	return 0;
}

static size_t flush(struct sb_replay_builder *b, struct sb_replay_desc *out)
{
	uint64_t lo, hi;

	if (!b->have_pend)
		return 0;
	b->have_pend = false;
	lo = b->pend.lo & ~15ull;
	hi = (b->pend.hi + 15) & ~15ull;
	out->time =
	    b->pend.time > 0 ? (uint64_t)llround((double)b->pend.time * b->cycles_per_tick) : 0;
	out->addr = lo;
	out->write = b->pend.write;
	out->flits = (uint8_t)((hi - lo) / 16);
	out->port = (uint8_t)pick_port(b, b->pend.unit);
	return 1;
}

int sb_replay_builder_select(struct sb_replay_builder *b, const struct sb_trace_info *info,
                             const struct sb_trace_record *rec, uint8_t *write)
{
	const struct sb_trace_subpart *sp;

	b->records++;
	if (rec->subpart >= info->nsubparts) {
		b->skipped++;
		return 0;
	}
	sp = &info->subparts[rec->subpart];
	if (b->only[0]) {
		if (b->only_subpart < 0 && !strcmp(sp->name, b->only))
			b->only_subpart = rec->subpart;
		if (rec->subpart != b->only_subpart) {
			b->skipped++;
			return 0;
		}
	}
	switch (rec->kind) {
	case SB_ACC_READ:
		if (b->select == SB_REPLAY_SELECT_DRAM) {
			/* SCALE-Sim: reads of ofmap are its DRAM write-backs; the others are
			 * buffer (SRAM) reads. */
			if (strcmp(sp->name, "ofmap")) {
				b->skipped++;
				return 0;
			}
			*write = 1;
		} else {
			*write = 0;
		}
		return 1;
	case SB_ACC_FETCH:
		*write = 0;
		return 1;
	case SB_ACC_WRITE:
		if (b->select == SB_REPLAY_SELECT_DRAM) {
			b->skipped++; /* an SRAM write of the array's outputs */
			return 0;
		}
		*write = 1;
		return 1;
	default:
		b->skipped++;
		return 0;
	}
}

size_t sb_replay_builder_add(struct sb_replay_builder *b, const struct sb_trace_info *info,
                             const struct sb_trace_record *rec, struct sb_replay_desc *out)
{
	const struct sb_trace_subpart *sp;
	unsigned __int128 a;
	uint64_t addr, end, size;
	int64_t t;
	size_t n = 0;
	uint8_t write;

	if (!sb_replay_builder_select(b, info, rec, &write))
		return 0;
	sp = &info->subparts[rec->subpart];
	if (!b->have_first) {
		b->have_first = true;
		b->first_time = rec->time;
	}
	t = rec->time - b->first_time;
	a = (unsigned __int128)rec->addr * (sp->addr_unit_bytes ? sp->addr_unit_bytes : 1);
	if (a >> ADDR_BITS)
		b->wrapped++;
	addr = (uint64_t)(a & ((1ull << ADDR_BITS) - 1));
	size = rec->size ? rec->size : (sp->block_bytes ? sp->block_bytes : 1);
	if (size > MAX_RECORD)
		size = MAX_RECORD;
	end = addr + size;
	if (end > (1ull << ADDR_BITS))
		end = 1ull << ADDR_BITS;
	while (addr < end) {
		uint64_t win = addr / WINDOW, seg_end = (win + 1) * WINDOW;

		if (seg_end > end)
			seg_end = end;
		if (b->coalesce && b->have_pend && b->pend.time == t && b->pend.write == write &&
		    b->pend.lo / WINDOW == win && (!b->use_unit || b->pend.unit == rec->unit)) {
			if (addr < b->pend.lo)
				b->pend.lo = addr;
			if (seg_end > b->pend.hi)
				b->pend.hi = seg_end;
		} else {
			n += flush(b, out + n);
			b->have_pend = true;
			b->pend.time = t;
			b->pend.lo = addr;
			b->pend.hi = seg_end;
			b->pend.write = write;
			b->pend.unit = rec->unit;
			if (!b->coalesce)
				n += flush(b, out + n);
		}
		addr = seg_end;
	}
	return n;
}

int sb_replay_builder_only(struct sb_replay_builder *b, const char *name)
{
	if (strlen(name) >= sizeof(b->only))
		return sb_error_set(SB_ERR_INVAL, "replay: subpartition name '%s' is too long",
		                    name);
	snprintf(b->only, sizeof(b->only), "%s", name);
	b->only_subpart = -1;
	return 0;
}

size_t sb_replay_builder_finish(struct sb_replay_builder *b, struct sb_replay_desc *out)
{
	return flush(b, out);
}

/* ---- the board ------------------------------------------------------------------------------ */

struct run {
	struct sb_device *dev;
	struct sb_trace_reader *r;
	struct sb_replay_builder b;
	uint32_t blk;
	uint32_t size, mask; /* ring entries */
	struct sb_dma_buf buf;
	uint32_t *ring;
	uint32_t tail, head;
	struct sb_trace_record *recs;
	size_t nrecs, irec;
	struct sb_replay_desc stage[MAX_RECORD / WINDOW + 2];
	size_t nstage, istage;
	bool input_done;
	uint64_t requests, data_flits, last_time;
};

static int rd(struct run *x, uint32_t reg, uint32_t *v)
{
	return sb_device_read32(x->dev, x->blk + reg, v);
}

static int wr(struct run *x, uint32_t reg, uint32_t v)
{
	return sb_device_write32(x->dev, x->blk + reg, v);
}

static int rd64(struct run *x, uint32_t reg, uint64_t *v)
{
	return sb_device_read64(x->dev, x->blk + reg, v);
}

/* The next descriptor of the trace; 0 at its end, 1 with *d set, or a reader error. */
static int next_desc(struct run *x, struct sb_replay_desc *d)
{
	const struct sb_trace_info *info = sb_trace_reader_info(x->r);

	while (x->istage == x->nstage) {
		int n;

		x->istage = x->nstage = 0;
		if (x->input_done)
			return 0;
		if (x->irec == x->nrecs) {
			n = sb_trace_read(x->r, x->recs, READ_BATCH);
			if (n < 0)
				return n;
			x->irec = 0;
			x->nrecs = (size_t)n;
			if (!n) {
				x->nstage = sb_replay_builder_finish(&x->b, x->stage);
				x->input_done = true;
				continue;
			}
		}
		x->nstage = sb_replay_builder_add(&x->b, info, &x->recs[x->irec++], x->stage);
	}
	*d = x->stage[x->istage++];
	return 1;
}

/* Write descriptors into the free part of the ring and ring the doorbell. */
static int fill(struct run *x)
{
	uint32_t start = x->tail;
	int err = 0;

	while (x->tail - x->head < x->size) {
		struct sb_replay_desc d;

		if ((err = next_desc(x, &d)) <= 0)
			break;
		sb_replay_desc_encode(&d, &x->ring[(x->tail & x->mask) * SB_REPLAY_DESC_WORDS]);
		x->tail++;
		x->requests++;
		x->data_flits += d.flits;
		x->last_time = d.time;
	}
	if (err < 0)
		return err;
	if (x->tail != start) {
		/* The descriptors are in memory before the board hears of them. */
		__atomic_thread_fence(__ATOMIC_RELEASE);
		return sb_device_replay_dma_submit(x->dev, &x->buf, x->tail);
	}
	return 0;
}

static int read_results(struct run *x, double clock_hz, unsigned nvaults,
                        struct sb_replay_result *res)
{
	double ns = 1e9 / clock_hz;
	uint32_t lat_min, lat_max, lag_max;
	uint64_t lat_sum, lag_sum;
	int err;

	if ((err = rd64(x, SB_REPLAY_ISSUED, &res->issued)) < 0 ||
	    (err = rd64(x, SB_REPLAY_COMPLETED, &res->completed)) < 0 ||
	    (err = rd64(x, SB_REPLAY_READS, &res->reads)) < 0 ||
	    (err = rd64(x, SB_REPLAY_WRITES, &res->writes)) < 0 ||
	    (err = rd64(x, SB_REPLAY_LAT_SUM, &lat_sum)) < 0 ||
	    (err = rd(x, SB_REPLAY_LAT_MIN, &lat_min)) < 0 ||
	    (err = rd(x, SB_REPLAY_LAT_MAX, &lat_max)) < 0 ||
	    (err = rd64(x, SB_REPLAY_LAG_SUM, &lag_sum)) < 0 ||
	    (err = rd(x, SB_REPLAY_LAG_MAX, &lag_max)) < 0 ||
	    (err = rd64(x, SB_REPLAY_START_CYCLE, &res->start_cycle)) < 0 ||
	    (err = rd64(x, SB_REPLAY_END_CYCLE, &res->end_cycle)) < 0)
		return err;
	{
		uint32_t e, b;

		if ((err = rd(x, SB_REPLAY_ERRORS, &e)) < 0 || (err = rd(x, SB_REPLAY_BAD, &b)) < 0)
			return err;
		res->errors = e;
		res->bad = b;
	}
	res->duration_cycles =
	    res->end_cycle > res->start_cycle ? res->end_cycle - res->start_cycle : 0;
	res->duration_ns = (double)res->duration_cycles * ns;
	res->data_flits = 0;
	res->nvaults = nvaults;
	for (unsigned v = 0; v < nvaults; v++) {
		struct sb_replay_vault_result *vr = &res->vault[v];
		uint32_t flits;

		if ((err = rd64(x, SB_REPLAY_VAULT_REQUESTS(v), &vr->requests)) < 0 ||
		    (err = rd64(x, SB_REPLAY_VAULT_LAT_SUM(v), &vr->lat_sum_cycles)) < 0 ||
		    (err = rd64(x, SB_REPLAY_VAULT_LAG_SUM(v), &vr->lag_sum_cycles)) < 0 ||
		    (err = rd(x, SB_REPLAY_VAULT_FLITS(v), &flits)) < 0 ||
		    (err = rd(x, SB_REPLAY_VAULT_LAT_MAX(v), &vr->lat_max_cycles)) < 0)
			return err;
		vr->data_bytes = 16ull * flits;
		res->data_flits += flits;
		if (res->duration_ns > 0) {
			vr->bandwidth_gbps =
			    16.0 * (2.0 * (double)vr->requests + flits) / res->duration_ns;
			vr->occupancy = (double)vr->lat_sum_cycles * ns / res->duration_ns;
		}
		if (vr->requests) {
			vr->latency_avg_ns = (double)vr->lat_sum_cycles / (double)vr->requests * ns;
			vr->lag_avg_ns = (double)vr->lag_sum_cycles / (double)vr->requests * ns;
		}
		vr->latency_max_ns = vr->lat_max_cycles * ns;
	}
	if (res->duration_ns > 0) {
		/* Every request has a one-flit header/tail in each direction (a read's request and
		 * a write's response carry no data). */
		res->bandwidth_gbps =
		    16.0 * (2.0 * (double)res->issued + (double)res->data_flits) / res->duration_ns;
		res->payload_gbps = 16.0 * (double)res->data_flits / res->duration_ns;
		res->mrps = (double)res->issued / res->duration_ns * 1e3;
	}
	if (res->completed) {
		res->latency_avg_ns = (double)lat_sum / (double)res->completed * ns;
		res->latency_min_ns = lat_min * ns;
		res->latency_max_ns = lat_max * ns;
	}
	if (res->issued)
		res->lag_avg_ns = (double)lag_sum / (double)res->issued * ns;
	res->lag_max_ns = lag_max * ns;
	return 0;
}

/* Due time (cycles) of the descriptor the board fetches next. */
static uint64_t head_due(const struct run *x)
{
	const uint32_t *w = &x->ring[(x->head & x->mask) * SB_REPLAY_DESC_WORDS];

	return (uint64_t)w[SB_REPLAY_DESC_TIME_HI_WORD] << 32 | w[SB_REPLAY_DESC_TIME_LO_WORD];
}

static int run_loop(struct run *x, const struct sb_replay_config *cfg, struct sb_capture *cap,
                    uint64_t start_cycle)
{
	uint64_t step = 1000, timeout = cfg->timeout_ns ? cfg->timeout_ns : 1000000000ull;
	uint64_t stalled = 0, last_progress = UINT64_MAX;
	uint32_t board = 0;
	int err;

	if ((err = sb_device_find_block(x->dev, SB_BLK_BOARD_TYPE, 0, &board)) < 0)
		return err;
	for (;;) {
		uint64_t wait = step, issued, completed, progress;
		uint32_t head, status, before = x->head;

		if (cap && sb_capture_poll_interval_ns(cap) < wait)
			wait = sb_capture_poll_interval_ns(cap);
		err = cap ? sb_capture_wait(cap, wait) : sb_device_wait_ns(x->dev, wait);
		if (err < 0 || (cap && (err = sb_capture_poll(cap)) < 0))
			return err;
		if ((err = rd(x, SB_REPLAY_HEAD, &head)) < 0)
			return err;
		if ((uint32_t)(x->tail - head) > x->size)
			return sb_error_set(SB_ERR_DEVICE,
			                    "'%s': replay.head %u is not within the %u "
			                    "descriptors written (tail %u)",
			                    sb_device_uri(x->dev), head, x->size, x->tail);
		x->head = head;
		if ((err = fill(x)) < 0)
			return err;
		/* Wake when about half the ring has gone. */
		if (x->head - before > x->size / 2 && step > 1000)
			step /= 2;
		else if (x->head - before < x->size / 8 && step < 10000000)
			step *= 2;
		if ((err = rd(x, SB_REPLAY_STATUS, &status)) < 0 ||
		    (err = rd64(x, SB_REPLAY_ISSUED, &issued)) < 0 ||
		    (err = rd64(x, SB_REPLAY_COMPLETED, &completed)) < 0)
			return err;
		if (x->input_done && x->istage == x->nstage && x->tail == x->head &&
		    (status & SB_REPLAY_STATUS_IDLE_MASK))
			return 0;
		progress = issued + completed + x->head;
		if (progress != last_progress) {
			last_progress = progress;
			stalled = 0;
			continue;
		}
		if (cfg->speed > 0 && x->head != x->tail) {
			uint64_t now;

			/* Timed: waiting for a descriptor that is not due yet is not a stall. */
			if ((err = sb_device_read64(x->dev, board + SB_BOARD_CYCLES, &now)) < 0)
				return err;
			if (now < start_cycle + head_due(x))
				continue;
		}
		stalled += wait;
		if (stalled >= timeout)
			return sb_error_set(SB_ERR_TIMEOUT,
			                    "'%s': the replay made no progress for %.3f s (%" PRIu64
			                    " issued, %" PRIu64 " completed, %u of %u descriptors "
			                    "fetched)",
			                    sb_device_uri(x->dev), stalled / 1e9, issued, completed,
			                    x->head, x->tail);
	}
}

int sb_replay_run(struct sb_device *dev, struct sb_trace_reader *r,
                  const struct sb_replay_config *cfg, struct sb_capture *cap,
                  struct sb_replay_result *res)
{
	const struct sb_trace_info *info = sb_trace_reader_info(r);
	struct sb_board_info bi;
	struct sb_hmc_status hs;
	struct run *x;
	uint32_t mask, ctl;
	unsigned log2 = cfg->ring_log2 ? cfg->ring_log2 : 16;
	double density;
	int err;

	memset(res, 0, sizeof(*res));
	if (log2 > 24 || log2 < 4)
		return sb_error_set(SB_ERR_INVAL, "replay ring of 2^%u descriptors (2^4..2^24)",
		                    log2);
	if (!(cfg->speed >= 0) || cfg->speed > 1e9)
		return sb_error_set(SB_ERR_INVAL, "replay speed %g", cfg->speed);
	x = calloc(1, sizeof(*x));
	if (!x)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for a replay");
	x->dev = dev;
	x->r = r;
	x->recs = malloc(READ_BATCH * sizeof(*x->recs));
	if (!x->recs) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory for a replay");
		goto fail_alloc;
	}
	if ((err = sb_device_find_block(dev, SB_BLK_REPLAY_TYPE, 0, &x->blk)) < 0) {
		err = sb_error_set(SB_ERR_NOT_FOUND,
		                   "'%s' has no replay block (its design predates "
		                   "trace replay)",
		                   sb_device_uri(dev));
		goto fail_alloc;
	}
	if ((err = sb_board_info(dev, &bi)) < 0 || (err = sb_hmc_status(dev, &hs)) < 0)
		goto fail_alloc;
	if (hs.thermal_fail) {
		err = sb_error_set(SB_ERR_THERMAL,
		                   "'%s': the cube is in thermal failure; recover it "
		                   "first",
		                   sb_device_uri(dev));
		goto fail_alloc;
	}
	mask = (cfg->port_mask ? cfg->port_mask : UINT32_MAX) &
	       (bi.ports >= 16 ? 0xFFFFu : (1u << bi.ports) - 1);
	{
		const char *sub = sb_trace_info_attr(info, "capture.subpartitions");

		if (sub && !strcmp(sub, "pc")) {
			err =
			    sb_error_set(SB_ERR_PARSE,
			                 "'%s' was captured on an HBM2 card (its subpartitions are "
			                 "pseudo channels, its records AXI bursts of its ports): "
			                 "replay it on an HBM2 card (sim:u280), not on the cube",
			                 r->name);
			goto fail_alloc;
		}
	}
	density = cfg->interpolate ? sb_replay_density(info) : 1;
	if (cfg->interpolate && !info->capture.sampled)
		sb_warn("replay --interpolate: '%s' is not a sampled trace; times are kept",
		        r->name);
	if ((err = sb_replay_builder_init(&x->b, info, cfg->select, !cfg->no_coalesce,
	                                  (double)bi.clock_hz, cfg->speed, density, mask)) < 0 ||
	    (cfg->subpart && (err = sb_replay_builder_only(&x->b, cfg->subpart)) < 0))
		goto fail_alloc;
	/* The default ring shrinks to what the device's buffer holds (the module's replay_kib). */
	while ((err = sb_device_replay_dma_alloc(dev, (size_t)SB_REPLAY_DESC_BYTES << log2,
	                                         &x->buf)) == SB_ERR_RANGE &&
	       !cfg->ring_log2 && log2 > 8)
		log2--;
	if (err < 0) {
		sb_error_wrap(err, "replay descriptor ring");
		goto fail_alloc;
	}
	x->size = 1u << log2;
	x->mask = x->size - 1;
	x->ring = x->buf.host;
	res->density = density;
	res->time_scale = x->b.cycles_per_tick;
	res->timed = cfg->speed > 0;
	res->clock_hz = (double)bi.clock_hz;
	res->select = x->b.select;
	/* The ports stop their own traffic; the replay takes their paths. */
	if ((err = sb_hmc_reset_ports(dev)) < 0 ||
	    (err = sb_device_replay_dma_setup(dev, &x->buf, log2)) < 0 ||
	    (err = wr(x, SB_REPLAY_PORT_MASK, mask)) < 0 || (err = fill(x)) < 0)
		goto fail;
	if (cap && (err = sb_capture_start(cap)) < 0)
		goto fail;
	ctl = SB_REPLAY_CONTROL_ENABLE_MASK | (cfg->speed > 0 ? SB_REPLAY_CONTROL_TIMED_MASK : 0);
	if ((err = wr(x, SB_REPLAY_CONTROL, ctl)) < 0)
		goto fail;
	{
		uint64_t start;

		if ((err = rd64(x, SB_REPLAY_START_CYCLE, &start)) < 0 ||
		    (err = run_loop(x, cfg, cap, start)) < 0)
			goto fail;
	}
	if ((err = wr(x, SB_REPLAY_CONTROL, 0)) < 0)
		goto fail;
	if ((err = read_results(x, (double)bi.clock_hz,
	                        bi.vaults < SB_REPLAY_MAX_VAULTS ? bi.vaults : SB_REPLAY_MAX_VAULTS,
	                        res)) < 0)
		goto fail;
	res->records = x->b.records;
	res->skipped = x->b.skipped;
	res->wrapped = x->b.wrapped;
	res->requests = x->requests;
	res->trace_cycles = x->last_time;
	if (!res->requests) {
		err = sb_error_set(SB_ERR_PARSE,
		                   "'%s': none of its %" PRIu64 " records is memory traffic under "
		                   "the '%s' selection%s%s%s",
		                   r->name, res->records, sb_replay_select_name(res->select),
		                   cfg->subpart ? " in subpartition '" : "",
		                   cfg->subpart ? cfg->subpart : "", cfg->subpart ? "'" : "");
		goto fail;
	}
	if (res->wrapped)
		sb_warn("replay: %" PRIu64
		        " addresses of '%s' were beyond the cube's 34 bits (high "
		        "bits dropped)",
		        res->wrapped, r->name);
	if (res->bad)
		sb_warn("replay: the board skipped %" PRIu64
		        " descriptors naming a port it does not "
		        "replay on",
		        res->bad);
	if (cap && (err = sb_capture_stop(cap, res->issued, "replay issued")) < 0)
		goto fail;
	sb_device_dma_free(dev, &x->buf);
	free(x->recs);
	free(x);
	return 0;

fail:
	wr(x, SB_REPLAY_CONTROL, 0);
	sb_device_dma_free(dev, &x->buf);
fail_alloc:
	free(x->recs);
	free(x);
	return err;
}
