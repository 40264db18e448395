/* SPDX-License-Identifier: MIT */
/*
 * The HMC family: the vault controllers and the DRAM behind them.
 *
 * Each vault serves its accesses under the closed-page policy: an activate, the column
 * transfers on the vault's data bus (32 B per tCCD), a precharge. The bank is held for its
 * timings (tRC, tRAS, tRCD, tCL / tCWL, tRTP / tWR, tRP), the activates of a vault obey tRRD and
 * tFAW, refresh windows steal bank time, and the data bus is a calendar that accepts
 * reservations out of order (a request to a busy bank does not hold up one to an idle bank).
 * The address mapping (vault and bank bits) is the HMC specification's.
 *
 * See docs/model.md for what is modelled, the parameters and what is left out.
 */
#include <stdio.h>

#include "hmc_vault.h"

/* A DRAM timing in ticks, rounded up to whole DRAM clocks (commands issue on clock edges). */
static uint64_t dram_ticks(double ns, double tck_ns)
{
	double clocks = ns / tck_ns;
	uint64_t n = (uint64_t)clocks;

	if ((double)n < clocks - 1e-9)
		n++;
	return sb_ns_ticks((double)n * tck_ns);
}

void sb_cube_dram_timing_init(struct sb_model *m)
{
	const struct sb_profile *p = &m->prof;
	struct sb_hmc_timing *t = &m->cube.tm;
	double ck = p->tck_ns;

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
	t->twtr = dram_ticks(p->twtr_ns, ck);
	t->trfc = dram_ticks(p->trfc_ns, ck);
	t->trefi = dram_ticks(p->trefi_ns, ck);
	t->rd_data_slots = (unsigned)sb_ceil_div(t->trcd + t->tcl, t->dram_slot);
	t->wr_data_slots = (unsigned)sb_ceil_div(t->trcd + t->tcwl, t->dram_slot);
	t->rrd_slots = (unsigned)sb_ceil_div(dram_ticks(p->trrd_ns, ck), t->dram_slot);
	if (t->rrd_slots < 1)
		t->rrd_slots = 1;
	if (t->rrd_slots > 8)
		t->rrd_slots = 8;
	t->faw_slots = (unsigned)sb_ceil_div(dram_ticks(p->tfaw_ns, ck), t->dram_slot);
	if (t->faw_slots > 16)
		t->faw_slots = 16;
	t->gap_slots = (unsigned)sb_ceil_div(dram_ticks(p->bus_turnaround_ns, ck), t->dram_slot);
	if (t->gap_slots > 8)
		t->gap_slots = 8;
	t->bus_bytes = p->bus_bytes;
	/* Two banks per layer (DRAM die). Which bank bits pick the layer no source gives: the
	 * high bits (banks 2k, 2k+1 on layer k), or with layer_row the low bits, and then the two
	 * banks of a layer share one row cycle (docs/model.md). */
	t->layer_mask = p->banks_per_vault / 2 - 1;
	t->layer_shift = p->layer_row ? 0 : 1;
	t->row_mask = p->layer_row ? t->layer_mask : p->banks_per_vault - 1;
	t->rd_row_to_data = p->read_row_to_data_end != 0;
	t->search_limit = 1u << 20;
	for (t->bus_shift = 0; (1u << t->bus_shift) < t->bus_bytes; t->bus_shift++)
		;
	sb_divider_init(&t->div_slot, t->dram_slot);
	sb_divider_init(&t->div_trefi, t->trefi);
	sb_divider_init(&t->div_trefi_hot, t->trefi / 2);
}

uint64_t sb_cube_trefi(const struct sb_model *m)
{
	return m->hot ? m->cube.tm.trefi / 2 : m->cube.tm.trefi;
}

void sb_cube_map(const struct sb_model *m, uint64_t addr, unsigned *vault, unsigned *bank,
                 unsigned *quadrant)
{
	const struct sb_hmc *h = &m->cube;

	*vault = (unsigned)(addr >> h->vault_shift) & (h->nvaults - 1);
	*bank = (unsigned)(addr >> h->bank_shift) & (h->nbanks - 1);
	*quadrant = *vault >> 2;
}

void sb_cube_set_addr_mode(struct sb_model *m, unsigned mode)
{
	/* Max block 32/64/128 B: vault bits start at 5/6/7 (HMC specification, default mapping). */
	static const unsigned offset_bits[3] = {5, 6, 7};

	if (mode > 2)
		mode = 2;
	m->cube.vault_shift = offset_bits[mode];
	m->cube.bank_shift = m->cube.vault_shift + 4; /* 16 vaults */
}

/* The engine cannot go on: remember why (sb_engine_run turns it into an error). */
void sb_cube_vault_fault(struct sb_model *m, const char *what, unsigned vault, uint64_t tick)
{
	if (m->fault[0])
		return;
	snprintf(m->fault, sizeof(m->fault),
	         "sim: %s in vault %u at %llu ns (%u attempts): the model's calendars are "
	         "inconsistent",
	         what, vault, (unsigned long long)(tick / SB_TICKS_PER_PS / 1000),
	         m->cube.tm.search_limit);
}

void sb_cube_reset(struct sb_model *m)
{
	for (unsigned v = 0; v < m->cube.nvaults; v++) {
		struct sb_vault *vv = &m->cube.vault[v];

		for (unsigned b = 0; b < 16; b++)
			vv->bank_free[b] = sb_max64(vv->bank_free[b], m->now);
	}
}
