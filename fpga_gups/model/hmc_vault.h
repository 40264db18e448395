/* SPDX-License-Identifier: MIT */
/*
 * The HMC family's vault controller: the path of one access through a vault (hmc_vault.c has
 * the rest). Inline because it runs for every request and the request path (hmc_link.c) calls
 * it: refresh windows, the activate rules (tRRD, tFAW) and the closed-page bank and bus
 * reservation.
 */
#ifndef SB_MODEL_HMC_VAULT_H
#define SB_MODEL_HMC_VAULT_H

#include "model_internal.h"

/* The engine cannot go on: remember why (sb_engine_run turns it into an error). */
SB_MODEL_INTERNAL void sb_cube_vault_fault(struct sb_model *m, const char *what, unsigned vault,
                                           uint64_t tick);

/* Refresh: push a bank operation [x, x+len) out of this vault's refresh windows. */
static inline uint64_t refresh_fit(const struct sb_model *m, struct sb_vault *v, uint64_t x,
                                   uint64_t len)
{
	const struct sb_hmc_timing *t = &m->cube.tm;
	uint64_t trefi, rel, start;
	const struct sb_divider *dv;

	/* Most operations fall in the refresh-free span of the last one. */
	if (x >= v->ref_lo && x + len <= v->ref_hi && v->ref_hot == m->hot)
		return x;
	if (x < v->refresh_phase)
		return x + len > v->refresh_phase ? v->refresh_phase + t->trfc : x;
	trefi = m->hot ? t->trefi / 2 : t->trefi;
	dv = m->hot ? &t->div_trefi_hot : &t->div_trefi;
	rel = x - v->refresh_phase - sb_div(dv, x - v->refresh_phase) * trefi;
	start = x - rel;
	v->ref_lo = start + t->trfc;
	v->ref_hi = start + trefi;
	v->ref_hot = m->hot;
	if (rel < t->trfc)
		return start + t->trfc;
	if (x + len > start + trefi)
		return start + trefi + t->trfc;
	return x;
}

/* Four or more bits set? (clears the lowest three) */
static inline bool four_or_more(uint64_t x)
{
	x &= x - 1;
	x &= x - 1;
	x &= x - 1;
	return x != 0;
}

/* May an activate go in slot a? tRRD: no other activate within rrd_slots - 1 slots either side;
 * tFAW: at most four activates in any window of faw_slots slots that contains a. */
static inline bool act_ok(const struct sb_hmc_timing *t, const struct sb_calendar *act, uint64_t a)
{
	unsigned r = t->rrd_slots, f = t->faw_slots;
	uint64_t lo, x;
	unsigned n;

	lo = a >= r - 1 ? a - (r - 1) : 0;
	if (sb_cal_bits(act, lo, (unsigned)(a + r - lo)))
		return false;
	if (f <= 4)
		return true;
	lo = a >= f - 1 ? a - (f - 1) : 0;
	x = sb_cal_bits(act, lo, (unsigned)(a + f - lo)); /* up to 2f - 1 = 31 bits */
	if (!four_or_more(x))
		return true;
	n = (unsigned)(a - lo) + 1; /* windows containing a */
	for (unsigned j = 0; j < n; j++)
		if (four_or_more((x >> j) & ((1ull << f) - 1)))
			return false;
	return true;
}

/*
 * Serve one access in a vault under the closed-page policy: the earliest activate slot at or
 * after t_in where the bank is free (tRC since its last activate, precharge done), no refresh
 * window is hit, tRRD and tFAW allow an activate, and the data bus has the access's transfers
 * (plus the turnaround gap) free at the fixed offset tRCD + tCL (reads) or tRCD + tCWL (writes).
 * Returns the tick the last data transfer ends and the activate tick in *t_act.
 */
static inline uint64_t sb_cube_vault_access(struct sb_model *m, struct sb_vault *v, unsigned bank,
                                            uint64_t t_in, bool write, unsigned transfers,
                                            uint64_t *t_act)
{
	const struct sb_hmc_timing *t = &m->cube.tm;
	uint64_t slot = t->dram_slot;
	unsigned d = write ? t->wr_data_slots : t->rd_data_slots;
	unsigned busy = transfers + t->gap_slots;
	unsigned layer = (bank >> t->layer_shift) & t->layer_mask;
	uint64_t occ, a;
	unsigned tries;

	/* The bank's row cycle: a write until its data is written and recovered (tWR); a read
	 * until tRTP after its last column command, or (read_row_to_data_end) until its last
	 * transfer has left. With layer_row the two banks of a layer share one row cycle. */
	if (write)
		occ = sb_max64(t->tras, t->trcd + t->tcwl + transfers * slot + t->twr) + t->trp;
	else if (t->rd_row_to_data)
		occ = sb_max64(t->tras, t->trcd + t->tcl + transfers * slot) + t->trp;
	else
		occ = sb_max64(t->tras, t->trcd + (transfers - 1) * slot + t->trtp) + t->trp;
	occ = sb_max64(occ, t->trc);
	bank &= t->row_mask;
	a = sb_div_up(&t->div_slot, sb_max64(t_in, v->bank_free[bank]));
	if (!write) {
		/* Write to read on one layer (DRAM die): the read command comes tWTR after the
		 * end of the layer's last write data, unless it goes before that write. */
		uint64_t rd = a * slot + t->trcd;

		if (v->layer_wr_end[layer] && rd >= v->layer_wr_cmd[layer] &&
		    rd < v->layer_wr_end[layer] + t->twtr)
			a = sb_div_up(&t->div_slot, v->layer_wr_end[layer] + t->twtr - t->trcd);
	}
	for (tries = 0;; tries++) {
		uint64_t r, b;

		if (tries >= t->search_limit) {
			sb_cube_vault_fault(m, "no activate slot found",
			                    (unsigned)(v - m->cube.vault), a * slot);
			break;
		}
		r = refresh_fit(m, v, a * slot, occ);
		if (r != a * slot) {
			a = sb_div_up(&t->div_slot, r);
			continue;
		}
		b = sb_cal_find(&v->bus, a + d, busy);
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
	sb_cal_take(&v->bus, a + d, busy);
	sb_cal_take(&v->act, a, 1);
	v->bank_free[bank] = a * slot + occ;
	if (write) {
		v->layer_wr_cmd[layer] = a * slot + t->trcd;
		v->layer_wr_end[layer] = (a + d + transfers) * slot;
	}
	v->activates++;
	m->act.activates++;
	*t_act = a * slot;
	return (a + d + transfers) * slot;
}

#endif /* SB_MODEL_HMC_VAULT_H */
