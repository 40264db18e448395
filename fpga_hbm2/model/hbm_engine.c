/* SPDX-License-Identifier: MIT */
/*
 * The traffic engines of the HBM2 board model: per port, the bursts of hbm_traffic.h issued in
 * order, one per AXI cycle at most, each waiting for its AXI ID (burst n: n mod outstanding) to
 * be free and, for writes, for a place in the four-entry W FIFO; the memory system says when
 * each burst completes, and the port accounts it when simulated time passes that point. Ports
 * take turns in time order through a tournament tree.
 */
#include <string.h>

#include "hbm_internal.h"
#include "sb_regmap.h"

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

/* ---- the tournament tree ----------------------------------------------------------------- */

/*
 * A node holds the smallest key of its subtree, a key being t_next << 5 | port: one unsigned
 * comparison orders by time and, at equal times, by port (the lower port goes first), and the
 * root names its port without a second array. t_next is below 2^59 ticks (SB_HBM_NEVER maps to
 * the largest key).
 */
static inline uint64_t tree_key(uint64_t t, unsigned port)
{
	return t >= (SB_HBM_NEVER >> 5) ? SB_HBM_NEVER : t << 5 | port;
}

static void tree_update(struct sb_hbm_model *m, unsigned port)
{
	unsigned i = SB_HBM_MAX_PORTS + port;
	uint64_t k = tree_key(m->port[port].t_next, port);

	m->tn[i] = k;
	for (; i > 1; i /= 2) {
		uint64_t o = m->tn[i ^ 1];

		k = o < k ? o : k;
		m->tn[i / 2] = k;
	}
}

void hbm_engine_init(struct sb_hbm_model *m)
{
	for (unsigned p = 0; p < SB_HBM_MAX_PORTS; p++) {
		m->port[p].idx = p;
		m->port[p].t_next = SB_HBM_NEVER;
		m->port[p].rd_lat_min = m->port[p].wr_lat_min = UINT32_MAX;
		m->tn[SB_HBM_MAX_PORTS + p] = SB_HBM_NEVER;
	}
	for (unsigned p = 0; p < SB_HBM_MAX_PORTS; p++)
		tree_update(m, p);
}

/* ---- accounting -------------------------------------------------------------------------- */

static void lat_add(uint64_t *sum, uint64_t *count, uint32_t *mn, uint32_t *mx, uint64_t cycles)
{
	uint32_t c = cycles > UINT32_MAX ? UINT32_MAX : (uint32_t)cycles;

	*sum += cycles;
	(*count)++;
	if (c < *mn)
		*mn = c;
	if (c > *mx)
		*mx = c;
}

static void account(struct sb_hbm_model *m, struct hbm_port *p, unsigned slot)
{
	struct hbm_flight *f = &p->fl[slot];
	const struct hbm_div *cyc = &m->mem.tm.div_cyc;

	if (f->write) {
		p->wr_bytes += (uint64_t)f->beats * SB_HBM_BEAT_BYTES;
		lat_add(&p->wr_lat_sum, &p->wr_lat_count, &p->wr_lat_min, &p->wr_lat_max,
		        hbm_div(cyc, f->t_first - f->t_issue));
	} else {
		uint64_t lat = hbm_div(cyc, f->t_first - f->t_issue);
		uint64_t bin = lat <= p->hist_base ? 0 : (lat - p->hist_base) >> p->hist_shift;

		p->rd_bytes += (uint64_t)f->beats * SB_HBM_BEAT_BYTES;
		lat_add(&p->rd_lat_sum, &p->rd_lat_count, &p->rd_lat_min, &p->rd_lat_max, lat);
		p->hist[bin > 15 ? 15 : bin]++;
		p->cls[lat <= p->hit_max ? 0 : lat <= p->closed_max ? 1 : 2]++;
	}
	if (f->last)
		p->txns++;
	if (f->resp) {
		p->errors++;
		p->resp_last = f->resp;
	}
	p->t_last_done = max64(p->t_last_done, f->t_done);
	f->live = false;
	p->live &= ~(1ull << slot);
}

void hbm_engine_sync(struct sb_hbm_model *m, unsigned port)
{
	struct hbm_port *p = &m->port[port];
	uint64_t live = p->live;
	unsigned in_use = 0;

	while (live) {
		unsigned s = (unsigned)__builtin_ctzll(live);

		live &= live - 1;
		if (p->fl[s].t_done <= m->now)
			account(m, p, s);
		else
			in_use++;
	}
	if (in_use > p->ids_peak)
		p->ids_peak = in_use;
}

uint32_t hbm_engine_in_use(const struct sb_hbm_model *m, unsigned port)
{
	return (uint32_t)__builtin_popcountll(m->port[port].live);
}

/* ---- issue ------------------------------------------------------------------------------- */

static uint64_t ticks_ps(const struct hbm_timing *tm, uint64_t t)
{
	return (uint64_t)((unsigned __int128)t * 1000000000000ull / tm->ticks_per_s);
}

static void report(struct sb_hbm_model *m, const struct hbm_port *p, const struct sb_hbm_burst *b,
                   uint64_t t, const struct hbm_result *r)
{
	const struct hbm_timing *tm = &m->mem.tm;
	struct sb_hbm_model_request q = {
	    .time_ps = ticks_ps(tm, t),
	    .first_ps = ticks_ps(tm, r->t_first),
	    .done_ps = ticks_ps(tm, r->t_done),
	    .addr = b->addr,
	    .seq = b->seq,
	    .port = (uint8_t)p->idx,
	    .id = b->id,
	    .beats = b->beats,
	    .write = b->write,
	    .pc = r->pc,
	    .hops = r->hops,
	    .page = r->page,
	    .resp = r->resp,
	};

	m->hook(m->hook_ctx, &q);
}

/* The earliest cycle from t on at which burst b may go: its ID free (the cycle after the
 * previous burst with that ID completed) and, for a write, a place in the W FIFO. */
static uint64_t ready_time(const struct hbm_port *p, const struct sb_hbm_burst *b, uint64_t t,
                           uint64_t cyc)
{
	t = max64(t, p->fl[b->id].t_done + cyc);
	if (b->write)
		t = max64(t, p->wfifo[p->wpos]);
	return t;
}

/* Take the port's next burst from its generator and say when it can go. */
static void port_prepare(struct hbm_port *p, uint64_t t, uint64_t cyc)
{
	if (!sb_hbm_gen_more(&p->gen)) {
		p->have_next = false;
		p->t_next = SB_HBM_NEVER;
		return;
	}
	sb_hbm_gen_next(&p->gen, &p->next);
	p->have_next = true;
	p->t_next = p->enabled ? ready_time(p, &p->next, t, cyc) : SB_HBM_NEVER;
}

void hbm_engine_issue(struct sb_hbm_model *m, unsigned port, const struct sb_hbm_burst *b,
                      uint64_t t, struct hbm_result *r)
{
	struct hbm_port *p = &m->port[port];
	const uint64_t cyc = m->mem.tm.cyc;
	struct hbm_xfer x;

	x.t_issue = t;
	x.addr = b->addr;
	x.port = (uint8_t)port;
	x.beats = b->beats;
	x.write = b->write;
	x.t_wlast = 0;
	if (b->write) {
		uint64_t w0 = max64(t, p->w_free);

		x.t_wlast = w0 + (uint64_t)(b->beats - 1) * cyc;
		p->w_free = x.t_wlast + cyc;
		p->wfifo[p->wpos] = x.t_wlast;
		p->wpos = (p->wpos + 1) & 3;
		m->writes++;
		m->write_bytes += (uint64_t)b->beats * SB_HBM_BEAT_BYTES;
	} else {
		m->reads++;
		m->read_bytes += (uint64_t)b->beats * SB_HBM_BEAT_BYTES;
	}
	hbm_mem_serve(&m->mem, &x, r);
	if (m->trace.enable)
		hbm_trace_record(m, port, b, t, r);
	if (m->hook)
		report(m, p, b, t, r);
}

uint64_t hbm_engine_ready(const struct sb_hbm_model *m, unsigned port, const struct sb_hbm_burst *b,
                          uint64_t t)
{
	return ready_time(&m->port[port], b, t, m->mem.tm.cyc);
}

/* Issue the port's prepared burst at p->t_next, then prepare the next one. */
static void port_step(struct sb_hbm_model *m, struct hbm_port *p)
{
	const uint64_t cyc = m->mem.tm.cyc, t = p->t_next;
	struct sb_hbm_burst *b = &p->next;
	struct hbm_flight *f = &p->fl[b->id];
	struct hbm_result r;

	if (f->live)
		account(m, p, b->id);
	if (b->write)
		p->wr_bursts++;
	else
		p->rd_bursts++;
	hbm_engine_issue(m, p->idx, b, t, &r);
	f->t_issue = t;
	f->t_first = r.t_first;
	f->t_done = r.t_done;
	f->beats = b->beats;
	f->write = b->write;
	f->last = b->last;
	f->resp = r.resp;
	f->live = true;
	p->live |= 1ull << b->id;
	port_prepare(p, t + cyc, cyc);
}

/* The ports' engines and the replay block (hbm_replay.c) take turns in time order; at equal
 * times the engines go first. */
void hbm_engine_run(struct sb_hbm_model *m, uint64_t until)
{
	for (;;) {
		uint64_t te = m->tn[1] == SB_HBM_NEVER ? SB_HBM_NEVER : m->tn[1] >> 5;
		uint64_t tr = m->replay.t_next;
		unsigned w;

		if (tr < te) {
			if (tr >= until)
				return;
			hbm_replay_step(m);
			continue;
		}
		if (te == SB_HBM_NEVER || te >= until)
			return;
		w = (unsigned)(m->tn[1] & (SB_HBM_MAX_PORTS - 1));

		port_step(m, &m->port[w]);
		tree_update(m, w);
	}
}

bool hbm_engine_running(const struct sb_hbm_model *m, unsigned port)
{
	const struct hbm_port *p = &m->port[port];

	return p->started && p->enabled && (p->have_next || sb_hbm_gen_more(&p->gen));
}

/* ---- control ----------------------------------------------------------------------------- */

void hbm_engine_start(struct sb_hbm_model *m, unsigned port)
{
	struct hbm_port *p = &m->port[port];
	const struct sb_hbm_regs *rf = &m->rf;
	uint32_t b = p->blk, ctl = sb_hbm_regs_get32(rf, b + SB_HBM_PORT_CONTROL);
	uint32_t cls = sb_hbm_regs_get32(rf, b + SB_HBM_PORT_LAT_CLASS);
	uint32_t hc = sb_hbm_regs_get32(rf, b + SB_HBM_PORT_HIST_CFG);
	struct sb_hbm_cfg c = {
	    .start_addr = sb_hbm_regs_get64(rf, b + SB_HBM_PORT_START_ADDR),
	    .ws_size = sb_hbm_regs_get64(rf, b + SB_HBM_PORT_WS_SIZE),
	    .run_len = sb_hbm_regs_get64(rf, b + SB_HBM_PORT_RUN_LEN),
	    .burst_bytes = sb_hbm_regs_get32(rf, b + SB_HBM_PORT_BURST_BYTES),
	    .outstanding = sb_hbm_regs_get32(rf, b + SB_HBM_PORT_OUTSTANDING),
	    .stride = sb_hbm_regs_get32(rf, b + SB_HBM_PORT_STRIDE),
	    .mix_writes = sb_hbm_regs_get32(rf, b + SB_HBM_PORT_MIX_WRITES),
	    .seed = sb_hbm_regs_get32(rf, b + SB_HBM_PORT_SEED),
	    .op = (uint8_t)SB_FIELD_GET(SB_HBM_PORT_CONTROL_OP, ctl),
	    .random =
	        SB_FIELD_GET(SB_HBM_PORT_CONTROL_MODE, ctl) == SB_HBM_PORT_CONTROL_MODE_RANDOM,
	};
	uint64_t t0 = hbm_mem_cycle_up(&m->mem, m->now);

	/* bursts still in flight complete without being counted; their IDs stay busy until then */
	for (unsigned s = 0; s < SB_HBM_MAX_IDS; s++)
		p->fl[s].live = false;
	p->live = 0;
	sb_hbm_gen_start(&p->gen, &c);
	p->have_next = false;
	p->hit_max = SB_FIELD_GET(SB_HBM_PORT_LAT_CLASS_HIT_MAX, cls);
	p->closed_max = SB_FIELD_GET(SB_HBM_PORT_LAT_CLASS_CLOSED_MAX, cls);
	p->hist_base = SB_FIELD_GET(SB_HBM_PORT_HIST_CFG_BASE, hc);
	p->hist_shift = SB_FIELD_GET(SB_HBM_PORT_HIST_CFG_SHIFT, hc);
	p->txns = p->rd_bursts = p->wr_bursts = p->rd_bytes = p->wr_bytes = 0;
	p->rd_lat_sum = p->rd_lat_count = p->wr_lat_sum = p->wr_lat_count = 0;
	p->rd_lat_max = p->wr_lat_max = 0;
	p->rd_lat_min = p->wr_lat_min = UINT32_MAX;
	p->errors = p->resp_last = p->ids_peak = 0;
	memset(p->hist, 0, sizeof(p->hist));
	memset(p->cls, 0, sizeof(p->cls));
	p->t_start = p->t_last_done = t0;
	p->w_free = max64(p->w_free, t0);
	p->started = true;
	p->enabled = true;
	port_prepare(p, t0, m->mem.tm.cyc);
	tree_update(m, port);
}

void hbm_engine_enable(struct sb_hbm_model *m, unsigned port, bool enable)
{
	struct hbm_port *p = &m->port[port];

	p->enabled = enable;
	if (!enable)
		p->t_next = SB_HBM_NEVER;
	else if (p->have_next && p->t_next == SB_HBM_NEVER)
		p->t_next =
		    ready_time(p, &p->next, hbm_mem_cycle_up(&m->mem, m->now), m->mem.tm.cyc);
	tree_update(m, port);
}

static bool port_finished(const struct hbm_port *p)
{
	return p->started && !p->have_next && !sb_hbm_gen_more(&p->gen);
}

uint32_t hbm_engine_status(struct sb_hbm_model *m, unsigned port)
{
	struct hbm_port *p = &m->port[port];
	bool idle, running, done;

	hbm_engine_sync(m, port);
	idle = p->live == 0;
	running = p->started && p->enabled && !port_finished(p);
	done = port_finished(p) && idle;
	return SB_FIELD_PREP(SB_HBM_PORT_STATUS_RUNNING, running) |
	       SB_FIELD_PREP(SB_HBM_PORT_STATUS_DONE, done) |
	       SB_FIELD_PREP(SB_HBM_PORT_STATUS_IDLE, idle) |
	       SB_FIELD_PREP(SB_HBM_PORT_STATUS_ERROR, p->errors != 0) |
	       SB_FIELD_PREP(SB_HBM_PORT_STATUS_RESP, p->resp_last);
}

uint64_t hbm_engine_active_cycles(const struct sb_hbm_model *m, unsigned port)
{
	const struct hbm_port *p = &m->port[port];
	uint64_t end;

	if (!p->started)
		return 0;
	end = port_finished(p) && p->live == 0 ? p->t_last_done : m->now;
	return end > p->t_start ? (end - p->t_start) / m->mem.tm.cyc : 0;
}
