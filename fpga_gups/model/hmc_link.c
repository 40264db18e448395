/* SPDX-License-Identifier: MIT */
/*
 * The HMC family: the FPGA's HMC controller, the serial links, the cube's logic die and
 * crossbar, and the path of a request through them to a vault (hmc_vault.c) and back.
 *
 * The request direction of a link is a "next free" time (requests reach it in time order); the
 * response direction is a calendar (responses leave the vaults out of order). Token flow
 * control: a packet needs as many tokens as flits, and a token comes back when the flit that
 * held it leaves the cube's link input buffer. Packets leave the input buffer in order, each
 * when its vault's queue has room.
 *
 * See docs/model.md for what is modelled, the parameters and what is left out.
 */
#include <stdlib.h>

#include "hmc_vault.h"
#include "stackbench/error.h"

static void link_timing_init(struct sb_model *m)
{
	const struct sb_profile *p = &m->prof;
	struct sb_hmc_timing *t = &m->cube.tm;
	uint64_t lane_bps = (uint64_t)p->lane_rate_mbps * 1000000ull * p->lanes;
	uint64_t cycle = m->tm.cycle;

	t->flit = (uint64_t)(128.0 * 1e12 * SB_TICKS_PER_PS / (double)lane_bps + 0.5);
	t->tx_fixed = (uint64_t)(p->tx_f2p_cycles + p->tx_arb_cycles + p->tx_seq_crc_cycles +
	                         p->tx_serdes_cycles) *
	              cycle;
	t->tx_transmit = (uint64_t)p->tx_transmit_cycles * cycle;
	t->rx_path = sb_ns_ticks(p->rx_path_ns);
	t->cube_in = sb_ns_ticks(p->cube_in_ns);
	t->cube_out = sb_ns_ticks(p->cube_out_ns);
	t->xbar_local = sb_ns_ticks(p->xbar_local_ns);
	t->xbar_remote = sb_ns_ticks(p->xbar_remote_ns);
	t->packet_gap = p->packet_gap_flits;
	t->token_return = t->cube_out + t->flit + t->rx_path;
	t->tokens = p->link_tokens;
	sb_divider_init(&t->div_flit, t->flit);
}

int sb_cube_init(struct sb_model *m)
{
	const struct sb_profile *pr = &m->prof;
	struct sb_hmc *h = &m->cube;

	link_timing_init(m);
	sb_cube_dram_timing_init(m);
	h->nlinks = pr->links;
	h->nvaults = pr->vaults;
	h->nbanks = pr->banks_per_vault;
	sb_cube_set_addr_mode(m, 2);
	h->vault = calloc(h->nvaults, sizeof(*h->vault));
	if (!h->vault)
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the cube model");
	for (unsigned v = 0; v < h->nvaults; v++) {
		struct sb_vault *vv = &h->vault[v];

		sb_cal_init(&vv->bus, h->tm.dram_slot);
		sb_cal_init(&vv->act, h->tm.dram_slot);
		/* Vaults refresh staggered across the refresh interval. */
		vv->refresh_phase = h->tm.trefi * v / h->nvaults + (pr->seed % 997) * m->tm.cycle;
		vv->admit = calloc(pr->vault_queue, sizeof(*vv->admit));
		vv->bank_admit =
		    calloc((size_t)h->nbanks * pr->bank_queue, sizeof(*vv->bank_admit));
		if (!vv->admit || !vv->bank_admit)
			return sb_error_set(SB_ERR_NOMEM, "out of memory for the cube model");
	}
	for (unsigned l = 0; l < h->nlinks; l++) {
		sb_cal_init(&h->link[l].rx, h->tm.flit);
		h->link[l].tok_free = calloc(h->tm.tokens, sizeof(*h->link[l].tok_free));
		if (!h->link[l].tok_free)
			return sb_error_set(SB_ERR_NOMEM, "out of memory for the links");
	}
	return 0;
}

void sb_cube_release(struct sb_model *m)
{
	struct sb_hmc *h = &m->cube;

	if (h->vault)
		for (unsigned v = 0; v < h->nvaults; v++) {
			free(h->vault[v].admit);
			free(h->vault[v].bank_admit);
		}
	free(h->vault);
	h->vault = NULL;
	for (unsigned l = 0; l < SB_HMC_MAX_LINKS; l++) {
		free(h->link[l].tok_free);
		h->link[l].tok_free = NULL;
	}
}

/*
 * Flit times a packet of n flits holds one direction of a link: its flits back to back (the
 * serializer packs packets without gaps), and for a packet that carries data (write request,
 * read response) the per-packet handling time packet_gap (an assumption, docs/model.md).
 */
static inline unsigned link_slots(const struct sb_hmc_timing *t, unsigned n, bool data)
{
	return n + (data ? t->packet_gap : 0);
}

uint64_t sb_cube_request(struct sb_model *m, unsigned link, uint64_t t, bool write, bool posted,
                         uint64_t addr, unsigned flits, uint8_t *errstat)
{
	struct sb_hmc *h = &m->cube;
	const struct sb_hmc_timing *tm = &h->tm;
	struct sb_link *l = &h->link[link];
	unsigned req_flits = write ? 1 + flits : 1;
	unsigned resp_flits = write ? 1 : 1 + flits;
	unsigned vault = (unsigned)(addr >> h->vault_shift) & (h->nvaults - 1);
	unsigned bank = (unsigned)(addr >> h->bank_shift) & (h->nbanks - 1);
	bool remote = (vault >> 2) != link;
	uint64_t xbar = remote ? tm->xbar_remote : tm->xbar_local;
	struct sb_vault *v = &h->vault[vault];
	uint64_t start, t_cube, t_fwd, t_vault, admit, t_act, t_data, t_resp, s, *bq;
	unsigned transfers =
	    (unsigned)(((addr & (tm->bus_bytes - 1)) + 16ull * flits + tm->bus_bytes - 1) >>
	               tm->bus_shift);
	unsigned slots, tok = tm->tokens, last_tok;

	*errstat = 0;
	/* FPGA TX path, then the link's request direction (FCFS among the link's ports). The
	 * packet needs req_flits tokens: the flit that held the last of them must have left the
	 * cube's input buffer. */
	start = sb_max64(t + tm->tx_fixed + tm->tx_transmit +
	                     (uint64_t)req_flits * m->prof.port_flit_cycles * m->tm.cycle,
	                 l->tx_free);
	last_tok = l->tok_pos + req_flits - 1; /* req_flits <= 16 <= tok: one wrap at most */
	if (last_tok >= tok)
		last_tok -= tok;
	start = sb_max64(start, l->tok_free[last_tok]);
	l->tx_free = start + (uint64_t)link_slots(tm, req_flits, write) * tm->flit;
	l->req_flits += req_flits;
	m->act.req_flits += req_flits;
	/* Cube input: packets leave the input buffer in order, each when its vault's queue has
	 * room (head of line: later packets on that link wait behind it). */
	t_cube = start + (uint64_t)req_flits * tm->flit + tm->cube_in;
	if (t_cube >= m->hmc.fail_tick)
		return SB_TICK_NEVER;
	t_fwd = sb_max64(t_cube, l->in_fwd);
	bq = &v->bank_admit[bank * m->prof.bank_queue + v->bank_pos[bank]];
	admit = sb_max64(v->admit[v->admit_pos], *bq);
	if (admit > t_fwd + xbar)
		t_fwd = admit - xbar;
	l->in_fwd = t_fwd;
	for (unsigned i = 0, k = l->tok_pos; i < req_flits; i++) {
		l->tok_free[k] = t_fwd + tm->token_return;
		if (++k == tok)
			k = 0;
	}
	l->tok_pos = last_tok + 1 == tok ? 0 : last_tok + 1;
	t_vault = t_fwd + xbar;
	sb_cube_vault_catch_up(h, v);
	t_data = sb_cube_vault_access(m, v, bank, t_vault, write, transfers, &t_act);
	v->admit[v->admit_pos] = t_act;
	if (++v->admit_pos == m->prof.vault_queue)
		v->admit_pos = 0;
	*bq = t_act;
	if (++v->bank_pos[bank] == m->prof.bank_queue)
		v->bank_pos[bank] = 0;
	if (write) {
		m->act.writes++;
		m->act.write_bytes += 16ull * flits;
	} else {
		m->act.reads++;
		m->act.read_bytes += 16ull * flits;
	}
	if (posted)
		return t_data;
	/* Response: back through the crossbar, then the link's response direction. */
	t_resp = t_data + tm->cube_out + xbar;
	if (t_resp >= m->hmc.fail_tick)
		*errstat = SB_HMC_ERRSTAT_THERMAL;
	slots = link_slots(tm, resp_flits, !write);
	s = sb_cal_reserve(&l->rx, sb_div_up(&tm->div_flit, t_resp), slots);
	l->resp_flits += resp_flits;
	m->act.resp_flits += resp_flits;
	/* Then the FPGA's RX path to the user port. */
	return (s + resp_flits) * tm->flit + tm->rx_path;
}

void sb_cube_advance(struct sb_model *m, uint64_t now)
{
	struct sb_hmc *h = &m->cube;

	for (unsigned l = 0; l < h->nlinks; l++)
		sb_cal_advance(&h->link[l].rx, sb_div(&h->tm.div_flit, now));
	h->adv_slot = sb_div(&h->tm.div_slot, now); /* vaults: sb_cube_vault_catch_up */
}

uint64_t sb_cube_advance_period(const struct sb_model *m)
{
	return 1024 * m->cube.tm.flit;
}

unsigned sb_cube_periods(const struct sb_model *m, uint64_t *period, unsigned max)
{
	const struct sb_hmc_timing *t = &m->cube.tm;

	if (max < 3)
		return 0;
	period[0] = t->flit;
	period[1] = t->dram_slot;
	period[2] = t->trefi;
	return 3;
}

void sb_cube_shift(struct sb_model *m, uint64_t dt)
{
	struct sb_hmc *h = &m->cube;

	for (unsigned l = 0; l < h->nlinks; l++) {
		struct sb_link *lk = &h->link[l];

		lk->tx_free += dt;
		if (lk->in_fwd)
			lk->in_fwd += dt;
		for (unsigned k = 0; k < h->tm.tokens; k++)
			if (lk->tok_free[k])
				lk->tok_free[k] += dt;
		sb_cal_shift(&lk->rx, dt);
	}
	for (unsigned v = 0; v < h->nvaults; v++) {
		struct sb_vault *vv = &h->vault[v];

		sb_cube_vault_catch_up(h, vv);
		vv->adv_slot += dt / h->tm.dram_slot;
		vv->ref_lo = vv->ref_hi = 0; /* refresh_fit() finds its span again */
		for (unsigned b = 0; b < 16; b++)
			if (vv->bank_free[b])
				vv->bank_free[b] += dt;
		for (unsigned k = 0; k < m->prof.vault_queue; k++)
			if (vv->admit[k])
				vv->admit[k] += dt;
		for (unsigned k = 0; k < h->nbanks * m->prof.bank_queue; k++)
			if (vv->bank_admit[k])
				vv->bank_admit[k] += dt;
		for (unsigned k = 0; k < 8; k++) {
			if (vv->layer_wr_cmd[k])
				vv->layer_wr_cmd[k] += dt;
			if (vv->layer_wr_end[k])
				vv->layer_wr_end[k] += dt;
		}
		sb_cal_shift(&vv->bus, dt);
		sb_cal_shift(&vv->act, dt);
	}
	h->adv_slot += dt / h->tm.dram_slot;
}

uint64_t sb_cube_fail_announce(const struct sb_model *m)
{
	/* Responses that leave the cube within 1 us, plus the RX path, carry the error status. */
	return m->cube.tm.rx_path + sb_ns_ticks(1000);
}
