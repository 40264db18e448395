/* SPDX-License-Identifier: MIT */
/*
 * Device profiles: every parameter of the board model, read from a YAML file
 * (fpga_gups/model/profiles/NAME.yaml). docs/model.md explains each parameter and its source.
 */
#ifndef SB_MODEL_PROFILE_H
#define SB_MODEL_PROFILE_H

#include <stdint.h>

#include "sb_model.h"

#define SB_PROFILE_DEFAULT "hmc-gen2-ac510"

struct sb_profile {
	char name[64];
	char path[512];
	uint64_t seed; /* model randomness (memory power-up contents, refresh phases) */

	/* board */
	uint32_t board_id;
	uint32_t ports;
	uint32_t ports_per_link; /* user ports the controller offers per link */
	uint32_t
	    first_port; /* controller user port of GUPS port 0 (ports before it: PCIe stream) */
	uint64_t user_clock_hz;
	uint32_t serial;
	uint32_t build_id;

	/* links */
	uint32_t links;
	uint32_t lanes;
	uint32_t lane_rate_mbps;
	uint32_t
	    packet_gap_flits; /* flit times a data-carrying packet costs a link direction beyond its
	                            * flits (per-packet handling, calibration) */
	uint32_t link_tokens; /* flow-control tokens (flits of the cube's link input buffer) */

	/* FPGA infrastructure (cycles of the user clock unless named otherwise) */
	uint64_t init_time_ps;       /* link training + cube init after a reset */
	uint32_t port_flit_cycles;   /* cycles per flit on a user port (submission) */
	uint32_t tx_f2p_cycles;      /* FlitsToParallel */
	uint32_t tx_arb_cycles;      /* arbitration without contention */
	uint32_t tx_seq_crc_cycles;  /* sequence number, flow control, CRC */
	uint32_t tx_serdes_cycles;   /* conversion to the SerDes protocol */
	uint32_t tx_transmit_cycles; /* transmit overhead besides one cycle per flit */
	uint32_t port_cmd_cycles; /* a user port takes a command at most every this many cycles */
	uint32_t port_packet_cycles; /* cycles a data-carrying packet (write request, read response)
	                              * holds a user port beyond its flits (per-packet handling) */
	double rx_path_ns;           /* response path from the link to the port */
	uint32_t max_outstanding;    /* hard cap of outstanding requests per port (model memory) */

	/* cube */
	uint32_t hmc_rev;
	uint32_t capacity_mb;
	uint32_t vaults;
	uint32_t banks_per_vault;
	double cube_in_ns;     /* link deserialization and packet decode in the logic die */
	double cube_out_ns;    /* packet encode and serialization start */
	double xbar_local_ns;  /* link to a vault of its own quadrant */
	double xbar_remote_ns; /* link to a vault of another quadrant */
	uint32_t vault_queue;  /* requests a vault controller holds */
	uint32_t bank_queue; /* requests each bank's command queue in the vault controller holds */

	/* DRAM (ns) */
	double tck_ns, tcl_ns, tcwl_ns, trcd_ns, trp_ns, tras_ns, trc_ns, tccd_ns, trrd_ns;
	double tfaw_ns, twr_ns, twtr_ns, trtp_ns, trfc_ns, trefi_ns;
	double bus_turnaround_ns; /* idle vault data bus between the transfers of two accesses */
	uint32_t bus_bytes;       /* vault data bus transfer size */
	double hot_refresh_c;     /* above this temperature refresh runs twice as often */
	uint32_t read_row_to_data_end; /* a read's row stays open until its last data transfer */
	uint32_t layer_row; /* one row cycle at a time per layer; the bank's low bits pick it */

	/* simulation */
	uint32_t ff_warmup_us;     /* fast-forward: simulated before the first window counts */
	uint32_t ff_window_us;     /* fast-forward: convergence window */
	uint32_t ff_tolerance_ppm; /* fast-forward: max relative change between windows */
	uint32_t ff_windows;       /* fast-forward: consecutive converged windows required */
};

/*
 * Find and load a profile by name or path, then apply URI options. Returns 0, SB_ERR_NOT_FOUND,
 * SB_ERR_PARSE (file, line, key named) or SB_ERR_NOMEM.
 */
int sb_profile_load(struct sb_profile *p, const char *name_or_path, const struct sb_model_opt *opts,
                    size_t nopts);

/* Resolve a profile name to a file path in the profile folders. */
int sb_profile_find(const char *name, char *path, size_t size);

#endif /* SB_MODEL_PROFILE_H */
