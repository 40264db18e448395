/* SPDX-License-Identifier: MIT */
/*
 * The HBM2 board model: a simulated HBM2 card (Alveo U280 by default; U50 / U55C are profiles)
 * carrying the traffic engine of fpga_hbm2/rtl, driven only the way hardware is: 32-bit register
 * reads and writes at byte offsets of the generated register map (board 'hbm2' of regmap.yaml),
 * and explicit advances of simulated time. The same shape as fpga_gups/model/sb_model.h, so the
 * sim: transport can serve either board (docs/hbm2.md, "Phase 2").
 *
 * Nothing outside fpga_hbm2/model and (later) the sim transport includes this header; host code
 * talks to a board through struct sb_transport_ops only.
 */
#ifndef SB_HBM_MODEL_H
#define SB_HBM_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_hbm_model;

/* One key=value option from the sim: URI (e.g. seed=7, ports=4, addr_map=rbc). */
struct sb_hbm_model_opt {
	const char *key;
	const char *value;
};

/*
 * Create a model from a card profile: a name ("u280", found in the profile folders) or a path
 * to a profile YAML file; NULL or "" means "u280". Options override profile parameters.
 * Returns 0, SB_ERR_NOT_FOUND (no such profile), SB_ERR_PARSE (bad profile or option, detail
 * names file/line or key), SB_ERR_NOMEM.
 */
int sb_hbm_model_new(struct sb_hbm_model **out, const char *profile,
                     const struct sb_hbm_model_opt *opts, size_t nopts);
void sb_hbm_model_free(struct sb_hbm_model *m);

/*
 * Whether a sim: profile (a name or a path) is an HBM2 card's: the sim: transport serves the
 * HBM2 board for these and the AC-510 for every other. Never sets an error.
 */
bool sb_hbm_model_claims(const char *profile);

const char *sb_hbm_model_profile_name(const struct sb_hbm_model *m);
const char *sb_hbm_model_profile_path(const struct sb_hbm_model *m);

/*
 * Register access at a byte offset; offsets outside the register space read 0xFFFFFFFF, ignore
 * writes and return SB_ERR_RANGE. Returns 0 otherwise.
 */
int sb_hbm_model_read32(struct sb_hbm_model *m, uint32_t offset, uint32_t *value);
int sb_hbm_model_write32(struct sb_hbm_model *m, uint32_t offset, uint32_t value);

/* Bytes of register space (the BAR size a transport reports). */
uint32_t sb_hbm_model_regspace_size(const struct sb_hbm_model *m);

/* Simulated time since the model was created, in picoseconds. */
uint64_t sb_hbm_model_now_ps(const struct sb_hbm_model *m);

/* Run the model for dt_ps of simulated time. Returns 0 or a negative SB_ERR_*. */
int sb_hbm_model_advance(struct sb_hbm_model *m, uint64_t dt_ps);

/* Interrupt lines: the design has none yet (always 0). */
uint32_t sb_hbm_model_irq_pending(const struct sb_hbm_model *m);

/*
 * Observation for tests and co-simulation (not used by host code): every AXI burst an engine
 * issues (AR or AW handshake), in issue order, and what the model made of it.
 */
enum { SB_HBM_PAGE_HIT = 0, SB_HBM_PAGE_CLOSED = 1, SB_HBM_PAGE_MISS = 2 };

struct sb_hbm_model_request {
	uint64_t time_ps;  /* handshake */
	uint64_t first_ps; /* first R beat (reads) or B (writes) at the port */
	uint64_t done_ps;  /* RLAST or B */
	uint64_t addr;     /* 34-bit AXI address */
	uint64_t seq;      /* burst number since the port's start */
	uint8_t port;
	uint8_t id;
	uint8_t beats; /* 1..16 */
	uint8_t write;
	uint8_t pc;   /* destination pseudo channel 0..31 */
	uint8_t hops; /* mini-switch boundaries crossed */
	uint8_t page; /* SB_HBM_PAGE_* of its first beat's bank */
	uint8_t resp; /* 0 OKAY, 3 DECERR (other stack) */
};
typedef void (*sb_hbm_request_fn)(void *ctx, const struct sb_hbm_model_request *req);

void sb_hbm_model_set_request_hook(struct sb_hbm_model *m, sb_hbm_request_fn fn, void *ctx);

/* Coupling with the bench model (the simulated bench drives these; host code never does). */
struct sb_hbm_model_activity {
	uint64_t reads, writes;           /* AXI bursts served */
	uint64_t read_bytes, write_bytes; /* payload moved */
	uint64_t activates;               /* row activations, all pseudo channels */
	uint64_t refreshes; /* refresh commands (all-bank: per PC; single-bank: per bank) */
};

void sb_hbm_model_get_activity(const struct sb_hbm_model *m, struct sb_hbm_model_activity *a);

/* The stacks' temperature (both), for temperature-controlled refresh and hbm_card.hbm_temp. */
void sb_hbm_model_set_temperature(struct sb_hbm_model *m, double stack_c);

#endif /* SB_HBM_MODEL_H */
