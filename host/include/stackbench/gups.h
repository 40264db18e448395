/* SPDX-License-Identifier: MIT */
/*
 * Programming the GUPS engine and the HMC controller through the device API. Everything here
 * is register reads and writes at offsets of the generated register map, on blocks found by
 * the walk, so it runs unchanged on hardware and on the simulated board.
 */
#ifndef STACKBENCH_GUPS_H
#define STACKBENCH_GUPS_H

#include <stdbool.h>
#include <stdint.h>

#include "stackbench/device.h"

#ifdef __cplusplus
extern "C" {
#endif

enum sb_req_type {
	SB_REQ_RO = 0, /* read only */
	SB_REQ_WO = 1, /* write only */
	SB_REQ_RW = 2, /* read, then write of the same address */
};

enum sb_addr_gen {
	SB_GEN_RANDOM = 0,
	SB_GEN_LINEAR = 1,
};

#define SB_ADDR_SPACE_MASK 0x3FFFFFFFFull /* 34-bit addresses */

struct sb_port_config {
	enum sb_req_type type;
	unsigned size; /* bytes: 16..128 in steps of 16 */
	enum sb_addr_gen gen;
	uint64_t mask;     /* address bits at 0 are forced to 0 */
	uint64_t antimask; /* address bits at 1 are forced to 1 */
	uint64_t lin_start, lin_end;
	uint32_t lin_step;
	uint64_t seed;       /* random generator seed */
	uint64_t iterations; /* 0 = until stopped */
	bool posted;         /* posted writes (no response) */
};

struct sb_port_counters {
	uint32_t status; /* raw status register */
	uint64_t reads, writes;
	uint64_t read_data_flits;
	uint64_t lat_sum_cycles, lat_count;
	uint32_t lat_min_cycles, lat_max_cycles;
	uint32_t tags_in_use, tag_peak, tag_max_life_cycles, lost_tags;
};

/* What the board is: from the board block. */
struct sb_board_info {
	uint32_t board_id;
	uint32_t ports;
	uint64_t clock_hz;
	unsigned links, lanes, lane_rate_mbps;
	unsigned capacity_gb, vaults, banks_per_vault, hmc_rev;
	bool simulated;
};

struct sb_hmc_status {
	bool ready, thermal_fail, error, init_busy, in_reset;
	unsigned errstat;
	uint32_t link_up;
	unsigned addr_mode_bytes; /* 32, 64 or 128 */
	uint32_t error_responses, thermal_events;
};

/* Name of a request type ("ro", "wo", "rw") and back. */
const char *sb_req_type_name(enum sb_req_type t);
int sb_req_type_parse(const char *s, enum sb_req_type *t);

/* Read the board block. SB_ERR_NOT_FOUND without one. */
int sb_board_info(struct sb_device *dev, struct sb_board_info *info);

/* Offset of port's block; SB_ERR_RANGE if the board has no such port. */
int sb_gups_port_block(struct sb_device *dev, unsigned port, uint32_t *offset);

/*
 * Write a port's configuration (does not start it). SB_ERR_INVAL for a bad size or a mask or
 * address beyond 34 bits (detail says which).
 */
int sb_gups_port_configure(struct sb_device *dev, unsigned port, const struct sb_port_config *c);

/* Start the configured port (clears its counters) / clear its enable bit (it then drains). */
int sb_gups_port_start(struct sb_device *dev, unsigned port);
int sb_gups_port_stop(struct sb_device *dev, unsigned port);

/* Read every counter of a port (64-bit counters low word first). */
int sb_gups_port_read(struct sb_device *dev, unsigned port, struct sb_port_counters *c);

/* The HMC link a port's requests travel on (gups_port.info.link). */
int sb_gups_port_link(struct sb_device *dev, unsigned port, unsigned *link);

/*
 * Wait on the bench clock until every port in port_mask is idle (nothing outstanding), polling
 * every poll_ns. SB_ERR_TIMEOUT after timeout_ns.
 */
int sb_gups_wait_idle(struct sb_device *dev, uint32_t port_mask, uint64_t poll_ns,
                      uint64_t timeout_ns);

/* HMC controller. */
int sb_hmc_status(struct sb_device *dev, struct sb_hmc_status *st);
/* Stop every port, drop outstanding tags, clear counters. */
int sb_hmc_reset_ports(struct sb_device *dev);
/* Address-mapping mode: maximum block size 32, 64 or 128 bytes. */
int sb_hmc_set_addr_mode(struct sb_device *dev, unsigned block_bytes);
/* Set the per-port flow-control threshold (outstanding requests; 0 = off). */
int sb_hmc_set_flow_threshold(struct sb_device *dev, uint32_t requests);

/*
 * Bring the cube back after a failure: reset the cube, reset the transceivers, initialize and
 * wait (bench clock) until ready. SB_ERR_TIMEOUT if not ready within timeout_ns; SB_ERR_THERMAL
 * if the cube reports a thermal failure again right away.
 */
int sb_hmc_recover(struct sb_device *dev, uint64_t timeout_ns);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_GUPS_H */
