/* SPDX-License-Identifier: MIT */
/*
 * Trace replay on an HBM2 card (stackbench/hbm_replay.h): records to burst descriptors, and the
 * host side of the hbm_replay block — descriptors written through desc_w0..desc_w3 into the
 * card's FIFO (no DMA on the card), the FIFO kept filled on the bench clock, the counters read
 * at the end. Register reads and writes on blocks found by the walk only, so the same code
 * drives the simulated card and a card's BAR.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sb_regmap.h"
#include "stackbench/error.h"
#include "stackbench/hbm.h"
#include "stackbench/hbm_replay.h"
#include "stackbench/log.h"

#define BEAT 32u
#define MAX_BEATS 16u
#define ADDR_BITS 34
#define TIME_BITS 48
#define READ_BATCH 4096

void sb_hbm_replay_desc_encode(const struct sb_hbm_replay_desc *d, uint32_t w[4])
{
	w[SB_HBM_REPLAY_DESC_TIME_LO_WORD] = (uint32_t)d->time;
	w[SB_HBM_REPLAY_DESC_TIME_HI_WORD] = (uint32_t)(d->time >> 32)
	                                         << SB_HBM_REPLAY_DESC_TIME_HI_SHIFT &
	                                     SB_HBM_REPLAY_DESC_TIME_HI_MASK;
	w[SB_HBM_REPLAY_DESC_ADDR_LO_WORD] = (uint32_t)d->addr;
	w[SB_HBM_REPLAY_DESC_ADDR_HI_WORD] =
	    ((uint32_t)(d->addr >> 32) << SB_HBM_REPLAY_DESC_ADDR_HI_SHIFT &
	     SB_HBM_REPLAY_DESC_ADDR_HI_MASK) |
	    ((uint32_t)d->write << SB_HBM_REPLAY_DESC_WRITE_SHIFT & SB_HBM_REPLAY_DESC_WRITE_MASK) |
	    ((uint32_t)d->beats << SB_HBM_REPLAY_DESC_BEATS_SHIFT & SB_HBM_REPLAY_DESC_BEATS_MASK) |
	    ((uint32_t)d->port << SB_HBM_REPLAY_DESC_PORT_SHIFT & SB_HBM_REPLAY_DESC_PORT_MASK);
}

/* ---- records to descriptors ---------------------------------------------------------------- */

int sb_hbm_replay_map_init(struct sb_hbm_replay_map *m, const struct sb_trace_reader *r,
                           const struct sb_replay_config *cfg, double clock_hz, unsigned ports,
                           double density)
{
	const struct sb_trace_info *info = sb_trace_reader_info(r);
	const char *sub = sb_trace_info_attr(info, "capture.subpartitions");
	uint32_t all = ports >= 32 ? UINT32_MAX : (1u << ports) - 1;
	int err;

	memset(m, 0, sizeof(*m));
	if (sub && (!strcmp(sub, "vault") || !strcmp(sub, "bank")))
		return sb_error_set(SB_ERR_PARSE,
		                    "'%s' was captured on an HMC board (its subpartitions are the "
		                    "cube's %ss, its ports and addresses the cube's): replay it on "
		                    "an AC-510 (sim: or its dev:), not on an HBM2 card",
		                    r->name, sub);
	m->hbm_trace = sub && !strcmp(sub, "pc");
	m->ports = ports;
	m->port_mask = (cfg->port_mask ? cfg->port_mask : UINT32_MAX) & all;
	m->use_unit = info->fields & SB_FIELD_UNIT;
	if (!m->port_mask)
		return sb_error_set(SB_ERR_INVAL,
		                    "replay: none of the ports asked for is on the card (%u ports)",
		                    ports);
	/* the builder gives the selection and the time scale; port 0 stands for the mask */
	if ((err = sb_replay_builder_init(&m->b, info, cfg->select, false, clock_hz, cfg->speed,
	                                  density, 1)) < 0 ||
	    (cfg->subpart && (err = sb_replay_builder_only(&m->b, cfg->subpart)) < 0))
		return err;
	return 0;
}

static unsigned pick_port(struct sb_hbm_replay_map *m, uint32_t unit)
{
	if (m->use_unit && unit < 32 && (m->port_mask >> unit & 1))
		return unit;
	for (unsigned i = 0; i < 32; i++) {
		unsigned p = (m->next_port + i) % 32;

		if (m->port_mask >> p & 1) {
			m->next_port = p + 1;
			return p;
		}
	}
	return 0;
}

int sb_hbm_replay_map_add(struct sb_hbm_replay_map *m, const struct sb_trace_reader *r,
                          const struct sb_trace_record *rec, struct sb_hbm_replay_desc *d)
{
	const struct sb_trace_info *info = sb_trace_reader_info(r);
	const struct sb_trace_subpart *sp;
	unsigned __int128 a;
	uint64_t size, addr, n = ++m->index;
	double t;
	uint8_t write;

	if (!sb_replay_builder_select(&m->b, info, rec, &write))
		return 0;
	sp = &info->subparts[rec->subpart];
	if (m->hbm_trace && m->use_unit && rec->unit >= m->ports)
		return sb_error_set(SB_ERR_PARSE,
		                    "'%s': record %" PRIu64 " was issued by port %" PRIu32
		                    ", which this card does not have (%u ports)",
		                    r->name, n, rec->unit, m->ports);
	a = (unsigned __int128)rec->addr * (sp->addr_unit_bytes ? sp->addr_unit_bytes : 1);
	size = rec->size ? rec->size : (sp->block_bytes ? sp->block_bytes : BEAT);
	if (a >> ADDR_BITS)
		return sb_error_set(SB_ERR_PARSE,
		                    "'%s': record %" PRIu64 " addresses byte 0x%llx, beyond the "
		                    "card's 34-bit AXI addresses",
		                    r->name, n, (unsigned long long)a);
	addr = (uint64_t)a;
	if (addr % BEAT || size % BEAT || size > MAX_BEATS * BEAT ||
	    addr / 4096 != (addr + size - 1) / 4096)
		return sb_error_set(
		    SB_ERR_PARSE,
		    "'%s': record %" PRIu64 " is %" PRIu64 " bytes at 0x%" PRIx64
		    ": an HBM2 replay issues each record as one AXI3 burst of 1..16 "
		    "beats of 32 bytes, 32-byte aligned, within a 4 KiB page",
		    r->name, n, size, addr);
	if (!m->b.have_first) {
		m->b.have_first = true;
		m->b.first_time = rec->time;
	}
	t = (double)(rec->time - m->b.first_time) * m->b.cycles_per_tick;
	if (t >= (double)(1ull << TIME_BITS))
		return sb_error_set(SB_ERR_PARSE,
		                    "'%s': record %" PRIu64 " is due %.0f AXI cycles after the "
		                    "first, beyond the descriptor's 48 bits (a faster --speed "
		                    "shortens it)",
		                    r->name, n, t);
	d->time = t > 0 ? (uint64_t)llround(t) : 0;
	d->addr = addr;
	d->beats = (uint8_t)(size / BEAT);
	d->write = write;
	d->port = (uint8_t)pick_port(m, rec->unit);
	m->port_requests[d->port]++;
	return 1;
}

static int card_clock(struct sb_device *dev, struct sb_hbm_card *card)
{
	int err = sb_hbm_card_read(dev, card);

	if (err == SB_ERR_NOT_FOUND)
		return sb_error_set(SB_ERR_NOT_FOUND, "'%s' is not an HBM2 card",
		                    sb_device_uri(dev));
	if (err < 0)
		return err;
	if (!card->axi_clock_hz || !card->ports || card->ports > SB_HBM_REPLAY_MAX_PORTS)
		return sb_error_set(SB_ERR_DEVICE, "'%s': hbm_card says %u ports at %" PRIu64 " Hz",
		                    sb_device_uri(dev), card->ports, card->axi_clock_hz);
	return 0;
}

static double density_of(const struct sb_trace_reader *r, const struct sb_replay_config *cfg)
{
	const struct sb_trace_info *info = sb_trace_reader_info(r);

	if (cfg->interpolate && !info->capture.sampled)
		sb_warn("replay --interpolate: '%s' is not a sampled trace; times are kept",
		        r->name);
	return cfg->interpolate ? sb_replay_density(info) : 1;
}

int sb_hbm_replay_check(struct sb_device *dev, struct sb_trace_reader *r,
                        const struct sb_replay_config *cfg, uint64_t *descriptors)
{
	struct sb_hbm_replay_map *m;
	struct sb_trace_record *recs;
	struct sb_hbm_card card;
	int err, n;

	*descriptors = 0;
	if ((err = card_clock(dev, &card)) < 0)
		return err;
	m = malloc(sizeof(*m));
	recs = malloc(READ_BATCH * sizeof(*recs));
	if (!m || !recs) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory for a replay");
		goto out;
	}
	if ((err = sb_hbm_replay_map_init(
	         m, r, cfg, (double)card.axi_clock_hz, card.ports,
	         cfg->interpolate ? sb_replay_density(sb_trace_reader_info(r)) : 1)) < 0)
		goto out;
	while ((n = sb_trace_read(r, recs, READ_BATCH)) > 0) {
		for (int i = 0; i < n; i++) {
			struct sb_hbm_replay_desc d;

			if ((err = sb_hbm_replay_map_add(m, r, &recs[i], &d)) < 0)
				goto out;
			*descriptors += (uint64_t)err;
		}
	}
	err = n < 0 ? n : 0;
	if (!err && !*descriptors)
		err = sb_error_set(SB_ERR_PARSE,
		                   "'%s': none of its %" PRIu64 " records is memory traffic under "
		                   "the '%s' selection",
		                   r->name, m->b.records, sb_replay_select_name(m->b.select));
out:
	free(recs);
	free(m);
	return err;
}

/* ---- the card ------------------------------------------------------------------------------ */

struct run {
	struct sb_device *dev;
	struct sb_trace_reader *r;
	struct sb_hbm_replay_map map;
	uint32_t blk, depth;
	struct sb_trace_record *recs;
	size_t nrecs, irec;
	struct sb_hbm_replay_desc pend;
	bool have_pend, input_done;
	uint64_t requests, last_due;
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

/* The next descriptor into x->pend; 0 at the trace's end, 1, or an error. */
static int next_desc(struct run *x)
{
	while (!x->have_pend && !x->input_done) {
		int n;

		if (x->irec == x->nrecs) {
			n = sb_trace_read(x->r, x->recs, READ_BATCH);
			if (n < 0)
				return n;
			x->irec = 0;
			x->nrecs = (size_t)n;
			if (!n) {
				x->input_done = true;
				break;
			}
		}
		n = sb_hbm_replay_map_add(&x->map, x->r, &x->recs[x->irec++], &x->pend);
		if (n < 0)
			return n;
		x->have_pend = n > 0;
	}
	return x->have_pend;
}

/* Write descriptors into the free part of the FIFO; *fifo is its count before. */
static int fill(struct run *x, uint32_t *fifo)
{
	uint32_t count, w[4];
	int err;

	if ((err = rd(x, SB_HBM_REPLAY_FIFO_COUNT, &count)) < 0)
		return err;
	if (count > x->depth)
		return sb_error_set(SB_ERR_DEVICE, "'%s': hbm_replay.fifo_count %u of %u",
		                    sb_device_uri(x->dev), count, x->depth);
	*fifo = count;
	for (; count < x->depth; count++) {
		if ((err = next_desc(x)) <= 0)
			return err;
		sb_hbm_replay_desc_encode(&x->pend, w);
		/* desc_w3 last: writing it appends the descriptor */
		if ((err = wr(x, SB_HBM_REPLAY_DESC_W0, w[0])) < 0 ||
		    (err = wr(x, SB_HBM_REPLAY_DESC_W1, w[1])) < 0 ||
		    (err = wr(x, SB_HBM_REPLAY_DESC_W2, w[2])) < 0 ||
		    (err = wr(x, SB_HBM_REPLAY_DESC_W3, w[3])) < 0)
			return err;
		x->have_pend = false;
		x->requests++;
		x->last_due = x->pend.time;
	}
	return 0;
}

static int run_loop(struct run *x, const struct sb_replay_config *cfg, struct sb_capture *cap,
                    uint32_t card_blk, uint64_t start_cycle)
{
	uint64_t step = 1000, timeout = cfg->timeout_ns ? cfg->timeout_ns : 1000000000ull;
	uint64_t stalled = 0, last_progress = UINT64_MAX;
	int err;

	for (;;) {
		uint64_t wait = step, issued, completed, progress, now;
		uint32_t status, fifo;

		if (cap && sb_capture_poll_interval_ns(cap) < wait)
			wait = sb_capture_poll_interval_ns(cap);
		err = cap ? sb_capture_wait(cap, wait) : sb_device_wait_ns(x->dev, wait);
		if (err < 0 || (cap && (err = sb_capture_poll(cap)) < 0))
			return err;
		if ((err = fill(x, &fifo)) < 0)
			return err;
		/* Poll often enough that the FIFO does not run dry, no more often than needed. */
		if (fifo == 0 && !x->input_done && step > 20)
			step /= 2;
		else if (fifo > x->depth / 2 && step < 1000000)
			step *= 2;
		if ((err = rd(x, SB_HBM_REPLAY_STATUS, &status)) < 0 ||
		    (err = rd64(x, SB_HBM_REPLAY_ISSUED, &issued)) < 0 ||
		    (err = rd64(x, SB_HBM_REPLAY_COMPLETED, &completed)) < 0)
			return err;
		if (x->input_done && !x->have_pend && (status & SB_HBM_REPLAY_STATUS_IDLE_MASK))
			return 0;
		progress = issued + completed + x->requests;
		if (progress != last_progress) {
			last_progress = progress;
			stalled = 0;
			continue;
		}
		if (cfg->speed > 0) {
			/* Timed: waiting for descriptors not due yet is not a stall. */
			if ((err = sb_device_read64(x->dev, card_blk + SB_HBM_CARD_CYCLES, &now)) <
			    0)
				return err;
			if (now < start_cycle + x->last_due)
				continue;
		}
		stalled += wait;
		if (stalled >= timeout)
			return sb_error_set(
			    SB_ERR_TIMEOUT,
			    "'%s': the replay made no progress for %.3f s (%" PRIu64
			    " issued, %" PRIu64 " completed, %" PRIu64 " descriptors written)",
			    sb_device_uri(x->dev), stalled / 1e9, issued, completed, x->requests);
	}
}

static int read_results(struct run *x, struct sb_hbm_replay_result *res)
{
	double ns = 1e9 / res->clock_hz;
	uint32_t lat_min, lat_max, lag_max, errors, bad;
	uint64_t lat_sum, lag_sum;
	int err;

	if ((err = rd64(x, SB_HBM_REPLAY_ISSUED, &res->issued)) < 0 ||
	    (err = rd64(x, SB_HBM_REPLAY_COMPLETED, &res->completed)) < 0 ||
	    (err = rd64(x, SB_HBM_REPLAY_READS, &res->reads)) < 0 ||
	    (err = rd64(x, SB_HBM_REPLAY_WRITES, &res->writes)) < 0 ||
	    (err = rd64(x, SB_HBM_REPLAY_BYTES, &res->bytes)) < 0 ||
	    (err = rd64(x, SB_HBM_REPLAY_LAT_SUM, &lat_sum)) < 0 ||
	    (err = rd(x, SB_HBM_REPLAY_LAT_MIN, &lat_min)) < 0 ||
	    (err = rd(x, SB_HBM_REPLAY_LAT_MAX, &lat_max)) < 0 ||
	    (err = rd64(x, SB_HBM_REPLAY_LAG_SUM, &lag_sum)) < 0 ||
	    (err = rd(x, SB_HBM_REPLAY_LAG_MAX, &lag_max)) < 0 ||
	    (err = rd(x, SB_HBM_REPLAY_ERRORS, &errors)) < 0 ||
	    (err = rd(x, SB_HBM_REPLAY_BAD, &bad)) < 0 ||
	    (err = rd64(x, SB_HBM_REPLAY_START_CYCLE, &res->start_cycle)) < 0 ||
	    (err = rd64(x, SB_HBM_REPLAY_END_CYCLE, &res->end_cycle)) < 0)
		return err;
	for (unsigned p = 0; p < res->ports; p++)
		if ((err = rd64(x, SB_HBM_REPLAY_PORT_BURSTS(p), &res->port_bursts[p])) < 0)
			return err;
	res->errors = errors;
	res->bad = bad;
	res->duration_cycles =
	    res->end_cycle > res->start_cycle ? res->end_cycle - res->start_cycle : 0;
	res->duration_ns = (double)res->duration_cycles * ns;
	if (res->duration_ns > 0)
		res->bandwidth_gbps = (double)res->bytes / res->duration_ns;
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

/* The ports the replay takes over stop their own engines (hbm_port.control.enable). */
static int stop_ports(struct sb_device *dev, uint32_t mask, unsigned ports)
{
	for (unsigned i = 0; i < ports; i++) {
		uint32_t b, ctl;
		int err;

		if (!(mask >> i & 1))
			continue;
		if ((err = sb_device_find_block(dev, SB_BLK_HBM_PORT_TYPE, i, &b)) < 0 ||
		    (err = sb_device_read32(dev, b + SB_HBM_PORT_CONTROL, &ctl)) < 0 ||
		    (err = sb_device_write32(dev, b + SB_HBM_PORT_CONTROL,
		                             ctl & ~SB_HBM_PORT_CONTROL_ENABLE_MASK)) < 0)
			return err;
	}
	return 0;
}

static double host_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static int start(struct run *x, const struct sb_replay_config *cfg, struct sb_capture *cap,
                 uint64_t *start_cycle)
{
	uint32_t fifo;
	int err;

	if ((err = stop_ports(x->dev, x->map.port_mask, x->map.ports)) < 0 ||
	    (err = wr(x, SB_HBM_REPLAY_CONTROL, SB_HBM_REPLAY_CONTROL_RESET_MASK)) < 0 ||
	    (err = wr(x, SB_HBM_REPLAY_PORT_MASK, x->map.port_mask)) < 0 ||
	    (err = rd(x, SB_HBM_REPLAY_FIFO_DEPTH, &x->depth)) < 0 || (err = fill(x, &fifo)) < 0)
		return err;
	if (!x->depth)
		return sb_error_set(SB_ERR_DEVICE, "'%s': hbm_replay.fifo_depth is 0",
		                    sb_device_uri(x->dev));
	if (cap && (err = sb_capture_start(cap)) < 0)
		return err;
	if ((err = wr(x, SB_HBM_REPLAY_CONTROL,
	              SB_HBM_REPLAY_CONTROL_ENABLE_MASK |
	                  (cfg->speed > 0 ? SB_HBM_REPLAY_CONTROL_TIMED_MASK : 0))) < 0)
		return err;
	return rd64(x, SB_HBM_REPLAY_START_CYCLE, start_cycle);
}

int sb_hbm_replay_run(struct sb_device *dev, struct sb_trace_reader *r,
                      const struct sb_replay_config *cfg, struct sb_capture *cap,
                      struct sb_hbm_replay_result *res)
{
	struct sb_hbm_card card;
	uint32_t card_blk, overflows;
	uint64_t start_cycle;
	struct run *x;
	double t0 = host_now();
	int err;

	memset(res, 0, sizeof(*res));
	if (!(cfg->speed >= 0) || cfg->speed > 1e9)
		return sb_error_set(SB_ERR_INVAL, "replay speed %g", cfg->speed);
	if ((err = card_clock(dev, &card)) < 0 ||
	    (err = sb_device_find_block(dev, SB_BLK_HBM_CARD_TYPE, 0, &card_blk)) < 0)
		return err;
	x = calloc(1, sizeof(*x));
	if (!x)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for a replay");
	x->dev = dev;
	x->r = r;
	x->recs = malloc(READ_BATCH * sizeof(*x->recs));
	if (!x->recs) {
		err = sb_error_set(SB_ERR_NOMEM, "out of memory for a replay");
		goto out;
	}
	if (sb_device_find_block(dev, SB_BLK_HBM_REPLAY_TYPE, 0, &x->blk) < 0) {
		err = sb_error_set(SB_ERR_NOT_FOUND,
		                   "'%s' has no hbm_replay block (its design predates trace "
		                   "replay)",
		                   sb_device_uri(dev));
		goto out;
	}
	res->clock_hz = (double)card.axi_clock_hz;
	res->ports = card.ports;
	res->timed = cfg->speed > 0;
	res->density = density_of(r, cfg);
	if ((err = sb_hbm_replay_map_init(&x->map, r, cfg, res->clock_hz, card.ports,
	                                  res->density)) < 0)
		goto out;
	res->time_scale = x->map.b.cycles_per_tick;
	res->select = x->map.b.select;
	if ((err = start(x, cfg, cap, &start_cycle)) < 0 ||
	    (err = run_loop(x, cfg, cap, card_blk, start_cycle)) < 0)
		goto stop;
	if ((err = wr(x, SB_HBM_REPLAY_CONTROL, 0)) < 0 || (err = read_results(x, res)) < 0 ||
	    (err = rd(x, SB_HBM_REPLAY_OVERFLOWS, &overflows)) < 0)
		goto out;
	res->host_s = host_now() - t0;
	res->fifo_depth = x->depth;
	res->records = x->map.b.records;
	res->skipped = x->map.b.skipped;
	res->requests = x->requests;
	res->trace_cycles = x->last_due;
	memcpy(res->port_requests, x->map.port_requests, sizeof(res->port_requests));
	if (overflows) {
		err = sb_error_set(SB_ERR_DEVICE,
		                   "'%s': hbm_replay dropped %u descriptors the host wrote within "
		                   "its fifo_count",
		                   sb_device_uri(dev), overflows);
		goto out;
	}
	if (!res->requests) {
		err = sb_error_set(SB_ERR_PARSE,
		                   "'%s': none of its %" PRIu64 " records is memory traffic under "
		                   "the '%s' selection",
		                   r->name, res->records, sb_replay_select_name(res->select));
		goto out;
	}
	if (res->bad)
		sb_warn("replay: the card skipped %" PRIu64 " descriptors (a port outside the "
		        "replay's or running its own engine)",
		        res->bad);
	if (cap)
		err = sb_capture_stop(cap, res->issued, "hbm_replay.issued");
	goto out;
stop:
	wr(x, SB_HBM_REPLAY_CONTROL, 0);
out:
	free(x->recs);
	free(x);
	return err;
}
