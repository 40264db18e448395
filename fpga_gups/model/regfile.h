/* SPDX-License-Identifier: MIT */
/*
 * The model's register file: the generated register map turned into storage with the access
 * rules of the description (rw storage, write-1-to-clear, self-clearing pulse bits, read-only
 * words supplied by the model, the 64-bit low-word latch). The model's behaviour hooks in
 * through two callbacks; the decoder is driven entirely by the generated table.
 */
#ifndef SB_MODEL_REGFILE_H
#define SB_MODEL_REGFILE_H

#include <stdbool.h>
#include <stdint.h>

#include "sb_regmap.h"

/* What a word of the register space is. */
struct sb_regloc {
	const struct sb_regmap_reg *reg; /* NULL for a header word or a hole */
	uint32_t block_type;             /* 0 for a hole */
	uint16_t instance;               /* instance of the block (port number) */
	uint16_t elem;                   /* array element */
	uint8_t word;                    /* 0 = low word, 1 = high word of a 64-bit register */
	uint8_t header;                  /* TYPE/VERSION/NEXT word */
};

/*
 * read: return the value of the register at loc (64 bits for 64-bit registers) given what is
 * stored; called for registers with bits that are not plain storage.
 * write: called after a write was applied; value is the stored word, pulses the pulse bits
 * written as 1.
 */
struct sb_regfile_hooks {
	uint64_t (*read)(void *ctx, const struct sb_regloc *loc, uint64_t stored);
	void (*write)(void *ctx, const struct sb_regloc *loc, uint32_t value, uint32_t pulses);
	void *ctx;
};

struct sb_regfile {
	uint32_t nwords;
	uint32_t *value;
	uint32_t *latch; /* high words latched by low-word reads */
	struct sb_regloc *loc;
	struct sb_regfile_hooks hooks;
	/* offset of each block instance, by block index and instance (UINT32_MAX: absent) */
	uint32_t inst_offset[32][16];
};

/*
 * Build the register file from the generated layout; instances of gups_port beyond nports are
 * left out of the block list (the NEXT chain ends at the last present port).
 * Returns 0 or SB_ERR_NOMEM / SB_ERR_INVAL.
 */
int sb_regfile_init(struct sb_regfile *rf, unsigned nports, const struct sb_regfile_hooks *hooks);
void sb_regfile_release(struct sb_regfile *rf);

/* Put every register back to its reset value. */
void sb_regfile_reset(struct sb_regfile *rf);

/* Bus access. Out-of-range offsets return SB_ERR_RANGE (reads give 0xFFFFFFFF). */
int sb_regfile_read(struct sb_regfile *rf, uint32_t offset, uint32_t *value);
int sb_regfile_write(struct sb_regfile *rf, uint32_t offset, uint32_t value);

/* Offset of a block instance, or UINT32_MAX when absent. */
uint32_t sb_regfile_block(const struct sb_regfile *rf, uint32_t type, unsigned instance);

/* Model-side access to stored values (no hooks, no access rules). */
uint32_t sb_regfile_get32(const struct sb_regfile *rf, uint32_t offset);
uint64_t sb_regfile_get64(const struct sb_regfile *rf, uint32_t offset);
void sb_regfile_set32(struct sb_regfile *rf, uint32_t offset, uint32_t value);
void sb_regfile_set64(struct sb_regfile *rf, uint32_t offset, uint64_t value);

#endif /* SB_MODEL_REGFILE_H */
