/* SPDX-License-Identifier: MIT */
/*
 * Trace replay on the simulated HBM2 card (block hbm_replay; docs/hbm2.md, "Replay"). The card
 * has no DMA engine: the host writes each descriptor through desc_w0..desc_w3 into an on-chip
 * FIFO. While enable is set, the descriptor at the FIFO's head goes to its port's lane (a full
 * lane holds the head, so FIFO order is kept per port), and each lane's head is issued as one
 * AXI3 burst on that port's master through hbm_engine_issue(): the same W channel, memory
 * system, crossbar, trace capture and request hook as the port's own engine. A lane issues at
 * most one burst per AXI cycle, waits for its next AXI ID (in turn, 0..63) to be free and, with
 * control.timed, for start_cycle + the descriptor's time.
 *
 * A descriptor is skipped and counted in bad when its port is not on the card, not in
 * port_mask, or has its own engine running (the block takes over stopped ports only), or when
 * it asks for more than 16 beats or crosses a 4 KiB boundary (AXI3 forbids a burst to; the RTL
 * refuses it too).
 */
#include <string.h>

#include "hbm_internal.h"
#include "sb_regmap.h"

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

void hbm_replay_init(struct sb_hbm_model *m)
{
	struct hbm_replay *rp = &m->replay;

	m->blk_replay = sb_hbm_regs_offset(m->board, SB_BLK_HBM_REPLAY_TYPE, 0);
	rp->port_mask = SB_HBM_REPLAY_PORT_MASK_RESET;
	rp->lat_min = UINT32_MAX;
	rp->t_next = SB_HBM_NEVER;
	for (unsigned p = 0; p < SB_HBM_MAX_PORTS; p++)
		rp->lane[p].t_next = SB_HBM_NEVER;
}

static void burst_of(const struct hbm_rlane *l, const struct hbm_rdesc *d, uint64_t seq,
                     struct sb_hbm_burst *b)
{
	b->addr = d->addr;
	b->seq = seq;
	b->txn = seq;
	b->beats = d->beats;
	b->id = (uint8_t)l->next_id;
	b->write = d->write;
	b->last = true;
}

static uint64_t due_tick(const struct sb_hbm_model *m, const struct hbm_rdesc *d)
{
	return m->replay.t_start + d->time * m->mem.tm.cyc;
}

/* When the lane's head can go. */
static void lane_plan(struct sb_hbm_model *m, unsigned port)
{
	struct hbm_replay *rp = &m->replay;
	struct hbm_rlane *l = &rp->lane[port];
	const struct hbm_rdesc *d = &l->d[l->head];
	struct sb_hbm_burst b;
	uint64_t t;

	if (!rp->enable || !l->n) {
		l->t_next = SB_HBM_NEVER;
		return;
	}
	burst_of(l, d, rp->issued, &b);
	/* never before now: a lane left full while enable was clear goes from when it is set */
	t = max64(max64(l->t_head, l->t_free), hbm_mem_cycle_up(&m->mem, m->now));
	if (rp->timed)
		t = max64(t, due_tick(m, d));
	t = max64(t, l->fl[b.id].t_done + m->mem.tm.cyc);
	l->t_next = hbm_engine_ready(m, port, &b, t);
}

static void find_next(struct hbm_replay *rp)
{
	rp->t_next = SB_HBM_NEVER;
	for (unsigned p = 0; p < SB_HBM_MAX_PORTS; p++)
		if (rp->lane[p].t_next < rp->t_next)
			rp->t_next = rp->lane[p].t_next;
}

static bool bad_desc(const struct sb_hbm_model *m, const struct hbm_rdesc *d)
{
	return d->port >= m->nports || !(m->replay.port_mask >> d->port & 1) ||
	       d->beats > SB_HBM_MAX_BEATS || hbm_engine_running(m, d->port) ||
	       (d->addr & (SB_HBM_AXI_PAGE - 1)) + (uint64_t)d->beats * SB_HBM_BEAT_BYTES >
	           SB_HBM_AXI_PAGE;
}

/*
 * Hand descriptors from the FIFO's head to their lanes until a full lane holds the head; a
 * descriptor reaching an empty lane is at its head from tick t. Returns the lanes changed.
 */
static uint32_t dispatch(struct sb_hbm_model *m, uint64_t t)
{
	struct hbm_replay *rp = &m->replay;
	uint32_t touched = 0;

	while (rp->enable && rp->count) {
		const struct hbm_rdesc *d = &rp->fifo[rp->head];
		struct hbm_rlane *l;

		if (bad_desc(m, d)) {
			rp->bad++;
			rp->st_bad = true;
		} else {
			l = &rp->lane[d->port];
			if (l->n == HBM_REPLAY_LANE_DEPTH)
				break;
			if (!l->n)
				l->t_head = t;
			l->d[(l->head + l->n) % HBM_REPLAY_LANE_DEPTH] = *d;
			l->n++;
			touched |= 1u << d->port;
		}
		rp->head = (rp->head + 1) % HBM_REPLAY_FIFO_DEPTH;
		rp->count--;
	}
	return touched;
}

static void replan(struct sb_hbm_model *m, uint32_t lanes)
{
	while (lanes) {
		unsigned p = (unsigned)__builtin_ctz(lanes);

		lanes &= lanes - 1;
		lane_plan(m, p);
	}
	find_next(&m->replay);
}

static void account(struct sb_hbm_model *m, struct hbm_rlane *l, unsigned slot)
{
	struct hbm_replay *rp = &m->replay;
	struct hbm_flight *f = &l->fl[slot];
	const struct hbm_div *cyc = &m->mem.tm.div_cyc;
	uint64_t lat = hbm_div(cyc, f->t_first - f->t_issue), end = hbm_div(cyc, f->t_done);
	uint32_t c = lat > UINT32_MAX ? UINT32_MAX : (uint32_t)lat;

	rp->completed++;
	rp->bytes += (uint64_t)f->beats * SB_HBM_BEAT_BYTES;
	rp->lat_sum += lat;
	if (c < rp->lat_min)
		rp->lat_min = c;
	if (c > rp->lat_max)
		rp->lat_max = c;
	if (f->resp) {
		rp->errors++;
		rp->st_error = true;
	}
	rp->end_cycle = max64(rp->end_cycle, end);
	f->live = false;
	l->live &= ~(1ull << slot);
}

/* Account the replayed bursts completed by now. */
static void sync(struct sb_hbm_model *m)
{
	for (unsigned p = 0; p < m->nports; p++) {
		struct hbm_rlane *l = &m->replay.lane[p];
		uint64_t live = l->live;

		while (live) {
			unsigned s = (unsigned)__builtin_ctzll(live);

			live &= live - 1;
			if (l->fl[s].t_done <= m->now)
				account(m, l, s);
		}
	}
}

void hbm_replay_step(struct sb_hbm_model *m)
{
	struct hbm_replay *rp = &m->replay;
	const uint64_t cyc = m->mem.tm.cyc, t = rp->t_next;
	unsigned port = 0;
	struct hbm_rlane *l;
	struct hbm_rdesc d;
	struct hbm_flight *f;
	struct sb_hbm_burst b;
	struct hbm_result r;
	uint64_t from;

	while (rp->lane[port].t_next != t)
		port++;
	l = &rp->lane[port];
	d = l->d[l->head];
	burst_of(l, &d, rp->issued, &b);
	f = &l->fl[b.id];
	if (f->live)
		account(m, l, b.id);
	hbm_engine_issue(m, port, &b, t, &r);
	f->t_issue = t;
	f->t_first = r.t_first;
	f->t_done = r.t_done;
	f->beats = b.beats;
	f->write = b.write;
	f->resp = r.resp;
	f->live = true;
	l->live |= 1ull << b.id;
	/* counters */
	from = rp->timed ? due_tick(m, &d) : l->t_head;
	from = hbm_div(&m->mem.tm.div_cyc, t > from ? t - from : 0);
	rp->lag_sum += from;
	if (from > rp->lag_max)
		rp->lag_max = from > UINT32_MAX ? UINT32_MAX : (uint32_t)from;
	rp->issued++;
	if (d.write)
		rp->writes++;
	else
		rp->reads++;
	rp->port_bursts[port]++;
	/* the lane moves on; its freed place takes the FIFO's head */
	l->next_id = (l->next_id + 1) % SB_HBM_MAX_IDS;
	l->head = (l->head + 1) % HBM_REPLAY_LANE_DEPTH;
	l->n--;
	l->t_free = t + cyc;
	l->t_head = t + cyc;
	replan(m, dispatch(m, t + cyc) | 1u << port);
}

bool hbm_replay_busy(struct sb_hbm_model *m)
{
	struct hbm_replay *rp = &m->replay;

	sync(m);
	if (rp->count)
		return true;
	for (unsigned p = 0; p < m->nports; p++)
		if (rp->lane[p].n || rp->lane[p].live)
			return true;
	return false;
}

static void reset(struct sb_hbm_model *m)
{
	struct hbm_replay *rp = &m->replay;

	rp->head = rp->count = 0;
	rp->pushed = rp->issued = rp->completed = rp->reads = rp->writes = rp->bytes = 0;
	rp->lat_sum = rp->lag_sum = rp->end_cycle = 0;
	rp->lat_min = UINT32_MAX;
	rp->lat_max = rp->lag_max = rp->errors = rp->bad = rp->overflows = 0;
	rp->st_error = rp->st_bad = rp->st_overflow = false;
	memset(rp->port_bursts, 0, sizeof(rp->port_bursts));
	/* bursts in flight complete without being counted; their IDs stay busy until then */
	for (unsigned p = 0; p < SB_HBM_MAX_PORTS; p++) {
		struct hbm_rlane *l = &rp->lane[p];

		for (unsigned s = 0; s < SB_HBM_MAX_IDS; s++)
			l->fl[s].live = false;
		l->live = 0;
		l->n = l->head = 0;
		l->t_next = SB_HBM_NEVER;
	}
	rp->t_next = SB_HBM_NEVER;
}

static void push(struct sb_hbm_model *m, uint32_t w3)
{
	struct hbm_replay *rp = &m->replay;
	struct hbm_rdesc *d;
	uint32_t beats = SB_FIELD_GET(SB_HBM_REPLAY_DESC_BEATS, w3);

	if (rp->count == HBM_REPLAY_FIFO_DEPTH) {
		rp->overflows++;
		rp->st_overflow = true;
		return;
	}
	d = &rp->fifo[(rp->head + rp->count) % HBM_REPLAY_FIFO_DEPTH];
	d->time = (uint64_t)SB_FIELD_GET(SB_HBM_REPLAY_DESC_TIME_HI, rp->w[1]) << 32 | rp->w[0];
	d->addr = ((uint64_t)SB_FIELD_GET(SB_HBM_REPLAY_DESC_ADDR_HI, w3) << 32 | rp->w[2]) &
	          ~(uint64_t)(SB_HBM_BEAT_BYTES - 1);
	d->write = SB_FIELD_GET(SB_HBM_REPLAY_DESC_WRITE, w3);
	d->beats = (uint8_t)(beats ? beats : 1);
	d->port = (uint8_t)SB_FIELD_GET(SB_HBM_REPLAY_DESC_PORT, w3);
	rp->count++;
	rp->pushed++;
}

void hbm_replay_write(struct sb_hbm_model *m, uint32_t reg, uint32_t value, uint32_t pulses)
{
	struct hbm_replay *rp = &m->replay;
	uint64_t now = hbm_mem_cycle_up(&m->mem, m->now);
	bool was = rp->enable;
	uint32_t lanes = 0;

	switch (reg) {
	case SB_HBM_REPLAY_DESC_W0:
	case SB_HBM_REPLAY_DESC_W1:
	case SB_HBM_REPLAY_DESC_W2:
		rp->w[(reg - SB_HBM_REPLAY_DESC_W0) / 4] = value;
		return;
	case SB_HBM_REPLAY_DESC_W3:
		push(m, value);
		break;
	case SB_HBM_REPLAY_PORT_MASK:
		rp->port_mask = value;
		break;
	case SB_HBM_REPLAY_CONTROL:
		if (pulses & SB_HBM_REPLAY_CONTROL_RESET_MASK)
			reset(m);
		rp->enable = value & SB_HBM_REPLAY_CONTROL_ENABLE_MASK;
		rp->timed = value & SB_HBM_REPLAY_CONTROL_TIMED_MASK;
		if (rp->enable && !was) {
			rp->start_cycle = hbm_div(&m->mem.tm.div_cyc, m->now);
			rp->t_start = rp->start_cycle * m->mem.tm.cyc;
			for (unsigned p = 0; p < SB_HBM_MAX_PORTS; p++)
				if (rp->lane[p].n) /* their heads wait from now on */
					rp->lane[p].t_head = max64(rp->lane[p].t_head, now);
		}
		lanes = UINT32_MAX >> (32 - m->nports); /* enable, timed: every lane */
		break;
	default:
		return;
	}
	replan(m, dispatch(m, now) | lanes);
}

static uint32_t status(struct sb_hbm_model *m)
{
	struct hbm_replay *rp = &m->replay;
	bool busy = hbm_replay_busy(m);

	return SB_FIELD_PREP(SB_HBM_REPLAY_STATUS_BUSY, busy) |
	       SB_FIELD_PREP(SB_HBM_REPLAY_STATUS_IDLE, !busy) |
	       SB_FIELD_PREP(SB_HBM_REPLAY_STATUS_ERROR, rp->st_error) |
	       SB_FIELD_PREP(SB_HBM_REPLAY_STATUS_BAD_DESC, rp->st_bad) |
	       SB_FIELD_PREP(SB_HBM_REPLAY_STATUS_OVERFLOW, rp->st_overflow);
}

uint64_t hbm_replay_read(struct sb_hbm_model *m, uint32_t reg, uint64_t stored)
{
	struct hbm_replay *rp = &m->replay;

	sync(m);
	switch (reg) {
	case SB_HBM_REPLAY_STATUS:
		return status(m);
	case SB_HBM_REPLAY_FIFO_COUNT:
		return rp->count;
	case SB_HBM_REPLAY_PUSHED:
		return rp->pushed;
	case SB_HBM_REPLAY_START_CYCLE:
		return rp->start_cycle;
	case SB_HBM_REPLAY_ISSUED:
		return rp->issued;
	case SB_HBM_REPLAY_COMPLETED:
		return rp->completed;
	case SB_HBM_REPLAY_READS:
		return rp->reads;
	case SB_HBM_REPLAY_WRITES:
		return rp->writes;
	case SB_HBM_REPLAY_BYTES:
		return rp->bytes;
	case SB_HBM_REPLAY_LAT_SUM:
		return rp->lat_sum;
	case SB_HBM_REPLAY_LAT_MIN:
		return rp->lat_min;
	case SB_HBM_REPLAY_LAT_MAX:
		return rp->lat_max;
	case SB_HBM_REPLAY_LAG_SUM:
		return rp->lag_sum;
	case SB_HBM_REPLAY_LAG_MAX:
		return rp->lag_max;
	case SB_HBM_REPLAY_ERRORS:
		return rp->errors;
	case SB_HBM_REPLAY_BAD:
		return rp->bad;
	case SB_HBM_REPLAY_OVERFLOWS:
		return rp->overflows;
	case SB_HBM_REPLAY_END_CYCLE:
		return rp->end_cycle;
	default:
		break;
	}
	if (reg >= SB_HBM_REPLAY_PORT_BURSTS(0) &&
	    reg < SB_HBM_REPLAY_PORT_BURSTS(SB_HBM_REPLAY_PORT_BURSTS_COUNT))
		return rp->port_bursts[(reg - SB_HBM_REPLAY_PORT_BURSTS(0)) /
		                       SB_HBM_REPLAY_PORT_BURSTS_STRIDE];
	return stored;
}
