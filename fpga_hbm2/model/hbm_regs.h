/* SPDX-License-Identifier: MIT */
/*
 * A register file for any board of the register map (struct sb_regmap_board): storage with the
 * description's access rules (rw storage, write-1-to-clear, self-clearing pulse bits, write-only
 * words reading 0, read-only words supplied by the model, the 64-bit low-word latch), block
 * headers with the NEXT chain, and two hooks through which the model's behaviour comes in. It
 * is driven entirely by the generated table; no offset is written here.
 */
#ifndef SB_HBM_REGS_H
#define SB_HBM_REGS_H

#include <stdbool.h>
#include <stdint.h>

#include "sb_regmap.h"

#define SB_HBM_REGS_NO_BLOCK 0xFFFFu

/* What a word of the register space is. */
struct sb_hbm_regloc {
	const struct sb_regmap_reg *reg; /* NULL for a header word or a hole */
	uint16_t block;                  /* index into sb_regmap_blocks; NO_BLOCK for a hole */
	uint8_t instance;                /* instance of the block (port number) */
	uint8_t word;                    /* 0 = low word, 1 = high word of a 64-bit register */
	uint16_t elem;                   /* array element */
	bool header;                     /* TYPE / VERSION / NEXT */
};

/*
 * read: the value of the register at loc (64 bits for 64-bit registers) given what is stored;
 * called for every register that is not plain rw storage. write: called after a write was
 * applied; value is the stored word, pulses the pulse bits written as 1.
 */
struct sb_hbm_regs_hooks {
	uint64_t (*read)(void *ctx, const struct sb_hbm_regloc *loc, uint64_t stored);
	void (*write)(void *ctx, const struct sb_hbm_regloc *loc, uint32_t value, uint32_t pulses);
	void *ctx;
};

struct sb_hbm_regs {
	uint32_t nwords;
	uint32_t *value;
	uint32_t *latch; /* high words latched by low-word reads */
	struct sb_hbm_regloc *loc;
	struct sb_hbm_regs_hooks hooks;
};

/*
 * Build the register file of a board; instances of the block of type limit_type beyond
 * limit_count are left out (the NEXT chain skips them). Returns 0, SB_ERR_NOMEM or
 * SB_ERR_INVAL (a layout the file cannot hold).
 */
int sb_hbm_regs_init(struct sb_hbm_regs *rf, const struct sb_regmap_board *board,
                     uint32_t limit_type, unsigned limit_count,
                     const struct sb_hbm_regs_hooks *hooks);
void sb_hbm_regs_release(struct sb_hbm_regs *rf);

/* Bus access. Out-of-range or unaligned offsets: SB_ERR_RANGE (reads give 0xFFFFFFFF). */
int sb_hbm_regs_read(struct sb_hbm_regs *rf, uint32_t offset, uint32_t *value);
int sb_hbm_regs_write(struct sb_hbm_regs *rf, uint32_t offset, uint32_t value);

/* Offset of instance i of a block type in a board's layout (UINT32_MAX when absent). */
uint32_t sb_hbm_regs_offset(const struct sb_regmap_board *board, uint32_t type, unsigned i);

/* Model-side access to stored words (no hooks, no access rules). */
static inline uint32_t sb_hbm_regs_get32(const struct sb_hbm_regs *rf, uint32_t off)
{
	return rf->value[off / 4];
}

static inline uint64_t sb_hbm_regs_get64(const struct sb_hbm_regs *rf, uint32_t off)
{
	return (uint64_t)rf->value[off / 4 + 1] << 32 | rf->value[off / 4];
}

static inline void sb_hbm_regs_set32(struct sb_hbm_regs *rf, uint32_t off, uint32_t v)
{
	rf->value[off / 4] = v;
}

#endif /* SB_HBM_REGS_H */
