/* SPDX-License-Identifier: MIT */
/*
 * The GUPS engine, the FPGA infrastructure, the links and the HMC cube.
 *
 * The engine is a discrete-event model that does little per request. Ports are visited in
 * order of the time they next have something to do (a scan of at most 9 ports). When a port
 * issues a request, the request's whole path is reserved at once on resources that remember
 * when they are next free: the port interface, the link's request direction (requests reach it
 * in time order, so a "next free" time suffices), the cube input, the vault controller's queue,
 * the bank (closed page: activate, column transfers, precharge), the vault's activate and data
 * bus slots and the link's response direction. The last three are calendars (bitmaps of slots)
 * because requests reach them out of order: a request to a busy bank must not block the data
 * bus for requests to idle banks. The request's completion time at the port is known when it
 * is issued; the port retires completions lazily, in time order, when it next looks at them.
 *
 * See docs/model.md for what is modelled, the parameters and what is left out.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gups_pattern.h"
#include "model_internal.h"
#include "stackbench/error.h"
#include "stackbench/log.h"

#define TAG_DEPTH 64u
#define ERRSTAT_THERMAL 0x01u          /* ERRSTAT the model uses to announce a thermal failure */
#define SB_GUPS_WRITE_SEED 0x47555053u /* "GUPS": data pattern seed of GUPS write traffic */

static inline uint64_t max64(uint64_t a, uint64_t b)
{
	return a > b ? a : b;
}

static inline uint64_t min64(uint64_t a, uint64_t b)
{
	return a < b ? a : b;
}

static inline uint64_t div_up(uint64_t a, uint64_t b)
{
	return (a + b - 1) / b;
}

static uint64_t ns_ticks(double ns)
{
	return (uint64_t)(ns * 1000.0 * SB_TICKS_PER_PS + 0.5);
}

/* ---- calendars -------------------------------------------------------------------------- */

static void cal_init(struct sb_calendar *c, uint64_t slot_ticks)
{
	memset(c, 0, sizeof(*c));
	c->slot_ticks = slot_ticks;
}

/* Mark the word w (absolute first slot `first`) taken where it lies below the overflow mark. */
static void cal_fill_overflow(struct sb_calendar *c, unsigned w, uint64_t first)
{
	uint64_t n;

	if (c->overflow <= first)
		return;
	n = c->overflow - first;
	c->bits[w] |= n >= 64 ? ~0ull : (1ull << n) - 1;
	if (c->bits[w] == ~0ull)
		c->fullw[w / 64] |= 1ull << (w % 64);
}

/* Forget slots before now_slot (nothing can be reserved before the present). */
static void cal_advance(struct sb_calendar *c, uint64_t now_slot)
{
	if (c->full < now_slot)
		c->full = now_slot;
	if (now_slot < c->base + 128)
		return;
	if (now_slot >= c->base + SB_CAL_SLOTS) {
		memset(c->bits, 0, sizeof(c->bits));
		memset(c->fullw, 0, sizeof(c->fullw));
		c->base = now_slot & ~63ull;
		c->base_word = 0;
		c->full = c->base;
		for (unsigned w = 0; w < SB_CAL_WORDS; w++)
			cal_fill_overflow(c, w, c->base + 64ull * w);
		return;
	}
	while (c->base + 64 <= now_slot) {
		unsigned w = c->base_word;

		c->bits[w] = 0;
		c->fullw[w / 64] &= ~(1ull << (w % 64));
		c->base_word = (w + 1) % SB_CAL_WORDS;
		c->base += 64;
		cal_fill_overflow(c, w, c->base + SB_CAL_SLOTS - 64);
	}
}

/* k (<= 58) bits of the calendar from absolute slot s; slots before the window read free. */
static inline uint64_t cal_bits(const struct sb_calendar *c, uint64_t s, unsigned k)
{
	uint64_t rel, v;
	unsigned w, b;

	if (s < c->base) {
		uint64_t skip = c->base - s;

		if (skip >= k)
			return 0;
		return cal_bits(c, c->base, k - (unsigned)skip) << skip;
	}
	rel = s - c->base;
	w = (unsigned)((c->base_word + rel / 64) % SB_CAL_WORDS);
	b = (unsigned)(rel % 64);
	v = c->bits[w] >> b;
	if (b + k > 64)
		v |= c->bits[(w + 1) % SB_CAL_WORDS] << (64 - b);
	return v & ((1ull << k) - 1);
}

/* The last word of the ring is kept out of use so multi-word reads never wrap onto the first. */
static inline bool cal_in_window(const struct sb_calendar *c, uint64_t s, unsigned k)
{
	return s + k <= c->base + SB_CAL_SLOTS - 64;
}

static inline uint64_t *cal_word(struct sb_calendar *c, uint64_t s, unsigned *bit)
{
	uint64_t rel = s - c->base;

	*bit = (unsigned)(rel % 64);
	return &c->bits[(c->base_word + rel / 64) % SB_CAL_WORDS];
}

/* First free slot >= s, or the end of the usable window. Full words are skipped through the
 * summary bitmap (one bit per word that is completely taken). */
static uint64_t cal_next_free(struct sb_calendar *c, uint64_t s)
{
	uint64_t end = c->base + SB_CAL_SLOTS - 64, rel, inv;
	unsigned lw, b, phys;

	if (s < c->base)
		s = c->base;
	if (s >= end)
		return end;
	rel = s - c->base;
	lw = (unsigned)(rel / 64);
	b = (unsigned)(rel % 64);
	phys = (c->base_word + lw) % SB_CAL_WORDS;
	inv = ~c->bits[phys] >> b;
	if (inv)
		return s + (unsigned)__builtin_ctzll(inv);
	for (lw++; lw < SB_CAL_WORDS - 1;) {
		unsigned span, sb;
		uint64_t notfull;

		phys = (c->base_word + lw) % SB_CAL_WORDS;
		sb = phys % 64;
		span = 64 - sb;
		notfull = ~c->fullw[phys / 64] >> sb;
		if (notfull) {
			unsigned d = (unsigned)__builtin_ctzll(notfull);

			if (d < span) {
				lw += d;
				if (lw >= SB_CAL_WORDS - 1)
					break;
				phys = (c->base_word + lw) % SB_CAL_WORDS;
				return c->base + 64ull * lw +
				       (unsigned)__builtin_ctzll(~c->bits[phys]);
			}
		}
		lw += span;
	}
	return end;
}

/* First taken slot in [s, limit), or limit. */
static uint64_t cal_next_taken(struct sb_calendar *c, uint64_t s, uint64_t limit)
{
	while (s < limit) {
		unsigned b;
		const uint64_t *w = cal_word(c, s, &b); /* sets b: read it only afterwards */
		uint64_t v = *w >> b;

		if (v)
			return min64(limit, s + (unsigned)__builtin_ctzll(v));
		s += 64 - b;
	}
	return limit;
}

/*
 * First slot >= s with k consecutive free slots. Slots before c->full are all taken, which
 * makes the search O(1) when a saturated resource is booked solid up to its frontier.
 */
static uint64_t cal_find_slow(struct sb_calendar *c, uint64_t s, unsigned k)
{
	for (;;) {
		uint64_t e;

		if (!cal_in_window(c, s, k))
			return max64(s, c->overflow);
		s = cal_next_free(c, s);
		if (!cal_in_window(c, s, k))
			return max64(s, c->overflow);
		e = cal_next_taken(c, s, s + k);
		if (e == s + k)
			return s;
		s = e;
	}
}

/* Fast path: the first candidate slot is usually free. */
static inline uint64_t cal_find(struct sb_calendar *c, uint64_t s, unsigned k)
{
	if (s < c->full)
		s = c->full;
	if (s >= c->base && s + k <= c->base + SB_CAL_SLOTS - 64) {
		uint64_t rel = s - c->base, v;
		unsigned phys = (unsigned)((c->base_word + rel / 64) % SB_CAL_WORDS);
		unsigned b = (unsigned)(rel % 64);

		v = c->bits[phys] >> b;
		if (b + k > 64)
			v |= c->bits[(phys + 1) % SB_CAL_WORDS] << (64 - b);
		if (!(v & ((1ull << k) - 1)))
			return s;
	}
	return cal_find_slow(c, s, k);
}

static inline void cal_set_bits(struct sb_calendar *c, unsigned phys, uint64_t mask)
{
	uint64_t *w = &c->bits[phys];

	*w |= mask;
	if (*w == ~0ull)
		c->fullw[phys / 64] |= 1ull << (phys % 64);
}

static inline void cal_take(struct sb_calendar *c, uint64_t s, unsigned k)
{
	uint64_t rel;
	unsigned phys, b;

	if (!cal_in_window(c, s, k)) {
		c->overflow = max64(c->overflow, s + k);
		return;
	}
	if (s < c->base) {
		if (s + k <= c->base)
			return;
		k -= (unsigned)(c->base - s);
		s = c->base;
	}
	rel = s - c->base;
	phys = (unsigned)((c->base_word + rel / 64) % SB_CAL_WORDS);
	b = (unsigned)(rel % 64);
	if (b + k <= 64) {
		cal_set_bits(c, phys, (k == 64 ? ~0ull : (1ull << k) - 1) << b);
	} else {
		cal_set_bits(c, phys, ~0ull << b);
		cal_set_bits(c, (phys + 1) % SB_CAL_WORDS, (1ull << (b + k - 64)) - 1);
	}
	if (s <= c->full && s + k > c->full)
		c->full = cal_next_free(c, s + k);
}

/* ---- heaps ------------------------------------------------------------------------------ */

/* Outstanding requests of a port: a binary min-heap on t_done. */
static inline uint64_t done_key(const struct sb_model *m, const struct sb_done *d, unsigned idx)
{
	uint64_t cyc =
	    d->t_done == SB_TICK_NEVER ? SB_DONE_NEVER_CYCLES : sb_div(&m->tm.div_cycle, d->t_done);

	return cyc << SB_DONE_IDX_BITS | idx;
}

static void heap_push(struct sb_port *p, uint64_t key)
{
	unsigned i = p->ndone++;

	while (i) {
		unsigned parent = (i - 1) / 2;

		if (p->heap[parent] <= key)
			break;
		p->heap[i] = p->heap[parent];
		i = parent;
	}
	p->heap[i] = key;
}

static void done_push(const struct sb_model *m, struct sb_port *p, const struct sb_done *d)
{
	unsigned idx = p->free_slots[--p->nfree];

	p->slots[idx] = *d;
	heap_push(p, done_key(m, d, idx));
}

/*
 * Pop the minimum. Bottom-up: move the hole down to a leaf along the smaller children (a loop of
 * predictable length with branch-free child selection; the slot past the end holds a sentinel),
 * then sift the last key up from there, which rarely moves since it is usually large.
 */
static void done_pop(struct sb_port *p, struct sb_done *out)
{
	uint64_t *h = p->heap, last;
	unsigned i = 0, n, idx = (unsigned)(h[0] & (SB_DONE_MAX - 1));

	*out = p->slots[idx];
	p->free_slots[p->nfree++] = (uint16_t)idx;
	last = h[--p->ndone];
	n = p->ndone;
	h[n] = UINT64_MAX; /* sentinel: a missing right child never wins */
	if (!n)
		return;
	for (;;) {
		unsigned c = 2 * i + 1;

		if (c >= n)
			break;
		c += h[c + 1] < h[c];
		h[i] = h[c];
		i = c;
	}
	while (i) {
		unsigned parent = (i - 1) / 2;

		if (h[parent] <= last)
			break;
		h[i] = h[parent];
		i = parent;
	}
	h[i] = last;
}

/* Completion tick of the earliest outstanding request (the port has one). */
static inline uint64_t done_first(const struct sb_port *p)
{
	return p->slots[p->heap[0] & (SB_DONE_MAX - 1)].t_done;
}

/* Rebuild the heap after payload completion times changed. */
static void done_rebuild(const struct sb_model *m, struct sb_port *p)
{
	unsigned n = p->ndone;

	p->ndone = 0;
	for (unsigned k = 0; k < n; k++) {
		unsigned idx = (unsigned)(p->heap[k] & (SB_DONE_MAX - 1));

		heap_push(p, done_key(m, &p->slots[idx], idx));
	}
}

void sb_engine_done_rebuild(struct sb_model *m, struct sb_port *p)
{
	done_rebuild(m, p);
}

/* Forget every outstanding request. */
static void done_clear(struct sb_port *p)
{
	p->ndone = 0;
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

/* ---- memory contents (stream integrity) --------------------------------------------------- */

static struct sb_mem_entry *mem_slot(struct sb_memory *mem, uint64_t block, bool insert)
{
	uint64_t key = block + 1, h;
	size_t i;

	if (!mem->cap) {
		if (!insert)
			return NULL;
		mem->tab = calloc(4096, sizeof(*mem->tab));
		if (!mem->tab)
			return NULL;
		mem->cap = 4096;
	}
	if (insert && (mem->used + 1) * 4 > mem->cap * 3) {
		struct sb_memory big = {0};
		size_t ncap = mem->cap * 2;

		big.tab = calloc(ncap, sizeof(*big.tab));
		if (!big.tab)
			return NULL;
		big.cap = ncap;
		big.power_seed = mem->power_seed;
		for (size_t j = 0; j < mem->cap; j++) {
			if (!mem->tab[j].block)
				continue;
			struct sb_mem_entry *e = mem_slot(&big, mem->tab[j].block - 1, true);

			memcpy(e->data, mem->tab[j].data, sizeof(e->data));
		}
		free(mem->tab);
		*mem = big;
	}
	h = key * 0x9E3779B97F4A7C15ull;
	for (i = (size_t)(h >> 20) & (mem->cap - 1);; i = (i + 1) & (mem->cap - 1)) {
		struct sb_mem_entry *e = &mem->tab[i];

		if (e->block == key)
			return e;
		if (!e->block) {
			if (!insert)
				return NULL;
			e->block = key;
			mem->used++;
			for (unsigned w = 0; w < 4; w++)
				e->data[w] = sb_pattern_word(mem->power_seed, block << 4, 0, w);
			return e;
		}
	}
}

static void mem_clear(struct sb_memory *mem, uint32_t new_power_seed)
{
	free(mem->tab);
	mem->tab = NULL;
	mem->cap = mem->used = 0;
	mem->power_seed = new_power_seed;
}

/* Compare the blocks a stream read returns with the expected pattern. */
static bool mem_check(struct sb_memory *mem, uint64_t addr, unsigned flits, uint32_t seed)
{
	for (unsigned b = 0; b < flits; b++) {
		uint64_t block = (addr >> 4) + b;
		struct sb_mem_entry *e = mem_slot(mem, block, false);

		for (unsigned w = 0; w < 4; w++) {
			uint32_t have =
			    e ? e->data[w] : sb_pattern_word(mem->power_seed, block << 4, 0, w);

			if (have != sb_pattern_word(seed, block << 4, 0, w))
				return false;
		}
	}
	return true;
}

static void mem_write(struct sb_memory *mem, uint64_t addr, unsigned flits, uint32_t seed,
                      bool always)
{
	for (unsigned b = 0; b < flits; b++) {
		uint64_t block = (addr >> 4) + b;
		struct sb_mem_entry *e = mem_slot(mem, block, always);

		if (!e)
			continue;
		for (unsigned w = 0; w < 4; w++)
			e->data[w] = sb_pattern_word(seed, block << 4, 0, w);
	}
}

/* ---- geometry and timing ---------------------------------------------------------------- */

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

void sb_engine_map(const struct sb_model *m, uint64_t addr, unsigned *vault, unsigned *bank,
                   unsigned *quadrant)
{
	*vault = (unsigned)(addr >> m->vault_shift) & (m->nvaults - 1);
	*bank = (unsigned)(addr >> m->bank_shift) & (m->nbanks - 1);
	*quadrant = *vault >> 2;
}

void sb_engine_set_addr_mode(struct sb_model *m, unsigned mode)
{
	/* Max block 32/64/128 B: vault bits start at 5/6/7 (HMC specification, default mapping). */
	static const unsigned offset_bits[3] = {5, 6, 7};

	if (mode > 2)
		mode = 2;
	m->vault_shift = offset_bits[mode];
	m->bank_shift = m->vault_shift + 4; /* 16 vaults */
}

static void divider_init(struct sb_divider *v, uint64_t d)
{
	unsigned l = 0;

	while ((1ull << l) < d)
		l++;
	v->d = d;
	v->shift = 60 + l;
	v->m = (uint64_t)((((unsigned __int128)1 << v->shift) + d - 1) / d);
}

/* A DRAM timing in ticks, rounded up to whole DRAM clocks (commands issue on clock edges). */
static uint64_t dram_ticks(double ns, double tck_ns)
{
	double clocks = ns / tck_ns;
	uint64_t n = (uint64_t)clocks;

	if ((double)n < clocks - 1e-9)
		n++;
	return ns_ticks((double)n * tck_ns);
}

static void timing_init(struct sb_model *m)
{
	const struct sb_profile *p = &m->prof;
	struct sb_timing *t = &m->tm;
	uint64_t lane_bps = (uint64_t)p->lane_rate_mbps * 1000000ull * p->lanes;
	double ck = p->tck_ns;

	t->cycle = (uint64_t)(1e12 * SB_TICKS_PER_PS / (double)p->user_clock_hz + 0.5);
	t->flit = (uint64_t)(128.0 * 1e12 * SB_TICKS_PER_PS / (double)lane_bps + 0.5);
	t->tx_fixed = (uint64_t)(p->tx_f2p_cycles + p->tx_arb_cycles + p->tx_seq_crc_cycles +
	                         p->tx_serdes_cycles) *
	              t->cycle;
	t->tx_transmit = (uint64_t)p->tx_transmit_cycles * t->cycle;
	t->rx_path = ns_ticks(p->rx_path_ns);
	t->cube_in = ns_ticks(p->cube_in_ns);
	t->cube_out = ns_ticks(p->cube_out_ns);
	t->xbar_local = ns_ticks(p->xbar_local_ns);
	t->xbar_remote = ns_ticks(p->xbar_remote_ns);
	/* The vault runs on a grid of tCCD: one column transfer per slot, activates on the same
	 * grid (tRRD and tFAW in whole slots). */
	t->dram_slot = dram_ticks(p->tccd_ns, ck);
	t->trcd = dram_ticks(p->trcd_ns, ck);
	t->tcl = dram_ticks(p->tcl_ns, ck);
	t->tcwl = dram_ticks(p->tcwl_ns, ck);
	t->tras = dram_ticks(p->tras_ns, ck);
	t->trc = dram_ticks(p->trc_ns, ck);
	t->trp = dram_ticks(p->trp_ns, ck);
	t->trtp = dram_ticks(p->trtp_ns, ck);
	t->twr = dram_ticks(p->twr_ns, ck);
	t->trfc = dram_ticks(p->trfc_ns, ck);
	t->trefi = dram_ticks(p->trefi_ns, ck);
	t->rd_data_slots = (unsigned)div_up(t->trcd + t->tcl, t->dram_slot);
	t->wr_data_slots = (unsigned)div_up(t->trcd + t->tcwl, t->dram_slot);
	t->rrd_slots = (unsigned)div_up(dram_ticks(p->trrd_ns, ck), t->dram_slot);
	if (t->rrd_slots < 1)
		t->rrd_slots = 1;
	if (t->rrd_slots > 8)
		t->rrd_slots = 8;
	t->faw_slots = (unsigned)div_up(dram_ticks(p->tfaw_ns, ck), t->dram_slot);
	if (t->faw_slots > 16)
		t->faw_slots = 16;
	t->gap_slots = (unsigned)div_up(dram_ticks(p->bus_turnaround_ns, ck), t->dram_slot);
	if (t->gap_slots > 8)
		t->gap_slots = 8;
	t->packet_gap = p->packet_gap_flits;
	t->cmd_cycles = p->port_cmd_cycles;
	t->tokens = p->link_tokens;
	t->bus_bytes = p->bus_bytes;
	t->search_limit = 1u << 20;
	for (t->bus_shift = 0; (1u << t->bus_shift) < t->bus_bytes; t->bus_shift++)
		;
	divider_init(&t->div_cycle, t->cycle);
	divider_init(&t->div_flit, t->flit);
	divider_init(&t->div_slot, t->dram_slot);
	divider_init(&t->div_trefi, t->trefi);
	divider_init(&t->div_trefi_hot, t->trefi / 2);
}

/*
 * Flit times a packet of n flits holds one direction of a link: its flits back to back (the
 * serializer packs packets without gaps), and for a packet that carries data (write request,
 * read response) the per-packet handling time packet_gap (an assumption, docs/model.md).
 */
static inline unsigned link_slots(const struct sb_timing *t, unsigned n, bool data)
{
	return n + (data ? t->packet_gap : 0);
}

/* ---- the cube --------------------------------------------------------------------------- */

/* Refresh: push a bank operation [x, x+len) out of this vault's refresh windows. */
static uint64_t refresh_fit(const struct sb_model *m, const struct sb_vault *v, uint64_t x,
                            uint64_t len)
{
	uint64_t trefi = m->hot ? m->tm.trefi / 2 : m->tm.trefi;
	const struct sb_divider *dv = m->hot ? &m->tm.div_trefi_hot : &m->tm.div_trefi;
	uint64_t rel, start;

	if (x < v->refresh_phase)
		return x + len > v->refresh_phase ? v->refresh_phase + m->tm.trfc : x;
	rel = x - v->refresh_phase - sb_div(dv, x - v->refresh_phase) * trefi;
	start = x - rel;
	if (rel < m->tm.trfc)
		return start + m->tm.trfc;
	if (x + len > start + trefi)
		return start + trefi + m->tm.trfc;
	return x;
}

static const uint8_t pop8[256] = {
#define B2(n) n, n + 1, n + 1, n + 2
#define B4(n) B2(n), B2(n + 1), B2(n + 1), B2(n + 2)
#define B6(n) B4(n), B4(n + 1), B4(n + 1), B4(n + 2)
    B6(0),
    B6(1),
    B6(1),
    B6(2),
#undef B2
#undef B4
#undef B6
};

static inline unsigned pop16(uint64_t x)
{
	return pop8[x & 0xFF] + pop8[(x >> 8) & 0xFF];
}

/* May an activate go in slot a? tRRD: no other activate within rrd_slots - 1 slots either side;
 * tFAW: at most four activates in any window of faw_slots slots that contains a. */
static bool act_ok(const struct sb_timing *t, const struct sb_calendar *act, uint64_t a)
{
	unsigned r = t->rrd_slots, f = t->faw_slots;
	uint64_t lo, x;
	unsigned n;

	lo = a >= r - 1 ? a - (r - 1) : 0;
	if (cal_bits(act, lo, (unsigned)(a + r - lo)))
		return false;
	if (f <= 4)
		return true;
	lo = a >= f - 1 ? a - (f - 1) : 0;
	x = cal_bits(act, lo, (unsigned)(a + f - lo));
	if (pop16(x) < 4)
		return true;
	n = (unsigned)(a - lo) + 1; /* windows containing a */
	for (unsigned j = 0; j < n; j++)
		if (pop16((x >> j) & ((1ull << f) - 1)) >= 4)
			return false;
	return true;
}

/* The engine cannot go on: remember why (sb_engine_run turns it into an error). */
static void engine_fault(struct sb_model *m, const char *what, unsigned vault, uint64_t tick)
{
	if (m->fault[0])
		return;
	snprintf(m->fault, sizeof(m->fault),
	         "sim: %s in vault %u at %llu ns (%u attempts): the model's calendars are "
	         "inconsistent",
	         what, vault, (unsigned long long)(tick / SB_TICKS_PER_PS / 1000),
	         m->tm.search_limit);
}

/*
 * Serve one access in a vault under the closed-page policy: the earliest activate slot at or
 * after t_in where the bank is free (tRC since its last activate, precharge done), no refresh
 * window is hit, tRRD and tFAW allow an activate, and the data bus has the access's transfers
 * (plus the turnaround gap) free at the fixed offset tRCD + tCL (reads) or tRCD + tCWL (writes).
 * Returns the tick the last data transfer ends and the activate tick in *t_act.
 */
static uint64_t vault_access(struct sb_model *m, struct sb_vault *v, unsigned bank, uint64_t t_in,
                             bool write, unsigned transfers, uint64_t *t_act)
{
	const struct sb_timing *t = &m->tm;
	uint64_t slot = t->dram_slot;
	unsigned d = write ? t->wr_data_slots : t->rd_data_slots;
	unsigned busy = transfers + t->gap_slots;
	uint64_t occ, a;
	unsigned tries;

	if (write)
		occ = max64(t->tras, t->trcd + t->tcwl + transfers * slot + t->twr) + t->trp;
	else
		occ = max64(t->tras, t->trcd + (transfers - 1) * slot + t->trtp) + t->trp;
	occ = max64(occ, t->trc);
	a = sb_div_up(&t->div_slot, max64(t_in, v->bank_free[bank]));
	for (tries = 0;; tries++) {
		uint64_t r, b;

		if (tries >= t->search_limit) {
			engine_fault(m, "no activate slot found", (unsigned)(v - m->vault),
			             a * slot);
			break;
		}
		r = refresh_fit(m, v, a * slot, occ);
		if (r != a * slot) {
			a = sb_div_up(&t->div_slot, r);
			continue;
		}
		b = cal_find(&v->bus, a + d, busy);
		if (b != a + d) {
			a = b - d;
			continue;
		}
		if (!act_ok(t, &v->act, a)) {
			a++;
			continue;
		}
		break;
	}
	cal_take(&v->bus, a + d, busy);
	cal_take(&v->act, a, 1);
	v->bank_free[bank] = a * slot + occ;
	v->activates++;
	m->act.activates++;
	*t_act = a * slot;
	return (a + d + transfers) * slot;
}

/*
 * Reserve the path of one request submitted by port p at tick t (the request's packet has
 * entered the controller). Returns the tick the response reaches the port, SB_TICK_NEVER if the
 * cube drops it, and for posted writes the tick the data is written. *errstat gets the
 * response's error status.
 */
static uint64_t request_path(struct sb_model *m, struct sb_port *p, uint64_t t, bool write,
                             bool posted, uint64_t addr, unsigned flits, uint8_t *errstat)
{
	const struct sb_timing *tm = &m->tm;
	struct sb_link *l = &m->link[p->link];
	unsigned req_flits = write ? 1 + flits : 1;
	unsigned resp_flits = write ? 1 : 1 + flits;
	unsigned vault = (unsigned)(addr >> m->vault_shift) & (m->nvaults - 1);
	unsigned bank = (unsigned)(addr >> m->bank_shift) & (m->nbanks - 1);
	bool remote = (vault >> 2) != p->link;
	uint64_t xbar = remote ? tm->xbar_remote : tm->xbar_local;
	struct sb_vault *v = &m->vault[vault];
	uint64_t start, t_cube, t_fwd, t_vault, admit, t_act, t_data, t_resp, s;
	unsigned transfers =
	    (unsigned)(((addr & (tm->bus_bytes - 1)) + 16ull * flits + tm->bus_bytes - 1) >>
	               tm->bus_shift);
	unsigned slots, tok = tm->tokens;

	*errstat = 0;
	/* FPGA TX path, then the link's request direction (FCFS among the link's ports). The
	 * packet needs req_flits tokens: the flit that held the last of them must have left the
	 * cube's input buffer. */
	start = max64(t + tm->tx_fixed + tm->tx_transmit +
	                  (uint64_t)req_flits * m->prof.port_flit_cycles * tm->cycle,
	              l->tx_free);
	start = max64(start, l->tok_free[(l->tok_count + req_flits - 1) % tok]);
	l->tx_free = start + (uint64_t)link_slots(tm, req_flits, write) * tm->flit;
	l->req_flits += req_flits;
	m->act.req_flits += req_flits;
	/* Cube input: packets leave the input buffer in order, each when its vault's queue has
	 * room (head of line: later packets on that link wait behind it). */
	t_cube = start + (uint64_t)req_flits * tm->flit + tm->cube_in;
	if (t_cube >= m->hmc.fail_tick)
		return SB_TICK_NEVER;
	t_fwd = max64(t_cube, l->in_fwd);
	admit = v->admit[v->admit_pos];
	if (admit > t_fwd + xbar)
		t_fwd = admit - xbar;
	l->in_fwd = t_fwd;
	for (unsigned i = 0; i < req_flits; i++)
		l->tok_free[(l->tok_count + i) % tok] = t_fwd;
	l->tok_count += req_flits;
	t_vault = t_fwd + xbar;
	t_data = vault_access(m, v, bank, t_vault, write, transfers, &t_act);
	v->admit[v->admit_pos] = t_act;
	if (++v->admit_pos == m->prof.vault_queue)
		v->admit_pos = 0;
	if (write) {
		m->act.writes++;
		m->act.write_bytes += 16ull * flits;
	} else {
		m->act.reads++;
		m->act.read_bytes += 16ull * flits;
	}
	if (posted)
		return sb_div_up(&tm->div_cycle, t_data) * tm->cycle;
	/* Response: back through the crossbar, then the link's response direction. */
	t_resp = t_data + tm->cube_out + xbar;
	if (t_resp >= m->hmc.fail_tick)
		*errstat = ERRSTAT_THERMAL;
	slots = link_slots(tm, resp_flits, !write);
	s = cal_find(&l->rx, sb_div_up(&tm->div_flit, t_resp), slots);
	cal_take(&l->rx, s, slots);
	l->resp_flits += resp_flits;
	m->act.resp_flits += resp_flits;
	/* The response is delivered to the port one 16-byte beat per cycle (writes: one beat). */
	{
		unsigned beats = (write ? 1 : flits) * m->prof.port_flit_cycles;
		uint64_t c = sb_div_up(&tm->div_cycle, (s + resp_flits) * tm->flit + tm->rx_path);

		c = cal_find(&p->rx, c, beats);
		cal_take(&p->rx, c, beats);
		return (c + beats) * tm->cycle;
	}
}

/* ---- trace capture ---------------------------------------------------------------------- */

static inline uint64_t done_first_beat(const struct sb_model *m, const struct sb_done *d);

static void trace_record(struct sb_model *m, const struct sb_port *p, const struct sb_done *d,
                         unsigned tag)
{
	struct sb_trace *tr = &m->trace;
	uint32_t rec[SB_TRACE_RECORD_WORDS];
	uint64_t cyc = sb_div(&m->tm.div_cycle, d->t_issue);
	uint32_t lat = 0;

	if (!tr->enable || !(tr->port_mask & (1u << p->idx)) || d->t_issue < tr->gap_until)
		return;
	/* Issue to the first response beat, as the port's latency monitor counts (the RTL). */
	if (d->t_done != SB_TICK_NEVER && d->t_done > d->t_issue)
		lat = (uint32_t)sb_div(&m->tm.div_cycle, done_first_beat(m, d) - d->t_issue);
	memset(rec, 0, sizeof(rec));
	rec[SB_TRACE_RECORD_TIME_LO_WORD] = (uint32_t)cyc;
	rec[SB_TRACE_RECORD_TIME_HI_WORD] = (uint32_t)(cyc >> 32);
	rec[SB_TRACE_RECORD_ADDR_LO_WORD] = (uint32_t)done_addr(d);
	rec[SB_TRACE_RECORD_ADDR_HI_WORD] |=
	    ((uint32_t)(done_addr(d) >> 32) << SB_TRACE_RECORD_ADDR_HI_SHIFT) &
	    SB_TRACE_RECORD_ADDR_HI_MASK;
	rec[SB_TRACE_RECORD_WRITE_WORD] |= ((uint32_t)done_write(d) << SB_TRACE_RECORD_WRITE_SHIFT);
	rec[SB_TRACE_RECORD_FLITS_WORD] |=
	    ((uint32_t)done_flits(d) << SB_TRACE_RECORD_FLITS_SHIFT) & SB_TRACE_RECORD_FLITS_MASK;
	rec[SB_TRACE_RECORD_TAG_WORD] |=
	    ((uint32_t)tag << SB_TRACE_RECORD_TAG_SHIFT) & SB_TRACE_RECORD_TAG_MASK;
	rec[SB_TRACE_RECORD_PORT_WORD] |=
	    ((uint32_t)p->idx << SB_TRACE_RECORD_PORT_SHIFT) & SB_TRACE_RECORD_PORT_MASK;
	rec[SB_TRACE_RECORD_ERRSTAT_WORD] |=
	    ((uint32_t)done_errstat(d) << SB_TRACE_RECORD_ERRSTAT_SHIFT) &
	    SB_TRACE_RECORD_ERRSTAT_MASK;
	rec[SB_TRACE_RECORD_LATENCY_WORD] = lat;
	rec[SB_TRACE_RECORD_SAMPLE_ID_WORD] = tr->sample_id;
	rec[SB_TRACE_RECORD_SEQ_WORD] = (uint32_t)tr->records;
	rec[SB_TRACE_RECORD_CHECK_WORD] = rec[0] ^ rec[2] ^ rec[3] ^ rec[4] ^ SB_REGMAP_MAGIC;

	if (tr->dma) {
		uint32_t rs = SB_TRACE_RECORD_BYTES;
		void *dst =
		    tr->buf_size >= rs ? sb_model_dma_ptr(m, tr->buf_addr + tr->wr_ptr, rs) : NULL;

		if (!dst) {
			tr->dropped++;
			return;
		} else {
			memcpy(dst, rec, rs);
			tr->records++;
			tr->wr_ptr += rs;
			if (tr->wr_ptr + rs > tr->buf_size) {
				tr->wr_ptr = 0;
				tr->wrapped = true;
			}
		}
	} else if (tr->onchip_count >= tr->onchip_depth) {
		tr->dropped++;
		return; /* a burst counts the records written */
	} else {
		/* The on-chip buffer is a ring: rd_release removes its oldest records. */
		uint32_t slot = (tr->onchip_head + tr->onchip_count) & (tr->onchip_depth - 1);

		memcpy(&tr->onchip[slot * SB_TRACE_RECORD_WORDS], rec, sizeof(rec));
		tr->onchip_count++;
		tr->records++;
	}
	if (tr->burst_len && ++tr->in_burst >= tr->burst_len) { /* burst_len 0: one endless burst */
		tr->in_burst = 0;
		tr->sample_id++;
		tr->gap_until = (cyc + 1 + tr->gap) * m->tm.cycle;
		sb_model_raise_irq(m, SB_IRQ_STATUS_TRACE_READY_MASK);
	}
}

/* ---- ports ------------------------------------------------------------------------------ */

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

static void stream_complete(struct sb_model *m, const struct sb_done *d, bool lost);

/*
 * The cycle after the response's first beat reached the port: where the latency monitors (GUPS
 * ports and stream entries, like the RTL) stop. t_done is after the last beat; a read response
 * has one beat per flit of data, a write response one beat.
 */
static inline uint64_t done_first_beat(const struct sb_model *m, const struct sb_done *d)
{
	unsigned beats = done_write(d) ? 1 : done_flits(d);

	return d->t_done - (uint64_t)(beats - 1) * m->prof.port_flit_cycles * m->tm.cycle;
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
		stream_complete(m, d, lost);
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
		uint64_t lat = done_first_beat(m, d) - d->t_issue;

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
	if (!p->enabled || !p->started || p->stopped_lost || !m->hmc.ready || sb_replay_owns(m, p))
		return false;
	if (p->iter_limit && p->iters >= p->iter_limit)
		return false;
	if (p->outstanding >= flow_limit(m))
		return false;
	if (p->type != SB_TYPE_WO && p->tags >= TAG_DEPTH)
		return false;
	return true;
}

/* A stream group starts once its port is idle (no GUPS traffic running or in flight), then
 * issues its entries back to back. */
static bool stream_pending(const struct sb_model *m, const struct sb_port *p)
{
	if (!m->stream.busy || m->stream.port != p->idx || !p->stream_left || !m->hmc.ready ||
	    p->tags >= TAG_DEPTH)
		return false;
	if (p->stream_left == m->stream.count &&
	    (p->nwb || (p->ndone && !m->stream.t_first) || (p->enabled && p->started)))
		return false;
	return true;
}

/* When will p next have something to do? */
static void port_schedule(struct sb_model *m, struct sb_port *p)
{
	uint64_t t = SB_TICK_NEVER;
	uint64_t cyc = m->tm.cycle;

	if (p->nwb && m->hmc.ready)
		t = max64(p->t_pkt, p->wb[0].t_ready);
	if (port_can_iterate(m, p) || stream_pending(m, p))
		t = min64(t, p->t_free);
	else if (p->ndone && done_first(p) != SB_TICK_NEVER)
		t = min64(t, max64(p->t_free, done_first(p)));
	if (p->type == SB_TYPE_RW && p->ndone && done_first(p) != SB_TICK_NEVER)
		t = min64(t, max64(p->t_free, done_first(p)));
	t = min64(t, sb_replay_next(m, p)); /* request source: trace replay (replay.c) */
	/* Every candidate is a clock edge: t_free, response arrivals, write-back readiness. */
	(void)cyc;
	p->t_next = t;
	m->port_next[p->idx] = t;
}

/* Lowest free tag of the port's pool of 64. */
static unsigned tag_alloc(struct sb_port *p)
{
	unsigned t = (unsigned)__builtin_ctzll(~p->tag_used);

	p->tag_used |= 1ull << t;
	return t;
}

/* Port p submits one request at tick t. */
static void port_issue(struct sb_model *m, struct sb_port *p, uint64_t t, bool write, uint64_t addr,
                       unsigned flits, unsigned stream)
{
	bool posted = write && p->posted && !stream;
	unsigned pkt = write ? 1 + flits : 1;
	struct sb_done d;
	uint8_t errstat;
	uint64_t t_done;
	unsigned tag = write || posted ? 0 : tag_alloc(p);

	/* The port's packet holds its request interface one flit per cycle; a new command waits
	 * cmd_cycles from the last (the read of an rw pair too), a write-back only for the flits. */
	p->t_pkt = t + (uint64_t)pkt * m->prof.port_flit_cycles * m->tm.cycle;
	p->t_free =
	    max64(p->t_free, t + max64(m->tm.cmd_cycles, (uint64_t)pkt * m->prof.port_flit_cycles) *
	                             m->tm.cycle);
	t_done = request_path(m, p, t, write, posted, addr, flits, &errstat);
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
		mem_write(&m->mem, addr, flits, SB_GUPS_WRITE_SEED, false);
	if (m->req_hook) {
		struct sb_model_request r = {t / SB_TICKS_PER_PS, addr,
		                             (uint8_t)p->idx,     write,
		                             (uint8_t)flits,      (uint8_t)tag};

		m->req_hook(m->req_hook_ctx, &r);
	}
	if (m->trace.enable)
		trace_record(m, p, &d, tag);
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

static void stream_issue(struct sb_model *m, struct sb_port *p, uint64_t t);

/* Process port p at its next time. */
static void port_step(struct sb_model *m, struct sb_port *p)
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
		port_issue(m, p, t, true, w.addr, p->flits, 0);
		p->last_wb = true;
	} else if (stream_pending(m, p)) {
		stream_issue(m, p, t);
	} else if (sb_replay_take(m, p, t, &rq)) { /* request source: trace replay */
		port_issue(m, p, t, rq.write, rq.addr, rq.flits, SB_DONE_REPLAY);
		for (uint32_t wk = rq.wake; wk; wk &= wk - 1)
			port_schedule(m, &m->port[__builtin_ctz(wk)]);
	} else if (port_can_iterate(m, p) && t >= p->t_free) {
		uint64_t addr = sb_addrgen_next(&p->gen);

		p->iters++;
		port_issue(m, p, t, p->type == SB_TYPE_WO, addr, p->flits, 0);
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
	p->t_free = max64(p->t_free, div_up(m->now, m->tm.cycle) * m->tm.cycle);
	p->t_pkt = max64(p->t_pkt, p->t_free);
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
		return min64(p->tag_max_life / m->tm.cycle, UINT32_MAX);
	case SB_GUPS_PORT_LOST_TAGS:
		return p->lost;
	case SB_GUPS_PORT_LAT_MIN:
		return p->lat_count ? min64(p->lat_min / m->tm.cycle, UINT32_MAX) : UINT32_MAX;
	case SB_GUPS_PORT_LAT_MAX:
		return min64(p->lat_max / m->tm.cycle, UINT32_MAX);
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
	port_schedule(m, p);
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
		m->port_next[i] = SB_TICK_NEVER;
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
			struct sb_done *d = &p->slots[p->heap[k] & (SB_DONE_MAX - 1)];

			if (d->t_done <= tick || done_errstat(d) == SB_DONE_LOST)
				continue;
			if (d->t_done <= tick + announce) {
				done_set_errstat(d, ERRSTAT_THERMAL);
			} else if (tag_ctrl & SB_GUPS_PORT_TAG_CTRL_DETECT_MASK) {
				d->t_done = max64(d->t_issue + timeout,
				                  sb_div_up(&m->tm.div_cycle, tick) * m->tm.cycle);
				done_set_errstat(d, SB_DONE_LOST);
			} else {
				d->t_done = SB_TICK_NEVER;
			}
		}
		done_rebuild(m, p);
		/* Write-backs not yet issued are abandoned with their reads. */
		p->nwb = 0;
		port_schedule(m, p);
	}
}

void sb_engine_thermal_fail(struct sb_model *m, uint64_t tick)
{
	if (m->hmc.fail_tick != SB_TICK_NEVER)
		return;
	m->hmc.fail_tick = tick;
	m->hmc.thermal_fail = true;
	m->hmc.error = true;
	m->hmc.errstat = ERRSTAT_THERMAL;
	m->hmc.thermal_events++;
	sb_model_raise_irq(m, SB_IRQ_STATUS_THERMAL_MASK | SB_IRQ_STATUS_LINK_ERROR_MASK);
	sb_engine_drop_inflight(m, tick, m->tm.rx_path + ns_ticks(1000));
}

void sb_engine_cube_reset(struct sb_model *m)
{
	m->hmc.fail_tick = SB_TICK_NEVER;
	/* DRAM contents are lost: never-written blocks read new power-up garbage. */
	mem_clear(&m->mem, m->mem.power_seed * 2654435761u + 0x9E3779B9u);
	for (unsigned v = 0; v < m->nvaults; v++) {
		struct sb_vault *vv = &m->vault[v];

		for (unsigned b = 0; b < 16; b++)
			vv->bank_free[b] = max64(vv->bank_free[b], m->now);
	}
}

/* ---- stream GUPS ------------------------------------------------------------------------ */

static void stream_issue(struct sb_model *m, struct sb_port *p, uint64_t t)
{
	unsigned i;

	for (i = 0; i < m->stream.count; i++)
		if (!m->stream.e[i].issued)
			break;
	if (i == m->stream.count) {
		p->stream_left = 0;
		return;
	}
	struct sb_stream_entry *e = &m->stream.e[i];

	e->issued = true;
	p->stream_left--;
	if (!m->stream.t_first)
		m->stream.t_first = t;
	if (e->write && m->stream.integrity)
		mem_write(&m->mem, e->addr, e->flits, m->stream.seed, true);
	port_issue(m, p, t, e->write, e->addr, e->flits, i + 1);
	/* Writes carry no tag but need a completion slot; reads took one in port_issue. */
}

static void stream_complete(struct sb_model *m, const struct sb_done *d, bool lost)
{
	unsigned idx = done_stream(d) - 1;
	struct sb_stream_entry *e;

	if (idx >= m->stream.count || m->stream.e[idx].done)
		return;
	e = &m->stream.e[idx];
	e->done = true;
	e->latency = (uint32_t)min64(sb_div(&m->tm.div_cycle, done_first_beat(m, d) - d->t_issue),
	                             UINT32_MAX);
	e->errstat = (uint8_t)done_errstat(d);
	e->error = done_errstat(d) != 0 || lost;
	if (!e->write && m->stream.integrity && !e->error &&
	    !mem_check(&m->mem, e->addr, e->flits, m->stream.seed)) {
		e->mismatch = true;
		m->stream.mismatches++;
	}
	if (e->error)
		m->stream.error = true;
	m->stream.completed++;
	m->stream.t_last = max64(m->stream.t_last, d->t_done);
	if (m->stream.completed == m->stream.count) {
		m->stream.busy = false;
		m->stream.done = true;
		sb_model_raise_irq(m, SB_IRQ_STATUS_STREAM_DONE_MASK);
	}
}

static void stream_go(struct sb_model *m)
{
	uint32_t base = m->blk_stream;
	uint32_t ctl = sb_regfile_get32(&m->rf, base + SB_STREAM_CONTROL);
	unsigned count = SB_FIELD_GET(SB_STREAM_CONTROL_COUNT, ctl);
	unsigned port = SB_FIELD_GET(SB_STREAM_CONTROL_PORT, ctl);

	if (m->stream.busy || count < 1 || count > SB_STREAM_ENTRIES || port >= m->nports) {
		m->stream.error = true;
		return;
	}
	memset(m->stream.e, 0, sizeof(m->stream.e));
	m->stream.count = count;
	m->stream.port = port;
	m->stream.completed = 0;
	m->stream.mismatches = 0;
	m->stream.busy = true;
	m->stream.done = false;
	m->stream.error = false;
	m->stream.integrity = ctl & SB_STREAM_CONTROL_INTEGRITY_MASK;
	m->stream.seed = sb_regfile_get32(&m->rf, base + SB_STREAM_DATA_SEED);
	m->stream.t_first = 0;
	m->stream.t_last = 0;
	for (unsigned i = 0; i < count; i++) {
		struct sb_stream_entry *e = &m->stream.e[i];
		uint32_t cmd = sb_regfile_get32(&m->rf, base + SB_STREAM_ENTRY_CMD(i));
		unsigned flits = SB_FIELD_GET(SB_STREAM_ENTRY_CMD_FLITS, cmd);

		e->addr = sb_regfile_get64(&m->rf, base + SB_STREAM_ENTRY_ADDR(i)) & SB_ADDR_MASK &
		          ~0xFull;
		e->write = cmd & SB_STREAM_ENTRY_CMD_WRITE_MASK;
		e->flits = (uint8_t)(flits < 1 ? 1 : flits > 8 ? 8 : flits);
	}
	struct sb_port *p = &m->port[port];

	p->stream_left = count;
	p->t_free = max64(p->t_free, div_up(m->now, m->tm.cycle) * m->tm.cycle);
	p->t_pkt = max64(p->t_pkt, p->t_free);
	port_schedule(m, p);
}

uint64_t sb_engine_stream_read(struct sb_model *m, const struct sb_regloc *l, uint64_t stored)
{
	uint32_t reg = l->reg->offset;

	sb_engine_settle(m, m->now);
	if (reg == SB_STREAM_STATUS) {
		return (m->stream.busy ? SB_STREAM_STATUS_BUSY_MASK : 0) |
		       (m->stream.done ? SB_STREAM_STATUS_DONE_MASK : 0) |
		       (m->stream.error ? SB_STREAM_STATUS_ERROR_MASK : 0) |
		       SB_FIELD_PREP(SB_STREAM_STATUS_COMPLETED, m->stream.completed) |
		       SB_FIELD_PREP(SB_STREAM_STATUS_MISMATCHES, m->stream.mismatches);
	}
	if (reg == SB_STREAM_TOTAL_CYCLES)
		return m->stream.t_last > m->stream.t_first
		           ? (m->stream.t_last - m->stream.t_first) / m->tm.cycle
		           : 0;
	if (l->elem < SB_STREAM_ENTRIES && reg == SB_STREAM_ENTRY_CMD(0)) {
		const struct sb_stream_entry *e = &m->stream.e[l->elem];
		uint64_t v =
		    stored & (SB_STREAM_ENTRY_CMD_WRITE_MASK | SB_STREAM_ENTRY_CMD_FLITS_MASK);

		if (e->done)
			v |= SB_STREAM_ENTRY_CMD_DONE_MASK;
		if (e->error)
			v |= SB_STREAM_ENTRY_CMD_ERROR_MASK;
		if (e->mismatch)
			v |= SB_STREAM_ENTRY_CMD_MISMATCH_MASK;
		return v | SB_FIELD_PREP(SB_STREAM_ENTRY_CMD_ERRSTAT, e->errstat);
	}
	if (l->elem < SB_STREAM_ENTRIES && reg == SB_STREAM_ENTRY_LATENCY(0))
		return m->stream.e[l->elem].latency;
	return stored;
}

void sb_engine_stream_write(struct sb_model *m, const struct sb_regloc *l, uint32_t pulses)
{
	if (l->reg->offset == SB_STREAM_CONTROL && (pulses & SB_STREAM_CONTROL_GO_MASK))
		stream_go(m);
}

/* ---- trace registers -------------------------------------------------------------------- */

uint64_t sb_engine_trace_read(struct sb_model *m, const struct sb_regloc *l, uint64_t stored)
{
	struct sb_trace *tr = &m->trace;

	switch (l->reg->offset) {
	case SB_TRACE_STATUS:
		return (tr->enable && tr->in_burst ? SB_TRACE_STATUS_ACTIVE_MASK : 0) |
		       (tr->onchip_count >= tr->onchip_depth ? SB_TRACE_STATUS_FULL_MASK : 0) |
		       (tr->wrapped ? SB_TRACE_STATUS_WRAPPED_MASK : 0);
	case SB_TRACE_WR_PTR:
		return tr->wr_ptr;
	case SB_TRACE_DROPPED:
		return tr->dropped;
	case SB_TRACE_RECORDS:
		return tr->records;
	case SB_TRACE_SAMPLE_ID:
		return tr->sample_id;
	case SB_TRACE_ONCHIP_COUNT:
		return tr->onchip_count;
	case SB_TRACE_RD_DATA: {
		uint32_t idx = tr->rd_index, w = SB_TRACE_RECORD_WORDS;
		/* onchip_depth is a power of two (the RTL's BRAM) */
		uint32_t v =
		    idx < tr->onchip_count * w
		        ? tr->onchip[((tr->onchip_head + idx / w) & (tr->onchip_depth - 1)) * w +
		                     idx % w]
		        : 0;

		tr->rd_index = idx + 1;
		sb_regfile_set32(&m->rf, m->blk_trace + SB_TRACE_RD_INDEX, tr->rd_index);
		return v;
	}
	default:
		return stored;
	}
}

void sb_engine_trace_write(struct sb_model *m, const struct sb_regloc *l, uint32_t value,
                           uint32_t pulses)
{
	struct sb_trace *tr = &m->trace;
	const struct sb_regfile *rf = &m->rf;
	uint32_t b = m->blk_trace;

	if (l->reg->offset == SB_TRACE_RD_INDEX) {
		tr->rd_index = value;
		return;
	}
	if (l->reg->offset == SB_TRACE_RD_RELEASE) {
		uint32_t n = value < tr->onchip_count ? value : tr->onchip_count;

		tr->onchip_head = (tr->onchip_head + n) & (tr->onchip_depth - 1);
		tr->onchip_count -= n;
		tr->rd_index = 0;
		sb_regfile_set32(&m->rf, m->blk_trace + SB_TRACE_RD_INDEX, 0);
		return;
	}
	if (pulses & SB_TRACE_CONTROL_RESET_MASK) {
		tr->in_burst = 0;
		tr->gap_until = 0;
		tr->sample_id = 0;
		tr->records = tr->dropped = 0;
		tr->wr_ptr = 0;
		tr->wrapped = false;
		tr->onchip_count = tr->onchip_head = 0;
		tr->rd_index = 0;
	}
	tr->enable = sb_regfile_get32(rf, b + SB_TRACE_CONTROL) & SB_TRACE_CONTROL_ENABLE_MASK;
	tr->dma = sb_regfile_get32(rf, b + SB_TRACE_CONTROL) & SB_TRACE_CONTROL_DMA_MASK;
	tr->burst_len = sb_regfile_get32(rf, b + SB_TRACE_BURST_LEN);
	tr->gap = sb_regfile_get32(rf, b + SB_TRACE_GAP);
	tr->port_mask = sb_regfile_get32(rf, b + SB_TRACE_PORT_MASK);
	tr->buf_addr = sb_regfile_get64(rf, b + SB_TRACE_BUF_ADDR);
	tr->buf_size = sb_regfile_get32(rf, b + SB_TRACE_BUF_SIZE) / SB_TRACE_RECORD_BYTES *
	               SB_TRACE_RECORD_BYTES;
	if (tr->wr_ptr >= tr->buf_size)
		tr->wr_ptr = 0;
}

/* ---- running ---------------------------------------------------------------------------- */

static void ports_done_irq(struct sb_model *m)
{
	bool any = false;

	for (unsigned i = 0; i < m->nports; i++) {
		const struct sb_port *p = &m->port[i];

		if (!p->started || !p->enabled)
			continue;
		if (!p->iter_limit || p->iters < p->iter_limit || p->ndone || p->nwb)
			return;
		any = true;
	}
	if (any)
		sb_model_raise_irq(m, SB_IRQ_STATUS_PORTS_DONE_MASK);
}

/* The port with the earliest next time (ties: the lowest port number), or NULL. */
static struct sb_port *next_port(struct sb_model *m)
{
	uint64_t best = m->port_next[0];
	unsigned bi = 0;

	/* Branch-free: which port is next is not predictable. */
	for (unsigned i = 1; i < m->nports; i++) {
		uint64_t x = m->port_next[i];
		uint64_t lt = (uint64_t)0 - (uint64_t)(x < best); /* all ones when x < best */

		best ^= (best ^ x) & lt;
		bi ^= (bi ^ i) & (unsigned)lt;
	}
	return best == SB_TICK_NEVER ? NULL : &m->port[bi];
}

static void calendars_advance(struct sb_model *m, uint64_t now)
{
	for (unsigned l = 0; l < m->nlinks; l++)
		cal_advance(&m->link[l].rx, sb_div(&m->tm.div_flit, now));
	for (unsigned i = 0; i < m->nports; i++)
		cal_advance(&m->port[i].rx, sb_div(&m->tm.div_cycle, now));
	for (unsigned v = 0; v < m->nvaults; v++) {
		uint64_t slot = sb_div(&m->tm.div_slot, now);

		/* Activates are checked up to faw_slots back: keep that much history. */
		cal_advance(&m->vault[v].bus, slot);
		cal_advance(&m->vault[v].act, slot > 64 ? slot - 64 : 0);
	}
}

void sb_engine_wake(struct sb_model *m)
{
	for (unsigned i = 0; i < m->nports; i++)
		port_schedule(m, &m->port[i]);
}

int sb_engine_run(struct sb_model *m, uint64_t until)
{
	uint64_t next_advance = m->now;

	sb_engine_ff_resume(m, m->now, until);
	for (;;) {
		struct sb_port *p = next_port(m);

		if (!p || p->t_next >= until)
			break;
		if (m->ff.enable && m->ff.w_end != SB_TICK_NEVER && p->t_next >= m->ff.w_end) {
			sb_engine_ff_try(m, m->ff.w_end, until);
			continue;
		}
		if (p->t_next >= next_advance) {
			calendars_advance(m, p->t_next);
			next_advance = p->t_next + 1024 * m->tm.flit;
		}
		port_step(m, p);
		if (m->fault[0])
			return sb_error_set(SB_ERR_STATE, "%s", m->fault);
	}
	ports_done_irq(m);
	return 0;
}

int sb_engine_init(struct sb_model *m)
{
	const struct sb_profile *pr = &m->prof;
	unsigned cap = pr->max_outstanding + TAG_DEPTH + SB_STREAM_ENTRIES;

	timing_init(m);
	m->nports = pr->ports;
	m->nlinks = pr->links;
	m->nvaults = pr->vaults;
	m->nbanks = pr->banks_per_vault;
	m->hmc.fail_tick = SB_TICK_NEVER;
	sb_engine_set_addr_mode(m, 2);
	m->bank_shift = m->vault_shift + 4;
	m->vault = calloc(m->nvaults, sizeof(*m->vault));
	if (!m->vault)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the cube model");
	for (unsigned v = 0; v < m->nvaults; v++) {
		struct sb_vault *vv = &m->vault[v];

		cal_init(&vv->bus, m->tm.dram_slot);
		cal_init(&vv->act, m->tm.dram_slot);
		/* Vaults refresh staggered across the refresh interval. */
		vv->refresh_phase = m->tm.trefi * v / m->nvaults + (pr->seed % 997) * m->tm.cycle;
		vv->admit = calloc(pr->vault_queue, sizeof(*vv->admit));
		if (!vv->admit)
			return sb_error_set(SB_ERR_NOMEM, "out of memory for the cube model");
	}
	for (unsigned l = 0; l < m->nlinks; l++) {
		cal_init(&m->link[l].rx, m->tm.flit);
		m->link[l].tok_free = calloc(m->tm.tokens, sizeof(*m->link[l].tok_free));
		if (!m->link[l].tok_free)
			return sb_error_set(SB_ERR_NOMEM, "out of memory for the links");
	}
	for (unsigned i = 0; i < m->nports; i++) {
		struct sb_port *p = &m->port[i];

		p->idx = i;
		p->link = sb_engine_port_link(m, i);
		cal_init(&p->rx, m->tm.cycle);
		p->cap = cap;
		p->slots = calloc(cap, sizeof(*p->slots));
		p->heap = calloc(cap + 1, sizeof(*p->heap));
		p->free_slots = calloc(cap, sizeof(*p->free_slots));
		p->wb = calloc(cap, sizeof(*p->wb));
		if (!p->slots || !p->heap || !p->free_slots || !p->wb)
			return sb_error_set(SB_ERR_NOMEM, "out of memory for the GUPS ports");
		done_clear(p);
		port_clear_stats(p);
		p->t_next = SB_TICK_NEVER;
	}
	for (unsigned i = 0; i < SB_MAX_PORTS; i++)
		m->port_next[i] = SB_TICK_NEVER;
	m->trace.onchip_depth = SB_TRACE_ONCHIP_DEPTH_RESET;
	m->trace.onchip = calloc(m->trace.onchip_depth, SB_TRACE_RECORD_BYTES);
	if (!m->trace.onchip)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the trace buffer");
	m->trace.burst_len = SB_TRACE_BURST_LEN_RESET;
	m->trace.port_mask = SB_TRACE_PORT_MASK_RESET;
	m->mem.power_seed = (uint32_t)(pr->seed ^ (pr->seed >> 32)) ^ 0xA5A5A5A5u;
	m->ff.enable = true;
	m->ff.base_window = (uint64_t)pr->ff_window_us * 1000000ull * SB_TICKS_PER_PS;
	m->ff.warmup = (uint64_t)pr->ff_warmup_us * 1000000ull * SB_TICKS_PER_PS;
	m->ff.window = m->ff.base_window;
	m->ff.tol_ppm = pr->ff_tolerance_ppm;
	m->ff.need = pr->ff_windows;
	m->ff.w_end = SB_TICK_NEVER;
	return 0;
}

void sb_engine_release(struct sb_model *m)
{
	if (m->vault)
		for (unsigned v = 0; v < m->nvaults; v++)
			free(m->vault[v].admit);
	free(m->vault);
	m->vault = NULL;
	for (unsigned l = 0; l < SB_MAX_LINKS; l++) {
		free(m->link[l].tok_free);
		m->link[l].tok_free = NULL;
	}
	for (unsigned i = 0; i < SB_MAX_PORTS; i++) {
		free(m->port[i].slots);
		free(m->port[i].heap);
		free(m->port[i].free_slots);
		free(m->port[i].wb);
		m->port[i].slots = NULL;
		m->port[i].heap = NULL;
		m->port[i].free_slots = NULL;
		m->port[i].wb = NULL;
	}
	free(m->trace.onchip);
	m->trace.onchip = NULL;
	mem_clear(&m->mem, 0);
}
