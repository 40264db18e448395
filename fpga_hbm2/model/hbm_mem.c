/* SPDX-License-Identifier: MIT */
/* The HBM2 memory system: switch, pseudo channels, banks, refresh (hbm_mem.h, docs/hbm2.md). */
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hbm_mem.h"
#include "stackbench/error.h"

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static void div_init(struct hbm_div *v, uint64_t d)
{
	/* m = ceil(2^k / d), k = 61 + ceil(log2 d): the error x (m - 2^k / d) / 2^k stays below
	 * 1 / d for x < 2^60, so the quotient is exact; m < 2^63 */
	unsigned s = 0;

	while ((1ull << s) < d)
		s++;
	v->d = d;
	v->shift = 61 + s;
	v->m = (uint64_t)((((unsigned __int128)1 << v->shift) + d - 1) / d);
}

static uint64_t gcd64(uint64_t a, uint64_t b)
{
	while (b) {
		uint64_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

/* ---- reservations with gaps -------------------------------------------------------------- */

static void gaps_add(struct hbm_gaps *g, uint64_t s, uint64_t e)
{
	unsigned k = g->n;

	if (e <= s)
		return;
	if (k == SB_HBM_GAPS) { /* full: drop the gap that ends first (the least useful) */
		k = 0;
		for (unsigned i = 1; i < g->n; i++)
			if (g->ge[i] < g->ge[k])
				k = i;
		if (g->ge[k] >= e)
			return;
	} else {
		g->n++;
	}
	g->gs[k] = s;
	g->ge[k] = e;
}

static void gaps_del(struct hbm_gaps *g, unsigned i)
{
	g->n--;
	g->gs[i] = g->gs[g->n];
	g->ge[i] = g->ge[g->n];
}

/*
 * Reserve len ticks at or after t: in a gap when backfill allows and one fits earlier than the
 * frontier, else at max(t, frontier). Gaps that end before now (the issue time of the burst
 * being placed: nothing placed later starts before it) are forgotten. Returns the start.
 */
static uint64_t gaps_reserve(struct hbm_gaps *g, uint64_t now, uint64_t t, uint64_t len,
                             bool backfill)
{
	uint64_t s, best_s = UINT64_MAX;
	unsigned best = UINT_MAX;

	if (backfill) {
		for (unsigned i = 0; i < g->n;) {
			if (g->ge[i] <= now) {
				gaps_del(g, i);
				continue;
			}
			s = max64(g->gs[i], t);
			if (s + len <= g->ge[i] && s < best_s) {
				best_s = s;
				best = i;
			}
			i++;
		}
		if (best != UINT_MAX && best_s < max64(t, g->frontier)) {
			uint64_t a = g->gs[best], e = g->ge[best];

			gaps_del(g, best);
			gaps_add(g, a, best_s);
			gaps_add(g, best_s + len, e);
			return best_s;
		}
	}
	s = max64(t, g->frontier);
	if (backfill)
		gaps_add(g, g->frontier, s);
	g->frontier = s + len;
	return s;
}

static void gaps_reset(struct hbm_gaps *g, uint64_t now)
{
	memset(g, 0, sizeof(*g));
	g->frontier = now;
}

/* ---- timing ------------------------------------------------------------------------------ */

static uint64_t ns_ticks(const struct hbm_timing *tm, double ns)
{
	double t = ceil(ns * (double)tm->ticks_per_s / 1e9 - 1e-9);
	uint64_t v = t > 0 ? (uint64_t)t : 0;

	return (v + tm->ck - 1) / tm->ck * tm->ck; /* whole memory clocks */
}

static void timing_init(struct hbm_timing *tm, const struct sb_hbm_profile *p)
{
	uint64_t g = gcd64(p->axi_clock_hz, p->hbm_clock_hz);

	tm->ticks_per_s = p->axi_clock_hz / g * p->hbm_clock_hz; /* lcm */
	tm->ck = tm->ticks_per_s / p->hbm_clock_hz;
	tm->cyc = tm->ticks_per_s / p->axi_clock_hz;
	div_init(&tm->div_cyc, tm->cyc);
	tm->tcl = ns_ticks(tm, p->tcl_ns);
	tm->tcwl = ns_ticks(tm, p->tcwl_ns);
	tm->trcd = ns_ticks(tm, p->trcd_ns);
	tm->trp = ns_ticks(tm, p->trp_ns);
	tm->tras = ns_ticks(tm, p->tras_ns);
	tm->trc = ns_ticks(tm, p->trc_ns);
	tm->trrd_s = ns_ticks(tm, p->trrd_s_ns);
	tm->trrd_l = ns_ticks(tm, p->trrd_l_ns);
	tm->tfaw = ns_ticks(tm, p->tfaw_ns);
	tm->twr = ns_ticks(tm, p->twr_ns);
	tm->trtp = ns_ticks(tm, p->trtp_ns);
	tm->twtr = ns_ticks(tm, p->twtr_ns);
	tm->trtw =
	    2 * tm->ck; /* assumption: two clocks of bus turnaround from read to write data */
	tm->tccd_s = p->tccd_s_ck * tm->ck;
	tm->tccd_l = p->tccd_l_ck * tm->ck;
	tm->trfc = ns_ticks(tm, p->trfc_ns);
	tm->trefi = ns_ticks(tm, p->trefi_ns);
	tm->trfcsb = ns_ticks(tm, p->trfcsb_ns);
	tm->cmd = p->cmd_cycles * tm->cyc;
	tm->rd = p->rd_cycles * tm->cyc;
	tm->wr_resp = p->wr_resp_cycles * tm->cyc;
	tm->sw = p->global_addressing ? p->switch_cycles * tm->cyc : 0;
	tm->hop = p->hop_cycles * tm->cyc;
	tm->dead = p->write_dead_cycles * tm->cyc;
	div_init(&tm->div_ref, tm->trefi);
	div_init(&tm->div_ref_hot, tm->trefi / 2);
}

uint64_t hbm_mem_cycle_up(const struct hbm_mem *m, uint64_t t)
{
	return hbm_cycle_up(m, t);
}

/* ---- refresh ----------------------------------------------------------------------------- */

/* Phase of bank b's refresh windows (all-bank: the pseudo channel's). */
static uint64_t bank_phase(const struct hbm_mem *m, const struct hbm_pc *pc, unsigned b)
{
	if (m->mc.refresh == SB_HBM_REF_ALL_BANK)
		return pc->phase;
	return pc->phase + b * (m->ref_period / m->nbanks);
}

static uint64_t ref_dur(const struct hbm_mem *m)
{
	return m->mc.refresh == SB_HBM_REF_ALL_BANK ? m->tm.trfc : m->tm.trfcsb;
}

/* Refresh windows that started at or before t (since ref_t0), for a phase. */
static uint64_t ref_count(const struct hbm_mem *m, uint64_t phase, uint64_t t)
{
	uint64_t s = m->ref_t0 + phase;

	return t < s ? 0 : hbm_div(m->rdiv, t - s) + 1;
}

void hbm_mem_set_hot(struct hbm_mem *m, bool hot, uint64_t now)
{
	if (hot == m->hot)
		return;
	/* a change of rate is an epoch boundary: rows open before it count as refreshed */
	m->ref_base = hbm_mem_refreshes(m, now);
	m->ref_e0 += 1 + (uint32_t)ref_count(m, 0, now);
	m->ref_t0 = now;
	m->hot = hot;
	m->ref_period = hot ? m->tm.trefi / 2 : m->tm.trefi;
	m->rdiv = hot ? &m->tm.div_ref_hot : &m->tm.div_ref;
}

uint64_t hbm_mem_refreshes(const struct hbm_mem *m, uint64_t now)
{
	uint64_t n = m->ref_base;

	for (unsigned p = 0; p < m->npcs; p++) {
		if (m->mc.refresh == SB_HBM_REF_ALL_BANK) {
			n += ref_count(m, m->pc[p].phase, now);
			continue;
		}
		for (unsigned b = 0; b < m->nbanks; b++)
			n += ref_count(m, bank_phase(m, &m->pc[p], b), now);
	}
	return n;
}

/* ---- address mapping --------------------------------------------------------------------- */

/*
 * Beat address x (pseudo-channel address >> 5) to bank (BG << 2 | BA) and row, per map
 * (fields from the least significant bit; docs/hbm2.md, "Address maps"):
 *   rbc_bgi  BG0 CA BA BGhi RA      rbc  CA BA BG RA      brc  CA RA BA BG      rcb  BG BA CA RA
 */
static void decode(const struct hbm_mem *m, uint64_t x, unsigned *bank, uint32_t *row)
{
	unsigned bgb = m->bg_bits, ba, bg;
	uint64_t rest;

	switch (m->mc.addr_map) {
	case SB_HBM_MAP_RBC_BGI:
		bg = (unsigned)(x & 1);
		rest = x >> 6;
		ba = (unsigned)(rest & 3);
		rest >>= 2;
		bg |= (unsigned)(rest & ((1u << (bgb - 1)) - 1)) << 1;
		rest >>= bgb - 1;
		*row = (uint32_t)rest;
		break;
	case SB_HBM_MAP_RBC:
		rest = x >> 5;
		ba = (unsigned)(rest & 3);
		rest >>= 2;
		bg = (unsigned)(rest & ((1u << bgb) - 1));
		*row = (uint32_t)(rest >> bgb);
		break;
	case SB_HBM_MAP_BRC:
		rest = x >> 5;
		*row = (uint32_t)(rest & ((1u << m->row_bits) - 1));
		rest >>= m->row_bits;
		ba = (unsigned)(rest & 3);
		bg = (unsigned)(rest >> 2) & ((1u << bgb) - 1);
		break;
	default: /* rcb */
		bg = (unsigned)(x & ((1u << bgb) - 1));
		ba = (unsigned)(x >> bgb) & 3;
		*row = (uint32_t)(x >> (bgb + 7));
		break;
	}
	*bank = bg << 2 | ba;
}

/* ---- a pseudo channel serving a burst --------------------------------------------------- */

struct seg {
	unsigned bank;
	uint32_t row;
	unsigned first, last; /* beat indices */
	uint64_t t_act;       /* SB_HBM_NEVER: no activate (page hit) */
	uint64_t t_col;
	uint8_t kind;
};

/* The (bank, row) pieces of n beats from beat address a. */
static unsigned segments(const struct hbm_mem *m, uint64_t a, unsigned n, struct seg *sg)
{
	unsigned L = m->low_bits, ns = 0;
	uint64_t region = 1ull << (L + 5);

	for (unsigned s = 0; s < n;) {
		unsigned cnt = (unsigned)(region - ((a + s) & (region - 1)));
		unsigned lows;

		if (cnt > n - s)
			cnt = n - s;
		lows = L >= 5 || cnt < (1u << L) ? cnt : (1u << L);
		for (unsigned j = 0; j < lows; j++) {
			struct seg *e = &sg[ns++];

			e->first = s + j;
			e->last = s + j + (((cnt - 1 - j) >> L) << L);
			decode(m, a + e->first, &e->bank, &e->row);
		}
		s += cnt;
	}
	return ns;
}

/*
 * The earliest activate of bank group bg at or after t that tRRD_S, tRRD_L and tFAW allow
 * against the activates placed so far, in whatever order they were placed (a->t is sorted);
 * then record it. One forward sweep: t only moves later, past the activate it conflicts with.
 */
static uint64_t act_place(const struct hbm_mem *m, struct hbm_act *a, unsigned bg, uint64_t t)
{
	const struct hbm_timing *tm = &m->tm;
	unsigned i, j, k;

	/* activates more than tFAW before the issue time constrain nothing placed from now on */
	for (k = 0; k < a->n && a->t[k] + tm->tfaw <= m->now; k++)
		;
	if (k) {
		memmove(a->t, a->t + k, (a->n - k) * sizeof(a->t[0]));
		memmove(a->bg, a->bg + k, a->n - k);
		a->n -= k;
	}
	/* activates before t - tRRD_L constrain t through tFAW only (binary search) */
	for (i = 0, j = a->n; i < j;) {
		k = (i + j) / 2;
		if (a->t[k] + tm->trrd_l <= t)
			i = k + 1;
		else
			j = k;
	}
	j = i;
	for (int round = 0; round < 2 * SB_HBM_ACTS + 2; round++) {
		bool moved = false;

		/* tRRD against the activates near t (t only moves later) */
		for (i = j; i < a->n && a->t[i] < t + tm->trrd_l; i++) {
			uint64_t sp = a->bg[i] == bg ? tm->trrd_l : tm->trrd_s;

			if (a->t[i] + sp > t && a->t[i] < t + sp)
				t = a->t[i] + sp;
		}
		for (k = i; k > 0 && a->t[k - 1] > t; k--)
			;
		/* tFAW: the five-activate windows that contain t (t at position k) */
		for (i = k >= 4 ? k - 4 : 0; i <= k && i + 4 <= a->n; i++) {
			uint64_t first = i == k ? t : a->t[i];
			unsigned fifth = i + 4; /* position in the merged order */
			uint64_t last = fifth == k ? t : fifth < k ? a->t[fifth] : a->t[fifth - 1];

			if (last - first < tm->tfaw) {
				/* t moves past the window: tFAW after its first activate when t is
				 * its last, else past its last */
				t = last == t ? first + tm->tfaw : last + tm->trrd_s;
				moved = true;
				break;
			}
		}
		if (!moved)
			break;
	}
	if (a->n == SB_HBM_ACTS) { /* full (a rare backlog): forget the earliest */
		memmove(a->t, a->t + 1, (SB_HBM_ACTS - 1) * sizeof(a->t[0]));
		memmove(a->bg, a->bg + 1, SB_HBM_ACTS - 1);
		a->n--;
	}
	for (i = a->n; i > 0 && a->t[i - 1] > t; i--) {
		a->t[i] = a->t[i - 1];
		a->bg[i] = a->bg[i - 1];
	}
	a->t[i] = t;
	a->bg[i] = (uint8_t)bg;
	a->n++;
	return t;
}

/* Copy the activates that are there (entries from n on are never read), in fixed-size pieces
 * the compiler copies inline: a libc call per copy cost more than the copy. */
static inline void act_copy(struct hbm_act *d, const struct hbm_act *s)
{
	d->n = s->n;
	for (unsigned i = 0; i < s->n; i += 4)
		memcpy(d->t + i, s->t + i, 4 * sizeof(s->t[0]));
	memcpy(d->bg, s->bg, sizeof(s->bg));
}

/* The controller queue as a min-heap of leave times: the top leaves, a new request enters. */
static void queue_replace_top(uint64_t *q, unsigned n, uint64_t v)
{
	unsigned i = 0;

	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= n)
			break;
		if (c + 1 < n && q[c + 1] < q[c])
			c++;
		if (q[c] >= v)
			break;
		q[i] = q[c];
		i = c;
	}
	q[i] = v;
}

/*
 * The refresh window of a phase that contains t or comes next after it, [*ws, *ws + dur), and
 * the row-state epoch at t (windows started up to t).
 */
static uint32_t ref_window(const struct hbm_mem *m, uint64_t phase, uint64_t t, uint64_t *ws)
{
	uint64_t s = m->ref_t0 + phase, k;

	if (t < s) {
		*ws = s;
		return m->ref_e0;
	}
	k = hbm_div(m->rdiv, t - s);
	*ws = s + k * m->ref_period;
	if (t >= *ws + ref_dur(m))
		*ws += m->ref_period;
	return m->ref_e0 + (uint32_t)k + 1;
}

/*
 * Place a burst of n beats at beat address a on pseudo channel pc, the command in the
 * controller from t (writes: with all data from t_data). Returns the DQ start; *end the DQ end
 * and *page the page state of the first beat's bank.
 */
static uint64_t pc_access(struct hbm_mem *m, struct hbm_pc *pc, uint64_t a, unsigned n, bool write,
                          uint64_t t, uint64_t t_data, uint64_t *end, uint8_t *page)
{
	const struct hbm_timing *tm = &m->tm;
	struct seg sg[2 * SB_HBM_MAX_BEATS];
	uint64_t ws[2 * SB_HBM_MAX_BEATS]; /* each segment's next refresh window */
	uint32_t ep[2 * SB_HBM_MAX_BEATS];
	struct hbm_act as;
	uint64_t lat = write ? tm->tcwl : tm->tcl, len, s = 0, dur = ref_dur(m);
	unsigned ns = segments(m, a, n, sg);
	bool per_bank = m->mc.refresh != SB_HBM_REF_ALL_BANK;

	len = (uint64_t)(n - 1) * m->beat_gap + tm->tccd_s;
	/* a place in the controller's queue: the one whose request leaves first (the heap's top) */
	t = max64(t, pc->queue[0]);
	for (int attempt = 0; attempt < 8; attempt++) {
		bool conflict = false, snap = false;
		uint64_t te0 = t;

		s = write ? max64(t, t_data) + lat : t + lat;
		for (unsigned i = 0; i < ns; i++) {
			struct seg *e = &sg[i];
			struct hbm_bank *b = &pc->bank[e->bank];
			uint64_t te = t;

			if (i == 0 || per_bank) {
				ep[i] = ref_window(m, bank_phase(m, pc, e->bank), t, &ws[i]);
				if (te >= ws[i]) { /* inside the window: after it, a new epoch */
					te = ws[i] + dur;
					ep[i] =
					    ref_window(m, bank_phase(m, pc, e->bank), te, &ws[i]);
				}
				te0 = te;
			} else { /* all-bank refresh: every bank has the first segment's windows */
				ep[i] = ep[0];
				ws[i] = ws[0];
				te = te0;
			}
			if (b->open && b->epoch == ep[i] && b->row == e->row &&
			    !m->mc.closed_page) {
				e->kind = SB_HBM_PAGE_HIT;
				e->t_act = SB_HBM_NEVER;
				e->t_col = max64(te, b->t_col);
			} else {
				uint64_t ta;

				if (b->open && b->epoch == ep[i]) {
					e->kind = SB_HBM_PAGE_MISS;
					ta = max64(te, b->t_pre) + tm->trp;
				} else {
					e->kind = SB_HBM_PAGE_CLOSED;
					ta = te;
				}
				if (!snap) { /* activates go to a copy until the placement holds */
					act_copy(&as, &pc->as);
					snap = true;
				}
				e->t_act = act_place(m, &as, e->bank >> 2, max64(ta, b->t_act));
				e->t_col = e->t_act + tm->trcd;
			}
			/* the beat's column command at S + D(first) - lat must not precede t_col */
			s = max64(s, e->t_col + lat - (uint64_t)e->first * m->beat_gap);
		}
		if (pc->last_end) { /* bus turnaround, in the order bursts are placed */
			if (!write && pc->last_write)
				s = max64(s, pc->last_end + tm->twtr + tm->tcl);
			else if (write && !pc->last_write)
				s = max64(s, pc->last_end + tm->trtw);
		}
		s = gaps_reserve(&pc->bus, m->now, s, len, m->mc.reorder);
		/* every column command (and activate) before the bank's next refresh window */
		for (unsigned i = 0; i < ns; i++)
			if (s + (uint64_t)sg[i].last * m->beat_gap - lat >= ws[i]) {
				conflict = true;
				t = max64(t, ws[i] + dur);
			}
		if (!conflict) {
			if (snap)
				act_copy(&pc->as, &as);
			break;
		}
		/* give the bus back: it was the frontier or a gap */
		if (pc->bus.frontier == s + len)
			pc->bus.frontier = s;
		else
			gaps_add(&pc->bus, s, s + len);
	}
	/* commit */
	for (unsigned i = 0; i < ns; i++) {
		struct seg *e = &sg[i];
		struct hbm_bank *b = &pc->bank[e->bank];
		uint64_t c_last = s + (uint64_t)e->last * m->beat_gap - lat;

		if (e->t_act != SB_HBM_NEVER) {
			b->open = true;
			b->row = e->row;
			b->epoch = ep[i];
			b->t_act = e->t_act + tm->trc;
			b->t_pre = e->t_act + tm->tras;
			pc->activates++;
		}
		b->t_col = max64(b->t_col, c_last + tm->tccd_l);
		if (write)
			b->t_pre = max64(b->t_pre, s + (uint64_t)e->last * m->beat_gap +
			                               tm->tccd_s + tm->twr);
		else
			b->t_pre = max64(b->t_pre, c_last + tm->trtp);
		if (m->mc.closed_page) { /* auto-precharge */
			b->open = false;
			b->t_act = max64(b->t_act, b->t_pre + tm->trp);
		}
	}
	*page = sg[0].kind;
	pc->hits += sg[0].kind == SB_HBM_PAGE_HIT;
	pc->closed += sg[0].kind == SB_HBM_PAGE_CLOSED;
	pc->misses += sg[0].kind == SB_HBM_PAGE_MISS;
	queue_replace_top(pc->queue, m->prof->queue, s + (uint64_t)(n - 1) * m->beat_gap - lat);
	pc->last_end = max64(pc->last_end, s + len);
	pc->last_write = write;
	*end = s + len;
	return s;
}

/* ---- the switch and the ports ------------------------------------------------------------ */

/*
 * Reserve the laterals a burst's data crosses between the port's mini-switch and the pseudo
 * channel's, for occ ticks each, from t on, in the order the data goes (write data from the
 * port, read data from the pseudo channel). Returns when the data has crossed them all.
 */
static uint64_t laterals(struct hbm_mem *m, unsigned stack, unsigned port, unsigned ms_port,
                         unsigned ms_pc, bool write, uint64_t t, uint64_t occ)
{
	const struct sb_hbm_profile *p = m->prof;
	unsigned local = port % 16,
	         lane = (local % p->ports_per_switch) / (p->ports_per_switch / p->lateral_lanes);
	unsigned req_dir = ms_pc > ms_port; /* requests go to higher switch numbers */
	unsigned lo = ms_port < ms_pc ? ms_port : ms_pc, hi = ms_port < ms_pc ? ms_pc : ms_port;

	for (unsigned k = 0; k < hi - lo; k++) {
		/* write data crosses from the port's side, read data from the channel's side */
		bool from_port = write;
		unsigned bnd = (from_port == (bool)req_dir) ? lo + k : hi - 1 - k;
		struct hbm_gaps *g = &m->lateral[stack][bnd][req_dir][lane][write];
		uint64_t need = occ;

		if (write) { /* a dead cycle when the lateral changes master */
			uint8_t *last = &m->lateral_last[stack][bnd][req_dir][lane];

			if (*last && *last != port + 1)
				need += m->tm.dead;
			*last = (uint8_t)(port + 1);
		}
		t = gaps_reserve(g, m->now, t, need, true) + (need - occ) + m->tm.hop;
	}
	return t;
}

void hbm_mem_serve(struct hbm_mem *m, const struct hbm_xfer *x, struct hbm_result *r)
{
	const struct sb_hbm_profile *p = m->prof;
	const struct hbm_timing *tm = &m->tm;
	unsigned pstack = x->port / 16, ms_port = (x->port % 16) / p->ports_per_switch;
	unsigned local = (unsigned)(x->addr >> m->pc_shift) & 15;
	unsigned stack = (unsigned)(x->addr >> (m->pc_shift + 4)) & 1;
	unsigned ms_pc, pcn;
	uint64_t occ = m->occ[x->beats];
	uint64_t t, s, e, path;

	m->requests++;
	m->now = x->t_issue;
	if (!p->global_addressing) { /* each port reaches only its own pseudo channel */
		local = x->port % 16;
		stack = pstack;
	}
	pcn = stack * 16 + local;
	r->pc = (uint8_t)pcn;
	r->page = SB_HBM_PAGE_HIT;
	if (stack != pstack || pcn >= m->npcs) { /* the switch cannot reach the other stack */
		r->resp = 3;
		r->hops = 0;
		r->t_first =
		    gaps_reserve(&m->port_r[x->port], m->now, x->t_issue + tm->cmd, occ, true);
		r->t_done = r->t_first + occ - tm->cyc;
		return;
	}
	ms_pc = local / p->ports_per_switch;
	r->resp = 0;
	r->hops = (uint8_t)(ms_pc > ms_port ? ms_pc - ms_port : ms_port - ms_pc);
	path = tm->sw + r->hops * tm->hop;
	if (x->write) {
		/* W data through the laterals towards the pseudo channel, then the controller */
		uint64_t w0 = x->t_wlast - (uint64_t)(x->beats - 1) * tm->cyc;
		uint64_t tw = laterals(m, stack, x->port, ms_port, ms_pc, true, w0,
		                       (uint64_t)x->beats * tm->cyc);

		tw += (uint64_t)(x->beats - 1) * tm->cyc + tm->cmd + tm->sw;
		if (!r->hops)
			tw = x->t_wlast + tm->cmd + path;
		s = pc_access(m, &m->pc[pcn], (x->addr & ((1ull << m->pc_shift) - 1)) >> 5,
		              x->beats, true, x->t_issue + tm->cmd + path, tw, &e, &r->page);
		r->t_first = r->t_done = hbm_cycle_up(m, e + tm->wr_resp + path);
		return;
	}
	s = pc_access(m, &m->pc[pcn], (x->addr & ((1ull << m->pc_shift) - 1)) >> 5, x->beats, false,
	              x->t_issue + tm->cmd + path, 0, &e, &r->page);
	t = hbm_cycle_up(m, s + tm->rd + tm->sw);
	if (r->hops)
		t = laterals(m, stack, x->port, ms_port, ms_pc, false, t, occ);
	r->t_first = gaps_reserve(&m->port_r[x->port], m->now, t, occ, true);
	r->t_done = r->t_first + occ - tm->cyc;
}

/* ---- set-up ------------------------------------------------------------------------------ */

void hbm_mem_configure(struct hbm_mem *m, const struct sb_hbm_mc_config *mc, uint64_t now)
{
	m->mc = *mc;
	m->low_bits = mc->addr_map == SB_HBM_MAP_RBC_BGI ? 1
	              : mc->addr_map == SB_HBM_MAP_RCB   ? m->bg_bits + 2
	                                                 : 0;
	m->beat_gap = mc->addr_map == SB_HBM_MAP_RBC || mc->addr_map == SB_HBM_MAP_BRC
	                  ? m->tm.tccd_l
	                  : m->tm.tccd_s;
	for (unsigned n = 1; n <= SB_HBM_MAX_BEATS; n++)
		m->occ[n] = hbm_cycle_up(m, (uint64_t)(n - 1) * m->beat_gap + m->tm.tccd_s);
	for (unsigned p = 0; p < m->npcs; p++) {
		struct hbm_pc *pc = &m->pc[p];
		uint64_t *q = pc->queue, ph = pc->phase;

		memset(pc, 0, sizeof(*pc));
		pc->queue = q;
		pc->phase = ph;
		for (unsigned i = 0; i < m->prof->queue; i++)
			q[i] = now;
		for (unsigned b = 0; b < SB_HBM_MAX_BANKS; b++) {
			pc->bank[b].t_act = pc->bank[b].t_col = pc->bank[b].t_pre = now;
		}
		gaps_reset(&pc->bus, now);
	}
	for (unsigned i = 0; i < SB_HBM_MAX_PORTS; i++)
		gaps_reset(&m->port_r[i], now);
	for (unsigned s = 0; s < 2; s++)
		for (unsigned b = 0; b < 8; b++)
			for (unsigned d = 0; d < 2; d++)
				for (unsigned l = 0; l < 4; l++)
					for (unsigned c = 0; c < 2; c++)
						gaps_reset(&m->lateral[s][b][d][l][c], now);
	memset(m->lateral_last, 0, sizeof(m->lateral_last));
}

int hbm_mem_init(struct hbm_mem *m, const struct sb_hbm_profile *p, uint64_t seed)
{
	unsigned banks = p->bank_groups * p->banks_per_group;
	uint64_t x = seed ^ 0x9E3779B97F4A7C15ull;

	memset(m, 0, sizeof(*m));
	m->prof = p;
	timing_init(&m->tm, p);
	m->npcs = 16 * p->stacks;
	m->nbanks = banks;
	m->bg_bits = 0;
	while ((1u << m->bg_bits) < p->bank_groups)
		m->bg_bits++;
	m->row_bits = p->row_bits;
	m->pc_shift = 0;
	while ((1ull << m->pc_shift) < ((uint64_t)p->pc_mb << 20))
		m->pc_shift++;
	if (p->banks_per_group != 4 || m->bg_bits < 1)
		return sb_error_set(
		    SB_ERR_INVAL,
		    "HBM2 profile '%s': the model handles 4 banks per bank group and "
		    "2 or more bank groups",
		    p->name);
	m->ref_period = m->tm.trefi;
	m->rdiv = &m->tm.div_ref;
	for (unsigned i = 0; i < m->npcs; i++) {
		m->pc[i].queue = calloc(p->queue, sizeof(uint64_t));
		if (!m->pc[i].queue) {
			hbm_mem_release(m);
			return sb_error_set(SB_ERR_NOMEM, "out of memory for the HBM2 model");
		}
		/* staggered refresh phases (the seed moves them), whole memory clocks */
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		m->pc[i].phase = x % m->tm.trefi / m->tm.ck * m->tm.ck;
	}
	hbm_mem_configure(m, &p->mc, 0);
	return 0;
}

void hbm_mem_release(struct hbm_mem *m)
{
	for (unsigned i = 0; i < SB_HBM_MAX_PORTS; i++) {
		free(m->pc[i].queue);
		m->pc[i].queue = NULL;
	}
}
