/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stackbench/error.h"
#include "stackbench/gups.h"
#include "stackbench/pattern.h"

static unsigned log2u(unsigned v)
{
	unsigned l = 0;

	while ((1u << l) < v)
		l++;
	return l;
}

void sb_geometry_fields(const struct sb_geometry *g, unsigned *vault_lo, unsigned *vault_bits,
                        unsigned *bank_lo, unsigned *bank_bits)
{
	*vault_lo = log2u(g->block_bytes);
	*vault_bits = log2u(g->vaults);
	*bank_lo = *vault_lo + *vault_bits;
	*bank_bits = log2u(g->banks_per_vault);
}

int sb_mask_bits(unsigned lo, unsigned hi, uint64_t *mask)
{
	if (lo > hi || hi > 33)
		return sb_error_set(SB_ERR_INVAL, "mask bits %u-%u: need LO <= HI <= 33", lo, hi);
	*mask &= ~(((2ull << hi) - 1) & ~((1ull << lo) - 1));
	return 0;
}

int sb_mask_range(const char *s, uint64_t *mask)
{
	unsigned lo, hi;
	char tail;

	if (sscanf(s, "%u-%u%c", &lo, &hi, &tail) != 2)
		return sb_error_set(SB_ERR_INVAL, "mask '%s': expected LO-HI (bit positions 0..33)",
		                    s);
	return sb_mask_bits(lo, hi, mask);
}

int sb_pattern_masks(const char *name, const struct sb_geometry *g, uint64_t *mask,
                     uint64_t *antimask)
{
	unsigned vlo, vbits, blo, bbits, n, keep;
	char unit[8], tail;

	*mask = SB_ADDR_SPACE_MASK;
	*antimask = 0;
	if (!strcmp(name, "all"))
		return 0;
	sb_geometry_fields(g, &vlo, &vbits, &blo, &bbits);
	if (sscanf(name, "%u%7[a-z]%c", &n, unit, &tail) != 2 || !n || (n & (n - 1)))
		goto bad;
	keep = log2u(n);
	if (!strcmp(unit, "bank")) {
		if (n > g->banks_per_vault)
			return sb_error_set(SB_ERR_INVAL, "pattern '%s': a vault has %u banks",
			                    name, g->banks_per_vault);
		/* Vault 0; the low log2(N) bank bits vary. */
		sb_mask_bits(vlo, vlo + vbits - 1, mask);
		if (keep < bbits)
			sb_mask_bits(blo + keep, blo + bbits - 1, mask);
		return 0;
	}
	if (!strcmp(unit, "vault")) {
		if (n > g->vaults)
			return sb_error_set(SB_ERR_INVAL, "pattern '%s': the cube has %u vaults",
			                    name, g->vaults);
		if (keep < vbits)
			sb_mask_bits(vlo + keep, vlo + vbits - 1, mask);
		return 0;
	}
bad:
	return sb_error_set(SB_ERR_INVAL,
	                    "unknown pattern '%s' (expected all, 1bank 2bank 4bank 8bank 16bank, "
	                    "1vault 2vault 4vault 8vault 16vault)",
	                    name);
}
