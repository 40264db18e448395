/* SPDX-License-Identifier: MIT */
/*
 * Device profiles: every parameter of the board model, read from a YAML file
 * (fpga_gups/model/profiles/NAME.yaml, documented there and in docs/model.md).
 */
#ifndef SB_MODEL_PROFILE_H
#define SB_MODEL_PROFILE_H

#include <stdint.h>

#include "sb_model.h"

#define SB_PROFILE_DEFAULT "hmc-gen2-ac510"

struct sb_profile {
	char name[64];
	char path[512];
	/* board */
	uint32_t board_id;
	uint32_t ports;
	uint64_t user_clock_hz;
	uint32_t serial;
	uint32_t build_id;
	/* links */
	uint32_t links;
	uint32_t lanes;
	uint32_t lane_rate_mbps;
	/* cube */
	uint32_t hmc_rev;
	uint32_t capacity_gb;
	uint32_t vaults;
	uint32_t banks_per_vault;
	/* infrastructure */
	uint64_t init_time_ps; /* link training + cube init after a reset */
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
