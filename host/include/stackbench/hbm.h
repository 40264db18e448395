/* SPDX-License-Identifier: MIT */
/*
 * Measurement on an HBM2 card (docs/hbm2.md): its identity from the hbm_card block and one
 * point of its AXI3 traffic engines (hbm_port blocks) — program the ports of a port set, start
 * them in the same cycle, let them run on the bench clock, read the counters of a measurement
 * window, stop. Everything is register reads and writes on blocks found by the walk, so it runs
 * unchanged on a card's BAR and on the simulated card (sim:u280).
 */
#ifndef STACKBENCH_HBM_H
#define STACKBENCH_HBM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stackbench/device.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SB_HBM_MAX_PORTS 32
#define SB_HBM_HIST_BINS 16

/* What the transactions do (hbm_port.control.op). */
enum sb_hbm_rw { SB_HBM_RW_READ = 0, SB_HBM_RW_WRITE = 1, SB_HBM_RW_MIX = 2 };

/* The controllers' configuration (hbm_card.mc_config). */
struct sb_hbm_mc {
	unsigned addr_map; /* 0 rbc_bgi, 1 rbc, 2 brc, 3 rcb */
	bool closed_page;
	bool reorder;
	unsigned refresh; /* 0 all_bank, 1 single_bank */
	bool temp_refresh;
};

/* The card as its hbm_card block describes it. */
struct sb_hbm_card {
	uint32_t board_id;
	unsigned engine_kind; /* 1: hbm2_axi */
	unsigned ports;       /* hbm_port blocks found by the walk */
	unsigned stacks, data_bytes;
	unsigned pcs, banks_per_pc, bank_groups, pc_mb;
	uint64_t axi_clock_hz, hbm_clock_hz;
	bool simulated, global_addressing, check;
	bool has_sim; /* the hbm_sim block: controller configuration and temperature settable */
	struct sb_hbm_mc mc;
	unsigned stack_c[2]; /* hbm_temp */
	unsigned cattrip;
	uint32_t serial;
};

/* True when the board carries the HBM2 traffic engine (an hbm_card block). */
bool sb_hbm_is_card(struct sb_device *dev);

/* Read the card's identity. SB_ERR_NOT_FOUND: not an HBM2 card; SB_ERR_NOT_SUPPORTED: an
 * engine kind this host does not know. */
int sb_hbm_card_read(struct sb_device *dev, struct sb_hbm_card *card);

/* Names: "read"/"write"/"mix", "rbc_bgi"/"rbc"/"brc"/"rcb", "open"/"closed",
 * "all_bank"/"single_bank". Parsers return SB_ERR_INVAL naming the choices. */
const char *sb_hbm_rw_name(enum sb_hbm_rw rw);
int sb_hbm_rw_parse(const char *s, enum sb_hbm_rw *rw);
const char *sb_hbm_map_text(unsigned map);
int sb_hbm_map_parse(const char *s, unsigned *map);
int sb_hbm_page_parse(const char *s, bool *closed);
int sb_hbm_refresh_parse(const char *s, unsigned *refresh);

/*
 * Where the ports' traffic goes. LOCAL: port i works in its own pseudo channel (PC i), no
 * mini-switch crossed. SHIFT: port i works in PC i + shift of its stack (modulo 16 per 4H
 * stack), through the switch: shift 4 crosses one mini-switch boundary, and ports M0/M1 (and
 * M2/M3) of a mini-switch then share a lateral. STACK: every port's working set is its whole
 * stack (all 16 PCs).
 */
enum sb_hbm_target_kind { SB_HBM_TARGET_LOCAL = 0, SB_HBM_TARGET_SHIFT, SB_HBM_TARGET_STACK };

struct sb_hbm_target {
	enum sb_hbm_target_kind kind;
	unsigned shift; /* SHIFT: 1..15 */
};

/* "local", "stack", "shiftN" and back. */
int sb_hbm_target_parse(const char *s, struct sb_hbm_target *t);
const char *sb_hbm_target_text(const struct sb_hbm_target *t, char *buf, size_t size);

/* "0-3,8,12-15" (ports below max) into a bit mask; SB_ERR_INVAL naming the problem. */
int sb_hbm_port_set_parse(const char *s, unsigned max, uint32_t *mask);

/* The ports' counters summed since the window began: what a sample during the window sees. */
struct sb_hbm_window {
	uint64_t txns, rd_bytes, wr_bytes;
	uint64_t rd_lat_sum, rd_lat_count; /* AXI cycles */
};

struct sb_hbm_spec {
	uint32_t port_mask; /* ports that issue; 0: every port of the card */
	enum sb_hbm_rw rw;
	unsigned mix_writes;  /* mix: writes per 256 transactions (0..256) */
	bool random;          /* random offsets (else linear by stride) */
	uint32_t burst;       /* bytes per transaction, 32..4096 in steps of 32 */
	uint32_t stride;      /* linear: bytes between transactions (0: burst) */
	uint64_t ws;          /* working set in bytes (0: the target's: a PC, or the stack) */
	unsigned outstanding; /* AXI IDs in flight, 1..64 */
	struct sb_hbm_target target;
	/* The controller (simulated card: hbm_sim.mc_config; a card's bitstream fixes it, and a
	 * value that differs from its hbm_card.mc_config is SB_ERR_MISMATCH). -1: as it is. */
	int addr_map, closed_page, refresh;
	double temp_c;        /* simulated card: the stacks' temperature (0: the model's own) */
	uint64_t warmup_ns;   /* bench time before the measurement window */
	uint64_t duration_ns; /* the measurement window */
	uint32_t seed;
	bool check; /* compare read data with the write pattern */
	/* Latency classes (hbm_port.lat_class, cycles; 0: the card's reset values) and the
	 * histogram (hbm_port.hist_cfg; base 0 and shift 0: the reset values). */
	unsigned hit_max, closed_max;
	unsigned hist_base, hist_shift;
	/* Called every sample_ns of bench time during the window (0 or NULL: none), with t_ns the
	 * bench time since the ports started (warm-up included) and the counters so far; nonzero
	 * stops the ports there (the result covers the window until then: stopped). The same
	 * shape as sb_point_spec.sample of the AC-510's points (a thermal point's instruments). */
	uint64_t sample_ns;
	int (*sample)(void *ctx, uint64_t t_ns, const struct sb_hbm_window *w);
	void *sample_ctx;
};

/* Per port, over the measurement window (min/max: since the start). */
struct sb_hbm_port_result {
	unsigned port, pc; /* the port and the first PC of its working set */
	uint64_t txns, rd_bytes, wr_bytes;
	uint64_t rd_lat_sum, rd_lat_count, wr_lat_sum, wr_lat_count; /* cycles */
	uint32_t rd_lat_min, rd_lat_max, wr_lat_min, wr_lat_max;
	uint32_t cls_hit, cls_closed, cls_miss;
	uint32_t hist[SB_HBM_HIST_BINS];
	uint32_t errors, mismatches, ids_peak;
	double gbps;
};

struct sb_hbm_result {
	unsigned nports;
	struct sb_hbm_port_result port[SB_HBM_MAX_PORTS];
	uint64_t window_ns;  /* bench time of the measurement window */
	double axi_clock_hz; /* the cycles' clock */
	struct sb_hbm_mc mc; /* the controller configuration the point ran with */
	double temp_c;       /* the stacks' temperature at the end (hbm_temp) */
	/* Totals over the ports */
	uint64_t txns, rd_bytes, wr_bytes;
	uint32_t errors, mismatches;
	double gbps; /* payload GB/s (1e9 B/s), reads + writes */
	double rd_lat_avg_ns, rd_lat_min_ns, rd_lat_max_ns; /* 0 without reads */
	double wr_lat_avg_ns, wr_lat_min_ns, wr_lat_max_ns; /* 0 without writes */
	uint64_t cls_hit, cls_closed, cls_miss;             /* read latency classes */
	unsigned hit_max, closed_max;                       /* their limits (cycles) */
	uint64_t hist[SB_HBM_HIST_BINS];
	unsigned hist_base, hist_shift;
	bool stopped; /* the sample hook stopped the window before its duration */
};

/* Defaults: 512 B linear reads, stride = burst, 64 outstanding, every port local, 20 us
 * warm-up, 200 us window, the controller as it is. */
void sb_hbm_spec_init(struct sb_hbm_spec *s);

/*
 * Run a point. Returns 0, SB_ERR_NOT_FOUND (not an HBM2 card), SB_ERR_INVAL (a bad spec,
 * detail names the field), SB_ERR_MISMATCH (a controller setting a card cannot change),
 * SB_ERR_TIMEOUT (the ports did not drain after the stop), or a device error. The ports are
 * stopped on every return after they started.
 */
int sb_hbm_point_run(struct sb_device *dev, const struct sb_hbm_spec *s, struct sb_hbm_result *r);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_HBM_H */
