/* SPDX-License-Identifier: MIT */
/*
 * The board-model interface: the simulated AC-510 (GUPS engine, FPGA infrastructure, HMC
 * controller, links and cube) as the `sim:` transport sees it. It is driven only the way
 * hardware is: 32-bit register reads and writes at byte offsets of the generated register map,
 * host memory made visible for DMA, interrupt lines, and — since a model has no clock of its
 * own — explicit advances of simulated time.
 *
 * Nothing outside fpga_gups/model and the sim transport includes this header; host code talks
 * to the board through struct sb_transport_ops only.
 */
#ifndef SB_MODEL_H
#define SB_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sb_model;

/* One key=value option from the `sim:` URI (e.g. seed=7, links=4). */
struct sb_model_opt {
	const char *key;
	const char *value;
};

/*
 * Create a model from a device profile: a name ("hmc-gen2-ac510", found in the profile
 * folders) or a path to a profile YAML file; NULL or "" means the default profile. Options
 * override profile parameters. Returns 0, SB_ERR_NOT_FOUND (no such profile),
 * SB_ERR_PARSE (bad profile or option, detail names file/line or key), SB_ERR_NOMEM.
 */
int sb_model_new(struct sb_model **out, const char *profile, const struct sb_model_opt *opts,
                 size_t nopts);
void sb_model_free(struct sb_model *m);

/* The name of the profile the model was built from. */
const char *sb_model_profile_name(const struct sb_model *m);
/* The file it was read from ("" for the built-in default). */
const char *sb_model_profile_path(const struct sb_model *m);

/*
 * Register access at a byte offset; offsets outside the register space read 0xFFFFFFFF and
 * ignore writes (like an unclaimed PCIe read), and return SB_ERR_RANGE. Returns 0 otherwise.
 */
int sb_model_read32(struct sb_model *m, uint32_t offset, uint32_t *value);
int sb_model_write32(struct sb_model *m, uint32_t offset, uint32_t value);

/* Bytes of register space (the BAR size the transport reports). */
uint32_t sb_model_regspace_size(const struct sb_model *m);

/* Simulated time since the model was created, in picoseconds. */
uint64_t sb_model_now_ps(const struct sb_model *m);

/* Run the model for dt_ps of simulated time. Returns 0 or a negative SB_ERR_*. */
int sb_model_advance(struct sb_model *m, uint64_t dt_ps);

/*
 * DMA: make len bytes of host memory visible to the model at a bus address (what the driver's
 * DMA-coherent buffer is on hardware). The model writes trace records there.
 */
int sb_model_dma_map(struct sb_model *m, void *host, size_t len, uint64_t *bus_addr);
void sb_model_dma_unmap(struct sb_model *m, uint64_t bus_addr);

/* Interrupt lines: the irq block's pending bits (status & mask). */
uint32_t sb_model_irq_pending(const struct sb_model *m);

/*
 * Observation for tests and co-simulation (not used by host code): every request the GUPS
 * engine submits to the HMC controller, in submission order.
 */
struct sb_model_request {
	uint64_t time_ps; /* submission time */
	uint64_t addr;    /* 34-bit byte address */
	uint8_t port;
	uint8_t write; /* 0 read, 1 write */
	uint8_t flits; /* data flits 1..8 */
	uint8_t tag;
};
typedef void (*sb_model_request_fn)(void *ctx, const struct sb_model_request *req);

/* Install (fn != NULL) or remove the request observer. */
void sb_model_set_request_hook(struct sb_model *m, sb_model_request_fn fn, void *ctx);

/*
 * Coupling with the bench model (the simulated bench's thermal and power model drives these;
 * host code never does).
 */
struct sb_model_activity {
	uint64_t reads, writes;           /* requests served by the DRAM */
	uint64_t read_bytes, write_bytes; /* payload moved */
	uint64_t req_flits, resp_flits;   /* flits on all links, per direction */
	uint64_t activates;               /* DRAM row activations */
	uint64_t refreshes;               /* all-bank refreshes (all vaults) */
};

/* Cumulative activity since the model was created (extrapolated over fast-forward). */
void sb_model_get_activity(const struct sb_model *m, struct sb_model_activity *a);

/* Junction temperature of the cube, for temperature-dependent refresh (2x above 85 C). */
void sb_model_set_temperature(struct sb_model *m, double junction_c);

/* Put the cube into thermal failure now: error responses, then no service until reset. */
void sb_model_thermal_failure(struct sb_model *m);

/* True while the cube is in thermal failure (until a cube reset). */
bool sb_model_failed(const struct sb_model *m);

#endif /* SB_MODEL_H */
