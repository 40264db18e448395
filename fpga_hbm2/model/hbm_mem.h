/* SPDX-License-Identifier: MIT */
/*
 * The HBM2 memory system of the board model: the AXI switch of each stack (mini-switches with
 * their lateral connections) and the pseudo channels (memory controller queue, banks and bank
 * groups, open / closed page, refresh, the DRAM data bus). docs/hbm2.md describes what is
 * modelled and from which sources.
 *
 * Time is in ticks: the least common multiple of the AXI and HBM clock rates makes both clock
 * periods whole numbers of ticks (on the U280, 450 and 900 MHz: a tick is one memory clock).
 * Every resource is a next-free time or a reservation list with a few gaps (struct hbm_gaps),
 * so a burst is placed on its whole path when it is issued; nothing is allocated per burst.
 */
#ifndef SB_HBM_MEM_H
#define SB_HBM_MEM_H

#include <stdbool.h>
#include <stdint.h>

#include "hbm_profile.h"
#include "hbm_traffic.h"

#define SB_HBM_NEVER UINT64_MAX
#define SB_HBM_MAX_PORTS 32
#define SB_HBM_MAX_BANKS 32
#define SB_HBM_GAPS 8

/* Division by a constant without a divide instruction (exact below 2^60). */
struct hbm_div {
	uint64_t d, m;
	unsigned shift;
};

static inline uint64_t hbm_div(const struct hbm_div *v, uint64_t x)
{
	return (uint64_t)(((unsigned __int128)x * v->m) >> v->shift);
}

/*
 * A resource reserved in slots of one tick: everything before `frontier` is taken except up to
 * SB_HBM_GAPS holes left by reservations placed after a wait; a later request may fill a hole
 * (the controller's reordering) when backfill is allowed.
 */
struct hbm_gaps {
	uint64_t frontier;
	uint64_t gs[SB_HBM_GAPS], ge[SB_HBM_GAPS];
	unsigned n;
};

struct hbm_bank {
	uint64_t t_act; /* earliest next activate (tRC, tRP after a precharge) */
	uint64_t t_col; /* earliest next column command */
	uint64_t t_pre; /* earliest precharge (tRAS, tRTP, tWR) */
	uint32_t row;
	uint32_t epoch; /* refresh epoch in which the row was opened */
	bool open;
};

/*
 * The activates of a pseudo channel that tRRD and tFAW are checked against, whatever the
 * order in which they were placed: the latest SB_HBM_ACTS, sorted by time.
 */
#define SB_HBM_ACTS 32
struct hbm_act {
	uint64_t t[SB_HBM_ACTS];
	uint8_t bg[SB_HBM_ACTS];
	unsigned n;
};

struct hbm_pc {
	struct hbm_bank bank[SB_HBM_MAX_BANKS];
	struct hbm_gaps bus; /* the pseudo channel's DQ */
	uint64_t *queue;     /* the controller queue: leave times of its requests, a min-heap */
	struct hbm_act as;
	uint64_t phase;    /* refresh phase of this pseudo channel */
	uint64_t last_end; /* end of the last data burst placed, and its direction */
	bool last_write;
	uint64_t activates, hits, closed, misses;
};

/* Timing in ticks. */
struct hbm_timing {
	uint64_t ticks_per_s;
	uint64_t ck, cyc; /* memory clock, AXI clock */
	struct hbm_div div_cyc, div_ref, div_ref_hot;
	uint64_t tcl, tcwl, trcd, trp, tras, trc, trrd_s, trrd_l, tfaw, twr, trtp, twtr, trtw;
	uint64_t tccd_s, tccd_l, trfc, trefi, trfcsb;
	uint64_t cmd, rd, wr_resp, sw, hop; /* path latencies */
	uint64_t dead;                      /* lateral write dead time */
};

struct hbm_mem {
	const struct sb_hbm_profile *prof;
	struct hbm_timing tm;
	struct sb_hbm_mc_config mc; /* in effect */
	unsigned npcs, nbanks, bg_bits, low_bits, row_bits;
	unsigned pc_shift; /* log2 of a pseudo channel's bytes */
	uint64_t beat_gap; /* DQ time between two beats of one burst (tCCD_S or tCCD_L) */
	/* a burst of n beats occupies the DQ, a lateral and the R channel for occ[n] ticks
	 * ((n - 1) x beat_gap + tCCD_S, rounded up to the AXI clock), set by hbm_mem_configure */
	uint64_t occ[SB_HBM_MAX_BEATS + 1];
	struct hbm_pc pc[SB_HBM_MAX_PORTS];
	/* the switches' lateral connections: per stack, boundary between mini-switches, the
	 * direction of the requests they carry (0: to higher port numbers), lane (the masters
	 * sharing it) and AXI channel (0: read data, 1: write data, separate wires) */
	struct hbm_gaps lateral[2][8][2][4][2];
	uint8_t lateral_last[2][8][2][4]; /* port that last used a write lateral (+1; 0 = none) */
	struct hbm_gaps port_r[SB_HBM_MAX_PORTS]; /* each port's R channel */
	/* refresh: windows start at ref_t0 + phase + k * period */
	uint64_t ref_t0, ref_period, ref_base; /* ref_base: refreshes counted before ref_t0 */
	const struct hbm_div *rdiv;            /* division by ref_period */
	uint32_t ref_e0;
	bool hot;
	uint64_t requests;
	uint64_t now; /* issue time of the burst being placed */
};

/* One burst as an engine hands it to the memory system. */
struct hbm_xfer {
	uint64_t t_issue; /* AR / AW handshake (ticks, on an AXI clock edge) */
	uint64_t t_wlast; /* writes: the last W beat leaves the port */
	uint64_t addr;    /* 34-bit AXI address */
	uint8_t port, beats;
	bool write;
};

struct hbm_result {
	uint64_t t_first; /* first R beat at the port (reads), B (writes) */
	uint64_t t_done;  /* RLAST or B */
	uint8_t resp, page, pc, hops;
};

int hbm_mem_init(struct hbm_mem *m, const struct sb_hbm_profile *p, uint64_t seed);
void hbm_mem_release(struct hbm_mem *m);
/* Put every resource back to idle at time now (a new controller configuration). */
void hbm_mem_configure(struct hbm_mem *m, const struct sb_hbm_mc_config *mc, uint64_t now);
/* Serve one burst: reserve its whole path and say when it completes. */
void hbm_mem_serve(struct hbm_mem *m, const struct hbm_xfer *x, struct hbm_result *r);
/* Temperature-controlled refresh: hot doubles the refresh rate from now on. */
void hbm_mem_set_hot(struct hbm_mem *m, bool hot, uint64_t now);
/* Refresh commands up to now (all pseudo channels). */
uint64_t hbm_mem_refreshes(const struct hbm_mem *m, uint64_t now);
/* Round a tick up to the next AXI clock edge. */
static inline uint64_t hbm_cycle_up(const struct hbm_mem *m, uint64_t t)
{
	uint64_t q = hbm_div(&m->tm.div_cyc, t);

	return q * m->tm.cyc == t ? t : (q + 1) * m->tm.cyc;
}

uint64_t hbm_mem_cycle_up(const struct hbm_mem *m, uint64_t t);

#endif /* SB_HBM_MEM_H */
