/* SPDX-License-Identifier: MIT */
#include <stdlib.h>
#include <string.h>

#include "hbm_regs.h"
#include "stackbench/error.h"

uint32_t sb_hbm_regs_offset(const struct sb_regmap_board *board, uint32_t type, unsigned i)
{
	for (unsigned k = 0; k < board->nlayout; k++) {
		const struct sb_regmap_instance *in = &board->layout[k];

		if (sb_regmap_blocks[in->block].type == type && i < in->count)
			return in->offset + i * in->stride;
	}
	return UINT32_MAX;
}

/* Registers that are plain rw storage need no hook on reads. */
static bool plain(const struct sb_regmap_reg *r)
{
	if (r->access != SB_ACC_RW)
		return false;
	for (unsigned w = 0; w < r->width / 32u; w++)
		if (r->write_mask[w] != UINT32_MAX)
			return false;
	return true;
}

static void place_block(struct sb_hbm_regs *rf, unsigned bi, unsigned inst, uint32_t base)
{
	const struct sb_regmap_block *b = &sb_regmap_blocks[bi];
	uint32_t hw = base / 4;

	for (unsigned h = 0; h < 3; h++) {
		rf->loc[hw + h].header = true;
		rf->loc[hw + h].block = (uint16_t)bi;
		rf->loc[hw + h].instance = (uint8_t)inst;
	}
	rf->value[hw] = b->type;
	rf->value[hw + 1] = b->version;
	for (unsigned r = 0; r < b->nregs; r++) {
		const struct sb_regmap_reg *reg = &b->regs[r];

		for (unsigned e = 0; e < reg->count; e++) {
			uint32_t w0 = (base + reg->offset + e * reg->stride) / 4;

			for (unsigned w = 0; w < reg->width / 32u; w++) {
				struct sb_hbm_regloc *l = &rf->loc[w0 + w];

				l->reg = reg;
				l->block = (uint16_t)bi;
				l->instance = (uint8_t)inst;
				l->elem = (uint16_t)e;
				l->word = (uint8_t)w;
				rf->value[w0 + w] = (uint32_t)(reg->reset >> (32 * w));
			}
		}
	}
}

int sb_hbm_regs_init(struct sb_hbm_regs *rf, const struct sb_regmap_board *board,
                     uint32_t limit_type, unsigned limit_count,
                     const struct sb_hbm_regs_hooks *hooks)
{
	uint32_t prev = UINT32_MAX; /* word index of the previous block's header */

	memset(rf, 0, sizeof(*rf));
	if (board->size % 4 || board->size < 0x100)
		return sb_error_set(SB_ERR_INVAL, "register space of board '%s': %u bytes",
		                    board->name, board->size);
	rf->nwords = board->size / 4;
	rf->value = calloc(rf->nwords, sizeof(*rf->value));
	rf->latch = calloc(rf->nwords, sizeof(*rf->latch));
	rf->loc = calloc(rf->nwords, sizeof(*rf->loc));
	if (!rf->value || !rf->latch || !rf->loc) {
		sb_hbm_regs_release(rf);
		return sb_error_set(SB_ERR_NOMEM, "out of memory for the register file of '%s'",
		                    board->name);
	}
	for (uint32_t w = 0; w < rf->nwords; w++)
		rf->loc[w].block = SB_HBM_REGS_NO_BLOCK;
	rf->hooks = *hooks;
	for (unsigned k = 0; k < board->nlayout; k++) {
		const struct sb_regmap_instance *in = &board->layout[k];
		unsigned count = in->count;

		if (sb_regmap_blocks[in->block].type == limit_type && count > limit_count)
			count = limit_count;
		if (count > 255)
			return sb_error_set(SB_ERR_INVAL, "board '%s': %u instances", board->name,
			                    count);
		for (unsigned i = 0; i < count; i++) {
			uint32_t base = in->offset + i * in->stride;

			place_block(rf, in->block, i, base);
			if (prev != UINT32_MAX)
				rf->value[prev + 2] = base;
			prev = base / 4;
		}
	}
	memcpy(rf->latch, rf->value, rf->nwords * sizeof(*rf->value));
	return 0;
}

void sb_hbm_regs_release(struct sb_hbm_regs *rf)
{
	free(rf->value);
	free(rf->latch);
	free(rf->loc);
	rf->value = rf->latch = NULL;
	rf->loc = NULL;
}

int sb_hbm_regs_read(struct sb_hbm_regs *rf, uint32_t offset, uint32_t *value)
{
	uint32_t w = offset / 4, lo;
	const struct sb_hbm_regloc *l;
	uint64_t v;

	*value = 0xFFFFFFFFu;
	if (offset % 4 || w >= rf->nwords)
		return sb_error_set(SB_ERR_RANGE,
		                    "register read at 0x%x outside the register space", offset);
	l = &rf->loc[w];
	if (l->header) {
		*value = rf->value[w];
		return 0;
	}
	if (!l->reg || l->reg->access == SB_ACC_WO) {
		*value = 0;
		return 0;
	}
	if (l->reg->width == 64) {
		/* Read-only halves come from the latch the low word set; rw halves are storage. */
		if (l->word == 1 && l->reg->access != SB_ACC_RW) {
			*value = rf->latch[w];
			return 0;
		}
		lo = w - l->word;
		v = (uint64_t)rf->value[lo + 1] << 32 | rf->value[lo];
		if (!plain(l->reg) && rf->hooks.read)
			v = rf->hooks.read(rf->hooks.ctx, &rf->loc[lo], v);
		rf->latch[lo + 1] = (uint32_t)(v >> 32);
		*value = (uint32_t)(v >> (32 * l->word));
		return 0;
	}
	v = rf->value[w];
	if (!plain(l->reg) && rf->hooks.read)
		v = rf->hooks.read(rf->hooks.ctx, l, v);
	*value = (uint32_t)v & ~l->reg->pulse_mask[0];
	return 0;
}

int sb_hbm_regs_write(struct sb_hbm_regs *rf, uint32_t offset, uint32_t value)
{
	uint32_t w = offset / 4;
	const struct sb_hbm_regloc *l;
	uint32_t wm, pm, cm;

	if (offset % 4 || w >= rf->nwords)
		return sb_error_set(SB_ERR_RANGE,
		                    "register write at 0x%x outside the register space", offset);
	l = &rf->loc[w];
	if (!l->reg)
		return 0;
	wm = l->reg->write_mask[l->word];
	pm = l->reg->pulse_mask[l->word];
	cm = l->reg->w1c_mask[l->word];
	rf->value[w] = ((rf->value[w] & ~wm) | (value & wm)) & ~(value & cm);
	if (rf->hooks.write)
		rf->hooks.write(rf->hooks.ctx, l, rf->value[w], value & pm);
	return 0;
}
