/* SPDX-License-Identifier: MIT */
/*
 * The HMC memory family of the board model: the FPGA's HMC controller (its TX and RX paths),
 * the serial links with their token flow control, the cube's logic die and crossbar, the vault
 * controllers and the DRAM (hmc_link.c, hmc_vault.c). The family-neutral engine (engine.c,
 * ports.c) calls it through the functions below and nothing else; a second memory family sits
 * behind the same set of calls.
 */
#ifndef SB_MODEL_HMC_H
#define SB_MODEL_HMC_H

#include <stdbool.h>
#include <stdint.h>

#include "calendar.h"
#include "timebase.h"

struct sb_model;

#define SB_HMC_MAX_LINKS 4
#define SB_LINK_TOKENS_MAX 4096
#define SB_HMC_ERRSTAT_THERMAL 0x01u /* ERRSTAT of a response announcing a thermal failure */

/* Timing of the HMC family, converted to ticks (profile values; docs/model.md). */
struct sb_hmc_timing {
	struct sb_divider div_flit, div_slot, div_trefi, div_trefi_hot;
	unsigned bus_shift; /* log2(bus_bytes) */
	uint64_t flit;
	uint64_t tx_fixed;    /* TX path latency besides port occupancy and the link */
	uint64_t tx_transmit; /* transmit overhead */
	uint64_t rx_path;
	uint64_t cube_in, cube_out, xbar_local, xbar_remote;
	uint64_t dram_slot; /* tCCD: the grid of column transfers and activates */
	uint64_t trcd, tcl, tcwl, tras, trc, trp, trtp, twr, twtr, trfc, trefi;
	uint64_t token_return;  /* a freed token reaches the FPGA's link layer: the next response
	                        * packet's build, its first flit, the RX path */
	unsigned rd_data_slots; /* activate to first read transfer, in dram slots */
	unsigned wr_data_slots;
	unsigned rrd_slots;  /* tRRD in dram slots */
	unsigned faw_slots;  /* tFAW in dram slots */
	unsigned gap_slots;  /* idle bus slots after each access (bus turnaround) */
	unsigned packet_gap; /* extra flit times of a data-carrying packet on a link direction */
	unsigned tokens;     /* link flow-control tokens (flits) */
	unsigned bus_bytes;
	unsigned layer_shift, layer_mask; /* a bank's layer: (bank >> layer_shift) & layer_mask */
	unsigned row_mask;                /* a bank's row unit (bank_free index): bank & row_mask */
	bool rd_row_to_data;              /* a read's row stays open until its last data transfer */
	unsigned search_limit; /* attempts a vault may make to place an access (a fault beyond) */
};

struct sb_vault {
	uint64_t bank_free[16]; /* bank ready for the next activate */
	uint64_t refresh_phase; /* offset of this vault's refresh windows */
	/* the refresh-free span [ref_lo, ref_hi) that refresh_fit() last found, under ref_hot */
	uint64_t ref_lo, ref_hi;
	bool ref_hot;
	struct sb_calendar bus; /* data bus transfers (tCCD slots) */
	struct sb_calendar act; /* activates (same slots): tRRD and tFAW are checked on it */
	uint64_t *admit;        /* ring of the last vault_queue admission starts */
	unsigned admit_pos;
	uint64_t *bank_admit; /* per bank, a ring of the last bank_queue activates of its queue */
	uint16_t bank_pos[16];
	uint64_t layer_wr_cmd[8], layer_wr_end[8]; /* last write per layer: command, data end */
	uint64_t activates;
	uint64_t adv_slot; /* the calendars forgot the slots before this (sb_cube_advance) */
};

struct sb_link {
	uint64_t tx_free;      /* request direction: next free (requests arrive in order) */
	uint64_t in_fwd;       /* cube input: the last packet left the input buffer (in order) */
	uint64_t *tok_free;    /* token ring: when the flit that last held each token left */
	unsigned tok_pos;      /* position in the token ring: flits sent so far, modulo its size */
	struct sb_calendar rx; /* response direction */
	uint64_t req_flits, resp_flits;
};

/* The cube and its links. */
struct sb_hmc {
	struct sb_hmc_timing tm;
	unsigned nlinks, nvaults, nbanks;
	unsigned vault_shift, bank_shift; /* from the address-mapping mode */
	struct sb_link link[SB_HMC_MAX_LINKS];
	struct sb_vault *vault; /* nvaults */
	uint64_t adv_slot;      /* the latest sb_cube_advance, in DRAM slots */
};

/* hmc_link.c / hmc_vault.c: set up (timings from the profile, links, vaults) and release. */
SB_MODEL_INTERNAL int sb_cube_init(struct sb_model *m);
SB_MODEL_INTERNAL void sb_cube_release(struct sb_model *m);

/*
 * The path of one request that user port `link`'s controller accepted at tick t: the FPGA's TX
 * path, the link's request direction, the cube, the vault, the DRAM, the response back over
 * the link and the FPGA's RX path. Returns the tick the response reaches the user port's
 * response interface (non-posted), the tick the data is written (posted), or SB_TICK_NEVER if
 * the failed cube drops it; *errstat gets the response's error status.
 */
SB_MODEL_INTERNAL uint64_t sb_cube_request(struct sb_model *m, unsigned link, uint64_t t,
                                           bool write, bool posted, uint64_t addr, unsigned flits,
                                           uint8_t *errstat);

/* Address decoding of the current address-mapping mode (HMC specification, address mapping). */
SB_MODEL_INTERNAL void sb_cube_map(const struct sb_model *m, uint64_t addr, unsigned *vault,
                                   unsigned *bank, unsigned *quadrant);
SB_MODEL_INTERNAL void sb_cube_set_addr_mode(struct sb_model *m, unsigned mode);

/* Forget calendar slots before now (nothing is reserved in the past); how often to do it. */
SB_MODEL_INTERNAL void sb_cube_advance(struct sb_model *m, uint64_t now);
SB_MODEL_INTERNAL uint64_t sb_cube_advance_period(const struct sb_model *m);

/* Fast-forward: the periods a jump must be a multiple of, and moving all time state by dt. */
SB_MODEL_INTERNAL unsigned sb_cube_periods(const struct sb_model *m, uint64_t *period,
                                           unsigned max);
SB_MODEL_INTERNAL void sb_cube_shift(struct sb_model *m, uint64_t dt);

/* A cube reset: the banks are idle from now. How long after a thermal failure responses still
 * leave with an error status (the rest is dropped). */
SB_MODEL_INTERNAL void sb_cube_reset(struct sb_model *m);
SB_MODEL_INTERNAL uint64_t sb_cube_fail_announce(const struct sb_model *m);

/* The refresh interval now (halved above the hot-refresh temperature). */
SB_MODEL_INTERNAL uint64_t sb_cube_trefi(const struct sb_model *m);

/* Vault calendars forget the past when the vault is next used (sb_cube_advance only notes the
 * time): idle vaults cost nothing. The same state as advancing every vault every period. */
static inline void sb_cube_vault_catch_up(const struct sb_hmc *h, struct sb_vault *v)
{
	if (v->adv_slot != h->adv_slot) {
		sb_cal_advance(&v->bus, h->adv_slot);
		/* Activates are checked up to faw_slots back: keep that much history. */
		sb_cal_advance(&v->act, h->adv_slot > 64 ? h->adv_slot - 64 : 0);
		v->adv_slot = h->adv_slot;
	}
}

/* hmc_vault.c: DRAM timings from the profile. */
SB_MODEL_INTERNAL void sb_cube_dram_timing_init(struct sb_model *m);

#endif /* SB_MODEL_HMC_H */
