/* SPDX-License-Identifier: MIT */
/* Internals shared by the files of the board model. */
#ifndef SB_MODEL_INTERNAL_H
#define SB_MODEL_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "profile.h"
#include "regfile.h"
#include "sb_model.h"

#define SB_MODEL_DMA_MAX 4

struct sb_model_dma {
	void *host;
	size_t len;
	uint64_t bus;
};

struct sb_model {
	struct sb_profile prof;
	struct sb_regfile rf;
	uint64_t now_ps;
	uint32_t blk_board, blk_hmc, blk_irq;
	struct {
		bool ready, thermal_fail, error, init_busy, in_reset;
		uint32_t errstat;
		uint64_t init_done_ps;
		uint32_t crc_errors, link_retries, error_responses, thermal_events;
	} hmc;
	struct sb_model_dma dma[SB_MODEL_DMA_MAX];
	sb_model_request_fn req_hook;
	void *req_hook_ctx;
};

uint64_t sb_model_cycles(const struct sb_model *m);
void sb_model_raise_irq(struct sb_model *m, uint32_t bits);
void *sb_model_dma_ptr(struct sb_model *m, uint64_t bus_addr, size_t len);

#endif /* SB_MODEL_INTERNAL_H */
