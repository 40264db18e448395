/* SPDX-License-Identifier: MIT */
/*
 * HBM2 card profiles: every parameter of the HBM2 board model, read from a YAML file
 * (fpga_hbm2/profiles/NAME.yaml). docs/hbm2.md explains each parameter and its source.
 */
#ifndef SB_HBM_PROFILE_H
#define SB_HBM_PROFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sb_hbm_model.h"

#define SB_HBM_PROFILE_DEFAULT "u280"

enum { SB_HBM_MAP_RBC_BGI = 0, SB_HBM_MAP_RBC = 1, SB_HBM_MAP_BRC = 2, SB_HBM_MAP_RCB = 3 };
enum { SB_HBM_REF_ALL_BANK = 0, SB_HBM_REF_SINGLE_BANK = 1 };

/* The controllers' configuration (hbm_card.mc_config / hbm_sim.mc_config). */
struct sb_hbm_mc_config {
	uint8_t addr_map; /* SB_HBM_MAP_* */
	bool closed_page;
	bool reorder;
	uint8_t refresh; /* SB_HBM_REF_* */
	bool temp_refresh;
};

struct sb_hbm_profile {
	char name[64];
	char path[512];
	uint64_t seed;

	/* card */
	uint32_t board_id, ports, stacks, serial, build_id;
	uint64_t axi_clock_hz, hbm_clock_hz;
	/* geometry (per pseudo channel) */
	uint32_t pc_mb, bank_groups, banks_per_group, row_bits, col_bits;
	/* switch */
	uint32_t global_addressing, ports_per_switch, lateral_lanes, write_dead_cycles;
	uint32_t switch_cycles, hop_cycles;
	/* controller */
	struct sb_hbm_mc_config mc;
	uint32_t queue, cmd_cycles, rd_cycles, wr_resp_cycles;
	double hot_c;
	/* DRAM (ns unless named) */
	double tcl_ns, tcwl_ns, trcd_ns, trp_ns, tras_ns, trc_ns, trrd_s_ns, trrd_l_ns, tfaw_ns;
	double twr_ns, trtp_ns, twtr_ns, trfc_ns, trefi_ns, trfcsb_ns;
	uint32_t tccd_s_ck, tccd_l_ck;
};

/*
 * Find and load a profile by name or path, then apply URI options (ports, seed, addr_map, page,
 * reorder, refresh). Returns 0, SB_ERR_NOT_FOUND, SB_ERR_PARSE (file, line, key named).
 */
int sb_hbm_profile_load(struct sb_hbm_profile *p, const char *name_or_path,
                        const struct sb_hbm_model_opt *opts, size_t nopts);

/* The names of an address map (SB_HBM_MAP_*), page policy and refresh mode, for messages. */
const char *sb_hbm_map_name(unsigned map);

#endif /* SB_HBM_PROFILE_H */
