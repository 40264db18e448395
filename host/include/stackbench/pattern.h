/* SPDX-License-Identifier: MIT */
/*
 * Access patterns as address masks, built the way the hardware is driven: a pattern names the
 * banks or vaults it covers and becomes a (mask, anti-mask) pair for the GUPS ports, using the
 * cube's address mapping (docs/hmc.md §3: above the block offset come the vault bits, then the
 * bank bits).
 *
 *   all           the whole address space
 *   Nbank         N = 1, 2, 4, 8, 16 banks of vault 0
 *   Nvault        N = 1, 2, 4, 8, 16 vaults (all their banks)
 */
#ifndef STACKBENCH_PATTERN_H
#define STACKBENCH_PATTERN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sb_geometry {
	unsigned vaults;          /* 16 */
	unsigned banks_per_vault; /* 16 (Gen2) or 8 (Gen1) */
	unsigned block_bytes;     /* address-mapping mode: 32, 64 or 128 */
};

/* The address bits of vault and bank fields for a geometry. */
void sb_geometry_fields(const struct sb_geometry *g, unsigned *vault_lo, unsigned *vault_bits,
                        unsigned *bank_lo, unsigned *bank_bits);

/*
 * Masks for a named pattern. Returns 0 or SB_ERR_INVAL (unknown name, or more banks than a
 * vault has; the detail lists the valid names).
 */
int sb_pattern_masks(const char *name, const struct sb_geometry *g, uint64_t *mask,
                     uint64_t *antimask);

/*
 * Parse "LO-HI" (bit positions, LO <= HI <= 33) and clear those bits in *mask: the address bits
 * LO..HI are forced to 0. Returns 0 or SB_ERR_INVAL.
 */
int sb_mask_range(const char *lohi, uint64_t *mask);

/* Clear bits lo..hi of *mask (checked: lo <= hi <= 33). */
int sb_mask_bits(unsigned lo, unsigned hi, uint64_t *mask);

#ifdef __cplusplus
}
#endif

#endif /* STACKBENCH_PATTERN_H */
