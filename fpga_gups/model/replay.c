/* SPDX-License-Identifier: MIT */
/*
 * Trace replay: the replay block of the model (replay.h). Descriptors come from the host's
 * ring through the model's DMA windows; each port has a queue of SB_RPL_DEPTH
 * descriptors filled in ring order, and the engine issues a port's queue head on that port's
 * request path (port_issue with the replay's marker) once the port is free, fewer than
 * SB_RPL_TAGS of its replayed requests are in flight, the flow-control threshold allows it
 * and — timed — the descriptor is due. Completions come back through sb_replay_complete().
 *
 * Latency is counted from issue to the first response beat (a read's last beat arrives
 * flits - 1 cycles later), as the GUPS ports' monitor does; lag from the due time (timed) or
 * the arrival in the port's queue (untimed) to the issue.
 */
#include <string.h>

#include "model_internal.h"
#include "stackbench/log.h"

static void clear_stats(struct sb_replay *r)
{
	r->issued = r->completed = r->reads = r->writes = r->lat_sum = r->lag_sum = 0;
	r->lat_min = UINT32_MAX;
	r->lat_max = r->lag_max = r->errors = r->bad = 0;
	r->error = r->bad_seen = false;
	r->start_cycle = r->end_cycle = 0;
	memset(r->vault, 0, sizeof(r->vault));
}

void sb_replay_init(struct sb_model *m)
{
	struct sb_replay *r = &m->replay;

	memset(r, 0, sizeof(*r));
	r->port_mask = SB_REPLAY_PORT_MASK_RESET;
	r->ring_log2 = SB_REPLAY_RING_LOG2_RESET;
	clear_stats(r);
}

static bool lane_owned(const struct sb_model *m, unsigned port)
{
	return m->replay.enable && port < m->nports && (m->replay.port_mask >> port & 1);
}

bool sb_replay_owns(const struct sb_model *m, const struct sb_port *p)
{
	return lane_owned(m, p->idx);
}

/* Move descriptors from the ring into the ports' queues, in ring order, until the queue of the
 * next one is full. Returns the ports whose queue was empty and got a descriptor. */
static uint32_t fetch(struct sb_model *m, uint64_t now)
{
	struct sb_replay *r = &m->replay;
	uint32_t wake = 0, size = 1u << r->ring_log2;

	while (r->enable && r->head != r->tail) {
		const uint32_t *w;
		uint64_t off = (uint64_t)(r->head & (size - 1)) * SB_REPLAY_DESC_BYTES;
		uint32_t w3;
		unsigned port, flits;
		struct sb_replay_lane *lane;
		struct sb_replay_desc *d;

		w = sb_model_dma_ptr(m, r->ring_addr + off, SB_REPLAY_DESC_BYTES);
		if (!w) {
			if (!r->fetch_stalled)
				sb_warn("sim: replay ring entry at bus address 0x%llx is not host "
				        "memory the board may read; the replay stalls",
				        (unsigned long long)(r->ring_addr + off));
			r->fetch_stalled = true;
			break;
		}
		w3 = w[SB_REPLAY_DESC_PORT_WORD];
		port = (w3 & SB_REPLAY_DESC_PORT_MASK) >> SB_REPLAY_DESC_PORT_SHIFT;
		if (!lane_owned(m, port)) {
			r->bad++;
			r->bad_seen = true;
			r->head++;
			continue;
		}
		lane = &r->lane[port];
		if (lane->count == SB_RPL_DEPTH)
			break;
		d = &lane->q[(lane->head + lane->count) % SB_RPL_DEPTH];
		flits = (w3 & SB_REPLAY_DESC_FLITS_MASK) >> SB_REPLAY_DESC_FLITS_SHIFT;
		d->flits = (uint8_t)(flits < 1 ? 1 : flits > 8 ? 8 : flits);
		d->write = (w3 & SB_REPLAY_DESC_WRITE_MASK) != 0;
		d->addr =
		    (uint64_t)w[SB_REPLAY_DESC_ADDR_LO_WORD] |
		    (uint64_t)((w3 & SB_REPLAY_DESC_ADDR_HI_MASK) >> SB_REPLAY_DESC_ADDR_HI_SHIFT)
		        << 32;
		if (r->timed) {
			uint64_t cyc = (uint64_t)w[SB_REPLAY_DESC_TIME_HI_WORD] << 32 |
			               w[SB_REPLAY_DESC_TIME_LO_WORD];

			/* Beyond 2^44 cycles (a day) the product would overflow: due "never". */
			d->due = cyc >> 44 ? SB_TICK_NEVER : r->start_tick + cyc * m->tm.cycle;
		} else {
			d->due = now;
		}
		if (!lane->count)
			wake |= 1u << port;
		lane->count++;
		r->head++;
	}
	return wake;
}

/* May the port's queue head issue as far as resources go (not counting time)? */
static bool lane_ready(const struct sb_model *m, const struct sb_port *p)
{
	const struct sb_replay_lane *lane = &m->replay.lane[p->idx];

	return lane_owned(m, p->idx) && lane->count && lane->inflight < SB_RPL_TAGS &&
	       p->outstanding < m->flow_limit && m->hmc.ready;
}

uint64_t sb_replay_next(const struct sb_model *m, const struct sb_port *p)
{
	const struct sb_replay_lane *lane = &m->replay.lane[p->idx];
	uint64_t due;

	if (!lane_ready(m, p))
		return SB_TICK_NEVER;
	due = lane->q[lane->head].due;
	if (due == SB_TICK_NEVER)
		return SB_TICK_NEVER;
	/* Issue happens on clock edges. */
	due = (due + m->tm.cycle - 1) / m->tm.cycle * m->tm.cycle;
	return sb_max64(p->t_free, due);
}

bool sb_replay_take(struct sb_model *m, struct sb_port *p, uint64_t t, struct sb_replay_req *rq)
{
	struct sb_replay *r = &m->replay;
	struct sb_replay_lane *lane = &r->lane[p->idx];
	struct sb_replay_desc *d;
	unsigned vault, bank, quad;
	uint64_t lag;

	if (!lane_ready(m, p) || t < p->t_free || t < lane->q[lane->head].due)
		return false;
	d = &lane->q[lane->head];
	lane->head = (lane->head + 1) % SB_RPL_DEPTH;
	lane->count--;
	lane->inflight++;
	lag = (t - d->due) / m->tm.cycle;
	rq->addr = d->addr;
	rq->write = d->write;
	rq->flits = d->flits;
	r->issued++;
	if (d->write)
		r->writes++;
	else
		r->reads++;
	r->lag_sum += lag;
	if (lag > r->lag_max)
		r->lag_max = lag > UINT32_MAX ? UINT32_MAX : (uint32_t)lag;
	sb_cube_map(m, d->addr, &vault, &bank, &quad);
	if (vault < SB_RPL_VAULTS) {
		r->vault[vault].requests++;
		r->vault[vault].lag_sum += lag;
		r->vault[vault].flits += d->flits;
	}
	rq->wake = fetch(m, t);
	return true;
}

void sb_replay_complete(struct sb_model *m, struct sb_port *p, const struct sb_done *d, bool lost)
{
	struct sb_replay *r = &m->replay;
	struct sb_replay_lane *lane = &r->lane[p->idx];
	unsigned vault, bank, quad, flits = done_flits(d);
	uint64_t ticks = d->t_done - d->t_issue;
	uint32_t lat;

	if (lane->inflight)
		lane->inflight--;
	r->completed++;
	r->end_cycle = d->t_done / m->tm.cycle;
	if (lost || done_errstat(d)) {
		r->errors++;
		r->error = true;
		if (lost)
			return;
	}
	/* A read's response beats follow its first one (as the engine's latency monitor). */
	if (!done_write(d) && flits > 1)
		ticks -= (uint64_t)(flits - 1) * m->prof.port_flit_cycles * m->tm.cycle;
	lat = (uint32_t)(ticks / m->tm.cycle);
	r->lat_sum += lat;
	if (lat < r->lat_min)
		r->lat_min = lat;
	if (lat > r->lat_max)
		r->lat_max = lat;
	sb_cube_map(m, done_addr(d), &vault, &bank, &quad);
	if (vault < SB_RPL_VAULTS) {
		r->vault[vault].lat_sum += lat;
		if (lat > r->vault[vault].lat_max)
			r->vault[vault].lat_max = lat;
	}
}

static bool busy(const struct sb_model *m)
{
	const struct sb_replay *r = &m->replay;

	if (r->head != r->tail)
		return true;
	for (unsigned i = 0; i < SB_RPL_PORTS; i++)
		if (r->lane[i].count || r->lane[i].inflight)
			return true;
	return false;
}

uint64_t sb_replay_read(struct sb_model *m, const struct sb_regloc *l, uint64_t stored)
{
	struct sb_replay *r = &m->replay;
	unsigned v = l->elem;

	sb_engine_settle(m, m->now); /* completions up to now */
	switch (l->reg->offset) {
	case SB_REPLAY_STATUS:
		return (busy(m) ? SB_REPLAY_STATUS_BUSY_MASK : SB_REPLAY_STATUS_IDLE_MASK) |
		       (r->error ? SB_REPLAY_STATUS_ERROR_MASK : 0) |
		       (r->bad_seen ? SB_REPLAY_STATUS_BAD_DESC_MASK : 0);
	case SB_REPLAY_HEAD:
		return r->head;
	case SB_REPLAY_START_CYCLE:
		return r->start_cycle;
	case SB_REPLAY_ISSUED:
		return r->issued;
	case SB_REPLAY_COMPLETED:
		return r->completed;
	case SB_REPLAY_READS:
		return r->reads;
	case SB_REPLAY_WRITES:
		return r->writes;
	case SB_REPLAY_LAT_SUM:
		return r->lat_sum;
	case SB_REPLAY_LAT_MIN:
		return r->lat_min;
	case SB_REPLAY_LAT_MAX:
		return r->lat_max;
	case SB_REPLAY_LAG_SUM:
		return r->lag_sum;
	case SB_REPLAY_LAG_MAX:
		return r->lag_max;
	case SB_REPLAY_ERRORS:
		return r->errors;
	case SB_REPLAY_BAD:
		return r->bad;
	case SB_REPLAY_END_CYCLE:
		return r->end_cycle;
	}
	if (v >= SB_RPL_VAULTS)
		return stored;
	switch (l->reg->offset) {
	case SB_REPLAY_VAULT_REQUESTS(0):
		return r->vault[v].requests;
	case SB_REPLAY_VAULT_LAT_SUM(0):
		return r->vault[v].lat_sum;
	case SB_REPLAY_VAULT_LAG_SUM(0):
		return r->vault[v].lag_sum;
	case SB_REPLAY_VAULT_FLITS(0):
		return r->vault[v].flits;
	case SB_REPLAY_VAULT_LAT_MAX(0):
		return r->vault[v].lat_max;
	default:
		return stored;
	}
}

void sb_replay_write(struct sb_model *m, const struct sb_regloc *l, uint32_t value, uint32_t pulses)
{
	struct sb_replay *r = &m->replay;
	uint32_t b = m->blk_replay, ctl;
	bool was = r->enable;

	sb_engine_settle(m, m->now);
	switch (l->reg->offset) {
	case SB_REPLAY_CONTROL:
		ctl = value;
		if (pulses & SB_REPLAY_CONTROL_RESET_MASK) {
			r->head = r->tail = 0;
			sb_regfile_set32(&m->rf, b + SB_REPLAY_TAIL, 0);
			for (unsigned i = 0; i < SB_RPL_PORTS; i++)
				r->lane[i].head = r->lane[i].count = r->lane[i].inflight = 0;
			r->fetch_stalled = false;
			clear_stats(r);
		}
		r->enable = ctl & SB_REPLAY_CONTROL_ENABLE_MASK;
		r->timed = ctl & SB_REPLAY_CONTROL_TIMED_MASK;
		if (r->enable && !was) {
			uint64_t cyc = (m->now + m->tm.cycle - 1) / m->tm.cycle;

			r->start_cycle = cyc;
			r->start_tick = cyc * m->tm.cycle;
		}
		break;
	case SB_REPLAY_PORT_MASK:
		r->port_mask = value;
		break;
	case SB_REPLAY_RING_ADDR:
		r->ring_addr = sb_regfile_get64(&m->rf, b + SB_REPLAY_RING_ADDR);
		break;
	case SB_REPLAY_RING_LOG2:
		r->ring_log2 = value > 24 ? 24 : value;
		break;
	case SB_REPLAY_TAIL:
		r->tail = value;
		break;
	default:
		break;
	}
	fetch(m, m->now);
	sb_engine_wake(m);
}
