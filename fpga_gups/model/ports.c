/* SPDX-License-Identifier: MIT */
/*
 * The GUPS ports of the FPGA design, family-neutral: address generation, the request-type
 * arbiter (ro / wo / rw and its write-backs), the tag pool of 64, flow control, the latency
 * monitor and the counters, the outstanding requests of each port (completions in time order,
 * which the port retires lazily) and the port's response interface (one data beat per
 * cycle). A request a port issues is handed to the memory family (sb_cube_request(), hmc.h),
 * which reserves its whole path at once and returns when the response reaches the port.
 *
 * See docs/model.md for what is modelled, the parameters and what is left out.
 */
#include <stdlib.h>
#include <string.h>

#include "model_internal.h"
#include "stackbench/error.h"

#define SB_GUPS_WRITE_SEED 0x47555053u /* "GUPS": data pattern seed of GUPS write traffic */

/*
 * The controller offers ports_per_link user ports per link; GUPS port i is user port first_port
 * + i (on the AC-510 user port 0 of link 0 carries the PCIe stream, so GUPS ports 0-3 use link 0
 * and 4-8 link 1). A profile option with fewer links puts the rest on the last link.
 */
unsigned sb_engine_port_link(const struct sb_model *m, unsigned port)
{
	unsigned l = (m->prof.first_port + port) / m->prof.ports_per_link;

	return l < m->prof.links ? l : m->prof.links - 1;
}

/* Outstanding requests of a port: their keys in ascending order (engine.h). */
static inline uint64_t done_key(const struct sb_model *m, const struct sb_done *d, unsigned idx)
{
	uint64_t cyc =
	    d->t_done == SB_TICK_NEVER ? SB_DONE_NEVER_CYCLES : sb_div(&m->tm.div_cycle, d->t_done);

	return cyc << SB_DONE_IDX_BITS | idx;
}

/* Insert a key, moving the larger ones one place back (usually none or a few). */
static void keys_insert(struct sb_port *p, uint64_t key)
{
	uint64_t *k;
	unsigned i;

	if (p->khead + p->ndone == 2 * p->cap) { /* at the end of the array: move to the front */
		memmove(p->keys, p->keys + p->khead, p->ndone * sizeof(*p->keys));
		p->khead = 0;
	}
	k = p->keys + p->khead;
	for (i = p->ndone++; i && k[i - 1] > key; i--)
		k[i] = k[i - 1];
	k[i] = key;
}

static void done_push(const struct sb_model *m, struct sb_port *p, const struct sb_done *d)
{
	unsigned idx = p->free_slots[--p->nfree];

	p->slots[idx] = *d;
	keys_insert(p, done_key(m, d, idx));
}

/* Take the earliest. */
static void done_pop(struct sb_port *p, struct sb_done *out)
{
	unsigned idx = (unsigned)(p->keys[p->khead] & (SB_DONE_MAX - 1));

	*out = p->slots[idx];
	p->free_slots[p->nfree++] = (uint16_t)idx;
	p->khead = --p->ndone ? p->khead + 1 : 0;
}

/* Completion tick of the earliest outstanding request (the port has one). */
static inline uint64_t done_first(const struct sb_port *p)
{
	return p->slots[p->keys[p->khead] & (SB_DONE_MAX - 1)].t_done;
}

/* Re-key and re-sort after payload completion times changed (the order rarely changes: an
 * insertion sort in place). */
static void done_rebuild(const struct sb_model *m, struct sb_port *p)
{
	uint64_t *k = p->keys + p->khead;
	unsigned n = p->ndone;

	p->ndone = 0;
	for (unsigned j = 0; j < n; j++) {
		unsigned idx = (unsigned)(k[j] & (SB_DONE_MAX - 1));
		uint64_t key = done_key(m, &p->slots[idx], idx);
		unsigned i;

		for (i = p->ndone++; i && k[i - 1] > key; i--)
			k[i] = k[i - 1];
		k[i] = key;
	}
}

void sb_engine_done_rebuild(struct sb_model *m, struct sb_port *p)
{
	done_rebuild(m, p);
}

/* Outstanding request k (0 .. ndone - 1, in no particular order of use) of port p. */
struct sb_done *sb_engine_done_at(struct sb_port *p, unsigned k)
{
	return &p->slots[p->keys[p->khead + k] & (SB_DONE_MAX - 1)];
}

/* Forget every outstanding request. */
static void done_clear(struct sb_port *p)
{
	p->ndone = p->khead = 0;
	p->nfree = p->cap;
	for (unsigned i = 0; i < p->cap; i++)
		p->free_slots[i] = (uint16_t)(p->cap - 1 - i);
}

static void wb_push(struct sb_port *p, uint64_t t, uint64_t addr)
{
	unsigned i = p->nwb++;

	while (i) {
		unsigned parent = (i - 1) / 2;

		if (p->wb[parent].t_ready <= t)
			break;
		p->wb[i] = p->wb[parent];
		i = parent;
	}
	p->wb[i].t_ready = t;
	p->wb[i].addr = addr;
}

static void wb_pop(struct sb_port *p, struct sb_wb *out)
{
	struct sb_wb last;
	unsigned i = 0, n;

	*out = p->wb[0];
	last = p->wb[--p->nwb];
	n = p->nwb;
	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && p->wb[c + 1].t_ready < p->wb[c].t_ready)
			c++;
		if (last.t_ready <= p->wb[c].t_ready)
			break;
		p->wb[i] = p->wb[c];
		i = c;
	}
	if (n)
		p->wb[i] = last;
}

static uint32_t port_reg32(const struct sb_model *m, const struct sb_port *p, uint32_t reg)
{
	return sb_regfile_get32(&m->rf, m->blk_port[p->idx] + reg);
}

static inline unsigned flow_limit(const struct sb_model *m)
{
	return m->flow_limit;
}

/* The flow-control threshold register changed (or the model started). */
void sb_engine_flow_update(struct sb_model *m)
{
	uint32_t thr = sb_regfile_get32(&m->rf, m->blk_hmc + SB_HMC_CTRL_FLOW_THRESHOLD);

	if (!thr || thr > m->prof.max_outstanding)
		thr = m->prof.max_outstanding;
	m->flow_limit = thr;
	sb_engine_wake(m);
}

/* A request outstanding at port p completes (response arrived, or declared lost). */
static void port_credit(struct sb_model *m, struct sb_port *p, const struct sb_done *d, bool lost)
{
	uint64_t life = d->t_done - d->t_issue;

	if (life > p->tag_max_life)
		p->tag_max_life = life;
	if (done_stream(d) == SB_DONE_REPLAY) /* request source: trace replay (replay.c) */
		sb_replay_complete(m, p, d, lost);
	if (lost) {
		uint32_t tag_ctrl = port_reg32(m, p, SB_GUPS_PORT_TAG_CTRL);

		p->lost++;
		if (tag_ctrl & SB_GUPS_PORT_TAG_CTRL_STOP_ON_LOST_MASK)
			p->stopped_lost = true;
		if (!(tag_ctrl & SB_GUPS_PORT_TAG_CTRL_RECYCLE_MASK))
			return; /* the tag stays in use until a tag-pool reset */
	}
	p->outstanding--;
	if (!done_write(d)) {
		p->tags--;
		p->tag_used &= ~(1ull << done_tag(d));
	}
	if (done_stream(d) == SB_DONE_REPLAY)
		return;
	if (done_stream(d)) {
		sb_stream_complete(m, d, lost);
		return;
	}
	if (lost)
		return;
	if (done_errstat(d)) {
		p->error = true;
		p->errstat = done_errstat(d);
		m->hmc.error_responses++;
	}
	if (!done_write(d)) {
		/* Issue and response times are clock edges: the latency is a whole number of
		 * cycles; it is kept in ticks here and converted when the registers are read. */
		uint64_t lat = sb_done_first_beat(m, d) - d->t_issue;

		if (!done_errstat(d))
			p->read_data += done_flits(d);
		p->lat_sum += lat;
		p->lat_count++;
		if (lat < p->lat_min)
			p->lat_min = lat;
		if (lat > p->lat_max)
			p->lat_max = lat;
		if (p->type == SB_TYPE_RW && !done_errstat(d))
			wb_push(p, d->t_done, done_addr(d));
	}
}

/* Retire everything outstanding at p that completed by now. */
static void port_retire(struct sb_model *m, struct sb_port *p, uint64_t now)
{
	while (p->ndone && done_first(p) <= now) {
		struct sb_done d;
		bool lost;

		done_pop(p, &d);
		lost = done_errstat(&d) == SB_DONE_LOST;
		if (lost)
			done_set_errstat(&d, 0);
		port_credit(m, p, &d, lost);
	}
}

void sb_engine_settle(struct sb_model *m, uint64_t now)
{
	for (unsigned i = 0; i < m->nports; i++)
		port_retire(m, &m->port[i], now);
}

static bool port_can_iterate(const struct sb_model *m, const struct sb_port *p)
{
	/* bitwise: one test of four flags instead of four branches */
	if (!(p->enabled & p->started & !p->stopped_lost & m->hmc.ready) ||
	    (m->replay.enable && sb_replay_owns(m, p)))
		return false;
	if (p->iter_limit && p->iters >= p->iter_limit)
		return false;
	if (p->outstanding >= flow_limit(m))
		return false;
	if (p->type != SB_TYPE_WO && p->tags >= SB_TAG_DEPTH)
		return false;
	return true;
}

/* A stream group starts once its port is idle (no GUPS traffic running or in flight), then
 * issues its entries back to back. */
static bool stream_pending(const struct sb_model *m, const struct sb_port *p)
{
	if (!m->stream.busy || m->stream.port != p->idx || !p->stream_left || !m->hmc.ready ||
	    p->tags >= SB_TAG_DEPTH)
		return false;
	if (p->stream_left == m->stream.count &&
	    (p->nwb || (p->ndone && !m->stream.t_first) || (p->enabled && p->started)))
		return false;
	return true;
}

/* When will p next have something to do? */
static inline void port_schedule(struct sb_model *m, struct sb_port *p)
{
	uint64_t t = SB_TICK_NEVER;
	uint64_t cyc = m->tm.cycle;

	if (p->nwb && m->hmc.ready)
		t = sb_max64(p->t_pkt, p->wb[0].t_ready);
	if (port_can_iterate(m, p) || stream_pending(m, p))
		t = sb_min64(t, p->t_free);
	else if (p->ndone && done_first(p) != SB_TICK_NEVER)
		t = sb_min64(t, sb_max64(p->t_free, done_first(p)));
	if (p->type == SB_TYPE_RW && p->ndone && done_first(p) != SB_TICK_NEVER)
		t = sb_min64(t, sb_max64(p->t_free, done_first(p)));
	if (m->replay.enable) /* request source: trace replay (replay.c) */
		t = sb_min64(t, sb_replay_next(m, p));
	/* Every candidate is a clock edge: t_free, response arrivals, write-back readiness. */
	(void)cyc;
	p->t_next = t;
	sb_engine_set_next(m, p->idx, t);
}

void sb_port_schedule(struct sb_model *m, struct sb_port *p)
{
	port_schedule(m, p);
}

/* Lowest free tag of the port's pool of 64. */
static unsigned tag_alloc(struct sb_port *p)
{
	unsigned t = (unsigned)__builtin_ctzll(~p->tag_used);

	p->tag_used |= 1ull << t;
	return t;
}

/*
 * The port's response interface delivers a response that arrived at tick t_arrive one 16-byte
 * beat per cycle (a write response: one beat), after the responses already booked on it.
 * Returns the tick after the last beat.
 */
static uint64_t port_response(struct sb_model *m, struct sb_port *p, uint64_t t_arrive, bool write,
                              unsigned data_beats)
{
	unsigned beats = data_beats * m->prof.port_flit_cycles;
	unsigned hold = beats + (write ? 0 : m->prof.port_packet_cycles);
	uint64_t c = sb_cal_reserve(&p->rx, sb_div_up(&m->tm.div_cycle, t_arrive), hold);

	return (c + beats) * m->tm.cycle;
}

/* Port p submits one request at tick t. */
void sb_port_issue(struct sb_model *m, struct sb_port *p, uint64_t t, bool write, uint64_t addr,
                   unsigned flits, unsigned stream)
{
	bool posted = write && p->posted && !stream;
	unsigned pkt = write ? 1 + flits : 1;
	struct sb_done d;
	uint8_t errstat;
	uint64_t t_done;
	unsigned tag = write || posted ? 0 : tag_alloc(p);

	/* The port's packet holds its request interface one flit per cycle, a write (it carries
	 * data) port_packet_cycles more; a new command waits cmd_cycles from the last (the read of
	 * an rw pair too), a write-back only for the packet. */
	uint64_t hold =
	    (uint64_t)pkt * m->prof.port_flit_cycles + (write ? m->prof.port_packet_cycles : 0);

	p->t_pkt = t + hold * m->tm.cycle;
	p->t_free = sb_max64(p->t_free, t + sb_max64(m->tm.cmd_cycles, hold) * m->tm.cycle);
	t_done = sb_cube_request(m, p->link, t, write, posted, addr, flits, &errstat);
	if (t_done != SB_TICK_NEVER)
		t_done = posted ? sb_div_up(&m->tm.div_cycle, t_done) * m->tm.cycle
		                : port_response(m, p, t_done, write, write ? 1 : flits);
	m->st.requests++;
	if (stream == SB_DONE_REPLAY) /* replayed requests are not the port's own */
		;
	else if (write)
		p->writes++;
	else
		p->reads++;
	d.t_issue = t;
	d.info = sb_done_info(addr, write, flits, errstat, stream, tag);
	d.t_done = t_done;
	if (write && !stream && m->mem.used)
		sb_mem_write(&m->mem, addr, flits, SB_GUPS_WRITE_SEED, false);
	if (m->req_hook) {
		struct sb_model_request r = {t / SB_TICKS_PER_PS, addr,
		                             (uint8_t)p->idx,     write,
		                             (uint8_t)flits,      (uint8_t)tag};

		m->req_hook(m->req_hook_ctx, &r);
	}
	if (m->trace.enable)
		sb_trace_record(m, p, &d, tag);
	if (posted)
		return;
	if (t_done == SB_TICK_NEVER) {
		/* Dropped by the failed cube: declared lost after the tag timeout if detection is on. */
		uint32_t tag_ctrl = port_reg32(m, p, SB_GUPS_PORT_TAG_CTRL);

		if (tag_ctrl & SB_GUPS_PORT_TAG_CTRL_DETECT_MASK) {
			d.t_done =
			    t + (uint64_t)port_reg32(m, p, SB_GUPS_PORT_TAG_TIMEOUT) * m->tm.cycle;
			done_set_errstat(&d, SB_DONE_LOST); /* marks a lost request */
		}
	}
	p->outstanding++;
	if (!write) {
		p->tags++;
		if (p->tags > p->tag_peak)
			p->tag_peak = p->tags;
	}
	done_push(m, p, &d);
}

/* Process port p at its next time. */
void sb_port_step(struct sb_model *m, struct sb_port *p)
{
	uint64_t t = p->t_next;

	struct sb_replay_req rq;

	port_retire(m, p, t);
	/* rw: the port's arbiter alternates between its write-backs and new reads when both
	 * are ready. */
	if (p->nwb && p->wb[0].t_ready <= t && m->hmc.ready &&
	    !(p->last_wb && t >= p->t_free && port_can_iterate(m, p))) {
		struct sb_wb w;

		wb_pop(p, &w);
		sb_port_issue(m, p, t, true, w.addr, p->flits, 0);
		p->last_wb = true;
	} else if (stream_pending(m, p)) {
		sb_stream_issue(m, p, t);
	} else if (m->replay.enable && sb_replay_take(m, p, t, &rq)) { /* trace replay */
		sb_port_issue(m, p, t, rq.write, rq.addr, rq.flits, SB_DONE_REPLAY);
		for (uint32_t wk = rq.wake; wk; wk &= wk - 1)
			sb_port_schedule(m, &m->port[__builtin_ctz(wk)]);
	} else if (port_can_iterate(m, p) && t >= p->t_free) {
		uint64_t addr = sb_addrgen_next(&p->gen);

		p->iters++;
		sb_port_issue(m, p, t, p->type == SB_TYPE_WO, addr, p->flits, 0);
		p->last_wb = false;
	}
	port_schedule(m, p);
}

static void port_clear_stats(struct sb_port *p)
{
	p->reads = p->writes = p->read_data = 0;
	p->lat_sum = p->lat_count = 0;
	p->lat_min = UINT64_MAX;
	p->lat_max = 0;
	p->tag_peak = p->tag_max_life = p->lost = 0;
	p->errstat = 0;
	p->error = false;
	p->iters = 0;
}

/* Drop everything outstanding (port reset, tag-pool reset): the tags come back. */
static void port_drop(struct sb_port *p)
{
	p->tag_used = 0;
	done_clear(p);
	p->nwb = 0;
	p->tags = 0;
	p->outstanding = 0;
	p->stream_left = 0;
}

static void port_start(struct sb_model *m, struct sb_port *p)
{
	uint32_t base = m->blk_port[p->idx];
	const struct sb_regfile *rf = &m->rf;
	uint32_t ctl = sb_regfile_get32(rf, base + SB_GUPS_PORT_CONTROL);
	uint32_t flits = SB_FIELD_GET(SB_GUPS_PORT_REQ_SIZE_FLITS,
	                              sb_regfile_get32(rf, base + SB_GUPS_PORT_REQ_SIZE));

	if (flits < 1)
		flits = 1;
	if (flits > 8)
		flits = 8;
	p->type = (uint8_t)SB_FIELD_GET(SB_GUPS_PORT_CONTROL_TYPE, ctl);
	if (p->type > SB_TYPE_RW)
		p->type = SB_TYPE_RO;
	p->flits = (uint8_t)flits;
	p->posted = ctl & SB_GUPS_PORT_CONTROL_POSTED_MASK;
	p->linear =
	    SB_FIELD_GET(SB_GUPS_PORT_CONTROL_MODE, ctl) == SB_GUPS_PORT_CONTROL_MODE_LINEAR;
	p->iter_limit = sb_regfile_get64(rf, base + SB_GUPS_PORT_ITER_LIMIT);
	sb_addrgen_init(&p->gen, p->linear, sb_regfile_get64(rf, base + SB_GUPS_PORT_LFSR_SEED),
	                sb_regfile_get64(rf, base + SB_GUPS_PORT_LIN_START),
	                sb_regfile_get64(rf, base + SB_GUPS_PORT_LIN_END),
	                sb_regfile_get32(rf, base + SB_GUPS_PORT_LIN_STEP),
	                sb_regfile_get64(rf, base + SB_GUPS_PORT_ADDR_MASK),
	                sb_regfile_get64(rf, base + SB_GUPS_PORT_ADDR_ANTIMASK), flits);
	port_clear_stats(p);
	p->started = true;
	p->stopped_lost = false;
	p->t_free = sb_max64(p->t_free, sb_ceil_div(m->now, m->tm.cycle) * m->tm.cycle);
	p->t_pkt = sb_max64(p->t_pkt, p->t_free);
	m->st.ff_used = false;
	m->st.ff_skipped_ticks = 0;
	m->st.ff_jumps = 0;
	sb_engine_ff_begin(m, m->now);
}

uint64_t sb_engine_port_read(struct sb_model *m, unsigned port, uint32_t reg, uint64_t stored)
{
	struct sb_port *p = &m->port[port];
	uint64_t v;

	port_retire(m, p, m->now);
	switch (reg) {
	case SB_GUPS_PORT_STATUS: {
		bool idle = p->ndone == 0 && p->nwb == 0;
		bool limit = p->iter_limit && p->iters >= p->iter_limit;

		v = 0;
		if (p->started && p->enabled && !p->stopped_lost && !limit)
			v |= SB_GUPS_PORT_STATUS_RUNNING_MASK;
		if (p->started && limit && idle)
			v |= SB_GUPS_PORT_STATUS_DONE_MASK;
		if (idle)
			v |= SB_GUPS_PORT_STATUS_IDLE_MASK;
		if (p->error)
			v |= SB_GUPS_PORT_STATUS_ERROR_MASK;
		if (p->stopped_lost)
			v |= SB_GUPS_PORT_STATUS_LOST_STOP_MASK;
		v |= SB_FIELD_PREP(SB_GUPS_PORT_STATUS_ERRSTAT, p->errstat);
		return v;
	}
	case SB_GUPS_PORT_READS:
		return p->reads;
	case SB_GUPS_PORT_WRITES:
		return p->writes;
	case SB_GUPS_PORT_READ_DATA:
		return p->read_data;
	case SB_GUPS_PORT_TAG_USAGE:
		return SB_FIELD_PREP(SB_GUPS_PORT_TAG_USAGE_IN_USE, p->tags) |
		       SB_FIELD_PREP(SB_GUPS_PORT_TAG_USAGE_PEAK, p->tag_peak);
	case SB_GUPS_PORT_TAG_MAX_LIFE:
		return sb_min64(p->tag_max_life / m->tm.cycle, UINT32_MAX);
	case SB_GUPS_PORT_LOST_TAGS:
		return p->lost;
	case SB_GUPS_PORT_LAT_MIN:
		return p->lat_count ? sb_min64(p->lat_min / m->tm.cycle, UINT32_MAX) : UINT32_MAX;
	case SB_GUPS_PORT_LAT_MAX:
		return sb_min64(p->lat_max / m->tm.cycle, UINT32_MAX);
	case SB_GUPS_PORT_LAT_SUM:
		return p->lat_sum / m->tm.cycle;
	case SB_GUPS_PORT_LAT_COUNT:
		return p->lat_count;
	default:
		return stored;
	}
}

void sb_engine_port_write(struct sb_model *m, unsigned port, uint32_t reg, uint32_t pulses)
{
	struct sb_port *p = &m->port[port];

	port_retire(m, p, m->now);
	if (reg == SB_GUPS_PORT_CONTROL) {
		uint32_t ctl = port_reg32(m, p, SB_GUPS_PORT_CONTROL);

		p->enabled = ctl & SB_GUPS_PORT_CONTROL_ENABLE_MASK;
		if (pulses & SB_GUPS_PORT_CONTROL_START_MASK)
			port_start(m, p);
	} else if (reg == SB_GUPS_PORT_TAG_CTRL && (pulses & SB_GUPS_PORT_TAG_CTRL_RESET_MASK)) {
		port_drop(p);
		p->tag_peak = p->tag_max_life = p->lost = 0;
		p->stopped_lost = false;
	}
	sb_port_schedule(m, p);
}

void sb_engine_ports_reset(struct sb_model *m)
{
	for (unsigned i = 0; i < m->nports; i++) {
		struct sb_port *p = &m->port[i];
		uint32_t base = m->blk_port[i];
		uint32_t ctl = sb_regfile_get32(&m->rf, base + SB_GUPS_PORT_CONTROL);

		sb_regfile_set32(&m->rf, base + SB_GUPS_PORT_CONTROL,
		                 ctl & ~SB_GUPS_PORT_CONTROL_ENABLE_MASK);
		port_drop(p);
		port_clear_stats(p);
		p->enabled = false;
		p->started = false;
		p->stopped_lost = false;
		p->t_next = SB_TICK_NEVER;
		sb_engine_set_next(m, i, SB_TICK_NEVER);
	}
	m->stream.busy = false;
}

/*
 * Requests in flight at tick when the cube stops serving: responses leaving the cube within
 * `announce` ticks carry a thermal-failure error status, later ones are dropped (their tags are
 * declared lost after the tag timeout when detection is on).
 */
void sb_engine_drop_inflight(struct sb_model *m, uint64_t tick, uint64_t announce)
{
	for (unsigned i = 0; i < m->nports; i++) {
		struct sb_port *p = &m->port[i];
		uint32_t tag_ctrl = port_reg32(m, p, SB_GUPS_PORT_TAG_CTRL);
		uint64_t timeout =
		    (uint64_t)port_reg32(m, p, SB_GUPS_PORT_TAG_TIMEOUT) * m->tm.cycle;
		for (unsigned k = 0; k < p->ndone; k++) {
			struct sb_done *d = sb_engine_done_at(p, k);

			if (d->t_done <= tick || done_errstat(d) == SB_DONE_LOST)
				continue;
			if (d->t_done <= tick + announce) {
				done_set_errstat(d, SB_HMC_ERRSTAT_THERMAL);
			} else if (tag_ctrl & SB_GUPS_PORT_TAG_CTRL_DETECT_MASK) {
				d->t_done =
				    sb_max64(d->t_issue + timeout,
				             sb_div_up(&m->tm.div_cycle, tick) * m->tm.cycle);
				done_set_errstat(d, SB_DONE_LOST);
			} else {
				d->t_done = SB_TICK_NEVER;
			}
		}
		done_rebuild(m, p);
		/* Write-backs not yet issued are abandoned with their reads. */
		p->nwb = 0;
		sb_port_schedule(m, p);
	}
}

int sb_ports_init(struct sb_model *m)
{
	unsigned cap = m->prof.max_outstanding + SB_TAG_DEPTH + SB_STREAM_ENTRIES;

	for (unsigned i = 0; i < m->nports; i++) {
		struct sb_port *p = &m->port[i];

		p->idx = i;
		p->link = sb_engine_port_link(m, i);
		sb_cal_init(&p->rx, m->tm.cycle);
		p->cap = cap;
		p->slots = calloc(cap, sizeof(*p->slots));
		p->keys = calloc(2 * (size_t)cap, sizeof(*p->keys));
		p->free_slots = calloc(cap, sizeof(*p->free_slots));
		p->wb = calloc(cap, sizeof(*p->wb));
		if (!p->slots || !p->keys || !p->free_slots || !p->wb)
			return sb_error_set(SB_ERR_NOMEM, "out of memory for the GUPS ports");
		done_clear(p);
		port_clear_stats(p);
		p->t_next = SB_TICK_NEVER;
	}
	for (unsigned i = 0; i < SB_PORT_LEAVES; i++) {
		m->port_win[SB_PORT_LEAVES + i] = (uint8_t)i;
		m->port_next[i] = SB_TICK_NEVER;
	}
	for (unsigned i = 0; i < SB_PORT_LEAVES; i++)
		sb_engine_set_next(m, i, SB_TICK_NEVER);
	return 0;
}

void sb_ports_release(struct sb_model *m)
{
	for (unsigned i = 0; i < SB_MAX_PORTS; i++) {
		free(m->port[i].slots);
		free(m->port[i].keys);
		free(m->port[i].free_slots);
		free(m->port[i].wb);
		m->port[i].slots = NULL;
		m->port[i].keys = NULL;
		m->port[i].free_slots = NULL;
		m->port[i].wb = NULL;
	}
}
